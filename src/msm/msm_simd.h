/* The arithmetic of a batch of affine additions, eight at a time with
 * AVX-512 IFMA (field/ifma.h), for a coordinate field of 4 limbs below
 * 2^255 (BN254's G1). msm_affine_impl.h classifies the batch, copies each
 * addition's operands into arrays, and hands the multiplications here:
 * Montgomery's trick runs as eight interleaved chains (entry i in lane
 * i mod 8), whose eight products the caller inverts with one scalar
 * inversion, then the slopes and the sums. Values are in the scalar
 * code's Montgomery form (R = 2^256) throughout, so the results are the
 * scalar path's, bit for bit. */
#ifndef ZP_MSM_MSM_SIMD_H
#define ZP_MSM_MSM_SIMD_H

#include <stddef.h>
#include <stdint.h>

#include "field/ifma.h"

typedef struct {
    const zp_ifma_field *f;
    size_t n; /* entries, a multiple of 8 */
    /* per entry, 4 limbs each: the slope's numerator and denominator (set
     * to 1 for entries not computed), x and y of the first point, x of the
     * second */
    const uint64_t (*num)[4], (*den)[4], (*px)[4], (*py)[4], (*qx)[4];
    uint64_t **dst; /* where the sum goes (x, then y); NULL: not computed */
    void *work;     /* zp_msm_simd_work_bytes(n), 64-byte aligned */
} zp_msm_simd_batch;

static inline size_t zp_msm_simd_work_bytes(size_t n) { return 2 * (n / 8) * ZP_IFMA_ELEM_BYTES; }

/* products[k] = the product of den[i] over the entries i = k mod 8 */
void zp_msm_simd_prefix(const zp_msm_simd_batch *b, uint64_t products[8][4]);
/* Given inv[k] = products[k]^-1: for every entry with a dst, the slope
 * λ = num/den and the sum x3 = λ² - px - qx, y3 = λ(px - x3) - py. */
void zp_msm_simd_finish(const zp_msm_simd_batch *b, const uint64_t inv[8][4]);

#endif
