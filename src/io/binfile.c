#include "io/binfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/file.h"
#include "io/elements.h"

#define HEADER_BYTES 12         /* magic, version, nSections */
#define SECTION_HEADER_BYTES 12 /* id, size */

static char *dup_name(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d != NULL) memcpy(d, s, n);
    return d;
}

/* The found magic as text, with anything unprintable as '?', so a message
 * about a wrong file never carries control bytes. */
static void printable_magic(char out[5], const uint8_t *m) {
    for (int i = 0; i < 4; i++) out[i] = (m[i] >= 0x20 && m[i] < 0x7f && m[i] != '\'') ? (char)m[i] : '?';
    out[4] = '\0';
}

static zp_status parse(zp_binfile *bf, const char *magic, uint32_t version, zp_error *err) {
    const uint8_t *d = bf->data;
    size_t size = bf->size;
    if (size >= 4 && memcmp(d, magic, 4) != 0) {
        char found[5];
        printable_magic(found, d);
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: not a .%s file (magic '%s')", bf->name, magic, found);
    }
    if (size < HEADER_BYTES) {
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: truncated: %zu bytes, shorter than the %d-byte file header",
                            bf->name, size, HEADER_BYTES);
    }
    bf->version = zp_io_u32(d + 4);
    if (bf->version != version) {
        return zp_error_set(err, ZP_ERR_UNSUPPORTED, "%s: .%s version %u is not supported (expected %u)", bf->name,
                            magic, bf->version, version);
    }
    uint32_t n = zp_io_u32(d + 8);
    /* Bound the count by what the file can hold before allocating for it. */
    if ((uint64_t)n > (size - HEADER_BYTES) / SECTION_HEADER_BYTES) {
        return zp_error_set(err, ZP_ERR_FORMAT,
                            "%s: truncated: the header announces %u sections but %zu bytes cannot hold them", bf->name,
                            n, size);
    }
    bf->sections = calloc(n ? n : 1, sizeof *bf->sections);
    if (bf->sections == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "%s: out of memory", bf->name);
    bf->n_sections = n;
    uint64_t pos = HEADER_BYTES;
    for (uint32_t i = 0; i < n; i++) {
        if (size - pos < SECTION_HEADER_BYTES) {
            return zp_error_set(err, ZP_ERR_FORMAT,
                                "%s: truncated: the header of section entry %u extends past the end of the file",
                                bf->name, i);
        }
        uint32_t id = zp_io_u32(d + pos);
        uint64_t len = zp_io_u64(d + pos + 4);
        pos += SECTION_HEADER_BYTES;
        /* pos <= size here, so size - pos cannot wrap. */
        if (len > size - pos) {
            return zp_error_set(err, ZP_ERR_FORMAT,
                                "%s: truncated: section %u extends past the end of the file "
                                "(%llu bytes at offset %llu, file is %zu bytes)",
                                bf->name, id, (unsigned long long)len, (unsigned long long)pos, size);
        }
        bf->sections[i] = (zp_binfile_entry){.id = id, .offset = pos, .size = len};
        pos += len;
    }
    /* Bytes after the last section are tolerated, as snarkjs does. */
    return ZP_OK;
}

zp_status zp_binfile_open_mem(zp_binfile *bf, const void *data, size_t size, const char *name, const char *magic,
                              uint32_t version, zp_error *err) {
    memset(bf, 0, sizeof *bf);
    bf->name = dup_name(name);
    if (bf->name == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "%s: out of memory", name);
    bf->data = data;
    bf->size = size;
    bf->ext = magic;
    zp_status st = parse(bf, magic, version, err);
    if (st != ZP_OK) zp_binfile_close(bf);
    return st;
}

zp_status zp_binfile_open(zp_binfile *bf, const char *path, const char *magic, uint32_t version, zp_error *err) {
    memset(bf, 0, sizeof *bf);
    int fd;
    uint64_t file_size;
    zp_status fst = zp_file_open_regular(&fd, &file_size, path, err);
    if (fst != ZP_OK) return fst;
    if ((uint64_t)(size_t)file_size != file_size) {
        close(fd);
        return zp_error_set(err, ZP_ERR_IO, "%s: %llu bytes cannot be mapped here", path,
                            (unsigned long long)file_size);
    }
    size_t size = (size_t)file_size;
    const void *map = NULL;
    if (size > 0) {
        /* MAP_PRIVATE + PROT_READ: the key is shared read-only between
         * proofs and the page cache backs it; nothing is ever written. */
        map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            int e = errno;
            close(fd);
            return zp_error_set(err, ZP_ERR_IO, "%s: cannot map %zu bytes: %s", path, size, strerror(e));
        }
    }
    close(fd); /* the mapping keeps the file alive */
    zp_status st = zp_binfile_open_mem(bf, map, size, path, magic, version, err);
    if (st != ZP_OK) {
        if (map != NULL) munmap((void *)map, size);
        return st;
    }
    bf->mapped = map != NULL;
    return ZP_OK;
}

void zp_binfile_close(zp_binfile *bf) {
    if (bf == NULL) return;
    if (bf->mapped) munmap((void *)bf->data, bf->size);
    free(bf->sections);
    free(bf->name);
    memset(bf, 0, sizeof *bf);
}

zp_status zp_binfile_read(void **out, const zp_binfile_format *fmt, const zp_binfile_input *in, void *arg,
                          zp_error *err) {
    if (out != NULL) *out = NULL;
    const char *name = in->path != NULL ? in->path : in->name;
    int keep = fmt->keep_offset != ZP_BINFILE_CLOSE;
    if (keep && fmt->keep_offset + sizeof(zp_binfile) > fmt->object_bytes) {
        return zp_error_set(err, ZP_ERR_INTERNAL, "%s: the .%s reader keeps its file outside its object", name,
                            fmt->magic);
    }
    void *object = NULL;
    if (fmt->object_bytes > 0 && (object = calloc(1, fmt->object_bytes)) == NULL) {
        return zp_error_set(err, ZP_ERR_NOMEM, "%s: out of memory", name);
    }
    zp_binfile local, *bf = keep ? (zp_binfile *)(void *)((char *)object + fmt->keep_offset) : &local;
    zp_status st = in->path != NULL
                       ? zp_binfile_open(bf, in->path, fmt->magic, fmt->version, err)
                       : zp_binfile_open_mem(bf, in->data, in->size, in->name, fmt->magic, fmt->version, err);
    if (st != ZP_OK) { /* nothing parsed yet, and the open cleaned up after itself */
        free(object);
        return st;
    }
    st = fmt->parse(object, bf, arg, err);
    if (!keep) zp_binfile_close(bf);
    if (st != ZP_OK) {
        if (object != NULL) fmt->destroy(object);
        return st;
    }
    if (out != NULL) *out = object;
    return ZP_OK;
}

zp_status zp_binfile_section(const zp_binfile *bf, uint32_t id, const char *what, int required, const uint8_t **data,
                             uint64_t *size, zp_error *err) {
    const zp_binfile_entry *found = NULL;
    *data = NULL;
    *size = 0;
    for (uint32_t i = 0; i < bf->n_sections; i++) {
        if (bf->sections[i].id != id) continue;
        if (found != NULL) {
            return zp_error_set(err, ZP_ERR_FORMAT, "%s: section %u (%s) appears more than once", bf->name, id, what);
        }
        found = &bf->sections[i];
    }
    if (found == NULL) {
        if (!required) return ZP_OK;
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: section %u (%s) is missing", bf->name, id, what);
    }
    *data = bf->data + found->offset;
    *size = found->size;
    return ZP_OK;
}

/* madvise over the pages of [p, p + len) in the mapping, rounded out to
 * whole pages (advice that reads ahead) or in (advice that lets pages go,
 * which must not take a neighbouring section's with them). */
static void advise_pages(const zp_binfile *bf, const void *p, size_t len, int inward, int advice) {
    if (!bf->mapped || len == 0) return;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), up = inward ? page - 1 : 0;
    uintptr_t lo = ((uintptr_t)p + up) & ~(page - 1);
    uintptr_t hi = ((uintptr_t)p + len + (page - 1 - up)) & ~(page - 1);
    /* within this file's mapping only: a pointer into another mapping
     * (the same file mapped twice) would release nothing where it should,
     * or pages of something else */
    uintptr_t map_lo = (uintptr_t)bf->data, map_hi = ((uintptr_t)bf->data + bf->size + page - 1) & ~(page - 1);
    if (lo < map_lo) lo = map_lo;
    if (hi > map_hi) hi = map_hi;
    if (lo >= hi) return;
    (void)madvise((void *)lo, hi - lo, advice);
}

void zp_binfile_advise(const zp_binfile *bf, const void *p, size_t len, int advice) {
    advise_pages(bf, p, len, 0, advice);
}

void zp_binfile_release(const zp_binfile *bf, const void *p, size_t len) { advise_pages(bf, p, len, 1, MADV_DONTNEED); }

/* ---- writer ---- */

static void writer_fail(zp_binwriter *w, zp_status st, const char *what) {
    if (w->status != ZP_OK) return;
    w->status = zp_error_set(&w->error, st, "%s: cannot %s: %s", w->path, what, strerror(errno));
}

zp_status zp_binwriter_open(zp_binwriter *w, const char *path, const char *magic, uint32_t version, uint32_t n_sections,
                            zp_error *err) {
    memset(w, 0, sizeof *w);
    w->size_pos = -1;
    w->path = dup_name(path);
    if (w->path == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "%s: out of memory", path);
    /* read too: a ptau contribution hashes what it wrote (pread on the fd) */
    w->f = fopen(path, "w+b");
    if (w->f == NULL) {
        zp_status st = zp_error_set(err, ZP_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
        free(w->path);
        w->path = NULL;
        return st;
    }
    /* Big sequential writes (multi-GB keys): a larger stdio buffer. */
    setvbuf(w->f, NULL, _IOFBF, 1 << 20);
    zp_binwriter_bytes(w, magic, 4);
    zp_binwriter_u32(w, version);
    zp_binwriter_u32(w, n_sections);
    return ZP_OK;
}

void zp_binwriter_bytes(zp_binwriter *w, const void *p, size_t n) {
    if (w->status != ZP_OK || n == 0) return;
    if (fwrite(p, 1, n, w->f) != n) {
        writer_fail(w, ZP_ERR_IO, "write");
        return;
    }
    w->section_bytes += n;
}

void zp_binwriter_u32(zp_binwriter *w, uint32_t v) {
    uint8_t b[4];
    zp_io_put_u32(b, v);
    zp_binwriter_bytes(w, b, 4);
}

void zp_binwriter_u64(zp_binwriter *w, uint64_t v) {
    zp_binwriter_u32(w, (uint32_t)v);
    zp_binwriter_u32(w, (uint32_t)(v >> 32));
}

void zp_binwriter_reserve(zp_binwriter *w, uint64_t n, uint64_t *at) {
    *at = 0;
    if (w->status != ZP_OK) return;
    long pos;
    if (fflush(w->f) != 0 || (pos = ftell(w->f)) < 0) {
        writer_fail(w, ZP_ERR_IO, "write");
        return;
    }
    /* the file reaches past the room at once: a put may come last */
    if (ftruncate(fileno(w->f), (off_t)((uint64_t)pos + n)) != 0 ||
        fseek(w->f, (long)((uint64_t)pos + n), SEEK_SET) != 0) {
        writer_fail(w, ZP_ERR_IO, "extend");
        return;
    }
    *at = (uint64_t)pos;
    w->section_bytes += n;
}

void zp_binwriter_put(zp_binwriter *w, uint64_t at, const void *p, size_t n) {
    if (w->status != ZP_OK) return;
    int e = zp_file_pwrite_all(fileno(w->f), p, n, at);
    if (e != 0) {
        errno = e < 0 ? ENOSPC : e;
        writer_fail(w, ZP_ERR_IO, "write");
    }
}

/* Like snarkjs's startWriteSection: write the id and a zero size, and
 * patch the size in when the section ends. */
void zp_binwriter_begin(zp_binwriter *w, uint32_t id) {
    if (w->status != ZP_OK) return;
    if (w->size_pos >= 0) {
        w->status = zp_error_set(&w->error, ZP_ERR_INTERNAL, "%s: section %u begun inside another", w->path, id);
        return;
    }
    zp_binwriter_u32(w, id);
    w->size_pos = ftell(w->f);
    if (w->size_pos < 0) writer_fail(w, ZP_ERR_IO, "tell");
    zp_binwriter_u64(w, 0);
    w->section_bytes = 0;
}

void zp_binwriter_end(zp_binwriter *w) {
    if (w->status != ZP_OK) return;
    if (w->size_pos < 0) {
        w->status = zp_error_set(&w->error, ZP_ERR_INTERNAL, "%s: section ended but none was begun", w->path);
        return;
    }
    uint64_t n = w->section_bytes;
    long end = ftell(w->f);
    if (end < 0 || fseek(w->f, w->size_pos, SEEK_SET) != 0) {
        writer_fail(w, ZP_ERR_IO, "seek");
        return;
    }
    zp_binwriter_u64(w, n);
    if (w->status == ZP_OK && fseek(w->f, end, SEEK_SET) != 0) writer_fail(w, ZP_ERR_IO, "seek");
    w->size_pos = -1;
}

void zp_binwriter_abort(zp_binwriter *w) {
    zp_error ignored = {0};
    if (w->status == ZP_OK) w->status = ZP_ERR_INTERNAL;
    zp_status closed = zp_binwriter_close(w, &ignored); /* fails, as status says: removes the file */
    (void)closed;
}

zp_status zp_binwriter_close(zp_binwriter *w, zp_error *err) {
    if (w->f == NULL) return zp_error_set(err, ZP_ERR_INTERNAL, "binary writer closed twice");
    if (w->status == ZP_OK && w->size_pos >= 0) {
        w->status = zp_error_set(&w->error, ZP_ERR_INTERNAL, "%s: a section was left open", w->path);
    }
    if (fclose(w->f) != 0) writer_fail(w, ZP_ERR_IO, "write");
    w->f = NULL;
    zp_status st = w->status;
    if (st != ZP_OK) {
        (void)remove(w->path);
        if (err != NULL) *err = w->error;
    }
    free(w->path);
    w->path = NULL;
    return st;
}
