/* The PostgreSQL job store's claims (store.h): daemons pull partitions
 * under leases with fencing numbers, renew, release and finish them; and
 * the daemons' own rows.
 *
 * Locks are taken in one order, a job's row before its partitions', by
 * finish_part and finish_job (pg_jobs.c): a failed partition cancels its
 * siblings while a sibling's result comes in, and with the opposite order
 * the two would deadlock (the server breaks that after deadlock_timeout,
 * a second's stall). The claim locks partitions, then never waits for a
 * job's row (SKIP LOCKED): whoever holds it sets the job running or ends
 * it. Renew and release lock partitions only. */
#include "store/store.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "store/pg_internal.h"

/* ---- claiming ---- */

/* Claim order is partitions_queue's (priority DESC, job_id, idx): the
 * first rows of that index, and of the expired leases (partitions_leases:
 * few, unless daemons died), merged. With keys, the first rows of each
 * pin's range of partitions_queue_key (key_id, key_digest, wasm_digest,
 * priority DESC, job_id, idx), merged: a daemon whose keys have little or
 * no work reads a few rows, not every other key's queue, and never a row
 * of a job pinned to other bytes than its own. SKIP LOCKED: rows another
 * daemon's claim holds this instant are passed over, never waited for. */
#define CLAIM_REST(expired_filter)                                                                 \
    " x AS (SELECT job_id, idx, priority FROM partitions p"                                        \
    "  WHERE state = 1 AND lease_until < now() AND " expired_filter                                \
    "  ORDER BY priority DESC, job_id, idx LIMIT $2 FOR UPDATE SKIP LOCKED),"                      \
    " pick AS (SELECT job_id, idx FROM (SELECT * FROM q UNION ALL SELECT * FROM x) u"              \
    "  ORDER BY priority DESC, job_id, idx LIMIT $2),"                                             \
    " claimed AS (UPDATE partitions p SET state = 1, owner = $1, fence = nextval('zkpipe_fence')," \
    "  lease_until = now() + make_interval(secs => $4)"                                            \
    "  FROM pick WHERE p.job_id = pick.job_id AND p.idx = pick.idx"                                \
    "  RETURNING p.job_id, p.idx, p.fence, p.priority, p.key_id, p.path)"                          \
    " SELECT job_id, idx, fence, priority, key_id, path FROM claimed ORDER BY priority DESC, job_id, idx"

/* The pins ($3, $5, $6: key ids, key digests, circuit digests), one row each. */
#define PINS "unnest($3::text[], $5::text[], $6::text[]) AS k(key_id, kd, wd)"

const char zp_pg_claim_any[] =
    "WITH q AS (SELECT job_id, idx, priority FROM partitions WHERE state = 0"
    "  ORDER BY priority DESC, job_id, idx LIMIT $2 FOR UPDATE SKIP LOCKED)," CLAIM_REST("$3::text[] IS NULL");

const char zp_pg_claim_keys[] =
    "WITH q AS (SELECT c.job_id, c.idx, c.priority FROM (SELECT DISTINCT * FROM " PINS
    ") AS k"
    "  CROSS JOIN LATERAL (SELECT p.job_id, p.idx, p.priority FROM partitions p"
    "   WHERE p.state = 0 AND p.key_id = k.key_id AND p.key_digest = k.kd AND p.wasm_digest = k.wd"
    "   ORDER BY p.priority DESC, p.job_id, p.idx LIMIT $2 FOR UPDATE SKIP LOCKED) c)," CLAIM_REST(
        "EXISTS(SELECT 1 FROM " PINS
        " WHERE p.key_id = k.key_id AND p.key_digest = k.kd"
        " AND p.wasm_digest = k.wd)");

/* A daemon's keys as the pins it may claim (store.h zp_store_key): its
 * key's digest with no circuit (jobs given witnesses) and with its
 * circuit's (jobs given inputs), and no pins at all (jobs from before
 * pins), each a range of partitions_queue_key. Three array literals. */
typedef struct pin_arrays {
    pg_array a[3];
    const char *v[3];
} pin_arrays;

static int pins_build(pin_arrays *p, const zp_store_key *keys, size_t n_keys) {
    for (int k = 0; k < 3; k++) pg_array_begin(&p->a[k]);
    for (size_t i = 0; i < n_keys; i++) {
        const char *kd = keys[i].digest ? keys[i].digest : "", *wd = keys[i].wasm_digest ? keys[i].wasm_digest : "";
        const char *pins[3][2] = {{kd, ""}, {kd, wd}, {"", ""}};
        for (int j = 0; j < 3; j++) {
            if ((j == 0 && *kd == '\0') || (j == 1 && (*kd == '\0' || *wd == '\0'))) continue;
            pg_array_str(&p->a[0], keys[i].id);
            pg_array_str(&p->a[1], pins[j][0]);
            pg_array_str(&p->a[2], pins[j][1]);
        }
    }
    int ok = 1;
    for (int k = 0; k < 3; k++) ok &= (p->v[k] = pg_array_end(&p->a[k])) != NULL;
    return ok;
}

static void pins_free(pin_arrays *p) {
    for (int k = 0; k < 3; k++) pg_array_free(&p->a[k]);
}

typedef struct claim_ctx {
    zp_store_claim *out;
    size_t max, n;
    const char *node;
    const pin_arrays *pins; /* NULL: all keys */
    double lease_s;
} claim_ctx;

static zp_status claim_body(pg_tx *tx, void *arg) {
    claim_ctx *c = arg;
    PGresult *r;
    c->n = 0;
    pg_args a = {0};
    pg_arg_str(&a, c->node);
    pg_arg_u64(&a, c->max);
    pg_arg_str(&a, c->pins ? c->pins->v[0] : NULL);
    pg_arg_f64(&a, c->lease_s);
    if (c->pins) {
        pg_arg_str(&a, c->pins->v[1]);
        pg_arg_str(&a, c->pins->v[2]);
    }
    zp_status rc = pg_exec(tx, c->pins ? zp_pg_claim_keys : zp_pg_claim_any, &a, &r);
    if (rc != ZP_OK) return rc;
    pg_array jobs;
    pg_array_begin(&jobs);
    int64_t last = 0;
    for (int i = 0; i < pg_rows(r) && c->n < c->max; i++) {
        zp_store_claim *o = &c->out[c->n++];
        o->job_id = pg_i64(r, i, 0);
        o->idx = (uint32_t)pg_i64(r, i, 1);
        o->fence = (uint64_t)pg_i64(r, i, 2);
        o->priority = (int)pg_i64(r, i, 3);
        pg_copy_text(o->key_id, sizeof o->key_id, r, i, 4);
        pg_copy_text(o->path, sizeof o->path, r, i, 5);
        if (o->job_id != last) pg_array_i64(&jobs, o->job_id);
        last = o->job_id;
    }
    pg_free(r);
    const char *ids = pg_array_end(&jobs);
    if (ids == NULL) rc = pg_oom(tx);
    else if (c->n > 0) {
        /* their jobs run from their first claim; a job's row locked by
         * another transaction is being set running (another claim) or
         * ended (finish_job): left to it, never waited for */
        pg_args j = {0};
        pg_arg_str(&j, ids);
        rc = pg_exec(tx,
                     "UPDATE jobs SET state = 1 WHERE id IN (SELECT id FROM jobs WHERE id = ANY($1::bigint[])"
                     " AND state = 0 FOR UPDATE SKIP LOCKED)",
                     &j, NULL);
    }
    pg_array_free(&jobs);
    return rc;
}

zp_status pg_claim(zp_store_claim *out, size_t max, size_t *n, zp_store *s, const char *node, const zp_store_key *keys,
                   size_t n_keys, double lease_s, zp_error *err) {
    static const char what[] = "claiming partitions";
    pin_arrays pins;
    int ok = pins_build(&pins, keys, keys ? n_keys : 0);
    claim_ctx c = {.out = out, .max = max, .node = node, .lease_s = lease_s, .pins = keys ? &pins : NULL};
    zp_status rc = !ok ? zp_error_set(err, ZP_ERR_NOMEM, "%s: %s: out of memory", s->name, what)
                       : pg_run((pg_store *)s, PG_WRITE, what, claim_body, &c, err);
    pins_free(&pins);
    if (rc == ZP_OK) *n = c.n;
    return rc;
}

/* ---- renewing, releasing ---- */

/* held[0..n) as three array literals: job ids, indexes, fences. */
typedef struct held_arrays {
    pg_array a[3];
    const char *v[3];
} held_arrays;

static int held_build(held_arrays *h, const zp_store_held *held, size_t n) {
    int ok = 1;
    for (int k = 0; k < 3; k++) pg_array_begin(&h->a[k]);
    for (size_t i = 0; i < n; i++) {
        pg_array_i64(&h->a[0], held[i].job_id);
        pg_array_i64(&h->a[1], held[i].idx);
        pg_array_i64(&h->a[2], (int64_t)held[i].fence);
    }
    for (int k = 0; k < 3; k++) ok &= (h->v[k] = pg_array_end(&h->a[k])) != NULL;
    return ok;
}

static void held_free(held_arrays *h) {
    for (int k = 0; k < 3; k++) pg_array_free(&h->a[k]);
}

typedef struct renew_ctx {
    const char *node;
    held_arrays h;
    size_t n;
    double lease_s;
    int *lost;
} renew_ctx;

static zp_status renew_body(pg_tx *tx, void *arg) {
    renew_ctx *c = arg;
    PGresult *r;
    for (size_t i = 0; i < c->n; i++) c->lost[i] = 1;
    pg_args a = {0};
    pg_arg_str(&a, c->node);
    for (int k = 0; k < 3; k++) pg_arg_str(&a, c->h.v[k]);
    pg_arg_f64(&a, c->lease_s);
    /* a claim whose fence moved on, or that is not running any more (its
     * job ended), is not renewed: lost */
    zp_status rc = pg_exec(tx,
                           "UPDATE partitions p SET lease_until = now() + make_interval(secs => $5)"
                           " FROM unnest($2::bigint[], $3::int[], $4::bigint[]) WITH ORDINALITY AS h(job_id, idx,"
                           " fence, i)"
                           " WHERE p.job_id = h.job_id AND p.idx = h.idx AND p.fence = h.fence AND p.state = 1"
                           " AND p.owner = $1 RETURNING h.i",
                           &a, &r);
    if (rc != ZP_OK) return rc;
    for (int i = 0; i < pg_rows(r); i++) {
        int64_t k = pg_i64(r, i, 0) - 1;
        if (k >= 0 && (size_t)k < c->n) c->lost[k] = 0;
    }
    pg_free(r);
    return ZP_OK;
}

zp_status pg_renew(int *lost, zp_store *s, const char *node, const zp_store_held *held, size_t n, double lease_s,
                   zp_error *err) {
    static const char what[] = "renewing leases";
    if (n == 0) return ZP_OK;
    renew_ctx c = {.node = node, .n = n, .lease_s = lease_s, .lost = lost};
    zp_status rc = !held_build(&c.h, held, n) ? zp_error_set(err, ZP_ERR_NOMEM, "%s: %s: out of memory", s->name, what)
                                              : pg_run((pg_store *)s, PG_WRITE, what, renew_body, &c, err);
    held_free(&c.h);
    return rc;
}

typedef struct release_ctx {
    const char *node;
    held_arrays h;
    int all;
} release_ctx;

static zp_status release_body(pg_tx *tx, void *arg) {
    release_ctx *c = arg;
    pg_args a = {0};
    pg_arg_str(&a, c->node);
    if (c->all)
        return pg_exec(tx,
                       "UPDATE partitions SET state = 0, owner = NULL, lease_until = NULL"
                       " WHERE owner = $1 AND state = 1",
                       &a, NULL);
    for (int k = 0; k < 3; k++) pg_arg_str(&a, c->h.v[k]);
    return pg_exec(tx,
                   "UPDATE partitions p SET state = 0, owner = NULL, lease_until = NULL"
                   " FROM unnest($2::bigint[], $3::int[], $4::bigint[]) AS h(job_id, idx, fence)"
                   " WHERE p.job_id = h.job_id AND p.idx = h.idx AND p.fence = h.fence AND p.state = 1"
                   " AND p.owner = $1",
                   &a, NULL);
}

zp_status pg_release(zp_store *s, const char *node, const zp_store_held *held, size_t n, zp_error *err) {
    static const char what[] = "releasing claims";
    if (held != NULL && n == 0) return ZP_OK;
    release_ctx c = {.node = node, .all = held == NULL};
    zp_status rc = !held_build(&c.h, held, c.all ? 0 : n)
                       ? zp_error_set(err, ZP_ERR_NOMEM, "%s: %s: out of memory", s->name, what)
                       : pg_run((pg_store *)s, PG_WRITE, what, release_body, &c, err);
    held_free(&c.h);
    return rc;
}

/* ---- finishing a partition ---- */

typedef struct part_ctx {
    const zp_store_held *h;
    zp_job_state state;
    const char *error;
    const zp_store_result *result;
    int ended;
    int pins_refused; /* a proof not made with the job's pins: the partition went back to the queue */
    char pins[2][65]; /* the job's pins, for the message */
} part_ctx;

static zp_status refused(pg_tx *tx, const zp_store_held *h) {
    return zp_error_set(tx->err, ZP_ERR_MISMATCH,
                        "%s: partition %u of job %lld: result refused: its claim (fence %llu) is not current (taken "
                        "over or cancelled)",
                        tx->s->name, h->idx, (long long)h->job_id, (unsigned long long)h->fence);
}

static zp_status part_body(pg_tx *tx, void *arg) {
    part_ctx *c = arg;
    PGresult *r;
    c->ended = 0;
    c->pins_refused = 0;
    const zp_store_result *res = c->result;
    const zp_store_times zero = {0}, *t = res ? &res->times : &zero;
    pg_args a = {0};
    pg_arg_i64(&a, c->h->job_id);
    pg_arg_i64(&a, c->h->idx);
    pg_arg_u64(&a, c->h->fence);
    pg_arg_i64(&a, c->state);
    pg_arg_str(&a, res ? res->proof_json : NULL);
    pg_arg_str(&a, res ? res->public_json : NULL);
    const double tv[7] = {t->queued, t->synth, t->wait_prove, t->prove, t->wait_final, t->final, t->total};
    for (int k = 0; k < 7; k++) pg_arg_f64(&a, tv[k]);
    /* the job's row first (the lock order), and an ended job refuses */
    pg_args jl = {0};
    pg_arg_i64(&jl, c->h->job_id);
    zp_status rc = pg_exec(tx, "SELECT state, key_digest, wasm_digest FROM jobs WHERE id = $1 FOR UPDATE", &jl, &r);
    if (rc != ZP_OK) return rc;
    int live = pg_rows(r) == 1 && pg_i64(r, 0, 0) < ZP_JOB_DONE;
    if (live) {
        pg_copy_text(c->pins[0], sizeof c->pins[0], r, 0, 1);
        pg_copy_text(c->pins[1], sizeof c->pins[1], r, 0, 2);
    }
    pg_free(r);
    if (!live) return refused(tx, c->h);
    if (c->state == ZP_JOB_DONE && !zp_store_result_matches(res, c->pins[0], c->pins[1])) {
        /* made with other bytes than the job was pinned to: nothing of it
         * is kept, and the partition is free at once for a daemon with
         * the job's key (committed: the caller reports the refusal) */
        pg_args q = {0};
        pg_arg_i64(&q, c->h->job_id);
        pg_arg_i64(&q, c->h->idx);
        pg_arg_u64(&q, c->h->fence);
        c->pins_refused = 1;
        return pg_exec(tx,
                       "UPDATE partitions SET state = 0, owner = NULL, lease_until = NULL WHERE job_id = $1"
                       " AND idx = $2 AND fence = $3 AND state = 1",
                       &q, NULL);
    }
    /* the fence: only the partition's current claim records its end */
    rc = pg_exec(tx,
                 "UPDATE partitions SET state = $4, proof = $5, public = $6, queued = $7, synth = $8,"
                 " wait_prove = $9, prove = $10, wait_final = $11, final = $12, total = $13,"
                 " lease_until = NULL WHERE job_id = $1 AND idx = $2 AND fence = $3 AND state = 1",
                 &a, &r);
    if (rc != ZP_OK) return rc;
    uint64_t changed = pg_changed(r);
    pg_free(r);
    if (changed != 1) return refused(tx, c->h);

    pg_args j = {0};
    pg_arg_i64(&j, c->h->job_id);
    if (c->state == ZP_JOB_DONE) {
        /* the job's row lock orders its partitions' ends: exactly one sees
         * the last one */
        if ((rc = pg_exec(tx,
                          "UPDATE jobs SET done = done + 1,"
                          " state = CASE WHEN done + 1 >= partitions THEN 2 ELSE 1 END,"
                          " finished = CASE WHEN done + 1 >= partitions THEN extract(epoch FROM now()) ELSE finished"
                          " END WHERE id = $1 AND state < 2 RETURNING state",
                          &j, &r)) != ZP_OK)
            return rc;
        int rows = pg_rows(r);
        c->ended = rows == 1 && pg_i64(r, 0, 0) == ZP_JOB_DONE;
        pg_free(r);
        return rows == 1 ? ZP_OK : refused(tx, c->h);
    }
    char error[512];
    snprintf(error, sizeof error, "partition %u: %s", c->h->idx, c->error && *c->error ? c->error : "failed");
    pg_arg_str(&j, error);
    if ((rc = pg_exec(tx,
                      "UPDATE jobs SET state = 3, error = $2, finished = extract(epoch FROM now()) WHERE id = $1"
                      " AND state < 2",
                      &j, &r)) != ZP_OK)
        return rc;
    changed = pg_changed(r);
    pg_free(r);
    if (changed != 1) return refused(tx, c->h);
    pg_args k = {0};
    pg_arg_i64(&k, c->h->job_id);
    if ((rc = pg_exec(tx, "UPDATE partitions SET state = 4, lease_until = NULL WHERE job_id = $1 AND state < 2", &k,
                      NULL)) != ZP_OK)
        return rc;
    c->ended = 1;
    return ZP_OK;
}

zp_status pg_finish_part(int *job_ended, zp_store *s, const zp_store_held *h, zp_job_state state, const char *error,
                         const zp_store_result *result, zp_error *err) {
    static const char what[] = "recording a partition's end";
    part_ctx c = {.h = h, .state = state, .error = error, .result = result};
    zp_status rc = pg_run((pg_store *)s, PG_WRITE, what, part_body, &c, err);
    if (rc == ZP_OK && c.pins_refused)
        return zp_error_set(err, ZP_ERR_MISMATCH,
                            "%s: partition %u of job %lld: result refused: proved with key %.16s, the job is pinned"
                            " to key %.16s%s%.16s: the partition goes back to the queue",
                            s->name, h->idx, (long long)h->job_id,
                            result->key_digest && *result->key_digest ? result->key_digest : "(unknown)", c.pins[0],
                            c.pins[1][0] ? " and circuit " : "", c.pins[1]);
    if (rc == ZP_OK) *job_ended = c.ended;
    return rc;
}

/* ---- daemons ---- */

static void node_args(pg_args *a, const zp_store_node *me) {
    pg_arg_str(a, me->id);
    pg_arg_str(a, me->host);
    pg_arg_i64(a, me->pid);
    pg_arg_f64(a, me->started);
    pg_arg_u64(a, me->budget);
    pg_arg_u64(a, me->tracked);
    pg_arg_u64(a, me->claimed);
    pg_arg_u64(a, me->proofs);
    pg_arg_f64(a, me->clock_skew);
    pg_arg_str(a, me->keys);
}

#define NODE_INSERT                                                                                                \
    "INSERT INTO nodes(id, host, pid, started, heartbeat, budget, tracked, claimed, proofs, clock_skew, keys)"     \
    " VALUES ($1, $2, $3, $4, now(), $5, $6, $7, $8, $9, $10) ON CONFLICT (id) DO UPDATE SET"                      \
    " host = EXCLUDED.host, pid = EXCLUDED.pid, started = EXCLUDED.started, heartbeat = now(),"                    \
    " budget = EXCLUDED.budget, tracked = EXCLUDED.tracked, claimed = EXCLUDED.claimed, proofs = EXCLUDED.proofs," \
    " clock_skew = EXCLUDED.clock_skew, keys = EXCLUDED.keys"

typedef struct join_ctx {
    const zp_store_node *me;
    double lease_s;
} join_ctx;

static zp_status join_body(pg_tx *tx, void *arg) {
    join_ctx *c = arg;
    PGresult *r;
    pg_args a = {0};
    node_args(&a, c->me);
    pg_arg_f64(&a, c->lease_s);
    /* One statement decides: a row whose heartbeat is younger than the
     * lease is left alone (lease_s = 0: never, the caller checked) (two daemons joining with one id at once: the
     * second waits for the first's row, then finds it young). */
    zp_status rc = pg_exec(tx,
                           NODE_INSERT
                           " WHERE $11 <= 0 OR nodes.heartbeat <= now() - make_interval(secs => $11)"
                           " RETURNING 1",
                           &a, &r);
    if (rc != ZP_OK) return rc;
    int joined = pg_rows(r) == 1;
    pg_free(r);
    pg_args id = {0};
    pg_arg_str(&id, c->me->id);
    if (!joined) {
        if ((rc = pg_exec(tx, "SELECT host, pid, extract(epoch FROM now() - heartbeat) FROM nodes WHERE id = $1", &id,
                          &r)) != ZP_OK)
            return rc;
        if (pg_rows(r) == 1)
            rc = zp_error_set(tx->err, ZP_ERR_ARG,
                              "%s: node '%s': a daemon with that id (host %s, pid %lld) sent a heartbeat %.1f s ago: "
                              "is it still running? each daemon needs its own node id",
                              tx->s->name, c->me->id, pg_text(r, 0, 0), (long long)pg_i64(r, 0, 1), pg_f64(r, 0, 2));
        else
            rc = zp_error_set(tx->err, ZP_ERR_IO, "%s: node '%s': joining: the row went away meanwhile", tx->s->name,
                              c->me->id);
        pg_free(r);
        return rc;
    }
    /* what an earlier run of this daemon held is free again */
    return pg_exec(tx,
                   "UPDATE partitions SET state = 0, owner = NULL, lease_until = NULL WHERE owner = $1 AND state = 1",
                   &id, NULL);
}

zp_status pg_join(zp_store *s, const zp_store_node *me, double lease_s, zp_error *err) {
    join_ctx c = {.me = me, .lease_s = lease_s};
    return pg_run((pg_store *)s, PG_WRITE, "joining the fleet", join_body, &c, err);
}

static zp_status heartbeat_body(pg_tx *tx, void *arg) {
    pg_args a = {0};
    node_args(&a, arg);
    return pg_exec(tx, NODE_INSERT, &a, NULL);
}

zp_status pg_heartbeat(zp_store *s, const zp_store_node *me, zp_error *err) {
    return pg_run((pg_store *)s, PG_WRITE, "recording a heartbeat", heartbeat_body, (void *)me, err);
}

static zp_status leave_body(pg_tx *tx, void *arg) {
    pg_args a = {0};
    pg_arg_str(&a, arg);
    return pg_exec(tx, "DELETE FROM nodes WHERE id = $1", &a, NULL);
}

zp_status pg_leave(zp_store *s, const char *node, zp_error *err) {
    return pg_run((pg_store *)s, PG_WRITE, "leaving the fleet", leave_body, (void *)node, err);
}

static zp_status nodes_body(pg_tx *tx, void *arg) {
    PGresult **rows = arg;
    pg_free(*rows);
    *rows = NULL;
    return pg_exec(tx,
                   "SELECT id, host, pid, started, extract(epoch FROM now() - heartbeat), budget, tracked, claimed,"
                   " proofs, clock_skew, keys FROM nodes ORDER BY id COLLATE \"C\"",
                   NULL, rows);
}

zp_status pg_nodes(zp_store *s, zp_store_node_fn fn, void *arg, zp_error *err) {
    PGresult *rows = NULL;
    zp_status rc = pg_run((pg_store *)s, PG_READ, "listing daemons", nodes_body, &rows, err);
    for (int i = 0; rc == ZP_OK && fn != NULL && i < pg_rows(rows); i++) {
        zp_store_node n;
        memset(&n, 0, sizeof n);
        pg_copy_text(n.id, sizeof n.id, rows, i, 0);
        pg_copy_text(n.host, sizeof n.host, rows, i, 1);
        n.pid = pg_i64(rows, i, 2);
        n.started = pg_f64(rows, i, 3);
        n.heartbeat_age = pg_f64(rows, i, 4);
        n.budget = (uint64_t)pg_i64(rows, i, 5);
        n.tracked = (uint64_t)pg_i64(rows, i, 6);
        n.claimed = (uint32_t)pg_i64(rows, i, 7);
        n.proofs = (uint64_t)pg_i64(rows, i, 8);
        n.clock_skew = pg_f64(rows, i, 9);
        n.keys = pg_text(rows, i, 10);
        fn(arg, &n);
    }
    pg_free(rows);
    return rc;
}

/* ---- pins, repairs ---- */

typedef struct mismatch_ctx {
    const pin_arrays *pins;
    PGresult *rows;
} mismatch_ctx;

/* The unfinished pinned jobs of the daemon's key ids with a partition
 * waiting (queued, or a lease expired) under other pins than the
 * daemon's: each key's range of partitions_queue_key, and the expired
 * leases. */
static zp_status mismatch_body(pg_tx *tx, void *arg) {
    mismatch_ctx *c = arg;
    pg_free(c->rows);
    c->rows = NULL;
    pg_args a = {0};
    for (int k = 0; k < 3; k++) pg_arg_str(&a, c->pins->v[k]);
    /* two partial indexes, never the finished history: each key's
     * queue (partitions_queue_key) and the expired leases */
    return pg_exec(tx,
                   "WITH mine AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) AS k(key_id, kd, wd)),"
                   " ids AS (SELECT DISTINCT key_id FROM mine),"
                   " waiting AS (SELECT p.job_id, p.key_id, p.key_digest, p.wasm_digest FROM ids"
                   "  JOIN partitions p ON p.key_id = ids.key_id AND p.state = 0 AND p.key_digest <> ''"
                   "  UNION ALL SELECT p.job_id, p.key_id, p.key_digest, p.wasm_digest FROM partitions p"
                   "  WHERE p.state = 1 AND p.lease_until < now() AND p.key_digest <> ''"
                   "  AND p.key_id IN (SELECT key_id FROM ids))"
                   " SELECT key_id, key_digest, wasm_digest, count(DISTINCT job_id) FROM waiting w"
                   " WHERE NOT EXISTS(SELECT 1 FROM mine m WHERE m.key_id = w.key_id AND m.kd = w.key_digest"
                   " AND m.wd = w.wasm_digest)"
                   " GROUP BY 1, 2, 3 ORDER BY 1, 2, 3 LIMIT 64",
                   &a, &c->rows);
}

zp_status pg_mismatches(zp_store *s, const zp_store_key *keys, size_t n_keys, zp_store_mismatch_fn fn, void *arg,
                        zp_error *err) {
    pin_arrays pins;
    int ok = pins_build(&pins, keys, n_keys);
    mismatch_ctx c = {.pins = &pins};
    zp_status rc =
        !ok ? zp_error_set(err, ZP_ERR_NOMEM, "%s: finding jobs pinned to other keys: out of memory", s->name)
            : pg_run((pg_store *)s, PG_READ, "finding jobs pinned to other keys", mismatch_body, &c, err);
    for (int i = 0; rc == ZP_OK && fn != NULL && i < pg_rows(c.rows); i++)
        fn(arg, pg_text(c.rows, i, 0), pg_text(c.rows, i, 1), pg_text(c.rows, i, 2), (uint64_t)pg_i64(c.rows, i, 3));
    pg_free(c.rows);
    pins_free(&pins);
    return rc;
}

typedef struct repair_ctx {
    PGresult *claims, *unproved;
} repair_ctx;

/* Partitions only are locked (SKIP LOCKED: a row another transaction
 * holds is the next pass's), then the repaired jobs' counts: the job row
 * after its partitions, as claims lock them, never the other way round
 * with a row held (finish_part holds the job's row, then waits for none
 * of these: they were running or done without its fence). */
static zp_status repair_body(pg_tx *tx, void *arg) {
    repair_ctx *c = arg;
    pg_free(c->claims);
    pg_free(c->unproved);
    c->claims = c->unproved = NULL;
    pg_args a = {0};
    pg_arg_f64(&a, ZP_STORE_MAX_LEASE_S + ZP_STORE_LEASE_SLACK_S);
    zp_status rc = pg_exec(tx,
                           "WITH bad AS (SELECT job_id, idx, owner, lease_until FROM partitions p WHERE state = 1 AND"
                           " (owner IS NULL OR lease_until IS NULL OR lease_until > now() + make_interval(secs => $1)"
                           " OR NOT EXISTS(SELECT 1 FROM nodes n WHERE n.id = p.owner)) FOR UPDATE SKIP LOCKED)"
                           " UPDATE partitions p SET state = 0, owner = NULL, lease_until = NULL FROM bad"
                           " WHERE p.job_id = bad.job_id AND p.idx = bad.idx RETURNING bad.job_id, bad.idx,"
                           " coalesce(bad.owner, ''), bad.lease_until IS NULL, bad.lease_until > now() +"
                           " make_interval(secs => $1), bad.lease_until = 'infinity'",
                           &a, &c->claims);
    if (rc != ZP_OK) return rc;
    rc = pg_exec(tx,
                 "WITH bad AS (SELECT job_id, idx FROM partitions p WHERE state = 2 AND proof IS NULL AND"
                 " EXISTS(SELECT 1 FROM jobs j WHERE j.id = p.job_id AND j.state < 2) FOR UPDATE SKIP LOCKED)"
                 " UPDATE partitions p SET state = 0, owner = NULL, lease_until = NULL FROM bad"
                 " WHERE p.job_id = bad.job_id AND p.idx = bad.idx RETURNING bad.job_id, bad.idx",
                 NULL, &c->unproved);
    if (rc != ZP_OK || pg_rows(c->unproved) == 0) return rc;
    /* a job's count of done partitions follows its proofs (finish_part
     * ends a job by the count) */
    pg_array ids;
    pg_array_begin(&ids);
    for (int i = 0; i < pg_rows(c->unproved); i++) pg_array_i64(&ids, pg_i64(c->unproved, i, 0));
    const char *list = pg_array_end(&ids);
    pg_args j = {0};
    pg_arg_str(&j, list);
    rc = list == NULL ? pg_oom(tx)
                      : pg_exec(tx,
                                "UPDATE jobs j SET done = (SELECT count(*) FROM partitions p WHERE p.job_id = j.id AND"
                                " p.state = 2 AND p.proof IS NOT NULL) WHERE j.id = ANY($1::bigint[]) AND j.state < 2",
                                &j, NULL);
    pg_array_free(&ids);
    return rc;
}

zp_status pg_repair(size_t *repaired, zp_store *s, zp_store_repair_fn fn, void *arg, zp_error *err) {
    repair_ctx c = {0};
    *repaired = 0;
    zp_status rc = pg_run((pg_store *)s, PG_WRITE, "repairing damaged rows", repair_body, &c, err);
    for (int i = 0; rc == ZP_OK && i < pg_rows(c.claims); i++) {
        char line[320];
        const char *owner = pg_text(c.claims, i, 2);
        const char *no_lease = pg_text(c.claims, i, 3), *too_long = pg_text(c.claims, i, 4);
        const char *forever = pg_text(c.claims, i, 5);
        zp_store_repair_why why = ZP_STORE_REPAIR_NO_NODE;
        if (no_lease && *no_lease == 't') why = ZP_STORE_REPAIR_NO_LEASE;
        else if (too_long && *too_long == 't')
            why = forever && *forever == 't' ? ZP_STORE_REPAIR_LEASE_FOREVER : ZP_STORE_REPAIR_LEASE_LONG;
        zp_store_repair_line(line, sizeof line, why, owner);
        if (fn) fn(arg, pg_i64(c.claims, i, 0), (uint32_t)pg_i64(c.claims, i, 1), line);
    }
    char unproved[96];
    zp_store_repair_line(unproved, sizeof unproved, ZP_STORE_REPAIR_UNPROVED, "");
    for (int i = 0; rc == ZP_OK && fn != NULL && i < pg_rows(c.unproved); i++)
        fn(arg, pg_i64(c.unproved, i, 0), (uint32_t)pg_i64(c.unproved, i, 1), unproved);
    if (rc == ZP_OK) *repaired = (size_t)(pg_rows(c.claims) + pg_rows(c.unproved));
    pg_free(c.claims);
    pg_free(c.unproved);
    return rc;
}
