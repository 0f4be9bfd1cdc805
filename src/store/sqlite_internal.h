/* What the SQLite job store's files (sqlite.c: open and schema,
 * sqlite_jobs.c, sqlite_results.c, sqlite_claims.c) share: the handle and the helpers around SQLite. Every
 * helper is called with s->lock held, and names s->path and `what` in the
 * messages it makes. */
#ifndef ZP_SERVER_STORE_INTERNAL_H
#define ZP_SERVER_STORE_INTERNAL_H

#include <pthread.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store_impl.h"

/* SQLite, loaded when a store is opened (sqlite.c, base/dynlib.h) rather
 * than linked: a proof's process then maps neither it nor the libm it
 * needs, about 0.65 MiB of a 2^11 proof's 7 MiB peak RSS. Called through
 * these pointers (sq.step(...)), never by name. */
typedef struct sq_api {
    __typeof__(sqlite3_bind_double) *bind_double;
    __typeof__(sqlite3_bind_int) *bind_int;
    __typeof__(sqlite3_bind_int64) *bind_int64;
    __typeof__(sqlite3_bind_null) *bind_null;
    __typeof__(sqlite3_bind_parameter_count) *bind_parameter_count;
    __typeof__(sqlite3_bind_text) *bind_text;
    __typeof__(sqlite3_busy_timeout) *busy_timeout;
    __typeof__(sqlite3_changes) *changes;
    __typeof__(sqlite3_close_v2) *close_v2;
    __typeof__(sqlite3_column_bytes) *column_bytes;
    __typeof__(sqlite3_column_double) *column_double;
    __typeof__(sqlite3_column_int) *column_int;
    __typeof__(sqlite3_column_int64) *column_int64;
    __typeof__(sqlite3_column_text) *column_text;
    __typeof__(sqlite3_column_type) *column_type;
    __typeof__(sqlite3_create_function_v2) *create_function_v2;
    __typeof__(sqlite3_db_readonly) *db_readonly;
    __typeof__(sqlite3_errcode) *errcode;
    __typeof__(sqlite3_errmsg) *errmsg;
    __typeof__(sqlite3_exec) *exec;
    __typeof__(sqlite3_extended_result_codes) *extended_result_codes;
    __typeof__(sqlite3_finalize) *finalize;
    __typeof__(sqlite3_get_autocommit) *get_autocommit;
    __typeof__(sqlite3_last_insert_rowid) *last_insert_rowid;
    __typeof__(sqlite3_open_v2) *open_v2;
    __typeof__(sqlite3_prepare_v2) *prepare_v2;
    __typeof__(sqlite3_reset) *reset;
    __typeof__(sqlite3_result_double) *result_double;
    __typeof__(sqlite3_step) *step;
    __typeof__(sqlite3_system_errno) *system_errno;
    __typeof__(sqlite3_user_data) *user_data;
} sq_api;
extern sq_api sq;

typedef struct sq_store {
    zp_store base;
    sqlite3 *db;
    pthread_mutex_t lock;
    int lock_fd;
    /* the store's clock (store.h zp_store_clock): wall0 at the monotonic
     * time mono0, advanced by the monotonic clock */
    double wall0, mono0;
    char path[];
} sq_store;

/* The store's clock now, Unix seconds; SQL reads it as zp_now(). */
double sq_now(const sq_store *s);

#define JOB_COLUMNS                                                                                          \
    "id, request_id, key_id, priority, partitions, done, state, error, submitted, finished, request_digest," \
    " key_digest, wasm_digest"

/* SQLite's error as a zp_status (ZP_ERR_FORMAT, ZP_ERR_IO, ...). */
zp_status store_db_error(sq_store *s, zp_error *err, const char *what);
/* ZP_ERR_ARG "no job N". */
zp_status store_no_job(sq_store *s, zp_error *err, int64_t id);
zp_status store_oom(sq_store *s, zp_error *err, const char *what);
zp_status store_prepare(sqlite3_stmt **st, sq_store *s, const char *sql, const char *what, zp_error *err);
/* SQLITE_ROW or SQLITE_DONE, or minus the zp_status of an error. */
int store_step(sqlite3_stmt *st, sq_store *s, const char *what, zp_error *err);
zp_status store_exec(sq_store *s, const char *sql, const char *what, zp_error *err);
/* BEGIN IMMEDIATE, COMMIT, ROLLBACK. */
zp_status store_begin(sq_store *s, const char *what, zp_error *err);
zp_status store_commit(sq_store *s, const char *what, zp_error *err);
void store_rollback(sq_store *s);
/* A text column into a fixed buffer, cut to cap - 1 bytes. */
void store_copy_text(char *dst, size_t cap, sqlite3_stmt *st, int col);
/* The state a stored name stands for, -1 when none. */
int store_state_index(const char *state);
/* The name stored for a state. */
const char *store_state_name(zp_job_state state);

/* Strings of many rows in one buffer, referred to by offset (the buffer
 * moves as it grows). */
typedef struct strpool {
    char *buf;
    size_t len, cap;
} strpool;

#define NO_STR SIZE_MAX

int store_pool_add(size_t *off, strpool *p, sqlite3_stmt *st, int col);
const char *store_pool_str(const strpool *p, size_t off);
/* Makes room for one more element of an array; 0 when out of memory. */
int store_grow(void **arr, size_t *cap, size_t n, size_t elem);

/* A row of JOB_COLUMNS into *job; 0 when its state is none of the five
 * (a damaged row: read as queued). */
int store_read_job(zp_store_job *job, sqlite3_stmt *st);
/* One job (ZP_ERR_ARG "no job N" when absent). */
zp_status store_get_job(zp_store_job *job, sq_store *s, int64_t id, zp_error *err);

/* The operations of store_impl.h, by file. */
zp_status sq_add_job(int64_t *id, int *existing, zp_store *base, const char *request_id, const char *request_digest,
                     const char *key_id, const char *key_digest, const char *wasm_digest, int priority,
                     uint32_t partitions, const char *const *witness_paths, zp_error *err);
zp_status sq_get_job(zp_store_job *job, zp_store *base, int64_t id, zp_error *err);
zp_status sq_find_request(int64_t *id, zp_store *base, const char *request_id, zp_error *err);
zp_status sq_queue_position(uint64_t *position, zp_store *base, int64_t id, zp_error *err);
zp_status sq_list(zp_store *base, uint32_t limit, int state, zp_store_job_fn fn, void *arg, zp_error *err);
zp_status sq_unfinished(zp_store *base, zp_store_unfinished_fn fn, void *arg, zp_error *err);
zp_status sq_witness_paths(zp_store *base, int64_t id, zp_store_path_fn fn, void *arg, zp_error *err);
zp_status sq_count(zp_store_counts *counts, zp_store *base, zp_error *err);
zp_status sq_expire(uint64_t *deleted, zp_store *base, double ttl_s, zp_store_path_fn fn, void *arg, zp_error *err);
zp_status sq_finish_job(zp_store *base, int64_t id, zp_job_state state, const char *error,
                        const zp_store_result *results, uint32_t n, zp_error *err);
zp_status sq_results(zp_store *base, int64_t id, zp_store_result_fn fn, void *arg, zp_error *err);
/* sqlite_claims.c */
zp_status sq_claim(zp_store_claim *out, size_t max, size_t *n, zp_store *base, const char *node,
                   const zp_store_key *keys, size_t n_keys, double lease_s, zp_error *err);
zp_status sq_mismatches(zp_store *base, const zp_store_key *keys, size_t n_keys, zp_store_mismatch_fn fn, void *arg,
                        zp_error *err);
zp_status sq_repair(size_t *repaired, zp_store *base, zp_store_repair_fn fn, void *arg, zp_error *err);
zp_status sq_clock(double *now, zp_store *base, zp_error *err);
zp_status sq_renew(int *lost, zp_store *base, const char *node, const zp_store_held *held, size_t n, double lease_s,
                   zp_error *err);
zp_status sq_release(zp_store *base, const char *node, const zp_store_held *held, size_t n, zp_error *err);
zp_status sq_finish_part(int *job_ended, zp_store *base, const zp_store_held *h, zp_job_state state, const char *error,
                         const zp_store_result *result, zp_error *err);
zp_status sq_join(zp_store *base, const zp_store_node *me, double lease_s, zp_error *err);
zp_status sq_heartbeat(zp_store *base, const zp_store_node *me, zp_error *err);
zp_status sq_leave(zp_store *base, const char *node, zp_error *err);
zp_status sq_nodes(zp_store *base, zp_store_node_fn fn, void *arg, zp_error *err);

#endif
