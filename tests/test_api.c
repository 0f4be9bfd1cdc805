/* The public API of include/zkpipe.h on the bundled example, both curves:
 * open, prove, write, verify with snarkjs's verification key; and the
 * errors it reports for mismatched inputs. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "testutil.h"
#include "zkpipe.h"

static void test_curve(const char *curve, const char *other) {
    char zkey[256], wtns[256], vk[256], other_wtns[256], proof_path[256], public_path[256];
    snprintf(zkey, sizeof zkey, "examples/merkle/%s/merkle.zkey", curve);
    snprintf(wtns, sizeof wtns, "examples/merkle/%s/w1.wtns", curve);
    snprintf(vk, sizeof vk, "examples/merkle/%s/vk.json", curve);
    snprintf(other_wtns, sizeof other_wtns, "examples/merkle/%s/w1.wtns", other);
    snprintf(proof_path, sizeof proof_path, "/tmp/zp_test_api_%d_proof.json", (int)getpid());
    snprintf(public_path, sizeof public_path, "/tmp/zp_test_api_%d_public.json", (int)getpid());

    zp_error err;
    zp_key *key = NULL;
    zp_witness *w = NULL, *w_other = NULL;
    CHECK_MSG(zp_key_open(&key, zkey, &err) == ZP_OK, "%s: %s", zkey, err.message);
    CHECK_MSG(zp_witness_open(&w, wtns, &err) == ZP_OK, "%s: %s", wtns, err.message);
    CHECK_MSG(zp_witness_open(&w_other, other_wtns, &err) == ZP_OK, "%s: %s", other_wtns, err.message);
    if (key == NULL || w == NULL || w_other == NULL) goto done;
    CHECK(zp_key_public(key) == 4 && zp_key_wires(key) == 3108 && zp_key_domain_size(key) == 4096);

    zp_proof proof;
    zp_prove_options opt = {2, 0};
    CHECK_MSG(zp_prove(&proof, NULL, key, w, &opt, &err) == ZP_OK, "%s prove: %s", curve, err.message);
    CHECK(zp_proof_write(proof_path, public_path, &proof, key, w, &err) == ZP_OK);
    CHECK_MSG(zp_verify_files(vk, public_path, proof_path, &err) == ZP_OK, "%s verify: %s", curve, err.message);
    /* the other curve's witness */
    CHECK(zp_prove(&proof, NULL, key, w_other, NULL, &err) == ZP_ERR_MISMATCH);
    /* a missing file */
    zp_key *none = NULL;
    CHECK(zp_key_open(&none, "/nonexistent/k.zkey", &err) == ZP_ERR_IO && none == NULL);
    unlink(proof_path);
    unlink(public_path);
done:
    zp_witness_close(w);
    zp_witness_close(w_other);
    zp_key_close(key);
}

int main(void) {
    zp_test_init("test_api");
    test_curve("bn128", "bls12381");
    test_curve("bls12381", "bn128");
    return zp_test_done();
}
