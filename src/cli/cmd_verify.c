/* zkpipe verify: check a proof as snarkjs groth16 verify does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "cli/cli.h"
#include "groth16/groth16.h"
#include "io/json.h"

static const char help[] =
    "usage: zkpipe verify [options] <verification_key.json> <public.json> <proof.json>\n"
    "\n"
    "Checks a Groth16 proof against a verification key and public signals\n"
    "(snarkjs's files and argument order). Prints OK and exits 0 when the\n"
    "proof is valid; prints why and exits 1 when it is not; exits 3 when a\n"
    "file is malformed (a point off the curve, a value not below the field's\n"
    "modulus, a proof for another curve, the wrong number of public signals).\n"
    "\n"
    "options:\n"
    "  -q, --quiet   print nothing on success\n";

int zp_cmd_verify(int argc, char **argv) {
    int quiet = 0;
    const char *pos[3];
    int npos = 0;
    if (zp_cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return ZP_EXIT_OK;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-q") == 0 || strcmp(argv[i], "--quiet") == 0) {
            quiet = 1;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "zkpipe verify: unknown option '%s'\n%s", argv[i], help);
            return ZP_EXIT_USAGE;
        } else if (npos < 3) {
            pos[npos++] = argv[i];
        } else {
            npos++;
        }
    }
    if (npos != 3) {
        fprintf(stderr, "zkpipe verify: expected 3 arguments, got %d\n%s", npos, help);
        return ZP_EXIT_USAGE;
    }
    zp_error err = {0};
    zp_groth16_vk vk = {0};
    uint64_t *pub = NULL;
    size_t n_pub = 0;
    zp_proof proof;
    int rc;
    /* the proof before the public values: a proof for the other curve is
     * best reported as that, not as public values out of range */
    if (zp_json_vk_read(&vk, pos[0], &err) != ZP_OK || zp_json_proof_read(&proof, pos[2], vk.curve, &err) != ZP_OK ||
        zp_json_public_read(&pub, &n_pub, pos[1], vk.curve, &err) != ZP_OK) {
        rc = zp_cli_fail(&err);
        goto done;
    }
    if (n_pub != vk.n_public) {
        zp_error_set(&err, ZP_ERR_MISMATCH, "%s has %zu public signals but the verification key %s expects %u",
                     pos[1], n_pub, pos[0], vk.n_public);
        rc = zp_cli_fail(&err);
        goto done;
    }
    int ok = zp_groth16_verify(&vk, pub, &proof);
    if (ok == 1) {
        if (!quiet) puts("OK");
        rc = ZP_EXIT_OK;
    } else if (ok == 0) {
        fprintf(stderr, "zkpipe: invalid proof: %s does not verify for %s with %s\n", pos[2], pos[1], pos[0]);
        rc = ZP_EXIT_INVALID;
    } else {
        fprintf(stderr, "zkpipe: out of memory verifying %s\n", pos[2]);
        rc = ZP_EXIT_FAILURE;
    }
done:
    free(pub);
    zp_groth16_vk_free(&vk);
    return rc;
}
