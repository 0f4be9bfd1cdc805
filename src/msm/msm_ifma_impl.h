/* One instance of msm_simd.h's batch arithmetic, included by msm_ifma.c
 * with IFMA_NL, IFMA_NW (the base field's limbs and words, as for
 * field/ifma_impl.h) and MSM_EXT (1: coordinates in the base field, 2: in
 * its extension Fp[u]/(u² + 1)). */
/* words of one coordinate (a literal: it names the functions) */
#if IFMA_NW == 4 && MSM_EXT == 1
#define MSM_W 4
#elif IFMA_NW == 4
#define MSM_W 8
#elif MSM_EXT == 1
#define MSM_W 6
#else
#define MSM_W 12
#endif
#define MV_(name) ZP_VCAT(ZP_VCAT(zp_msm_simd, MSM_W), _##name)
#define B_(name) ZP_VCAT(ZP_VCAT(zp_v, IFMA_NL), _##name)
#define BT ZP_VCAT(zp_v, IFMA_NL)
#define BC ZP_VCAT(ZP_VCAT(zp_v, IFMA_NL), _field)

typedef struct {
    BT c[MSM_EXT];
} MV_(elem);

VI void MV_(sub)(MV_(elem) *r, const MV_(elem) *a, const MV_(elem) *b, const BC *c) {
    for (int i = 0; i < MSM_EXT; i++) B_(sub)(&r->c[i], &a->c[i], &b->c[i], c);
}

/* the scalar code's Montgomery product, for canonical operands; in the
 * extension (u² = -1) c0 = a0·b0 + a1·(p - b1), c1 = a0·b1 + a1·b0, each
 * a pair of products under one reduction (mul2_r): as many IFMA
 * products as Karatsuba's three, but two reductions and final
 * subtractions instead of three, and one negation instead of its five
 * additions and subtractions. p - b1 is left in (0, p] (p for b1 = 0),
 * which mul2_r's bound allows: one carry pass. */
VI void MV_(mul)(MV_(elem) *r, const MV_(elem) *a, const MV_(elem) *b, const BC *c) {
#if MSM_EXT == 1
    B_(mul_r)(&r->c[0], &a->c[0], &b->c[0], c);
#else
    BT as0, as1, nb1, zero, c0, c1;
    for (int j = 0; j < IFMA_NL; j++) zero.l[j] = _mm512_setzero_si512();
    B_(shift_r)(&as0, &a->c[0], c);
    B_(shift_r)(&as1, &a->c[1], c);
    B_(sub_p)(&nb1, &zero, &b->c[1], c);
    B_(mul2_r)(&c0, &as0, &b->c[0], &as1, &nb1, c);
    B_(mul2_r)(&c1, &as0, &b->c[1], &as1, &b->c[0], c);
    r->c[0] = c0;
    r->c[1] = c1;
#endif
}

/* r = a², canonical, for a canonical; in the extension (a0 + a1)(a0 - a1)
 * + 2·a0·a1·u: two products, against mul's four (in two pairs). */
VI void MV_(sqr)(MV_(elem) *r, const MV_(elem) *a, const BC *c) {
#if MSM_EXT == 1
    MV_(mul)(r, a, a, c);
#else
    BT s, d, a2;
    B_(add_4p)(&s, &a->c[0], &a->c[1], c); /* below 2p: mul_r takes it */
    B_(sub)(&d, &a->c[0], &a->c[1], c);
    B_(add_4p)(&a2, &a->c[0], &a->c[0], c); /* likewise */
    B_(mul_r)(&r->c[0], &s, &d, c);
    B_(mul_r)(&r->c[1], &a2, &a->c[1], c);
#endif
}

/* The running products of the inversion (the chains, the butterfly, the
 * inverses and the slope) are left in [0, 2p) in the base field
 * (mul_r_lazy): they only ever go into further products, where mul_r
 * takes them. In the extension mul wants canonical operands (mul2_r's
 * bound, the negation of b1), so there it is mul. */
VI void MV_(mul_lazy)(MV_(elem) *r, const MV_(elem) *a, const MV_(elem) *b, const BC *c) {
#if MSM_EXT == 1
    B_(mul_r_lazy)(&r->c[0], &a->c[0], &b->c[0], c);
#else
    MV_(mul)(r, a, b, c);
#endif
}

/* a - b for a product's operand: in the base field sub_p's a - b + p in
 * (0, 2p) (mul_r and mul_r_lazy take [0, 2p)); in the extension, where
 * mul wants canonical operands, sub */
VI void MV_(sub_lazy)(MV_(elem) *r, const MV_(elem) *a, const MV_(elem) *b, const BC *c) {
#if MSM_EXT == 1
    B_(sub_p)(&r->c[0], &a->c[0], &b->c[0], c);
#else
    MV_(sub)(r, a, b, c);
#endif
}

/* canonical from [0, 2p) */
VI void MV_(reduce)(MV_(elem) *r, const BC *c) {
#if MSM_EXT == 1
    B_(reduce_2p)(&r->c[0], c);
#else
    (void)r, (void)c; /* mul_lazy is mul there */
#endif
}

VI void MV_(set_zero)(MV_(elem) *r) {
    for (int i = 0; i < MSM_EXT; i++)
        for (int j = 0; j < IFMA_NL; j++) r->c[i].l[j] = _mm512_setzero_si512();
}

/* 1 in the low limb of every lane */
VI void MV_(set_one)(MV_(elem) *r) {
    MV_(set_zero)(r);
    r->c[0].l[0] = _mm512_set1_epi64(1);
}

/* the lanes where a (canonical) is zero */
VI unsigned MV_(zero_mask)(const MV_(elem) *a) {
    __m512i o = _mm512_setzero_si512();
    for (int i = 0; i < MSM_EXT; i++)
        for (int j = 0; j < IFMA_NL; j++) o = _mm512_or_si512(o, a->c[i].l[j]);
    return (unsigned)_mm512_cmpeq_epi64_mask(o, _mm512_setzero_si512());
}

/* the lanes where a = b (both canonical, limbs carried) */
VI unsigned MV_(eq_mask)(const MV_(elem) *a, const MV_(elem) *b) {
    __mmask8 m = 0xff;
    for (int i = 0; i < MSM_EXT; i++)
        for (int j = 0; j < IFMA_NL; j++) m = _mm512_mask_cmpeq_epi64_mask(m, a->c[i].l[j], b->c[i].l[j]);
    return m;
}

/* r = b in the lanes of mask, a elsewhere */
VI void MV_(blend)(MV_(elem) *r, unsigned mask, const MV_(elem) *a, const MV_(elem) *b) {
    for (int i = 0; i < MSM_EXT; i++)
        for (int j = 0; j < IFMA_NL; j++)
            r->c[i].l[j] = _mm512_mask_mov_epi64(a->c[i].l[j], (__mmask8)mask, b->c[i].l[j]);
}

/* r = a with lane k taken from lane k ^ d */
VI void MV_(swap_lanes)(MV_(elem) *r, const MV_(elem) *a, int d) {
    const __m512i idx = _mm512_xor_si512(_mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0), _mm512_set1_epi64(d));
    for (int i = 0; i < MSM_EXT; i++)
        for (int j = 0; j < IFMA_NL; j++) r->c[i].l[j] = _mm512_permutexvar_epi64(idx, a->c[i].l[j]);
}

/* -y in the lanes of mask */
VI void MV_(neg_where)(MV_(elem) *y, unsigned mask, const BC *c) {
    if (mask == 0) return;
    MV_(elem) z, n;
    MV_(set_zero)(&z);
    MV_(sub)(&n, &z, y, c);
    MV_(blend)(y, mask, y, &n);
}

/* (q negated in the lanes of neg_q) - p, for a product's operand, as
 * sub_lazy: in the base field p - q left uncarried where negated, then
 * sub_lazy's one carry pass for both */
VI void MV_(sub_signed_lazy)(MV_(elem) *r, const MV_(elem) *q, unsigned neg_q, const MV_(elem) *p, const BC *c) {
#if MSM_EXT == 1
    MV_(elem) s;
    for (int j = 0; j < IFMA_NL; j++)
        s.c[0].l[j] = _mm512_mask_sub_epi64(q->c[0].l[j], (__mmask8)neg_q, c->p[j], q->c[0].l[j]);
    MV_(sub_lazy)(r, &s, p, c);
#else
    MV_(elem) n = *q;
    MV_(neg_where)(&n, neg_q, c);
    MV_(sub)(r, &n, p, c);
#endif
}

/* one coordinate (off words into each point) of eight points (c: unused
 * here, the FMA lanes' loads need theirs) */
VI void MV_(gather)(MV_(elem) *w, const uint64_t *const e[8], size_t off, const BC *c) {
    (void)c;
    for (int i = 0; i < MSM_EXT; i++) {
        const uint64_t *d[8];
        for (int k = 0; k < 8; k++) d[k] = e[k] + off + (size_t)i * IFMA_NW;
        B_(load8)(&w->c[i], d);
    }
}

/* the lanes in mask out to e[k] + off words */
static void MV_(store)(uint64_t *const e[8], size_t off, const MV_(elem) *w, unsigned mask) {
    for (int i = 0; i < MSM_EXT; i++) {
        uint64_t *d[8];
        for (int k = 0; k < 8; k++) d[k] = e[k] != NULL ? e[k] + off + (size_t)i * IFMA_NW : NULL;
        B_(store8)(d, &w->c[i], mask);
    }
}

/* the batch algorithm, shared with the AVX2 FMA lanes */
#define LN_(name) MV_(name)
#define LN_FIELD BC
#define LN_FIELD_LOAD(c, f) B_(field_load)(c, f)
#define LN_ENTER() 0u
#define LN_LEAVE(state) (void)(state)
#define LN_FN
#define LN_PREFIX MV_(prefix)
#define LN_FINISH MV_(finish)
#include "msm/msm_lanes_impl.h"

#undef MSM_W
#undef MV_
#undef B_
#undef BT
#undef BC
#undef MSM_EXT
