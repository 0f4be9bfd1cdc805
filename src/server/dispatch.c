/* The dispatcher thread: work is pulled, not pushed (docs/fleet.md). The
 * store holds the queue, this daemon's or a fleet's; the dispatcher claims
 * partitions from it only when the engine has room for them, gives each
 * to the engine as a job of its own, keeps their leases renewed, cancels
 * in the engine what the store took back (the job cancelled or failed
 * elsewhere, the claim taken over after a stall), and sends the daemon's
 * heartbeat.
 *
 * Room, judged before each claim: nothing claimed waits for admission
 * (the engine admitted all it has: its memory is reserved), fewer
 * partitions in hand than the pipeline holds, and only the keys one
 * partition of which fits in the budget's free bytes now (the key and its
 * matrices counted too while they are not loaded; idle keys' bytes count
 * as free, the engine evicts them; with nothing in hand, the whole budget
 * is free), and not while the key's circuit compiles. So a daemon never
 * claims work it could not start, and a fleet's work goes to the daemons
 * with room. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/error.h"
#include "server/internal.h"

#define TICK_S 0.1         /* the loop's pace when nothing wakes it */
#define RENEW_EVERY_S 0.3  /* at most: a cancel elsewhere is noticed within about this */
#define HEARTBEAT_S 1.0
#define KEYS_EVERY_S 5.0   /* keys_dir is read again */
#define CLAIM_BATCH 1      /* one at a time: each is judged against the room left */

/* Partitions the pipeline holds at once: what is worth having in hand. */
static size_t pipeline_depth(const zp_engine_stats *st) {
    return st->synth_workers + st->prove_workers + st->finalize_workers + 2 * st->queue_capacity;
}

/* ---- the keys this daemon serves ---------------------------------------- */

static int add_key_id(zp_server *s, const char *id, size_t *cap) {
    for (size_t i = 0; i < s->n_dkeys; i++)
        if (strcmp(s->dkeys[i].id, id) == 0) return 1;
    if (strlen(id) >= sizeof s->dkeys->id) return 1;
    if (s->n_dkeys == *cap) {
        size_t c = *cap ? 2 * *cap : 16;
        dispatch_key *g = realloc(s->dkeys, c * sizeof *g);
        if (g == NULL) return 0;
        s->dkeys = g;
        *cap = c;
    }
    dispatch_key *k = &s->dkeys[s->n_dkeys++];
    memset(k, 0, sizeof *k);
    snprintf(k->id, sizeof k->id, "%s", id);
    return 1;
}

/* The configured keys and keys_dir's *.zkey, read again every few seconds
 * (a key added to keys_dir is served without a restart). */
static void list_keys(zp_server *s, double now) {
    if (s->dkeys != NULL && now - s->dkeys_listed < KEYS_EVERY_S) return;
    s->dkeys_listed = now;
    free(s->dkeys);
    s->dkeys = NULL;
    s->n_dkeys = 0;
    size_t cap = 0;
    for (size_t i = 0; i < s->cfg.n_keys; i++) add_key_id(s, s->cfg.keys[i].id, &cap);
    DIR *d = s->cfg.keys_dir ? opendir(s->cfg.keys_dir) : NULL;
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len <= 5 || e->d_name[0] == '.' || strcmp(e->d_name + len - 5, ".zkey") != 0) continue;
        char id[128];
        if (len - 5 >= sizeof id) continue;
        memcpy(id, e->d_name, len - 5);
        id[len - 5] = '\0';
        if (!add_key_id(s, id, &cap)) break;
    }
    if (d != NULL) closedir(d);
}

/* The bytes of the keys loaded and used by no partition: the engine
 * evicts them when admission needs the room. */
static uint64_t idle_key_bytes(zp_server *s) {
    zp_engine_key_info keys[64];
    size_t n = zp_engine_keys(keys, 64, s->engine);
    uint64_t idle = 0;
    for (size_t i = 0; i < n && i < 64; i++)
        if (keys[i].loaded && keys[i].partitions_active == 0) idle += keys[i].key_bytes + keys[i].matrices_bytes;
    return idle;
}

/* Whether a key's circuit (when it has one) is loaded, or has failed: a
 * partition claimed while it compiles would wait in the engine, and hold
 * up every claim behind it (the engine's admission would not be empty),
 * while another daemon may have it ready. One not known to the engine yet
 * is handed to it to compile. A circuit that failed is settled: its
 * partitions are claimed, and fail with the compile's message. */
static int circuit_settled(zp_server *s, const char *key_id, const char *key_path) {
    char *wasm = server_key_wasm(s, key_id);
    if (wasm == NULL) return 1;
    zp_circuit_state state = ZP_CIRCUIT_UNKNOWN;
    zp_error err;
    /* its error (a mismatch, a failed compile) is the job's to report */
    if (zp_engine_circuit_check(s->engine, key_path, wasm, &state, &err) != ZP_OK && state != ZP_CIRCUIT_READY)
        state = ZP_CIRCUIT_FAILED;
    if (state == ZP_CIRCUIT_UNKNOWN && zp_engine_circuit_preload(s->engine, wasm, &err) != ZP_OK)
        state = ZP_CIRCUIT_FAILED; /* claimed, its job fails with why */
    free(wasm);
    return state == ZP_CIRCUIT_READY || state == ZP_CIRCUIT_FAILED;
}

/* The ids of the keys one partition of which fits in free bytes now. */
static size_t keys_that_fit(const char **ids, zp_server *s, uint64_t free_bytes) {
    size_t n = 0;
    for (size_t i = 0; i < s->n_dkeys; i++) {
        dispatch_key *k = &s->dkeys[i];
        zp_error err;
        char *path = server_key_path(s, k->id, &err);
        zp_engine_key_info info;
        if (path == NULL || zp_engine_key_describe(&info, s->engine, path, &err) != ZP_OK ||
            !circuit_settled(s, k->id, path)) {
            free(path);
            continue; /* a key that cannot be read is left to daemons that can */
        }
        free(path);
        uint64_t need = info.partition_bytes + (info.loaded ? 0 : info.key_bytes + info.matrices_bytes);
        if (need <= free_bytes) ids[n++] = k->id;
    }
    return n;
}

/* ---- claims, leases, the heartbeat ------------------------------------- */

/* The store failing (the disk full, the database down): logged once, kept
 * for /v1/status until it answers again. */
static void note_error(zp_server *s, const zp_error *err) {
    pthread_mutex_lock(&s->lock);
    int fresh = s->fleet_error[0] == '\0';
    snprintf(s->fleet_error, sizeof s->fleet_error, "%s", err->message);
    pthread_mutex_unlock(&s->lock);
    if (fresh) server_log(s, 0, "%s (retrying until it answers)", err->message);
}

static int store_failing(zp_server *s) {
    pthread_mutex_lock(&s->lock);
    int failing = s->fleet_error[0] != '\0';
    pthread_mutex_unlock(&s->lock);
    return failing;
}

static void clear_error(zp_server *s) {
    pthread_mutex_lock(&s->lock);
    if (s->fleet_error[0]) server_log(s, 1, "the store answers again");
    s->fleet_error[0] = '\0';
    pthread_mutex_unlock(&s->lock);
}

/* A claimed partition into the engine; one the engine refuses (its key or
 * circuit broke, its file is gone) fails its job, recorded under its
 * claim. */
static void start_claim(zp_server *s, const zp_store_claim *c) {
    zp_store_held held = {c->job_id, c->idx, c->fence};
    uint64_t engine_id = 0;
    zp_error err;
    pthread_mutex_lock(&s->lock);
    zp_status st = server_engine_submit(&engine_id, s, c, &err);
    if (st == ZP_OK && !server_add_active(s, &held, engine_id)) {
        zp_engine_forget(s->engine, engine_id);
        st = zp_error_set(&err, ZP_ERR_NOMEM, "out of memory");
    }
    if (st == ZP_OK) s->claims++;
    pthread_mutex_unlock(&s->lock);
    if (st == ZP_OK) return;
    int ended = 0;
    zp_error e2;
    server_log(s, 0, "job %lld partition %u: %s", (long long)c->job_id, c->idx, err.message);
    if (zp_store_finish_part(&ended, s->store, &held, ZP_JOB_FAILED, err.message, NULL, zp_clock_wall(), &e2) != ZP_OK)
        server_log(s, 0, "%s", e2.message);
    else if (ended && zp_store_witness_paths(s->store, c->job_id, server_spool_remove, s, &e2) != ZP_OK)
        server_log(s, 0, "%s", e2.message);
}

/* Claims while there is room. */
static void claim_work(zp_server *s, double now) {
    list_keys(s, now);
    const char **ids = s->n_dkeys ? malloc(s->n_dkeys * sizeof *ids) : NULL;
    if (ids == NULL) return;
    for (;;) {
        zp_engine_stats st;
        zp_engine_stats_get(&st, s->engine);
        pthread_mutex_lock(&s->lock);
        size_t in_hand = s->n_active;
        int stop = s->shutting_down || s->stop_threads;
        pthread_mutex_unlock(&s->lock);
        if (stop || st.admission_waiting > 0 || in_hand >= pipeline_depth(&st)) break;
        /* an idle key's bytes are the engine's to evict for a partition
         * that needs them; with nothing in hand, the whole budget is */
        uint64_t free_bytes = st.buffer_budget > st.reserved ? st.buffer_budget - st.reserved : 0;
        free_bytes += idle_key_bytes(s);
        if (in_hand == 0) free_bytes = st.buffer_budget;
        size_t n_ids = keys_that_fit(ids, s, free_bytes);
        if (n_ids == 0) break;
        zp_store_claim claim;
        size_t got = 0;
        zp_error err;
        if (zp_store_claim_work(&claim, CLAIM_BATCH, &got, s->store, s->node, ids, n_ids, (double)s->cfg.lease,
                                &err) != ZP_OK) {
            note_error(s, &err);
            break;
        }
        if (got == 0) break;
        start_claim(s, &claim);
    }
    free(ids);
}

static void heartbeat(zp_server *s);

/* Renews every lease in hand; the claims the store took back are
 * cancelled in the engine (the collector then forgets them). */
static void renew_leases(zp_server *s) {
    pthread_mutex_lock(&s->lock);
    size_t n = s->n_active;
    zp_store_held *held = n ? malloc(n * sizeof *held) : NULL;
    uint64_t *engine_ids = n ? malloc(n * sizeof *engine_ids) : NULL;
    for (size_t i = 0; held && engine_ids && i < n; i++) {
        held[i] = s->active[i].claim;
        engine_ids[i] = s->active[i].engine_id;
    }
    pthread_mutex_unlock(&s->lock);
    int *lost = n ? calloc(n, sizeof *lost) : NULL;
    zp_error err;
    if (n == 0 || held == NULL || engine_ids == NULL || lost == NULL) {
        free(held);
        free(engine_ids);
        free(lost);
        if (n == 0 && store_failing(s)) heartbeat(s); /* nothing to renew: does the store take writes again? */
        return;
    }
    if (zp_store_renew(lost, s->store, s->node, held, n, (double)s->cfg.lease, &err) != ZP_OK) {
        note_error(s, &err);
    } else {
        clear_error(s);
        pthread_mutex_lock(&s->lock);
        s->renewals += n;
        for (size_t i = 0; i < n; i++) {
            if (!lost[i]) continue;
            for (size_t k = 0; k < s->n_active; k++) {
                if (s->active[k].engine_id != engine_ids[i] || s->active[k].lost) continue;
                s->active[k].lost = 1;
                s->leases_lost++;
            }
        }
        pthread_mutex_unlock(&s->lock);
        for (size_t i = 0; i < n; i++) {
            if (!lost[i]) continue;
            server_log(s, 1, "job %lld partition %u: no longer this daemon's (its job ended, or another daemon took it"
                       " over): cancelled here", (long long)held[i].job_id, held[i].idx);
            (void)zp_engine_cancel(s->engine, engine_ids[i], &err);
        }
    }
    free(held);
    free(engine_ids);
    free(lost);
}

static void fill_node(zp_store_node *me, zp_server *s) {
    memset(me, 0, sizeof *me);
    zp_engine_stats st;
    zp_engine_stats_get(&st, s->engine);
    snprintf(me->id, sizeof me->id, "%s", s->node);
    snprintf(me->host, sizeof me->host, "%s", s->host);
    me->pid = (int64_t)getpid();
    me->started = s->started;
    me->budget = st.budget;
    me->tracked = st.tracked;
    pthread_mutex_lock(&s->lock);
    me->claimed = (uint32_t)s->n_active;
    me->proofs = s->proofs;
    pthread_mutex_unlock(&s->lock);
}

static void heartbeat(zp_server *s) {
    zp_store_node me;
    fill_node(&me, s);
    zp_error err;
    if (zp_store_heartbeat(s->store, &me, &err) != ZP_OK) note_error(s, &err);
    else clear_error(s);
}

void *server_dispatch_main(void *arg) {
    zp_server *s = arg;
    double renew_every = (double)s->cfg.lease / 3;
    if (renew_every > RENEW_EVERY_S) renew_every = RENEW_EVERY_S;
    for (;;) {
        double now = zp_clock_wall();
        /* after a failure the leases come first: a claim whose lease ran
         * out meanwhile must be renewed, not claimed again as new */
        int failing = store_failing(s);
        if (failing || now - s->last_renew >= renew_every) {
            s->last_renew = now;
            renew_leases(s);
        }
        if (now - s->last_heartbeat >= HEARTBEAT_S) {
            s->last_heartbeat = now;
            heartbeat(s);
        }
        if (!store_failing(s)) claim_work(s, now);
        pthread_mutex_lock(&s->lock);
        if (s->stop_threads) {
            pthread_mutex_unlock(&s->lock);
            break;
        }
        struct timespec ts = zp_clock_deadline(TICK_S);
        pthread_cond_timedwait(&s->wake_dispatch, &s->lock, &ts);
        int stop = s->stop_threads;
        pthread_mutex_unlock(&s->lock);
        if (stop) break;
    }
    return NULL;
}

void server_dispatch_stop(zp_server *s) {
    /* what is still in hand goes back to the queue at once, for another
     * daemon or the next start (the engine is gone: none of it will end
     * here) */
    pthread_mutex_lock(&s->lock);
    size_t n = s->n_active;
    zp_store_held *held = n ? malloc(n * sizeof *held) : NULL;
    for (size_t i = 0; held && i < n; i++) held[i] = s->active[i].claim;
    pthread_mutex_unlock(&s->lock);
    zp_error err;
    if (held != NULL && zp_store_release(s->store, s->node, held, n, &err) != ZP_OK) server_log(s, 0, "%s", err.message);
    else if (n) server_log(s, 1, "gave back %zu unfinished partitions to the queue", n);
    free(held);
    if (zp_store_leave(s->store, s->node, &err) != ZP_OK) server_log(s, 0, "%s", err.message);
    free(s->dkeys);
    s->dkeys = NULL;
    s->n_dkeys = 0;
}
