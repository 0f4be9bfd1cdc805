/* zkpipe: the command line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"

static const char usage[] =
    "usage: zkpipe <command> [options] [arguments]\n"
    "\n"
    "Groth16 proofs for circom circuits, on BN254 (bn128) and BLS12-381, with\n"
    "snarkjs's files: .zkey proving keys, .wtns witnesses, .r1cs circuits and\n"
    "JSON proofs, public signals and verification keys.\n"
    "\n"
    "commands:\n"
    "  prove <circuit.zkey> <witness.wtns> <proof.json> <public.json>\n"
    "                     make a proof (rapidsnark's argument order)\n"
    "  verify <verification_key.json> <public.json> <proof.json>\n"
    "                     check a proof (snarkjs's argument order)\n"
    "  setup <circuit.r1cs> <circuit.zkey>\n"
    "                     make a proving key with random toxic waste:\n"
    "                     for tests and benchmarks only, never production\n"
    "  export-vk <circuit.zkey> <verification_key.json>\n"
    "                     write a proving key's verification key\n"
    "  info <file>        what a .zkey, .wtns or .r1cs file holds\n"
    "  wtns calculate <circuit.wasm> <input.json> <witness.wtns>\n"
    "                     compute a witness with the circuit's circom wasm,\n"
    "                     compiled to native code once and cached\n"
    "  fullprove <input.json> <circuit.wasm> <circuit.zkey> <proof.json> <public.json>\n"
    "                     witness and proof in one step (snarkjs's order)\n"
    "  zkey new|contribute|beacon|verify|export verificationkey\n"
    "                     a trusted-setup ceremony's phase 2 on snarkjs's files\n"
    "  powersoftau new|contribute|beacon|verify|prepare phase2   (or ptau)\n"
    "                     a trusted-setup ceremony's phase 1 on snarkjs's files\n"
    "  run --key K.zkey --witness W1.wtns [W2.wtns ...] --out DIR\n"
    "                     prove many partitions through the pipeline engine\n"
    "                     under a memory budget, with a live status line\n"
    "  serve [--config FILE] [options]\n"
    "                     the proving daemon: HTTP API, durable jobs, metrics,\n"
    "                     dashboard (docs/daemon.md)\n"
    "  submit, status, await, cancel, keys\n"
    "                     talk to a running daemon (--server URL)\n"
    "\n"
    "'zkpipe <command> --help' tells more. Exit status: 0 success, 1 a proof\n"
    "that does not verify, 2 bad usage, 3 bad input, 4 other failures.\n";

int zp_cli_wants_help(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) return 1;
    }
    return 0;
}

int zp_cli_fail(const zp_error *err) {
    fprintf(stderr, "zkpipe: %s\n", err->message);
    switch (err->status) {
    case ZP_ERR_ARG: return ZP_EXIT_USAGE;
    case ZP_ERR_FORMAT:
    case ZP_ERR_UNSUPPORTED:
    case ZP_ERR_MISMATCH:
    case ZP_ERR_UNSATISFIED: return ZP_EXIT_INPUT;
    case ZP_ERR_INVALID: return ZP_EXIT_INVALID;
    default: return ZP_EXIT_FAILURE;
    }
}

#ifdef ZP_NO_SERVER
/* Built with -DZP_SERVER=OFF: the daemon and its clients are left out, and
 * their names say so rather than "unknown command". */
static int zp_cmd_no_daemon(int argc, char **argv) {
    (void)argc;
    fprintf(stderr, "zkpipe: '%s' needs the daemon, and this zkpipe was built without it (-DZP_SERVER=OFF)\n", argv[0]);
    return ZP_EXIT_USAGE;
}
#endif

int main(int argc, char **argv) {
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? ZP_EXIT_USAGE : ZP_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        puts("zkpipe 0.1.0");
        return ZP_EXIT_OK;
    }
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } commands[] = {
        {"prove", zp_cmd_prove},         {"verify", zp_cmd_verify},       {"setup", zp_cmd_setup},
        {"export-vk", zp_cmd_export_vk}, {"info", zp_cmd_info},           {"run", zp_cmd_run},
        {"wtns", zp_cmd_wtns},           {"fullprove", zp_cmd_fullprove}, {"zkey", zp_cmd_zkey},
        {"powersoftau", zp_cmd_ptau},    {"ptau", zp_cmd_ptau},
#ifndef ZP_NO_SERVER
        {"serve", zp_cmd_serve},         {"submit", zp_cmd_submit},       {"status", zp_cmd_status},
        {"await", zp_cmd_await},         {"cancel", zp_cmd_cancel},       {"keys", zp_cmd_keys},
#else
        {"serve", zp_cmd_no_daemon},     {"submit", zp_cmd_no_daemon},    {"status", zp_cmd_no_daemon},
        {"await", zp_cmd_no_daemon},     {"cancel", zp_cmd_no_daemon},    {"keys", zp_cmd_no_daemon},
#endif
    };
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
        if (strcmp(argv[1], commands[i].name) == 0) return commands[i].fn(argc - 1, argv + 1);
    }
    fprintf(stderr, "zkpipe: unknown command '%s' (try 'zkpipe --help')\n", argv[1]);
    return ZP_EXIT_USAGE;
}
