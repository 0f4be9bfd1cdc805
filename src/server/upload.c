/* POST /v1/jobs?key=ID with Content-Type: application/octet-stream: the
 * partitions' .wtns files back to back, streamed into the spool as they
 * come and checked on the way (io/wtns_stream.h), so a witness of any
 * size up to max_request costs the daemon no memory but a few buffers of
 * libmicrohttpd's: nothing to reserve, nothing to copy (docs/daemon.md,
 * "Streamed witnesses"). Each file is synced when it ends; the job is
 * stored and submitted once the body is complete, as a JSON upload's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/digest.h"
#include "base/error.h"
#include "io/wtns_stream.h"
#include "server/internal.h"

struct server_upload {
    zp_server *s;
    char key_id[128];
    char *key_path;
    zp_engine_key_info key;
    int priority;
    char request_id[129];    /* "" when none */
    char dir[SPOOL_DIR_MAX]; /* relative to the spool, as the paths are */
    char **paths;
    size_t n, cap;
    int fd;               /* the file being written, -1 between files */
    zp_wtns_stream check; /* of that file */
    uint64_t spooled;     /* bytes counted in s->spool_bytes */
    int status;           /* 0, or the answer of a problem kept */
    zp_error err;
};

static void fail(server_upload *u, int status, const zp_error *err) {
    if (u->status) return; /* the first problem is the one answered */
    u->status = status;
    u->err = *err;
    if (u->fd >= 0) {
        close(u->fd);
        u->fd = -1;
    }
}

static int printable(const char *t) {
    for (; *t; t++) {
        if ((unsigned char)*t < 0x20 || *t == 0x7f) return 0;
    }
    return 1;
}

server_upload *server_upload_begin(zp_server *s, const zp_request *req, zp_response *resp) {
    const char *key = req->query(req->query_arg, "key");
    const char *prio = req->query(req->query_arg, "priority");
    const char *rid = req->query(req->query_arg, "request_id");
    long priority = 0;
    char *end = NULL;
    if (prio) priority = strtol(prio, &end, 10);
    if (key == NULL || key[0] == '\0' || strlen(key) >= 128) {
        server_respond_error(resp, 400, "bad_request", "a streamed upload names its key: POST /v1/jobs?key=ID");
        return NULL;
    }
    if (prio && (end == prio || *end != '\0' || priority < -1000000 || priority > 1000000)) {
        server_respond_error(resp, 400, "bad_request", "'priority' must be an integer");
        return NULL;
    }
    if (rid && (rid[0] == '\0' || strlen(rid) > 128 || !printable(rid))) {
        server_respond_error(resp, 400, "bad_request",
                             "'request_id' must be a string of 1 to 128 printable characters");
        return NULL;
    }
    pthread_mutex_lock(&s->lock);
    int down = s->shutting_down;
    pthread_mutex_unlock(&s->lock);
    if (down) {
        server_respond_error(resp, 503, "shutting_down", "the daemon is shutting down");
        return NULL;
    }
    server_upload *u = calloc(1, sizeof *u);
    if (u == NULL) {
        server_respond_error(resp, 500, "internal", "out of memory");
        return NULL;
    }
    u->s = s;
    u->fd = -1;
    u->priority = (int)priority;
    snprintf(u->key_id, sizeof u->key_id, "%s", key);
    snprintf(u->request_id, sizeof u->request_id, "%s", rid ? rid : "");
    int status;
    zp_error err;
    zp_status st = server_upload_key(&u->key, &u->key_path, s, key, &status, &err);
    if (st == ZP_OK && (st = server_spool_mkdir(u->dir, s, &err)) != ZP_OK) status = 500;
    if (st != ZP_OK) {
        server_respond_error(resp, status, server_error_code(status), "%s", err.message);
        free(u->key_path);
        free(u);
        return NULL;
    }
    return u;
}

/* The file being written is complete: synced, closed, checked against
 * the key. */
static void end_file(server_upload *u) {
    zp_error err;
    zp_curve curve;
    size_t count;
    if (zp_wtns_stream_finish(&u->check, &curve, &count, &err) != ZP_OK) return fail(u, 422, &err);
    if (fsync(u->fd) != 0) {
        zp_error_set(&err, ZP_ERR_IO, "%s/%s: %s", u->s->spool_dir, u->paths[u->n - 1], strerror(errno));
        return fail(u, 500, &err);
    }
    close(u->fd);
    u->fd = -1;
    size_t i = u->n - 1;
    if (curve != u->key.curve) {
        zp_error_set(&err, ZP_ERR_MISMATCH, "witness %zu is for curve %s but key '%s' is for %s", i,
                     zp_curve_name(curve), u->key_id, zp_curve_name(u->key.curve));
        return fail(u, 422, &err);
    }
    if (count != u->key.n_vars) {
        zp_error_set(&err, ZP_ERR_MISMATCH,
                     "witness %zu has %zu values but key '%s' has %u wires: it is for another circuit", i, count,
                     u->key_id, u->key.n_vars);
        return fail(u, 422, &err);
    }
}

static void begin_file(server_upload *u) {
    zp_error err;
    if (u->n == u->s->cfg.max_partitions) {
        zp_error_set(&err, ZP_ERR_ARG, "too many partitions (max_partitions %llu)",
                     (unsigned long long)u->s->cfg.max_partitions);
        return fail(u, 400, &err);
    }
    if (u->n == u->cap) {
        size_t cap = u->cap ? 2 * u->cap : 8;
        char **grown = realloc(u->paths, cap * sizeof *grown);
        if (grown == NULL) {
            zp_error_set(&err, ZP_ERR_NOMEM, "out of memory");
            return fail(u, 500, &err);
        }
        u->paths = grown;
        u->cap = cap;
    }
    size_t len = strlen(u->dir) + 32;
    char *path = malloc(len);
    if (path == NULL) {
        zp_error_set(&err, ZP_ERR_NOMEM, "out of memory");
        return fail(u, 500, &err);
    }
    snprintf(path, len, "%s/%zu.wtns", u->dir, u->n);
    u->paths[u->n++] = path;
    if (server_spool_create(&u->fd, u->s, path, &err) != ZP_OK) return fail(u, 500, &err);
    char name[32];
    snprintf(name, sizeof name, "witness %zu", u->n - 1);
    zp_wtns_stream_init(&u->check, name);
}

/* Writes one piece of the current file, counted against spool_max. */
static void write_piece(server_upload *u, const unsigned char *p, size_t len) {
    zp_server *s = u->s;
    zp_error err;
    pthread_mutex_lock(&s->lock);
    int full = s->cfg.spool_max && s->spool_bytes + len > s->cfg.spool_max;
    if (!full) s->spool_bytes += len;
    uint64_t used = s->spool_bytes, max = s->cfg.spool_max;
    pthread_mutex_unlock(&s->lock);
    if (full) {
        zp_error_set(&err, ZP_ERR_NOMEM, "the witness spool is full (%llu of %llu bytes used)",
                     (unsigned long long)used, (unsigned long long)max);
        return fail(u, 507, &err);
    }
    u->spooled += len;
    while (len > 0) {
        ssize_t n = write(u->fd, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int e = errno;
            zp_error_set(&err, ZP_ERR_IO, "%s/%s: %s", s->spool_dir, u->paths[u->n - 1], strerror(e));
            return fail(u, e == ENOSPC || e == EDQUOT ? 507 : 500, &err);
        }
        p += n;
        len -= (size_t)n;
    }
}

void server_upload_feed(server_upload *u, const void *data, size_t len) {
    const unsigned char *p = data;
    while (len > 0 && u->status == 0) {
        if (u->fd < 0) {
            begin_file(u);
            if (u->status) break;
        }
        size_t used;
        zp_error err;
        zp_status st = zp_wtns_stream_feed(&u->check, p, len, &used, &err);
        if (st != ZP_OK) return fail(u, 422, &err);
        write_piece(u, p, used);
        p += used;
        len -= used;
        if (u->status == 0 && zp_wtns_stream_done(&u->check)) end_file(u);
    }
}

static void remove_all(server_upload *u) {
    if (u->fd >= 0) close(u->fd);
    u->fd = -1;
    server_spool_discard(u->s, u->dir, u->paths, u->n);
    pthread_mutex_lock(&u->s->lock);
    u->s->spool_bytes -= u->spooled < u->s->spool_bytes ? u->spooled : u->s->spool_bytes;
    pthread_mutex_unlock(&u->s->lock);
    u->spooled = 0;
}

static void upload_free(server_upload *u) {
    for (size_t i = 0; i < u->n; i++) free(u->paths[i]);
    free(u->paths);
    free(u->key_path);
    free(u);
}

void server_upload_abort(server_upload *u) {
    if (u == NULL) return;
    remove_all(u);
    upload_free(u);
}

void server_upload_finish(server_upload *u, zp_response *resp) {
    zp_server *s = u->s;
    zp_error err;
    if (u->status == 0 && u->fd >= 0) { /* the body ended inside a file */
        zp_curve curve;
        size_t count;
        if (zp_wtns_stream_finish(&u->check, &curve, &count, &err) != ZP_OK) fail(u, 422, &err);
    }
    if (u->status == 0 && u->n == 0) {
        zp_error_set(&err, ZP_ERR_ARG, "the body is empty: it is the partitions' .wtns files, back to back");
        fail(u, 400, &err);
    }
    if (u->status) {
        server_respond_error(resp, u->status, server_error_code(u->status), "%s", u->err.message);
        server_upload_abort(u);
        return;
    }
    /* the files are synced: now their directory and the spool's */
    server_spool_sync(s, u->dir);
    char digest[ZP_SHA256_HEX] = "";
    int64_t id = 0;
    int existing = 0, status = 500;
    size_t position = 0;
    const char *rid = u->request_id[0] ? u->request_id : NULL;
    zp_status st = server_request_digest_files(digest, s, u->key_id, u->priority, u->paths, u->n, &err);
    if (st == ZP_OK) {
        /* from here the files are the job's (or removed by it) */
        u->spooled = 0;
        st = server_submit_spooled(&id, &existing, &position, s, u->key_id, u->key_path, u->priority, rid, digest,
                                   u->paths, u->n, &status, &err);
    } else {
        remove_all(u);
    }
    server_answer_submitted(s, resp, st, status, &err, id, existing, position, u->key_id, u->n, rid, digest);
    upload_free(u);
}
