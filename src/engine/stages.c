/* The engine's workers: synthesis (with admission), prove, finalize, and
 * the dealloc thread. The three stage workers are one loop (stage_main)
 * over a per-stage table: each takes the lock only to move a partition
 * between stages; the work runs unlocked on the worker's own pool, the
 * proof's heavy part through the engine's backend. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/error.h"
#include "engine/internal.h"
#include "engine/stream_io.h"
#include "io/wtns.h"

static zp_status injected(zp_engine *e, zp_stage stage, const engine_part *p, zp_error *err) {
    if (e->opt.fault && e->opt.fault(e->opt.fault_arg, stage, p->job->id, p->index)) {
        return zp_error_set(err, ZP_ERR_INTERNAL, "injected failure in %s", zp_stage_name(stage));
    }
    return ZP_OK;
}

/* Ends a partition that failed (st != OK) or whose job was cancelled,
 * and lets go of it. Lock held. */
static void drop(zp_engine *e, engine_part *p, zp_status st, const zp_error *err) {
    if (st != ZP_OK) {
        engine_job_fail(e, p->job, p->index, err);
        engine_part_abandon(e, p, PART_FAILED);
    } else {
        engine_part_abandon(e, p, PART_CANCELLED);
    }
    engine_part_release(e, p);
}

/* ---- admission --------------------------------------------------------- */

/* The next partition to admit: the first job in priority order with one
 * not yet admitted, and its circuit loaded if it has one (a job whose
 * circuit is compiling lets the others go first). Lock held. */
static engine_job *next_job(zp_engine *e) {
    for (engine_job *j = e->jobs; j; j = j->next) {
        if (j->next_admit < j->n && !engine_job_cancelled(j) && j->state != ZP_JOB_DONE &&
            engine_circuit_ready(j->circuit))
            return j;
    }
    return NULL;
}

/* Waits until a partition fits the budget and reserves it (and its key,
 * when not loaded). Returns NULL when the engine stops. *load is set when
 * this worker must load the key. Lock held. */
static engine_part *admit(zp_engine *e, witgen_slot *slot, int *load) {
    *load = 0;
    for (;;) {
        if (e->stopping) return NULL;
        engine_job *job = e->paused ? NULL : next_job(e);
        if (job == NULL) {
            /* an idle worker holds no budget: its calculator goes */
            if (!engine_witgen_drop(e, slot)) pthread_cond_wait(&e->admit, &e->lock);
            continue;
        }
        engine_key *key = job->key;
        uint64_t need = engine_key_need(key);
        /* a partition to compute from inputs also needs this worker's
         * instance of its circuit: reserved unless the worker has it */
        if (job->circuit != slot->circuit && engine_witgen_drop(e, slot)) continue;
        uint64_t witgen = job->circuit ? engine_witgen_need(e, slot, job->circuit, need) : 0;
        if (witgen == UINT64_MAX || (e->budget != ZP_BUDGET_UNLIMITED && e->reserved + need + witgen > e->budget)) {
            /* a waiting worker lets its calculator go first (so waiting
             * workers never hold each other's room), then idle keys */
            if (engine_witgen_drop(e, slot)) continue;
            if (witgen != UINT64_MAX) engine_keys_evict(e, e->reserved + need + witgen - e->budget, key);
            pthread_cond_wait(&e->admit, &e->lock);
            continue;
        }
        e->reserved += need + witgen;
        if (e->reserved > e->peak_reserved) e->peak_reserved = e->reserved;
        if (job->circuit) engine_witgen_take(e, slot, job->circuit, witgen);
        if (key->state == KEY_UNLOADED) {
            key->state = KEY_LOADING;
            key->load_reserved = engine_key_load_extra(key);
            *load = 1;
        }
        key->active++;
        key->last_use = ++e->use_clock;
        engine_part *p = &job->parts[job->next_admit++];
        p->state = PART_ACTIVE;
        p->unallocated = key->footprint;
        p->times.queued = zp_clock_now() - p->t_submit;
        job->held++;
        if (job->state == ZP_JOB_QUEUED) job->state = ZP_JOB_RUNNING;
        p->stage = ZP_STAGE_SYNTH;
        p->t_stage[ZP_STAGE_SYNTH] = zp_clock_now();
        if (++e->in_stage[ZP_STAGE_SYNTH] > e->max_in_stage[ZP_STAGE_SYNTH]) {
            e->max_in_stage[ZP_STAGE_SYNTH] = e->in_stage[ZP_STAGE_SYNTH];
        }
        engine_log_transition(e, p, ZP_STAGE_KEYS, ZP_STAGE_SYNTH);
        return p;
    }
}

/* A tracked allocation out of the partition's reservation. Unlocked. */
static zp_status part_alloc(zp_engine *e, engine_part *p, zp_tracked *buf, zp_buffer_class cls, zp_mem_kind kind,
                            size_t bytes, const char *what, zp_error *err) {
    zp_status st = zp_track_alloc_kind(buf, &e->tracker, kind, cls, p->stage, bytes, what, err);
    if (st != ZP_OK) return st;
    pthread_mutex_lock(&e->lock);
    if (buf->bytes > p->unallocated) { /* the footprint is wrong: a bug */
        pthread_mutex_unlock(&e->lock);
        zp_track_free(&e->tracker, buf);
        return zp_error_set(err, ZP_ERR_INTERNAL, "%s is larger than the partition's reservation", what);
    }
    p->unallocated -= buf->bytes;
    pthread_mutex_unlock(&e->lock);
    return ZP_OK;
}

/* ---- queues (lock held) ------------------------------------------------ */

/* Waits for room; 0 when the partition must be dropped instead (its job
 * ended, or the engine stops). The producer keeps its reservation while
 * it waits: that is the back-pressure. */
static int queue_push(zp_engine *e, part_queue *q, engine_part *p, zp_stage waiting_stage) {
    while (q->capacity != ZP_QUEUE_UNBOUNDED && q->length >= q->capacity) {
        if (e->stopping || engine_job_cancelled(p->job)) return 0;
        pthread_cond_wait(&q->not_full, &e->lock);
    }
    if (e->stopping || engine_job_cancelled(p->job)) return 0;
    engine_part_stage(e, p, waiting_stage);
    p->next = NULL;
    if (q->tail) q->tail->next = p;
    else q->head = p;
    q->tail = p;
    q->length++;
    pthread_cond_signal(&q->not_empty);
    return 1;
}

static engine_part *queue_pop(zp_engine *e, part_queue *q) {
    while (q->head == NULL) {
        if (e->stopping) return NULL;
        pthread_cond_wait(&q->not_empty, &e->lock);
    }
    engine_part *p = q->head;
    q->head = p->next;
    if (q->head == NULL) q->tail = NULL;
    q->length--;
    pthread_cond_signal(&q->not_full);
    return p;
}

/* The next partition of a queue whose job still wants it, moved into
 * stage with its wait recorded (those of ended jobs are dropped on the
 * way). NULL when the engine stops. Lock held. */
static engine_part *take(zp_engine *e, part_queue *q, zp_stage waited, zp_stage stage) {
    for (;;) {
        engine_part *p = queue_pop(e, q);
        if (p == NULL) return NULL;
        double wait = zp_clock_now() - p->t_stage[waited];
        if (waited == ZP_STAGE_WAIT_PROVE) p->times.wait_prove = wait;
        else p->times.wait_final = wait;
        if (engine_job_cancelled(p->job)) {
            drop(e, p, ZP_OK, NULL);
            continue;
        }
        engine_part_stage(e, p, stage);
        return p;
    }
}

/* Partitions left in a queue when the engine stops. */
static void queue_drain(zp_engine *e, part_queue *q) {
    engine_part *p;
    while ((p = q->head) != NULL) {
        q->head = p->next;
        q->length--;
        drop(e, p, ZP_OK, NULL);
    }
    q->tail = NULL;
}

/* ---- synthesis --------------------------------------------------------- */

static zp_status read_witness(zp_engine *e, witgen_slot *slot, engine_part *p, const zp_groth16_pk *pk, zp_error *err) {
    engine_job *job = p->job;
    uint64_t *w = p->witness.p;
    zp_status st;
    if (job->witness_paths) {
        st = zp_wtns_read_into(w, pk->n_vars, pk->curve, job->witness_paths[p->index], err);
    } else if (job->input_paths) {
        st = engine_witgen_run(e, slot, p, p->witness.p, p->witness.bytes, err);
    } else {
        st = job->witness_fn(job->witness_arg, p->index, w, pk->n_vars, pk->curve, err);
    }
    if (st == ZP_OK) st = zp_groth16_check_witness(pk, pk->curve, pk->n_vars, w, err);
    const char *file = job->witness_paths ? job->witness_paths[p->index]
                       : job->input_paths ? job->input_paths[p->index]
                                          : NULL;
    if (st != ZP_OK && file != NULL && strstr(err->message, file) == NULL) zp_error_prefix(err, "%s: ", file);
    return st;
}

/* ---- the stage workers ------------------------------------------------ */

/* One worker's own state: its engine, the pool it hands the kernels, and
 * (synthesis) whether the partition it took must load its key. */
typedef struct stage_worker {
    zp_engine *e;
    zp_parallel par;
    int load;
    witgen_slot witgen; /* synthesis: this worker's own witness calculator */
} stage_worker;

/* A stage, as the one worker loop (stage_main) runs it:
 *   next      the next partition for this worker, moved into the stage
 *             (NULL: the engine stops); lock held;
 *   work      the stage's work on it; lock NOT held;
 *   hand_off  passes it on, or drops it when work failed; lock held;
 *   input     the queue the stage takes from, drained when the engine
 *             stops (NULL: none). */
typedef struct stage_def {
    zp_stage stage;
    size_t time_offset; /* of the stage's seconds in zp_partition_times */
    engine_part *(*next)(stage_worker *w);
    zp_status (*work)(stage_worker *w, engine_part *p, zp_error *err);
    void (*hand_off)(zp_engine *e, engine_part *p, zp_status st, const zp_error *err);
    part_queue *(*input)(zp_engine *e);
} stage_def;

static void *stage_main(const stage_def *s, void *arg) {
    worker_arg wa = *(worker_arg *)arg;
    free(arg);
    zp_engine *e = wa.e;
    stage_worker w = {e, zp_pool_parallel(e->pools[wa.index]), 0, {0}};
    zp_error err;
    pthread_mutex_lock(&e->lock);
    engine_part *p;
    while ((p = s->next(&w)) != NULL) {
        pthread_mutex_unlock(&e->lock);
        zp_status st = s->work(&w, p, &err);
        pthread_mutex_lock(&e->lock);
        *(double *)((char *)&p->times + s->time_offset) = zp_clock_now() - p->t_stage[s->stage];
        s->hand_off(e, p, st, &err);
    }
    if (s->input != NULL) queue_drain(e, s->input(e));
    engine_witgen_drop(e, &w.witgen); /* its instance is this thread's to destroy */
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

static part_queue *to_prove(zp_engine *e) { return &e->to_prove; }
static part_queue *to_final(zp_engine *e) { return &e->to_final; }

/* ---- synthesis --------------------------------------------------------- */

static engine_part *synth_next(stage_worker *w) { return admit(w->e, &w->witgen, &w->load); }

static zp_status synthesize(zp_engine *e, witgen_slot *slot, engine_part *p, const zp_parallel *par, zp_error *err) {
    engine_key *key = p->job->key;
    const zp_groth16_pk *pk = zp_zkey_pk(key->zkey);
    zp_status st = injected(e, ZP_STAGE_SYNTH, p, err);
    if (st == ZP_OK) {
        st = part_alloc(e, p, &p->witness, ZP_BUF_WITNESS, ZP_MEM_HOST, key->witness_alloc, "a witness", err);
    }
    if (st == ZP_OK) st = read_witness(e, slot, p, pk, err);
    /* a streamed proof synthesizes in the prove stage, from the
     * coefficient list read through its window */
    if (st == ZP_OK && !key->streamed) { /* the backend's size, as the key's footprint counted it */
        zp_backend_sizes sz;
        zp_backend_sizes_get(&sz, e->backend, pk);
        st = part_alloc(e, p, &p->abc, ZP_BUF_ABC, sz.abc.kind, sz.abc.bytes, "the a, b, c vectors", err);
    }
    if (st == ZP_OK && !key->streamed) zp_groth16_synthesize(p->abc.p, pk, key->matrices.p, p->witness.p, par);
    return st;
}

/* The key first (loaded by this worker, or by another one it waits for),
 * then synthesis, unless the job ended meanwhile. */
static zp_status synth_work(stage_worker *w, engine_part *p, zp_error *err) {
    zp_engine *e = w->e;
    engine_key *key = p->job->key;
    zp_status st = ZP_OK;
    if (w->load) st = engine_key_load(e, key, &w->par, err);
    pthread_mutex_lock(&e->lock);
    if (!w->load) {
        while (key->state == KEY_LOADING) pthread_cond_wait(&e->admit, &e->lock);
        if (key->state != KEY_LOADED) st = zp_error_set(err, ZP_ERR_IO, "%s: the key could not be loaded", key->path);
    }
    int go = st == ZP_OK && !engine_job_cancelled(p->job);
    pthread_mutex_unlock(&e->lock);
    if (go) st = synthesize(e, &w->witgen, p, &w->par, err);
    return st;
}

static void synth_hand_off(zp_engine *e, engine_part *p, zp_status st, const zp_error *err) {
    /* a job that ended while it ran (its calculation was stopped): cancelled, not failed */
    if (st != ZP_OK && engine_job_cancelled(p->job)) st = ZP_OK;
    if (st != ZP_OK || !queue_push(e, &e->to_prove, p, ZP_STAGE_WAIT_PROVE)) drop(e, p, st, err);
}

/* ---- prove ------------------------------------------------------------- */

static engine_part *prove_next(stage_worker *w) {
    return take(w->e, &w->e->to_prove, ZP_STAGE_WAIT_PROVE, ZP_STAGE_PROVE);
}

/* A streamed partition's proof, whole (docs/architecture.md, "Proofs
 * larger than the budget"): the key file opened a second time and its
 * sections read through the window (class stream) by a reader thread,
 * synthesis from the coefficient list, the transforms in a, b, c, the
 * MSMs in the scratch (class msm), all out of the partition's
 * reservation; the window, a, b, c and the scratch go when it is
 * handed on. The proof in p->proof. Unlocked. */
static zp_status prove_streamed(stage_worker *w, engine_part *p, zp_error *err) {
    zp_engine *e = w->e;
    const engine_key *key = p->job->key;
    const zp_groth16_stream_plan *plan = &key->plan;
    const zp_groth16_pk *pk = zp_zkey_pk(key->zkey);
    zp_stream_source src = {.fd = -1};
    const char *path;
    zp_zkey_stamp stamp;
    uint64_t off[ZP_SRC_SECTIONS];
    uint32_t id[ZP_SRC_SECTIONS];
    zp_status st = zp_zkey_point_sections(key->zkey, &path, &stamp, off, id, err);
    if (st == ZP_OK) st = zp_stream_source_open(&src, path, &stamp, off, id, err);
    if (st == ZP_OK && !plan->page) { /* paged, the witness's buffer is the vector too */
        size_t abc = zp_groth16_abc_size(pk);
        st =
            part_alloc(e, p, &p->abc, ZP_BUF_ABC, ZP_MEM_HOST, plan->spill ? abc / 3 : abc, "the a, b, c vectors", err);
    }
    if (st == ZP_OK) {
        st = part_alloc(e, p, &p->msm, ZP_BUF_MSM, ZP_MEM_HOST, plan->scratch_bytes, "the streamed MSMs", err);
    }
    if (st == ZP_OK) {
        st = part_alloc(e, p, &p->window, ZP_BUF_STREAM, ZP_MEM_HOST, plan->window_bytes, "the key's window", err);
    }
    if (st == ZP_OK) {
        /* the scratch is page-aligned (tracked), so 64-byte aligned */
        void *abc = plan->page ? p->witness.p : p->abc.p;
        st = zp_stream_prove(&p->proof, pk, p->witness.p, abc, p->msm.p, p->window.p, &src, plan, &w->par, err);
    }
    zp_stream_source_close(&src);
    return st;
}

static zp_status prove_work(stage_worker *w, engine_part *p, zp_error *err) {
    zp_engine *e = w->e;
    if (p->job->key->streamed) {
        zp_status st = injected(e, ZP_STAGE_PROVE, p, err);
        return st == ZP_OK ? prove_streamed(w, p, err) : st;
    }
    const zp_groth16_pk *pk = zp_zkey_pk(p->job->key->zkey);
    zp_backend_sizes sz;
    zp_backend_sizes_get(&sz, e->backend, pk);
    zp_status st = injected(e, ZP_STAGE_PROVE, p, err);
    if (st == ZP_OK) {
        st = part_alloc(e, p, &p->msm, ZP_BUF_MSM, sz.scratch.kind, sz.scratch.bytes, "the MSM buckets", err);
    }
    if (st == ZP_OK) {
        st = zp_backend_prove_start(e->backend, &p->pending, pk, p->witness.p, p->abc.p, p->msm.p, &w->par, err);
    }
    return st;
}

static void prove_hand_off(zp_engine *e, engine_part *p, zp_status st, const zp_error *err) {
    engine_dealloc(e, &p->abc);  /* a, b, c are done with: freed early */
    if (p->job->key->streamed) { /* and a streamed proof's scratch and window: it is made */
        engine_dealloc(e, &p->msm);
        engine_dealloc(e, &p->window);
    }
    if (st != ZP_OK || !queue_push(e, &e->to_final, p, ZP_STAGE_WAIT_FINAL)) drop(e, p, st, err);
}

/* ---- finalize ---------------------------------------------------------- */

static engine_part *final_next(stage_worker *w) {
    return take(w->e, &w->e->to_final, ZP_STAGE_WAIT_FINAL, ZP_STAGE_FINAL);
}

static zp_status final_work(stage_worker *w, engine_part *p, zp_error *err) {
    zp_engine *e = w->e;
    const zp_groth16_pk *pk = zp_zkey_pk(p->job->key->zkey);
    const uint64_t *wit = p->witness.p;
    zp_status st = injected(e, ZP_STAGE_FINAL, p, err);
    /* a streamed proof was made whole in the prove stage */
    if (st == ZP_OK && !p->job->key->streamed) {
        st = zp_backend_prove_finish(e->backend, &p->proof, &p->pending, pk, wit, p->msm.p, &w->par, err);
    }
    memset(&p->pending, 0, sizeof p->pending);
    if (st != ZP_OK) return st;
    if (!e->opt.skip_verify) {
        const zp_groth16_pvk *pvk = p->job->key->pvk;
        int ok = pvk != NULL ? zp_groth16_verify_prepared(pvk, zp_groth16_witness_public(wit), &p->proof, &w->par)
                             : zp_groth16_verify_with_pk(pk, wit, &p->proof, &w->par);
        if (ok < 0) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory verifying the proof");
        if (ok == 0) {
            memset(&p->proof, 0, sizeof p->proof);
            return zp_error_set(err, ZP_ERR_UNSATISFIED,
                                "the witness does not satisfy the circuit (its proof does not verify; or the key "
                                "%s is corrupt: its bulk points are not checked when it is loaded)",
                                p->job->key->path);
        }
    }
    /* the key stays loaded while this partition is active: its digest is
     * the bytes this proof was made and verified with */
    memcpy(p->key_digest, p->job->key->digest, sizeof p->key_digest);
    size_t np = pk->n_public;
    p->public_values = malloc((np ? np : 1) * ZP_SCALAR_BYTES);
    if (p->public_values == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    memcpy(p->public_values, zp_groth16_witness_public(wit), np * ZP_SCALAR_BYTES);
    return ZP_OK;
}

static void final_hand_off(zp_engine *e, engine_part *p, zp_status st, const zp_error *err) {
    if (st != ZP_OK || engine_job_cancelled(p->job)) {
        drop(e, p, st, err);
        return;
    }
    engine_job *job = p->job;
    engine_part_abandon(e, p, PART_DONE); /* frees the witness and MSM scratch */
    job->done++;
    e->proofs_done++;
    if (job->done == job->n) engine_job_end(e, job, ZP_JOB_DONE);
    engine_part_release(e, p);
}

static const stage_def synth_stage = {
    ZP_STAGE_SYNTH, offsetof(zp_partition_times, synth), synth_next, synth_work, synth_hand_off, NULL};
static const stage_def prove_stage = {
    ZP_STAGE_PROVE, offsetof(zp_partition_times, prove), prove_next, prove_work, prove_hand_off, to_prove};
static const stage_def final_stage = {
    ZP_STAGE_FINAL, offsetof(zp_partition_times, final), final_next, final_work, final_hand_off, to_final};

void *engine_synth_main(void *arg) { return stage_main(&synth_stage, arg); }
void *engine_prove_main(void *arg) { return stage_main(&prove_stage, arg); }
void *engine_final_main(void *arg) { return stage_main(&final_stage, arg); }

/* ---- dealloc ----------------------------------------------------------- */

/* Frees buffers off the critical path (munmap of a large buffer takes
 * milliseconds), then gives their bytes back to the budget: the
 * reservation shrinks only once the memory is really gone. */
void *engine_dealloc_main(void *arg) {
    worker_arg wa = *(worker_arg *)arg;
    free(arg);
    zp_engine *e = wa.e;
    pthread_mutex_lock(&e->lock);
    for (;;) {
        while (e->dealloc_head == NULL && !e->dealloc_stop) pthread_cond_wait(&e->dealloc_wake, &e->lock);
        dealloc_item *item = e->dealloc_head;
        if (item == NULL) break;
        e->dealloc_head = item->next;
        if (e->dealloc_head == NULL) e->dealloc_tail = NULL;
        pthread_mutex_unlock(&e->lock);
        uint64_t bytes = item->buf.bytes;
        zp_track_free(&e->tracker, &item->buf);
        free(item);
        pthread_mutex_lock(&e->lock);
        e->reserved -= bytes;
        pthread_cond_broadcast(&e->admit);
        pthread_cond_broadcast(&e->changed);
    }
    pthread_mutex_unlock(&e->lock);
    return NULL;
}
