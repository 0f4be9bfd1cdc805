/* zkpipe-bench-pipeline: cuzk's out-of-memory experiment (docs/architecture.md,
 * "Where it comes from"), reproduced on zkpipe's pipeline engine, and the
 * two ways out of it compared.
 *
 * Workload: --jobs jobs of --partitions partitions each, all on one key,
 * submitted at once with equal priority. The number of synthesis workers is
 * swept (--workers) in three modes:
 *   a  the synthesis slot is released when synthesis ends, and the hand-off
 *      to the provers is unbounded (budget unlimited, queue unbounded): the
 *      configuration that ran cuzk out of memory;
 *   b  the slot is held until a prover takes the partition, queue capacity =
 *      synthesis workers, still no budget: cuzk's fix;
 *   c  zkpipe's memory budget (--budget), queues at their default capacity.
 * Each mode × worker count runs in a fresh child process (this program,
 * re-executed with --one), so that peak RSS (VmHWM) does not carry over
 * from one configuration to the next.
 *
 * Modelling witness generation. In cuzk, synthesis (running the circuit to
 * get the witness, then a, b, c) takes longer per partition than the GPU
 * prove, so many synthesis workers outpace one prover, and with an
 * unbounded hand-off the synthesized partitions pile up. Here a/b/c is a
 * quick sparse product over a witness that comes ready-made from a .wtns,
 * so the synthesis worker gets its witness from a callback
 * (zp_job_spec.witness_fn) that copies a witness read once at start and
 * then SLEEPS --witness-ms milliseconds. The sleep stands for the circuit's
 * witness generation, which in cuzk runs on many cores beside the GPU; it
 * uses none of this machine's cores. By default it is twice the time of
 * one whole proof of the key after synthesis (prove + finalize, measured
 * first with the engine: "calibration"), so one synthesis worker is slower
 * than the prover and nothing queues, while 4 or 8 outpace it.
 *
 * Real witness generation instead (--wasm W --inputs I1.json,I2.json,...):
 * the jobs give the circuit's wasm and the inputs (cycled over the
 * partitions), and the engine computes each witness in the synthesis
 * worker (src/engine/witgen.c), its calculator's memory the witgen class
 * of the budget; --witness and --witness-ms are then not used.
 *
 * Per configuration: proofs per minute (all proofs / wall time from the
 * submission to the last proof), peak RSS (the engine's, which reads
 * VmHWM), peak tracked bytes, the largest number of partitions waiting
 * between stages (for the provers, for finalize), and the gap at the peak:
 * the engine samples RSS and, at the sample with the highest RSS, the
 * tracked bytes then; "explained" = tracked / (RSS - the RSS at engine
 * creation). While it runs, the main thread reads the engine's counters
 * every --interval seconds into a CSV (bytes per buffer class, RSS,
 * reserved, partitions per stage) from which bench/plot_pipeline.js draws
 * one picture per mode. MB = 10^6 bytes.
 *
 * Usage: zkpipe-bench-pipeline --key K.zkey --witness W.wtns[,W2.wtns...]
 *          [--jobs J] [--partitions P] [--workers 1,2,4,8] [--modes a,b,c]
 *          [--budget BYTES|xG|xM|xP] [--witness-ms MS] [--threads N]
 *          [--runs R] [--interval S] [--timeout S] [--no-verify]
 *          [--out DIR] [--json FILE]
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/error.h"
#include "io/wtns.h"
#include "stats.h"
#include "zkpipe_engine.h"

/* ---- options ---- */

#define MAX_WORKERS 16
#define MAX_WITNESSES 64

static const char *opt_key, *opt_witness, *opt_json, *opt_out = "pipeline-out", *opt_budget = "4p";
static size_t opt_jobs = 4, opt_partitions = 6, opt_threads = 0, opt_runs = 1;
static size_t opt_workers[MAX_WORKERS] = {1, 2, 4, 8}, n_workers = 4;
static char opt_modes[4] = "abc";
static double opt_witness_ms = -1, opt_interval = 0.05, opt_timeout = 1800;
static int opt_no_verify;
/* internal: the child's configuration */
static char one_mode;
static size_t one_workers, one_run;
static const char *opt_result, *opt_calibrate;
static const char *opt_wasm, *opt_inputs; /* real witness generation */
static char inputs_buf[8192];
static const char *input_list[MAX_WITNESSES];
static size_t n_inputs;
static uint64_t budget_bytes; /* resolved, for the children */

static void usage(FILE *f) {
    fprintf(f,
            "usage: zkpipe-bench-pipeline --key K.zkey --witness W.wtns[,W2.wtns...] [--jobs J] [--partitions P]\n"
            "         [--workers 1,2,4,8] [--modes a,b,c] [--budget BYTES|xG|xM|xP] [--witness-ms MS]\n"
            "         [--threads N] [--runs R] [--interval S] [--timeout S] [--no-verify] [--out DIR]\n"
            "         [--json FILE]\n"
            "Sweeps the synthesis workers of the pipeline engine in three modes (a: slot released at the\n"
            "end of synthesis, unbounded hand-off; b: slot held, queue = workers; c: zkpipe's budget)\n"
            "and prints proofs/min, peak RSS, peak tracked bytes, partitions waiting and how much of the\n"
            "RSS above the idle baseline the tracked bytes explain. Defaults: 4 jobs of 6 partitions;\n"
            "--budget 4p (key + matrices + 4 partitions' footprint, measured first; G, M: 10^9, 10^6);\n"
            "--witness-ms: twice a measured proof (the modelled witness generation, a sleep: see\n"
            "bench/pipeline.c); --runs 1 (more: the run with the median wall time is reported);\n"
            "--out pipeline-out (CSV of samples, traces, results); --interval 0.05 s.\n"
            "--wasm W --inputs I1.json[,I2.json...]: real witness generation from the circuit's\n"
            "calculator and inputs (cycled over the partitions) instead of --witness and the sleep.\n");
}

static void sleep_s(double s) {
    if (s <= 0) return;
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static double mb(uint64_t bytes) { return (double)bytes / 1e6; }

/* The 1-minute load average: the machine is shared, and proofs/min means
 * little when others ran beside it. */
static double load1(void) {
    double l = NAN;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1) l = NAN;
        fclose(f);
    }
    return l;
}

static int parse_list(const char *s, size_t *out, size_t max, size_t *n) {
    *n = 0;
    while (*s) {
        char *end;
        unsigned long v = strtoul(s, &end, 10);
        if (end == s || v == 0 || v > 256 || *n == max) return -1;
        out[(*n)++] = v;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') return -1;
    }
    return *n ? 0 : -1;
}

/* "123", "2G", "512M", "1.5G"; "4p" (partitions) is resolved after the
 * calibration. Returns 0 for bad input. */
static uint64_t parse_bytes(const char *s) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || v <= 0) return 0;
    double m = 1;
    if (*end == 'G' || *end == 'g') m = 1e9, end++;
    else if (*end == 'M' || *end == 'm') m = 1e6, end++;
    else if (*end == 'K' || *end == 'k') m = 1e3, end++;
    return *end ? 0 : (uint64_t)(v * m);
}

/* ---- witnesses: read once, copied into each partition, then the sleep ---- */

typedef struct witness_src {
    zp_wtns *w[MAX_WITNESSES];
    size_t n;
    double ms;
} witness_src;

static zp_status witness_fill(void *arg, size_t partition, uint64_t *values, size_t count, zp_curve curve,
                              zp_error *err) {
    const witness_src *src = arg;
    const zp_wtns *w = src->w[partition % src->n];
    if (zp_wtns_count(w) != count || zp_wtns_curve(w) != curve)
        return zp_error_set(err, ZP_ERR_MISMATCH, "witness %zu: %zu values on %s, the key wants %zu on %s",
                            partition % src->n, zp_wtns_count(w), zp_curve_name(zp_wtns_curve(w)), count,
                            zp_curve_name(curve));
    memcpy(values, zp_wtns_values(w), count * 4 * sizeof *values);
    sleep_s(src->ms / 1000); /* the modelled witness generation (see the top) */
    return ZP_OK;
}

static void witnesses_open(witness_src *src) {
    char buf[4096];
    src->n = 0;
    if (opt_witness == NULL) return; /* real witness generation: the engine reads the inputs */
    snprintf(buf, sizeof buf, "%s", opt_witness);
    src->n = 0;
    for (char *save = NULL, *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
        zp_error err;
        if (src->n == MAX_WITNESSES) {
            fprintf(stderr, "at most %d witnesses\n", MAX_WITNESSES);
            exit(2);
        }
        if (zp_wtns_open(&src->w[src->n], p, &err) != ZP_OK) {
            fprintf(stderr, "%s\n", err.message);
            exit(3);
        }
        src->n++;
    }
}

static void witnesses_close(witness_src *src) {
    for (size_t i = 0; i < src->n; i++) zp_wtns_close(src->w[i]);
}

/* ---- one configuration (in a child) ---- */

static const char *mode_title(char mode) {
    switch (mode) {
    case 'a': return "slot released at the end of synthesis, unbounded hand-off (cuzk's OOM configuration)";
    case 'b': return "slot held until a prover takes the partition, queue = synthesis workers (cuzk's fix)";
    default: return "zkpipe's memory budget, queues at their default capacity (= synthesis workers)";
    }
}

static void engine_options(zp_engine_options *o, char mode, size_t workers, const char *trace) {
    memset(o, 0, sizeof *o);
    o->synth_workers = workers;
    o->prove_workers = 1;
    o->finalize_workers = 1;
    o->prove_threads = opt_threads;
    o->sample_interval = opt_interval;
    o->trace_path = trace;
    o->skip_verify = opt_no_verify;
    o->budget = mode == 'c' ? budget_bytes : ZP_BUDGET_UNLIMITED;
    o->queue_capacity = mode == 'a' ? ZP_QUEUE_UNBOUNDED : mode == 'b' ? workers : 0;
}

static zp_engine *engine_make(const zp_engine_options *o) {
    zp_engine *e;
    zp_error err;
    if (zp_engine_create(&e, o, &err) != ZP_OK) {
        fprintf(stderr, "engine: %s\n", err.message);
        exit(4);
    }
    return e;
}

static uint64_t job_submit(zp_engine *e, witness_src *src, size_t partitions) {
    zp_job_spec spec = {.key_path = opt_key, .partitions = partitions, .witness_fn = witness_fill, .witness_arg = src};
    const char **inputs = NULL;
    if (opt_wasm != NULL) { /* the engine copies the paths */
        inputs = calloc(partitions, sizeof *inputs);
        if (inputs == NULL) exit(4);
        for (size_t i = 0; i < partitions; i++) inputs[i] = input_list[i % n_inputs];
        spec =
            (zp_job_spec){.key_path = opt_key, .partitions = partitions, .wasm_path = opt_wasm, .input_paths = inputs};
    }
    uint64_t id;
    zp_error err;
    zp_status st = zp_engine_submit(&id, e, &spec, &err);
    free(inputs);
    if (st != ZP_OK) {
        fprintf(stderr, "submit: %s\n", err.message);
        exit(4);
    }
    return id;
}

static void csv_header(FILE *f) {
    fprintf(f, "t,rss,tracked,reserved");
    for (int c = 0; c < ZP_BUF_CLASSES; c++) fprintf(f, ",bytes_%s", zp_buffer_class_name((zp_buffer_class)c));
    for (int s = 0; s < ZP_STAGES; s++) fprintf(f, ",parts_%s", zp_stage_name((zp_stage)s));
    fprintf(f, ",admission_waiting,proofs_done\n");
}

static void csv_row(FILE *f, double t, const zp_engine_stats *s) {
    fprintf(f, "%.3f,%llu,%llu,%llu", t, (unsigned long long)s->rss, (unsigned long long)s->tracked,
            (unsigned long long)s->reserved);
    for (int c = 0; c < ZP_BUF_CLASSES; c++) fprintf(f, ",%llu", (unsigned long long)s->by_class[c].bytes);
    for (int st = 0; st < ZP_STAGES; st++) fprintf(f, ",%zu", s->partitions_in[st]);
    fprintf(f, ",%zu,%llu\n", s->admission_waiting, (unsigned long long)s->proofs_done);
}

/* What the samples say about the counters themselves: totals that do not
 * add up, a budget or queue capacity exceeded. */
typedef struct checks {
    size_t samples, class_sum_off, stage_sum_off, over_budget, reserved_over_budget, queue_over;
    size_t max_wait_prove, max_wait_final;
    uint64_t max_rss, tracked_at_max_rss, max_tracked;
} checks;

static void check_sample(checks *k, const zp_engine_stats *s, char mode, size_t cap) {
    uint64_t by_class = 0, by_stage = 0;
    for (int c = 0; c < ZP_BUF_CLASSES; c++) by_class += s->by_class[c].bytes;
    for (int st = 0; st < ZP_STAGES; st++) by_stage += s->by_stage[st].bytes;
    k->samples++;
    k->class_sum_off += by_class != s->tracked;
    k->stage_sum_off += by_stage != s->tracked;
    if (mode == 'c') {
        k->over_budget += s->tracked > budget_bytes;
        k->reserved_over_budget += s->reserved > budget_bytes;
    }
    if (mode != 'a') k->queue_over += s->partitions_in[ZP_STAGE_WAIT_PROVE] > cap;
    if (s->partitions_in[ZP_STAGE_WAIT_PROVE] > k->max_wait_prove)
        k->max_wait_prove = s->partitions_in[ZP_STAGE_WAIT_PROVE];
    if (s->partitions_in[ZP_STAGE_WAIT_FINAL] > k->max_wait_final)
        k->max_wait_final = s->partitions_in[ZP_STAGE_WAIT_FINAL];
    if (s->rss > k->max_rss) {
        k->max_rss = s->rss;
        k->tracked_at_max_rss = s->tracked;
    }
    if (s->tracked > k->max_tracked) k->max_tracked = s->tracked;
}

static void stats_dump(const zp_engine_stats *s) {
    fprintf(stderr, "  tracked %.1f MB, reserved %.1f MB, rss %.1f MB; admission waiting %zu; proofs %llu\n",
            mb(s->tracked), mb(s->reserved), mb(s->rss), s->admission_waiting, (unsigned long long)s->proofs_done);
    for (int st = 0; st < ZP_STAGES; st++)
        fprintf(stderr, "  %-10s %zu partitions, %.1f MB\n", zp_stage_name((zp_stage)st), s->partitions_in[st],
                mb(s->by_stage[st].bytes));
}

static json_t *counts_json(const zp_engine_stats *s) {
    json_t *classes = json_object(), *stages = json_object();
    for (int c = 0; c < ZP_BUF_CLASSES; c++)
        json_object_set_new(classes, zp_buffer_class_name((zp_buffer_class)c),
                            json_pack("{s:I, s:I}", "peak_bytes", (json_int_t)s->by_class[c].peak_bytes, "bytes_now",
                                      (json_int_t)s->by_class[c].bytes));
    for (int st = 0; st < ZP_STAGES; st++)
        json_object_set_new(stages, zp_stage_name((zp_stage)st), json_integer((json_int_t)s->max_partitions_in[st]));
    return json_pack("{s:o, s:o}", "classes", classes, "max_partitions_in", stages);
}

static int write_json(json_t *doc, const char *path) {
    int rc = json_dump_file(doc, path, JSON_INDENT(1));
    if (rc != 0) fprintf(stderr, "%s: cannot write\n", path);
    json_decref(doc);
    return rc == 0 ? 0 : 3;
}

static int run_one(void) {
    witness_src src;
    witnesses_open(&src); /* before the engine: part of the baseline */
    src.ms = opt_witness_ms;
    char tag[64], csv_path[4096], trace_path[4096];
    snprintf(tag, sizeof tag, "%c-w%zu-r%zu", one_mode, one_workers, one_run);
    snprintf(csv_path, sizeof csv_path, "%s/samples-%s.csv", opt_out, tag);
    snprintf(trace_path, sizeof trace_path, "%s/trace-%s.json", opt_out, tag);
    FILE *csv = fopen(csv_path, "w");
    if (csv == NULL) {
        fprintf(stderr, "%s: %s\n", csv_path, strerror(errno));
        return 3;
    }
    csv_header(csv);
    zp_engine_options o;
    engine_options(&o, one_mode, one_workers, trace_path);
    double load_start = load1();
    zp_engine *e = engine_make(&o);
    uint64_t ids[256];
    double submitted[256];
    double t0 = zp_clock_now();
    for (size_t j = 0; j < opt_jobs; j++) {
        submitted[j] = zp_clock_now() - t0;
        ids[j] = job_submit(e, &src, opt_partitions);
    }
    zp_engine_stats s;
    checks k = {0};
    double t;
    for (;;) {
        zp_engine_stats_get(&s, e);
        t = zp_clock_now() - t0;
        csv_row(csv, t, &s);
        check_sample(&k, &s, one_mode, one_workers);
        if (s.jobs_done + s.jobs_failed + s.jobs_cancelled >= opt_jobs) break;
        if (t > opt_timeout) {
            fprintf(stderr, "mode %c, %zu workers: not done after %.0f s; the engine now:\n", one_mode, one_workers, t);
            stats_dump(&s);
            fclose(csv);
            _exit(5); /* zp_engine_destroy might hang too */
        }
        sleep_s(opt_interval);
    }
    double polled_wall = t;
    /* the buffers go back through the dealloc thread: wait for it */
    double t_drain = zp_clock_now();
    while (zp_clock_now() - t_drain < 10) {
        zp_engine_stats_get(&s, e);
        if (s.partitions_in[ZP_STAGE_DEALLOC] == 0 && s.by_class[ZP_BUF_WITNESS].bytes == 0 &&
            s.by_class[ZP_BUF_ABC].bytes == 0 && s.by_class[ZP_BUF_MSM].bytes == 0)
            break;
        sleep_s(0.01);
    }
    csv_row(csv, zp_clock_now() - t0, &s);
    fclose(csv);

    /* per job and partition */
    json_t *failures = json_array();
    double *tv[6];
    size_t np = 0, total = opt_jobs * opt_partitions;
    for (int i = 0; i < 6; i++) tv[i] = calloc(total, sizeof(double));
    double wall = 0, max_wait_prove_s = 0;
    for (size_t j = 0; j < opt_jobs; j++) {
        zp_job_info info;
        zp_error err;
        if (zp_engine_job(&info, e, ids[j], 0, &err) != ZP_OK) {
            json_array_append_new(failures, json_string(err.message));
            continue;
        }
        if (info.state != ZP_JOB_DONE)
            json_array_append_new(failures,
                                  json_sprintf("job %zu %s: %s", j, zp_job_state_name(info.state), info.error.message));
        for (size_t p = 0; p < opt_partitions; p++) {
            zp_partition_times pt;
            if (zp_engine_partition_times(&pt, e, ids[j], p, &err) != ZP_OK) continue;
            double v[6] = {pt.synth, pt.wait_prove, pt.prove, pt.wait_final, pt.final, pt.total};
            for (int i = 0; i < 6; i++) tv[i][np] = v[i];
            np++;
            if (submitted[j] + pt.total > wall) wall = submitted[j] + pt.total;
            if (pt.wait_prove > max_wait_prove_s) max_wait_prove_s = pt.wait_prove;
        }
    }
    if (wall <= 0 || wall > polled_wall + 1) wall = polled_wall;
    static const char *names[6] = {"synth", "wait_prove", "prove", "wait_final", "final", "total"};
    json_t *times = json_object();
    for (int i = 0; i < 6; i++) {
        json_object_set_new(times, names[i], json_real(bench_median(tv[i], np)));
        free(tv[i]);
    }
    json_object_set_new(times, "max_wait_prove", json_real(max_wait_prove_s));

    uint64_t above = s.rss_at_peak > s.baseline_rss ? s.rss_at_peak - s.baseline_rss : 0;
    uint64_t above_own = k.max_rss > s.baseline_rss ? k.max_rss - s.baseline_rss : 0;
    uint64_t leftover = s.by_class[ZP_BUF_WITNESS].bytes + s.by_class[ZP_BUF_ABC].bytes + s.by_class[ZP_BUF_MSM].bytes;
    json_t *r = json_pack("{s:s, s:i, s:i, s:i, s:i, s:I, s:f, s:f, s:f, s:f}", "mode", (char[]){one_mode, 0},
                          "workers", (int)one_workers, "run", (int)one_run, "jobs", (int)opt_jobs, "partitions",
                          (int)opt_partitions, "proofs", (json_int_t)s.proofs_done, "wall_s", wall, "proofs_per_min",
                          wall > 0 ? 60.0 * (double)s.proofs_done / wall : 0, "witness_ms", opt_witness_ms,
                          "interval_s", opt_interval);
    json_object_set_new(r, "budget",
                        o.budget == ZP_BUDGET_UNLIMITED ? json_null() : json_integer((json_int_t)o.budget));
    json_object_set_new(r, "queue_capacity",
                        one_mode == 'a' ? json_null() : json_integer((json_int_t)s.queue_capacity));
    json_object_set_new(
        r, "memory",
        json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "peak_rss", (json_int_t)s.peak_rss,
                  "baseline_rss", (json_int_t)s.baseline_rss, "rss_at_peak", (json_int_t)s.rss_at_peak,
                  "tracked_at_peak_rss", (json_int_t)s.tracked_at_peak_rss, "peak_tracked", (json_int_t)s.peak_tracked,
                  "peak_reserved", (json_int_t)s.peak_reserved, "sampled_max_rss", (json_int_t)k.max_rss,
                  "sampled_tracked_at_max_rss", (json_int_t)k.tracked_at_max_rss, "leftover_after_drain",
                  (json_int_t)leftover, "reserved_after_drain", (json_int_t)s.reserved));
    json_object_set_new(r, "explained_pct",
                        above ? json_real(100.0 * (double)s.tracked_at_peak_rss / (double)above) : json_null());
    json_object_set_new(r, "sampled_explained_pct",
                        above_own ? json_real(100.0 * (double)k.tracked_at_max_rss / (double)above_own) : json_null());
    json_object_set_new(r, "max_waiting",
                        json_pack("{s:i, s:i}", "prove", (int)s.max_partitions_in[ZP_STAGE_WAIT_PROVE], "final",
                                  (int)s.max_partitions_in[ZP_STAGE_WAIT_FINAL]));
    json_object_set_new(r, "counters", counts_json(&s));
    json_object_set_new(r, "median_times_s", times);
    json_object_set_new(
        r, "checks",
        json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i}", "samples", (int)k.samples, "class_sum_off",
                  (int)k.class_sum_off, "stage_sum_off", (int)k.stage_sum_off, "tracked_over_budget",
                  (int)k.over_budget, "reserved_over_budget", (int)k.reserved_over_budget, "wait_prove_over_capacity",
                  (int)k.queue_over, "sampled_max_wait_prove", (int)k.max_wait_prove, "sampled_max_wait_final",
                  (int)k.max_wait_final));
    json_object_set_new(r, "failures", failures);
    json_object_set_new(r, "jobs_failed", json_integer((json_int_t)s.jobs_failed));
    json_object_set_new(r, "csv", json_string(strrchr(csv_path, '/') + 1));
    json_object_set_new(r, "trace", json_string(strrchr(trace_path, '/') + 1));
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    json_object_set_new(r, "cpu_s",
                        json_real((double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
                                  (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec));
    json_object_set_new(r, "load1_start", json_real(load_start));
    json_object_set_new(r, "load1_end", json_real(load1()));
    double t_destroy = zp_clock_now();
    zp_engine_destroy(e);
    json_object_set_new(r, "destroy_s", json_real(zp_clock_now() - t_destroy));
    witnesses_close(&src);
    return write_json(r, opt_result);
}

/* ---- calibration (in a child): one partition at a time, no witness sleep ---- */

static int run_calibrate(void) {
    witness_src src;
    witnesses_open(&src);
    src.ms = 0;
    zp_key *key;
    zp_error err;
    if (zp_key_open(&key, opt_key, &err) != ZP_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 3;
    }
    json_t *r =
        json_pack("{s:s, s:i, s:i, s:i}", "curve", zp_curve_name(zp_key_curve(key)), "domain",
                  (int)zp_key_domain_size(key), "wires", (int)zp_key_wires(key), "public", (int)zp_key_public(key));
    zp_key_close(key);
    zp_engine_options o;
    engine_options(&o, 'b', 1, NULL);
    zp_engine *e = engine_make(&o);
    enum { N = 4 };
    double synth[N], prove[N], fin[N];
    zp_engine_stats s;
    uint64_t key_b = 0, mat_b = 0, part_b = 0;
    for (int i = 0; i < N; i++) {
        uint64_t id = job_submit(e, &src, 1);
        zp_job_info info;
        zp_partition_times pt;
        if (zp_engine_job(&info, e, id, 600, &err) != ZP_OK || info.state != ZP_JOB_DONE ||
            zp_engine_partition_times(&pt, e, id, 0, &err) != ZP_OK) {
            fprintf(stderr, "calibration: job %s: %s\n", zp_job_state_name(info.state),
                    info.state == ZP_JOB_FAILED ? info.error.message : err.message);
            return 4;
        }
        synth[i] = pt.synth;
        prove[i] = pt.prove;
        fin[i] = pt.final;
        if (i == 0) {
            /* one partition alone: what it reserved or held beyond the key */
            zp_engine_stats_get(&s, e);
            key_b = s.by_class[ZP_BUF_KEY].peak_bytes;
            mat_b = s.by_class[ZP_BUF_MATRICES].peak_bytes;
            uint64_t peak = s.peak_reserved > s.peak_tracked ? s.peak_reserved : s.peak_tracked;
            /* a circuit not measured before reserves the room for its
             * first calculation: what it used is the figure */
            if (opt_wasm != NULL) peak = s.peak_tracked;
            part_b = peak > key_b + mat_b ? peak - key_b - mat_b : 0;
            json_object_set_new(
                r, "first",
                json_pack("{s:I, s:I, s:I}", "peak_reserved", (json_int_t)s.peak_reserved, "peak_tracked",
                          (json_int_t)s.peak_tracked, "peak_rss", (json_int_t)s.peak_rss));
            json_object_set_new(r, "first_counters", counts_json(&s));
        }
    }
    zp_engine_destroy(e);
    witnesses_close(&src);
    /* the first proof loads the key: the medians are of all four */
    json_object_set_new(r, "synth_s", json_real(bench_median(synth, N)));
    json_object_set_new(r, "prove_s", json_real(bench_median(prove, N)));
    json_object_set_new(r, "final_s", json_real(bench_median(fin, N)));
    json_object_set_new(r, "key_bytes", json_integer((json_int_t)key_b));
    json_object_set_new(r, "matrices_bytes", json_integer((json_int_t)mat_b));
    json_object_set_new(r, "partition_bytes", json_integer((json_int_t)part_b));
    json_object_set_new(r, "load1", json_real(load1()));
    return write_json(r, opt_calibrate);
}

/* ---- the sweep (parent): children, table, JSON ---- */

static char self_path[4096];

/* Runs this program again with the common options and extra ones; 0 when
 * it exited 0. */
static int spawn(const char *const *extra, size_t n_extra) {
    char jobs[32], parts[32], wms[32], budget[32], threads[32], interval[32], timeout[32];
    snprintf(jobs, sizeof jobs, "%zu", opt_jobs);
    snprintf(parts, sizeof parts, "%zu", opt_partitions);
    snprintf(wms, sizeof wms, "%.3f", opt_witness_ms < 0 ? 0 : opt_witness_ms);
    snprintf(budget, sizeof budget, "%llu", (unsigned long long)budget_bytes);
    snprintf(threads, sizeof threads, "%zu", opt_threads);
    snprintf(interval, sizeof interval, "%g", opt_interval);
    snprintf(timeout, sizeof timeout, "%g", opt_timeout);
    const char *argv[64] = {self_path,
                            "--key",
                            opt_key,
                            "--jobs",
                            jobs,
                            "--partitions",
                            parts,
                            "--witness-ms",
                            wms,
                            "--budget",
                            budget_bytes ? budget : "1",
                            "--threads",
                            threads,
                            "--interval",
                            interval,
                            "--timeout",
                            timeout,
                            "--out",
                            opt_out,
                            NULL};
    size_t n = 0;
    while (argv[n]) n++;
    if (opt_witness != NULL) {
        argv[n++] = "--witness";
        argv[n++] = opt_witness;
    }
    if (opt_wasm != NULL) {
        argv[n++] = "--wasm";
        argv[n++] = opt_wasm;
        argv[n++] = "--inputs";
        argv[n++] = opt_inputs;
    }
    if (opt_no_verify) argv[n++] = "--no-verify";
    for (size_t i = 0; i < n_extra; i++) argv[n++] = extra[i];
    argv[n] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        execv(self_path, (char *const *)argv);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFSIGNALED(status)) fprintf(stderr, "  (killed by signal %d)\n", WTERMSIG(status));
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static double jnum(json_t *o, const char *path) {
    /* "a.b": nested lookup */
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    char *dot = strchr(buf, '.');
    if (dot) {
        *dot = 0;
        o = json_object_get(o, buf);
        path = path + (dot - buf) + 1;
    }
    json_t *v = json_object_get(o, path);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void print_row(json_t *r) {
    const char *mode = json_string_value(json_object_get(r, "mode"));
    double budget = jnum(r, "budget");
    double base = jnum(r, "memory.baseline_rss"), peak_rss = jnum(r, "memory.rss_at_peak");
    char bud[16] = "-", expl[16] = "-";
    if (!isnan(budget)) snprintf(bud, sizeof bud, "%.0f", budget / 1e6);
    if (!isnan(jnum(r, "explained_pct"))) snprintf(expl, sizeof expl, "%.0f%%", jnum(r, "explained_pct"));
    printf("%-4s %7.0f %10.2f %7.1f %8.0f %7.0f %9.0f %7s %5.0f/%-4.0f %9.0f %9.0f %9s %5.1f\n", mode,
           jnum(r, "workers"), jnum(r, "proofs_per_min"), jnum(r, "wall_s"), jnum(r, "memory.peak_rss") / 1e6,
           base / 1e6, jnum(r, "memory.peak_tracked") / 1e6, bud, jnum(r, "max_waiting.prove"),
           jnum(r, "max_waiting.final"), jnum(r, "memory.tracked_at_peak_rss") / 1e6, (peak_rss - base) / 1e6, expl,
           jnum(r, "load1_end"));
}

static json_t *find(json_t *rows, char mode, size_t workers) {
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r) {
        if (json_string_value(json_object_get(r, "mode"))[0] == mode && (size_t)jnum(r, "workers") == workers) return r;
    }
    return NULL;
}

/* The table: one row per mode and worker count, the run with the median
 * wall time when repeated. Returns those rows. */
static json_t *table(json_t *all) {
    json_t *shown = json_array();
    printf("\n%-4s %7s %10s %7s %8s %7s %9s %7s %10s %9s %9s %9s %5s\n", "mode", "workers", "proofs/min", "wall_s",
           "peak_RSS", "base", "peak_trk", "budget", "waiting", "trk@peak", "RSS-base", "explained", "load");
    printf("%-4s %7s %10s %7s %8s %7s %9s %7s %10s %9s %9s %9s %5s\n", "", "", "", "", "MB", "MB", "MB", "MB",
           "prove/fin", "MB", "MB", "", "");
    for (const char *m = opt_modes; *m; m++)
        for (size_t w = 0; w < n_workers; w++) {
            /* the run with the median wall time */
            json_t *runs[64];
            size_t nr = 0, i;
            json_t *r;
            json_array_foreach(all, i, r) {
                if (json_string_value(json_object_get(r, "mode"))[0] == *m &&
                    (size_t)jnum(r, "workers") == opt_workers[w] && !isnan(jnum(r, "wall_s")) && nr < 64)
                    runs[nr++] = r;
            }
            if (nr == 0) {
                printf("%-4c %7zu   failed\n", *m, opt_workers[w]);
                continue;
            }
            for (size_t a = 1; a < nr; a++)
                for (size_t b = a; b > 0 && jnum(runs[b], "wall_s") < jnum(runs[b - 1], "wall_s"); b--) {
                    json_t *t = runs[b];
                    runs[b] = runs[b - 1];
                    runs[b - 1] = t;
                }
            json_t *rep = runs[(nr - 1) / 2];
            json_object_set_new(rep, "runs_min_wall_s", json_real(jnum(runs[0], "wall_s")));
            json_object_set_new(rep, "runs_max_wall_s", json_real(jnum(runs[nr - 1], "wall_s")));
            json_array_append(shown, rep);
            print_row(rep);
        }

    return shown;
}

/* What the table says, in words, and anything that went wrong; returns
 * the number of problems. */
static int findings(json_t *shown, json_t *all) {
    int problems = 0;
    printf("\n");

    json_t *a_lo = find(shown, 'a', opt_workers[0]), *a_hi = find(shown, 'a', opt_workers[n_workers - 1]);
    if (a_lo && a_hi && n_workers > 1)
        printf("mode a: peak RSS %.0f MB at %zu workers, %.0f MB at %zu (%+.0f%%), up to %.0f partitions waiting\n",
               jnum(a_lo, "memory.peak_rss") / 1e6, opt_workers[0], jnum(a_hi, "memory.peak_rss") / 1e6,
               opt_workers[n_workers - 1], 100.0 * (jnum(a_hi, "memory.peak_rss") / jnum(a_lo, "memory.peak_rss") - 1),
               jnum(a_hi, "max_waiting.prove"));
    for (size_t w = 0; w < n_workers; w++) {
        json_t *b = find(shown, 'b', opt_workers[w]), *c = find(shown, 'c', opt_workers[w]);
        if (c) {
            double pt = jnum(c, "memory.peak_tracked"), pr = jnum(c, "memory.peak_reserved");
            int over = pt > (double)budget_bytes || pr > (double)budget_bytes;
            problems += over;
            printf("mode c, %zu workers: peak tracked %.0f MB, peak reserved %.0f MB, budget %.0f MB: %s",
                   opt_workers[w], pt / 1e6, pr / 1e6, mb(budget_bytes), over ? "OVER BUDGET" : "within");
            if (b)
                printf("; throughput %.0f%% of mode b's",
                       100.0 * jnum(c, "proofs_per_min") / jnum(b, "proofs_per_min"));
            printf("\n");
        }
    }
    size_t i;
    json_t *r;
    json_array_foreach(all, i, r) {
        json_t *f = json_object_get(r, "failures"), *k = json_object_get(r, "checks");
        const char *mode = json_string_value(json_object_get(r, "mode"));
        if (json_object_get(r, "exit")) {
            problems++;
            printf("mode %s, %.0f workers, run %.0f: the child exited %.0f (its messages are above the table)\n", mode,
                   jnum(r, "workers"), jnum(r, "run"), jnum(r, "exit"));
        }
        if (json_array_size(f) > 0) {
            problems++;
            printf("mode %s, %.0f workers: %zu failed jobs, first: %s\n", mode, jnum(r, "workers"), json_array_size(f),
                   json_string_value(json_array_get(f, 0)));
        }
        if (k && (jnum(k, "class_sum_off") > 0 || jnum(k, "stage_sum_off") > 0 || jnum(k, "tracked_over_budget") > 0 ||
                  jnum(k, "reserved_over_budget") > 0 || jnum(k, "wait_prove_over_capacity") > 0)) {
            problems++;
            printf(
                "mode %s, %.0f workers, counters (of %.0f samples): by-class sum != tracked in %.0f, by-stage sum "
                "!= tracked in %.0f, tracked > budget in %.0f, reserved > budget in %.0f, waiting > capacity in %.0f\n",
                mode, jnum(r, "workers"), jnum(k, "samples"), jnum(k, "class_sum_off"), jnum(k, "stage_sum_off"),
                jnum(k, "tracked_over_budget"), jnum(k, "reserved_over_budget"), jnum(k, "wait_prove_over_capacity"));
        }
        if (jnum(r, "memory.leftover_after_drain") > 0) {
            problems++;
            printf("mode %s, %.0f workers: %.1f MB of partition buffers still tracked 10 s after the last proof\n",
                   mode, jnum(r, "workers"), jnum(r, "memory.leftover_after_drain") / 1e6);
        }
    }
    printf(
        "columns: proofs/min = all proofs / wall s (submission to the last proof); peak_RSS = VmHWM of a fresh\n"
        "process; base = RSS at engine creation; peak_trk = peak tracked bytes; waiting = most partitions\n"
        "queued for the prover / for finalize; trk@peak = tracked bytes at the sample of highest RSS;\n"
        "RSS-base = that RSS above base; explained = trk@peak / RSS-base; load = the machine's 1-minute\n"
        "load average at the end of the run (above the CPU count, others slowed it). Samples: %s/samples-*.csv\n",
        opt_out);
    return problems;
}

/* Runs the calibration child; resolves the witness time and the budget
 * from what it measured, and prints the table's header. NULL on failure. */
static json_t *calibrate(void) {
    char path[4096];
    snprintf(path, sizeof path, "%s/calibration.json", opt_out);
    const char *cal_args[] = {"--calibrate", path};
    fprintf(stderr, "calibration: 4 single-partition jobs, one after another\n");
    if (spawn(cal_args, 2) != 0) return NULL;
    json_error_t jerr;
    json_t *cal = json_load_file(path, 0, &jerr);
    if (cal == NULL) {
        fprintf(stderr, "%s: %s\n", path, jerr.text);
        return NULL;
    }
    double proof_s = jnum(cal, "prove_s") + jnum(cal, "final_s");
    if (opt_witness_ms < 0) opt_witness_ms = 2000.0 * proof_s;
    uint64_t key_b = (uint64_t)jnum(cal, "key_bytes"), mat_b = (uint64_t)jnum(cal, "matrices_bytes"),
             part_b = (uint64_t)jnum(cal, "partition_bytes");
    size_t len = strlen(opt_budget);
    if (len > 1 && (opt_budget[len - 1] == 'p' || opt_budget[len - 1] == 'P')) {
        double k = strtod(opt_budget, NULL);
        budget_bytes = key_b + mat_b + (uint64_t)(k * (double)part_b);
    } else {
        budget_bytes = parse_bytes(opt_budget);
    }
    printf("pipeline benchmark: %s (%s, domain %.0f, %.0f wires), %zu jobs x %zu partitions, all submitted at once\n",
           opt_key, json_string_value(json_object_get(cal, "curve")), jnum(cal, "domain"), jnum(cal, "wires"), opt_jobs,
           opt_partitions);
    printf(
        "calibration (one partition at a time, medians of 4; load %.1f): synthesis %.3f s (%s),\n"
        "  prove %.3f s, finalize %.3f s; key %.1f MB, matrices %.1f MB, one partition's footprint %.1f MB\n",
        jnum(cal, "load1"), jnum(cal, "synth_s"), opt_wasm ? "witness generation included" : "no witness sleep",
        jnum(cal, "prove_s"), jnum(cal, "final_s"), mb(key_b), mb(mat_b), mb(part_b));
    if (opt_wasm != NULL) {
        printf(
            "witness generation: real, by the circuit's calculator %s in the synthesis worker, %zu inputs\n"
            "  cycled over the partitions (included in synthesis above: %.1fx prove + finalize)\n",
            opt_wasm, n_inputs, proof_s > 0 ? jnum(cal, "synth_s") / proof_s : 0);
    } else {
        printf(
            "witness generation modelled as a %.0f ms sleep per partition in the synthesis worker (using no CPU\n"
            "  here; in cuzk it runs on many cores beside the GPU); %.1fx prove + finalize\n",
            opt_witness_ms, proof_s > 0 ? opt_witness_ms / 1000 / proof_s : 0);
    }
    printf("modes: a  %s\n       b  %s\n       c  %s: budget %.1f MB (%s)\n", mode_title('a'), mode_title('b'),
           mode_title('c'), mb(budget_bytes), opt_budget);
    printf("1 prover, 1 finalizer, %s threads each; %zu run(s) per configuration%s; MB = 10^6 bytes\n",
           opt_threads ? "--threads" : "all CPUs'", opt_runs,
           opt_runs > 1 ? " (the median by wall time is shown)" : "");
    fflush(stdout);
    return cal;
}

static int run_sweep(void) {
    if (readlink("/proc/self/exe", self_path, sizeof self_path - 1) < 0) {
        fprintf(stderr, "/proc/self/exe: %s\n", strerror(errno));
        return 4;
    }
    if (mkdir(opt_out, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "%s: %s\n", opt_out, strerror(errno));
        return 3;
    }
    json_t *cal = calibrate();
    if (cal == NULL) return 4;
    char path[4096];
    json_error_t jerr;
    json_t *all = json_array();
    for (size_t run = 0; run < opt_runs; run++)
        for (size_t w = 0; w < n_workers; w++)
            for (const char *m = opt_modes; *m; m++) {
                char mode_s[2] = {*m, 0}, workers_s[24], run_s[24];
                snprintf(workers_s, sizeof workers_s, "%zu", opt_workers[w]);
                snprintf(run_s, sizeof run_s, "%zu", run);
                snprintf(path, sizeof path, "%s/result-%c-w%zu-r%zu.json", opt_out, *m, opt_workers[w], run);
                const char *args[] = {"--one", mode_s, workers_s, "--run", run_s, "--result", path};
                fprintf(stderr, "mode %c, %zu synthesis workers, run %zu ...\n", *m, opt_workers[w], run + 1);
                remove(path);
                int rc = spawn(args, 7);
                json_t *r = json_load_file(path, 0, &jerr);
                if (rc != 0 || r == NULL) {
                    fprintf(stderr, "  failed (exit %d)\n", rc);
                    r = json_pack("{s:s, s:i, s:i, s:i}", "mode", mode_s, "workers", (int)opt_workers[w], "run",
                                  (int)run, "exit", rc);
                } else {
                    fprintf(stderr, "  %.1f s, %.2f proofs/min, peak RSS %.0f MB\n", jnum(r, "wall_s"),
                            jnum(r, "proofs_per_min"), jnum(r, "memory.peak_rss") / 1e6);
                }
                json_array_append_new(all, r);
            }

    json_t *shown = table(all);
    int problems = findings(shown, all);
    fflush(stdout);

    if (opt_json) {
        char date[32];
        time_t now = time(NULL);
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
        json_t *workers = json_array();
        for (size_t w = 0; w < n_workers; w++) json_array_append_new(workers, json_integer((json_int_t)opt_workers[w]));
        json_t *doc = json_pack(
            "{s:s, s:i, s:s, s:s?, s:s?, s:s?, s:i, s:i, s:s, s:o, s:f, s:I, s:s, s:i, s:i, s:f, s:s, s:o, s:o, s:o}",
            "date", date, "cpus", (int)sysconf(_SC_NPROCESSORS_ONLN), "key", opt_key, "witness", opt_witness, "wasm",
            opt_wasm, "inputs", opt_inputs, "jobs", (int)opt_jobs, "partitions", (int)opt_partitions, "modes",
            opt_modes, "workers", workers, "witness_ms", opt_witness_ms, "budget", (json_int_t)budget_bytes,
            "budget_option", opt_budget, "threads", (int)opt_threads, "runs", (int)opt_runs, "interval_s", opt_interval,
            "out_dir", opt_out, "calibration", cal, "results", shown, "all_runs", all);
        if (write_json(doc, opt_json) != 0) return 3;
    } else {
        json_decref(cal);
        json_decref(shown);
        json_decref(all);
    }
    return problems ? 1 : 0;
}

/* Every option, internal ones last (redis config.c's habit: one table). */
typedef enum { OPT_STR, OPT_SIZE, OPT_REAL, OPT_FLAG, OPT_WORKERS, OPT_MODES } opt_kind;
static const struct option_def {
    const char *name;
    opt_kind kind;
    void *ptr;
} option_table[] = {
    {"--key", OPT_STR, &opt_key},
    {"--witness", OPT_STR, &opt_witness},
    {"--jobs", OPT_SIZE, &opt_jobs},
    {"--partitions", OPT_SIZE, &opt_partitions},
    {"--workers", OPT_WORKERS, NULL},
    {"--modes", OPT_MODES, NULL},
    {"--budget", OPT_STR, &opt_budget},
    {"--witness-ms", OPT_REAL, &opt_witness_ms},
    {"--threads", OPT_SIZE, &opt_threads},
    {"--runs", OPT_SIZE, &opt_runs},
    {"--interval", OPT_REAL, &opt_interval},
    {"--timeout", OPT_REAL, &opt_timeout},
    {"--no-verify", OPT_FLAG, &opt_no_verify},
    {"--out", OPT_STR, &opt_out},
    {"--json", OPT_STR, &opt_json},
    {"--run", OPT_SIZE, &one_run},
    {"--result", OPT_STR, &opt_result},
    {"--calibrate", OPT_STR, &opt_calibrate},
    {"--wasm", OPT_STR, &opt_wasm},
    {"--inputs", OPT_STR, &opt_inputs},
};

/* 0 when v is a valid value for the option. */
static int option_set(const struct option_def *o, const char *v) {
    char *end;
    switch (o->kind) {
    case OPT_STR: *(const char **)o->ptr = v; return 0;
    case OPT_FLAG: *(int *)o->ptr = 1; return 0;
    case OPT_SIZE: *(size_t *)o->ptr = strtoul(v, &end, 10); return *end || end == v ? -1 : 0;
    case OPT_REAL: *(double *)o->ptr = strtod(v, &end); return *end || end == v ? -1 : 0;
    case OPT_WORKERS: return parse_list(v, opt_workers, MAX_WORKERS, &n_workers);
    case OPT_MODES: {
        size_t n = 0;
        for (const char *p = v; *p; p++) {
            if (*p == ',') continue;
            if (*p < 'a' || *p > 'c' || n == 3 || memchr(opt_modes, *p, n)) return -1;
            opt_modes[n++] = *p;
        }
        opt_modes[n] = 0;
        return n ? 0 : -1;
    }
    }
    return -1;
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "--one") == 0 && i + 2 < argc) { /* internal: --one MODE WORKERS */
            one_mode = argv[i + 1][0];
            one_workers = strtoul(argv[i + 2], NULL, 10);
            i += 2;
            continue;
        }
        const struct option_def *o = NULL;
        for (size_t k = 0; k < sizeof option_table / sizeof *option_table; k++)
            if (strcmp(a, option_table[k].name) == 0) o = &option_table[k];
        int has_value = o && o->kind != OPT_FLAG;
        if (o == NULL || (has_value && i + 1 >= argc) || option_set(o, has_value ? argv[i + 1] : NULL) != 0) {
            fprintf(stderr, "bad or incomplete option: %s\n", a);
            usage(stderr);
            return 2;
        }
        i += has_value;
    }
    if (opt_key == NULL || (opt_witness == NULL) == (opt_wasm == NULL) || (opt_wasm == NULL) != (opt_inputs == NULL)) {
        fprintf(stderr, "--key and either --witness or --wasm with --inputs are required\n");
        usage(stderr);
        return 2;
    }
    if (opt_inputs != NULL) {
        snprintf(inputs_buf, sizeof inputs_buf, "%s", opt_inputs);
        for (char *save = NULL, *p = strtok_r(inputs_buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
            if (n_inputs == MAX_WITNESSES) {
                fprintf(stderr, "at most %d inputs\n", MAX_WITNESSES);
                return 2;
            }
            input_list[n_inputs++] = p;
        }
        if (n_inputs == 0) {
            fprintf(stderr, "--inputs: no files\n");
            return 2;
        }
    }
    size_t blen = strlen(opt_budget);
    int budget_p =
        blen > 1 && (opt_budget[blen - 1] == 'p' || opt_budget[blen - 1] == 'P') && strtod(opt_budget, NULL) > 0;
    if (opt_jobs < 1 || opt_jobs > 256 || opt_partitions < 1 || opt_partitions > 4096 || opt_runs < 1 ||
        opt_runs > 64 || opt_interval <= 0 || opt_timeout <= 0 || (!budget_p && parse_bytes(opt_budget) == 0)) {
        fprintf(stderr,
                "--jobs 1..256, --partitions 1..4096, --runs 1..64, --interval > 0, --timeout > 0, and "
                "--budget BYTES, xG, xM or xP (partitions)\n");
        return 2;
    }
    if (opt_calibrate) return run_calibrate();
    if (one_mode) {
        if (opt_result == NULL || one_workers == 0 || one_mode < 'a' || one_mode > 'c') {
            fprintf(stderr, "--one MODE WORKERS needs --result FILE\n");
            return 2;
        }
        budget_bytes = parse_bytes(opt_budget);
        if (opt_witness_ms < 0) opt_witness_ms = 0;
        return run_one();
    }
    return run_sweep();
}
