/* The request digest: what a request_id stands for when the job is
 * accepted, and, after each partition is proved, the check that the bytes
 * proved are the bytes accepted.
 *
 * The digest is kept with the job in the store. A spooled file changed
 * between acceptance and proof (by whoever could write the spool, or a
 * row pointed at another file of it) would otherwise yield a proof of
 * other inputs under the client's job. So the collector hashes the very
 * file the engine read (its descriptor, opened beneath the spool at the
 * claim) once the partition ended, and records the proof only when it
 * matches: the first partition of a job seen here hashes the job's other
 * files too, to rebuild the request digest, and keeps each file's own
 * digest, so each later partition hashes its own file alone. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/digest.h"
#include "base/error.h"
#include "server/internal.h"

#define READ_PIECE 65536

/* The head of the encoding: each field length-prefixed, so that no two
 * requests share one. */
static zp_status digest_head(zp_sha256 *h, const char *key, int priority, int inputs, size_t n, zp_error *err) {
    zp_status st = zp_sha256_init(h, err);
    if (st != ZP_OK) return st;
    char head[64];
    int len = snprintf(head, sizeof head, "zkpipe job request 1\n%zu:", strlen(key));
    zp_sha256_update(h, head, (size_t)len);
    zp_sha256_update(h, key, strlen(key));
    /* witnesses keep the version-1 encoding; inputs say so */
    len = snprintf(head, sizeof head, "\n%d\n%s%zu\n", priority, inputs ? "inputs " : "", n);
    zp_sha256_update(h, head, (size_t)len);
    return ZP_OK;
}

static void digest_item_size(zp_sha256 *h, uint64_t size) {
    char head[32];
    int len = snprintf(head, sizeof head, "%llu\n", (unsigned long long)size);
    zp_sha256_update(h, head, (size_t)len);
}

static void digest_hex(char hex[ZP_SHA256_HEX], zp_sha256 *h) {
    uint8_t d[ZP_SHA256_BYTES];
    zp_sha256_final(h, d);
    zp_sha256_hex(hex, d);
}

zp_status server_request_digest(char hex[ZP_SHA256_HEX], const char *key, int priority, int inputs,
                                const job_witness *w, size_t n, zp_error *err) {
    zp_sha256 h;
    zp_status st = digest_head(&h, key, priority, inputs, n, err);
    if (st != ZP_OK) return st;
    for (size_t i = 0; i < n; i++) {
        digest_item_size(&h, w[i].size);
        zp_sha256_update(&h, w[i].bytes, w[i].size);
    }
    digest_hex(hex, &h);
    return ZP_OK;
}

/* One file's bytes, from its start, into the request's digest (req, with
 * the size first; may be NULL) and its own (one): as many as fstat said,
 * and a file that is shorter or longer by the end is an error (it changed
 * while read). name for messages. */
static zp_status hash_fd(uint64_t *size, uint8_t one[ZP_SHA256_BYTES], zp_sha256 *req, int fd, unsigned char *buf,
                         const char *name, zp_error *err) {
    struct stat sb;
    if (fstat(fd, &sb) != 0) return zp_error_set(err, ZP_ERR_IO, "spooled file '%s': %s", name, strerror(errno));
    *size = (uint64_t)sb.st_size;
    zp_sha256 h;
    zp_status st = zp_sha256_init(&h, err);
    if (st != ZP_OK) return st;
    if (req != NULL) digest_item_size(req, *size);
    uint64_t off = 0;
    for (;;) {
        /* one byte past the size: a file that grew shows */
        size_t want = off < *size ? (*size - off < READ_PIECE ? (size_t)(*size - off) : READ_PIECE) : 1;
        ssize_t got = pread(fd, buf, want, (off_t)off);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            st = zp_error_set(err, ZP_ERR_IO, "spooled file '%s': read error: %s", name, strerror(errno));
            break;
        }
        if (off >= *size) {
            if (got > 0) st = zp_error_set(err, ZP_ERR_MISMATCH, "spooled file '%s' grew while it was read", name);
            break;
        }
        if (got == 0) {
            st = zp_error_set(err, ZP_ERR_MISMATCH, "spooled file '%s' shrank while it was read", name);
            break;
        }
        zp_sha256_update(&h, buf, (size_t)got);
        if (req != NULL) zp_sha256_update(req, buf, (size_t)got);
        off += (uint64_t)got;
    }
    if (st != ZP_OK) {
        zp_sha256_abort(&h);
        return st;
    }
    zp_sha256_final(&h, one);
    return ZP_OK;
}

zp_status server_request_digest_files(char hex[ZP_SHA256_HEX], zp_server *s, const char *key, int priority,
                                      char *const *paths, size_t n, zp_error *err) {
    zp_sha256 h;
    zp_status st = digest_head(&h, key, priority, 0, n, err);
    if (st != ZP_OK) return st;
    unsigned char *buf = malloc(READ_PIECE);
    if (buf == NULL) st = zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n && st == ZP_OK; i++) {
        int fd;
        char rel[SPOOL_PATH_MAX];
        uint64_t size;
        uint8_t one[ZP_SHA256_BYTES];
        st = server_spool_open(&fd, rel, s, paths[i], err);
        if (st != ZP_OK) break;
        st = hash_fd(&size, one, &h, fd, buf, paths[i], err);
        close(fd);
    }
    free(buf);
    if (st != ZP_OK) {
        zp_sha256_abort(&h);
        return st;
    }
    digest_hex(hex, &h);
    return ZP_OK;
}

/* ---- after the proof ------------------------------------------------------ */

static verified_job *find_verified(zp_server *s, int64_t job_id) {
    for (size_t i = 0; i < VERIFIED_JOBS; i++)
        if (s->verified[i].job_id == job_id) return &s->verified[i];
    return NULL;
}

static void verified_clear(verified_job *v) {
    free(v->sizes);
    free(v->digests);
    memset(v, 0, sizeof *v);
}

void server_verify_forget(zp_server *s, int64_t job_id) {
    verified_job *v = find_verified(s, job_id);
    if (v != NULL) verified_clear(v);
}

void server_verify_free(zp_server *s) {
    for (size_t i = 0; i < VERIFIED_JOBS; i++) verified_clear(&s->verified[i]);
}

/* A job's paths, copied out of the store's callback. */
typedef struct path_list {
    char **paths;
    size_t n, cap;
    int oom;
} path_list;

static void collect_path(void *arg, const char *path) {
    path_list *l = arg;
    if (l->oom) return;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        char **g = realloc(l->paths, cap * sizeof *g);
        if (g == NULL) {
            l->oom = 1;
            return;
        }
        l->paths = g;
        l->cap = cap;
    }
    if ((l->paths[l->n] = strdup(path)) == NULL) l->oom = 1;
    else l->n++;
}

static void path_list_free(path_list *l) {
    for (size_t i = 0; i < l->n; i++) free(l->paths[i]);
    free(l->paths);
}

/* The first partition of a job: every file of it hashed (the claimed
 * one through fd), the request digest rebuilt and compared; on a match,
 * each file's size and digest kept in a slot (the oldest one goes). */
static zp_status verify_job(zp_server *s, const zp_store_job *job, const zp_store_held *claim, int fd,
                            unsigned char *buf, zp_error *err) {
    path_list l = {0};
    zp_status st = zp_store_witness_paths(s->store, job->id, collect_path, &l, err);
    if (st == ZP_OK && l.oom) st = zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    if (st == ZP_OK && (l.n != job->partitions || claim->idx >= l.n))
        st = zp_error_set(err, ZP_ERR_MISMATCH, "job %lld: its store rows name %zu files for %u partitions",
                          (long long)job->id, l.n, job->partitions);
    uint64_t *sizes = st == ZP_OK ? calloc(l.n, sizeof *sizes) : NULL;
    uint8_t(*digests)[32] = st == ZP_OK ? calloc(l.n, sizeof *digests) : NULL;
    if (st == ZP_OK && (sizes == NULL || digests == NULL)) st = zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    zp_sha256 h;
    int hashing = 0;
    if (st == ZP_OK) {
        st = digest_head(&h, job->key_id, job->priority, server_spooled_inputs(l.paths[0]), l.n, err);
        hashing = st == ZP_OK;
    }
    for (size_t i = 0; st == ZP_OK && i < l.n; i++) {
        int f = fd;
        char rel[SPOOL_PATH_MAX];
        if (i != claim->idx && (st = server_spool_open(&f, rel, s, l.paths[i], err)) != ZP_OK) {
            if (st == ZP_ERR_ARG || st == ZP_ERR_FORMAT) st = ZP_ERR_MISMATCH; /* refused, missing: for good */
            zp_error_prefix(err, "job %lld partition %zu: ", (long long)job->id, i);
            break;
        }
        st = hash_fd(&sizes[i], digests[i], &h, f, buf, l.paths[i], err);
        if (f != fd) close(f);
    }
    if (st == ZP_OK) {
        char hex[ZP_SHA256_HEX];
        digest_hex(hex, &h);
        hashing = 0;
        if (strcmp(hex, job->request_digest) != 0)
            st = zp_error_set(err, ZP_ERR_MISMATCH,
                              "job %lld: its spooled files do not match the request it was accepted for (request "
                              "digest %.16s..., the files' %.16s...): one was changed after acceptance; no proof of "
                              "them is recorded",
                              (long long)job->id, job->request_digest, hex);
    }
    if (hashing) zp_sha256_abort(&h);
    path_list_free(&l);
    if (st != ZP_OK || job->partitions == 1) { /* a job of one partition has nothing more to check */
        free(sizes);
        free(digests);
        return st;
    }
    verified_job *v = &s->verified[s->verified_next++ % VERIFIED_JOBS];
    verified_clear(v);
    *v = (verified_job){job->id, job->partitions, sizes, digests};
    return ZP_OK;
}

zp_status server_verify_part(zp_server *s, const zp_store_held *claim, int fd, zp_error *err) {
    zp_store_job job;
    zp_status st = zp_store_get_job(&job, s->store, claim->job_id, err);
    if (st != ZP_OK) return st;
    if (job.request_digest[0] == '\0') return ZP_OK; /* accepted before the store kept digests (version 1) */
    if (fd < 0)
        return zp_error_set(err, ZP_ERR_MISMATCH, "job %lld partition %u: its spooled file was not held",
                            (long long)claim->job_id, claim->idx);
    unsigned char *buf = malloc(READ_PIECE);
    if (buf == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    verified_job *v = find_verified(s, job.id);
    if (v != NULL && v->n == job.partitions && claim->idx < v->n) {
        uint64_t size;
        uint8_t one[ZP_SHA256_BYTES];
        char name[64];
        snprintf(name, sizeof name, "job %lld partition %u", (long long)job.id, claim->idx);
        st = hash_fd(&size, one, NULL, fd, buf, name, err);
        if (st == ZP_OK && (size != v->sizes[claim->idx] || memcmp(one, v->digests[claim->idx], sizeof one) != 0))
            st = zp_error_set(err, ZP_ERR_MISMATCH,
                              "job %lld partition %u: its spooled file does not match the request it was accepted "
                              "for (its digest changed since the job's other files were checked against the request "
                              "digest %.16s...): no proof of it is recorded",
                              (long long)job.id, claim->idx, job.request_digest);
    } else {
        st = verify_job(s, &job, claim, fd, buf, err);
    }
    free(buf);
    return st;
}
