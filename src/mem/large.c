#include "mem/large.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "base/error.h"

void *zp_mem_map(size_t bytes, const char *what, zp_error *err) {
    if (bytes == 0) bytes = 1;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        zp_error_set(err, ZP_ERR_NOMEM, "out of memory: %zu MiB for %s", bytes >> 20, what);
        return NULL;
    }
#ifdef MADV_HUGEPAGE
    if (bytes >= (2u << 20)) madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
}

void zp_mem_unmap(void *p, size_t bytes) {
    if (p != NULL) munmap(p, bytes == 0 ? 1 : bytes);
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
