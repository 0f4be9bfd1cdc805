#define _GNU_SOURCE
#include "io/zkey_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/file.h"
#include "base/random.h"
#include "curve/desc.h"
#include "io/elements.h"

enum { N_SECTIONS = 10 };
/* snarkjs's zkey_new.js's order, which zp_zkey_write follows too */
static const uint32_t file_order[N_SECTIONS] = {1, 2, 4, 3, 9, 8, 5, 6, 7, 10};

struct zp_zkey_writer {
    int fd;
    char *path, *temp;
    uint64_t data[N_SECTIONS + 1]; /* each section's data offset; [0]: the file */
    uint64_t size[N_SECTIONS + 1];
    uint64_t header_points; /* where §2's points start in §2 */
};

const char *zp_zkey_writer_temp(const zp_zkey_writer *w) { return w->temp; }

/* pwrite all of it, or an error naming the destination. */
static zp_status put_at(zp_zkey_writer *w, uint64_t at, const void *p, size_t n, zp_error *err) {
    int e = zp_file_pwrite_all(w->fd, p, n, at);
    if (e == 0) return ZP_OK;
    return zp_error_set(err, ZP_ERR_IO, "%s: cannot write: %s", w->path, e < 0 ? "no room" : strerror(e));
}

zp_status zp_zkey_writer_put(void *arg, uint32_t id, uint64_t pos, const void *p, size_t n, zp_error *err) {
    zp_zkey_writer *w = arg;
    if (id < 1 || id > N_SECTIONS) return zp_error_set(err, ZP_ERR_INTERNAL, "%s: no section %u", w->path, id);
    if (id == 2) pos += w->header_points;
    if (pos > w->size[id] || n > w->size[id] - pos) {
        return zp_error_set(err, ZP_ERR_INTERNAL, "%s: %zu bytes at %llu of section %u, past its end (%llu)", w->path,
                            n, (unsigned long long)pos, id, (unsigned long long)w->size[id]);
    }
    return n == 0 ? ZP_OK : put_at(w, w->data[id] + pos, p, n, err);
}

static void writer_free(zp_zkey_writer *w) {
    free(w->path);
    free(w->temp);
    free(w);
}

void zp_zkey_writer_abort(zp_zkey_writer *w) {
    if (w == NULL) return;
    if (w->fd >= 0) close(w->fd);
    (void)unlink(w->temp);
    writer_free(w);
}

zp_status zp_zkey_writer_open(zp_zkey_writer **out, const char *path, const zp_groth16_pk *shape, zp_error *err) {
    *out = NULL;
    const zp_curve_desc *d = zp_curve_get(shape->curve);
    if (d == NULL) return zp_error_set(err, ZP_ERR_ARG, "%s: a key for unknown curve %d", path, (int)shape->curve);
    if (shape->n_public >= shape->n_vars || shape->n_coefs > UINT32_MAX || shape->domain_size == 0) {
        return zp_error_set(err, ZP_ERR_ARG, "%s: inconsistent key (nVars %u, nPublic %u, %zu coefficients)", path,
                            shape->n_vars, shape->n_public, shape->n_coefs);
    }
    zp_zkey_writer *w = calloc(1, sizeof *w);
    const char *slash = strrchr(path, '/');
    size_t dir = slash ? (size_t)(slash - path + 1) : 0, len = strlen(path) + 32;
    if (w == NULL || (w->path = strdup(path)) == NULL || (w->temp = malloc(len)) == NULL) {
        if (w != NULL) writer_free(w);
        return zp_error_set(err, ZP_ERR_NOMEM, "%s: out of memory", path);
    }
    /* The destination's folder may be shared (/tmp): the name is random,
     * so nobody can plant a file or a symlink at it beforehand to make the
     * setup fail, and O_EXCL never opens what is there (nor follows a
     * symlink). */
    w->fd = -1;
    errno = EEXIST;
    for (int tries = 0; w->fd < 0 && errno == EEXIST && tries < 8; tries++) {
        uint64_t r;
        zp_status st = zp_random_bytes(&r, sizeof r, err);
        if (st != ZP_OK) {
            writer_free(w);
            return st;
        }
        snprintf(w->temp, len, "%.*s.%s.tmp-%016llx", (int)dir, path, path + dir, (unsigned long long)r);
        w->fd = open(w->temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    }
    if (w->fd < 0) {
        zp_status st = zp_error_set(err, ZP_ERR_IO, "%s: cannot create %s: %s", path, w->temp, strerror(errno));
        writer_free(w);
        return st;
    }
    uint64_t g1 = d->g1_bytes, g2 = d->g2_bytes, nw = shape->n_vars, npub = shape->n_public, n = shape->domain_size;
    w->header_points = 4 + d->fp_bytes + 4 + d->fr_bytes + 12;
    w->size[1] = 4;
    w->size[2] = w->header_points + 3 * g1 + 3 * g2;
    w->size[3] = (npub + 1) * g1;
    w->size[4] = 4 + (uint64_t)shape->n_coefs * ZP_ZKEY_COEF_BYTES;
    w->size[5] = nw * g1;
    w->size[6] = nw * g1;
    w->size[7] = nw * g2;
    w->size[8] = (nw - npub - 1) * g1;
    w->size[9] = n * g1;
    w->size[10] = 64 + 4;
    uint64_t at = 12;
    for (int i = 0; i < N_SECTIONS; i++) {
        w->data[file_order[i]] = at + 12;
        at += 12 + w->size[file_order[i]];
    }
    w->size[0] = at;
    zp_status st = ZP_OK;
    int rc = posix_fallocate(w->fd, 0, (off_t)at);
    if (rc != 0 && rc != EOPNOTSUPP && rc != EINVAL) {
        st = zp_error_set(err, ZP_ERR_IO, "%s: cannot make room for %llu bytes: %s", path, (unsigned long long)at,
                          strerror(rc));
    }
    uint8_t b[64];
    memcpy(b, "zkey", 4);
    zp_io_put_u32(b + 4, 1);
    zp_io_put_u32(b + 8, N_SECTIONS);
    if (st == ZP_OK) st = put_at(w, 0, b, 12, err);
    for (int i = 0; i < N_SECTIONS && st == ZP_OK; i++) {
        uint32_t id = file_order[i];
        zp_io_put_u32(b, id);
        zp_io_put_u32(b + 4, (uint32_t)w->size[id]);
        zp_io_put_u32(b + 8, (uint32_t)(w->size[id] >> 32));
        st = put_at(w, w->data[id] - 12, b, 12, err);
    }
    zp_io_put_u32(b, 1); /* Groth16 */
    if (st == ZP_OK) st = put_at(w, w->data[1], b, 4, err);
    /* §2 up to the points; the moduli are little-endian limbs, as bytes */
    uint64_t h = w->data[2];
    zp_io_put_u32(b, (uint32_t)d->fp_bytes);
    if (st == ZP_OK) st = put_at(w, h, b, 4, err);
    if (st == ZP_OK) st = put_at(w, h + 4, d->fp_modulus, d->fp_bytes, err);
    h += 4 + d->fp_bytes;
    zp_io_put_u32(b, (uint32_t)d->fr_bytes);
    if (st == ZP_OK) st = put_at(w, h, b, 4, err);
    if (st == ZP_OK) st = put_at(w, h + 4, d->fr_modulus, d->fr_bytes, err);
    h += 4 + d->fr_bytes;
    zp_io_put_u32(b, shape->n_vars);
    zp_io_put_u32(b + 4, shape->n_public);
    zp_io_put_u32(b + 8, shape->domain_size);
    if (st == ZP_OK) st = put_at(w, h, b, 12, err);
    memset(b, 0, sizeof b); /* §10: a zero hash, no contributions */
    if (st == ZP_OK) st = put_at(w, w->data[10], b, 64, err);
    if (st == ZP_OK) st = put_at(w, w->data[10] + 64, b, 4, err);
    if (st != ZP_OK) {
        zp_zkey_writer_abort(w);
        return st;
    }
    *out = w;
    return ZP_OK;
}

zp_status zp_zkey_writer_commit(zp_zkey_writer *w, zp_error *err) {
    zp_status st = ZP_OK;
    if (fsync(w->fd) != 0) st = zp_error_set(err, ZP_ERR_IO, "%s: cannot write: %s", w->path, strerror(errno));
    int fd = w->fd;
    w->fd = -1;
    if (close(fd) != 0 && st == ZP_OK) {
        st = zp_error_set(err, ZP_ERR_IO, "%s: cannot write: %s", w->path, strerror(errno));
    }
    if (st == ZP_OK && rename(w->temp, w->path) != 0) {
        st = zp_error_set(err, ZP_ERR_IO, "%s: cannot rename %s to it: %s", w->path, w->temp, strerror(errno));
    }
    if (st != ZP_OK) {
        zp_zkey_writer_abort(w);
        return st;
    }
    writer_free(w);
    return ZP_OK;
}
