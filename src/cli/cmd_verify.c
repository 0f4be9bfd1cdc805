/* zkpipe verify: check a proof as snarkjs groth16 verify does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static const char head[] =
    "usage: zkpipe verify [options] <verification_key.json> <public.json> <proof.json>\n"
    "\n"
    "Checks a Groth16 proof against a verification key and public signals\n"
    "(snarkjs's files and argument order). Prints OK and exits 0 when the\n"
    "proof is valid; prints why and exits 1 when it is not; exits 3 when a\n"
    "file is malformed (a point off the curve, a value not below the field's\n"
    "modulus, a proof for another curve, the wrong number of public signals).\n"
    "\n";

typedef struct verify_args {
    int quiet;
} verify_args;

static const zp_option options[] = {
    {"quiet", 'q', ZP_OPT_FLAG, offsetof(verify_args, quiet), 0, 0, NULL, NULL, "print nothing on success", NULL},
};

int zp_cmd_verify(int argc, char **argv) {
    verify_args args = {0};
    zp_option_table tables[] = {{"options:", options, sizeof options / sizeof *options, &args}};
    zp_cli_command cmd = {"verify", head, tables, 1, NULL};
    if (zp_cli_wants_help(argc, argv)) return zp_cli_help(&cmd);
    int npos = zp_cli_parse(&cmd, argc, argv);
    if (npos < 0) return ZP_EXIT_USAGE;
    if (npos != 3) return zp_cli_usage_error(&cmd, "expected 3 arguments, got %d", npos);
    int quiet = args.quiet;
    char **pos = argv + 1;
    zp_error err = {0};
    if (zp_verify_files(pos[0], pos[1], pos[2], &err) != ZP_OK) return zp_cli_fail(&err);
    if (!quiet) puts("OK");
    return ZP_EXIT_OK;
}
