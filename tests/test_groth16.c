/* The prover, verifier and development setup together, without files: a
 * random squaring-chain circuit per curve, keys from the setup, proofs that
 * verify (also from the key with its coefficient list shuffled), differ
 * between runs, and fail for a wrong witness or wrong public values. */
#include <stdlib.h>
#include <string.h>

#include "base/parallel.h"
#include "chain_circuit.h"
#include "engine/pool.h"
#include "field/field.h"
#include "groth16/groth16.h"
#include "groth16/setup.h"
#include "testutil.h"

/* matrices, synthesis, prove_start, prove_finish: the steps of one proof,
 * with r and s from the OS (r == NULL) or given, so that proofs through
 * different pools can be compared; the msm scratch starts as garbage */
static void prove_with(zp_groth16_proof *proof, const zp_groth16_pk *pk, const uint64_t *w, const uint64_t *r,
                       const uint64_t *s, const zp_parallel *par) {
    zp_error err;
    zp_groth16_pending pend;
    size_t mat_bytes = zp_groth16_matrices_size(pk),
           msm_bytes = zp_groth16_msm_scratch_size(pk, zp_parallel_threads(par));
    void *mat = aligned_alloc(64, (mat_bytes + 63) & ~(size_t)63);
    void *abc = malloc(zp_groth16_abc_size(pk));
    void *msm = malloc(msm_bytes);
    memset(msm, 0xa5, msm_bytes);
    CHECK(zp_groth16_matrices_build(mat, mat_bytes, pk, par, &err) == ZP_OK);
    zp_groth16_synthesize(abc, pk, mat, w, par);
    free(mat);
    if (r == NULL) {
        CHECK(zp_groth16_prove_start(&pend, pk, w, abc, msm, par, &err) == ZP_OK);
    } else {
        CHECK(zp_groth16_prove_start_with(&pend, pk, w, r, s, abc, msm, par, &err) == ZP_OK);
    }
    free(abc);
    zp_groth16_prove_finish(proof, &pend, pk, w, msm, par);
    free(msm);
}

static void prove(zp_groth16_proof *proof, const zp_groth16_pk *pk, const uint64_t *w, const zp_parallel *par) {
    prove_with(proof, pk, w, NULL, NULL, par);
}

/* A small key's proof runs the G2 MSM in prove_start's loop when the pool
 * has two threads (joint) and in prove_finish when serial: with the same
 * r and s both give the same proof, bit for bit. */
static void check_joint_matches_serial(const zp_groth16_pk *pk, const uint64_t *w, const zp_parallel *par) {
    if (zp_parallel_threads(par) < 2 || pk->domain_size > ZP_GROTH16_JOINT_MAX_DOMAIN) return;
    uint64_t r[4], s[4];
    zp_error err;
    CHECK(zp_groth16_random_scalar(r, pk->curve, &err) == ZP_OK);
    CHECK(zp_groth16_random_scalar(s, pk->curve, &err) == ZP_OK);
    zp_groth16_proof joint, serial;
    prove_with(&joint, pk, w, r, s, par);
    prove_with(&serial, pk, w, r, s, NULL);
    CHECK_MSG(memcmp(&joint, &serial, sizeof joint) == 0, "%s domain %u: the joint loop's proof is the serial one",
              zp_curve_name(pk->curve), pk->domain_size);
}

/* With point tables attached (groth16.h: a copy of the pk that carries
 * them), on the pool and serial, the same r and s give the same proof as
 * without, bit for bit; the tables refuse keys they are not for. */
static void check_tables_match(const zp_groth16_pk *pk, const uint64_t *w, const zp_parallel *par) {
    zp_error err;
    size_t threads = zp_parallel_threads(par), bytes = zp_groth16_tables_size(pk, threads);
    if (pk->domain_size > ZP_GROTH16_JOINT_MAX_DOMAIN) {
        CHECK(bytes == 0);
        return;
    }
    CHECK(bytes > 0);
    char *mem = aligned_alloc(64, (bytes + 64 + 63) & ~(size_t)63);
    CHECK(zp_groth16_tables_build(mem, bytes - 1, pk, threads, par, &err) == ZP_ERR_ARG);
    CHECK(zp_groth16_tables_build(mem + 8, bytes, pk, threads, par, &err) == ZP_ERR_ARG);
    CHECK_MSG(zp_groth16_tables_build(mem, bytes, pk, threads, par, &err) == ZP_OK, "%s", err.message);
    uint64_t r[4], s[4];
    CHECK(zp_groth16_random_scalar(r, pk->curve, &err) == ZP_OK);
    CHECK(zp_groth16_random_scalar(s, pk->curve, &err) == ZP_OK);
    zp_groth16_pk with = *pk;
    with.tables = (const zp_groth16_tables *)mem;
    zp_groth16_proof plain, tabled, tabled_serial;
    prove_with(&plain, pk, w, r, s, par);
    prove_with(&tabled, &with, w, r, s, par);
    prove_with(&tabled_serial, &with, w, r, s, NULL);
    CHECK_MSG(memcmp(&plain, &tabled, sizeof plain) == 0 && memcmp(&plain, &tabled_serial, sizeof plain) == 0,
              "%s domain %u: the tables' proof is the plain one", zp_curve_name(pk->curve), pk->domain_size);
    /* tables of another shape are not used: a proof still comes out right */
    ((zp_groth16_tables *)mem)->n_vars += 1;
    prove_with(&tabled, &with, w, r, s, par);
    CHECK(memcmp(&plain, &tabled, sizeof plain) == 0);
    free(mem);
}

/* The plain and the prepared verifier's common answer, each serial and
 * with its Miller loops as two tasks on the test's pool; -2 when they
 * disagree. */
static const zp_parallel *verify_par;
static int verify_both(const zp_groth16_pk *pk, const zp_groth16_pvk *pvk, const uint64_t *w,
                       const zp_groth16_proof *proof) {
    const uint64_t *pub = zp_groth16_witness_public(w);
    int plain = zp_groth16_verify_with_pk(pk, w, proof, NULL);
    int prepared = zp_groth16_verify_prepared(pvk, pub, proof, NULL);
    int plain_par = zp_groth16_verify_with_pk(pk, w, proof, verify_par);
    int prepared_par = zp_groth16_verify_prepared(pvk, pub, proof, verify_par);
    return plain == prepared && plain == plain_par && plain == prepared_par ? plain : -2;
}

static void test_curve(zp_curve curve, uint32_t m, uint32_t npub, const zp_parallel *par) {
    chain_circuit c;
    zp_error err;
    chain_build(&c, curve, m, npub);
    verify_par = par;
    zp_groth16_setup_key key;
    CHECK(zp_groth16_setup(&key, &c.cs, par, &err) == ZP_OK);
    const zp_groth16_pk *pk = &key.pk;
    size_t nw = c.cs.n_wires;
    uint64_t *w = malloc(nw * 32);
    chain_witness(w, &c, zp_test_rand64());
    CHECK(zp_groth16_check_witness(pk, curve, nw, w, &err) == ZP_OK);
    CHECK(zp_groth16_check_witness(pk, curve, nw - 1, w, &err) == ZP_ERR_MISMATCH);

    zp_groth16_vk vk;
    zp_groth16_vk_of_pk(&vk, pk);
    zp_groth16_pvk *pvk = zp_groth16_pvk_new(&vk);
    CHECK(pvk != NULL);
    if (pvk == NULL) return;
    zp_groth16_proof p1, p2;
    prove(&p1, pk, w, par);
    prove(&p2, pk, w, par);
    CHECK_MSG(verify_both(pk, pvk, w, &p1) == 1, "%s m=%u: proof verifies", zp_curve_name(curve), m);
    CHECK_MSG(verify_both(pk, pvk, w, &p2) == 1, "%s m=%u: second proof verifies", zp_curve_name(curve), m);
    CHECK_MSG(memcmp(&p1, &p2, sizeof p1) != 0, "%s: two proofs of one witness differ", zp_curve_name(curve));
    check_joint_matches_serial(pk, w, par);
    check_tables_match(pk, w, par);

    /* the same key with its coefficient list shuffled: the matrices take
     * the permuted layout, and the proof still verifies */
    {
        zp_groth16_pk shuffled = *pk;
        size_t nc = pk->n_coefs;
        uint8_t *coefs = malloc(nc * ZP_ZKEY_COEF_BYTES);
        memcpy(coefs, pk->coefs, nc * ZP_ZKEY_COEF_BYTES);
        for (size_t i = nc; i > 1; i--) {
            size_t j = zp_test_rand64() % i;
            uint8_t t[ZP_ZKEY_COEF_BYTES];
            memcpy(t, coefs + (i - 1) * ZP_ZKEY_COEF_BYTES, sizeof t);
            memcpy(coefs + (i - 1) * ZP_ZKEY_COEF_BYTES, coefs + j * ZP_ZKEY_COEF_BYTES, sizeof t);
            memcpy(coefs + j * ZP_ZKEY_COEF_BYTES, t, sizeof t);
        }
        shuffled.coefs = coefs;
        zp_groth16_proof p4;
        prove(&p4, &shuffled, w, par);
        CHECK_MSG(verify_both(pk, pvk, w, &p4) == 1, "%s m=%u: proof from a shuffled key verifies",
                  zp_curve_name(curve), m);
        free(coefs);
    }

    /* a wrong public value, the first and the last (L sums up to four
     * inputs one by one, more with an MSM: both ends of each way) */
    for (uint32_t k = 1; k <= npub; k += npub > 1 ? npub - 1 : 1) {
        uint64_t saved = w[4 * k];
        w[4 * k] ^= 1;
        CHECK_MSG(verify_both(pk, pvk, w, &p1) == 0, "%s: wrong public value %u of %u rejected", zp_curve_name(curve),
                  k, npub);
        w[4 * k] = saved;
    }
    /* a tampered proof: A and C swapped */
    zp_groth16_proof bad = p1;
    memcpy(bad.a, p1.c, sizeof bad.a);
    memcpy(bad.c, p1.a, sizeof bad.c);
    CHECK_MSG(verify_both(pk, pvk, w, &bad) == 0, "%s: tampered proof rejected", zp_curve_name(curve));
    /* a witness that does not satisfy the circuit: a private chain value off */
    w[4 * (nw - 2)] ^= 4;
    zp_groth16_proof p3;
    prove(&p3, pk, w, par);
    CHECK_MSG(verify_both(pk, pvk, w, &p3) == 0, "%s: unsatisfying witness gives no valid proof", zp_curve_name(curve));
    /* a proof of another curve: rejected, not misread */
    zp_groth16_proof other = p1;
    other.curve = curve == ZP_CURVE_BN254 ? ZP_CURVE_BLS12_381 : ZP_CURVE_BN254;
    CHECK(verify_both(pk, pvk, w, &other) == 0);
    zp_groth16_pvk_free(pvk);
    free(w);
    zp_groth16_setup_free(&key);
    chain_free(&c);
}

int main(void) {
    zp_test_init("test_groth16");
    zp_pool *pool;
    zp_error err;
    if (zp_pool_create(&pool, 2, &err) != ZP_OK) return 1;
    zp_parallel par = zp_pool_parallel(pool);
    uint32_t sizes[][2] = {{1, 1}, {5, 0}, {30, 3}, {12, 4}, {1000, 5}};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        test_curve(ZP_CURVE_BN254, sizes[i][0], sizes[i][1], &par);
        test_curve(ZP_CURVE_BLS12_381, sizes[i][0], sizes[i][1], sizes[i][0] == 1000 ? NULL : &par);
    }
    zp_pool_destroy(pool);
    return zp_test_done();
}
