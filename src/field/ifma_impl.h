/* Eight field elements at a time with AVX-512 IFMA (VPMADD52LUQ/HUQ): the
 * lane arithmetic shared by the NTT (ntt/ntt_ifma.c) and the MSM
 * (msm/msm_ifma.c), a template instantiated per limb count: IFMA_NW
 * 64-bit words of the scalar code's elements (4 or 6), IFMA_NL 52-bit
 * limbs in the lanes (5 or 8), giving types and functions named
 * zp_v<NL>...: zp_v5 for the 4-word fields below 2^255 (BN254 Fp, Fr;
 * BLS12-381 Fr), zp_v8 for BLS12-381 Fp. Included only by files compiled
 * with -mavx512f -mavx512ifma, whose functions run only after zp_ifma_use
 * (field/ifma.h) has seen the CPU support them.
 *
 * Representation. IFMA_NL limbs of 52 bits, each limb a vector of eight
 * lanes; values are canonical (< p) between operations. mul is Montgomery
 * with R' = 2^(52·NL), so it maps a·R' and b·R' to a·b·R', and a·R, b·R'
 * (R = 2^(64·NW), the scalar code's factor) to a·b·R: constants prepared
 * as b·R' mod p (zp_ifma_limbs, NTT twiddles) let data in the scalar form
 * stay in it. mul_r multiplies two values of the scalar form: it feeds
 * mul a·2^(52·NL - 64·NW) (4 or 32 bits more, still inside the limbs),
 * so the product comes out as a·b·R. */
#if !defined(__AVX512F__) || !defined(__AVX512IFMA__)
#error "field/ifma_impl.h needs -mavx512f -mavx512ifma"
#endif
#include <immintrin.h>

#include "field/ifma.h"

#ifndef ZP_FIELD_IFMA_IMPL_ONCE
#define ZP_FIELD_IFMA_IMPL_ONCE
#define VI static inline __attribute__((always_inline))
#define ZP_VCAT_(a, b) a##b
#define ZP_VCAT(a, b) ZP_VCAT_(a, b)
#if defined(__clang__)
#define ZP_V_UNROLL _Pragma("clang loop unroll(full)")
#else
#define ZP_V_UNROLL _Pragma("GCC unroll 16")
#endif

/* Moving eight 4-word elements in and out of the lanes. */
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

#endif

#define NL IFMA_NL
#define NW IFMA_NW
#define VT ZP_VCAT(zp_v, NL)
#define VC ZP_VCAT(ZP_VCAT(zp_v, NL), _field)
#define V_(name) ZP_VCAT(ZP_VCAT(zp_v, NL), _##name)

/* Eight elements: limb j of lane k in l[j][k]. */
typedef struct {
    __m512i l[NL];
} VT;

typedef struct {
    __m512i p[NL], p2[NL], n0, mask; /* p2: 2p, for the lazy forms */
} VC;

VI void V_(field_load)(VC *c, const zp_ifma_field *f) {
    uint64_t carry = 0;
    for (int j = 0; j < NL; j++) {
        uint64_t d = 2 * f->p[j] + carry; /* limbs below 2^52: no overflow */
        c->p[j] = _mm512_set1_epi64((long long)f->p[j]);
        c->p2[j] = _mm512_set1_epi64((long long)(d & (((uint64_t)1 << 52) - 1)));
        carry = d >> 52;
    }
    c->n0 = _mm512_set1_epi64((long long)f->n0);
    c->mask = _mm512_set1_epi64((long long)(((uint64_t)1 << 52) - 1));
}

/* Carries (signed) out of every limb but the top into the next: those
 * end in [0, 2^52), the top one holds the sign of the whole. */
VI void V_(norm)(VT *x, const VC *c) {
    for (int j = 0; j < NL - 1; j++) {
        __m512i carry = _mm512_srai_epi64(x->l[j], 52);
        x->l[j] = _mm512_and_si512(x->l[j], c->mask);
        x->l[j + 1] = _mm512_add_epi64(x->l[j + 1], carry);
    }
}

/* x (limbs not yet carried, value in (-m, m)) into [0, m): carried, then
 * m added where negative. m is c->p (canonical results) or c->p2 (the lazy
 * forms' [0, 2p)). */
VI void V_(wrap_open)(VT *x, const __m512i m[NL], const VC *c) {
    V_(norm)(x, c);
    __mmask8 neg = _mm512_cmplt_epi64_mask(x->l[NL - 1], _mm512_setzero_si512());
    for (int j = 0; j < NL; j++) x->l[j] = _mm512_mask_add_epi64(x->l[j], neg, x->l[j], m[j]);
}
VI void V_(wrap)(VT *x, const __m512i m[NL], const VC *c) {
    V_(wrap_open)(x, m, c);
    V_(norm)(x, c);
}

/* a + b and a - b in [0, m), for a, b in [0, m) (their limbs carried or
 * not); "open": the result's limbs left uncarried, each below 2^53, for a
 * value that only goes into further sums and differences (all of which
 * carry their operands first), never into a product, a store or a
 * comparison; the plain forms carry it. */
VI void V_(add_mod_open)(VT *r, const VT *a, const VT *b, const __m512i m[NL], const VC *c) {
    VT t;
    for (int j = 0; j < NL; j++) t.l[j] = _mm512_sub_epi64(_mm512_add_epi64(a->l[j], b->l[j]), m[j]);
    V_(wrap_open)(&t, m, c);
    *r = t;
}
VI void V_(sub_mod_open)(VT *r, const VT *a, const VT *b, const __m512i m[NL], const VC *c) {
    VT t;
    for (int j = 0; j < NL; j++) t.l[j] = _mm512_sub_epi64(a->l[j], b->l[j]);
    V_(wrap_open)(&t, m, c);
    *r = t;
}
VI void V_(add_mod)(VT *r, const VT *a, const VT *b, const __m512i m[NL], const VC *c) {
    VT t; /* carried in a local: r may be in memory that c could alias */
    V_(add_mod_open)(&t, a, b, m, c);
    V_(norm)(&t, c);
    *r = t;
}
VI void V_(sub_mod)(VT *r, const VT *a, const VT *b, const __m512i m[NL], const VC *c) {
    VT t;
    V_(sub_mod_open)(&t, a, b, m, c);
    V_(norm)(&t, c);
    *r = t;
}

VI void V_(add)(VT *r, const VT *a, const VT *b, const VC *c) { V_(add_mod)(r, a, b, c->p, c); }
VI void V_(sub)(VT *r, const VT *a, const VT *b, const VC *c) { V_(sub_mod)(r, a, b, c->p, c); }

/* s = (a[0]·b[0] + ... + a[k-1]·b[k-1]) / 2^(52·NL) mod p, below p plus
 * that sum over 2^(52·NL), its limbs not yet normalized (mul and mul_lazy
 * finish it): operand scanning, NL rounds of t += sum_m a[m]·b[m]_i,
 * m = t_0·n0 mod 2^52, t = (t + m·p) / 2^52, one reduction for all k
 * products (k = 2: an extension field's coefficient). The accumulators
 * are 64-bit lanes fed 52-bit halves, at most 2k + 2 per round, so they
 * stay below 2^52·(2k + 2)·NL < 2^58 for k <= 2: no carry is propagated
 * until the end. Every operand's limbs must be below 2^52 (IFMA reads 52
 * bits). k is a constant where this is inlined, so its loops unroll. */
VI void V_(mont_sum)(VT *s, const VT *const a[], const VT *const b[], int k, const VC *c) {
    const __m512i zero = _mm512_setzero_si512();
    /* round i works on t[i .. i + NL]: the division by 2^52 is a move of
     * the window, not of the values (shifting an array of vectors made
     * the compiler copy and spill them) */
    __m512i t[2 * NL + 1];
    ZP_V_UNROLL
    for (int j = 0; j <= 2 * NL; j++) t[j] = zero;
    ZP_V_UNROLL
    for (int i = 0; i < NL; i++) {
        ZP_V_UNROLL
        for (int m = 0; m < k; m++) {
            __m512i bi = b[m]->l[i];
            ZP_V_UNROLL
            for (int j = 0; j < NL; j++) t[i + j] = _mm512_madd52lo_epu64(t[i + j], a[m]->l[j], bi);
        }
        ZP_V_UNROLL
        for (int m = 0; m < k; m++) {
            __m512i bi = b[m]->l[i];
            ZP_V_UNROLL
            for (int j = 0; j < NL; j++) t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a[m]->l[j], bi);
        }
        __m512i m = _mm512_madd52lo_epu64(zero, t[i], c->n0);
        /* m·p_0 would make t[i] 0 mod 2^52, adding 2^52 - (t[i] mod 2^52)
         * unless that is 0: what moves up is t[i] / 2^52 rounded up, and
         * that product is left out */
        t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_srli_epi64(_mm512_add_epi64(t[i], c->mask), 52));
        ZP_V_UNROLL
        for (int j = 1; j < NL; j++) t[i + j] = _mm512_madd52lo_epu64(t[i + j], c->p[j], m);
        ZP_V_UNROLL
        for (int j = 0; j < NL; j++) t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], c->p[j], m);
    }
    ZP_V_UNROLL
    for (int j = 0; j < NL; j++) s->l[j] = t[NL + j];
}

/* s = a·b / 2^(52·NL) mod p, as mont_sum leaves it */
VI void V_(mont)(VT *s, const VT *a, const VT *b, const VC *c) {
    const VT *const as[1] = {a}, *const bs[1] = {b};
    V_(mont_sum)(s, as, bs, 1, c);
}

/* canonical from [0, 2p), its limbs carried or not */
VI void V_(reduce_2p)(VT *x, const VC *c) {
    for (int j = 0; j < NL; j++) x->l[j] = _mm512_sub_epi64(x->l[j], c->p[j]);
    V_(wrap)(x, c->p, c);
}

/* r = a·b / 2^(52·NL) mod p, canonical, for b canonical and a below
 * 2^(52·NL - 64·NW)·p: the sum is below p + a·b/2^(52·NL) < p +
 * p·p/2^(64·NW) < 2p, so one conditional subtraction makes it canonical. */
VI void V_(mul)(VT *r, const VT *a, const VT *b, const VC *c) {
    VT s;
    V_(mont)(&s, a, b, c);
    V_(reduce_2p)(&s, c);
    *r = s;
}

/* Lazy forms, for the NTT's butterflies (Harvey's): values kept in
 * [0, 2p) (or [0, 4p) on their way into a multiplication), limbs
 * normalized, so most additions skip their reduction and products skip
 * their final subtraction. Both moduli are below 2^255, so 4p fits the
 * 260 bits of the limbs.
 *
 * mul_lazy: a·b / 2^(52·NL) mod p in [0, 2p), for a < 4p and b < p (the
 * sum is below p + 4p·p/2^(52·NL) < 2p). */
VI void V_(mul_lazy)(VT *r, const VT *a, const VT *b, const VC *c) {
    V_(mont)(r, a, b, c);
    V_(norm)(r, c);
}

/* a + b and a - b in [0, 2p), for a, b in [0, 2p) */
VI void V_(add_2p)(VT *r, const VT *a, const VT *b, const VC *c) { V_(add_mod)(r, a, b, c->p2, c); }
VI void V_(sub_2p)(VT *r, const VT *a, const VT *b, const VC *c) { V_(sub_mod)(r, a, b, c->p2, c); }

VI void V_(add_2p_open)(VT *r, const VT *a, const VT *b, const VC *c) { V_(add_mod_open)(r, a, b, c->p2, c); }
VI void V_(sub_2p_open)(VT *r, const VT *a, const VT *b, const VC *c) { V_(sub_mod_open)(r, a, b, c->p2, c); }

/* a + b and a - b + 2p in [0, 4p), unreduced: only as mul_lazy's a, or
 * (a + b of canonical a, b: below 2p) as an operand of mul_r */
VI void V_(add_4p)(VT *r, const VT *a, const VT *b, const VC *c) {
    for (int j = 0; j < NL; j++) r->l[j] = _mm512_add_epi64(a->l[j], b->l[j]);
    V_(norm)(r, c);
}
VI void V_(sub_4p)(VT *r, const VT *a, const VT *b, const VC *c) {
    for (int j = 0; j < NL; j++) r->l[j] = _mm512_add_epi64(_mm512_sub_epi64(a->l[j], b->l[j]), c->p2[j]);
    V_(norm)(r, c);
}

/* a - b + p, carried: in (0, 2p) for a, b in [0, p] (a's limbs carried
 * or not), an operand mul_r takes; one carry pass where sub needs two, a
 * compare and a masked add. With a = 0, p - b in (0, p]. */
VI void V_(sub_p)(VT *r, const VT *a, const VT *b, const VC *c) {
    for (int j = 0; j < NL; j++) r->l[j] = _mm512_add_epi64(_mm512_sub_epi64(a->l[j], b->l[j]), c->p[j]);
    V_(norm)(r, c);
}

/* a·2^(52·NL - 64·NW): a shift across the limbs, below 2^(52·NL) for
 * a < 2^(64·NW) */
VI void V_(shift_r)(VT *as, const VT *a, const VC *c) {
    enum { S = 52 * NL - 64 * NW };
    as->l[0] = _mm512_and_si512(_mm512_slli_epi64(a->l[0], S), c->mask);
    for (int j = 1; j < NL; j++)
        as->l[j] = _mm512_or_si512(_mm512_and_si512(_mm512_slli_epi64(a->l[j], S), c->mask),
                                   _mm512_srli_epi64(a->l[j - 1], 52 - S));
}

/* r = a·b / 2^(64·NW) mod p (the scalar code's Montgomery product),
 * canonical: mul of a·2^(52·NL - 64·NW). Before the final subtraction the
 * sum is below p + a·b/2^(64·NW); for a, b < 2p that is p·(1 +
 * 4p/2^(64·NW)): 1.76p for BN254's Fp (p < 0.19·2^256), far less for
 * BLS12-381's, so operands left in [0, 2p) by mul_r_lazy are fine. */
VI void V_(mul_r)(VT *r, const VT *a, const VT *b, const VC *c) {
    VT as;
    V_(shift_r)(&as, a, c);
    V_(mul)(r, &as, b, c);
}

/* r = (a·b + a2·b2) / 2^(64·NW) mod p, canonical, for as, as2 the
 * shift_r of canonical a, a2 and b, b2 at most p: before the final
 * subtraction the sum is below p + 2p·p/2^(64·NW) < 1.4p (BN254's Fp is
 * below 0.19·2^256, BLS12-381's below 2^-3·2^384). Two products for one
 * reduction and one subtraction. */
VI void V_(mul2_r)(VT *r, const VT *as, const VT *b, const VT *as2, const VT *b2, const VC *c) {
    const VT *const a[2] = {as, as2}, *const bs[2] = {b, b2};
    VT s;
    V_(mont_sum)(&s, a, bs, 2, c);
    V_(reduce_2p)(&s, c);
    *r = s;
}

/* mul_r without the final subtraction: in [0, 2p), for a, b < 2p (the
 * bound above) */
VI void V_(mul_r_lazy)(VT *r, const VT *a, const VT *b, const VC *c) {
    VT as;
    V_(shift_r)(&as, a, c);
    V_(mul_lazy)(r, &as, b, c);
}

/* 52-bit limbs from eight values' 64-bit words W[0..NW-1] (lane k: value
 * k), and back */
VI void V_(from_words)(VT *w, const __m512i W[NW]) {
    const __m512i mask = _mm512_set1_epi64((long long)(((uint64_t)1 << 52) - 1));
    for (int j = 0; j < NL; j++) {
        int bit = 52 * j, wi = bit / 64, s = bit % 64;
        __m512i v = _mm512_srli_epi64(W[wi], (unsigned)s);
        if (s > 12 && wi + 1 < NW) v = _mm512_or_si512(v, _mm512_slli_epi64(W[wi + 1], (unsigned)(64 - s)));
        w->l[j] = _mm512_and_si512(v, mask);
    }
}
VI void V_(to_words)(__m512i W[NW], const VT *w) {
    for (int wi = 0; wi < NW; wi++) {
        __m512i v = _mm512_setzero_si512();
        for (int j = 0; j < NL; j++) {
            int off = 52 * j - 64 * wi;
            if (off >= 64 || off + 52 <= 0) continue;
            v = _mm512_or_si512(
                v, off >= 0 ? _mm512_slli_epi64(w->l[j], (unsigned)off) : _mm512_srli_epi64(w->l[j], (unsigned)-off));
        }
        W[wi] = v;
    }
}

/* eight values at e[0..7] into the lanes by transposition: words 0-3 as
 * above, and for 6 words, words 4-5 of four values to a vector, two
 * permutes. (Gathers, one per word, took a fifth of BLS12-381's MSM
 * lanes on Zen 5; the permutes cost a few cycles.) */
VI void V_(load8)(VT *w, const uint64_t *const e[8]) {
    _Static_assert(NW == 4 || NW == 6, "load8 moves 4 or 6 words");
    __m512i W[NW], z[4];
    for (int k = 0; k < 4; k++) {
        __m256i x0 = _mm256_loadu_si256((const __m256i *)e[2 * k]);
        __m256i x1 = _mm256_loadu_si256((const __m256i *)e[2 * k + 1]);
        z[k] = _mm512_inserti64x4(_mm512_castsi256_si512(x0), x1, 1);
    }
    transpose(W, z);
#if NW == 6
    __m512i h[2]; /* words 4, 5 of values 4k .. 4k+3, value by value */
    for (int k = 0; k < 2; k++) {
        __m512i v = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)(e[4 * k] + 4)));
        v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)(e[4 * k + 1] + 4)), 1);
        v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)(e[4 * k + 2] + 4)), 2);
        h[k] = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)(e[4 * k + 3] + 4)), 3);
    }
    W[4] = _mm512_permutex2var_epi64(h[0], idx8(0, 2, 4, 6, 8, 10, 12, 14), h[1]);
    W[5] = _mm512_permutex2var_epi64(h[0], idx8(1, 3, 5, 7, 9, 11, 13, 15), h[1]);
#endif
    V_(from_words)(w, W);
}

/* the lanes out to e[k], for the lanes k in mask (the others may be NULL):
 * load8's moves backwards */
VI void V_(store8)(uint64_t *const e[8], const VT *w, unsigned mask) {
    __m512i W[NW], z[4];
    V_(to_words)(W, w);
    untranspose(z, W);
    for (int k = 0; k < 4; k++) {
        if (mask & (1u << (2 * k))) _mm256_storeu_si256((__m256i *)e[2 * k], _mm512_castsi512_si256(z[k]));
        if (mask & (2u << (2 * k))) _mm256_storeu_si256((__m256i *)e[2 * k + 1], _mm512_extracti64x4_epi64(z[k], 1));
    }
#if NW == 6
    for (int k = 0; k < 2; k++) {
        __m512i h = _mm512_permutex2var_epi64(
            W[4], k == 0 ? idx8(0, 8, 1, 9, 2, 10, 3, 11) : idx8(4, 12, 5, 13, 6, 14, 7, 15), W[5]);
        unsigned m = mask >> (4 * k);
        if (m & 1) _mm_storeu_si128((__m128i *)(e[4 * k] + 4), _mm512_castsi512_si128(h));
        if (m & 2) _mm_storeu_si128((__m128i *)(e[4 * k + 1] + 4), _mm512_extracti32x4_epi32(h, 1));
        if (m & 4) _mm_storeu_si128((__m128i *)(e[4 * k + 2] + 4), _mm512_extracti32x4_epi32(h, 2));
        if (m & 8) _mm_storeu_si128((__m128i *)(e[4 * k + 3] + 4), _mm512_extracti32x4_epi32(h, 3));
    }
#endif
}

#undef NL
#undef NW
#undef VT
#undef VC
#undef V_
#undef IFMA_NL
#undef IFMA_NW
