/* zkpipe fullprove: input.json + circuit.wasm + circuit.zkey -> a proof. */
#define _GNU_SOURCE /* memfd_create */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/error.h"
#include "cli/cli.h"
#include "mem/large.h"
#include "witness/witness.h"

static const char head[] =
    "usage: zkpipe fullprove [options] <input.json> <circuit.wasm> <circuit.zkey> <proof.json> <public.json>\n"
    "\n"
    "Computes the witness of the inputs with the circuit's witness calculator\n"
    "(as `zkpipe wtns calculate` does, compiled once and cached) and proves it\n"
    "with the key, writing the proof and the public signals as snarkjs does:\n"
    "`snarkjs groth16 fullprove`'s argument order, at native speed.\n"
    "\n"
    "The wasm and the key must be of one curve (circom --prime bn128 or\n"
    "bls12381). A failed assert of the circuit or bad inputs: the error on\n"
    "stderr, exit status 3, nothing written. Every proof is verified before it\n"
    "is written.\n"
    "\n";

static const char tail[] =
    "\n"
    "environment: ZKPIPE_CACHE, CC, ZKPIPE_WASM2C, as for `zkpipe wtns calculate`.\n";

typedef struct fullprove_args {
    const char *cache;
    size_t threads;
    int no_verify, verbose;
    double time_limit;
} fullprove_args;

static const zp_option options[] = {
    ZP_CLI_THREADS_OPTION(fullprove_args, threads, "worker threads of the prover (default: one per CPU)"),
    {"cache", 0, ZP_OPT_ARG, offsetof(fullprove_args, cache), 0, 0, NULL, "DIR",
     "the folder of compiled calculators (default: $ZKPIPE_CACHE, $XDG_CACHE_HOME/zkpipe, ~/.cache/zkpipe)", NULL},
    ZP_CLI_TIME_LIMIT_OPTION(fullprove_args, time_limit),
    {"no-verify", 0, ZP_OPT_FLAG, offsetof(fullprove_args, no_verify), 0, 0, NULL, NULL,
     "skip the check of the proof before writing it", NULL},
    {"verbose", 'v', ZP_OPT_FLAG, offsetof(fullprove_args, verbose), 0, 0, NULL, NULL,
     "print how long each step took (compile/load, witness, prove, write)", NULL},
};

/* The witness as a .wtns in an anonymous memory file, opened as the
 * prover opens any witness: no file on disk, nothing left behind. */
static zp_status witness_from_values(zp_witness **out, const zp_witness_module *m, const uint8_t *values,
                                     zp_error *err) {
    int fd = memfd_create("zkpipe-witness", MFD_CLOEXEC);
    if (fd < 0) return zp_error_set(err, ZP_ERR_IO, "cannot make a memory file for the witness");
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    zp_status st = zp_witness_write_wtns(path, m, values, err);
    if (st == ZP_OK) st = zp_witness_open(out, path, err);
    close(fd);
    return st;
}

int zp_cmd_fullprove(int argc, char **argv) {
    fullprove_args args = {0};
    zp_option_table tables[] = {{"options:", options, sizeof options / sizeof *options, &args}};
    zp_cli_command cmd = {"fullprove", head, tables, 1, tail};
    if (zp_cli_wants_help(argc, argv)) return zp_cli_help(&cmd);
    int npos = zp_cli_parse(&cmd, argc, argv);
    if (npos < 0) return ZP_EXIT_USAGE;
    if (npos != 5) return zp_cli_usage_error(&cmd, "expected 5 arguments, got %d", npos);
    char **pos = argv + 1;
    const char *input_path = pos[0], *wasm_path = pos[1], *zkey_path = pos[2], *proof_path = pos[3],
               *public_path = pos[4];

    zp_error err = {0};
    zp_key *key = NULL;
    zp_witness_module *m = NULL;
    zp_witness *witness = NULL;
    uint8_t *values = NULL;
    zp_witness_run_stats ws = {0};
    zp_witness_compile_options copt = {.cache_dir = args.cache};
    zp_proof proof;
    zp_prove_stats ps;
    zp_prove_options popt = {.threads = args.threads, .skip_verify = args.no_verify};
    int rc = ZP_EXIT_OK;
    double t0 = zp_clock_now(), t_key, t_load, t_wit, t_prove, t_write;

    if (zp_key_open(&key, zkey_path, &err) != ZP_OK) goto fail;
    t_key = zp_clock_now();
    if (zp_witness_load(&m, wasm_path, &copt, args.time_limit, &ws, &err) != ZP_OK) goto fail;
    t_load = zp_clock_now();
    zp_curve wc = zp_witness_module_curve(m), kc = zp_key_curve(key);
    if (wc != kc) {
        zp_error_set(&err, ZP_ERR_MISMATCH,
                     "%s is a %s circuit and %s a %s key: compile the circuit with circom --prime %s, or use its key",
                     wasm_path, wc == ZP_CURVE_NONE ? "non-Groth16-curve" : zp_curve_name(wc), zkey_path,
                     zp_curve_name(kc), zp_curve_name(kc));
        goto fail;
    }
    if (zp_witness_module_size(m) != zp_key_wires(key)) {
        zp_error_set(&err, ZP_ERR_MISMATCH, "%s computes %zu wires and %s has %u: they are not of one circuit",
                     wasm_path, zp_witness_module_size(m), zkey_path, zp_key_wires(key));
        goto fail;
    }
    if (zp_witness_compute_file(&values, m, input_path, 0, args.time_limit, stderr, &ws, &err) != ZP_OK) goto fail;
    if (witness_from_values(&witness, m, values, &err) != ZP_OK) goto fail;
    t_wit = zp_clock_now();
    if (zp_prove(&proof, &ps, key, witness, &popt, &err) != ZP_OK) {
        if (err.status == ZP_ERR_UNSATISFIED) {
            zp_error_set(&err, ZP_ERR_UNSATISFIED,
                         "the witness of %s does not satisfy the circuit of %s (its proof does not verify; nothing "
                         "was written)",
                         input_path, zkey_path);
        }
        goto fail;
    }
    t_prove = zp_clock_now();
    if (zp_proof_write(proof_path, public_path, &proof, key, witness, &err) != ZP_OK) goto fail;
    t_write = zp_clock_now();
    if (args.verbose) {
        fprintf(stderr,
                "fullprove: %s circuit, %u wires, %u public signals, domain 2^%d, %zu threads\n"
                "  open key      %8.3f s\n"
                "  %-13s %8.3f s%s\n"
                "  load wasm     %8.3f s  (linear memory %.1f MiB)\n"
                "  read inputs   %8.3f s\n"
                "  witness       %8.3f s\n"
                "  prove         %8.3f s  (matrices %.3f, synthesis %.3f, start %.3f, finish %.3f, verify %.3f)\n"
                "  write         %8.3f s\n"
                "  total         %8.3f s, peak RSS %.1f MiB\n",
                zp_curve_name(kc), zp_key_wires(key), zp_key_public(key), __builtin_ctz(zp_key_domain_size(key)),
                ps.threads, t_key - t0, ws.compiled ? "compile" : "cache lookup", ws.compile_s,
                ws.compiled ? "" : " (compiled before)", ws.load_s, (double)ws.memory_bytes / (1 << 20), ws.inputs_s,
                ws.calc_s, t_prove - t_wit, ps.matrices_s, ps.synth_s, ps.start_s, ps.finish_s, ps.verify_s,
                t_write - t_prove, t_write - t0, (double)zp_mem_peak_rss() / (1 << 20));
        (void)t_load;
    }
    goto done;
fail:
    rc = zp_cli_fail(&err);
done:
    zp_witness_close(witness);
    free(values);
    zp_witness_module_close(m);
    zp_key_close(key);
    return rc;
}
