/* The daemon's insides, shared by server.c (lifecycle, sampler, log),
 * submit.c (accepting jobs, keys), spool.c (witness files), resume.c
 * (restart), dispatch.c (claiming work), collector.c (recording ended
 * partitions), routes*.c (the API's
 * handlers), metrics.c (Prometheus text) and http.c (libmicrohttpd). */
#ifndef ZP_SERVER_INTERNAL_H
#define ZP_SERVER_INTERNAL_H

#include <jansson.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/stat.h>

#include "server/config.h"
#include "server/server.h"
#include "store/store.h"
#include "zkpipe_engine.h"

/* A partition this daemon claimed from the store and gave its engine (as
 * a job of one partition): its claim and the engine's job. */
typedef struct active_part {
    zp_store_held claim;
    uint64_t engine_id;
    int lost;             /* the store took it back (taken over, its job ended): cancelled here */
    int fd;               /* its spooled file, opened beneath the spool: what the engine reads; -1: none */
    char *file;           /* that file, relative to the spool (for messages); malloc'd */
    char wasm_digest[65]; /* the circuit its witness is computed with (a job given inputs); "" otherwise */
} active_part;

/* verify.c: a job whose spooled files matched its request digest, each
 * file's size and SHA-256, so that each partition after the first is
 * checked against its own file alone. The collector's thread only. */
typedef struct verified_job {
    int64_t job_id; /* 0: an empty slot */
    uint32_t n;
    uint64_t *sizes;
    uint8_t (*digests)[32];
} verified_job;
/* jobs of more than one partition in flight at once; past it, the oldest
 * is hashed whole again */
#define VERIFIED_JOBS 32

/* dispatch.c: a key this daemon serves (configured, or in keys_dir). */
typedef struct dispatch_key {
    char id[128];
    char digest[65], wasm_digest[65]; /* its pins as last read (pins.c); digest "": none (cannot be read) */
} dispatch_key;

/* collector.c: an ended job whose record waits for the store. */
typedef struct pending_commit pending_commit;

/* pins.c: one file's digest as last computed. */
struct pin_file;

/* dispatch.c: jobs waiting for one of this daemon's key ids that it
 * cannot claim, their pins being other bytes (zp_store_mismatches). */
typedef struct key_mismatch {
    char key_id[128];
    char digest[65], wasm_digest[65]; /* this daemon's */
    char pinned[65], pinned_wasm[65]; /* the jobs' */
    uint64_t jobs;
} key_mismatch;
#define MAX_MISMATCHES 64

#define HISTORY 600
typedef struct history_sample {
    double t;
    uint64_t rss, tracked, reserved, budget;
    uint64_t classes[ZP_BUF_CLASSES];
} history_sample;

#define LATENCY_BUCKETS 14
#define LATENCY_STAGES 7 /* queued synth wait_prove prove wait_final final total */
extern const double zp_latency_bounds[LATENCY_BUCKETS];
extern const char *const zp_latency_stage_names[LATENCY_STAGES];

struct zp_server {
    zp_server_config cfg;
    zp_engine *engine;
    zp_store *store;
    void *mhd, *mhd_unix; /* struct MHD_Daemon */
    int unix_fd;
    uint64_t unix_dev, unix_ino; /* the socket file we made: only that one is removed at stop */
    int port;
    char *spool_dir;
    int spool_fd;        /* the spool, opened at start: every spooled file is reached beneath it */
    char *spool_real;    /* its real path (realpath), for rows spelt with it; NULL when unknown */
    int spool_proc;      /* /proc/self/fd names descriptors: the engine is given those names */
    char *witness_cache; /* data_dir/witness-cache: the compiled circuits */
    double started;

    pthread_mutex_t lock;         /* everything below */
    pthread_cond_t ended;         /* a job ended, or shutdown began */
    pthread_cond_t wake_dispatch; /* work was added, or a partition ended */
    active_part *active;
    size_t n_active, cap_active;
    char node[128]; /* this daemon's id in the store */
    char host[256]; /* its host name and address, for /v1/fleet */
    dispatch_key *dkeys;
    size_t n_dkeys;
    double dkeys_listed;
    uint64_t claims, renewals, leases_lost, results_refused; /* since start */
    double last_heartbeat, last_renew;
    char fleet_error[640];             /* the last failure talking to the store from the dispatcher; "" when none */
    double fleet_error_since;          /* monotonic seconds: since when it fails (0: it answers) */
    double clock_skew;                 /* this daemon's wall clock less the store's, seconds, as measured last */
    double clock_checked;              /* monotonic seconds of that measure (0: not yet) */
    double last_repair, last_mismatch; /* monotonic seconds of the last repair pass and mismatch count */
    uint64_t repairs;                  /* damaged rows repaired since start */
    key_mismatch mismatches[MAX_MISMATCHES];
    size_t n_mismatches;
    pthread_mutex_t pins_lock; /* the file digests below */
    struct pin_file *pin_files;
    size_t n_pin_files, cap_pin_files;
    int shutting_down, stop_threads;
    uint64_t spool_bytes, spool_seq;
    uint64_t outcomes[3]; /* done failed cancelled, since start */
    uint64_t proofs;
    uint64_t latency_buckets[LATENCY_STAGES][LATENCY_BUCKETS + 1];
    double latency_sum[LATENCY_STAGES];
    uint64_t latency_count[LATENCY_STAGES];
    uint64_t http_codes[6][100]; /* [status / 100][status % 100] */
    uint64_t job_conns;          /* requests in flight other than status, metrics, dashboard */
    pending_commit **pending;    /* ended jobs not yet recorded (disk full, I/O errors) */
    size_t n_pending, cap_pending;
    uint64_t commit_failures; /* failed tries at recording a job's end, since start */
    char commit_error[640];   /* the last one's message */
    double commit_error_at;   /* and when (Unix seconds; 0: none) */
    history_sample history[HISTORY];
    size_t history_head, history_len;
    double last_expire;

    /* server_engine_submit's file, for the server_add_active that follows it */
    int submit_fd;
    char *submit_file;
    verified_job verified[VERIFIED_JOBS]; /* the collector's (verify.c) */
    unsigned verified_next;

    pthread_t collector, sampler, circuits, dispatcher;
    int threads_started, circuits_started, dispatcher_started;
};

/* server.c: lifecycle */
/* "zkpipe serve: <line>" on stderr when level <= log_level (0 error,
 * 1 info, 2 debug). */
void server_log(const zp_server *s, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* submit.c: accepting jobs, the active map, keys */
/* The claimed partition an engine job works on: 1 and *out filled (may be
 * NULL), 0 when none; remove: forget it. Lock held. */
int server_find_active(zp_server *s, uint64_t engine_id, active_part *out, int remove);
/* Maps a claim to its engine job, with the spooled file the
 * server_engine_submit just before opened for it (the entry owns it from
 * here, and server_find_active's remove closes it); 0 when out of memory
 * (the file closed). Lock held. */
int server_add_active(zp_server *s, const zp_store_held *claim, uint64_t engine_id);
/* Cancels, in the engine, every partition of job id this daemon works
 * on (the job was cancelled); how many. Takes the lock. */
size_t server_cancel_local(zp_server *s, int64_t id);
/* Wakes the dispatcher: there may be work to claim. */
void server_wake_dispatch(zp_server *s);
/* The path of a key id (config keys, then keys_dir/<id>.zkey); NULL and
 * err set when there is none. Returns malloc'd. */
char *server_key_path(zp_server *s, const char *id, zp_error *err);
/* The circuit (circom's circuit.wasm) of a key id: the config's
 * "key ID=PATH wasm=WASM", or keys_dir/ID.wasm; NULL when it has none.
 * Returns malloc'd. */
char *server_key_wasm(zp_server *s, const char *id);
/* Submits a claimed partition to the engine: its spooled witness, or its
 * inputs (N.json) with the key's circuit. The file the claim's row names
 * is opened beneath the spool (a row naming anything else is an error,
 * and nothing is read), and the engine reads that very file through the
 * descriptor's name; server_add_active takes the descriptor. Lock held. */
zp_status server_engine_submit(uint64_t *engine_id, zp_server *s, const zp_store_claim *claim, zp_error *err);
/* Whether a spooled file is a partition's inputs (N.json), not a witness. */
int server_spooled_inputs(const char *path);
/* Accepts a job whose witnesses are in memory: spools, stores, submits.
 * On success *id is the store's id; *existing when request_id was known
 * (the caller compares request_digest with the stored job's). inputs: w
 * holds each partition's input.json, for the key's circuit. */
typedef struct job_witness {
    const unsigned char *bytes; /* the .wtns file */
    size_t size;
} job_witness;
zp_status server_submit(int64_t *id, int *existing, size_t *queue_position, zp_server *s, const char *key_id,
                        int priority, const char *request_id, const char *request_digest, const job_witness *w,
                        size_t n, int inputs, int *http_status, zp_error *err);

/* The key of a streamed upload, from its headers: its path (malloc'd) and
 * what it needs; an error (*http_status 404, 422) when there is none or
 * one partition of it cannot fit the budget. */
zp_status server_upload_key(zp_engine_key_info *key, char **key_path, zp_server *s, const char *key_id,
                            int *http_status, zp_error *err);
/* Accepts a job whose witnesses are spooled and checked already (a
 * streamed upload): stores and submits it as server_submit does. On an
 * error, or when request_id was known, the files are removed. */
zp_status server_submit_spooled(int64_t *id, int *existing, size_t *queue_position, zp_server *s, const char *key_id,
                                const char *key_path, int priority, const char *request_id, const char *request_digest,
                                char **paths, size_t n, int *http_status, zp_error *err);

/* upload.c: POST /v1/jobs with Content-Type: application/octet-stream:
 * the partitions' .wtns files back to back, streamed to the spool and
 * checked on the way (io/wtns_stream.h), never held in memory. The key,
 * priority and request_id are query arguments. */
typedef struct server_upload server_upload;
/* From the request's headers (req: method, path and query only): NULL
 * and the answer in resp when it is refused already (no key, bad
 * arguments, the spool cannot take a directory). */
server_upload *server_upload_begin(zp_server *s, const zp_request *req, zp_response *resp);
/* A piece of the body. Never fails here: a problem (a bad witness, the
 * spool full) is kept, the rest of the body read and dropped, and the
 * answer given at the end, with its reason. */
void server_upload_feed(server_upload *u, const void *data, size_t len);
/* The body is complete: the job accepted (201, or 200 for a known
 * request_id) or the kept problem answered; u is freed. */
void server_upload_finish(server_upload *u, zp_response *resp);
/* The connection ended first: the files go; u is freed. NULL is ignored. */
void server_upload_abort(server_upload *u);

/* verify.c: the request digest, and the bytes proved checked against it */
/* What a request_id stands for: the SHA-256 of everything that decides
 * the job's proofs (key, priority, each partition's file, inputs or
 * witnesses), in hex. */
zp_status server_request_digest(char hex[65], const char *key, int priority, int inputs, const job_witness *w, size_t n,
                                zp_error *err);
/* The same of spooled files (paths: as the store names them), each read
 * beneath the spool, in 64 KiB pieces. */
zp_status server_request_digest_files(char hex[65], zp_server *s, const char *key, int priority, char *const *paths,
                                      size_t n, zp_error *err);
/* After a partition was proved: the bytes of its file (fd, the very file
 * the engine read) against its job's stored request digest, with the
 * job's other files the first time a job is seen (then each file's own
 * digest is kept). ZP_OK when they match, or the job has no digest (kept
 * since store version 2); ZP_ERR_MISMATCH naming the job when they do
 * not (a file changed after acceptance); ZP_ERR_ARG for a file that
 * cannot be opened beneath the spool; ZP_ERR_IO, ZP_ERR_NOMEM for what
 * may pass (the store unreachable, a read error). Collector thread. */
zp_status server_verify_part(zp_server *s, const zp_store_held *claim, int fd, zp_error *err);
/* The job ended: its kept digests go. */
void server_verify_forget(zp_server *s, int64_t job_id);
/* At stop: everything kept. */
void server_verify_free(zp_server *s);

/* spool.c: every file a store row names is reached beneath the spool's
 * descriptor, never by the name as given. Paths the daemon makes and
 * stores are relative to the spool ("<dir>/<N>.wtns"). */
#define SPOOL_PATH_MAX 4096
#define SPOOL_DIR_MAX 64
/* At start: data_dir and the spool made (0700) when missing, refused when
 * another user owns or may write either (naming it), the spool opened
 * (s->spool_fd) and its bytes counted. */
zp_status server_spool_open_dirs(zp_server *s, zp_error *err);
/* A row's path, relative to the spool, in rel: as it is when relative;
 * without the spool's prefix (as configured, or its real path) when an
 * earlier version wrote it absolute. Anything else absolute, a ".."
 * component, an empty path: ZP_ERR_ARG "'PATH' is not beneath the spool
 * DIR: a store row names it; refused". Nothing is touched. */
zp_status server_spool_rel(char rel[SPOOL_PATH_MAX], const zp_server *s, const char *path, zp_error *err);
/* Opens a row's file for reading beneath the spool (server_spool_rel,
 * then zp_file_open_beneath: no symlink followed): *fd a blocking
 * descriptor of a regular file, rel its path beneath the spool.
 * ZP_ERR_ARG for a path refused (server_spool_rel) or a symlink on the
 * way ("... goes through a symbolic link in the spool ..."); ZP_ERR_FORMAT
 * for a file that is missing or not regular; ZP_ERR_IO otherwise. */
zp_status server_spool_open(int *fd, char rel[SPOOL_PATH_MAX], const zp_server *s, const char *path, zp_error *err);
/* The same for a stat (without following a symlink at the end either). */
zp_status server_spool_stat(struct stat *sb, const zp_server *s, const char *path, zp_error *err);
/* The name under which the engine opens the file at fd (rel beneath the
 * spool): /proc/self/fd/FD, or the spool's real path and rel where there
 * is no /proc. 0 when it does not fit cap. */
int server_spool_engine_name(char *name, size_t cap, const zp_server *s, int fd, const char *rel);
/* A fresh directory in the spool for one job's files: its name in dir
 * (SPOOL_DIR_MAX bytes), relative to the spool. */
zp_status server_spool_mkdir(char *dir, zp_server *s, zp_error *err);
/* Creates rel (a new file, 0600) beneath the spool for writing. */
zp_status server_spool_create(int *fd, const zp_server *s, const char *rel, zp_error *err);
/* fsyncs a directory of the spool (dir relative; "" none) and the spool. */
void server_spool_sync(const zp_server *s, const char *dir);
/* Removes files the daemon just made (paths relative to the spool, NULL
 * ones skipped) and then dir (NULL: none) when it is empty; no count. */
void server_spool_discard(const zp_server *s, const char *dir, char *const *paths, size_t n);
/* Writes and fsyncs the witnesses into a fresh directory of the spool:
 * paths[i] (malloc'd, relative to the spool) for w[i], named N.<suffix>
 * ("wtns", or "json" for a job's inputs); *http_status says what to
 * answer when it fails (507 when they do not fit spool_max). */
zp_status server_spool(char **paths, zp_server *s, const job_witness *w, size_t n, const char *suffix, int *http_status,
                       zp_error *err);
/* Removes the spooled file a row names, beneath the spool, and takes its
 * bytes off the count (arg: the server), then its directory once empty;
 * a file gone already is no error (zp_store_path_fn). A path refused by
 * server_spool_rel, a symlink on the way or a file that is not regular is
 * logged and left alone. */
void server_spool_remove(void *arg, const char *path);
/* The bytes of the spool's regular files (at start). */
uint64_t server_spool_bytes(const zp_server *s);
/* At start, before any request: removes every file of the spool that is not
 * one of keep (the live jobs' witnesses, by device and inode; sorted here),
 * and empty directories; recounts spool_bytes. A kill -9 between a job's
 * end being recorded and its files' removal leaves such orphans. */
typedef struct spool_file_id {
    uint64_t dev, ino;
} spool_file_id;
void server_spool_sweep(zp_server *s, spool_file_id *keep, size_t n_keep, size_t *removed, uint64_t *bytes);

/* resume.c: at start, the daemon joins the store (its earlier run's claims
 * go back to the queue) and, with a store of its own, sweeps the spool of
 * files no unfinished job holds. */
zp_status server_resume(zp_server *s, zp_error *err);

/* dispatch.c: the thread that claims partitions from the store when the
 * engine has room, renews their leases, cancels those the store took
 * back, and sends the heartbeat (arg: the server). */
void *server_dispatch_main(void *arg);
/* At stop: gives back the claims not finished, and leaves the store. */
void server_dispatch_stop(zp_server *s);

/* pins.c: the digests of the files this daemon proves with. */
/* The SHA-256 hex of a file, computed again only when it changed (device,
 * inode, size, times), or never again when frozen (a circuit: the engine
 * keeps what it compiled). */
zp_status server_file_digest(char hex[65], zp_server *s, const char *path, int frozen, zp_error *err);
/* A key id's pins as this daemon has them now: its key file's digest, and
 * its circuit's ("" when it has none). ZP_ERR_ARG: no such key. */
zp_status server_key_pins(char key_digest[65], char wasm_digest[65], zp_server *s, const char *key_id, zp_error *err);
void server_pins_free(zp_server *s);

/* dispatch.c: why the daemon needs looking after, one line each
 * (/v1/status "degraded", /metrics zkpipe_degraded): records not written
 * for longer than degraded_after, the store failing that long, the clock
 * far from the store's. Returns how many (at most max); lines of 512
 * bytes. Takes the lock. */
size_t server_degraded(zp_server *s, char (*lines)[512], size_t max);
/* How far this daemon's clock may be from the store's before it says so. */
#define CLOCK_SKEW_WARN_S 5.0

/* circuits.c: the thread that hands every key's circuit to the engine at start and logs how its compile ended. */
void *server_circuits_main(void *arg);

/* collector.c: the thread that records each ended partition (arg: the
 * server). */
void *server_collector_main(void *arg);
/* The job as it is with the partitions whose end is not recorded in the
 * store yet (a full disk, the database down): 1 when there are some, and
 * *job's state and done updated by them (done when they were the last,
 * failed when one failed); fn (may be NULL) gets each of their results. */
int server_pending_job(zp_server *s, zp_store_job *job, zp_store_result_fn fn, void *arg);
/* Jobs with partitions whose record waits. Lock held. */
size_t server_pending_jobs(zp_server *s);
/* The record that has waited longest: how long (monotonic seconds; 0 when
 * none waits) and its last error, into why (512 bytes). Lock held. */
double server_pending_oldest(zp_server *s, char *why, size_t cap);

/* jobbody.c: a POST /v1/jobs body whose witnesses (witnesses[i].data,
 * base64) are decoded in place, in the buffer the body arrived in, and
 * left out of what jansson parses (a reference string in their place). */
typedef struct job_body_span {
    size_t start, end;    /* the string literal, quotes included */
    unsigned char *bytes; /* the decoded witness, at the literal's start */
    size_t size;
} job_body_span;
typedef struct job_body {
    const char *text;
    size_t len;
    job_body_span *spans;
    size_t n, cap;
    char prefix[40];                    /* of the references: "zp-intake:<nonce>:" */
    size_t json_bytes;                  /* what jansson's tree grows with: the text but whitespace between tokens, and
                          a reference string (at most sizeof ref) in each span's place */
    size_t pos, next, ref_pos, ref_len; /* the parse's place */
    char ref[64];
} job_body;
/* Finds and decodes the witnesses in text (rewritten in place). A
 * witness that is not base64, or any other string of 64 KiB or more, is
 * an error (*http_status 400). */
zp_status job_body_scan(job_body *b, char *text, size_t len, int *http_status, zp_error *err);
/* The body as JSON, each decoded witness a reference string. */
json_t *job_body_parse(job_body *b, json_error_t *jerr);
/* Whether a 'data' value is one of the references: 1 and its bytes. */
int job_body_lookup(const job_body *b, const char *value, const unsigned char **bytes, size_t *size);
void job_body_free(job_body *b);

/* jsonmem.c: jansson's allocations in a thread's arena (a tracked intake
 * buffer) while one is open, from malloc otherwise. */
typedef struct json_arena {
    unsigned char *base;
    size_t size, used;
    int full; /* an allocation did not fit */
} json_arena;
/* A JSON tree takes up to this many times its text (measured: an array of
 * one-element arrays of small numbers, 63x with a compact copy; arrays of
 * numbers or strings, 19-28x). */
#define JSON_ARENA_FACTOR 64
/* Routes jansson's allocations through jsonmem.c: zp_server_start calls
 * it once, before any request thread (jansson's hooks are global). */
void json_mem_install(void);
/* This thread's jansson allocations go to [base, base + size) (after
 * json_mem_install). */
void json_arena_open(json_arena *a, unsigned char *base, size_t size);
/* They go to malloc again; the arena's blocks stay valid. */
void json_arena_stop(json_arena *a);
void json_arena_resume(json_arena *a);
/* Every block of the arena has been freed: its buffer may go. */
void json_arena_release(json_arena *a);
/* Frees what jansson allocated (json_dumps) where it may be in an arena. */
void json_mem_free(void *p);

/* routes.c */
void server_respond_json(zp_response *resp, int status, json_t *body);
void server_respond_error(zp_response *resp, int status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The API's error code for an HTTP status ("bad_request", "not_found", ...). */
const char *server_error_code(int status);
/* Whether an Authorization header carries the token (always when there is
 * none configured); compares in constant time. */
int server_authorized(const zp_server *s, const char *authorization);
/* A query argument as a number, at most max: def when absent, -1 when it
 * is not a number >= 0. */
double server_query_double(const zp_request *req, const char *name, double def, double max);

/* routes_jobs.c: /v1/jobs */
/* The answer to a submission (server_submit's or server_submit_spooled's
 * result st, status, err): the job (201; 200 for a known request_id with
 * the same digest) or the error (409 for a request_id used otherwise). */
void server_answer_submitted(zp_server *s, zp_response *resp, zp_status st, int status, const zp_error *err, int64_t id,
                             int existing, size_t position, const char *key, size_t n, const char *request_id,
                             const char *digest);
void route_post_job(zp_server *s, const zp_request *req, zp_response *resp);
void route_get_jobs(zp_server *s, const zp_request *req, zp_response *resp);
void route_get_job(zp_server *s, int64_t id, zp_response *resp);
void route_get_proof(zp_server *s, int64_t id, const zp_request *req, zp_response *resp);
void route_delete_job(zp_server *s, int64_t id, zp_response *resp);

/* routes_status.c: /v1/status, /v1/status/history, /v1/keys, /v1/fleet */
void route_get_status(zp_server *s, zp_response *resp);
void route_get_history(zp_server *s, zp_response *resp);
void route_list_keys(zp_server *s, zp_response *resp);
/* /v1/fleet: every daemon of the store, and the queue they share */
void route_get_fleet(zp_server *s, zp_response *resp);
void route_key_action(zp_server *s, const char *method, const char *id, zp_response *resp);

/* metrics.c */
void server_metrics(zp_server *s, zp_response *resp);
/* Records a finished job's partition timings. Lock held. */
void server_metrics_job(zp_server *s, const zp_partition_times *t, size_t n);

/* http.c */
zp_status server_http_start(zp_server *s, zp_error *err);
/* Loads libmicrohttpd (server_http_start does it too). */
zp_status server_http_load(zp_error *err);
void server_http_stop(zp_server *s);

/* base64.c: decodes standard base64 (padding optional, no whitespace);
 * returns malloc'd bytes, NULL when malformed. */
unsigned char *zp_base64_decode(const char *text, size_t len, size_t *out_len);
/* One base64 character's 6 bits, or -1 for anything else (padding too). */
int zp_base64_sextet(unsigned char c);

#endif
