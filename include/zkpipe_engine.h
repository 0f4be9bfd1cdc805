/* zkpipe's pipeline engine: many multi-partition Groth16 jobs at once,
 * under a memory budget, with every large buffer counted.
 *
 * A job is one proving key (.zkey) and K witnesses (partitions); it gives
 * K proofs, in partition order. Each partition flows through
 *
 *   admission -> synthesis -> [queue] -> prove -> [queue] -> finalize
 *                                                   (buffers -> dealloc)
 *
 * - admission: the partition reserves its exact footprint (witness, a/b/c,
 *   MSM scratch; the key and its matrices when the key is not loaded) from
 *   the budget before its first allocation, and waits while it does not fit;
 * - synthesis: the witness is read and a = A·w, b = B·w, c = a∘b computed
 *   over the key's precompiled sparse matrices;
 * - prove: NTTs, H and the G1 MSMs; a/b/c are freed as soon as it ends;
 * - finalize: the G2 MSM, assembly and verification of the proof;
 * - dealloc: one thread frees the large buffers off the critical path, and
 *   only then does the budget get the bytes back.
 * Queues between stages are bounded: a full queue blocks the producer, who
 * keeps its reservation. Keys are mapped once, shared, and evicted when no
 * partition uses them and memory is needed.
 *
 * Same rules as zkpipe.h: opaque handles, outputs first, zp_status and a
 * zp_error with one line naming the input and the problem. All functions
 * are thread-safe. */
#ifndef ZKPIPE_ENGINE_H
#define ZKPIPE_ENGINE_H

#include "zkpipe.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Classes of large buffers, each counted separately. */
typedef enum zp_buffer_class {
    ZP_BUF_KEY = 0,  /* a mapped .zkey */
    ZP_BUF_MATRICES, /* a key's precompiled constraint matrices */
    ZP_BUF_WITNESS,  /* one partition's witness */
    ZP_BUF_ABC,      /* a, b, c, then H in a's place, and the NTT tables */
    ZP_BUF_MSM,      /* MSM scratch (buckets), prove and finalize */
    ZP_BUF_WITGEN,   /* a synthesis worker's witness calculator: the wasm instance's linear memory */
    ZP_BUF_INTAKE,   /* data in flight beside the pipeline: a daemon's request bodies (zp_engine_intake_alloc) */
    ZP_BUF_STREAM,   /* a streamed proof's window: the key's points read a chunk at a time (docs/architecture.md) */
    ZP_BUF_CLASSES
} zp_buffer_class;

/* Where a partition (and so each of its buffers) is. Keys, matrices and
 * intake buffers (no partition's) live in ZP_STAGE_KEYS. */
typedef enum zp_stage {
    ZP_STAGE_KEYS = 0,
    ZP_STAGE_SYNTH,      /* being synthesized */
    ZP_STAGE_WAIT_PROVE, /* synthesized, in the queue to the provers */
    ZP_STAGE_PROVE,
    ZP_STAGE_WAIT_FINAL, /* in the queue to finalize */
    ZP_STAGE_FINAL,
    ZP_STAGE_DEALLOC, /* handed to the dealloc thread, not yet freed */
    ZP_STAGES
} zp_stage;

/* "key", "matrices", "witness", "abc", "msm", "witgen", "intake", "stream" */
const char *zp_buffer_class_name(zp_buffer_class cls);
const char *zp_stage_name(zp_stage stage); /* "keys", "synth", "wait_prove", ... */

typedef struct zp_engine zp_engine;

/* A proof in the prover's own form (Montgomery limbs, src/groth16/keys.h):
 * zp_engine_proof gives it to the daemon, which writes it as JSON; other
 * callers use zp_engine_write_proof. */
typedef struct zp_groth16_proof zp_groth16_proof;

/* A fault hook for tests: called at the start of each stage of each
 * partition; a nonzero return makes that stage fail ("injected failure"). */
typedef int (*zp_fault_fn)(void *arg, zp_stage stage, uint64_t job, size_t partition);

typedef struct zp_engine_options {
    /* Memory budget in bytes for everything tracked. 0: the available
     * memory (MemAvailable, or the cgroup's limit when lower) minus a 10%
     * margin. ZP_BUDGET_UNLIMITED: no admission control (experiments). */
    uint64_t budget;
    /* 1: the budget covers the whole process, not only its buffers: the
     * process's RSS when the engine is created (code, libraries, the
     * heap so far: its baseline) is taken off the budget first, so that
     * tracked buffers + baseline stay within it (zkpipe run and serve
     * do this). A budget not above the baseline is then an error. */
    int budget_covers_baseline;
    size_t synth_workers;    /* 0: the CPU count */
    size_t prove_workers;    /* 0: 1 */
    size_t finalize_workers; /* 0: 1 */
    size_t synth_threads;    /* threads per synthesis worker; 0: CPUs / synth_workers, at least 1 */
    size_t prove_threads;    /* threads per prove and finalize worker; 0: the CPU count */
    /* Capacity of each queue between stages. 0: synth_workers.
     * ZP_QUEUE_UNBOUNDED: never blocks (the configuration that ran cuzk
     * out of memory, for experiments). */
    size_t queue_capacity;
    const char *trace_path; /* Chrome trace-event JSON (Perfetto); NULL: none */
    double sample_interval; /* seconds between RSS samples; 0: 0.05 */
    /* One line per stage transition listing the buffers in flight (as
     * cuzk's log_buffers); NULL: none. Called from engine threads. */
    void (*log)(void *arg, const char *line);
    void *log_arg;
    int skip_verify; /* 1: finalize does not verify proofs (benchmarks) */
    zp_fault_fn fault;
    void *fault_arg;
    int report_ended; /* 1: keep the ended jobs for zp_engine_next_ended */
    /* 1: each key's SHA-256 is computed from the bytes loaded, when they
     * are loaded (zp_engine_key_info.digest, zp_job_info.key_digest): what
     * a proof was made with, for a caller that must say so (the daemon's
     * pinned jobs). A second of CPU per ~1.5 GB of key; 0: none. */
    int key_digests;
    /* The prover backend, by name (src/groth16/backend.h, docs/backend.md);
     * NULL: "cpu". An unknown name fails zp_engine_create. */
    const char *backend;
    /* Where compiled witness calculators are kept (jobs given a circuit
     * wasm); NULL: $ZKPIPE_CACHE, else $XDG_CACHE_HOME/zkpipe, else
     * ~/.cache/zkpipe (docs/witness.md). */
    const char *witness_cache_dir;
    /* Seconds one partition's witness calculation may run (jobs given a
     * wasm), and a circuit's first calls when it is loaded (getVersion
     * ...; its compile is not counted); past it the calculation is
     * stopped within milliseconds and the partition fails: "job 3,
     * partition 0: in.json: circuit.wasm: the witness calculator was
     * stopped during setInputSignal, at the witness time limit of 60 s".
     * 0: no limit. A cancel, a failure of another partition of the job
     * and zp_engine_destroy stop a calculation at once, limit or not. */
    double witness_time_limit;
} zp_engine_options;

#define ZP_BUDGET_UNLIMITED UINT64_MAX
#define ZP_QUEUE_UNBOUNDED ((size_t)-1)

ZP_WARN_UNUSED zp_status zp_engine_create(zp_engine **out, const zp_engine_options *options, zp_error *err);
/* Cancels what is still queued or running, waits for the workers, frees
 * everything and closes the trace. */
void zp_engine_destroy(zp_engine *engine);

/* Fills a partition's witness (count plain 4-limb values, each below the
 * curve's r, values[0] = 1) for callers that make witnesses themselves;
 * called from a synthesis worker. */
typedef zp_status (*zp_witness_fn)(void *arg, size_t partition, uint64_t *values, size_t count, zp_curve curve,
                                   zp_error *err);

typedef struct zp_job_spec {
    const char *key_path;
    size_t partitions;
    /* One of: one .wtns path per partition; a witness function; or the
     * circuit's witness calculator (circom's circuit.wasm) and one
     * input.json per partition, the witness computed by the engine as the
     * first part of synthesis. */
    const char *const *witness_paths;
    zp_witness_fn witness_fn;
    void *witness_arg;
    int priority; /* higher goes first; equal priorities in submission order */
    const char *wasm_path;
    const char *const *input_paths;
} zp_job_spec;

/* Queues a job. The key is validated here (a bad key fails the submission),
 * and a budget too small for even one partition of it is an error. A job
 * with a wasm never waits here for its compile (seconds to minutes:
 * docs/witness.md): the engine's circuits thread compiles it (or finds it
 * in the cache) and loads it while the job waits, queued, and other jobs
 * go on. A circuit already loaded is checked here, one still loading when
 * it is loaded: of the other curve than the key, a witness size that is
 * not the key's wire count, or a compile that failed fails the
 * submission, or later the job, with that message. */
ZP_WARN_UNUSED zp_status zp_engine_submit(uint64_t *job_id, zp_engine *engine, const zp_job_spec *spec, zp_error *err);
/* Cancels a queued or running job: whatever it holds is freed as soon as
 * the stage running it returns. ZP_ERR_ARG for an unknown job; a job
 * already ended is left as it is. */
zp_status zp_engine_cancel(zp_engine *engine, uint64_t job_id, zp_error *err);

typedef enum zp_job_state {
    ZP_JOB_QUEUED = 0,
    ZP_JOB_RUNNING,
    ZP_JOB_DONE,
    ZP_JOB_FAILED,
    ZP_JOB_CANCELLED
} zp_job_state;
const char *zp_job_state_name(zp_job_state state);

/* Seconds spent per partition (wall clock). */
typedef struct zp_partition_times {
    double queued; /* submission to admission */
    double synth;
    double wait_prove; /* in the queue to the provers */
    double prove;
    double wait_final;
    double final;
    double total; /* submission to proof */
} zp_partition_times;

typedef struct zp_job_info {
    zp_job_state state;
    size_t partitions, done;
    int priority;
    zp_error error; /* why it failed (names the partition) */
    /* With options.key_digests: the SHA-256 (hex) of the key bytes every
     * done partition was proved and verified with; "" when none is done,
     * they differ (the key was loaded again between them), or not asked. */
    char key_digest[65];
} zp_job_info;

/* The job's state now; with wait_s > 0, waits up to that long for it to
 * end (done, failed or cancelled). */
ZP_WARN_UNUSED zp_status zp_engine_job(zp_job_info *info, zp_engine *engine, uint64_t job_id, double wait_s,
                                       zp_error *err);
/* One partition's timings (valid as the partition advances). */
ZP_WARN_UNUSED zp_status zp_engine_partition_times(zp_partition_times *times, zp_engine *engine, uint64_t job_id,
                                                   size_t partition, zp_error *err);
/* A done job's proof of one partition and its public signals (the
 * witness's, n_public plain 4-limb values; may be NULL). */
ZP_WARN_UNUSED zp_status zp_engine_proof(zp_groth16_proof *proof, uint64_t *public_values, size_t max_public,
                                         size_t *n_public, zp_engine *engine, uint64_t job_id, size_t partition,
                                         zp_error *err);
/* Writes one partition's proof.json and public.json as snarkjs does. */
ZP_WARN_UNUSED zp_status zp_engine_write_proof(zp_engine *engine, uint64_t job_id, size_t partition,
                                               const char *proof_path, const char *public_path, zp_error *err);
/* Forgets an ended job (its results); a running job is cancelled first. */
void zp_engine_forget(zp_engine *engine, uint64_t job_id);

/* Counters of the buffers in flight: exact, read atomically. */
typedef struct zp_buffer_counts {
    uint64_t count, bytes, peak_bytes;
} zp_buffer_counts;

typedef struct zp_engine_stats {
    double uptime;
    /* budget: as given (or the default); buffer_budget: what tracked
     * buffers may use, the budget less the baseline when it covers it.
     * reserved and tracked never exceed buffer_budget. */
    uint64_t budget, buffer_budget, reserved, peak_reserved;
    uint64_t tracked, peak_tracked;
    zp_buffer_counts by_class[ZP_BUF_CLASSES];
    zp_buffer_counts by_stage[ZP_STAGES];
    uint64_t by_class_stage[ZP_BUF_CLASSES][ZP_STAGES]; /* bytes */
    size_t partitions_in[ZP_STAGES];                    /* partitions in each stage now */
    size_t max_partitions_in[ZP_STAGES];
    size_t admission_waiting;             /* partitions not yet admitted */
    uint64_t rss, peak_rss, baseline_rss; /* baseline: at engine creation */
    /* The tracked bytes when rss was sampled (tracked is now): RSS less
     * the baseline and this is what no tracked buffer explains. */
    uint64_t tracked_at_rss;
    /* At the sample with the highest RSS: the tracked bytes then. */
    uint64_t tracked_at_peak_rss, rss_at_peak;
    size_t keys_loaded;
    uint64_t jobs_done, jobs_failed, jobs_cancelled;
    uint64_t proofs_done, partitions_failed;
    size_t synth_workers, prove_workers, finalize_workers, queue_capacity;
} zp_engine_stats;

void zp_engine_stats_get(zp_engine_stats *stats, zp_engine *engine);

/* The next job that ended (done, failed or cancelled), in the order they
 * ended, waiting up to wait_s: 1 and *job_id set, or 0 when none ended in
 * that time. Only with options.report_ended (the list grows until read). */
int zp_engine_next_ended(uint64_t *job_id, zp_engine *engine, double wait_s);

/* Keys: loaded on demand by the partitions that need them; these preload,
 * evict (only when no partition is using it) and list. */
ZP_WARN_UNUSED zp_status zp_engine_key_preload(zp_engine *engine, const char *key_path, zp_error *err);
ZP_WARN_UNUSED zp_status zp_engine_key_evict(zp_engine *engine, const char *key_path, zp_error *err);

typedef struct zp_engine_key_info {
    char path[512]; /* resolved */
    zp_curve curve;
    uint32_t n_vars, n_public, domain_size;
    int loaded;               /* mapped, with its matrices */
    size_t partitions_active; /* partitions using it now */
    size_t jobs;              /* jobs referring to it */
    /* What the key holds while loaded (the file mapped, or streamed: its
     * pages besides the bulk points; the matrices, none when streamed)
     * and what one partition reserves: a submission needs all three. */
    uint64_t key_bytes, matrices_bytes, partition_bytes;
    char digest[65]; /* options.key_digests: SHA-256 hex of the bytes loaded; "" when not loaded */
    /* 1: one partition in memory does not fit the budget, so its proofs
     * stream the key's points from the file through a window of
     * window_bytes (docs/architecture.md, "Proofs larger than the
     * budget") */
    int streamed;
    uint64_t window_bytes;
    /* the least buffer budget that admits one partition, in memory or
     * streamed: the figure to name when key + matrices + partition is
     * more than the budget */
    uint64_t least_bytes;
    /* what the next partition of this key needs admitted now: its
     * footprint, and while the key is not loaded its bytes, its matrices
     * and, streamed, what loading it holds for a moment (the engine's own
     * admission rule; a fleet member claims work by it) */
    uint64_t admit_bytes;
} zp_engine_key_info;

/* Fills up to max entries (the keys the engine knows); returns how many
 * it knows in all. */
size_t zp_engine_keys(zp_engine_key_info *keys, size_t max, zp_engine *engine);
/* Reads (and validates) a key to describe it, without loading it: what
 * a submission of it will need. */
ZP_WARN_UNUSED zp_status zp_engine_key_describe(zp_engine_key_info *info, zp_engine *engine, const char *key_path,
                                                zp_error *err);

/* Circuits (jobs given a wasm): preload starts compiling and loading one
 * in the background and keeps it loaded until the engine is destroyed
 * (the daemon does this for its keys' circuits when it starts); check
 * says where a circuit is (*state; it starts nothing) and, once loaded,
 * whether it fits the key: an error names the mismatch, or why the
 * circuit could not be compiled or loaded. Neither waits for a compile. */
typedef enum {
    ZP_CIRCUIT_UNKNOWN = 0, /* no job or preload has named it */
    ZP_CIRCUIT_LOADING,     /* being compiled (or found in the cache) and loaded */
    ZP_CIRCUIT_READY,
    ZP_CIRCUIT_FAILED
} zp_circuit_state;
ZP_WARN_UNUSED zp_status zp_engine_circuit_preload(zp_engine *engine, const char *wasm_path, zp_error *err);
ZP_WARN_UNUSED zp_status zp_engine_circuit_check(zp_engine *engine, const char *key_path, const char *wasm_path,
                                                 zp_circuit_state *state, zp_error *err);

/* Memory beside the pipeline: a caller that holds large data for a while
 * next to the engine's work (the daemon's request bodies, from the first
 * byte read to the witness spooled) takes it from the same budget. The
 * bytes are reserved before they are mapped, counted as class
 * ZP_BUF_INTAKE, and given back when freed. These never wait for room:
 * ZP_ERR_NOMEM when the budget has none now (when no job is queued or
 * running, idle keys are evicted for it, so a retry may fit), ZP_ERR_ARG
 * when the size is more than the whole budget could ever give. The
 * memory is zero-filled and may move when grown; one buffer is used by
 * one thread at a time. */
typedef struct zp_intake zp_intake;
ZP_WARN_UNUSED zp_status zp_engine_intake_alloc(zp_intake **out, zp_engine *engine, size_t bytes, zp_error *err);
/* Grows the buffer to bytes (a smaller size is no change), keeping its
 * contents; on failure the buffer is as it was. */
ZP_WARN_UNUSED zp_status zp_engine_intake_grow(zp_engine *engine, zp_intake *buf, size_t bytes, zp_error *err);
void *zp_intake_data(const zp_intake *buf);
size_t zp_intake_size(const zp_intake *buf); /* as asked for; the counted size is rounded to pages */
/* Unmaps it and returns its bytes to the budget. NULL is ignored. */
void zp_engine_intake_free(zp_engine *engine, zp_intake *buf);

/* While paused, no partition is admitted (those admitted go on): for a
 * graceful shutdown. */
void zp_engine_pause(zp_engine *engine, int paused);

#ifdef __cplusplus
}
#endif

#endif
