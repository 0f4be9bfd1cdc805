/* The NTT's eight-lane path (field/ifma.h), for the 4-limb scalar fields
 * (BN254 Fr, BLS12-381 Fr; both below 2^255). ntt_impl.h gathers eight
 * rows (or eight adjacent columns) of its four-step layout into a
 * lane-major work block, runs the block transforms here with every twiddle
 * broadcast to the eight lanes, and scatters the result back.
 *
 * The data keep the scalar path's Montgomery factor R = 2^256: loading
 * only re-cuts the limbs. The lane multiplication is Montgomery with
 * R' = 2^260, so x·R times a twiddle stored as w·R' mod p gives x·w·R,
 * the scalar form again; the tables for this path hold that "twiddle
 * form" (the scalar w·R doubled four times) in 52-bit limbs. */
#ifndef ZP_NTT_NTT_SIMD_H
#define ZP_NTT_NTT_SIMD_H

#include <stddef.h>
#include <stdint.h>

#include "field/ifma.h"

/* work (blocks of ZP_IFMA_ELEM_BYTES per element, 64-byte aligned):
 * work[i], lane k <- a[i·step + k·lane_step] (4-limb elements), i < m */
void zp_ntt_simd_gather(void *work, const uint64_t *a, size_t m, size_t step, size_t lane_step);
/* the inverse of gather, making the values canonical: the transforms
 * leave them in [0, 2p) */
void zp_ntt_simd_scatter(const zp_ifma_field *f, uint64_t *a, const void *work, size_t m, size_t step,
                         size_t lane_step);

/* The block transforms of ntt_kernels_impl.h on a work block of 2^log_m
 * elements: tw[j·ts] = W^j in twiddle form. dif: natural in, bit-reversed
 * out; dit: the reverse. Values in and out in [0, 2p). */
void zp_ntt_simd_dif(const zp_ifma_field *f, void *work, unsigned log_m, const zp_ifma_limbs *tw, size_t ts);
void zp_ntt_simd_dit(const zp_ifma_field *f, void *work, unsigned log_m, const zp_ifma_limbs *tw, size_t ts);

/* work[c], lane k *= first[k]·h[k]^c for c < m (per-lane constants);
 * like scale, takes values below 16p and leaves them canonical. */
void zp_ntt_simd_twist(const zp_ifma_field *f, void *work, size_t m, const zp_ifma_limbs h[8],
                       const zp_ifma_limbs first[8]);
/* work[c] *= tab[c] (the same in every lane) for 1 <= c < m. */
void zp_ntt_simd_scale(const zp_ifma_field *f, void *work, size_t m, const zp_ifma_limbs *tab);

#endif
