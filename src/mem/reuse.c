#include "mem/reuse.h"

#include <string.h>
#include <sys/mman.h>

/* Zero what a previous owner may have written: the resident pages, in
 * runs. Pages never touched read as zero already, and touching them
 * here would only make them resident. */
static void clear_resident(void *p, size_t bytes) {
    size_t page = zp_track_round(1);
    unsigned char vec[1024];
    char *base = p;
    for (size_t off = 0; off < bytes; off += sizeof vec * page) {
        size_t len = bytes - off < sizeof vec * page ? bytes - off : sizeof vec * page;
        size_t pages = (len + page - 1) / page;
        if (mincore(base + off, len, vec) != 0) { /* cannot tell: clear it all */
            memset(base + off, 0, len);
            continue;
        }
        for (size_t i = 0; i < pages;) {
            if (!(vec[i] & 1)) {
                i++;
                continue;
            }
            size_t j = i;
            while (j < pages && (vec[j] & 1)) j++;
            size_t end = j * page < len ? j * page : len;
            memset(base + off + i * page, 0, end - i * page);
            i = j;
        }
    }
}

static void *reuse_alloc(void *arg, size_t bytes, zp_mem_kind kind, const char *what, zp_error *err) {
    zp_reuse *r = arg;
    void *p = NULL;
    if (kind == ZP_MEM_HOST && bytes <= r->cap) {
        pthread_mutex_lock(&r->lock);
        for (size_t i = 0; i < r->n; i++) {
            if (r->slot[i].bytes == bytes) {
                p = r->slot[i].p;
                r->bytes -= bytes;
                r->slot[i] = r->slot[--r->n];
                break;
            }
        }
        pthread_mutex_unlock(&r->lock);
    }
    if (p == NULL) return zp_allocator_mmap.alloc(zp_allocator_mmap.arg, bytes, kind, what, err);
    clear_resident(p, bytes);
    return p;
}

static void reuse_free(void *arg, void *p, size_t bytes, zp_mem_kind kind) {
    zp_reuse *r = arg;
    if (kind == ZP_MEM_HOST && bytes <= r->cap) {
        pthread_mutex_lock(&r->lock);
        int kept = r->n < ZP_REUSE_SLOTS && r->bytes + bytes <= r->cap;
        if (kept) {
            r->slot[r->n].p = p;
            r->slot[r->n].bytes = bytes;
            r->n++;
            r->bytes += bytes;
        }
        pthread_mutex_unlock(&r->lock);
        if (kept) return;
    }
    zp_allocator_mmap.free(zp_allocator_mmap.arg, p, bytes, kind);
}

void zp_reuse_init(zp_reuse *r, size_t cap) {
    memset(r, 0, sizeof *r);
    r->allocator = (zp_allocator){"mmap, reused", reuse_alloc, reuse_free, r};
    r->cap = cap;
    pthread_mutex_init(&r->lock, NULL);
}

void zp_reuse_destroy(zp_reuse *r) {
    for (size_t i = 0; i < r->n; i++)
        zp_allocator_mmap.free(zp_allocator_mmap.arg, r->slot[i].p, r->slot[i].bytes, ZP_MEM_HOST);
    r->n = 0;
    r->bytes = 0;
    pthread_mutex_destroy(&r->lock);
}
