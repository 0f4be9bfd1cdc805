/* The job store: SQLite, one connection behind a mutex (store.h).
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
#include "server/store.h"

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

#include "base/error.h"

/* PRAGMA application_id: "zkpp", so a stranger's SQLite file is told apart. */
#define ZP_STORE_APP_ID 0x7a6b7070

/* Milliseconds SQLite waits for a lock held by another connection (a
 * `sqlite3` shell looking at the file) before giving up with "locked". */
#define ZP_STORE_BUSY_MS 5000

/* Jobs deleted per transaction by expire: the lock is released between
 * batches, so an expiry of many jobs never stalls the HTTP threads long. */
#define ZP_STORE_EXPIRE_BATCH 128
#define ZP_STR_(x) #x
#define ZP_STR(x) ZP_STR_(x)

/* The WAL is cut back to this size after a checkpoint (it would otherwise
 * stay as large as the largest transaction made it). */
#define ZP_STORE_WAL_LIMIT (64 << 20)

const char *const zp_store_state_names[ZP_STORE_STATES] = {"queued", "running", "done", "failed", "cancelled"};

struct zp_store {
    sqlite3 *db;
    pthread_mutex_t lock;
    int lock_fd;
    char path[];
};

static const char SCHEMA[] =
    "CREATE TABLE jobs("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " request_id TEXT UNIQUE,"
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
    " PRIMARY KEY(job_id, idx));";

/* ---- errors ---- */

/* The last SQLite error of the connection as a zp_status and a message
 * "<path>: <what>: <sqlite's message> (<errno text>)". */
static zp_status db_error(zp_store *s, zp_error *err, const char *what) {
    int code = sqlite3_errcode(s->db), prim = code & 0xff;
    int sys = sqlite3_system_errno(s->db);
    zp_status st = ZP_ERR_IO;
    if (prim == SQLITE_CORRUPT || prim == SQLITE_NOTADB) st = ZP_ERR_FORMAT;
    else if (prim == SQLITE_NOMEM) st = ZP_ERR_NOMEM;
    else if (prim == SQLITE_CONSTRAINT || prim == SQLITE_MISUSE || prim == SQLITE_RANGE) st = ZP_ERR_INTERNAL;
    int os = prim == SQLITE_IOERR || prim == SQLITE_CANTOPEN || prim == SQLITE_FULL || prim == SQLITE_READONLY ||
             prim == SQLITE_PERM;
    if (sys != 0 && os)
        return zp_error_set(err, st, "%s: %s: %s (%s)", s->path, what, sqlite3_errmsg(s->db), strerror(sys));
    return zp_error_set(err, st, "%s: %s: %s", s->path, what, sqlite3_errmsg(s->db));
}

static zp_status no_job(zp_store *s, zp_error *err, int64_t id) {
    return zp_error_set(err, ZP_ERR_ARG, "%s: no job %lld", s->path, (long long)id);
}

/* ---- statements ---- */

static zp_status prepare(sqlite3_stmt **st, zp_store *s, const char *sql, const char *what, zp_error *err) {
    if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK) {
        *st = NULL;
        return db_error(s, err, what);
    }
    return ZP_OK;
}

/* sqlite3_step: SQLITE_ROW or SQLITE_DONE, or the error set and minus its
 * zp_status (err may be NULL). */
static int step(sqlite3_stmt *st, zp_store *s, const char *what, zp_error *err) {
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW || rc == SQLITE_DONE) return rc;
    return -(int)db_error(s, err, what);
}

static zp_status exec(zp_store *s, const char *sql, const char *what, zp_error *err) {
    if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK) return db_error(s, err, what);
    return ZP_OK;
}

/* Runs a one-row pragma and returns its integer value. */
static zp_status pragma_int(int64_t *v, zp_store *s, const char *sql, const char *what, zp_error *err) {
    sqlite3_stmt *st;
    zp_status rc = prepare(&st, s, sql, what, err);
    if (rc != ZP_OK) return rc;
    int r = step(st, s, what, err);
    if (r == SQLITE_ROW) *v = sqlite3_column_int64(st, 0);
    else if (r == SQLITE_DONE) *v = 0;
    sqlite3_finalize(st);
    return r < 0 ? (zp_status)-r : ZP_OK;
}

static zp_status begin(zp_store *s, const char *what, zp_error *err) {
    return exec(s, "BEGIN IMMEDIATE", what, err);
}

static zp_status commit(zp_store *s, const char *what, zp_error *err) {
    return exec(s, "COMMIT", what, err);
}

/* After a failure inside a transaction; some errors (disk full, I/O) roll
 * back by themselves, hence the check. */
static void rollback(zp_store *s) {
    if (!sqlite3_get_autocommit(s->db)) sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

static void copy_text(char *dst, size_t cap, sqlite3_stmt *st, int col) {
    const unsigned char *t = sqlite3_column_text(st, col);
    size_t n = t ? (size_t)sqlite3_column_bytes(st, col) : 0;
    if (n >= cap) n = cap - 1;
    if (n) memcpy(dst, t, n);
    dst[n] = '\0';
}

static int state_index(const char *state) {
    for (int i = 0; i < ZP_STORE_STATES; i++)
        if (strcmp(state, zp_store_state_names[i]) == 0) return i;
    return -1;
}

/* ---- copying rows out ---- */

/* Strings of many rows in one buffer, referred to by offset (the buffer
 * moves as it grows). */
typedef struct strpool {
    char *buf;
    size_t len, cap;
} strpool;

#define NO_STR SIZE_MAX

/* Appends a column's text (NO_STR for NULL); 0 when out of memory. */
static int pool_add(size_t *off, strpool *p, sqlite3_stmt *st, int col) {
    if (sqlite3_column_type(st, col) == SQLITE_NULL) {
        *off = NO_STR;
        return 1;
    }
    const unsigned char *t = sqlite3_column_text(st, col);
    if (t == NULL) return 0; /* text conversion failed: out of memory */
    size_t n = (size_t)sqlite3_column_bytes(st, col);
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

static const char *pool_str(const strpool *p, size_t off) { return off == NO_STR ? NULL : p->buf + off; }

/* Makes room for one more element of an array. */
static int grow(void **arr, size_t *cap, size_t n, size_t elem) {
    if (n < *cap) return 1;
    size_t c = *cap ? *cap * 2 : 16;
    void *a = realloc(*arr, c * elem);
    if (a == NULL) return 0;
    *arr = a;
    *cap = c;
    return 1;
}

static zp_status oom(zp_store *s, zp_error *err, const char *what) {
    return zp_error_set(err, ZP_ERR_NOMEM, "%s: %s: out of memory", s->path, what);
}

/* ---- open, close ---- */

static zp_status take_lock(zp_store *s, zp_error *err) {
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
            return zp_error_set(err, ZP_ERR_IO, "%s: in use by another process (%s is locked): is another zkpipe serve "
                                "running on this data_dir?", s->path, lock_path);
        return zp_error_set(err, ZP_ERR_IO, "%s: cannot lock %s: %s", s->path, lock_path, strerror(e));
    }
    return ZP_OK;
}

/* Creates the schema in an empty database, or checks that the file is a
 * zkpipe store of a version this build reads. */
static zp_status check_schema(zp_store *s, zp_error *err) {
    int64_t app = 0, ver = 0, tables = 0;
    zp_status rc = begin(s, "reading the schema", err);
    if (rc != ZP_OK) return rc;
    if ((rc = pragma_int(&app, s, "PRAGMA application_id", "reading the schema", err)) != ZP_OK ||
        (rc = pragma_int(&ver, s, "PRAGMA user_version", "reading the schema", err)) != ZP_OK ||
        (rc = pragma_int(&tables, s, "SELECT count(*) FROM sqlite_master", "reading the schema", err)) != ZP_OK)
        goto fail;
    if (app == 0 && ver == 0 && tables == 0) {
        char sql[128];
        if ((rc = exec(s, SCHEMA, "creating the schema", err)) != ZP_OK) goto fail;
        snprintf(sql, sizeof sql, "PRAGMA application_id=%d; PRAGMA user_version=%d", ZP_STORE_APP_ID,
                 ZP_STORE_SCHEMA_VERSION);
        if ((rc = exec(s, sql, "creating the schema", err)) != ZP_OK) goto fail;
    } else if (app != ZP_STORE_APP_ID || ver < 1) {
        rc = zp_error_set(err, ZP_ERR_FORMAT, "%s: an SQLite database but not a zkpipe store", s->path);
        goto fail;
    } else if (ver > ZP_STORE_SCHEMA_VERSION) {
        rc = zp_error_set(err, ZP_ERR_UNSUPPORTED,
                          "%s: store schema version %lld is newer than this zkpipe's (%d): run a newer zkpipe", s->path,
                          (long long)ver, ZP_STORE_SCHEMA_VERSION);
        goto fail;
    }
    /* ver < ZP_STORE_SCHEMA_VERSION would be migrated here. */
    return commit(s, "creating the schema", err);
fail:
    rollback(s);
    return rc;
}

/* PRAGMA quick_check, of the whole file or of one table (and its indexes). */
static zp_status quick_check(zp_store *s, const char *sql, zp_error *err) {
    sqlite3_stmt *st;
    zp_status rc = prepare(&st, s, sql, "checking the file", err);
    if (rc != ZP_OK) return rc;
    int r = step(st, s, "checking the file", err);
    if (r == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        if (t == NULL || strcmp(t, "ok") != 0) {
            rc = zp_error_set(err, ZP_ERR_FORMAT, "%s: corrupt (quick_check): %s", s->path,
                              t ? t : "no answer");
            for (char *c = err ? err->message : NULL; c && *c; c++) /* one line */
                if (*c == '\n') *c = ' ';
        }
    } else if (r < 0) {
        rc = (zp_status)-r;
    }
    sqlite3_finalize(st);
    return rc;
}

static zp_status open_db(zp_store *s, zp_error *err) {
    zp_status rc = take_lock(s, err);
    if (rc != ZP_OK) return rc;
    /* NOMUTEX: s->lock already serializes every use of the connection. */
    int orc = sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (s->db == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "%s: opening the store: out of memory", s->path);
    if (orc != SQLITE_OK) return db_error(s, err, "opening the store");
    if (sqlite3_db_readonly(s->db, "main") == 1)
        return zp_error_set(err, ZP_ERR_IO, "%s: opening the store: the file is read-only", s->path);
    sqlite3_extended_result_codes(s->db, 1);
    sqlite3_busy_timeout(s->db, ZP_STORE_BUSY_MS);

    /* The first statement that reads the file: a stranger's file fails here
     * with "file is not a database". */
    sqlite3_stmt *st;
    if ((rc = prepare(&st, s, "PRAGMA journal_mode=WAL", "opening the store", err)) != ZP_OK) return rc;
    int r = step(st, s, "opening the store", err);
    if (r == SQLITE_ROW) {
        const char *mode = (const char *)sqlite3_column_text(st, 0);
        if (mode == NULL || strcmp(mode, "wal") != 0)
            rc = zp_error_set(err, ZP_ERR_IO, "%s: opening the store: cannot use WAL mode (journal mode %s)", s->path,
                              mode ? mode : "unknown");
    } else if (r < 0) {
        rc = (zp_status)-r;
    }
    sqlite3_finalize(st);
    if (rc != ZP_OK) return rc;
    /* secure_delete=FAST: Debian's default (ON) would rewrite every
     * expired proof's pages with zeros; proofs are no secret. */
    char sql[160];
    snprintf(sql, sizeof sql,
             "PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON; PRAGMA secure_delete=FAST; PRAGMA journal_size_limit=%d",
             ZP_STORE_WAL_LIMIT);
    if ((rc = exec(s, sql, "opening the store", err)) != ZP_OK) return rc;
    if ((rc = check_schema(s, err)) != ZP_OK) return rc;
    /* The jobs table is small (no proofs) and is what a restart needs. */
    return quick_check(s, "PRAGMA quick_check('jobs')", err);
}

zp_status zp_store_open(zp_store **out, const char *path, zp_error *err) {
    *out = NULL;
    if (path == NULL || *path == '\0') return zp_error_set(err, ZP_ERR_ARG, "store: no database path");
    size_t len = strlen(path);
    zp_store *s = calloc(1, sizeof *s + len + 1);
    if (s == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "%s: out of memory", path);
    memcpy(s->path, path, len + 1);
    s->lock_fd = -1;
    if (pthread_mutex_init(&s->lock, NULL) != 0) {
        free(s);
        return zp_error_set(err, ZP_ERR_INTERNAL, "%s: cannot create a mutex", path);
    }
    zp_status rc = open_db(s, err);
    if (rc != ZP_OK) {
        zp_store_close(s);
        return rc;
    }
    *out = s;
    return ZP_OK;
}

zp_status zp_store_check(zp_store *s, zp_error *err) {
    pthread_mutex_lock(&s->lock);
    zp_status rc = quick_check(s, "PRAGMA quick_check(1)", err);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

void zp_store_close(zp_store *s) {
    if (s == NULL) return;
    if (s->db != NULL) sqlite3_close_v2(s->db);
    if (s->lock_fd >= 0) close(s->lock_fd); /* releases the flock */
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/* ---- jobs ---- */

#define JOB_COLUMNS "id, request_id, key_id, priority, partitions, done, state, error, submitted, finished"

static void read_job(zp_store_job *job, sqlite3_stmt *st) {
    memset(job, 0, sizeof *job);
    job->id = sqlite3_column_int64(st, 0);
    copy_text(job->request_id, sizeof job->request_id, st, 1);
    copy_text(job->key_id, sizeof job->key_id, st, 2);
    job->priority = sqlite3_column_int(st, 3);
    job->partitions = (uint32_t)sqlite3_column_int64(st, 4);
    job->done = (uint32_t)sqlite3_column_int64(st, 5);
    copy_text(job->state, sizeof job->state, st, 6);
    copy_text(job->error, sizeof job->error, st, 7);
    job->submitted = sqlite3_column_double(st, 8);
    job->finished = sqlite3_column_double(st, 9); /* NULL reads as 0 */
}

/* Under the lock: the id of request_id's job, 0 when none. */
static zp_status find_request(int64_t *id, zp_store *s, const char *request_id, zp_error *err) {
    sqlite3_stmt *st;
    *id = 0;
    zp_status rc = prepare(&st, s, "SELECT id FROM jobs WHERE request_id = ?1", "looking up a request id", err);
    if (rc != ZP_OK) return rc;
    sqlite3_bind_text(st, 1, request_id, -1, SQLITE_STATIC);
    int r = step(st, s, "looking up a request id", err);
    if (r == SQLITE_ROW) *id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return r < 0 ? (zp_status)-r : ZP_OK;
}

zp_status zp_store_add_job(int64_t *id, int *existing, zp_store *s, const char *request_id, const char *key_id,
                           int priority, uint32_t partitions, const char *const *witness_paths, double submitted,
                           zp_error *err) {
    static const char what[] = "adding a job";
    *id = 0;
    *existing = 0;
    if (request_id != NULL && *request_id == '\0') request_id = NULL;
    if (request_id != NULL && strlen(request_id) > 128)
        return zp_error_set(err, ZP_ERR_ARG, "%s: %s: request id longer than 128 bytes", s->path, what);
    if (key_id == NULL || *key_id == '\0' || strlen(key_id) >= sizeof ((zp_store_job *)0)->key_id)
        return zp_error_set(err, ZP_ERR_ARG, "%s: %s: key id empty or longer than 127 bytes", s->path, what);
    if (partitions == 0 || witness_paths == NULL)
        return zp_error_set(err, ZP_ERR_ARG, "%s: %s: no partitions", s->path, what);
    for (uint32_t i = 0; i < partitions; i++)
        if (witness_paths[i] == NULL || *witness_paths[i] == '\0')
            return zp_error_set(err, ZP_ERR_ARG, "%s: %s: no witness path for partition %u", s->path, what, i);

    pthread_mutex_lock(&s->lock);
    sqlite3_stmt *st = NULL;
    int r;
    zp_status rc = begin(s, what, err);
    if (rc != ZP_OK) goto out;
    if (request_id != NULL) {
        int64_t old;
        if ((rc = find_request(&old, s, request_id, err)) != ZP_OK) goto fail;
        if (old != 0) {
            *id = old;
            *existing = 1;
            rollback(s); /* nothing written */
            goto out;
        }
    }
    if ((rc = prepare(&st, s,
                      "INSERT INTO jobs(request_id, key_id, priority, partitions, state, submitted)"
                      " VALUES(?1, ?2, ?3, ?4, 'queued', ?5)",
                      what, err)) != ZP_OK)
        goto fail;
    if (request_id != NULL) sqlite3_bind_text(st, 1, request_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, key_id, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, priority);
    sqlite3_bind_int64(st, 4, partitions);
    sqlite3_bind_double(st, 5, submitted);
    if ((r = step(st, s, what, err)) < 0) {
        rc = (zp_status)-r;
        goto fail;
    }
    int64_t new_id = sqlite3_last_insert_rowid(s->db);
    sqlite3_finalize(st);
    if ((rc = prepare(&st, s, "INSERT INTO partitions(job_id, idx, witness) VALUES(?1, ?2, ?3)", what, err)) != ZP_OK)
        goto fail;
    for (uint32_t i = 0; i < partitions; i++) {
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, new_id);
        sqlite3_bind_int64(st, 2, i);
        sqlite3_bind_text(st, 3, witness_paths[i], -1, SQLITE_STATIC);
        if ((r = step(st, s, what, err)) < 0) {
            rc = (zp_status)-r;
            goto fail;
        }
    }
    sqlite3_finalize(st);
    st = NULL;
    if ((rc = commit(s, what, err)) != ZP_OK) goto fail;
    *id = new_id;
    goto out;
fail:
    sqlite3_finalize(st);
    rollback(s);
out:
    pthread_mutex_unlock(&s->lock);
    return rc;
}

/* Under the lock. */
static zp_status get_job(zp_store_job *job, zp_store *s, int64_t id, zp_error *err) {
    sqlite3_stmt *st;
    zp_status rc = prepare(&st, s, "SELECT " JOB_COLUMNS " FROM jobs WHERE id = ?1", "reading a job", err);
    if (rc != ZP_OK) return rc;
    sqlite3_bind_int64(st, 1, id);
    int r = step(st, s, "reading a job", err);
    if (r == SQLITE_ROW) read_job(job, st);
    sqlite3_finalize(st);
    if (r < 0) return (zp_status)-r;
    return r == SQLITE_ROW ? ZP_OK : no_job(s, err, id);
}

zp_status zp_store_get_job(zp_store_job *job, zp_store *s, int64_t id, zp_error *err) {
    pthread_mutex_lock(&s->lock);
    zp_status rc = get_job(job, s, id, err);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

zp_status zp_store_find_request(int64_t *id, zp_store *s, const char *request_id, zp_error *err) {
    *id = 0;
    if (request_id == NULL || *request_id == '\0') return ZP_OK;
    pthread_mutex_lock(&s->lock);
    zp_status rc = find_request(id, s, request_id, err);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

zp_status zp_store_finish_job(zp_store *s, int64_t id, const char *state, const char *error, double finished,
                              const zp_store_result *results, uint32_t n, zp_error *err) {
    static const char what[] = "recording a job's end";
    int si = state ? state_index(state) : -1;
    if (si < 2)
        return zp_error_set(err, ZP_ERR_ARG, "%s: %s: '%s' is not an end state (done, failed, cancelled)", s->path,
                            what, state ? state : "(null)");
    if (n != 0 && results == NULL) return zp_error_set(err, ZP_ERR_ARG, "%s: %s: no results", s->path, what);
    if (error != NULL && *error == '\0') error = NULL;

    pthread_mutex_lock(&s->lock);
    sqlite3_stmt *st = NULL;
    zp_store_job job;
    int r;
    zp_status rc = begin(s, what, err);
    if (rc != ZP_OK) goto out;
    if ((rc = get_job(&job, s, id, err)) != ZP_OK) goto fail;
    if (state_index(job.state) >= 2) {
        rc = zp_error_set(err, ZP_ERR_ARG, "%s: job %lld has already ended (%s)", s->path, (long long)id, job.state);
        goto fail;
    }
    if (n != 0 && n != job.partitions) {
        rc = zp_error_set(err, ZP_ERR_ARG, "%s: %s: job %lld has %u partitions, %u results given", s->path, what,
                          (long long)id, job.partitions, n);
        goto fail;
    }
    uint32_t done = 0;
    if (n != 0) {
        if ((rc = prepare(&st, s,
                          "UPDATE partitions SET proof = ?3, public = ?4, queued = ?5, synth = ?6, wait_prove = ?7,"
                          " prove = ?8, wait_final = ?9, final = ?10, total = ?11 WHERE job_id = ?1 AND idx = ?2",
                          what, err)) != ZP_OK)
            goto fail;
        for (uint32_t i = 0; i < n; i++) {
            const zp_store_result *res = &results[i];
            const zp_store_times *t = &res->times;
            sqlite3_reset(st);
            sqlite3_bind_int64(st, 1, id);
            sqlite3_bind_int64(st, 2, i);
            if (res->proof_json) sqlite3_bind_text(st, 3, res->proof_json, -1, SQLITE_STATIC);
            else sqlite3_bind_null(st, 3);
            if (res->public_json) sqlite3_bind_text(st, 4, res->public_json, -1, SQLITE_STATIC);
            else sqlite3_bind_null(st, 4);
            const double tv[7] = {t->queued, t->synth, t->wait_prove, t->prove, t->wait_final, t->final, t->total};
            for (int k = 0; k < 7; k++) sqlite3_bind_double(st, 5 + k, tv[k]);
            if ((r = step(st, s, what, err)) < 0) {
                rc = (zp_status)-r;
                goto fail;
            }
            if (sqlite3_changes(s->db) != 1) {
                rc = zp_error_set(err, ZP_ERR_INTERNAL, "%s: %s: job %lld has no partition %u", s->path, what,
                                  (long long)id, i);
                goto fail;
            }
            if (res->proof_json) done++;
        }
        sqlite3_finalize(st);
        st = NULL;
    }
    if ((rc = prepare(&st, s, "UPDATE jobs SET state = ?2, error = ?3, finished = ?4, done = ?5 WHERE id = ?1", what,
                      err)) != ZP_OK)
        goto fail;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, zp_store_state_names[si], -1, SQLITE_STATIC);
    if (error) sqlite3_bind_text(st, 3, error, -1, SQLITE_STATIC);
    else sqlite3_bind_null(st, 3);
    sqlite3_bind_double(st, 4, finished);
    sqlite3_bind_int64(st, 5, done);
    if ((r = step(st, s, what, err)) < 0) {
        rc = (zp_status)-r;
        goto fail;
    }
    sqlite3_finalize(st);
    st = NULL;
    if ((rc = commit(s, what, err)) != ZP_OK) goto fail;
    goto out;
fail:
    sqlite3_finalize(st);
    rollback(s);
out:
    pthread_mutex_unlock(&s->lock);
    return rc;
}

/* ---- reading many rows ---- */

typedef struct result_row {
    uint32_t idx;
    size_t proof, pub;
    zp_store_times t;
} result_row;

zp_status zp_store_results(zp_store *s, int64_t id, zp_store_result_fn fn, void *arg, zp_error *err) {
    static const char what[] = "reading a job's results";
    strpool pool = {0};
    result_row *rows = NULL;
    size_t n = 0, cap = 0;
    zp_store_job job;
    sqlite3_stmt *st = NULL;

    pthread_mutex_lock(&s->lock);
    /* One read transaction: the job and its partitions from one snapshot. */
    zp_status rc = exec(s, "BEGIN", what, err);
    if (rc != ZP_OK) goto out;
    if ((rc = get_job(&job, s, id, err)) != ZP_OK) goto out;
    if ((rc = prepare(&st, s,
                      "SELECT idx, proof, public, queued, synth, wait_prove, prove, wait_final, final, total"
                      " FROM partitions WHERE job_id = ?1 ORDER BY idx",
                      what, err)) != ZP_OK)
        goto out;
    sqlite3_bind_int64(st, 1, id);
    int r;
    while ((r = step(st, s, what, err)) == SQLITE_ROW) {
        if (!grow((void **)&rows, &cap, n, sizeof *rows)) break;
        result_row *row = &rows[n];
        row->idx = (uint32_t)sqlite3_column_int64(st, 0);
        if (!pool_add(&row->proof, &pool, st, 1) || !pool_add(&row->pub, &pool, st, 2)) break;
        double *tv[7] = {&row->t.queued, &row->t.synth, &row->t.wait_prove, &row->t.prove,
                         &row->t.wait_final, &row->t.final, &row->t.total};
        for (int k = 0; k < 7; k++) *tv[k] = sqlite3_column_double(st, 3 + k);
        n++;
    }
    if (r < 0) rc = (zp_status)-r;
    else if (r == SQLITE_ROW) rc = oom(s, err, what);
out:
    sqlite3_finalize(st);
    rollback(s); /* ends the read transaction */
    pthread_mutex_unlock(&s->lock);
    if (rc == ZP_OK && fn != NULL)
        for (size_t i = 0; i < n; i++)
            fn(arg, rows[i].idx, pool_str(&pool, rows[i].proof), pool_str(&pool, rows[i].pub), &rows[i].t);
    free(rows);
    free(pool.buf);
    return rc;
}

zp_status zp_store_list(zp_store *s, uint32_t limit, const char *state, zp_store_job_fn fn, void *arg,
                        zp_error *err) {
    static const char what[] = "listing jobs";
    if (state != NULL && *state == '\0') state = NULL;
    if (state != NULL && state_index(state) < 0)
        return zp_error_set(err, ZP_ERR_ARG, "%s: %s: unknown state '%s'", s->path, what, state);
    zp_store_job *jobs = NULL;
    size_t n = 0, cap = 0;
    sqlite3_stmt *st = NULL;

    pthread_mutex_lock(&s->lock);
    zp_status rc = prepare(&st, s,
                           state ? "SELECT " JOB_COLUMNS " FROM jobs WHERE state = ?2 ORDER BY id DESC LIMIT ?1"
                                 : "SELECT " JOB_COLUMNS " FROM jobs ORDER BY id DESC LIMIT ?1",
                           what, err);
    if (rc != ZP_OK) goto out;
    sqlite3_bind_int64(st, 1, limit ? (int64_t)limit : -1);
    if (state) sqlite3_bind_text(st, 2, state, -1, SQLITE_STATIC);
    int r;
    while ((r = step(st, s, what, err)) == SQLITE_ROW) {
        if (!grow((void **)&jobs, &cap, n, sizeof *jobs)) break;
        read_job(&jobs[n++], st);
    }
    if (r < 0) rc = (zp_status)-r;
    else if (r == SQLITE_ROW) rc = oom(s, err, what);
out:
    sqlite3_finalize(st);
    pthread_mutex_unlock(&s->lock);
    if (rc == ZP_OK && fn != NULL)
        for (size_t i = 0; i < n; i++) fn(arg, &jobs[i]);
    free(jobs);
    return rc;
}

/* Collects the witness paths of a query whose first column is the job id
 * and second the path (ordered by job, then index). Under the lock. */
typedef struct path_rows {
    strpool pool;
    int64_t *job; /* per path */
    size_t *off;
    size_t n, cap, cap2;
} path_rows;

static zp_status collect_paths(path_rows *p, sqlite3_stmt *st, zp_store *s, const char *what, zp_error *err) {
    int r;
    while ((r = step(st, s, what, err)) == SQLITE_ROW) {
        if (!grow((void **)&p->job, &p->cap, p->n, sizeof *p->job) ||
            !grow((void **)&p->off, &p->cap2, p->n, sizeof *p->off) || !pool_add(&p->off[p->n], &p->pool, st, 1))
            return oom(s, err, what);
        if (p->off[p->n] == NO_STR) continue; /* NOT NULL in the schema */
        p->job[p->n++] = sqlite3_column_int64(st, 0);
    }
    return r < 0 ? (zp_status)-r : ZP_OK;
}

static void free_paths(path_rows *p) {
    free(p->pool.buf);
    free(p->job);
    free(p->off);
}

zp_status zp_store_unfinished(zp_store *s, zp_store_unfinished_fn fn, void *arg, zp_error *err) {
    static const char what[] = "listing unfinished jobs";
    zp_store_job *jobs = NULL;
    size_t n = 0, cap = 0;
    path_rows paths = {0};
    const char **argv = NULL;
    sqlite3_stmt *st = NULL;

    pthread_mutex_lock(&s->lock);
    zp_status rc = exec(s, "BEGIN", what, err);
    if (rc != ZP_OK) goto out;
    if ((rc = prepare(&st, s, "SELECT " JOB_COLUMNS " FROM jobs WHERE state IN ('queued', 'running') ORDER BY id",
                      what, err)) != ZP_OK)
        goto out;
    int r;
    while ((r = step(st, s, what, err)) == SQLITE_ROW) {
        if (!grow((void **)&jobs, &cap, n, sizeof *jobs)) break;
        read_job(&jobs[n++], st);
    }
    if (r < 0) rc = (zp_status)-r;
    else if (r == SQLITE_ROW) rc = oom(s, err, what);
    if (rc != ZP_OK) goto out;
    sqlite3_finalize(st);
    if ((rc = prepare(&st, s,
                      "SELECT p.job_id, p.witness FROM partitions p JOIN jobs j ON j.id = p.job_id"
                      " WHERE j.state IN ('queued', 'running') ORDER BY p.job_id, p.idx",
                      what, err)) != ZP_OK)
        goto out;
    rc = collect_paths(&paths, st, s, what, err);
out:
    sqlite3_finalize(st);
    rollback(s);
    pthread_mutex_unlock(&s->lock);
    if (rc == ZP_OK && fn != NULL) {
        size_t most = 1;
        for (size_t i = 0; i < n; i++)
            if (jobs[i].partitions > most) most = jobs[i].partitions;
        argv = malloc((most + 1) * sizeof *argv);
        if (argv == NULL) rc = oom(s, err, what);
        size_t k = 0; /* both lists are in job id order */
        for (size_t i = 0; rc == ZP_OK && i < n; i++) {
            uint32_t m = 0;
            while (k < paths.n && paths.job[k] < jobs[i].id) k++;
            while (k < paths.n && paths.job[k] == jobs[i].id && m < jobs[i].partitions)
                argv[m++] = pool_str(&paths.pool, paths.off[k++]);
            if (m != jobs[i].partitions) {
                rc = zp_error_set(err, ZP_ERR_FORMAT, "%s: %s: job %lld has %u of its %u partitions", s->path, what,
                                  (long long)jobs[i].id, m, jobs[i].partitions);
                break;
            }
            argv[m] = NULL;
            fn(arg, &jobs[i], argv);
        }
    }
    free(argv);
    free(jobs);
    free_paths(&paths);
    return rc;
}

zp_status zp_store_witness_paths(zp_store *s, int64_t id, zp_store_path_fn fn, void *arg, zp_error *err) {
    static const char what[] = "reading a job's witness paths";
    path_rows paths = {0};
    zp_store_job job;
    sqlite3_stmt *st = NULL;

    pthread_mutex_lock(&s->lock);
    zp_status rc = exec(s, "BEGIN", what, err);
    if (rc != ZP_OK) goto out;
    if ((rc = get_job(&job, s, id, err)) != ZP_OK) goto out;
    if ((rc = prepare(&st, s, "SELECT job_id, witness FROM partitions WHERE job_id = ?1 ORDER BY idx", what, err)) !=
        ZP_OK)
        goto out;
    sqlite3_bind_int64(st, 1, id);
    rc = collect_paths(&paths, st, s, what, err);
out:
    sqlite3_finalize(st);
    rollback(s);
    pthread_mutex_unlock(&s->lock);
    if (rc == ZP_OK && fn != NULL)
        for (size_t i = 0; i < paths.n; i++) fn(arg, pool_str(&paths.pool, paths.off[i]));
    free_paths(&paths);
    return rc;
}

zp_status zp_store_counts(uint64_t counts[ZP_STORE_STATES], zp_store *s, zp_error *err) {
    static const char what[] = "counting jobs";
    memset(counts, 0, ZP_STORE_STATES * sizeof *counts);
    sqlite3_stmt *st;
    pthread_mutex_lock(&s->lock);
    zp_status rc = prepare(&st, s, "SELECT state, count(*) FROM jobs GROUP BY state", what, err);
    if (rc == ZP_OK) {
        int r;
        while ((r = step(st, s, what, err)) == SQLITE_ROW) {
            const char *state = (const char *)sqlite3_column_text(st, 0);
            int i = state ? state_index(state) : -1;
            if (i >= 0) counts[i] = (uint64_t)sqlite3_column_int64(st, 1);
        }
        if (r < 0) rc = (zp_status)-r;
        sqlite3_finalize(st);
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

/* One batch of expire, under the lock: at most ZP_STORE_EXPIRE_BATCH jobs. */
static zp_status expire_batch(uint64_t *count, path_rows *paths, zp_store *s, double before, zp_error *err) {
    static const char what[] = "expiring jobs";
#define EXPIRED                                                                                       \
    "SELECT id FROM jobs WHERE finished < ?1 AND state IN ('done', 'failed', 'cancelled') ORDER BY id" \
    " LIMIT " ZP_STR(ZP_STORE_EXPIRE_BATCH)
    static const char *const sql[3] = {
        "SELECT job_id, witness FROM partitions WHERE job_id IN (" EXPIRED ") ORDER BY job_id, idx",
        "DELETE FROM partitions WHERE job_id IN (" EXPIRED ")",
        "DELETE FROM jobs WHERE id IN (" EXPIRED ")",
    };
#undef EXPIRED
    *count = 0;
    sqlite3_stmt *st = NULL;
    int r;
    zp_status rc = begin(s, what, err);
    if (rc != ZP_OK) return rc;
    for (int k = 0; k < 3; k++) {
        if ((rc = prepare(&st, s, sql[k], what, err)) != ZP_OK) goto fail;
        sqlite3_bind_double(st, 1, before);
        if (k == 0) {
            if ((rc = collect_paths(paths, st, s, what, err)) != ZP_OK) goto fail;
        } else if ((r = step(st, s, what, err)) < 0) {
            rc = (zp_status)-r;
            goto fail;
        }
        if (k == 2) *count = (uint64_t)sqlite3_changes(s->db);
        sqlite3_finalize(st);
        st = NULL;
    }
    if ((rc = commit(s, what, err)) == ZP_OK) return ZP_OK;
fail:
    *count = 0;
    sqlite3_finalize(st);
    rollback(s);
    return rc;
}

zp_status zp_store_expire(uint64_t *deleted, zp_store *s, double before, zp_store_path_fn fn, void *arg,
                          zp_error *err) {
    *deleted = 0;
    for (;;) {
        path_rows paths = {0};
        uint64_t count;
        pthread_mutex_lock(&s->lock);
        zp_status rc = expire_batch(&count, &paths, s, before, err);
        pthread_mutex_unlock(&s->lock);
        if (rc == ZP_OK && fn != NULL)
            for (size_t i = 0; i < paths.n; i++) fn(arg, pool_str(&paths.pool, paths.off[i]));
        free_paths(&paths);
        if (rc != ZP_OK) return rc;
        *deleted += count;
        if (count < ZP_STORE_EXPIRE_BATCH) return ZP_OK;
    }
}
