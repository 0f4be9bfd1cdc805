/* The group law of all four groups (BN254 and BLS12-381, G1 and G2)
 * against the textbook affine reference of group_ref.h, which shares no
 * formula with curve/point_impl.h: Jacobian j_add (constant time),
 * j_add_var, j_add_affine_var, j_dbl, XYZZ xyzz_add_var,
 * xyzz_add_affine_var, xyzz_dbl, the conversions, and the scalar
 * multiplications j_mul (constant time) and j_mul_var, on random points
 * (random multiples of the generator, made by the reference) given with
 * random Z so that the formulas never see Z = 1; plus the laws (identity,
 * inverse, commutativity, associativity, doubling = adding to itself) and
 * the special cases P + P, P + (-P), P + O, O + P, O + O, order·G = O.
 * And the fast subgroup tests of curve/subgroup.h against r·P = O: on
 * random points of the group, on infinity, and on points outside it
 * (subgroup_vectors.h: a component of each prime of the cofactor, or a
 * random point of the curve), alone and plus random points of the group. */
#include <stdlib.h>
#include <string.h>

#include "base/bigint.h"
#include "curve/curve.h"
#include "curve/subgroup.h"
#include "group_ref.h"
#include "subgroup_vectors.h"
#include "testutil.h"

/* A uniformly random plain scalar below m (both orders are below 2^255). */
static void rand_scalar(uint64_t k[4], const uint64_t m[4]) {
    do {
        for (int i = 0; i < 4; i++) k[i] = zp_test_rand64();
        k[3] &= 0x7fffffffffffffffULL;
    } while (!zp_limbs_lt_var(k, m, 4));
}

/* A random nonzero element of a base field or of Fp2 (from random small
 * integers, multiplied so that all limbs are full). */
#define RAND_BASE(F)                            \
    static void F##_test_rand(F *r) {           \
        F t;                                    \
        do {                                    \
            F##_from_u64(r, zp_test_rand64());  \
            F##_from_u64(&t, zp_test_rand64()); \
            F##_mul(r, r, &t);                  \
            F##_mul(r, r, &F##_r2);             \
        } while (F##_is_zero(r));               \
    }
#define RAND_EXT(F2, F)                 \
    static void F2##_test_rand(F2 *r) { \
        F##_test_rand(&r->c0);          \
        F##_test_rand(&r->c1);          \
    }
RAND_BASE(zp_bn254_fp)
RAND_BASE(zp_bls12_fp)
RAND_EXT(zp_bn254_fp2, zp_bn254_fp)
RAND_EXT(zp_bls12_fp2, zp_bls12_fp)

#define GROUP_TEST(G, F, FR, NAME)                                                                       \
    static G##j G##_rj(const G *p) { /* p with a random Z */                                             \
        F z;                                                                                             \
        F##_test_rand(&z);                                                                               \
        G##j r;                                                                                          \
        G##_ref_to_j(&r, p, &z);                                                                         \
        return r;                                                                                        \
    }                                                                                                    \
    static G##xyzz G##_rx(const G *p) {                                                                  \
        F z;                                                                                             \
        F##_test_rand(&z);                                                                               \
        G##xyzz r;                                                                                       \
        G##_ref_to_xyzz(&r, p, &z);                                                                      \
        return r;                                                                                        \
    }                                                                                                    \
    /* the library's Jacobian result against the reference's affine one */                               \
    static int G##_j_is(const G##j *got, const G *want) {                                                \
        G a, b;                                                                                          \
        G##_ref_from_j(&a, got);                                                                         \
        G##_j_to_affine(&b, got); /* the library's conversion agrees */                                  \
        return G##_ref_eq(&a, want) && G##_ref_eq(&b, want);                                             \
    }                                                                                                    \
    static int G##_x_is(const G##xyzz *got, const G *want) {                                             \
        G a;                                                                                             \
        G##j j;                                                                                          \
        G##_ref_from_xyzz(&a, got);                                                                      \
        G##_xyzz_to_j(&j, got);                                                                          \
        return G##_ref_eq(&a, want) && G##_j_is(&j, want);                                               \
    }                                                                                                    \
    /* every addition of the library: p + q, the operands as given (q also                            \
     * affine), checked against want */  \
    static void G##_check_adds(const G *p, const G *q, const G *want, const char *what) {                \
        G##j pj = G##_rj(p), qj = G##_rj(q), r;                                                          \
        G##xyzz px = G##_rx(p), qx = G##_rx(q), rx;                                                      \
        G##_j_add(&r, &pj, &qj);                                                                         \
        CHECK_MSG(G##_j_is(&r, want), NAME " j_add: %s", what);                                          \
        G##_j_add_var(&r, &pj, &qj);                                                                     \
        CHECK_MSG(G##_j_is(&r, want), NAME " j_add_var: %s", what);                                      \
        G##_j_add_affine_var(&r, &pj, q);                                                                \
        CHECK_MSG(G##_j_is(&r, want), NAME " j_add_affine_var: %s", what);                               \
        G##_xyzz_add_var(&rx, &px, &qx);                                                                 \
        CHECK_MSG(G##_x_is(&rx, want), NAME " xyzz_add_var: %s", what);                                  \
        G##_xyzz_add_affine_var(&rx, &px, q);                                                            \
        CHECK_MSG(G##_x_is(&rx, want), NAME " xyzz_add_affine_var: %s", what);                           \
        /* in place, as the MSM and the prover call them */                                              \
        r = pj;                                                                                          \
        G##_j_add(&r, &r, &qj);                                                                          \
        CHECK_MSG(G##_j_is(&r, want), NAME " j_add in place: %s", what);                                 \
        r = qj;                                                                                          \
        G##_j_add(&r, &pj, &r);                                                                          \
        CHECK_MSG(G##_j_is(&r, want), NAME " j_add in place (second operand): %s", what);                \
    }                                                                                                    \
    /* k·p by both scalar multiplications against the reference */                                      \
    static void G##_check_mul(const G *p, const uint64_t k[4], const char *what) {                       \
        G want;                                                                                          \
        G##_ref_mul(&want, p, k, 4);                                                                     \
        G##j pj = G##_rj(p), r;                                                                          \
        G##_j_mul(&r, &pj, k, 4);                                                                        \
        CHECK_MSG(G##_j_is(&r, &want), NAME " j_mul: %s", what);                                         \
        G##_j_mul_var(&r, &pj, k, 4);                                                                    \
        CHECK_MSG(G##_j_is(&r, &want), NAME " j_mul_var: %s", what);                                     \
        r = pj;                                                                                          \
        G##_j_mul(&r, &r, k, 4);                                                                         \
        CHECK_MSG(G##_j_is(&r, &want), NAME " j_mul in place: %s", what);                                \
    }                                                                                                    \
    static void test_##G(size_t iters) {                                                                 \
        const G *g = &G##_generator;                                                                     \
        G o, t, u, v;                                                                                    \
        uint64_t k[4];                                                                                   \
        memset(&o, 0, sizeof o);                                                                         \
        CHECK_MSG(G##_ref_on_curve(g) && !G##_ref_is_inf(g), NAME ": the generator is on the curve");    \
        /* the reference itself: order·G = O, (order - 1)·G = -G, 2G = G + G */                        \
        memcpy(k, FR##_modulus.v, 32);                                                                   \
        G##_ref_mul(&t, g, k, 4);                                                                        \
        CHECK_MSG(G##_ref_is_inf(&t), NAME ": reference order·G = O");                                   \
        k[0] -= 1;                                                                                       \
        G##_ref_mul(&t, g, k, 4);                                                                        \
        G##_ref_neg(&u, g);                                                                              \
        CHECK_MSG(G##_ref_eq(&t, &u), NAME ": reference (order - 1)·G = -G");                            \
        /* order·G = O and (order - 1)·G = -G by the library */                                        \
        G##_check_mul(g, k, "(order - 1)·G");                                                            \
        memcpy(k, FR##_modulus.v, 32);                                                                   \
        G##_check_mul(g, k, "order·G");                                                                  \
        {                                                                                                \
            G##j gj, r;                                                                                  \
            G##_j_from_affine(&gj, g);                                                                   \
            G##_j_mul(&r, &gj, k, 4);                                                                    \
            CHECK_MSG(G##_j_is_inf(&r), NAME ": j_mul order·G is infinity");                             \
            G##_j_mul_var(&r, &gj, k, 4);                                                                \
            CHECK_MSG(G##_j_is_inf(&r), NAME ": j_mul_var order·G is infinity");                         \
        }                                                                                                \
        for (uint64_t small = 0; small < 18; small++) {                                                  \
            uint64_t ks[4] = {small, 0, 0, 0};                                                           \
            G##_check_mul(g, ks, "small multiples of G");                                                \
        }                                                                                                \
        /* O + O, O + G, G + O */                                                                        \
        G##_check_adds(&o, &o, &o, "O + O");                                                             \
        G##_check_adds(&o, g, g, "O + G");                                                               \
        G##_check_adds(g, &o, g, "G + O");                                                               \
        for (size_t it = 0; it < iters; it++) {                                                          \
            G p, q, r, pq, qp, p2, np;                                                                   \
            rand_scalar(k, FR##_modulus.v);                                                              \
            G##_ref_mul(&p, g, k, 4);                                                                    \
            rand_scalar(k, FR##_modulus.v);                                                              \
            G##_ref_mul(&q, g, k, 4);                                                                    \
            rand_scalar(k, FR##_modulus.v);                                                              \
            G##_ref_mul(&r, g, k, 4);                                                                    \
            CHECK_MSG(G##_ref_on_curve(&p) && G##_ref_on_curve(&q) && G##_ref_on_curve(&r),              \
                      NAME ": reference points on the curve");                                           \
            G##_ref_add(&pq, &p, &q);                                                                    \
            G##_ref_add(&qp, &q, &p);                                                                    \
            G##_ref_add(&p2, &p, &p);                                                                    \
            G##_ref_neg(&np, &p);                                                                        \
            CHECK_MSG(G##_ref_eq(&pq, &qp) && G##_ref_on_curve(&pq) && G##_ref_on_curve(&p2),            \
                      NAME ": reference sums");                                                          \
            G##_check_adds(&p, &q, &pq, "P + Q");                                                        \
            G##_check_adds(&q, &p, &pq, "Q + P (commutativity)");                                        \
            G##_check_adds(&p, &p, &p2, "P + P");                                                        \
            G##_check_adds(&p, &np, &o, "P + (-P)");                                                     \
            G##_check_adds(&np, &p, &o, "(-P) + P");                                                     \
            G##_check_adds(&p, &o, &p, "P + O");                                                         \
            G##_check_adds(&o, &p, &p, "O + P");                                                         \
            {                                                                                            \
                G##j pj = G##_rj(&p), d;                                                                 \
                G##xyzz px = G##_rx(&p), dx;                                                             \
                G##_j_dbl(&d, &pj);                                                                      \
                CHECK_MSG(G##_j_is(&d, &p2), NAME ": j_dbl");                                            \
                G##_xyzz_dbl(&dx, &px);                                                                  \
                CHECK_MSG(G##_x_is(&dx, &p2), NAME ": xyzz_dbl");                                        \
                G##j oj = G##_rj(&o);                                                                    \
                G##_j_dbl(&d, &oj);                                                                      \
                CHECK_MSG(G##_j_is_inf(&d), NAME ": j_dbl(O) = O");                                      \
                G##xyzz ox = G##_rx(&o);                                                                 \
                G##_xyzz_dbl(&dx, &ox);                                                                  \
                CHECK_MSG(G##_xyzz_is_inf(&dx), NAME ": xyzz_dbl(O) = O");                               \
                /* negation */                                                                           \
                G n;                                                                                     \
                G##_neg(&n, &p);                                                                         \
                CHECK_MSG(G##_ref_eq(&n, &np), NAME ": neg");                                            \
                G##_j_neg(&d, &pj);                                                                      \
                CHECK_MSG(G##_j_is(&d, &np), NAME ": j_neg");                                            \
                /* j_eq_var on representations with different Z */                                       \
                G##j pj2 = G##_rj(&p), qj = G##_rj(&q), oj2 = G##_rj(&o);                                \
                CHECK_MSG(G##_j_eq_var(&pj, &pj2) && !G##_j_eq_var(&pj, &qj) && !G##_j_eq_var(&pj, &d),  \
                          NAME ": j_eq_var: P = P, P != Q, P != -P");                                    \
                CHECK_MSG(G##_j_eq_var(&oj, &oj2) && !G##_j_eq_var(&pj, &oj) && !G##_j_eq_var(&oj, &pj), \
                          NAME ": j_eq_var: O = O, P != O");                                             \
                G##_neg(&n, &o);                                                                         \
                CHECK_MSG(G##_ref_is_inf(&n), NAME ": neg(O) = O");                                      \
                /* conversions */                                                                        \
                G##_j_from_affine(&d, &p);                                                               \
                CHECK_MSG(G##_j_is(&d, &p), NAME ": j_from_affine");                                     \
                G##_j_from_affine(&d, &o);                                                               \
                CHECK_MSG(G##_j_is_inf(&d), NAME ": j_from_affine(O)");                                  \
            }                                                                                            \
            /* associativity: (P + Q) + R = P + (Q + R), by the reference and                          \
             * by j_add */ \
            G##_ref_add(&t, &pq, &r);                                                                    \
            G##_ref_add(&u, &q, &r);                                                                     \
            G##_ref_add(&v, &p, &u);                                                                     \
            CHECK_MSG(G##_ref_eq(&t, &v), NAME ": reference associativity");                             \
            {                                                                                            \
                G##j pj = G##_rj(&p), qj = G##_rj(&q), rj = G##_rj(&r), a, b;                            \
                G##_j_add(&a, &pj, &qj);                                                                 \
                G##_j_add(&a, &a, &rj);                                                                  \
                G##_j_add(&b, &qj, &rj);                                                                 \
                G##_j_add(&b, &pj, &b);                                                                  \
                CHECK_MSG(G##_j_is(&a, &t) && G##_j_is(&b, &t), NAME ": j_add associativity");           \
                G##_j_add_var(&a, &pj, &qj);                                                             \
                G##_j_add_var(&a, &a, &rj);                                                              \
                G##_j_add_var(&b, &qj, &rj);                                                             \
                G##_j_add_var(&b, &pj, &b);                                                              \
                CHECK_MSG(G##_j_is(&a, &t) && G##_j_is(&b, &t), NAME ": j_add_var associativity");       \
            }                                                                                            \
            /* scalar multiplication of a random point by a random scalar,                             \
             * by 0, 1, 2, order - 1 and order */ \
            rand_scalar(k, FR##_modulus.v);                                                              \
            G##_check_mul(&p, k, "k·P");                                                                 \
            uint64_t edge[5][4] = {{0}, {1}, {2}, {0}, {0}};                                             \
            memcpy(edge[3], FR##_modulus.v, 32);                                                         \
            edge[3][0] -= 1;                                                                             \
            memcpy(edge[4], FR##_modulus.v, 32);                                                         \
            for (int e = 0; e < 5; e++) G##_check_mul(&p, edge[e], "0, 1, 2, order - 1, order times P"); \
            G##_check_mul(&o, k, "k·O");                                                                 \
        }                                                                                                \
    }

GROUP_TEST(zp_bn254_g1, zp_bn254_fp, zp_bn254_fr, "bn254 G1")
GROUP_TEST(zp_bn254_g2, zp_bn254_fp2, zp_bn254_fr, "bn254 G2")
GROUP_TEST(zp_bls12_g1, zp_bls12_fp, zp_bls12_fr, "bls12-381 G1")
GROUP_TEST(zp_bls12_g2, zp_bls12_fp2, zp_bls12_fr, "bls12-381 G2")

/* The vectors' plain decimal coordinates into Montgomery form. */
#define LOAD_G1(G, F)                                                \
    static void G##_from_dec(G *p, const char *const *v) {           \
        CHECK(zp_bigint_from_dec(p->x.v, sizeof p->x.v / 8, v[0]) && \
              zp_bigint_from_dec(p->y.v, sizeof p->y.v / 8, v[1]));  \
        F##_to_mont(&p->x, &p->x);                                   \
        F##_to_mont(&p->y, &p->y);                                   \
    }
#define LOAD_G2(G, F)                                                     \
    static void G##_from_dec(G *p, const char *const *v) {                \
        F *c[4] = {&p->x.c0, &p->x.c1, &p->y.c0, &p->y.c1};               \
        for (int i = 0; i < 4; i++) {                                     \
            CHECK(zp_bigint_from_dec(c[i]->v, sizeof c[i]->v / 8, v[i])); \
            F##_to_mont(c[i], c[i]);                                      \
        }                                                                 \
    }
LOAD_G1(zp_bls12_g1, zp_bls12_fp)
LOAD_G2(zp_bn254_g2, zp_bn254_fp)
LOAD_G2(zp_bls12_g2, zp_bls12_fp)

#define SUBGROUP_TEST(G, FR, NAME)                                                                           \
    static void subgroup_in_##G(size_t iters) {                                                              \
        G p;                                                                                                 \
        uint64_t k[4];                                                                                       \
        memset(&p, 0, sizeof p);                                                                             \
        CHECK_MSG(G##_is_in_subgroup_var(&p) && G##_is_in_subgroup_ref_var(&p), NAME ": O is in the group"); \
        CHECK_MSG(G##_is_in_subgroup_var(&G##_generator), NAME ": the generator is in the group");           \
        for (size_t i = 0; i < 8 * iters; i++) {                                                             \
            rand_scalar(k, FR##_modulus.v);                                                                  \
            G##_ref_mul(&p, &G##_generator, k, 4);                                                           \
            CHECK_MSG(G##_is_in_subgroup_var(&p) && G##_is_in_subgroup_ref_var(&p),                          \
                      NAME ": a random point of the group passes");                                          \
        }                                                                                                    \
    }
#define SUBGROUP_OUT_TEST(G, FR, NAME, VEC, ALONE)                                                                     \
    static void subgroup_out_##G(size_t iters) {                                                                       \
        G p, t, u;                                                                                                     \
        uint64_t k[4];                                                                                                 \
        const size_t nvec = sizeof VEC / sizeof VEC[0];                                                                \
        for (size_t v = 0; v < nvec + sizeof ALONE / sizeof ALONE[0]; v++) {                                           \
            G##_from_dec(&p, v < nvec ? VEC[v] : ALONE[v - nvec]);                                                     \
            CHECK_MSG(G##_ref_on_curve(&p) && G##_is_on_curve_var(&p), NAME ": outside point %zu is on the curve", v); \
            CHECK_MSG(!G##_is_in_subgroup_ref_var(&p), NAME ": outside point %zu: r·P != O", v);                       \
            CHECK_MSG(!G##_is_in_subgroup_var(&p), NAME ": outside point %zu is rejected", v);                         \
            G##_ref_neg(&u, &p);                                                                                       \
            CHECK_MSG(!G##_is_in_subgroup_var(&u), NAME ": -(outside point %zu) is rejected", v);                      \
            for (size_t i = 0; i < iters; i++) {                                                                       \
                rand_scalar(k, FR##_modulus.v);                                                                        \
                G##_ref_mul(&t, &G##_generator, k, 4);                                                                 \
                G##_ref_add(&u, &p, &t);                                                                               \
                CHECK_MSG(!G##_is_in_subgroup_var(&u),                                                                 \
                          NAME ": outside point %zu plus a random point of the group is rejected", v);                 \
            }                                                                                                          \
        }                                                                                                              \
    }
SUBGROUP_TEST(zp_bn254_g1, zp_bn254_fr, "bn254 G1")
SUBGROUP_TEST(zp_bn254_g2, zp_bn254_fr, "bn254 G2")
SUBGROUP_TEST(zp_bls12_g1, zp_bls12_fr, "bls12-381 G1")
SUBGROUP_TEST(zp_bls12_g2, zp_bls12_fr, "bls12-381 G2")
SUBGROUP_OUT_TEST(zp_bn254_g2, zp_bn254_fr, "bn254 G2", bn254_g2_outside, bn254_g2_alone)
SUBGROUP_OUT_TEST(zp_bls12_g1, zp_bls12_fr, "bls12-381 G1", bls12_g1_outside, bls12_g1_alone)
SUBGROUP_OUT_TEST(zp_bls12_g2, zp_bls12_fr, "bls12-381 G2", bls12_g2_outside, bls12_g2_alone)

int main(void) {
    zp_test_init("test_group");
    size_t iters = zp_test_iters(6);
    test_zp_bn254_g1(iters);
    test_zp_bn254_g2(iters);
    test_zp_bls12_g1(iters);
    test_zp_bls12_g2(iters);
    subgroup_in_zp_bn254_g1(iters);
    subgroup_in_zp_bn254_g2(iters);
    subgroup_in_zp_bls12_g1(iters);
    subgroup_in_zp_bls12_g2(iters);
    subgroup_out_zp_bn254_g2(iters);
    subgroup_out_zp_bls12_g1(iters);
    subgroup_out_zp_bls12_g2(iters);
    return zp_test_done();
}
