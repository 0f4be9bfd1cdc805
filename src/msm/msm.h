/* Multi-scalar multiplication: out = sum_i k_i·P_i, for G1 and G2 of both
 * curves. Points are affine (infinity = all zero); scalars are plain
 * integers below the group order, 4 little-endian limbs each. The caller
 * provides scratch of msm_scratch_size(n, threads) bytes (8-byte aligned),
 * with threads = zp_parallel_threads(par). msm_many runs several MSMs of
 * one group as one parallel loop (scratch: msm_many_scratch_size).
 * Variable time (_var): the buckets a point goes to are its scalars'
 * digits, and zeros, ones and equal points take shortcuts. The scratch
 * sizes depend on the sizes only. */
#ifndef ZP_MSM_MSM_H
#define ZP_MSM_MSM_H

#include "curve/curve.h"
#include "base/parallel.h"
#include "zkpipe.h"

/* How the bucket sums are accumulated: batch-affine above a size where the
 * batches fill up, XYZZ below (and both selectable, for tests). */
typedef enum { ZP_MSM_AUTO, ZP_MSM_XYZZ, ZP_MSM_AFFINE } zp_msm_path;
#define ZP_MSM_AFFINE_MIN_N 512

#define ZP_MSM_DECLARE(G)                                                                       \
    size_t G##_msm_scratch_size(size_t n, size_t threads);                                      \
    void G##_msm_var(G##j *out, const G *points, const uint64_t *scalars, size_t n, void *scratch,  \
                 const zp_parallel *par);                                                       \
    void G##_msm_path_var(G##j *out, const G *points, const uint64_t *scalars, size_t n, void *scratch,   \
                      const zp_parallel *par, zp_msm_path path);                                  \
    size_t G##_msm_many_scratch_size(const size_t *n, size_t count, size_t threads);             \
    void G##_msm_many_var(G##j **out, const G *const *points, const uint64_t *const *scalars,        \
                      const size_t *n, size_t count, void *scratch, const zp_parallel *par);

ZP_MSM_DECLARE(zp_bn254_g1)
ZP_MSM_DECLARE(zp_bn254_g2)
ZP_MSM_DECLARE(zp_bls12_g1)
ZP_MSM_DECLARE(zp_bls12_g2)

/* The bits a scalar can have (both scalar fields are below 2^255). */
#define ZP_MSM_SCALAR_BITS 255

/* One MSM's shape: window width c, windows W (enough for the largest
 * scalar's bits plus the Booth carry), and the split of the points into
 * chunks so that W·chunks tiles keep every worker busy. */
typedef struct {
    zp_msm_path path;
    unsigned c, windows;
    unsigned bits; /* of the largest scalar */
    size_t chunks, chunk_len;
} zp_msm_plan;

/* n points of point_bytes each (affine), of which n_big have scalars above
 * 1 (zeros cost nothing, ones one addition in window 0), the largest scalar
 * having `bits` bits. The window and chunk are never larger than in the
 * plan for n full-size scalars, which sizes the scratch. */
void zp_msm_plan_make(zp_msm_plan *plan, zp_msm_path path, size_t n, size_t n_big, unsigned bits,
                      size_t point_bytes, size_t threads);
/* Window count for c-bit windows over scalars of `bits` bits. */
unsigned zp_msm_windows(unsigned c, unsigned bits);
/* The scan the plan needs: bit length of the largest scalar and the count
 * of scalars above 1. */
void zp_msm_scan_var(const uint64_t *scalars, size_t n, unsigned *bits, size_t *n_big);

/* Booth digit of window w (width c ≤ 20) of the 4-limb scalar k: the c+1
 * bits k[wc-1 .. wc+c-1] (the lowest borrowed from the window below, zero
 * for window 0) give d in [-2^(c-1), 2^(c-1)] with sum_w d_w 2^(wc) = k. */
static inline int64_t zp_msm_booth_digit(const uint64_t *k, unsigned w, unsigned c) {
    uint64_t v;
    if (w == 0) {
        v = k[0] << 1;
    } else {
        unsigned lo = w * c - 1, limb = lo / 64, shift = lo % 64;
        if (limb >= 4) return 0;
        v = k[limb] >> shift;
        if (shift != 0 && limb + 1 < 4) v |= k[limb + 1] << (64 - shift);
    }
    v &= ((uint64_t)1 << (c + 1)) - 1;
    int64_t x = (int64_t)(v >> 1), low = (int64_t)(v & 1), top = (int64_t)(v >> c);
    return x + low - (top << c);
}

#endif
