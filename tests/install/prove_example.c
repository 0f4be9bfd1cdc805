/* A program written as a user of the installed library writes one: only
 * <zkpipe.h>, built with `cc prove_example.c $(pkg-config --cflags --libs
 * zkpipe)`. It proves a witness with a .zkey, writes snarkjs's proof.json and
 * public.json, and checks them against the verification key.
 *
 *   prove_example circuit.zkey witness.wtns verification_key.json proof.json public.json
 *
 * Exit status: 0 the proof verifies, 1 it does not, 2 bad usage, 3 any
 * other failure (the library's message on stderr). */
#include <stdio.h>

#include <zkpipe.h>

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: %s circuit.zkey witness.wtns verification_key.json proof.json public.json\n", argv[0]);
        return 2;
    }
    zp_error err;
    zp_key *key = NULL;
    zp_witness *witness = NULL;
    zp_proof proof;
    int rc = 3;
    if (zp_key_open(&key, argv[1], &err) != ZP_OK || zp_witness_open(&witness, argv[2], &err) != ZP_OK ||
        zp_prove(&proof, NULL, key, witness, NULL, &err) != ZP_OK ||
        zp_proof_write(argv[4], argv[5], &proof, key, witness, &err) != ZP_OK) {
        fprintf(stderr, "prove_example: %s\n", err.message);
        goto done;
    }
    printf("proved on %s: %u wires, %u public\n", zp_curve_name(zp_key_curve(key)), zp_key_wires(key),
           zp_key_public(key));
    zp_status st = zp_verify_files(argv[3], argv[5], argv[4], &err);
    if (st == ZP_OK) {
        printf("verified\n");
        rc = 0;
    } else {
        fprintf(stderr, "prove_example: %s\n", err.message);
        rc = st == ZP_ERR_INVALID ? 1 : 3;
    }
done:
    zp_witness_close(witness);
    zp_key_close(key);
    return rc;
}
