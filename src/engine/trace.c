/* What the engine shows of itself: the trace file (Chrome trace-event
 * JSON, which Perfetto and chrome://tracing open), the log line at each
 * transition, and the sampler that reads RSS against the tracked bytes. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/error.h"
#include "engine/internal.h"
#include "mem/large.h"

zp_status engine_trace_open(zp_engine *e, zp_error *err) {
    if (e->opt.trace_path == NULL) return ZP_OK;
    e->trace = fopen(e->opt.trace_path, "w");
    if (e->trace == NULL) {
        return zp_error_set(err, ZP_ERR_IO, "%s: cannot write the trace: %s", e->opt.trace_path, strerror(errno));
    }
    fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n", e->trace);
    fprintf(e->trace, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"zkpipe memory\"}}");
    e->trace_first = 0;
    return ZP_OK;
}

void engine_trace_close(zp_engine *e) {
    if (e->trace == NULL) return;
    fputs("\n]}\n", e->trace);
    fclose(e->trace);
    e->trace = NULL;
}

static int64_t micros(const zp_engine *e, double t) { return (int64_t)((t - e->t0) * 1e6); }

void engine_trace_span(zp_engine *e, const engine_part *p, zp_stage stage, double begin, double end) {
    if (e->trace == NULL) return;
    pthread_mutex_lock(&e->trace_lock);
    if (p->index == 0 && stage == ZP_STAGE_SYNTH) { /* name the job's track once */
        fprintf(e->trace,
                ",\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%" PRIu64 ",\"args\":{\"name\":\"job %" PRIu64
                "\"}}",
                p->job->id, p->job->id);
    }
    fprintf(e->trace,
            ",\n{\"ph\":\"X\",\"name\":\"%s\",\"cat\":\"stage\",\"pid\":%" PRIu64 ",\"tid\":%zu,\"ts\":%" PRId64
            ",\"dur\":%" PRId64 ",\"args\":{\"partition\":%zu}}",
            zp_stage_name(stage), p->job->id, p->index, micros(e, begin), micros(e, end) - micros(e, begin), p->index);
    pthread_mutex_unlock(&e->trace_lock);
}

static void mib(char *out, size_t size, uint64_t bytes) { snprintf(out, size, "%.1fM", (double)bytes / (1 << 20)); }

void engine_log_transition(zp_engine *e, const engine_part *p, zp_stage from, zp_stage to) {
    if (e->opt.log == NULL) return;
    char line[1024], b[32];
    int n = snprintf(line, sizeof line, "%8.3f job %" PRIu64 " part %zu %s -> %s |", zp_clock_now() - e->t0, p->job->id,
                     p->index, zp_stage_name(from), zp_stage_name(to));
    for (int c = 0; c < ZP_BUF_CLASSES && n < (int)sizeof line; c++) {
        mib(b, sizeof b, atomic_load(&e->tracker.class_bytes[c]));
        n += snprintf(line + n, sizeof line - (size_t)n, " %s %" PRIu64 "/%s", zp_buffer_class_name((zp_buffer_class)c),
                      (uint64_t)atomic_load(&e->tracker.class_count[c]), b);
    }
    if (n < (int)sizeof line) {
        char r[32], t[32], s[32];
        mib(r, sizeof r, e->reserved);
        mib(t, sizeof t, atomic_load(&e->tracker.total));
        mib(s, sizeof s, atomic_load(&e->rss));
        n += snprintf(line + n, sizeof line - (size_t)n, " | tracked %s reserved %s rss %s | in", t, r, s);
    }
    for (int g = ZP_STAGE_SYNTH; g < ZP_STAGE_DEALLOC && n < (int)sizeof line; g++) {
        n += snprintf(line + n, sizeof line - (size_t)n, " %s %zu", zp_stage_name((zp_stage)g), e->in_stage[g]);
    }
    e->opt.log(e->opt.log_arg, line);
}

/* ---- the sampler ------------------------------------------------------- */

static void sample(zp_engine *e) {
    /* tracked read on both sides of RSS: a buffer is counted before its
     * pages are touched and uncounted after they are unmapped, so the
     * larger of the two covers every tracked page in this RSS */
    uint64_t before = atomic_load(&e->tracker.total);
    uint64_t rss = zp_mem_rss();
    uint64_t tracked = atomic_load(&e->tracker.total);
    if (before > tracked) tracked = before;
    atomic_store(&e->tracked_at_rss, tracked);
    atomic_store(&e->rss, rss);
    if (rss > atomic_load(&e->rss_at_peak)) {
        atomic_store(&e->rss_at_peak, rss);
        atomic_store(&e->tracked_at_peak, tracked);
    }
    uint64_t hwm = zp_mem_peak_rss();
    atomic_store(&e->peak_rss, hwm > rss ? hwm : rss);
    if (e->trace == NULL) return;
    int64_t ts = micros(e, zp_clock_now());
    pthread_mutex_lock(&e->trace_lock);
    fprintf(e->trace, ",\n{\"ph\":\"C\",\"name\":\"tracked bytes by class\",\"pid\":0,\"ts\":%" PRId64 ",\"args\":{",
            ts);
    for (int c = 0; c < ZP_BUF_CLASSES; c++) {
        fprintf(e->trace, "%s\"%s\":%" PRIu64, c ? "," : "", zp_buffer_class_name((zp_buffer_class)c),
                (uint64_t)atomic_load(&e->tracker.class_bytes[c]));
    }
    fprintf(e->trace,
            "}},\n{\"ph\":\"C\",\"name\":\"memory\",\"pid\":0,\"ts\":%" PRId64 ",\"args\":{\"rss\":%" PRIu64
            ",\"tracked\":%" PRIu64 ",\"reserved\":%" PRIu64 "}}",
            ts, rss, tracked, e->reserved);
    fprintf(e->trace, ",\n{\"ph\":\"C\",\"name\":\"partitions by stage\",\"pid\":0,\"ts\":%" PRId64 ",\"args\":{", ts);
    for (int g = ZP_STAGE_SYNTH; g < ZP_STAGE_DEALLOC; g++) {
        fprintf(e->trace, "%s\"%s\":%zu", g > ZP_STAGE_SYNTH ? "," : "", zp_stage_name((zp_stage)g), e->in_stage[g]);
    }
    fputs("}}", e->trace);
    pthread_mutex_unlock(&e->trace_lock);
}

void *engine_sampler_main(void *arg) {
    worker_arg wa = *(worker_arg *)arg;
    free(arg);
    zp_engine *e = wa.e;
    pthread_mutex_lock(&e->lock);
    double next_sample = 0;
    while (!e->sampler_stop) {
        double now = zp_clock_now();
        if (now >= next_sample) {
            sample(e); /* reads e->reserved and in_stage under the lock */
            next_sample = now + e->opt.sample_interval;
        }
        /* it also stops the witness calculations past their time limit */
        double wait = engine_witgen_watch(e);
        if (next_sample - now < wait) wait = next_sample - now;
        struct timespec ts = zp_clock_deadline(wait > 0.001 ? wait : 0.001);
        pthread_cond_timedwait(&e->sampler_wake, &e->lock, &ts);
    }
    sample(e);
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

/* ---- how much memory there is ------------------------------------------ */

static uint64_t read_u64_file(const char *path) {
    FILE *f = fopen(path, "r");
    if (f == NULL) return 0;
    char buf[64] = {0};
    uint64_t v = 0;
    if (fgets(buf, sizeof buf, f) && strncmp(buf, "max", 3) != 0) v = strtoull(buf, NULL, 10);
    fclose(f);
    return v;
}

uint64_t engine_available_memory(void) {
    uint64_t avail = 0;
    FILE *f = fopen("/proc/meminfo", "r");
    if (f != NULL) {
        char line[256];
        while (fgets(line, sizeof line, f)) {
            unsigned long long kb;
            if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
                avail = (uint64_t)kb * 1024;
                break;
            }
        }
        fclose(f);
    }
    /* cgroup v2: the room left under memory.max */
    uint64_t max = read_u64_file("/sys/fs/cgroup/memory.max");
    uint64_t cur = read_u64_file("/sys/fs/cgroup/memory.current");
    if (max > 0 && max > cur && (avail == 0 || max - cur < avail)) avail = max - cur;
    return avail;
}
