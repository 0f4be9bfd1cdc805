/* Shared by the job store's tests (test_store.c, test_store_claims.c):
 * adding a job, reading one back, the store's clock. Header-only (static)
 * so each test program stays one .c file plus testutil. */
#ifndef ZP_TEST_STORE_COMMON_H
#define ZP_TEST_STORE_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "testutil.h"

/* A job of n partitions with witness paths /spool/TAG-<i>.wtns, under
 * request id rid (NULL: none); it must be new. */
static int64_t store_add(zp_store *s, const char *rid, const char *tag, const char *key, int prio, uint32_t n) {
    const char **paths = malloc(n * sizeof *paths);
    char(*buf)[64] = malloc(n * sizeof *buf);
    for (uint32_t i = 0; i < n; i++) {
        snprintf(buf[i], sizeof buf[i], "/spool/%s-%u.wtns", tag, i);
        paths[i] = buf[i];
    }
    int64_t id = 0;
    int existing = -1;
    zp_error err = {0};
    zp_status st = zp_store_add_job(&id, &existing, s, rid, NULL, key, NULL, NULL, prio, n, paths, &err);
    CHECK_MSG(st == ZP_OK && id > 0 && existing == 0, "adding %s: %s", tag, err.message);
    free(paths);
    free(buf);
    return id;
}

/* Whether a time is the store's clock's, now or a little before. */
static int recent(zp_store *s, double t) {
    double now = 0;
    zp_error err = {0};
    zp_status st = zp_store_clock(&now, s, &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    return t > now - 120 && t <= now + 0.001;
}

static zp_store_job get(zp_store *s, int64_t id) {
    zp_store_job j;
    memset(&j, 0, sizeof j);
    zp_error err = {0};
    zp_status st = zp_store_get_job(&j, s, id, &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    return j;
}

#endif
