/* What the PostgreSQL job store's files share (pg.c: libpq, the
 * connection, transactions and the schema; pg_jobs.c: jobs and results;
 * pg_claims.c: claims, leases, fences and daemons).
 *
 * Every operation is a transaction body run by pg_run under the handle's
 * mutex: pg_run begins, calls the body, commits, and when the connection
 * was lost (the server restarted) before COMMIT was sent, reconnects and
 * runs the body once more. A body therefore starts by forgetting what an
 * earlier run of it collected, and touches nothing outside its context
 * but the database. Rows a caller's callback will see are kept as the
 * PGresult itself (independent of the connection) and walked after the
 * mutex is released. */
#ifndef ZP_STORE_PG_INTERNAL_H
#define ZP_STORE_PG_INTERNAL_H

#include <libpq-fe.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store_impl.h"

typedef struct pg_store {
    zp_store base; /* base.name points at name */
    pthread_mutex_t lock;
    PGconn *conn; /* keeps the URI's parameters for PQreset */
    char name[];  /* the URI without its password */
} pg_store;

/* A transaction in progress. */
typedef struct pg_tx {
    pg_store *s;
    const char *what; /* for messages: "adding a job" */
    zp_error *err;
    int lost;         /* the last statement failed because the connection broke */
    char sqlstate[6]; /* the last failed statement's SQLSTATE, "" when none */
} pg_tx;

typedef zp_status (*pg_body)(pg_tx *tx, void *ctx);

enum { PG_READ = 0, PG_WRITE = 1 };

/* Runs body in one transaction (PG_READ: one snapshot, read only). */
zp_status pg_run(pg_store *s, int mode, const char *what, pg_body body, void *ctx, zp_error *err);

/* Statement parameters, all in text format; NULL is SQL NULL. */
#define PG_MAX_ARGS 16
typedef struct pg_args {
    int n;
    const char *v[PG_MAX_ARGS];
    char num[PG_MAX_ARGS][32];
} pg_args;

void pg_arg_str(pg_args *a, const char *v);
void pg_arg_i64(pg_args *a, int64_t v);
void pg_arg_u64(pg_args *a, uint64_t v);
void pg_arg_f64(pg_args *a, double v);

/* One statement; *out (when not NULL) gets its rows, for pg_free. */
zp_status pg_exec(pg_tx *tx, const char *sql, const pg_args *a, PGresult **out);

/* Reading rows (libpq is called only from pg.c). pg_text: NULL for SQL
 * NULL. The numbers read NULL and garbage as 0. */
int pg_rows(const PGresult *r);
const char *pg_text(const PGresult *r, int row, int col);
int64_t pg_i64(const PGresult *r, int row, int col);
double pg_f64(const PGresult *r, int row, int col);
/* Rows an UPDATE/DELETE/INSERT touched. */
uint64_t pg_changed(PGresult *r);
void pg_free(PGresult *r);
/* A text column into a fixed buffer, cut to cap - 1 bytes. */
void pg_copy_text(char *dst, size_t cap, const PGresult *r, int row, int col);

/* A PostgreSQL array literal ("{1,2}", "{\"a\",NULL}") grown in memory. */
typedef struct pg_array {
    char *buf;
    size_t len, cap;
    int oom;
} pg_array;

void pg_array_begin(pg_array *a);
void pg_array_i64(pg_array *a, int64_t v);
void pg_array_f64(pg_array *a, double v);
void pg_array_str(pg_array *a, const char *v); /* NULL is NULL */
/* Closes it; NULL when out of memory. */
const char *pg_array_end(pg_array *a);
void pg_array_free(pg_array *a);

/* Messages: "<name>: <what>: ...". */
zp_status pg_no_job(pg_tx *tx, int64_t id);
zp_status pg_oom(pg_tx *tx);

/* The jobs table's columns as pg_read_job reads them. */
#define PG_JOB_COLUMNS                                                                                       \
    "id, request_id, key_id, priority, partitions, done, state, error, submitted, finished, request_digest," \
    " key_digest, wasm_digest"
void pg_read_job(zp_store_job *job, const PGresult *r, int row);
/* One job in a transaction (ZP_ERR_ARG "no job N" when absent). */
zp_status pg_get_job(zp_store_job *job, pg_tx *tx, int64_t id);

/* pg_jobs.c and pg_claims.c: the operations of zp_store_pg_ops. */
zp_status pg_add_job(int64_t *id, int *existing, zp_store *s, const char *request_id, const char *request_digest,
                     const char *key_id, const char *key_digest, const char *wasm_digest, int priority,
                     uint32_t partitions, const char *const *witness_paths, zp_error *err);
zp_status pg_get_job_op(zp_store_job *job, zp_store *s, int64_t id, zp_error *err);
zp_status pg_find_request(int64_t *id, zp_store *s, const char *request_id, zp_error *err);
zp_status pg_queue_position(uint64_t *position, zp_store *s, int64_t id, zp_error *err);
zp_status pg_finish_job(zp_store *s, int64_t id, zp_job_state state, const char *error, const zp_store_result *results,
                        uint32_t n, zp_error *err);
zp_status pg_results(zp_store *s, int64_t id, zp_store_result_fn fn, void *arg, zp_error *err);
zp_status pg_list(zp_store *s, uint32_t limit, int state, zp_store_job_fn fn, void *arg, zp_error *err);
zp_status pg_unfinished(zp_store *s, zp_store_unfinished_fn fn, void *arg, zp_error *err);
zp_status pg_witness_paths(zp_store *s, int64_t id, zp_store_path_fn fn, void *arg, zp_error *err);
zp_status pg_count(zp_store_counts *counts, zp_store *s, zp_error *err);
zp_status pg_expire(uint64_t *deleted, zp_store *s, double ttl_s, zp_store_path_fn fn, void *arg, zp_error *err);
zp_status pg_clock(double *now, zp_store *s, zp_error *err);
zp_status pg_repair(size_t *repaired, zp_store *s, zp_store_repair_fn fn, void *arg, zp_error *err);

zp_status pg_claim(zp_store_claim *out, size_t max, size_t *n, zp_store *s, const char *node, const zp_store_key *keys,
                   size_t n_keys, double lease_s, zp_error *err);
zp_status pg_mismatches(zp_store *s, const zp_store_key *keys, size_t n_keys, zp_store_mismatch_fn fn, void *arg,
                        zp_error *err);
zp_status pg_renew(int *lost, zp_store *s, const char *node, const zp_store_held *held, size_t n, double lease_s,
                   zp_error *err);
zp_status pg_release(zp_store *s, const char *node, const zp_store_held *held, size_t n, zp_error *err);
zp_status pg_finish_part(int *job_ended, zp_store *s, const zp_store_held *h, zp_job_state state, const char *error,
                         const zp_store_result *result, zp_error *err);
zp_status pg_join(zp_store *s, const zp_store_node *me, double lease_s, zp_error *err);
zp_status pg_heartbeat(zp_store *s, const zp_store_node *me, zp_error *err);
zp_status pg_leave(zp_store *s, const char *node, zp_error *err);
zp_status pg_nodes(zp_store *s, zp_store_node_fn fn, void *arg, zp_error *err);

/* pg_claims.c's claim queries ($1 node, $2 max, $3 NULL or the pins' key
 * ids, $4 lease seconds; with keys, $5 and $6 the pins' key and circuit
 * digests): all keys, or the given pins' queues merged. Shared with
 * bench/store_claims.c, whose EXPLAIN must show the query the store runs. */
extern const char zp_pg_claim_any[];
extern const char zp_pg_claim_keys[];

#endif
