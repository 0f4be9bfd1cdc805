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
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/error.h"
#include "server/internal.h"

#define TICK_S 0.1        /* the loop's pace when nothing wakes it */
#define RENEW_EVERY_S 0.3 /* at most: a cancel elsewhere is noticed within about this */
#define HEARTBEAT_S 1.0
#define KEYS_EVERY_S 5.0     /* keys_dir is read again */
#define CLAIM_BATCH 1        /* one at a time: each is judged against the room left */
#define CLOCK_EVERY_S 10.0   /* the daemon's clock is compared with the store's */
#define REPAIR_EVERY_S 5.0   /* damaged rows (zp_store_repair) are looked for */
#define MISMATCH_EVERY_S 5.0 /* jobs pinned to other bytes than this daemon's are counted (a read of its keys' queue) */

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
    for (size_t i = 0; i < s->n_dkeys; i++) {
        zp_error err; /* a key that cannot be read has no pins: it is claimed by none */
        (void)server_key_pins(s->dkeys[i].digest, s->dkeys[i].wasm_digest, s, s->dkeys[i].id, &err);
    }
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

/* A key the engine has loaded from bytes its file no longer holds (the
 * file was replaced): its proofs would be refused (the digest of what was
 * loaded is not the jobs' pin), so it is evicted before any more of its
 * work is claimed; 1 while it cannot be (partitions use it). */
static int stale_key(zp_server *s, const dispatch_key *k, const char *path, const zp_engine_key_info *info) {
    if (!info->loaded || info->digest[0] == '\0' || strcmp(info->digest, k->digest) == 0) return 0;
    zp_error err;
    if (zp_engine_key_evict(s->engine, path, &err) != ZP_OK) return 1;
    server_log(s, 1, "key '%s': %s changed since it was loaded (loaded %.16s, now %.16s): unloaded, to be loaded again",
               k->id, path, info->digest, k->digest);
    return 0;
}

/* The keys one partition of which fits in free bytes now, with their
 * pins (read again: a file replaced is a new digest). */
static size_t keys_that_fit(zp_store_key *ids, zp_server *s, uint64_t free_bytes) {
    size_t n = 0;
    for (size_t i = 0; i < s->n_dkeys; i++) {
        dispatch_key *k = &s->dkeys[i];
        zp_error err;
        if (server_key_pins(k->digest, k->wasm_digest, s, k->id, &err) != ZP_OK) continue;
        char *path = server_key_path(s, k->id, &err);
        zp_engine_key_info info;
        if (path == NULL || zp_engine_key_describe(&info, s->engine, path, &err) != ZP_OK ||
            !circuit_settled(s, k->id, path) || stale_key(s, k, path, &info)) {
            free(path);
            continue; /* a key that cannot be read is left to daemons that can */
        }
        free(path);
        if (info.admit_bytes > free_bytes) continue;
        ids[n++] = (zp_store_key){k->id, k->digest, k->wasm_digest[0] ? k->wasm_digest : NULL};
    }
    return n;
}

/* ---- claims, leases, the heartbeat ------------------------------------- */

/* The store failing (the disk full, the database down): logged once, kept
 * for /v1/status until it answers again. */
static void note_error(zp_server *s, const zp_error *err) {
    pthread_mutex_lock(&s->lock);
    int fresh = s->fleet_error[0] == '\0';
    if (fresh) s->fleet_error_since = zp_clock_now();
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
    s->fleet_error_since = 0;
    pthread_mutex_unlock(&s->lock);
}

/* A claimed partition into the engine; one the engine refuses (its key or
 * circuit broke, its file is gone) fails its job, recorded under its
 * claim. wasm_digest: the circuit of its key, when it has one. */
static void start_claim(zp_server *s, const zp_store_claim *c, const char *wasm_digest) {
    zp_store_held held = {c->job_id, c->idx, c->fence};
    uint64_t engine_id = 0;
    zp_error err;
    pthread_mutex_lock(&s->lock);
    zp_status st = server_engine_submit(&engine_id, s, c, &err);
    if (st == ZP_OK && !server_add_active(s, &held, engine_id)) {
        zp_engine_forget(s->engine, engine_id);
        st = zp_error_set(&err, ZP_ERR_NOMEM, "out of memory");
    }
    if (st == ZP_OK) {
        s->claims++;
        /* its witness is computed by the circuit this daemon named the
         * engine, whose digest goes with its result */
        if (server_spooled_inputs(c->path) && wasm_digest != NULL)
            snprintf(s->active[s->n_active - 1].wasm_digest, sizeof s->active->wasm_digest, "%s", wasm_digest);
    }
    pthread_mutex_unlock(&s->lock);
    if (st == ZP_OK) return;
    int ended = 0;
    zp_error e2;
    server_log(s, 0, "job %lld partition %u: %s", (long long)c->job_id, c->idx, err.message);
    zp_status fst = zp_store_finish_part(&ended, s->store, &held, ZP_JOB_FAILED, err.message, NULL, &e2);
    if (fst == ZP_ERR_MISMATCH) { /* its claim was taken over meanwhile: refused, as a proof would be */
        pthread_mutex_lock(&s->lock);
        s->results_refused++;
        pthread_mutex_unlock(&s->lock);
    }
    if (fst != ZP_OK) server_log(s, 0, "%s", e2.message);
    else if (ended && zp_store_witness_paths(s->store, c->job_id, server_spool_remove, s, &e2) != ZP_OK)
        server_log(s, 0, "%s", e2.message);
}

/* Claims while there is room. */
static void claim_work(zp_server *s, double now) {
    list_keys(s, now);
    zp_store_key *ids = s->n_dkeys ? malloc(s->n_dkeys * sizeof *ids) : NULL;
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
        if (zp_store_claim_work(&claim, CLAIM_BATCH, &got, s->store, s->node, ids, n_ids, (double)s->cfg.lease, &err) !=
            ZP_OK) {
            note_error(s, &err);
            break;
        }
        if (got == 0) break;
        const char *wasm = NULL;
        for (size_t i = 0; i < n_ids; i++)
            if (strcmp(ids[i].id, claim.key_id) == 0) wasm = ids[i].wasm_digest;
        start_claim(s, &claim, wasm);
    }
    free(ids);
}

/* ---- the store's health: its clock, damaged rows, pins ----------------- */

/* The daemon's clock less the store's, from one read of the store's clock
 * between two of its own (the read's round trip is the error bar);
 * logged when it passes CLOCK_SKEW_WARN_S, and when it is back. */
static void check_clock(zp_server *s) {
    double before = zp_clock_wall(), store_now = 0;
    zp_error err;
    if (zp_store_clock(&store_now, s->store, &err) != ZP_OK) {
        note_error(s, &err);
        return;
    }
    double after = zp_clock_wall();
    double skew = (before + after) / 2 - store_now, slack = (after - before) / 2;
    if (fabs(skew) <= slack) skew = 0;
    pthread_mutex_lock(&s->lock);
    int was_off = fabs(s->clock_skew) > CLOCK_SKEW_WARN_S, first = s->clock_checked == 0;
    s->clock_skew = skew;
    s->clock_checked = zp_clock_now();
    pthread_mutex_unlock(&s->lock);
    int off = fabs(skew) > CLOCK_SKEW_WARN_S;
    if (off && (first || !was_off))
        server_log(s, 0,
                   "this daemon's clock is %.1f s %s the store's (%s): leases and job times are the store's, but "
                   "times this daemon shows are its own; set its clock right (NTP)",
                   fabs(skew), skew > 0 ? "ahead of" : "behind", zp_store_name(s->store));
    else if (!off && was_off) server_log(s, 1, "this daemon's clock is within %.1f s of the store's again", fabs(skew));
}

static void repaired_row(void *arg, int64_t job_id, uint32_t idx, const char *what) {
    zp_server *s = arg;
    server_log(s, 0, "job %lld partition %u: a damaged row in the store: %s", (long long)job_id, idx, what);
}

/* Rows that would keep a job unfinished for ever (zp_store_repair). */
static void repair_rows(zp_server *s) {
    size_t n = 0;
    zp_error err;
    if (zp_store_repair(&n, s->store, repaired_row, s, &err) != ZP_OK) {
        note_error(s, &err);
        return;
    }
    pthread_mutex_lock(&s->lock);
    s->repairs += n;
    pthread_mutex_unlock(&s->lock);
    if (n) server_wake_dispatch(s);
}

typedef struct mismatch_ctx {
    zp_server *s;
    key_mismatch found[MAX_MISMATCHES];
    size_t n;
} mismatch_ctx;

static void mismatch_cb(void *arg, const char *key_id, const char *key_digest, const char *wasm_digest, uint64_t jobs) {
    mismatch_ctx *m = arg;
    if (m->n == MAX_MISMATCHES || key_id == NULL) return;
    key_mismatch *o = &m->found[m->n++];
    memset(o, 0, sizeof *o);
    snprintf(o->key_id, sizeof o->key_id, "%s", key_id);
    snprintf(o->pinned, sizeof o->pinned, "%s", key_digest ? key_digest : "");
    snprintf(o->pinned_wasm, sizeof o->pinned_wasm, "%s", wasm_digest ? wasm_digest : "");
    o->jobs = jobs;
    for (size_t i = 0; i < m->s->n_dkeys; i++) {
        if (strcmp(m->s->dkeys[i].id, key_id) != 0) continue;
        memcpy(o->digest, m->s->dkeys[i].digest, sizeof o->digest);
        memcpy(o->wasm_digest, m->s->dkeys[i].wasm_digest, sizeof o->wasm_digest);
    }
}

/* The jobs waiting for one of this daemon's key ids that it cannot take:
 * kept for /v1/fleet and /metrics, and logged when they first appear. */
static void count_mismatches(zp_server *s) {
    list_keys(s, zp_clock_now());
    zp_store_key *keys = s->n_dkeys ? malloc(s->n_dkeys * sizeof *keys) : NULL;
    size_t n = 0;
    for (size_t i = 0; keys != NULL && i < s->n_dkeys; i++) {
        dispatch_key *k = &s->dkeys[i];
        zp_error err;
        if (server_key_pins(k->digest, k->wasm_digest, s, k->id, &err) != ZP_OK) continue;
        keys[n++] = (zp_store_key){k->id, k->digest[0] ? k->digest : NULL, k->wasm_digest[0] ? k->wasm_digest : NULL};
    }
    mismatch_ctx *m = calloc(1, sizeof *m);
    zp_error err;
    int counted = m != NULL;
    if (m != NULL && n > 0) {
        m->s = s;
        if (zp_store_mismatches(s->store, keys, n, mismatch_cb, m, &err) != ZP_OK) {
            note_error(s, &err);
            counted = 0;
        }
    }
    if (counted) {
        for (size_t i = 0; i < m->n; i++) {
            const key_mismatch *f = &m->found[i];
            int known = 0;
            pthread_mutex_lock(&s->lock);
            for (size_t k = 0; k < s->n_mismatches && !known; k++)
                known = strcmp(s->mismatches[k].key_id, f->key_id) == 0 &&
                        strcmp(s->mismatches[k].pinned, f->pinned) == 0 &&
                        strcmp(s->mismatches[k].pinned_wasm, f->pinned_wasm) == 0;
            pthread_mutex_unlock(&s->lock);
            if (!known)
                server_log(s, 0,
                           "key '%s': %llu jobs wait pinned to key %.16s%s%.16s, and this daemon has %.16s%s%.16s "
                           "under that id: it leaves them to a daemon with their key",
                           f->key_id, (unsigned long long)f->jobs, f->pinned, f->pinned_wasm[0] ? " circuit " : "",
                           f->pinned_wasm, f->digest[0] ? f->digest : "no readable key",
                           f->wasm_digest[0] ? " circuit " : "", f->wasm_digest);
        }
        pthread_mutex_lock(&s->lock);
        memcpy(s->mismatches, m->found, m->n * sizeof *m->found);
        s->n_mismatches = m->n;
        pthread_mutex_unlock(&s->lock);
    }
    free(m);
    free(keys);
}

size_t server_degraded(zp_server *s, char (*lines)[512], size_t max) {
    size_t n = 0;
    char why[512];
    pthread_mutex_lock(&s->lock);
    double limit = (double)s->cfg.degraded_after, now = zp_clock_now();
    double waited = server_pending_oldest(s, why, sizeof why);
    if (n < max && waited > limit)
        snprintf(lines[n++], sizeof *lines, "a result has waited %.0f s to be recorded in the store: %.400s", waited,
                 why);
    if (n < max && s->fleet_error_since > 0 && now - s->fleet_error_since > limit)
        snprintf(lines[n++], sizeof *lines, "the store has failed for %.0f s: %.400s", now - s->fleet_error_since,
                 s->fleet_error);
    if (n < max && fabs(s->clock_skew) > CLOCK_SKEW_WARN_S)
        snprintf(lines[n++], sizeof *lines, "this daemon's clock is %.1f s %s the store's", fabs(s->clock_skew),
                 s->clock_skew > 0 ? "ahead of" : "behind");
    pthread_mutex_unlock(&s->lock);
    return n;
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
            server_log(s, 1,
                       "job %lld partition %u: no longer this daemon's (its job ended, or another daemon took it"
                       " over): cancelled here",
                       (long long)held[i].job_id, held[i].idx);
            (void)zp_engine_cancel(s->engine, engine_ids[i], &err);
        }
    }
    free(held);
    free(engine_ids);
    free(lost);
}

/* The keys and their digests as the daemon claims by them, for its row. */
static char *keys_json(zp_server *s) {
    json_t *o = json_object();
    for (size_t i = 0; o != NULL && i < s->n_dkeys; i++) {
        const dispatch_key *k = &s->dkeys[i];
        if (k->digest[0] == '\0') continue;
        json_t *d = json_pack("{s:s}", "zkey", k->digest);
        if (d != NULL && k->wasm_digest[0]) json_object_set_new(d, "wasm", json_string(k->wasm_digest));
        if (d != NULL) json_object_set_new(o, k->id, d);
    }
    char *text = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(o);
    return text;
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
    me->clock_skew = s->clock_skew;
    pthread_mutex_unlock(&s->lock);
}

static void heartbeat(zp_server *s) {
    zp_store_node me;
    fill_node(&me, s);
    char *keys = keys_json(s);
    me.keys = keys;
    zp_error err;
    if (zp_store_heartbeat(s->store, &me, &err) != ZP_OK) note_error(s, &err);
    else clear_error(s);
    free(keys);
}

void *server_dispatch_main(void *arg) {
    zp_server *s = arg;
    double renew_every = (double)s->cfg.lease / 3;
    if (renew_every > RENEW_EVERY_S) renew_every = RENEW_EVERY_S;
    /* at start, before the first claim: the store's clock, and damage
     * an earlier run (or a hand) left */
    check_clock(s);
    repair_rows(s);
    double t0 = zp_clock_now();
    s->last_repair = s->last_mismatch = s->clock_checked ? s->clock_checked : t0;
    for (;;) {
        /* intervals on the monotonic clock: a wall clock set back must not
         * stop the renewals */
        double now = zp_clock_now();
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
        if (now - s->clock_checked >= CLOCK_EVERY_S) check_clock(s);
        if (now - s->last_repair >= REPAIR_EVERY_S) {
            s->last_repair = now;
            repair_rows(s);
        }
        if (now - s->last_mismatch >= MISMATCH_EVERY_S) {
            s->last_mismatch = now;
            count_mismatches(s);
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
    if (held != NULL && zp_store_release(s->store, s->node, held, n, &err) != ZP_OK)
        server_log(s, 0, "%s", err.message);
    else if (n) server_log(s, 1, "gave back %zu unfinished partitions to the queue", n);
    free(held);
    if (zp_store_leave(s->store, s->node, &err) != ZP_OK) server_log(s, 0, "%s", err.message);
    free(s->dkeys);
    s->dkeys = NULL;
    s->n_dkeys = 0;
}
