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

/* the scalar code's Montgomery product; in the extension by Karatsuba
 * (u² = -1): c0 = a0·b0 - a1·b1, c1 = (a0 + a1)(b0 + b1) - a0·b0 - a1·b1 */
VI void MV_(mul)(MV_(elem) *r, const MV_(elem) *a, const MV_(elem) *b, const BC *c) {
#if MSM_EXT == 1
    B_(mul_r)(&r->c[0], &a->c[0], &b->c[0], c);
#else
    BT v0, v1, sa, sb, s;
    B_(mul_r)(&v0, &a->c[0], &b->c[0], c);
    B_(mul_r)(&v1, &a->c[1], &b->c[1], c);
    B_(add)(&sa, &a->c[0], &a->c[1], c);
    B_(add)(&sb, &b->c[0], &b->c[1], c);
    B_(mul_r)(&s, &sa, &sb, c);
    B_(sub)(&r->c[0], &v0, &v1, c);
    B_(sub)(&s, &s, &v0, c);
    B_(sub)(&r->c[1], &s, &v1, c);
#endif
}

/* entries 8t .. 8t+7 of an array of coordinates into the lanes */
static void MV_(load_group)(MV_(elem) *w, const uint64_t *a, size_t t) {
    for (int i = 0; i < MSM_EXT; i++) {
        const uint64_t *e[8];
        for (int k = 0; k < 8; k++) e[k] = a + (8 * t + (size_t)k) * MSM_W + (size_t)i * IFMA_NW;
        B_(load8)(&w->c[i], e);
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

/* work: D[t] (the denominators, lane-major) then P[t] (prefix products,
 * later the inverses), t < n/8. Groups of eight entries form
 * ZP_MSM_SIMD_CHAINS interleaved chains (group t in chain t mod CHAINS),
 * and every step below handles one group of each chain together: a
 * multiplication's latency is several times its throughput, and a single
 * chain (or one group's dependent steps) would leave the lanes idle. */
#define CH ZP_MSM_SIMD_CHAINS
void MV_(prefix)(const zp_msm_simd_batch *b, uint64_t *products) {
    BC c;
    B_(field_load)(&c, b->f);
    size_t groups = b->n / 8;
    MV_(elem) *D = b->work, *P = D + groups, acc[CH];
    for (size_t t = 0; t < groups; t++) MV_(load_group)(&D[t], b->den, t);
    for (int u = 0; u < CH; u++) acc[u] = D[u];
    for (size_t t = CH; t < groups; t += CH) {
        for (int u = 0; u < CH; u++) P[t + u] = acc[u];
        for (int u = 0; u < CH; u++) MV_(mul)(&acc[u], &acc[u], &D[t + u], &c);
    }
    for (int u = 0; u < CH; u++) {
        uint64_t *e[8];
        for (int k = 0; k < 8; k++) e[k] = products + ((size_t)u * 8 + (size_t)k) * MSM_W;
        MV_(store)(e, 0, &acc[u], 0xff);
    }
}

void MV_(finish)(const zp_msm_simd_batch *b, const uint64_t *inv) {
    BC c;
    B_(field_load)(&c, b->f);
    size_t groups = b->n / 8;
    MV_(elem) *D = b->work, *P = D + groups, a[CH];
    for (int u = 0; u < CH; u++) MV_(load_group)(&a[u], inv, (size_t)u);
    /* a[u] = 1 / (the product of chain u's groups up to t) on entry to
     * step t: P[t] becomes 1 / D[t] */
    for (size_t t = groups - CH; t >= CH; t -= CH) {
        for (int u = 0; u < CH; u++) MV_(mul)(&P[t + u], &a[u], &P[t + u], &c);
        for (int u = 0; u < CH; u++) MV_(mul)(&a[u], &a[u], &D[t + u], &c);
    }
    for (int u = 0; u < CH; u++) P[u] = a[u];
    for (size_t t = 0; t < groups; t += CH) {
        unsigned mask[CH], any = 0;
        uint64_t *dst[CH][8];
        for (int u = 0; u < CH; u++) {
            mask[u] = 0;
            for (int k = 0; k < 8; k++) {
                dst[u][k] = b->dst[8 * (t + (size_t)u) + (size_t)k];
                mask[u] |= (unsigned)(dst[u][k] != NULL) << k;
            }
            any |= mask[u];
        }
        if (any == 0) continue;
        MV_(elem) num[CH], px[CH], py[CH], qx[CH], lambda[CH], t1[CH], x3[CH], y3[CH];
        for (int u = 0; u < CH; u++) {
            MV_(load_group)(&num[u], b->num, t + (size_t)u);
            MV_(load_group)(&px[u], b->px, t + (size_t)u);
            MV_(load_group)(&py[u], b->py, t + (size_t)u);
            MV_(load_group)(&qx[u], b->qx, t + (size_t)u);
        }
        for (int u = 0; u < CH; u++) MV_(mul)(&lambda[u], &num[u], &P[t + u], &c);
        for (int u = 0; u < CH; u++) MV_(mul)(&t1[u], &lambda[u], &lambda[u], &c);
        for (int u = 0; u < CH; u++) MV_(sub)(&t1[u], &t1[u], &px[u], &c);
        for (int u = 0; u < CH; u++) MV_(sub)(&x3[u], &t1[u], &qx[u], &c); /* x3 = λ² - x1 - x2 */
        for (int u = 0; u < CH; u++) MV_(sub)(&t1[u], &px[u], &x3[u], &c);
        for (int u = 0; u < CH; u++) MV_(mul)(&t1[u], &lambda[u], &t1[u], &c);
        for (int u = 0; u < CH; u++) MV_(sub)(&y3[u], &t1[u], &py[u], &c); /* y3 = λ(x1 - x3) - y1 */
        for (int u = 0; u < CH; u++) {
            if (mask[u] == 0) continue;
            MV_(store)(dst[u], 0, &x3[u], mask[u]);
            MV_(store)(dst[u], MSM_W, &y3[u], mask[u]);
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
