/* The job store in SQLite: one connection behind a mutex (store.h), for
 * one daemon on one host. This file opens it (the lock, the schema and its checks) and holds the
 * helpers store_internal.h declares; sqlite_jobs.c, sqlite_results.c
 * and sqlite_claims.c hold the rest.
 *
 * Why these choices:
 * - WAL with synchronous=FULL: every commit fsyncs the WAL, so a returned
 *   ZP_OK is on disk; readers never block the one writer.
 * - BEGIN IMMEDIATE for every write: the write lock is taken up front, so a
 *   transaction never fails half way with SQLITE_BUSY on lock upgrade.
 * - jobs.id is AUTOINCREMENT: an expired job's id is never handed out again
 *   (a client holding id 17 must not see someone else's job).
 * - Rows are copied out under the lock and callbacks run after it is
 *   released, so a slow consumer (an HTTP response) never stalls the
 *   collector thread's finish_job, and callbacks may call the store.
 * - A flock on "<path>.lock" keeps a second daemon off the same file: two
 *   would both resubmit every unfinished job. */
#include "store/store_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/dynlib.h"
#include "base/error.h"
#include "store/sqlite_internal.h"

/* PRAGMA application_id: "zkpp", so a stranger's SQLite file is told apart. */
#define ZP_STORE_APP_ID 0x7a6b7070

/* Milliseconds SQLite waits for a lock held by another connection (a
 * `sqlite3` shell looking at the file) before giving up with "locked". */
#define ZP_STORE_BUSY_MS 5000

/* The WAL is cut back to this size after a checkpoint (it would otherwise
 * stay as large as the largest transaction made it). */
#define ZP_STORE_WAL_LIMIT (64 << 20)

/* The names stored for zp_job_state's values: the engine's. */
static const char *const state_names[ZP_STORE_STATES] = {"queued", "running", "done", "failed", "cancelled"};

/* The schema this build writes (PRAGMA user_version); older ones are
 * upgraded at open, newer ones refused. 2: jobs.request_digest; 3: the
 * partitions' own state and claims (owner, fence, lease), the daemons;
 * 4: the jobs' pins (key and circuit digests), the daemons' keys and
 * clock skew, and an index of the partitions done without a proof. */
#define SQ_SCHEMA_VERSION 4

/* How far back a clock that went back since the store last wrote is not
 * believed (sq_now): a time further ahead is a damaged row, not a clock. */
#define SQ_CLOCK_FLOOR_S (30 * 86400.0)

/* Version 3's additions to version 2, for a new store and an upgrade
 * alike. A partition keeps its job's priority, so the claim reads one
 * index in claim order. States are stored by name, as the jobs' are. */
static const char SCHEMA_3[] =
    "CREATE INDEX parts_queue ON partitions(priority DESC, job_id, idx) WHERE state = 'queued';"
    "CREATE INDEX parts_running ON partitions(lease_until) WHERE state = 'running';"
    "CREATE TABLE nodes(id TEXT PRIMARY KEY, host TEXT, pid INTEGER, started REAL, heartbeat REAL,"
    " budget INTEGER, tracked INTEGER, claimed INTEGER, proofs INTEGER);"
    "CREATE TABLE fences(next INTEGER NOT NULL);"
    "INSERT INTO fences VALUES(1);";

static const char SCHEMA[] =
    "CREATE TABLE jobs("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " request_id TEXT UNIQUE,"
    " request_digest TEXT," /* version 2 */
    " key_id TEXT NOT NULL,"
    " priority INTEGER NOT NULL,"
    " partitions INTEGER NOT NULL CHECK(partitions > 0),"
    " done INTEGER NOT NULL DEFAULT 0,"
    " state TEXT NOT NULL CHECK(state IN ('queued','running','done','failed','cancelled')),"
    " error TEXT,"
    " submitted REAL NOT NULL,"
    " finished REAL);"
    /* counts, the state filter of list (ordered by id: the index holds the
     * rowid) and the unfinished jobs at startup */
    "CREATE INDEX jobs_state ON jobs(state);"
    /* expire: only ended jobs have a finished time */
    "CREATE INDEX jobs_finished ON jobs(finished) WHERE finished IS NOT NULL;"
    "CREATE TABLE partitions("
    " job_id INTEGER NOT NULL REFERENCES jobs(id),"
    " idx INTEGER NOT NULL,"
    " witness TEXT NOT NULL,"
    " proof TEXT, public TEXT,"
    " queued REAL, synth REAL, wait_prove REAL, prove REAL, wait_final REAL, final REAL, total REAL,"
    " state TEXT NOT NULL DEFAULT 'queued', priority INTEGER NOT NULL DEFAULT 0," /* version 3 */
    " owner TEXT, fence INTEGER NOT NULL DEFAULT 0, lease_until REAL,"
    " PRIMARY KEY(job_id, idx));";

/* Version 4's additions to version 3, for a new store and an upgrade
 * alike. Jobs made before have no pins ("": any daemon with the key id
 * claims them). partitions_unproved holds only damaged rows (a proof is
 * written with its state), so the repair pass reads an empty index. */
static const char SCHEMA_4[] =
    "ALTER TABLE jobs ADD COLUMN key_digest TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE jobs ADD COLUMN wasm_digest TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE nodes ADD COLUMN keys TEXT;"
    "ALTER TABLE nodes ADD COLUMN clock_skew REAL NOT NULL DEFAULT 0;"
    "CREATE INDEX parts_unproved ON partitions(job_id, idx) WHERE state = 'done' AND proof IS NULL;";

/* Version 2 to 3: the partitions learn their state from their job's (and
 * their proof), and their job's priority. */
static const char UPGRADE_3[] =
    "ALTER TABLE partitions ADD COLUMN state TEXT NOT NULL DEFAULT 'queued';"
    "ALTER TABLE partitions ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE partitions ADD COLUMN owner TEXT;"
    "ALTER TABLE partitions ADD COLUMN fence INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE partitions ADD COLUMN lease_until REAL;"
    "UPDATE partitions SET priority = coalesce((SELECT priority FROM jobs WHERE id = job_id), 0),"
    " state = CASE WHEN proof IS NOT NULL THEN 'done' WHEN (SELECT state FROM jobs WHERE id = job_id)"
    " IN ('done', 'failed', 'cancelled') THEN 'cancelled' ELSE 'queued' END;"
    "UPDATE jobs SET state = 'queued' WHERE state = 'running';";

/* ---- errors ---- */

/* The last SQLite error of the connection as a zp_status and a message
 * "<path>: <what>: <sqlite's message> (<errno text>)". */
zp_status store_db_error(sq_store *s, zp_error *err, const char *what) {
    int code = sq.errcode(s->db), prim = code & 0xff;
    int sys = sq.system_errno(s->db);
    zp_status st = ZP_ERR_IO;
    if (prim == SQLITE_CORRUPT || prim == SQLITE_NOTADB) st = ZP_ERR_FORMAT;
    else if (prim == SQLITE_NOMEM) st = ZP_ERR_NOMEM;
    else if (prim == SQLITE_CONSTRAINT || prim == SQLITE_MISUSE || prim == SQLITE_RANGE) st = ZP_ERR_INTERNAL;
    int os = prim == SQLITE_IOERR || prim == SQLITE_CANTOPEN || prim == SQLITE_FULL || prim == SQLITE_READONLY ||
             prim == SQLITE_PERM;
    if (sys != 0 && os) return zp_error_set(err, st, "%s: %s: %s (%s)", s->path, what, sq.errmsg(s->db), strerror(sys));
    return zp_error_set(err, st, "%s: %s: %s", s->path, what, sq.errmsg(s->db));
}

zp_status store_no_job(sq_store *s, zp_error *err, int64_t id) {
    return zp_error_set(err, ZP_ERR_ARG, "%s: no job %lld", s->path, (long long)id);
}

/* ---- statements ---- */

zp_status store_prepare(sqlite3_stmt **st, sq_store *s, const char *sql, const char *what, zp_error *err) {
    if (sq.prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK) {
        *st = NULL;
        return store_db_error(s, err, what);
    }
    return ZP_OK;
}

/* sqlite3_step: SQLITE_ROW or SQLITE_DONE, or the error set and minus its
 * zp_status (err may be NULL). */
int store_step(sqlite3_stmt *st, sq_store *s, const char *what, zp_error *err) {
    int rc = sq.step(st);
    if (rc == SQLITE_ROW || rc == SQLITE_DONE) return rc;
    return -(int)store_db_error(s, err, what);
}

zp_status store_exec(sq_store *s, const char *sql, const char *what, zp_error *err) {
    if (sq.exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK) return store_db_error(s, err, what);
    return ZP_OK;
}

/* Runs a one-row pragma and returns its integer value. */
static zp_status pragma_int(int64_t *v, sq_store *s, const char *sql, const char *what, zp_error *err) {
    sqlite3_stmt *st;
    zp_status rc = store_prepare(&st, s, sql, what, err);
    if (rc != ZP_OK) return rc;
    int r = store_step(st, s, what, err);
    if (r == SQLITE_ROW) *v = sq.column_int64(st, 0);
    else if (r == SQLITE_DONE) *v = 0;
    sq.finalize(st);
    return r < 0 ? (zp_status)-r : ZP_OK;
}

zp_status store_begin(sq_store *s, const char *what, zp_error *err) {
    return store_exec(s, "BEGIN IMMEDIATE", what, err);
}

zp_status store_commit(sq_store *s, const char *what, zp_error *err) { return store_exec(s, "COMMIT", what, err); }

/* After a failure inside a transaction; some errors (disk full, I/O) roll
 * back by themselves, hence the check. */
void store_rollback(sq_store *s) {
    if (!sq.get_autocommit(s->db)) sq.exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

void store_copy_text(char *dst, size_t cap, sqlite3_stmt *st, int col) {
    const unsigned char *t = sq.column_text(st, col);
    size_t n = t ? (size_t)sq.column_bytes(st, col) : 0;
    if (n >= cap) n = cap - 1;
    if (n) memcpy(dst, t, n);
    dst[n] = '\0';
}

int store_state_index(const char *state) {
    for (int i = 0; i < ZP_STORE_STATES; i++)
        if (strcmp(state, state_names[i]) == 0) return i;
    return -1;
}

const char *store_state_name(zp_job_state state) {
    return (int)state >= 0 && (int)state < ZP_STORE_STATES ? state_names[state] : "unknown";
}

/* ---- copying rows out ---- */

/* Appends a column's text (NO_STR for NULL); 0 when out of memory. */
int store_pool_add(size_t *off, strpool *p, sqlite3_stmt *st, int col) {
    if (sq.column_type(st, col) == SQLITE_NULL) {
        *off = NO_STR;
        return 1;
    }
    const unsigned char *t = sq.column_text(st, col);
    if (t == NULL) return 0; /* text conversion failed: out of memory */
    size_t n = (size_t)sq.column_bytes(st, col);
    if (p->len + n + 1 > p->cap) {
        size_t cap = p->cap ? p->cap : 4096;
        while (cap < p->len + n + 1) cap *= 2;
        char *b = realloc(p->buf, cap);
        if (b == NULL) return 0;
        p->buf = b;
        p->cap = cap;
    }
    memcpy(p->buf + p->len, t, n);
    p->buf[p->len + n] = '\0';
    *off = p->len;
    p->len += n + 1;
    return 1;
}

const char *store_pool_str(const strpool *p, size_t off) { return off == NO_STR ? NULL : p->buf + off; }

/* Makes room for one more element of an array. */
int store_grow(void **arr, size_t *cap, size_t n, size_t elem) {
    if (n < *cap) return 1;
    size_t c = *cap ? *cap * 2 : 16;
    void *a = realloc(*arr, c * elem);
    if (a == NULL) return 0;
    *arr = a;
    *cap = c;
    return 1;
}

zp_status store_oom(sq_store *s, zp_error *err, const char *what) {
    return zp_error_set(err, ZP_ERR_NOMEM, "%s: %s: out of memory", s->path, what);
}

/* ---- open, close ---- */

static zp_status take_lock(sq_store *s, zp_error *err) {
    char lock_path[4096];
    if ((size_t)snprintf(lock_path, sizeof lock_path, "%s.lock", s->path) >= sizeof lock_path)
        return zp_error_set(err, ZP_ERR_ARG, "%s: path too long", s->path);
    s->lock_fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (s->lock_fd < 0)
        return zp_error_set(err, ZP_ERR_IO, "%s: cannot create the lock file %s: %s", s->path, lock_path,
                            strerror(errno));
    if (flock(s->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        if (e == EWOULDBLOCK)
            return zp_error_set(err, ZP_ERR_IO,
                                "%s: in use by another process (%s is locked): is another zkpipe serve "
                                "running on this data_dir?",
                                s->path, lock_path);
        return zp_error_set(err, ZP_ERR_IO, "%s: cannot lock %s: %s", s->path, lock_path, strerror(e));
    }
    return ZP_OK;
}

/* Creates the schema in an empty database, or checks that the file is a
 * zkpipe store of a version this build reads. */
static zp_status check_schema(sq_store *s, zp_error *err) {
    int64_t app = 0, ver = 0, tables = 0;
    zp_status rc = store_begin(s, "reading the schema", err);
    if (rc != ZP_OK) return rc;
    if ((rc = pragma_int(&app, s, "PRAGMA application_id", "reading the schema", err)) != ZP_OK ||
        (rc = pragma_int(&ver, s, "PRAGMA user_version", "reading the schema", err)) != ZP_OK ||
        (rc = pragma_int(&tables, s, "SELECT count(*) FROM sqlite_master", "reading the schema", err)) != ZP_OK)
        goto fail;
    if (app == 0 && ver == 0 && tables == 0) {
        char sql[128];
        if ((rc = store_exec(s, SCHEMA, "creating the schema", err)) != ZP_OK ||
            (rc = store_exec(s, SCHEMA_3, "creating the schema", err)) != ZP_OK ||
            (rc = store_exec(s, SCHEMA_4, "creating the schema", err)) != ZP_OK)
            goto fail;
        snprintf(sql, sizeof sql, "PRAGMA application_id=%d; PRAGMA user_version=%d", ZP_STORE_APP_ID,
                 SQ_SCHEMA_VERSION);
        if ((rc = store_exec(s, sql, "creating the schema", err)) != ZP_OK) goto fail;
    } else if (app != ZP_STORE_APP_ID || ver < 1) {
        rc = zp_error_set(err, ZP_ERR_FORMAT, "%s: an SQLite database but not a zkpipe store", s->path);
        goto fail;
    } else if (ver > SQ_SCHEMA_VERSION) {
        rc = zp_error_set(err, ZP_ERR_UNSUPPORTED,
                          "%s: store schema version %lld is newer than this zkpipe's (%d): run a newer zkpipe", s->path,
                          (long long)ver, SQ_SCHEMA_VERSION);
        goto fail;
    }
    if (ver == 1) { /* version 2 added the request's digest; old jobs have none */
        if ((rc = store_exec(s, "ALTER TABLE jobs ADD COLUMN request_digest TEXT", "upgrading the schema to version 2",
                             err)) != ZP_OK)
            goto fail;
    }
    if (ver >= 1 && ver < 3) {
        if ((rc = store_exec(s, UPGRADE_3, "upgrading the schema to version 3", err)) != ZP_OK ||
            (rc = store_exec(s, SCHEMA_3, "upgrading the schema to version 3", err)) != ZP_OK)
            goto fail;
    }
    if (ver >= 1 && ver < 4) {
        char sql[64];
        snprintf(sql, sizeof sql, "PRAGMA user_version=%d", SQ_SCHEMA_VERSION);
        if ((rc = store_exec(s, SCHEMA_4, "upgrading the schema to version 4", err)) != ZP_OK ||
            (rc = store_exec(s, sql, "upgrading the schema to version 4", err)) != ZP_OK)
            goto fail;
    }
    return store_commit(s, "creating the schema", err);
fail:
    store_rollback(s);
    return rc;
}

/* A quick_check finding about one row's values (a CHECK or NOT NULL
 * constraint broken by a hand edit), not about the file's structure. */
static int row_level(const char *t) {
    return strncmp(t, "CHECK constraint failed in ", 27) == 0 || strncmp(t, "NULL value in ", 14) == 0;
}

/* PRAGMA quick_check, of the whole file or of one table (and its indexes).
 * rows_ok: findings about single rows' values are no failure (the readers
 * check every value they use, and a bad row fails only its own job). */
static zp_status quick_check(sq_store *s, const char *sql, int rows_ok, zp_error *err) {
    sqlite3_stmt *st;
    zp_status rc = store_prepare(&st, s, sql, "checking the file", err);
    if (rc != ZP_OK) return rc;
    int r = SQLITE_DONE;
    while (rc == ZP_OK && (r = store_step(st, s, "checking the file", err)) == SQLITE_ROW) {
        const char *t = (const char *)sq.column_text(st, 0);
        if (t != NULL && (strcmp(t, "ok") == 0 || (rows_ok && row_level(t)))) continue;
        rc = zp_error_set(err, ZP_ERR_FORMAT, "%s: corrupt (quick_check): %s", s->path, t ? t : "no answer");
        for (char *c = err ? err->message : NULL; c && *c; c++) /* one line */
            if (*c == '\n') *c = ' ';
    }
    if (rc == ZP_OK && r < 0) rc = (zp_status)-r;
    sq.finalize(st);
    return rc;
}

/* ---- the store's clock ---- */

double sq_now(const sq_store *s) { return s->wall0 + (zp_clock_now() - s->mono0); }

static void sql_now(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    (void)argc;
    (void)argv;
    sq.result_double(ctx, sq_now(sq.user_data(ctx)));
}

/* The clock starts at the wall clock, or at the latest time the store
 * holds when that is later (the clock went back since): times in the
 * store never run backwards, so nothing finished looks older than it is. */
static zp_status start_clock(sq_store *s, zp_error *err) {
    s->mono0 = zp_clock_now();
    s->wall0 = zp_clock_wall();
    double latest = 0;
    sqlite3_stmt *st;
    zp_status rc = store_prepare(&st, s,
                                 "SELECT max(coalesce((SELECT max(finished) FROM jobs), 0),"
                                 " coalesce((SELECT submitted FROM jobs ORDER BY id DESC LIMIT 1), 0),"
                                 " coalesce((SELECT max(heartbeat) FROM nodes), 0))",
                                 "reading the store's clock", err);
    if (rc != ZP_OK) return rc;
    int r = store_step(st, s, "reading the store's clock", err);
    if (r == SQLITE_ROW) latest = sq.column_double(st, 0);
    sq.finalize(st);
    if (r < 0) return (zp_status)-r;
    if (latest > s->wall0 && latest < s->wall0 + SQ_CLOCK_FLOOR_S) s->wall0 = latest;
    if (sq.create_function_v2(s->db, "zp_now", 0, SQLITE_UTF8, s, sql_now, NULL, NULL, NULL) != SQLITE_OK)
        return store_db_error(s, err, "opening the store");
    return ZP_OK;
}

zp_status sq_clock(double *now, zp_store *base, zp_error *err) {
    (void)err;
    *now = sq_now((sq_store *)base);
    return ZP_OK;
}

static zp_status open_db(sq_store *s, zp_error *err) {
    zp_status rc = take_lock(s, err);
    if (rc != ZP_OK) return rc;
    /* NOMUTEX: s->lock already serializes every use of the connection. */
    int orc = sq.open_v2(s->path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (s->db == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "%s: opening the store: out of memory", s->path);
    if (orc != SQLITE_OK) return store_db_error(s, err, "opening the store");
    if (sq.db_readonly(s->db, "main") == 1)
        return zp_error_set(err, ZP_ERR_IO, "%s: opening the store: the file is read-only", s->path);
    sq.extended_result_codes(s->db, 1);
    sq.busy_timeout(s->db, ZP_STORE_BUSY_MS);

    /* The first statement that reads the file: a stranger's file fails here
     * with "file is not a database". */
    sqlite3_stmt *st;
    if ((rc = store_prepare(&st, s, "PRAGMA journal_mode=WAL", "opening the store", err)) != ZP_OK) return rc;
    int r = store_step(st, s, "opening the store", err);
    if (r == SQLITE_ROW) {
        const char *mode = (const char *)sq.column_text(st, 0);
        if (mode == NULL || strcmp(mode, "wal") != 0)
            rc = zp_error_set(err, ZP_ERR_IO, "%s: opening the store: cannot use WAL mode (journal mode %s)", s->path,
                              mode ? mode : "unknown");
    } else if (r < 0) {
        rc = (zp_status)-r;
    }
    sq.finalize(st);
    if (rc != ZP_OK) return rc;
    /* secure_delete=FAST: Debian's default (ON) would rewrite every
     * expired proof's pages with zeros; proofs are no secret. */
    char sql[160];
    snprintf(sql, sizeof sql,
             "PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON; PRAGMA secure_delete=FAST; PRAGMA journal_size_limit=%d",
             ZP_STORE_WAL_LIMIT);
    if ((rc = store_exec(s, sql, "opening the store", err)) != ZP_OK) return rc;
    if ((rc = check_schema(s, err)) != ZP_OK) return rc;
    if ((rc = start_clock(s, err)) != ZP_OK) return rc;
    /* The jobs table is small (no proofs) and is what a restart needs. */
    return quick_check(s, "PRAGMA quick_check('jobs')", 1, err);
}

static void sq_close(zp_store *base);

sq_api sq;

/* SQLite's entry points into sq (sqlite_internal.h), once per process. */
static zp_status sq_load(zp_error *err) {
    static int once;
    static const char *const sonames[] = {"libsqlite3.so.0", "libsqlite3.so", NULL};
#define SYM(f) \
    { "sqlite3_" #f, (void **)&sq.f }
    const zp_dynsym syms[] = {SYM(bind_double),
                              SYM(bind_int),
                              SYM(bind_int64),
                              SYM(bind_null),
                              SYM(bind_parameter_count),
                              SYM(bind_text),
                              SYM(busy_timeout),
                              SYM(changes),
                              SYM(close_v2),
                              SYM(column_bytes),
                              SYM(column_double),
                              SYM(column_int),
                              SYM(column_int64),
                              SYM(column_text),
                              SYM(column_type),
                              SYM(create_function_v2),
                              SYM(db_readonly),
                              SYM(errcode),
                              SYM(errmsg),
                              SYM(exec),
                              SYM(extended_result_codes),
                              SYM(finalize),
                              SYM(get_autocommit),
                              SYM(last_insert_rowid),
                              SYM(open_v2),
                              SYM(prepare_v2),
                              SYM(reset),
                              SYM(result_double),
                              SYM(step),
                              SYM(system_errno),
                              SYM(user_data)};
#undef SYM
    return zp_dynlib_load(&once, sonames, syms, sizeof syms / sizeof *syms, "libsqlite3-0", err);
}

static zp_status sq_open(zp_store **out, const char *path, zp_error *err) {
    *out = NULL;
    if (path == NULL || *path == '\0') return zp_error_set(err, ZP_ERR_ARG, "store: no database path");
    zp_status loaded = sq_load(err);
    if (loaded != ZP_OK) return loaded;
    size_t len = strlen(path);
    sq_store *s = calloc(1, sizeof *s + len + 1);
    if (s == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "%s: out of memory", path);
    memcpy(s->path, path, len + 1);
    s->base.ops = &zp_store_sqlite_ops;
    s->base.name = s->path;
    s->lock_fd = -1;
    if (pthread_mutex_init(&s->lock, NULL) != 0) {
        free(s);
        return zp_error_set(err, ZP_ERR_INTERNAL, "%s: cannot create a mutex", path);
    }
    zp_status rc = open_db(s, err);
    if (rc != ZP_OK) {
        sq_close(&s->base);
        return rc;
    }
    *out = &s->base;
    return ZP_OK;
}

static zp_status sq_check(zp_store *base, zp_error *err) {
    sq_store *s = (sq_store *)base;
    pthread_mutex_lock(&s->lock);
    zp_status rc = quick_check(s, "PRAGMA quick_check(1)", 0, err);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

static void sq_close(zp_store *base) {
    sq_store *s = (sq_store *)base;
    if (s == NULL) return;
    if (s->db != NULL) sq.close_v2(s->db);
    if (s->lock_fd >= 0) close(s->lock_fd); /* releases the flock */
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/* Anything that is not a URI: a file path. */
static int sq_accepts(const char *where) { return strstr(where, "://") == NULL; }

const zp_store_ops zp_store_sqlite_ops = {
    .kind = "sqlite",
    .shared = 0,
    .accepts = sq_accepts,
    .open = sq_open,
    .close = sq_close,
    .check = sq_check,
    .add_job = sq_add_job,
    .get_job = sq_get_job,
    .find_request = sq_find_request,
    .queue_position = sq_queue_position,
    .finish_job = sq_finish_job,
    .results = sq_results,
    .list = sq_list,
    .unfinished = sq_unfinished,
    .witness_paths = sq_witness_paths,
    .count = sq_count,
    .expire = sq_expire,
    .clock = sq_clock,
    .repair = sq_repair,
    .claim = sq_claim,
    .mismatches = sq_mismatches,
    .renew = sq_renew,
    .release = sq_release,
    .finish_part = sq_finish_part,
    .join = sq_join,
    .heartbeat = sq_heartbeat,
    .leave = sq_leave,
    .nodes = sq_nodes,
};
