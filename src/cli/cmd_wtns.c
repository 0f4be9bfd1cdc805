/* zkpipe wtns calculate: circuit.wasm + input.json -> witness.wtns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/error.h"
#include "cli/cli.h"
#include "witness/witness.h"

static const char head[] =
    "usage: zkpipe wtns calculate [options] <circuit.wasm> <input.json> <witness.wtns>\n"
    "\n"
    "Computes the witness of the inputs with the circuit's own witness\n"
    "calculator (the circuit.wasm of `circom --wasm`) and writes it as a .wtns,\n"
    "byte for byte what `snarkjs wtns calculate` writes for the same files.\n"
    "\n"
    "The wasm runs as native code: the first run of a circuit compiles it with\n"
    "wasm2c and the C compiler (seconds to minutes, by its size) into a cache\n"
    "keyed by the wasm's SHA-256; later runs load the cached object at once.\n"
    "\n"
    "input.json is one object: each member an input signal, a number, a decimal\n"
    "or hex string, or a nested array of them (flattened as snarkjs does).\n"
    "A failed assert of the circuit, an unknown signal, too few or too many\n"
    "values: the error on stderr, exit status 3, and no witness written.\n"
    "\n";

static const char tail[] =
    "\n"
    "environment: ZKPIPE_CACHE (the cache, before $XDG_CACHE_HOME/zkpipe and\n"
    "~/.cache/zkpipe), CC (the C compiler, default cc), ZKPIPE_WASM2C (wasm2c).\n";

typedef struct wtns_args {
    const char *cache;
    int sanity_check, verbose;
    double time_limit;
} wtns_args;

static const zp_option options[] = {
    {"cache", 0, ZP_OPT_ARG, offsetof(wtns_args, cache), 0, 0, NULL, "DIR",
     "the folder of compiled calculators (default: see below)", NULL},
    ZP_CLI_TIME_LIMIT_OPTION(wtns_args, time_limit),
    {"sanity-check", 'c', ZP_OPT_FLAG, offsetof(wtns_args, sanity_check), 0, 0, NULL, NULL,
     "let the calculator check every signal as it is set (snarkjs -c)", NULL},
    {"verbose", 'v', ZP_OPT_FLAG, offsetof(wtns_args, verbose), 0, 0, NULL, NULL, "print how long each step took",
     NULL},
};

int zp_cmd_wtns(int argc, char **argv) {
    wtns_args args = {0};
    zp_option_table tables[] = {{"options:", options, sizeof options / sizeof *options, &args}};
    zp_cli_command cmd = {"wtns", head, tables, 1, tail};
    if (zp_cli_wants_help(argc, argv)) return zp_cli_help(&cmd);
    int npos = zp_cli_parse(&cmd, argc, argv);
    if (npos < 0) return ZP_EXIT_USAGE;
    if (npos < 1 || strcmp(argv[1], "calculate") != 0) {
        return zp_cli_usage_error(&cmd, "unknown subcommand '%s' (zkpipe wtns calculate ...)", npos < 1 ? "" : argv[1]);
    }
    if (npos != 4) return zp_cli_usage_error(&cmd, "expected 3 arguments after 'calculate', got %d", npos - 1);
    const char *wasm_path = argv[2], *input_path = argv[3], *wtns_path = argv[4];

    zp_error err = {0};
    zp_witness_module *m = NULL;
    uint8_t *values = NULL;
    zp_witness_run_stats stats = {0};
    zp_witness_compile_options copt = {.cache_dir = args.cache};
    int rc = ZP_EXIT_OK;
    double t0 = zp_clock_now();
    if (zp_witness_load(&m, wasm_path, &copt, args.time_limit, &stats, &err) != ZP_OK) goto fail;
    if (zp_witness_compute_file(&values, m, input_path, args.sanity_check, args.time_limit, stderr, &stats, &err) !=
        ZP_OK)
        goto fail;
    double t_write = zp_clock_now();
    if (zp_witness_write_wtns(wtns_path, m, values, &err) != ZP_OK) goto fail;
    double t_end = zp_clock_now();
    if (args.verbose) {
        fprintf(
            stderr,
            "witness: %zu values, prime of %s, linear memory %.1f MiB\n"
            "  %-13s %8.3f s%s\n"
            "  load          %8.3f s\n"
            "  read inputs   %8.3f s\n"
            "  witness       %8.3f s\n"
            "  write         %8.3f s\n"
            "  total         %8.3f s\n",
            zp_witness_module_size(m),
            zp_witness_module_curve(m) == ZP_CURVE_NONE ? "another field" : zp_curve_name(zp_witness_module_curve(m)),
            (double)stats.memory_bytes / (1 << 20), stats.compiled ? "compile" : "cache lookup", stats.compile_s,
            stats.compiled ? "" : " (compiled before)", stats.load_s, stats.inputs_s, stats.calc_s, t_end - t_write,
            t_end - t0);
    }
    goto done;
fail:
    rc = zp_cli_fail(&err);
done:
    free(values);
    zp_witness_module_close(m);
    return rc;
}
