/* zkpipe zkey new | contribute | beacon | verify | export verificationkey:
 * phase 2 of a trusted-setup ceremony on snarkjs's files (src/ceremony,
 * docs/ceremony.md), with snarkjs's command names and argument orders. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/error.h"
#include "ceremony/ceremony.h"
#include "cli/cli.h"
#include "engine/pool.h"

static const char head[] =
    "usage: zkpipe zkey <subcommand> [options] [arguments]\n"
    "\n"
    "Phase 2 of a Groth16 trusted-setup ceremony, on snarkjs's files and with\n"
    "its argument orders (docs/ceremony.md):\n"
    "\n"
    "  zkey new <circuit.r1cs> <pot.ptau> <circuit_0000.zkey>\n"
    "        the initial key from a circuit and a powers of tau prepared for\n"
    "        phase 2 (byte for byte what 'snarkjs zkey new' writes)\n"
    "  zkey contribute <in.zkey> <out.zkey> --name NAME [--entropy TEXT]\n"
    "        add a contribution: a secret from OS randomness and TEXT, used\n"
    "        in constant time and wiped; prints the contribution hash\n"
    "  zkey beacon <in.zkey> <out.zkey> <HASH> <ITERATIONS> [--name NAME]\n"
    "        the final contribution from a public random beacon (HASH in hex,\n"
    "        SHA-256 iterated 2^ITERATIONS times), as snarkjs makes it\n"
    "  zkey verify <circuit.r1cs> <pot.ptau> <circuit.zkey>\n"
    "        check every contribution and the key against the circuit; exit\n"
    "        0 when all pass, 1 naming the failed check, 3 for a bad file\n"
    "  zkey export verificationkey <circuit.zkey> <verification_key.json>\n"
    "        the same as 'zkpipe export-vk'\n"
    "\n"
    "Options may also be written --name=NAME, -e=TEXT, as snarkjs takes them.\n"
    "\n";

typedef struct zkey_args {
    size_t threads;
    const char *name;
    const char *entropy;
    int quiet;
    uint64_t budget;
} zkey_args;

static const zp_option options[] = {
    ZP_CLI_THREADS_OPTION(zkey_args, threads, "worker threads (default: one per CPU)"),
    {"name", 'n', ZP_OPT_ARG, offsetof(zkey_args, name), 0, 0, NULL, "NAME", "the contribution's name", NULL},
    {"entropy", 'e', ZP_OPT_ARG, offsetof(zkey_args, entropy), 0, 0, NULL, "TEXT",
     "extra entropy for a contribution (default: asked on a terminal, else none)", NULL},
    {"quiet", 'q', ZP_OPT_FLAG, offsetof(zkey_args, quiet), 0, 0, NULL, NULL, "no report and no progress", NULL},
    {"budget", 0, ZP_OPT_MEMORY, offsetof(zkey_args, budget), 0, 0, NULL, "SIZE",
     "memory a step may hold (e.g. 4G): zkey new and verify read the circuit in passes and compose the key a range "
     "of signals at a time to stay within it; a budget below the circuit's minimum is refused, naming it (default: "
     "no limit)",
     NULL},
};

int zp_cmd_zkey(int argc, char **argv) {
    zkey_args args = {0};
    zp_option_table tables[] = {{"options:", options, sizeof options / sizeof *options, &args}};
    zp_cli_command cmd = {"zkey", head, tables, 1, NULL};
    if (argc < 2 || zp_cli_wants_help(argc, argv)) {
        if (argc < 2) return zp_cli_usage_error(&cmd, "a subcommand is needed");
        return zp_cli_help(&cmd);
    }
    const char *sub = argv[1];
    if (strcmp(sub, "export") == 0) {
        if (argc < 3 || strcmp(argv[2], "verificationkey") != 0) {
            return zp_cli_usage_error(&cmd, "zkey export knows only 'verificationkey'");
        }
        argv[2] = "export-vk";
        return zp_cmd_export_vk(argc - 2, argv + 2);
    }
    int npos = zp_cli_parse(&cmd, argc - 1, argv + 1);
    int rc = ZP_EXIT_OK;
    zp_pool *pool = NULL;
    zp_error err = {0};
    if (npos < 0) return ZP_EXIT_USAGE;
    char **pos = argv + 2;
    if (zp_pool_create(&pool, args.threads, &err) != ZP_OK) goto fail;
    zp_parallel par = zp_pool_parallel(pool);
    zp_ceremony_opts opts = {.par = &par, .progress = !args.quiet && isatty(2), .budget = args.budget};
    uint8_t hash[ZP_CEREMONY_HASH_BYTES];
    double t0 = zp_clock_now();
    if (strcmp(sub, "new") == 0 || strcmp(sub, "n") == 0) {
        if (npos != 3) {
            rc = zp_cli_usage_error(&cmd, "zkey new takes 3 arguments, got %d", npos);
            goto done;
        }
        if (zp_ceremony_zkey_new(pos[0], pos[1], pos[2], &opts, hash, &err) != ZP_OK) goto fail;
        if (!args.quiet) {
            zp_ceremony_print_hash(stdout, "Circuit hash: ", hash);
            fprintf(stderr, "zkpipe: wrote %s in %.2f s\n", pos[2], zp_clock_now() - t0);
        }
    } else if (strcmp(sub, "contribute") == 0 || strcmp(sub, "c") == 0) {
        if (npos != 2) {
            rc = zp_cli_usage_error(&cmd, "zkey contribute takes 2 arguments, got %d", npos);
            goto done;
        }
        char line[1024];
        const char *entropy = args.entropy;
        if (entropy == NULL) {
            zp_cli_read_entropy(line, sizeof line);
            entropy = line;
        }
        int ok = zp_ceremony_zkey_contribute(pos[0], pos[1], args.name, entropy, &opts, hash, &err) == ZP_OK;
        explicit_bzero(line, sizeof line);
        if (!ok) goto fail;
        if (!args.quiet) {
            zp_ceremony_print_hash(stdout, "Contribution Hash: ", hash);
            fprintf(stderr, "zkpipe: wrote %s in %.2f s\n", pos[1], zp_clock_now() - t0);
        }
    } else if (strcmp(sub, "beacon") == 0) {
        if (npos != 4) {
            rc = zp_cli_usage_error(&cmd, "zkey beacon takes 4 arguments, got %d", npos);
            goto done;
        }
        char *end = NULL;
        unsigned long e = strtoul(pos[3], &end, 10);
        if (end == pos[3] || *end != 0 || e < 10 || e > 63) {
            rc = zp_cli_usage_error(&cmd, "ITERATIONS must be a number from 10 to 63, not '%s'", pos[3]);
            goto done;
        }
        if (zp_ceremony_zkey_beacon(pos[0], pos[1], args.name, pos[2], (unsigned)e, &opts, hash, &err) != ZP_OK)
            goto fail;
        if (!args.quiet) {
            zp_ceremony_print_hash(stdout, "Contribution Hash: ", hash);
            fprintf(stderr, "zkpipe: wrote %s in %.2f s\n", pos[1], zp_clock_now() - t0);
        }
    } else if (strcmp(sub, "verify") == 0 || strcmp(sub, "v") == 0) {
        if (npos != 3) {
            rc = zp_cli_usage_error(&cmd, "zkey verify takes 3 arguments, got %d", npos);
            goto done;
        }
        if (zp_ceremony_zkey_verify(pos[0], pos[1], pos[2], &opts, args.quiet ? NULL : stdout, &err) != ZP_OK)
            goto fail;
    } else {
        rc = zp_cli_usage_error(&cmd, "unknown subcommand '%s'", sub);
        goto done;
    }
    goto done;
fail:
    rc = zp_cli_fail(&err);
done:
    zp_pool_destroy(pool);
    return rc;
}
