/* One instance of the AVX2 FMA batch arithmetic (msm_fma.c), included
 * with MSM_EXT: 1 for coordinates in BN254's Fp (4 words: BN254 G1), 2 for
 * its extension Fp[u]/(u² + 1) (8 words: BN254 G2). msm_ifma_impl.h's
 * algorithm on field/fma_impl.h's eight lanes; the comments there hold. */
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

/* the infinity that stands in for a missing second point and for the
 * padding */
static const uint64_t MF_(zero_point)[2 * MSM_W] = {0};

/* group t: pairs 8t .. 8t+7 (padding past n) */
typedef struct {
    const uint64_t *p[8], *q[8];
    uint64_t *dst[8];
    unsigned active, neg_p, neg_q;
} MF_(group);

static void MF_(group_load)(MF_(group) * g, const zp_msm_simd_batch *b, size_t t) {
    g->active = g->neg_p = g->neg_q = 0;
    for (unsigned k = 0; k < 8; k++) {
        size_t i = 8 * t + k;
        if (i < b->n) {
            const zp_msm_pair *e = &b->pairs[i];
            g->p[k] = e->p;
            g->q[k] = e->q != NULL ? e->q : MF_(zero_point);
            g->dst[k] = e->dst;
            g->active |= 1u << k;
            g->neg_p |= (unsigned)(e->neg_p != 0) << k;
            g->neg_q |= (unsigned)(e->neg_q != 0) << k;
        } else {
            g->p[k] = g->q[k] = MF_(zero_point);
            g->dst[k] = NULL;
        }
    }
}

/* As msm_ifma_impl.h's prefix: the denominators x_q - x_p (1 where
 * equal) in D, the chains' running products in P, and one product of all
 * for the caller's inversion; D[0] holds each lane's product of the
 * other lanes. */
FN void ZP_CAT(ZP_CAT(zp_msm_fma, MSM_W), _prefix)(const zp_msm_simd_batch *b, uint64_t *product) {
    zp_f8_field c;
    zp_f8_field_load(&c, b->f);
    unsigned csr = zp_f8_round_down();
    size_t groups = groups_of(b->n);
    MF_(elem) *D = b->work, *P = D + groups, acc[CH], one;
    MF_(set_zero)(&one);
    one.c[0].h[0][0] = one.c[0].h[1][0] = _mm256_set1_epi64x(1); /* any nonzero value */
    for (size_t t = 0; t < groups; t++) {
        MF_(group) g;
        MF_(elem) px, qx;
        MF_(group_load)(&g, b, t);
        MF_(gather)(&px, g.p, 0, &c);
        MF_(gather)(&qx, g.q, 0, &c);
        MF_(sub_lazy)(&D[t], &qx, &px, &c);
        MF_(blend)(&D[t], MF_(eq_mask)(&px, &qx), &D[t], &one);
    }
    for (int u = 0; u < CH; u++) acc[u] = D[u];
    for (size_t t = CH; t < groups; t += CH) {
        for (int u = 0; u < CH; u++) P[t + u] = acc[u];
        for (int u = 0; u < CH; u++) MF_(mul_lazy)(&acc[u], &acc[u], &D[t + u], &c);
    }
    _Static_assert(CH == 4, "the chains' exclusive products below are written for 4 chains");
    MF_(elem) p01, p23, all, excl, part;
    MF_(mul_lazy)(&p01, &acc[0], &acc[1], &c);
    MF_(mul_lazy)(&p23, &acc[2], &acc[3], &c);
    MF_(mul_lazy)(&P[0], &acc[1], &p23, &c);
    MF_(mul_lazy)(&P[1], &acc[0], &p23, &c);
    MF_(mul_lazy)(&P[2], &p01, &acc[3], &c);
    MF_(mul_lazy)(&P[3], &p01, &acc[2], &c);
    MF_(mul_lazy)(&all, &p01, &p23, &c);
    MF_(swap_lanes)(&excl, &all, 1);
    MF_(mul_lazy)(&all, &all, &excl, &c);
    for (int d = 2; d < 8; d *= 2) {
        MF_(swap_lanes)(&part, &all, d);
        MF_(mul_lazy)(&excl, &excl, &part, &c);
        MF_(mul_lazy)(&all, &all, &part, &c);
    }
    D[0] = excl;
    MF_(reduce)(&all, &c); /* the caller inverts it */
    uint64_t *e[8] = {product, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    MF_(store)(e, 0, &all, 1);
    zp_f8_round_restore(csr);
}

FN void ZP_CAT(ZP_CAT(zp_msm_fma, MSM_W), _finish)(zp_msm_simd_batch *b, const uint64_t *inv) {
    zp_f8_field c;
    zp_f8_field_load(&c, b->f);
    unsigned csr = zp_f8_round_down();
    size_t groups = groups_of(b->n);
    MF_(elem) *D = b->work, *P = D + groups, a[CH], zero;
    MF_(set_zero)(&zero);
    {
        const uint64_t *e[8] = {inv, inv, inv, inv, inv, inv, inv, inv};
        MF_(elem) lane_inv;
        MF_(gather)(&lane_inv, e, 0, &c);
        MF_(mul_lazy)(&lane_inv, &lane_inv, &D[0], &c);
        for (int u = 0; u < CH; u++) MF_(mul_lazy)(&a[u], &lane_inv, &P[u], &c);
    }
    for (size_t t = groups - CH; t >= CH; t -= CH) {
        for (int u = 0; u < CH; u++) MF_(mul_lazy)(&P[t + u], &a[u], &P[t + u], &c);
        for (int u = 0; u < CH; u++) MF_(mul_lazy)(&a[u], &a[u], &D[t + u], &c);
    }
    for (int u = 0; u < CH; u++) P[u] = a[u];
    b->n_dbl = 0;
    for (size_t t = 0; t < groups; t += CH) {
        MF_(group) g[CH];
        unsigned any = 0;
        for (int u = 0; u < CH; u++) {
            MF_(group_load)(&g[u], b, t + (size_t)u);
            any |= g[u].active;
        }
        if (any == 0) break; /* the padding at the end */
        MF_(elem) px[CH], py[CH], qx[CH], qy[CH], num[CH], lambda[CH], t1[CH], x3[CH], y3[CH];
        unsigned inf_p[CH], inf_q[CH], eq_x[CH], special = 0;
        /* every group's points are read before any sum is written */
        for (int u = 0; u < CH; u++) {
            MF_(gather)(&px[u], g[u].p, 0, &c);
            MF_(gather)(&py[u], g[u].p, MSM_W, &c);
            MF_(gather)(&qx[u], g[u].q, 0, &c);
            MF_(gather)(&qy[u], g[u].q, MSM_W, &c);
            inf_p[u] = MF_(zero_mask)(&px[u]) & MF_(zero_mask)(&py[u]);
            inf_q[u] = MF_(zero_mask)(&qx[u]) & MF_(zero_mask)(&qy[u]);
            MF_(neg_where)(&py[u], g[u].neg_p, &c);
            eq_x[u] = MF_(eq_mask)(&px[u], &qx[u]);
            special |= (inf_p[u] | inf_q[u] | eq_x[u]) & g[u].active;
        }
        for (int u = 0; u < CH; u++) MF_(sub_signed_lazy)(&num[u], &qy[u], g[u].neg_q, &py[u], &c);
        for (int u = 0; u < CH; u++) MF_(mul_lazy)(&lambda[u], &num[u], &P[t + u], &c);
        for (int u = 0; u < CH; u++) MF_(sqr)(&t1[u], &lambda[u], &c); /* canonical again */
        for (int u = 0; u < CH; u++) MF_(sub)(&t1[u], &t1[u], &px[u], &c);
        for (int u = 0; u < CH; u++) MF_(sub)(&x3[u], &t1[u], &qx[u], &c); /* x3 = λ² - x1 - x2 */
        for (int u = 0; u < CH; u++) MF_(sub_lazy)(&t1[u], &px[u], &x3[u], &c);
        for (int u = 0; u < CH; u++) MF_(mul)(&t1[u], &lambda[u], &t1[u], &c);
        for (int u = 0; u < CH; u++) MF_(sub)(&y3[u], &t1[u], &py[u], &c); /* y3 = λ(x1 - x3) - y1 */
        for (int u = 0; u < CH; u++) {
            unsigned act = g[u].active, dbl = 0;
            if (act == 0) continue;
            if (special != 0) {
                MF_(neg_where)(&qy[u], g[u].neg_q, &c);
                unsigned both = inf_p[u] & inf_q[u], only_p = inf_q[u] & ~inf_p[u], only_q = inf_p[u] & ~inf_q[u];
                unsigned same_x = eq_x[u] & ~(inf_p[u] | inf_q[u]);
                dbl = same_x & MF_(eq_mask)(&py[u], &qy[u]) & ~MF_(zero_mask)(&py[u]) & act;
                unsigned to_inf = both | (same_x & ~dbl);
                MF_(blend)(&x3[u], only_p, &x3[u], &px[u]);
                MF_(blend)(&y3[u], only_p, &y3[u], &py[u]);
                MF_(blend)(&x3[u], only_q, &x3[u], &qx[u]);
                MF_(blend)(&y3[u], only_q, &y3[u], &qy[u]);
                MF_(blend)(&x3[u], to_inf, &x3[u], &zero);
                MF_(blend)(&y3[u], to_inf, &y3[u], &zero);
            }
            unsigned out = act & ~dbl;
            MF_(store)(g[u].dst, 0, &x3[u], out);
            MF_(store)(g[u].dst, MSM_W, &y3[u], out);
            if (dbl != 0) {
                uint64_t *ex[8] = {NULL}, *ey[8] = {NULL};
                for (unsigned k = 0; k < 8; k++) {
                    if (!(dbl & (1u << k))) continue;
                    size_t j = b->n_dbl++;
                    b->dbl[j] = (uint32_t)(8 * (t + (size_t)u) + k);
                    ex[k] = b->dbl_x + j * MSM_W;
                    ey[k] = b->dbl_y + j * MSM_W;
                }
                MF_(store)(ex, 0, &px[u], dbl);
                MF_(store)(ey, 0, &py[u], dbl);
            }
        }
    }
    zp_f8_round_restore(csr);
}

#undef MSM_W
#undef MF_
#undef MSM_EXT
