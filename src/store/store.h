/* The daemon's durable job store (docs/daemon.md "The store", docs/fleet.md):
 * the jobs, their partitions and what became of each, and the daemons
 * working on them. One interface, two implementations, chosen by
 * zp_store_open from what it is given (store.c holds the table):
 *   - SQLite (sqlite*.c): a file path. One host, one daemon (a flock on
 *     "<path>.lock" keeps a second one off), WAL with synchronous=FULL.
 *   - PostgreSQL (pg*.c, libpq loaded on demand): a connection URI,
 *     "postgresql://..." or "postgres://...", as psql takes it. Many
 *     daemons on many hosts share one queue.
 * A call that returned ZP_OK has been committed (durable: survives kill -9
 * of the daemon). Any thread may call any function at any time.
 *
 * Work is pulled, partition by partition: a daemon claims queued
 * partitions (zp_store_claim_work) when its engine has room, each claim a
 * lease that the daemon renews (zp_store_renew) and that another daemon
 * takes over once it has expired. Every claim carries a fencing number,
 * larger than any the partition had before: a result is recorded only
 * with the fence of the partition's current claim (zp_store_finish_part),
 * so a daemon that stalled past its lease cannot overwrite or duplicate
 * what the daemon that took its work over recorded.
 *
 * Every time the store writes or compares (leases, heartbeats, when a job
 * was submitted and finished, what expires) is the store's own clock
 * (zp_store_clock), never a caller's: a daemon whose clock is wrong
 * neither expires fresh results nor keeps stale claims alive.
 *
 * Jobs are pinned (docs/fleet.md "Keys are pinned"): each carries the
 * SHA-256 of the key file, and for a job given inputs of the circuit,
 * that the accepting daemon has under the job's key id. A partition is
 * claimed only by a daemon with the same digests, and a proof is recorded
 * only with the digest of the key it was made with. Jobs made before
 * pins existed (an upgraded store) have none: any daemon with the key id
 * claims them, as before.
 *
 * Callbacks run after the store's lock is released, on the calling thread,
 * with copies of the rows: they may be slow and may call the store again.
 * The strings they get are valid only during the call.
 *
 * Every function returns a zp_status and fills err with one line naming
 * the store (its path, or the URI without its password), what was being
 * done and the database's message: ZP_ERR_ARG for a bad argument or an
 * unknown job ("no job N"), ZP_ERR_FORMAT for a corrupt file or one that
 * is not a zkpipe store, ZP_ERR_UNSUPPORTED for a store made by a newer
 * zkpipe, ZP_ERR_NOMEM, ZP_ERR_MISMATCH for a result refused by its fence,
 * ZP_ERR_IO for anything else (unwritable, disk full, locked, the server
 * unreachable: worth trying again). */
#ifndef ZP_STORE_STORE_H
#define ZP_STORE_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "zkpipe.h"
#include "zkpipe_engine.h"

typedef struct zp_store zp_store;

/* Opens the store that where names: a postgresql:// or postgres:// URI,
 * else an SQLite file path (created with its schema when new). Either
 * creates its schema when the database has none and upgrades an older
 * one; a newer one is refused (ZP_ERR_UNSUPPORTED), so is a database that
 * is not a zkpipe store (ZP_ERR_FORMAT). */
ZP_WARN_UNUSED zp_status zp_store_open(zp_store **out, const char *where, zp_error *err);
/* Closes it. NULL is a no-op. No call may be in flight. */
void zp_store_close(zp_store *s);
/* The kind ("sqlite", "postgresql") and the name used in messages (the
 * path, or the URI without its password). */
const char *zp_store_kind(const zp_store *s);
const char *zp_store_name(const zp_store *s);
/* Whether many daemons may share it (PostgreSQL). */
int zp_store_shared(const zp_store *s);
/* A check of the whole store (SQLite: quick_check, seconds for a few
 * hundred MB; PostgreSQL: that its tables are there): ZP_ERR_FORMAT naming
 * the first problem. */
ZP_WARN_UNUSED zp_status zp_store_check(zp_store *s, zp_error *err);

/* ---- jobs ---- */

/* A job's state is the engine's enum (zp_job_state_name names it):
 * queued until one of its partitions is claimed, running until it ends,
 * then done (every partition proved), failed (one failed: the others are
 * cancelled) or cancelled. A partition's state is the same enum. */
typedef struct zp_store_job {
    int64_t id;              /* from 1, never reused (even after expire) */
    char request_id[129];    /* "" when none */
    char request_digest[65]; /* SHA-256 hex of the whole request; "" when none */
    char key_id[128];
    char key_digest[65];  /* SHA-256 hex of the key file it is pinned to; "" when none */
    char wasm_digest[65]; /* of the circuit, for a job given inputs; "" when none */
    int priority;
    uint32_t partitions;
    uint32_t done; /* partitions with a proof */
    zp_job_state state;
    char error[512];  /* "" unless failed or cancelled with a reason */
    double submitted; /* Unix seconds, the store's clock */
    double finished;  /* Unix seconds, the store's clock; 0 while not ended */
} zp_store_job;

/* Per-partition stage seconds: the engine's own struct, stored as is. */
typedef zp_partition_times zp_store_times;

/* Inserts a job and its partitions (their spooled witness or input
 * paths, fsynced by the caller before) in one transaction, all queued,
 * submitted now (the store's clock); *id is the new id. request_id NULL or
 * "" is none; otherwise at most 128 bytes, and when a job with that
 * request_id exists nothing is inserted: *existing = 1 and *id is that
 * job's id (the caller compares the request's digest, kept with the job,
 * to answer 200 or 409, and removes the files it spooled for nothing).
 * request_digest: NULL or "", or up to 64 characters. key_id: 1..127
 * bytes; key_digest and wasm_digest: the job's pins, NULL or "" (none) or
 * 64 lower-case hex digits (a wasm digest only with a key digest);
 * partitions >= 1, witness_paths has that many (each 1..4095 bytes). */
ZP_WARN_UNUSED zp_status zp_store_add_job(int64_t *id, int *existing, zp_store *s, const char *request_id,
                                          const char *request_digest, const char *key_id, const char *key_digest,
                                          const char *wasm_digest, int priority, uint32_t partitions,
                                          const char *const *witness_paths, zp_error *err);
/* One job. ZP_ERR_ARG "no job N" when absent. */
ZP_WARN_UNUSED zp_status zp_store_get_job(zp_store_job *job, zp_store *s, int64_t id, zp_error *err);
/* The job made for request_id: *id = 0 when there is none. */
ZP_WARN_UNUSED zp_status zp_store_find_request(int64_t *id, zp_store *s, const char *request_id, zp_error *err);
/* Queued partitions that will be claimed before this job's first queued
 * one (a higher priority, or the same and an older job): its place in the
 * whole queue. 0 for a job with none queued. */
ZP_WARN_UNUSED zp_status zp_store_queue_position(uint64_t *position, zp_store *s, int64_t id, zp_error *err);

/* One partition's outcome: proof and public signals as JSON text (NULL
 * when the partition has none: failed, cancelled, not reached), and what
 * the proof was made with: the SHA-256 hex of the key's bytes and of the
 * circuit that computed the witness (NULL or "": unknown, or no circuit).
 * A proof of a pinned job is recorded only when they are its pins. */
typedef struct zp_store_result {
    const char *proof_json, *public_json;
    zp_store_times times;
    const char *key_digest, *wasm_digest;
} zp_store_result;

/* Ends a job as a whole, in ONE transaction: state (ZP_JOB_DONE,
 * _FAILED or _CANCELLED), error (NULL or ""), finished now (the store's
 * clock), and with n = partitions the result of each partition in order
 * (n = 0: no results; partitions without a proof are cancelled, and
 * their claims with them); done becomes the number with a proof. A job
 * ends once: ending an ended job is ZP_ERR_ARG and changes nothing, so is
 * an absent one; a proof whose digests are not the job's pins is
 * ZP_ERR_MISMATCH and changes nothing. Remove the job's files
 * (zp_store_witness_paths) only after this returned ZP_OK. */
ZP_WARN_UNUSED zp_status zp_store_finish_job(zp_store *s, int64_t id, zp_job_state state, const char *error,
                                             const zp_store_result *results, uint32_t n, zp_error *err);

/* Per-partition results, in partition order: fn gets (arg, idx, proof
 * JSON or NULL, public JSON or NULL, times; zero before it ended), for
 * every partition, ended or not. Absent job: ZP_ERR_ARG "no job N". */
typedef void (*zp_store_result_fn)(void *arg, uint32_t idx, const char *proof, const char *pub,
                                   const zp_store_times *t);
ZP_WARN_UNUSED zp_status zp_store_results(zp_store *s, int64_t id, zp_store_result_fn fn, void *arg, zp_error *err);

/* Jobs, most recent (highest id) first, at most limit (0: all); only those
 * in state when state >= 0 (-1: all). */
typedef void (*zp_store_job_fn)(void *arg, const zp_store_job *job);
ZP_WARN_UNUSED zp_status zp_store_list(zp_store *s, uint32_t limit, int state, zp_store_job_fn fn, void *arg,
                                       zp_error *err);

/* Every job still queued or running, oldest (lowest id) first, with its
 * file paths in partition order (job->partitions of them, then NULL): the
 * spool's live files. A job whose rows do not add up (a partition missing
 * or out of order, a path that is not one, a page that cannot be read)
 * comes with witness_paths NULL and damage saying what is wrong, for the
 * caller to fail that job alone; damage is NULL otherwise. */
typedef void (*zp_store_unfinished_fn)(void *arg, const zp_store_job *job, const char *const *witness_paths,
                                       const char *damage);
ZP_WARN_UNUSED zp_status zp_store_unfinished(zp_store *s, zp_store_unfinished_fn fn, void *arg, zp_error *err);

/* The spooled file paths of one job, in partition order (to remove them
 * after it ended). Absent job: ZP_ERR_ARG "no job N". */
typedef void (*zp_store_path_fn)(void *arg, const char *path);
ZP_WARN_UNUSED zp_status zp_store_witness_paths(zp_store *s, int64_t id, zp_store_path_fn fn, void *arg, zp_error *err);

/* Jobs by state, indexed by zp_job_state, and partitions queued and
 * running (claimed) in the whole store. */
typedef struct zp_store_counts {
    uint64_t jobs[5];
    uint64_t parts_queued, parts_running;
} zp_store_counts;
ZP_WARN_UNUSED zp_status zp_store_count(zp_store_counts *counts, zp_store *s, zp_error *err);

/* Deletes the ended jobs that finished more than ttl_s seconds ago (the
 * store's clock), and their partitions; *deleted is how many jobs. Works
 * in transactions of 128 jobs (each job goes whole or not at all; on an
 * error, *deleted counts the batches done). After each batch fn (may be
 * NULL) gets its jobs' file paths: normally removed already when the job
 * ended, so fn must accept paths that no longer exist. Unended jobs are
 * never deleted. Daemons silent for longer than that are forgotten too.
 * ttl_s >= 0. */
ZP_WARN_UNUSED zp_status zp_store_expire(uint64_t *deleted, zp_store *s, double ttl_s, zp_store_path_fn fn, void *arg,
                                         zp_error *err);

/* The store's clock now, Unix seconds: the one every time in the store is
 * written and compared by. PostgreSQL: the server's clock_timestamp().
 * SQLite: the host's wall clock when the store was opened (or the latest
 * time the store holds, when the clock went back since, by less than 30
 * days), advanced by the monotonic clock: a jump of the wall clock while
 * the daemon runs moves nothing in the store. A daemon compares it with
 * its own clock to say when that is wrong. */
ZP_WARN_UNUSED zp_status zp_store_clock(double *now, zp_store *s, zp_error *err);

/* Rows that would keep a job unfinished for ever, repaired (docs/fleet.md
 * "Damaged rows"): a claim (a running partition) whose owner is not a
 * daemon of the store (no nodes row), or has none, or whose lease is none
 * or ends more than a day and a minute from now (no daemon's lease is
 * longer than a day), goes back to the queue; a partition of an unfinished
 * job marked done without a proof goes back to the queue too (its file is
 * still in the spool: it is proved again), and its job's count of done
 * partitions is counted again. fn (may be NULL) gets each repaired
 * partition and a line saying what was wrong; *repaired counts them. Rows
 * another transaction holds are left for the next pass. */
typedef void (*zp_store_repair_fn)(void *arg, int64_t job_id, uint32_t idx, const char *what);
ZP_WARN_UNUSED zp_status zp_store_repair(size_t *repaired, zp_store *s, zp_store_repair_fn fn, void *arg,
                                         zp_error *err);

/* ---- claims ---- */

/* A key a daemon has, as it claims by it: its id, the SHA-256 hex of its
 * file, and of its circuit (wasm) when it has one (NULL or "": none). A
 * partition is this key's when its job's key id is id and its job's pins
 * are these digests (a job given witnesses has no circuit pin), or it has
 * no pins (a job from before pins). */
typedef struct zp_store_key {
    const char *id;
    const char *digest;
    const char *wasm_digest;
} zp_store_key;

/* A partition claimed by a daemon. */
typedef struct zp_store_claim {
    int64_t job_id;
    uint32_t idx;
    uint64_t fence; /* this claim's fencing number */
    int priority;
    char key_id[128];
    char path[4096]; /* its spooled witness (.wtns) or inputs (.json) */
} zp_store_claim;

/* Claims up to max queued partitions for daemon node, highest priority
 * first, then oldest job, then partition order; partitions running under
 * a lease that has expired count as queued (their daemon is gone or
 * stalled). Only partitions of the keys in keys[0..n_keys) when keys is
 * not NULL (the keys that fit the daemon's engine now, with its digests:
 * zp_store_key); keys NULL, any partition, pins or not (for tools and
 * tests, never a daemon). Each claimed partition
 * is running, owned by node, with a new fence and a lease of lease_s
 * seconds; its job is running. *n: how many (0: nothing to claim). Many
 * daemons claiming at once never claim one partition twice, nor wait for
 * each other's rows (PostgreSQL: FOR UPDATE SKIP LOCKED). */
ZP_WARN_UNUSED zp_status zp_store_claim_work(zp_store_claim *out, size_t max, size_t *n, zp_store *s, const char *node,
                                             const zp_store_key *keys, size_t n_keys, double lease_s, zp_error *err);

/* The unfinished jobs waiting for a key of keys[0..n_keys) that a daemon
 * with these digests cannot claim: their pins are other digests. fn gets
 * one call per key id and pins, with how many jobs (at most 64 calls). */
typedef void (*zp_store_mismatch_fn)(void *arg, const char *key_id, const char *key_digest, const char *wasm_digest,
                                     uint64_t jobs);
ZP_WARN_UNUSED zp_status zp_store_mismatches(zp_store *s, const zp_store_key *keys, size_t n_keys,
                                             zp_store_mismatch_fn fn, void *arg, zp_error *err);

/* A claim as the daemon holds it. */
typedef struct zp_store_held {
    int64_t job_id;
    uint32_t idx;
    uint64_t fence;
} zp_store_held;

/* Renews the leases of node's claims held[0..n) to lease_s seconds from
 * now. lost[i] = 1 for a claim that is not node's any more: its fence
 * moved on (another daemon took it over), or its job was cancelled or
 * failed meanwhile; the daemon stops working on those (its results would
 * be refused). A lease that expired but was not taken over is renewed. */
ZP_WARN_UNUSED zp_status zp_store_renew(int *lost, zp_store *s, const char *node, const zp_store_held *held, size_t n,
                                        double lease_s, zp_error *err);

/* Gives claims back: node's running partitions among held[0..n) (all of
 * node's when held is NULL) are queued again at once, for any daemon to
 * claim (a daemon stopping, or starting again after a crash). */
ZP_WARN_UNUSED zp_status zp_store_release(zp_store *s, const char *node, const zp_store_held *held, size_t n,
                                          zp_error *err);

/* Records one partition's end under its claim, in one transaction:
 * ZP_JOB_DONE with its result (proof and public signals) or ZP_JOB_FAILED
 * with error. A partition done makes its job done when it was the last;
 * one failed fails its job (error names the partition) and cancels the
 * rest; the job's end time is the store's clock. ZP_ERR_MISMATCH, and
 * nothing written, when h's fence is not the partition's current one or
 * the partition is not running any more (taken over, cancelled): the
 * result is refused. ZP_ERR_MISMATCH too for a proof whose digests
 * (result->key_digest, ->wasm_digest) are not its job's pins: nothing of
 * it is written, and the partition goes back to the queue at once, for a
 * daemon with the job's key. *job_ended = 1 when this ended the job (the
 * caller removes its files). */
ZP_WARN_UNUSED zp_status zp_store_finish_part(int *job_ended, zp_store *s, const zp_store_held *h, zp_job_state state,
                                              const char *error, const zp_store_result *result, zp_error *err);

/* ---- daemons ---- */

typedef struct zp_store_node {
    char id[128];   /* the node option: unique in the fleet */
    char host[256]; /* where it runs, and its HTTP address */
    int64_t pid;
    double started;       /* Unix seconds */
    double heartbeat_age; /* seconds since its last heartbeat (the database's clock) */
    uint64_t budget, tracked;
    uint32_t claimed;  /* partitions it holds now */
    uint64_t proofs;   /* partitions it proved since it started */
    double clock_skew; /* its clock less the store's, seconds, as it measured last */
    /* its keys and their digests, JSON text ({"ID": {"zkey": HEX, "wasm":
     * HEX}, ...}), as it wrote them; NULL: none. Read back, valid during
     * the callback only. */
    const char *keys;
} zp_store_node;

/* A daemon joins: ZP_ERR_ARG when a daemon of that id sent a heartbeat
 * less than lease_s seconds ago (two daemons with one id would release
 * each other's work; lease_s = 0: no such check, the caller made its
 * own); else its row is written and the claims an earlier run of it left
 * are released (zp_store_release). */
ZP_WARN_UNUSED zp_status zp_store_join(zp_store *s, const zp_store_node *me, double lease_s, zp_error *err);
/* A daemon's heartbeat: its row (budget, tracked, claimed, proofs, clock
 * skew, keys) and the time now (the store's clock). */
ZP_WARN_UNUSED zp_status zp_store_heartbeat(zp_store *s, const zp_store_node *me, zp_error *err);
/* A daemon leaves (a clean stop): its row goes. */
ZP_WARN_UNUSED zp_status zp_store_leave(zp_store *s, const char *node, zp_error *err);
/* Every daemon's row, in id order. */
typedef void (*zp_store_node_fn)(void *arg, const zp_store_node *node);
ZP_WARN_UNUSED zp_status zp_store_nodes(zp_store *s, zp_store_node_fn fn, void *arg, zp_error *err);

#endif
