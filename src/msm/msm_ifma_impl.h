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

/* one coordinate (off words into each point) of eight points */
VI void MV_(gather)(MV_(elem) *w, const uint64_t *const e[8], size_t off) {
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

/* the infinity that stands in for a missing second point and for the
 * padding */
static const uint64_t MV_(zero_point)[2 * MSM_W] = {0};

/* group t: pairs 8t .. 8t+7 (padding past n) */
typedef struct {
    const uint64_t *p[8], *q[8];
    uint64_t *dst[8];
    unsigned active, neg_p, neg_q;
} MV_(group);

static void MV_(group_load)(MV_(group) *g, const zp_msm_simd_batch *b, size_t t) {
    g->active = g->neg_p = g->neg_q = 0;
    for (unsigned k = 0; k < 8; k++) {
        size_t i = 8 * t + k;
        if (i < b->n) {
            const zp_msm_pair *e = &b->pairs[i];
            g->p[k] = e->p;
            g->q[k] = e->q != NULL ? e->q : MV_(zero_point);
            g->dst[k] = e->dst;
            g->active |= 1u << k;
            g->neg_p |= (unsigned)(e->neg_p != 0) << k;
            g->neg_q |= (unsigned)(e->neg_q != 0) << k;
        } else {
            g->p[k] = g->q[k] = MV_(zero_point);
            g->dst[k] = NULL;
        }
    }
}

static size_t MV_(groups)(size_t n) { return (n + ZP_MSM_SIMD_ALIGN - 1) / ZP_MSM_SIMD_ALIGN * ZP_MSM_SIMD_CHAINS; }

/* work: D[t] (the denominators, lane-major) then P[t] (prefix products,
 * later the inverses), t < groups. Groups of eight entries form
 * ZP_MSM_SIMD_CHAINS interleaved chains (group t in chain t mod CHAINS),
 * and every step below handles one group of each chain together: a
 * multiplication's latency is several times its throughput, and a single
 * chain (or one group's dependent steps) would leave the lanes idle. */
#define CH ZP_MSM_SIMD_CHAINS
void MV_(prefix)(const zp_msm_simd_batch *b, uint64_t *product) {
    BC c;
    B_(field_load)(&c, b->f);
    size_t groups = MV_(groups)(b->n);
    MV_(elem) *D = b->work, *P = D + groups, acc[CH], one;
    MV_(set_zero)(&one);
    one.c[0].l[0] = _mm512_set1_epi64(1); /* any nonzero value: an equal-x pair's slope is not this one */
    for (size_t t = 0; t < groups; t++) {
        MV_(group) g;
        MV_(elem) px, qx;
        MV_(group_load)(&g, b, t);
        MV_(gather)(&px, g.p, 0);
        MV_(gather)(&qx, g.q, 0);
        MV_(sub_lazy)(&D[t], &qx, &px, &c);
        MV_(blend)(&D[t], MV_(eq_mask)(&px, &qx), &D[t], &one);
    }
    for (int u = 0; u < CH; u++) acc[u] = D[u];
    for (size_t t = CH; t < groups; t += CH) {
        for (int u = 0; u < CH; u++) P[t + u] = acc[u];
        for (int u = 0; u < CH; u++) MV_(mul_lazy)(&acc[u], &acc[u], &D[t + u], &c);
    }
    /* One product for the caller's one inversion. Per lane: the chains'
     * product, and in P[u] (unused until finish sets it) the product of
     * the chains other than u. Across the lanes, a butterfly: every lane
     * ends with the product of all (all) and of the lanes other than
     * itself (excl), which goes to D[0] (finish reads D[CH] up only). */
    _Static_assert(CH == 4, "the chains' exclusive products below are written for 4 chains");
    MV_(elem) p01, p23, all, excl, part;
    MV_(mul_lazy)(&p01, &acc[0], &acc[1], &c);
    MV_(mul_lazy)(&p23, &acc[2], &acc[3], &c);
    MV_(mul_lazy)(&P[0], &acc[1], &p23, &c);
    MV_(mul_lazy)(&P[1], &acc[0], &p23, &c);
    MV_(mul_lazy)(&P[2], &p01, &acc[3], &c);
    MV_(mul_lazy)(&P[3], &p01, &acc[2], &c);
    MV_(mul_lazy)(&all, &p01, &p23, &c);
    MV_(swap_lanes)(&excl, &all, 1);
    MV_(mul_lazy)(&all, &all, &excl, &c);
    for (int d = 2; d < 8; d *= 2) {
        MV_(swap_lanes)(&part, &all, d);
        MV_(mul_lazy)(&excl, &excl, &part, &c);
        MV_(mul_lazy)(&all, &all, &part, &c);
    }
    D[0] = excl;
    MV_(reduce)(&all, &c); /* the caller inverts it */
    uint64_t *e[8] = {product, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    MV_(store)(e, 0, &all, 1);
}

void MV_(finish)(zp_msm_simd_batch *b, const uint64_t *inv) {
    BC c;
    B_(field_load)(&c, b->f);
    size_t groups = MV_(groups)(b->n);
    MV_(elem) *D = b->work, *P = D + groups, a[CH], zero;
    MV_(set_zero)(&zero);
    {
        /* 1/(this lane's product) = 1/all · (the other lanes'), then
         * 1/(chain u's) = that · (the other chains') */
        const uint64_t *e[8] = {inv, inv, inv, inv, inv, inv, inv, inv};
        MV_(elem) lane_inv;
        MV_(gather)(&lane_inv, e, 0);
        MV_(mul_lazy)(&lane_inv, &lane_inv, &D[0], &c);
        for (int u = 0; u < CH; u++) MV_(mul_lazy)(&a[u], &lane_inv, &P[u], &c);
    }
    /* a[u] = 1 / (the product of chain u's groups up to t) on entry to
     * step t: P[t] becomes 1 / D[t] */
    for (size_t t = groups - CH; t >= CH; t -= CH) {
        for (int u = 0; u < CH; u++) MV_(mul_lazy)(&P[t + u], &a[u], &P[t + u], &c);
        for (int u = 0; u < CH; u++) MV_(mul_lazy)(&a[u], &a[u], &D[t + u], &c);
    }
    for (int u = 0; u < CH; u++) P[u] = a[u];
    b->n_dbl = 0;
    for (size_t t = 0; t < groups; t += CH) {
        MV_(group) g[CH];
        unsigned any = 0;
        for (int u = 0; u < CH; u++) {
            MV_(group_load)(&g[u], b, t + (size_t)u);
            any |= g[u].active;
        }
        if (any == 0) break; /* the padding at the end */
        MV_(elem) px[CH], py[CH], qx[CH], qy[CH], num[CH], lambda[CH], t1[CH], x3[CH], y3[CH];
        unsigned inf_p[CH], inf_q[CH], eq_x[CH], special = 0;
        /* every group's points are read before any sum is written */
        for (int u = 0; u < CH; u++) {
            MV_(gather)(&px[u], g[u].p, 0);
            MV_(gather)(&py[u], g[u].p, MSM_W);
            MV_(gather)(&qx[u], g[u].q, 0);
            MV_(gather)(&qy[u], g[u].q, MSM_W);
            inf_p[u] = MV_(zero_mask)(&px[u]) & MV_(zero_mask)(&py[u]);
            inf_q[u] = MV_(zero_mask)(&qx[u]) & MV_(zero_mask)(&qy[u]);
            MV_(neg_where)(&py[u], g[u].neg_p, &c);
            eq_x[u] = MV_(eq_mask)(&px[u], &qx[u]);
            special |= (inf_p[u] | inf_q[u] | eq_x[u]) & g[u].active;
        }
        /* q's sign (half the bucket pass's points) is folded into num;
         * qy is negated only for the special lanes below */
        for (int u = 0; u < CH; u++) MV_(sub_signed_lazy)(&num[u], &qy[u], g[u].neg_q, &py[u], &c);
        for (int u = 0; u < CH; u++) MV_(mul_lazy)(&lambda[u], &num[u], &P[t + u], &c);
        for (int u = 0; u < CH; u++) MV_(sqr)(&t1[u], &lambda[u], &c); /* canonical again */
        for (int u = 0; u < CH; u++) MV_(sub)(&t1[u], &t1[u], &px[u], &c);
        for (int u = 0; u < CH; u++) MV_(sub)(&x3[u], &t1[u], &qx[u], &c); /* x3 = λ² - x1 - x2 */
        for (int u = 0; u < CH; u++) MV_(sub_lazy)(&t1[u], &px[u], &x3[u], &c);
        for (int u = 0; u < CH; u++) MV_(mul)(&t1[u], &lambda[u], &t1[u], &c);
        for (int u = 0; u < CH; u++) MV_(sub)(&y3[u], &t1[u], &py[u], &c); /* y3 = λ(x1 - x3) - y1 */
        for (int u = 0; u < CH; u++) {
            unsigned act = g[u].active, dbl = 0;
            if (act == 0) continue;
            if (special != 0) {
                /* the special lanes, rare, so their masks and blends
                 * wait for one: one point infinite (the other is the
                 * sum), both (infinity), equal x: opposite points
                 * (infinity) or equal ones, doubled by the caller */
                MV_(neg_where)(&qy[u], g[u].neg_q, &c);
                unsigned both = inf_p[u] & inf_q[u], only_p = inf_q[u] & ~inf_p[u], only_q = inf_p[u] & ~inf_q[u];
                unsigned same_x = eq_x[u] & ~(inf_p[u] | inf_q[u]);
                dbl = same_x & MV_(eq_mask)(&py[u], &qy[u]) & ~MV_(zero_mask)(&py[u]) & act;
                unsigned to_inf = both | (same_x & ~dbl);
                MV_(blend)(&x3[u], only_p, &x3[u], &px[u]);
                MV_(blend)(&y3[u], only_p, &y3[u], &py[u]);
                MV_(blend)(&x3[u], only_q, &x3[u], &qx[u]);
                MV_(blend)(&y3[u], only_q, &y3[u], &qy[u]);
                MV_(blend)(&x3[u], to_inf, &x3[u], &zero);
                MV_(blend)(&y3[u], to_inf, &y3[u], &zero);
            }
            unsigned out = act & ~dbl;
            MV_(store)(g[u].dst, 0, &x3[u], out);
            MV_(store)(g[u].dst, MSM_W, &y3[u], out);
            if (dbl != 0) {
                uint64_t *ex[8] = {NULL}, *ey[8] = {NULL};
                for (unsigned k = 0; k < 8; k++) {
                    if (!(dbl & (1u << k))) continue;
                    size_t j = b->n_dbl++;
                    b->dbl[j] = (uint32_t)(8 * (t + (size_t)u) + k);
                    ex[k] = b->dbl_x + j * MSM_W;
                    ey[k] = b->dbl_y + j * MSM_W;
                }
                MV_(store)(ex, 0, &px[u], dbl);
                MV_(store)(ey, 0, &py[u], dbl);
            }
        }
    }
}
#undef CH

#undef MSM_W
#undef MV_
#undef B_
#undef BT
#undef BC
#undef MSM_EXT
