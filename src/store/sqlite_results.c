/* The job store's results: how a job ended, with each partition's proof,
 * public signals and timings, in one transaction; and reading them. */
#include "store/store_impl.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "store/sqlite_internal.h"

zp_status sq_finish_job(zp_store *base, int64_t id, zp_job_state state, const char *error,
                        const zp_store_result *results, uint32_t n, zp_error *err) {
    sq_store *s = (sq_store *)base;
    static const char what[] = "recording a job's end";

    pthread_mutex_lock(&s->lock);
    sqlite3_stmt *st = NULL;
    zp_store_job job;
    int r;
    zp_status rc = store_begin(s, what, err);
    if (rc != ZP_OK) goto out;
    if ((rc = store_get_job(&job, s, id, err)) != ZP_OK) goto fail;
    if (job.state >= ZP_JOB_DONE) {
        rc = zp_error_set(err, ZP_ERR_ARG, "%s: job %lld has already ended (%s)", s->path, (long long)id,
                          zp_job_state_name(job.state));
        goto fail;
    }
    if (n != 0 && n != job.partitions) {
        rc = zp_error_set(err, ZP_ERR_ARG, "%s: %s: job %lld has %u partitions, %u results given", s->path, what,
                          (long long)id, job.partitions, n);
        goto fail;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (results[i].proof_json == NULL || zp_store_result_matches(&results[i], job.key_digest, job.wasm_digest))
            continue;
        rc = zp_error_set(err, ZP_ERR_MISMATCH,
                          "%s: %s: job %lld partition %u: result refused: not proved with the key the job is pinned to"
                          " (%.16s)",
                          s->path, what, (long long)id, i, job.key_digest);
        goto fail;
    }
    uint32_t done = 0;
    if (n != 0) {
        if ((rc = store_prepare(
                 &st, s,
                 "UPDATE partitions SET proof = ?3, public = ?4, queued = ?5, synth = ?6, wait_prove = ?7,"
                 " prove = ?8, wait_final = ?9, final = ?10, total = ?11,"
                 " state = CASE WHEN ?3 IS NULL THEN 'cancelled' ELSE 'done' END"
                 " WHERE job_id = ?1 AND idx = ?2",
                 what, err)) != ZP_OK)
            goto fail;
        for (uint32_t i = 0; i < n; i++) {
            const zp_store_result *res = &results[i];
            const zp_store_times *t = &res->times;
            sq.reset(st);
            sq.bind_int64(st, 1, id);
            sq.bind_int64(st, 2, i);
            if (res->proof_json) sq.bind_text(st, 3, res->proof_json, -1, SQLITE_STATIC);
            else sq.bind_null(st, 3);
            if (res->public_json) sq.bind_text(st, 4, res->public_json, -1, SQLITE_STATIC);
            else sq.bind_null(st, 4);
            const double tv[7] = {t->queued, t->synth, t->wait_prove, t->prove, t->wait_final, t->final, t->total};
            for (int k = 0; k < 7; k++) sq.bind_double(st, 5 + k, tv[k]);
            if ((r = store_step(st, s, what, err)) < 0) {
                rc = (zp_status)-r;
                goto fail;
            }
            if (sq.changes(s->db) != 1) {
                rc = zp_error_set(err, ZP_ERR_INTERNAL, "%s: %s: job %lld has no partition %u", s->path, what,
                                  (long long)id, i);
                goto fail;
            }
            if (res->proof_json) done++;
        }
        sq.finalize(st);
        st = NULL;
    }
    if ((rc = store_prepare(&st, s,
                            "UPDATE jobs SET state = ?2, error = ?3, finished = zp_now(), done = coalesce(?5, (SELECT"
                            " count(*) FROM partitions WHERE job_id = ?1 AND state = 'done' AND proof IS NOT NULL))"
                            " WHERE id = ?1",
                            what, err)) != ZP_OK)
        goto fail;
    sq.bind_int64(st, 1, id);
    sq.bind_text(st, 2, store_state_name(state), -1, SQLITE_STATIC);
    if (error) sq.bind_text(st, 3, error, -1, SQLITE_STATIC);
    else sq.bind_null(st, 3);
    if (n != 0) sq.bind_int64(st, 5, done); /* else: the partitions done before */
    else sq.bind_null(st, 5);
    if ((r = store_step(st, s, what, err)) < 0) {
        rc = (zp_status)-r;
        goto fail;
    }
    sq.finalize(st);
    st = NULL;
    /* what has no proof is not worked on any more: the claims end with it */
    if ((rc = store_prepare(
             &st, s, "UPDATE partitions SET state = 'cancelled' WHERE job_id = ?1 AND state IN ('queued', 'running')",
             what, err)) != ZP_OK)
        goto fail;
    sq.bind_int64(st, 1, id);
    if ((r = store_step(st, s, what, err)) < 0) {
        rc = (zp_status)-r;
        goto fail;
    }
    sq.finalize(st);
    st = NULL;
    if ((rc = store_commit(s, what, err)) != ZP_OK) goto fail;
    goto out;
fail:
    sq.finalize(st);
    store_rollback(s);
out:
    pthread_mutex_unlock(&s->lock);
    return rc;
}

/* ---- reading many rows ---- */

typedef struct result_row {
    uint32_t idx;
    size_t proof, pub;
    zp_store_times t;
} result_row;

zp_status sq_results(zp_store *base, int64_t id, zp_store_result_fn fn, void *arg, zp_error *err) {
    sq_store *s = (sq_store *)base;
    static const char what[] = "reading a job's results";
    strpool pool = {0};
    result_row *rows = NULL;
    size_t n = 0, cap = 0;
    zp_store_job job;
    sqlite3_stmt *st = NULL;

    pthread_mutex_lock(&s->lock);
    /* One read transaction: the job and its partitions from one snapshot. */
    zp_status rc = store_exec(s, "BEGIN", what, err);
    if (rc != ZP_OK) goto out;
    if ((rc = store_get_job(&job, s, id, err)) != ZP_OK) goto out;
    if ((rc = store_prepare(&st, s,
                            "SELECT idx, proof, public, queued, synth, wait_prove, prove, wait_final, final, total"
                            " FROM partitions WHERE job_id = ?1 ORDER BY idx",
                            what, err)) != ZP_OK)
        goto out;
    sq.bind_int64(st, 1, id);
    int r;
    while ((r = store_step(st, s, what, err)) == SQLITE_ROW) {
        if (!store_grow((void **)&rows, &cap, n, sizeof *rows)) break;
        result_row *row = &rows[n];
        row->idx = (uint32_t)sq.column_int64(st, 0);
        if (!store_pool_add(&row->proof, &pool, st, 1) || !store_pool_add(&row->pub, &pool, st, 2)) break;
        double *tv[7] = {&row->t.queued,     &row->t.synth, &row->t.wait_prove, &row->t.prove,
                         &row->t.wait_final, &row->t.final, &row->t.total};
        for (int k = 0; k < 7; k++) *tv[k] = sq.column_double(st, 3 + k);
        n++;
    }
    if (r < 0) rc = (zp_status)-r;
    else if (r == SQLITE_ROW) rc = store_oom(s, err, what);
out:
    sq.finalize(st);
    store_rollback(s); /* ends the read transaction */
    pthread_mutex_unlock(&s->lock);
    if (rc == ZP_OK && fn != NULL)
        for (size_t i = 0; i < n; i++)
            fn(arg, rows[i].idx, store_pool_str(&pool, rows[i].proof), store_pool_str(&pool, rows[i].pub), &rows[i].t);
    free(rows);
    free(pool.buf);
    return rc;
}
