/* What the job store's files (store.c: open and schema, store_jobs.c,
 * store_results.c) share: the handle and the helpers around SQLite. Every
 * helper is called with s->lock held, and names s->path and `what` in the
 * messages it makes. */
#ifndef ZP_SERVER_STORE_INTERNAL_H
#define ZP_SERVER_STORE_INTERNAL_H

#include <pthread.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

struct zp_store {
    sqlite3 *db;
    pthread_mutex_t lock;
    int lock_fd;
    char path[];
};

#define JOB_COLUMNS \
    "id, request_id, key_id, priority, partitions, done, state, error, submitted, finished, request_digest"

/* SQLite's error as a zp_status (ZP_ERR_FORMAT, ZP_ERR_IO, ...). */
zp_status store_db_error(zp_store *s, zp_error *err, const char *what);
/* ZP_ERR_ARG "no job N". */
zp_status store_no_job(zp_store *s, zp_error *err, int64_t id);
zp_status store_oom(zp_store *s, zp_error *err, const char *what);
zp_status store_prepare(sqlite3_stmt **st, zp_store *s, const char *sql, const char *what, zp_error *err);
/* SQLITE_ROW or SQLITE_DONE, or minus the zp_status of an error. */
int store_step(sqlite3_stmt *st, zp_store *s, const char *what, zp_error *err);
zp_status store_exec(zp_store *s, const char *sql, const char *what, zp_error *err);
/* BEGIN IMMEDIATE, COMMIT, ROLLBACK. */
zp_status store_begin(zp_store *s, const char *what, zp_error *err);
zp_status store_commit(zp_store *s, const char *what, zp_error *err);
void store_rollback(zp_store *s);
/* A text column into a fixed buffer, cut to cap - 1 bytes. */
void store_copy_text(char *dst, size_t cap, sqlite3_stmt *st, int col);
/* The index of a state in zp_store_state_names, -1 when none. */
int store_state_index(const char *state);

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

/* A row of JOB_COLUMNS into *job. */
void store_read_job(zp_store_job *job, sqlite3_stmt *st);
/* One job (ZP_ERR_ARG "no job N" when absent). */
zp_status store_get_job(zp_store_job *job, zp_store *s, int64_t id, zp_error *err);

#endif
