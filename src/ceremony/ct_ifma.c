/* The eight-lane constant-time multiplication (ct_lanes.h) for both
 * curves' G1 and G2. This file is compiled with -mavx512f -mavx512ifma
 * (CMakeLists.txt); its functions run only after zp_ifma_enabled has seen
 * the CPU support them. Without ZP_IFMA there are none. */
#define _GNU_SOURCE /* explicit_bzero */
#include "ceremony/ct_lanes.h"

#include <string.h>

#if defined(ZP_IFMA)
#include "field/ifma_fields.h"

#define IFMA_NL 5
#define IFMA_NW 4
#define CT_EXT 1
#include "ceremony/ct_ifma_impl.h"
#define CT_EXT 2
#include "ceremony/ct_ifma_impl.h"
#undef IFMA_NL
#undef IFMA_NW
#define IFMA_NL 8
#define IFMA_NW 6
#define CT_EXT 1
#include "ceremony/ct_ifma_impl.h"
#define CT_EXT 2
#include "ceremony/ct_ifma_impl.h"
#undef IFMA_NL
#undef IFMA_NW

#define CT_LANES_KERNELS(W, CHECKED) \
    { zp_ct_lanes##W##_mul, zp_ct_lanes##W##_sum_pub, zp_ct_lanes##W##_mul_j, zp_ct_lanes##W##_in_subgroup, CHECKED }
static const zp_ct_lanes_kernels lanes4 = CT_LANES_KERNELS(4, NULL),
                                 lanes6 = CT_LANES_KERNELS(6, zp_ct_lanes6_mul_checked),
                                 lanes8 = CT_LANES_KERNELS(8, NULL), lanes12 = CT_LANES_KERNELS(12, NULL);

const zp_ct_lanes_kernels *zp_ct_lanes_get(size_t words) {
    switch (words) {
    case 4: return &lanes4;
    case 6: return &lanes6;
    case 8: return &lanes8;
    case 12: return &lanes12;
    default: return NULL;
    }
}

#else /* no IFMA in this build: no lanes */

const zp_ct_lanes_kernels *zp_ct_lanes_get(size_t words) {
    (void)words;
    return NULL;
}
#endif
