/* The arithmetic of a batch of affine additions, eight at a time with
 * AVX-512 IFMA (field/ifma.h), for every group: coordinates in a field of
 * 4 words (BN254 G1), 6 words (BLS12-381 G1), or the quadratic extensions
 * of those (the G2s). msm_affine_impl.h classifies the batch, copies each
 * addition's operands into arrays, and hands the multiplications here:
 * Montgomery's trick runs as eight interleaved chains (entry i in lane
 * i mod 8), whose eight products the caller inverts with one scalar
 * inversion, then the slopes and the sums. Values are in the scalar
 * code's Montgomery form throughout, so the results are the scalar
 * path's, bit for bit. */
#ifndef ZP_MSM_MSM_SIMD_H
#define ZP_MSM_MSM_SIMD_H

#include <stddef.h>
#include <stdint.h>

#include "field/ifma.h"

typedef struct {
    const zp_ifma_field *f; /* the base field */
    size_t n;               /* entries, a multiple of 8 */
    /* per entry, one coordinate-field element each (its words as the
     * scalar code stores them): the slope's numerator and denominator (1
     * for entries not computed), x and y of the first point, x of the
     * second */
    const uint64_t *num, *den, *px, *py, *qx;
    uint64_t **dst; /* where the sum goes (x, then y); NULL: not computed */
    void *work;     /* ZP_MSM_SIMD_WORK_BYTES(n), 64-byte aligned */
} zp_msm_simd_batch;

/* Entries go to 8 lanes and ZP_MSM_SIMD_CHAINS interleaved chains: the
 * caller pads n to a multiple of ZP_MSM_SIMD_ALIGN (denominator 1, no
 * dst) and inverts 8·CHAINS products. */
#define ZP_MSM_SIMD_CHAINS 4
#define ZP_MSM_SIMD_ALIGN (8 * ZP_MSM_SIMD_CHAINS)
#define ZP_MSM_SIMD_PRODUCTS (8 * ZP_MSM_SIMD_CHAINS)

/* enough for every group: two elements of eight lanes per 8 entries, an
 * element being up to 2 (extension) x 8 limbs x 64 bytes */
#define ZP_MSM_SIMD_WORK_BYTES(n) (2 * ((n) / 8) * 2 * 8 * 64)

/* For coordinates of W words (4, 6, 8 = 4x2, 12 = 6x2):
 * zp_msm_simdW_prefix: products[8u + k] = the product of den[i] over
 *   the entries i = 8t + k with t = u mod CHAINS (ZP_MSM_SIMD_PRODUCTS
 *   elements);
 * zp_msm_simdW_finish: given inv = those products' inverses, for every
 *   entry with a dst, the slope λ = num/den and the sum x3 = λ² - px - qx,
 *   y3 = λ(px - x3) - py. */
#define ZP_MSM_SIMD_DECLARE(W)                                                  \
    void zp_msm_simd##W##_prefix(const zp_msm_simd_batch *b, uint64_t *products); \
    void zp_msm_simd##W##_finish(const zp_msm_simd_batch *b, const uint64_t *inv);
ZP_MSM_SIMD_DECLARE(4)
ZP_MSM_SIMD_DECLARE(6)
ZP_MSM_SIMD_DECLARE(8)
ZP_MSM_SIMD_DECLARE(12)

#endif
