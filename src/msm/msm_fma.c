/* The MSM's batch arithmetic (msm_simd.h) on AVX2 and FMA, for BN254 G1
 * (coordinates of 4 words): msm_ifma_impl.h's algorithm, eight entries at
 * a time in two four-lane halves, on field/fma_impl.h's products. Taken
 * where the CPU has AVX2 and FMA but not IFMA (zp_fma_enabled), by the
 * streaming path only (msm_impl.h): on the sorted path's small MSMs they
 * measured slower than the scalar code. The other groups keep the scalar
 * path on those CPUs: their fields (6 words, or the extensions) are not
 * ported yet.
 *
 * The results are the scalar path's, bit for bit: values stay in the
 * scalar code's Montgomery form, and the special cases (infinity, equal
 * x, opposite points) are found with masks as the IFMA lanes find them. */
#include "msm/msm_simd.h"

#include <stdlib.h>

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include "field/fma_impl.h"

#define FN __attribute__((target("avx2,fma")))
#define CH ZP_MSM_SIMD_CHAINS

typedef zp_f8 elem;

/* a - b + p in (0, 2p) for a product's operand; q negated first in the
 * lanes of neg_q (p - q, left uncarried) */
FV void sub_signed_lazy(elem *r, const elem *q, unsigned neg_q, const elem *p, const zp_f8_field *c) {
    elem s = *q;
    if (neg_q != 0) {
        elem n;
        for (int k = 0; k < 2; k++)
            for (int j = 0; j < ZP_F8_NL; j++) n.h[k][j] = _mm256_sub_epi64(c->p[j], q->h[k][j]);
        zp_f8_blend(&s, neg_q, q, &n);
    }
    zp_f8_sub_p(r, &s, p, c);
}

/* -y in the lanes of mask, canonical */
FV void neg_where(elem *y, unsigned mask, const zp_f8_field *c) {
    if (mask == 0) return;
    elem z, n;
    zp_f8_set_zero(&z);
    zp_f8_sub(&n, &z, y, c);
    zp_f8_blend(y, mask, y, &n);
}

/* one coordinate (off words into each point) of eight points */
FV void gather(elem *w, const uint64_t *const e[8], size_t off, const zp_f8_field *c) {
    const uint64_t *d[8];
    for (int k = 0; k < 8; k++) d[k] = e[k] + off;
    zp_f8_load8(w, d, c);
}

/* the lanes in mask out to e[k] + off words */
FV void store(uint64_t *const e[8], size_t off, const elem *w, unsigned mask) {
    uint64_t *d[8];
    for (int k = 0; k < 8; k++) d[k] = e[k] != NULL ? e[k] + off : NULL;
    zp_f8_store8(d, w, mask);
}

/* the infinity that stands in for a missing second point and for the
 * padding */
static const uint64_t zero_point[8] = {0};

/* group t: pairs 8t .. 8t+7 (padding past n) */
typedef struct {
    const uint64_t *p[8], *q[8];
    uint64_t *dst[8];
    unsigned active, neg_p, neg_q;
} group;

static void group_load(group *g, const zp_msm_simd_batch *b, size_t t) {
    g->active = g->neg_p = g->neg_q = 0;
    for (unsigned k = 0; k < 8; k++) {
        size_t i = 8 * t + k;
        if (i < b->n) {
            const zp_msm_pair *e = &b->pairs[i];
            g->p[k] = e->p;
            g->q[k] = e->q != NULL ? e->q : zero_point;
            g->dst[k] = e->dst;
            g->active |= 1u << k;
            g->neg_p |= (unsigned)(e->neg_p != 0) << k;
            g->neg_q |= (unsigned)(e->neg_q != 0) << k;
        } else {
            g->p[k] = g->q[k] = zero_point;
            g->dst[k] = NULL;
        }
    }
}

static size_t groups_of(size_t n) { return (n + ZP_MSM_SIMD_ALIGN - 1) / ZP_MSM_SIMD_ALIGN * CH; }

/* As msm_ifma_impl.h's prefix: the denominators x_q - x_p (1 where
 * equal) in D, the chains' running products in P, and one product of all
 * for the caller's inversion; D[0] holds each lane's product of the
 * other lanes. */
FN void zp_msm_fma4_prefix(const zp_msm_simd_batch *b, uint64_t *product) {
    zp_f8_field c;
    zp_f8_field_load(&c, b->f);
    unsigned csr = zp_f8_round_down();
    size_t groups = groups_of(b->n);
    elem *D = b->work, *P = D + groups, acc[CH], one;
    zp_f8_set_zero(&one);
    one.h[0][0] = one.h[1][0] = _mm256_set1_epi64x(1); /* any nonzero value */
    for (size_t t = 0; t < groups; t++) {
        group g;
        elem px, qx;
        group_load(&g, b, t);
        gather(&px, g.p, 0, &c);
        gather(&qx, g.q, 0, &c);
        zp_f8_sub_p(&D[t], &qx, &px, &c);
        zp_f8_blend(&D[t], zp_f8_eq_mask(&px, &qx), &D[t], &one);
    }
    for (int u = 0; u < CH; u++) acc[u] = D[u];
    for (size_t t = CH; t < groups; t += CH) {
        for (int u = 0; u < CH; u++) P[t + u] = acc[u];
        for (int u = 0; u < CH; u++) zp_f8_mul_r_lazy(&acc[u], &acc[u], &D[t + u], &c);
    }
    _Static_assert(CH == 4, "the chains' exclusive products below are written for 4 chains");
    elem p01, p23, all, excl, part;
    zp_f8_mul_r_lazy(&p01, &acc[0], &acc[1], &c);
    zp_f8_mul_r_lazy(&p23, &acc[2], &acc[3], &c);
    zp_f8_mul_r_lazy(&P[0], &acc[1], &p23, &c);
    zp_f8_mul_r_lazy(&P[1], &acc[0], &p23, &c);
    zp_f8_mul_r_lazy(&P[2], &p01, &acc[3], &c);
    zp_f8_mul_r_lazy(&P[3], &p01, &acc[2], &c);
    zp_f8_mul_r_lazy(&all, &p01, &p23, &c);
    zp_f8_swap_lanes(&excl, &all, 1);
    zp_f8_mul_r_lazy(&all, &all, &excl, &c);
    for (int d = 2; d < 8; d *= 2) {
        zp_f8_swap_lanes(&part, &all, d);
        zp_f8_mul_r_lazy(&excl, &excl, &part, &c);
        zp_f8_mul_r_lazy(&all, &all, &part, &c);
    }
    D[0] = excl;
    zp_f8_reduce_2p(&all, &c); /* the caller inverts it */
    uint64_t *e[8] = {product, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    store(e, 0, &all, 1);
    zp_f8_round_restore(csr);
}

FN void zp_msm_fma4_finish(zp_msm_simd_batch *b, const uint64_t *inv) {
    zp_f8_field c;
    zp_f8_field_load(&c, b->f);
    unsigned csr = zp_f8_round_down();
    size_t groups = groups_of(b->n);
    elem *D = b->work, *P = D + groups, a[CH], zero;
    zp_f8_set_zero(&zero);
    {
        const uint64_t *e[8] = {inv, inv, inv, inv, inv, inv, inv, inv};
        elem lane_inv;
        gather(&lane_inv, e, 0, &c);
        zp_f8_mul_r_lazy(&lane_inv, &lane_inv, &D[0], &c);
        for (int u = 0; u < CH; u++) zp_f8_mul_r_lazy(&a[u], &lane_inv, &P[u], &c);
    }
    for (size_t t = groups - CH; t >= CH; t -= CH) {
        for (int u = 0; u < CH; u++) zp_f8_mul_r_lazy(&P[t + u], &a[u], &P[t + u], &c);
        for (int u = 0; u < CH; u++) zp_f8_mul_r_lazy(&a[u], &a[u], &D[t + u], &c);
    }
    for (int u = 0; u < CH; u++) P[u] = a[u];
    b->n_dbl = 0;
    for (size_t t = 0; t < groups; t += CH) {
        group g[CH];
        unsigned any = 0;
        for (int u = 0; u < CH; u++) {
            group_load(&g[u], b, t + (size_t)u);
            any |= g[u].active;
        }
        if (any == 0) break; /* the padding at the end */
        elem px[CH], py[CH], qx[CH], qy[CH], num[CH], lambda[CH], t1[CH], x3[CH], y3[CH];
        unsigned inf_p[CH], inf_q[CH], eq_x[CH], special = 0;
        /* every group's points are read before any sum is written */
        for (int u = 0; u < CH; u++) {
            gather(&px[u], g[u].p, 0, &c);
            gather(&py[u], g[u].p, 4, &c);
            gather(&qx[u], g[u].q, 0, &c);
            gather(&qy[u], g[u].q, 4, &c);
            inf_p[u] = zp_f8_zero_mask(&px[u]) & zp_f8_zero_mask(&py[u]);
            inf_q[u] = zp_f8_zero_mask(&qx[u]) & zp_f8_zero_mask(&qy[u]);
            neg_where(&py[u], g[u].neg_p, &c);
            eq_x[u] = zp_f8_eq_mask(&px[u], &qx[u]);
            special |= (inf_p[u] | inf_q[u] | eq_x[u]) & g[u].active;
        }
        for (int u = 0; u < CH; u++) sub_signed_lazy(&num[u], &qy[u], g[u].neg_q, &py[u], &c);
        for (int u = 0; u < CH; u++) zp_f8_mul_r_lazy(&lambda[u], &num[u], &P[t + u], &c);
        for (int u = 0; u < CH; u++) zp_f8_mul_r(&t1[u], &lambda[u], &lambda[u], &c);
        for (int u = 0; u < CH; u++) zp_f8_sub(&t1[u], &t1[u], &px[u], &c);
        for (int u = 0; u < CH; u++) zp_f8_sub(&x3[u], &t1[u], &qx[u], &c); /* x3 = λ² - x1 - x2 */
        for (int u = 0; u < CH; u++) zp_f8_sub_p(&t1[u], &px[u], &x3[u], &c);
        for (int u = 0; u < CH; u++) zp_f8_mul_r(&t1[u], &lambda[u], &t1[u], &c);
        for (int u = 0; u < CH; u++) zp_f8_sub(&y3[u], &t1[u], &py[u], &c); /* y3 = λ(x1 - x3) - y1 */
        for (int u = 0; u < CH; u++) {
            unsigned act = g[u].active, dbl = 0;
            if (act == 0) continue;
            if (special != 0) {
                neg_where(&qy[u], g[u].neg_q, &c);
                unsigned both = inf_p[u] & inf_q[u], only_p = inf_q[u] & ~inf_p[u], only_q = inf_p[u] & ~inf_q[u];
                unsigned same_x = eq_x[u] & ~(inf_p[u] | inf_q[u]);
                dbl = same_x & zp_f8_eq_mask(&py[u], &qy[u]) & ~zp_f8_zero_mask(&py[u]) & act;
                unsigned to_inf = both | (same_x & ~dbl);
                zp_f8_blend(&x3[u], only_p, &x3[u], &px[u]);
                zp_f8_blend(&y3[u], only_p, &y3[u], &py[u]);
                zp_f8_blend(&x3[u], only_q, &x3[u], &qx[u]);
                zp_f8_blend(&y3[u], only_q, &y3[u], &qy[u]);
                zp_f8_blend(&x3[u], to_inf, &x3[u], &zero);
                zp_f8_blend(&y3[u], to_inf, &y3[u], &zero);
            }
            unsigned out = act & ~dbl;
            store(g[u].dst, 0, &x3[u], out);
            store(g[u].dst, 4, &y3[u], out);
            if (dbl != 0) {
                uint64_t *ex[8] = {NULL}, *ey[8] = {NULL};
                for (unsigned k = 0; k < 8; k++) {
                    if (!(dbl & (1u << k))) continue;
                    size_t j = b->n_dbl++;
                    b->dbl[j] = (uint32_t)(8 * (t + (size_t)u) + k);
                    ex[k] = b->dbl_x + j * 4;
                    ey[k] = b->dbl_y + j * 4;
                }
                store(ex, 0, &px[u], dbl);
                store(ey, 0, &py[u], dbl);
            }
        }
    }
    zp_f8_round_restore(csr);
}

#else /* not x86-64: zp_msm_lanes never picks these */

void zp_msm_fma4_prefix(const zp_msm_simd_batch *b, uint64_t *product) {
    (void)b, (void)product;
    abort();
}
void zp_msm_fma4_finish(zp_msm_simd_batch *b, const uint64_t *inv) {
    (void)b, (void)inv;
    abort();
}
#endif
