#include "mem/large.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "base/error.h"
#include "mem/track.h"

/* Transparent huge pages from ZP_MEM_HUGE_MIN up. A huge page is zeroed whole
 * at its first touch, so a small buffer of which a proof touches only
 * part (the MSM scratch of a small key: 5 MB at 2^11, mostly batch room
 * and tree nodes that circom's 0/1 scalars leave unused) costs its full
 * 2 MiB multiples in RSS; large buffers gain from the fewer TLB misses.
 * Measured on the 2-core VM, whole zkpipe prove, THP from 16 MiB against
 * from 2 MiB: peak RSS 2^11 10.4 -> 9.5 MiB, 2^12 14.5 -> 11.8, 2^13
 * 21.7 -> 17.0, 2^14 28.5 -> 22.8, 2^16 51 -> 48; time within noise
 * (2^11-2^16, interleaved medians, ±3%). */

void *zp_mem_map(size_t bytes, const char *what, zp_error *err) {
    if (bytes == 0) bytes = 1;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        zp_error_set(err, ZP_ERR_NOMEM, "out of memory: %zu MiB for %s", bytes >> 20, what);
        return NULL;
    }
#ifdef MADV_HUGEPAGE
    if (bytes >= ZP_MEM_HUGE_MIN) madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
}

void zp_mem_unmap(void *p, size_t bytes) {
    if (p != NULL) munmap(p, bytes == 0 ? 1 : bytes);
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older glibc headers lack the name */
#endif

void zp_mem_prefault(void *p, size_t bytes) {
    size_t page = zp_track_round(1);
    uintptr_t lo = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1);
    uintptr_t hi = ((uintptr_t)p + bytes) & ~(uintptr_t)(page - 1);
    if (p != NULL && bytes < ZP_MEM_HUGE_MIN && hi > lo) (void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
}

void zp_mem_release(void *p, size_t bytes) {
    size_t page = zp_track_round(1);
    uintptr_t lo = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1);
    uintptr_t hi = ((uintptr_t)p + bytes) & ~(uintptr_t)(page - 1);
    if (p != NULL && hi > lo) (void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

size_t zp_mem_peak_rss(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    size_t kb = 0;
    if (f == NULL) return 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "VmHWM:", 6) == 0) {
            sscanf(line + 6, "%zu", &kb);
            break;
        }
    }
    fclose(f);
    return kb * 1024;
}
