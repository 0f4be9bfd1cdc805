/* The eight-lane constant-time multiplication (ct_lanes.h) for both
 * curves' G1 and G2. This file is compiled with -mavx512f -mavx512ifma
 * (CMakeLists.txt); its functions run only after zp_ifma_enabled has seen
 * the CPU support them. Without ZP_IFMA it builds as stubs. */
#define _GNU_SOURCE /* explicit_bzero */
#include "ceremony/ct_lanes.h"

#include <stdlib.h>
#include <string.h>

#if defined(ZP_IFMA)
#define IFMA_NL 5
#define IFMA_NW 4
#include "field/ifma_impl.h"
#define IFMA_NL 8
#define IFMA_NW 6
#include "field/ifma_impl.h"

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

#else /* no IFMA in this build: zp_ifma_enabled never lets these run */

#define CT_LANES_STUB(W)                                                                                       \
    void zp_ct_lanes##W##_mul(uint64_t *out, const uint64_t *const in[8], const zp_p2_ct_scalar *const s[8],   \
                              const zp_ct_lanes_curve *c) {                                                    \
        (void)out, (void)in, (void)s, (void)c;                                                                 \
        abort();                                                                                               \
    }                                                                                                          \
    void zp_ct_lanes##W##_mul_j(uint64_t *out, const uint64_t *const in[8], const zp_p2_ct_scalar *const s[8], \
                                const zp_ct_lanes_curve *c) {                                                  \
        (void)out, (void)in, (void)s, (void)c;                                                                 \
        abort();                                                                                               \
    }                                                                                                          \
    unsigned zp_ct_lanes##W##_in_subgroup(const uint64_t *const in[8], const zp_ct_lanes_curve *c) {           \
        (void)in, (void)c;                                                                                     \
        abort();                                                                                               \
    }
CT_LANES_STUB(4)
CT_LANES_STUB(6)
CT_LANES_STUB(8)
CT_LANES_STUB(12)
#endif
