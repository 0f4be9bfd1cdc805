/* The lines zp_store_repair gives for each damaged row (store.c words
 * them for every kind, store_impl.h zp_store_repair_line): a SQLite store
 * damaged by hand as test_store's test_repair_rows damages it, each
 * partition's line checked whole. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store.h"
#include "testutil.h"

typedef struct seen {
    char line[5][320];
    int n;
} seen;

static void on_repair(void *arg, int64_t job_id, uint32_t idx, const char *what) {
    seen *s = arg;
    (void)job_id;
    if (idx < 5) snprintf(s->line[idx], sizeof s->line[idx], "%s", what);
    s->n++;
}

int main(void) {
    zp_test_init("test_store_repair");
    char dir[] = "/tmp/zp_repair_XXXXXX", path[64];
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(path, sizeof path, "%s/db.db", dir);
    zp_store *s = NULL;
    zp_error err = {0};
    CHECK_MSG(zp_store_open(&s, path, &err) == ZP_OK, "%s", err.message);
    if (s == NULL) return zp_test_done();
    zp_store_node me;
    memset(&me, 0, sizeof me);
    snprintf(me.id, sizeof me.id, "live");
    CHECK(zp_store_join(s, &me, 0, &err) == ZP_OK);
    const char *paths[5] = {"/a0", "/a1", "/a2", "/a3", "/a4"};
    int64_t id = 0;
    int existing = 0;
    CHECK(zp_store_add_job(&id, &existing, s, "dmg", NULL, "k", NULL, NULL, 0, 5, paths, &err) == ZP_OK);
    zp_store_claim c[5];
    size_t n = 0;
    CHECK(zp_store_claim_work(c, 5, &n, s, "live", NULL, 0, 60, &err) == ZP_OK && n == 5);
    zp_store_close(s);

    /* an endless lease of no daemon, a ten-year lease, none, done unproved */
    char sql[1024];
    snprintf(sql, sizeof sql,
             "UPDATE partitions SET owner = 'ghost', lease_until = 9e999 WHERE job_id = %lld AND idx = 0;"
             "UPDATE partitions SET lease_until = lease_until + 315360000 WHERE job_id = %lld AND idx = 1;"
             "UPDATE partitions SET lease_until = NULL WHERE job_id = %lld AND idx = 2;"
             "UPDATE partitions SET state = 'done', proof = NULL, lease_until = NULL WHERE job_id = %lld AND idx = 3;",
             (long long)id, (long long)id, (long long)id, (long long)id);
    sqlite3 *db;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    CHECK_MSG(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK, "%s", sqlite3_errmsg(db));
    sqlite3_close(db);

    CHECK_MSG(zp_store_open(&s, path, &err) == ZP_OK, "%s", err.message);
    if (s == NULL) return zp_test_done();
    seen got = {0};
    size_t repaired = 0;
    CHECK(zp_store_repair(&repaired, s, on_repair, &got, &err) == ZP_OK && repaired == 4 && got.n == 4);
    static const char *const want[5] = {
        "claimed by 'ghost' with a lease that never ends: queued again",
        "claimed by 'live' with a lease past any daemon's (a day): queued again",
        "claimed by 'live' without a lease: queued again",
        "marked done without a proof: queued again, to be proved",
        "",
    };
    for (int i = 0; i < 5; i++) CHECK_MSG(strcmp(got.line[i], want[i]) == 0, "partition %d: '%s'", i, got.line[i]);

    /* a claim by a node that is no daemon of the store, under a lease it could have */
    zp_store_close(s);
    snprintf(sql, sizeof sql, "UPDATE partitions SET owner = 'gone' WHERE job_id = %lld AND idx = 4;", (long long)id);
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    CHECK_MSG(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK, "%s", sqlite3_errmsg(db));
    sqlite3_close(db);
    CHECK_MSG(zp_store_open(&s, path, &err) == ZP_OK, "%s", err.message);
    if (s == NULL) return zp_test_done();
    memset(&got, 0, sizeof got);
    CHECK(zp_store_repair(&repaired, s, on_repair, &got, &err) == ZP_OK && repaired == 1);
    CHECK_MSG(strcmp(got.line[4], "claimed by 'gone', no daemon of the store: queued again") == 0, "'%s'", got.line[4]);
    zp_store_close(s);

    unlink(path);
    char side[96];
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
    rmdir(dir);
    return zp_test_done();
}
