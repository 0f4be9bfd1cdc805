/* Multi-scalar multiplication: out = sum_i k_i·P_i, for G1 and G2 of both
 * curves. Points are affine (infinity = all zero); scalars are plain
 * integers below the group order, 4 little-endian limbs each. The caller
 * provides scratch of msm_scratch_size(n, threads) bytes (8-byte aligned),
 * with threads = zp_parallel_threads(par). */
#ifndef ZP_MSM_MSM_H
#define ZP_MSM_MSM_H

#include "curve/curve.h"
#include "zkpipe.h"

#define ZP_MSM_DECLARE(G)                                                                       \
    size_t G##_msm_scratch_size(size_t n, size_t threads);                                      \
    void G##_msm(G##j *out, const G *points, const uint64_t *scalars, size_t n, void *scratch,  \
                 const zp_parallel *par);                                                       \
    void G##_msm_naive(G##j *out, const G *points, const uint64_t *scalars, size_t n);

ZP_MSM_DECLARE(zp_bn254_g1)
ZP_MSM_DECLARE(zp_bn254_g2)
ZP_MSM_DECLARE(zp_bls12_g1)
ZP_MSM_DECLARE(zp_bls12_g2)

/* The bits a scalar can have (both scalar fields are below 2^255). */
#define ZP_MSM_SCALAR_BITS 255

/* Window size minimising the cost model windows·(n + 2^c) additions. */
unsigned zp_msm_window_bits(size_t n);
unsigned zp_msm_windows(unsigned c);
/* How many point ranges to split each window into so that every worker has
 * work: windows·chunks ≥ 2·threads when n is large enough. */
size_t zp_msm_chunks(size_t n, unsigned windows, size_t threads);

/* Booth digit of window w (width c) of the 4-limb scalar k. */
static inline int64_t zp_msm_booth_digit(const uint64_t *k, unsigned w, unsigned c) {
    /* bits [w·c - 1, w·c + c - 1]: c + 1 bits, the lowest one borrowed from
     * the window below (zero for window 0) */
    int64_t lo = (int64_t)w * c - 1;
    uint64_t v = 0;
    for (unsigned b = 0; b <= c; b++) {
        int64_t bit = lo + b;
        if (bit < 0 || bit >= 256) continue;
        v |= ((k[bit / 64] >> (bit % 64)) & 1) << b;
    }
    int64_t x = (int64_t)(v >> 1), low = (int64_t)(v & 1), top = (int64_t)(v >> c);
    return x + low - (top << c);
}

#endif
