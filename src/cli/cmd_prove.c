/* zkpipe prove: one proof from a .zkey and a .wtns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/error.h"
#include "cli/cli.h"
#include "mem/large.h"

static const char head[] =
    "usage: zkpipe prove [options] <circuit.zkey> <witness.wtns> <proof.json> <public.json>\n"
    "\n"
    "Makes a Groth16 proof of the witness for the circuit of the proving key and\n"
    "writes it, with the public signals, as snarkjs does. The blinding factors\n"
    "come from the OS, so two proofs of one witness differ (and both verify).\n"
    "Every proof is verified before it is written: a witness that does not\n"
    "satisfy the circuit is reported, never written as a proof.\n"
    "\n";

typedef struct prove_args {
    size_t threads;
    int no_verify, verbose;
    uint64_t budget;
} prove_args;

static const zp_option options[] = {
    ZP_CLI_THREADS_OPTION(prove_args, threads, "worker threads (default: one per CPU)"),
    {"no-verify", 0, ZP_OPT_FLAG, offsetof(prove_args, no_verify), 0, 0, NULL, NULL,
     "skip the check of the proof before writing it", NULL},
    {"budget", 0, ZP_OPT_MEMORY, offsetof(prove_args, budget), 0, 0, NULL, "SIZE",
     "the most memory the process may hold while proving (\"2G\", \"512M\"): in memory when the\n"
     "whole proof fits, the key's points streamed from the file through a bounded window when\n"
     "not; a budget below the key's minimum is refused, naming it (default: no limit)",
     NULL},
    {"verbose", 'v', ZP_OPT_FLAG, offsetof(prove_args, verbose), 0, 0, NULL, NULL,
     "print what was proved and how long each step took", NULL},
};

int zp_cmd_prove(int argc, char **argv) {
    prove_args args = {0};
    zp_option_table tables[] = {{"options:", options, sizeof options / sizeof *options, &args}};
    zp_cli_command cmd = {"prove", head, tables, 1, NULL};
    if (zp_cli_wants_help(argc, argv)) return zp_cli_help(&cmd);
    int npos = zp_cli_parse(&cmd, argc, argv);
    if (npos < 0) return ZP_EXIT_USAGE;
    if (npos != 4) return zp_cli_usage_error(&cmd, "expected 4 arguments, got %d", npos);
    size_t threads = args.threads;
    int verify = !args.no_verify, verbose = args.verbose;
    char **pos = argv + 1;
    const char *zkey_path = pos[0], *wtns_path = pos[1], *proof_path = pos[2], *public_path = pos[3];

    zp_error err = {0};
    zp_key *key = NULL;
    zp_witness *witness = NULL;
    zp_proof proof;
    zp_prove_stats stats;
    zp_prove_options opt = {.threads = threads, .skip_verify = !verify, .budget = (size_t)args.budget};
    int rc = ZP_EXIT_OK;
    double t0 = zp_clock_now(), t_key, t_wtns, t_prove, t_write;

    if (zp_key_open(&key, zkey_path, &err) != ZP_OK) goto fail;
    t_key = zp_clock_now();
    if (zp_witness_open(&witness, wtns_path, &err) != ZP_OK) goto fail;
    t_wtns = zp_clock_now();
    if (zp_prove(&proof, &stats, key, witness, &opt, &err) != ZP_OK) {
        if (err.status == ZP_ERR_UNSATISFIED) {
            zp_error_set(&err, ZP_ERR_UNSATISFIED,
                         "%s: the witness does not satisfy the circuit of %s (its proof does not verify; "
                         "nothing was written)",
                         wtns_path, zkey_path);
        } else if (err.status == ZP_ERR_MISMATCH || err.status == ZP_ERR_FORMAT) {
            zp_error_prefix(&err, "%s does not fit %s: ", wtns_path, zkey_path);
        }
        goto fail;
    }
    t_prove = zp_clock_now();
    if (zp_proof_write(proof_path, public_path, &proof, key, witness, &err) != ZP_OK) goto fail;
    t_write = zp_clock_now();
    if (verbose) {
        char window[128] = "proved in memory";
        if (stats.window_bytes != 0) {
            snprintf(window, sizeof window, "streamed the key's points through a %.1f MiB window, a, b, c %s",
                     (double)stats.window_bytes / (1 << 20),
                     stats.paged     ? "spilled, the witness paged"
                     : stats.spilled ? "spilled"
                                     : "resident");
        }
        fprintf(stderr,
                "proved: %s circuit, %u wires, %u public signals, domain 2^%d, %zu threads\n"
                "  open key      %9.2f ms\n"
                "  read witness  %9.2f ms\n"
                "  matrices      %9.2f ms  (the key's constraint matrices, compressed rows)\n"
                "  synthesis     %9.2f ms  (a = A·w, b = B·w, c = a∘b)\n"
                "  prove_start   %9.2f ms  (6 NTTs, A/B1/C/H MSMs)\n"
                "  prove_finish  %9.2f ms  (B2 MSM, assembly)\n"
                "  self-verify   %9.2f ms%s\n"
                "  write         %9.2f ms\n"
                "  total         %9.2f ms, peak RSS %.1f MiB\n"
                "  %s\n",
                zp_curve_name(zp_key_curve(key)), zp_key_wires(key), zp_key_public(key),
                __builtin_ctz(zp_key_domain_size(key)), stats.threads, 1e3 * (t_key - t0), 1e3 * (t_wtns - t_key),
                1e3 * stats.matrices_s, 1e3 * stats.synth_s, 1e3 * stats.start_s, 1e3 * stats.finish_s,
                1e3 * stats.verify_s, verify ? "" : " (skipped)", 1e3 * (t_write - t_prove), 1e3 * (t_write - t0),
                (double)zp_mem_peak_rss() / (1 << 20), window);
    }
    goto done;
fail:
    rc = zp_cli_fail(&err);
done:
    zp_witness_close(witness);
    zp_key_close(key);
    return rc;
}
