/* The MSM's eight-lane batch arithmetic (msm_simd.h), for the four
 * coordinate fields. This file is compiled with -mavx512f -mavx512ifma
 * (CMakeLists.txt) and every function in it may use those instructions;
 * they run only after zp_ifma_enabled has seen the CPU support them. Without
 * ZP_IFMA it builds as stubs. */
#include "msm/msm_simd.h"

#include <stdlib.h>

#if defined(ZP_IFMA)
#include "field/ifma_fields.h"

#define IFMA_NL 5
#define IFMA_NW 4
#define MSM_EXT 1
#include "msm/msm_ifma_impl.h"
#define MSM_EXT 2
#include "msm/msm_ifma_impl.h"
#undef IFMA_NL
#undef IFMA_NW
#define IFMA_NL 8
#define IFMA_NW 6
#define MSM_EXT 1
#include "msm/msm_ifma_impl.h"
#define MSM_EXT 2
#include "msm/msm_ifma_impl.h"

#else /* no IFMA in this build: zp_ifma_enabled never lets these run */

#define MSM_SIMD_STUB(W)                                                          \
    void zp_msm_simd##W##_prefix(const zp_msm_simd_batch *b, uint64_t *product) { \
        (void)b, (void)product;                                                   \
        abort();                                                                  \
    }                                                                             \
    void zp_msm_simd##W##_finish(zp_msm_simd_batch *b, const uint64_t *inv) {     \
        (void)b, (void)inv;                                                       \
        abort();                                                                  \
    }
MSM_SIMD_STUB(4)
MSM_SIMD_STUB(6)
MSM_SIMD_STUB(8)
MSM_SIMD_STUB(12)
#endif
