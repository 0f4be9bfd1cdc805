/* The pipeline engine: lifecycle, job submission and the queries
 * (include/zkpipe_engine.h). The stage workers are in stages.c, the key
 * cache in keys.c, the trace and sampler in trace.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/error.h"
#include "base/file.h"
#include "engine/internal.h"
#include "io/json.h"

_Static_assert(ZP_BUF_CLASSES <= ZP_TRACK_CLASSES, "the tracker counts every buffer class");
static const char *const class_names[ZP_BUF_CLASSES] = {"key", "matrices", "witness", "abc",
                                                        "msm", "witgen",   "intake",  "stream"};
static const char *const stage_names[ZP_STAGES] = {"keys",       "synth", "wait_prove", "prove",
                                                   "wait_final", "final", "dealloc"};
static const char *const state_names[] = {"queued", "running", "done", "failed", "cancelled"};

const char *zp_buffer_class_name(zp_buffer_class cls) { return cls < ZP_BUF_CLASSES ? class_names[cls] : "?"; }
const char *zp_stage_name(zp_stage stage) { return stage < ZP_STAGES ? stage_names[stage] : "?"; }
const char *zp_job_state_name(zp_job_state state) { return state <= ZP_JOB_CANCELLED ? state_names[state] : "?"; }

/* ---- partitions and jobs (lock held) ---------------------------------- */

int engine_job_cancelled(const engine_job *job) {
    return job->state == ZP_JOB_CANCELLED || job->state == ZP_JOB_FAILED;
}

void engine_dealloc(zp_engine *e, zp_tracked *buf) {
    if (buf->p == NULL) return;
    dealloc_item *item = malloc(sizeof *item);
    if (item == NULL) { /* no memory for a list node: free it here */
        uint64_t bytes = buf->bytes;
        zp_track_free(&e->tracker, buf);
        e->reserved -= bytes;
        pthread_cond_broadcast(&e->admit);
        return;
    }
    zp_track_move(&e->tracker, buf, ZP_STAGE_DEALLOC);
    item->buf = *buf;
    item->next = NULL;
    buf->p = NULL;
    if (e->dealloc_tail) e->dealloc_tail->next = item;
    else e->dealloc_head = item;
    e->dealloc_tail = item;
    pthread_cond_signal(&e->dealloc_wake);
}

void engine_part_stage(zp_engine *e, engine_part *p, zp_stage stage) {
    double now = zp_clock_now();
    zp_stage from = p->stage;
    if (p->state == PART_ACTIVE) {
        e->in_stage[from]--;
        engine_trace_span(e, p, from, p->t_stage[from], now);
    }
    p->stage = stage;
    p->t_stage[stage] = now;
    if (++e->in_stage[stage] > e->max_in_stage[stage]) e->max_in_stage[stage] = e->in_stage[stage];
    zp_track_move(&e->tracker, &p->witness, stage);
    zp_track_move(&e->tracker, &p->abc, stage);
    zp_track_move(&e->tracker, &p->msm, stage);
    zp_track_move(&e->tracker, &p->window, stage);
    engine_log_transition(e, p, from, stage);
}

static void part_leave_stage(zp_engine *e, engine_part *p) {
    double now = zp_clock_now();
    e->in_stage[p->stage]--;
    engine_trace_span(e, p, p->stage, p->t_stage[p->stage], now);
    p->t_end = now;
    p->times.total = now - p->t_submit;
}

/* Keeps the id for zp_engine_next_ended (a ring that grows). */
static void report_ended(zp_engine *e, uint64_t id) {
    if (!e->opt.report_ended) return;
    if (e->ended_len == e->ended_cap) {
        size_t cap = e->ended_cap ? 2 * e->ended_cap : 64;
        uint64_t *grown = malloc(cap * sizeof *grown);
        if (grown == NULL) return; /* the reader still sees the state by polling */
        for (size_t i = 0; i < e->ended_len; i++) grown[i] = e->ended[(e->ended_head + i) % e->ended_cap];
        free(e->ended);
        e->ended = grown;
        e->ended_cap = cap;
        e->ended_head = 0;
    }
    e->ended[(e->ended_head + e->ended_len++) % e->ended_cap] = id;
}

void engine_job_end(zp_engine *e, engine_job *job, zp_job_state state) {
    if (job->state == ZP_JOB_DONE || job->state == ZP_JOB_FAILED || job->state == ZP_JOB_CANCELLED) return;
    job->state = state;
    engine_witgen_stop(e, job); /* a calculation of the job under way returns now */
    if (state == ZP_JOB_DONE) e->jobs_done++;
    if (state == ZP_JOB_FAILED) e->jobs_failed++;
    if (state == ZP_JOB_CANCELLED) e->jobs_cancelled++;
    report_ended(e, job->id);
    pthread_cond_broadcast(&e->changed);
    /* partitions waiting in queues wake up to leave */
    pthread_cond_broadcast(&e->to_prove.not_full);
    pthread_cond_broadcast(&e->to_final.not_full);
}

/* The partitions never admitted end with their job. */
static void job_drop_pending(zp_engine *e, engine_job *job, part_state why) {
    for (size_t i = job->next_admit; i < job->n; i++) {
        job->parts[i].state = why;
        job->ended++;
    }
    job->next_admit = job->n;
    (void)e;
}

void engine_job_fail(zp_engine *e, engine_job *job, size_t partition, const zp_error *err) {
    if (engine_job_cancelled(job)) return;
    job->error = *err;
    zp_error_prefix(&job->error, "job %llu, partition %zu: ", (unsigned long long)job->id, partition);
    engine_job_end(e, job, ZP_JOB_FAILED);
    job_drop_pending(e, job, PART_CANCELLED);
}

void engine_job_fail_all(zp_engine *e, engine_job *job, const zp_error *err) {
    if (engine_job_cancelled(job)) return;
    job->error = *err;
    zp_error_prefix(&job->error, "job %llu: ", (unsigned long long)job->id);
    engine_job_end(e, job, ZP_JOB_FAILED);
    job_drop_pending(e, job, PART_CANCELLED);
}

void engine_part_abandon(zp_engine *e, engine_part *p, part_state why) {
    engine_job *job = p->job;
    part_leave_stage(e, p);
    p->state = why;
    if (why == PART_FAILED) e->partitions_failed++;
    engine_dealloc(e, &p->witness);
    engine_dealloc(e, &p->abc);
    engine_dealloc(e, &p->msm);
    engine_dealloc(e, &p->window);
    e->reserved -= p->unallocated;
    p->unallocated = 0;
    job->key->active--;
    job->ended++;
    pthread_cond_broadcast(&e->admit);
}

static void free_paths(char **paths, size_t n) {
    if (paths == NULL) return;
    for (size_t i = 0; i < n; i++) free(paths[i]);
    free(paths);
}

static char **copy_paths(const char *const *paths, size_t n) {
    char **copy = calloc(n, sizeof *copy);
    for (size_t i = 0; copy && i < n; i++) {
        if ((copy[i] = strdup(paths[i])) == NULL) {
            free_paths(copy, i);
            return NULL;
        }
    }
    return copy;
}

static void job_free(engine_job *job) {
    for (size_t i = 0; job->parts && i < job->n; i++) free(job->parts[i].public_values);
    free_paths(job->witness_paths, job->n);
    free_paths(job->input_paths, job->n);
    free(job->parts);
    free(job);
}

static void job_unlink(zp_engine *e, engine_job *job) {
    for (engine_job **pp = &e->jobs; *pp; pp = &(*pp)->next) {
        if (*pp == job) {
            *pp = job->next;
            break;
        }
    }
    engine_key_put(e, job->key);
    engine_circuit_put(e, job->circuit);
    job_free(job);
}

void engine_part_release(zp_engine *e, engine_part *p) {
    engine_job *job = p->job;
    job->held--;
    if (job->held == 0) pthread_cond_broadcast(&e->changed);
    if (job->forget && job->held == 0) job_unlink(e, job);
}

static engine_job *find_job(zp_engine *e, uint64_t id) {
    for (engine_job *j = e->jobs; j; j = j->next) {
        if (j->id == id && !j->forget) return j;
    }
    return NULL;
}

/* ---- lifecycle --------------------------------------------------------- */

static void queue_init(part_queue *q, size_t capacity) {
    memset(q, 0, sizeof *q);
    q->capacity = capacity;
    pthread_cond_init(&q->not_empty, NULL);
    pthread_cond_init(&q->not_full, NULL);
}

static void queue_destroy(part_queue *q) {
    pthread_cond_destroy(&q->not_empty);
    pthread_cond_destroy(&q->not_full);
}

static zp_status start_thread(zp_engine *e, void *(*fn)(void *), size_t pool_index, zp_error *err) {
    worker_arg *wa = malloc(sizeof *wa);
    if (wa == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory starting the engine");
    wa->e = e;
    wa->index = pool_index;
    if (pthread_create(&e->threads[e->n_threads], NULL, fn, wa) != 0) {
        free(wa);
        return zp_error_set(err, ZP_ERR_INTERNAL, "could not start an engine thread");
    }
    e->n_threads++;
    return ZP_OK;
}

zp_status zp_engine_create(zp_engine **out, const zp_engine_options *options, zp_error *err) {
    *out = NULL;
    zp_engine *e = calloc(1, sizeof *e);
    if (e == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory creating the engine");
    if (options) e->opt = *options;
    size_t cpus = zp_pool_default_threads();
    e->n_synth = e->opt.synth_workers ? e->opt.synth_workers : cpus;
    e->n_prove = e->opt.prove_workers ? e->opt.prove_workers : 1;
    e->n_final = e->opt.finalize_workers ? e->opt.finalize_workers : 1;
    if (e->n_synth > 256 || e->n_prove > 64 || e->n_final > 64) {
        free(e);
        return zp_error_set(err, ZP_ERR_ARG, "too many workers (at most 256 synthesis, 64 prove, 64 finalize)");
    }
    if (!e->opt.synth_threads) e->opt.synth_threads = cpus / e->n_synth ? cpus / e->n_synth : 1;
    if (!e->opt.prove_threads) e->opt.prove_threads = cpus;
    if (!e->opt.queue_capacity) e->opt.queue_capacity = e->n_synth;
    if (e->opt.sample_interval <= 0) e->opt.sample_interval = 0.05;
    double limit = e->opt.witness_time_limit;
    if (!(limit >= 0 && limit <= 1e9)) {
        free(e);
        return zp_error_set(err, ZP_ERR_ARG, "a witness time limit of %g s: give 0 (none) or a number of seconds",
                            limit);
    }
    e->opt.synth_workers = e->n_synth;
    e->opt.prove_workers = e->n_prove;
    e->opt.finalize_workers = e->n_final;
    if (e->opt.budget == 0) {
        uint64_t avail = engine_available_memory();
        if (avail == 0) {
            free(e);
            return zp_error_set(err, ZP_ERR_ARG, "cannot read the available memory: give a budget");
        }
        e->opt.budget = avail - avail / 10;
    }
    e->budget = e->opt.budget;
    e->baseline_rss = zp_mem_rss();
    size_t reuse_cap = 0;
    if (e->opt.budget_covers_baseline && e->budget != ZP_BUDGET_UNLIMITED) {
        /* The process's own memory: its RSS now, zkpipe's code not yet
         * paged in (the prover's and the pairing's pages come in when
         * they first run: 3 MB of 4), and what the threads about to start
         * will touch (stack pages, their malloc arenas). */
        /* (each prove worker's second: a streamed proof's reader) */
        size_t threads = e->n_synth + 2 * e->n_prove + e->n_final + 3 + e->n_synth * (e->opt.synth_threads - 1) +
                         (e->n_prove + e->n_final) * (e->opt.prove_threads - 1);
        e->own_bytes = e->baseline_rss + zp_mem_image_unloaded() + (uint64_t)threads * ZP_ENGINE_THREAD_BYTES;
        /* room for the released buffers kept mapped (mem/reuse.h), from
         * a budget of 16 such rooms: a fixed amount, so that the memory a
         * partition needs does not move with the budget (a cap that grew
         * with it made `zkpipe run --budget` refuse the budget it had just
         * said a partition needs); smaller budgets keep nothing */
        reuse_cap = e->budget >= 16 * (uint64_t)ENGINE_REUSE_MAX ? ENGINE_REUSE_MAX : 0;
        e->own_bytes += reuse_cap;
        if (e->budget <= e->own_bytes) {
            char b1[32], b2[32];
            uint64_t budget = e->budget, own = e->own_bytes;
            free(e);
            return zp_error_set(err, ZP_ERR_NOMEM,
                                "the memory budget (%s) is not above this process's own memory before any buffer "
                                "(%s: its RSS, its code and its %zu threads), which it must cover",
                                zp_size_text(b1, budget), zp_size_text(b2, own), threads);
        }
        e->budget -= e->own_bytes;
    }
    e->next_job_id = 1;
    zp_tracker_init(&e->tracker);
    zp_reuse_init(&e->reuse, reuse_cap);
    if (reuse_cap > 0) zp_tracker_set_allocator(&e->tracker, ZP_MEM_HOST, &e->reuse.allocator);
    pthread_mutex_init(&e->lock, NULL);
    pthread_cond_init(&e->admit, NULL);
    zp_clock_cond_init(&e->changed); /* waited on with deadlines */
    pthread_cond_init(&e->dealloc_wake, NULL);
    zp_clock_cond_init(&e->sampler_wake);
    pthread_cond_init(&e->circuits_wake, NULL);
    pthread_mutex_init(&e->trace_lock, NULL);
    queue_init(&e->to_prove, e->opt.queue_capacity);
    queue_init(&e->to_final, e->opt.queue_capacity);
    e->t0 = zp_clock_now();

    zp_backend_config bcfg = {e->opt.prove_threads, ZP_SIMD_AUTO, &e->tracker, 0, 0};
    zp_status st = zp_backend_ctx_create(&e->backend, e->opt.backend, &bcfg, err);
    if (st == ZP_OK) st = engine_trace_open(e, err);
    size_t workers = e->n_synth + e->n_prove + e->n_final;
    if (st == ZP_OK) {
        e->threads = calloc(workers + 2, sizeof *e->threads);
        e->pools = calloc(workers, sizeof *e->pools);
        if (e->threads == NULL || e->pools == NULL) st = zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; st == ZP_OK && i < workers; i++) {
        size_t threads = i < e->n_synth ? e->opt.synth_threads : e->opt.prove_threads;
        st = zp_pool_create(&e->pools[i], threads, err);
    }
    if (st == ZP_OK) st = start_thread(e, engine_dealloc_main, 0, err);
    if (st == ZP_OK) st = start_thread(e, engine_sampler_main, 0, err);
    if (st == ZP_OK) {
        e->circuits_started = pthread_create(&e->circuits_thread, NULL, engine_circuits_main, e) == 0;
        if (!e->circuits_started) st = zp_error_set(err, ZP_ERR_INTERNAL, "could not start an engine thread");
    }
    for (size_t i = 0; st == ZP_OK && i < workers; i++) {
        void *(*fn)(void *) = i < e->n_synth                ? engine_synth_main
                              : i < e->n_synth + e->n_prove ? engine_prove_main
                                                            : engine_final_main;
        st = start_thread(e, fn, i, err);
    }
    if (st != ZP_OK) {
        zp_engine_destroy(e);
        return st;
    }
    *out = e;
    return ZP_OK;
}

void zp_engine_destroy(zp_engine *e) {
    if (e == NULL) return;
    pthread_mutex_lock(&e->lock);
    for (engine_job *j = e->jobs; j; j = j->next) {
        engine_job_end(e, j, ZP_JOB_CANCELLED);
        job_drop_pending(e, j, PART_CANCELLED);
    }
    e->stopping = 1;
    engine_witgen_stop(e, NULL); /* the circuits thread's too */
    pthread_cond_broadcast(&e->admit);
    pthread_cond_broadcast(&e->to_prove.not_empty);
    pthread_cond_broadcast(&e->to_final.not_empty);
    pthread_cond_broadcast(&e->to_prove.not_full);
    pthread_cond_broadcast(&e->to_final.not_full);
    pthread_cond_signal(&e->circuits_wake);
    pthread_mutex_unlock(&e->lock);
    /* a compile under way is stopped (its wasm2c or cc killed) */
    if (e->circuits_started) pthread_join(e->circuits_thread, NULL);
    /* workers first (they drain the queues), then dealloc, then sampler */
    size_t workers = e->n_threads > 2 ? e->n_threads - 2 : 0;
    for (size_t i = 0; i < workers; i++) pthread_join(e->threads[2 + i], NULL);
    pthread_mutex_lock(&e->lock);
    for (engine_key *k = e->keys; k; k = k->next) k->jobs = 0;
    engine_keys_evict(e, UINT64_MAX, NULL);
    e->dealloc_stop = 1;
    pthread_cond_signal(&e->dealloc_wake);
    pthread_mutex_unlock(&e->lock);
    if (e->n_threads > 0) pthread_join(e->threads[0], NULL);
    pthread_mutex_lock(&e->lock);
    e->sampler_stop = 1;
    pthread_cond_signal(&e->sampler_wake);
    pthread_mutex_unlock(&e->lock);
    if (e->n_threads > 1) pthread_join(e->threads[1], NULL);

    while (e->jobs) {
        engine_job *j = e->jobs;
        e->jobs = j->next;
        job_free(j);
    }
    engine_keys_free_all(e);
    engine_circuits_free_all(e); /* after the workers: their instances are gone */
    if (e->pools) {
        for (size_t i = 0; i < e->n_synth + e->n_prove + e->n_final; i++) zp_pool_destroy(e->pools[i]);
    }
    engine_trace_close(e);
    zp_backend_ctx_destroy(e->backend);
    zp_reuse_destroy(&e->reuse); /* every tracked buffer is back by now */
    free(e->pools);
    free(e->threads);
    free(e->ended);
    queue_destroy(&e->to_prove);
    queue_destroy(&e->to_final);
    pthread_cond_destroy(&e->admit);
    pthread_cond_destroy(&e->changed);
    pthread_cond_destroy(&e->dealloc_wake);
    pthread_cond_destroy(&e->sampler_wake);
    pthread_cond_destroy(&e->circuits_wake);
    pthread_mutex_destroy(&e->trace_lock);
    pthread_mutex_destroy(&e->lock);
    free(e);
}

/* ---- submission -------------------------------------------------------- */

zp_status engine_job_fits(const zp_engine *e, const engine_key *key, uint64_t witgen, zp_error *err) {
    uint64_t one = engine_key_bytes(key) + key->footprint + engine_key_load_extra(key) + witgen;
    if (one <= e->budget) return ZP_OK;
    /* the least either way: in memory, or streamed at the smallest window */
    uint64_t least = key->inmem_need;
    if (key->stream_need != 0 && key->stream_need < least) least = key->stream_need;
    least += witgen;
    char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32], b7[32], b8[32];
    int base = e->opt.budget_covers_baseline;
    return zp_error_set(err, ZP_ERR_NOMEM,
                        "the memory budget (%s) is too small for one partition of %s: it needs %s "
                        "(in memory: key %s, matrices %s, witness + a/b/c + MSM %s; streamed from the key file, at "
                        "the least %s%s%s%s%s%s; docs/architecture.md, \"Proofs larger than the budget\")",
                        zp_size_text(b1, e->opt.budget), key->path, zp_size_text(b2, least + e->own_bytes),
                        zp_size_text(b3, key->file_bytes), zp_size_text(b4, key->matrices_bytes),
                        zp_size_text(b5, key->inmem_need - key->file_bytes - key->matrices_bytes),
                        key->stream_need ? zp_size_text(b8, key->stream_need) : "(no streamed prover for this curve)",
                        witgen ? "; and the witness calculator's memory " : "", witgen ? zp_size_text(b7, witgen) : "",
                        base ? "; and the process's own " : "", base ? zp_size_text(b6, e->own_bytes) : "",
                        base ? " before any buffer" : "");
}

static zp_status check_spec(const zp_job_spec *spec, zp_error *err) {
    if (spec == NULL || spec->key_path == NULL) return zp_error_set(err, ZP_ERR_ARG, "a job needs a proving key");
    if (spec->partitions == 0) return zp_error_set(err, ZP_ERR_ARG, "a job needs at least one witness");
    if (spec->partitions > 1000000) return zp_error_set(err, ZP_ERR_ARG, "too many partitions: %zu", spec->partitions);
    int ways = (spec->witness_paths != NULL) + (spec->witness_fn != NULL) + (spec->input_paths != NULL);
    if (ways != 1 || (spec->input_paths != NULL) != (spec->wasm_path != NULL)) {
        return zp_error_set(err, ZP_ERR_ARG,
                            "a job needs one of: witness files, a witness function, or a circuit's wasm and its "
                            "inputs");
    }
    const char *const *files = spec->witness_paths ? spec->witness_paths : spec->input_paths;
    for (size_t i = 0; files && i < spec->partitions; i++) {
        const char *w = files[i];
        if (w == NULL) {
            return zp_error_set(err, ZP_ERR_ARG, "partition %zu has no %s", i,
                                spec->input_paths ? "inputs" : "witness");
        }
        int fd; /* the readers' own open, so the early check says what the read would */
        zp_status st = zp_file_open_regular(&fd, NULL, w, err);
        if (st != ZP_OK) return st;
        close(fd);
    }
    return ZP_OK;
}

static engine_job *job_new(const zp_job_spec *spec, engine_key *key) {
    engine_job *job = calloc(1, sizeof *job);
    if (job == NULL) return NULL;
    job->parts = calloc(spec->partitions, sizeof *job->parts);
    job->n = spec->partitions;
    if (spec->witness_paths) job->witness_paths = copy_paths(spec->witness_paths, job->n);
    if (spec->input_paths) job->input_paths = copy_paths(spec->input_paths, job->n);
    if (job->parts == NULL || (spec->witness_paths && job->witness_paths == NULL) ||
        (spec->input_paths && job->input_paths == NULL)) {
        job_free(job);
        return NULL;
    }
    job->witness_fn = spec->witness_fn;
    job->witness_arg = spec->witness_arg;
    job->priority = spec->priority;
    job->key = key;
    double now = zp_clock_now();
    for (size_t i = 0; i < job->n; i++) {
        job->parts[i].job = job;
        job->parts[i].index = i;
        job->parts[i].t_submit = now;
    }
    return job;
}

zp_status zp_engine_submit(uint64_t *job_id, zp_engine *e, const zp_job_spec *spec, zp_error *err) {
    *job_id = 0;
    zp_status st = check_spec(spec, err);
    if (st != ZP_OK) return st;
    engine_key *key;
    st = engine_key_get(&key, e, spec->key_path, err); /* takes a reference */
    if (st != ZP_OK) return st;
    engine_circuit *circuit = NULL;
    if (spec->wasm_path != NULL && (st = engine_circuit_get(&circuit, e, spec->wasm_path, err)) != ZP_OK) {
        pthread_mutex_lock(&e->lock);
        engine_key_put(e, key);
        pthread_mutex_unlock(&e->lock);
        return st;
    }
    pthread_mutex_lock(&e->lock);
    /* A circuit already loaded (or failed) is judged now; one still
     * loading when the job is queued, by the circuits thread once loaded:
     * both under this lock, so no job escapes both. With a circuit, one
     * partition needs its instance's memory too. */
    uint64_t witgen;
    st = engine_circuit_check(circuit, key, &witgen, err);
    if (st == ZP_OK) st = engine_job_fits(e, key, witgen, err);
    if (st == ZP_OK && e->stopping) st = zp_error_set(err, ZP_ERR_ARG, "the engine is shutting down");
    engine_job *job = st == ZP_OK ? job_new(spec, key) : NULL;
    if (st == ZP_OK && job == NULL) st = zp_error_set(err, ZP_ERR_NOMEM, "out of memory queueing a job");
    if (st != ZP_OK) {
        engine_key_put(e, key);
        engine_circuit_put(e, circuit);
        pthread_mutex_unlock(&e->lock);
        return st;
    }
    job->circuit = circuit; /* the job's reference */
    job->id = e->next_job_id++;
    engine_job **pp = &e->jobs;
    while (*pp && (*pp)->priority >= job->priority) pp = &(*pp)->next;
    job->next = *pp;
    *pp = job;
    *job_id = job->id;
    pthread_cond_broadcast(&e->admit);
    pthread_mutex_unlock(&e->lock);
    return ZP_OK;
}

zp_status zp_engine_cancel(zp_engine *e, uint64_t job_id, zp_error *err) {
    pthread_mutex_lock(&e->lock);
    engine_job *job = find_job(e, job_id);
    if (job == NULL) {
        pthread_mutex_unlock(&e->lock);
        return zp_error_set(err, ZP_ERR_ARG, "no job %llu", (unsigned long long)job_id);
    }
    if (job->state == ZP_JOB_QUEUED || job->state == ZP_JOB_RUNNING) {
        engine_job_end(e, job, ZP_JOB_CANCELLED);
        job_drop_pending(e, job, PART_CANCELLED);
    }
    pthread_mutex_unlock(&e->lock);
    return ZP_OK;
}

void zp_engine_forget(zp_engine *e, uint64_t job_id) {
    pthread_mutex_lock(&e->lock);
    engine_job *job = find_job(e, job_id);
    if (job != NULL) {
        if (job->state == ZP_JOB_QUEUED || job->state == ZP_JOB_RUNNING) {
            engine_job_end(e, job, ZP_JOB_CANCELLED);
            job_drop_pending(e, job, PART_CANCELLED);
        }
        job->forget = 1;
        if (job->held == 0) job_unlink(e, job);
    }
    pthread_mutex_unlock(&e->lock);
}

/* ---- queries ----------------------------------------------------------- */

static int job_ended(const engine_job *job) {
    return job->state == ZP_JOB_DONE || job->state == ZP_JOB_FAILED || job->state == ZP_JOB_CANCELLED;
}

zp_status zp_engine_job(zp_job_info *info, zp_engine *e, uint64_t job_id, double wait_s, zp_error *err) {
    memset(info, 0, sizeof *info);
    pthread_mutex_lock(&e->lock);
    engine_job *job = find_job(e, job_id);
    if (job != NULL && wait_s > 0) {
        double deadline = zp_clock_now() + wait_s;
        struct timespec ts = zp_clock_deadline(wait_s);
        /* ended, and every partition has left its worker (so the
         * buffers are on their way back) */
        while ((job = find_job(e, job_id)) != NULL && !(job_ended(job) && job->held == 0) &&
               zp_clock_now() < deadline) {
            if (pthread_cond_timedwait(&e->changed, &e->lock, &ts) == ETIMEDOUT) break;
        }
        job = find_job(e, job_id);
    }
    if (job == NULL) {
        pthread_mutex_unlock(&e->lock);
        return zp_error_set(err, ZP_ERR_ARG, "no job %llu", (unsigned long long)job_id);
    }
    info->state = job->state;
    info->partitions = job->n;
    info->done = job->done;
    info->priority = job->priority;
    info->error = job->error;
    /* one digest for every done partition, or none */
    int mixed = 0, any = 0;
    for (size_t i = 0; i < job->n && !mixed; i++) {
        const engine_part *p = &job->parts[i];
        if (p->state != PART_DONE) continue;
        if (!any) memcpy(info->key_digest, p->key_digest, sizeof info->key_digest);
        else mixed = strcmp(info->key_digest, p->key_digest) != 0;
        any = 1;
    }
    if (mixed) info->key_digest[0] = '\0';
    pthread_mutex_unlock(&e->lock);
    return ZP_OK;
}

static zp_status find_part(engine_part **out, zp_engine *e, uint64_t job_id, size_t partition, zp_error *err) {
    engine_job *job = find_job(e, job_id);
    if (job == NULL) return zp_error_set(err, ZP_ERR_ARG, "no job %llu", (unsigned long long)job_id);
    if (partition >= job->n) {
        return zp_error_set(err, ZP_ERR_ARG, "job %llu has %zu partitions, not %zu", (unsigned long long)job_id, job->n,
                            partition + 1);
    }
    *out = &job->parts[partition];
    return ZP_OK;
}

zp_status zp_engine_partition_times(zp_partition_times *times, zp_engine *e, uint64_t job_id, size_t partition,
                                    zp_error *err) {
    engine_part *p;
    pthread_mutex_lock(&e->lock);
    zp_status st = find_part(&p, e, job_id, partition, err);
    if (st == ZP_OK) *times = p->times;
    pthread_mutex_unlock(&e->lock);
    return st;
}

zp_status zp_engine_proof(zp_groth16_proof *proof, uint64_t *public_values, size_t max_public, size_t *n_public,
                          zp_engine *e, uint64_t job_id, size_t partition, zp_error *err) {
    engine_part *p;
    pthread_mutex_lock(&e->lock);
    zp_status st = find_part(&p, e, job_id, partition, err);
    if (st == ZP_OK && p->state != PART_DONE) {
        st = zp_error_set(err, ZP_ERR_ARG, "job %llu, partition %zu has no proof (%s)", (unsigned long long)job_id,
                          partition, zp_job_state_name(p->job->state));
    }
    if (st == ZP_OK) {
        size_t np = p->job->key->n_public;
        if (n_public) *n_public = np;
        if (public_values != NULL && max_public < np) {
            st = zp_error_set(err, ZP_ERR_ARG, "room for %zu public values, %zu needed", max_public, np);
        } else {
            *proof = p->proof;
            if (public_values != NULL) memcpy(public_values, p->public_values, np * ZP_SCALAR_BYTES);
        }
    }
    pthread_mutex_unlock(&e->lock);
    return st;
}

zp_status zp_engine_write_proof(zp_engine *e, uint64_t job_id, size_t partition, const char *proof_path,
                                const char *public_path, zp_error *err) {
    zp_groth16_proof proof;
    size_t n_public = 0;
    zp_status st = zp_engine_proof(&proof, NULL, 0, &n_public, e, job_id, partition, err);
    if (st != ZP_OK) return st;
    uint64_t *pub = malloc((n_public ? n_public : 1) * ZP_SCALAR_BYTES);
    if (pub == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    st = zp_engine_proof(&proof, pub, n_public, &n_public, e, job_id, partition, err);
    if (st == ZP_OK && proof_path) st = zp_json_proof_write(proof_path, &proof, err);
    if (st == ZP_OK && public_path) st = zp_json_public_write(public_path, pub, n_public, err);
    free(pub);
    return st;
}

void zp_engine_stats_get(zp_engine_stats *s, zp_engine *e) {
    memset(s, 0, sizeof *s);
    const zp_tracker *t = &e->tracker;
    for (int c = 0; c < ZP_BUF_CLASSES; c++) {
        s->by_class[c].count = atomic_load(&t->class_count[c]);
        s->by_class[c].bytes = atomic_load(&t->class_bytes[c]);
        s->by_class[c].peak_bytes = atomic_load(&t->class_peak[c]);
        for (int g = 0; g < ZP_STAGES; g++) s->by_class_stage[c][g] = atomic_load(&t->bytes[c][g]);
    }
    for (int g = 0; g < ZP_STAGES; g++) {
        s->by_stage[g].count = atomic_load(&t->stage_count[g]);
        s->by_stage[g].bytes = atomic_load(&t->stage_bytes[g]);
        s->by_stage[g].peak_bytes = atomic_load(&t->stage_peak[g]);
    }
    s->tracked = atomic_load(&t->total);
    s->peak_tracked = atomic_load(&t->total_peak);
    s->tracked_at_rss = atomic_load(&e->tracked_at_rss);
    s->rss = atomic_load(&e->rss);
    s->peak_rss = atomic_load(&e->peak_rss);
    s->rss_at_peak = atomic_load(&e->rss_at_peak);
    s->tracked_at_peak_rss = atomic_load(&e->tracked_at_peak);
    s->baseline_rss = e->baseline_rss;
    pthread_mutex_lock(&e->lock);
    s->uptime = zp_clock_now() - e->t0;
    s->budget = e->opt.budget;
    s->buffer_budget = e->budget;
    s->reserved = e->reserved;
    s->peak_reserved = e->peak_reserved;
    for (int g = 0; g < ZP_STAGES; g++) {
        s->partitions_in[g] = e->in_stage[g];
        s->max_partitions_in[g] = e->max_in_stage[g];
    }
    for (engine_job *j = e->jobs; j; j = j->next) {
        if (!job_ended(j)) s->admission_waiting += j->n - j->next_admit;
    }
    for (engine_key *k = e->keys; k; k = k->next) s->keys_loaded += k->state != KEY_UNLOADED;
    s->jobs_done = e->jobs_done;
    s->jobs_failed = e->jobs_failed;
    s->jobs_cancelled = e->jobs_cancelled;
    s->proofs_done = e->proofs_done;
    s->partitions_failed = e->partitions_failed;
    s->synth_workers = e->n_synth;
    s->prove_workers = e->n_prove;
    s->finalize_workers = e->n_final;
    s->queue_capacity = e->opt.queue_capacity;
    pthread_mutex_unlock(&e->lock);
}

int zp_engine_next_ended(uint64_t *job_id, zp_engine *e, double wait_s) {
    pthread_mutex_lock(&e->lock);
    if (e->ended_len == 0 && wait_s > 0) {
        struct timespec ts = zp_clock_deadline(wait_s);
        while (e->ended_len == 0 && !e->stopping) {
            if (pthread_cond_timedwait(&e->changed, &e->lock, &ts) == ETIMEDOUT) break;
        }
    }
    int got = e->ended_len > 0;
    if (got) {
        *job_id = e->ended[e->ended_head];
        e->ended_head = (e->ended_head + 1) % e->ended_cap;
        e->ended_len--;
    }
    pthread_mutex_unlock(&e->lock);
    return got;
}

void zp_engine_pause(zp_engine *e, int paused) {
    pthread_mutex_lock(&e->lock);
    e->paused = paused;
    pthread_cond_broadcast(&e->admit);
    pthread_mutex_unlock(&e->lock);
}
