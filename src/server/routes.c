/* The HTTP API's handlers (docs/daemon.md): requests in, JSON out. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/error.h"
#include "server/assets.h"
#include "server/internal.h"

/* ---- responses --------------------------------------------------------- */

void zp_response_free(zp_response *resp) {
    if (!resp->body_static) free(resp->body);
    resp->body = NULL;
}

void server_respond_json(zp_response *resp, int status, json_t *body) {
    resp->status = status;
    resp->content_type = "application/json";
    resp->body = json_dumps(body, JSON_COMPACT);
    resp->body_static = 0;
    if (resp->body == NULL) {
        resp->status = 500;
        resp->body = (char *)"{\"error\":{\"code\":\"internal\",\"message\":\"out of memory\"}}";
        resp->body_static = 1;
    }
    resp->len = strlen(resp->body);
    json_decref(body);
}

void server_respond_error(zp_response *resp, int status, const char *code, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    server_respond_json(resp, status, json_pack("{s:{s:s,s:s}}", "error", "code", code, "message", msg));
}

static const char *code_for(int status) {
    switch (status) {
    case 400: return "bad_request";
    case 401: return "unauthorized";
    case 403: return "forbidden_path";
    case 404: return "not_found";
    case 405: return "method_not_allowed";
    case 409: return "conflict";
    case 413: return "too_large";
    case 422: return "invalid_input";
    case 503: return "shutting_down";
    case 507: return "spool_full";
    default: return "internal";
    }
}

/* ---- helpers ----------------------------------------------------------- */

static json_t *num_or_null(double v) { return v > 0 ? json_real(v) : json_null(); }

static json_t *times_json(uint32_t idx, const zp_partition_times *t) {
    return json_pack("{s:i,s:f,s:f,s:f,s:f,s:f,s:f,s:f}", "partition", (json_int_t)idx, "queued", t->queued, "synth",
                     t->synth, "wait_prove", t->wait_prove, "prove", t->prove, "wait_final", t->wait_final, "final",
                     t->final, "total", t->total);
}

/* A store job as JSON, its state and progress from the engine while it is
 * there. */
static json_t *job_json(zp_server *s, const zp_store_job *job, uint64_t *engine_id_out) {
    const char *state = job->state;
    uint32_t done = job->done;
    pthread_mutex_lock(&s->lock);
    uint64_t engine_id = server_engine_id(s, job->id);
    pthread_mutex_unlock(&s->lock);
    zp_job_info info;
    zp_error err;
    if (engine_id && zp_engine_job(&info, s->engine, engine_id, 0, &err) == ZP_OK &&
        (info.state == ZP_JOB_QUEUED || info.state == ZP_JOB_RUNNING)) {
        state = zp_job_state_name(info.state);
        done = (uint32_t)info.done;
    }
    if (engine_id_out) *engine_id_out = engine_id;
    json_t *o = json_pack("{s:I,s:s,s:i,s:s,s:i,s:i,s:f,s:o}", "id", (json_int_t)job->id, "key", job->key_id,
                          "priority", job->priority, "state", state, "partitions", (int)job->partitions, "done",
                          (int)done, "submitted", job->submitted, "finished", num_or_null(job->finished));
    if (o && job->request_id[0]) json_object_set_new(o, "request_id", json_string(job->request_id));
    if (o && job->error[0] && strcmp(job->state, "failed") == 0) json_object_set_new(o, "error", json_string(job->error));
    return o;
}

static int parse_id(int64_t *id, const char *text) {
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end != '\0' || v <= 0) return 0;
    *id = v;
    return 1;
}

static double query_double(const zp_request *req, const char *name, double def, double max) {
    const char *v = req->query ? req->query(req->query_arg, name) : NULL;
    if (v == NULL) return def;
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end != '\0' || !(d >= 0)) return -1;
    return d > max ? max : d;
}

/* ---- /v1/jobs ---------------------------------------------------------- */

/* A server-side witness path: relative, no "..", and after resolving
 * symlinks still inside witness_dir. */
static unsigned char *read_confined(size_t *size, zp_server *s, const char *rel, int *status, zp_error *err) {
    if (s->cfg.witness_dir == NULL) {
        *status = 403;
        zp_error_set(err, ZP_ERR_ARG, "witness paths are not enabled (no witness_dir)");
        return NULL;
    }
    if (rel[0] == '/' || strstr(rel, "..") != NULL || rel[0] == '\0') {
        *status = 403;
        zp_error_set(err, ZP_ERR_ARG, "witness path '%s' must be relative to witness_dir, without '..'", rel);
        return NULL;
    }
    char root[PATH_MAX], full[PATH_MAX * 2], real[PATH_MAX];
    if (realpath(s->cfg.witness_dir, root) == NULL) {
        *status = 500;
        zp_error_set(err, ZP_ERR_IO, "witness_dir %s: %s", s->cfg.witness_dir, strerror(errno));
        return NULL;
    }
    snprintf(full, sizeof full, "%s/%s", root, rel);
    if (realpath(full, real) == NULL) {
        *status = 404;
        zp_error_set(err, ZP_ERR_IO, "witness '%s': %s", rel, strerror(errno));
        return NULL;
    }
    size_t rl = strlen(root);
    if (strncmp(real, root, rl) != 0 || real[rl] != '/') {
        *status = 403;
        zp_error_set(err, ZP_ERR_ARG, "witness '%s' leads outside witness_dir", rel);
        return NULL;
    }
    int fd = open(real, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        if (fd >= 0) close(fd);
        *status = 404;
        zp_error_set(err, ZP_ERR_IO, "witness '%s': not a readable file", rel);
        return NULL;
    }
    if ((uint64_t)sb.st_size > s->cfg.max_request) {
        close(fd);
        *status = 413;
        zp_error_set(err, ZP_ERR_ARG, "witness '%s' is larger than max_request", rel);
        return NULL;
    }
    unsigned char *buf = malloc(sb.st_size ? (size_t)sb.st_size : 1);
    size_t got = 0;
    while (buf && got < (size_t)sb.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)sb.st_size - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(fd);
    if (buf == NULL || got != (size_t)sb.st_size) {
        free(buf);
        *status = 500;
        zp_error_set(err, ZP_ERR_IO, "witness '%s': read failed", rel);
        return NULL;
    }
    *size = got;
    return buf;
}

static void post_job(zp_server *s, const zp_request *req, zp_response *resp) {
    json_error_t jerr;
    json_t *root = json_loadb(req->body ? req->body : "", req->body_len, JSON_REJECT_DUPLICATES, &jerr);
    if (root == NULL || !json_is_object(root)) {
        json_decref(root);
        server_respond_error(resp, 400, "bad_request", "the body is not a JSON object: %s",
                             root ? "not an object" : jerr.text);
        return;
    }
    const char *key = json_string_value(json_object_get(root, "key"));
    json_t *jprio = json_object_get(root, "priority"), *jreq = json_object_get(root, "request_id");
    json_t *jw = json_object_get(root, "witnesses");
    const char *request_id = json_string_value(jreq);
    int status = 400;
    const char *problem = NULL;
    if (key == NULL) problem = "'key' (a key id string) is required";
    else if (jprio && (!json_is_integer(jprio) || json_integer_value(jprio) < -1000000 ||
                       json_integer_value(jprio) > 1000000)) problem = "'priority' must be an integer";
    else if (jreq && (request_id == NULL || strlen(request_id) == 0 || strlen(request_id) > 128))
        problem = "'request_id' must be a string of 1 to 128 characters";
    else if (!json_is_array(jw) || json_array_size(jw) == 0) problem = "'witnesses' must be a non-empty array";
    else if (json_array_size(jw) > s->cfg.max_partitions) problem = "too many witnesses (max_partitions)";
    if (request_id && !problem) {
        for (const char *c = request_id; *c; c++) {
            if ((unsigned char)*c < 0x20 || *c == 0x7f) problem = "'request_id' must be printable";
        }
    }
    if (problem) {
        json_decref(root);
        server_respond_error(resp, 400, "bad_request", "%s", problem);
        return;
    }
    int priority = jprio ? (int)json_integer_value(jprio) : 0;
    size_t n = json_array_size(jw);
    job_witness *w = calloc(n, sizeof *w);
    unsigned char **owned = calloc(n, sizeof *owned);
    zp_error err = {0};
    int ok = w && owned;
    if (!ok) {
        status = 500;
        zp_error_set(&err, ZP_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; ok && i < n; i++) {
        json_t *item = json_array_get(jw, i);
        const char *data = json_string_value(json_object_get(item, "data"));
        const char *path = json_string_value(json_object_get(item, "path"));
        if (!json_is_object(item) || (data == NULL) == (path == NULL)) {
            zp_error_set(&err, ZP_ERR_ARG, "witness %zu needs exactly one of 'data' (base64) or 'path'", i);
            ok = 0;
        } else if (data) {
            owned[i] = zp_base64_decode(data, json_string_length(json_object_get(item, "data")), &w[i].size);
            if (owned[i] == NULL) {
                zp_error_set(&err, ZP_ERR_ARG, "witness %zu: 'data' is not base64", i);
                ok = 0;
            }
        } else {
            owned[i] = read_confined(&w[i].size, s, path, &status, &err);
            ok = owned[i] != NULL;
        }
        if (ok) w[i].bytes = owned[i];
    }
    if (!ok) {
        server_respond_error(resp, status, code_for(status), "%s", err.message);
    } else {
        int64_t id = 0;
        int existing = 0;
        size_t position = 0;
        zp_status st = server_submit(&id, &existing, &position, s, key, priority, request_id, w, n, &status, &err);
        zp_store_job job;
        if (st != ZP_OK) {
            server_respond_error(resp, status, code_for(status), "%s", err.message);
        } else if (zp_store_get_job(&job, s->store, id, &err) != ZP_OK) {
            server_respond_error(resp, 500, "internal", "%s", err.message);
        } else if (existing && (strcmp(job.key_id, key) != 0 || job.partitions != n)) {
            server_respond_error(resp, 409, "conflict",
                                 "request_id '%s' was used for job %lld with key '%s' and %u witnesses", request_id,
                                 (long long)id, job.key_id, job.partitions);
        } else {
            json_t *o = job_json(s, &job, NULL);
            json_object_set_new(o, "queue_position", json_integer((json_int_t)position));
            server_respond_json(resp, existing ? 200 : 201, o);
        }
    }
    for (size_t i = 0; owned && i < n; i++) free(owned[i]);
    free(owned);
    free(w);
    json_decref(root);
}

/* ctx: the server, the array, and the live state asked for (the store
 * keeps every unended job as "queued"; the engine knows which run). */
static void list_cb(void *arg, const zp_store_job *job) {
    void **ctx = arg;
    json_t *o = job_json(ctx[0], job, NULL);
    const char *want = ctx[2];
    if (want && strcmp(json_string_value(json_object_get(o, "state")), want) != 0) {
        json_decref(o);
        return;
    }
    json_array_append_new(ctx[1], o);
}

static void get_jobs(zp_server *s, const zp_request *req, zp_response *resp) {
    double limit = query_double(req, "limit", 50, 1000);
    const char *state = req->query ? req->query(req->query_arg, "state") : NULL;
    if (limit < 1) {
        server_respond_error(resp, 400, "bad_request", "limit must be a number from 1 to 1000");
        return;
    }
    json_t *arr = json_array();
    int live = state && (strcmp(state, "queued") == 0 || strcmp(state, "running") == 0);
    void *ctx[3] = {s, arr, live ? (void *)state : NULL};
    zp_error err;
    if (zp_store_list(s->store, live ? UINT32_MAX : (uint32_t)limit, live ? "queued" : state, list_cb, ctx, &err) !=
        ZP_OK) {
        json_decref(arr);
        server_respond_error(resp, 400, "bad_request", "%s", err.message);
        return;
    }
    while (json_array_size(arr) > (size_t)limit) json_array_remove(arr, json_array_size(arr) - 1);
    server_respond_json(resp, 200, json_pack("{s:o}", "jobs", arr));
}

typedef struct results_ctx {
    json_t *timings, *proofs;
    int bad;
} results_ctx;

static void results_cb(void *arg, uint32_t idx, const char *proof, const char *pub, const zp_store_times *t) {
    results_ctx *c = arg;
    if (c->timings) json_array_append_new(c->timings, times_json(idx, t));
    if (c->proofs) {
        json_error_t jerr;
        json_t *p = proof ? json_loads(proof, 0, &jerr) : NULL, *u = pub ? json_loads(pub, 0, &jerr) : NULL;
        if (p == NULL || u == NULL) c->bad = 1;
        json_array_append_new(c->proofs, json_pack("{s:i,s:o*,s:o*}", "partition", (int)idx, "proof", p, "public", u));
    }
}

static void get_job(zp_server *s, int64_t id, zp_response *resp) {
    zp_store_job job;
    zp_error err;
    if (zp_store_get_job(&job, s->store, id, &err) != ZP_OK) {
        server_respond_error(resp, 404, "not_found", "no job %lld", (long long)id);
        return;
    }
    uint64_t engine_id;
    json_t *o = job_json(s, &job, &engine_id);
    json_t *timings = json_array();
    if (engine_id) {
        for (uint32_t i = 0; i < job.partitions; i++) {
            zp_partition_times t;
            if (zp_engine_partition_times(&t, s->engine, engine_id, i, &err) == ZP_OK) {
                json_array_append_new(timings, times_json(i, &t));
            }
        }
    } else {
        results_ctx c = {timings, NULL, 0};
        if (zp_store_results(s->store, id, results_cb, &c, &err) != ZP_OK) {
            json_decref(o);
            json_decref(timings);
            server_respond_error(resp, 500, "internal", "%s", err.message);
            return;
        }
    }
    json_object_set_new(o, "timings", timings);
    server_respond_json(resp, 200, o);
}

static int ended(const zp_store_job *job) {
    return strcmp(job->state, "done") == 0 || strcmp(job->state, "failed") == 0 ||
           strcmp(job->state, "cancelled") == 0;
}

static void get_proof(zp_server *s, int64_t id, const zp_request *req, zp_response *resp) {
    double wait = query_double(req, "wait", 0, 600);
    if (wait < 0) {
        server_respond_error(resp, 400, "bad_request", "wait must be a number of seconds (at most 600)");
        return;
    }
    zp_store_job job;
    zp_error err;
    double deadline = zp_clock_wall() + wait;
    for (;;) {
        if (zp_store_get_job(&job, s->store, id, &err) != ZP_OK) {
            server_respond_error(resp, 404, "not_found", "no job %lld", (long long)id);
            return;
        }
        if (ended(&job)) break;
        pthread_mutex_lock(&s->lock);
        double now = zp_clock_wall();
        if (now >= deadline || s->shutting_down) {
            pthread_mutex_unlock(&s->lock);
            break;
        }
        double until = deadline < now + 1 ? deadline : now + 1; /* re-read the store each second */
        struct timespec ts = {(time_t)until, (long)((until - (double)(time_t)until) * 1e9)};
        pthread_cond_timedwait(&s->ended, &s->lock, &ts);
        pthread_mutex_unlock(&s->lock);
    }
    if (strcmp(job.state, "done") == 0) {
        results_ctx c = {NULL, json_array(), 0};
        if (zp_store_results(s->store, id, results_cb, &c, &err) != ZP_OK || c.bad) {
            json_decref(c.proofs);
            server_respond_error(resp, 500, "internal", "job %lld: its stored proofs cannot be read", (long long)id);
            return;
        }
        server_respond_json(resp, 200,
                            json_pack("{s:I,s:s,s:o}", "id", (json_int_t)id, "state", "done", "proofs", c.proofs));
    } else if (strcmp(job.state, "failed") == 0) {
        server_respond_error(resp, 409, "failed", "job %lld failed: %s", (long long)id, job.error);
    } else if (strcmp(job.state, "cancelled") == 0) {
        server_respond_error(resp, 409, "cancelled", "job %lld was cancelled", (long long)id);
    } else {
        json_t *o = job_json(s, &job, NULL);
        server_respond_json(resp, 202,
                            json_pack("{s:I,s:O,s:O,s:i}", "id", (json_int_t)id, "state", json_object_get(o, "state"),
                                      "done", json_object_get(o, "done"), "partitions", (int)job.partitions));
        json_decref(o);
    }
}

static void delete_job(zp_server *s, int64_t id, zp_response *resp) {
    zp_store_job job;
    zp_error err;
    if (zp_store_get_job(&job, s->store, id, &err) != ZP_OK) {
        server_respond_error(resp, 404, "not_found", "no job %lld", (long long)id);
        return;
    }
    pthread_mutex_lock(&s->lock);
    uint64_t engine_id = server_engine_id(s, id);
    pthread_mutex_unlock(&s->lock);
    if (engine_id) (void)zp_engine_cancel(s->engine, engine_id, &err);
    json_t *o = job_json(s, &job, NULL);
    if (engine_id) json_object_set_new(o, "state", json_string("cancelled"));
    server_respond_json(resp, 200, o);
}

/* ---- /v1/status -------------------------------------------------------- */

static json_t *counts_json(const zp_buffer_counts *c) {
    return json_pack("{s:I,s:I,s:I}", "count", (json_int_t)c->count, "bytes", (json_int_t)c->bytes, "peak",
                     (json_int_t)c->peak_bytes);
}

static void get_status(zp_server *s, zp_response *resp) {
    zp_engine_stats st;
    zp_engine_stats_get(&st, s->engine);
    uint64_t counts[ZP_STORE_STATES] = {0};
    zp_error err;
    if (zp_store_counts(counts, s->store, &err) != ZP_OK) {
        server_respond_error(resp, 500, "internal", "%s", err.message);
        return;
    }
    /* queued vs running from the engine, which knows */
    uint64_t queued = 0, running = 0;
    pthread_mutex_lock(&s->lock);
    size_t n = s->n_active;
    uint64_t *ids = malloc((n ? n : 1) * sizeof *ids);
    for (size_t i = 0; ids && i < n; i++) ids[i] = s->active[i].engine_id;
    pthread_mutex_unlock(&s->lock);
    for (size_t i = 0; ids && i < n; i++) {
        zp_job_info info;
        if (zp_engine_job(&info, s->engine, ids[i], 0, &err) != ZP_OK) continue;
        if (info.state == ZP_JOB_QUEUED) queued++;
        else if (info.state == ZP_JOB_RUNNING) running++;
    }
    free(ids);
    uint64_t in_store = counts[0] + counts[1];
    if (in_store > queued + running) queued += in_store - (queued + running); /* accepted, not yet in the engine */

    json_t *classes = json_object(), *stages = json_object();
    for (int c = 0; c < ZP_BUF_CLASSES; c++) {
        json_object_set_new(classes, zp_buffer_class_name((zp_buffer_class)c), counts_json(&st.by_class[c]));
    }
    for (int g = ZP_STAGE_SYNTH; g < ZP_STAGES; g++) {
        json_object_set_new(stages, zp_stage_name((zp_stage)g),
                            json_pack("{s:I,s:I,s:I,s:I}", "partitions", (json_int_t)st.partitions_in[g], "count",
                                      (json_int_t)st.by_stage[g].count, "bytes", (json_int_t)st.by_stage[g].bytes,
                                      "max_partitions", (json_int_t)st.max_partitions_in[g]));
    }
    json_t *o = json_pack("{s:s,s:f,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "version", "0.1.0", "uptime",
                          zp_clock_wall() - s->started, "budget", (json_int_t)st.budget, "reserved",
                          (json_int_t)st.reserved, "peak_reserved", (json_int_t)st.peak_reserved, "tracked",
                          (json_int_t)st.tracked, "peak_tracked", (json_int_t)st.peak_tracked, "rss",
                          (json_int_t)st.rss, "peak_rss", (json_int_t)st.peak_rss, "baseline_rss",
                          (json_int_t)st.baseline_rss);
    json_object_set_new(o, "classes", classes);
    json_object_set_new(o, "stages", stages);
    json_object_set_new(o, "admission_waiting", json_integer((json_int_t)st.admission_waiting));
    json_object_set_new(o, "workers", json_pack("{s:I,s:I,s:I,s:I}", "synth", (json_int_t)st.synth_workers, "prove",
                                                (json_int_t)st.prove_workers, "finalize",
                                                (json_int_t)st.finalize_workers, "queue",
                                                (json_int_t)st.queue_capacity));
    json_object_set_new(o, "keys_loaded", json_integer((json_int_t)st.keys_loaded));
    json_object_set_new(o, "jobs", json_pack("{s:I,s:I,s:I,s:I,s:I}", "queued", (json_int_t)queued, "running",
                                             (json_int_t)running, "done", (json_int_t)counts[2], "failed",
                                             (json_int_t)counts[3], "cancelled", (json_int_t)counts[4]));
    pthread_mutex_lock(&s->lock);
    json_object_set_new(o, "proofs", json_integer((json_int_t)s->proofs));
    pthread_mutex_unlock(&s->lock);
    json_object_set_new(o, "partitions_failed", json_integer((json_int_t)st.partitions_failed));
    server_respond_json(resp, 200, o);
}

static void get_history(zp_server *s, zp_response *resp) {
    json_t *arr = json_array();
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->history_len; i++) {
        const history_sample *h = &s->history[(s->history_head + i) % HISTORY];
        json_t *classes = json_object();
        for (int c = 0; c < ZP_BUF_CLASSES; c++) {
            json_object_set_new(classes, zp_buffer_class_name((zp_buffer_class)c),
                                json_integer((json_int_t)h->classes[c]));
        }
        json_array_append_new(arr, json_pack("{s:f,s:I,s:I,s:I,s:I,s:o}", "t", h->t, "rss", (json_int_t)h->rss,
                                             "tracked", (json_int_t)h->tracked, "reserved", (json_int_t)h->reserved,
                                             "budget", (json_int_t)h->budget, "classes", classes));
    }
    pthread_mutex_unlock(&s->lock);
    server_respond_json(resp, 200, json_pack("{s:i,s:o}", "interval", 1, "samples", arr));
}

/* ---- /v1/keys ---------------------------------------------------------- */

static json_t *key_json(const char *id, const char *path, const zp_engine_key_info *k) {
    json_t *o = json_pack("{s:s,s:s,s:b}", "id", id, "path", k ? k->path : path, "loaded", k ? k->loaded : 0);
    if (k) {
        json_object_set_new(o, "curve", json_string(zp_curve_name(k->curve)));
        json_object_set_new(o, "wires", json_integer(k->n_vars));
        json_object_set_new(o, "public", json_integer(k->n_public));
        json_object_set_new(o, "domain", json_integer(k->domain_size));
        json_object_set_new(o, "partitions_active", json_integer((json_int_t)k->partitions_active));
        json_object_set_new(o, "key_bytes", json_integer((json_int_t)k->key_bytes));
        json_object_set_new(o, "matrices_bytes", json_integer((json_int_t)k->matrices_bytes));
        json_object_set_new(o, "partition_bytes", json_integer((json_int_t)k->partition_bytes));
    }
    return o;
}

/* The engine's record of a key path, if it knows it. */
static int known_key(zp_engine_key_info *out, zp_server *s, const char *path) {
    char real[PATH_MAX];
    if (realpath(path, real) == NULL) return 0;
    zp_engine_key_info keys[64];
    size_t n = zp_engine_keys(keys, 64, s->engine);
    for (size_t i = 0; i < n && i < 64; i++) {
        if (strcmp(keys[i].path, real) == 0) {
            *out = keys[i];
            return 1;
        }
    }
    return 0;
}

/* One key of the listing: what the engine knows of it, or a fresh look
 * (a key that cannot be read says why). */
static json_t *listed_key(zp_server *s, const char *id, const char *path) {
    zp_engine_key_info info;
    zp_error err;
    if (known_key(&info, s, path) || zp_engine_key_describe(&info, s->engine, path, &err) == ZP_OK) {
        return key_json(id, path, &info);
    }
    json_t *o = key_json(id, path, NULL);
    json_object_set_new(o, "error", json_string(err.message));
    return o;
}

static void list_keys(zp_server *s, zp_response *resp) {
    json_t *arr = json_array();
    for (size_t i = 0; i < s->cfg.n_keys; i++) {
        json_array_append_new(arr, listed_key(s, s->cfg.keys[i].id, s->cfg.keys[i].path));
    }
    if (s->cfg.keys_dir) {
        DIR *d = opendir(s->cfg.keys_dir);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            size_t len = strlen(e->d_name);
            if (len <= 5 || strcmp(e->d_name + len - 5, ".zkey") != 0 || e->d_name[0] == '.') continue;
            char id[256], path[PATH_MAX];
            snprintf(id, sizeof id, "%.*s", (int)(len - 5), e->d_name);
            snprintf(path, sizeof path, "%s/%s", s->cfg.keys_dir, e->d_name);
            json_array_append_new(arr, listed_key(s, id, path));
        }
        if (d) closedir(d);
    }
    server_respond_json(resp, 200, json_pack("{s:o}", "keys", arr));
}

static void key_action(zp_server *s, const char *method, const char *id, zp_response *resp) {
    zp_error err;
    char *path = server_key_path(s, id, &err);
    if (path == NULL) {
        server_respond_error(resp, 404, "not_found", "%s", err.message);
        return;
    }
    zp_status st = ZP_OK;
    int status = 200;
    if (strcmp(method, "POST") == 0) {
        st = zp_engine_key_preload(s->engine, path, &err);
        if (st != ZP_OK) status = st == ZP_ERR_NOMEM ? 507 : st == ZP_ERR_IO ? 404 : 422;
    } else if (strcmp(method, "DELETE") == 0) {
        st = zp_engine_key_evict(s->engine, path, &err);
        if (st != ZP_OK) status = strstr(err.message, "in use") ? 409 : 404;
    } else if (strcmp(method, "GET") != 0) {
        free(path);
        server_respond_error(resp, 405, "method_not_allowed", "%s is not allowed on /v1/keys/{id}", method);
        return;
    }
    if (st != ZP_OK) {
        free(path);
        server_respond_error(resp, status, status == 507 ? "spool_full" : code_for(status), "key '%s': %s", id,
                             err.message);
        return;
    }
    zp_engine_key_info info;
    int known = known_key(&info, s, path);
    json_t *o = key_json(id, path, known ? &info : NULL);
    free(path);
    server_respond_json(resp, 200, o);
}

/* ---- the dashboard ----------------------------------------------------- */

static void serve_asset(const char *name, zp_response *resp) {
    for (const zp_asset *a = zp_assets; a->name; a++) {
        if (strcmp(a->name, name) != 0) continue;
        const char *dot = strrchr(name, '.');
        resp->status = 200;
        resp->content_type = !dot                         ? "application/octet-stream"
                             : strcmp(dot, ".html") == 0 ? "text/html; charset=utf-8"
                             : strcmp(dot, ".js") == 0   ? "text/javascript; charset=utf-8"
                             : strcmp(dot, ".css") == 0  ? "text/css; charset=utf-8"
                             : strcmp(dot, ".svg") == 0  ? "image/svg+xml"
                             : strcmp(dot, ".png") == 0  ? "image/png"
                                                         : "application/octet-stream";
        resp->body = (char *)a->bytes;
        resp->len = a->size;
        resp->body_static = 1;
        return;
    }
    server_respond_error(resp, 404, "not_found", "no asset '%s'", name);
}

/* ---- routing ----------------------------------------------------------- */

static int authorized(const zp_server *s, const zp_request *req) {
    if (s->cfg.token == NULL) return 1;
    const char *h = req->authorization;
    if (h == NULL || strncmp(h, "Bearer ", 7) != 0) return 0;
    const char *given = h + 7, *want = s->cfg.token;
    size_t lg = strlen(given), lw = strlen(want);
    unsigned char diff = (unsigned char)(lg != lw);
    for (size_t i = 0; i < lw; i++) diff |= (unsigned char)(want[i] ^ (i < lg ? given[i] : 0));
    return diff == 0;
}

static void route(zp_server *s, const zp_request *req, zp_response *resp) {
    const char *m = req->method, *p = req->path;
    if (strcmp(m, "GET") == 0 && (strcmp(p, "/") == 0 || strcmp(p, "/index.html") == 0)) {
        serve_asset("index.html", resp);
        return;
    }
    if (strcmp(m, "GET") == 0 && strncmp(p, "/assets/", 8) == 0) {
        serve_asset(p + 8, resp);
        return;
    }
    if (!authorized(s, req)) {
        server_respond_error(resp, 401, "unauthorized", "a valid 'Authorization: Bearer <token>' header is required");
        return;
    }
    if (strcmp(p, "/metrics") == 0) {
        if (strcmp(m, "GET") != 0) server_respond_error(resp, 405, "method_not_allowed", "use GET");
        else server_metrics(s, resp);
        return;
    }
    if (strcmp(p, "/v1/status") == 0 || strcmp(p, "/v1/status/history") == 0) {
        if (strcmp(m, "GET") != 0) server_respond_error(resp, 405, "method_not_allowed", "use GET");
        else if (p[10] == '\0') get_status(s, resp);
        else get_history(s, resp);
        return;
    }
    if (strcmp(p, "/v1/jobs") == 0) {
        if (strcmp(m, "POST") == 0) {
            pthread_mutex_lock(&s->lock);
            int down = s->shutting_down;
            pthread_mutex_unlock(&s->lock);
            if (down) server_respond_error(resp, 503, "shutting_down", "the daemon is shutting down");
            else post_job(s, req, resp);
        } else if (strcmp(m, "GET") == 0) {
            get_jobs(s, req, resp);
        } else {
            server_respond_error(resp, 405, "method_not_allowed", "use GET or POST on /v1/jobs");
        }
        return;
    }
    if (strncmp(p, "/v1/jobs/", 9) == 0) {
        char idtext[32];
        const char *rest = p + 9, *slash = strchr(rest, '/');
        size_t len = slash ? (size_t)(slash - rest) : strlen(rest);
        int64_t id;
        if (len == 0 || len >= sizeof idtext) {
            server_respond_error(resp, 404, "not_found", "no such job");
            return;
        }
        memcpy(idtext, rest, len);
        idtext[len] = '\0';
        if (!parse_id(&id, idtext)) {
            server_respond_error(resp, 404, "not_found", "'%s' is not a job id", idtext);
            return;
        }
        if (slash == NULL) {
            if (strcmp(m, "GET") == 0) get_job(s, id, resp);
            else if (strcmp(m, "DELETE") == 0) delete_job(s, id, resp);
            else server_respond_error(resp, 405, "method_not_allowed", "use GET or DELETE on a job");
        } else if (strcmp(slash, "/proof") == 0) {
            if (strcmp(m, "GET") == 0) get_proof(s, id, req, resp);
            else server_respond_error(resp, 405, "method_not_allowed", "use GET on a job's proof");
        } else {
            server_respond_error(resp, 404, "not_found", "no such resource");
        }
        return;
    }
    if (strcmp(p, "/v1/keys") == 0) {
        if (strcmp(m, "GET") == 0) list_keys(s, resp);
        else server_respond_error(resp, 405, "method_not_allowed", "use GET on /v1/keys");
        return;
    }
    if (strncmp(p, "/v1/keys/", 9) == 0) {
        key_action(s, m, p + 9, resp);
        return;
    }
    server_respond_error(resp, 404, "not_found", "no such resource: %s", p);
}

void zp_server_handle(zp_server *s, const zp_request *req, zp_response *resp) {
    memset(resp, 0, sizeof *resp);
    route(s, req, resp);
    int st = resp->status;
    if (st >= 100 && st < 600) {
        pthread_mutex_lock(&s->lock);
        s->http_codes[st / 100][st % 100]++;
        pthread_mutex_unlock(&s->lock);
    }
}
