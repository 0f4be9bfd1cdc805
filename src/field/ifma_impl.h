/* Eight field elements at a time with AVX-512 IFMA (VPMADD52LUQ/HUQ), for
 * the 4-limb fields below 2^255: the lane arithmetic shared by the NTT
 * (ntt/ntt_ifma.c) and the MSM (msm/msm_ifma.c). Included only by files
 * compiled with -mavx512f -mavx512ifma, whose functions run only after
 * zp_ifma_use (field/ifma.h) has seen the CPU support them.
 *
 * Representation. Five limbs of 52 bits (radix 2^52, 260 bits), each limb
 * a vector of eight lanes; values are canonical (< p) between operations.
 * vmul is Montgomery with R' = 2^260, so it maps a·R' and b·R' to a·b·R',
 * and a·R, b·R' (R = 2^256, the scalar code's factor) to a·b·R: constants
 * prepared as b·R' mod p (zp_ifma_limbs) let data in the scalar form stay
 * in it. vmul_r multiplies two values of the scalar form: it feeds vmul
 * 16·a (a shift: 16·a < 2^259 still fits the limbs), so
 * 16·a·R·b·R / 2^260 = a·b·R. */
#ifndef ZP_FIELD_IFMA_IMPL_H
#define ZP_FIELD_IFMA_IMPL_H

#if !defined(__AVX512F__) || !defined(__AVX512IFMA__)
#error "field/ifma_impl.h needs -mavx512f -mavx512ifma"
#endif
#include <immintrin.h>

#include "field/ifma.h"

/* Eight elements: limb j of lane k in l[j][k]. */
typedef struct {
    __m512i l[5];
} v5;

typedef struct {
    __m512i p[5], n0, mask;
} vfield;

#define VI static inline __attribute__((always_inline))

VI void vfield_load(vfield *c, const zp_ifma_field *f) {
    for (int j = 0; j < 5; j++) c->p[j] = _mm512_set1_epi64((long long)f->p[j]);
    c->n0 = _mm512_set1_epi64((long long)f->n0);
    c->mask = _mm512_set1_epi64((long long)(((uint64_t)1 << 52) - 1));
}

VI void vbroadcast(v5 *r, const zp_ifma_limbs *t) {
    for (int j = 0; j < 5; j++) r->l[j] = _mm512_set1_epi64((long long)t->l[j]);
}

/* Carries (signed) out of limbs 0..3 into the next: limbs 0..3 end in
 * [0, 2^52), limb 4 holds the sign of the whole. */
VI void vnorm(v5 *x, const vfield *c) {
    for (int j = 0; j < 4; j++) {
        __m512i carry = _mm512_srai_epi64(x->l[j], 52);
        x->l[j] = _mm512_and_si512(x->l[j], c->mask);
        x->l[j + 1] = _mm512_add_epi64(x->l[j + 1], carry);
    }
}

/* x (normalized, in (-p, p)) + p where negative: canonical */
VI void vfix_negative(v5 *x, const vfield *c) {
    __mmask8 neg = _mm512_cmplt_epi64_mask(x->l[4], _mm512_setzero_si512());
    for (int j = 0; j < 5; j++) x->l[j] = _mm512_mask_add_epi64(x->l[j], neg, x->l[j], c->p[j]);
    vnorm(x, c);
}

VI void vadd(v5 *r, const v5 *a, const v5 *b, const vfield *c) {
    v5 t;
    for (int j = 0; j < 5; j++) t.l[j] = _mm512_sub_epi64(_mm512_add_epi64(a->l[j], b->l[j]), c->p[j]);
    vnorm(&t, c);
    vfix_negative(&t, c);
    *r = t;
}

VI void vsub(v5 *r, const v5 *a, const v5 *b, const vfield *c) {
    v5 t;
    for (int j = 0; j < 5; j++) t.l[j] = _mm512_sub_epi64(a->l[j], b->l[j]);
    vnorm(&t, c);
    vfix_negative(&t, c);
    *r = t;
}

/* r = a·b / 2^260 mod p, canonical, for canonical a and b: operand
 * scanning, five rounds of t += a·b_i, m = t_0·n0 mod 2^52,
 * t = (t + m·p) / 2^52. The accumulators are 64-bit lanes fed 52-bit
 * halves, at most 4 per round, so they stay below 2^58: no carry is
 * propagated until the end. The sum is below p·(1 + p/2^260) < 2p, so one
 * conditional subtraction makes it canonical. */
VI void vmul(v5 *r, const v5 *a, const v5 *b, const vfield *c) {
    __m512i t0 = _mm512_setzero_si512(), t1 = t0, t2 = t0, t3 = t0, t4 = t0, t5 = t0;
    const __m512i zero = _mm512_setzero_si512();
    for (int i = 0; i < 5; i++) {
        __m512i bi = b->l[i];
        t0 = _mm512_madd52lo_epu64(t0, a->l[0], bi);
        t1 = _mm512_madd52lo_epu64(t1, a->l[1], bi);
        t2 = _mm512_madd52lo_epu64(t2, a->l[2], bi);
        t3 = _mm512_madd52lo_epu64(t3, a->l[3], bi);
        t4 = _mm512_madd52lo_epu64(t4, a->l[4], bi);
        t1 = _mm512_madd52hi_epu64(t1, a->l[0], bi);
        t2 = _mm512_madd52hi_epu64(t2, a->l[1], bi);
        t3 = _mm512_madd52hi_epu64(t3, a->l[2], bi);
        t4 = _mm512_madd52hi_epu64(t4, a->l[3], bi);
        t5 = _mm512_madd52hi_epu64(t5, a->l[4], bi);
        __m512i m = _mm512_madd52lo_epu64(zero, t0, c->n0);
        t0 = _mm512_madd52lo_epu64(t0, c->p[0], m);
        t1 = _mm512_madd52lo_epu64(t1, c->p[1], m);
        t2 = _mm512_madd52lo_epu64(t2, c->p[2], m);
        t3 = _mm512_madd52lo_epu64(t3, c->p[3], m);
        t4 = _mm512_madd52lo_epu64(t4, c->p[4], m);
        t1 = _mm512_madd52hi_epu64(t1, c->p[0], m);
        t2 = _mm512_madd52hi_epu64(t2, c->p[1], m);
        t3 = _mm512_madd52hi_epu64(t3, c->p[2], m);
        t4 = _mm512_madd52hi_epu64(t4, c->p[3], m);
        t5 = _mm512_madd52hi_epu64(t5, c->p[4], m);
        /* t0 is now 0 mod 2^52: shift down one limb */
        t0 = _mm512_add_epi64(t1, _mm512_srli_epi64(t0, 52));
        t1 = t2;
        t2 = t3;
        t3 = t4;
        t4 = t5;
        t5 = zero;
    }
    v5 t = {{_mm512_sub_epi64(t0, c->p[0]), _mm512_sub_epi64(t1, c->p[1]), _mm512_sub_epi64(t2, c->p[2]),
             _mm512_sub_epi64(t3, c->p[3]), _mm512_sub_epi64(t4, c->p[4])}};
    vnorm(&t, c);
    vfix_negative(&t, c);
    *r = t;
}

/* r = a·b·2^-256 mod p (the scalar code's Montgomery product) for
 * canonical a and b: vmul of 16·a and b. 16·a < 2^259 with its limbs
 * renormalized; the product bound of vmul still holds (16a·b < 2^260·p),
 * so the result is canonical. */
VI void vmul_r(v5 *r, const v5 *a, const v5 *b, const vfield *c) {
    v5 a16;
    for (int j = 0; j < 5; j++) a16.l[j] = _mm512_slli_epi64(a->l[j], 4);
    vnorm(&a16, c);
    vmul(r, &a16, b, c);
}

/* ---- moving eight 4-limb elements in and out of the lanes ---- */

VI __m512i idx8(long long a, long long b, long long c, long long d, long long e, long long f, long long g,
                long long h) {
    return _mm512_set_epi64(h, g, f, e, d, c, b, a);
}

/* (e0 | e1), (e2 | e3), (e4 | e5), (e6 | e7), 4 limbs each, to limb
 * vectors L0..L3 and back: the same two rounds of two-source permutes,
 * as the transposition is its own inverse. */
VI void transpose(__m512i out[4], const __m512i z[4]) {
    const __m512i even = idx8(0, 4, 8, 12, 1, 5, 9, 13), odd = idx8(2, 6, 10, 14, 3, 7, 11, 15);
    const __m512i lo = idx8(0, 1, 2, 3, 8, 9, 10, 11), hi = idx8(4, 5, 6, 7, 12, 13, 14, 15);
    __m512i a01 = _mm512_permutex2var_epi64(z[0], even, z[1]), b01 = _mm512_permutex2var_epi64(z[0], odd, z[1]);
    __m512i a23 = _mm512_permutex2var_epi64(z[2], even, z[3]), b23 = _mm512_permutex2var_epi64(z[2], odd, z[3]);
    out[0] = _mm512_permutex2var_epi64(a01, lo, a23);
    out[1] = _mm512_permutex2var_epi64(a01, hi, a23);
    out[2] = _mm512_permutex2var_epi64(b01, lo, b23);
    out[3] = _mm512_permutex2var_epi64(b01, hi, b23);
}
VI void untranspose(__m512i z[4], const __m512i L[4]) {
    const __m512i even = idx8(0, 4, 8, 12, 1, 5, 9, 13), odd = idx8(2, 6, 10, 14, 3, 7, 11, 15);
    const __m512i lo = idx8(0, 1, 2, 3, 8, 9, 10, 11), hi = idx8(4, 5, 6, 7, 12, 13, 14, 15);
    __m512i a01 = _mm512_permutex2var_epi64(L[0], lo, L[1]), a23 = _mm512_permutex2var_epi64(L[0], hi, L[1]);
    __m512i b01 = _mm512_permutex2var_epi64(L[2], lo, L[3]), b23 = _mm512_permutex2var_epi64(L[2], hi, L[3]);
    z[0] = _mm512_permutex2var_epi64(a01, even, b01);
    z[1] = _mm512_permutex2var_epi64(a01, odd, b01);
    z[2] = _mm512_permutex2var_epi64(a23, even, b23);
    z[3] = _mm512_permutex2var_epi64(a23, odd, b23);
}

/* 52-bit limbs of eight 4-limb values from limb vectors L0..L3, and back */
VI void vfrom_limbs64(v5 *w, const __m512i L[4]) {
    const __m512i mask = _mm512_set1_epi64((long long)(((uint64_t)1 << 52) - 1));
    w->l[0] = _mm512_and_si512(L[0], mask);
    w->l[1] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(L[0], 52), _mm512_slli_epi64(L[1], 12)), mask);
    w->l[2] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(L[1], 40), _mm512_slli_epi64(L[2], 24)), mask);
    w->l[3] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(L[2], 28), _mm512_slli_epi64(L[3], 36)), mask);
    w->l[4] = _mm512_srli_epi64(L[3], 16);
}
VI void vto_limbs64(__m512i L[4], const v5 *w) {
    const __m512i *d = w->l;
    L[0] = _mm512_or_si512(d[0], _mm512_slli_epi64(d[1], 52));
    L[1] = _mm512_or_si512(_mm512_srli_epi64(d[1], 12), _mm512_slli_epi64(d[2], 40));
    L[2] = _mm512_or_si512(_mm512_srli_epi64(d[2], 24), _mm512_slli_epi64(d[3], 28));
    L[3] = _mm512_or_si512(_mm512_srli_epi64(d[3], 36), _mm512_slli_epi64(d[4], 16));
}

/* eight 4-limb values at e[0..7] into the lanes */
VI void vload8(v5 *w, const uint64_t *const e[8]) {
    __m512i z[4], L[4];
    for (int k = 0; k < 4; k++) {
        __m256i x0 = _mm256_loadu_si256((const __m256i *)e[2 * k]);
        __m256i x1 = _mm256_loadu_si256((const __m256i *)e[2 * k + 1]);
        z[k] = _mm512_inserti64x4(_mm512_castsi256_si512(x0), x1, 1);
    }
    transpose(L, z);
    vfrom_limbs64(w, L);
}
/* the lanes out to e[k], for the lanes k in mask */
VI void vstore8(uint64_t *const e[8], const v5 *w, unsigned mask) {
    __m512i z[4], L[4];
    vto_limbs64(L, w);
    untranspose(z, L);
    for (int k = 0; k < 4; k++) {
        if (mask & (1u << (2 * k))) _mm256_storeu_si256((__m256i *)e[2 * k], _mm512_castsi512_si256(z[k]));
        if (mask & (2u << (2 * k)))
            _mm256_storeu_si256((__m256i *)e[2 * k + 1], _mm512_extracti64x4_epi64(z[k], 1));
    }
}

#endif
