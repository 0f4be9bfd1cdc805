/* The prover, verifier and development setup together, without files: a
 * random squaring-chain circuit per curve, keys from the setup, proofs that
 * verify, differ between runs, and fail for a wrong witness or wrong public
 * values. */
#include <stdlib.h>
#include <string.h>

#include "base/parallel.h"
#include "engine/pool.h"
#include "field/field.h"
#include "groth16/groth16.h"
#include "groth16/setup.h"
#include "testutil.h"

/* Wires: 0 = 1, 1..npub = public outputs (copies of chain values), then
 * the chain x_0 .. x_m with x_{i+1} = x_i^2 + x_i·0 (square). Constraints:
 * x_i·x_i = x_{i+1} for i < m, then x_{k}·1 = out_k for the public outputs. */
typedef struct {
    zp_constraint_system cs;
    uint64_t *row_start[3];
    uint32_t *wire[3];
    uint64_t *coef[3];
} circuit;

static void build_circuit(circuit *c, zp_curve curve, uint32_t m, uint32_t npub) {
    uint32_t nw = 1 + npub + m + 1, nc = m + npub;
    memset(c, 0, sizeof *c);
    c->cs.curve = curve;
    c->cs.n_wires = nw;
    c->cs.n_public = npub;
    c->cs.n_constraints = nc;
    for (int k = 0; k < 3; k++) {
        c->row_start[k] = calloc(nc + 1, sizeof(uint64_t));
        c->wire[k] = calloc(nc, sizeof(uint32_t));
        c->coef[k] = calloc(nc * 4, sizeof(uint64_t));
        for (uint32_t i = 0; i < nc; i++) {
            c->row_start[k][i + 1] = i + 1;
            c->coef[k][4 * i] = 1;
        }
    }
    uint32_t x0 = 1 + npub;
    for (uint32_t i = 0; i < m; i++) {
        c->wire[0][i] = x0 + i;
        c->wire[1][i] = x0 + i;
        c->wire[2][i] = x0 + i + 1;
    }
    for (uint32_t j = 0; j < npub; j++) {
        uint32_t src = x0 + (j * 7 + 3) % (m + 1);
        c->wire[0][m + j] = src;
        c->wire[1][m + j] = 0;
        c->coef[1][4 * (m + j)] = 1;
        c->wire[2][m + j] = 1 + j;
    }
    for (int k = 0; k < 3; k++) {
        c->cs.m[k].row_start = c->row_start[k];
        c->cs.m[k].wire = c->wire[k];
        c->cs.m[k].coef = c->coef[k];
    }
}

static void free_circuit(circuit *c) {
    for (int k = 0; k < 3; k++) {
        free(c->row_start[k]);
        free(c->wire[k]);
        free(c->coef[k]);
    }
}

#define WITNESS_FN(FR)                                                                   \
    static void witness_##FR(uint64_t *w, uint32_t m, uint32_t npub) {                   \
        uint32_t x0 = 1 + npub;                                                          \
        FR x, t;                                                                         \
        memset(w, 0, (size_t)(x0 + m + 1) * 32);                                         \
        w[0] = 1;                                                                        \
        FR##_from_u64(&x, zp_test_rand64() | 2);                                         \
        for (uint32_t i = 0; i <= m; i++) {                                              \
            FR##_from_mont(&t, &x);                                                      \
            memcpy(w + 4 * (x0 + i), t.v, 32);                                           \
            FR##_sqr(&x, &x);                                                            \
        }                                                                                \
        for (uint32_t j = 0; j < npub; j++) {                                            \
            memcpy(w + 4 * (1 + j), w + 4 * (x0 + (j * 7 + 3) % (m + 1)), 32);           \
        }                                                                                \
    }
WITNESS_FN(zp_bn254_fr)
WITNESS_FN(zp_bls12_fr)

static void prove(zp_proof *proof, const zp_groth16_pk *pk, const uint64_t *w, const zp_parallel *par) {
    zp_error err;
    zp_groth16_pending pend;
    void *abc = malloc(zp_groth16_abc_size(pk));
    void *msm = malloc(zp_groth16_msm_scratch_size(pk, zp_parallel_threads(par)));
    CHECK(zp_groth16_prove_start(&pend, pk, w, abc, msm, par, &err) == ZP_OK);
    free(abc);
    zp_groth16_prove_finish(proof, &pend, pk, w, msm, par);
    free(msm);
}

static void test_curve(zp_curve curve, uint32_t m, uint32_t npub, const zp_parallel *par) {
    circuit c;
    zp_error err;
    build_circuit(&c, curve, m, npub);
    zp_groth16_setup_key key;
    CHECK(zp_groth16_setup(&key, &c.cs, par, &err) == ZP_OK);
    const zp_groth16_pk *pk = &key.pk;
    size_t nw = c.cs.n_wires;
    uint64_t *w = malloc(nw * 32);
    if (curve == ZP_CURVE_BN254) {
        witness_zp_bn254_fr(w, m, npub);
    } else {
        witness_zp_bls12_fr(w, m, npub);
    }
    CHECK(zp_groth16_check_witness(pk, curve, nw, w, &err) == ZP_OK);
    CHECK(zp_groth16_check_witness(pk, curve, nw - 1, w, &err) == ZP_ERR_MISMATCH);

    zp_proof p1, p2;
    prove(&p1, pk, w, par);
    prove(&p2, pk, w, par);
    CHECK_MSG(zp_groth16_verify_with_pk(pk, w, &p1) == 1, "%s m=%u: proof verifies", zp_curve_name(curve), m);
    CHECK_MSG(zp_groth16_verify_with_pk(pk, w, &p2) == 1, "%s m=%u: second proof verifies", zp_curve_name(curve), m);
    CHECK_MSG(memcmp(&p1, &p2, sizeof p1) != 0, "%s: two proofs of one witness differ", zp_curve_name(curve));

    /* a wrong public value */
    if (npub > 0) {
        uint64_t saved = w[4];
        w[4] ^= 1;
        CHECK_MSG(zp_groth16_verify_with_pk(pk, w, &p1) == 0, "%s: wrong public value rejected", zp_curve_name(curve));
        w[4] = saved;
    }
    /* a tampered proof: A and C swapped */
    zp_proof bad = p1;
    memcpy(bad.a, p1.c, sizeof bad.a);
    memcpy(bad.c, p1.a, sizeof bad.c);
    CHECK_MSG(zp_groth16_verify_with_pk(pk, w, &bad) == 0, "%s: tampered proof rejected", zp_curve_name(curve));
    /* a witness that does not satisfy the circuit: a private chain value off */
    w[4 * (nw - 2)] ^= 4;
    zp_proof p3;
    prove(&p3, pk, w, par);
    CHECK_MSG(zp_groth16_verify_with_pk(pk, w, &p3) == 0, "%s: unsatisfying witness gives no valid proof",
              zp_curve_name(curve));
    free(w);
    zp_groth16_setup_free(&key);
    free_circuit(&c);
}

int main(void) {
    zp_test_init("test_groth16");
    zp_pool *pool;
    zp_error err;
    if (zp_pool_create(&pool, 2, &err) != ZP_OK) return 1;
    zp_parallel par = zp_pool_parallel(pool);
    uint32_t sizes[][2] = {{1, 1}, {5, 0}, {30, 3}, {1000, 5}};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        test_curve(ZP_CURVE_BN254, sizes[i][0], sizes[i][1], &par);
        test_curve(ZP_CURVE_BLS12_381, sizes[i][0], sizes[i][1], i == 3 ? NULL : &par);
    }
    zp_pool_destroy(pool);
    return zp_test_done();
}
