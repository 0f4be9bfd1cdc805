/* The job store on PostgreSQL (store.h): many daemons on many hosts share
 * one queue. This file loads libpq, holds the connection, runs
 * transactions (reconnecting after a server restart), creates and checks
 * the schema, and fills zp_store_pg_ops; pg_jobs.c and pg_claims.c hold
 * the operations.
 *
 * Why these choices:
 * - libpq is loaded when a PostgreSQL store is opened (base/dynlib.h), so
 *   a daemon on SQLite and every other command never load it and the
 *   Kerberos, LDAP and TLS libraries it brings.
 * - One connection behind a mutex, as the SQLite store: the daemon's
 *   store calls are short, and one connection per daemon keeps a fleet of
 *   many daemons well under max_connections.
 * - A lost connection is found when a statement fails with the connection
 *   bad; the transaction is run again on a new one only when COMMIT was
 *   never sent (nothing of it can have been recorded). Lost during COMMIT,
 *   whether it was recorded is unknown: ZP_ERR_IO saying so, and the next
 *   call reconnects. A deadlock or serialization failure (the server
 *   rolled the transaction back) is retried a few times.
 * - Every value travels as a parameter of PQexecParams, never in the SQL.
 * - Lease times are the server's now(), never a daemon's clock.
 * - The schema is created under a transaction-scoped advisory lock, so two
 *   daemons starting on an empty database at once do not race. */
#include "store/store.h"

#include <ctype.h>
#include <inttypes.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/dynlib.h"
#include "base/error.h"
#include "store/pg_internal.h"

/* The schema version this build writes and reads (zkpipe_meta.version).
 * 2: the jobs' pins (key and circuit digests, kept with their partitions
 * for the claim's index), the daemons' keys and clock skew, an index of
 * the partitions done without a proof. */
#define PG_SCHEMA_VERSION 2
/* pg_advisory_xact_lock key while creating the schema: "zkpp". */
#define PG_SCHEMA_LOCK 0x7a6b7070
/* Seconds libpq waits for a server that does not answer a connection,
 * unless the URI says otherwise. */
#define PG_CONNECT_TIMEOUT "10"
/* The server ends a session left idle inside a transaction this long.
 * zkpipe's transactions send their statements back to back, so only a
 * stalled daemon (SIGSTOP, a VM paused, a network partition) waits there;
 * its row locks would otherwise keep the others from taking over its
 * claims and from ending its jobs for as long as it stalls, whatever the
 * lease. An `options` in the URI replaces this one. */
#define PG_SESSION_OPTIONS "-c idle_in_transaction_session_timeout=1000"
/* Retries of a transaction the server rolled back (deadlock, serialization). */
#define PG_CONFLICT_RETRIES 3

/* libpq, loaded when a store is opened (base/dynlib.h). Called through
 * these pointers, never by name. */
static struct {
    __typeof__(PQconnectdbParams) *connectdbParams;
    __typeof__(PQstatus) *status;
    __typeof__(PQerrorMessage) *errorMessage;
    __typeof__(PQfinish) *finish;
    __typeof__(PQreset) *reset;
    __typeof__(PQexecParams) *execParams;
    __typeof__(PQresultStatus) *resultStatus;
    __typeof__(PQresultErrorMessage) *resultErrorMessage;
    __typeof__(PQresultErrorField) *resultErrorField;
    __typeof__(PQclear) *clear;
    __typeof__(PQntuples) *ntuples;
    __typeof__(PQgetvalue) *getvalue;
    __typeof__(PQgetisnull) *getisnull;
    __typeof__(PQcmdTuples) *cmdTuples;
    __typeof__(PQsetNoticeProcessor) *setNoticeProcessor;
} pq;

static zp_status pg_load(zp_error *err) {
    static int once;
    static const char *const sonames[] = {"libpq.so.5", "libpq.so", NULL};
#define SYM(f) \
    { "PQ" #f, (void **)&pq.f }
    const zp_dynsym syms[] = {SYM(connectdbParams),
                              SYM(status),
                              SYM(errorMessage),
                              SYM(finish),
                              SYM(reset),
                              SYM(execParams),
                              SYM(resultStatus),
                              SYM(resultErrorMessage),
                              SYM(resultErrorField),
                              SYM(clear),
                              SYM(ntuples),
                              SYM(getvalue),
                              SYM(getisnull),
                              SYM(cmdTuples),
                              SYM(setNoticeProcessor)};
#undef SYM
    return zp_dynlib_load(&once, sonames, syms, sizeof syms / sizeof *syms, "libpq5", err);
}

/* ---- names and messages ---- */

static int pg_accepts(const char *where) {
    return where != NULL && (strncmp(where, "postgresql://", 13) == 0 || strncmp(where, "postgres://", 11) == 0);
}

/* The URI without its password: "user:secret@" becomes "user@", and a
 * password=... parameter is left out. */
static void redact(char *dst, size_t cap, const char *uri) {
    size_t o = 0;
#define PUT(c)                           \
    do {                                 \
        if (o + 1 < cap) dst[o++] = (c); \
    } while (0)
    const char *p = strstr(uri, "://");
    const char *auth = p ? p + 3 : uri;
    for (const char *c = uri; c < auth; c++) PUT(*c);
    size_t alen = strcspn(auth, "/?#");
    const char *at = NULL;
    for (size_t i = 0; i < alen; i++)
        if (auth[i] == '@') at = auth + i;
    const char *c = auth;
    if (at != NULL) {
        const char *colon = memchr(auth, ':', (size_t)(at - auth));
        for (; c < (colon ? colon : at); c++) PUT(*c);
        c = at;
    }
    /* host, port and path as they are, up to the parameters */
    for (; *c && *c != '?'; c++) PUT(*c);
    if (*c == '?') {
        int first = 1;
        c++;
        while (*c) {
            size_t len = strcspn(c, "&");
            if (!(len >= 9 && strncmp(c, "password=", 9) == 0)) {
                PUT(first ? '?' : '&');
                for (size_t i = 0; i < len; i++) PUT(c[i]);
                first = 0;
            }
            c += len;
            if (*c == '&') c++;
        }
    }
#undef PUT
    dst[o] = '\0';
}

/* libpq's messages span lines ("...\n\tThis probably means..."): one line,
 * without "ERROR:  " in front. */
static void one_line(char *dst, size_t cap, const char *msg) {
    size_t o = 0;
    int space = 0;
    if (msg == NULL || *msg == '\0') msg = "no message";
    if (strncmp(msg, "ERROR:  ", 8) == 0) msg += 8;
    for (const char *c = msg; *c && o + 1 < cap; c++) {
        if (isspace((unsigned char)*c)) {
            space = o > 0;
            continue;
        }
        if (space && o + 2 < cap) dst[o++] = ' ';
        space = 0;
        dst[o++] = *c;
    }
    dst[o] = '\0';
}

/* A failed statement's SQLSTATE as a zp_status. */
static zp_status status_of(const char *sqlstate, int lost) {
    if (lost || sqlstate == NULL) return ZP_ERR_IO;
    if (strncmp(sqlstate, "53200", 5) == 0) return ZP_ERR_NOMEM;
    /* an undefined table or column: not (or no longer) a zkpipe store */
    if (strncmp(sqlstate, "42P01", 5) == 0 || strncmp(sqlstate, "42703", 5) == 0) return ZP_ERR_FORMAT;
    if (strncmp(sqlstate, "23", 2) == 0 || strncmp(sqlstate, "42", 2) == 0 || strncmp(sqlstate, "22", 2) == 0)
        return ZP_ERR_INTERNAL;
    return ZP_ERR_IO;
}

zp_status pg_no_job(pg_tx *tx, int64_t id) {
    return zp_error_set(tx->err, ZP_ERR_ARG, "%s: no job %lld", tx->s->name, (long long)id);
}

zp_status pg_oom(pg_tx *tx) {
    return zp_error_set(tx->err, ZP_ERR_NOMEM, "%s: %s: out of memory", tx->s->name, tx->what);
}

/* ---- statements ---- */

void pg_arg_str(pg_args *a, const char *v) {
    if (a->n < PG_MAX_ARGS) a->v[a->n++] = v;
}

void pg_arg_i64(pg_args *a, int64_t v) {
    if (a->n >= PG_MAX_ARGS) return;
    snprintf(a->num[a->n], sizeof a->num[0], "%" PRId64, v);
    a->v[a->n] = a->num[a->n];
    a->n++;
}

void pg_arg_u64(pg_args *a, uint64_t v) {
    if (a->n >= PG_MAX_ARGS) return;
    snprintf(a->num[a->n], sizeof a->num[0], "%" PRIu64, v);
    a->v[a->n] = a->num[a->n];
    a->n++;
}

void pg_arg_f64(pg_args *a, double v) {
    if (a->n >= PG_MAX_ARGS) return;
    snprintf(a->num[a->n], sizeof a->num[0], "%.17g", v);
    a->v[a->n] = a->num[a->n];
    a->n++;
}

zp_status pg_exec(pg_tx *tx, const char *sql, const pg_args *a, PGresult **out) {
    PGconn *conn = tx->s->conn;
    if (out != NULL) *out = NULL;
    tx->lost = 0;
    tx->sqlstate[0] = '\0';
    PGresult *r = pq.execParams(conn, sql, a ? a->n : 0, NULL, a ? a->v : NULL, NULL, NULL, 0);
    ExecStatusType st = r ? pq.resultStatus(r) : PGRES_FATAL_ERROR;
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
        if (out != NULL) *out = r;
        else pq.clear(r);
        return ZP_OK;
    }
    tx->lost = pq.status(conn) == CONNECTION_BAD;
    const char *state = r ? pq.resultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    if (state != NULL) snprintf(tx->sqlstate, sizeof tx->sqlstate, "%s", state);
    const char *msg = r ? pq.resultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    if (msg == NULL && r != NULL) msg = pq.resultErrorMessage(r);
    if (msg == NULL || *msg == '\0') msg = pq.errorMessage(conn);
    char line[400];
    one_line(line, sizeof line, msg);
    zp_status code = r == NULL && !tx->lost ? ZP_ERR_NOMEM : status_of(state, tx->lost);
    if (tx->lost) zp_error_set(tx->err, code, "%s: %s: connection to the server lost: %s", tx->s->name, tx->what, line);
    else zp_error_set(tx->err, code, "%s: %s: %s", tx->s->name, tx->what, line);
    if (r != NULL) pq.clear(r);
    return code;
}

int pg_rows(const PGresult *r) { return r ? pq.ntuples(r) : 0; }

const char *pg_text(const PGresult *r, int row, int col) {
    if (pq.getisnull(r, row, col)) return NULL;
    return pq.getvalue(r, row, col);
}

int64_t pg_i64(const PGresult *r, int row, int col) {
    const char *t = pg_text(r, row, col);
    return t ? (int64_t)strtoll(t, NULL, 10) : 0;
}

double pg_f64(const PGresult *r, int row, int col) {
    const char *t = pg_text(r, row, col);
    return t ? strtod(t, NULL) : 0;
}

uint64_t pg_changed(PGresult *r) {
    const char *t = r ? pq.cmdTuples(r) : NULL;
    return t && *t ? (uint64_t)strtoull(t, NULL, 10) : 0;
}

void pg_free(PGresult *r) {
    if (r != NULL) pq.clear(r);
}

void pg_copy_text(char *dst, size_t cap, const PGresult *r, int row, int col) {
    const char *t = pg_text(r, row, col);
    size_t n = t ? strlen(t) : 0;
    if (n >= cap) n = cap - 1;
    if (n) memcpy(dst, t, n);
    dst[n] = '\0';
}

/* ---- array literals ---- */

static void array_put(pg_array *a, const char *s, size_t n) {
    if (a->oom) return;
    if (a->len + n + 2 > a->cap) {
        size_t cap = a->cap ? a->cap : 256;
        while (cap < a->len + n + 2) cap *= 2;
        char *b = realloc(a->buf, cap);
        if (b == NULL) {
            a->oom = 1;
            return;
        }
        a->buf = b;
        a->cap = cap;
    }
    memcpy(a->buf + a->len, s, n);
    a->len += n;
    a->buf[a->len] = '\0';
}

static void array_sep(pg_array *a) {
    if (a->len > 1) array_put(a, ",", 1);
}

void pg_array_begin(pg_array *a) {
    memset(a, 0, sizeof *a);
    array_put(a, "{", 1);
}

void pg_array_i64(pg_array *a, int64_t v) {
    char t[32];
    array_sep(a);
    array_put(a, t, (size_t)snprintf(t, sizeof t, "%" PRId64, v));
}

void pg_array_f64(pg_array *a, double v) {
    char t[40];
    array_sep(a);
    array_put(a, t, (size_t)snprintf(t, sizeof t, "%.17g", v));
}

/* Quoted, with " and \ escaped by a backslash (the array literal's rules). */
void pg_array_str(pg_array *a, const char *v) {
    array_sep(a);
    if (v == NULL) {
        array_put(a, "NULL", 4);
        return;
    }
    array_put(a, "\"", 1);
    for (const char *c = v; *c; c++) {
        size_t run = strcspn(c, "\"\\");
        array_put(a, c, run);
        c += run;
        if (*c == '\0') break;
        array_put(a, "\\", 1);
        array_put(a, c, 1);
    }
    array_put(a, "\"", 1);
}

const char *pg_array_end(pg_array *a) {
    array_put(a, "}", 1);
    return a->oom ? NULL : a->buf;
}

void pg_array_free(pg_array *a) {
    free(a->buf);
    memset(a, 0, sizeof *a);
}

/* ---- transactions ---- */

/* A connection that works, made again when it broke (the server
 * restarted): the next call after the server is back goes through. */
static zp_status pg_connected(pg_store *s, const char *what, zp_error *err) {
    if (pq.status(s->conn) == CONNECTION_OK) return ZP_OK;
    pq.reset(s->conn);
    if (pq.status(s->conn) == CONNECTION_OK) return ZP_OK;
    char line[400];
    one_line(line, sizeof line, pq.errorMessage(s->conn));
    return zp_error_set(err, ZP_ERR_IO, "%s: %s: cannot reach the server: %s", s->name, what, line);
}

static void pg_rollback(pg_store *s) {
    if (pq.status(s->conn) != CONNECTION_OK) return;
    PGresult *r = pq.execParams(s->conn, "ROLLBACK", 0, NULL, NULL, NULL, NULL, 0);
    if (r != NULL) pq.clear(r);
}

/* The server rolled the transaction back for a conflict with another one
 * (serialization failure, deadlock): running it again is safe. */
static int conflict(const char *sqlstate) { return strcmp(sqlstate, "40001") == 0 || strcmp(sqlstate, "40P01") == 0; }

zp_status pg_run(pg_store *s, int mode, const char *what, pg_body body, void *ctx, zp_error *err) {
    static const char *const begin[2] = {"BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", "BEGIN"};
    zp_status rc;
    int reconnects = 0, conflicts = 0;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        pg_tx tx = {.s = s, .what = what, .err = err};
        int committing = 0;
        if ((rc = pg_connected(s, what, err)) != ZP_OK) break;
        rc = pg_exec(&tx, begin[mode == PG_WRITE], NULL, NULL);
        if (rc == ZP_OK) rc = body(&tx, ctx);
        if (rc == ZP_OK) {
            committing = 1;
            rc = pg_exec(&tx, "COMMIT", NULL, NULL);
        }
        if (rc == ZP_OK) break;
        if (tx.lost) {
            if (committing && mode == PG_WRITE) {
                rc = zp_error_set(err, ZP_ERR_IO,
                                  "%s: %s: connection to the server lost while committing: whether it was recorded "
                                  "is unknown",
                                  s->name, what);
                break;
            }
            if (reconnects++ == 0) continue; /* nothing of it was recorded */
            break;
        }
        pg_rollback(s);
        if (conflict(tx.sqlstate) && conflicts++ < PG_CONFLICT_RETRIES) continue;
        break;
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

/* ---- the schema ---- */

/* jobs.state and partitions.state are zp_job_state's values: 0 queued,
 * 1 running, 2 done, 3 failed, 4 cancelled. A partition keeps its job's
 * key and priority so that the claim reads one index in claim order:
 * partitions_queue holds the queued ones only, (priority DESC, job_id,
 * idx), and a claim reads its first rows whatever the queue's length. */
static const char *const SCHEMA[] = {
    "CREATE TABLE zkpipe_meta(version int NOT NULL)",
    /* fencing numbers: global and strictly increasing */
    "CREATE SEQUENCE zkpipe_fence AS bigint",
    "CREATE TABLE jobs("
    " id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY," /* never reused */
    " request_id text UNIQUE,"
    " request_digest text,"
    " key_id text NOT NULL,"
    " key_digest text NOT NULL DEFAULT '',"
    " wasm_digest text NOT NULL DEFAULT '',"
    " priority int NOT NULL,"
    " partitions int NOT NULL CHECK (partitions > 0),"
    " done int NOT NULL DEFAULT 0,"
    " state smallint NOT NULL DEFAULT 0 CHECK (state BETWEEN 0 AND 4),"
    " error text,"
    " submitted double precision NOT NULL,"
    " finished double precision)",
    /* list by state, unfinished, counts */
    "CREATE INDEX jobs_state ON jobs(state, id)",
    /* expire: ended jobs by end time */
    "CREATE INDEX jobs_finished ON jobs(finished) WHERE state >= 2",
    "CREATE TABLE partitions("
    " job_id bigint NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,"
    " idx int NOT NULL,"
    " path text NOT NULL,"
    " key_id text NOT NULL,"
    " key_digest text NOT NULL DEFAULT '',"
    " wasm_digest text NOT NULL DEFAULT '',"
    " priority int NOT NULL,"
    " state smallint NOT NULL DEFAULT 0 CHECK (state BETWEEN 0 AND 4),"
    " owner text,"
    " fence bigint NOT NULL DEFAULT 0,"
    " lease_until timestamptz,"
    " proof text, public text,"
    " queued double precision, synth double precision, wait_prove double precision, prove double precision,"
    " wait_final double precision, final double precision, total double precision,"
    " PRIMARY KEY (job_id, idx))",
    "CREATE INDEX partitions_queue ON partitions(priority DESC, job_id, idx) WHERE state = 0",
    /* a claim for some keys only: each key's (and pins') queue in claim order */
    "CREATE INDEX partitions_queue_key ON partitions(key_id, key_digest, wasm_digest, priority DESC, job_id, idx)"
    " WHERE state = 0",
    /* the repair pass: partitions done without a proof (damage: empty) */
    "CREATE INDEX partitions_unproved ON partitions(job_id, idx) WHERE state = 2 AND proof IS NULL",
    /* takeover: the expired leases among the running ones */
    "CREATE INDEX partitions_leases ON partitions(lease_until) WHERE state = 1",
    /* renew, release, join: a daemon's running claims */
    "CREATE INDEX partitions_owner ON partitions(owner) WHERE state = 1",
    "CREATE TABLE nodes("
    " id text PRIMARY KEY,"
    " host text NOT NULL,"
    " pid bigint NOT NULL,"
    " started double precision NOT NULL,"
    " heartbeat timestamptz NOT NULL,"
    " budget bigint NOT NULL DEFAULT 0,"
    " tracked bigint NOT NULL DEFAULT 0,"
    " claimed int NOT NULL DEFAULT 0,"
    " proofs bigint NOT NULL DEFAULT 0,"
    " clock_skew double precision NOT NULL DEFAULT 0,"
    " keys text)",
};

/* Version 1 to 2. Jobs accepted before have no pins (""): any daemon with
 * the key id claims them, as before. */
static const char *const UPGRADE_2[] = {
    "ALTER TABLE jobs ADD COLUMN key_digest text NOT NULL DEFAULT '',"
    " ADD COLUMN wasm_digest text NOT NULL DEFAULT ''",
    "ALTER TABLE partitions ADD COLUMN key_digest text NOT NULL DEFAULT '',"
    " ADD COLUMN wasm_digest text NOT NULL DEFAULT ''",
    "DROP INDEX partitions_queue_key",
    "CREATE INDEX partitions_queue_key ON partitions(key_id, key_digest, wasm_digest, priority DESC, job_id, idx)"
    " WHERE state = 0",
    "CREATE INDEX partitions_unproved ON partitions(job_id, idx) WHERE state = 2 AND proof IS NULL",
    "ALTER TABLE nodes ADD COLUMN clock_skew double precision NOT NULL DEFAULT 0, ADD COLUMN keys text",
    "UPDATE zkpipe_meta SET version = 2",
};

static zp_status schema_body(pg_tx *tx, void *ctx) {
    (void)ctx;
    PGresult *r = NULL;
    pg_args a = {0};
    pg_arg_i64(&a, PG_SCHEMA_LOCK);
    zp_status rc = pg_exec(tx, "SELECT pg_advisory_xact_lock($1::bigint)", &a, NULL);
    if (rc != ZP_OK) return rc;
    if ((rc = pg_exec(tx,
                      "SELECT to_regclass('zkpipe_meta') IS NOT NULL, to_regclass('jobs') IS NOT NULL OR"
                      " to_regclass('partitions') IS NOT NULL OR to_regclass('nodes') IS NOT NULL",
                      NULL, &r)) != ZP_OK)
        return rc;
    int meta = strcmp(pg_text(r, 0, 0), "t") == 0, tables = strcmp(pg_text(r, 0, 1), "t") == 0;
    pg_free(r);
    if (!meta && tables)
        return zp_error_set(tx->err, ZP_ERR_FORMAT,
                            "%s: the database has tables named jobs, partitions or nodes but is not a zkpipe store "
                            "(no zkpipe_meta table)",
                            tx->s->name);
    if (!meta) {
        for (size_t i = 0; i < sizeof SCHEMA / sizeof *SCHEMA; i++)
            if ((rc = pg_exec(tx, SCHEMA[i], NULL, NULL)) != ZP_OK) return rc;
        pg_args v = {0};
        pg_arg_i64(&v, PG_SCHEMA_VERSION);
        return pg_exec(tx, "INSERT INTO zkpipe_meta(version) VALUES ($1)", &v, NULL);
    }
    if ((rc = pg_exec(tx, "SELECT max(version) FROM zkpipe_meta", NULL, &r)) != ZP_OK) return rc;
    int64_t ver = pg_i64(r, 0, 0);
    pg_free(r);
    if (ver < 1)
        return zp_error_set(tx->err, ZP_ERR_FORMAT, "%s: zkpipe_meta holds no schema version: not a zkpipe store",
                            tx->s->name);
    if (ver > PG_SCHEMA_VERSION)
        return zp_error_set(tx->err, ZP_ERR_UNSUPPORTED,
                            "%s: store schema version %lld is newer than this zkpipe's (%d): run a newer zkpipe",
                            tx->s->name, (long long)ver, PG_SCHEMA_VERSION);
    for (size_t i = 0; ver < 2 && i < sizeof UPGRADE_2 / sizeof *UPGRADE_2; i++)
        if ((rc = pg_exec(tx, UPGRADE_2[i], NULL, NULL)) != ZP_OK) return rc;
    return ZP_OK;
}

static void quiet(void *arg, const char *message) {
    (void)arg;
    (void)message; /* library code prints nothing: notices are dropped */
}

static void pg_close(zp_store *base) {
    pg_store *s = (pg_store *)base;
    if (s == NULL) return;
    if (s->conn != NULL) pq.finish(s->conn);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static zp_status pg_open(zp_store **out, const char *where, zp_error *err) {
    *out = NULL;
    if (!pg_accepts(where)) return zp_error_set(err, ZP_ERR_ARG, "store: not a postgresql:// URI");
    size_t len = strlen(where);
    pg_store *s = calloc(1, sizeof *s + len + 1);
    if (s == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "store: out of memory");
    redact(s->name, len + 1, where);
    s->base.ops = &zp_store_pg_ops;
    s->base.name = s->name;
    if (pthread_mutex_init(&s->lock, NULL) != 0) {
        zp_status rc = zp_error_set(err, ZP_ERR_INTERNAL, "%s: cannot create a mutex", s->name);
        free(s);
        return rc;
    }
    zp_status rc = pg_load(err);
    if (rc != ZP_OK) {
        zp_error_prefix(err, "%s: ", s->name);
        pthread_mutex_destroy(&s->lock);
        free(s);
        return rc;
    }
    /* Defaults first: the URI's own, when it has them, come after and
     * win. Keepalives: a server host that vanished (no RST) is found in
     * about a minute, not the kernel's quarter of an hour, while a call
     * holds the store's mutex waiting for its answer. */
    const char *const keys[] = {"connect_timeout",
                                "keepalives",
                                "keepalives_idle",
                                "keepalives_interval",
                                "keepalives_count",
                                "application_name",
                                "options",
                                "dbname",
                                NULL};
    const char *const vals[] = {PG_CONNECT_TIMEOUT, "1", "30", "10", "3", "zkpipe", PG_SESSION_OPTIONS, where, NULL};
    s->conn = pq.connectdbParams(keys, vals, 1);
    if (s->conn == NULL) {
        pg_close(&s->base);
        return zp_error_set(err, ZP_ERR_NOMEM, "store: cannot connect: out of memory");
    }
    if (pq.status(s->conn) != CONNECTION_OK) {
        char line[400];
        one_line(line, sizeof line, pq.errorMessage(s->conn));
        rc = zp_error_set(err, ZP_ERR_IO, "%s: cannot connect: %s", s->name, line);
        pg_close(&s->base);
        return rc;
    }
    pq.setNoticeProcessor(s->conn, quiet, NULL);
    if ((rc = pg_run(s, PG_WRITE, "creating the schema", schema_body, NULL, err)) != ZP_OK) {
        pg_close(&s->base);
        return rc;
    }
    *out = &s->base;
    return ZP_OK;
}

static zp_status check_body(pg_tx *tx, void *ctx) {
    static const char *const tables[] = {"zkpipe_meta", "zkpipe_fence", "jobs", "partitions", "nodes"};
    (void)ctx;
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
        PGresult *r;
        pg_args a = {0};
        pg_arg_str(&a, tables[i]);
        zp_status rc = pg_exec(tx, "SELECT to_regclass($1) IS NOT NULL", &a, &r);
        if (rc != ZP_OK) return rc;
        int there = strcmp(pg_text(r, 0, 0), "t") == 0;
        pg_free(r);
        if (!there) return zp_error_set(tx->err, ZP_ERR_FORMAT, "%s: %s is missing", tx->s->name, tables[i]);
    }
    return ZP_OK;
}

static zp_status pg_check(zp_store *s, zp_error *err) {
    return pg_run((pg_store *)s, PG_READ, "checking the store", check_body, NULL, err);
}

const zp_store_ops zp_store_pg_ops = {
    .kind = "postgresql",
    .shared = 1,
    .accepts = pg_accepts,
    .open = pg_open,
    .close = pg_close,
    .check = pg_check,
    .add_job = pg_add_job,
    .get_job = pg_get_job_op,
    .find_request = pg_find_request,
    .queue_position = pg_queue_position,
    .finish_job = pg_finish_job,
    .results = pg_results,
    .list = pg_list,
    .unfinished = pg_unfinished,
    .witness_paths = pg_witness_paths,
    .count = pg_count,
    .expire = pg_expire,
    .clock = pg_clock,
    .repair = pg_repair,
    .claim = pg_claim,
    .mismatches = pg_mismatches,
    .renew = pg_renew,
    .release = pg_release,
    .finish_part = pg_finish_part,
    .join = pg_join,
    .heartbeat = pg_heartbeat,
    .leave = pg_leave,
    .nodes = pg_nodes,
};
