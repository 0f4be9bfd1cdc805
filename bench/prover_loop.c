/* zkpipe-bench-prover: many proofs of one key through the library's prover
 * context (include/zkpipe.h: zp_prover), the key and witness opened once,
 * as a service that keeps its keys loaded proves. Prints the per-proof
 * time (median, min, max) with its parts, and proofs per second; with
 * --jobs J, J contexts prove at once (a daemon's prove_workers), which is
 * how small proofs keep every core busy.
 *
 * What is left out is what a loaded key does not pay again: process
 * start, opening and checking the key, starting the pool, building the
 * constraint matrices (the first proof pays that and is not counted). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "mem/large.h"
#include "stats.h"
#include "zkpipe.h"

static void usage(FILE *f) {
    fprintf(f,
            "usage: zkpipe-bench-prover [--runs N] [--jobs J] [--threads N] [--no-verify] [--no-tables]\n"
            "                           <circuit.zkey> <witness.wtns>\n"
            "Proves the witness N times (default 50) through prover contexts that keep the key\n"
            "loaded, and prints the per-proof time (ms: median, min, max), its parts and proofs\n"
            "per second. J contexts (default 1) prove at once, in J threads, N/J proofs each,\n"
            "sharing the key and witness, with N threads in each pool (default: the CPUs / J):\n"
            "on small circuits one proof at a time leaves cores idle. Each context's first\n"
            "proof is not counted; before it each context makes what it keeps for the key\n"
            "(zp_prover_prepare: the matrices and, for a key of domain up to 2^13, its point\n"
            "tables, which a context otherwise builds after 192 proofs of one key);\n"
            "--no-tables proves without point tables.\n");
}

typedef struct {
    zp_prover *prover;
    const zp_key *key;
    const zp_witness *wit;
    size_t runs;
    double *total, *start, *finish, *verify, *synth; /* runs each */
    double prepare, first;                           /* ms */
    double tables_mb;
    int no_tables;
    zp_error err;
    zp_status st;
} worker;

/* One context's proofs: the first alone, then runs timed ones. */
static void *worker_run(void *arg) {
    worker *w = arg;
    zp_proof proof;
    zp_prove_stats st;
    double t = zp_clock_now();
    w->st = w->no_tables ? ZP_OK : zp_prover_prepare(w->prover, w->key, &w->err);
    w->prepare = (zp_clock_now() - t) * 1e3;
    t = zp_clock_now();
    if (w->st == ZP_OK) w->st = zp_prover_prove(w->prover, &proof, &st, w->key, w->wit, &w->err);
    w->first = (zp_clock_now() - t) * 1e3;
    w->tables_mb = (double)st.tables_bytes / 1e6;
    return NULL;
}

static void *worker_loop(void *arg) {
    worker *w = arg;
    zp_proof proof;
    zp_prove_stats st;
    for (size_t r = 0; r < w->runs && w->st == ZP_OK; r++) {
        double t0 = zp_clock_now();
        w->st = zp_prover_prove(w->prover, &proof, &st, w->key, w->wit, &w->err);
        w->total[r] = (zp_clock_now() - t0) * 1e3;
        w->start[r] = st.start_s * 1e3;
        w->finish[r] = st.finish_s * 1e3;
        w->verify[r] = st.verify_s * 1e3;
        w->synth[r] = st.synth_s * 1e3;
    }
    return NULL;
}

/* fn on every worker, in threads of their own when there are several */
static void run_all(worker *w, size_t jobs, void *(*fn)(void *)) {
    if (jobs == 1) {
        fn(&w[0]);
        return;
    }
    pthread_t *tid = calloc(jobs, sizeof *tid);
    size_t started = 0;
    if (tid != NULL) {
        for (; started < jobs; started++) {
            if (pthread_create(&tid[started], NULL, fn, &w[started]) != 0) break;
        }
    }
    for (size_t j = started; j < jobs; j++) fn(&w[j]); /* no thread: here */
    for (size_t j = 0; j < started; j++) pthread_join(tid[j], NULL);
    free(tid);
}

int main(int argc, char **argv) {
    size_t runs = 50, threads = 0, jobs = 1;
    int skip_verify = 0, no_tables = 0;
    const char *pos[2];
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--runs") == 0 && i + 1 < argc) {
            runs = strtoul(argv[++i], NULL, 10);
        } else if (strcmp(a, "--jobs") == 0 && i + 1 < argc) {
            jobs = strtoul(argv[++i], NULL, 10);
        } else if (strcmp(a, "--threads") == 0 && i + 1 < argc) {
            threads = strtoul(argv[++i], NULL, 10);
        } else if (strcmp(a, "--no-verify") == 0) {
            skip_verify = 1;
        } else if (strcmp(a, "--no-tables") == 0) {
            no_tables = 1;
        } else if (a[0] != '-' && npos < 2) {
            pos[npos++] = a;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (npos != 2 || runs < 1 || runs > 100000 || jobs < 1 || jobs > 256 || threads > 1024) {
        usage(stderr);
        return 2;
    }
    if (threads == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cpus > (long)jobs ? (size_t)cpus / jobs : 1;
    }
    size_t per_job = (runs + jobs - 1) / jobs;
    runs = per_job * jobs;
    zp_error err = {0};
    zp_key *key = NULL;
    zp_witness *wit = NULL;
    double *samples = malloc(5 * runs * sizeof *samples);
    worker *w = calloc(jobs, sizeof *w);
    if (samples == NULL || w == NULL) {
        fprintf(stderr, "out of memory\n");
        return 4;
    }
    double *total = samples, *start = total + runs, *finish = start + runs, *verify = finish + runs,
           *synth = verify + runs;
    zp_prover_options opt = {threads, skip_verify, NULL, no_tables ? 1 : 0, 0};
    double t_open = zp_clock_now();
    if (zp_key_open(&key, pos[0], &err) != ZP_OK || zp_witness_open(&wit, pos[1], &err) != ZP_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    for (size_t j = 0; j < jobs; j++) {
        if (zp_prover_create(&w[j].prover, &opt, &err) != ZP_OK) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        size_t o = j * per_job;
        w[j] = (worker){w[j].prover, key, wit, per_job, total + o, start + o, finish + o, verify + o,
                        synth + o,   0,   0,   0,       no_tables, {0},       ZP_OK};
    }
    t_open = zp_clock_now() - t_open;
    run_all(w, jobs, worker_run);
    double t_first = 0, t_prepare = 0;
    for (size_t j = 0; j < jobs; j++) {
        if (w[j].st != ZP_OK) {
            fprintf(stderr, "%s\n", w[j].err.message);
            return 1;
        }
        if (w[j].first > t_first) t_first = w[j].first;
        if (w[j].prepare > t_prepare) t_prepare = w[j].prepare;
    }
    double t_all = zp_clock_now();
    run_all(w, jobs, worker_loop);
    t_all = zp_clock_now() - t_all;
    for (size_t j = 0; j < jobs; j++) {
        if (w[j].st != ZP_OK) {
            fprintf(stderr, "%s\n", w[j].err.message);
            return 1;
        }
    }
    printf("%s: %s, domain 2^%d, %zu proofs, %zu at once, %zu threads each%s\n", pos[0],
           zp_curve_name(zp_key_curve(key)), __builtin_ctz(zp_key_domain_size(key)), runs, jobs,
           zp_prover_threads(w[0].prover), skip_verify ? ", not self-verified" : "");
    printf("  open key, witness, provers %8.3f ms (once)\n", t_open * 1e3);
    if (!no_tables) {
        printf("  zp_prover_prepare          %8.3f ms (the matrices, the point tables: %.1f MB%s; once)\n", t_prepare,
               w[0].tables_mb, w[0].tables_mb > 0 ? "" : ", none for this key");
    }
    printf("  first proof                %8.3f ms (%s; not counted)\n", t_first,
           no_tables ? "builds the matrices" : "after prepare");
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
    printf("  throughput                 %8.1f proofs/s (%.3f ms a proof)\n", (double)runs / t_all,
           t_all * 1e3 / (double)runs);
    printf("  peak RSS                   %8.1f MiB\n", (double)zp_mem_peak_rss() / (1 << 20));
    free(samples);
    for (size_t j = 0; j < jobs; j++) zp_prover_destroy(w[j].prover);
    free(w);
    zp_witness_close(wit);
    zp_key_close(key);
    return 0;
}
