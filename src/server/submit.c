/* Accepting a job: its key (config keys, keys_dir), its witnesses checked
 * against the key, spooled and stored, queued for the dispatcher; the map
 * from claimed partitions to the engine's jobs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/error.h"
#include "io/wtns.h"
#include "server/internal.h"

/* ---- the active map (lock held) ---------------------------------------- */

int server_find_active(zp_server *s, uint64_t engine_id, active_part *out, int remove) {
    for (size_t i = 0; i < s->n_active; i++) {
        if (s->active[i].engine_id != engine_id) continue;
        if (out) *out = s->active[i];
        if (remove) { /* the engine is done with its file */
            if (s->active[i].fd >= 0) close(s->active[i].fd);
            free(s->active[i].file);
            s->active[i] = s->active[--s->n_active];
        }
        return 1;
    }
    return 0;
}

int server_add_active(zp_server *s, const zp_store_held *claim, uint64_t engine_id) {
    int fd = s->submit_fd;
    char *file = s->submit_file;
    s->submit_fd = -1;
    s->submit_file = NULL;
    if (s->n_active == s->cap_active) {
        size_t cap = s->cap_active ? 2 * s->cap_active : 64;
        active_part *grown = realloc(s->active, cap * sizeof *grown);
        if (grown == NULL) {
            if (fd >= 0) close(fd);
            free(file);
            return 0;
        }
        s->active = grown;
        s->cap_active = cap;
    }
    s->active[s->n_active++] = (active_part){*claim, engine_id, 0, fd, file, ""};
    return 1;
}

size_t server_cancel_local(zp_server *s, int64_t id) {
    size_t n = 0, cap = 0;
    uint64_t *ids = NULL;
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->n_active; i++) {
        if (s->active[i].claim.job_id != id) continue;
        if (n == cap) {
            size_t c = cap ? 2 * cap : 16;
            uint64_t *g = realloc(ids, c * sizeof *g);
            if (g == NULL) break;
            ids = g;
            cap = c;
        }
        s->active[i].lost = 1;
        ids[n++] = s->active[i].engine_id;
    }
    pthread_mutex_unlock(&s->lock);
    zp_error err;
    for (size_t i = 0; i < n; i++) (void)zp_engine_cancel(s->engine, ids[i], &err);
    free(ids);
    return n;
}

void server_wake_dispatch(zp_server *s) {
    pthread_mutex_lock(&s->lock);
    pthread_cond_broadcast(&s->wake_dispatch);
    pthread_mutex_unlock(&s->lock);
}

/* ---- keys -------------------------------------------------------------- */

static int valid_id(const char *id) {
    if (id == NULL || id[0] == '\0' || strlen(id) > 100 || id[0] == '.') return 0;
    for (const char *c = id; *c; c++) {
        if (!(*c == '-' || *c == '_' || *c == '.' || (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') ||
              (*c >= 'A' && *c <= 'Z'))) {
            return 0;
        }
    }
    return 1;
}

char *server_key_path(zp_server *s, const char *id, zp_error *err) {
    if (!valid_id(id)) {
        zp_error_set(err, ZP_ERR_ARG, "'%s' is not a key id (letters, digits, '-', '_', '.')", id ? id : "");
        return NULL;
    }
    for (size_t i = 0; i < s->cfg.n_keys; i++) {
        if (strcmp(s->cfg.keys[i].id, id) == 0) return strdup(s->cfg.keys[i].path);
    }
    if (s->cfg.keys_dir != NULL) {
        size_t len = strlen(s->cfg.keys_dir) + strlen(id) + 8;
        char *path = malloc(len);
        if (path == NULL) return NULL;
        snprintf(path, len, "%s/%s.zkey", s->cfg.keys_dir, id);
        struct stat sb;
        if (stat(path, &sb) == 0) return path;
        int broken = lstat(path, &sb) == 0;
        zp_error_set(err, ZP_ERR_ARG, "no key '%s' (%s %s)", id, path, broken ? "is a broken link" : "does not exist");
        free(path);
        return NULL;
    }
    zp_error_set(err, ZP_ERR_ARG, "no key '%s'", id);
    return NULL;
}

char *server_key_wasm(zp_server *s, const char *id) {
    for (size_t i = 0; i < s->cfg.n_keys; i++) {
        if (strcmp(s->cfg.keys[i].id, id) == 0) return s->cfg.keys[i].wasm ? strdup(s->cfg.keys[i].wasm) : NULL;
    }
    if (s->cfg.keys_dir == NULL || !valid_id(id)) return NULL;
    size_t len = strlen(s->cfg.keys_dir) + strlen(id) + 8;
    char *path = malloc(len);
    if (path == NULL) return NULL;
    snprintf(path, len, "%s/%s.wasm", s->cfg.keys_dir, id);
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) return path;
    free(path);
    return NULL;
}

/* ---- accepting a job --------------------------------------------------- */

static zp_status check_witnesses(const zp_engine_key_info *key, const char *key_id, const job_witness *w, size_t n,
                                 zp_error *err) {
    for (size_t i = 0; i < n; i++) {
        char name[64];
        snprintf(name, sizeof name, "witness %zu", i);
        /* in the buffer it arrived in: no copy of its values */
        zp_curve curve;
        size_t count;
        zp_status st = zp_wtns_check_mem(&curve, &count, w[i].bytes, w[i].size, name, err);
        if (st != ZP_OK) return st;
        if (curve != key->curve) {
            return zp_error_set(err, ZP_ERR_MISMATCH, "witness %zu is for curve %s but key '%s' is for %s", i,
                                zp_curve_name(curve), key_id, zp_curve_name(key->curve));
        }
        if (count != key->n_vars) {
            return zp_error_set(err, ZP_ERR_MISMATCH,
                                "witness %zu has %zu values but key '%s' has %u wires: it is for another circuit", i,
                                count, key_id, key->n_vars);
        }
    }
    return ZP_OK;
}

zp_status server_engine_submit(uint64_t *engine_id, zp_server *s, const zp_store_claim *claim, zp_error *err) {
    /* the row's path is data: the file is opened beneath the spool, and
     * the engine reads that descriptor's file, never the name as given */
    int fd;
    char rel[SPOOL_PATH_MAX], name[SPOOL_PATH_MAX + 64];
    zp_status st = server_spool_open(&fd, rel, s, claim->path, err);
    if (st != ZP_OK) return st;
    if (!server_spool_engine_name(name, sizeof name, s, fd, rel)) {
        close(fd);
        return zp_error_set(err, ZP_ERR_ARG, "spooled file '%.1024s': its path is too long", claim->path);
    }
    char *key_path = server_key_path(s, claim->key_id, err);
    if (key_path == NULL) {
        close(fd);
        return ZP_ERR_ARG;
    }
    const char *path = name;
    zp_job_spec spec = {.key_path = key_path, .partitions = 1, .priority = claim->priority};
    char *wasm = NULL;
    if (server_spooled_inputs(rel)) { /* the inputs: the key's circuit computes the witness */
        wasm = server_key_wasm(s, claim->key_id);
        if (wasm == NULL)
            st = zp_error_set(err, ZP_ERR_ARG, "its inputs need key '%s''s circuit, and this daemon has none",
                              claim->key_id);
        spec.wasm_path = wasm;
        spec.input_paths = &path;
    } else {
        spec.witness_paths = &path;
    }
    if (st == ZP_OK) st = zp_engine_submit(engine_id, s->engine, &spec, err);
    free(key_path);
    free(wasm);
    if (st == ZP_OK) { /* for the server_add_active that follows */
        if (s->submit_fd >= 0) close(s->submit_fd);
        free(s->submit_file);
        s->submit_fd = fd;
        s->submit_file = strdup(rel);
    } else {
        close(fd);
    }
    return st;
}

/* The key's dimensions, and whether one partition of it fits the budget
 * at all (else 422; a key that cannot be read: 422, or 500 when out of
 * memory). */
static zp_status key_fits(zp_engine_key_info *key, zp_server *s, const char *key_path, const char *key_id,
                          int *http_status, zp_error *err) {
    zp_status st = zp_engine_key_describe(key, s->engine, key_path, err);
    if (st != ZP_OK) {
        zp_error_prefix(err, "key '%s': ", key_id);
        *http_status = st == ZP_ERR_NOMEM ? 500 : 422;
        return st;
    }
    zp_engine_stats stats;
    zp_engine_stats_get(&stats, s->engine);
    uint64_t one = key->key_bytes + key->matrices_bytes + key->partition_bytes;
    if (one > stats.buffer_budget) {
        *http_status = 422;
        return zp_error_set(err, ZP_ERR_NOMEM,
                            "the memory budget (%llu bytes, %llu of them the daemon's own before any buffer) is too "
                            "small for one partition of key '%s': it needs at least %llu bytes for buffers, in memory "
                            "or with the key streamed (docs/architecture.md, \"Proofs larger than the budget\")",
                            (unsigned long long)stats.budget, (unsigned long long)(stats.budget - stats.buffer_budget),
                            key_id, (unsigned long long)key->least_bytes);
    }
    return ZP_OK;
}

/* Every queued partition holds spool space and a row: the queue has a
 * bound (else 429), over the whole store (a fleet's queue is one). */
static zp_status queue_room(zp_server *s, size_t n, int *http_status, zp_error *err) {
    zp_store_counts c;
    zp_status st = zp_store_count(&c, s->store, err);
    if (st != ZP_OK) {
        *http_status = 500;
        return st;
    }
    if (c.parts_queued + n <= s->cfg.max_queued) return ZP_OK;
    *http_status = 429;
    return zp_error_set(
        err, ZP_ERR_NOMEM,
        "the queue is full: %llu partitions wait and this job has %zu (max_queued %llu); try again later",
        (unsigned long long)c.parts_queued, n, (unsigned long long)s->cfg.max_queued);
}

/* A circuit the engine has loaded is checked against the key now (the
 * engine's own check, on its loaded module); one still compiling, or not
 * known to the engine yet, is not waited for: the job is accepted and
 * waits in the engine, which fails it then if the circuit does not fit. */
static zp_status check_circuit(zp_server *s, const char *key_path, const char *key_id, const char *wasm,
                               zp_error *err) {
    zp_circuit_state state;
    zp_status st = zp_engine_circuit_check(s->engine, key_path, wasm, &state, err);
    if (st != ZP_OK) zp_error_prefix(err, "key '%s': its circuit: ", key_id);
    return st;
}

/* A job whose files are in the spool: stored (durable) and queued, for
 * this daemon's dispatcher or any other daemon of the store to claim.
 * Nothing new accepted (an error, or a request id already known): the
 * spooled files are removed. */
static zp_status accept_spooled(int64_t *id, int *existing, size_t *queue_position, zp_server *s, const char *key_id,
                                int priority, const char *request_id, const char *request_digest, char **paths,
                                size_t n, int *http_status, zp_error *err) {
    zp_status st = ZP_OK;
    pthread_mutex_lock(&s->lock);
    int shutting_down = s->shutting_down;
    pthread_mutex_unlock(&s->lock);
    if (shutting_down) {
        st = zp_error_set(err, ZP_ERR_ARG, "the daemon is shutting down");
        *http_status = 503;
    }
    /* the job is pinned to this daemon's bytes for its key (and circuit,
     * for inputs): no daemon with other bytes under that id proves it */
    char pins[2][65];
    if (st == ZP_OK && (st = server_key_pins(pins[0], pins[1], s, key_id, err)) != ZP_OK) *http_status = 500;
    if (st == ZP_OK && server_spooled_inputs(paths[0]) && pins[1][0] == '\0') {
        st = zp_error_set(err, ZP_ERR_IO, "key '%s': its circuit cannot be read for its digest", key_id);
        *http_status = 500;
    }
    if (st == ZP_OK) {
        st = zp_store_add_job(id, existing, s->store, request_id, request_digest, key_id, pins[0],
                              server_spooled_inputs(paths[0]) ? pins[1] : NULL, priority, (uint32_t)n,
                              (const char *const *)paths, err);
        if (st != ZP_OK) *http_status = 500;
    }
    if (st != ZP_OK || *existing) { /* nothing new was accepted: the spool goes */
        for (size_t i = 0; i < n; i++) server_spool_remove(s, paths[i]);
    }
    if (st == ZP_OK && !*existing) {
        /* accepted and durable: the queue's to run */
        uint64_t position = 0;
        zp_error e2;
        if (zp_store_queue_position(&position, s->store, *id, &e2) != ZP_OK) server_log(s, 0, "%s", e2.message);
        *queue_position = (size_t)position;
        server_wake_dispatch(s);
    }
    return st;
}

int server_spooled_inputs(const char *path) {
    size_t len = strlen(path);
    return len > 5 && strcmp(path + len - 5, ".json") == 0;
}

zp_status server_submit(int64_t *id, int *existing, size_t *queue_position, zp_server *s, const char *key_id,
                        int priority, const char *request_id, const char *request_digest, const job_witness *w,
                        size_t n, int inputs, int *http_status, zp_error *err) {
    *existing = 0;
    *http_status = 400;
    char *key_path = server_key_path(s, key_id, err);
    if (key_path == NULL) {
        *http_status = 404;
        return ZP_ERR_ARG;
    }
    char *wasm = NULL;
    if (inputs && (wasm = server_key_wasm(s, key_id)) == NULL) {
        *http_status = 422;
        free(key_path);
        return zp_error_set(err, ZP_ERR_ARG,
                            "key '%s' has no circuit to compute witnesses from inputs: put %s.wasm beside %s.zkey in "
                            "keys_dir, or configure key %s=PATH wasm=PATH",
                            key_id, key_id, key_id, key_id);
    }
    zp_engine_key_info key;
    zp_status st = key_fits(&key, s, key_path, key_id, http_status, err);
    if (st == ZP_OK) st = queue_room(s, n, http_status, err);
    if (st != ZP_OK) {
        free(key_path);
        free(wasm);
        return st;
    }
    st = inputs ? check_circuit(s, key_path, key_id, wasm, err) : check_witnesses(&key, key_id, w, n, err);
    if (st != ZP_OK) {
        *http_status = st == ZP_ERR_IO ? 500 : 422;
        free(key_path);
        free(wasm);
        return st;
    }
    char **paths = calloc(n, sizeof *paths);
    if (paths == NULL) {
        free(key_path);
        free(wasm);
        *http_status = 500;
        return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    }
    st = server_spool(paths, s, w, n, inputs ? "json" : "wtns", http_status, err);
    if (st != ZP_OK) {
        if (*http_status != 507) *http_status = 500;
        free(paths);
        free(key_path);
        free(wasm);
        return st;
    }
    st = accept_spooled(id, existing, queue_position, s, key_id, priority, request_id, request_digest, paths, n,
                        http_status, err);
    for (size_t i = 0; i < n; i++) free(paths[i]);
    free(paths);
    free(key_path);
    free(wasm);
    return st;
}

zp_status server_upload_key(zp_engine_key_info *key, char **key_path, zp_server *s, const char *key_id,
                            int *http_status, zp_error *err) {
    *http_status = 404;
    *key_path = server_key_path(s, key_id, err);
    if (*key_path == NULL) return ZP_ERR_ARG;
    zp_status st = key_fits(key, s, *key_path, key_id, http_status, err);
    if (st != ZP_OK) {
        free(*key_path);
        *key_path = NULL;
    }
    return st;
}

zp_status server_submit_spooled(int64_t *id, int *existing, size_t *queue_position, zp_server *s, const char *key_id,
                                const char *key_path, int priority, const char *request_id, const char *request_digest,
                                char **paths, size_t n, int *http_status, zp_error *err) {
    *existing = 0;
    zp_status st = queue_room(s, n, http_status, err);
    if (st != ZP_OK) {
        for (size_t i = 0; i < n; i++) server_spool_remove(s, paths[i]);
        return st;
    }
    (void)key_path; /* checked by server_upload_key; the claim finds it again */
    return accept_spooled(id, existing, queue_position, s, key_id, priority, request_id, request_digest, paths, n,
                          http_status, err);
}
