/* GET /metrics: Prometheus text format 0.0.4. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "server/internal.h"

const double zp_latency_bounds[LATENCY_BUCKETS] = {0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600};
const char *const zp_latency_stage_names[LATENCY_STAGES] = {"queued",     "synth", "wait_prove", "prove",
                                                            "wait_final", "final", "total"};

void server_metrics_job(zp_server *s, const zp_partition_times *t, size_t n) {
    for (size_t i = 0; i < n; i++) {
        double v[LATENCY_STAGES] = {t[i].queued,     t[i].synth, t[i].wait_prove, t[i].prove,
                                    t[i].wait_final, t[i].final, t[i].total};
        for (int g = 0; g < LATENCY_STAGES; g++) {
            int b = 0;
            while (b < LATENCY_BUCKETS && v[g] > zp_latency_bounds[b]) b++;
            s->latency_buckets[g][b]++;
            s->latency_sum[g] += v[g];
            s->latency_count[g]++;
        }
    }
}

typedef struct text {
    char *buf;
    size_t len, cap;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...) {
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = t->buf ? vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap) : -1;
        va_end(ap);
        if (n >= 0 && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = t->cap ? 2 * t->cap : 16384;
        char *grown = realloc(t->buf, cap);
        if (grown == NULL) return;
        t->buf = grown;
        t->cap = cap;
    }
}

static void header(text *t, const char *name, const char *type, const char *help) {
    put(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void server_metrics(zp_server *s, zp_response *resp) {
    zp_engine_stats st;
    zp_engine_stats_get(&st, s->engine);
    zp_store_counts stored;
    zp_error err;
    if (zp_store_count(&stored, s->store, &err) != ZP_OK) memset(&stored, 0, sizeof stored);
    uint64_t *counts = stored.jobs;
    text t = {0};
    pthread_mutex_lock(&s->lock);
    header(&t, "zkpipe_jobs_total", "counter", "Jobs ended since the daemon started, by outcome.");
    static const char *outcomes[3] = {"done", "failed", "cancelled"};
    for (int i = 0; i < 3; i++)
        put(&t, "zkpipe_jobs_total{outcome=\"%s\"} %llu\n", outcomes[i], (unsigned long long)s->outcomes[i]);
    uint64_t n_pending = server_pending_jobs(s);
    header(&t, "zkpipe_jobs", "gauge", "Jobs in the store not yet ended, by state (the whole store: a fleet's).");
    put(&t, "zkpipe_jobs{state=\"queued\"} %llu\nzkpipe_jobs{state=\"running\"} %llu\n", (unsigned long long)counts[0],
        (unsigned long long)counts[1]);
    header(&t, "zkpipe_queue_partitions", "gauge",
           "Partitions in the store waiting to be claimed (queued) and claimed by a daemon (running).");
    put(&t, "zkpipe_queue_partitions{state=\"queued\"} %llu\nzkpipe_queue_partitions{state=\"running\"} %llu\n",
        (unsigned long long)stored.parts_queued, (unsigned long long)stored.parts_running);
    header(&t, "zkpipe_claimed_partitions", "gauge", "Partitions this daemon holds claims on now.");
    put(&t, "zkpipe_claimed_partitions %llu\n", (unsigned long long)s->n_active);
    header(&t, "zkpipe_claims_total", "counter", "Partitions this daemon claimed from the store since it started.");
    put(&t, "zkpipe_claims_total %llu\n", (unsigned long long)s->claims);
    header(&t, "zkpipe_lease_renewals_total", "counter", "Leases this daemon renewed since it started.");
    put(&t, "zkpipe_lease_renewals_total %llu\n", (unsigned long long)s->renewals);
    header(&t, "zkpipe_leases_lost_total", "counter",
           "Claims the store took back from this daemon (taken over after a stall, or their job ended elsewhere).");
    put(&t, "zkpipe_leases_lost_total %llu\n", (unsigned long long)s->leases_lost);
    header(&t, "zkpipe_results_refused_total", "counter",
           "Partition results the store refused because their claim was no longer current (fencing).");
    put(&t, "zkpipe_results_refused_total %llu\n", (unsigned long long)s->results_refused);
    header(&t, "zkpipe_key_mismatch_jobs", "gauge",
           "Jobs waiting for one of this daemon's key ids that it cannot take: pinned to another key file's (or "
           "circuit's) digest than its own.");
    for (size_t i = 0; i < s->n_mismatches; i++) {
        uint64_t jobs = 0;
        int seen = 0;
        for (size_t k = 0; k < s->n_mismatches; k++) {
            if (strcmp(s->mismatches[k].key_id, s->mismatches[i].key_id) != 0) continue;
            seen |= k < i;
            jobs += s->mismatches[k].jobs;
        }
        if (!seen)
            put(&t, "zkpipe_key_mismatch_jobs{key=\"%s\"} %llu\n", s->mismatches[i].key_id, (unsigned long long)jobs);
    }
    header(&t, "zkpipe_store_clock_skew_seconds", "gauge",
           "This daemon's wall clock less the store's (leases and job times are the store's).");
    put(&t, "zkpipe_store_clock_skew_seconds %.3f\n", s->clock_skew);
    header(
        &t, "zkpipe_store_repairs_total", "counter",
        "Damaged store rows repaired since start (claims of no daemon or with absurd leases, done without a proof).");
    put(&t, "zkpipe_store_repairs_total %llu\n", (unsigned long long)s->repairs);
    header(&t, "zkpipe_store_commit_pending", "gauge",
           "Jobs with ended partitions whose record could not be written to the store yet (disk full, I/O errors); "
           "retried.");
    put(&t, "zkpipe_store_commit_pending %llu\n", (unsigned long long)n_pending);
    header(&t, "zkpipe_store_commit_failures_total", "counter",
           "Failed tries at recording a job's end in the store, since the daemon started.");
    put(&t, "zkpipe_store_commit_failures_total %llu\n", (unsigned long long)s->commit_failures);
    header(&t, "zkpipe_proofs_total", "counter", "Proofs made since the daemon started.");
    put(&t, "zkpipe_proofs_total %llu\n", (unsigned long long)s->proofs);
    header(&t, "zkpipe_stage_seconds", "histogram", "Per-partition time in each stage, seconds.");
    for (int g = 0; g < LATENCY_STAGES; g++) {
        uint64_t cum = 0;
        for (int b = 0; b <= LATENCY_BUCKETS; b++) {
            cum += s->latency_buckets[g][b];
            if (b < LATENCY_BUCKETS) {
                put(&t, "zkpipe_stage_seconds_bucket{stage=\"%s\",le=\"%g\"} %llu\n", zp_latency_stage_names[g],
                    zp_latency_bounds[b], (unsigned long long)cum);
            } else {
                put(&t, "zkpipe_stage_seconds_bucket{stage=\"%s\",le=\"+Inf\"} %llu\n", zp_latency_stage_names[g],
                    (unsigned long long)cum);
            }
        }
        put(&t, "zkpipe_stage_seconds_sum{stage=\"%s\"} %.6f\n", zp_latency_stage_names[g], s->latency_sum[g]);
        put(&t, "zkpipe_stage_seconds_count{stage=\"%s\"} %llu\n", zp_latency_stage_names[g],
            (unsigned long long)s->latency_count[g]);
    }
    header(&t, "zkpipe_http_requests_total", "counter", "HTTP requests answered, by status code.");
    for (int h = 1; h < 6; h++) {
        for (int c = 0; c < 100; c++) {
            if (s->http_codes[h][c]) {
                put(&t, "zkpipe_http_requests_total{code=\"%d\"} %llu\n", h * 100 + c,
                    (unsigned long long)s->http_codes[h][c]);
            }
        }
    }
    pthread_mutex_unlock(&s->lock);
    double uptime = st.uptime;
    char degraded[4][512];
    header(&t, "zkpipe_degraded", "gauge", "1 when /v1/status says degraded (see its reasons), else 0.");
    put(&t, "zkpipe_degraded %d\n", server_degraded(s, degraded, 4) > 0);

    static const struct {
        const char *name, *help;
        size_t offset;
    } per_class[] = {
        {"zkpipe_buffer_bytes", "Bytes of tracked buffers in flight, by class.", offsetof(zp_buffer_counts, bytes)},
        {"zkpipe_buffer_count", "Tracked buffers in flight, by class.", offsetof(zp_buffer_counts, count)},
        {"zkpipe_buffer_peak_bytes", "Peak bytes of tracked buffers, by class.",
         offsetof(zp_buffer_counts, peak_bytes)},
    };
    for (size_t m = 0; m < sizeof per_class / sizeof *per_class; m++) {
        header(&t, per_class[m].name, "gauge", per_class[m].help);
        for (int c = 0; c < ZP_BUF_CLASSES; c++) {
            uint64_t v = *(const uint64_t *)((const char *)&st.by_class[c] + per_class[m].offset);
            put(&t, "%s{class=\"%s\"} %llu\n", per_class[m].name, zp_buffer_class_name((zp_buffer_class)c),
                (unsigned long long)v);
        }
    }
    header(&t, "zkpipe_stage_bytes", "gauge", "Bytes of tracked buffers held by partitions in each stage.");
    for (int g = 0; g < ZP_STAGES; g++) {
        put(&t, "zkpipe_stage_bytes{stage=\"%s\"} %llu\n", zp_stage_name((zp_stage)g),
            (unsigned long long)st.by_stage[g].bytes);
    }
    header(&t, "zkpipe_stage_partitions", "gauge", "Partitions in each stage.");
    for (int g = ZP_STAGE_SYNTH; g < ZP_STAGE_DEALLOC; g++) {
        put(&t, "zkpipe_stage_partitions{stage=\"%s\"} %zu\n", zp_stage_name((zp_stage)g), st.partitions_in[g]);
    }
    header(&t, "zkpipe_budget_bytes", "gauge", "The memory budget: the daemon's own memory at start and its buffers.");
    put(&t, "zkpipe_budget_bytes %llu\n", (unsigned long long)st.budget);
    header(&t, "zkpipe_buffer_budget_bytes", "gauge", "The budget less the baseline: what tracked buffers may use.");
    put(&t, "zkpipe_buffer_budget_bytes %llu\n", (unsigned long long)st.buffer_budget);
    header(&t, "zkpipe_baseline_rss_bytes", "gauge", "The daemon's RSS before any buffer (at the engine's start).");
    put(&t, "zkpipe_baseline_rss_bytes %llu\n", (unsigned long long)st.baseline_rss);
    header(&t, "zkpipe_reserved_bytes", "gauge", "Bytes reserved from the budget.");
    put(&t, "zkpipe_reserved_bytes %llu\n", (unsigned long long)st.reserved);
    header(&t, "zkpipe_tracked_bytes", "gauge", "Bytes of all tracked buffers.");
    put(&t, "zkpipe_tracked_bytes %llu\n", (unsigned long long)st.tracked);
    header(&t, "zkpipe_rss_bytes", "gauge", "Resident set size of the daemon.");
    put(&t, "zkpipe_rss_bytes %llu\n", (unsigned long long)st.rss);
    header(&t, "zkpipe_peak_rss_bytes", "gauge", "Peak resident set size of the daemon.");
    put(&t, "zkpipe_peak_rss_bytes %llu\n", (unsigned long long)st.peak_rss);
    header(&t, "zkpipe_admission_waiting", "gauge", "Partitions waiting to be admitted.");
    put(&t, "zkpipe_admission_waiting %zu\n", st.admission_waiting);
    header(&t, "zkpipe_keys_loaded", "gauge", "Keys mapped with their matrices.");
    put(&t, "zkpipe_keys_loaded %zu\n", st.keys_loaded);
    header(&t, "zkpipe_uptime_seconds", "gauge", "Seconds since the daemon started.");
    put(&t, "zkpipe_uptime_seconds %.3f\n", uptime);
    if (t.buf == NULL) {
        server_respond_error(resp, 500, "internal", "out of memory");
        return;
    }
    resp->status = 200;
    resp->content_type = "text/plain; version=0.0.4; charset=utf-8";
    resp->body = t.buf;
    resp->len = t.len;
    resp->body_static = 0;
}
