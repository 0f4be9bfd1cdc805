/* zkpipe run: one multi-partition job through the pipeline engine, with a
 * live status line and a summary of where the time and memory went. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/digest.h"
#include "cli/cli.h"
#include "zkpipe_engine.h"

static const char head[] =
    "usage: zkpipe run --key K.zkey --witness W1.wtns [W2.wtns ...] --out DIR [options]\n"
    "       zkpipe run --key K.zkey --wasm circuit.wasm --input I1.json [I2.json ...] --out DIR [options]\n"
    "\n"
    "Proves every witness (one partition each) with the key through the\n"
    "pipeline engine: synthesis, prove and finalize stages joined by bounded\n"
    "queues, under a memory budget. With --wasm and --input, each partition's\n"
    "witness is computed from its input.json by the circuit's own calculator\n"
    "(circom's wasm, compiled once and cached: docs/witness.md) as the first\n"
    "part of synthesis, each synthesis worker with its own instance, whose\n"
    "memory is the \"witgen\" class of the budget. Writes DIR/proof_<i>.json\n"
    "and DIR/public_<i>.json for partition i (in the order given), each\n"
    "verified before it is written. While it runs, one status line shows the\n"
    "partitions and bytes in each stage; at the end, a summary.\n"
    "\n";

static void log_line(void *arg, const char *line);

typedef struct run_args {
    zp_engine_options opt;
    const char *key, *out, *wasm;
    zp_option_list witnesses, inputs;
    int log, quiet;
} run_args;

#define ENG(f) offsetof(run_args, opt.f)
static const zp_option options[] = {
    {"key", 0, ZP_OPT_ARG, offsetof(run_args, key), 0, 0, NULL, "K.zkey", "the proving key (required)", NULL},
    {"witness", 0, ZP_OPT_LIST, offsetof(run_args, witnesses), 0, 0, NULL, "W.wtns",
     "the witnesses, one partition each (or --wasm and\n--input)", NULL},
    {"wasm", 0, ZP_OPT_ARG, offsetof(run_args, wasm), 0, 0, NULL, "circuit.wasm",
     "the circuit's witness calculator (circom --wasm)", NULL},
    {"input", 0, ZP_OPT_LIST, offsetof(run_args, inputs), 0, 0, NULL, "I.json",
     "the circuit's inputs, one partition each (with\n--wasm)", NULL},
    {"cache", 0, ZP_OPT_ARG, ENG(witness_cache_dir), 0, 0, NULL, "DIR",
     "compiled calculators (default: $ZKPIPE_CACHE,\nelse ~/.cache/zkpipe)", NULL},
    {"witness-time-limit", 0, ZP_OPT_SECONDS, ENG(witness_time_limit), 0, 86400, NULL, "S",
     "stop a partition's witness calculation after S\nseconds: the job fails (default: none)", NULL},
    {"out", 0, ZP_OPT_ARG, offsetof(run_args, out), 0, 0, NULL, "DIR", "where the proofs go (required)", NULL},
    {"budget", 0, ZP_OPT_MEMORY, ENG(budget), 1, UINT64_MAX, NULL, "SIZE",
     "memory budget for the whole process, e.g. 8G, 512M:\nits own memory at start, then every tracked "
     "buffer;\na key one partition of which does not fit in memory\nis streamed from its file through a "
     "bounded window,\none below the minimum refused naming it\n(default: available memory minus 10%)",
     NULL},
    {"synth-workers", 0, ZP_OPT_COUNT, ENG(synth_workers), 1, 256, NULL, "N",
     "synthesis workers (default: one per CPU)", NULL},
    {"prove-workers", 0, ZP_OPT_COUNT, ENG(prove_workers), 1, 64, NULL, "N", "prove workers (default 1)", NULL},
    {"finalize-workers", 0, ZP_OPT_COUNT, ENG(finalize_workers), 1, 64, NULL, "N", "finalize workers (default 1)",
     NULL},
    {"threads", 't', ZP_OPT_COUNT, ENG(prove_threads), 1, 1024, NULL, "N",
     "threads per prove/finalize worker (default: CPUs)", NULL},
    {"queue", 0, ZP_OPT_COUNT, ENG(queue_capacity), 1, 1 << 20, NULL, "N",
     "capacity of each queue between stages\n(default: the synthesis worker count)", NULL},
    {"trace", 0, ZP_OPT_ARG, ENG(trace_path), 0, 0, NULL, "FILE",
     "write a Chrome trace-event JSON (open it in\nhttps://ui.perfetto.dev): stage spans per\npartition, bytes per "
     "class and RSS over time",
     NULL},
    {"log", 0, ZP_OPT_FLAG, offsetof(run_args, log), 0, 0, NULL, NULL,
     "print a line at each stage transition with the\nbuffers in flight", NULL},
    {"quiet", 0, ZP_OPT_FLAG, offsetof(run_args, quiet), 0, 0, NULL, NULL, "no status line", NULL},
    {"no-verify", 0, ZP_OPT_FLAG, ENG(skip_verify), 0, 0, NULL, NULL, "do not verify the proofs (benchmarks)", NULL},
};
#undef ENG

static void log_line(void *arg, const char *line) {
    (void)arg;
    fprintf(stderr, "%s\n", line);
}

static double mb(uint64_t bytes) { return (double)bytes / (1024.0 * 1024.0); }

/* One line: the partitions in each stage and the bytes of every class
 * that holds any now (the list of classes is the tracker's own). */
static void status_line(const zp_engine_stats *s, size_t total, int tty) {
    char classes[256] = "";
    size_t used = 0;
    for (int c = 0; c < ZP_BUF_CLASSES && used < sizeof classes; c++) {
        if (s->by_class[c].bytes == 0) continue;
        int w = snprintf(classes + used, sizeof classes - used, "%s%s %.0f", used ? " " : "",
                         zp_buffer_class_name((zp_buffer_class)c), mb(s->by_class[c].bytes));
        if (w < 0) break;
        used += (size_t)w;
    }
    fprintf(stderr,
            "%s[%6.1fs] proofs %llu/%zu | synth %zu wait %zu prove %zu wait %zu final %zu | tracked %.0f MB "
            "(%s) reserved %.0f/%.0f MB | rss %.0f MB%s",
            tty ? "\r" : "", s->uptime, (unsigned long long)s->proofs_done, total, s->partitions_in[ZP_STAGE_SYNTH],
            s->partitions_in[ZP_STAGE_WAIT_PROVE], s->partitions_in[ZP_STAGE_PROVE],
            s->partitions_in[ZP_STAGE_WAIT_FINAL], s->partitions_in[ZP_STAGE_FINAL], mb(s->tracked), classes,
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

static void summary(zp_engine *engine, const char *key_path, uint64_t job, size_t n, double wall) {
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
    printf(
        "summary: %zu proofs in %.2f s, %.2f proofs/min (%zu synthesis, %zu prove, %zu finalize workers, "
        "queues of %zu)\n",
        (size_t)s.proofs_done, wall, wall > 0 ? 60.0 * (double)s.proofs_done / wall : 0, s.synth_workers,
        s.prove_workers, s.finalize_workers, s.queue_capacity);
    static const char *names[7] = {"admission", "synthesis", "wait prove", "prove", "wait final", "finalize", "total"};
    for (int k = 0; k < 7; k++) stage_row(names[k], v + (size_t)k * n, n);
    printf(
        "  memory (MB): budget %.0f (%.0f the process's own: RSS %.0f at start, its code and threads; %.0f for "
        "buffers), peak reserved %.0f, peak tracked %.0f; peak RSS %.0f\n",
        mb(s.budget), mb(s.budget - s.buffer_budget), mb(s.baseline_rss), mb(s.buffer_budget), mb(s.peak_reserved),
        mb(s.peak_tracked), mb(s.peak_rss));
    zp_engine_key_info ki;
    zp_error kerr;
    if (zp_engine_key_describe(&ki, engine, key_path, &kerr) == ZP_OK && ki.streamed) {
        printf(
            "  the key streamed from its file (one partition in memory is more than the budget): a %.1f MB "
            "window per proof, %.1f MB per partition\n",
            mb(ki.window_bytes), mb(ki.partition_bytes));
    }
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

/* Loads the job's circuit in the engine and waits until it is ready or
 * has failed (a compile the first time: seconds to minutes). */
static zp_status wait_circuit(zp_engine *engine, const char *key, const char *wasm, int quiet, zp_error *err) {
    zp_status st = zp_engine_circuit_preload(engine, wasm, err);
    int tty = isatty(2), said = 0;
    double t0 = zp_clock_now();
    for (zp_circuit_state state; st == ZP_OK;) {
        st = zp_engine_circuit_check(engine, key, wasm, &state, err);
        if (st != ZP_OK || state == ZP_CIRCUIT_READY) break;
        if (!quiet && !said && zp_clock_now() - t0 > 0.5) {
            fprintf(stderr, "zkpipe run: compiling the circuit %s (once; then it is in the cache)%s", wasm,
                    tty ? "..." : "\n");
            said = 1;
        }
        usleep(20000);
    }
    if (said && tty) fprintf(stderr, " %.1f s\n", zp_clock_now() - t0);
    return st;
}

int zp_cmd_run(int argc, char **argv) {
    run_args args = {0};
    zp_option_table tables[] = {{"options:", options, sizeof options / sizeof *options, &args}};
    zp_cli_command cmd = {"run", head, tables, 1, NULL};
    if (zp_cli_wants_help(argc, argv)) return zp_cli_help(&cmd);
    const char **witnesses = calloc((size_t)argc, sizeof *witnesses);
    const char **inputs = calloc((size_t)argc, sizeof *inputs);
    if (witnesses == NULL || inputs == NULL) {
        free(witnesses);
        free(inputs);
        return ZP_EXIT_FAILURE;
    }
    args.witnesses.items = witnesses;
    args.inputs.items = inputs;
    int rc = ZP_EXIT_USAGE;
    int npos = zp_cli_parse(&cmd, argc, argv);
    if (npos < 0) goto done;
    if (npos > 0) {
        rc = zp_cli_usage_error(&cmd, "unexpected argument '%s' (witnesses follow --witness, inputs --input)", argv[1]);
        goto done;
    }
    zp_engine_options opt = args.opt;
    const char *key = args.key, *out = args.out;
    int from_inputs = args.inputs.n > 0 || args.wasm != NULL;
    size_t n = from_inputs ? args.inputs.n : args.witnesses.n;
    int quiet = args.quiet;
    if (args.log) opt.log = log_line;
    opt.budget_covers_baseline = 1; /* --budget is the process's, its own memory at start included */
    if (args.witnesses.n > 0 && from_inputs) {
        rc = zp_cli_usage_error(&cmd, "--witness and --wasm/--input are alternatives: give one");
        goto done;
    }
    if (from_inputs && (args.wasm == NULL || args.inputs.n == 0)) {
        rc = zp_cli_usage_error(&cmd, "--wasm and --input go together");
        goto done;
    }
    if (key == NULL || n == 0 || out == NULL) {
        rc = zp_cli_usage_error(&cmd, "--key, --witness (or --wasm and --input) and --out are required");
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
    /* A compile hashes the wasm: libcrypto is loaded before the engine
     * measures the process's own memory, which --budget covers. */
    if ((from_inputs && zp_sha256_load(&err) != ZP_OK) || zp_engine_create(&engine, &opt, &err) != ZP_OK) {
        rc = zp_cli_fail(&err);
        goto done;
    }
    double t0 = zp_clock_now();
    /* A run has nothing else to serve: it waits for its circuit (the
     * engine compiles it in the background, or finds it in the cache), so
     * that a mismatch or a budget too small is refused before anything
     * runs, with the circuit's own memory in the figure. */
    if (from_inputs && wait_circuit(engine, key, args.wasm, quiet, &err) != ZP_OK) {
        rc = zp_cli_fail(&err);
        zp_engine_destroy(engine);
        goto done;
    }
    zp_job_spec spec = {.key_path = key, .partitions = n};
    if (from_inputs) {
        spec.wasm_path = args.wasm;
        spec.input_paths = inputs;
    } else {
        spec.witness_paths = witnesses;
    }
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
            summary(engine, key, job, n, wall);
        }
    }
    zp_engine_destroy(engine);
done:
    free(witnesses);
    free(inputs);
    return rc;
}
