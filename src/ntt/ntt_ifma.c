/* The AVX-512 IFMA lanes of ntt_simd.h. This file alone is compiled with
 * -mavx512f -mavx512ifma (CMakeLists.txt, on x86-64, which also defines
 * ZP_NTT_IFMA) and every function in it may use those instructions, so it
 * holds nothing but the kernels: the CPU check that guards them is
 * zp_ntt_simd, in ntt.c. Without ZP_NTT_IFMA it builds as stubs. */
#include "ntt/ntt_simd.h"

#include <stdlib.h>

#if defined(ZP_NTT_IFMA)
#if !defined(__AVX512F__) || !defined(__AVX512IFMA__)
#error "ntt_ifma.c needs -mavx512f -mavx512ifma"
#endif
#include <immintrin.h>

/* Eight elements: limb j of lane k in l[j][k]. */
typedef struct {
    __m512i l[5];
} v5;

typedef struct {
    __m512i p[5], n0, mask;
} vfield;

#define VI static inline __attribute__((always_inline))

VI void vfield_load(vfield *c, const zp_ntt_simd_field *f) {
    for (int j = 0; j < 5; j++) c->p[j] = _mm512_set1_epi64((long long)f->p[j]);
    c->n0 = _mm512_set1_epi64((long long)f->n0);
    c->mask = _mm512_set1_epi64((long long)(((uint64_t)1 << 52) - 1));
}

VI void vbroadcast(v5 *r, const zp_ntt_tw *t) {
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

void zp_ntt_simd_gather(void *work, const uint64_t *a, size_t m, size_t step, size_t lane_step) {
    v5 *w = work;
    const __m512i mask = _mm512_set1_epi64((long long)(((uint64_t)1 << 52) - 1));
    for (size_t i = 0; i < m; i++) {
        const uint64_t *e = a + 4 * i * step;
        __m512i z[4], L[4];
        for (int k = 0; k < 4; k++) {
            __m256i x0 = _mm256_loadu_si256((const __m256i *)(e + 4 * (2 * k) * lane_step));
            __m256i x1 = _mm256_loadu_si256((const __m256i *)(e + 4 * (2 * k + 1) * lane_step));
            z[k] = _mm512_inserti64x4(_mm512_castsi256_si512(x0), x1, 1);
        }
        transpose(L, z);
        w[i].l[0] = _mm512_and_si512(L[0], mask);
        w[i].l[1] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(L[0], 52), _mm512_slli_epi64(L[1], 12)), mask);
        w[i].l[2] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(L[1], 40), _mm512_slli_epi64(L[2], 24)), mask);
        w[i].l[3] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(L[2], 28), _mm512_slli_epi64(L[3], 36)), mask);
        w[i].l[4] = _mm512_srli_epi64(L[3], 16);
    }
}

void zp_ntt_simd_scatter(uint64_t *a, const void *work, size_t m, size_t step, size_t lane_step) {
    const v5 *w = work;
    for (size_t i = 0; i < m; i++) {
        uint64_t *e = a + 4 * i * step;
        const __m512i *d = w[i].l;
        __m512i L[4] = {_mm512_or_si512(d[0], _mm512_slli_epi64(d[1], 52)),
                        _mm512_or_si512(_mm512_srli_epi64(d[1], 12), _mm512_slli_epi64(d[2], 40)),
                        _mm512_or_si512(_mm512_srli_epi64(d[2], 24), _mm512_slli_epi64(d[3], 28)),
                        _mm512_or_si512(_mm512_srli_epi64(d[3], 36), _mm512_slli_epi64(d[4], 16))};
        __m512i z[4];
        untranspose(z, L);
        for (int k = 0; k < 4; k++) {
            _mm256_storeu_si256((__m256i *)(e + 4 * (2 * k) * lane_step), _mm512_castsi512_si256(z[k]));
            _mm256_storeu_si256((__m256i *)(e + 4 * (2 * k + 1) * lane_step), _mm512_extracti64x4_epi64(z[k], 1));
        }
    }
}

/* ---- the block transforms: ntt_kernels_impl.h's, lane-wide ---- */

VI void dif4(v5 *x0, v5 *x1, v5 *x2, v5 *x3, const v5 *w1, const v5 *w2, const v5 *w3, const v5 *w4,
             const vfield *c) {
    v5 a, b, cc, d;
    vadd(&a, x0, x2, c);
    vsub(&b, x0, x2, c);
    vadd(&cc, x1, x3, c);
    vsub(&d, x1, x3, c);
    vmul(&d, &d, w4, c);
    vadd(x0, &a, &cc, c);
    vsub(x1, &a, &cc, c);
    vadd(x2, &b, &d, c);
    vsub(x3, &b, &d, c);
    if (w1 != NULL) {
        vmul(x1, x1, w2, c);
        vmul(x2, x2, w1, c);
        vmul(x3, x3, w3, c);
    }
}

VI void dit4(v5 *x0, v5 *x1, v5 *x2, v5 *x3, const v5 *w1, const v5 *w2, const v5 *w3, const v5 *w4,
             const vfield *c) {
    v5 t1 = *x1, t2 = *x2, t3 = *x3, s0, s1, s2, s3;
    if (w1 != NULL) {
        vmul(&t1, x1, w2, c);
        vmul(&t2, x2, w1, c);
        vmul(&t3, x3, w3, c);
    }
    vadd(&s0, x0, &t1, c);
    vsub(&s1, x0, &t1, c);
    vadd(&s2, &t2, &t3, c);
    vsub(&s3, &t2, &t3, c);
    vmul(&s3, &s3, w4, c);
    vadd(x0, &s0, &s2, c);
    vsub(x2, &s0, &s2, c);
    vadd(x1, &s1, &s3, c);
    vsub(x3, &s1, &s3, c);
}

static void stage2(v5 *x, size_t h, const zp_ntt_tw *tw, size_t ts, int dit, const vfield *c) {
    for (size_t j = 0; j < h; j++) {
        v5 *p0 = x + j, *p1 = p0 + h, w, t;
        vbroadcast(&w, &tw[j * ts]);
        if (dit) {
            t = *p1;
            if (j != 0) vmul(&t, p1, &w, c);
            vsub(p1, p0, &t, c);
            vadd(p0, p0, &t, c);
        } else {
            vsub(&t, p0, p1, c);
            vadd(p0, p0, p1, c);
            *p1 = t;
            if (j != 0) vmul(p1, &t, &w, c);
        }
    }
}

static void stage4(v5 *x, size_t M, size_t len, const zp_ntt_tw *tw, size_t ts, int dit, const vfield *c) {
    size_t q = len / 4, s = (M / len) * ts;
    v5 w4;
    vbroadcast(&w4, &tw[(M / 4) * ts]);
    for (size_t j = 0; j < q; j++) {
        v5 w1, w2, w3;
        const v5 *pw1 = NULL;
        if (j != 0) {
            vbroadcast(&w1, &tw[j * s]);
            vbroadcast(&w2, &tw[2 * j * s]);
            vbroadcast(&w3, &tw[3 * j * s]);
            pw1 = &w1;
        }
        for (size_t blk = 0; blk < M; blk += len) {
            v5 *p0 = x + blk + j;
            if (dit) {
                dit4(p0, p0 + q, p0 + 2 * q, p0 + 3 * q, pw1, &w2, &w3, &w4, c);
            } else {
                dif4(p0, p0 + q, p0 + 2 * q, p0 + 3 * q, pw1, &w2, &w3, &w4, c);
            }
        }
    }
}

void zp_ntt_simd_dif(const zp_ntt_simd_field *f, void *work, unsigned log_m, const zp_ntt_tw *tw, size_t ts) {
    vfield c;
    vfield_load(&c, f);
    size_t M = (size_t)1 << log_m, len = M;
    if (log_m & 1) {
        stage2(work, M / 2, tw, ts, 0, &c);
        len = M / 2;
    }
    for (; len >= 4; len /= 4) stage4(work, M, len, tw, ts, 0, &c);
}

void zp_ntt_simd_dit(const zp_ntt_simd_field *f, void *work, unsigned log_m, const zp_ntt_tw *tw, size_t ts) {
    vfield c;
    vfield_load(&c, f);
    size_t M = (size_t)1 << log_m, top = (log_m & 1) ? M / 2 : M;
    for (size_t len = 4; len <= top; len *= 4) stage4(work, M, len, tw, ts, 1, &c);
    if (log_m & 1) stage2(work, M / 2, tw, ts, 1, &c);
}

static void lanes_load(v5 *r, const zp_ntt_tw t[8]) {
    for (int j = 0; j < 5; j++) {
        r->l[j] = _mm512_set_epi64((long long)t[7].l[j], (long long)t[6].l[j], (long long)t[5].l[j],
                                   (long long)t[4].l[j], (long long)t[3].l[j], (long long)t[2].l[j],
                                   (long long)t[1].l[j], (long long)t[0].l[j]);
    }
}

/* Four interleaved running products (stepping by h^4) so that consecutive
 * multiplications do not wait on each other, as in the scalar twist. */
void zp_ntt_simd_twist(const zp_ntt_simd_field *f, void *work, size_t m, const zp_ntt_tw h[8],
                       const zp_ntt_tw first[8]) {
    vfield c;
    vfield_load(&c, f);
    v5 *x = work, hv, h4, cur[4];
    lanes_load(&hv, h);
    lanes_load(&cur[0], first);
    for (int i = 1; i < 4; i++) vmul(&cur[i], &cur[i - 1], &hv, &c);
    vmul(&h4, &hv, &hv, &c);
    vmul(&h4, &h4, &h4, &c);
    size_t i = 0;
    for (; i + 4 <= m; i += 4) {
        for (int k = 0; k < 4; k++) {
            vmul(&x[i + k], &x[i + k], &cur[k], &c);
            vmul(&cur[k], &cur[k], &h4, &c);
        }
    }
    for (int k = 0; i < m; i++, k++) vmul(&x[i], &x[i], &cur[k], &c);
}

void zp_ntt_simd_scale(const zp_ntt_simd_field *f, void *work, size_t m, const zp_ntt_tw *tab) {
    vfield c;
    vfield_load(&c, f);
    v5 *x = work;
    for (size_t i = 1; i < m; i++) {
        v5 t;
        vbroadcast(&t, &tab[i]);
        vmul(&x[i], &x[i], &t, &c);
    }
}

void zp_ntt_simd_mul_chains(const zp_ntt_simd_field *f, void *work, size_t chains, size_t iters) {
    vfield c;
    vfield_load(&c, f);
    v5 *x = work, y = x[chains], acc[8];
    for (size_t k = 0; k < chains; k++) acc[k] = x[k];
    for (size_t i = 0; i < iters; i++) {
        for (size_t k = 0; k < chains; k++) vmul(&acc[k], &acc[k], &y, &c);
    }
    for (size_t k = 0; k < chains; k++) x[k] = acc[k];
}

#else /* no IFMA in this build: zp_ntt_simd never lets these run */

void zp_ntt_simd_gather(void *work, const uint64_t *a, size_t m, size_t step, size_t lane_step) {
    (void)work, (void)a, (void)m, (void)step, (void)lane_step;
    abort();
}
void zp_ntt_simd_scatter(uint64_t *a, const void *work, size_t m, size_t step, size_t lane_step) {
    (void)work, (void)a, (void)m, (void)step, (void)lane_step;
    abort();
}
void zp_ntt_simd_dif(const zp_ntt_simd_field *f, void *work, unsigned log_m, const zp_ntt_tw *tw, size_t ts) {
    (void)f, (void)work, (void)log_m, (void)tw, (void)ts;
    abort();
}
void zp_ntt_simd_dit(const zp_ntt_simd_field *f, void *work, unsigned log_m, const zp_ntt_tw *tw, size_t ts) {
    (void)f, (void)work, (void)log_m, (void)tw, (void)ts;
    abort();
}
void zp_ntt_simd_twist(const zp_ntt_simd_field *f, void *work, size_t m, const zp_ntt_tw h[8],
                       const zp_ntt_tw first[8]) {
    (void)f, (void)work, (void)m, (void)h, (void)first;
    abort();
}
void zp_ntt_simd_scale(const zp_ntt_simd_field *f, void *work, size_t m, const zp_ntt_tw *tab) {
    (void)f, (void)work, (void)m, (void)tab;
    abort();
}
void zp_ntt_simd_mul_chains(const zp_ntt_simd_field *f, void *work, size_t chains, size_t iters) {
    (void)f, (void)work, (void)chains, (void)iters;
    abort();
}
#endif
