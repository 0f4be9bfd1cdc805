/* zkpipe setup: a development proving key from a .r1cs. */
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "base/error.h"
#include "cli/cli.h"
#include "engine/pool.h"
#include "groth16/setup.h"
#include "io/r1cs.h"
#include "io/zkey.h"

static const char head[] =
    "usage: zkpipe setup [options] <circuit.r1cs> <circuit.zkey>\n"
    "\n"
    "Makes a Groth16 proving key for the circuit from random toxic waste (OS\n"
    "randomness, forgotten when done) and writes it as a snarkjs .zkey.\n"
    "\n"
    "  UNSAFE FOR PRODUCTION: nobody can check that the toxic waste was\n"
    "  forgotten, so whoever ran this could forge proofs. Use it for tests and\n"
    "  benchmarks; use a snarkjs ceremony (powersoftau, zkey contribute) for\n"
    "  keys that protect anything.\n"
    "\n"
    "It takes seconds where snarkjs needs a large powers-of-tau file and many\n"
    "minutes. snarkjs reads the key ('snarkjs zkey export verificationkey').\n"
    "\n";

typedef struct setup_args {
    size_t threads;
    int quiet;
} setup_args;

static const zp_option options[] = {
    ZP_CLI_THREADS_OPTION(setup_args, threads, "worker threads (default: one per CPU)"),
    {"quiet", 'q', ZP_OPT_FLAG, offsetof(setup_args, quiet), 0, 0, NULL, NULL, "no warning and no summary", NULL},
};

int zp_cmd_setup(int argc, char **argv) {
    setup_args args = {0};
    zp_option_table tables[] = {{"options:", options, sizeof options / sizeof *options, &args}};
    zp_cli_command cmd = {"setup", head, tables, 1, NULL};
    if (zp_cli_wants_help(argc, argv)) return zp_cli_help(&cmd);
    int npos = zp_cli_parse(&cmd, argc, argv);
    if (npos < 0) return ZP_EXIT_USAGE;
    if (npos != 2) return zp_cli_usage_error(&cmd, "expected 2 arguments, got %d", npos);
    size_t threads = args.threads;
    int quiet = args.quiet;
    char **pos = argv + 1;
    zp_error err = {0};
    zp_r1cs *r1cs = NULL;
    zp_pool *pool = NULL;
    zp_groth16_setup_key key = {0};
    int rc = ZP_EXIT_OK;
    double t0 = zp_clock_now();
    if (zp_r1cs_open(&r1cs, pos[0], &err) != ZP_OK) goto fail;
    const zp_r1cs_header *h = zp_r1cs_get_header(r1cs);
    zp_constraint_system cs = {
        .curve = h->curve,
        .n_wires = h->n_wires,
        .n_public = h->n_pub_out + h->n_pub_in,
        .n_constraints = h->n_constraints,
    };
    for (int k = 0; k < 3; k++) {
        const zp_r1cs_matrix *m = zp_r1cs_get_matrix(r1cs, k);
        cs.m[k].row_start = m->row_start;
        cs.m[k].wire = m->wire;
        cs.m[k].coef = m->coef;
    }
    if (zp_pool_create(&pool, threads, &err) != ZP_OK) goto fail;
    zp_parallel par = zp_pool_parallel(pool);
    if (zp_groth16_setup(&key, &cs, &par, &err) != ZP_OK) {
        zp_error_prefix(&err, "%s: ", pos[0]);
        goto fail;
    }
    if (zp_zkey_write(pos[1], &key.pk, NULL, &err) != ZP_OK) goto fail;
    if (!quiet) {
        fprintf(stderr,
                "zkpipe: wrote %s: %s, %u constraints, %u wires, %u public, domain 2^%d, in %.2f s\n"
                "zkpipe: WARNING: a development key from random toxic waste: unsafe for production\n",
                pos[1], zp_curve_name(cs.curve), cs.n_constraints, cs.n_wires, cs.n_public,
                __builtin_ctz(key.pk.domain_size), zp_clock_now() - t0);
    }
    goto done;
fail:
    rc = zp_cli_fail(&err);
done:
    zp_groth16_setup_free(&key);
    zp_pool_destroy(pool);
    zp_r1cs_close(r1cs);
    return rc;
}
