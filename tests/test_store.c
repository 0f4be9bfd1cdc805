/* The daemon's job store (src/store/store.h): rows round-trip byte-equal,
 * request ids are idempotent, jobs survive close/open and kill -9 in the
 * middle of adding, 8 threads at once lose or duplicate nothing, and bad
 * files (random bytes, truncated, a stranger's database, a newer schema,
 * an unwritable place) give clear errors. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "store/store.h"
#include "test_store_common.h"
#include "testutil.h"

static char dir[64];
static int db_serial;

/* A fresh database path in the test's directory. */
static void new_path(char *path, size_t cap) { snprintf(path, cap, "%s/db%d.db", dir, ++db_serial); }

static void remove_tree(const char *path) {
    DIR *d = opendir(path);
    if (d != NULL) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char p[512];
            snprintf(p, sizeof p, "%s/%s", path, e->d_name);
            remove_tree(p);
        }
        closedir(d);
        chmod(path, 0700);
        rmdir(path);
    } else {
        unlink(path);
    }
}

static zp_store *open_ok(const char *path) {
    zp_store *s = NULL;
    zp_error err = {0};
    zp_status st = zp_store_open(&s, path, &err);
    CHECK_MSG(st == ZP_OK && s != NULL, "%s", err.message);
    if (s == NULL) {
        fprintf(stderr, "cannot go on without a store\n");
        exit(1);
    }
    return s;
}

static int64_t add(zp_store *s, const char *rid, const char *key, int prio, uint32_t n) {
    return store_add(s, rid, rid ? rid : key, key, prio, n);
}

/* Marks jobs "running" with SQL of its own, the store closed: no function
 * of the store writes that state (the daemon keeps a job queued in the
 * store until it ends and asks the engine whether it runs), but the schema
 * allows it and a store from an older daemon holds such rows, which
 * zp_store_unfinished, zp_store_list and zp_store_count must still
 * report. */
static void mark_running(const char *path, const int64_t *ids, size_t n) {
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(db, "UPDATE jobs SET state = 'running' WHERE id = ?1", -1, &st, NULL);
    for (size_t i = 0; rc == SQLITE_OK && i < n; i++) {
        sqlite3_bind_int64(st, 1, ids[i]);
        rc = sqlite3_step(st) == SQLITE_DONE && sqlite3_changes(db) == 1 ? SQLITE_OK : SQLITE_ERROR;
        sqlite3_reset(st);
    }
    CHECK_MSG(rc == SQLITE_OK, "%s: marking jobs running: %s", path, db ? sqlite3_errmsg(db) : "cannot open");
    sqlite3_finalize(st);
    sqlite3_close(db);
}

static void finish(zp_store *s, int64_t id, zp_job_state state) {
    zp_error err = {0};
    zp_status st = zp_store_finish_job(s, id, state, NULL, NULL, 0, &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
}

/* Collects what the callbacks give. */
typedef struct listing {
    zp_store_job jobs[512];
    size_t n;
} listing;

static void list_cb(void *arg, const zp_store_job *job) {
    listing *l = arg;
    if (l->n < 512) l->jobs[l->n] = *job;
    l->n++;
}

static void list(listing *l, zp_store *s, uint32_t limit, int state) {
    l->n = 0;
    zp_error err = {0};
    zp_status st = zp_store_list(s, limit, state, list_cb, l, &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
}

typedef struct paths {
    char p[64][64];
    size_t n;
} paths;

static void path_cb(void *arg, const char *path) {
    paths *p = arg;
    if (p->n < 64) snprintf(p->p[p->n], sizeof p->p[0], "%s", path);
    p->n++;
}

static void counts(uint64_t c[5], zp_store *s) {
    zp_error err = {0};
    zp_store_counts all;
    zp_status st = zp_store_count(&all, s, &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    memcpy(c, all.jobs, sizeof all.jobs);
}

/* ---- add, get, list, counts ---- */

static void test_basic(void) {
    char path[128];
    new_path(path, sizeof path);
    zp_store *s = open_ok(path);
    zp_error err = {0};

    int64_t a = add(s, NULL, "merkle", 0, 2);
    int64_t b = add(s, "req-b", "sha", 7, 3);
    int64_t c = add(s, NULL, "merkle", -3, 1);
    CHECK(a >= 1 && b > a && c > b);

    zp_store_job j = get(s, b);
    CHECK(j.id == b && !strcmp(j.request_id, "req-b") && !strcmp(j.key_id, "sha") && j.priority == 7);
    CHECK(j.partitions == 3 && j.done == 0 && j.state == ZP_JOB_QUEUED && j.error[0] == '\0');
    CHECK(recent(s, j.submitted) && j.finished == 0);
    j = get(s, a);
    CHECK(j.request_id[0] == '\0' && j.priority == 0 && j.partitions == 2);
    CHECK(get(s, c).priority == -3);

    zp_store_job none;
    zp_status st = zp_store_get_job(&none, s, c + 100, &err);
    CHECK(st == ZP_ERR_ARG && strstr(err.message, "no job") && strstr(err.message, path));

    paths p = {0};
    st = zp_store_witness_paths(s, b, path_cb, &p, &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    CHECK(p.n == 3 && !strcmp(p.p[0], "/spool/req-b-0.wtns") && !strcmp(p.p[2], "/spool/req-b-2.wtns"));
    CHECK(zp_store_witness_paths(s, 999999, path_cb, &p, &err) == ZP_ERR_ARG);

    listing *l = malloc(sizeof *l);
    list(l, s, 0, -1);
    CHECK(l->n == 3 && l->jobs[0].id == c && l->jobs[1].id == b && l->jobs[2].id == a);

    uint64_t n[5];
    counts(n, s);
    CHECK(n[0] == 3 && n[1] == 0 && n[2] == 0 && n[3] == 0 && n[4] == 0);

    finish(s, a, ZP_JOB_DONE);
    finish(s, c, ZP_JOB_CANCELLED);
    CHECK(get(s, a).state == ZP_JOB_DONE);
    counts(n, s);
    CHECK(n[0] == 1 && n[1] == 0 && n[2] == 1 && n[3] == 0 && n[4] == 1);
    j = get(s, a);
    CHECK(recent(s, j.finished) && j.finished >= j.submitted && j.done == 0); /* no results given */

    /* Bad arguments. */
    int64_t id;
    int existing;
    const char *w[2] = {"/x", NULL};
    CHECK(zp_store_add_job(&id, &existing, s, NULL, NULL, "k", NULL, NULL, 0, 0, w, &err) == ZP_ERR_ARG);
    CHECK(zp_store_add_job(&id, &existing, s, NULL, NULL, "k", NULL, NULL, 0, 2, w, &err) == ZP_ERR_ARG &&
          strstr(err.message, "partition 1"));
    CHECK(zp_store_add_job(&id, &existing, s, NULL, NULL, "", NULL, NULL, 0, 1, w, &err) == ZP_ERR_ARG);
    char longkey[200];
    memset(longkey, 'k', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = '\0';
    CHECK(zp_store_add_job(&id, &existing, s, NULL, NULL, longkey, NULL, NULL, 0, 1, w, &err) == ZP_ERR_ARG);
    longkey[127] = '\0'; /* 127 bytes: the most a key id may have */
    CHECK(zp_store_add_job(&id, &existing, s, NULL, NULL, longkey, NULL, NULL, 0, 1, w, &err) == ZP_OK);
    CHECK(!strcmp(get(s, id).key_id, longkey));
    CHECK(zp_store_list(s, 10, 7, list_cb, l, &err) == ZP_ERR_ARG && strstr(err.message, "no state 7"));
    CHECK(zp_store_finish_job(s, b, ZP_JOB_RUNNING, NULL, NULL, 0, &err) == ZP_ERR_ARG);
    CHECK(zp_store_finish_job(s, b, (zp_job_state)9, NULL, NULL, 0, &err) == ZP_ERR_ARG);
    CHECK(zp_store_finish_job(s, 777777, ZP_JOB_DONE, NULL, NULL, 0, &err) == ZP_ERR_ARG);
    CHECK(get(s, b).state == ZP_JOB_QUEUED);
    free(l);
    zp_store_close(s);
}

/* ---- request ids ---- */

static void raw_exec(const char *path, const char *sql);

/* The request's digest is kept with the job and read back; a store made
 * before it existed (schema version 1) is upgraded in place, its jobs
 * without one. */
static void test_request_digest(void) {
    char path[128];
    new_path(path, sizeof path);
    zp_store *s = open_ok(path);
    zp_error err = {0};
    const char *w[1] = {"/a"};
    const char *d1 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    int64_t id1, id2;
    int existing;
    char longer[80];
    memset(longer, 'd', 65);
    longer[65] = '\0';
    CHECK(zp_store_add_job(&id1, &existing, s, "r", longer, "k", NULL, NULL, 0, 1, w, &err) == ZP_ERR_ARG);
    CHECK(zp_store_add_job(&id1, &existing, s, "r", d1, "k", NULL, NULL, 0, 1, w, &err) == ZP_OK && !existing);
    CHECK(zp_store_add_job(&id2, &existing, s, "r", "other", "k", NULL, NULL, 0, 1, w, &err) == ZP_OK && existing &&
          id2 == id1);
    CHECK(!strcmp(get(s, id1).request_digest, d1)); /* the first one's, untouched */
    CHECK(zp_store_add_job(&id2, &existing, s, NULL, NULL, "k", NULL, NULL, 0, 1, w, &err) == ZP_OK &&
          get(s, id2).request_digest[0] == '\0');
    zp_store_close(s);

    /* version 1: the schema as zkpipe 0.1 made it */
    new_path(path, sizeof path);
    raw_exec(path,
             "CREATE TABLE jobs(id INTEGER PRIMARY KEY AUTOINCREMENT, request_id TEXT UNIQUE,"
             " key_id TEXT NOT NULL, priority INTEGER NOT NULL, partitions INTEGER NOT NULL CHECK(partitions > 0),"
             " done INTEGER NOT NULL DEFAULT 0, state TEXT NOT NULL CHECK(state IN"
             " ('queued','running','done','failed','cancelled')), error TEXT, submitted REAL NOT NULL,"
             " finished REAL);"
             "CREATE INDEX jobs_state ON jobs(state);"
             "CREATE INDEX jobs_finished ON jobs(finished) WHERE finished IS NOT NULL;"
             "CREATE TABLE partitions(job_id INTEGER NOT NULL REFERENCES jobs(id), idx INTEGER NOT NULL,"
             " witness TEXT NOT NULL, proof TEXT, public TEXT, queued REAL, synth REAL, wait_prove REAL,"
             " prove REAL, wait_final REAL, final REAL, total REAL, PRIMARY KEY(job_id, idx));"
             "INSERT INTO jobs(request_id, key_id, priority, partitions, state, submitted)"
             " VALUES('old', 'k', 0, 1, 'queued', 1);"
             "INSERT INTO partitions(job_id, idx, witness) VALUES(1, 0, '/old');"
             "PRAGMA application_id = 2053861488; PRAGMA user_version = 1;");
    s = open_ok(path);
    zp_store_job j = get(s, 1);
    CHECK(!strcmp(j.request_id, "old") && j.request_digest[0] == '\0' && j.state == ZP_JOB_QUEUED);
    CHECK(zp_store_add_job(&id2, &existing, s, "new", d1, "k", NULL, NULL, 0, 1, w, &err) == ZP_OK && !existing &&
          !strcmp(get(s, id2).request_digest, d1));
    zp_store_close(s);
    s = open_ok(path); /* and it stays upgraded */
    CHECK(!strcmp(get(s, id2).request_digest, d1));
    zp_store_close(s);
}

static void test_request_ids(void) {
    char path[128];
    new_path(path, sizeof path);
    zp_store *s = open_ok(path);
    zp_error err = {0};
    const char *w[3] = {"/a", "/b", "/c"};
    int64_t id1, id2, found;
    int existing;

    CHECK(zp_store_add_job(&id1, &existing, s, "client-1", NULL, "k", NULL, NULL, 0, 2, w, &err) == ZP_OK &&
          existing == 0);
    CHECK(zp_store_add_job(&id2, &existing, s, "client-1", NULL, "other", NULL, NULL, 3, 3, w, &err) == ZP_OK);
    CHECK(existing == 1 && id2 == id1);
    zp_store_job j = get(s, id1); /* the first one, untouched */
    CHECK(!strcmp(j.key_id, "k") && j.partitions == 2 && recent(s, j.submitted));
    CHECK(zp_store_find_request(&found, s, "client-1", &err) == ZP_OK && found == id1);
    CHECK(zp_store_find_request(&found, s, "client-2", &err) == ZP_OK && found == 0);
    CHECK(zp_store_find_request(&found, s, "", &err) == ZP_OK && found == 0);
    CHECK(zp_store_find_request(&found, s, NULL, &err) == ZP_OK && found == 0);

    /* No request id: each add is a new job. */
    CHECK(zp_store_add_job(&id2, &existing, s, NULL, NULL, "k", NULL, NULL, 0, 1, w, &err) == ZP_OK && existing == 0 &&
          id2 > id1);
    int64_t id3;
    CHECK(zp_store_add_job(&id3, &existing, s, "", NULL, "k", NULL, NULL, 0, 1, w, &err) == ZP_OK && existing == 0 &&
          id3 > id2);
    uint64_t n[5];
    counts(n, s);
    CHECK(n[0] == 3);

    /* 128 bytes is the most. */
    char rid[130];
    memset(rid, 'r', 129);
    rid[129] = '\0';
    CHECK(zp_store_add_job(&id2, &existing, s, rid, NULL, "k", NULL, NULL, 0, 1, w, &err) == ZP_ERR_ARG &&
          strstr(err.message, "128"));
    rid[128] = '\0';
    CHECK(zp_store_add_job(&id2, &existing, s, rid, NULL, "k", NULL, NULL, 0, 1, w, &err) == ZP_OK && existing == 0);
    CHECK(!strcmp(get(s, id2).request_id, rid));
    /* Still found after the job ended. */
    finish(s, id1, ZP_JOB_DONE);
    CHECK(zp_store_add_job(&id2, &existing, s, "client-1", NULL, "k", NULL, NULL, 0, 2, w, &err) == ZP_OK &&
          existing == 1 && id2 == id1);
    zp_store_close(s);
}

/* ---- results ---- */

/* A random string of bytes 1..255 (SQLite keeps text as given), sometimes
 * long enough to spill over many pages. */
static char *rand_text(void) {
    size_t n = zp_test_rand64() % 4 == 0 ? zp_test_rand64() % 200000 : zp_test_rand64() % 2000;
    char *t = malloc(n + 1);
    for (size_t i = 0; i < n; i++) t[i] = (char)(1 + zp_test_rand64() % 255);
    t[n] = '\0';
    return t;
}

static double rand_time(void) { return (double)(zp_test_rand64() >> 11) * 0x1p-53 * 1000.0; }

typedef struct expect {
    zp_store_result *r;
    uint32_t n, seen;
    int bad;
} expect;

static int same_times(const zp_store_times *a, const zp_store_times *b) {
    return a->queued == b->queued && a->synth == b->synth && a->wait_prove == b->wait_prove && a->prove == b->prove &&
           a->wait_final == b->wait_final && a->final == b->final && a->total == b->total;
}

static int same_str(const char *a, const char *b) { return (a == NULL && b == NULL) || (a && b && !strcmp(a, b)); }

static void result_cb(void *arg, uint32_t idx, const char *proof, const char *pub, const zp_store_times *t) {
    expect *e = arg;
    if (idx != e->seen || idx >= e->n) {
        e->bad++;
        return;
    }
    const zp_store_result *r = &e->r[idx];
    if (!same_str(r->proof_json, proof) || !same_str(r->public_json, pub) || !same_times(&r->times, t)) e->bad++;
    e->seen++;
}

static void test_results(void) {
    char path[128];
    new_path(path, sizeof path);
    zp_store *s = open_ok(path);
    zp_error err = {0};
    size_t rounds = zp_test_iters(6);
    for (size_t round = 0; round < rounds; round++) {
        uint32_t n = 1 + (uint32_t)(zp_test_rand64() % 12);
        int64_t id = add(s, NULL, "k", 0, n);
        zp_store_result *r = calloc(n, sizeof *r);
        uint32_t with_proof = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (zp_test_rand64() % 5 != 0) {
                r[i].proof_json = rand_text();
                with_proof++;
            }
            if (zp_test_rand64() % 5 != 0) r[i].public_json = rand_text();
            double *tv[7] = {&r[i].times.queued,     &r[i].times.synth, &r[i].times.wait_prove, &r[i].times.prove,
                             &r[i].times.wait_final, &r[i].times.final, &r[i].times.total};
            for (int k = 0; k < 7; k++) *tv[k] = rand_time();
        }
        /* Before the end: every partition, no proof, zero times. */
        zp_store_result zero[12];
        memset(zero, 0, sizeof zero);
        expect e = {zero, n, 0, 0};
        CHECK(zp_store_results(s, id, result_cb, &e, &err) == ZP_OK && e.seen == n && e.bad == 0);

        CHECK(zp_store_finish_job(s, id, ZP_JOB_DONE, NULL, r, n + 1, &err) == ZP_ERR_ARG &&
              strstr(err.message, "partitions"));
        zp_status st = zp_store_finish_job(s, id, ZP_JOB_DONE, NULL, r, n, &err);
        CHECK_MSG(st == ZP_OK, "%s", err.message);
        e = (expect){r, n, 0, 0};
        st = zp_store_results(s, id, result_cb, &e, &err);
        CHECK_MSG(st == ZP_OK && e.seen == n && e.bad == 0, "%s seen %u bad %d", err.message, e.seen, e.bad);
        zp_store_job j = get(s, id);
        CHECK(j.state == ZP_JOB_DONE && j.done == with_proof && recent(s, j.finished));

        /* A job ends once. */
        zp_store_result other[12];
        memset(other, 0, sizeof other);
        st = zp_store_finish_job(s, id, ZP_JOB_FAILED, "late", other, n, &err);
        CHECK(st == ZP_ERR_ARG && strstr(err.message, "already ended"));
        e = (expect){r, n, 0, 0};
        CHECK(zp_store_results(s, id, result_cb, &e, &err) == ZP_OK && e.seen == n && e.bad == 0);
        CHECK(get(s, id).state == ZP_JOB_DONE);
        for (uint32_t i = 0; i < n; i++) {
            free((char *)r[i].proof_json);
            free((char *)r[i].public_json);
        }
        free(r);
    }

    /* Failed, with an error and no results; a long error is cut, not overrun. */
    int64_t id = add(s, NULL, "k", 0, 2);
    char msg[2000];
    memset(msg, 'e', sizeof msg - 1);
    msg[sizeof msg - 1] = '\0';
    const char *head = "partition 1: witness.wtns: truncated";
    memcpy(msg, head, strlen(head));
    CHECK(zp_store_finish_job(s, id, ZP_JOB_FAILED, msg, NULL, 0, &err) == ZP_OK);
    zp_store_job j = get(s, id);
    CHECK(j.state == ZP_JOB_FAILED && strlen(j.error) == sizeof j.error - 1 && !strncmp(j.error, msg, strlen(head)));
    zp_store_result zero[2];
    memset(zero, 0, sizeof zero);
    expect e = {zero, 2, 0, 0};
    CHECK(zp_store_results(s, id, result_cb, &e, &err) == ZP_OK && e.seen == 2 && e.bad == 0);
    CHECK(zp_store_results(s, 1 << 30, result_cb, &e, &err) == ZP_ERR_ARG && strstr(err.message, "no job"));
    zp_store_close(s);
}

/* ---- durability across close/open; unfinished; expire ---- */

typedef struct unfinished {
    int64_t ids[64];
    uint32_t parts[64];
    char first[64][64];
    size_t n;
    int bad;
    int64_t damaged[16];
    char damage[16][512];
    size_t n_damaged;
} unfinished;

static void unfinished_cb(void *arg, const zp_store_job *job, const char *const *w, const char *damage) {
    unfinished *u = arg;
    if (damage != NULL || w == NULL) {
        if (u->n_damaged < 16) {
            u->damaged[u->n_damaged] = job->id;
            snprintf(u->damage[u->n_damaged], sizeof u->damage[0], "%s", damage ? damage : "(none)");
        }
        u->n_damaged++;
        return;
    }
    if (u->n >= 64) return;
    u->ids[u->n] = job->id;
    u->parts[u->n] = job->partitions;
    snprintf(u->first[u->n], sizeof u->first[0], "%s", w[0]);
    for (uint32_t i = 0; i < job->partitions; i++) {
        char want[200];
        snprintf(want, sizeof want, "/spool/%s-%u.wtns", job->request_id, i);
        if (w[i] == NULL || strcmp(w[i], want) != 0) u->bad++;
    }
    if (w[job->partitions] != NULL) u->bad++;
    if (job->state != ZP_JOB_QUEUED && job->state != ZP_JOB_RUNNING) u->bad++;
    u->n++;
}

static void test_reopen_expire(void) {
    char path[128];
    new_path(path, sizeof path);
    zp_store *s = open_ok(path);
    zp_error err = {0};
    int64_t ids[12];
    for (int i = 0; i < 12; i++) {
        char rid[16];
        snprintf(rid, sizeof rid, "r%d", i);
        ids[i] = add(s, rid, "k", i % 3, 1 + i % 4);
    }
    /* 0-3 queued, 4-5 running (as a store written by an older daemon
     * holds them), 6-8 ended 2 s before 9-11 (the store's clock) */
    for (int i = 6; i < 12; i++) {
        if (i == 9) usleep(2000 * 1000);
        finish(s, ids[i], i % 2 ? ZP_JOB_FAILED : ZP_JOB_DONE);
    }
    zp_store_close(s);
    mark_running(path, ids + 4, 2);

    s = open_ok(path);
    unfinished u = {0};
    zp_status st = zp_store_unfinished(s, unfinished_cb, &u, &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    CHECK(u.n == 6 && u.bad == 0);
    for (int i = 0; i < 6 && i < (int)u.n; i++) CHECK(u.ids[i] == ids[i] && u.parts[i] == (uint32_t)(1 + i % 4));
    zp_store_job j = get(s, ids[5]);
    CHECK(j.state == ZP_JOB_RUNNING && !strcmp(j.request_id, "r5") && j.priority == 2 && recent(s, j.submitted));
    j = get(s, ids[7]);
    CHECK(j.state == ZP_JOB_FAILED && recent(s, j.finished));

    /* Expire: only ended jobs finished more than 1.2 s ago (6, 7, 8). */
    paths p = {0};
    uint64_t deleted = 99;
    st = zp_store_expire(&deleted, s, 1.2, path_cb, &p, &err);
    CHECK_MSG(st == ZP_OK && deleted == 3, "%s (%llu)", err.message, (unsigned long long)deleted);
    CHECK(p.n == (size_t)(1 + 6 % 4) + (1 + 7 % 4) + (1 + 8 % 4));
    CHECK(!strcmp(p.p[0], "/spool/r6-0.wtns"));
    for (int i = 6; i < 9; i++) CHECK(zp_store_get_job(&j, s, ids[i], &err) == ZP_ERR_ARG);
    for (int i = 9; i < 12; i++) CHECK(zp_store_get_job(&j, s, ids[i], &err) == ZP_OK);
    /* Expired request ids are free again. */
    int64_t found;
    CHECK(zp_store_find_request(&found, s, "r6", &err) == ZP_OK && found == 0);
    /* A ttl of 0: every ended job, never a queued or running one. */
    st = zp_store_expire(&deleted, s, 0, NULL, NULL, &err);
    CHECK(st == ZP_OK && deleted == 3);
    uint64_t n[5];
    counts(n, s);
    CHECK(n[0] == 4 && n[1] == 2 && n[2] == 0 && n[3] == 0 && n[4] == 0);
    /* Ids are never reused, even when the highest was deleted. */
    int64_t id = add(s, NULL, "k", 0, 1);
    CHECK(id > ids[11]);
    finish(s, id, ZP_JOB_DONE);
    CHECK(zp_store_expire(&deleted, s, 0, NULL, NULL, &err) == ZP_OK && deleted == 1);
    zp_store_close(s);
    s = open_ok(path);
    int64_t id2 = add(s, NULL, "k", 0, 1);
    CHECK(id2 > id);
    CHECK(zp_store_expire(&deleted, s, 0, NULL, NULL, &err) == ZP_OK && deleted == 0);
    zp_store_close(s);
}

/* ---- list: state filter and limit against a model ---- */

static void test_list(void) {
    char path[128];
    new_path(path, sizeof path);
    zp_store *s = open_ok(path);
    enum { N = 120 };
    int64_t ids[N];
    int state[N];
    for (int i = 0; i < N; i++) {
        ids[i] = add(s, NULL, "k", 0, 1);
        state[i] = (int)(zp_test_rand64() % 5);
        if (state[i] >= 2) finish(s, ids[i], (zp_job_state)state[i]);
    }
    /* "running" rows come only from stores of older daemons (see
     * mark_running): write them behind the store's back, then reopen */
    zp_store_close(s);
    int64_t running[N];
    size_t n_running = 0;
    for (int i = 0; i < N; i++) {
        if (state[i] == 1) running[n_running++] = ids[i];
    }
    mark_running(path, running, n_running);
    s = open_ok(path);
    listing *l = malloc(sizeof *l);
    for (int f = -1; f < 5; f++) {
        const uint32_t limits[4] = {0, 1, 7, 1000};
        for (int li = 0; li < 4; li++) {
            list(l, s, limits[li], f);
            size_t k = 0, bad = 0;
            for (int i = N - 1; i >= 0; i--) {
                if (f >= 0 && state[i] != f) continue;
                if (limits[li] && k == limits[li]) break;
                if (k >= l->n || l->jobs[k].id != ids[i] || (int)l->jobs[k].state != state[i]) bad++;
                k++;
            }
            CHECK_MSG(bad == 0 && k == l->n, "state %d limit %u: %zu listed, %zu expected, %zu wrong", f, limits[li],
                      l->n, k, bad);
        }
    }
    uint64_t n[5], want[5] = {0};
    for (int i = 0; i < N; i++) want[state[i]]++;
    counts(n, s);
    CHECK(!memcmp(n, want, sizeof n));
    free(l);
    zp_store_close(s);
}

/* ---- 8 threads at once ---- */

enum { THREADS = 8, SHARED = 16 };

typedef struct worker {
    zp_store *s;
    int t, jobs;
    int64_t shared_ids[SHARED];
    int failures;
    char msg[512];
} worker;

static void *worker_run(void *arg) {
    worker *w = arg;
    zp_error err = {0};
    const char *paths[3] = {"/w/0", "/w/1", "/w/2"};
    for (int i = 0; i < w->jobs; i++) {
        char rid[64];
        int64_t id;
        int existing;
        snprintf(rid, sizeof rid, "t%d-%d", w->t, i);
        uint32_t n = 1 + (uint32_t)((w->t + i) % 3);
        if (zp_store_add_job(&id, &existing, w->s, rid, NULL, "k", NULL, NULL, i, n, paths, &err) != ZP_OK || existing)
            goto fail;
        /* Every thread also tries the same shared request ids. */
        if (i < SHARED) {
            snprintf(rid, sizeof rid, "shared-%d", (i + w->t) % SHARED);
            if (zp_store_add_job(&w->shared_ids[(i + w->t) % SHARED], &existing, w->s, rid, NULL, "k", NULL, NULL, 0, 1,
                                 paths, &err) != ZP_OK)
                goto fail;
        }
        zp_store_result r[3] = {{.proof_json = "{\"pi_a\":[]}", .public_json = "[\"1\"]", .times = {.total = i}},
                                {.proof_json = "{}", .public_json = "[]"},
                                {.proof_json = NULL}};
        if (zp_store_finish_job(w->s, id, ZP_JOB_DONE, NULL, r, n, &err) != ZP_OK) goto fail;
        if (i % 16 == 0) {
            zp_store_counts c;
            if (zp_store_count(&c, w->s, &err) != ZP_OK) goto fail;
            if (zp_store_list(w->s, 20, ZP_JOB_DONE, NULL, NULL, &err) != ZP_OK) goto fail;
        }
    }
    return NULL;
fail:
    w->failures++;
    snprintf(w->msg, sizeof w->msg, "%s", err.message);
    return NULL;
}

typedef struct seen {
    unsigned char *own; /* [THREADS][jobs] */
    unsigned char shared[SHARED];
    int jobs, bad;
    size_t n;
} seen;

static void seen_cb(void *arg, const zp_store_job *job) {
    seen *z = arg;
    int t, i;
    z->n++;
    if (sscanf(job->request_id, "t%d-%d", &t, &i) == 2 && t >= 0 && t < THREADS && i >= 0 && i < z->jobs) {
        z->own[t * z->jobs + i]++;
        uint32_t n = 1 + (uint32_t)((t + i) % 3);
        if (job->state != ZP_JOB_DONE || job->partitions != n || job->done != (n == 3 ? 2 : n)) z->bad++;
    } else if (sscanf(job->request_id, "shared-%d", &i) == 1 && i >= 0 && i < SHARED) {
        z->shared[i]++;
    } else {
        z->bad++;
    }
}

static void test_threads(void) {
    char path[128];
    new_path(path, sizeof path);
    zp_store *s = open_ok(path);
    zp_error err = {0};
    int jobs = (int)zp_test_iters(60);
    if (jobs < SHARED) jobs = SHARED;
    worker w[THREADS];
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++) {
        memset(&w[t], 0, sizeof w[t]);
        w[t].s = s;
        w[t].t = t;
        w[t].jobs = jobs;
        CHECK(pthread_create(&th[t], NULL, worker_run, &w[t]) == 0);
    }
    for (int t = 0; t < THREADS; t++) {
        pthread_join(th[t], NULL);
        CHECK_MSG(w[t].failures == 0, "thread %d: %s", t, w[t].msg);
    }
    /* Each shared request id made one job, the same for every thread. */
    for (int i = 0; i < SHARED; i++)
        for (int t = 1; t < THREADS; t++) CHECK(w[t].shared_ids[i] == w[0].shared_ids[i] && w[0].shared_ids[i] > 0);

    seen z = {0};
    z.jobs = jobs;
    z.own = calloc((size_t)THREADS * jobs, 1);
    CHECK(zp_store_list(s, 0, -1, seen_cb, &z, &err) == ZP_OK);
    CHECK(z.n == (size_t)THREADS * jobs + SHARED && z.bad == 0);
    size_t once = 0;
    for (int k = 0; k < THREADS * jobs; k++) once += z.own[k] == 1;
    CHECK(once == (size_t)THREADS * jobs);
    for (int i = 0; i < SHARED; i++) CHECK(z.shared[i] == 1);
    uint64_t n[5];
    counts(n, s);
    CHECK(n[0] == SHARED && n[2] == (uint64_t)THREADS * jobs && n[1] == 0);
    free(z.own);
    zp_store_close(s);
}

/* ---- kill -9 while adding ---- */

typedef struct added {
    int64_t id;
    uint32_t partitions, seq;
} added;

static void crash_child(const char *path, int fd) {
    zp_store *s = NULL;
    zp_error err = {0};
    if (zp_store_open(&s, path, &err) != ZP_OK) _exit(2);
    char buf[8][64];
    const char *paths[8];
    for (uint32_t seq = 0;; seq++) {
        uint32_t n = 1 + seq % 8;
        char rid[32];
        snprintf(rid, sizeof rid, "c%u", seq);
        for (uint32_t i = 0; i < n; i++) {
            snprintf(buf[i], sizeof buf[i], "/spool/c%u-%u.wtns", seq, i);
            paths[i] = buf[i];
        }
        int64_t id;
        int existing;
        if (zp_store_add_job(&id, &existing, s, rid, NULL, "k", NULL, NULL, 0, n, paths, &err) != ZP_OK || existing)
            _exit(3);
        added a = {id, n, seq};
        if (write(fd, &a, sizeof a) != (ssize_t)sizeof a) _exit(4);
        /* Some jobs end too, so that the kill can land in a finish. */
        if (seq % 3 == 0 && zp_store_finish_job(s, id, ZP_JOB_DONE, NULL, NULL, 0, &err) != ZP_OK) _exit(5);
    }
}

static void test_crash(void) {
    size_t rounds = zp_test_iters(4), reported = 0;
    for (size_t round = 0; round < rounds; round++) {
        char path[128];
        new_path(path, sizeof path);
        int fds[2];
        CHECK(pipe(fds) == 0);
        pid_t pid = fork();
        if (pid == 0) {
            close(fds[0]);
            crash_child(path, fds[1]);
            _exit(0);
        }
        close(fds[1]);
        /* Read what the child reports while it runs, and kill it at a
         * random moment 0..250 ms after its first job (or after 10 s). */
        added *got = NULL;
        size_t n = 0, cap = 0;
        double start = zp_clock_now(), deadline = start + 10;
        fcntl(fds[0], F_SETFL, O_NONBLOCK);
        while (zp_clock_now() < deadline) {
            if (n == cap) got = realloc(got, (cap = cap ? 2 * cap : 1024) * sizeof *got);
            ssize_t r = read(fds[0], &got[n], sizeof *got);
            if (r == (ssize_t)sizeof *got) {
                if (n++ == 0) deadline = zp_clock_now() + (double)(zp_test_rand64() % 250) / 1000.0;
            } else {
                usleep(100);
            }
        }
        kill(pid, SIGKILL);
        int status;
        waitpid(pid, &status, 0);
        CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "child ended otherwise (status %d)", status);
        fcntl(fds[0], F_SETFL, 0);
        for (;;) { /* the rest of what it wrote before it died */
            if (n == cap) got = realloc(got, (cap = cap ? 2 * cap : 1024) * sizeof *got);
            if (read(fds[0], &got[n], sizeof *got) != (ssize_t)sizeof *got) break;
            n++;
        }
        close(fds[0]);

        zp_store *s = open_ok(path);
        zp_error err = {0};
        size_t missing = 0;
        for (size_t i = 0; i < n; i++) {
            zp_store_job j;
            paths p = {0};
            if (zp_store_get_job(&j, s, got[i].id, &err) != ZP_OK ||
                zp_store_witness_paths(s, got[i].id, path_cb, &p, &err) != ZP_OK) {
                missing++;
                continue;
            }
            char rid[32], w0[64];
            snprintf(rid, sizeof rid, "c%u", got[i].seq);
            snprintf(w0, sizeof w0, "/spool/c%u-0.wtns", got[i].seq);
            if (strcmp(j.request_id, rid) || j.partitions != got[i].partitions || p.n != got[i].partitions ||
                strcmp(p.p[0], w0))
                missing++;
        }
        CHECK_MSG(missing == 0, "round %zu: %zu of %zu reported jobs missing or incomplete", round, missing, n);
        /* The store is whole: every job has all its partitions. */
        uint64_t c[5];
        counts(c, s);
        CHECK(c[0] + c[2] >= n);
        CHECK(zp_store_unfinished(s, NULL, NULL, &err) == ZP_OK);
        int64_t id;
        int existing;
        const char *w[1] = {"/after"};
        CHECK(zp_store_add_job(&id, &existing, s, "after-crash", NULL, "k", NULL, NULL, 0, 1, w, &err) == ZP_OK &&
              existing == 0);
        zp_store_close(s);
        free(got);
        reported += n;
    }
    printf("test_store: kill -9 in %zu rounds: %zu jobs reported added, all present and whole\n", rounds, reported);
}

/* ---- bad files and places ---- */

static void write_file(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f == NULL) return;
    CHECK(fwrite(p, 1, n, f) == n);
    fclose(f);
}

static void expect_open_fails(const char *path, zp_status want, const char *needle) {
    zp_store *s = (zp_store *)1;
    zp_error err = {0};
    zp_status st = zp_store_open(&s, path, &err);
    CHECK_MSG(st == want && s == NULL, "%s: status %d, want %d: %s", path, st, want, err.message);
    CHECK_MSG(strstr(err.message, path) != NULL && (needle == NULL || strstr(err.message, needle) != NULL),
              "'%s' lacks the path or '%s'", err.message, needle ? needle : "");
    if (st != ZP_OK) printf("test_store: (expected) %s\n", err.message);
    if (st == ZP_OK) zp_store_close(s);
}

static void raw_exec(const char *path, const char *sql) {
    sqlite3 *db;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    CHECK_MSG(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK, "%s", sqlite3_errmsg(db));
    sqlite3_close(db);
}

/* Rows that keep a job running for ever, written by hand: a claim by a
 * node that is no daemon with an infinite lease, one of a live daemon with
 * a lease of ten years, one without a lease, a partition done without a
 * proof. zp_store_repair queues each again, says why, and the job ends
 * done once they are proved. A claim of the live daemon under a lease it
 * could have is left alone. */
static void test_repair_rows(void) {
    char path[128];
    new_path(path, sizeof path);
    zp_store *s = open_ok(path);
    zp_error err = {0};
    zp_store_node me;
    memset(&me, 0, sizeof me);
    snprintf(me.id, sizeof me.id, "live");
    CHECK(zp_store_join(s, &me, 0, &err) == ZP_OK);
    int64_t id = add(s, "dmg", "k", 0, 5);
    size_t n = 0;
    zp_store_claim c[5];
    CHECK(zp_store_claim_work(c, 5, &n, s, "live", NULL, 0, 60, &err) == ZP_OK && n == 5);
    zp_store_close(s);
    char sql[1024];
    snprintf(sql, sizeof sql,
             "UPDATE partitions SET owner = 'ghost', lease_until = 9e999 WHERE job_id = %lld AND idx = 0;"
             "UPDATE partitions SET lease_until = lease_until + 315360000 WHERE job_id = %lld AND idx = 1;"
             "UPDATE partitions SET lease_until = NULL WHERE job_id = %lld AND idx = 2;"
             "UPDATE partitions SET state = 'done', proof = NULL, lease_until = NULL WHERE job_id = %lld AND idx = 3;",
             (long long)id, (long long)id, (long long)id, (long long)id);
    raw_exec(path, sql);
    s = open_ok(path);
    size_t repaired = 0;
    CHECK(zp_store_repair(&repaired, s, NULL, NULL, &err) == ZP_OK && repaired == 4);
    CHECK(zp_store_repair(&repaired, s, NULL, NULL, &err) == ZP_OK && repaired == 0);
    zp_store_counts pc;
    CHECK(zp_store_count(&pc, s, &err) == ZP_OK && pc.parts_queued == 4 && pc.parts_running == 1);
    /* proved again by the live daemon: the job ends done with 5 proofs */
    zp_store_claim again[5];
    CHECK(zp_store_claim_work(again, 5, &n, s, "live", NULL, 0, 60, &err) == ZP_OK && n == 4);
    zp_store_result res = {.proof_json = "{}", .public_json = "[]"};
    int ended = 0, ends = 0;
    for (size_t i = 0; i < n; i++) {
        zp_store_held h = {again[i].job_id, again[i].idx, again[i].fence};
        CHECK(zp_store_finish_part(&ended, s, &h, ZP_JOB_DONE, NULL, &res, &err) == ZP_OK);
        ends += ended;
    }
    zp_store_held h4 = {c[4].job_id, c[4].idx, c[4].fence};
    CHECK(zp_store_finish_part(&ended, s, &h4, ZP_JOB_DONE, NULL, &res, &err) == ZP_OK);
    ends += ended;
    zp_store_job j = get(s, id);
    CHECK_MSG(ends == 1 && j.state == ZP_JOB_DONE && j.done == 5, "ends %d state %d done %u", ends, (int)j.state,
              j.done);
    zp_store_close(s);
}

/* The SQLite store's clock: the wall clock, but never behind the latest
 * time the file holds (a clock set back since it was written), unless that
 * time is absurd (a damaged row); job times are its. */
static void test_store_clock(void) {
    char path[128];
    new_path(path, sizeof path);
    zp_store *s = open_ok(path);
    zp_error err = {0};
    double now = 0, wall = (double)time(NULL);
    CHECK(zp_store_clock(&now, s, &err) == ZP_OK && now > wall - 2 && now < wall + 2);
    int64_t id = add(s, NULL, "k", 0, 1);
    finish(s, id, ZP_JOB_DONE);
    zp_store_close(s);
    /* the file says a job finished a day from now: the clock went back */
    raw_exec(path, "UPDATE jobs SET finished = finished + 86400");
    s = open_ok(path);
    CHECK(zp_store_clock(&now, s, &err) == ZP_OK && now > wall + 86390 && now < wall + 86410);
    uint64_t deleted = 9;
    CHECK(zp_store_expire(&deleted, s, 60, NULL, NULL, &err) == ZP_OK && deleted == 0); /* not old */
    zp_store_close(s);
    /* ... or a damaged row: an absurd time is not a clock */
    raw_exec(path, "UPDATE jobs SET finished = 1e300");
    s = open_ok(path);
    CHECK(zp_store_clock(&now, s, &err) == ZP_OK && now > wall - 2 && now < wall + 2);
    zp_store_close(s);
}

/* Rows damaged by hand (or by a bug): each fails its own job in the
 * unfinished listing, with a reason; the others resume; the store opens
 * although a row breaks a CHECK constraint. */
static void test_damaged_rows(void) {
    char path[128];
    new_path(path, sizeof path);
    zp_store *s = open_ok(path);
    int64_t ids[8];
    for (int i = 0; i < 8; i++) {
        char rid[16];
        snprintf(rid, sizeof rid, "d%d", i);
        ids[i] = add(s, rid, "k", 0, 3);
    }
    zp_store_close(s);
    char sql[1024];
    snprintf(sql, sizeof sql,
             "DELETE FROM partitions WHERE job_id = %lld AND idx = 1;"
             "UPDATE partitions SET idx = 7 WHERE job_id = %lld AND idx = 2;"
             "UPDATE partitions SET witness = '' WHERE job_id = %lld AND idx = 0;"
             "UPDATE partitions SET witness = x'00ff' WHERE job_id = %lld AND idx = 2;"
             "UPDATE jobs SET partitions = 1000000000 WHERE id = %lld;"
             "PRAGMA ignore_check_constraints = ON; UPDATE jobs SET state = 'xyz' WHERE id = %lld;",
             (long long)ids[1], (long long)ids[2], (long long)ids[3], (long long)ids[4], (long long)ids[5],
             (long long)ids[6]);
    raw_exec(path, sql);
    static const char *const why[6] = {"partition 2 where partition 1",
                                       "partition 7 where partition 2",
                                       "no witness path",
                                       "no witness path",
                                       "3 of its 1000000000",
                                       "state 'xyz'"};

    s = open_ok(path);
    zp_error err = {0};
    unfinished u = {0};
    zp_status st = zp_store_unfinished(s, unfinished_cb, &u, &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    CHECK_MSG(u.n == 2 && u.bad == 0 && u.ids[0] == ids[0] && u.ids[1] == ids[7], "%zu good jobs", u.n);
    CHECK_MSG(u.n_damaged == 6, "%zu damaged jobs", u.n_damaged);
    for (size_t i = 0; i < 6 && i < u.n_damaged; i++) {
        CHECK_MSG(u.damaged[i] == ids[1 + i] && strstr(u.damage[i], why[i]) != NULL, "job %lld: '%s'",
                  (long long)u.damaged[i], u.damage[i]);
        printf("test_store: (expected) job %lld: %s\n", (long long)u.damaged[i], u.damage[i]);
    }
    /* each can be failed, which ends it */
    for (int i = 1; i < 7; i++)
        CHECK_MSG(zp_store_finish_job(s, ids[i], ZP_JOB_FAILED, "damaged", NULL, 0, &err) == ZP_OK, "%s", err.message);
    u = (unfinished){0};
    CHECK(zp_store_unfinished(s, unfinished_cb, &u, &err) == ZP_OK && u.n == 2 && u.n_damaged == 0);
    CHECK(get(s, ids[6]).state == ZP_JOB_FAILED);
    zp_store_close(s);
}

static void test_bad_files(void) {
    char path[128];
    /* Random bytes, big and small. */
    const size_t sizes[3] = {8192, 100, 1 << 20};
    for (int i = 0; i < 3; i++) {
        new_path(path, sizeof path);
        unsigned char *junk = malloc(sizes[i]);
        zp_test_rand_bytes(junk, sizes[i]);
        write_file(path, junk, sizes[i]);
        free(junk);
        expect_open_fails(path, ZP_ERR_FORMAT, "not a database");
    }

    /* A real store, then damaged: pages overwritten, or cut short. */
    new_path(path, sizeof path);
    zp_store *s = open_ok(path);
    for (int i = 0; i < 200; i++) add(s, NULL, "k", 0, 8);
    zp_store_close(s); /* checkpoints the WAL into the file */
    struct stat sb;
    CHECK(stat(path, &sb) == 0 && sb.st_size > 8 * 4096);
    char copy[160];
    snprintf(copy, sizeof copy, "%s.copy", path);
    {
        FILE *f = fopen(path, "rb");
        unsigned char *b = malloc((size_t)sb.st_size);
        CHECK(fread(b, 1, (size_t)sb.st_size, f) == (size_t)sb.st_size);
        fclose(f);
        /* Overwrite pages 2.. with random bytes, keeping the header page. */
        unsigned char *d = malloc((size_t)sb.st_size);
        memcpy(d, b, (size_t)sb.st_size);
        zp_test_rand_bytes(d + 4096, (size_t)sb.st_size - 4096);
        write_file(copy, d, (size_t)sb.st_size);
        expect_open_fails(copy, ZP_ERR_FORMAT, NULL);
        unlink(copy);
        /* Cut to half. */
        write_file(copy, b, (size_t)sb.st_size / 2);
        expect_open_fails(copy, ZP_ERR_FORMAT, NULL);
        unlink(copy);
        free(b);
        free(d);
    }

    /* Damage only a proof's overflow pages: the store opens (the jobs
     * table is whole), reading that proof and the full check give
     * ZP_ERR_FORMAT naming the file; the rest still works. */
    new_path(path, sizeof path);
    s = open_ok(path);
    int64_t small = add(s, NULL, "k", 0, 1), big = add(s, NULL, "k", 0, 1);
    size_t plen = 300000;
    char *proof = malloc(plen + 1);
    memset(proof, 'P', plen);
    proof[plen] = '\0';
    zp_store_result res = {.proof_json = proof, .public_json = "[]"};
    zp_error err = {0};
    CHECK(zp_store_finish_job(s, big, ZP_JOB_DONE, NULL, &res, 1, &err) == ZP_OK);
    zp_store_close(s);
    {
        FILE *f = fopen(path, "r+b");
        unsigned char page[4096];
        long pages = 0;
        for (long pg = 0; fread(page, 1, sizeof page, f) == sizeof page; pg++) {
            size_t k = 0;
            while (k < sizeof page && page[k] != 'P') k++;
            if (k + 64 < sizeof page && !memcmp(page + k, proof, 64) && pg % 3 == 0) {
                zp_test_rand_bytes(page, sizeof page);
                fseek(f, pg * 4096, SEEK_SET);
                CHECK(fwrite(page, 1, sizeof page, f) == sizeof page);
                fseek(f, (pg + 1) * 4096, SEEK_SET);
                pages++;
            }
        }
        fclose(f);
        CHECK(pages > 10);
    }
    s = open_ok(path);
    expect e = {&res, 1, 0, 0};
    zp_status st = zp_store_results(s, big, result_cb, &e, &err);
    CHECK_MSG(st == ZP_ERR_FORMAT && strstr(err.message, path) && strstr(err.message, "malformed"), "%d %s", st,
              err.message);
    printf("test_store: (expected) %s\n", err.message);
    st = zp_store_check(s, &err);
    CHECK_MSG(st == ZP_ERR_FORMAT && strstr(err.message, path) && strstr(err.message, "corrupt"), "%s", err.message);
    printf("test_store: (expected) %s\n", err.message);
    CHECK(get(s, small).state == ZP_JOB_QUEUED);
    free(proof);
    zp_store_close(s);

    /* A stranger's SQLite database. */
    new_path(path, sizeof path);
    raw_exec(path, "CREATE TABLE accounts(id INTEGER, name TEXT)");
    expect_open_fails(path, ZP_ERR_FORMAT, "not a zkpipe store");
    /* A store from a newer zkpipe. */
    new_path(path, sizeof path);
    s = open_ok(path);
    zp_store_close(s);
    raw_exec(path, "PRAGMA user_version = 99");
    expect_open_fails(path, ZP_ERR_UNSUPPORTED, "newer");

    /* Places that cannot be written. */
    snprintf(path, sizeof path, "%s/no/such/dir/zkpipe.db", dir);
    expect_open_fails(path, ZP_ERR_IO, "No such file or directory");
    snprintf(path, sizeof path, "%s/a-directory", dir);
    CHECK(mkdir(path, 0700) == 0);
    expect_open_fails(path, ZP_ERR_IO, NULL);
    if (geteuid() != 0) { /* root writes anywhere */
        snprintf(path, sizeof path, "%s/read-only", dir);
        CHECK(mkdir(path, 0500) == 0);
        snprintf(path, sizeof path, "%s/read-only/zkpipe.db", dir);
        expect_open_fails(path, ZP_ERR_IO, "Permission denied");
        new_path(path, sizeof path);
        s = open_ok(path);
        zp_store_close(s);
        CHECK(chmod(path, 0400) == 0);
        expect_open_fails(path, ZP_ERR_IO, "read-only");
    } else {
        printf("test_store: running as root: skipping the read-only directory and file\n");
    }

    /* One store per file: a second open is refused while the first is open. */
    new_path(path, sizeof path);
    s = open_ok(path);
    expect_open_fails(path, ZP_ERR_IO, "in use");
    zp_store_close(s);
    s = open_ok(path);
    zp_store_close(s);

    zp_store *none = NULL;
    CHECK(zp_store_open(&none, "", &err) == ZP_ERR_ARG && none == NULL);
    zp_store_close(NULL);
}

#define RUN(f)                                                        \
    do {                                                              \
        double t0_ = zp_clock_now();                                  \
        f();                                                          \
        printf("test_store: %s: %.2f s\n", #f, zp_clock_now() - t0_); \
        fflush(stdout);                                               \
    } while (0)

int main(void) {
    zp_test_init("test_store");
    snprintf(dir, sizeof dir, "/tmp/zp_store_XXXXXX");
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    RUN(test_basic);
    RUN(test_request_ids);
    RUN(test_request_digest);
    RUN(test_damaged_rows);
    RUN(test_repair_rows);
    RUN(test_store_clock);
    RUN(test_results);
    RUN(test_reopen_expire);
    RUN(test_list);
    RUN(test_crash); /* forks: before any thread is started */
    RUN(test_threads);
    RUN(test_bad_files);
    remove_tree(dir);
    return zp_test_done();
}
