/* What this daemon proves with, by digest (docs/fleet.md "Keys are
 * pinned"): the SHA-256 of each key file and circuit (wasm) it has. A
 * job is pinned at submission to the digests the accepting daemon has for
 * its key id; a daemon claims a partition only with the same digests
 * (zp_store_claim_work), so two daemons holding different files under
 * one id never prove each other's jobs.
 *
 * A key file's digest is computed once and again only when the file
 * changes (its device, inode, size, change or modification time): a
 * stat per claim round, a full read only after a change. A circuit's
 * digest is computed once, when the daemon first names it to the engine,
 * and kept: the engine compiles a wasm once and keeps that module for its
 * whole life (engine/witgen.c), so a file changed later is not what it
 * computes witnesses with. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/digest.h"
#include "base/error.h"
#include "base/file.h"
#include "server/internal.h"

#define READ_CHUNK (1 << 20)

/* One file's digest as last computed, and what the file was then. */
struct pin_file {
    char *path;
    int frozen; /* a circuit: never computed again */
    uint64_t dev, ino, size;
    int64_t mtime_ns, ctime_ns;
    char digest[ZP_SHA256_HEX];
};

static int same_file(const struct pin_file *f, const struct stat *sb) {
    return f->dev == (uint64_t)sb->st_dev && f->ino == (uint64_t)sb->st_ino && f->size == (uint64_t)sb->st_size &&
           f->mtime_ns == (int64_t)sb->st_mtim.tv_sec * 1000000000 + sb->st_mtim.tv_nsec &&
           f->ctime_ns == (int64_t)sb->st_ctim.tv_sec * 1000000000 + sb->st_ctim.tv_nsec;
}

static void remember(struct pin_file *f, const struct stat *sb) {
    f->dev = (uint64_t)sb->st_dev;
    f->ino = (uint64_t)sb->st_ino;
    f->size = (uint64_t)sb->st_size;
    f->mtime_ns = (int64_t)sb->st_mtim.tv_sec * 1000000000 + sb->st_mtim.tv_nsec;
    f->ctime_ns = (int64_t)sb->st_ctim.tv_sec * 1000000000 + sb->st_ctim.tv_nsec;
}

/* The digest of a file's bytes, and what it was when they were read: a
 * file that changed while it was read is read again (twice at most). */
static zp_status hash_file(char hex[ZP_SHA256_HEX], struct stat *sb, const char *path, zp_error *err) {
    unsigned char *buf = malloc(READ_CHUNK);
    if (buf == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "%s: out of memory for its digest", path);
    zp_status st = ZP_OK;
    for (int attempt = 0; attempt < 3; attempt++) {
        int fd;
        struct stat before, after;
        if ((st = zp_file_open_regular(&fd, NULL, path, err)) != ZP_OK) break;
        if (fstat(fd, &before) != 0) {
            st = zp_error_set(err, ZP_ERR_IO, "%s: cannot read it for its digest: %s", path, strerror(errno));
            close(fd);
            break;
        }
        zp_sha256 h;
        if ((st = zp_sha256_init(&h, err)) != ZP_OK) {
            close(fd);
            break;
        }
        ssize_t got;
        while ((got = read(fd, buf, READ_CHUNK)) > 0) zp_sha256_update(&h, buf, (size_t)got);
        int read_errno = errno;
        uint8_t d[ZP_SHA256_BYTES];
        zp_sha256_final(&h, d);
        int changed = fstat(fd, &after) != 0 || after.st_size != before.st_size ||
                      after.st_mtim.tv_sec != before.st_mtim.tv_sec || after.st_mtim.tv_nsec != before.st_mtim.tv_nsec;
        close(fd);
        if (got < 0) {
            st = zp_error_set(err, ZP_ERR_IO, "%s: cannot read it for its digest: %s", path, strerror(read_errno));
            break;
        }
        *sb = before;
        zp_sha256_hex(hex, d);
        st = changed ? zp_error_set(err, ZP_ERR_IO, "%s: it kept changing while its digest was computed", path) : ZP_OK;
        if (!changed) break;
    }
    free(buf);
    return st;
}

zp_status server_file_digest(char hex[ZP_SHA256_HEX], zp_server *s, const char *path, int frozen, zp_error *err) {
    struct stat sb;
    int have_stat = stat(path, &sb) == 0, stat_errno = errno;
    pthread_mutex_lock(&s->pins_lock);
    struct pin_file *f = NULL;
    for (size_t i = 0; i < s->n_pin_files && f == NULL; i++)
        if (strcmp(s->pin_files[i].path, path) == 0) f = &s->pin_files[i];
    if (f != NULL && (f->frozen || (have_stat && same_file(f, &sb)))) {
        memcpy(hex, f->digest, ZP_SHA256_HEX);
        pthread_mutex_unlock(&s->pins_lock);
        return ZP_OK;
    }
    pthread_mutex_unlock(&s->pins_lock);
    if (!have_stat) return zp_error_set(err, ZP_ERR_IO, "%s: %s", path, strerror(stat_errno));
    /* read outside the lock: a large key takes a while */
    struct stat read_sb;
    zp_status st = hash_file(hex, &read_sb, path, err);
    if (st != ZP_OK) return st;
    pthread_mutex_lock(&s->pins_lock);
    f = NULL;
    for (size_t i = 0; i < s->n_pin_files && f == NULL; i++)
        if (strcmp(s->pin_files[i].path, path) == 0) f = &s->pin_files[i];
    if (f == NULL && s->n_pin_files == s->cap_pin_files) {
        size_t cap = s->cap_pin_files ? 2 * s->cap_pin_files : 16;
        struct pin_file *g = realloc(s->pin_files, cap * sizeof *g);
        if (g != NULL) {
            s->pin_files = g;
            s->cap_pin_files = cap;
        }
    }
    if (f == NULL && s->n_pin_files < s->cap_pin_files) {
        char *copy = strdup(path);
        if (copy != NULL) {
            f = &s->pin_files[s->n_pin_files++];
            memset(f, 0, sizeof *f);
            f->path = copy;
        }
    }
    if (f != NULL && f->frozen) {
        memcpy(hex, f->digest, ZP_SHA256_HEX); /* another thread computed it first */
    } else if (f != NULL) {
        f->frozen = frozen;
        remember(f, &read_sb);
        memcpy(f->digest, hex, ZP_SHA256_HEX);
    }
    pthread_mutex_unlock(&s->pins_lock);
    return ZP_OK;
}

zp_status server_key_pins(char key_digest[ZP_SHA256_HEX], char wasm_digest[ZP_SHA256_HEX], zp_server *s,
                          const char *key_id, zp_error *err) {
    key_digest[0] = wasm_digest[0] = '\0';
    char *path = server_key_path(s, key_id, err);
    if (path == NULL) return ZP_ERR_ARG;
    zp_status st = server_file_digest(key_digest, s, path, 0, err);
    free(path);
    if (st != ZP_OK) {
        key_digest[0] = '\0';
        return st;
    }
    char *wasm = server_key_wasm(s, key_id);
    if (wasm != NULL && server_file_digest(wasm_digest, s, wasm, 1, err) != ZP_OK)
        wasm_digest[0] = '\0'; /* no circuit it can name: it takes no job given inputs */
    free(wasm);
    return ZP_OK;
}

void server_pins_free(zp_server *s) {
    for (size_t i = 0; i < s->n_pin_files; i++) free(s->pin_files[i].path);
    free(s->pin_files);
    s->pin_files = NULL;
    s->n_pin_files = s->cap_pin_files = 0;
}
