#include "engine/stream_io.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/file.h"

static const char *const section_names[ZP_SRC_SECTIONS] = {"A", "B1", "B2", "C", "H", "coefficients"};

static int64_t mtime_of(const struct stat *s) { return (int64_t)s->st_mtim.tv_sec * 1000000000 + s->st_mtim.tv_nsec; }

zp_status zp_stream_source_open(zp_stream_source *src, const char *path, const zp_zkey_stamp *stamp,
                                const uint64_t off[ZP_SRC_SECTIONS], const uint32_t id[ZP_SRC_SECTIONS],
                                zp_error *err) {
    memset(src, 0, sizeof *src);
    src->fd = -1;
    src->name = strdup(path);
    if (src->name == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    zp_status st = zp_file_open_regular(&src->fd, NULL, path, err);
    if (st != ZP_OK) {
        zp_stream_source_close(src);
        return st;
    }
    struct stat s;
    if (fstat(src->fd, &s) != 0) {
        st = zp_error_set(err, ZP_ERR_IO, "%s: cannot stat the key file: %s", path, strerror(errno));
        zp_stream_source_close(src);
        return st;
    }
    /* a copy renamed over the key (another inode) is another file, even
     * with the same size and time */
    int known = stamp->mtime_ns != 0;
    if ((uint64_t)s.st_size != stamp->size ||
        (known &&
         (mtime_of(&s) != stamp->mtime_ns || (uint64_t)s.st_dev != stamp->dev || (uint64_t)s.st_ino != stamp->ino))) {
        st = zp_error_set(err, ZP_ERR_FORMAT,
                          "%s: the key file changed since it was opened (%lld bytes now, %llu then, or written or "
                          "replaced since): no proof",
                          path, (long long)s.st_size, (unsigned long long)stamp->size);
        zp_stream_source_close(src);
        return st;
    }
    memcpy(src->off, off, sizeof src->off);
    memcpy(src->id, id, sizeof src->id);
    src->size = stamp->size;
    src->mtime_ns = mtime_of(&s);
    /* the chunks are read once, in order: no point keeping them cached
     * beyond what the kernel's read-ahead wants */
    posix_fadvise(src->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    return ZP_OK;
}

void zp_stream_source_close(zp_stream_source *src) {
    if (src->fd >= 0) close(src->fd);
    src->fd = -1;
    free(src->name);
    src->name = NULL;
}

zp_status zp_stream_source_check(const zp_stream_source *src, zp_error *err) {
    struct stat s;
    if (fstat(src->fd, &s) != 0) {
        return zp_error_set(err, ZP_ERR_IO, "%s: cannot stat the key file: %s", src->name, strerror(errno));
    }
    if ((uint64_t)s.st_size != src->size || mtime_of(&s) != src->mtime_ns) {
        return zp_error_set(err, ZP_ERR_FORMAT,
                            "%s: the key file changed while its points were streamed (now %lld bytes, %llu before): "
                            "no proof",
                            src->name, (long long)s.st_size, (unsigned long long)src->size);
    }
    return ZP_OK;
}

/* The byte range of chunk k. */
static void chunk_range(const zp_stream_reader *r, size_t k, uint64_t *off, size_t *len, size_t *count) {
    size_t first = k * r->chunk, cnt = r->n - first < r->chunk ? r->n - first : r->chunk;
    *off = r->src->off[r->section] + (uint64_t)first * r->elem;
    *len = cnt * r->elem;
    *count = cnt;
}

static void *read_main(void *arg) {
    zp_stream_reader *r = arg;
    uint64_t off;
    size_t len, count;
    chunk_range(r, r->pending, &off, &len, &count);
    char *dst = r->half[r->pending % 2];
    size_t done = 0;
    r->read_st = ZP_OK;
    while (done < len) {
        ssize_t got = pread(r->src->fd, dst + done, len - done, (off_t)(off + done));
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            snprintf(r->read_msg, sizeof r->read_msg, "read failed: %s", strerror(errno));
            r->read_st = ZP_ERR_IO;
            break;
        }
        if (got == 0) {
            snprintf(r->read_msg, sizeof r->read_msg,
                     "the file ends at byte %llu, inside the section (it was truncated while its points were "
                     "streamed)",
                     (unsigned long long)(off + done));
            r->read_st = ZP_ERR_FORMAT;
            break;
        }
        done += (size_t)got;
    }
    return NULL;
}

static zp_status start_read(zp_stream_reader *r, size_t k, zp_error *err) {
    r->pending = k;
    r->busy = 0;
    if (k * r->chunk >= r->n) return ZP_OK;
    pthread_t *t = r->thread;
    if (pthread_create(t, NULL, read_main, r) != 0) {
        /* no thread: read it here, without the overlap */
        read_main(r);
        r->busy = 0;
        if (r->read_st != ZP_OK)
            return zp_error_set(err, r->read_st, "%s: section %u (%s): %s", r->src->name, r->src->id[r->section],
                                section_names[r->section], r->read_msg);
        r->busy = -1; /* read, nothing to join */
        return ZP_OK;
    }
    r->busy = 1;
    return ZP_OK;
}

zp_status zp_stream_begin(zp_stream_reader *r, const zp_stream_source *src, unsigned section, size_t elem, size_t n,
                          size_t chunk, void *window, zp_error *err) {
    memset(r, 0, sizeof *r);
    r->src = src;
    r->section = section;
    r->elem = elem;
    r->n = n;
    r->chunk = chunk > 0 ? chunk : 1;
    r->half[0] = window;
    r->half[1] = (char *)window + chunk * elem;
    r->thread = malloc(sizeof(pthread_t));
    if (r->thread == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    return start_read(r, 0, err);
}

zp_status zp_stream_take(zp_stream_reader *r, const void **points, size_t *first, size_t *count, zp_error *err) {
    size_t k = r->next;
    uint64_t off;
    size_t len;
    chunk_range(r, k, &off, &len, count);
    *first = k * r->chunk;
    if (r->busy == 1) pthread_join(*(pthread_t *)r->thread, NULL);
    r->busy = 0;
    if (r->read_st != ZP_OK) {
        return zp_error_set(err, r->read_st, "%s: section %u (%s): %s", r->src->name, r->src->id[r->section],
                            section_names[r->section], r->read_msg);
    }
    *points = r->half[k % 2];
    r->next++;
    /* the other half held chunk k-1, which the caller is done with */
    return start_read(r, k + 1, err);
}

void zp_stream_end(zp_stream_reader *r) {
    if (r->busy == 1) pthread_join(*(pthread_t *)r->thread, NULL);
    r->busy = 0;
    free(r->thread);
    r->thread = NULL;
}

const char *zp_stream_scratch_dir(void) {
    const char *dir = getenv("ZKPIPE_SCRATCH_DIR");
    if (dir == NULL || dir[0] == 0) dir = getenv("TMPDIR");
    if (dir == NULL || dir[0] == 0) dir = "/var/tmp";
    return dir;
}

zp_status zp_stream_spill_open(zp_stream_spill *sp, const char *dir, size_t slot, zp_error *err) {
    memset(sp, 0, sizeof *sp);
    snprintf(sp->dir, sizeof sp->dir, "%s", dir);
    sp->slot = slot;
#ifdef O_TMPFILE
    sp->fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#else
    sp->fd = -1;
#endif
    if (sp->fd < 0) {
        /* a file system without O_TMPFILE: a name, unlinked at once */
        char path[300];
        snprintf(path, sizeof path, "%s/zkpipe-spill-XXXXXX", dir);
        sp->fd = mkstemp(path);
        if (sp->fd >= 0) unlink(path);
    }
    if (sp->fd < 0) {
        return zp_error_set(err, ZP_ERR_IO, "%s: cannot make a scratch file for a, b, c: %s", dir, strerror(errno));
    }
    return ZP_OK;
}

zp_status zp_stream_spill_io(zp_stream_spill *sp, int write, unsigned slot, size_t off, void *buf, size_t bytes,
                             zp_error *err) {
    int e = write ? zp_file_pwrite_all(sp->fd, buf, bytes, (uint64_t)slot * sp->slot + off)
                  : zp_file_pread_all(sp->fd, buf, bytes, (uint64_t)slot * sp->slot + off);
    if (e == 0) return ZP_OK;
    return zp_error_set(err, ZP_ERR_IO, "%s: the scratch file for a, b, c: cannot %s %zu bytes: %s", sp->dir,
                        write ? "write" : "read", bytes, e < 0 ? "it ended early" : strerror(e));
}

void zp_stream_spill_close(zp_stream_spill *sp) {
    if (sp->fd >= 0) close(sp->fd);
    sp->fd = -1;
}

/* ---- the groth16 layer's io over a source (groth16/stream.h) ---- */

/* A source, a window and a scratch directory as the groth16 layer's io:
 * one reader and one spill file at a time. */
typedef struct zp_stream_io {
    const zp_stream_source *src;
    void *window;
    const char *scratch_dir;
    zp_stream_reader rd;
    zp_stream_spill sp;
} zp_stream_io;

static zp_status io_begin(void *ctx, unsigned section, size_t elem, size_t n, size_t chunk, zp_error *err) {
    zp_stream_io *s = ctx;
    return zp_stream_begin(&s->rd, s->src, section, elem, n, chunk, s->window, err);
}

static zp_status io_take(void *ctx, const void **data, size_t *first, size_t *count, zp_error *err) {
    return zp_stream_take(&((zp_stream_io *)ctx)->rd, data, first, count, err);
}

static void io_end(void *ctx) { zp_stream_end(&((zp_stream_io *)ctx)->rd); }

static zp_status io_check(void *ctx, zp_error *err) { return zp_stream_source_check(((zp_stream_io *)ctx)->src, err); }

static zp_status io_spill_open(void *ctx, size_t slot, zp_error *err) {
    zp_stream_io *s = ctx;
    return zp_stream_spill_open(&s->sp, s->scratch_dir, slot, err);
}

static zp_status io_spill_io(void *ctx, int write, unsigned slot, size_t off, void *buf, size_t bytes, zp_error *err) {
    return zp_stream_spill_io(&((zp_stream_io *)ctx)->sp, write, slot, off, buf, bytes, err);
}

static void io_spill_close(void *ctx) { zp_stream_spill_close(&((zp_stream_io *)ctx)->sp); }

zp_status zp_stream_prove(zp_groth16_proof *proof, const zp_groth16_pk *pk, uint64_t *witness, void *abc, void *scratch,
                          void *window, const zp_stream_source *src, const zp_groth16_stream_plan *plan,
                          const zp_parallel *par, zp_error *err) {
    zp_stream_io sio = {.src = src, .window = window, .scratch_dir = zp_stream_scratch_dir()};
    sio.sp.fd = -1;
    zp_groth16_stream_io io = {&sio,     src->name,     io_begin,    io_take,       io_end,
                               io_check, io_spill_open, io_spill_io, io_spill_close};
    zp_groth16_stream_cfg cfg = {.io = &io,
                                 .window = window,
                                 .chunk_g1 = plan->chunk_g1,
                                 .chunk_g2 = plan->chunk_g2,
                                 .chunk_coefs = plan->chunk_coefs,
                                 .window_bytes = plan->window_bytes,
                                 .scratch_bytes = plan->scratch_bytes - 64, /* the caller aligned it */
                                 .spill = plan->spill,
                                 .page = plan->page};
    return zp_groth16_prove_stream(proof, pk, witness, abc, scratch, &cfg, par, err);
}
