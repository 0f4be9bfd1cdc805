/* The arithmetic of a batch of affine additions, eight at a time with
 * AVX-512 IFMA (field/ifma.h), for every group: coordinates in a field of
 * 4 words (BN254 G1), 6 words (BLS12-381 G1), or the quadratic extensions
 * of those (the G2s). msm_affine_impl.h hands its pending pairs here as
 * they are: the lanes gather the points, negate, find the special cases
 * (infinity, equal x) with masks, and run Montgomery's trick as eight
 * interleaved chains (entry i in lane i mod 8), whose products the lanes
 * multiply into one for the caller's one scalar inversion (a batch
 * inversion of the 32 chain products, as before, cost more scalar
 * multiplications than some batches have additions), then the slopes and
 * the sums.
 * Copying and subtracting the operands one pair at a time in scalar code
 * first was a quarter of a small MSM. Values are in the scalar code's
 * Montgomery form throughout, so the results are the scalar path's, bit
 * for bit. */
#ifndef ZP_MSM_MSM_SIMD_H
#define ZP_MSM_MSM_SIMD_H

#include <stddef.h>
#include <stdint.h>

#include "field/ifma.h"

/* Which lanes a workspace's batches take (0: none, the scalar code). */
enum { ZP_MSM_LANES_IFMA = 1, ZP_MSM_LANES_FMA = 2 };

/* One pending addition: dst = (±p) + (±q), the points affine (x, then y;
 * all-zero: infinity), q NULL for p alone; bucket is the streaming path's
 * (whose pending flag the flush clears). */
typedef struct {
    const void *p, *q;
    void *dst;
    uint8_t neg_p, neg_q;
    uint32_t bucket;
} zp_msm_pair;

typedef struct {
    const zp_ifma_field *f; /* the base field */
    size_t n;               /* pairs */
    const zp_msm_pair *pairs;
    void *work; /* ZP_MSM_SIMD_WORK_BYTES(n rounded up to ZP_MSM_SIMD_ALIGN), 64-byte aligned */
    /* out, from finish: the doublings (equal points), left to the caller
     * with their second inversion: the pairs' indices, and each one's
     * point (±p as asked) at dbl_x + W·j, dbl_y + W·j */
    uint32_t *dbl;
    uint64_t *dbl_x, *dbl_y;
    size_t n_dbl;
} zp_msm_simd_batch;

/* Entries go to 8 lanes and ZP_MSM_SIMD_CHAINS interleaved chains (the
 * lanes pad the pairs to a multiple of ZP_MSM_SIMD_ALIGN with empty
 * ones); the chains' products are multiplied together in the lanes, so
 * the caller inverts one element. */
#define ZP_MSM_SIMD_CHAINS 4
#define ZP_MSM_SIMD_ALIGN (8 * ZP_MSM_SIMD_CHAINS)

/* enough for every group: two elements of eight lanes per 8 entries, an
 * element being up to 2 (extension) x 8 limbs x 64 bytes */
#define ZP_MSM_SIMD_WORK_BYTES(n) (2 * ((n) / 8) * 2 * 8 * 64)

/* For coordinates of W words (4, 6, 8 = 4x2, 12 = 6x2), the lanes read
 * the pairs' points themselves (no copies), in order, and write each
 * result before reading a later pair's points, so a batch may read a
 * slot that a later pair of it writes (the reduction's running sums),
 * never one an earlier pair writes:
 * zp_msm_simdW_prefix: the slopes' denominators x_q - x_p (1 where zero)
 *   and *product = the product of them all (one element);
 * zp_msm_simdW_finish: given inv = that product's inverse, every pair's
 *   dst: the sum x3 = λ² - x_p - x_q, y3 = λ(x_p - x3) - y_p with
 *   λ = (y_q - y_p)/(x_q - x_p); one point where the other is infinity;
 *   infinity for opposite points; equal points listed in b->dbl. */
#define ZP_MSM_SIMD_DECLARE(W)                                                   \
    void zp_msm_simd##W##_prefix(const zp_msm_simd_batch *b, uint64_t *product); \
    void zp_msm_simd##W##_finish(zp_msm_simd_batch *b, const uint64_t *inv);
ZP_MSM_SIMD_DECLARE(4)
ZP_MSM_SIMD_DECLARE(6)
ZP_MSM_SIMD_DECLARE(8)
ZP_MSM_SIMD_DECLARE(12)

/* The same for 4 and 8 words on AVX2 and FMA (msm_fma.c), where the CPU
 * has no IFMA: BN254 G1 and G2. */
void zp_msm_fma4_prefix(const zp_msm_simd_batch *b, uint64_t *product);
void zp_msm_fma4_finish(zp_msm_simd_batch *b, const uint64_t *inv);
void zp_msm_fma8_prefix(const zp_msm_simd_batch *b, uint64_t *product);
void zp_msm_fma8_finish(zp_msm_simd_batch *b, const uint64_t *inv);

#endif
