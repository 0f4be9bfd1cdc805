/* The pipeline engine's insides, shared by its files:
 * engine.c (lifecycle, submission, queries), stages.c (the workers),
 * keys.c (the key cache), trace.c (trace file, log lines, sampler).
 *
 * One mutex (engine->lock) guards every field below that is not atomic:
 * the work done under it is a few pointer moves, and the math runs
 * outside it. */
#ifndef ZP_ENGINE_INTERNAL_H
#define ZP_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stdio.h>

#include "engine/pool.h"
#include "groth16/backend.h"
#include "groth16/groth16.h"
#include "groth16/stream.h"
#include "io/zkey.h"
#include "mem/reuse.h"
#include "mem/track.h"
#include "witness/calc.h"
#include "zkpipe_engine.h"

/* What one engine thread adds to the process's RSS once it has run (its
 * stack's touched pages, its malloc arena), for a budget that covers the
 * whole process; measured here at 100-130 KiB, rounded up. */
#define ZP_ENGINE_THREAD_BYTES (192u << 10)
/* The most the engine keeps of released buffers (mem/reuse.h): a small
 * partition's witness, a/b/c and MSM scratch (2^11: under 3 MB, 2^14:
 * about 12); a buffer of 16 MiB or more takes huge pages, whose faults
 * are few. */
#define ENGINE_REUSE_MAX ((size_t)16 << 20)

typedef enum { KEY_UNLOADED = 0, KEY_LOADING, KEY_LOADED } key_state;

/* A proving key known to the engine: its dimensions always, its mapping and
 * matrices while loaded. */
typedef struct engine_key {
    char *path; /* as resolved by realpath */
    zp_curve curve;
    uint32_t n_vars, n_public, domain_size;
    /* counted (page-rounded): the mapped file, whose point sections are
     * used in place, and the matrices */
    uint64_t file_bytes, matrices_bytes;
    /* One partition's buffers, counted, and their sum; witness_alloc: the
     * witness buffer's size (witness_bytes, or, paged, room for a vector
     * of the domain too, which it also serves as) */
    uint64_t witness_bytes, abc_bytes, msm_bytes, footprint, witness_alloc;
    int in_order; /* the key's coefficient list is in order (a paged plan's need) */
    /* 1: one partition in memory (the file, the matrices, the buffers
     * above) does not fit the budget, so the key's points are streamed
     * from the file (groth16/stream.h) as `zkpipe prove --budget` does:
     * the key holds only what its mapping makes resident besides the
     * bulk points (stream_key_bytes, counted as file; no matrices), and a
     * partition's footprint is the witness, a, b, c (one third of them
     * spilled; paged, the witness's buffer serves as that third), the
     * streamed MSMs' scratch and the window, per `plan`. */
    int streamed;
    zp_groth16_stream_plan plan;
    uint64_t stream_key_bytes;
    /* the coefficient list's pages, resident while a load checks them
     * (then given back): done in the room of the partition that loads
     * the key, and load_reserved (set with KEY_LOADING) more where that
     * room is smaller */
    uint64_t stream_load_bytes, load_reserved;
    uint64_t inmem_need;  /* key + matrices + one partition in memory */
    uint64_t stream_need; /* the least a streamed partition and its key need; 0: no streamed plan */
    key_state state;
    zp_tracked file, matrices;
    zp_zkey *zkey;       /* over file.p while loaded */
    zp_groth16_pvk *pvk; /* while loaded, unless proofs are not verified: a small heap block */
    char digest[65];     /* options.key_digests: SHA-256 hex of the bytes loaded; "" while not loaded */
    size_t active;       /* admitted partitions using the loaded key: it stays while > 0 */
    size_t jobs;         /* jobs referring to this entry */
    uint64_t last_use;   /* for evicting the least recently used first */
    struct engine_key *next;
} engine_key;

/* A circuit's witness calculator known to the engine (witgen.c): the
 * compiled module, loaded once and shared read-only by the synthesis
 * workers, each of which makes its own instance of it. The engine's
 * circuits thread compiles and loads it (a compile takes seconds to
 * minutes, and no submission waits for it); until then its fields below
 * `state` are unset and its jobs are not admitted. */
typedef struct engine_circuit {
    char *path;             /* the wasm, as resolved by realpath */
    zp_circuit_state state; /* ZP_CIRCUIT_LOADING, _READY or _FAILED */
    int claimed;            /* the circuits thread is loading it */
    int pinned;             /* preloaded: kept until the engine goes */
    zp_error error;         /* ZP_CIRCUIT_FAILED: why */
    zp_witness_module *module;
    zp_curve curve;
    size_t witness_size;
    uint64_t initial_bytes; /* an instance's linear memory before any calculation (page-rounded) */
    /* The most a worker's calculation of it used (page-rounded): the
     * instance's linear memory and the inputs it read, at their largest
     * together; what a worker reserves for it once known. */
    uint64_t witgen_bytes;
    int measured;       /* witgen_bytes comes from a finished calculation (now, or kept in the cache) */
    char *measure_path; /* where the figure is kept: <cache>/<key>.witgen */
    int measuring;      /* a worker runs the first calculation: the others wait for its figure */
    size_t refs;        /* jobs and worker instances using it */
    struct engine_circuit *next;
} engine_circuit;

struct engine_job;

/* A run of a circuit's code (witgen.c): a partition's calculation, or the
 * circuits thread's first calls of a module it loads. Its instance polls
 * `stop` (calc.h, zp_witness_instance_set_stop), which the engine sets
 * when the job ends (cancelled, or failed elsewhere), when the engine
 * stops, and, through the sampler thread (engine_witgen_watch), at the
 * deadline of opt.witness_time_limit. Linked in engine->witgen_watches
 * while it runs. */
typedef struct witgen_watch {
    int stop;                     /* read by the instance's polls: relaxed atomic loads and stores */
    int why;                      /* WITGEN_STOP_*: what set stop; lock held */
    double deadline;              /* zp_clock_now() seconds; 0: none */
    const struct engine_job *job; /* NULL: a circuit's load */
    struct witgen_watch *next;
} witgen_watch;
enum { WITGEN_STOP_NONE = 0, WITGEN_STOP_LIMIT, WITGEN_STOP_ENDED };

/* A synthesis worker's witness calculator: its own instance of one
 * circuit (never shared), that instance's linear memory counted in the
 * tracker (class witgen), and the bytes of the budget reserved for it.
 * The worker keeps it between partitions of that circuit and lets it go
 * before it waits for work or for memory, so an idle worker never holds
 * budget another partition needs. */
typedef struct witgen_slot {
    engine_circuit *circuit; /* NULL: none */
    zp_witness_instance *inst;
    zp_tracked memory;
    zp_tracked inputs;  /* the partition's inputs while read and held (class witgen too) */
    uint64_t reserved;  /* covers memory and inputs; the instance may not grow past it */
    int measuring;      /* this slot runs its circuit's first calculation */
    witgen_watch watch; /* the flag the instance polls (the slot lives as long as its worker) */
} witgen_slot;

typedef enum { PART_PENDING = 0, PART_ACTIVE, PART_DONE, PART_FAILED, PART_CANCELLED } part_state;

typedef struct engine_part {
    struct engine_job *job;
    size_t index;
    part_state state;
    zp_stage stage;       /* where it is while ACTIVE */
    uint64_t unallocated; /* reserved bytes not yet allocated */
    zp_tracked witness, abc, msm;
    zp_tracked window; /* a streamed proof's (class stream), while it proves */
    zp_groth16_pending pending;
    zp_groth16_proof proof;
    uint64_t *public_values; /* n_public × 4 limbs once done */
    /* Monotonic seconds: submission, and the start of each stage. */
    double t_submit, t_stage[ZP_STAGES], t_end;
    zp_partition_times times;
    char key_digest[65];      /* the key it was proved with (options.key_digests), once done */
    struct engine_part *next; /* in a stage queue */
} engine_part;

typedef struct engine_job {
    uint64_t id;
    int priority;
    engine_key *key;
    size_t n;
    char **witness_paths;    /* or: */
    engine_circuit *circuit; /* and */
    char **input_paths;      /* or: */
    zp_witness_fn witness_fn;
    void *witness_arg;
    engine_part *parts;
    size_t next_admit; /* partitions [0, next_admit) have been admitted */
    size_t ended;      /* partitions done, failed or cancelled */
    size_t done;
    size_t held; /* partitions still held by a worker or a queue */
    zp_job_state state;
    zp_error error;
    int forget; /* free once nothing holds it */
    struct engine_job *next;
} engine_job;

/* A FIFO of partitions between two stages. */
typedef struct part_queue {
    engine_part *head, *tail;
    size_t length, capacity; /* capacity ZP_QUEUE_UNBOUNDED: never full */
    pthread_cond_t not_empty, not_full;
} part_queue;

/* A buffer handed to the dealloc thread. */
typedef struct dealloc_item {
    zp_tracked buf;
    struct dealloc_item *next;
} dealloc_item;

struct zp_engine {
    zp_engine_options opt;
    pthread_mutex_t lock;
    pthread_cond_t admit;   /* budget freed, work queued, a key loaded */
    pthread_cond_t changed; /* a job ended, or the engine went quiet */
    zp_tracker tracker;
    zp_reuse reuse;          /* the tracker's host allocator: released buffers kept for the next partition */
    zp_backend_ctx *backend; /* opt.backend's context: prove_start, prove_finish */
    uint64_t budget, reserved, peak_reserved;
    engine_key *keys;
    engine_circuit *circuits;  /* witness calculators of the jobs given a wasm (witgen.c) */
    pthread_t circuits_thread; /* compiles and loads them (engine_circuits_main) */
    int circuits_started;
    pthread_cond_t circuits_wake; /* a circuit to load, or the engine stops */
    witgen_watch *witgen_watches; /* the runs of circuits' code under way (witgen.c) */
    engine_job *jobs;             /* by priority (high first), then submission order */
    uint64_t next_job_id, use_clock;
    part_queue to_prove, to_final;
    size_t in_stage[ZP_STAGES], max_in_stage[ZP_STAGES];
    uint64_t jobs_done, jobs_failed, jobs_cancelled, proofs_done, partitions_failed;
    int stopping;
    int paused;      /* no admissions */
    uint64_t *ended; /* ended job ids not yet read (report_ended) */
    size_t ended_head, ended_len, ended_cap;

    dealloc_item *dealloc_head, *dealloc_tail;
    pthread_cond_t dealloc_wake;
    int dealloc_stop;

    size_t n_synth, n_prove, n_final;
    pthread_t *threads; /* synth, prove, final workers, then dealloc, sampler */
    size_t n_threads;
    zp_pool **pools; /* one per worker */

    /* sampler and trace (trace.c) */
    double t0;
    uint64_t baseline_rss;
    uint64_t own_bytes; /* what the budget covers before any buffer (budget_covers_baseline); else 0 */
    _Atomic uint64_t rss, peak_rss, rss_at_peak, tracked_at_peak, tracked_at_rss;
    pthread_cond_t sampler_wake;
    int sampler_stop;
    FILE *trace;
    pthread_mutex_t trace_lock;
    int trace_first;
};

/* engine.c */
/* Ends a partition that will not be proved (failure or cancellation):
 * hands its buffers to the dealloc thread, returns what it did not
 * allocate, and unpins its key. Lock held. */
void engine_part_abandon(zp_engine *e, engine_part *p, part_state why);
/* Records a partition failure: the job fails with err's message, prefixed
 * with the partition. Lock held. */
void engine_job_fail(zp_engine *e, engine_job *job, size_t partition, const zp_error *err);
/* Fails a job as a whole (its circuit could not be used), before any of
 * its partitions was admitted. Lock held. */
void engine_job_fail_all(zp_engine *e, engine_job *job, const zp_error *err);
/* ZP_OK when one partition of key (and a witness calculator of witgen
 * bytes) fits the budget; else the error that says what it needs. */
zp_status engine_job_fits(const zp_engine *e, const engine_key *key, uint64_t witgen, zp_error *err);
/* Ends a job (once): counts it, reports it, wakes waiters. Lock held. */
void engine_job_end(zp_engine *e, engine_job *job, zp_job_state state);
/* The partition leaves its worker or queue; frees a forgotten job. Lock held. */
void engine_part_release(zp_engine *e, engine_part *p);
/* Moves a partition (and its buffers) to a stage. Lock held. */
void engine_part_stage(zp_engine *e, engine_part *p, zp_stage stage);
/* Queues a buffer for the dealloc thread. Lock held. */
void engine_dealloc(zp_engine *e, zp_tracked *buf);
int engine_job_cancelled(const engine_job *job);

/* stages.c */
void *engine_synth_main(void *arg);
void *engine_prove_main(void *arg);
void *engine_final_main(void *arg);
void *engine_dealloc_main(void *arg);
typedef struct worker_arg {
    zp_engine *e;
    size_t index; /* into e->pools */
} worker_arg;

/* keys.c */
/* The entry for path, probing the key (open, validate, size) when new.
 * Lock NOT held (probing a large key takes a while). */
zp_status engine_key_get(engine_key **out, zp_engine *e, const char *path, zp_error *err);
/* Drops a job's reference. Lock held. */
void engine_key_put(zp_engine *e, engine_key *key);
/* The key's own bytes: file, matrices. */
uint64_t engine_key_bytes(const engine_key *key);
/* Bytes a partition of this key needs admitted now (its footprint, plus
 * the key's own when not loaded, and engine_key_load_extra). Lock held. */
uint64_t engine_key_need(const engine_key *key);
/* What loading a streamed key needs beyond its own bytes and the
 * loading partition's room, for a moment (the coefficients' pages):
 * returned once loaded. Lock held. */
uint64_t engine_key_load_extra(const engine_key *key);
/* Evicts idle loaded keys (least recently used first, never keep) until
 * at least bytes are on their way back, or none is left. Returns the bytes
 * handed to the dealloc thread. Lock held. */
uint64_t engine_keys_evict(zp_engine *e, uint64_t bytes, const engine_key *keep);
/* Loads the mapping and builds the matrices; the caller reserved the
 * bytes and set KEY_LOADING. Lock NOT held; par for the matrix build. */
zp_status engine_key_load(zp_engine *e, engine_key *key, const zp_parallel *par, zp_error *err);
/* Frees every key entry (engine teardown; nothing may use them). */
void engine_keys_free_all(zp_engine *e);

/* witgen.c */
/* Bound on a circuit's linear memory before its first calculation has
 * measured it: wasm32's 4 GiB, the most the glue reserves. */
#define ZP_WITGEN_BOUND ((uint64_t)4 << 30)
/* The entry for the wasm, with a reference: a new one is handed to the
 * circuits thread (ZP_CIRCUIT_LOADING), which loads it and then checks the
 * jobs waiting for it (circuit_settle_jobs). Lock NOT held; returns at
 * once. */
zp_status engine_circuit_get(engine_circuit **out, zp_engine *e, const char *wasm_path, zp_error *err);
/* Whether a job of key may use c: a circuit that failed to load gives its
 * error, a loaded one is checked against the key (same curve, witness
 * size = wires) and *witgen set to its instance's memory; one still
 * loading passes (it is checked when loaded). Lock held. */
zp_status engine_circuit_check(const engine_circuit *c, const engine_key *key, uint64_t *witgen, zp_error *err);
/* The circuits thread: loads the circuits in ZP_CIRCUIT_LOADING one at a
 * time, then lets their jobs be admitted or fails them. */
void *engine_circuits_main(void *arg);
/* Whether a job's partitions may be admitted: no circuit, or a loaded
 * one. Lock held. */
int engine_circuit_ready(const engine_circuit *c);
/* Drops a reference; the module is closed with the last. Lock held. */
void engine_circuit_put(zp_engine *e, engine_circuit *c);
void engine_circuits_free_all(zp_engine *e);
/* Stops the runs of job's partitions (it ended), or with job NULL every
 * run (the engine stops). Lock held. */
void engine_witgen_stop(zp_engine *e, const struct engine_job *job);
/* Stops the runs past their deadline; returns the seconds until the next
 * deadline (a large number when none). The sampler calls it at every
 * wake. Lock held. */
double engine_witgen_watch(zp_engine *e);
/* Bytes a partition of circuit c must reserve for this worker's
 * instance, beyond what the slot holds; other_need: the rest of the
 * partition's need. UINT64_MAX: it cannot be admitted now (another
 * worker is measuring c). Lock held. */
uint64_t engine_witgen_need(const zp_engine *e, const witgen_slot *s, const engine_circuit *c, uint64_t other_need);
/* After the bytes are reserved: the slot is for c and holds them. Lock held. */
void engine_witgen_take(zp_engine *e, witgen_slot *s, engine_circuit *c, uint64_t bytes);
/* Lets the slot go: the instance destroyed, its memory uncounted, its
 * reservation returned. Returns 1 if it held anything. Lock held. */
int engine_witgen_drop(zp_engine *e, witgen_slot *s);
/* Computes partition p's witness from its input.json into out (bytes
 * long: plain 4-limb values), through the slot's instance (made when
 * there is none), then counts the instance's memory and settles the
 * slot's reservation to it. Lock NOT held. */
zp_status engine_witgen_run(zp_engine *e, witgen_slot *s, engine_part *p, uint8_t *out, size_t bytes, zp_error *err);

/* trace.c */
zp_status engine_trace_open(zp_engine *e, zp_error *err);
void engine_trace_close(zp_engine *e);
/* A span of a partition in a stage, and a log line of the buffers in
 * flight. Lock held (the trace has its own lock). */
void engine_trace_span(zp_engine *e, const engine_part *p, zp_stage stage, double begin, double end);
void engine_log_transition(zp_engine *e, const engine_part *p, zp_stage from, zp_stage to);
void *engine_sampler_main(void *arg);
/* MemAvailable, or the cgroup's room when lower; 0 if unknown. */
uint64_t engine_available_memory(void);

#endif
