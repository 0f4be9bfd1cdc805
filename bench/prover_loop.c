/* zkpipe-bench-prover: many proofs of one key through the library's prover
 * context (include/zkpipe.h: zp_prover), the key and witness opened once,
 * as a service that keeps its keys loaded proves. Prints the per-proof
 * time (median, min, max) with its parts, and proofs per second.
 *
 * What is left out is what a loaded key does not pay again: process
 * start, opening and checking the key, starting the pool, building the
 * constraint matrices (the first proof pays that and is not counted). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "stats.h"
#include "mem/large.h"
#include "zkpipe.h"

static void usage(FILE *f) {
    fprintf(f, "usage: zkpipe-bench-prover [--runs N] [--threads N] [--no-verify] <circuit.zkey> <witness.wtns>\n"
               "Proves the witness N times (default 50) through one prover context, the key\n"
               "loaded once, and prints the per-proof time (ms: median, min, max), its parts and\n"
               "proofs per second. The first proof (which builds the key's matrices) is not counted.\n");
}

int main(int argc, char **argv) {
    size_t runs = 50, threads = 0;
    int skip_verify = 0;
    const char *pos[2];
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--runs") == 0 && i + 1 < argc) {
            runs = strtoul(argv[++i], NULL, 10);
        } else if (strcmp(a, "--threads") == 0 && i + 1 < argc) {
            threads = strtoul(argv[++i], NULL, 10);
        } else if (strcmp(a, "--no-verify") == 0) {
            skip_verify = 1;
        } else if (a[0] != '-' && npos < 2) {
            pos[npos++] = a;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (npos != 2 || runs < 1 || runs > 100000) {
        usage(stderr);
        return 2;
    }
    zp_error err = {0};
    zp_key *key = NULL;
    zp_witness *wit = NULL;
    zp_prover *prover = NULL;
    double *total = malloc(5 * runs * sizeof *total);
    if (total == NULL) {
        fprintf(stderr, "out of memory\n");
        return 4;
    }
    double *start = total + runs, *finish = start + runs, *verify = finish + runs, *synth = verify + runs;
    zp_prover_options opt = {threads, skip_verify, NULL};
    double t_open = zp_clock_now();
    if (zp_key_open(&key, pos[0], &err) != ZP_OK || zp_witness_open(&wit, pos[1], &err) != ZP_OK ||
        zp_prover_create(&prover, &opt, &err) != ZP_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    t_open = zp_clock_now() - t_open;
    zp_proof proof;
    zp_prove_stats st;
    double t_first = zp_clock_now();
    if (zp_prover_prove(prover, &proof, &st, key, wit, &err) != ZP_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    t_first = zp_clock_now() - t_first;
    double t_all = zp_clock_now();
    for (size_t r = 0; r < runs; r++) {
        double t0 = zp_clock_now();
        if (zp_prover_prove(prover, &proof, &st, key, wit, &err) != ZP_OK) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        total[r] = (zp_clock_now() - t0) * 1e3;
        start[r] = st.start_s * 1e3;
        finish[r] = st.finish_s * 1e3;
        verify[r] = st.verify_s * 1e3;
        synth[r] = st.synth_s * 1e3;
    }
    t_all = zp_clock_now() - t_all;
    printf("%s: %s, domain 2^%d, %zu threads, %zu proofs%s\n", pos[0], zp_curve_name(zp_key_curve(key)),
           __builtin_ctz(zp_key_domain_size(key)),
           zp_prover_threads(prover), runs, skip_verify ? ", not self-verified" : "");
    printf("  open key, witness, prover  %8.3f ms (once)\n", t_open * 1e3);
    printf("  first proof                %8.3f ms (builds the matrices; not counted)\n", t_first * 1e3);
    double mn = total[0], mx = total[0];
    for (size_t r = 0; r < runs; r++) {
        if (total[r] < mn) mn = total[r];
        if (total[r] > mx) mx = total[r];
    }
    printf("  per proof                  %8.3f ms median (min %.3f, max %.3f)\n", bench_median(total, runs), mn, mx);
    printf("    synthesis                %8.3f ms\n", bench_median(synth, runs));
    printf("    prove_start              %8.3f ms (NTTs, G1 MSMs)\n", bench_median(start, runs));
    printf("    prove_finish             %8.3f ms (G2 MSM)\n", bench_median(finish, runs));
    printf("    self-verify              %8.3f ms\n", bench_median(verify, runs));
    printf("  throughput                 %8.1f proofs/s\n", (double)runs / t_all);
    printf("  peak RSS                   %8.1f MiB\n", (double)zp_mem_peak_rss() / (1 << 20));
    free(total);
    zp_prover_destroy(prover);
    zp_witness_close(wit);
    zp_key_close(key);
    return 0;
}
