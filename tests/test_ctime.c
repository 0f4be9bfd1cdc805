/* The constant-time check of the code that touches the prover's secrets,
 * as libsecp256k1's ctime_tests: the blinding factors r and s (as
 * zp_groth16_random_scalar draws them) are marked undefined with
 * valgrind's client requests, the r/s-dependent code runs on them, and the
 * public results are marked defined again (declassified) before anything
 * compares or prints them. Run under `valgrind --error-exitcode=1
 * --track-origins=yes` (ctest: ctime_valgrind), memcheck reports every
 * branch and every memory address that depends on a secret. Without
 * valgrind the requests do nothing, and this is an ordinary unit test: the
 * results equal those of the variable-time code.
 *
 * What runs on secrets: the scalar multiplication (j_mul) of each group,
 * with a secret scalar and a secret point; the complete addition (j_add)
 * of secret points, with the special cases P + P, P + (-P) and P + O; the
 * conversion to affine; and the prover's r/s part on a small circuit for
 * both curves (prove_start_with, whose MSMs run before r and s are used,
 * and prove_finish). The witness is not marked: the MSMs are variable time
 * in it, as in every fast prover. */
#include <stdlib.h>
#include <string.h>

#include "base/bigint.h"
#include "ceremony/ct_lanes.h"
#include "ceremony/ct_split.h"
#include "ceremony/internal.h"
#include "chain_circuit.h"
#include "curve/curve.h"
#include "curve/desc.h"
#include "curve/subgroup.h"
#include "field/ifma.h"
#include "groth16/groth16.h"
#include "groth16/setup.h"
#include "subgroup_vectors.h"
#include "testutil.h"

#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define ZP_HAVE_MEMCHECK 1
#endif
#endif
#ifndef ZP_HAVE_MEMCHECK
#define VALGRIND_MAKE_MEM_UNDEFINED(p, n) ((void)(p), (void)(n))
#define VALGRIND_MAKE_MEM_DEFINED(p, n) ((void)(p), (void)(n))
#define RUNNING_ON_VALGRIND 0
#endif

#define SECRET(p, n) VALGRIND_MAKE_MEM_UNDEFINED((p), (n))
#define DECLASSIFY(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))

/* A random scalar below the group order, as the prover draws it. */
static void secret_scalar(uint64_t k[4], zp_curve curve) {
    zp_error err;
    CHECK(zp_groth16_random_scalar(k, curve, &err) == ZP_OK);
}

/* Per group G (scalar field order from `curve`): secret k and l, secret
 * points P = k·G and Q = l·P; P + Q, P + P, P + (-P), P + O and O + P by
 * the complete addition; all compared, once public, with the
 * variable-time code. */
#define CT_GROUP(G, CURVE)                                                                    \
    static void ct_##G(void) {                                                                \
        uint64_t k[4], l[4];                                                                  \
        secret_scalar(k, CURVE);                                                              \
        secret_scalar(l, CURVE);                                                              \
        uint64_t k_pub[4], l_pub[4];                                                          \
        memcpy(k_pub, k, sizeof k);                                                           \
        memcpy(l_pub, l, sizeof l);                                                           \
        SECRET(k, sizeof k);                                                                  \
        SECRET(l, sizeof l);                                                                  \
        G##j g, p, q, sum, two, zero, inf, np;                                                \
        G##_j_from_affine(&g, &G##_generator);                                                \
        G##_j_mul(&p, &g, k, 4); /* secret scalar, public point */                            \
        G##_j_mul(&q, &p, l, 4); /* secret scalar, secret point */                            \
        G##_j_add(&sum, &p, &q);                                                              \
        G##_j_add(&two, &p, &p);                                                              \
        G##_j_neg(&np, &p);                                                                   \
        G##_j_add(&zero, &p, &np);                                                            \
        G##_j_set_inf(&inf);                                                                  \
        G##j pinf, infp;                                                                      \
        G##_j_add(&pinf, &p, &inf);                                                           \
        G##_j_add(&infp, &inf, &p);                                                           \
        G affine[6];                                                                          \
        G##_j_to_affine(&affine[0], &p);                                                      \
        G##_j_to_affine(&affine[1], &q);                                                      \
        G##_j_to_affine(&affine[2], &sum);                                                    \
        G##_j_to_affine(&affine[3], &two);                                                    \
        G##_j_to_affine(&affine[4], &zero);                                                   \
        G##_j_to_affine(&affine[5], &pinf);                                                   \
        DECLASSIFY(affine, sizeof affine);                                                    \
        DECLASSIFY(&infp, sizeof infp);                                                       \
        /* the same with the variable-time code on public copies */                           \
        G##j vp, vq, vsum, vtwo;                                                              \
        G##_j_mul_var(&vp, &g, k_pub, 4);                                                     \
        G##_j_mul_var(&vq, &vp, l_pub, 4);                                                    \
        G##_j_add_var(&vsum, &vp, &vq);                                                       \
        G##_j_dbl(&vtwo, &vp);                                                                \
        G want[4];                                                                            \
        G##_j_to_affine(&want[0], &vp);                                                       \
        G##_j_to_affine(&want[1], &vq);                                                       \
        G##_j_to_affine(&want[2], &vsum);                                                     \
        G##_j_to_affine(&want[3], &vtwo);                                                     \
        CHECK_MSG(memcmp(&affine[0], &want[0], sizeof want) == 0, #G ": k·G, l·P, P+Q, P+P"); \
        CHECK_MSG(G##_is_inf(&affine[4]), #G ": P + (-P) is infinity");                       \
        CHECK_MSG(memcmp(&affine[5], &affine[0], sizeof(G)) == 0, #G ": P + O = P");          \
        G infp_a;                                                                             \
        G##_j_to_affine(&infp_a, &infp);                                                      \
        CHECK_MSG(memcmp(&infp_a, &affine[0], sizeof(G)) == 0, #G ": O + P = P");             \
    }
CT_GROUP(zp_bn254_g1, ZP_CURVE_BN254)
CT_GROUP(zp_bn254_g2, ZP_CURVE_BN254)
CT_GROUP(zp_bls12_g1, ZP_CURVE_BLS12_381)
CT_GROUP(zp_bls12_g2, ZP_CURVE_BLS12_381)

/* synthesis, then prove_start_with and prove_finish for the given r, s */
static void prove_with(zp_groth16_proof *proof, const zp_groth16_pk *pk, const void *mat, const uint64_t *w,
                       const uint64_t r[4], const uint64_t s[4]) {
    zp_error err;
    zp_groth16_pending pend;
    void *abc = malloc(zp_groth16_abc_size(pk));
    void *msm = malloc(zp_groth16_msm_scratch_size(pk, 1));
    zp_groth16_synthesize(abc, pk, mat, w, NULL);
    CHECK(zp_groth16_prove_start_with(&pend, pk, w, r, s, abc, msm, NULL, &err) == ZP_OK);
    zp_groth16_prove_finish(proof, &pend, pk, w, msm, NULL);
    free(msm);
    free(abc);
}

static void ct_prover(zp_curve curve) {
    chain_circuit c;
    zp_error err;
    chain_build(&c, curve, 6, 1);
    zp_groth16_setup_key key;
    CHECK(zp_groth16_setup(&key, &c.cs, NULL, &err) == ZP_OK);
    const zp_groth16_pk *pk = &key.pk;
    uint64_t *w = malloc(c.cs.n_wires * 32);
    chain_witness(w, &c, zp_test_rand64());
    size_t mat_bytes = zp_groth16_matrices_size(pk);
    void *mat = aligned_alloc(64, (mat_bytes + 63) & ~(size_t)63);
    CHECK(zp_groth16_matrices_build(mat, mat_bytes, pk, NULL, &err) == ZP_OK);

    uint64_t r[4], s[4], r_pub[4], s_pub[4];
    secret_scalar(r, curve);
    secret_scalar(s, curve);
    memcpy(r_pub, r, sizeof r);
    memcpy(s_pub, s, sizeof s);
    SECRET(r, sizeof r);
    SECRET(s, sizeof s);
    zp_groth16_proof secret_proof, public_proof;
    prove_with(&secret_proof, pk, mat, w, r, s);
    DECLASSIFY(&secret_proof, sizeof secret_proof); /* the proof is public */
    prove_with(&public_proof, pk, mat, w, r_pub, s_pub);
    CHECK_MSG(memcmp(&secret_proof, &public_proof, sizeof secret_proof) == 0,
              "%s: the proof with secret r, s is the proof for those r, s", zp_curve_name(curve));
    CHECK_MSG(zp_groth16_verify_with_pk(pk, w, &secret_proof, NULL) == 1, "%s: the proof verifies",
              zp_curve_name(curve));
    free(mat);
    free(w);
    zp_groth16_setup_free(&key);
    chain_free(&c);
}

/* The contribution's secret path on one curve: results equal the
 * variable-time code's on public copies. */
#define CT_CONTRIB(g, CURVE)                                                                                \
    static void ct_contrib_##g(void) {                                                                      \
        const zp_p2_ops *ops = zp_p2_ops_get(CURVE);                                                        \
        uint64_t k[4], k_pub[4], kinv[4];                                                                   \
        secret_scalar(k, CURVE); /* any value below r is some scalar's Montgomery form */                   \
        memcpy(k_pub, k, sizeof k);                                                                         \
        SECRET(k, sizeof k);                                                                                \
        g##_g1 p1, pts[3], pts_pub[3];                                                                      \
        g##_g2 p2;                                                                                          \
        ops->g1_mul_ct((uint8_t *)&p1, ops->g1_gen, k);                                                     \
        ops->g2_mul_ct((uint8_t *)&p2, ops->g2_gen, k);                                                     \
        ops->fr_inv_ct(kinv, k);                                                                            \
        pts[0] = g##_g1_generator, pts[1] = p1, pts[2] = g##_g1_generator;                                  \
        DECLASSIFY(&p1, sizeof p1);                                                                         \
        pts[1] = p1;                                                                                        \
        memcpy(pts_pub, pts, sizeof pts);                                                                   \
        g##_g1 chk[3];                                                                                      \
        memcpy(chk, pts, sizeof pts);                                                                       \
        /* the product that tests the subgroup on the way, where the curve has it */                        \
        size_t outside = 3;                                                                                 \
        __typeof__(ops->g1_apply_key_checked) checked = ops->g1_apply_key_checked;                          \
        if (checked != NULL) outside = checked((uint8_t *)chk, 3, kinv, 0, NULL);                           \
        ops->g1_apply_key((uint8_t *)pts, 3, kinv, NULL);                                                   \
        DECLASSIFY(&p2, sizeof p2);                                                                         \
        DECLASSIFY(pts, sizeof pts);                                                                        \
        if (checked != NULL) {                                                                              \
            DECLASSIFY(chk, sizeof chk);                                                                    \
            CHECK_MSG(outside == 3 && memcmp(chk, pts, sizeof pts) == 0, #g ": apply_key_checked");         \
        }                                                                                                   \
        g##_fr kp;                                                                                          \
        memcpy(kp.v, k_pub, 32);                                                                            \
        g##_fr_from_mont(&kp, &kp);                                                                         \
        g##_g1j j1, gj1;                                                                                    \
        g##_g2j j2, gj2;                                                                                    \
        g##_g1 w1, w3;                                                                                      \
        g##_g2 w2;                                                                                          \
        g##_g1_j_from_affine(&gj1, &g##_g1_generator);                                                      \
        g##_g2_j_from_affine(&gj2, &g##_g2_generator);                                                      \
        g##_g1_j_mul_var(&j1, &gj1, kp.v, 4);                                                               \
        g##_g2_j_mul_var(&j2, &gj2, kp.v, 4);                                                               \
        g##_g1_j_to_affine(&w1, &j1);                                                                       \
        g##_g2_j_to_affine(&w2, &j2);                                                                       \
        CHECK_MSG(memcmp(&p1, &w1, sizeof w1) == 0, #g ": delta·G1");                                       \
        CHECK_MSG(memcmp(&p2, &w2, sizeof w2) == 0, #g ": delta·G2");                                       \
        /* (1/delta)·(delta·G) = G, and (1/delta)·G by the variable-time code */                         \
        CHECK_MSG(memcmp(&pts[1], &g##_g1_generator, sizeof w1) == 0, #g ": L and H points times 1/delta"); \
        g##_fr ki;                                                                                          \
        memcpy(ki.v, k_pub, 32);                                                                            \
        g##_fr_inv_var(&ki, &ki);                                                                           \
        g##_fr_from_mont(&ki, &ki);                                                                         \
        g##_g1_j_mul_var(&j1, &gj1, ki.v, 4);                                                               \
        g##_g1_j_to_affine(&w3, &j1);                                                                       \
        CHECK_MSG(memcmp(&pts[0], &w3, sizeof w3) == 0 && memcmp(&pts[2], &w3, sizeof w3) == 0,             \
                  #g ": G times 1/delta");                                                                  \
    }
CT_CONTRIB(zp_bn254, ZP_CURVE_BN254)
CT_CONTRIB(zp_bls12, ZP_CURVE_BLS12_381)

/* Phase 1's powers (powersoftau contribute): point i of a section times
 * first·tau^(start + i), first and tau secret; the results equal the
 * variable-time code's on public copies. */
#define CT_POWERS(g, CURVE)                                                                                  \
    static void ct_powers_##g(void) {                                                                        \
        const zp_p2_ops *ops = zp_p2_ops_get(CURVE);                                                         \
        uint64_t tau[4], first[4], tau_pub[4], first_pub[4];                                                 \
        secret_scalar(tau, CURVE);                                                                           \
        secret_scalar(first, CURVE);                                                                         \
        memcpy(tau_pub, tau, sizeof tau);                                                                    \
        memcpy(first_pub, first, sizeof first);                                                              \
        SECRET(tau, sizeof tau);                                                                             \
        SECRET(first, sizeof first);                                                                         \
        g##_g1 p1[3];                                                                                        \
        g##_g2 p2[3];                                                                                        \
        for (int i = 0; i < 3; i++) p1[i] = g##_g1_generator, p2[i] = g##_g2_generator;                      \
        ops->g1_apply_powers((uint8_t *)p1, 3, 5, first, tau, NULL);                                         \
        ops->g2_apply_powers((uint8_t *)p2, 3, 5, NULL, tau, NULL);                                          \
        DECLASSIFY(p1, sizeof p1);                                                                           \
        DECLASSIFY(p2, sizeof p2);                                                                           \
        for (int i = 0; i < 3; i++) {                                                                        \
            g##_fr t, f, e1, e2;                                                                             \
            uint64_t ex = (uint64_t)(5 + i);                                                                 \
            memcpy(t.v, tau_pub, 32);                                                                        \
            memcpy(f.v, first_pub, 32);                                                                      \
            g##_fr_pow_var(&e2, &t, &ex, 1);                                                                 \
            g##_fr_mul(&e1, &e2, &f);                                                                        \
            g##_fr_from_mont(&e1, &e1);                                                                      \
            g##_fr_from_mont(&e2, &e2);                                                                      \
            g##_g1j j1;                                                                                      \
            g##_g2j j2;                                                                                      \
            g##_g1 w1;                                                                                       \
            g##_g2 w2;                                                                                       \
            g##_g1_j_from_affine(&j1, &g##_g1_generator);                                                    \
            g##_g2_j_from_affine(&j2, &g##_g2_generator);                                                    \
            g##_g1_j_mul_var(&j1, &j1, e1.v, 4);                                                             \
            g##_g2_j_mul_var(&j2, &j2, e2.v, 4);                                                             \
            g##_g1_j_to_affine(&w1, &j1);                                                                    \
            g##_g2_j_to_affine(&w2, &j2);                                                                    \
            CHECK_MSG(memcmp(&p1[i], &w1, sizeof w1) == 0, #g ": G1 point %d times first·tau^%d", i, 5 + i); \
            CHECK_MSG(memcmp(&p2[i], &w2, sizeof w2) == 0, #g ": G2 point %d times tau^%d", i, 5 + i);       \
        }                                                                                                    \
    }
CT_POWERS(zp_bn254, ZP_CURVE_BN254)
CT_POWERS(zp_bls12, ZP_CURVE_BLS12_381)

/* The split's edges, natively (under memcheck one scalar is enough):
 * k·G in G1 and G2 by the constant-time path against the variable-time
 * double-and-add for 0, 1, 2, r − 1, r − 2, the halves' boundaries
 * (2^127 ± 1, 2^128 ± 1, x² ± 1: a division's remainder and quotient at
 * their ends, BN254's lattice halves of either sign) and random k; and a
 * block of points times one k (apply_key) against the same. */
#define CT_EDGES(g, CURVE)                                                                           \
    static void ct_edges_##g(void) {                                                                 \
        const zp_p2_ops *ops = zp_p2_ops_get(CURVE);                                                 \
        const uint64_t *r = g##_fr_modulus.v;                                                        \
        uint64_t ks[40][4] = {{0},                                                                   \
                              {1},                                                                   \
                              {2},                                                                   \
                              {r[0] - 1, r[1], r[2], r[3]},                                          \
                              {r[0] - 2, r[1], r[2], r[3]},                                          \
                              {~0ULL, ~0ULL >> 1},                                                   \
                              {0, 1ULL << 63},                                                       \
                              {1, 1ULL << 63},                                                       \
                              {~0ULL, ~0ULL},                                                        \
                              {0, 0, 1},                                                             \
                              {1, 0, 1},                                                             \
                              {0x0000000100000000ULL, 0xac45a4010001a402ULL},                        \
                              {0x00000000ffffffffULL, 0xac45a4010001a402ULL},                        \
                              {0x0000000100000001ULL, 0xac45a4010001a402ULL},                        \
                              {0, 0x0000000100000000ULL, 0xac45a4010001a402ULL}};                    \
        int nk = 15;                                                                                 \
        for (; nk < 40; nk++) secret_scalar(ks[nk], CURVE);                                          \
        g##_g1 pts[40], want1;                                                                       \
        g##_g2 got2, want2;                                                                          \
        for (int i = 0; i < nk; i++) {                                                               \
            g##_fr km;                                                                               \
            memcpy(km.v, ks[i], 32);                                                                 \
            g##_fr_to_mont(&km, &km);                                                                \
            g##_g1 got1;                                                                             \
            ops->g1_mul_ct((uint8_t *)&got1, ops->g1_gen, km.v);                                     \
            ops->g2_mul_ct((uint8_t *)&got2, ops->g2_gen, km.v);                                     \
            g##_g1j j1, gj1;                                                                         \
            g##_g2j j2, gj2;                                                                         \
            g##_g1_j_from_affine(&gj1, &g##_g1_generator);                                           \
            g##_g2_j_from_affine(&gj2, &g##_g2_generator);                                           \
            g##_g1_j_mul_var(&j1, &gj1, ks[i], 4);                                                   \
            g##_g2_j_mul_var(&j2, &gj2, ks[i], 4);                                                   \
            g##_g1_j_to_affine(&want1, &j1);                                                         \
            g##_g2_j_to_affine(&want2, &j2);                                                         \
            CHECK_MSG(memcmp(&got1, &want1, sizeof want1) == 0, #g ": G1 times edge scalar %d", i);  \
            CHECK_MSG(memcmp(&got2, &want2, sizeof want2) == 0, #g ": G2 times edge scalar %d", i);  \
            pts[i] = got1;                                                                           \
        }                                                                                            \
        /* every point of the list (infinity among them, for k = 0) times one k */                   \
        g##_fr km;                                                                                   \
        memcpy(km.v, ks[nk - 1], 32);                                                                \
        g##_g1 moved[40];                                                                            \
        memcpy(moved, pts, sizeof pts);                                                              \
        g##_fr_to_mont(&km, &km);                                                                    \
        ops->g1_apply_key((uint8_t *)moved, (size_t)nk, km.v, NULL);                                 \
        for (int i = 0; i < nk; i++) {                                                               \
            g##_g1j j1;                                                                              \
            g##_g1_j_from_affine(&j1, &pts[i]);                                                      \
            g##_g1_j_mul_var(&j1, &j1, ks[nk - 1], 4);                                               \
            g##_g1_j_to_affine(&want1, &j1);                                                         \
            CHECK_MSG(memcmp(&moved[i], &want1, sizeof want1) == 0, #g ": point %d times one k", i); \
        }                                                                                            \
    }
CT_EDGES(zp_bn254, ZP_CURVE_BN254)
CT_EDGES(zp_bls12, ZP_CURVE_BLS12_381)

/* The eight-lane path (ceremony/ct_lanes.h) against the scalar path,
 * natively (valgrind cannot run AVX-512, so ctime_valgrind sees the
 * scalar path only): one k times blocks of every length around the lanes'
 * eight (tails of spare lanes), with infinity among the points, for edge
 * and random k; and phase 1's powers, where each lane has its own scalar. */
#define CT_LANES(g, CURVE)                                                                                     \
    static void ct_lanes_##g(void) {                                                                           \
        if (!zp_ifma_available()) {                                                                            \
            printf("test_ctime: no AVX-512 IFMA on this CPU: the lanes' check skipped\n");                     \
            return;                                                                                            \
        }                                                                                                      \
        const zp_p2_ops *ops = zp_p2_ops_get(CURVE);                                                           \
        const zp_parallel off = {NULL, NULL, 1, ZP_SIMD_OFF}, lanes = {NULL, NULL, 1, ZP_SIMD_IFMA};           \
        const uint64_t *r = g##_fr_modulus.v;                                                                  \
        enum { N = 41 };                                                                                       \
        g##_g1 pts[N], a[N], b[N];                                                                             \
        for (int i = 0; i < N; i++) {                                                                          \
            uint64_t k[4];                                                                                     \
            secret_scalar(k, CURVE);                                                                           \
            ops->g1_mul_ct((uint8_t *)&pts[i], ops->g1_gen, k);                                                \
        }                                                                                                      \
        memset(&pts[3], 0, sizeof pts[3]); /* infinity */                                                      \
        memset(&pts[N - 1], 0, sizeof pts[N - 1]);                                                             \
        uint64_t ks[8][4] = {{0}, {1}, {2}, {r[0] - 1, r[1], r[2], r[3]}, {0, 1ULL << 63}, {~0ULL, ~0ULL}};    \
        for (int j = 6; j < 8; j++) secret_scalar(ks[j], CURVE);                                               \
        const size_t lens[] = {1, 2, 7, 8, 9, 15, 16, 17, 33, N};                                              \
        for (int j = 0; j < 8; j++) {                                                                          \
            g##_fr km;                                                                                         \
            memcpy(km.v, ks[j], 32);                                                                           \
            if (j < 6) g##_fr_to_mont(&km, &km);                                                               \
            for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {                                       \
                size_t n = lens[li];                                                                           \
                memcpy(a, pts, sizeof pts), memcpy(b, pts, sizeof pts);                                        \
                ops->g1_apply_key((uint8_t *)a, n, km.v, &off);                                                \
                ops->g1_apply_key((uint8_t *)b, n, km.v, &lanes);                                              \
                CHECK_MSG(memcmp(a, b, sizeof a) == 0, #g ": lanes: %zu points times k #%d", n, j);            \
            }                                                                                                  \
        }                                                                                                      \
        uint64_t tau[4], first[4];                                                                             \
        secret_scalar(tau, CURVE);                                                                             \
        secret_scalar(first, CURVE);                                                                           \
        for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {                                           \
            size_t n = lens[li];                                                                               \
            memcpy(a, pts, sizeof pts), memcpy(b, pts, sizeof pts);                                            \
            ops->g1_apply_powers((uint8_t *)a, n, 3, first, tau, &off);                                        \
            ops->g1_apply_powers((uint8_t *)b, n, 3, first, tau, &lanes);                                      \
            CHECK_MSG(memcmp(a, b, sizeof a) == 0, #g ": lanes: %zu points times first·tau^(3 + i)", n);       \
        }                                                                                                      \
        g##_g2 q[N], qa[N], qb[N];                                                                             \
        for (int i = 0; i < N; i++) {                                                                          \
            uint64_t k[4];                                                                                     \
            secret_scalar(k, CURVE);                                                                           \
            ops->g2_mul_ct((uint8_t *)&q[i], ops->g2_gen, k);                                                  \
        }                                                                                                      \
        memset(&q[5], 0, sizeof q[5]); /* infinity */                                                          \
        for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {                                           \
            size_t n = lens[li];                                                                               \
            memcpy(qa, q, sizeof q), memcpy(qb, q, sizeof q);                                                  \
            ops->g2_apply_powers((uint8_t *)qa, n, 3, first, tau, &off);                                       \
            ops->g2_apply_powers((uint8_t *)qb, n, 3, first, tau, &lanes);                                     \
            CHECK_MSG(memcmp(qa, qb, sizeof qa) == 0, #g ": lanes: %zu G2 points times first·tau^(3 + i)", n); \
            memcpy(qa, q, sizeof q), memcpy(qb, q, sizeof q);                                                  \
            ops->g2_apply_powers((uint8_t *)qa, n, 0, NULL, ks[1 + li % 5], &off);                             \
            ops->g2_apply_powers((uint8_t *)qb, n, 0, NULL, ks[1 + li % 5], &lanes);                           \
            CHECK_MSG(memcmp(qa, qb, sizeof qa) == 0, #g ": lanes: %zu G2 points times k^i", n);               \
        }                                                                                                      \
    }
CT_LANES(zp_bn254, ZP_CURVE_BN254)
CT_LANES(zp_bls12, ZP_CURVE_BLS12_381)

/* zkey new's sums (ops.compose: public coefficients, the lanes' sum_pub
 * in batches sorted by length) against the scalar path, G1 and G2:
 * coefficients of every length class around its bounds (10, 36, 68, 128
 * bits), negated ones (r - k), 0, 1 (NULL) and random ones, 1 to 9 terms
 * a signal and one of 37 (the lanes sum up to ZP_CT_LANES_TERMS of a
 * signal's terms at once and spill into more lanes and batches), bases
 * repeated and infinity among them. */
#define COMPOSE_LANES(g, CURVE)                                                                              \
    static void compose_lanes_##g(void) {                                                                    \
        if (!zp_ifma_available()) return;                                                                    \
        const zp_p2_ops *ops = zp_p2_ops_get(CURVE);                                                         \
        const zp_parallel off = {NULL, NULL, 1, ZP_SIMD_OFF}, lanes = {NULL, NULL, 1, ZP_SIMD_IFMA};         \
        const uint64_t *r = g##_fr_modulus.v;                                                                \
        enum { NB = 13, NS = 70, NC = 48, NT = NS * 9 + 37 };                                                \
        static g##_g1 p1[NB], o1a[NS], o1b[NS];                                                              \
        static g##_g2 p2[NB], o2a[NS], o2b[NS];                                                              \
        for (int i = 0; i < NB; i++) {                                                                       \
            uint64_t k[4];                                                                                   \
            secret_scalar(k, CURVE);                                                                         \
            ops->g1_mul_ct((uint8_t *)&p1[i], ops->g1_gen, k);                                               \
            ops->g2_mul_ct((uint8_t *)&p2[i], ops->g2_gen, k);                                               \
        }                                                                                                    \
        memset(&p1[4], 0, sizeof p1[4]), memset(&p2[7], 0, sizeof p2[7]); /* infinity */                     \
        static uint64_t coefs[NC][4];                                                                        \
        static const int bits[] = {0, 1, 8, 9, 10, 11, 23, 24, 35, 36, 63, 67, 68, 100, 127, 128, 200, 252}; \
        int nc = 0;                                                                                          \
        for (size_t i = 0; i < sizeof bits / sizeof *bits; i++, nc += 2) {                                   \
            memset(coefs[nc], 0, 32);                                                                        \
            coefs[nc][bits[i] / 64] = 1ULL << (bits[i] % 64);                                                \
            coefs[nc][0] |= i & 1;   /* 2^k + 1 too */                                                       \
            unsigned __int128 b = 0; /* r - that */                                                          \
            for (int w = 0; w < 4; w++) {                                                                    \
                unsigned __int128 d = (unsigned __int128)r[w] - coefs[nc][w] - (uint64_t)b;                  \
                coefs[nc + 1][w] = (uint64_t)d;                                                              \
                b = (d >> 64) & 1;                                                                           \
            }                                                                                                \
        }                                                                                                    \
        memset(coefs[nc++], 0, 32);                                                                          \
        while (nc < NC) secret_scalar(coefs[nc++], CURVE);                                                   \
        static zp_p2_term t1[NT], t2[NT];                                                                    \
        uint64_t row_start[NS + 1];                                                                          \
        size_t nt = 0;                                                                                       \
        for (int sgn = 0; sgn < NS; sgn++) {                                                                 \
            row_start[sgn] = nt;                                                                             \
            int terms = sgn == 5 ? 37 : 1 + (int)(zp_test_rand64() % 9);                                     \
            for (int e = 0; e < terms; e++, nt++) {                                                          \
                size_t bi = zp_test_rand64() % NB, ci = zp_test_rand64() % (NC + 1);                         \
                const uint64_t *coef = ci == NC ? NULL : coefs[ci];                                          \
                t1[nt] = (zp_p2_term){(const uint8_t *)&p1[bi], coef};                                       \
                t2[nt] = (zp_p2_term){(const uint8_t *)&p2[bi], coef};                                       \
            }                                                                                                \
        }                                                                                                    \
        row_start[NS] = nt;                                                                                  \
        ops->compose((uint8_t *)o1a, NS, row_start, t1, 0, &off);                                            \
        ops->compose((uint8_t *)o1b, NS, row_start, t1, 0, &lanes);                                          \
        CHECK_MSG(memcmp(o1a, o1b, sizeof o1a) == 0, #g ": zkey new's G1 sums, lanes against scalar");       \
        ops->compose((uint8_t *)o2a, NS, row_start, t2, 1, &off);                                            \
        ops->compose((uint8_t *)o2b, NS, row_start, t2, 1, &lanes);                                          \
        CHECK_MSG(memcmp(o2a, o2b, sizeof o2a) == 0, #g ": zkey new's G2 sums, lanes against scalar");       \
    }
COMPOSE_LANES(zp_bn254, ZP_CURVE_BN254)
COMPOSE_LANES(zp_bls12, ZP_CURVE_BLS12_381)

/* The lanes' subgroup checks (ops.lanes_first_outside) against the
 * scalar ones (curve/subgroup.h) on points of the group, infinity and
 * the points outside it of subgroup_vectors.h (a component of each prime
 * of the cofactor, that component alone, or random), each alone among
 * points of the group at every lane position, and negated; and the
 * kernel itself, the vector in four lanes: never passed, the lanes it
 * cannot tell (Jacobian additions' exceptional cases) left to the
 * caller, which the order-3 point must reach. */
static void lanes_from_dec(uint64_t *coords, size_t words, const char *const *v, size_t nv, zp_curve curve) {
    for (size_t i = 0; i < nv; i++) {
        CHECK(zp_bigint_from_dec(coords + i * words, words, v[i]));
        if (curve == ZP_CURVE_BN254)
            zp_bn254_fp_to_mont((zp_bn254_fp *)(coords + i * words), (zp_bn254_fp *)(coords + i * words));
        else zp_bls12_fp_to_mont((zp_bls12_fp *)(coords + i * words), (zp_bls12_fp *)(coords + i * words));
    }
}
#define CT_LANES_CHECK(G, CURVE, G2, NAME, VEC, ALONE, NV, UNSURE)                                            \
    static void lanes_check_##G(void) {                                                                       \
        const zp_p2_ops *ops = zp_p2_ops_get(CURVE);                                                          \
        const zp_parallel lanes = {NULL, NULL, 1, ZP_SIMD_IFMA};                                              \
        zp_ct_lanes_curve c;                                                                                  \
        if (!zp_ifma_available()) return;                                                                     \
        CHECK_MSG(ops->lanes_check_init(&c, G2, &lanes), NAME ": the lanes check it");                        \
        enum { N = 19 };                                                                                      \
        G pts[N], out, neg;                                                                                   \
        for (int i = 0; i < N; i++) {                                                                         \
            uint64_t k[4];                                                                                    \
            secret_scalar(k, CURVE);                                                                          \
            if (G2) ops->g2_mul_ct((uint8_t *)&pts[i], ops->g2_gen, k);                                       \
            else ops->g1_mul_ct((uint8_t *)&pts[i], ops->g1_gen, k);                                          \
        }                                                                                                     \
        memset(&pts[4], 0, sizeof pts[4]); /* infinity */                                                     \
        CHECK_MSG(ops->lanes_first_outside((const uint8_t *)pts, N, G2, &c) == N, NAME ": the group passes"); \
        unsigned unsure_seen = 0;                                                                             \
        const size_t nvec = sizeof VEC / sizeof VEC[0];                                                       \
        for (size_t v = 0; v < nvec + sizeof ALONE / sizeof ALONE[0]; v++) {                                  \
            lanes_from_dec((uint64_t *)&out, WORDS_##G, v < nvec ? VEC[v] : ALONE[v - nvec], NV, CURVE);      \
            CHECK_MSG(!G##_is_in_subgroup_var(&out), NAME ": vector %zu is outside", v);                      \
            const uint64_t *in[8];                                                                            \
            for (int l = 0; l < 8; l++) in[l] = (const uint64_t *)(l & 1 ? (const void *)&pts[l] : &out);     \
            unsigned unsure, ok = c.kern->in_subgroup(in, &c, &unsure);                                       \
            CHECK_MSG((ok & 0x55) == 0 && (ok & 0xaa) == 0xaa && (unsure & 0xaa) == 0,                        \
                      NAME ": vector %zu in the even lanes: ok %02x unsure %02x", v, ok, unsure);             \
            unsure_seen |= unsure;                                                                            \
            neg = out;                                                                                        \
            G##_neg(&neg, &out);                                                                              \
            for (int at = 0; at < N; at++) {                                                                  \
                G t[N];                                                                                       \
                memcpy(t, pts, sizeof t);                                                                     \
                t[at] = (at & 1) ? neg : out;                                                                 \
                size_t got = ops->lanes_first_outside((const uint8_t *)t, N, G2, &c);                         \
                CHECK_MSG(got == (size_t)at, NAME ": outside point %zu at %d found at %zu", v, at, got);      \
            }                                                                                                 \
        }                                                                                                     \
        /* (0, 2), of order 3, meets its own multiples: the scalar path's */                                  \
        if (UNSURE) CHECK_MSG(unsure_seen != 0, NAME ": an exceptional case sent to the scalar path");        \
    }
#define WORDS_zp_bn254_g2 4
#define WORDS_zp_bls12_g1 6
#define WORDS_zp_bls12_g2 6
CT_LANES_CHECK(zp_bn254_g2, ZP_CURVE_BN254, 1, "bn254 G2", bn254_g2_outside, bn254_g2_alone, 4, 0)
CT_LANES_CHECK(zp_bls12_g1, ZP_CURVE_BLS12_381, 0, "bls12-381 G1", bls12_g1_outside, bls12_g1_alone, 2, 1)
CT_LANES_CHECK(zp_bls12_g2, ZP_CURVE_BLS12_381, 1, "bls12-381 G2", bls12_g2_outside, bls12_g2_alone, 4, 0)

/* zp_cer_check_points on BN254 G2, whose subgroup test goes in batches
 * (random combinations, curve/subgroup.h): sections of the group pass;
 * one point outside it (each vector of subgroup_vectors.h: a component
 * of each prime of the cofactor, 10069 the weakest, or random), negated
 * or not, at a position in the first batch, in a later one, or the last
 * point, is found and named, with and without the lanes. */
static void check_points_batched(void) {
    const zp_p2_ops *ops = zp_p2_ops_get(ZP_CURVE_BN254);
    const zp_curve_desc *d = zp_curve_get(ZP_CURVE_BN254);
    enum { N = 33000, SMALL = 5000, DISTINCT = 16 }; /* N: past the first batch (32768) */
    static zp_bn254_g2 pts[N];
    for (int i = 0; i < DISTINCT; i++) {
        uint64_t k[4];
        secret_scalar(k, ZP_CURVE_BN254);
        ops->g2_mul_ct((uint8_t *)&pts[i], ops->g2_gen, k);
    }
    memset(&pts[5], 0, sizeof pts[5]); /* infinity */
    for (int i = DISTINCT; i < N; i++) pts[i] = pts[i % DISTINCT];
    zp_binfile bf = {.name = (char *)"test.ptau"};
    const zp_parallel pars[2] = {{NULL, NULL, 1, ZP_SIMD_OFF}, {NULL, NULL, 1, ZP_SIMD_AUTO}};
    for (int pi = 0; pi < 2; pi++) {
        zp_ceremony_opts o = {.par = &pars[pi]};
        zp_error err = {0};
        CHECK_MSG(zp_cer_check_points(&bf, 15, "G2", d, (const uint8_t *)pts, SMALL, 1, ZP_CER_IN_SUBGROUP, &o, &err) ==
                      ZP_OK,
                  "batched check: the group passes (%s)", err.message);
        for (size_t v = 0; v < sizeof bn254_g2_outside / sizeof bn254_g2_outside[0]; v++) {
            zp_bn254_g2 out, keep;
            lanes_from_dec((uint64_t *)&out, 4, bn254_g2_outside[v], 4, ZP_CURVE_BN254);
            if (v & 1) zp_bn254_g2_neg(&out, &out);
            /* in a section of SMALL: anywhere (early without the lanes,
             * whose point-by-point search is slow), the last; of N (the
             * 10069 vector, with the lanes): in the second batch */
            size_t n[3] = {SMALL, SMALL, N}, at[3] = {(size_t)(zp_test_rand64() % (pi ? SMALL : 256)), SMALL - 1,
                                                      32768 + (size_t)(zp_test_rand64() % (N - 32768))};
            for (int a = 0; a < (pi == 0 ? 1 : v == 1 ? 3 : 2); a++) {
                keep = pts[at[a]];
                pts[at[a]] = out;
                char want[64];
                snprintf(want, sizeof want, "point #%zu ", at[a]);
                zp_status st =
                    zp_cer_check_points(&bf, 15, "G2", d, (const uint8_t *)pts, n[a], 1, ZP_CER_IN_SUBGROUP, &o, &err);
                CHECK_MSG(
                    st == ZP_ERR_FORMAT && strstr(err.message, want) != NULL && strstr(err.message, "subgroup") != NULL,
                    "batched check: vector %zu at %zu of %zu: status %d (%s)", v, at[a], n[a], (int)st, err.message);
                pts[at[a]] = keep;
            }
        }
    }
}

/* ct_split.h's divisions by BLS12-381's |x| against the long division:
 * k = a0 + a1·x + a2·x² + a3·x³ with every part below x, and the split
 * m + q·x² the same digits as zp_p2_split_div_ct's, for edge k (0, 1,
 * x − 1, x, x² − 1, x², x³, r − 1) and random ones; and the 2-by-1 step
 * at its bounds (u1 = d − 1, u0 = 2^64 − 1). */
static void ct_split_x(void) {
    const uint64_t x = ZP_BLS12_X_ABS, D[2] = {0x0000000100000000ULL, 0xac45a4010001a402ULL};
    const uint64_t *r = zp_bls12_fr_modulus.v;
    uint64_t ks[40][4] = {{0}, {1}, {x - 1}, {x}, {D[0] - 1, D[1]}, {D[0], D[1]}, {0}, {r[0] - 1, r[1], r[2], r[3]}};
    { /* x³ = x²·x */
        unsigned __int128 t = (unsigned __int128)D[0] * x;
        ks[6][0] = (uint64_t)t;
        t = (unsigned __int128)D[1] * x + (uint64_t)(t >> 64);
        ks[6][1] = (uint64_t)t, ks[6][2] = (uint64_t)(t >> 64);
    }
    for (int i = 8; i < 40; i++) secret_scalar(ks[i], ZP_CURVE_BLS12_381);
    for (int i = 0; i < 40; i++) {
        uint64_t a[4][4], acc[5] = {0};
        zp_p2_digits_x_ct(a, ks[i], x);
        zp_p2_ct_scalar s1, s2;
        zp_p2_split_div_ct(&s1, ks[i], D);
        zp_p2_split_x2_ct(&s2, ks[i], x);
        DECLASSIFY(a, sizeof a); /* the results, once made in constant time */
        DECLASSIFY(ks[i], sizeof ks[i]);
        DECLASSIFY(&s1, sizeof s1);
        DECLASSIFY(&s2, sizeof s2);
        /* Horner: ((a3·x + a2)·x + a1)·x + a0 */
        acc[0] = a[3][0], acc[1] = a[3][1];
        int small = a[3][1] == 0 && a[3][0] < x;
        for (int j = 2; j >= 0; j--) {
            small &= a[j][1] == 0 && a[j][0] < x;
            unsigned __int128 c = a[j][0];
            for (int l = 0; l < 5; l++) {
                c += (unsigned __int128)acc[l] * x;
                acc[l] = (uint64_t)c;
                c >>= 64;
            }
        }
        CHECK_MSG(small && memcmp(acc, ks[i], 32) == 0 && acc[4] == 0, "digits of k #%d by |x|", i);
        CHECK_MSG(memcmp(&s1, &s2, sizeof s1) == 0, "split of k #%d by |x| twice and by x²", i);
    }
    const uint64_t v = zp_p2_recip(x);
    const uint64_t us[][2] = {{x - 1, ~(uint64_t)0}, {x - 1, 0}, {0, x - 1}, {0, x}, {1, 0}, {x >> 1, 12345}};
    for (size_t i = 0; i < sizeof us / sizeof us[0]; i++) {
        uint64_t rem, q = zp_p2_div21_ct(&rem, us[i][0], us[i][1], x, v);
        unsigned __int128 u = ((unsigned __int128)us[i][0] << 64) | us[i][1];
        CHECK_MSG(q == (uint64_t)(u / x) && rem == (uint64_t)(u % x), "2-by-1 division #%zu", i);
    }
}

/* g1_apply_key_checked (BLS12-381: the subgroup test's [|x|]P as the
 * product's second point, ct_lanes.h's mul_checked) against g1_apply_key
 * on the scalar path: the same points, in the lanes and without, secret
 * and public k, for edge k about the split's D = x² and r and random
 * ones, blocks of every length around the lanes' eight with infinity
 * among them; and a point outside the group (each vector of
 * subgroup_vectors.h, and two of them) reported at its index, however
 * it falls in the lanes. g1_apply_powers_checked (phase 1's) likewise
 * against g1_apply_powers. */
static void ct_checked(void) {
    const zp_p2_ops *ops = zp_p2_ops_get(ZP_CURVE_BLS12_381);
    const zp_parallel off = {NULL, NULL, 1, ZP_SIMD_OFF}, lanes = {NULL, NULL, 1, ZP_SIMD_IFMA};
    CHECK_MSG(ops->g1_apply_key_checked != NULL, "bls12-381 G1 has the checked product");
    if (ops->g1_apply_key_checked == NULL) return;
    const uint64_t *r = zp_bls12_fr_modulus.v;
    enum { N = 41 };
    zp_bls12_g1 pts[N], a[N], b[N], c[N];
    for (int i = 0; i < N; i++) {
        uint64_t k[4];
        secret_scalar(k, ZP_CURVE_BLS12_381);
        ops->g1_mul_ct((uint8_t *)&pts[i], ops->g1_gen, k);
    }
    memset(&pts[3], 0, sizeof pts[3]); /* infinity */
    memset(&pts[N - 1], 0, sizeof pts[N - 1]);
    /* plain: 0, 1, D - 1, D, D + 1, r - D, r - 1, 2^192 + 5, then random */
    uint64_t ks[11][4] = {{0},
                          {1},
                          {0x00000000ffffffffULL, 0xac45a4010001a402ULL},
                          {0x0000000100000000ULL, 0xac45a4010001a402ULL},
                          {0x0000000100000001ULL, 0xac45a4010001a402ULL},
                          {0},
                          {r[0] - 1, r[1], r[2], r[3]},
                          {5, 0, 0, 1}};
    {
        unsigned __int128 t = (unsigned __int128)r[0] - 0x0000000100000000ULL;
        ks[5][0] = (uint64_t)t;
        t = (unsigned __int128)r[1] - 0xac45a4010001a402ULL - (uint64_t)((t >> 64) & 1);
        ks[5][1] = (uint64_t)t;
        ks[5][2] = r[2] - (uint64_t)((t >> 64) & 1), ks[5][3] = r[3];
    }
    for (int j = 8; j < 11; j++) secret_scalar(ks[j], ZP_CURVE_BLS12_381);
    const size_t lens[] = {1, 9, 17}; /* few: the scalar path is slow under the sanitizers */
    for (int j = 0; j < 11; j++) {
        zp_bls12_fr km;
        memcpy(km.v, ks[j], 32);
        if (j < 8) zp_bls12_fr_to_mont(&km, &km);
        for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
            size_t n = lens[li];
            memcpy(a, pts, sizeof pts);
            ops->g1_apply_key((uint8_t *)a, n, km.v, &off);
            for (int var = 0; var < 2; var++)
                for (int on = 0; on < 2 - var; on++) { /* the lanes take k the same way either way */
                    memcpy(b, pts, sizeof pts);
                    size_t got = ops->g1_apply_key_checked((uint8_t *)b, n, km.v, var, on ? &lanes : &off);
                    CHECK_MSG(got == n && memcmp(a, b, sizeof a) == 0,
                              "apply_key_checked: %zu points times k #%d (var %d, lanes %d): %zu", n, j, var, on, got);
                }
        }
    }
    /* phase 1's powers the same way: pts[i] times first·inc^(start + i) */
    CHECK_MSG(ops->g1_apply_powers_checked != NULL, "bls12-381 G1 has the checked powers");
    for (int j = 8; j < 11 && ops->g1_apply_powers_checked != NULL; j++) {
        zp_bls12_fr first, inc;
        memcpy(inc.v, ks[j], 32);
        memcpy(first.v, ks[j == 10 ? 8 : j + 1], 32);
        for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
            size_t n = lens[li];
            uint64_t start = (uint64_t)j * 7;
            const uint64_t *f = j == 9 ? NULL : first.v;
            memcpy(a, pts, sizeof pts);
            ops->g1_apply_powers((uint8_t *)a, n, start, f, inc.v, &off);
            for (int var = 0; var < 2; var++)
                for (int on = 0; on < 2; on++) {
                    memcpy(b, pts, sizeof pts);
                    size_t got =
                        ops->g1_apply_powers_checked((uint8_t *)b, n, start, f, inc.v, var, on ? &lanes : &off);
                    CHECK_MSG(got == n && memcmp(a, b, sizeof a) == 0,
                              "apply_powers_checked: %zu points, inc #%d (var %d, lanes %d): %zu", n, j, var, on, got);
                }
        }
    }
    const size_t nvec = sizeof bls12_g1_outside / sizeof bls12_g1_outside[0];
    for (size_t v = 0; v < nvec + sizeof bls12_g1_alone / sizeof bls12_g1_alone[0]; v++) {
        zp_bls12_g1 out;
        lanes_from_dec((uint64_t *)&out, 6, v < nvec ? bls12_g1_outside[v] : bls12_g1_alone[v - nvec], 2,
                       ZP_CURVE_BLS12_381);
        for (int at = 1; at < 17; at += 11) {
            memcpy(c, pts, sizeof pts);
            c[at] = out;
            if (at > 8) c[at + 3] = out; /* the first of two */
            for (int on = 0; on < 2; on++) {
                memcpy(b, c, sizeof c);
                size_t got = ops->g1_apply_key_checked((uint8_t *)b, 20, ks[8], 0, on ? &lanes : &off);
                CHECK_MSG(got == (size_t)at, "apply_key_checked: outside point %zu at %d found at %zu (lanes %d)", v,
                          at, got, on);
                if (ops->g1_apply_powers_checked == NULL) continue;
                memcpy(b, c, sizeof c);
                got = ops->g1_apply_powers_checked((uint8_t *)b, 20, 2, NULL, ks[9], 0, on ? &lanes : &off);
                CHECK_MSG(got == (size_t)at, "apply_powers_checked: outside point %zu at %d found at %zu (lanes %d)", v,
                          at, got, on);
            }
        }
    }
}

int main(void) {
    zp_test_init("test_ctime");
#ifndef ZP_HAVE_MEMCHECK
    if (RUNNING_ON_VALGRIND == 0) fprintf(stderr, "test_ctime: built without <valgrind/memcheck.h>\n");
#endif
    ct_split_x();
    ct_zp_bn254_g1();
    ct_zp_bn254_g2();
    ct_zp_bls12_g1();
    ct_zp_bls12_g2();
    ct_prover(ZP_CURVE_BN254);
    ct_prover(ZP_CURVE_BLS12_381);
    ct_contrib_zp_bn254();
    ct_contrib_zp_bls12();
    ct_powers_zp_bn254();
    ct_powers_zp_bls12();
    if (RUNNING_ON_VALGRIND == 0) {
        ct_edges_zp_bn254();
        ct_edges_zp_bls12();
        ct_lanes_zp_bn254();
        ct_lanes_zp_bls12();
        for (int i = 0; i < 4; i++) {
            compose_lanes_zp_bn254();
            compose_lanes_zp_bls12();
        }
        lanes_check_zp_bn254_g2();
        lanes_check_zp_bls12_g1();
        lanes_check_zp_bls12_g2();
        check_points_batched();
        ct_checked();
    }
    return zp_test_done();
}
