/* zkpipe prove: one proof from a .zkey and a .wtns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "cli/cli.h"
#include "engine/pool.h"
#include "groth16/groth16.h"
#include "io/json.h"
#include "io/wtns.h"
#include "io/zkey.h"
#include "mem/large.h"

static const char help[] =
    "usage: zkpipe prove [options] <circuit.zkey> <witness.wtns> <proof.json> <public.json>\n"
    "\n"
    "Makes a Groth16 proof of the witness for the circuit of the proving key and\n"
    "writes it, with the public signals, as snarkjs does. The blinding factors\n"
    "come from the OS, so two proofs of one witness differ (and both verify).\n"
    "Every proof is verified before it is written: a witness that does not\n"
    "satisfy the circuit is reported, never written as a proof.\n"
    "\n"
    "options:\n"
    "  -t, --threads N   worker threads (default: one per CPU)\n"
    "  --no-verify       skip the check of the proof before writing it\n"
    "  -v, --verbose     print what was proved and how long each step took\n";

int zp_cmd_prove(int argc, char **argv) {
    size_t threads = 0;
    int verify = 1, verbose = 0;
    if (zp_cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return ZP_EXIT_OK;
    }
    argc = zp_cli_parse_threads(argc, argv, &threads);
    if (argc < 0) return ZP_EXIT_USAGE;
    const char *pos[4];
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--no-verify") == 0) {
            verify = 0;
        } else if (strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "--verbose") == 0) {
            verbose = 1;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "zkpipe prove: unknown option '%s'\n%s", argv[i], help);
            return ZP_EXIT_USAGE;
        } else if (npos < 4) {
            pos[npos++] = argv[i];
        } else {
            npos++;
        }
    }
    if (npos != 4) {
        fprintf(stderr, "zkpipe prove: expected 4 arguments, got %d\n%s", npos, help);
        return ZP_EXIT_USAGE;
    }
    const char *zkey_path = pos[0], *wtns_path = pos[1], *proof_path = pos[2], *public_path = pos[3];

    zp_error err = {0};
    zp_zkey *zkey = NULL;
    zp_wtns *wtns = NULL;
    zp_pool *pool = NULL;
    void *abc = NULL, *msm = NULL;
    size_t abc_bytes = 0, msm_bytes = 0;
    int rc = ZP_EXIT_OK;
    double t0 = zp_cli_now(), t_key, t_wtns, t_start, t_finish, t_verify = 0, t_write;

    if (zp_zkey_open(&zkey, zkey_path, &err) != ZP_OK) goto fail;
    const zp_groth16_pk *pk = zp_zkey_pk(zkey);
    t_key = zp_cli_now();
    if (zp_wtns_open(&wtns, wtns_path, &err) != ZP_OK) goto fail;
    const uint64_t *w = zp_wtns_values(wtns);
    if (zp_groth16_check_witness(pk, zp_wtns_curve(wtns), zp_wtns_count(wtns), w, &err) != ZP_OK) {
        zp_error_prefix(&err, "%s does not fit %s: ", wtns_path, zkey_path);
        goto fail;
    }
    t_wtns = zp_cli_now();
    if (zp_pool_create(&pool, threads, &err) != ZP_OK) goto fail;
    zp_parallel par = zp_pool_parallel(pool);
    abc_bytes = zp_groth16_abc_size(pk);
    msm_bytes = zp_groth16_msm_scratch_size(pk, zp_pool_threads(pool));
    abc = zp_mem_map(abc_bytes, "the a, b, c vectors", &err);
    msm = zp_mem_map(msm_bytes, "the MSM buckets", &err);
    if (abc == NULL || msm == NULL) goto fail;

    zp_groth16_pending pend;
    zp_proof proof;
    if (zp_groth16_prove_start(&pend, pk, w, abc, msm, &par, &err) != ZP_OK) goto fail;
    zp_mem_unmap(abc, abc_bytes); /* a, b, c are done with */
    abc = NULL;
    t_start = zp_cli_now();
    zp_groth16_prove_finish(&proof, &pend, pk, w, msm, &par);
    t_finish = zp_cli_now();
    if (verify) {
        int ok = zp_groth16_verify_with_pk(pk, w, &proof);
        t_verify = zp_cli_now();
        if (ok != 1) {
            zp_error_set(&err, ok < 0 ? ZP_ERR_NOMEM : ZP_ERR_UNSATISFIED,
                         ok < 0 ? "out of memory verifying the proof"
                                : "%s: the witness does not satisfy the circuit of %s (its proof does not "
                                  "verify; nothing was written)",
                         wtns_path, zkey_path);
            goto fail;
        }
    }
    if (zp_json_proof_write(proof_path, &proof, &err) != ZP_OK) goto fail;
    if (zp_json_public_write(public_path, w + 4, pk->n_public, &err) != ZP_OK) goto fail;
    t_write = zp_cli_now();
    if (verbose) {
        fprintf(stderr,
                "proved: %s circuit, %u wires, %u public signals, domain 2^%d, %zu threads\n"
                "  open key      %8.3f s\n"
                "  read witness  %8.3f s\n"
                "  prove_start   %8.3f s  (synthesis, 6 NTTs, A/B1/C/H MSMs)\n"
                "  prove_finish  %8.3f s  (B2 MSM, assembly)\n"
                "  self-verify   %8.3f s%s\n"
                "  write         %8.3f s\n"
                "  total         %8.3f s, peak RSS %.1f MiB\n",
                zp_curve_name(pk->curve), pk->n_vars, pk->n_public, __builtin_ctz(pk->domain_size),
                zp_pool_threads(pool), t_key - t0, t_wtns - t_key, t_start - t_wtns, t_finish - t_start,
                verify ? t_verify - t_finish : 0.0, verify ? "" : " (skipped)", t_write - (verify ? t_verify : t_finish),
                t_write - t0, (double)zp_mem_peak_rss() / (1 << 20));
    }
    goto done;
fail:
    rc = zp_cli_fail(&err);
done:
    zp_mem_unmap(abc, abc_bytes);
    zp_mem_unmap(msm, msm_bytes);
    zp_pool_destroy(pool);
    zp_wtns_close(wtns);
    zp_zkey_close(zkey);
    return rc;
}
