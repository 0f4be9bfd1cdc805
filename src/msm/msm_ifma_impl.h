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
 * later the inverses), t < n/8 */
void MV_(prefix)(const zp_msm_simd_batch *b, uint64_t *products) {
    BC c;
    B_(field_load)(&c, b->f);
    size_t groups = b->n / 8;
    MV_(elem) *D = b->work, *P = D + groups, acc;
    for (size_t t = 0; t < groups; t++) MV_(load_group)(&D[t], b->den, t);
    acc = D[0];
    for (size_t t = 1; t < groups; t++) {
        P[t] = acc;
        MV_(mul)(&acc, &acc, &D[t], &c);
    }
    uint64_t *e[8];
    for (int k = 0; k < 8; k++) e[k] = products + (size_t)k * MSM_W;
    MV_(store)(e, 0, &acc, 0xff);
}

void MV_(finish)(const zp_msm_simd_batch *b, const uint64_t *inv) {
    BC c;
    B_(field_load)(&c, b->f);
    size_t groups = b->n / 8;
    MV_(elem) *D = b->work, *P = D + groups, a;
    MV_(load_group)(&a, inv, 0);
    /* a = 1 / (D[0]·…·D[t]) on entry to step t: P[t] becomes 1 / D[t] */
    for (size_t t = groups; t-- > 1;) {
        MV_(mul)(&P[t], &a, &P[t], &c);
        MV_(mul)(&a, &a, &D[t], &c);
    }
    P[0] = a;
    for (size_t t = 0; t < groups; t++) {
        unsigned mask = 0;
        uint64_t *dst[8];
        for (int k = 0; k < 8; k++) {
            dst[k] = b->dst[8 * t + (size_t)k];
            mask |= (unsigned)(dst[k] != NULL) << k;
        }
        if (mask == 0) continue;
        MV_(elem) num, px, py, qx, lambda, t1, x3, y3;
        MV_(load_group)(&num, b->num, t);
        MV_(load_group)(&px, b->px, t);
        MV_(load_group)(&py, b->py, t);
        MV_(load_group)(&qx, b->qx, t);
        MV_(mul)(&lambda, &num, &P[t], &c);
        MV_(mul)(&t1, &lambda, &lambda, &c);
        MV_(sub)(&t1, &t1, &px, &c);
        MV_(sub)(&x3, &t1, &qx, &c); /* x3 = λ² - x1 - x2 */
        MV_(sub)(&t1, &px, &x3, &c);
        MV_(mul)(&t1, &lambda, &t1, &c);
        MV_(sub)(&y3, &t1, &py, &c); /* y3 = λ(x1 - x3) - y1 */
        MV_(store)(dst, 0, &x3, mask);
        MV_(store)(dst, MSM_W, &y3, mask);
    }
}

#undef MSM_W
#undef MV_
#undef B_
#undef BT
#undef BC
#undef MSM_EXT
