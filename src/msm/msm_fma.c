/* The MSM's batch arithmetic (msm_simd.h) on AVX2 and FMA, for BN254 G1
 * and G2 (coordinates of 4 and 8 words; msm_fma_impl.h, once each):
 * msm_ifma_impl.h's algorithm, eight entries at a time in two four-lane
 * halves, on field/fma_impl.h's products. Taken
 * where the CPU has AVX2 and FMA but not IFMA (zp_fma_enabled), by the
 * streaming path only (msm_impl.h): on the sorted path's small MSMs they
 * measured slower than the scalar code. BLS12-381's groups keep the
 * scalar path on those CPUs: its 6-word field is not ported yet.
 *
 * The results are the scalar path's, bit for bit: values stay in the
 * scalar code's Montgomery form, and the special cases (infinity, equal
 * x, opposite points) are found with masks as the IFMA lanes find them. */
#include "msm/msm_simd.h"

#include <stdlib.h>

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include "field/fma_impl.h"

#define FN __attribute__((target("avx2,fma")))
#ifndef ZP_CAT
#define ZP_CAT_(a, b) a##b
#define ZP_CAT(a, b) ZP_CAT_(a, b)
#endif

#define MSM_EXT 1
#include "msm/msm_fma_impl.h"
#define MSM_EXT 2
#include "msm/msm_fma_impl.h"

#else /* not x86-64: zp_msm_lanes never picks these */

#define MSM_FMA_STUB(W)                                                          \
    void zp_msm_fma##W##_prefix(const zp_msm_simd_batch *b, uint64_t *product) { \
        (void)b, (void)product;                                                  \
        abort();                                                                 \
    }                                                                            \
    void zp_msm_fma##W##_finish(zp_msm_simd_batch *b, const uint64_t *inv) {     \
        (void)b, (void)inv;                                                      \
        abort();                                                                 \
    }
MSM_FMA_STUB(4)
MSM_FMA_STUB(8)
#endif
