/* The SQLite job store's claims (store.h "claims", "daemons"): one daemon
 * on one host claims its own queue, partition by partition, under the
 * same leases, fences and pins as a fleet on PostgreSQL, so the daemon has
 * one way of working whichever store it has. Times are the store's clock
 * (zp_now(), sqlite.c), as PostgreSQL's are its server's now(). */
#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/error.h"
#include "store/sqlite_internal.h"

/* Runs one statement to its end with an int64 first parameter and an
 * optional text second one; *changes: rows it changed (may be NULL). */
static zp_status run(int *changes, sq_store *s, const char *sql, int64_t a, const char *b, const char *what,
                     zp_error *err) {
    sqlite3_stmt *st;
    zp_status rc = store_prepare(&st, s, sql, what, err);
    if (rc != ZP_OK) return rc;
    if (sq.bind_parameter_count(st) >= 1) sq.bind_int64(st, 1, a);
    if (sq.bind_parameter_count(st) >= 2) sq.bind_text(st, 2, b, -1, SQLITE_STATIC);
    int r = store_step(st, s, what, err);
    if (r < 0) rc = (zp_status)-r;
    else if (changes) *changes = sq.changes(s->db);
    sq.finalize(st);
    return rc;
}

/* A new fencing number, larger than every one handed out before. */
static zp_status next_fence(uint64_t *fence, sq_store *s, const char *what, zp_error *err) {
    sqlite3_stmt *st;
    zp_status rc = store_prepare(&st, s, "UPDATE fences SET next = next + 1 RETURNING next - 1", what, err);
    if (rc != ZP_OK) return rc;
    int r = store_step(st, s, what, err);
    if (r == SQLITE_ROW) *fence = (uint64_t)sq.column_int64(st, 0);
    else rc = r < 0 ? (zp_status)-r : zp_error_set(err, ZP_ERR_FORMAT, "%s: %s: no fence counter", s->path, what);
    sq.finalize(st);
    return rc;
}

zp_status sq_claim(zp_store_claim *out, size_t max, size_t *n, zp_store *base, const char *node,
                   const zp_store_key *keys, size_t n_keys, double lease_s, zp_error *err) {
    sq_store *s = (sq_store *)base;
    static const char what[] = "claiming work";
    sqlite3_stmt *pick = NULL, *take = NULL;
    pthread_mutex_lock(&s->lock);
    zp_status rc = store_begin(s, what, err);
    if (rc != ZP_OK) goto out;
    /* queued ones in claim order (the partial index), then those whose
     * lease ran out (their daemon died or stalled) */
    rc = store_prepare(&pick, s,
                       "SELECT job_id, idx, priority, key_id, witness, key_digest, wasm_digest FROM (SELECT p.job_id,"
                       " p.idx, p.priority, j.key_id, p.witness, j.key_digest, j.wasm_digest FROM partitions p JOIN"
                       " jobs j ON j.id = p.job_id WHERE p.state = 'queued' UNION ALL SELECT p.job_id, p.idx,"
                       " p.priority, j.key_id, p.witness, j.key_digest, j.wasm_digest FROM partitions p JOIN jobs j"
                       " ON j.id = p.job_id WHERE p.state = 'running' AND p.lease_until < zp_now())"
                       " ORDER BY priority DESC, job_id, idx",
                       what, err);
    if (rc == ZP_OK)
        rc =
            store_prepare(&take, s,
                          "UPDATE partitions SET state = 'running', owner = ?3, fence = ?4, lease_until = zp_now() + ?5"
                          " WHERE job_id = ?1 AND idx = ?2",
                          what, err);
    if (rc != ZP_OK) goto fail;
    int r = SQLITE_DONE;
    while (*n < max && (r = store_step(pick, s, what, err)) == SQLITE_ROW) {
        const char *key = (const char *)sq.column_text(pick, 3);
        const char *path = (const char *)sq.column_text(pick, 4);
        const char *kd = (const char *)sq.column_text(pick, 5), *wd = (const char *)sq.column_text(pick, 6);
        int wanted = keys == NULL;
        for (size_t k = 0; !wanted && key && k < n_keys; k++) wanted = zp_store_key_matches(&keys[k], key, kd, wd);
        if (!wanted || key == NULL || path == NULL) continue;
        zp_store_claim *c = &out[*n];
        c->job_id = sq.column_int64(pick, 0);
        c->idx = (uint32_t)sq.column_int64(pick, 1);
        c->priority = sq.column_int(pick, 2);
        snprintf(c->key_id, sizeof c->key_id, "%s", key);
        snprintf(c->path, sizeof c->path, "%s", path);
        (*n)++;
    }
    if (*n < max && r < 0) {
        rc = (zp_status)-r;
        goto fail;
    }
    sq.finalize(pick);
    pick = NULL;
    for (size_t i = 0; i < *n; i++) {
        zp_store_claim *c = &out[i];
        if ((rc = next_fence(&c->fence, s, what, err)) != ZP_OK) goto fail;
        sq.reset(take);
        sq.bind_int64(take, 1, c->job_id);
        sq.bind_int64(take, 2, c->idx);
        sq.bind_text(take, 3, node, -1, SQLITE_STATIC);
        sq.bind_int64(take, 4, (int64_t)c->fence);
        sq.bind_double(take, 5, lease_s);
        if ((r = store_step(take, s, what, err)) < 0) {
            rc = (zp_status)-r;
            goto fail;
        }
        if ((rc = run(NULL, s, "UPDATE jobs SET state = 'running' WHERE id = ?1 AND state = 'queued'", c->job_id, NULL,
                      what, err)) != ZP_OK)
            goto fail;
    }
    sq.finalize(take);
    take = NULL;
    if ((rc = store_commit(s, what, err)) == ZP_OK) goto out;
fail:
    *n = 0;
    sq.finalize(pick);
    sq.finalize(take);
    store_rollback(s);
out:
    pthread_mutex_unlock(&s->lock);
    return rc;
}

zp_status sq_renew(int *lost, zp_store *base, const char *node, const zp_store_held *held, size_t n, double lease_s,
                   zp_error *err) {
    sq_store *s = (sq_store *)base;
    static const char what[] = "renewing leases";
    sqlite3_stmt *st = NULL;
    pthread_mutex_lock(&s->lock);
    zp_status rc = store_begin(s, what, err);
    if (rc == ZP_OK)
        rc = store_prepare(&st, s,
                           "UPDATE partitions SET lease_until = zp_now() + ?4 WHERE job_id = ?1 AND idx = ?2"
                           " AND fence = ?3 AND owner = ?5 AND state = 'running'",
                           what, err);
    for (size_t i = 0; rc == ZP_OK && i < n; i++) {
        sq.reset(st);
        sq.bind_int64(st, 1, held[i].job_id);
        sq.bind_int64(st, 2, held[i].idx);
        sq.bind_int64(st, 3, (int64_t)held[i].fence);
        sq.bind_double(st, 4, lease_s);
        sq.bind_text(st, 5, node, -1, SQLITE_STATIC);
        int r = store_step(st, s, what, err);
        if (r < 0) rc = (zp_status)-r;
        else lost[i] = sq.changes(s->db) == 0;
    }
    sq.finalize(st);
    if (rc == ZP_OK) rc = store_commit(s, what, err);
    if (rc != ZP_OK) {
        store_rollback(s);
        memset(lost, 0, n * sizeof *lost);
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

zp_status sq_release(zp_store *base, const char *node, const zp_store_held *held, size_t n, zp_error *err) {
    sq_store *s = (sq_store *)base;
    static const char what[] = "releasing claims";
    sqlite3_stmt *st = NULL;
    pthread_mutex_lock(&s->lock);
    zp_status rc = store_begin(s, what, err);
    if (rc == ZP_OK && held == NULL) {
        /* every claim of node's (their jobs stay running: store.h) */
        rc = run(NULL, s,
                 "UPDATE partitions SET state = 'queued', lease_until = NULL WHERE state = 'running' AND owner = ?2", 0,
                 node, what, err);
    } else if (rc == ZP_OK) {
        rc = store_prepare(&st, s,
                           "UPDATE partitions SET state = 'queued', lease_until = NULL WHERE job_id = ?1 AND idx = ?2"
                           " AND fence = ?3 AND owner = ?4 AND state = 'running'",
                           what, err);
        for (size_t i = 0; rc == ZP_OK && i < n; i++) {
            sq.reset(st);
            sq.bind_int64(st, 1, held[i].job_id);
            sq.bind_int64(st, 2, held[i].idx);
            sq.bind_int64(st, 3, (int64_t)held[i].fence);
            sq.bind_text(st, 4, node, -1, SQLITE_STATIC);
            int r = store_step(st, s, what, err);
            if (r < 0) rc = (zp_status)-r;
        }
        sq.finalize(st);
    }
    if (rc == ZP_OK) rc = store_commit(s, what, err);
    if (rc != ZP_OK) store_rollback(s);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

/* Under the lock, in a transaction: whether a done partition's proof
 * may be recorded (its digests are its job's pins, store.h). One that
 * may not goes back to the queue, claim and all, for a daemon with the
 * job's key (*refuse = 1; *job is its job). */
static zp_status pins_check(int *refuse, zp_store_job *job, sq_store *s, const zp_store_held *h,
                            const zp_store_result *result, const char *what, zp_error *err) {
    *refuse = 0;
    zp_status rc = store_get_job(job, s, h->job_id, err);
    if (rc != ZP_OK || zp_store_result_matches(result, job->key_digest, job->wasm_digest)) return rc;
    *refuse = 1;
    sqlite3_stmt *st;
    if ((rc = store_prepare(&st, s,
                            "UPDATE partitions SET state = 'queued', owner = NULL, lease_until = NULL WHERE job_id = ?1"
                            " AND idx = ?2 AND fence = ?3 AND state = 'running'",
                            what, err)) != ZP_OK)
        return rc;
    sq.bind_int64(st, 1, h->job_id);
    sq.bind_int64(st, 2, h->idx);
    sq.bind_int64(st, 3, (int64_t)h->fence);
    int r = store_step(st, s, what, err);
    sq.finalize(st);
    return r < 0 ? (zp_status)-r : ZP_OK;
}

zp_status sq_finish_part(int *job_ended, zp_store *base, const zp_store_held *h, zp_job_state state, const char *error,
                         const zp_store_result *result, zp_error *err) {
    sq_store *s = (sq_store *)base;
    static const char what[] = "recording a partition's end";
    sqlite3_stmt *st = NULL;
    int r;
    pthread_mutex_lock(&s->lock);
    zp_status rc = store_begin(s, what, err);
    if (rc != ZP_OK) goto out;
    if (state == ZP_JOB_DONE) {
        int refuse;
        zp_store_job job;
        if ((rc = pins_check(&refuse, &job, s, h, result, what, err)) != ZP_OK) goto fail;
        if (refuse) {
            if ((rc = store_commit(s, what, err)) != ZP_OK) goto fail;
            rc = zp_error_set(err, ZP_ERR_MISMATCH,
                              "%s: partition %u of job %lld: result refused: proved with key %.16s, the job is pinned"
                              " to key %.16s%s%.16s: the partition goes back to the queue",
                              s->path, h->idx, (long long)h->job_id,
                              result->key_digest && *result->key_digest ? result->key_digest : "(unknown)",
                              job.key_digest, job.wasm_digest[0] ? " and circuit " : "", job.wasm_digest);
            goto out;
        }
    }
    rc = store_prepare(&st, s,
                       "UPDATE partitions SET state = ?4, proof = ?5, public = ?6, queued = ?7, synth = ?8,"
                       " wait_prove = ?9, prove = ?10, wait_final = ?11, final = ?12, total = ?13, lease_until = NULL"
                       " WHERE job_id = ?1 AND idx = ?2 AND fence = ?3 AND state = 'running'",
                       what, err);
    if (rc != ZP_OK) goto fail;
    sq.bind_int64(st, 1, h->job_id);
    sq.bind_int64(st, 2, h->idx);
    sq.bind_int64(st, 3, (int64_t)h->fence);
    sq.bind_text(st, 4, store_state_name(state), -1, SQLITE_STATIC);
    if (result && result->proof_json) sq.bind_text(st, 5, result->proof_json, -1, SQLITE_STATIC);
    if (result && result->public_json) sq.bind_text(st, 6, result->public_json, -1, SQLITE_STATIC);
    if (result) {
        const zp_store_times *t = &result->times;
        const double tv[7] = {t->queued, t->synth, t->wait_prove, t->prove, t->wait_final, t->final, t->total};
        for (int k = 0; k < 7; k++) sq.bind_double(st, 7 + k, tv[k]);
    }
    if ((r = store_step(st, s, what, err)) < 0) {
        rc = (zp_status)-r;
        goto fail;
    }
    if (sq.changes(s->db) == 0) {
        rc = zp_error_set(err, ZP_ERR_MISMATCH,
                          "%s: partition %u of job %lld: result refused: its claim (fence %llu) is not current (taken"
                          " over, or its job ended)",
                          s->path, h->idx, (long long)h->job_id, (unsigned long long)h->fence);
        goto fail;
    }
    sq.finalize(st);
    st = NULL;
    int changed = 0;
    if (state == ZP_JOB_DONE) {
        if ((rc = run(NULL, s, "UPDATE jobs SET done = done + 1 WHERE id = ?1", h->job_id, NULL, what, err)) != ZP_OK)
            goto fail;
        /* the last one ends the job */
        if ((rc = store_prepare(
                 &st, s,
                 "UPDATE jobs SET state = 'done', finished = zp_now() WHERE id = ?1 AND state IN ('queued',"
                 " 'running') AND NOT EXISTS(SELECT 1 FROM partitions WHERE job_id = ?1 AND"
                 " (state <> 'done' OR proof IS NULL))",
                 what, err)) != ZP_OK)
            goto fail;
        sq.bind_int64(st, 1, h->job_id);
    } else {
        /* one failed: the job fails, naming it, and the rest is cancelled */
        char why[512];
        snprintf(why, sizeof why, "partition %u: %s", h->idx, error ? error : "failed");
        if ((rc = store_prepare(&st, s,
                                "UPDATE jobs SET state = 'failed', finished = zp_now(), error = ?3 WHERE id = ?1 AND"
                                " state IN ('queued', 'running')",
                                what, err)) != ZP_OK)
            goto fail;
        sq.bind_int64(st, 1, h->job_id);
        sq.bind_text(st, 3, why, -1, SQLITE_TRANSIENT);
    }
    if ((r = store_step(st, s, what, err)) < 0) {
        rc = (zp_status)-r;
        goto fail;
    }
    changed = sq.changes(s->db);
    sq.finalize(st);
    st = NULL;
    if (changed && state != ZP_JOB_DONE &&
        (rc = run(NULL, s,
                  "UPDATE partitions SET state = 'cancelled' WHERE job_id = ?1 AND state IN ('queued', 'running')",
                  h->job_id, NULL, what, err)) != ZP_OK)
        goto fail;
    if ((rc = store_commit(s, what, err)) != ZP_OK) goto fail;
    *job_ended = changed;
    goto out;
fail:
    sq.finalize(st);
    store_rollback(s);
out:
    pthread_mutex_unlock(&s->lock);
    return rc;
}

/* ---- daemons ---- */

static zp_status write_node(sq_store *s, const zp_store_node *me, const char *what, zp_error *err) {
    sqlite3_stmt *st;
    zp_status rc =
        store_prepare(&st, s,
                      "INSERT INTO nodes(id, host, pid, started, heartbeat, budget, tracked, claimed, proofs,"
                      " clock_skew, keys) VALUES(?1, ?2, ?3, ?4, zp_now(), ?6, ?7, ?8, ?9, ?10, ?11)"
                      " ON CONFLICT(id) DO UPDATE SET host = ?2, pid = ?3, started = ?4, heartbeat = zp_now(),"
                      " budget = ?6, tracked = ?7, claimed = ?8, proofs = ?9, clock_skew = ?10, keys = ?11",
                      what, err);
    if (rc != ZP_OK) return rc;
    sq.bind_text(st, 1, me->id, -1, SQLITE_STATIC);
    sq.bind_text(st, 2, me->host, -1, SQLITE_STATIC);
    sq.bind_int64(st, 3, me->pid);
    sq.bind_double(st, 4, me->started);
    sq.bind_int64(st, 6, (int64_t)me->budget);
    sq.bind_int64(st, 7, (int64_t)me->tracked);
    sq.bind_int64(st, 8, me->claimed);
    sq.bind_int64(st, 9, (int64_t)me->proofs);
    sq.bind_double(st, 10, me->clock_skew);
    if (me->keys != NULL) sq.bind_text(st, 11, me->keys, -1, SQLITE_STATIC);
    int r = store_step(st, s, what, err);
    sq.finalize(st);
    return r < 0 ? (zp_status)-r : ZP_OK;
}

zp_status sq_join(zp_store *base, const zp_store_node *me, double lease_s, zp_error *err) {
    sq_store *s = (sq_store *)base;
    static const char what[] = "joining";
    sqlite3_stmt *st;
    pthread_mutex_lock(&s->lock);
    zp_status rc = store_prepare(&st, s, "SELECT heartbeat FROM nodes WHERE id = ?1", what, err);
    if (rc == ZP_OK) {
        sq.bind_text(st, 1, me->id, -1, SQLITE_STATIC);
        int r = store_step(st, s, what, err);
        double age = r == SQLITE_ROW ? sq_now(s) - sq.column_double(st, 0) : -1;
        sq.finalize(st);
        if (r < 0) rc = (zp_status)-r;
        else if (age >= 0 && age < lease_s)
            rc = zp_error_set(err, ZP_ERR_ARG,
                              "%s: a daemon with node id '%s' sent a heartbeat %.1f s ago: is it still running? Give"
                              " each daemon its own node id",
                              s->path, me->id, age);
    }
    if (rc == ZP_OK) rc = write_node(s, me, what, err);
    pthread_mutex_unlock(&s->lock);
    /* what an earlier run of it claimed is nobody's now */
    return rc == ZP_OK ? sq_release(base, me->id, NULL, 0, err) : rc;
}

zp_status sq_heartbeat(zp_store *base, const zp_store_node *me, zp_error *err) {
    sq_store *s = (sq_store *)base;
    pthread_mutex_lock(&s->lock);
    zp_status rc = write_node(s, me, "heartbeat", err);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

zp_status sq_leave(zp_store *base, const char *node, zp_error *err) {
    sq_store *s = (sq_store *)base;
    pthread_mutex_lock(&s->lock);
    zp_status rc = run(NULL, s, "DELETE FROM nodes WHERE id = ?2", 0, node, "leaving", err);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

zp_status sq_nodes(zp_store *base, zp_store_node_fn fn, void *arg, zp_error *err) {
    sq_store *s = (sq_store *)base;
    static const char what[] = "listing daemons";
    zp_store_node *rows = NULL;
    size_t *keys = NULL, n = 0, cap = 0, cap_keys = 0;
    strpool pool = {0};
    sqlite3_stmt *st;
    pthread_mutex_lock(&s->lock);
    double now = sq_now(s);
    zp_status rc =
        store_prepare(&st, s,
                      "SELECT id, host, pid, started, heartbeat, budget, tracked, claimed, proofs, clock_skew,"
                      " keys FROM nodes ORDER BY id",
                      what, err);
    if (rc == ZP_OK) {
        int r;
        while ((r = store_step(st, s, what, err)) == SQLITE_ROW) {
            if (!store_grow((void **)&rows, &cap, n, sizeof *rows) ||
                !store_grow((void **)&keys, &cap_keys, n, sizeof *keys) || !store_pool_add(&keys[n], &pool, st, 10))
                break;
            zp_store_node *o = &rows[n++];
            memset(o, 0, sizeof *o);
            store_copy_text(o->id, sizeof o->id, st, 0);
            store_copy_text(o->host, sizeof o->host, st, 1);
            o->pid = sq.column_int64(st, 2);
            o->started = sq.column_double(st, 3);
            o->heartbeat_age = now - sq.column_double(st, 4);
            o->budget = (uint64_t)sq.column_int64(st, 5);
            o->tracked = (uint64_t)sq.column_int64(st, 6);
            o->claimed = (uint32_t)sq.column_int64(st, 7);
            o->proofs = (uint64_t)sq.column_int64(st, 8);
            o->clock_skew = sq.column_double(st, 9);
        }
        if (r < 0) rc = (zp_status)-r;
        else if (r == SQLITE_ROW) rc = store_oom(s, err, what);
        sq.finalize(st);
    }
    pthread_mutex_unlock(&s->lock);
    for (size_t i = 0; rc == ZP_OK && fn != NULL && i < n; i++) {
        rows[i].keys = store_pool_str(&pool, keys[i]);
        fn(arg, &rows[i]);
    }
    free(rows);
    free(keys);
    free(pool.buf);
    return rc;
}

/* ---- pins, repairs ---- */

zp_status sq_mismatches(zp_store *base, const zp_store_key *keys, size_t n_keys, zp_store_mismatch_fn fn, void *arg,
                        zp_error *err) {
    sq_store *s = (sq_store *)base;
    static const char what[] = "finding jobs pinned to other keys";
    typedef struct row {
        char key[128], kd[65], wd[65];
        uint64_t jobs;
    } row;
    row rows[64];
    size_t n = 0;
    sqlite3_stmt *st;
    pthread_mutex_lock(&s->lock);
    /* the unfinished pinned jobs with a partition waiting to be claimed */
    zp_status rc =
        store_prepare(&st, s,
                      "SELECT key_id, key_digest, wasm_digest, count(*) FROM jobs j WHERE state IN ('queued',"
                      " 'running') AND key_digest <> '' AND EXISTS(SELECT 1 FROM partitions p WHERE"
                      " p.job_id = j.id AND (p.state = 'queued' OR (p.state = 'running' AND"
                      " p.lease_until < zp_now()))) GROUP BY 1, 2, 3 ORDER BY 1, 2, 3",
                      what, err);
    if (rc == ZP_OK) {
        int r;
        while ((r = store_step(st, s, what, err)) == SQLITE_ROW && n < 64) {
            const char *key = (const char *)sq.column_text(st, 0);
            const char *kd = (const char *)sq.column_text(st, 1), *wd = (const char *)sq.column_text(st, 2);
            int mine = 0, known = 0;
            for (size_t k = 0; key && k < n_keys; k++) {
                known |= strcmp(keys[k].id, key) == 0;
                mine |= zp_store_key_matches(&keys[k], key, kd, wd);
            }
            if (!known || mine) continue;
            row *o = &rows[n++];
            store_copy_text(o->key, sizeof o->key, st, 0);
            store_copy_text(o->kd, sizeof o->kd, st, 1);
            store_copy_text(o->wd, sizeof o->wd, st, 2);
            o->jobs = (uint64_t)sq.column_int64(st, 3);
        }
        if (r < 0) rc = (zp_status)-r;
        sq.finalize(st);
    }
    pthread_mutex_unlock(&s->lock);
    for (size_t i = 0; rc == ZP_OK && fn != NULL && i < n; i++)
        fn(arg, rows[i].key, rows[i].kd, rows[i].wd, rows[i].jobs);
    return rc;
}

/* The two kinds of damage zp_store_repair mends, each a query of the rows
 * (job, idx, owner, lease) and the change made to each. */
#define BAD_CLAIMS                                                                                              \
    "SELECT job_id, idx, coalesce(owner, ''), lease_until FROM partitions p WHERE state = 'running' AND"        \
    " (owner IS NULL OR lease_until IS NULL OR lease_until > zp_now() + ?1 OR NOT EXISTS(SELECT 1 FROM nodes n" \
    " WHERE n.id = p.owner))"
#define UNPROVED                                                                                                \
    "SELECT job_id, idx, '', NULL FROM partitions p WHERE state = 'done' AND proof IS NULL AND EXISTS(SELECT 1" \
    " FROM jobs j WHERE j.id = p.job_id AND j.state IN ('queued', 'running'))"

zp_status sq_repair(size_t *repaired, zp_store *base, zp_store_repair_fn fn, void *arg, zp_error *err) {
    sq_store *s = (sq_store *)base;
    static const char what[] = "repairing damaged rows";
    typedef struct row {
        int64_t job;
        uint32_t idx;
        char line[320];
    } row;
    row *rows = NULL;
    size_t n = 0, cap = 0;
    sqlite3_stmt *st = NULL, *fix = NULL;
    *repaired = 0;
    pthread_mutex_lock(&s->lock);
    zp_status rc = store_begin(s, what, err);
    for (int kind = 0; rc == ZP_OK && kind < 2; kind++) {
        if ((rc = store_prepare(&st, s, kind == 0 ? BAD_CLAIMS : UNPROVED, what, err)) != ZP_OK) break;
        sq.bind_double(st, 1, ZP_STORE_MAX_LEASE_S + ZP_STORE_LEASE_SLACK_S);
        double now = sq_now(s);
        int r;
        while ((r = store_step(st, s, what, err)) == SQLITE_ROW) {
            if (!store_grow((void **)&rows, &cap, n, sizeof *rows)) {
                rc = store_oom(s, err, what);
                break;
            }
            row *o = &rows[n++];
            o->job = sq.column_int64(st, 0);
            o->idx = (uint32_t)sq.column_int64(st, 1);
            char owner[128];
            store_copy_text(owner, sizeof owner, st, 2);
            double until = sq.column_double(st, 3);
            zp_store_repair_why why = ZP_STORE_REPAIR_NO_NODE;
            if (kind == 1) why = ZP_STORE_REPAIR_UNPROVED;
            else if (sq.column_type(st, 3) == SQLITE_NULL) why = ZP_STORE_REPAIR_NO_LEASE;
            else if (until > now + ZP_STORE_MAX_LEASE_S + ZP_STORE_LEASE_SLACK_S)
                why = until > 1e300 ? ZP_STORE_REPAIR_LEASE_FOREVER : ZP_STORE_REPAIR_LEASE_LONG;
            zp_store_repair_line(o->line, sizeof o->line, why, owner);
        }
        if (rc == ZP_OK && r < 0) rc = (zp_status)-r;
        sq.finalize(st);
        st = NULL;
    }
    if (rc == ZP_OK && n > 0)
        rc = store_prepare(&fix, s,
                           "UPDATE partitions SET state = 'queued', owner = NULL, lease_until = NULL WHERE job_id = ?1"
                           " AND idx = ?2",
                           what, err);
    for (size_t i = 0; rc == ZP_OK && i < n; i++) {
        sq.reset(fix);
        sq.bind_int64(fix, 1, rows[i].job);
        sq.bind_int64(fix, 2, rows[i].idx);
        int r = store_step(fix, s, what, err);
        if (r < 0) rc = (zp_status)-r;
        /* a job's count of done partitions follows its proofs */
        if (rc == ZP_OK)
            rc = run(NULL, s,
                     "UPDATE jobs SET done = (SELECT count(*) FROM partitions WHERE job_id = ?1 AND state = 'done'"
                     " AND proof IS NOT NULL) WHERE id = ?1",
                     rows[i].job, NULL, what, err);
    }
    sq.finalize(fix);
    if (rc == ZP_OK) rc = store_commit(s, what, err);
    if (rc != ZP_OK) store_rollback(s);
    pthread_mutex_unlock(&s->lock);
    if (rc == ZP_OK) {
        *repaired = n;
        for (size_t i = 0; fn != NULL && i < n; i++) fn(arg, rows[i].job, rows[i].idx, rows[i].line);
    }
    free(rows);
    return rc;
}
