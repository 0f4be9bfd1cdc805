/* zkpipe verify: check a proof as snarkjs groth16 verify does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

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
    if (zp_verify_files(pos[0], pos[1], pos[2], &err) != ZP_OK) return zp_cli_fail(&err);
    if (!quiet) puts("OK");
    return ZP_EXIT_OK;
}
