/* The daemon's lifecycle and its jobs: accepting (spool, store, engine),
 * resuming after a restart, and recording how each job ended (the
 * collector thread), plus the sampler that keeps the status history. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/error.h"
#include "base/random.h"
#include "groth16/groth16.h"
#include "io/json.h"
#include "io/wtns.h"
#include "server/internal.h"

static void logf_(const zp_server *s, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void logf_(const zp_server *s, int level, const char *fmt, ...) {
    if (level > s->cfg.log_level) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("zkpipe serve: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* ---- the active map (lock held) ---------------------------------------- */

uint64_t server_engine_id(zp_server *s, int64_t id) {
    for (size_t i = 0; i < s->n_active; i++) {
        if (s->active[i].id == id) return s->active[i].engine_id;
    }
    return 0;
}

static int64_t store_id_of(zp_server *s, uint64_t engine_id, int remove) {
    for (size_t i = 0; i < s->n_active; i++) {
        if (s->active[i].engine_id == engine_id) {
            int64_t id = s->active[i].id;
            if (remove) s->active[i] = s->active[--s->n_active];
            return id;
        }
    }
    return 0;
}

static int add_active(zp_server *s, int64_t id, uint64_t engine_id) {
    if (s->n_active == s->cap_active) {
        size_t cap = s->cap_active ? 2 * s->cap_active : 64;
        active_job *grown = realloc(s->active, cap * sizeof *grown);
        if (grown == NULL) return 0;
        s->active = grown;
        s->cap_active = cap;
    }
    s->active[s->n_active++] = (active_job){id, engine_id};
    return 1;
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

/* ---- the spool --------------------------------------------------------- */

static zp_status write_synced(const char *path, const void *data, size_t size, zp_error *err) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return zp_error_set(err, ZP_ERR_IO, "%s: %s", path, strerror(errno));
    const unsigned char *p = data;
    size_t left = size;
    while (left > 0) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int e = errno;
            close(fd);
            unlink(path);
            return zp_error_set(err, e == ENOSPC || e == EDQUOT ? ZP_ERR_NOMEM : ZP_ERR_IO, "%s: %s", path,
                                strerror(e));
        }
        p += n;
        left -= (size_t)n;
    }
    if (fsync(fd) != 0) {
        int e = errno;
        close(fd);
        unlink(path);
        return zp_error_set(err, e == ENOSPC ? ZP_ERR_NOMEM : ZP_ERR_IO, "%s: %s", path, strerror(e));
    }
    close(fd);
    return ZP_OK;
}

static void sync_dir(const char *path) {
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

static void remove_spooled(void *arg, const char *path) {
    zp_server *s = arg;
    struct stat sb;
    if (stat(path, &sb) == 0) {
        pthread_mutex_lock(&s->lock);
        s->spool_bytes -= (uint64_t)sb.st_size < s->spool_bytes ? (uint64_t)sb.st_size : s->spool_bytes;
        pthread_mutex_unlock(&s->lock);
    }
    unlink(path);
    char *dir = strdup(path), *slash = dir ? strrchr(dir, '/') : NULL;
    if (slash) {
        *slash = '\0';
        rmdir(dir); /* once its last file is gone */
    }
    free(dir);
}

static uint64_t dir_bytes(const char *path) {
    DIR *d = opendir(path);
    if (d == NULL) return 0;
    uint64_t total = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        struct stat sb;
        if (lstat(sub, &sb) != 0) continue;
        total += S_ISDIR(sb.st_mode) ? dir_bytes(sub) : (uint64_t)sb.st_size;
    }
    closedir(d);
    return total;
}

/* Writes the witnesses to a fresh spool directory, synced; paths[i] are
 * malloc'd. */
static zp_status spool(char **paths, zp_server *s, const job_witness *w, size_t n, int *http_status, zp_error *err) {
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) total += w[i].size;
    uint32_t rnd = 0;
    zp_error ignored;
    if (zp_random_bytes(&rnd, sizeof rnd, &ignored) != ZP_OK) rnd = (uint32_t)time(NULL);
    pthread_mutex_lock(&s->lock);
    if (s->cfg.spool_max && s->spool_bytes + total > s->cfg.spool_max) {
        pthread_mutex_unlock(&s->lock);
        *http_status = 507;
        return zp_error_set(err, ZP_ERR_NOMEM, "the witness spool is full (%llu of %llu bytes used, %llu more needed)",
                            (unsigned long long)s->spool_bytes, (unsigned long long)s->cfg.spool_max,
                            (unsigned long long)total);
    }
    s->spool_bytes += total;
    uint64_t seq = ++s->spool_seq;
    pthread_mutex_unlock(&s->lock);

    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%lld-%llu-%08x", s->spool_dir, (long long)time(NULL), (unsigned long long)seq, rnd);
    zp_status st = ZP_OK;
    if (mkdir(dir, 0700) != 0) st = zp_error_set(err, ZP_ERR_IO, "%s: %s", dir, strerror(errno));
    size_t written = 0;
    for (; st == ZP_OK && written < n; written++) {
        size_t len = strlen(dir) + 32;
        paths[written] = malloc(len);
        if (paths[written] == NULL) {
            st = zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
            break;
        }
        snprintf(paths[written], len, "%s/%zu.wtns", dir, written);
        st = write_synced(paths[written], w[written].bytes, w[written].size, err);
        if (st != ZP_OK) {
            free(paths[written]);
            paths[written] = NULL;
            break;
        }
    }
    if (st == ZP_OK) {
        sync_dir(dir);
        sync_dir(s->spool_dir);
        return ZP_OK;
    }
    if (st == ZP_ERR_NOMEM) *http_status = 507;
    for (size_t i = 0; i < written; i++) {
        unlink(paths[i]);
        free(paths[i]);
        paths[i] = NULL;
    }
    rmdir(dir);
    pthread_mutex_lock(&s->lock);
    s->spool_bytes -= total;
    pthread_mutex_unlock(&s->lock);
    if (*http_status == 507) zp_error_prefix(err, "the witness spool is full: ");
    return st;
}

/* ---- accepting a job --------------------------------------------------- */

static zp_status check_witnesses(const zp_engine_key_info *key, const char *key_id, const job_witness *w, size_t n,
                                 zp_error *err) {
    for (size_t i = 0; i < n; i++) {
        char name[64];
        snprintf(name, sizeof name, "witness %zu", i);
        zp_wtns *wt;
        zp_status st = zp_wtns_open_mem(&wt, w[i].bytes, w[i].size, name, err);
        if (st != ZP_OK) return st;
        zp_curve curve = zp_wtns_curve(wt);
        size_t count = zp_wtns_count(wt);
        zp_wtns_close(wt);
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

static zp_status engine_submit(uint64_t *engine_id, zp_server *s, const char *key_path, int priority,
                               const char *const *paths, size_t n, zp_error *err) {
    zp_job_spec spec = {key_path, n, paths, NULL, NULL, priority};
    return zp_engine_submit(engine_id, s->engine, &spec, err);
}

zp_status server_submit(int64_t *id, int *existing, size_t *queue_position, zp_server *s, const char *key_id,
                        int priority, const char *request_id, const job_witness *w, size_t n, int *http_status,
                        zp_error *err) {
    *existing = 0;
    *http_status = 400;
    char *key_path = server_key_path(s, key_id, err);
    if (key_path == NULL) {
        *http_status = 404;
        return ZP_ERR_ARG;
    }
    zp_engine_key_info key;
    zp_status st = zp_engine_key_describe(&key, s->engine, key_path, err);
    if (st != ZP_OK) {
        zp_error_prefix(err, "key '%s': ", key_id);
        *http_status = st == ZP_ERR_NOMEM ? 500 : 422;
        free(key_path);
        return st;
    }
    zp_engine_stats stats;
    zp_engine_stats_get(&stats, s->engine);
    uint64_t one = key.key_bytes + key.matrices_bytes + key.partition_bytes;
    if (one > stats.budget) {
        *http_status = 422;
        free(key_path);
        return zp_error_set(err, ZP_ERR_NOMEM,
                            "the memory budget (%llu bytes) is too small for one partition of key '%s' (%llu bytes)",
                            (unsigned long long)stats.budget, key_id, (unsigned long long)one);
    }
    st = check_witnesses(&key, key_id, w, n, err);
    if (st != ZP_OK) {
        *http_status = 422;
        free(key_path);
        return st;
    }
    char **paths = calloc(n, sizeof *paths);
    if (paths == NULL) {
        free(key_path);
        *http_status = 500;
        return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    }
    st = spool(paths, s, w, n, http_status, err);
    if (st != ZP_OK) {
        if (*http_status != 507) *http_status = 500;
        free(paths);
        free(key_path);
        return st;
    }
    pthread_mutex_lock(&s->lock);
    int shutting_down = s->shutting_down;
    pthread_mutex_unlock(&s->lock);
    if (shutting_down) {
        st = zp_error_set(err, ZP_ERR_ARG, "the daemon is shutting down");
        *http_status = 503;
    }
    if (st == ZP_OK) {
        st = zp_store_add_job(id, existing, s->store, request_id, key_id, priority, (uint32_t)n,
                              (const char *const *)paths, zp_clock_wall(), err);
        if (st != ZP_OK) *http_status = 500;
    }
    if (st != ZP_OK || *existing) { /* nothing new was accepted: the spool goes */
        for (size_t i = 0; i < n; i++) remove_spooled(s, paths[i]);
    }
    if (st == ZP_OK && !*existing) {
        *queue_position = stats.admission_waiting;
        uint64_t engine_id;
        /* accepted and durable: from here the job is ours to finish */
        pthread_mutex_lock(&s->lock);
        zp_status est = engine_submit(&engine_id, s, key_path, priority, (const char *const *)paths, n, err);
        if (est == ZP_OK && !add_active(s, *id, engine_id)) est = zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
        pthread_mutex_unlock(&s->lock);
        if (est != ZP_OK) { /* the key broke meanwhile: the job fails, recorded */
            zp_error e2;
            if (zp_store_finish_job(s->store, *id, "failed", err->message, zp_clock_wall(), NULL, 0, &e2) != ZP_OK) {
                logf_(s, 0, "job %lld: %s", (long long)*id, e2.message);
            }
        }
    }
    for (size_t i = 0; i < n; i++) free(paths[i]);
    free(paths);
    free(key_path);
    return st;
}

/* ---- the collector: how jobs ended, into the store ---------------------- */

static void record(zp_server *s, uint64_t engine_id) {
    pthread_mutex_lock(&s->lock);
    int64_t id = store_id_of(s, engine_id, 0);
    pthread_mutex_unlock(&s->lock);
    if (id == 0) return;
    zp_error err;
    zp_job_info info;
    if (zp_engine_job(&info, s->engine, engine_id, 0, &err) != ZP_OK) return;
    size_t n = info.partitions;
    zp_store_result *results = calloc(n, sizeof *results);
    zp_partition_times *times = calloc(n, sizeof *times);
    char **texts = calloc(2 * n, sizeof *texts);
    const char *state = info.state == ZP_JOB_DONE ? "done" : info.state == ZP_JOB_FAILED ? "failed" : "cancelled";
    zp_status st = results && times && texts ? ZP_OK : zp_error_set(&err, ZP_ERR_NOMEM, "out of memory");
    for (size_t i = 0; st == ZP_OK && i < n; i++) {
        if (zp_engine_partition_times(&times[i], s->engine, engine_id, i, &err) != ZP_OK) continue;
        results[i].times = times[i];
        if (info.state != ZP_JOB_DONE) continue;
        zp_groth16_proof proof;
        uint64_t pub[4 * 64], *pubs = pub;
        size_t np = 0;
        st = zp_engine_proof(&proof, NULL, 0, &np, s->engine, engine_id, i, &err);
        if (st == ZP_OK && np > 64) pubs = malloc(np * ZP_SCALAR_BYTES);
        if (st == ZP_OK && pubs == NULL) st = zp_error_set(&err, ZP_ERR_NOMEM, "out of memory");
        if (st == ZP_OK) st = zp_engine_proof(&proof, pubs, np, &np, s->engine, engine_id, i, &err);
        if (st == ZP_OK) st = zp_json_proof_dump(&texts[2 * i], &proof, &err);
        if (st == ZP_OK) st = zp_json_public_dump(&texts[2 * i + 1], pubs, np, &err);
        if (pubs != pub) free(pubs);
        results[i].proof_json = texts[2 * i];
        results[i].public_json = texts[2 * i + 1];
    }
    if (st == ZP_OK) {
        const char *why = info.state == ZP_JOB_DONE ? "" : info.state == ZP_JOB_FAILED ? info.error.message : "cancelled";
        st = zp_store_finish_job(s->store, id, state, why, zp_clock_wall(), results, (uint32_t)n, &err);
    }
    if (st == ZP_OK) {
        zp_error e2;
        if (zp_store_witness_paths(s->store, id, remove_spooled, s, &e2) != ZP_OK) logf_(s, 0, "%s", e2.message);
        logf_(s, 1, "job %lld %s%s%s", (long long)id, state, info.state == ZP_JOB_FAILED ? ": " : "",
              info.state == ZP_JOB_FAILED ? info.error.message : "");
    } else {
        /* not recorded: the job stays queued in the store and runs again
         * after a restart; its result here is dropped */
        logf_(s, 0, "job %lld: could not record its end: %s", (long long)id, err.message);
    }
    pthread_mutex_lock(&s->lock);
    store_id_of(s, engine_id, 1);
    if (st == ZP_OK) {
        s->outcomes[info.state == ZP_JOB_DONE ? 0 : info.state == ZP_JOB_FAILED ? 1 : 2]++;
        if (info.state == ZP_JOB_DONE) {
            s->proofs += n;
            server_metrics_job(s, times, n);
        }
    }
    pthread_cond_broadcast(&s->ended);
    pthread_mutex_unlock(&s->lock);
    zp_engine_forget(s->engine, engine_id);
    for (size_t i = 0; texts && i < 2 * n; i++) free(texts[i]);
    free(texts);
    free(times);
    free(results);
}

static void *collector_main(void *arg) {
    zp_server *s = arg;
    for (;;) {
        pthread_mutex_lock(&s->lock);
        int stop = s->stop_threads;
        pthread_mutex_unlock(&s->lock);
        if (stop) break;
        uint64_t engine_id;
        if (zp_engine_next_ended(&engine_id, s->engine, 0.25)) record(s, engine_id);
    }
    return NULL;
}

/* ---- the sampler: history for the dashboard, expiry -------------------- */

static void expired_path(void *arg, const char *path) { remove_spooled(arg, path); }

static void *sampler_main(void *arg) {
    zp_server *s = arg;
    pthread_mutex_lock(&s->lock);
    while (!s->stop_threads) {
        pthread_mutex_unlock(&s->lock);
        zp_engine_stats st;
        zp_engine_stats_get(&st, s->engine);
        history_sample h = {zp_clock_wall(), st.rss, st.tracked, st.reserved, st.budget, {0}};
        for (int c = 0; c < ZP_BUF_CLASSES; c++) h.classes[c] = st.by_class[c].bytes;
        /* request bodies and witness copies are freed in the HTTP threads'
         * malloc arenas, which glibc keeps: hand that memory back, so RSS
         * follows the tracked buffers */
        malloc_trim(0);
        int expire = h.t - s->last_expire > 3600;
        if (expire) {
            uint64_t deleted = 0;
            zp_error err;
            if (zp_store_expire(&deleted, s->store, h.t - (double)s->cfg.result_ttl, expired_path, s, &err) != ZP_OK) {
                logf_(s, 0, "%s", err.message);
            }
            s->last_expire = h.t;
        }
        pthread_mutex_lock(&s->lock);
        s->history[(s->history_head + s->history_len) % HISTORY] = h;
        if (s->history_len < HISTORY) s->history_len++;
        else s->history_head = (s->history_head + 1) % HISTORY;
        struct timespec ts = zp_clock_deadline(1.0);
        pthread_cond_timedwait(&s->ended, &s->lock, &ts);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* ---- start and stop ---------------------------------------------------- */

typedef struct resume_ctx {
    zp_server *s;
    size_t resumed, failed;
} resume_ctx;

static void resume(void *arg, const zp_store_job *job, const char *const *paths) {
    resume_ctx *r = arg;
    zp_server *s = r->s;
    zp_error err;
    uint64_t engine_id;
    char *key_path = server_key_path(s, job->key_id, &err);
    zp_status st = key_path ? ZP_OK : ZP_ERR_ARG;
    if (st == ZP_OK) st = engine_submit(&engine_id, s, key_path, job->priority, paths, job->partitions, &err);
    free(key_path);
    if (st == ZP_OK) {
        pthread_mutex_lock(&s->lock);
        if (!add_active(s, job->id, engine_id)) st = zp_error_set(&err, ZP_ERR_NOMEM, "out of memory");
        pthread_mutex_unlock(&s->lock);
    }
    if (st == ZP_OK) {
        r->resumed++;
        return;
    }
    r->failed++;
    zp_error e2;
    if (zp_store_finish_job(s->store, job->id, "failed", err.message, zp_clock_wall(), NULL, 0, &e2) != ZP_OK) {
        logf_(s, 0, "job %lld: %s", (long long)job->id, e2.message);
    }
}

static char *copy_or_null(const char *s) { return s ? strdup(s) : NULL; }

static zp_status copy_config(zp_server_config *dst, const zp_server_config *src) {
    *dst = *src;
    dst->listen = copy_or_null(src->listen);
    dst->unix_socket = copy_or_null(src->unix_socket);
    dst->data_dir = copy_or_null(src->data_dir);
    dst->keys_dir = copy_or_null(src->keys_dir);
    dst->witness_dir = copy_or_null(src->witness_dir);
    dst->token = copy_or_null(src->token);
    dst->trace = copy_or_null(src->trace);
    dst->keys = src->n_keys ? calloc(src->n_keys, sizeof *dst->keys) : NULL;
    for (size_t i = 0; dst->keys && i < src->n_keys; i++) {
        dst->keys[i].id = strdup(src->keys[i].id);
        dst->keys[i].path = strdup(src->keys[i].path);
    }
    return ZP_OK;
}

static void engine_log(void *arg, const char *line) {
    (void)arg;
    fprintf(stderr, "zkpipe serve: %s\n", line);
}

zp_status zp_server_start(zp_server **out, const zp_server_config *cfg, zp_error *err) {
    *out = NULL;
    zp_server *s = calloc(1, sizeof *s);
    if (s == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    copy_config(&s->cfg, cfg);
    s->unix_fd = -1;
    s->started = zp_clock_wall();
    s->last_expire = 0;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->ended, NULL);

    zp_status st = ZP_OK;
    if (mkdir(s->cfg.data_dir, 0700) != 0 && errno != EEXIST) {
        st = zp_error_set(err, ZP_ERR_IO, "data_dir %s: %s", s->cfg.data_dir, strerror(errno));
    }
    size_t len = strlen(s->cfg.data_dir) + 32;
    char *db = malloc(len);
    s->spool_dir = malloc(len);
    if (st == ZP_OK && (db == NULL || s->spool_dir == NULL)) st = zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    if (st == ZP_OK) {
        snprintf(db, len, "%s/zkpipe.db", s->cfg.data_dir);
        snprintf(s->spool_dir, len, "%s/spool", s->cfg.data_dir);
        if (mkdir(s->spool_dir, 0700) != 0 && errno != EEXIST) {
            st = zp_error_set(err, ZP_ERR_IO, "%s: %s", s->spool_dir, strerror(errno));
        }
        s->spool_bytes = dir_bytes(s->spool_dir);
    }
    if (st == ZP_OK) st = zp_store_open(&s->store, db, err);
    free(db);
    if (st == ZP_OK) {
        zp_engine_options opt = {0};
        opt.budget = s->cfg.budget;
        opt.synth_workers = s->cfg.synth_workers;
        opt.prove_workers = s->cfg.prove_workers;
        opt.finalize_workers = s->cfg.finalize_workers;
        opt.prove_threads = s->cfg.threads;
        opt.queue_capacity = s->cfg.queue;
        opt.trace_path = s->cfg.trace;
        opt.report_ended = 1;
        if (s->cfg.log_level >= 2) opt.log = engine_log;
        st = zp_engine_create(&s->engine, &opt, err);
    }
    if (st == ZP_OK) { /* jobs accepted before a stop or a crash */
        resume_ctx r = {s, 0, 0};
        st = zp_store_unfinished(s->store, resume, &r, err);
        if (r.resumed || r.failed) logf_(s, 1, "resumed %zu unfinished jobs (%zu could not be)", r.resumed, r.failed);
    }
    if (st == ZP_OK) {
        if (pthread_create(&s->collector, NULL, collector_main, s) != 0) {
            st = zp_error_set(err, ZP_ERR_INTERNAL, "could not start a thread");
        } else if (pthread_create(&s->sampler, NULL, sampler_main, s) != 0) {
            pthread_mutex_lock(&s->lock);
            s->stop_threads = 1;
            pthread_mutex_unlock(&s->lock);
            pthread_join(s->collector, NULL);
            st = zp_error_set(err, ZP_ERR_INTERNAL, "could not start a thread");
        } else {
            s->threads_started = 1;
        }
    }
    if (st == ZP_OK) st = server_http_start(s, err);
    if (st != ZP_OK) {
        zp_server_stop(s);
        return st;
    }
    *out = s;
    return ZP_OK;
}

int zp_server_port(const zp_server *s) { return s->port; }

void zp_server_stop(zp_server *s) {
    if (s == NULL) return;
    pthread_mutex_lock(&s->lock);
    s->shutting_down = 1;
    pthread_cond_broadcast(&s->ended); /* long polls answer now */
    pthread_mutex_unlock(&s->lock);
    if (s->engine) {
        /* no new partitions; those running may finish within the grace */
        zp_engine_pause(s->engine, 1);
        double deadline = zp_clock_wall() + (double)s->cfg.shutdown_grace;
        for (;;) {
            zp_engine_stats st;
            zp_engine_stats_get(&st, s->engine);
            size_t in_flight = 0;
            for (int g = ZP_STAGE_SYNTH; g < ZP_STAGE_DEALLOC; g++) in_flight += st.partitions_in[g];
            pthread_mutex_lock(&s->lock);
            size_t active = s->n_active;
            pthread_mutex_unlock(&s->lock);
            if (in_flight == 0 || active == 0 || zp_clock_wall() >= deadline) break;
            usleep(50000);
        }
        usleep(300000); /* the collector records what just ended */
    }
    server_http_stop(s);
    if (s->threads_started) {
        pthread_mutex_lock(&s->lock);
        s->stop_threads = 1;
        pthread_cond_broadcast(&s->ended);
        pthread_mutex_unlock(&s->lock);
        pthread_join(s->collector, NULL);
        pthread_join(s->sampler, NULL);
    }
    /* what is left stays queued in the store, and runs at the next start */
    zp_engine_destroy(s->engine);
    zp_store_close(s->store);
    free(s->spool_dir);
    free(s->active);
    zp_server_config_free(&s->cfg);
    pthread_cond_destroy(&s->ended);
    pthread_mutex_destroy(&s->lock);
    free(s);
}
