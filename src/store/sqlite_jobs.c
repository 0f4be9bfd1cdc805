/* The job store's jobs: adding (request ids), reading, listing, the
 * unfinished ones with their witness paths, counts and expiry. */
#include "store/store_impl.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "store/sqlite_internal.h"

/* Jobs deleted per transaction by expire: the lock is released between
 * batches, so an expiry of many jobs never stalls the HTTP threads long. */
#define ZP_STORE_EXPIRE_BATCH 128
#define ZP_STR_(x) #x
#define ZP_STR(x) ZP_STR_(x)

/* ---- jobs ---- */

int store_read_job(zp_store_job *job, sqlite3_stmt *st) {
    memset(job, 0, sizeof *job);
    job->id = sq.column_int64(st, 0);
    store_copy_text(job->request_id, sizeof job->request_id, st, 1);
    store_copy_text(job->key_id, sizeof job->key_id, st, 2);
    job->priority = sq.column_int(st, 3);
    job->partitions = (uint32_t)sq.column_int64(st, 4);
    job->done = (uint32_t)sq.column_int64(st, 5);
    const unsigned char *state = sq.column_text(st, 6);
    int si = state ? store_state_index((const char *)state) : -1;
    job->state = si < 0 ? ZP_JOB_QUEUED : (zp_job_state)si;
    store_copy_text(job->error, sizeof job->error, st, 7);
    job->submitted = sq.column_double(st, 8);
    job->finished = sq.column_double(st, 9); /* NULL reads as 0 */
    store_copy_text(job->request_digest, sizeof job->request_digest, st, 10);
    store_copy_text(job->key_digest, sizeof job->key_digest, st, 11);
    store_copy_text(job->wasm_digest, sizeof job->wasm_digest, st, 12);
    return si >= 0;
}

/* Under the lock: the id of request_id's job, 0 when none. */
static zp_status find_request(int64_t *id, sq_store *s, const char *request_id, zp_error *err) {
    sqlite3_stmt *st;
    *id = 0;
    zp_status rc = store_prepare(&st, s, "SELECT id FROM jobs WHERE request_id = ?1", "looking up a request id", err);
    if (rc != ZP_OK) return rc;
    sq.bind_text(st, 1, request_id, -1, SQLITE_STATIC);
    int r = store_step(st, s, "looking up a request id", err);
    if (r == SQLITE_ROW) *id = sq.column_int64(st, 0);
    sq.finalize(st);
    return r < 0 ? (zp_status)-r : ZP_OK;
}

zp_status sq_add_job(int64_t *id, int *existing, zp_store *base, const char *request_id, const char *request_digest,
                     const char *key_id, const char *key_digest, const char *wasm_digest, int priority,
                     uint32_t partitions, const char *const *witness_paths, zp_error *err) {
    sq_store *s = (sq_store *)base;
    static const char what[] = "adding a job";
    pthread_mutex_lock(&s->lock);
    sqlite3_stmt *st = NULL;
    int r;
    zp_status rc = store_begin(s, what, err);
    if (rc != ZP_OK) goto out;
    if (request_id != NULL) {
        int64_t old;
        if ((rc = find_request(&old, s, request_id, err)) != ZP_OK) goto fail;
        if (old != 0) {
            *id = old;
            *existing = 1;
            store_rollback(s); /* nothing written */
            goto out;
        }
    }
    if ((rc = store_prepare(
             &st, s,
             "INSERT INTO jobs(request_id, key_id, priority, partitions, state, submitted, request_digest,"
             " key_digest, wasm_digest) VALUES(?1, ?2, ?3, ?4, 'queued', zp_now(), ?6, ?7, ?8)",
             what, err)) != ZP_OK)
        goto fail;
    if (request_id != NULL) sq.bind_text(st, 1, request_id, -1, SQLITE_STATIC);
    sq.bind_text(st, 2, key_id, -1, SQLITE_STATIC);
    sq.bind_int(st, 3, priority);
    sq.bind_int64(st, 4, partitions);
    if (request_digest != NULL) sq.bind_text(st, 6, request_digest, -1, SQLITE_STATIC);
    sq.bind_text(st, 7, key_digest, -1, SQLITE_STATIC);
    sq.bind_text(st, 8, wasm_digest, -1, SQLITE_STATIC);
    if ((r = store_step(st, s, what, err)) < 0) {
        rc = (zp_status)-r;
        goto fail;
    }
    int64_t new_id = sq.last_insert_rowid(s->db);
    sq.finalize(st);
    if ((rc = store_prepare(
             &st, s, "INSERT INTO partitions(job_id, idx, witness, state, priority) VALUES(?1, ?2, ?3, 'queued', ?4)",
             what, err)) != ZP_OK)
        goto fail;
    for (uint32_t i = 0; i < partitions; i++) {
        sq.reset(st);
        sq.bind_int64(st, 1, new_id);
        sq.bind_int64(st, 2, i);
        sq.bind_text(st, 3, witness_paths[i], -1, SQLITE_STATIC);
        sq.bind_int(st, 4, priority);
        if ((r = store_step(st, s, what, err)) < 0) {
            rc = (zp_status)-r;
            goto fail;
        }
    }
    sq.finalize(st);
    st = NULL;
    if ((rc = store_commit(s, what, err)) != ZP_OK) goto fail;
    *id = new_id;
    goto out;
fail:
    sq.finalize(st);
    store_rollback(s);
out:
    pthread_mutex_unlock(&s->lock);
    return rc;
}

/* Under the lock. */
zp_status store_get_job(zp_store_job *job, sq_store *s, int64_t id, zp_error *err) {
    sqlite3_stmt *st;
    zp_status rc = store_prepare(&st, s, "SELECT " JOB_COLUMNS " FROM jobs WHERE id = ?1", "reading a job", err);
    if (rc != ZP_OK) return rc;
    sq.bind_int64(st, 1, id);
    int r = store_step(st, s, "reading a job", err);
    if (r == SQLITE_ROW) store_read_job(job, st);
    sq.finalize(st);
    if (r < 0) return (zp_status)-r;
    return r == SQLITE_ROW ? ZP_OK : store_no_job(s, err, id);
}

zp_status sq_get_job(zp_store_job *job, zp_store *base, int64_t id, zp_error *err) {
    sq_store *s = (sq_store *)base;
    pthread_mutex_lock(&s->lock);
    zp_status rc = store_get_job(job, s, id, err);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

zp_status sq_find_request(int64_t *id, zp_store *base, const char *request_id, zp_error *err) {
    sq_store *s = (sq_store *)base;
    pthread_mutex_lock(&s->lock);
    zp_status rc = find_request(id, s, request_id, err);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

zp_status sq_list(zp_store *base, uint32_t limit, int state_filter, zp_store_job_fn fn, void *arg, zp_error *err) {
    sq_store *s = (sq_store *)base;
    static const char what[] = "listing jobs";
    const char *state = state_filter >= 0 ? store_state_name((zp_job_state)state_filter) : NULL;
    zp_store_job *jobs = NULL;
    size_t n = 0, cap = 0;
    sqlite3_stmt *st = NULL;

    pthread_mutex_lock(&s->lock);
    zp_status rc = store_prepare(&st, s,
                                 state ? "SELECT " JOB_COLUMNS " FROM jobs WHERE state = ?2 ORDER BY id DESC LIMIT ?1"
                                       : "SELECT " JOB_COLUMNS " FROM jobs ORDER BY id DESC LIMIT ?1",
                                 what, err);
    if (rc != ZP_OK) goto out;
    sq.bind_int64(st, 1, limit ? (int64_t)limit : -1);
    if (state) sq.bind_text(st, 2, state, -1, SQLITE_STATIC);
    int r;
    while ((r = store_step(st, s, what, err)) == SQLITE_ROW) {
        if (!store_grow((void **)&jobs, &cap, n, sizeof *jobs)) break;
        store_read_job(&jobs[n++], st);
    }
    if (r < 0) rc = (zp_status)-r;
    else if (r == SQLITE_ROW) rc = store_oom(s, err, what);
out:
    sq.finalize(st);
    pthread_mutex_unlock(&s->lock);
    if (rc == ZP_OK && fn != NULL)
        for (size_t i = 0; i < n; i++) fn(arg, &jobs[i]);
    free(jobs);
    return rc;
}

/* Collects the witness paths of a query whose first column is the job id
 * and second the path (ordered by job, then index). Under the lock. */
typedef struct path_rows {
    strpool pool;
    int64_t *job; /* per path */
    size_t *off;
    size_t n, cap, cap2;
} path_rows;

static zp_status collect_paths(path_rows *p, sqlite3_stmt *st, sq_store *s, const char *what, zp_error *err) {
    int r;
    while ((r = store_step(st, s, what, err)) == SQLITE_ROW) {
        if (!store_grow((void **)&p->job, &p->cap, p->n, sizeof *p->job) ||
            !store_grow((void **)&p->off, &p->cap2, p->n, sizeof *p->off) ||
            !store_pool_add(&p->off[p->n], &p->pool, st, 1))
            return store_oom(s, err, what);
        if (p->off[p->n] == NO_STR) continue; /* NOT NULL in the schema */
        p->job[p->n++] = sq.column_int64(st, 0);
    }
    return r < 0 ? (zp_status)-r : ZP_OK;
}

static void free_paths(path_rows *p) {
    free(p->pool.buf);
    free(p->job);
    free(p->off);
}

/* Under the lock: one unfinished job's witness paths, checked against what
 * its row says (partitions 0..n-1, each a non-empty path). A row that does
 * not add up, or a page that cannot be read, is that job's damage, written
 * into damage; only an error that is not about this job's rows (out of
 * memory, the file gone) is returned. */
static zp_status job_paths(path_rows *p, char *damage, size_t cap, sq_store *s, const zp_store_job *job, int state_ok,
                           zp_error *err) {
    static const char what[] = "listing unfinished jobs";
    sqlite3_stmt *st = NULL;
    *damage = '\0';
    p->n = 0;
    p->pool.len = 0;
    if (!state_ok) { /* named as it is stored */
        char raw[40] = "";
        if (store_prepare(&st, s, "SELECT state FROM jobs WHERE id = ?1", what, err) == ZP_OK) {
            sq.bind_int64(st, 1, job->id);
            if (sq.step(st) == SQLITE_ROW) store_copy_text(raw, sizeof raw, st, 0);
            sq.finalize(st);
        }
        snprintf(damage, cap, "state '%s' is none of queued, running, done, failed, cancelled", raw);
        return ZP_OK;
    }
    zp_status rc =
        store_prepare(&st, s, "SELECT idx, witness FROM partitions WHERE job_id = ?1 ORDER BY idx", what, err);
    if (rc != ZP_OK) return rc;
    sq.bind_int64(st, 1, job->id);
    int r;
    while ((r = store_step(st, s, what, err)) == SQLITE_ROW) {
        int64_t idx = sq.column_int64(st, 0);
        const unsigned char *w = sq.column_text(st, 1);
        if (idx != (int64_t)p->n || p->n >= job->partitions) {
            snprintf(damage, cap, "partition %lld where partition %zu of %u was expected", (long long)idx, p->n,
                     job->partitions);
            break;
        }
        if (sq.column_type(st, 1) != SQLITE_TEXT || w == NULL || *w == '\0' ||
            strlen((const char *)w) != (size_t)sq.column_bytes(st, 1)) {
            snprintf(damage, cap, "partition %zu has no witness path", p->n);
            break;
        }
        if (!store_grow((void **)&p->job, &p->cap, p->n, sizeof *p->job) ||
            !store_grow((void **)&p->off, &p->cap2, p->n, sizeof *p->off) ||
            !store_pool_add(&p->off[p->n], &p->pool, st, 1)) {
            sq.finalize(st);
            return store_oom(s, err, what);
        }
        p->job[p->n++] = job->id;
    }
    if (r < 0) {
        int code = sq.errcode(s->db) & 0xff;
        sq.finalize(st);
        if (code != SQLITE_CORRUPT && code != SQLITE_NOTADB && code != SQLITE_FORMAT && code != SQLITE_MISMATCH)
            return (zp_status)-r;
        snprintf(damage, cap, "its partitions cannot be read: %.400s", err ? err->message : "corrupt");
        return ZP_OK;
    }
    sq.finalize(st);
    if (*damage == '\0' && p->n != job->partitions)
        snprintf(damage, cap, "%zu of its %u partitions are in the store", p->n, job->partitions);
    return ZP_OK;
}

zp_status sq_unfinished(zp_store *base, zp_store_unfinished_fn fn, void *arg, zp_error *err) {
    sq_store *s = (sq_store *)base;
    static const char what[] = "listing unfinished jobs";
    zp_store_job *jobs = NULL;
    unsigned char *state_ok = NULL;
    size_t n = 0, cap = 0, cap_ok = 0;
    sqlite3_stmt *st = NULL;

    /* The jobs first (the jobs table is checked whole when the store
     * opens), then each job's partitions on their own: a damaged row
     * fails its own job, never the listing. */
    pthread_mutex_lock(&s->lock);
    /* not ended: queued, running, or a state that is none of the five (a
     * damaged row, failed below) */
    zp_status rc = store_prepare(&st, s,
                                 "SELECT " JOB_COLUMNS
                                 " FROM jobs WHERE state IS NULL OR state NOT IN"
                                 " ('done', 'failed', 'cancelled') ORDER BY id",
                                 what, err);
    int r = 0;
    while (rc == ZP_OK && (r = store_step(st, s, what, err)) == SQLITE_ROW) {
        if (!store_grow((void **)&jobs, &cap, n, sizeof *jobs) ||
            !store_grow((void **)&state_ok, &cap_ok, n, sizeof *state_ok))
            break;
        state_ok[n] = (unsigned char)store_read_job(&jobs[n], st);
        n++;
    }
    if (rc == ZP_OK && r < 0) rc = (zp_status)-r;
    else if (rc == ZP_OK && r == SQLITE_ROW) rc = store_oom(s, err, what);
    sq.finalize(st);
    pthread_mutex_unlock(&s->lock);

    path_rows paths = {0};
    const char **argv = NULL;
    size_t argv_cap = 0;
    for (size_t i = 0; rc == ZP_OK && i < n; i++) {
        char damage[512];
        pthread_mutex_lock(&s->lock);
        rc = job_paths(&paths, damage, sizeof damage, s, &jobs[i], state_ok[i], err);
        pthread_mutex_unlock(&s->lock);
        if (rc != ZP_OK) break;
        if (*damage) {
            if (fn != NULL) fn(arg, &jobs[i], NULL, damage);
            continue;
        }
        if (paths.n + 1 > argv_cap) {
            const char **a = realloc(argv, (paths.n + 1) * sizeof *argv);
            if (a == NULL) {
                rc = store_oom(s, err, what);
                break;
            }
            argv = a;
            argv_cap = paths.n + 1;
        }
        for (size_t k = 0; k < paths.n; k++) argv[k] = store_pool_str(&paths.pool, paths.off[k]);
        argv[paths.n] = NULL;
        if (fn != NULL) fn(arg, &jobs[i], argv, NULL);
    }
    free(argv);
    free(jobs);
    free(state_ok);
    free_paths(&paths);
    return rc;
}

zp_status sq_witness_paths(zp_store *base, int64_t id, zp_store_path_fn fn, void *arg, zp_error *err) {
    sq_store *s = (sq_store *)base;
    static const char what[] = "reading a job's witness paths";
    path_rows paths = {0};
    zp_store_job job;
    sqlite3_stmt *st = NULL;

    pthread_mutex_lock(&s->lock);
    zp_status rc = store_exec(s, "BEGIN", what, err);
    if (rc != ZP_OK) goto out;
    if ((rc = store_get_job(&job, s, id, err)) != ZP_OK) goto out;
    if ((rc = store_prepare(&st, s, "SELECT job_id, witness FROM partitions WHERE job_id = ?1 ORDER BY idx", what,
                            err)) != ZP_OK)
        goto out;
    sq.bind_int64(st, 1, id);
    rc = collect_paths(&paths, st, s, what, err);
out:
    sq.finalize(st);
    store_rollback(s);
    pthread_mutex_unlock(&s->lock);
    if (rc == ZP_OK && fn != NULL)
        for (size_t i = 0; i < paths.n; i++) fn(arg, store_pool_str(&paths.pool, paths.off[i]));
    free_paths(&paths);
    return rc;
}

/* Runs a query of (state name, count) rows into counts[state]. */
static zp_status count_by_state(uint64_t *counts, sq_store *s, const char *sql, const char *what, zp_error *err) {
    sqlite3_stmt *st;
    zp_status rc = store_prepare(&st, s, sql, what, err);
    if (rc != ZP_OK) return rc;
    int r;
    while ((r = store_step(st, s, what, err)) == SQLITE_ROW) {
        const char *state = (const char *)sq.column_text(st, 0);
        int i = state ? store_state_index(state) : -1;
        if (i >= 0) counts[i] = (uint64_t)sq.column_int64(st, 1);
    }
    if (r < 0) rc = (zp_status)-r;
    sq.finalize(st);
    return rc;
}

zp_status sq_count(zp_store_counts *counts, zp_store *base, zp_error *err) {
    sq_store *s = (sq_store *)base;
    static const char what[] = "counting jobs";
    uint64_t parts[ZP_STORE_STATES] = {0};
    pthread_mutex_lock(&s->lock);
    zp_status rc = store_exec(s, "BEGIN", what, err);
    if (rc == ZP_OK) rc = count_by_state(counts->jobs, s, "SELECT state, count(*) FROM jobs GROUP BY state", what, err);
    /* the two partial indexes: no scan of the ended partitions */
    if (rc == ZP_OK)
        rc = count_by_state(parts, s,
                            "SELECT 'queued', count(*) FROM partitions WHERE state = 'queued' UNION ALL"
                            " SELECT 'running', count(*) FROM partitions WHERE state = 'running'",
                            what, err);
    store_rollback(s);
    pthread_mutex_unlock(&s->lock);
    counts->parts_queued = parts[ZP_JOB_QUEUED];
    counts->parts_running = parts[ZP_JOB_RUNNING];
    return rc;
}

zp_status sq_queue_position(uint64_t *position, zp_store *base, int64_t id, zp_error *err) {
    sq_store *s = (sq_store *)base;
    static const char what[] = "finding a job's place in the queue";
    sqlite3_stmt *st;
    pthread_mutex_lock(&s->lock);
    zp_status rc =
        store_prepare(&st, s,
                      "SELECT count(*) FROM partitions p, (SELECT priority AS pr, min(job_id) AS j FROM"
                      " partitions WHERE job_id = ?1 AND state = 'queued') me WHERE me.j IS NOT NULL AND"
                      " p.state = 'queued' AND (p.priority > me.pr OR (p.priority = me.pr AND p.job_id < me.j))",
                      what, err);
    if (rc == ZP_OK) {
        sq.bind_int64(st, 1, id);
        int r = store_step(st, s, what, err);
        if (r == SQLITE_ROW) *position = (uint64_t)sq.column_int64(st, 0);
        else if (r < 0) rc = (zp_status)-r;
        sq.finalize(st);
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

/* One batch of expire, under the lock: at most ZP_STORE_EXPIRE_BATCH jobs. */
static zp_status expire_batch(uint64_t *count, path_rows *paths, sq_store *s, double ttl_s, zp_error *err) {
    static const char what[] = "expiring jobs";
#define EXPIRED                                                                                                   \
    "SELECT id FROM jobs WHERE finished < zp_now() - ?1 AND state IN ('done', 'failed', 'cancelled') ORDER BY id" \
    " LIMIT " ZP_STR(ZP_STORE_EXPIRE_BATCH)
    static const char *const sql[3] = {
        "SELECT job_id, witness FROM partitions WHERE job_id IN (" EXPIRED ") ORDER BY job_id, idx",
        "DELETE FROM partitions WHERE job_id IN (" EXPIRED ")",
        "DELETE FROM jobs WHERE id IN (" EXPIRED ")",
    };
#undef EXPIRED
    *count = 0;
    sqlite3_stmt *st = NULL;
    int r;
    zp_status rc = store_begin(s, what, err);
    if (rc != ZP_OK) return rc;
    for (int k = 0; k < 3; k++) {
        if ((rc = store_prepare(&st, s, sql[k], what, err)) != ZP_OK) goto fail;
        sq.bind_double(st, 1, ttl_s);
        if (k == 0) {
            if ((rc = collect_paths(paths, st, s, what, err)) != ZP_OK) goto fail;
        } else if ((r = store_step(st, s, what, err)) < 0) {
            rc = (zp_status)-r;
            goto fail;
        }
        if (k == 2) *count = (uint64_t)sq.changes(s->db);
        sq.finalize(st);
        st = NULL;
    }
    if ((rc = store_commit(s, what, err)) == ZP_OK) return ZP_OK;
fail:
    *count = 0;
    sq.finalize(st);
    store_rollback(s);
    return rc;
}

zp_status sq_expire(uint64_t *deleted, zp_store *base, double ttl_s, zp_store_path_fn fn, void *arg, zp_error *err) {
    sq_store *s = (sq_store *)base;
    *deleted = 0;
    for (;;) {
        path_rows paths = {0};
        uint64_t count;
        pthread_mutex_lock(&s->lock);
        zp_status rc = expire_batch(&count, &paths, s, ttl_s, err);
        pthread_mutex_unlock(&s->lock);
        if (rc == ZP_OK && fn != NULL)
            for (size_t i = 0; i < paths.n; i++) fn(arg, store_pool_str(&paths.pool, paths.off[i]));
        free_paths(&paths);
        if (rc != ZP_OK) return rc;
        *deleted += count;
        if (count < ZP_STORE_EXPIRE_BATCH) break;
    }
    /* daemons silent that long: long gone */
    sqlite3_stmt *st;
    pthread_mutex_lock(&s->lock);
    zp_status rc = store_prepare(&st, s, "DELETE FROM nodes WHERE heartbeat < zp_now() - ?1", "expiring daemons", err);
    if (rc == ZP_OK) {
        sq.bind_double(st, 1, ttl_s);
        int r = store_step(st, s, "expiring daemons", err);
        if (r < 0) rc = (zp_status)-r;
        sq.finalize(st);
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}
