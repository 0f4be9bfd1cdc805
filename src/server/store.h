/* The daemon's durable job store (docs/daemon.md, "The store"): one SQLite
 * file in WAL mode with synchronous=FULL, so a call that returned ZP_OK has
 * reached the disk and survives kill -9 (and power loss, as far as fsync
 * does). One connection, guarded by a mutex: any thread may call any
 * function at any time.
 *
 * Callbacks run after the store's lock is released, on the calling thread,
 * with copies of the rows: they may be slow and may call the store again.
 * The strings they get are valid only during the call.
 *
 * Every function returns a zp_status and fills err with one line naming
 * the database file, what was being done and SQLite's message:
 * ZP_ERR_ARG for a bad argument or an unknown job ("no job N"),
 * ZP_ERR_FORMAT for a corrupt file or one that is not a zkpipe store,
 * ZP_ERR_UNSUPPORTED for a store made by a newer zkpipe, ZP_ERR_NOMEM,
 * ZP_ERR_IO for anything else (unwritable, disk full, locked). */
#ifndef ZP_SERVER_STORE_H
#define ZP_SERVER_STORE_H

#include <stdint.h>

#include "zkpipe.h"
#include "zkpipe_engine.h"

/* The schema this build writes (PRAGMA user_version); older ones would be
 * migrated at open, newer ones are refused. */
#define ZP_STORE_SCHEMA_VERSION 2 /* 2: jobs.request_digest */

typedef struct zp_store zp_store;

/* Opens the store at path, creating the file and its schema when new.
 * Takes an exclusive lock on "<path>.lock" (flock) for as long as it is
 * open, so a second daemon on the same data_dir fails here (ZP_ERR_IO,
 * "in use") instead of running every job twice. A file that is not an
 * SQLite database, or whose jobs table is damaged, is refused
 * (ZP_ERR_FORMAT); damage elsewhere (the proofs) shows later as
 * ZP_ERR_FORMAT from the call that reads it, or from zp_store_check. */
ZP_WARN_UNUSED zp_status zp_store_open(zp_store **out, const char *path, zp_error *err);
/* SQLite's quick_check of the whole file: ZP_ERR_FORMAT naming the first
 * problem. Reads every page while holding the lock: seconds for a few
 * hundred MB (about 20 s for 330 MB from a cold cache on a slow disk), so
 * for startup on request (an option) or a maintenance command, not a
 * request handler. */
ZP_WARN_UNUSED zp_status zp_store_check(zp_store *s, zp_error *err);
/* Closes the connection (checkpointing the WAL into the file) and the
 * lock. NULL is a no-op. No call may be in flight. */
void zp_store_close(zp_store *store);

/* The job states, as stored and as the API names them. */
#define ZP_STORE_STATES 5
/* A job is "queued" from zp_store_add_job until zp_store_finish_job ends
 * it: whether it runs is the engine's to say (routes_status.c asks it),
 * so no function here writes "running"; the state stays in the schema,
 * and in what the readers report, for stores that hold it. */
extern const char *const zp_store_state_names[ZP_STORE_STATES]; /* queued running done failed cancelled */

typedef struct zp_store_job {
    int64_t id;             /* from 1, never reused (even after expire) */
    char request_id[129];   /* "" when none */
    char request_digest[65]; /* SHA-256 hex of the whole request; "" when none (or stored before version 2) */
    char key_id[128];
    int priority;
    uint32_t partitions;
    uint32_t done;          /* partitions with a proof, as recorded by finish (0 before) */
    char state[16];         /* one of zp_store_state_names */
    char error[512];        /* "" unless failed or cancelled with a reason */
    double submitted;       /* Unix seconds */
    double finished;        /* Unix seconds; 0 while not ended */
} zp_store_job;

/* Per-partition stage seconds: the engine's own struct, stored as is. */
typedef zp_partition_times zp_store_times;

/* Inserts a job and its partitions (their spooled witness paths, fsynced
 * by the caller before) in one transaction, state "queued"; *id is the new
 * id. request_id NULL or "" is none; otherwise at most 128 bytes, and when
 * a job with that request_id exists nothing is inserted: *existing = 1 and
 * *id is that job's id (the caller compares the request's digest, kept
 * with the job, to answer 200 or 409, and removes the witnesses it spooled
 * for nothing). request_digest: NULL or "", or up to 64 characters (the
 * SHA-256 hex of everything the request asked for).
 * key_id: 1..127 bytes; partitions >= 1, witness_paths has that many. */
ZP_WARN_UNUSED zp_status zp_store_add_job(int64_t *id, int *existing, zp_store *s, const char *request_id,
                                          const char *request_digest, const char *key_id, int priority, uint32_t partitions,
                                          const char *const *witness_paths, double submitted, zp_error *err);
/* One job. ZP_ERR_ARG "no job N" when absent. */
ZP_WARN_UNUSED zp_status zp_store_get_job(zp_store_job *job, zp_store *s, int64_t id, zp_error *err);
/* The job made for request_id: *id = 0 when there is none. */
ZP_WARN_UNUSED zp_status zp_store_find_request(int64_t *id, zp_store *s, const char *request_id, zp_error *err);

/* One partition's outcome: proof and public signals as JSON text (NULL
 * when the partition has none: failed, cancelled, not reached). */
typedef struct zp_store_result {
    const char *proof_json, *public_json;
    zp_store_times times;
} zp_store_result;

/* Records how a job ended, in ONE transaction: state ("done", "failed" or
 * "cancelled"), error (NULL or ""), finished time, and with n = partitions
 * the result of each partition in order (n = 0: no results; proofs stay
 * NULL and times 0); done becomes the number with a proof. A job ends once:
 * finishing an ended job is ZP_ERR_ARG and changes nothing, so is an
 * absent one. Remove the job's witnesses (zp_store_witness_paths) only
 * after this returned ZP_OK. */
ZP_WARN_UNUSED zp_status zp_store_finish_job(zp_store *s, int64_t id, const char *state, const char *error,
                                             double finished, const zp_store_result *results, uint32_t n,
                                             zp_error *err);

/* Per-partition results, in partition order: fn gets (arg, idx, proof
 * JSON or NULL, public JSON or NULL, times; zero before the job ended).
 * Absent job: ZP_ERR_ARG "no job N". */
typedef void (*zp_store_result_fn)(void *arg, uint32_t idx, const char *proof, const char *pub,
                                   const zp_store_times *t);
ZP_WARN_UNUSED zp_status zp_store_results(zp_store *s, int64_t id, zp_store_result_fn fn, void *arg, zp_error *err);

/* Jobs, most recent (highest id) first, at most limit (0: all), only one
 * state when state is one of zp_store_state_names (NULL or "": all; any
 * other string: ZP_ERR_ARG). */
typedef void (*zp_store_job_fn)(void *arg, const zp_store_job *job);
ZP_WARN_UNUSED zp_status zp_store_list(zp_store *s, uint32_t limit, const char *state, zp_store_job_fn fn, void *arg,
                                       zp_error *err);

/* Every job still queued or running, oldest (lowest id) first, with its
 * witness paths in partition order (job->partitions of them, then NULL):
 * what a restart submits again. A job whose rows do not add up (a
 * partition missing or out of order, a witness path that is not one, a
 * page that cannot be read) comes with witness_paths NULL and damage
 * saying what is wrong, for the caller to fail that job alone; damage is
 * NULL otherwise. */
typedef void (*zp_store_unfinished_fn)(void *arg, const zp_store_job *job, const char *const *witness_paths,
                                       const char *damage);
ZP_WARN_UNUSED zp_status zp_store_unfinished(zp_store *s, zp_store_unfinished_fn fn, void *arg, zp_error *err);

/* The spooled witness paths of one job, in partition order (to remove them
 * after it ended). Absent job: ZP_ERR_ARG "no job N". */
typedef void (*zp_store_path_fn)(void *arg, const char *path);
ZP_WARN_UNUSED zp_status zp_store_witness_paths(zp_store *s, int64_t id, zp_store_path_fn fn, void *arg,
                                                zp_error *err);

/* Jobs by state, indexed as zp_store_state_names: queued, running, done,
 * failed, cancelled. */
ZP_WARN_UNUSED zp_status zp_store_counts(uint64_t counts[ZP_STORE_STATES], zp_store *s, zp_error *err);

/* Deletes the ended jobs that finished before `before` (Unix seconds), and
 * their partitions; *deleted is how many jobs. Works in transactions of
 * 128 jobs, releasing the lock between them (each job goes whole or not at
 * all; on an error, *deleted counts the batches done). After each batch fn
 * (may be NULL) gets its jobs' witness paths: normally removed already when
 * the job ended, so fn must accept paths that no longer exist. Queued and
 * running jobs are never deleted. */
ZP_WARN_UNUSED zp_status zp_store_expire(uint64_t *deleted, zp_store *s, double before, zp_store_path_fn fn, void *arg,
                                         zp_error *err);

#endif
