/* The PostgreSQL job store's jobs (store.h): adding them, reading and
 * listing them, their results, how they end, counts and expiry. Each
 * operation is a transaction body for pg_run (pg_internal.h). */
#include "store/store.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "store/pg_internal.h"

/* Jobs deleted per transaction by expire: the connection is free between
 * batches, so an expiry of many jobs never stalls the daemon's other calls. */
#define PG_EXPIRE_BATCH 128

void pg_read_job(zp_store_job *job, const PGresult *r, int row) {
    memset(job, 0, sizeof *job);
    job->id = pg_i64(r, row, 0);
    pg_copy_text(job->request_id, sizeof job->request_id, r, row, 1);
    pg_copy_text(job->key_id, sizeof job->key_id, r, row, 2);
    job->priority = (int)pg_i64(r, row, 3);
    job->partitions = (uint32_t)pg_i64(r, row, 4);
    job->done = (uint32_t)pg_i64(r, row, 5);
    job->state = (zp_job_state)pg_i64(r, row, 6);
    pg_copy_text(job->error, sizeof job->error, r, row, 7);
    job->submitted = pg_f64(r, row, 8);
    job->finished = pg_f64(r, row, 9); /* NULL reads as 0 */
    pg_copy_text(job->request_digest, sizeof job->request_digest, r, row, 10);
    pg_copy_text(job->key_digest, sizeof job->key_digest, r, row, 11);
    pg_copy_text(job->wasm_digest, sizeof job->wasm_digest, r, row, 12);
}

zp_status pg_get_job(zp_store_job *job, pg_tx *tx, int64_t id) {
    PGresult *r;
    pg_args a = {0};
    pg_arg_i64(&a, id);
    zp_status rc = pg_exec(tx, "SELECT " PG_JOB_COLUMNS " FROM jobs WHERE id = $1", &a, &r);
    if (rc != ZP_OK) return rc;
    if (pg_rows(r) == 1) pg_read_job(job, r, 0);
    else rc = pg_no_job(tx, id);
    pg_free(r);
    return rc;
}

/* ---- adding ---- */

typedef struct add_ctx {
    const char *request_id, *request_digest, *key_id, *key_digest, *wasm_digest, *paths;
    int priority;
    uint32_t partitions;
    int64_t id;
    int existing;
} add_ctx;

static zp_status add_body(pg_tx *tx, void *arg) {
    add_ctx *c = arg;
    PGresult *r;
    c->id = 0;
    c->existing = 0;
    pg_args a = {0};
    pg_arg_str(&a, c->request_id);
    pg_arg_str(&a, c->request_digest);
    pg_arg_str(&a, c->key_id);
    pg_arg_i64(&a, c->priority);
    pg_arg_i64(&a, c->partitions);
    pg_arg_str(&a, c->key_digest);
    pg_arg_str(&a, c->wasm_digest);
    /* A request id already there (even one committed by another daemon
     * this instant: ON CONFLICT waits for it) inserts nothing. */
    zp_status rc = pg_exec(tx,
                           "INSERT INTO jobs(request_id, request_digest, key_id, priority, partitions, state,"
                           " submitted, key_digest, wasm_digest) VALUES ($1, $2, $3, $4, $5, 0,"
                           " extract(epoch FROM now()), $6, $7) ON CONFLICT (request_id) DO NOTHING RETURNING id",
                           &a, &r);
    if (rc != ZP_OK) return rc;
    if (pg_rows(r) == 1) c->id = pg_i64(r, 0, 0);
    pg_free(r);
    if (c->id == 0) {
        pg_args q = {0};
        pg_arg_str(&q, c->request_id);
        if ((rc = pg_exec(tx, "SELECT id FROM jobs WHERE request_id = $1", &q, &r)) != ZP_OK) return rc;
        if (pg_rows(r) == 1) {
            c->id = pg_i64(r, 0, 0);
            c->existing = 1;
        } else {
            rc = zp_error_set(tx->err, ZP_ERR_INTERNAL, "%s: %s: request id '%s' neither inserted nor found",
                              tx->s->name, tx->what, c->request_id);
        }
        pg_free(r);
        return rc;
    }
    pg_args p = {0};
    pg_arg_i64(&p, c->id);
    pg_arg_str(&p, c->key_id);
    pg_arg_i64(&p, c->priority);
    pg_arg_str(&p, c->paths);
    pg_arg_str(&p, c->key_digest);
    pg_arg_str(&p, c->wasm_digest);
    if ((rc = pg_exec(tx,
                      "INSERT INTO partitions(job_id, idx, path, key_id, priority, state, key_digest, wasm_digest)"
                      " SELECT $1, t.i - 1, t.path, $2, $3, 0, $5, $6 FROM unnest($4::text[]) WITH ORDINALITY"
                      " AS t(path, i)",
                      &p, &r)) != ZP_OK)
        return rc;
    uint64_t added = pg_changed(r);
    pg_free(r);
    if (added != c->partitions)
        return zp_error_set(tx->err, ZP_ERR_INTERNAL, "%s: %s: %llu of %u partitions inserted", tx->s->name, tx->what,
                            (unsigned long long)added, c->partitions);
    return ZP_OK;
}

zp_status pg_add_job(int64_t *id, int *existing, zp_store *s, const char *request_id, const char *request_digest,
                     const char *key_id, const char *key_digest, const char *wasm_digest, int priority,
                     uint32_t partitions, const char *const *witness_paths, zp_error *err) {
    static const char what[] = "adding a job";
    pg_array paths;
    pg_array_begin(&paths);
    for (uint32_t i = 0; i < partitions; i++) pg_array_str(&paths, witness_paths[i]);
    add_ctx c = {.request_id = request_id,
                 .request_digest = request_digest,
                 .key_id = key_id,
                 .key_digest = key_digest,
                 .wasm_digest = wasm_digest,
                 .paths = pg_array_end(&paths),
                 .priority = priority,
                 .partitions = partitions};
    zp_status rc = c.paths == NULL ? zp_error_set(err, ZP_ERR_NOMEM, "%s: %s: out of memory", s->name, what)
                                   : pg_run((pg_store *)s, PG_WRITE, what, add_body, &c, err);
    pg_array_free(&paths);
    if (rc == ZP_OK) {
        *id = c.id;
        *existing = c.existing;
    }
    return rc;
}

/* ---- one job ---- */

typedef struct job_ctx {
    int64_t id;
    zp_store_job job;
} job_ctx;

static zp_status get_body(pg_tx *tx, void *arg) {
    job_ctx *c = arg;
    return pg_get_job(&c->job, tx, c->id);
}

zp_status pg_get_job_op(zp_store_job *job, zp_store *s, int64_t id, zp_error *err) {
    job_ctx c = {.id = id};
    zp_status rc = pg_run((pg_store *)s, PG_READ, "reading a job", get_body, &c, err);
    if (rc == ZP_OK) *job = c.job;
    return rc;
}

typedef struct find_ctx {
    const char *request_id;
    int64_t id;
} find_ctx;

static zp_status find_body(pg_tx *tx, void *arg) {
    find_ctx *c = arg;
    PGresult *r;
    pg_args a = {0};
    pg_arg_str(&a, c->request_id);
    c->id = 0;
    zp_status rc = pg_exec(tx, "SELECT id FROM jobs WHERE request_id = $1", &a, &r);
    if (rc != ZP_OK) return rc;
    if (pg_rows(r) == 1) c->id = pg_i64(r, 0, 0);
    pg_free(r);
    return ZP_OK;
}

zp_status pg_find_request(int64_t *id, zp_store *s, const char *request_id, zp_error *err) {
    *id = 0;
    if (request_id == NULL || *request_id == '\0') return ZP_OK;
    find_ctx c = {.request_id = request_id};
    zp_status rc = pg_run((pg_store *)s, PG_READ, "looking up a request id", find_body, &c, err);
    if (rc == ZP_OK) *id = c.id;
    return rc;
}

typedef struct position_ctx {
    int64_t id;
    uint64_t position;
} position_ctx;

/* What is ahead of the job's first queued partition in claim order
 * (priority DESC, job_id, idx): the partitions_queue index's range. */
static zp_status position_body(pg_tx *tx, void *arg) {
    position_ctx *c = arg;
    PGresult *r;
    zp_store_job job;
    c->position = 0;
    zp_status rc = pg_get_job(&job, tx, c->id);
    if (rc != ZP_OK) return rc;
    pg_args a = {0};
    pg_arg_i64(&a, c->id);
    if ((rc = pg_exec(tx, "SELECT priority FROM partitions WHERE job_id = $1 AND state = 0 ORDER BY idx LIMIT 1", &a,
                      &r)) != ZP_OK)
        return rc;
    int queued = pg_rows(r) == 1;
    int64_t prio = queued ? pg_i64(r, 0, 0) : 0;
    pg_free(r);
    if (!queued) return ZP_OK;
    pg_args q = {0};
    pg_arg_i64(&q, prio);
    pg_arg_i64(&q, c->id);
    if ((rc = pg_exec(tx,
                      "SELECT count(*) FROM partitions WHERE state = 0 AND"
                      " (priority > $1 OR (priority = $1 AND job_id < $2))",
                      &q, &r)) != ZP_OK)
        return rc;
    c->position = (uint64_t)pg_i64(r, 0, 0);
    pg_free(r);
    return ZP_OK;
}

zp_status pg_queue_position(uint64_t *position, zp_store *s, int64_t id, zp_error *err) {
    position_ctx c = {.id = id};
    *position = 0;
    zp_status rc = pg_run((pg_store *)s, PG_READ, "reading a job's queue position", position_body, &c, err);
    if (rc == ZP_OK) *position = c.position;
    return rc;
}

/* ---- ending a job ---- */

typedef struct end_ctx {
    int64_t id;
    zp_job_state state;
    const char *error;
    uint32_t n;
    const zp_store_result *results;
    /* with n results: array literals of proofs, publics and the 7 times */
    const char *arrays[9];
} end_ctx;

static zp_status end_body(pg_tx *tx, void *arg) {
    end_ctx *c = arg;
    zp_store_job job;
    pg_args a = {0};
    pg_arg_i64(&a, c->id);
    /* The job's row first, then its partitions: finish_part's order
     * (pg_claims.c), so that the two never wait for each other in a cycle. */
    zp_status rc = pg_exec(tx, "SELECT 1 FROM jobs WHERE id = $1 FOR UPDATE", &a, NULL);
    if (rc != ZP_OK) return rc;
    if ((rc = pg_get_job(&job, tx, c->id)) != ZP_OK) return rc;
    if (job.state >= ZP_JOB_DONE)
        return zp_error_set(tx->err, ZP_ERR_ARG, "%s: job %lld has already ended (%s)", tx->s->name, (long long)c->id,
                            job.state == ZP_JOB_DONE     ? "done"
                            : job.state == ZP_JOB_FAILED ? "failed"
                                                         : "cancelled");
    if (c->n != 0 && c->n != job.partitions)
        return zp_error_set(tx->err, ZP_ERR_ARG, "%s: %s: job %lld has %u partitions, %u results given", tx->s->name,
                            tx->what, (long long)c->id, job.partitions, c->n);
    for (uint32_t i = 0; i < c->n; i++)
        if (c->results[i].proof_json != NULL &&
            !zp_store_result_matches(&c->results[i], job.key_digest, job.wasm_digest))
            return zp_error_set(tx->err, ZP_ERR_MISMATCH,
                                "%s: %s: job %lld partition %u: result refused: not proved with the key the job is"
                                " pinned to (%.16s)",
                                tx->s->name, tx->what, (long long)c->id, i, job.key_digest);
    if (c->n != 0) {
        PGresult *r;
        pg_args u = {0};
        pg_arg_i64(&u, c->id);
        for (int k = 0; k < 9; k++) pg_arg_str(&u, c->arrays[k]);
        if ((rc = pg_exec(tx,
                          "UPDATE partitions p SET proof = t.proof, public = t.pub, queued = t.q, synth = t.s,"
                          " wait_prove = t.wp, prove = t.p, wait_final = t.wf, final = t.f, total = t.t"
                          " FROM unnest($2::text[], $3::text[], $4::float8[], $5::float8[], $6::float8[],"
                          " $7::float8[], $8::float8[], $9::float8[], $10::float8[])"
                          " WITH ORDINALITY AS t(proof, pub, q, s, wp, p, wf, f, t, i)"
                          " WHERE p.job_id = $1 AND p.idx = t.i - 1",
                          &u, &r)) != ZP_OK)
            return rc;
        uint64_t changed = pg_changed(r);
        pg_free(r);
        if (changed != c->n)
            return zp_error_set(tx->err, ZP_ERR_INTERNAL, "%s: %s: job %lld has %llu of its %u partitions", tx->s->name,
                                tx->what, (long long)c->id, (unsigned long long)changed, c->n);
    }
    /* Those with a proof are done; the rest, and their claims, end here. */
    if ((rc = pg_exec(tx,
                      "UPDATE partitions SET state = CASE WHEN proof IS NOT NULL THEN 2 WHEN state = 3 THEN 3 ELSE 4"
                      " END, lease_until = NULL WHERE job_id = $1",
                      &a, NULL)) != ZP_OK)
        return rc;
    pg_args j = {0};
    pg_arg_i64(&j, c->id);
    pg_arg_i64(&j, c->state);
    pg_arg_str(&j, c->error);
    return pg_exec(tx,
                   "UPDATE jobs SET state = $2, error = $3, finished = extract(epoch FROM now()),"
                   " done = (SELECT count(*) FROM partitions WHERE job_id = $1 AND proof IS NOT NULL) WHERE id = $1",
                   &j, NULL);
}

zp_status pg_finish_job(zp_store *s, int64_t id, zp_job_state state, const char *error, const zp_store_result *results,
                        uint32_t n, zp_error *err) {
    static const char what[] = "recording a job's end";
    end_ctx c = {.id = id, .state = state, .error = error, .n = n, .results = results};
    pg_array arr[9];
    for (int k = 0; k < 9; k++) pg_array_begin(&arr[k]);
    int oom = 0;
    if (n != 0) {
        for (uint32_t i = 0; i < n; i++) {
            const zp_store_times *t = &results[i].times;
            const double tv[7] = {t->queued, t->synth, t->wait_prove, t->prove, t->wait_final, t->final, t->total};
            pg_array_str(&arr[0], results[i].proof_json);
            pg_array_str(&arr[1], results[i].public_json);
            for (int k = 0; k < 7; k++) pg_array_f64(&arr[2 + k], tv[k]);
        }
        for (int k = 0; k < 9; k++) oom |= (c.arrays[k] = pg_array_end(&arr[k])) == NULL;
    }
    zp_status rc = oom ? zp_error_set(err, ZP_ERR_NOMEM, "%s: %s: out of memory", s->name, what)
                       : pg_run((pg_store *)s, PG_WRITE, what, end_body, &c, err);
    for (int k = 0; k < 9; k++) pg_array_free(&arr[k]);
    return rc;
}

/* ---- reading many rows ---- */

/* A job's check and the rows of one query, walked after the lock. */
typedef struct rows_ctx {
    int64_t id;
    PGresult *rows;
} rows_ctx;

static zp_status results_body(pg_tx *tx, void *arg) {
    rows_ctx *c = arg;
    zp_store_job job;
    pg_free(c->rows);
    c->rows = NULL;
    zp_status rc = pg_get_job(&job, tx, c->id);
    if (rc != ZP_OK) return rc;
    pg_args a = {0};
    pg_arg_i64(&a, c->id);
    return pg_exec(tx,
                   "SELECT idx, proof, public, queued, synth, wait_prove, prove, wait_final, final, total"
                   " FROM partitions WHERE job_id = $1 ORDER BY idx",
                   &a, &c->rows);
}

zp_status pg_results(zp_store *s, int64_t id, zp_store_result_fn fn, void *arg, zp_error *err) {
    rows_ctx c = {.id = id};
    zp_status rc = pg_run((pg_store *)s, PG_READ, "reading a job's results", results_body, &c, err);
    for (int i = 0; rc == ZP_OK && fn != NULL && i < pg_rows(c.rows); i++) {
        zp_store_times t;
        double *tv[7] = {&t.queued, &t.synth, &t.wait_prove, &t.prove, &t.wait_final, &t.final, &t.total};
        for (int k = 0; k < 7; k++) *tv[k] = pg_f64(c.rows, i, 3 + k);
        fn(arg, (uint32_t)pg_i64(c.rows, i, 0), pg_text(c.rows, i, 1), pg_text(c.rows, i, 2), &t);
    }
    pg_free(c.rows);
    return rc;
}

typedef struct list_ctx {
    uint32_t limit;
    int state;
    PGresult *rows;
} list_ctx;

static zp_status list_body(pg_tx *tx, void *arg) {
    list_ctx *c = arg;
    pg_free(c->rows);
    c->rows = NULL;
    pg_args a = {0};
    if (c->limit) pg_arg_i64(&a, c->limit);
    else pg_arg_str(&a, NULL); /* LIMIT NULL: all */
    if (c->state < 0) return pg_exec(tx, "SELECT " PG_JOB_COLUMNS " FROM jobs ORDER BY id DESC LIMIT $1", &a, &c->rows);
    pg_arg_i64(&a, c->state);
    return pg_exec(tx, "SELECT " PG_JOB_COLUMNS " FROM jobs WHERE state = $2 ORDER BY id DESC LIMIT $1", &a, &c->rows);
}

zp_status pg_list(zp_store *s, uint32_t limit, int state, zp_store_job_fn fn, void *arg, zp_error *err) {
    list_ctx c = {.limit = limit, .state = state};
    zp_status rc = pg_run((pg_store *)s, PG_READ, "listing jobs", list_body, &c, err);
    for (int i = 0; rc == ZP_OK && fn != NULL && i < pg_rows(c.rows); i++) {
        zp_store_job job;
        pg_read_job(&job, c.rows, i);
        fn(arg, &job);
    }
    pg_free(c.rows);
    return rc;
}

typedef struct unfinished_ctx {
    PGresult *jobs, *parts;
} unfinished_ctx;

/* The jobs and all their partitions from one snapshot (PG_READ is
 * REPEATABLE READ), both in job order. */
static zp_status unfinished_body(pg_tx *tx, void *arg) {
    unfinished_ctx *c = arg;
    pg_free(c->jobs);
    pg_free(c->parts);
    c->jobs = c->parts = NULL;
    zp_status rc = pg_exec(tx, "SELECT " PG_JOB_COLUMNS " FROM jobs WHERE state < 2 ORDER BY id", NULL, &c->jobs);
    if (rc != ZP_OK) return rc;
    return pg_exec(tx,
                   "SELECT job_id, idx, path FROM partitions WHERE job_id IN (SELECT id FROM jobs WHERE state < 2)"
                   " ORDER BY job_id, idx",
                   NULL, &c->parts);
}

zp_status pg_unfinished(zp_store *s, zp_store_unfinished_fn fn, void *arg, zp_error *err) {
    unfinished_ctx c = {0};
    zp_status rc = pg_run((pg_store *)s, PG_READ, "listing unfinished jobs", unfinished_body, &c, err);
    const char **argv = NULL;
    size_t argv_cap = 0;
    int p = 0, np = pg_rows(c.parts);
    for (int i = 0; rc == ZP_OK && i < pg_rows(c.jobs); i++) {
        zp_store_job job;
        char damage[256] = "";
        pg_read_job(&job, c.jobs, i);
        while (p < np && pg_i64(c.parts, p, 0) < job.id) p++;
        if (job.partitions + 1 > argv_cap) {
            const char **a = realloc(argv, (job.partitions + 1) * sizeof *argv);
            if (a == NULL) {
                rc = zp_error_set(err, ZP_ERR_NOMEM, "%s: listing unfinished jobs: out of memory", s->name);
                break;
            }
            argv = a;
            argv_cap = job.partitions + 1;
        }
        uint32_t k = 0;
        for (; p < np && pg_i64(c.parts, p, 0) == job.id; p++, k++) {
            int64_t idx = pg_i64(c.parts, p, 1);
            const char *path = pg_text(c.parts, p, 2);
            if (*damage) continue;
            if (idx != (int64_t)k || k >= job.partitions)
                snprintf(damage, sizeof damage, "partition %lld where partition %u of %u was expected", (long long)idx,
                         k, job.partitions);
            else if (path == NULL || *path == '\0')
                snprintf(damage, sizeof damage, "partition %u has no witness path", k);
            else argv[k] = path;
        }
        if (*damage == '\0' && k != job.partitions)
            snprintf(damage, sizeof damage, "%u of its %u partitions are in the store", k, job.partitions);
        if (fn == NULL) continue;
        if (*damage) {
            fn(arg, &job, NULL, damage);
        } else {
            argv[k] = NULL;
            fn(arg, &job, argv, NULL);
        }
    }
    free(argv);
    pg_free(c.jobs);
    pg_free(c.parts);
    return rc;
}

static zp_status paths_body(pg_tx *tx, void *arg) {
    rows_ctx *c = arg;
    zp_store_job job;
    pg_free(c->rows);
    c->rows = NULL;
    zp_status rc = pg_get_job(&job, tx, c->id);
    if (rc != ZP_OK) return rc;
    pg_args a = {0};
    pg_arg_i64(&a, c->id);
    return pg_exec(tx, "SELECT path FROM partitions WHERE job_id = $1 ORDER BY idx", &a, &c->rows);
}

zp_status pg_witness_paths(zp_store *s, int64_t id, zp_store_path_fn fn, void *arg, zp_error *err) {
    rows_ctx c = {.id = id};
    zp_status rc = pg_run((pg_store *)s, PG_READ, "reading a job's witness paths", paths_body, &c, err);
    for (int i = 0; rc == ZP_OK && fn != NULL && i < pg_rows(c.rows); i++) {
        const char *path = pg_text(c.rows, i, 0);
        if (path != NULL) fn(arg, path);
    }
    pg_free(c.rows);
    return rc;
}

/* ---- counts, expiry ---- */

static zp_status count_body(pg_tx *tx, void *arg) {
    zp_store_counts *c = arg;
    PGresult *r;
    memset(c, 0, sizeof *c);
    zp_status rc = pg_exec(tx, "SELECT state, count(*) FROM jobs GROUP BY state", NULL, &r);
    if (rc != ZP_OK) return rc;
    for (int i = 0; i < pg_rows(r); i++) {
        int64_t state = pg_i64(r, i, 0);
        if (state >= 0 && state < 5) c->jobs[state] = (uint64_t)pg_i64(r, i, 1);
    }
    pg_free(r);
    /* two counts over the partial indexes, not a scan of every partition */
    if ((rc = pg_exec(tx,
                      "SELECT (SELECT count(*) FROM partitions WHERE state = 0),"
                      " (SELECT count(*) FROM partitions WHERE state = 1)",
                      NULL, &r)) != ZP_OK)
        return rc;
    c->parts_queued = (uint64_t)pg_i64(r, 0, 0);
    c->parts_running = (uint64_t)pg_i64(r, 0, 1);
    pg_free(r);
    return ZP_OK;
}

zp_status pg_count(zp_store_counts *counts, zp_store *s, zp_error *err) {
    zp_store_counts c;
    zp_status rc = pg_run((pg_store *)s, PG_READ, "counting jobs", count_body, &c, err);
    if (rc == ZP_OK) *counts = c;
    else memset(counts, 0, sizeof *counts);
    return rc;
}

typedef struct expire_ctx {
    double ttl_s;
    uint64_t count;
    PGresult *paths;
} expire_ctx;

/* One batch: at most PG_EXPIRE_BATCH ended jobs, locked (SKIP LOCKED: two
 * daemons expiring at once take different batches). */
static zp_status expire_body(pg_tx *tx, void *arg) {
    expire_ctx *c = arg;
    PGresult *r;
    pg_free(c->paths);
    c->paths = NULL;
    c->count = 0;
    pg_args a = {0};
    pg_arg_f64(&a, c->ttl_s);
    pg_arg_i64(&a, PG_EXPIRE_BATCH);
    zp_status rc = pg_exec(tx,
                           "SELECT id FROM jobs WHERE state >= 2 AND finished < extract(epoch FROM now()) - $1"
                           " ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED",
                           &a, &r);
    if (rc != ZP_OK) return rc;
    pg_array ids;
    pg_array_begin(&ids);
    for (int i = 0; i < pg_rows(r); i++) pg_array_i64(&ids, pg_i64(r, i, 0));
    c->count = (uint64_t)pg_rows(r);
    pg_free(r);
    const char *list = pg_array_end(&ids);
    if (list == NULL) {
        pg_array_free(&ids);
        return pg_oom(tx);
    }
    pg_args d = {0};
    pg_arg_str(&d, list);
    rc = pg_exec(tx,
                 "WITH gone AS (DELETE FROM partitions WHERE job_id = ANY($1::bigint[]) RETURNING job_id, idx, path)"
                 " SELECT path FROM gone ORDER BY job_id, idx",
                 &d, &c->paths);
    if (rc == ZP_OK) rc = pg_exec(tx, "DELETE FROM jobs WHERE id = ANY($1::bigint[])", &d, NULL);
    pg_array_free(&ids);
    return rc;
}

static zp_status forget_body(pg_tx *tx, void *arg) {
    pg_args a = {0};
    pg_arg_f64(&a, *(const double *)arg);
    return pg_exec(tx, "DELETE FROM nodes WHERE heartbeat < now() - make_interval(secs => $1)", &a, NULL);
}

zp_status pg_expire(uint64_t *deleted, zp_store *s, double ttl_s, zp_store_path_fn fn, void *arg, zp_error *err) {
    *deleted = 0;
    for (;;) {
        expire_ctx c = {.ttl_s = ttl_s};
        zp_status rc = pg_run((pg_store *)s, PG_WRITE, "expiring jobs", expire_body, &c, err);
        for (int i = 0; rc == ZP_OK && fn != NULL && i < pg_rows(c.paths); i++) fn(arg, pg_text(c.paths, i, 0));
        pg_free(c.paths);
        if (rc != ZP_OK) return rc;
        *deleted += c.count;
        if (c.count < PG_EXPIRE_BATCH) break;
    }
    return pg_run((pg_store *)s, PG_WRITE, "forgetting silent daemons", forget_body, &ttl_s, err);
}

static zp_status clock_body(pg_tx *tx, void *arg) {
    PGresult *r;
    zp_status rc = pg_exec(tx, "SELECT extract(epoch FROM clock_timestamp())", NULL, &r);
    if (rc != ZP_OK) return rc;
    *(double *)arg = pg_f64(r, 0, 0);
    pg_free(r);
    return ZP_OK;
}

zp_status pg_clock(double *now, zp_store *s, zp_error *err) {
    return pg_run((pg_store *)s, PG_READ, "reading the server's clock", clock_body, now, err);
}
