/* The NTT's eight-lane block transforms (ntt_simd.h). This file is
 * compiled with -mavx512f -mavx512ifma (CMakeLists.txt, on x86-64, which
 * also defines ZP_IFMA) and every function in it may use those
 * instructions; they run only after zp_ifma_enabled has seen the CPU support
 * them. Without ZP_IFMA it builds as stubs. */
#include "ntt/ntt_simd.h"

#include <stdlib.h>

#if defined(ZP_IFMA)
#define IFMA_NL 5
#define IFMA_NW 4
#include "field/ifma_impl.h"

typedef zp_v5 v5;
typedef zp_v5_field vfield;
#define vfield_load zp_v5_field_load
#define vmul zp_v5_mul
#define vload8 zp_v5_load8
#define vstore8 zp_v5_store8
/* The block transforms keep values in [0, 2p) between butterflies
 * (field/ifma_impl.h's lazy forms): a product's final subtraction and the
 * reduction of every sum that goes straight into a product are left out,
 * and scatter makes the values canonical again on their way out. */
#define vmul_lazy zp_v5_mul_lazy
#define vadd2 zp_v5_add_2p
#define vsub2 zp_v5_sub_2p
#define vadd4 zp_v5_add_4p
#define vsub4 zp_v5_sub_4p
/* for the butterflies' inner sums, which go only into further sums */
#define vadd2o zp_v5_add_2p_open
#define vsub2o zp_v5_sub_2p_open

/* a twiddle (the same in every lane) */
VI void vbroadcast(v5 *r, const zp_ifma_limbs *t) {
    for (int j = 0; j < 5; j++) r->l[j] = _mm512_set1_epi64((long long)t->l[j]);
}

void zp_ntt_simd_gather(void *work, const uint64_t *a, size_t m, size_t step, size_t lane_step) {
    v5 *w = work;
    for (size_t i = 0; i < m; i++) {
        const uint64_t *e[8];
        for (int k = 0; k < 8; k++) e[k] = a + 4 * (i * step + (size_t)k * lane_step);
        vload8(&w[i], e);
    }
}

void zp_ntt_simd_scatter(const zp_ifma_field *f, uint64_t *a, const void *work, size_t m, size_t step,
                         size_t lane_step) {
    vfield c;
    vfield_load(&c, f);
    const v5 *w = work;
    for (size_t i = 0; i < m; i++) {
        uint64_t *e[8];
        v5 x = w[i];
        zp_v5_reduce_2p(&x, &c); /* the transforms leave [0, 2p) */
        for (int k = 0; k < 8; k++) e[k] = a + 4 * (i * step + (size_t)k * lane_step);
        vstore8(e, &x, 0xff);
    }
}

/* ---- the block transforms: ntt_kernels_impl.h's, lane-wide ---- */

/* The butterflies on [0, 2p) values: what goes into a product is left in
 * [0, 4p) (mul_lazy takes it), everything else is reduced to [0, 2p); the
 * first sums and differences, which only go into the second, uncarried. */
VI void dif4(v5 *x0, v5 *x1, v5 *x2, v5 *x3, const v5 *w1, const v5 *w2, const v5 *w3, const v5 *w4, const vfield *c) {
    v5 a, b, cc, d;
    vadd2o(&a, x0, x2, c);
    vsub2o(&b, x0, x2, c);
    vadd2o(&cc, x1, x3, c);
    vsub4(&d, x1, x3, c);
    vmul_lazy(&d, &d, w4, c);
    vadd2(x0, &a, &cc, c);
    if (w1 != NULL) {
        vsub4(x1, &a, &cc, c);
        vmul_lazy(x1, x1, w2, c);
        vadd4(x2, &b, &d, c);
        vmul_lazy(x2, x2, w1, c);
        vsub4(x3, &b, &d, c);
        vmul_lazy(x3, x3, w3, c);
    } else {
        vsub2(x1, &a, &cc, c);
        vadd2(x2, &b, &d, c);
        vsub2(x3, &b, &d, c);
    }
}

VI void dit4(v5 *x0, v5 *x1, v5 *x2, v5 *x3, const v5 *w1, const v5 *w2, const v5 *w3, const v5 *w4, const vfield *c) {
    v5 t1 = *x1, t2 = *x2, t3 = *x3, s0, s1, s2, s3;
    if (w1 != NULL) {
        vmul_lazy(&t1, x1, w2, c);
        vmul_lazy(&t2, x2, w1, c);
        vmul_lazy(&t3, x3, w3, c);
    }
    vadd2o(&s0, x0, &t1, c);
    vsub2o(&s1, x0, &t1, c);
    vadd2o(&s2, &t2, &t3, c);
    vsub4(&s3, &t2, &t3, c);
    vmul_lazy(&s3, &s3, w4, c);
    vadd2(x0, &s0, &s2, c);
    vsub2(x2, &s0, &s2, c);
    vadd2(x1, &s1, &s3, c);
    vsub2(x3, &s1, &s3, c);
}

static void stage2(v5 *x, size_t h, const zp_ifma_limbs *tw, size_t ts, int dit, const vfield *c) {
    for (size_t j = 0; j < h; j++) {
        v5 *p0 = x + j, *p1 = p0 + h, w, t;
        vbroadcast(&w, &tw[j * ts]);
        if (dit) {
            t = *p1;
            if (j != 0) vmul_lazy(&t, p1, &w, c);
            vsub2(p1, p0, &t, c);
            vadd2(p0, p0, &t, c);
        } else if (j != 0) {
            vsub4(&t, p0, p1, c);
            vadd2(p0, p0, p1, c);
            vmul_lazy(p1, &t, &w, c);
        } else {
            vsub2(&t, p0, p1, c);
            vadd2(p0, p0, p1, c);
            *p1 = t;
        }
    }
}

static void stage4(v5 *x, size_t M, size_t len, const zp_ifma_limbs *tw, size_t ts, int dit, const vfield *c) {
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

void zp_ntt_simd_dif(const zp_ifma_field *f, void *work, unsigned log_m, const zp_ifma_limbs *tw, size_t ts) {
    vfield c;
    vfield_load(&c, f);
    size_t M = (size_t)1 << log_m, len = M;
    if (log_m & 1) {
        stage2(work, M / 2, tw, ts, 0, &c);
        len = M / 2;
    }
    for (; len >= 4; len /= 4) stage4(work, M, len, tw, ts, 0, &c);
}

void zp_ntt_simd_dit(const zp_ifma_field *f, void *work, unsigned log_m, const zp_ifma_limbs *tw, size_t ts) {
    vfield c;
    vfield_load(&c, f);
    size_t M = (size_t)1 << log_m, top = (log_m & 1) ? M / 2 : M;
    for (size_t len = 4; len <= top; len *= 4) stage4(work, M, len, tw, ts, 1, &c);
    if (log_m & 1) stage2(work, M / 2, tw, ts, 1, &c);
}

static void lanes_load(v5 *r, const zp_ifma_limbs t[8]) {
    for (int j = 0; j < 5; j++) {
        r->l[j] =
            _mm512_set_epi64((long long)t[7].l[j], (long long)t[6].l[j], (long long)t[5].l[j], (long long)t[4].l[j],
                             (long long)t[3].l[j], (long long)t[2].l[j], (long long)t[1].l[j], (long long)t[0].l[j]);
    }
}

/* Four interleaved running products (stepping by h^4) so that consecutive
 * multiplications do not wait on each other, as in the scalar twist. */
void zp_ntt_simd_twist(const zp_ifma_field *f, void *work, size_t m, const zp_ifma_limbs h[8],
                       const zp_ifma_limbs first[8]) {
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

void zp_ntt_simd_scale(const zp_ifma_field *f, void *work, size_t m, const zp_ifma_limbs *tab) {
    vfield c;
    vfield_load(&c, f);
    v5 *x = work;
    for (size_t i = 1; i < m; i++) {
        v5 t;
        vbroadcast(&t, &tab[i]);
        vmul(&x[i], &x[i], &t, &c);
    }
}

#else /* no IFMA in this build: zp_ifma_enabled never lets these run */

void zp_ntt_simd_gather(void *work, const uint64_t *a, size_t m, size_t step, size_t lane_step) {
    (void)work, (void)a, (void)m, (void)step, (void)lane_step;
    abort();
}
void zp_ntt_simd_scatter(const zp_ifma_field *f, uint64_t *a, const void *work, size_t m, size_t step,
                         size_t lane_step) {
    (void)f, (void)work, (void)a, (void)m, (void)step, (void)lane_step;
    abort();
}
void zp_ntt_simd_dif(const zp_ifma_field *f, void *work, unsigned log_m, const zp_ifma_limbs *tw, size_t ts) {
    (void)f, (void)work, (void)log_m, (void)tw, (void)ts;
    abort();
}
void zp_ntt_simd_dit(const zp_ifma_field *f, void *work, unsigned log_m, const zp_ifma_limbs *tw, size_t ts) {
    (void)f, (void)work, (void)log_m, (void)tw, (void)ts;
    abort();
}
void zp_ntt_simd_twist(const zp_ifma_field *f, void *work, size_t m, const zp_ifma_limbs h[8],
                       const zp_ifma_limbs first[8]) {
    (void)f, (void)work, (void)m, (void)h, (void)first;
    abort();
}
void zp_ntt_simd_scale(const zp_ifma_field *f, void *work, size_t m, const zp_ifma_limbs *tab) {
    (void)f, (void)work, (void)m, (void)tab;
    abort();
}
#endif
