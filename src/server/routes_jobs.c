/* The API's jobs (docs/daemon.md): POST /v1/jobs (uploaded or confined
 * witness paths), GET /v1/jobs, a job, its proof (long poll), DELETE. */
#define _GNU_SOURCE /* O_PATH */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/digest.h"
#include "base/error.h"
#include "base/file.h"
#include "server/internal.h"

static json_t *num_or_null(double v) { return v > 0 ? json_real(v) : json_null(); }

static json_t *times_json(uint32_t idx, const zp_partition_times *t) {
    return json_pack("{s:i,s:f,s:f,s:f,s:f,s:f,s:f,s:f}", "partition", (json_int_t)idx, "queued", t->queued, "synth",
                     t->synth, "wait_prove", t->wait_prove, "prove", t->prove, "wait_final", t->wait_final, "final",
                     t->final, "total", t->total);
}

/* A store job as JSON, with the partitions whose end waits for the store
 * (server_pending_job) counted in. */
static json_t *job_json(zp_server *s, const zp_store_job *stored) {
    zp_store_job job = *stored;
    int pending = server_pending_job(s, &job, NULL, NULL);
    const char *error = job.error[0] && job.state == ZP_JOB_FAILED ? job.error : NULL;
    json_t *o = json_pack("{s:I,s:s,s:i,s:s,s:i,s:i,s:f,s:o}", "id", (json_int_t)job.id, "key", job.key_id, "priority",
                          job.priority, "state", zp_job_state_name(job.state), "partitions", (int)job.partitions,
                          "done", (int)job.done, "submitted", job.submitted, "finished", num_or_null(job.finished));
    if (o && job.request_id[0]) json_object_set_new(o, "request_id", json_string(job.request_id));
    if (o && error) json_object_set_new(o, "error", json_string(error));
    /* ended, but the record waits for the store (a full disk): say so */
    if (o && pending && job.state >= ZP_JOB_DONE && stored->state < ZP_JOB_DONE)
        json_object_set_new(o, "recorded", json_false());
    return o;
}

/* A job's results, partition by partition: the store's, with those whose
 * record waits (server_pending_job) in their place. */
typedef struct merged_results {
    uint32_t n;
    char **proof, **pub;
    zp_store_times *t;
    int oom;
} merged_results;

static void merge_cb(void *arg, uint32_t idx, const char *proof, const char *pub, const zp_store_times *t) {
    merged_results *m = arg;
    if (idx >= m->n) return;
    free(m->proof[idx]);
    free(m->pub[idx]);
    m->proof[idx] = proof ? strdup(proof) : NULL;
    m->pub[idx] = pub ? strdup(pub) : NULL;
    if ((proof && !m->proof[idx]) || (pub && !m->pub[idx])) m->oom = 1;
    m->t[idx] = *t;
}

static zp_status job_results(zp_server *s, zp_store_job *job, zp_store_result_fn fn, void *arg, zp_error *err) {
    merged_results m = {job->partitions, calloc(job->partitions, sizeof(char *)),
                        calloc(job->partitions, sizeof(char *)), calloc(job->partitions, sizeof(zp_store_times)), 0};
    zp_status st = m.proof && m.pub && m.t ? ZP_OK : zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    if (st == ZP_OK) st = zp_store_results(s->store, job->id, merge_cb, &m, err);
    if (st == ZP_OK) server_pending_job(s, job, merge_cb, &m);
    if (st == ZP_OK && m.oom) st = zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; st == ZP_OK && i < m.n; i++) fn(arg, i, m.proof[i], m.pub[i], &m.t[i]);
    for (uint32_t i = 0; m.proof && m.pub && i < m.n; i++) {
        free(m.proof[i]);
        free(m.pub[i]);
    }
    free(m.proof);
    free(m.pub);
    free(m.t);
    return st;
}

/* ---- /v1/jobs ---------------------------------------------------------- */

/* ---- confined witness paths -------------------------------------------- */

/* A witness path names a file under witness_dir, and the kernel, not a
 * check before the use, keeps it there: a path resolved first (realpath)
 * and opened after can be redirected in between by swapping a directory
 * for a symlink. So the file is opened from a descriptor of witness_dir
 * (zp_file_open_beneath: no symlink followed, no ".." out), and the
 * witness is then read through that descriptor only. O_NONBLOCK: a FIFO
 * must not block the open; fstat then refuses anything but a regular
 * file. */
/* A server-side witness path: relative to witness_dir (or absolute and
 * inside it, spelt with witness_dir's own prefix), no "..", no symlinks. */
static zp_intake *read_confined(size_t *size, zp_server *s, const char *path, int *status, zp_error *err) {
    if (s->cfg.witness_dir == NULL) {
        *status = 403;
        zp_error_set(err, ZP_ERR_ARG, "witness paths are not enabled (no witness_dir)");
        return NULL;
    }
    const char *rel = path;
    size_t dl = strlen(s->cfg.witness_dir);
    while (dl > 1 && s->cfg.witness_dir[dl - 1] == '/') dl--;
    if (rel[0] == '/' && strncmp(rel, s->cfg.witness_dir, dl) == 0 && rel[dl] == '/') {
        rel += dl; /* lexically: the same spelling as witness_dir, then '/' */
        while (*rel == '/') rel++;
    }
    if (rel[0] == '/' || strstr(rel, "..") != NULL || rel[0] == '\0') {
        *status = 403;
        zp_error_set(err, ZP_ERR_ARG, "witness path '%s' must be relative to witness_dir, without '..'", path);
        return NULL;
    }
    int root = open(s->cfg.witness_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root < 0) {
        *status = 500;
        zp_error_set(err, ZP_ERR_IO, "witness_dir %s: %s", s->cfg.witness_dir, strerror(errno));
        return NULL;
    }
    int fd = zp_file_open_beneath(root, rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0);
    int e = errno;
    close(root);
    if (fd < 0) {
        if (e == ELOOP || e == EXDEV) {
            *status = 403;
            zp_error_set(err, ZP_ERR_ARG, "witness '%s' goes through a symlink or leads outside witness_dir", path);
        } else {
            *status = e == ENOENT || e == ENOTDIR || e == EISDIR ? 404 : 403;
            zp_error_set(err, ZP_ERR_IO, "witness '%s': %s", path, strerror(e));
        }
        return NULL;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        *status = 404;
        zp_error_set(err, ZP_ERR_IO, "witness '%s': not a regular file", path);
        return NULL;
    }
    if ((uint64_t)sb.st_size > s->cfg.max_request) {
        close(fd);
        *status = 413;
        zp_error_set(err, ZP_ERR_ARG, "witness '%s' is larger than max_request", path);
        return NULL;
    }
    /* read into an intake buffer: counted and reserved like an upload */
    zp_intake *held = NULL;
    zp_status st = zp_engine_intake_alloc(&held, s->engine, sb.st_size ? (size_t)sb.st_size : 1, err);
    if (st != ZP_OK) {
        close(fd);
        *status = st == ZP_ERR_NOMEM ? 503 : 413;
        zp_error_prefix(err, "witness '%s': ", path);
        return NULL;
    }
    unsigned char *buf = zp_intake_data(held);
    size_t got = 0;
    while (got < (size_t)sb.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)sb.st_size - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(fd);
    if (got != (size_t)sb.st_size) {
        zp_engine_intake_free(s->engine, held);
        *status = 500;
        zp_error_set(err, ZP_ERR_IO, "witness '%s': read failed (the file changed while read?)", path);
        return NULL;
    }
    *size = got;
    return held;
}

void server_answer_submitted(zp_server *s, zp_response *resp, zp_status st, int status, const zp_error *err, int64_t id,
                             int existing, size_t position, const char *key, size_t n, const char *request_id,
                             const char *digest) {
    zp_store_job job;
    zp_error e;
    if (st != ZP_OK) {
        server_respond_error(resp, status, server_error_code(status), "%s", err->message);
    } else if (zp_store_get_job(&job, s->store, id, &e) != ZP_OK) {
        server_respond_error(resp, 500, "internal", "%s", e.message);
    } else if (existing && (strcmp(job.key_id, key) != 0 || job.partitions != n)) {
        server_respond_error(resp, 409, "conflict",
                             "request_id '%s' was used for job %lld with key '%s' and %u witnesses", request_id,
                             (long long)id, job.key_id, job.partitions);
    } else if (existing && job.request_digest[0] && strcmp(job.request_digest, digest) != 0) {
        /* same key and count, other witnesses or priority: another job */
        server_respond_error(resp, 409, "conflict",
                             "request_id '%s' was used for job %lld with other witnesses or priority"
                             " (request digest %.16s..., this one %.16s...)",
                             request_id, (long long)id, job.request_digest, digest);
    } else {
        json_t *o = job_json(s, &job);
        json_object_set_new(o, "queue_position", json_integer((json_int_t)position));
        server_respond_json(resp, existing ? 200 : 201, o);
    }
}

/* The parsed body and what holds it: the arena its tree lives in (a
 * tracked intake buffer; none for a body parsed as it is). */
typedef struct parsed_body {
    job_body jb;
    int scanned;
    json_t *root;
    json_arena arena;
    zp_intake *arena_mem;
} parsed_body;

/* The 413 for a tree that outgrew its arena (the parse, or the inputs'
 * compact copies made in it after). */
static void arena_full_error(zp_error *err, const json_arena *a) {
    zp_error_set(err, ZP_ERR_ARG, "the body's JSON takes more than %zu bytes to parse and copy (%d times its size)",
                 a->size, JSON_ARENA_FACTOR);
}

static void parsed_body_free(zp_server *s, parsed_body *pb) {
    json_decref(pb->root); /* its blocks in the arena: nothing to free */
    pb->root = NULL;
    if (pb->arena_mem) {
        json_arena_release(&pb->arena);
        zp_engine_intake_free(s->engine, pb->arena_mem);
        pb->arena_mem = NULL;
    }
    if (pb->scanned) job_body_free(&pb->jb);
}

/* Parses the body: from HTTP it is in a tracked buffer the witnesses are
 * decoded in (jobbody.c), and jansson builds its tree in an arena
 * reserved from the budget for the rest, JSON_ARENA_FACTOR times its size
 * (an "inputs" array's tree is many times its text); a read-only body
 * (the handler called directly, in tests) is parsed as it is. Returns 0
 * with the answer given when it cannot be parsed. */
static int parse_body(parsed_body *pb, zp_server *s, const zp_request *req, zp_response *resp) {
    json_error_t jerr;
    memset(pb, 0, sizeof *pb);
    pb->scanned = req->body_writable != NULL;
    if (!pb->scanned) {
        pb->root = json_loadb(req->body ? req->body : "", req->body_len, JSON_REJECT_DUPLICATES, &jerr);
    } else {
        int hs;
        zp_error e;
        if (job_body_scan(&pb->jb, req->body_writable, req->body_len, &hs, &e) != ZP_OK) {
            parsed_body_free(s, pb);
            server_respond_error(resp, hs, server_error_code(hs), "%s", e.message);
            return 0;
        }
        size_t json_bytes = pb->jb.json_bytes, arena_bytes = JSON_ARENA_FACTOR * json_bytes + 65536;
        if (zp_engine_intake_alloc(&pb->arena_mem, s->engine, arena_bytes, &e) != ZP_OK) {
            int st = e.status == ZP_ERR_NOMEM ? 503 : 413;
            parsed_body_free(s, pb);
            server_respond_error(resp, st, st == 503 ? "busy_memory" : server_error_code(st),
                                 "parsing the body's %zu bytes of JSON (whitespace aside) takes up to %zu bytes of the "
                                 "memory budget: %s",
                                 json_bytes, arena_bytes, e.message);
            if (st == 503) resp->retry_after = 1;
            return 0;
        }
        json_arena_open(&pb->arena, zp_intake_data(pb->arena_mem), arena_bytes);
        pb->root = job_body_parse(&pb->jb, &jerr);
        json_arena_stop(&pb->arena); /* the answer's JSON outlives the arena */
    }
    if (pb->root == NULL || !json_is_object(pb->root)) {
        int full = pb->arena.full, not_object = pb->root != NULL;
        zp_error e;
        if (full) arena_full_error(&e, &pb->arena);
        parsed_body_free(s, pb);
        if (full) {
            server_respond_error(resp, 413, server_error_code(413), "%s", e.message);
        } else {
            server_respond_error(resp, 400, "bad_request", "the body is not a JSON object: %s",
                                 not_object ? "not an object" : jerr.text);
        }
        return 0;
    }
    return 1;
}

void route_post_job(zp_server *s, const zp_request *req, zp_response *resp) {
    parsed_body pb;
    if (!parse_body(&pb, s, req, resp)) return;
    json_t *root = pb.root;
    const char *key = json_string_value(json_object_get(root, "key"));
    json_t *jprio = json_object_get(root, "priority"), *jreq = json_object_get(root, "request_id");
    json_t *jw = json_object_get(root, "witnesses"), *jin = json_object_get(root, "inputs");
    int inputs = jin != NULL; /* the circuit's inputs, one object per partition, instead of witnesses */
    if (inputs && jw == NULL) jw = jin;
    const char *request_id = json_string_value(jreq);
    int status = 400;
    const char *problem = NULL;
    if (key == NULL) problem = "'key' (a key id string) is required";
    else if (jprio &&
             (!json_is_integer(jprio) || json_integer_value(jprio) < -1000000 || json_integer_value(jprio) > 1000000))
        problem = "'priority' must be an integer";
    else if (jreq && (request_id == NULL || strlen(request_id) == 0 || strlen(request_id) > 128))
        problem = "'request_id' must be a string of 1 to 128 characters";
    else if (inputs && jw != jin) problem = "give either 'witnesses' or 'inputs', not both";
    else if (!json_is_array(jw) || json_array_size(jw) == 0)
        problem = inputs ? "'inputs' must be a non-empty array of objects (one input.json per partition)"
                         : "'witnesses' (or 'inputs') must be a non-empty array";
    else if (json_array_size(jw) > s->cfg.max_partitions) problem = "too many partitions (max_partitions)";
    if (request_id && !problem) {
        for (const char *c = request_id; *c; c++) {
            if ((unsigned char)*c < 0x20 || *c == 0x7f) problem = "'request_id' must be printable";
        }
    }
    if (problem) {
        parsed_body_free(s, &pb);
        server_respond_error(resp, 400, "bad_request", "%s", problem);
        return;
    }
    int priority = jprio ? (int)json_integer_value(jprio) : 0;
    size_t n = json_array_size(jw);
    job_witness *w = calloc(n, sizeof *w);
    unsigned char **owned = calloc(n, sizeof *owned);
    zp_intake **held = calloc(n, sizeof *held); /* witnesses read from witness_dir */
    zp_error err = {0};
    int ok = w && owned && held;
    if (!ok) {
        status = 500;
        zp_error_set(&err, ZP_ERR_NOMEM, "out of memory");
    }
    json_arena_resume(&pb.arena); /* the compact copies too */
    for (size_t i = 0; ok && inputs && i < n; i++) {
        /* kept as compact JSON: what the spool holds and the engine reads */
        json_t *item = json_array_get(jw, i);
        char *text = json_is_object(item) ? json_dumps(item, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
        if (text == NULL && pb.arena.full) {
            status = 413;
            arena_full_error(&err, &pb.arena);
            ok = 0;
        } else if (text == NULL) {
            zp_error_set(&err, ZP_ERR_ARG, "inputs[%zu] must be an object of input signals (an input.json)", i);
            ok = 0;
        } else {
            owned[i] = (unsigned char *)text;
            w[i].bytes = owned[i];
            w[i].size = strlen(text);
        }
    }
    json_arena_stop(&pb.arena);
    for (size_t i = 0; ok && !inputs && i < n; i++) {
        json_t *item = json_array_get(jw, i);
        const char *data = json_string_value(json_object_get(item, "data"));
        const char *path = json_string_value(json_object_get(item, "path"));
        if (!json_is_object(item) || (data == NULL) == (path == NULL)) {
            zp_error_set(&err, ZP_ERR_ARG, "witness %zu needs exactly one of 'data' (base64) or 'path'", i);
            ok = 0;
        } else if (data && pb.scanned && job_body_lookup(&pb.jb, data, &w[i].bytes, &w[i].size)) {
            /* decoded in place, in the body's tracked buffer */
        } else if (data) { /* short enough to have stayed in the JSON */
            owned[i] = zp_base64_decode(data, json_string_length(json_object_get(item, "data")), &w[i].size);
            if (owned[i] == NULL) {
                zp_error_set(&err, ZP_ERR_ARG, "witness %zu: 'data' is not base64", i);
                ok = 0;
            }
            w[i].bytes = owned[i];
        } else {
            held[i] = read_confined(&w[i].size, s, path, &status, &err);
            ok = held[i] != NULL;
            if (ok) w[i].bytes = zp_intake_data(held[i]);
        }
    }
    if (!ok) {
        server_respond_error(resp, status, status == 503 ? "busy_memory" : server_error_code(status), "%s",
                             err.message);
        if (status == 503) resp->retry_after = 1;
    } else {
        int64_t id = 0;
        int existing = 0;
        size_t position = 0;
        char digest[ZP_SHA256_HEX] = "";
        zp_status st = server_request_digest(digest, key, priority, inputs, w, n, &err);
        if (st == ZP_OK)
            st = server_submit(&id, &existing, &position, s, key, priority, request_id, digest, w, n, inputs, &status,
                               &err);
        else status = 500;
        server_answer_submitted(s, resp, st, status, &err, id, existing, position, key, n, request_id, digest);
    }
    for (size_t i = 0; owned && i < n; i++) json_mem_free(owned[i]); /* json_dumps's, or base64's */
    for (size_t i = 0; held && i < n; i++) zp_engine_intake_free(s->engine, held[i]);
    free(owned);
    free(held);
    free(w);
    parsed_body_free(s, &pb);
}

/* ctx: the server, the array, and a state to keep (NULL: all). */
static void list_cb(void *arg, const zp_store_job *job) {
    void **ctx = arg;
    json_t *o = job_json(ctx[0], job);
    const char *want = ctx[2];
    if (want && strcmp(json_string_value(json_object_get(o, "state")), want) != 0) {
        json_decref(o);
        return;
    }
    json_array_append_new(ctx[1], o);
}

void route_get_jobs(zp_server *s, const zp_request *req, zp_response *resp) {
    double limit = server_query_double(req, "limit", 50, 1000);
    const char *state = req->query ? req->query(req->query_arg, "state") : NULL;
    if (limit < 1) {
        server_respond_error(resp, 400, "bad_request", "limit must be a number from 1 to 1000");
        return;
    }
    int filter = -1;
    for (int i = ZP_JOB_QUEUED; state && *state && i <= ZP_JOB_CANCELLED && filter < 0; i++)
        if (strcmp(state, zp_job_state_name((zp_job_state)i)) == 0) filter = i;
    if (state && *state && filter < 0) {
        server_respond_error(resp, 400, "bad_request",
                             "unknown state '%.64s' (queued, running, done, failed, cancelled)", state);
        return;
    }
    json_t *arr = json_array();
    void *ctx[3] = {s, arr, NULL};
    zp_error err;
    if (zp_store_list(s->store, (uint32_t)limit, filter, list_cb, ctx, &err) != ZP_OK) {
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

void route_get_job(zp_server *s, int64_t id, zp_response *resp) {
    zp_store_job job;
    zp_error err;
    if (zp_store_get_job(&job, s->store, id, &err) != ZP_OK) {
        server_respond_error(resp, 404, "not_found", "no job %lld", (long long)id);
        return;
    }
    json_t *o = job_json(s, &job);
    json_t *timings = json_array();
    results_ctx c = {timings, NULL, 0};
    if (job_results(s, &job, results_cb, &c, &err) != ZP_OK) {
        json_decref(o);
        json_decref(timings);
        server_respond_error(resp, 500, "internal", "%s", err.message);
        return;
    }
    json_object_set_new(o, "timings", timings);
    server_respond_json(resp, 200, o);
}

static int ended(const zp_store_job *job) { return job->state >= ZP_JOB_DONE; }

void route_get_proof(zp_server *s, int64_t id, const zp_request *req, zp_response *resp) {
    double wait = server_query_double(req, "wait", 0, 600);
    if (wait < 0) {
        server_respond_error(resp, 400, "bad_request", "wait must be a number of seconds (at most 600)");
        return;
    }
    zp_store_job job;
    zp_error err;
    double deadline = zp_clock_now() + wait;
    /* A job may end on another daemon of the store: the store is read
     * again every 0.25 s, and at once when a partition ends here. */
    for (;;) {
        if (zp_store_get_job(&job, s->store, id, &err) != ZP_OK) {
            server_respond_error(resp, 404, "not_found", "no job %lld", (long long)id);
            return;
        }
        server_pending_job(s, &job, NULL, NULL);
        if (ended(&job)) break;
        pthread_mutex_lock(&s->lock);
        double now = zp_clock_now();
        if (now >= deadline || s->shutting_down) {
            pthread_mutex_unlock(&s->lock);
            break;
        }
        struct timespec ts = zp_clock_deadline(deadline - now < 0.25 ? deadline - now : 0.25);
        pthread_cond_timedwait(&s->ended, &s->lock, &ts);
        pthread_mutex_unlock(&s->lock);
    }
    if (job.state == ZP_JOB_DONE) {
        results_ctx c = {NULL, json_array(), 0};
        zp_status rst = job_results(s, &job, results_cb, &c, &err);
        if (rst != ZP_OK || c.bad) {
            json_decref(c.proofs);
            server_respond_error(resp, 500, "internal", "job %lld: its stored proofs cannot be read", (long long)id);
            return;
        }
        server_respond_json(resp, 200,
                            json_pack("{s:I,s:s,s:o}", "id", (json_int_t)id, "state", "done", "proofs", c.proofs));
    } else if (job.state == ZP_JOB_FAILED) {
        server_respond_error(resp, 409, "failed", "job %lld failed: %s", (long long)id, job.error);
    } else if (job.state == ZP_JOB_CANCELLED) {
        server_respond_error(resp, 409, "cancelled", "job %lld was cancelled", (long long)id);
    } else {
        server_respond_json(resp, 202,
                            json_pack("{s:I,s:s,s:i,s:i}", "id", (json_int_t)id, "state", zp_job_state_name(job.state),
                                      "done", (int)job.done, "partitions", (int)job.partitions));
    }
}

/* Cancelled in the store, by whichever daemon is asked: the partitions
 * this daemon runs stop at once, other daemons' at their next lease
 * renewal (within about half a second). */
void route_delete_job(zp_server *s, int64_t id, zp_response *resp) {
    zp_store_job job;
    zp_error err;
    if (zp_store_get_job(&job, s->store, id, &err) != ZP_OK) {
        server_respond_error(resp, 404, "not_found", "no job %lld", (long long)id);
        return;
    }
    if (job.state < ZP_JOB_DONE) {
        zp_status st = zp_store_finish_job(s->store, id, ZP_JOB_CANCELLED, NULL, NULL, 0, &err);
        if (st == ZP_OK) {
            server_cancel_local(s, id);
            server_log(s, 1, "job %lld cancelled", (long long)id);
            pthread_mutex_lock(&s->lock);
            s->outcomes[2]++;
            pthread_cond_broadcast(&s->ended);
            pthread_mutex_unlock(&s->lock);
            zp_error e2;
            if (zp_store_witness_paths(s->store, id, server_spool_remove, s, &e2) != ZP_OK)
                server_log(s, 0, "%s", e2.message);
        } else if (st != ZP_ERR_ARG) { /* ZP_ERR_ARG: it ended meanwhile */
            server_respond_error(resp, 500, "internal", "%s", err.message);
            return;
        }
        if (zp_store_get_job(&job, s->store, id, &err) != ZP_OK) {
            server_respond_error(resp, 404, "not_found", "no job %lld", (long long)id);
            return;
        }
    }
    server_respond_json(resp, 200, job_json(s, &job));
}
