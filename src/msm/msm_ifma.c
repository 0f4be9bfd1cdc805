/* The MSM's eight-lane batch arithmetic (msm_simd.h). This file is compiled
 * with -mavx512f -mavx512ifma (CMakeLists.txt) and every function in it
 * may use those instructions; they run only after zp_ifma_use has seen
 * the CPU support them. Without ZP_IFMA it builds as stubs. */
#include "msm/msm_simd.h"

#include <stdlib.h>

#if defined(ZP_IFMA)
#include "field/ifma_impl.h"

/* entries 8t .. 8t+7 of a 4-limb array into the lanes */
static void load_group(v5 *w, const uint64_t (*a)[4], size_t t) {
    const uint64_t *e[8];
    for (int k = 0; k < 8; k++) e[k] = a[8 * t + (size_t)k];
    vload8(w, e);
}

/* work: D[t] (the denominators, lane-major) then P[t] (prefix products,
 * later the inverses), t < n/8 */
void zp_msm_simd_prefix(const zp_msm_simd_batch *b, uint64_t products[8][4]) {
    vfield c;
    vfield_load(&c, b->f);
    size_t groups = b->n / 8;
    v5 *D = b->work, *P = D + groups, acc;
    for (size_t t = 0; t < groups; t++) load_group(&D[t], b->den, t);
    acc = D[0];
    for (size_t t = 1; t < groups; t++) {
        P[t] = acc;
        vmul_r(&acc, &acc, &D[t], &c);
    }
    uint64_t *e[8];
    for (int k = 0; k < 8; k++) e[k] = products[k];
    vstore8(e, &acc, 0xff);
}

void zp_msm_simd_finish(const zp_msm_simd_batch *b, const uint64_t inv[8][4]) {
    vfield c;
    vfield_load(&c, b->f);
    size_t groups = b->n / 8;
    v5 *D = b->work, *P = D + groups, a;
    {
        const uint64_t *e[8];
        for (int k = 0; k < 8; k++) e[k] = inv[k];
        vload8(&a, e);
    }
    /* a = 1 / (D[0]·…·D[t]) on entry to step t: P[t] becomes 1 / D[t] */
    for (size_t t = groups; t-- > 1;) {
        vmul_r(&P[t], &a, &P[t], &c);
        vmul_r(&a, &a, &D[t], &c);
    }
    P[0] = a;
    for (size_t t = 0; t < groups; t++) {
        unsigned mask = 0;
        uint64_t *ex[8], *ey[8];
        for (int k = 0; k < 8; k++) {
            uint64_t *d = b->dst[8 * t + (size_t)k];
            mask |= (unsigned)(d != NULL) << k;
            ex[k] = d;
            ey[k] = d != NULL ? d + 4 : NULL;
        }
        if (mask == 0) continue;
        v5 num, px, py, qx, lambda, t1, x3, y3;
        load_group(&num, b->num, t);
        load_group(&px, b->px, t);
        load_group(&py, b->py, t);
        load_group(&qx, b->qx, t);
        vmul_r(&lambda, &num, &P[t], &c);
        vmul_r(&t1, &lambda, &lambda, &c);
        vsub(&t1, &t1, &px, &c);
        vsub(&x3, &t1, &qx, &c); /* x3 = λ² - x1 - x2 */
        vsub(&t1, &px, &x3, &c);
        vmul_r(&t1, &lambda, &t1, &c);
        vsub(&y3, &t1, &py, &c); /* y3 = λ(x1 - x3) - y1 */
        vstore8(ex, &x3, mask);
        vstore8(ey, &y3, mask);
    }
}

#else /* no IFMA in this build: zp_ifma_use never lets these run */

void zp_msm_simd_prefix(const zp_msm_simd_batch *b, uint64_t products[8][4]) {
    (void)b, (void)products;
    abort();
}
void zp_msm_simd_finish(const zp_msm_simd_batch *b, const uint64_t inv[8][4]) {
    (void)b, (void)inv;
    abort();
}
#endif
