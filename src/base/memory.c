#include "base/memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A limit file's value; 0 for none ("max", unreadable, or v1's "no
 * limit", a page-rounded 2^63 - 1). */
static uint64_t read_limit(const char *path) {
    FILE *f = fopen(path, "r");
    if (f == NULL) return 0;
    char buf[64] = {0};
    unsigned long long v = 0;
    if (fgets(buf, sizeof buf, f) == NULL || sscanf(buf, "%llu", &v) != 1) v = 0;
    fclose(f);
    return v >= (1ULL << 62) ? 0 : (uint64_t)v;
}

/* The least limit of file in dir/path and each cgroup above it. */
static uint64_t cgroup_limit(const char *dir, const char *path, const char *file, char *where, size_t cap) {
    char p[1024];
    snprintf(p, sizeof p, "%s", path);
    uint64_t least = 0;
    for (;;) {
        char full[1200];
        snprintf(full, sizeof full, "%s%s/%s", dir, strcmp(p, "/") == 0 ? "" : p, file);
        uint64_t v = read_limit(full);
        if (v != 0 && (least == 0 || v < least)) {
            least = v;
            snprintf(where, cap, "the cgroup's limit, %s", full);
        }
        char *slash = strrchr(p, '/');
        if (slash == NULL || slash == p) {
            if (strcmp(p, "/") == 0) break;
            snprintf(p, sizeof p, "/");
            continue;
        }
        *slash = '\0';
    }
    return least;
}

uint64_t zp_memory_limit(char *what, size_t cap) {
    uint64_t total = 0;
    FILE *f = fopen("/proc/meminfo", "r");
    if (f != NULL) {
        char line[256];
        while (fgets(line, sizeof line, f)) {
            unsigned long long kb;
            if (sscanf(line, "MemTotal: %llu kB", &kb) == 1) {
                total = (uint64_t)kb * 1024;
                break;
            }
        }
        fclose(f);
    }
    char where[1300] = "RAM";
    /* "0::/path" (v2), "4:memory:/path" (v1): the process's cgroups,
     * relative to where /sys/fs/cgroup shows them */
    f = fopen("/proc/self/cgroup", "r");
    char line[1200];
    while (f != NULL && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (c2 == NULL || c2[1] != '/') continue;
        *c2 = '\0';
        char at[1300];
        uint64_t v = 0;
        if (strcmp(line, "0") == 0 && c1[1] == '\0')
            v = cgroup_limit("/sys/fs/cgroup", c2 + 1, "memory.max", at, sizeof at);
        else if (strstr(c1 + 1, "memory") != NULL)
            v = cgroup_limit("/sys/fs/cgroup/memory", c2 + 1, "memory.limit_in_bytes", at, sizeof at);
        if (v != 0 && (total == 0 || v < total)) {
            total = v;
            snprintf(where, sizeof where, "%s", at);
        }
    }
    if (f != NULL) fclose(f);
    if (what != NULL && cap > 0) snprintf(what, cap, "%s", where);
    return total;
}
