/* A textbook reference for the group law, independent of the formulas in
 * curve/point_impl.h: affine chord-and-tangent (Silverman, The Arithmetic
 * of Elliptic Curves, III.2.3) with the point at infinity as (0, 0), a
 * field inversion written here from multiplications alone (Fermat for Fp,
 * the norm for Fp2), double-and-add for scalars, and a naive MSM that runs
 * all its scalar multiplications in lockstep so that each step shares one
 * inversion (Montgomery's trick, also written here). It uses only the
 * field operations (add, sub, mul, sqr, neg, is_zero, eq_var), which
 * test_field and test_ffjs check on their own. Slow and plain on purpose.
 *
 * REF_FIELD(F) for a prime field, REF_FIELD2(F2, F) for its quadratic
 * extension, then REF_GROUP(G, F) for a group over F. */
#ifndef ZP_TESTS_GROUP_REF_H
#define ZP_TESTS_GROUP_REF_H

#include <stdlib.h>
#include <string.h>

#include "curve/curve.h"

/* r = a^(p-2) = a^-1 (0 for 0), by left-to-right square-and-multiply. */
#define REF_FIELD(F)                                                 \
    static void F##_ref_inv(F *r, const F *a) {                      \
        enum { NL = sizeof(F) / sizeof(uint64_t) };                  \
        uint64_t e[NL];                                              \
        memcpy(e, F##_modulus.v, sizeof e);                          \
        e[0] -= 2; /* p is odd and above 2: no borrow */             \
        F acc;                                                       \
        F##_set_one(&acc);                                           \
        for (size_t i = 64 * NL; i-- > 0;) {                         \
            F##_sqr(&acc, &acc);                                     \
            if ((e[i / 64] >> (i % 64)) & 1) F##_mul(&acc, &acc, a); \
        }                                                            \
        *r = acc;                                                    \
    }

/* 1/(a0 + a1·u) = (a0 - a1·u)/(a0² + a1²), u² = -1. */
#define REF_FIELD2(F2, F)                          \
    static void F2##_ref_inv(F2 *r, const F2 *a) { \
        F n, t;                                    \
        F##_sqr(&n, &a->c0);                       \
        F##_sqr(&t, &a->c1);                       \
        F##_add(&n, &n, &t);                       \
        F##_ref_inv(&n, &n);                       \
        F##_mul(&r->c0, &a->c0, &n);               \
        F##_mul(&t, &a->c1, &n);                   \
        F##_neg(&r->c1, &t);                       \
    }

#define REF_GROUP(G, F)                                                                                            \
    static int G##_ref_is_inf(const G *p) { return F##_is_zero(&p->x) && F##_is_zero(&p->y); }                     \
    static int G##_ref_eq(const G *p, const G *q) { return F##_eq_var(&p->x, &q->x) && F##_eq_var(&p->y, &q->y); } \
    /* y² = x³ + b, or infinity */                                                                               \
    static int G##_ref_on_curve(const G *p) {                                                                      \
        if (G##_ref_is_inf(p)) return 1;                                                                           \
        F l, r;                                                                                                    \
        F##_sqr(&l, &p->y);                                                                                        \
        F##_sqr(&r, &p->x);                                                                                        \
        F##_mul(&r, &r, &p->x);                                                                                    \
        F##_add(&r, &r, &G##_b);                                                                                   \
        return F##_eq_var(&l, &r);                                                                                 \
    }                                                                                                              \
    static void G##_ref_neg(G *r, const G *p) {                                                                    \
        r->x = p->x;                                                                                               \
        F zero;                                                                                                    \
        F##_set_zero(&zero);                                                                                       \
        F##_sub(&r->y, &zero, &p->y);                                                                              \
    }                                                                                                              \
    /* The slope of P + Q as num/den (returns 1), or the sum itself when no                           \
     * slope is needed (returns 0): O + Q, P + O, P + (-P) (also 2P for y = 0). */            \
    static int G##_ref_slope(G *out, F *num, F *den, const G *p, const G *q) {                                     \
        if (G##_ref_is_inf(p)) {                                                                                   \
            *out = *q;                                                                                             \
            return 0;                                                                                              \
        }                                                                                                          \
        if (G##_ref_is_inf(q)) {                                                                                   \
            *out = *p;                                                                                             \
            return 0;                                                                                              \
        }                                                                                                          \
        if (F##_eq_var(&p->x, &q->x)) {                                                                            \
            F s;                                                                                                   \
            F##_add(&s, &p->y, &q->y);                                                                             \
            if (F##_is_zero(&s)) { /* Q = -P */                                                                    \
                memset(out, 0, sizeof *out);                                                                       \
                return 0;                                                                                          \
            }                                                                                                      \
            F t; /* the tangent: λ = 3x² / 2y */                                                                 \
            F##_sqr(&t, &p->x);                                                                                    \
            F##_add(num, &t, &t);                                                                                  \
            F##_add(num, num, &t);                                                                                 \
            F##_add(den, &p->y, &p->y);                                                                            \
            return 1;                                                                                              \
        }                                                                                                          \
        F##_sub(num, &q->y, &p->y); /* the chord: λ = (y2 - y1) / (x2 - x1) */                                    \
        F##_sub(den, &q->x, &p->x);                                                                                \
        return 1;                                                                                                  \
    }                                                                                                              \
    /* x3 = λ² - x1 - x2, y3 = λ(x1 - x3) - y1 */                                                               \
    static void G##_ref_finish(G *r, const F *lambda, const G *p, const G *q) {                                    \
        F x3, y3;                                                                                                  \
        F##_sqr(&x3, lambda);                                                                                      \
        F##_sub(&x3, &x3, &p->x);                                                                                  \
        F##_sub(&x3, &x3, &q->x);                                                                                  \
        F##_sub(&y3, &p->x, &x3);                                                                                  \
        F##_mul(&y3, lambda, &y3);                                                                                 \
        F##_sub(&y3, &y3, &p->y);                                                                                  \
        r->x = x3;                                                                                                 \
        r->y = y3;                                                                                                 \
    }                                                                                                              \
    static void G##_ref_add(G *r, const G *p, const G *q) {                                                        \
        G out;                                                                                                     \
        F num, den, lambda;                                                                                        \
        if (!G##_ref_slope(&out, &num, &den, p, q)) {                                                              \
            *r = out;                                                                                              \
            return;                                                                                                \
        }                                                                                                          \
        F##_ref_inv(&den, &den);                                                                                   \
        F##_mul(&lambda, &num, &den);                                                                              \
        G##_ref_finish(r, &lambda, p, q);                                                                          \
    }                                                                                                              \
    /* r = k·p, k plain little-endian limbs, double-and-add from the top */                                       \
    static void G##_ref_mul(G *r, const G *p, const uint64_t *k, size_t klen) {                                    \
        G acc, base = *p;                                                                                          \
        memset(&acc, 0, sizeof acc);                                                                               \
        for (size_t i = 64 * klen; i-- > 0;) {                                                                     \
            G##_ref_add(&acc, &acc, &acc);                                                                         \
            if ((k[i / 64] >> (i % 64)) & 1) G##_ref_add(&acc, &acc, &base);                                       \
        }                                                                                                          \
        *r = acc;                                                                                                  \
    }                                                                                                              \
    /* r[i] = a[i] + b[i] for i < n with one inversion; r may be a (b must                            \
     * not overlap r other than at equal indices). */            \
    static void G##_ref_add_batch(G *r, const G *a, const G *b, size_t n) {                                        \
        F *num = malloc((3 * n + 1) * sizeof(F)), *den = num + n, *pre = den + n;                                  \
        char *need = malloc(n + 1);                                                                                \
        G *out = malloc((n + 1) * sizeof(G));                                                                      \
        F acc;                                                                                                     \
        F##_set_one(&acc);                                                                                         \
        for (size_t i = 0; i < n; i++) {                                                                           \
            need[i] = (char)G##_ref_slope(&out[i], &num[i], &den[i], &a[i], &b[i]);                                \
            pre[i] = acc; /* the product of the denominators before i */                                           \
            if (need[i]) F##_mul(&acc, &acc, &den[i]);                                                             \
        }                                                                                                          \
        F##_ref_inv(&acc, &acc);                                                                                   \
        for (size_t i = n; i-- > 0;) {                                                                             \
            if (!need[i]) continue;                                                                                \
            F inv, lambda;                                                                                         \
            F##_mul(&inv, &acc, &pre[i]); /* 1/den[i] */                                                           \
            F##_mul(&acc, &acc, &den[i]);                                                                          \
            F##_mul(&lambda, &num[i], &inv);                                                                       \
            G##_ref_finish(&out[i], &lambda, &a[i], &b[i]);                                                        \
        }                                                                                                          \
        memcpy(r, out, n * sizeof(G));                                                                             \
        free(out);                                                                                                 \
        free(need);                                                                                                \
        free(num);                                                                                                 \
    }                                                                                                              \
    /* r = Σ k_i·P_i: the n double-and-adds in lockstep (bit by bit, each                             \
     * step one batch), then a tree of batched sums. */          \
    static void G##_ref_msm(G *r, const G *pts, const uint64_t *scalars, size_t n) {                               \
        G *acc = calloc(n + 1, sizeof(G)), *addend = malloc((n + 1) * sizeof(G));                                  \
        unsigned bits = 0;                                                                                         \
        for (size_t i = 0; i < n; i++) {                                                                           \
            for (unsigned b = 256; b-- > bits;) {                                                                  \
                if ((scalars[4 * i + b / 64] >> (b % 64)) & 1) {                                                   \
                    bits = b + 1;                                                                                  \
                    break;                                                                                         \
                }                                                                                                  \
            }                                                                                                      \
        }                                                                                                          \
        for (unsigned b = bits; b-- > 0;) {                                                                        \
            G##_ref_add_batch(acc, acc, acc, n);                                                                   \
            for (size_t i = 0; i < n; i++) {                                                                       \
                if ((scalars[4 * i + b / 64] >> (b % 64)) & 1) {                                                   \
                    addend[i] = pts[i];                                                                            \
                } else {                                                                                           \
                    memset(&addend[i], 0, sizeof(G));                                                              \
                }                                                                                                  \
            }                                                                                                      \
            G##_ref_add_batch(acc, acc, addend, n);                                                                \
        }                                                                                                          \
        size_t m = n;                                                                                              \
        while (m > 1) {                                                                                            \
            size_t h = (m + 1) / 2;                                                                                \
            G##_ref_add_batch(acc, acc, acc + h, m / 2);                                                           \
            m = h;                                                                                                 \
        }                                                                                                          \
        if (n == 0) {                                                                                              \
            memset(r, 0, sizeof *r);                                                                               \
        } else {                                                                                                   \
            *r = acc[0];                                                                                           \
        }                                                                                                          \
        free(addend);                                                                                              \
        free(acc);                                                                                                 \
    }                                                                                                              \
    /* Jacobian (x = X/Z², y = Y/Z³) and XYZZ (x = X/ZZ, y = Y/ZZZ) to affine,                        \
     * and the other way with a given Z (so that the formulas see Z ≠ 1). */          \
    static void G##_ref_from_j(G *r, const G##j *p) {                                                              \
        if (F##_is_zero(&p->z)) {                                                                                  \
            memset(r, 0, sizeof *r);                                                                               \
            return;                                                                                                \
        }                                                                                                          \
        F zi, zi2, zi3;                                                                                            \
        F##_ref_inv(&zi, &p->z);                                                                                   \
        F##_sqr(&zi2, &zi);                                                                                        \
        F##_mul(&zi3, &zi2, &zi);                                                                                  \
        F##_mul(&r->x, &p->x, &zi2);                                                                               \
        F##_mul(&r->y, &p->y, &zi3);                                                                               \
    }                                                                                                              \
    static void G##_ref_from_xyzz(G *r, const G##xyzz *p) {                                                        \
        if (F##_is_zero(&p->zz)) {                                                                                 \
            memset(r, 0, sizeof *r);                                                                               \
            return;                                                                                                \
        }                                                                                                          \
        F t;                                                                                                       \
        F##_ref_inv(&t, &p->zz);                                                                                   \
        F##_mul(&r->x, &p->x, &t);                                                                                 \
        F##_ref_inv(&t, &p->zzz);                                                                                  \
        F##_mul(&r->y, &p->y, &t);                                                                                 \
    }                                                                                                              \
    static void G##_ref_to_j(G##j *r, const G *p, const F *z) {                                                    \
        if (G##_ref_is_inf(p)) {                                                                                   \
            memset(r, 0, sizeof *r);                                                                               \
            return;                                                                                                \
        }                                                                                                          \
        F z2, z3;                                                                                                  \
        F##_sqr(&z2, z);                                                                                           \
        F##_mul(&z3, &z2, z);                                                                                      \
        F##_mul(&r->x, &p->x, &z2);                                                                                \
        F##_mul(&r->y, &p->y, &z3);                                                                                \
        r->z = *z;                                                                                                 \
    }                                                                                                              \
    static void G##_ref_to_xyzz(G##xyzz *r, const G *p, const F *z) {                                              \
        if (G##_ref_is_inf(p)) {                                                                                   \
            memset(r, 0, sizeof *r);                                                                               \
            return;                                                                                                \
        }                                                                                                          \
        F##_sqr(&r->zz, z);                                                                                        \
        F##_mul(&r->zzz, &r->zz, z);                                                                               \
        F##_mul(&r->x, &p->x, &r->zz);                                                                             \
        F##_mul(&r->y, &p->y, &r->zzz);                                                                            \
    }

REF_FIELD(zp_bn254_fp)
REF_FIELD(zp_bls12_fp)
REF_FIELD2(zp_bn254_fp2, zp_bn254_fp)
REF_FIELD2(zp_bls12_fp2, zp_bls12_fp)
REF_GROUP(zp_bn254_g1, zp_bn254_fp)
REF_GROUP(zp_bn254_g2, zp_bn254_fp2)
REF_GROUP(zp_bls12_g1, zp_bls12_fp)
REF_GROUP(zp_bls12_g2, zp_bls12_fp2)

#endif
