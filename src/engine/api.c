/* The public API of include/zkpipe.h: one proof at a time, with its own
 * thread pool and working memory. (The pipeline engine, for many proofs
 * under a budget, is built beside this.) */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/error.h"
#include "engine/pool.h"
#include "groth16/groth16.h"
#include "io/json.h"
#include "io/wtns.h"
#include "io/zkey.h"
#include "mem/large.h"
#include "zkpipe.h"

struct zp_key {
    zp_zkey *zkey;
};
struct zp_witness {
    zp_wtns *wtns;
};

zp_status zp_key_open(zp_key **out, const char *path, zp_error *err) {
    *out = NULL;
    zp_key *key = calloc(1, sizeof *key);
    if (key == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    zp_status st = zp_zkey_open(&key->zkey, path, err);
    if (st != ZP_OK) {
        free(key);
        return st;
    }
    *out = key;
    return ZP_OK;
}

void zp_key_close(zp_key *key) {
    if (key == NULL) return;
    zp_zkey_close(key->zkey);
    free(key);
}

zp_curve zp_key_curve(const zp_key *key) { return zp_zkey_pk(key->zkey)->curve; }
uint32_t zp_key_wires(const zp_key *key) { return zp_zkey_pk(key->zkey)->n_vars; }
uint32_t zp_key_public(const zp_key *key) { return zp_zkey_pk(key->zkey)->n_public; }
uint32_t zp_key_domain_size(const zp_key *key) { return zp_zkey_pk(key->zkey)->domain_size; }

zp_status zp_witness_open(zp_witness **out, const char *path, zp_error *err) {
    *out = NULL;
    zp_witness *w = calloc(1, sizeof *w);
    if (w == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    zp_status st = zp_wtns_open(&w->wtns, path, err);
    if (st != ZP_OK) {
        free(w);
        return st;
    }
    *out = w;
    return ZP_OK;
}

void zp_witness_close(zp_witness *witness) {
    if (witness == NULL) return;
    zp_wtns_close(witness->wtns);
    free(witness);
}

zp_status zp_prove(zp_proof *proof, zp_prove_stats *stats, const zp_key *key, const zp_witness *witness,
                   const zp_prove_options *options, zp_error *err) {
    const zp_groth16_pk *pk = zp_zkey_pk(key->zkey);
    const uint64_t *w = zp_wtns_values(witness->wtns);
    zp_prove_options opt = {0, 0};
    if (options != NULL) opt = *options;
    zp_status st = zp_groth16_check_witness(pk, zp_wtns_curve(witness->wtns), zp_wtns_count(witness->wtns), w, err);
    if (st != ZP_OK) return st;

    zp_pool *pool = NULL;
    void *abc = NULL, *msm = NULL, *mat = NULL;
    size_t abc_bytes = zp_groth16_abc_size(pk), msm_bytes = 0, mat_bytes = 0;
    st = zp_pool_create(&pool, opt.threads, err);
    if (st != ZP_OK) return st;
    zp_parallel par = zp_pool_parallel(pool);
    msm_bytes = zp_groth16_msm_scratch_size(pk, zp_pool_threads(pool));
    abc = zp_mem_map(abc_bytes, "the a, b, c vectors", err);
    msm = abc ? zp_mem_map(msm_bytes, "the MSM buckets", err) : NULL;
    if (msm == NULL) {
        st = err ? err->status : ZP_ERR_NOMEM;
        goto done;
    }
    zp_prove_stats stat = {.threads = zp_pool_threads(pool)};
    double t0 = zp_clock_now();
    mat_bytes = zp_groth16_matrices_size(pk);
    mat = zp_mem_map(mat_bytes, "the constraint matrices", err);
    if (mat == NULL) {
        st = err ? err->status : ZP_ERR_NOMEM;
        goto done;
    }
    st = zp_groth16_matrices_build(mat, mat_bytes, pk, &par, err);
    if (st != ZP_OK) goto done;
    double t1 = zp_clock_now();
    zp_groth16_synthesize(abc, pk, mat, w, &par);
    zp_mem_unmap(mat, mat_bytes); /* the engine keeps them with the key; one proof needs them once */
    mat = NULL;
    double t2 = zp_clock_now();
    zp_groth16_pending pend;
    st = zp_groth16_prove_start(&pend, pk, w, abc, msm, &par, err);
    zp_mem_unmap(abc, abc_bytes); /* a, b, c are done with */
    abc = NULL;
    if (st != ZP_OK) goto done;
    double t3 = zp_clock_now();
    zp_groth16_prove_finish(proof, &pend, pk, w, msm, &par);
    double t4 = zp_clock_now();
    stat.matrices_s = t1 - t0;
    stat.synth_s = t2 - t1;
    stat.start_s = t3 - t2;
    stat.finish_s = t4 - t3;
    if (!opt.skip_verify) {
        int ok = zp_groth16_verify_with_pk(pk, w, proof);
        stat.verify_s = zp_clock_now() - t4;
        if (ok != 1) {
            memset(proof, 0, sizeof *proof);
            st = ok < 0 ? zp_error_set(err, ZP_ERR_NOMEM, "out of memory verifying the proof")
                        : zp_error_set(err, ZP_ERR_UNSATISFIED,
                                       "the witness does not satisfy the circuit (its proof does not verify)");
        }
    }
    if (stats != NULL) *stats = stat;
done:
    zp_mem_unmap(mat, mat_bytes);
    zp_mem_unmap(abc, abc_bytes);
    zp_mem_unmap(msm, msm_bytes);
    zp_pool_destroy(pool);
    return st;
}

zp_status zp_proof_write(const char *proof_path, const char *public_path, const zp_proof *proof, const zp_key *key,
                         const zp_witness *witness, zp_error *err) {
    zp_status st = ZP_OK;
    if (proof_path != NULL) st = zp_json_proof_write(proof_path, proof, err);
    if (st == ZP_OK && public_path != NULL) {
        st = zp_json_public_write(public_path, zp_groth16_witness_public(zp_wtns_values(witness->wtns)), zp_key_public(key), err);
    }
    return st;
}

zp_status zp_verify_files(const char *vk_path, const char *public_path, const char *proof_path, zp_error *err) {
    zp_groth16_vk vk = {0};
    uint64_t *pub = NULL;
    size_t n_pub = 0;
    zp_proof proof;
    zp_status st = zp_json_vk_read(&vk, vk_path, err);
    if (st == ZP_OK) st = zp_json_proof_read(&proof, proof_path, vk.curve, err);
    if (st == ZP_OK) st = zp_json_public_read(&pub, &n_pub, public_path, vk.curve, err);
    if (st == ZP_OK && n_pub != vk.n_public) {
        st = zp_error_set(err, ZP_ERR_MISMATCH, "%s has %zu public signals but the verification key %s expects %u",
                          public_path, n_pub, vk_path, vk.n_public);
    }
    if (st == ZP_OK) {
        int ok = zp_groth16_verify(&vk, pub, &proof);
        if (ok < 0) st = zp_error_set(err, ZP_ERR_NOMEM, "out of memory verifying %s", proof_path);
        if (ok == 0) {
            st = zp_error_set(err, ZP_ERR_INVALID, "invalid proof: %s does not verify for %s with %s", proof_path,
                              public_path, vk_path);
        }
    }
    free(pub);
    zp_groth16_vk_free(&vk);
    return st;
}
