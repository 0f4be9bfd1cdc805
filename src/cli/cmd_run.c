/* zkpipe run: one multi-partition job through the pipeline engine, with a
 * live status line and a summary of where the time and memory went. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "cli/cli.h"
#include "server/config.h"
#include "zkpipe_engine.h"

static const char help[] =
    "usage: zkpipe run --key K.zkey --witness W1.wtns [W2.wtns ...] --out DIR [options]\n"
    "\n"
    "Proves every witness (one partition each) with the key through the\n"
    "pipeline engine: synthesis, prove and finalize stages joined by bounded\n"
    "queues, under a memory budget. Writes DIR/proof_<i>.json and\n"
    "DIR/public_<i>.json for partition i (in the order of the witnesses),\n"
    "each verified before it is written. While it runs, one status line\n"
    "shows the partitions and bytes in each stage; at the end, a summary.\n"
    "\n"
    "options:\n"
    "  --budget SIZE         memory budget for all tracked buffers, e.g. 8G,\n"
    "                        512M (default: available memory minus 10%)\n"
    "  --synth-workers N     synthesis workers (default: one per CPU)\n"
    "  --prove-workers N     prove workers (default 1)\n"
    "  --finalize-workers N  finalize workers (default 1)\n"
    "  --threads N           threads per prove/finalize worker (default: CPUs)\n"
    "  --queue N             capacity of each queue between stages\n"
    "                        (default: the synthesis worker count)\n"
    "  --trace FILE          write a Chrome trace-event JSON (open it in\n"
    "                        https://ui.perfetto.dev): stage spans per\n"
    "                        partition, bytes per class and RSS over time\n"
    "  --log                 print a line at each stage transition with the\n"
    "                        buffers in flight\n"
    "  --quiet               no status line\n"
    "  --no-verify           do not verify the proofs (benchmarks)\n";

static int parse_count(const char *opt, const char *s, size_t max, size_t *out) {
    char *end;
    errno = 0;
    unsigned long v = strtoul(s ? s : "", &end, 10);
    if (s == NULL || errno || *end != '\0' || end == s || v == 0 || v > max) {
        fprintf(stderr, "zkpipe run: %s needs a number from 1 to %zu\n", opt, max);
        return -1;
    }
    *out = v;
    return 0;
}

static void log_line(void *arg, const char *line) {
    (void)arg;
    fprintf(stderr, "%s\n", line);
}

static double mb(uint64_t bytes) { return (double)bytes / (1024.0 * 1024.0); }

static void status_line(const zp_engine_stats *s, size_t total, int tty) {
    fprintf(stderr,
            "%s[%6.1fs] proofs %llu/%zu | synth %zu wait %zu prove %zu wait %zu final %zu | tracked %.0f MB "
            "(witness %.0f abc %.0f msm %.0f) reserved %.0f/%.0f MB | rss %.0f MB%s",
            tty ? "\r" : "", s->uptime, (unsigned long long)s->proofs_done, total,
            s->partitions_in[ZP_STAGE_SYNTH], s->partitions_in[ZP_STAGE_WAIT_PROVE], s->partitions_in[ZP_STAGE_PROVE],
            s->partitions_in[ZP_STAGE_WAIT_FINAL], s->partitions_in[ZP_STAGE_FINAL], mb(s->tracked),
            mb(s->by_class[ZP_BUF_WITNESS].bytes), mb(s->by_class[ZP_BUF_ABC].bytes), mb(s->by_class[ZP_BUF_MSM].bytes),
            mb(s->reserved), mb(s->budget), mb(s->rss), tty ? "\033[K" : "\n");
    fflush(stderr);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median and max of one stage's times over the partitions. */
static void stage_row(const char *name, double *v, size_t n) {
    qsort(v, n, sizeof *v, cmp_double);
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += v[i];
    printf("  %-12s median %8.3f s  max %8.3f s  total %8.3f s\n", name, n ? v[n / 2] : 0, n ? v[n - 1] : 0, sum);
}

static void summary(zp_engine *engine, uint64_t job, size_t n, double wall) {
    zp_engine_stats s;
    zp_engine_stats_get(&s, engine);
    double *v = calloc(n * 7, sizeof *v);
    if (v == NULL) return;
    for (size_t i = 0; i < n; i++) {
        zp_partition_times t;
        zp_error err;
        if (zp_engine_partition_times(&t, engine, job, i, &err) != ZP_OK) continue;
        double row[7] = {t.queued, t.synth, t.wait_prove, t.prove, t.wait_final, t.final, t.total};
        for (int k = 0; k < 7; k++) v[k * n + i] = row[k];
    }
    printf("summary: %zu proofs in %.2f s, %.2f proofs/min (%zu synthesis, %zu prove, %zu finalize workers, "
           "queues of %zu)\n",
           (size_t)s.proofs_done, wall, wall > 0 ? 60.0 * (double)s.proofs_done / wall : 0, s.synth_workers,
           s.prove_workers, s.finalize_workers, s.queue_capacity);
    static const char *names[7] = {"admission", "synthesis", "wait prove", "prove", "wait final", "finalize",
                                   "total"};
    for (int k = 0; k < 7; k++) stage_row(names[k], v + (size_t)k * n, n);
    printf("  memory (MB): budget %.0f, peak reserved %.0f, peak tracked %.0f; peak RSS %.0f "
           "(%.0f above the %.0f at start)\n",
           mb(s.budget), mb(s.peak_reserved), mb(s.peak_tracked), mb(s.peak_rss), mb(s.peak_rss - s.baseline_rss),
           mb(s.baseline_rss));
    printf("  peak tracked by class (MB):");
    for (int c = 0; c < ZP_BUF_CLASSES; c++) {
        printf(" %s %.1f", zp_buffer_class_name((zp_buffer_class)c), mb(s.by_class[c].peak_bytes));
    }
    printf("\n  most partitions waiting: %zu for a prover, %zu for finalize\n",
           s.max_partitions_in[ZP_STAGE_WAIT_PROVE], s.max_partitions_in[ZP_STAGE_WAIT_FINAL]);
    if (s.rss_at_peak > s.baseline_rss) {
        printf("  at the RSS peak, tracked buffers were %.0f MB of the %.0f MB above the start (%.0f%%)\n",
               mb(s.tracked_at_peak_rss), mb(s.rss_at_peak - s.baseline_rss),
               100.0 * (double)s.tracked_at_peak_rss / (double)(s.rss_at_peak - s.baseline_rss));
    }
    free(v);
}

int zp_cmd_run(int argc, char **argv) {
    if (zp_cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return ZP_EXIT_OK;
    }
    zp_engine_options opt = {0};
    const char *key = NULL, *out = NULL;
    const char **witnesses = calloc((size_t)argc, sizeof *witnesses);
    size_t n = 0;
    int quiet = 0;
    if (witnesses == NULL) return ZP_EXIT_FAILURE;
    int rc = ZP_EXIT_USAGE;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--key") == 0 && next) {
            key = argv[++i];
        } else if (strcmp(a, "--out") == 0 && next) {
            out = argv[++i];
        } else if (strcmp(a, "--witness") == 0) {
            while (i + 1 < argc && argv[i + 1][0] != '-') witnesses[n++] = argv[++i];
        } else if (strcmp(a, "--budget") == 0) {
            if ((opt.budget = next ? zp_parse_size(next) : 0) == 0) {
                fprintf(stderr, "zkpipe run: --budget needs a size such as 8G or 512M\n");
                goto done;
            }
            i++;
        } else if (strcmp(a, "--synth-workers") == 0) {
            if (parse_count(a, next, 256, &opt.synth_workers)) goto done;
            i++;
        } else if (strcmp(a, "--prove-workers") == 0) {
            if (parse_count(a, next, 64, &opt.prove_workers)) goto done;
            i++;
        } else if (strcmp(a, "--finalize-workers") == 0) {
            if (parse_count(a, next, 64, &opt.finalize_workers)) goto done;
            i++;
        } else if (strcmp(a, "--threads") == 0 || strcmp(a, "-t") == 0) {
            if (parse_count(a, next, 1024, &opt.prove_threads)) goto done;
            i++;
        } else if (strcmp(a, "--queue") == 0) {
            if (parse_count(a, next, 1 << 20, &opt.queue_capacity)) goto done;
            i++;
        } else if (strcmp(a, "--trace") == 0 && next) {
            opt.trace_path = argv[++i];
        } else if (strcmp(a, "--log") == 0) {
            opt.log = log_line;
        } else if (strcmp(a, "--quiet") == 0) {
            quiet = 1;
        } else if (strcmp(a, "--no-verify") == 0) {
            opt.skip_verify = 1;
        } else {
            fprintf(stderr, "zkpipe run: unknown or incomplete option '%s'\n%s", a, help);
            goto done;
        }
    }
    if (key == NULL || n == 0 || out == NULL) {
        fprintf(stderr, "zkpipe run: --key, --witness and --out are required\n%s", help);
        goto done;
    }
    if (mkdir(out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "zkpipe run: cannot create %s: %s\n", out, strerror(errno));
        rc = ZP_EXIT_FAILURE;
        goto done;
    }

    zp_error err = {0};
    zp_engine *engine = NULL;
    uint64_t job = 0;
    if (zp_engine_create(&engine, &opt, &err) != ZP_OK) {
        rc = zp_cli_fail(&err);
        goto done;
    }
    double t0 = zp_clock_now();
    zp_job_spec spec = {key, n, witnesses, NULL, NULL, 0};
    if (zp_engine_submit(&job, engine, &spec, &err) != ZP_OK) {
        rc = zp_cli_fail(&err);
        zp_engine_destroy(engine);
        goto done;
    }
    int tty = isatty(2);
    zp_job_info info;
    for (;;) {
        if (zp_engine_job(&info, engine, job, tty ? 0.25 : 2.0, &err) != ZP_OK) break;
        if (info.state == ZP_JOB_DONE || info.state == ZP_JOB_FAILED || info.state == ZP_JOB_CANCELLED) break;
        if (!quiet) {
            zp_engine_stats s;
            zp_engine_stats_get(&s, engine);
            status_line(&s, n, tty);
        }
    }
    double wall = zp_clock_now() - t0;
    if (!quiet && tty) fputc('\n', stderr);
    if (info.state != ZP_JOB_DONE) {
        rc = zp_cli_fail(&info.error);
    } else {
        rc = ZP_EXIT_OK;
        size_t len = strlen(out) + 32;
        char *proof = malloc(len), *pub = malloc(len);
        for (size_t i = 0; proof && pub && i < n && rc == ZP_EXIT_OK; i++) {
            snprintf(proof, len, "%s/proof_%zu.json", out, i);
            snprintf(pub, len, "%s/public_%zu.json", out, i);
            if (zp_engine_write_proof(engine, job, i, proof, pub, &err) != ZP_OK) rc = zp_cli_fail(&err);
        }
        free(proof);
        free(pub);
        if (rc == ZP_EXIT_OK) {
            printf("wrote %zu proofs to %s\n", n, out);
            summary(engine, job, n, wall);
        }
    }
    zp_engine_destroy(engine);
done:
    free(witnesses);
    return rc;
}
