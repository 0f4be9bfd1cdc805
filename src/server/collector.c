/* The collector thread: takes each job the engine ended, records its
 * proofs, timings and state in the store in one transaction, then removes
 * its spooled witnesses and counts it in the metrics.
 *
 * A record that cannot be written for a reason that may pass (the disk is
 * full, an I/O error, the file locked by someone else) is not dropped: the
 * result is kept here, the job stays in the engine (so the API shows it
 * ended, not "queued", and serves its proofs from here), and the commit is
 * tried again, after 1 s, then 2, 4, ... up to every 30 s, until it goes
 * through. /v1/status and /metrics say how many wait and why. If the
 * daemon stops first, the store still has the job queued with its
 * witnesses spooled, so the next start proves it again: nothing is lost. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/error.h"
#include "groth16/groth16.h"
#include "io/json.h"
#include "server/internal.h"

#define RETRY_FIRST_S 1.0
#define RETRY_MAX_S 30.0

/* One ended job's record, ready for zp_store_finish_job. */
struct pending_commit {
    int64_t id;
    uint64_t engine_id;
    zp_job_state state; /* ZP_JOB_DONE, _FAILED or _CANCELLED */
    char why[512];      /* the failure's reason, "" otherwise */
    uint32_t n;
    zp_store_result *results;
    zp_partition_times *times;
    char **texts; /* 2n: proof and public JSON of each partition */
    unsigned attempts;
    double next_try;
};

static const char *state_text(zp_job_state st) {
    return st == ZP_JOB_DONE ? "done" : st == ZP_JOB_FAILED ? "failed" : "cancelled";
}

static void pending_free(pending_commit *pc) {
    if (pc == NULL) return;
    for (size_t i = 0; pc->texts && i < 2 * (size_t)pc->n; i++) free(pc->texts[i]);
    free(pc->texts);
    free(pc->times);
    free(pc->results);
    free(pc);
}

/* The record of an ended engine job: proofs as JSON, times, state. NULL
 * and err set when out of memory or a proof cannot be encoded. */
static pending_commit *build_record(zp_server *s, int64_t id, uint64_t engine_id, const zp_job_info *info,
                                    zp_error *err) {
    size_t n = info->partitions;
    pending_commit *pc = calloc(1, sizeof *pc);
    if (pc == NULL) {
        zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
        return NULL;
    }
    pc->id = id;
    pc->engine_id = engine_id;
    pc->state = info->state;
    pc->n = (uint32_t)n;
    if (info->state != ZP_JOB_DONE)
        snprintf(pc->why, sizeof pc->why, "%s", info->state == ZP_JOB_FAILED ? info->error.message : "cancelled");
    pc->results = calloc(n, sizeof *pc->results);
    pc->times = calloc(n, sizeof *pc->times);
    pc->texts = calloc(2 * n, sizeof *pc->texts);
    zp_status st = pc->results && pc->times && pc->texts ? ZP_OK : zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    for (size_t i = 0; st == ZP_OK && i < n; i++) {
        zp_error terr;
        if (zp_engine_partition_times(&pc->times[i], s->engine, engine_id, i, &terr) != ZP_OK) continue;
        pc->results[i].times = pc->times[i];
        if (info->state != ZP_JOB_DONE) continue;
        zp_groth16_proof proof;
        uint64_t pub[4 * 64], *pubs = pub;
        size_t np = 0;
        st = zp_engine_proof(&proof, NULL, 0, &np, s->engine, engine_id, i, err);
        if (st == ZP_OK && np > 64) pubs = malloc(np * ZP_SCALAR_BYTES);
        if (st == ZP_OK && pubs == NULL) st = zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
        if (st == ZP_OK) st = zp_engine_proof(&proof, pubs, np, &np, s->engine, engine_id, i, err);
        if (st == ZP_OK) st = zp_json_proof_dump(&pc->texts[2 * i], &proof, err);
        if (st == ZP_OK) st = zp_json_public_dump(&pc->texts[2 * i + 1], pubs, np, err);
        if (pubs != pub) free(pubs);
        pc->results[i].proof_json = pc->texts[2 * i];
        pc->results[i].public_json = pc->texts[2 * i + 1];
    }
    if (st != ZP_OK) {
        pending_free(pc);
        return NULL;
    }
    return pc;
}

/* A commit that failed for a reason that may pass: a full disk or an I/O
 * error (ZP_ERR_IO: SQLITE_FULL, _IOERR, _BUSY), or memory. A corrupt
 * file or a job that ended already will not get better. */
static int worth_retrying(zp_status st) { return st == ZP_ERR_IO || st == ZP_ERR_NOMEM; }

/* The job's end is recorded (recorded = 1) or given up: either way it
 * leaves the engine and the active map. */
static void settle(zp_server *s, pending_commit *pc, int recorded, const zp_error *err) {
    const char *state = state_text(pc->state);
    if (recorded) {
        zp_error e2;
        if (zp_store_witness_paths(s->store, pc->id, server_spool_remove, s, &e2) != ZP_OK)
            server_log(s, 0, "%s", e2.message);
        server_log(s, 1, "job %lld %s%s%s%s", (long long)pc->id, state, pc->state == ZP_JOB_FAILED ? ": " : "",
                   pc->state == ZP_JOB_FAILED ? pc->why : "", pc->attempts > 1 ? " (recorded after retries)" : "");
    } else {
        /* not recorded: the job stays queued in the store and runs again
         * after a restart; its result here is dropped */
        server_log(s, 0, "job %lld: could not record its end: %s", (long long)pc->id, err ? err->message : "stopping");
    }
    pthread_mutex_lock(&s->lock);
    server_store_id(s, pc->engine_id, 1);
    if (recorded) {
        s->outcomes[pc->state == ZP_JOB_DONE ? 0 : pc->state == ZP_JOB_FAILED ? 1 : 2]++;
        if (pc->state == ZP_JOB_DONE) {
            s->proofs += pc->n;
            server_metrics_job(s, pc->times, pc->n);
        }
    }
    pthread_cond_broadcast(&s->ended);
    pthread_mutex_unlock(&s->lock);
    zp_engine_forget(s->engine, pc->engine_id);
    pending_free(pc);
}

/* One try at writing the record. 1: settled (recorded or given up), 0:
 * kept for another try. */
static int try_commit(zp_server *s, pending_commit *pc, int last_chance) {
    zp_error err;
    pc->attempts++;
    zp_status st = zp_store_finish_job(s->store, pc->id, state_text(pc->state), pc->why, zp_clock_wall(), pc->results,
                                       pc->n, &err);
    if (st == ZP_OK) {
        settle(s, pc, 1, NULL);
        return 1;
    }
    if (!worth_retrying(st) || last_chance) {
        settle(s, pc, 0, &err);
        return 1;
    }
    double wait = RETRY_FIRST_S;
    for (unsigned i = 1; i < pc->attempts && wait < RETRY_MAX_S; i++) wait *= 2;
    pc->next_try = zp_clock_wall() + (wait < RETRY_MAX_S ? wait : RETRY_MAX_S);
    pthread_mutex_lock(&s->lock);
    s->commit_failures++;
    snprintf(s->commit_error, sizeof s->commit_error, "job %lld: %s", (long long)pc->id, err.message);
    s->commit_error_at = zp_clock_wall();
    pthread_mutex_unlock(&s->lock);
    if (pc->attempts == 1)
        server_log(s, 0, "job %lld %s, but its end cannot be recorded yet (trying again until it is): %s",
                   (long long)pc->id, state_text(pc->state), err.message);
    return 0;
}

/* ---- the pending list (s->lock) ---------------------------------------- */

static int pending_add(zp_server *s, pending_commit *pc) {
    pthread_mutex_lock(&s->lock);
    int ok = 1;
    if (s->n_pending == s->cap_pending) {
        size_t cap = s->cap_pending ? 2 * s->cap_pending : 8;
        pending_commit **a = realloc(s->pending, cap * sizeof *a);
        if (a == NULL) ok = 0;
        else {
            s->pending = a;
            s->cap_pending = cap;
        }
    }
    if (ok) s->pending[s->n_pending++] = pc;
    pthread_cond_broadcast(&s->ended); /* a long poll can answer from it */
    pthread_mutex_unlock(&s->lock);
    return ok;
}

/* Takes out the first pending record due by now (all when now < 0). */
static pending_commit *pending_take_due(zp_server *s, double now) {
    pending_commit *pc = NULL;
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->n_pending; i++) {
        if (now >= 0 && s->pending[i]->next_try > now) continue;
        pc = s->pending[i];
        s->pending[i] = s->pending[--s->n_pending];
        break;
    }
    pthread_mutex_unlock(&s->lock);
    return pc;
}

static void retry_due(zp_server *s) {
    double now = zp_clock_wall();
    pending_commit *pc, *again[64];
    size_t n_again = 0;
    while (n_again < 64 && (pc = pending_take_due(s, now)) != NULL) {
        if (!try_commit(s, pc, 0)) again[n_again++] = pc;
    }
    for (size_t i = 0; i < n_again; i++) {
        if (!pending_add(s, again[i])) {
            zp_error e;
            zp_error_set(&e, ZP_ERR_NOMEM, "out of memory");
            settle(s, again[i], 0, &e);
        }
    }
}

int server_pending_results(zp_server *s, int64_t id, zp_store_result_fn fn, void *arg, const char **state) {
    int found = 0;
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->n_pending && !found; i++) {
        const pending_commit *pc = s->pending[i];
        if (pc->id != id) continue;
        found = 1;
        if (state) *state = state_text(pc->state);
        for (uint32_t k = 0; fn && k < pc->n; k++)
            fn(arg, k, pc->results[k].proof_json, pc->results[k].public_json, &pc->times[k]);
    }
    pthread_mutex_unlock(&s->lock);
    return found;
}

void server_pending_counts(zp_server *s, uint64_t by_state[3]) {
    by_state[0] = by_state[1] = by_state[2] = 0;
    for (size_t i = 0; i < s->n_pending; i++) {
        zp_job_state st = s->pending[i]->state;
        by_state[st == ZP_JOB_DONE ? 0 : st == ZP_JOB_FAILED ? 1 : 2]++;
    }
}

/* ---- the thread -------------------------------------------------------- */

static void record(zp_server *s, uint64_t engine_id) {
    pthread_mutex_lock(&s->lock);
    int64_t id = server_store_id(s, engine_id, 0);
    pthread_mutex_unlock(&s->lock);
    if (id == 0) return;
    zp_error err;
    zp_job_info info;
    if (zp_engine_job(&info, s->engine, engine_id, 0, &err) != ZP_OK) return;
    pending_commit *pc = build_record(s, id, engine_id, &info, &err);
    if (pc == NULL) {
        server_log(s, 0, "job %lld: could not record its end: %s", (long long)id, err.message);
        pthread_mutex_lock(&s->lock);
        server_store_id(s, engine_id, 1);
        pthread_cond_broadcast(&s->ended);
        pthread_mutex_unlock(&s->lock);
        zp_engine_forget(s->engine, engine_id);
        return;
    }
    if (!try_commit(s, pc, 0) && !pending_add(s, pc)) {
        zp_error_set(&err, ZP_ERR_NOMEM, "out of memory");
        settle(s, pc, 0, &err);
    }
}

void *server_collector_main(void *arg) {
    zp_server *s = arg;
    for (;;) {
        pthread_mutex_lock(&s->lock);
        int stop = s->stop_threads;
        pthread_mutex_unlock(&s->lock);
        if (stop) break;
        uint64_t engine_id;
        if (zp_engine_next_ended(&engine_id, s->engine, 0.25)) record(s, engine_id);
        retry_due(s);
    }
    /* Stopping: one last try each; what still fails stays queued in the
     * store and is proved again at the next start. */
    pending_commit *pc;
    while ((pc = pending_take_due(s, -1)) != NULL) (void)try_commit(s, pc, 1);
    free(s->pending);
    s->pending = NULL;
    s->n_pending = s->cap_pending = 0;
    return NULL;
}
