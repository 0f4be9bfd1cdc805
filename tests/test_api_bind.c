/* The public API's block for language bindings (include/zkpipe.h, "For
 * language bindings", src/engine/api_bind.c) on the example keys of both
 * curves: keys and witnesses from bytes equal to those from paths, every
 * truncation of a key's and a witness's bytes refused without a crash, a
 * witness dumped byte for byte as snarkjs wrote it, the JSON texts of a
 * proof verified by zp_verify_json (a changed signal refused), bad JSON
 * refused, a prover's stop flag honoured. The witness calculator
 * (zp_circuit_*) needs wasm2c and is tested through bindings/node
 * (tests/node/node.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "zkpipe.h"

static unsigned char *slurp(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(n > 0 ? (size_t)n : 1);
    if (b != NULL && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return b;
}

static void check_curve(const char *curve) {
    char zkey_path[128], wtns_path[128], vk_path[128];
    snprintf(zkey_path, sizeof zkey_path, "examples/merkle/%s/merkle.zkey", curve);
    snprintf(wtns_path, sizeof wtns_path, "examples/merkle/%s/w1.wtns", curve);
    snprintf(vk_path, sizeof vk_path, "examples/merkle/%s/vk.json", curve);
    size_t zn, wn, vn;
    unsigned char *zb = slurp(zkey_path, &zn), *wb = slurp(wtns_path, &wn), *vb = slurp(vk_path, &vn);
    CHECK_MSG(zb != NULL && wb != NULL && vb != NULL, "%s: the example files", curve);
    if (zb == NULL || wb == NULL || vb == NULL) return;
    zp_error err = {0};
    zp_key *kp = NULL, *km = NULL;
    zp_witness *w = NULL;
    CHECK_MSG(zp_key_open(&kp, zkey_path, &err) == ZP_OK, "%s", err.message);
    CHECK_MSG(zp_key_open_mem(&km, zb, zn, NULL, &err) == ZP_OK, "%s", err.message);
    CHECK_MSG(zp_witness_open_mem(&w, wb, wn, "w1.wtns", &err) == ZP_OK, "%s", err.message);
    if (kp == NULL || km == NULL || w == NULL) goto done;
    CHECK(zp_key_curve(km) == zp_key_curve(kp) && zp_key_wires(km) == zp_key_wires(kp));
    CHECK(zp_key_public(km) == zp_key_public(kp) && zp_key_domain_size(km) == zp_key_domain_size(kp));
    CHECK(zp_prover_memory_needed(km, 2) > zp_prove_scratch_size(km, 2));

    /* a dumped witness is the file snarkjs wrote, byte for byte */
    uint8_t *dump = NULL;
    size_t dn = 0;
    CHECK_MSG(zp_witness_dump(&dump, &dn, w, &err) == ZP_OK, "%s", err.message);
    CHECK_MSG(dn == wn && dump != NULL && memcmp(dump, wb, wn) == 0, "%s: dump %zu bytes, file %zu", curve, dn, wn);
    zp_free(dump);

    /* every cut of the key and witness bytes fails cleanly (the key's
     * ends and a sample in between; the witness's all) */
    size_t step = zn / 97 + 1;
    for (size_t cut = 0; cut < zn; cut += (cut < 256 || cut > zn - 256) ? 1 : step) {
        zp_key *k = (zp_key *)1;
        zp_status st = zp_key_open_mem(&k, zb, cut, "cut.zkey", &err);
        CHECK_MSG(st == ZP_ERR_FORMAT && k == NULL, "%s: key cut at %zu: status %d", curve, cut, (int)st);
    }
    for (size_t cut = 0; cut < wn; cut++) {
        zp_witness *x = (zp_witness *)1;
        zp_status st = zp_witness_open_mem(&x, wb, cut, "cut.wtns", &err);
        CHECK_MSG(st != ZP_OK && x == NULL, "%s: witness cut at %zu: status %d", curve, cut, (int)st);
    }

    /* a proof's texts verify; a changed public signal does not */
    zp_proof proof;
    char *pj = NULL, *pub = NULL, *vk = NULL;
    CHECK_MSG(zp_prove(&proof, NULL, km, w, NULL, &err) == ZP_OK, "%s", err.message);
    CHECK_MSG(zp_proof_json(&pj, &proof, &err) == ZP_OK, "%s", err.message);
    CHECK_MSG(zp_public_json(&pub, km, w, &err) == ZP_OK, "%s", err.message);
    CHECK_MSG(zp_key_vk_json(&vk, km, &err) == ZP_OK, "%s", err.message);
    if (pj != NULL && pub != NULL && vk != NULL) {
        CHECK(strstr(pj, "\"pi_a\"") != NULL && strstr(pj, curve) != NULL);
        CHECK_MSG(zp_verify_json(vk, strlen(vk), pub, strlen(pub), pj, strlen(pj), &err) == ZP_OK, "%s", err.message);
        CHECK_MSG(zp_verify_json((char *)vb, vn, pub, strlen(pub), pj, strlen(pj), &err) == ZP_OK, "%s", err.message);
        /* the last digit of the last signal: the value stays below r */
        char *digit = NULL;
        for (char *c = pub; *c; c++)
            if (*c >= '0' && *c <= '9') digit = c;
        if (digit != NULL) {
            *digit = *digit == '1' ? '2' : '1';
            CHECK(zp_verify_json(vk, strlen(vk), pub, strlen(pub), pj, strlen(pj), &err) == ZP_ERR_INVALID);
        }
        CHECK(zp_verify_json(vk, strlen(vk), "[", 1, pj, strlen(pj), &err) == ZP_ERR_FORMAT);
        CHECK(zp_verify_json("{}", 2, pub, strlen(pub), pj, strlen(pj), &err) != ZP_OK);
        CHECK(zp_verify_json(vk, strlen(vk), pub, strlen(pub), pj, strlen(pj) / 2, &err) != ZP_OK);
    }
    zp_free(pj);
    zp_free(pub);
    zp_free(vk);

    /* a prover's stop flag: a proof stopped between its stages fails
     * (no proof), and the prover proves again once it is cleared */
    zp_prover *pr = NULL;
    CHECK_MSG(zp_prover_create(&pr, NULL, &err) == ZP_OK, "%s", err.message);
    if (pr != NULL) {
        int stop = 1;
        zp_prover_set_stop(pr, &stop);
        memset(&proof, 0xff, sizeof proof);
        zp_status st = zp_prover_prove(pr, &proof, NULL, km, w, &err);
        CHECK_MSG(st == ZP_ERR_UNSUPPORTED && strstr(err.message, "stopped") != NULL && proof.curve == ZP_CURVE_NONE,
                  "%s: a stopped proof: status %d (%s)", curve, (int)st, err.message);
        stop = 0;
        CHECK_MSG(zp_prover_prove(pr, &proof, NULL, km, w, &err) == ZP_OK, "%s", err.message);
        zp_prover_set_stop(pr, NULL);
        zp_prover_destroy(pr);
    }
    /* the same flag on a one-shot proof (zp_prove_options.stop) */
    {
        int stop = 1;
        zp_prove_options opt = {.threads = 2, .stop = &stop};
        memset(&proof, 0xff, sizeof proof);
        zp_status st = zp_prove(&proof, NULL, km, w, &opt, &err);
        CHECK_MSG(st == ZP_ERR_UNSUPPORTED && strstr(err.message, "stopped") != NULL && proof.curve == ZP_CURVE_NONE,
                  "%s: a stopped one-shot proof: status %d (%s)", curve, (int)st, err.message);
        stop = 0;
        CHECK_MSG(zp_prove(&proof, NULL, km, w, &opt, &err) == ZP_OK, "%s", err.message);
    }
done:
    zp_witness_close(w);
    zp_key_close(kp);
    zp_key_close(km);
    free(zb);
    free(wb);
    free(vb);
}

int main(void) {
    zp_test_init("test_api_bind");
    CHECK(strcmp(zp_version(), ZKPIPE_VERSION) == 0);
    zp_free(NULL);
    check_curve("bn128");
    check_curve("bls12381");
    /* a witness of one curve is not of the other's key */
    zp_error err = {0};
    zp_key *k = NULL;
    zp_witness *w = NULL;
    char *pub = (char *)1;
    if (zp_key_open(&k, "examples/merkle/bn128/merkle.zkey", &err) == ZP_OK &&
        zp_witness_open(&w, "examples/merkle/bls12381/w1.wtns", &err) == ZP_OK) {
        CHECK(zp_public_json(&pub, k, w, &err) == ZP_ERR_MISMATCH && pub == NULL);
    }
    zp_witness_close(w);
    zp_key_close(k);
    return zp_test_done();
}
