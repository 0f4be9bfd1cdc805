/* zkpipe info: what a .zkey, .wtns or .r1cs file holds. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/file.h"
#include "cli/cli.h"
#include "io/r1cs.h"
#include "io/wtns.h"
#include "io/zkey.h"

static const char head[] =
    "usage: zkpipe info <file>\n"
    "\n"
    "Tells what a snarkjs/circom binary file holds: for a .zkey the curve,\n"
    "wires, public signals, domain and section sizes; for a .wtns the curve and\n"
    "the number of values; for a .r1cs the curve, constraints, wires and\n"
    "signals. The file is validated as the prover would read it.\n";

static int info_zkey(const char *path, long long size) {
    zp_error err = {0};
    zp_zkey *zkey;
    if (zp_zkey_open(&zkey, path, &err) != ZP_OK) return zp_cli_fail(&err);
    const zp_groth16_pk *pk = zp_zkey_pk(zkey);
    printf(
        "%s: Groth16 proving key (.zkey)\n"
        "  curve            %s\n"
        "  wires            %u (1 constant, %u public, %u private)\n"
        "  domain           2^%d = %u\n"
        "  coefficients     %zu (A and B)\n"
        "  file size        %.1f MiB\n",
        path, zp_curve_name(pk->curve), pk->n_vars, pk->n_public, pk->n_vars - pk->n_public - 1,
        __builtin_ctz(pk->domain_size), pk->domain_size, pk->n_coefs, (double)size / (1 << 20));
    zp_zkey_close(zkey);
    return ZP_EXIT_OK;
}

static int info_wtns(const char *path) {
    zp_error err = {0};
    zp_wtns *wtns;
    if (zp_wtns_open(&wtns, path, &err) != ZP_OK) return zp_cli_fail(&err);
    printf(
        "%s: witness (.wtns)\n"
        "  curve            %s\n"
        "  values           %zu (including the constant 1)\n",
        path, zp_curve_name(zp_wtns_curve(wtns)), zp_wtns_count(wtns));
    zp_wtns_close(wtns);
    return ZP_EXIT_OK;
}

static int info_r1cs(const char *path) {
    zp_error err = {0};
    zp_r1cs *r1cs;
    if (zp_r1cs_open(&r1cs, path, &err) != ZP_OK) return zp_cli_fail(&err);
    const zp_r1cs_header *h = zp_r1cs_get_header(r1cs);
    size_t terms = 0;
    for (int k = 0; k < 3; k++) terms += zp_r1cs_get_matrix(r1cs, k)->n_terms;
    printf(
        "%s: constraint system (.r1cs)\n"
        "  curve            %s\n"
        "  constraints      %u (%zu terms)\n"
        "  wires            %u\n"
        "  public outputs   %u\n"
        "  public inputs    %u\n"
        "  private inputs   %u\n"
        "  labels           %llu\n",
        path, zp_curve_name(h->curve), h->n_constraints, terms, h->n_wires, h->n_pub_out, h->n_pub_in, h->n_prv_in,
        (unsigned long long)h->n_labels);
    zp_r1cs_close(r1cs);
    return ZP_EXIT_OK;
}

int zp_cmd_info(int argc, char **argv) {
    zp_cli_command cmd = {"info", head, NULL, 0, NULL}; /* no options */
    if (zp_cli_wants_help(argc, argv)) return zp_cli_help(&cmd);
    int npos = zp_cli_parse(&cmd, argc, argv);
    if (npos < 0) return ZP_EXIT_USAGE;
    if (npos != 1) return zp_cli_usage_error(&cmd, "expected 1 argument, got %d", npos);
    const char *path = argv[1];
    /* The same open as the readers': a FIFO or a device is refused here,
     * not waited on. */
    zp_error err = {0};
    int fd;
    uint64_t size;
    if (zp_file_open_regular(&fd, &size, path, &err) != ZP_OK) return zp_cli_fail(&err);
    char magic[4] = {0};
    ssize_t got = read(fd, magic, sizeof magic);
    close(fd);
    if (got == 4 && memcmp(magic, "zkey", 4) == 0) return info_zkey(path, (long long)size);
    if (got == 4 && memcmp(magic, "wtns", 4) == 0) return info_wtns(path);
    if (got == 4 && memcmp(magic, "r1cs", 4) == 0) return info_r1cs(path);
    fprintf(stderr, "zkpipe: %s: not a .zkey, .wtns or .r1cs file (unknown magic)\n", path);
    return ZP_EXIT_INPUT;
}
