/* The API's daemon-wide resources (docs/daemon.md): GET /v1/status and
 * /v1/status/history, and the keys (/v1/keys: list, load, evict). */
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
#include "base/error.h"
#include "server/internal.h"

/* ---- /v1/status -------------------------------------------------------- */

static json_t *counts_json(const zp_buffer_counts *c) {
    return json_pack("{s:I,s:I,s:I}", "count", (json_int_t)c->count, "bytes", (json_int_t)c->bytes, "peak",
                     (json_int_t)c->peak_bytes);
}

void route_get_status(zp_server *s, zp_response *resp) {
    zp_engine_stats st;
    zp_engine_stats_get(&st, s->engine);
    zp_store_counts stored;
    zp_error err;
    uint64_t *counts = stored.jobs;
    /* the store down (the database restarting, a disk gone) is no reason
     * to hide the daemon's own figures: zeros, and store.error says why */
    int counted = zp_store_count(&stored, s->store, &err) == ZP_OK;
    if (!counted) memset(&stored, 0, sizeof stored);
    /* the jobs as the store has them: a fleet's, all of them */
    uint64_t queued = counts[ZP_JOB_QUEUED], running = counts[ZP_JOB_RUNNING];
    pthread_mutex_lock(&s->lock);
    uint64_t n_pending = server_pending_jobs(s), commit_failures = s->commit_failures;
    char commit_error[sizeof s->commit_error];
    memcpy(commit_error, s->commit_error, sizeof commit_error);
    double commit_error_at = s->commit_error_at;
    uint64_t claimed = s->n_active, claims = s->claims, lost = s->leases_lost, refused = s->results_refused;
    char fleet_error[sizeof s->fleet_error];
    memcpy(fleet_error, s->fleet_error, sizeof fleet_error);
    double clock_skew = s->clock_skew;
    uint64_t repairs = s->repairs;
    pthread_mutex_unlock(&s->lock);
    char degraded[4][512];
    size_t n_degraded = server_degraded(s, degraded, 4);

    json_t *classes = json_object(), *stages = json_object();
    for (int c = 0; c < ZP_BUF_CLASSES; c++) {
        json_object_set_new(classes, zp_buffer_class_name((zp_buffer_class)c), counts_json(&st.by_class[c]));
    }
    for (int g = ZP_STAGE_SYNTH; g < ZP_STAGES; g++) {
        json_object_set_new(stages, zp_stage_name((zp_stage)g),
                            json_pack("{s:I,s:I,s:I,s:I}", "partitions", (json_int_t)st.partitions_in[g], "count",
                                      (json_int_t)st.by_stage[g].count, "bytes", (json_int_t)st.by_stage[g].bytes,
                                      "max_partitions", (json_int_t)st.max_partitions_in[g]));
    }
    json_t *o = json_pack("{s:s,s:f,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "version", "0.1.0", "uptime", st.uptime,
                          "budget", (json_int_t)st.budget, "buffer_budget", (json_int_t)st.buffer_budget, "reserved",
                          (json_int_t)st.reserved, "peak_reserved", (json_int_t)st.peak_reserved, "tracked",
                          (json_int_t)st.tracked, "peak_tracked", (json_int_t)st.peak_tracked, "rss",
                          (json_int_t)st.rss, "peak_rss", (json_int_t)st.peak_rss, "baseline_rss",
                          (json_int_t)st.baseline_rss, "tracked_at_rss", (json_int_t)st.tracked_at_rss);
    /* ok, or degraded with why: what an operator must look at */
    json_object_set_new(o, "status", json_string(n_degraded ? "degraded" : "ok"));
    if (n_degraded) {
        json_t *why = json_array();
        for (size_t i = 0; i < n_degraded; i++) json_array_append_new(why, json_string(degraded[i]));
        json_object_set_new(o, "degraded", why);
    }
    json_object_set_new(o, "classes", classes);
    json_object_set_new(o, "stages", stages);
    json_object_set_new(o, "admission_waiting", json_integer((json_int_t)st.admission_waiting));
    json_object_set_new(
        o, "workers",
        json_pack("{s:I,s:I,s:I,s:I}", "synth", (json_int_t)st.synth_workers, "prove", (json_int_t)st.prove_workers,
                  "finalize", (json_int_t)st.finalize_workers, "queue", (json_int_t)st.queue_capacity));
    json_object_set_new(o, "keys_loaded", json_integer((json_int_t)st.keys_loaded));
    json_object_set_new(
        o, "jobs",
        json_pack("{s:I,s:I,s:I,s:I,s:I}", "queued", (json_int_t)queued, "running", (json_int_t)running, "done",
                  (json_int_t)counts[2], "failed", (json_int_t)counts[3], "cancelled", (json_int_t)counts[4]));
    pthread_mutex_lock(&s->lock);
    json_object_set_new(o, "proofs", json_integer((json_int_t)s->proofs));
    pthread_mutex_unlock(&s->lock);
    json_object_set_new(o, "partitions_failed", json_integer((json_int_t)st.partitions_failed));
    /* the store's health: ended jobs whose record could not be written yet */
    json_t *store =
        json_pack("{s:I,s:I}", "commit_pending", (json_int_t)n_pending, "commit_failures", (json_int_t)commit_failures);
    if (commit_error_at > 0) {
        json_object_set_new(store, "last_error", json_string(commit_error));
        json_object_set_new(store, "last_error_at", json_real(commit_error_at));
    }
    json_object_set_new(store, "kind", json_string(zp_store_kind(s->store)));
    json_object_set_new(store, "node", json_string(s->node));
    json_object_set_new(store, "queued_partitions", json_integer((json_int_t)stored.parts_queued));
    json_object_set_new(store, "running_partitions", json_integer((json_int_t)stored.parts_running));
    json_object_set_new(store, "claimed", json_integer((json_int_t)claimed));
    json_object_set_new(store, "claims", json_integer((json_int_t)claims));
    json_object_set_new(store, "leases_lost", json_integer((json_int_t)lost));
    json_object_set_new(store, "results_refused", json_integer((json_int_t)refused));
    json_object_set_new(store, "clock_skew", json_real(clock_skew));
    json_object_set_new(store, "repairs", json_integer((json_int_t)repairs));
    if (!counted) json_object_set_new(store, "error", json_string(err.message));
    else if (fleet_error[0]) json_object_set_new(store, "error", json_string(fleet_error));
    json_object_set_new(o, "store", store);
    server_respond_json(resp, 200, o);
}

void route_get_history(zp_server *s, zp_response *resp) {
    json_t *arr = json_array();
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->history_len; i++) {
        const history_sample *h = &s->history[(s->history_head + i) % HISTORY];
        json_t *classes = json_object();
        for (int c = 0; c < ZP_BUF_CLASSES; c++) {
            json_object_set_new(classes, zp_buffer_class_name((zp_buffer_class)c),
                                json_integer((json_int_t)h->classes[c]));
        }
        json_array_append_new(arr, json_pack("{s:f,s:I,s:I,s:I,s:I,s:o}", "t", h->t, "rss", (json_int_t)h->rss,
                                             "tracked", (json_int_t)h->tracked, "reserved", (json_int_t)h->reserved,
                                             "budget", (json_int_t)h->budget, "classes", classes));
    }
    pthread_mutex_unlock(&s->lock);
    server_respond_json(resp, 200, json_pack("{s:i,s:o}", "interval", 1, "samples", arr));
}

/* ---- /v1/keys ---------------------------------------------------------- */

static json_t *key_json(const char *id, const char *path, const zp_engine_key_info *k) {
    json_t *o = json_pack("{s:s,s:s,s:b}", "id", id, "path", k ? k->path : path, "loaded", k ? k->loaded : 0);
    if (k) {
        json_object_set_new(o, "curve", json_string(zp_curve_name(k->curve)));
        json_object_set_new(o, "wires", json_integer(k->n_vars));
        json_object_set_new(o, "public", json_integer(k->n_public));
        json_object_set_new(o, "domain", json_integer(k->domain_size));
        json_object_set_new(o, "partitions_active", json_integer((json_int_t)k->partitions_active));
        json_object_set_new(o, "key_bytes", json_integer((json_int_t)k->key_bytes));
        json_object_set_new(o, "matrices_bytes", json_integer((json_int_t)k->matrices_bytes));
        json_object_set_new(o, "partition_bytes", json_integer((json_int_t)k->partition_bytes));
        json_object_set_new(o, "streamed", json_boolean(k->streamed));
        json_object_set_new(o, "window_bytes", json_integer((json_int_t)k->window_bytes));
    }
    return o;
}

/* The engine's record of a key path, if it knows it. */
static int known_key(zp_engine_key_info *out, zp_server *s, const char *path) {
    char real[PATH_MAX];
    if (realpath(path, real) == NULL) return 0;
    zp_engine_key_info keys[64];
    size_t n = zp_engine_keys(keys, 64, s->engine);
    for (size_t i = 0; i < n && i < 64; i++) {
        if (strcmp(keys[i].path, real) == 0) {
            *out = keys[i];
            return 1;
        }
    }
    return 0;
}

/* One key of the listing: what the engine knows of it, or a fresh look
 * (a key that cannot be read says why). */
static json_t *listed_key(zp_server *s, const char *id, const char *path) {
    zp_engine_key_info info;
    zp_error err;
    json_t *o;
    if (known_key(&info, s, path) || zp_engine_key_describe(&info, s->engine, path, &err) == ZP_OK) {
        o = key_json(id, path, &info);
    } else {
        o = key_json(id, path, NULL);
        json_object_set_new(o, "error", json_string(err.message));
    }
    char *wasm = server_key_wasm(s, id); /* its circuit: jobs may give inputs */
    if (wasm) {
        static const char *const names[] = {"unknown", "compiling", "ready", "failed"};
        zp_circuit_state state;
        zp_status st = zp_engine_circuit_check(s->engine, path, wasm, &state, &err);
        json_object_set_new(o, "circuit", json_string(wasm));
        json_object_set_new(o, "circuit_state", json_string(st == ZP_OK ? names[state] : "failed"));
        if (st != ZP_OK) json_object_set_new(o, "circuit_error", json_string(err.message));
    }
    free(wasm);
    return o;
}

void route_list_keys(zp_server *s, zp_response *resp) {
    json_t *arr = json_array();
    for (size_t i = 0; i < s->cfg.n_keys; i++) {
        json_array_append_new(arr, listed_key(s, s->cfg.keys[i].id, s->cfg.keys[i].path));
    }
    if (s->cfg.keys_dir) {
        DIR *d = opendir(s->cfg.keys_dir);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            size_t len = strlen(e->d_name);
            if (len <= 5 || strcmp(e->d_name + len - 5, ".zkey") != 0 || e->d_name[0] == '.') continue;
            char id[256], path[PATH_MAX];
            snprintf(id, sizeof id, "%.*s", (int)(len - 5), e->d_name);
            snprintf(path, sizeof path, "%s/%s", s->cfg.keys_dir, e->d_name);
            json_array_append_new(arr, listed_key(s, id, path));
        }
        if (d) closedir(d);
    }
    server_respond_json(resp, 200, json_pack("{s:o}", "keys", arr));
}

void route_key_action(zp_server *s, const char *method, const char *id, zp_response *resp) {
    zp_error err;
    char *path = server_key_path(s, id, &err);
    if (path == NULL) {
        server_respond_error(resp, 404, "not_found", "%s", err.message);
        return;
    }
    zp_status st = ZP_OK;
    int status = 200;
    if (strcmp(method, "POST") == 0) {
        st = zp_engine_key_preload(s->engine, path, &err);
        if (st != ZP_OK) status = st == ZP_ERR_NOMEM ? 507 : st == ZP_ERR_IO ? 404 : 422;
    } else if (strcmp(method, "DELETE") == 0) {
        st = zp_engine_key_evict(s->engine, path, &err);
        if (st != ZP_OK) status = strstr(err.message, "in use") ? 409 : 404;
    } else if (strcmp(method, "GET") != 0) {
        free(path);
        server_respond_error(resp, 405, "method_not_allowed", "%s is not allowed on /v1/keys/{id}", method);
        return;
    }
    if (st != ZP_OK) {
        free(path);
        server_respond_error(resp, status, status == 507 ? "spool_full" : server_error_code(status), "key '%s': %s", id,
                             err.message);
        return;
    }
    zp_engine_key_info info;
    int known = known_key(&info, s, path);
    json_t *o = key_json(id, path, known ? &info : NULL);
    free(path);
    server_respond_json(resp, 200, o);
}

/* ---- /v1/fleet --------------------------------------------------------- */

static void node_cb(void *arg, const zp_store_node *n) {
    json_t *arr = arg;
    json_t *o = json_pack("{s:s,s:s,s:I,s:f,s:f,s:I,s:I,s:I,s:I,s:f}", "id", n->id, "host", n->host, "pid",
                          (json_int_t)n->pid, "started", n->started, "heartbeat_age", n->heartbeat_age, "budget",
                          (json_int_t)n->budget, "tracked", (json_int_t)n->tracked, "claimed", (json_int_t)n->claimed,
                          "proofs", (json_int_t)n->proofs, "clock_skew", n->clock_skew);
    /* the keys it claims by: another daemon's row, read as data */
    json_t *keys = n->keys ? json_loads(n->keys, 0, NULL) : NULL;
    json_object_set_new(o, "keys", json_is_object(keys) ? keys : json_object());
    if (keys != NULL && !json_is_object(keys)) json_decref(keys);
    json_array_append_new(arr, o);
}

void route_get_fleet(zp_server *s, zp_response *resp) {
    zp_store_counts c;
    zp_error err;
    json_t *nodes = json_array();
    if (zp_store_count(&c, s->store, &err) != ZP_OK || zp_store_nodes(s->store, node_cb, nodes, &err) != ZP_OK) {
        json_decref(nodes);
        server_respond_error(resp, 500, "internal", "%s", err.message);
        return;
    }
    json_t *o = json_pack("{s:s,s:s,s:b,s:I,s:o}", "store", zp_store_kind(s->store), "node", s->node, "shared",
                          zp_store_shared(s->store), "lease", (json_int_t)s->cfg.lease, "daemons", nodes);
    json_object_set_new(
        o, "queue",
        json_pack("{s:I,s:I,s:I,s:I}", "queued_partitions", (json_int_t)c.parts_queued, "running_partitions",
                  (json_int_t)c.parts_running, "queued_jobs", (json_int_t)c.jobs[ZP_JOB_QUEUED], "running_jobs",
                  (json_int_t)c.jobs[ZP_JOB_RUNNING]));
    /* jobs waiting for this daemon's key ids that it cannot take: pinned
     * to other bytes than it has under those ids, one entry per key */
    json_t *mism = json_array();
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->n_mismatches; i++) {
        const key_mismatch *m = &s->mismatches[i];
        json_t *e = NULL;
        for (size_t k = 0; k < json_array_size(mism) && e == NULL; k++) {
            json_t *x = json_array_get(mism, k);
            if (strcmp(json_string_value(json_object_get(x, "key")), m->key_id) == 0) e = x;
        }
        if (e == NULL) {
            e = json_pack("{s:s,s:s,s:s,s:[],s:[],s:I}", "key", m->key_id, "digest", m->digest, "wasm_digest",
                          m->wasm_digest, "pinned", "pinned_wasm", "jobs", (json_int_t)0);
            json_array_append_new(mism, e);
        }
        json_array_append_new(json_object_get(e, "pinned"), json_string(m->pinned));
        json_array_append_new(json_object_get(e, "pinned_wasm"), json_string(m->pinned_wasm));
        json_object_set_new(e, "jobs",
                            json_integer(json_integer_value(json_object_get(e, "jobs")) + (json_int_t)m->jobs));
    }
    pthread_mutex_unlock(&s->lock);
    json_object_set_new(o, "key_mismatch", mism);
    server_respond_json(resp, 200, o);
}
