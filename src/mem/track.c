#define _GNU_SOURCE /* dladdr */
#include "mem/track.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/file.h"
#include "mem/large.h"

static size_t page_size(void) {
    static size_t page;
    if (page == 0) {
        long p = sysconf(_SC_PAGESIZE);
        page = p > 0 ? (size_t)p : 4096;
    }
    return page;
}

size_t zp_track_round(size_t bytes) {
    size_t page = page_size();
    if (bytes == 0) bytes = 1;
    return (bytes + page - 1) / page * page;
}

void zp_tracker_init(zp_tracker *t) { memset(t, 0, sizeof *t); }

const char *zp_mem_kind_name(zp_mem_kind kind) {
    static const char *const names[ZP_MEM_KINDS] = {"host", "pinned", "device"};
    return (unsigned)kind < ZP_MEM_KINDS ? names[kind] : "unknown";
}

static void *mmap_alloc(void *arg, size_t bytes, zp_mem_kind kind, const char *what, zp_error *err) {
    (void)arg;
    if (kind == ZP_MEM_DEVICE) {
        zp_error_set(err, ZP_ERR_UNSUPPORTED, "%s: no allocator for device memory (the backend installs one)", what);
        return NULL;
    }
    return zp_mem_map(bytes, what, err);
}

static void mmap_free(void *arg, void *p, size_t bytes, zp_mem_kind kind) {
    (void)arg;
    (void)kind;
    zp_mem_unmap(p, bytes);
}

const zp_allocator zp_allocator_mmap = {"mmap", mmap_alloc, mmap_free, NULL};

void zp_tracker_set_allocator(zp_tracker *t, zp_mem_kind kind, const zp_allocator *a) {
    if ((unsigned)kind < ZP_MEM_KINDS) t->allocator[kind] = a;
}

static void raise_peak(_Atomic uint64_t *peak, uint64_t value) {
    uint64_t seen = atomic_load(peak);
    while (value > seen && !atomic_compare_exchange_weak(peak, &seen, value)) {
    }
}

static void count_in(zp_tracker *t, const zp_tracked *b) {
    atomic_fetch_add(&t->count[b->cls][b->stage], 1);
    atomic_fetch_add(&t->bytes[b->cls][b->stage], b->bytes);
    atomic_fetch_add(&t->class_count[b->cls], 1);
    raise_peak(&t->class_peak[b->cls], atomic_fetch_add(&t->class_bytes[b->cls], b->bytes) + b->bytes);
    atomic_fetch_add(&t->stage_count[b->stage], 1);
    raise_peak(&t->stage_peak[b->stage], atomic_fetch_add(&t->stage_bytes[b->stage], b->bytes) + b->bytes);
    raise_peak(&t->total_peak, atomic_fetch_add(&t->total, b->bytes) + b->bytes);
    atomic_fetch_add(&t->kind_count[b->kind], 1);
    raise_peak(&t->kind_peak[b->kind], atomic_fetch_add(&t->kind_bytes[b->kind], b->bytes) + b->bytes);
}

static void count_out(zp_tracker *t, const zp_tracked *b) {
    atomic_fetch_sub(&t->count[b->cls][b->stage], 1);
    atomic_fetch_sub(&t->bytes[b->cls][b->stage], b->bytes);
    atomic_fetch_sub(&t->class_count[b->cls], 1);
    atomic_fetch_sub(&t->class_bytes[b->cls], b->bytes);
    atomic_fetch_sub(&t->stage_count[b->stage], 1);
    atomic_fetch_sub(&t->stage_bytes[b->stage], b->bytes);
    atomic_fetch_sub(&t->total, b->bytes);
    atomic_fetch_sub(&t->kind_count[b->kind], 1);
    atomic_fetch_sub(&t->kind_bytes[b->kind], b->bytes);
}

zp_status zp_track_alloc_kind(zp_tracked *buf, zp_tracker *t, zp_mem_kind kind, unsigned cls, unsigned stage,
                              size_t bytes, const char *what, zp_error *err) {
    memset(buf, 0, sizeof *buf);
    if (cls >= ZP_TRACK_CLASSES || stage >= ZP_TRACK_STAGES || (unsigned)kind >= ZP_MEM_KINDS) {
        return zp_error_set(err, ZP_ERR_INTERNAL, "tracked allocation of %s: bad class %u, stage %u or kind %u", what,
                            cls, stage, (unsigned)kind);
    }
    const zp_allocator *a = t->allocator[kind] ? t->allocator[kind] : &zp_allocator_mmap;
    size_t rounded = zp_track_round(bytes);
    void *p = a->alloc(a->arg, rounded, kind, what, err);
    if (p == NULL) return err ? err->status : ZP_ERR_NOMEM;
    *buf = (zp_tracked){.p = p, .bytes = rounded, .cls = cls, .stage = stage, .kind = kind, .allocator = a};
    count_in(t, buf);
    return ZP_OK;
}

zp_status zp_track_alloc(zp_tracked *buf, zp_tracker *t, unsigned cls, unsigned stage, size_t bytes, const char *what,
                         zp_error *err) {
    return zp_track_alloc_kind(buf, t, ZP_MEM_HOST, cls, stage, bytes, what, err);
}

zp_status zp_track_map_file(zp_tracked *buf, size_t *size, zp_tracker *t, unsigned cls, unsigned stage,
                            const char *path, zp_error *err) {
    memset(buf, 0, sizeof *buf);
    if (cls >= ZP_TRACK_CLASSES || stage >= ZP_TRACK_STAGES) {
        return zp_error_set(err, ZP_ERR_INTERNAL, "tracked mapping of %s: bad class %u or stage %u", path, cls, stage);
    }
    int fd;
    uint64_t file_size;
    zp_status fst = zp_file_open_regular(&fd, &file_size, path, err);
    if (fst != ZP_OK) return fst;
    if (file_size == 0) {
        close(fd);
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: empty file", path);
    }
    size_t rounded = zp_track_round((size_t)file_size);
    void *p = mmap(NULL, (size_t)file_size, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd);
    if (p == MAP_FAILED) return zp_error_set(err, ZP_ERR_IO, "%s: cannot map: %s", path, strerror(e));
    *buf = (zp_tracked){.p = p, .bytes = rounded, .cls = cls, .stage = stage, .file = 1, .kind = ZP_MEM_HOST};
    *size = (size_t)file_size;
    count_in(t, buf);
    return ZP_OK;
}

void zp_track_account(zp_tracked *buf, zp_tracker *t, void *p, unsigned cls, unsigned stage, size_t bytes) {
    memset(buf, 0, sizeof *buf);
    if (p == NULL || cls >= ZP_TRACK_CLASSES || stage >= ZP_TRACK_STAGES) return;
    *buf = (zp_tracked){
        .p = p, .bytes = zp_track_round(bytes), .cls = cls, .stage = stage, .external = 1, .kind = ZP_MEM_HOST};
    count_in(t, buf);
}

void zp_track_account_resize(zp_tracker *t, zp_tracked *buf, size_t bytes) {
    if (buf->p == NULL || !buf->external) return;
    size_t rounded = zp_track_round(bytes);
    if (rounded == buf->bytes) return;
    /* the difference only, so that no reader sees the buffer's count or
     * bytes vanish for a moment */
    if (rounded > buf->bytes) {
        uint64_t d = rounded - buf->bytes;
        atomic_fetch_add(&t->bytes[buf->cls][buf->stage], d);
        raise_peak(&t->class_peak[buf->cls], atomic_fetch_add(&t->class_bytes[buf->cls], d) + d);
        raise_peak(&t->stage_peak[buf->stage], atomic_fetch_add(&t->stage_bytes[buf->stage], d) + d);
        raise_peak(&t->total_peak, atomic_fetch_add(&t->total, d) + d);
        raise_peak(&t->kind_peak[buf->kind], atomic_fetch_add(&t->kind_bytes[buf->kind], d) + d);
    } else {
        uint64_t d = buf->bytes - rounded;
        atomic_fetch_sub(&t->bytes[buf->cls][buf->stage], d);
        atomic_fetch_sub(&t->class_bytes[buf->cls], d);
        atomic_fetch_sub(&t->stage_bytes[buf->stage], d);
        atomic_fetch_sub(&t->total, d);
        atomic_fetch_sub(&t->kind_bytes[buf->kind], d);
    }
    buf->bytes = rounded;
}

void zp_track_free(zp_tracker *t, zp_tracked *buf) {
    if (buf == NULL || buf->p == NULL) return;
    if (buf->external) {
        /* the owner unmaps it */
    } else if (buf->file || buf->allocator == NULL) {
        munmap(buf->p, buf->bytes); /* whole pages: the file mapping's tail page too */
    } else {
        buf->allocator->free(buf->allocator->arg, buf->p, buf->bytes, buf->kind);
    }
    count_out(t, buf);
    buf->p = NULL;
}

void zp_track_move(zp_tracker *t, zp_tracked *buf, unsigned stage) {
    if (buf->p == NULL || buf->stage == stage || stage >= ZP_TRACK_STAGES) return;
    atomic_fetch_sub(&t->count[buf->cls][buf->stage], 1);
    atomic_fetch_sub(&t->bytes[buf->cls][buf->stage], buf->bytes);
    atomic_fetch_sub(&t->stage_count[buf->stage], 1);
    atomic_fetch_sub(&t->stage_bytes[buf->stage], buf->bytes);
    buf->stage = stage;
    atomic_fetch_add(&t->count[buf->cls][stage], 1);
    atomic_fetch_add(&t->bytes[buf->cls][stage], buf->bytes);
    atomic_fetch_add(&t->stage_count[stage], 1);
    raise_peak(&t->stage_peak[stage], atomic_fetch_add(&t->stage_bytes[stage], buf->bytes) + buf->bytes);
}

size_t zp_mem_image_unloaded(void) {
    Dl_info info;
    char image[PATH_MAX];
    /* the object this function is in: the executable or libzkpipe.so */
    if (dladdr((void *)zp_mem_image_unloaded, &info) == 0 || info.dli_fname == NULL ||
        realpath(info.dli_fname[0] ? info.dli_fname : "/proc/self/exe", image) == NULL)
        return 0;
    FILE *f = fopen("/proc/self/smaps", "r");
    if (f == NULL) return 0;
    char line[PATH_MAX + 128];
    int ours = 0;
    unsigned long long size = 0, rss = 0, unloaded = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        unsigned long long lo, hi, kb;
        char path[PATH_MAX + 1] = "";
        if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %4096s", &lo, &hi, path) >= 2 &&
            strchr(line, '-') < strchr(line, ' ')) {
            if (ours && size > rss) unloaded += size - rss;
            ours = strcmp(path, image) == 0;
            size = hi - lo;
            rss = 0;
        } else if (ours && sscanf(line, "Rss: %llu kB", &kb) == 1) {
            rss = kb << 10;
        }
    }
    if (ours && size > rss) unloaded += size - rss;
    fclose(f);
    return (size_t)unloaded;
}

size_t zp_mem_rss(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size = 0, resident = 0;
    if (f == NULL) return 0;
    int n = fscanf(f, "%lu %lu", &size, &resident);
    fclose(f);
    return n == 2 ? (size_t)resident * page_size() : 0;
}
