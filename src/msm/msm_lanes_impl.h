/* The batch algorithm of msm_simd.h on eight lanes, shared by the IFMA
 * lanes (msm_ifma_impl.h) and the AVX2 FMA ones (msm_fma_impl.h), which
 * include it after defining, for their element type LN_(elem) of one
 * coordinate:
 *   LN_(name): the element operations (sub, mul, sqr, mul_lazy, sub_lazy,
 *     reduce, set_zero, set_one, zero_mask, eq_mask, blend, swap_lanes,
 *     neg_where, sub_signed_lazy, gather, store), as msm_ifma_impl.h
 *     documents them;
 *   LN_FIELD, LN_FIELD_LOAD(c, f): the lanes' field constants;
 *   LN_ENTER(), LN_LEAVE(state): what the lanes set up and restore around
 *     a step (the FMA lanes' rounding mode);
 *   LN_FN: the functions' attributes; LN_PREFIX, LN_FINISH: their names;
 *   MSM_W: the words of a coordinate.
 * It defines the group loading, prefix and finish, and undefines the
 * LN_ macros. */

/* the infinity that stands in for a missing second point and for the
 * padding */
static const uint64_t LN_(zero_point)[2 * MSM_W] = {0};

/* group t: pairs 8t .. 8t+7 (padding past n) */
typedef struct {
    const uint64_t *p[8], *q[8];
    uint64_t *dst[8];
    unsigned active, neg_p, neg_q;
} LN_(group);

static void LN_(group_load)(LN_(group) * g, const zp_msm_simd_batch *b, size_t t) {
    g->active = g->neg_p = g->neg_q = 0;
    for (unsigned k = 0; k < 8; k++) {
        size_t i = 8 * t + k;
        if (i < b->n) {
            const zp_msm_pair *e = &b->pairs[i];
            g->p[k] = e->p;
            g->q[k] = e->q != NULL ? e->q : LN_(zero_point);
            g->dst[k] = e->dst;
            g->active |= 1u << k;
            g->neg_p |= (unsigned)(e->neg_p != 0) << k;
            g->neg_q |= (unsigned)(e->neg_q != 0) << k;
        } else {
            g->p[k] = g->q[k] = LN_(zero_point);
            g->dst[k] = NULL;
        }
    }
}

static size_t LN_(groups)(size_t n) { return (n + ZP_MSM_SIMD_ALIGN - 1) / ZP_MSM_SIMD_ALIGN * ZP_MSM_SIMD_CHAINS; }

/* work: D[t] (the denominators, lane-major) then P[t] (prefix products,
 * later the inverses), t < groups. Groups of eight entries form
 * ZP_MSM_SIMD_CHAINS interleaved chains (group t in chain t mod CHAINS),
 * and every step below handles one group of each chain together: a
 * multiplication's latency is several times its throughput, and a single
 * chain (or one group's dependent steps) would leave the lanes idle. */
#define CH ZP_MSM_SIMD_CHAINS
LN_FN void LN_PREFIX(const zp_msm_simd_batch *b, uint64_t *product) {
    LN_FIELD c;
    LN_FIELD_LOAD(&c, b->f);
    unsigned lanes_state = LN_ENTER();
    size_t groups = LN_(groups)(b->n);
    LN_(elem) *D = b->work, *P = D + groups, acc[CH], one;
    LN_(set_one)(&one); /* any nonzero value: an equal-x pair's slope is not this one */
    for (size_t t = 0; t < groups; t++) {
        LN_(group) g;
        LN_(elem) px, qx;
        LN_(group_load)(&g, b, t);
        LN_(gather)(&px, g.p, 0, &c);
        LN_(gather)(&qx, g.q, 0, &c);
        LN_(sub_lazy)(&D[t], &qx, &px, &c);
        LN_(blend)(&D[t], LN_(eq_mask)(&px, &qx), &D[t], &one);
    }
    for (int u = 0; u < CH; u++) acc[u] = D[u];
    for (size_t t = CH; t < groups; t += CH) {
        for (int u = 0; u < CH; u++) P[t + u] = acc[u];
        for (int u = 0; u < CH; u++) LN_(mul_lazy)(&acc[u], &acc[u], &D[t + u], &c);
    }
    /* One product for the caller's one inversion. Per lane: the chains'
     * product, and in P[u] (unused until finish sets it) the product of
     * the chains other than u. Across the lanes, a butterfly: every lane
     * ends with the product of all (all) and of the lanes other than
     * itself (excl), which goes to D[0] (finish reads D[CH] up only). */
    _Static_assert(CH == 4, "the chains' exclusive products below are written for 4 chains");
    LN_(elem) p01, p23, all, excl, part;
    LN_(mul_lazy)(&p01, &acc[0], &acc[1], &c);
    LN_(mul_lazy)(&p23, &acc[2], &acc[3], &c);
    LN_(mul_lazy)(&P[0], &acc[1], &p23, &c);
    LN_(mul_lazy)(&P[1], &acc[0], &p23, &c);
    LN_(mul_lazy)(&P[2], &p01, &acc[3], &c);
    LN_(mul_lazy)(&P[3], &p01, &acc[2], &c);
    LN_(mul_lazy)(&all, &p01, &p23, &c);
    LN_(swap_lanes)(&excl, &all, 1);
    LN_(mul_lazy)(&all, &all, &excl, &c);
    for (int d = 2; d < 8; d *= 2) {
        LN_(swap_lanes)(&part, &all, d);
        LN_(mul_lazy)(&excl, &excl, &part, &c);
        LN_(mul_lazy)(&all, &all, &part, &c);
    }
    D[0] = excl;
    LN_(reduce)(&all, &c); /* the caller inverts it */
    uint64_t *e[8] = {product, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    LN_(store)(e, 0, &all, 1);
    LN_LEAVE(lanes_state);
}

LN_FN void LN_FINISH(zp_msm_simd_batch *b, const uint64_t *inv) {
    LN_FIELD c;
    LN_FIELD_LOAD(&c, b->f);
    unsigned lanes_state = LN_ENTER();
    size_t groups = LN_(groups)(b->n);
    LN_(elem) *D = b->work, *P = D + groups, a[CH], zero;
    LN_(set_zero)(&zero);
    {
        /* 1/(this lane's product) = 1/all · (the other lanes'), then
         * 1/(chain u's) = that · (the other chains') */
        const uint64_t *e[8] = {inv, inv, inv, inv, inv, inv, inv, inv};
        LN_(elem) lane_inv;
        LN_(gather)(&lane_inv, e, 0, &c);
        LN_(mul_lazy)(&lane_inv, &lane_inv, &D[0], &c);
        for (int u = 0; u < CH; u++) LN_(mul_lazy)(&a[u], &lane_inv, &P[u], &c);
    }
    /* a[u] = 1 / (the product of chain u's groups up to t) on entry to
     * step t: P[t] becomes 1 / D[t] */
    for (size_t t = groups - CH; t >= CH; t -= CH) {
        for (int u = 0; u < CH; u++) LN_(mul_lazy)(&P[t + u], &a[u], &P[t + u], &c);
        for (int u = 0; u < CH; u++) LN_(mul_lazy)(&a[u], &a[u], &D[t + u], &c);
    }
    for (int u = 0; u < CH; u++) P[u] = a[u];
    b->n_dbl = 0;
    for (size_t t = 0; t < groups; t += CH) {
        LN_(group) g[CH];
        unsigned any = 0;
        for (int u = 0; u < CH; u++) {
            LN_(group_load)(&g[u], b, t + (size_t)u);
            any |= g[u].active;
        }
        if (any == 0) break; /* the padding at the end */
        LN_(elem) px[CH], py[CH], qx[CH], qy[CH], num[CH], lambda[CH], t1[CH], x3[CH], y3[CH];
        unsigned inf_p[CH], inf_q[CH], eq_x[CH], special = 0;
        /* every group's points are read before any sum is written */
        for (int u = 0; u < CH; u++) {
            LN_(gather)(&px[u], g[u].p, 0, &c);
            LN_(gather)(&py[u], g[u].p, MSM_W, &c);
            LN_(gather)(&qx[u], g[u].q, 0, &c);
            LN_(gather)(&qy[u], g[u].q, MSM_W, &c);
            inf_p[u] = LN_(zero_mask)(&px[u]) & LN_(zero_mask)(&py[u]);
            inf_q[u] = LN_(zero_mask)(&qx[u]) & LN_(zero_mask)(&qy[u]);
            LN_(neg_where)(&py[u], g[u].neg_p, &c);
            eq_x[u] = LN_(eq_mask)(&px[u], &qx[u]);
            special |= (inf_p[u] | inf_q[u] | eq_x[u]) & g[u].active;
        }
        /* q's sign (half the bucket pass's points) is folded into num;
         * qy is negated only for the special lanes below */
        for (int u = 0; u < CH; u++) LN_(sub_signed_lazy)(&num[u], &qy[u], g[u].neg_q, &py[u], &c);
        for (int u = 0; u < CH; u++) LN_(mul_lazy)(&lambda[u], &num[u], &P[t + u], &c);
        for (int u = 0; u < CH; u++) LN_(sqr)(&t1[u], &lambda[u], &c); /* canonical again */
        for (int u = 0; u < CH; u++) LN_(sub)(&t1[u], &t1[u], &px[u], &c);
        for (int u = 0; u < CH; u++) LN_(sub)(&x3[u], &t1[u], &qx[u], &c); /* x3 = λ² - x1 - x2 */
        for (int u = 0; u < CH; u++) LN_(sub_lazy)(&t1[u], &px[u], &x3[u], &c);
        for (int u = 0; u < CH; u++) LN_(mul)(&t1[u], &lambda[u], &t1[u], &c);
        for (int u = 0; u < CH; u++) LN_(sub)(&y3[u], &t1[u], &py[u], &c); /* y3 = λ(x1 - x3) - y1 */
        for (int u = 0; u < CH; u++) {
            unsigned act = g[u].active, dbl = 0;
            if (act == 0) continue;
            if (special != 0) {
                /* the special lanes, rare, so their masks and blends
                 * wait for one: one point infinite (the other is the
                 * sum), both (infinity), equal x: opposite points
                 * (infinity) or equal ones, doubled by the caller */
                LN_(neg_where)(&qy[u], g[u].neg_q, &c);
                unsigned both = inf_p[u] & inf_q[u], only_p = inf_q[u] & ~inf_p[u], only_q = inf_p[u] & ~inf_q[u];
                unsigned same_x = eq_x[u] & ~(inf_p[u] | inf_q[u]);
                dbl = same_x & LN_(eq_mask)(&py[u], &qy[u]) & ~LN_(zero_mask)(&py[u]) & act;
                unsigned to_inf = both | (same_x & ~dbl);
                LN_(blend)(&x3[u], only_p, &x3[u], &px[u]);
                LN_(blend)(&y3[u], only_p, &y3[u], &py[u]);
                LN_(blend)(&x3[u], only_q, &x3[u], &qx[u]);
                LN_(blend)(&y3[u], only_q, &y3[u], &qy[u]);
                LN_(blend)(&x3[u], to_inf, &x3[u], &zero);
                LN_(blend)(&y3[u], to_inf, &y3[u], &zero);
            }
            unsigned out = act & ~dbl;
            LN_(store)(g[u].dst, 0, &x3[u], out);
            LN_(store)(g[u].dst, MSM_W, &y3[u], out);
            if (dbl != 0) {
                uint64_t *ex[8] = {NULL}, *ey[8] = {NULL};
                for (unsigned k = 0; k < 8; k++) {
                    if (!(dbl & (1u << k))) continue;
                    size_t j = b->n_dbl++;
                    b->dbl[j] = (uint32_t)(8 * (t + (size_t)u) + k);
                    ex[k] = b->dbl_x + j * MSM_W;
                    ey[k] = b->dbl_y + j * MSM_W;
                }
                LN_(store)(ex, 0, &px[u], dbl);
                LN_(store)(ey, 0, &py[u], dbl);
            }
        }
    }
    LN_LEAVE(lanes_state);
}
#undef CH

#undef LN_
#undef LN_FIELD
#undef LN_FIELD_LOAD
#undef LN_ENTER
#undef LN_LEAVE
#undef LN_FN
#undef LN_PREFIX
#undef LN_FINISH
