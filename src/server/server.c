/* The daemon's lifecycle: start (data_dir, store, engine, resume, the
 * collector and sampler threads, HTTP) and a graceful stop; the sampler
 * thread that keeps the status history and expires old jobs; the log. */
#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/digest.h"
#include "base/error.h"
#include "server/internal.h"

void server_log(const zp_server *s, int level, const char *fmt, ...) {
    if (level > s->cfg.log_level) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("zkpipe serve: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* ---- the sampler: history for the dashboard, expiry -------------------- */

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
        /* at start, then hourly (the monotonic clock's); what is old is
         * the store's clock's to say, never this daemon's */
        double now = zp_clock_now();
        if (s->last_expire == 0 || now - s->last_expire > 3600) {
            uint64_t deleted = 0;
            zp_error err;
            if (zp_store_expire(&deleted, s->store, (double)s->cfg.result_ttl, server_spool_remove, s, &err) != ZP_OK) {
                server_log(s, 0, "%s", err.message);
            }
            s->last_expire = now;
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

static char *copy_or_null(const char *s) { return s ? strdup(s) : NULL; }

static zp_status copy_config(zp_server_config *dst, const zp_server_config *src) {
    *dst = *src;
    dst->listen = copy_or_null(src->listen);
    dst->unix_socket = copy_or_null(src->unix_socket);
    dst->data_dir = copy_or_null(src->data_dir);
    dst->keys_dir = copy_or_null(src->keys_dir);
    dst->witness_dir = copy_or_null(src->witness_dir);
    dst->store = copy_or_null(src->store);
    dst->spool_dir = copy_or_null(src->spool_dir);
    dst->node = copy_or_null(src->node);
    dst->token = copy_or_null(src->token);
    dst->allowed_hosts = copy_or_null(src->allowed_hosts);
    dst->allowed_origins = copy_or_null(src->allowed_origins);
    dst->trace = copy_or_null(src->trace);
    dst->keys = src->n_keys ? calloc(src->n_keys, sizeof *dst->keys) : NULL;
    for (size_t i = 0; dst->keys && i < src->n_keys; i++) {
        dst->keys[i].id = strdup(src->keys[i].id);
        dst->keys[i].path = strdup(src->keys[i].path);
        dst->keys[i].wasm = src->keys[i].wasm ? strdup(src->keys[i].wasm) : NULL;
    }
    return ZP_OK;
}

static void engine_log(void *arg, const char *line) {
    (void)arg;
    fprintf(stderr, "zkpipe serve: %s\n", line);
}

/* The daemon's node id (the node option, else host name:port) and where
 * it runs, for the store and /v1/fleet. */
static zp_status server_identify(zp_server *s, zp_error *err) {
    char host[200] = "localhost";
    if (gethostname(host, sizeof host - 1) != 0) snprintf(host, sizeof host, "localhost");
    host[sizeof host - 1] = '\0';
    snprintf(s->host, sizeof s->host, "%s", host);
    if (s->cfg.node != NULL) {
        if (*s->cfg.node == '\0' || strlen(s->cfg.node) >= sizeof s->node)
            return zp_error_set(err, ZP_ERR_ARG, "node: an id of 1 to %zu bytes", sizeof s->node - 1);
        snprintf(s->node, sizeof s->node, "%s", s->cfg.node);
        return ZP_OK;
    }
    /* the port is the listen option's; port 0 (any) is the data_dir's, to
     * stay the same across restarts of one daemon: its last component, to
     * read, and a digest of its whole real path, so that two data_dirs
     * are two ids however long the prefix they share */
    const char *colon = s->cfg.listen ? strrchr(s->cfg.listen, ':') : NULL;
    if (colon && strcmp(colon + 1, "0") != 0) {
        snprintf(s->node, sizeof s->node, "%.100s:%.20s", host, colon + 1);
        return ZP_OK;
    }
    char *real = realpath(s->cfg.data_dir, NULL);
    const char *dir = real ? real : s->cfg.data_dir;
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/') len--;
    size_t base = len;
    while (base > 0 && dir[base - 1] != '/') base--;
    uint8_t d[ZP_SHA256_BYTES];
    char hex[ZP_SHA256_HEX];
    zp_status st = zp_sha256_bytes(d, dir, len, err);
    if (st == ZP_OK) {
        zp_sha256_hex(hex, d);
        snprintf(s->node, sizeof s->node, "%.80s:%.*s-%.8s", host, (int)(len - base > 24 ? 24 : len - base), dir + base,
                 hex);
    }
    free(real);
    return st;
}

zp_status zp_server_start(zp_server **out, const zp_server_config *cfg, zp_error *err) {
    *out = NULL;
    json_mem_install(); /* before the request threads: jansson's hooks are global */
    zp_server *s = calloc(1, sizeof *s);
    if (s == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    copy_config(&s->cfg, cfg);
    s->unix_fd = -1;
    s->started = zp_clock_wall();
    s->last_expire = 0;
    pthread_mutex_init(&s->lock, NULL);
    pthread_mutex_init(&s->pins_lock, NULL);
    zp_clock_cond_init(&s->ended); /* both waited on with deadlines */
    zp_clock_cond_init(&s->wake_dispatch);

    s->spool_fd = -1;
    s->submit_fd = -1;

    zp_status st = ZP_OK;
    size_t len = strlen(s->cfg.data_dir) + 32;
    char *db = malloc(len);
    s->spool_dir = malloc(len);
    s->witness_cache = malloc(len);
    if (st == ZP_OK && (db == NULL || s->spool_dir == NULL || s->witness_cache == NULL))
        st = zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    if (st == ZP_OK) {
        snprintf(db, len, "%s/zkpipe.db", s->cfg.data_dir);
        snprintf(s->spool_dir, len, "%s/spool", s->cfg.data_dir);
        if (s->cfg.spool_dir != NULL) {
            free(s->spool_dir);
            s->spool_dir = strdup(s->cfg.spool_dir);
            if (s->spool_dir == NULL) st = zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
        }
    }
    if (st == ZP_OK) {
        snprintf(s->witness_cache, len, "%s/witness-cache", s->cfg.data_dir);
        /* data_dir and the spool: made 0700, refused when not this user's own */
        st = server_spool_open_dirs(s, err);
    }
    if (st == ZP_OK) st = zp_store_open(&s->store, s->cfg.store ? s->cfg.store : db, err);
    free(db);
    /* a fleet's daemons read each other's accepted files: never from one
     * daemon's own disk */
    if (st == ZP_OK && zp_store_shared(s->store) && s->cfg.spool_dir == NULL)
        st = zp_error_set(err, ZP_ERR_ARG,
                          "the store %s is shared by a fleet: set spool_dir to a directory every daemon of it mounts",
                          zp_store_name(s->store));
    /* The libraries loaded on demand (base/dynlib.h) that the daemon will
     * need, loaded before the engine measures the process's own memory,
     * which the budget covers: HTTP and the requests' digests. */
    if (st == ZP_OK) st = server_http_load(err);
    if (st == ZP_OK) st = zp_sha256_load(err);
    if (st == ZP_OK) st = server_identify(s, err);
    if (st == ZP_OK) {
        zp_engine_options opt = {0};
        opt.budget = s->cfg.budget;
        opt.budget_covers_baseline = 1; /* the budget is the daemon's, not only its buffers' */
        opt.synth_workers = s->cfg.synth_workers;
        opt.prove_workers = s->cfg.prove_workers;
        opt.finalize_workers = s->cfg.finalize_workers;
        opt.prove_threads = s->cfg.threads;
        opt.queue_capacity = s->cfg.queue;
        opt.trace_path = s->cfg.trace;
        opt.report_ended = 1;
        opt.key_digests = 1; /* what each proof was made with: pinned jobs (docs/fleet.md) */
        opt.witness_cache_dir = s->witness_cache;
        opt.witness_time_limit = s->cfg.witness_time_limit;
        if (s->cfg.log_level >= 2) opt.log = engine_log;
        st = zp_engine_create(&s->engine, &opt, err);
    }
    if (st == ZP_OK) { /* jobs accepted before a stop or a crash */
        st = server_resume(s, err);
    }
    if (st == ZP_OK) {
        if (pthread_create(&s->collector, NULL, server_collector_main, s) != 0) {
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
    if (st == ZP_OK) { /* the store's node: the HTTP port is known now */
        s->dispatcher_started = pthread_create(&s->dispatcher, NULL, server_dispatch_main, s) == 0;
        if (!s->dispatcher_started) st = zp_error_set(err, ZP_ERR_INTERNAL, "could not start a thread");
    }
    if (st == ZP_OK) s->circuits_started = pthread_create(&s->circuits, NULL, server_circuits_main, s) == 0;
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
        double deadline = zp_clock_now() + (double)s->cfg.shutdown_grace;
        for (;;) {
            zp_engine_stats st;
            zp_engine_stats_get(&st, s->engine);
            size_t in_flight = 0;
            for (int g = ZP_STAGE_SYNTH; g < ZP_STAGE_DEALLOC; g++) in_flight += st.partitions_in[g];
            pthread_mutex_lock(&s->lock);
            size_t active = s->n_active;
            pthread_mutex_unlock(&s->lock);
            if (in_flight == 0 || active == 0 || zp_clock_now() >= deadline) break;
            usleep(50000);
        }
        usleep(300000); /* the collector records what just ended */
    }
    server_http_stop(s);
    if (s->circuits_started) pthread_join(s->circuits, NULL); /* after the compile under way */
    if (s->dispatcher_started) {
        pthread_mutex_lock(&s->lock);
        s->stop_threads = 1;
        pthread_cond_broadcast(&s->wake_dispatch);
        pthread_mutex_unlock(&s->lock);
        pthread_join(s->dispatcher, NULL);
    }
    if (s->threads_started) {
        pthread_mutex_lock(&s->lock);
        s->stop_threads = 1;
        pthread_cond_broadcast(&s->ended);
        pthread_mutex_unlock(&s->lock);
        pthread_join(s->collector, NULL);
        pthread_join(s->sampler, NULL);
    }
    /* what is left goes back to the queue: another daemon's, or the next
     * start's */
    if (s->dispatcher_started) server_dispatch_stop(s);
    zp_engine_destroy(s->engine);
    zp_store_close(s->store);
    free(s->spool_dir);
    free(s->spool_real);
    if (s->spool_fd >= 0) close(s->spool_fd);
    free(s->witness_cache);
    for (size_t i = 0; i < s->n_active; i++) {
        if (s->active[i].fd >= 0) close(s->active[i].fd);
        free(s->active[i].file);
    }
    free(s->active);
    if (s->submit_fd >= 0) close(s->submit_fd);
    free(s->submit_file);
    server_verify_free(s);
    zp_server_config_free(&s->cfg);
    server_pins_free(s);
    pthread_mutex_destroy(&s->pins_lock);
    pthread_cond_destroy(&s->ended);
    pthread_cond_destroy(&s->wake_dispatch);
    pthread_mutex_destroy(&s->lock);
    free(s);
}
