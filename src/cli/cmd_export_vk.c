/* zkpipe export-vk: a proving key's verification key, as snarkjs writes it. */
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "cli/cli.h"
#include "io/json.h"
#include "io/zkey.h"
#include "pairing/pairing.h"

static const char help[] =
    "usage: zkpipe export-vk <circuit.zkey> <verification_key.json>\n"
    "\n"
    "Writes the verification key of a proving key in snarkjs's JSON form\n"
    "(the same as 'snarkjs zkey export verificationkey'), vk_alphabeta_12\n"
    "included.\n";

int zp_cmd_export_vk(int argc, char **argv) {
    if (zp_cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return ZP_EXIT_OK;
    }
    if (argc != 3) {
        fprintf(stderr, "zkpipe export-vk: expected 2 arguments, got %d\n%s", argc - 1, help);
        return ZP_EXIT_USAGE;
    }
    zp_error err = {0};
    zp_zkey *zkey = NULL;
    zp_groth16_vk vk = {0};
    int rc = ZP_EXIT_OK;
    if (zp_zkey_open(&zkey, argv[1], &err) != ZP_OK) goto fail;
    const zp_groth16_pk *pk = zp_zkey_pk(zkey);
    if (zp_zkey_vk(&vk, pk, &err) != ZP_OK) goto fail;
    /* e(α, β) as snarkjs writes it: ffjavascript's pairing is a fixed power
     * of the reduced pairing (gt_to_ffjs), and the 12 base field elements
     * go in the tower's memory order */
    uint64_t alphabeta[12 * 6];
    if (pk->curve == ZP_CURVE_BN254) {
        zp_bn254_fp12 e;
        zp_bn254_pairing_var(&e, (const zp_bn254_g1 *)pk->alpha1, (const zp_bn254_g2 *)pk->beta2);
        zp_bn254_gt_to_ffjs(&e, &e);
        memcpy(alphabeta, &e, sizeof e);
    } else {
        zp_bls12_fp12 e;
        zp_bls12_pairing_var(&e, (const zp_bls12_g1 *)pk->alpha1, (const zp_bls12_g2 *)pk->beta2);
        zp_bls12_gt_to_ffjs(&e, &e);
        memcpy(alphabeta, &e, sizeof e);
    }
    if (zp_json_vk_write(argv[2], &vk, alphabeta, &err) != ZP_OK) goto fail;
    goto done;
fail:
    rc = zp_cli_fail(&err);
done:
    zp_groth16_vk_free(&vk);
    zp_zkey_close(zkey);
    return rc;
}
