/* zkpipe powersoftau (or ptau) new, contribute, beacon, verify, prepare
 * phase2: phase 1 of a ceremony on snarkjs's .ptau files (src/ceremony,
 * docs/ceremony.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/error.h"
#include "ceremony/ceremony.h"
#include "cli/cli.h"
#include "curve/desc.h"
#include "engine/pool.h"

static const char head[] =
    "usage: zkpipe powersoftau <subcommand> [options] [arguments]   ('ptau' is the same)\n"
    "\n"
    "Phase 1 of a trusted-setup ceremony on snarkjs's .ptau files:\n"
    "\n"
    "  powersoftau new <bn128|bls12381> <POWER> <out.ptau>\n"
    "        the first accumulator of a 2^POWER ceremony (snarkjs's bytes);\n"
    "        prints the first challenge hash\n"
    "  powersoftau contribute <in.ptau> <out.ptau> [--name NAME] [--entropy TEXT]\n"
    "        one more contribution: secrets from the OS's randomness and the\n"
    "        entropy (asked on a terminal when not given); prints its\n"
    "        response hash and the next challenge hash\n"
    "  powersoftau beacon <in.ptau> <out.ptau> <HASH> <ITERATIONS> [--name NAME]\n"
    "        the contribution of a public beacon: HASH (hex) hashed\n"
    "        2^ITERATIONS times with SHA-256 (byte for byte snarkjs's file)\n"
    "  powersoftau verify <in.ptau> [--budget SIZE]\n"
    "        check every contribution, the powers and the hashes (and a\n"
    "        prepared file's Lagrange bases), within the budget; exit 0 when\n"
    "        all pass, 1 naming the failed check, 3 for a bad file\n"
    "  powersoftau prepare phase2 <in.ptau> <out.ptau> [--budget SIZE]\n"
    "        the Lagrange bases zkey new needs (byte for byte what 'snarkjs\n"
    "        powersoftau prepare phase2' writes), within the budget\n"
    "\n"
    "Options may also be written --name=NAME, -e=TEXT, as snarkjs takes them.\n"
    "\n";

typedef struct ptau_args {
    size_t threads;
    const char *name;
    const char *entropy;
    uint64_t budget;
    int quiet;
} ptau_args;

static const zp_option options[] = {
    ZP_CLI_THREADS_OPTION(ptau_args, threads, "worker threads (default: one per CPU)"),
    {"name", 'n', ZP_OPT_ARG, offsetof(ptau_args, name), 0, 0, NULL, "NAME", "the contribution's name", NULL},
    {"entropy", 'e', ZP_OPT_ARG, offsetof(ptau_args, entropy), 0, 0, NULL, "TEXT",
     "extra entropy for a contribution (default: asked on a terminal, else none)", NULL},
    {"budget", 0, ZP_OPT_MEMORY, offsetof(ptau_args, budget), 0, 0, NULL, "SIZE",
     "prepare phase2 and verify: the most memory it may hold, e.g. 4G, 512M; prepare transforms a level larger "
     "than that in parts through a temporary file beside the output, verify sums a section a part at a time; a "
     "budget below the step's minimum is refused, naming it (default: no limit). contribute and beacon hold under "
     "100 MiB at any power and take none",
     NULL},
    {"quiet", 'q', ZP_OPT_FLAG, offsetof(ptau_args, quiet), 0, 0, NULL, NULL, "no progress and no summary", NULL},
};

/* contribute, beacon and verify. */
static int phase1_step(zp_cli_command *cmd, ptau_args *args, const char *sub, int argc, char **argv) {
    int npos = zp_cli_parse(cmd, argc, argv);
    int rc = ZP_EXIT_OK;
    zp_pool *pool = NULL;
    zp_error err = {0};
    if (npos < 0) return ZP_EXIT_USAGE;
    char **pos = argv + 1;
    int want = strcmp(sub, "verify") == 0 ? 1 : strcmp(sub, "beacon") == 0 ? 4 : 2;
    if (npos != want) {
        rc =
            zp_cli_usage_error(cmd, "powersoftau %s takes %d argument%s, got %d", sub, want, want > 1 ? "s" : "", npos);
        goto done;
    }
    if (args->budget != 0 && strcmp(sub, "verify") != 0) {
        rc = zp_cli_usage_error(cmd, "powersoftau %s takes no --budget (only prepare phase2 and verify do)", sub);
        goto done;
    }
    if (zp_pool_create(&pool, args->threads, &err) != ZP_OK) goto fail;
    zp_parallel par = zp_pool_parallel(pool);
    zp_ceremony_opts opts = {.par = &par, .progress = !args->quiet && isatty(2), .budget = args->budget};
    uint8_t response[ZP_CEREMONY_HASH_BYTES], next[ZP_CEREMONY_HASH_BYTES];
    double t0 = zp_clock_now();
    if (strcmp(sub, "verify") == 0) {
        if (zp_ceremony_ptau_verify(pos[0], &opts, args->quiet ? NULL : stdout, &err) != ZP_OK) goto fail;
        goto done;
    }
    if (!args->quiet && zp_ceremony_ptau_prepared(pos[0])) {
        fprintf(stderr,
                "zkpipe: WARNING: %s is prepared for phase 2; %s will not be (its Lagrange sections 12-15 are "
                "dropped, as snarkjs drops them): run 'zkpipe powersoftau prepare phase2' on the ceremony's last "
                "file\n",
                pos[0], pos[1]);
    }
    if (strcmp(sub, "contribute") == 0) {
        char line[1024];
        const char *entropy = args->entropy;
        if (entropy == NULL) {
            zp_cli_read_entropy(line, sizeof line);
            entropy = line;
        }
        int ok = zp_ceremony_ptau_contribute(pos[0], pos[1], args->name, entropy, &opts, response, next, &err) == ZP_OK;
        explicit_bzero(line, sizeof line);
        if (!ok) goto fail;
    } else {
        char *end = NULL;
        unsigned long e = strtoul(pos[3], &end, 10);
        if (end == pos[3] || *end != 0 || e < 10 || e > 63) {
            rc = zp_cli_usage_error(cmd, "ITERATIONS must be a number from 10 to 63, not '%s'", pos[3]);
            goto done;
        }
        if (zp_ceremony_ptau_beacon(pos[0], pos[1], args->name, pos[2], (unsigned)e, &opts, response, next, &err) !=
            ZP_OK)
            goto fail;
    }
    if (!args->quiet) {
        zp_ceremony_print_hash(stdout, "Contribution Response Hash imported: ", response);
        zp_ceremony_print_hash(stdout, "Next Challenge Hash: ", next);
        fprintf(stderr, "zkpipe: wrote %s in %.2f s\n", pos[1], zp_clock_now() - t0);
    }
    goto done;
fail:
    rc = zp_cli_fail(&err);
done:
    zp_pool_destroy(pool);
    return rc;
}

int zp_cmd_ptau(int argc, char **argv) {
    ptau_args args = {0};
    zp_option_table tables[] = {{"options:", options, sizeof options / sizeof *options, &args}};
    zp_cli_command cmd = {"powersoftau", head, tables, 1, NULL};
    if (argc < 2) return zp_cli_usage_error(&cmd, "a subcommand is needed");
    if (zp_cli_wants_help(argc, argv)) return zp_cli_help(&cmd);
    if (strcmp(argv[1], "new") == 0) {
        int np = zp_cli_parse(&cmd, argc - 1, argv + 1);
        if (np < 0) return ZP_EXIT_USAGE;
        if (np != 3) return zp_cli_usage_error(&cmd, "usage: powersoftau new <curve> <power> <out.ptau>");
        const zp_curve_desc *d = zp_curve_find(argv[2]);
        char *end = NULL;
        unsigned long power = strtoul(argv[3], &end, 10);
        if (d == NULL) return zp_cli_usage_error(&cmd, "unknown curve '%s' (%s)", argv[2], ZP_CURVE_NAMES);
        if (end == argv[3] || *end != 0 || power < 1 || power > 28) {
            return zp_cli_usage_error(&cmd, "POWER must be a number from 1 to 28, not '%s'", argv[3]);
        }
        zp_error err = {0};
        uint8_t hash[ZP_CEREMONY_HASH_BYTES];
        if (zp_ceremony_ptau_new(d->id, (unsigned)power, argv[4], hash, &err) != ZP_OK) return zp_cli_fail(&err);
        if (!args.quiet) zp_ceremony_print_hash(stdout, "First Contribution Hash: ", hash);
        return ZP_EXIT_OK;
    }
    if (strcmp(argv[1], "contribute") == 0 || strcmp(argv[1], "beacon") == 0 || strcmp(argv[1], "verify") == 0) {
        return phase1_step(&cmd, &args, argv[1], argc - 1, argv + 1);
    }
    if (strcmp(argv[1], "prepare") != 0) {
        return zp_cli_usage_error(&cmd, "'%s' is not done by zkpipe: use snarkjs powersoftau %s", argv[1], argv[1]);
    }
    int npos = zp_cli_parse(&cmd, argc - 1, argv + 1);
    if (npos < 0) return ZP_EXIT_USAGE;
    char **pos = argv + 2;
    if (npos != 3 || strcmp(pos[0], "phase2") != 0) {
        return zp_cli_usage_error(&cmd, "usage: powersoftau prepare phase2 <in.ptau> <out.ptau>");
    }
    zp_error err = {0};
    zp_pool *pool = NULL;
    int rc = ZP_EXIT_OK;
    double t0 = zp_clock_now();
    if (zp_pool_create(&pool, args.threads, &err) != ZP_OK) goto fail;
    zp_parallel par = zp_pool_parallel(pool);
    zp_ceremony_opts opts = {.par = &par, .progress = !args.quiet && isatty(2), .budget = args.budget};
    if (zp_ceremony_ptau_prepare(pos[1], pos[2], &opts, &err) != ZP_OK) goto fail;
    if (!args.quiet) fprintf(stderr, "zkpipe: wrote %s in %.2f s\n", pos[2], zp_clock_now() - t0);
    goto done;
fail:
    rc = zp_cli_fail(&err);
done:
    zp_pool_destroy(pool);
    return rc;
}
