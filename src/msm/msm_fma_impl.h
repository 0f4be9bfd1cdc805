/* One instance of the AVX2 FMA batch arithmetic (msm_fma.c), included
 * with MSM_EXT: 1 for coordinates in BN254's Fp (4 words: BN254 G1), 2 for
 * its extension Fp[u]/(u² + 1) (8 words: BN254 G2): the element
 * operations on field/fma_impl.h's eight lanes, as msm_ifma_impl.h's on
 * the IFMA ones (whose comments hold), and the shared algorithm
 * (msm_lanes_impl.h). */
#if MSM_EXT == 1
#define MSM_W 4
#else
#define MSM_W 8
#endif
#define MF_(name) ZP_CAT(ZP_CAT(ZP_CAT(mf, MSM_W), _), name)

typedef struct {
    zp_f8 c[MSM_EXT];
} MF_(elem);

FV void MF_(sub)(MF_(elem) * r, const MF_(elem) * a, const MF_(elem) * b, const zp_f8_field *c) {
    for (int i = 0; i < MSM_EXT; i++) zp_f8_sub(&r->c[i], &a->c[i], &b->c[i], c);
}

/* the scalar code's product, canonical, for canonical operands (base
 * field: also for operands in [0, 2p)); in the extension c0 = a0·b0 +
 * a1·(p - b1), c1 = a0·b1 + a1·b0, each two products under one reduction
 * (p - b1 in (0, p], which mul2_r's bound allows) */
FV void MF_(mul)(MF_(elem) * r, const MF_(elem) * a, const MF_(elem) * b, const zp_f8_field *c) {
#if MSM_EXT == 1
    zp_f8_mul_r(&r->c[0], &a->c[0], &b->c[0], c);
#else
    zp_f8 nb1, c0, c1;
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < ZP_F8_NL; j++) nb1.h[k][j] = _mm256_sub_epi64(c->p[j], b->c[1].h[k][j]);
    zp_f8_norm(nb1.h[0], c);
    zp_f8_norm(nb1.h[1], c);
    zp_f8_mul2_r(&c0, &a->c[0], &b->c[0], &a->c[1], &nb1, c);
    zp_f8_mul2_r(&c1, &a->c[0], &b->c[1], &a->c[1], &b->c[0], c);
    r->c[0] = c0;
    r->c[1] = c1;
#endif
}

/* a², canonical; in the extension (a0 + a1)(a0 - a1) + 2·a0·a1·u */
FV void MF_(sqr)(MF_(elem) * r, const MF_(elem) * a, const zp_f8_field *c) {
#if MSM_EXT == 1
    MF_(mul)(r, a, a, c);
#else
    zp_f8 s, d, a2;
    zp_f8_add_2p(&s, &a->c[0], &a->c[1], c); /* below 2p: mul_r takes it */
    zp_f8_sub(&d, &a->c[0], &a->c[1], c);
    zp_f8_add_2p(&a2, &a->c[0], &a->c[0], c);
    zp_f8_mul_r(&r->c[0], &s, &d, c);
    zp_f8_mul_r(&r->c[1], &a2, &a->c[1], c);
#endif
}

/* the inversion's running products: [0, 2p) in the base field, canonical
 * (mul) in the extension */
FV void MF_(mul_lazy)(MF_(elem) * r, const MF_(elem) * a, const MF_(elem) * b, const zp_f8_field *c) {
#if MSM_EXT == 1
    zp_f8_mul_r_lazy(&r->c[0], &a->c[0], &b->c[0], c);
#else
    MF_(mul)(r, a, b, c);
#endif
}

/* a - b for a product's operand: a - b + p in (0, 2p) in the base field,
 * canonical in the extension */
FV void MF_(sub_lazy)(MF_(elem) * r, const MF_(elem) * a, const MF_(elem) * b, const zp_f8_field *c) {
#if MSM_EXT == 1
    zp_f8_sub_p(&r->c[0], &a->c[0], &b->c[0], c);
#else
    MF_(sub)(r, a, b, c);
#endif
}

/* canonical from what mul_lazy leaves */
FV void MF_(reduce)(MF_(elem) * r, const zp_f8_field *c) {
#if MSM_EXT == 1
    zp_f8_reduce_2p(&r->c[0], c);
#else
    (void)r, (void)c;
#endif
}

FV void MF_(set_zero)(MF_(elem) * r) {
    for (int i = 0; i < MSM_EXT; i++) zp_f8_set_zero(&r->c[i]);
}

/* 1 in the low limb of every lane */
FV void MF_(set_one)(MF_(elem) * r) {
    MF_(set_zero)(r);
    r->c[0].h[0][0] = r->c[0].h[1][0] = _mm256_set1_epi64x(1);
}

FV unsigned MF_(zero_mask)(const MF_(elem) * a) {
    unsigned m = 0xff;
    for (int i = 0; i < MSM_EXT; i++) m &= zp_f8_zero_mask(&a->c[i]);
    return m;
}

FV unsigned MF_(eq_mask)(const MF_(elem) * a, const MF_(elem) * b) {
    unsigned m = 0xff;
    for (int i = 0; i < MSM_EXT; i++) m &= zp_f8_eq_mask(&a->c[i], &b->c[i]);
    return m;
}

FV void MF_(blend)(MF_(elem) * r, unsigned mask, const MF_(elem) * a, const MF_(elem) * b) {
    for (int i = 0; i < MSM_EXT; i++) zp_f8_blend(&r->c[i], mask, &a->c[i], &b->c[i]);
}

FV void MF_(swap_lanes)(MF_(elem) * r, const MF_(elem) * a, int d) {
    for (int i = 0; i < MSM_EXT; i++) zp_f8_swap_lanes(&r->c[i], &a->c[i], d);
}

/* -y in the lanes of mask, canonical */
FV void MF_(neg_where)(MF_(elem) * y, unsigned mask, const zp_f8_field *c) {
    if (mask == 0) return;
    MF_(elem) z, n;
    MF_(set_zero)(&z);
    MF_(sub)(&n, &z, y, c);
    MF_(blend)(y, mask, y, &n);
}

/* (q negated in the lanes of neg_q) - p, as sub_lazy: in the base field p
 * - q left uncarried where negated, then sub_p's one carry pass */
FV void MF_(sub_signed_lazy)(MF_(elem) * r, const MF_(elem) * q, unsigned neg_q, const MF_(elem) * p,
                             const zp_f8_field *c) {
#if MSM_EXT == 1
    zp_f8 s = q->c[0];
    if (neg_q != 0) {
        zp_f8 n;
        for (int k = 0; k < 2; k++)
            for (int j = 0; j < ZP_F8_NL; j++) n.h[k][j] = _mm256_sub_epi64(c->p[j], q->c[0].h[k][j]);
        zp_f8_blend(&s, neg_q, &q->c[0], &n);
    }
    zp_f8_sub_p(&r->c[0], &s, &p->c[0], c);
#else
    MF_(elem) n = *q;
    MF_(neg_where)(&n, neg_q, c);
    MF_(sub)(r, &n, p, c);
#endif
}

/* one coordinate (off words into each point) of eight points */
FV void MF_(gather)(MF_(elem) * w, const uint64_t *const e[8], size_t off, const zp_f8_field *c) {
    for (int i = 0; i < MSM_EXT; i++) {
        const uint64_t *d[8];
        for (int k = 0; k < 8; k++) d[k] = e[k] + off + 4 * (size_t)i;
        zp_f8_load8(&w->c[i], d, c);
    }
}

/* the lanes in mask out to e[k] + off words */
FV void MF_(store)(uint64_t *const e[8], size_t off, const MF_(elem) * w, unsigned mask) {
    for (int i = 0; i < MSM_EXT; i++) {
        uint64_t *d[8];
        for (int k = 0; k < 8; k++) d[k] = e[k] != NULL ? e[k] + off + 4 * (size_t)i : NULL;
        zp_f8_store8(d, &w->c[i], mask);
    }
}

/* the batch algorithm, shared with the IFMA lanes */
#define LN_(name) MF_(name)
#define LN_FIELD zp_f8_field
#define LN_FIELD_LOAD(c, f) zp_f8_field_load(c, f)
#define LN_ENTER() zp_f8_round_down()
#define LN_LEAVE(state) zp_f8_round_restore(state)
#define LN_FN FN
#define LN_PREFIX ZP_CAT(ZP_CAT(zp_msm_fma, MSM_W), _prefix)
#define LN_FINISH ZP_CAT(ZP_CAT(zp_msm_fma, MSM_W), _finish)
#include "msm/msm_lanes_impl.h"

#undef MSM_W
#undef MF_
#undef MSM_EXT
