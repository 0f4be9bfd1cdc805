/* The collector thread: takes each partition the engine ended (each
 * claimed partition is an engine job of its own), records its proof,
 * timings and state in the store under its claim's fence, as soon as it
 * is verified, so that a crash loses only the partitions in flight; the
 * record that ends a job removes its spooled files.
 *
 * A record that cannot be written for a reason that may pass (the disk is
 * full, an I/O error, the database unreachable) is not dropped: the result
 * is kept here, its claim stays this daemon's and its lease renewed (the
 * API shows the job with it, "recorded": false, and serves its proof from
 * here), and the commit is tried again, after 1 s, then 2, 4, ... up to
 * every 30 s, until it goes through. /v1/status and /metrics say how many
 * wait and why. If the daemon stops first, the partition is still claimed
 * in the store with its witness spooled: it is proved again, by the next
 * start or by another daemon once the lease runs out. Nothing is lost. */
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

/* One ended partition's record, ready for zp_store_finish_part. */
struct pending_commit {
    zp_store_held claim;
    uint64_t engine_id;
    zp_job_state state; /* ZP_JOB_DONE or _FAILED */
    char why[512];      /* the failure's reason, "" otherwise */
    zp_store_result result;
    char *texts[2];      /* proof and public JSON */
    char digests[2][65]; /* the key and circuit it was proved with (result.key_digest, .wasm_digest) */
    unsigned attempts;
    double next_try, first_failed; /* monotonic seconds */
    char error[512];               /* the last try's */
    int fd;       /* the spooled file the engine read (its active entry's): checked before a proof is recorded */
    int verified; /* its bytes matched the job's request digest: the proof may be recorded and served */
};

static void pending_free(pending_commit *pc) {
    if (pc == NULL) return;
    free(pc->texts[0]);
    free(pc->texts[1]);
    free(pc);
}

/* The engine names the file it was given, /proc/self/fd/N: messages name
 * it as the spool does instead. */
static void name_spooled(char *msg, size_t cap, const zp_server *s, const active_part *part) {
    if (!s->spool_proc || part->fd < 0 || part->file == NULL) return;
    char name[40], out[sizeof((pending_commit *)0)->why];
    int n = snprintf(name, sizeof name, "/proc/self/fd/%d", part->fd);
    size_t o = 0;
    const char *p = msg, *hit;
    while ((hit = strstr(p, name)) != NULL && o < sizeof out) {
        size_t keep = (size_t)(hit - p);
        int whole = hit[n] < '0' || hit[n] > '9'; /* not /proc/self/fd/12 for /proc/self/fd/1 */
        o += (size_t)snprintf(out + o, sizeof out - o, "%.*s%s%s", (int)keep, p, whole ? "spooled file " : name,
                              whole ? part->file : "");
        p = hit + n;
    }
    if (p == msg || o >= sizeof out) return;
    snprintf(out + o, sizeof out - o, "%s", p);
    snprintf(msg, cap, "%s", out);
}

/* The record of an ended engine job (one partition): its proof as JSON,
 * its times, its state. NULL and err set when out of memory or a proof
 * cannot be encoded. */
static pending_commit *build_record(zp_server *s, const active_part *part, const zp_job_info *info, zp_error *err) {
    pending_commit *pc = calloc(1, sizeof *pc);
    if (pc == NULL) {
        zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
        return NULL;
    }
    pc->claim = part->claim;
    pc->engine_id = part->engine_id;
    pc->state = info->state;
    pc->fd = part->fd;
    if (info->state != ZP_JOB_DONE) {
        /* the engine's "job E, partition 0: " names its own job, not the
         * store's: the store's "partition N: " takes its place */
        const char *why = info->error.message;
        char own[64];
        int n = snprintf(own, sizeof own, "job %llu, partition 0: ", (unsigned long long)part->engine_id);
        if (n > 0 && strncmp(why, own, (size_t)n) == 0) why += n;
        snprintf(pc->why, sizeof pc->why, "%s", why);
        name_spooled(pc->why, sizeof pc->why, s, part);
    }
    zp_error terr;
    if (zp_engine_partition_times(&pc->result.times, s->engine, part->engine_id, 0, &terr) != ZP_OK)
        memset(&pc->result.times, 0, sizeof pc->result.times);
    if (info->state != ZP_JOB_DONE) return pc;
    zp_groth16_proof proof;
    uint64_t pub[4 * 64], *pubs = pub;
    size_t np = 0;
    zp_status st = zp_engine_proof(&proof, NULL, 0, &np, s->engine, part->engine_id, 0, err);
    if (st == ZP_OK && np > 64) pubs = malloc(np * ZP_SCALAR_BYTES);
    if (st == ZP_OK && pubs == NULL) st = zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    if (st == ZP_OK) st = zp_engine_proof(&proof, pubs, np, &np, s->engine, part->engine_id, 0, err);
    if (st == ZP_OK) st = zp_json_proof_dump(&pc->texts[0], &proof, err);
    if (st == ZP_OK) st = zp_json_public_dump(&pc->texts[1], pubs, np, err);
    if (pubs != pub) free(pubs);
    if (st != ZP_OK) {
        pending_free(pc);
        return NULL;
    }
    pc->result.proof_json = pc->texts[0];
    pc->result.public_json = pc->texts[1];
    /* what it was made with: the store records it only for a job pinned to these */
    snprintf(pc->digests[0], sizeof pc->digests[0], "%s", info->key_digest);
    snprintf(pc->digests[1], sizeof pc->digests[1], "%s", part->wasm_digest);
    pc->result.key_digest = pc->digests[0];
    pc->result.wasm_digest = pc->digests[1];
    return pc;
}

/* A commit that failed for a reason that may pass: a full disk, an I/O
 * error, the database unreachable (ZP_ERR_IO), or memory. A corrupt file
 * or a claim that is not current will not get better. */
static int worth_retrying(zp_status st) { return st == ZP_ERR_IO || st == ZP_ERR_NOMEM; }

/* The job's end, when this partition's record ended it: its files go,
 * and it is counted and logged. */
static void job_ended(zp_server *s, int64_t id) {
    zp_store_job job;
    zp_error err;
    if (zp_store_get_job(&job, s->store, id, &err) != ZP_OK) {
        server_log(s, 0, "%s", err.message);
        return;
    }
    if (zp_store_witness_paths(s->store, id, server_spool_remove, s, &err) != ZP_OK)
        server_log(s, 0, "%s", err.message);
    server_verify_forget(s, id);
    server_log(s, 1, "job %lld %s%s%s", (long long)id, zp_job_state_name(job.state),
               job.state == ZP_JOB_FAILED ? ": " : "", job.state == ZP_JOB_FAILED ? job.error : "");
    pthread_mutex_lock(&s->lock);
    if (job.state >= ZP_JOB_DONE) s->outcomes[job.state - ZP_JOB_DONE]++;
    pthread_mutex_unlock(&s->lock);
}

/* The partition's end is recorded (recorded = 1), refused by its fence, or
 * given up: either way it leaves the engine and the active map. */
static void settle(zp_server *s, pending_commit *pc, int recorded, int ended, const zp_error *err) {
    const zp_store_held *c = &pc->claim;
    if (recorded && ended) job_ended(s, c->job_id);
    else if (!recorded && err && err->status == ZP_ERR_MISMATCH)
        server_log(s, 1, "job %lld partition %u: %s", (long long)c->job_id, c->idx, err->message);
    else if (!recorded) /* it stays claimed in the store: proved again once its lease runs out */
        server_log(s, 0, "job %lld partition %u: could not record its end: %s", (long long)c->job_id, c->idx,
                   err ? err->message : "stopping");
    pthread_mutex_lock(&s->lock);
    server_find_active(s, pc->engine_id, NULL, 1);
    if (recorded && pc->state == ZP_JOB_DONE) {
        s->proofs++;
        server_metrics_job(s, &pc->result.times, 1);
    }
    if (!recorded && err && err->status == ZP_ERR_MISMATCH) s->results_refused++;
    pthread_cond_broadcast(&s->ended);
    pthread_cond_broadcast(&s->wake_dispatch);
    pthread_mutex_unlock(&s->lock);
    zp_engine_forget(s->engine, pc->engine_id);
    pending_free(pc);
}

/* A proof is recorded only of the bytes accepted (verify.c): a file
 * that does not match its job's request digest fails the partition, with
 * the reason, instead. ZP_OK when the record may go on (as it is, or as a
 * failure); ZP_ERR_IO, ZP_ERR_NOMEM when the check must be tried again
 * (the store unreachable, a read error), the proof held back meanwhile. */
static zp_status check_proved_bytes(zp_server *s, pending_commit *pc, zp_error *err) {
    if (pc->state != ZP_JOB_DONE || pc->verified) return ZP_OK;
    zp_status st = server_verify_part(s, &pc->claim, pc->fd, err);
    if (st == ZP_OK) {
        pc->verified = 1;
        return ZP_OK;
    }
    if (worth_retrying(st)) {
        zp_error_prefix(err, "checking the bytes proved against the job's request: ");
        return st;
    }
    server_log(s, 0, "job %lld partition %u: %s", (long long)pc->claim.job_id, pc->claim.idx, err->message);
    pc->state = ZP_JOB_FAILED;
    snprintf(pc->why, sizeof pc->why, "%s", err->message);
    pc->result.proof_json = pc->result.public_json = NULL;
    return ZP_OK;
}

/* One try at writing the record. 1: settled (recorded, refused or given
 * up), 0: kept for another try. */
static int try_commit(zp_server *s, pending_commit *pc, int last_chance) {
    zp_error err;
    int ended = 0;
    pc->attempts++;
    zp_status st = check_proved_bytes(s, pc, &err);
    if (st == ZP_OK) st = zp_store_finish_part(&ended, s->store, &pc->claim, pc->state, pc->why, &pc->result, &err);
    if (st == ZP_OK) {
        settle(s, pc, 1, ended, NULL);
        return 1;
    }
    if (!worth_retrying(st) || last_chance) {
        settle(s, pc, 0, 0, &err);
        return 1;
    }
    double wait = RETRY_FIRST_S;
    for (unsigned i = 1; i < pc->attempts && wait < RETRY_MAX_S; i++) wait *= 2;
    pc->next_try = zp_clock_now() + (wait < RETRY_MAX_S ? wait : RETRY_MAX_S);
    pthread_mutex_lock(&s->lock);
    if (pc->first_failed == 0) pc->first_failed = zp_clock_now();
    snprintf(pc->error, sizeof pc->error, "%s", err.message);
    s->commit_failures++;
    snprintf(s->commit_error, sizeof s->commit_error, "job %lld partition %u: %s", (long long)pc->claim.job_id,
             pc->claim.idx, err.message);
    s->commit_error_at = zp_clock_wall();
    pthread_mutex_unlock(&s->lock);
    if (pc->attempts == 1)
        server_log(s, 0, "job %lld partition %u %s, but its end cannot be recorded yet (trying again until it is): %s",
                   (long long)pc->claim.job_id, pc->claim.idx, zp_job_state_name(pc->state), err.message);
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
    double now = zp_clock_now();
    pending_commit *pc, *again[64];
    size_t n_again = 0;
    while (n_again < 64 && (pc = pending_take_due(s, now)) != NULL) {
        if (!try_commit(s, pc, 0)) again[n_again++] = pc;
    }
    for (size_t i = 0; i < n_again; i++) {
        if (!pending_add(s, again[i])) {
            zp_error e;
            zp_error_set(&e, ZP_ERR_NOMEM, "out of memory");
            settle(s, again[i], 0, 0, &e);
        }
    }
}

int server_pending_job(zp_server *s, zp_store_job *job, zp_store_result_fn fn, void *arg) {
    int found = 0;
    uint32_t done = 0;
    zp_job_state state = job->state;
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->n_pending; i++) {
        const pending_commit *pc = s->pending[i];
        if (pc->claim.job_id != job->id) continue;
        found = 1;
        if (pc->state == ZP_JOB_FAILED && state < ZP_JOB_DONE) {
            state = ZP_JOB_FAILED;
            snprintf(job->error, sizeof job->error, "partition %u: %.480s", pc->claim.idx, pc->why);
        }
        if (pc->state != ZP_JOB_DONE || !pc->verified) continue; /* a proof not checked yet is not served */
        done++;
        if (fn) fn(arg, pc->claim.idx, pc->result.proof_json, pc->result.public_json, &pc->result.times);
    }
    pthread_mutex_unlock(&s->lock);
    if (found && job->state < ZP_JOB_DONE) {
        job->done += done;
        if (state == ZP_JOB_FAILED) job->state = ZP_JOB_FAILED;
        else if (job->done >= job->partitions) job->state = ZP_JOB_DONE;
    }
    return found;
}

double server_pending_oldest(zp_server *s, char *why, size_t cap) {
    const pending_commit *oldest = NULL;
    for (size_t i = 0; i < s->n_pending; i++)
        if (s->pending[i]->first_failed > 0 && (oldest == NULL || s->pending[i]->first_failed < oldest->first_failed))
            oldest = s->pending[i];
    if (oldest == NULL) return 0;
    snprintf(why, cap, "job %lld partition %u: %s", (long long)oldest->claim.job_id, oldest->claim.idx, oldest->error);
    return zp_clock_now() - oldest->first_failed;
}

size_t server_pending_jobs(zp_server *s) {
    size_t n = 0;
    for (size_t i = 0; i < s->n_pending; i++) {
        int seen = 0;
        for (size_t k = 0; k < i && !seen; k++) seen = s->pending[k]->claim.job_id == s->pending[i]->claim.job_id;
        n += !seen;
    }
    return n;
}

/* ---- the thread -------------------------------------------------------- */

static void record(zp_server *s, uint64_t engine_id) {
    active_part part;
    pthread_mutex_lock(&s->lock);
    int known = server_find_active(s, engine_id, &part, 0);
    pthread_mutex_unlock(&s->lock);
    if (!known) return;
    zp_error err;
    zp_job_info info;
    if (zp_engine_job(&info, s->engine, engine_id, 0, &err) != ZP_OK) return;
    pending_commit *pc = NULL;
    if (info.state == ZP_JOB_CANCELLED) {
        /* the store took it back (part.lost), or the daemon is stopping:
         * nothing to record; a claim still ours goes back to the queue */
        if (!part.lost && zp_store_release(s->store, s->node, &part.claim, 1, &err) != ZP_OK)
            server_log(s, 0, "%s", err.message);
    } else {
        pc = build_record(s, &part, &info, &err);
        if (pc == NULL)
            server_log(s, 0, "job %lld partition %u: could not record its end: %s", (long long)part.claim.job_id,
                       part.claim.idx, err.message);
    }
    if (pc == NULL) {
        pthread_mutex_lock(&s->lock);
        server_find_active(s, engine_id, NULL, 1);
        pthread_cond_broadcast(&s->ended);
        pthread_cond_broadcast(&s->wake_dispatch);
        pthread_mutex_unlock(&s->lock);
        zp_engine_forget(s->engine, engine_id);
        return;
    }
    if (!try_commit(s, pc, 0) && !pending_add(s, pc)) {
        zp_error_set(&err, ZP_ERR_NOMEM, "out of memory");
        settle(s, pc, 0, 0, &err);
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
    server_verify_free(s);
    return NULL;
}
