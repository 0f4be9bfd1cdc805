/* Eight elements of a 4-word field at a time with AVX2 and FMA: the lane
 * arithmetic of field/fma.c and msm/msm_fma.c (see field/fma.h for the
 * method). Every function carries the target attribute "avx2,fma", so the
 * files that include this need no special flags; they run only after
 * zp_fma_available() has seen the CPU support them, and with the SSE
 * rounding mode toward -inf (zp_f8_round_down) for the products.
 *
 * Representation. Five 52-bit limbs, each a pair of four-lane vectors:
 * limb j of lane k in h[k / 4][j], lane k % 4. Values are carried (every
 * limb in [0, 2^52)) between operations, canonical (< p) unless a
 * function says [0, 2p). The data are in the scalar code's Montgomery
 * form (a·R, R = 2^256) throughout: mont's R' is 2^260, so mul_r feeds it
 * 16·a. */
#ifndef ZP_FIELD_FMA_IMPL_H
#define ZP_FIELD_FMA_IMPL_H

#include <immintrin.h>
#include <stdint.h>

#include "field/ifma.h"

#define FV static inline __attribute__((always_inline, target("avx2,fma")))
#if defined(__clang__)
#define ZP_F8_UNROLL _Pragma("clang loop unroll(full)")
#else
#define ZP_F8_UNROLL _Pragma("GCC unroll 16")
#endif

#define ZP_F8_NL 5
#define ZP_F8_MASK52 (((uint64_t)1 << 52) - 1)
#define ZP_F8_C104 0x1p104
#define ZP_F8_C104P52 (0x1p104 + 0x1p52)
#define ZP_F8_BITS104 0x4670000000000000ULL /* the bit patterns of 2^104 and 2^52 */
#define ZP_F8_BITS52 0x4330000000000000ULL

typedef struct {
    __m256i h[2][ZP_F8_NL];
} zp_f8;

/* the field: p's limbs as integers and as doubles, n0 = -p^-1 mod 2^52 in
 * 26-bit halves */
typedef struct {
    __m256i p[ZP_F8_NL];
    __m256d pd[ZP_F8_NL];
    __m256i n0_lo, n0_hi, mask;
} zp_f8_field;

FV void zp_f8_field_load(zp_f8_field *c, const zp_ifma_field *f) {
    for (int j = 0; j < ZP_F8_NL; j++) {
        c->p[j] = _mm256_set1_epi64x((long long)f->p[j]);
        c->pd[j] = _mm256_set1_pd((double)f->p[j]);
    }
    c->n0_lo = _mm256_set1_epi64x((long long)(f->n0 & ((1 << 26) - 1)));
    c->n0_hi = _mm256_set1_epi64x((long long)(f->n0 >> 26));
    c->mask = _mm256_set1_epi64x((long long)ZP_F8_MASK52);
}

/* The rounding toward -inf that the products need; returns the caller's
 * MXCSR for zp_f8_round_restore. The compiler does not know that FP
 * operations depend on MXCSR (clang moved an FMA past an _mm_setcsr in a
 * test), so the writes are asm with a memory clobber: loads after the
 * first and stores before the second stay between them, and with them
 * every product the kernels compute, since each takes data loaded after
 * the first and ends in a store before the second. */
FV unsigned zp_f8_round_down(void) {
    unsigned csr = _mm_getcsr(), down = (csr & ~0x6000u) | 0x2000u;
    __asm__ volatile("ldmxcsr %0" : : "m"(down) : "memory");
    return csr;
}
FV void zp_f8_round_restore(unsigned csr) { __asm__ volatile("ldmxcsr %0" : : "m"(csr) : "memory"); }

/* x < 2^52 as a double: 2^52 + x has x as its mantissa */
FV __m256d zp_f8_to_double(__m256i x) {
    return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(x, _mm256_set1_epi64x((long long)ZP_F8_BITS52))),
                         _mm256_set1_pd(0x1p52));
}

/* hi += H + BITS104, lo += a·b - H·2^52 + BITS52, H = floor(a·b / 2^52) */
FV void zp_f8_product(__m256i *hi, __m256i *lo, __m256d a, __m256d b) {
    __m256d h = _mm256_fmadd_pd(a, b, _mm256_set1_pd(ZP_F8_C104));
    __m256d l = _mm256_fmadd_pd(a, b, _mm256_sub_pd(_mm256_set1_pd(ZP_F8_C104P52), h));
    *hi = _mm256_add_epi64(*hi, _mm256_castpd_si256(h));
    *lo = _mm256_add_epi64(*lo, _mm256_castpd_si256(l));
}

/* r = sum_m a'[m]·b[m] / 2^260 mod p for m < k (k = 1 or 2), a' = a or
 * (shift) 16·a: below p + sum/2^260, so in [0, 2p) for one product of
 * a'·b < 64p² or two of 16p² each (p < 2^255; a < 2^256 for the shift).
 * Both halves interleaved (one alone waits on its chain). Operand
 * scanning: round i adds the a'[m]·b[m]_i, then m·p with m = t_i·n0 mod
 * 2^52, whose low limb is left out: t_i + lo(m·p_0) = 0 mod 2^52, so what
 * moves up is t_i / 2^52 rounded up. The accumulators hold the
 * constants' bit patterns too, off[] of them per column (the same in
 * every lane; the unrolled loops make them compile-time constants); each
 * column's are taken out before its value is shifted or stored, and its
 * true value, at most 2·(k + 1)·NL + 2 terms below 2^52, fits. m comes
 * from 26-bit halves on the integer unit's 32-bit products: a shorter
 * chain than the FP path's. */
FV void zp_f8_mont_sum(zp_f8 *r, const zp_f8 *const a[], const zp_f8 *const b[], int k, const zp_f8_field *c,
                       int shift) {
    enum { NL = ZP_F8_NL };
    const __m256i m26 = _mm256_set1_epi64x((1 << 26) - 1);
    __m256d ad[2][2][NL], bd[2][2][NL];
    __m256i t[2][2 * NL + 1];
    uint64_t off[2 * NL + 1] = {0};
    ZP_F8_UNROLL for (int h = 0; h < 2; h++) {
        ZP_F8_UNROLL for (int q = 0; q < k; q++) {
            ZP_F8_UNROLL for (int j = 0; j < NL; j++) {
                __m256i aj = a[q]->h[h][j];
                if (shift) { /* 16·a's limb j */
                    aj = _mm256_and_si256(_mm256_slli_epi64(aj, 4), c->mask);
                    if (j > 0) aj = _mm256_or_si256(aj, _mm256_srli_epi64(a[q]->h[h][j - 1], 48));
                }
                ad[h][q][j] = zp_f8_to_double(aj);
                bd[h][q][j] = zp_f8_to_double(b[q]->h[h][j]);
            }
        }
        ZP_F8_UNROLL for (int j = 0; j <= 2 * NL; j++) t[h][j] = _mm256_setzero_si256();
    }
    ZP_F8_UNROLL for (int i = 0; i < NL; i++) {
        ZP_F8_UNROLL for (int q = 0; q < k; q++) {
            ZP_F8_UNROLL for (int j = 0; j < NL; j++) {
                ZP_F8_UNROLL for (int h = 0; h < 2; h++)
                    zp_f8_product(&t[h][i + j + 1], &t[h][i + j], ad[h][q][j], bd[h][q][i]);
                off[i + j + 1] += ZP_F8_BITS104;
                off[i + j] += ZP_F8_BITS52;
            }
        }
        ZP_F8_UNROLL for (int h = 0; h < 2; h++) {
            __m256i ti = t[h][i];
            __m256i lo = _mm256_and_si256(ti, m26), hi = _mm256_and_si256(_mm256_srli_epi64(ti, 26), m26);
            __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(lo, c->n0_hi), _mm256_mul_epu32(hi, c->n0_lo));
            __m256i m = _mm256_add_epi64(_mm256_mul_epu32(lo, c->n0_lo), _mm256_slli_epi64(cross, 26));
            __m256d md = zp_f8_to_double(_mm256_and_si256(m, c->mask));
            ti = _mm256_sub_epi64(ti, _mm256_set1_epi64x((long long)off[i]));
            t[h][i + 1] = _mm256_add_epi64(t[h][i + 1], _mm256_srli_epi64(_mm256_add_epi64(ti, c->mask), 52));
            t[h][i + 1] = _mm256_add_epi64(
                t[h][i + 1], _mm256_castpd_si256(_mm256_fmadd_pd(md, c->pd[0], _mm256_set1_pd(ZP_F8_C104))));
            ZP_F8_UNROLL for (int j = 1; j < NL; j++) zp_f8_product(&t[h][i + j + 1], &t[h][i + j], md, c->pd[j]);
        }
        off[i + 1] += ZP_F8_BITS104;
        ZP_F8_UNROLL for (int j = 1; j < NL; j++) {
            off[i + j + 1] += ZP_F8_BITS104;
            off[i + j] += ZP_F8_BITS52;
        }
    }
    ZP_F8_UNROLL for (int h = 0; h < 2; h++) {
        __m256i x[NL];
        ZP_F8_UNROLL for (int j = 0; j < NL; j++) x[j] =
            _mm256_sub_epi64(t[h][NL + j], _mm256_set1_epi64x((long long)off[NL + j]));
        ZP_F8_UNROLL for (int j = 0; j + 1 < NL; j++) {
            x[j + 1] = _mm256_add_epi64(x[j + 1], _mm256_srli_epi64(x[j], 52));
            r->h[h][j] = _mm256_and_si256(x[j], c->mask);
        }
        r->h[h][NL - 1] = x[NL - 1];
    }
}

FV void zp_f8_mont(zp_f8 *r, const zp_f8 *a, const zp_f8 *b, const zp_f8_field *c, int shift) {
    const zp_f8 *const as[1] = {a}, *const bs[1] = {b};
    zp_f8_mont_sum(r, as, bs, 1, c, shift);
}

/* Signed limbs (each in [-2^61, 2^61)) carried: all but the top end in
 * [0, 2^52), the top holds the rest, negative for a negative value. AVX2
 * has no 64-bit arithmetic shift: the carry is the logical one of the
 * limb plus 2^62, less 2^10. */
FV void zp_f8_norm(__m256i l[ZP_F8_NL], const zp_f8_field *c) {
    const __m256i bias = _mm256_set1_epi64x((long long)1 << 62), back = _mm256_set1_epi64x(1 << 10);
    for (int j = 0; j + 1 < ZP_F8_NL; j++) {
        __m256i carry = _mm256_sub_epi64(_mm256_srli_epi64(_mm256_add_epi64(l[j], bias), 52), back);
        l[j] = _mm256_and_si256(l[j], c->mask);
        l[j + 1] = _mm256_add_epi64(l[j + 1], carry);
    }
}

/* x (signed limbs, value in (-m, m)) into [0, m), carried: m added where
 * negative; m is p or 2p as limbs (c->p, or a caller's) */
FV void zp_f8_wrap(__m256i x[ZP_F8_NL], const __m256i m[ZP_F8_NL], const zp_f8_field *c) {
    zp_f8_norm(x, c);
    __m256i neg = _mm256_cmpgt_epi64(_mm256_setzero_si256(), x[ZP_F8_NL - 1]);
    for (int j = 0; j < ZP_F8_NL; j++) x[j] = _mm256_add_epi64(x[j], _mm256_and_si256(neg, m[j]));
    zp_f8_norm(x, c);
}

/* a - b mod p, canonical, for a, b canonical */
FV void zp_f8_sub(zp_f8 *r, const zp_f8 *a, const zp_f8 *b, const zp_f8_field *c) {
    for (int k = 0; k < 2; k++) {
        __m256i x[ZP_F8_NL];
        for (int j = 0; j < ZP_F8_NL; j++) x[j] = _mm256_sub_epi64(a->h[k][j], b->h[k][j]);
        zp_f8_wrap(x, c->p, c);
        for (int j = 0; j < ZP_F8_NL; j++) r->h[k][j] = x[j];
    }
}

/* a - b + p in (0, 2p), carried, for a product's operand; a, b canonical
 * (a may also be "p - q" uncarried, limbs in (-2^52, 2^53)) */
FV void zp_f8_sub_p(zp_f8 *r, const zp_f8 *a, const zp_f8 *b, const zp_f8_field *c) {
    for (int k = 0; k < 2; k++) {
        __m256i x[ZP_F8_NL];
        for (int j = 0; j < ZP_F8_NL; j++) x[j] = _mm256_add_epi64(_mm256_sub_epi64(a->h[k][j], b->h[k][j]), c->p[j]);
        zp_f8_norm(x, c);
        for (int j = 0; j < ZP_F8_NL; j++) r->h[k][j] = x[j];
    }
}

/* canonical from [0, 2p): r - p with its borrows carried (each limb's
 * difference is above -2^53, so bit 63 is the borrow), kept where it did
 * not go below 0 */
FV void zp_f8_reduce_2p(zp_f8 *r, const zp_f8_field *c) {
    for (int k = 0; k < 2; k++) {
        __m256i d[ZP_F8_NL], borrow = _mm256_setzero_si256();
        for (int j = 0; j < ZP_F8_NL; j++) {
            __m256i x = _mm256_sub_epi64(_mm256_sub_epi64(r->h[k][j], c->p[j]), borrow);
            borrow = _mm256_srli_epi64(x, 63);
            d[j] = _mm256_and_si256(x, c->mask);
        }
        __m256i keep = _mm256_sub_epi64(_mm256_setzero_si256(), borrow); /* all ones: r < p */
        for (int j = 0; j < ZP_F8_NL; j++) r->h[k][j] = _mm256_blendv_epi8(d[j], r->h[k][j], keep);
    }
}

/* the scalar code's Montgomery product a·b·2^-256, in [0, 2p) for a, b in
 * [0, 2p) (mul_r_lazy) or canonical (mul_r) */
FV void zp_f8_mul_r_lazy(zp_f8 *r, const zp_f8 *a, const zp_f8 *b, const zp_f8_field *c) { zp_f8_mont(r, a, b, c, 1); }
FV void zp_f8_mul_r(zp_f8 *r, const zp_f8 *a, const zp_f8 *b, const zp_f8_field *c) {
    zp_f8_mul_r_lazy(r, a, b, c);
    zp_f8_reduce_2p(r, c);
}

/* (a·b + a2·b2)·2^-256 mod p, canonical, for a, a2, b, b2 canonical (two
 * products under one reduction: below 1.5p before the subtraction) */
FV void zp_f8_mul2_r(zp_f8 *r, const zp_f8 *a, const zp_f8 *b, const zp_f8 *a2, const zp_f8 *b2, const zp_f8_field *c) {
    const zp_f8 *const as[2] = {a, a2}, *const bs[2] = {b, b2};
    zp_f8 s;
    zp_f8_mont_sum(&s, as, bs, 2, c, 1);
    zp_f8_reduce_2p(&s, c);
    *r = s;
}

/* a + b below 2p, carried, for a, b canonical: a product's operand */
FV void zp_f8_add_2p(zp_f8 *r, const zp_f8 *a, const zp_f8 *b, const zp_f8_field *c) {
    for (int k = 0; k < 2; k++) {
        __m256i x[ZP_F8_NL];
        for (int j = 0; j < ZP_F8_NL; j++) x[j] = _mm256_add_epi64(a->h[k][j], b->h[k][j]);
        zp_f8_norm(x, c);
        for (int j = 0; j < ZP_F8_NL; j++) r->h[k][j] = x[j];
    }
}

/* four rows of four words to four columns, and back (its own inverse) */
FV void zp_f8_transpose(__m256i w[4]) {
    __m256i t0 = _mm256_unpacklo_epi64(w[0], w[1]), t1 = _mm256_unpackhi_epi64(w[0], w[1]);
    __m256i t2 = _mm256_unpacklo_epi64(w[2], w[3]), t3 = _mm256_unpackhi_epi64(w[2], w[3]);
    w[0] = _mm256_permute2x128_si256(t0, t2, 0x20);
    w[1] = _mm256_permute2x128_si256(t1, t3, 0x20);
    w[2] = _mm256_permute2x128_si256(t0, t2, 0x31);
    w[3] = _mm256_permute2x128_si256(t1, t3, 0x31);
}

/* the values (4 words each) at e[0..7] into the lanes */
FV void zp_f8_load8(zp_f8 *r, const uint64_t *const e[8], const zp_f8_field *c) {
    for (int k = 0; k < 2; k++) {
        __m256i w[4];
        for (int i = 0; i < 4; i++) w[i] = _mm256_loadu_si256((const __m256i *)e[4 * k + i]);
        zp_f8_transpose(w);
        r->h[k][0] = _mm256_and_si256(w[0], c->mask);
        r->h[k][1] =
            _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi64(w[0], 52), _mm256_slli_epi64(w[1], 12)), c->mask);
        r->h[k][2] =
            _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi64(w[1], 40), _mm256_slli_epi64(w[2], 24)), c->mask);
        r->h[k][3] =
            _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi64(w[2], 28), _mm256_slli_epi64(w[3], 36)), c->mask);
        r->h[k][4] = _mm256_srli_epi64(w[3], 16);
    }
}

/* the lanes in mask (bit k: lane k) out to d[k], 4 words each */
FV void zp_f8_store8(uint64_t *const d[8], const zp_f8 *a, unsigned mask) {
    for (int k = 0; k < 2; k++) {
        if (((mask >> (4 * k)) & 15) == 0) continue;
        const __m256i *l = a->h[k];
        __m256i w[4];
        w[0] = _mm256_or_si256(l[0], _mm256_slli_epi64(l[1], 52));
        w[1] = _mm256_or_si256(_mm256_srli_epi64(l[1], 12), _mm256_slli_epi64(l[2], 40));
        w[2] = _mm256_or_si256(_mm256_srli_epi64(l[2], 24), _mm256_slli_epi64(l[3], 28));
        w[3] = _mm256_or_si256(_mm256_srli_epi64(l[3], 36), _mm256_slli_epi64(l[4], 16));
        zp_f8_transpose(w);
        for (int i = 0; i < 4; i++)
            if (mask & (1u << (4 * k + i))) _mm256_storeu_si256((__m256i *)d[4 * k + i], w[i]);
    }
}

/* lane masks: bit k for lane k, as a pair of vector masks and back */
FV __m256i zp_f8_vmask(unsigned mask, int k) {
    const __m256i bits = _mm256_set_epi64x(8, 4, 2, 1);
    __m256i m = _mm256_set1_epi64x((long long)((mask >> (4 * k)) & 15));
    return _mm256_cmpeq_epi64(_mm256_and_si256(m, bits), bits);
}
FV unsigned zp_f8_bits(__m256i lo, __m256i hi) {
    return (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(lo)) |
           ((unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(hi)) << 4);
}

/* the lanes where a is zero; where a = b (both carried) */
FV unsigned zp_f8_zero_mask(const zp_f8 *a) {
    __m256i z[2];
    for (int k = 0; k < 2; k++) {
        __m256i o = a->h[k][0];
        for (int j = 1; j < ZP_F8_NL; j++) o = _mm256_or_si256(o, a->h[k][j]);
        z[k] = _mm256_cmpeq_epi64(o, _mm256_setzero_si256());
    }
    return zp_f8_bits(z[0], z[1]);
}
FV unsigned zp_f8_eq_mask(const zp_f8 *a, const zp_f8 *b) {
    __m256i e[2];
    for (int k = 0; k < 2; k++) {
        e[k] = _mm256_cmpeq_epi64(a->h[k][0], b->h[k][0]);
        for (int j = 1; j < ZP_F8_NL; j++) e[k] = _mm256_and_si256(e[k], _mm256_cmpeq_epi64(a->h[k][j], b->h[k][j]));
    }
    return zp_f8_bits(e[0], e[1]);
}

/* r = b in the lanes of mask, a elsewhere */
FV void zp_f8_blend(zp_f8 *r, unsigned mask, const zp_f8 *a, const zp_f8 *b) {
    for (int k = 0; k < 2; k++) {
        __m256i m = zp_f8_vmask(mask, k);
        for (int j = 0; j < ZP_F8_NL; j++) r->h[k][j] = _mm256_blendv_epi8(a->h[k][j], b->h[k][j], m);
    }
}

/* r = a with lane k taken from lane k ^ d, d = 1, 2 or 4 */
FV void zp_f8_swap_lanes(zp_f8 *r, const zp_f8 *a, int d) {
    zp_f8 t;
    for (int j = 0; j < ZP_F8_NL; j++) {
        if (d == 4) {
            t.h[0][j] = a->h[1][j];
            t.h[1][j] = a->h[0][j];
        } else if (d == 2) {
            t.h[0][j] = _mm256_permute4x64_epi64(a->h[0][j], 0x4e);
            t.h[1][j] = _mm256_permute4x64_epi64(a->h[1][j], 0x4e);
        } else {
            t.h[0][j] = _mm256_permute4x64_epi64(a->h[0][j], 0xb1);
            t.h[1][j] = _mm256_permute4x64_epi64(a->h[1][j], 0xb1);
        }
    }
    *r = t;
}

FV void zp_f8_set_zero(zp_f8 *r) {
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < ZP_F8_NL; j++) r->h[k][j] = _mm256_setzero_si256();
}

#endif
