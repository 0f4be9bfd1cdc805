/* zkpipe export-vk: a proving key's verification key, as snarkjs writes it. */
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "cli/cli.h"
#include "groth16/curves.h"
#include "io/json.h"
#include "io/zkey.h"

static const char head[] =
    "usage: zkpipe export-vk <circuit.zkey> <verification_key.json>\n"
    "\n"
    "Writes the verification key of a proving key in snarkjs's JSON form\n"
    "(the same as 'snarkjs zkey export verificationkey'), vk_alphabeta_12\n"
    "included.\n";

int zp_cmd_export_vk(int argc, char **argv) {
    zp_cli_command cmd = {"export-vk", head, NULL, 0, NULL}; /* no options */
    if (zp_cli_wants_help(argc, argv)) return zp_cli_help(&cmd);
    int npos = zp_cli_parse(&cmd, argc, argv);
    if (npos < 0) return ZP_EXIT_USAGE;
    if (npos != 2) return zp_cli_usage_error(&cmd, "expected 2 arguments, got %d", npos);
    zp_error err = {0};
    zp_zkey *zkey = NULL;
    zp_groth16_vk vk = {0};
    int rc = ZP_EXIT_OK;
    if (zp_zkey_open(&zkey, argv[1], &err) != ZP_OK) goto fail;
    const zp_groth16_pk *pk = zp_zkey_pk(zkey);
    if (zp_zkey_vk(&vk, pk, &err) != ZP_OK) goto fail;
    /* e(α, β) as snarkjs writes it (the curve's table: ffjavascript's
     * power of the pairing, the tower's memory order) */
    const zp_groth16_curve *gc;
    if (zp_groth16_curve_lookup(&gc, pk->curve, &err) != ZP_OK) goto fail;
    uint64_t alphabeta[ZP_GROTH16_ALPHABETA_LIMBS];
    gc->vk_alphabeta(alphabeta, pk->alpha1, pk->beta2);
    if (zp_json_vk_write(argv[2], &vk, alphabeta, &err) != ZP_OK) goto fail;
    goto done;
fail:
    rc = zp_cli_fail(&err);
done:
    zp_groth16_vk_free(&vk);
    zp_zkey_close(zkey);
    return rc;
}
