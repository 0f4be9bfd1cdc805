/* Eight NTT lanes at once with AVX-512 IFMA (VPMADD52LUQ/HUQ), for the
 * 4-limb scalar fields (BN254 Fr, BLS12-381 Fr; both below 2^255).
 *
 * Why: the scalar MULX multiplication is bound by its carry chains at
 * ~40 cycles; the 52-bit multiply-adds of IFMA do eight products per
 * instruction, so an 8-lane Montgomery multiplication costs about a
 * fifth of eight scalar ones on the machines that have it (Zen 4/5,
 * Ice Lake and later). ntt_impl.h gathers eight rows (or eight adjacent
 * columns) of its four-step layout into a lane-major work block, runs the
 * block transforms here with every twiddle broadcast to the eight lanes,
 * and scatters the result back; the arithmetic is exact, so the output is
 * the scalar path's, bit for bit.
 *
 * Representation. An element of the work block is five limbs of 52 bits
 * (radix 2^52, 260 bits), each limb a vector of eight lanes; values are
 * canonical (< p) between operations. The data keep the scalar path's
 * Montgomery factor R = 2^256: loading only re-cuts the limbs. The
 * multiplication is Montgomery with R' = 2^260, so x·R times a twiddle
 * stored as t = w·R' mod p gives x·w·R, the scalar form again; tables
 * for this path hold that "twiddle form" (the scalar w·R doubled four
 * times), cut into 52-bit limbs: zp_ntt_tw, five words.
 *
 * Availability is decided at run time (CPUID, through the compiler's
 * cpu-supports check), so a build for x86-64 runs everywhere; the
 * environment variable ZKPIPE_SIMD=0 or zp_ntt_simd(0) turns it off. */
#ifndef ZP_NTT_NTT_SIMD_H
#define ZP_NTT_NTT_SIMD_H

#include <stddef.h>
#include <stdint.h>

/* A twiddle (or any per-lane constant) in twiddle form, 52-bit limbs. */
typedef struct {
    uint64_t l[5];
} zp_ntt_tw;

/* The field: p and -p^-1 mod 2^52, both cut into 52-bit limbs. */
typedef struct {
    uint64_t p[5];
    uint64_t n0;
} zp_ntt_simd_field;

/* Bytes of one work block of m elements (eight lanes of five limbs); the
 * block itself must be 64-byte aligned. */
#define ZP_NTT_SIMD_ELEM_BYTES 320

/* mode 0: off, 1: on when the CPU has it; -1: only ask. Returns whether
 * the path is in use after the call. Not thread-safe against running
 * transforms: set it before. */
int zp_ntt_simd(int mode);

/* A 4-limb little-endian value below p to 52-bit limbs. */
static inline void zp_ntt_tw_from_limbs(zp_ntt_tw *t, const uint64_t v[4]) {
    const uint64_t m = ((uint64_t)1 << 52) - 1;
    t->l[0] = v[0] & m;
    t->l[1] = ((v[0] >> 52) | (v[1] << 12)) & m;
    t->l[2] = ((v[1] >> 40) | (v[2] << 24)) & m;
    t->l[3] = ((v[2] >> 28) | (v[3] << 36)) & m;
    t->l[4] = v[3] >> 16;
}

/* The descriptor of the field with 4-limb modulus p (odd, below 2^255). */
void zp_ntt_simd_field_init(zp_ntt_simd_field *f, const uint64_t p[4]);

/* work[i], lane k <- a[i·step + k·lane_step] (4-limb elements), i < m */
void zp_ntt_simd_gather(void *work, const uint64_t *a, size_t m, size_t step, size_t lane_step);
/* the inverse of gather */
void zp_ntt_simd_scatter(uint64_t *a, const void *work, size_t m, size_t step, size_t lane_step);

/* The block transforms of ntt_kernels_impl.h on a work block of 2^log_m
 * elements: tw[j·ts] = W^j in twiddle form. dif: natural in, bit-reversed
 * out; dit: the reverse. */
void zp_ntt_simd_dif(const zp_ntt_simd_field *f, void *work, unsigned log_m, const zp_ntt_tw *tw, size_t ts);
void zp_ntt_simd_dit(const zp_ntt_simd_field *f, void *work, unsigned log_m, const zp_ntt_tw *tw, size_t ts);

/* work[c], lane k *= first[k]·h[k]^c for c < m (per-lane constants). */
void zp_ntt_simd_twist(const zp_ntt_simd_field *f, void *work, size_t m, const zp_ntt_tw h[8],
                       const zp_ntt_tw first[8]);
/* work[c] *= tab[c] (the same in every lane) for 1 <= c < m. */
void zp_ntt_simd_scale(const zp_ntt_simd_field *f, void *work, size_t m, const zp_ntt_tw *tab);

/* For the benchmark: work[c] *= work[chains] (every lane), iters times
 * over c < chains (at most 8), the chains independent of each other. */
void zp_ntt_simd_mul_chains(const zp_ntt_simd_field *f, void *work, size_t chains, size_t iters);

#endif
