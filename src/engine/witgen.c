/* Witness generation as the first part of the synthesis stage: the
 * circuits' calculators (one loaded module per wasm, shared read-only),
 * each synthesis worker's own instance of one of them, and their memory
 * in the budget (docs/witness.md, "In the engine").
 *
 * The instance's linear memory is mapped and grown by the glue compiled
 * into the calculator (src/witness/w2c_glue.c.in), not by the tracked
 * allocator, so it is counted with zp_track_account: class witgen, stage
 * synth, at zp_witness_instance_memory_bytes (the committed size) after
 * the instance is made and after every calculation. The partition's
 * inputs are counted the same way while they are read and held (the
 * text, jansson's tree, the values: zp_witness_inputs_read_reserved asks
 * before each is allocated). Both come out of the worker's reservation,
 * made when the worker admits a partition of the circuit: the circuit's
 * measured figure once a calculation has finished, and before that
 * whatever the budget has left (at most ZP_WITGEN_BOUND), settled to the
 * measured figure as soon as the first calculation ends. Inputs larger
 * than the reservation leaves them take the rest from the budget when it
 * has room, or fail the partition; the instance's memory may not grow
 * past what the reservation leaves it (the glue refuses the growth, and
 * the partition fails naming the size it asked for). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/error.h"
#include "engine/internal.h"
#include "witness/compile.h"
#include "witness/input.h"

/* ---- stopping a run of a circuit's code --------------------------------- */

static void raise_stop(witgen_watch *w, int why) {
    if (w->why == WITGEN_STOP_NONE) w->why = why;
    __atomic_store_n(&w->stop, 1, __ATOMIC_RELAXED);
}

/* Watches a run about to start: cleared, its deadline set, linked; one
 * whose job has already ended, or in an engine that stops, is stopped
 * before it starts. Lock held. */
static void watch_begin(zp_engine *e, witgen_watch *w, const engine_job *job) {
    __atomic_store_n(&w->stop, 0, __ATOMIC_RELAXED);
    w->why = WITGEN_STOP_NONE;
    w->job = job;
    w->deadline = e->opt.witness_time_limit > 0 ? zp_clock_now() + e->opt.witness_time_limit : 0;
    w->next = e->witgen_watches;
    e->witgen_watches = w;
    if (e->stopping || (job != NULL && engine_job_cancelled(job))) raise_stop(w, WITGEN_STOP_ENDED);
    if (w->deadline > 0) pthread_cond_signal(&e->sampler_wake); /* it may sleep past the deadline */
}

/* Unlinks a run that returned; what stopped it (WITGEN_STOP_*). Lock held. */
static int watch_end(zp_engine *e, witgen_watch *w) {
    for (witgen_watch **pp = &e->witgen_watches; *pp; pp = &(*pp)->next) {
        if (*pp == w) {
            *pp = w->next;
            break;
        }
    }
    w->next = NULL;
    return w->why;
}

void engine_witgen_stop(zp_engine *e, const engine_job *job) {
    for (witgen_watch *w = e->witgen_watches; w; w = w->next) {
        if (job == NULL || w->job == job) raise_stop(w, WITGEN_STOP_ENDED);
    }
}

double engine_witgen_watch(zp_engine *e) {
    double now = zp_clock_now(), next = 1e9;
    for (witgen_watch *w = e->witgen_watches; w; w = w->next) {
        if (w->deadline <= 0 || w->why != WITGEN_STOP_NONE) continue;
        if (now >= w->deadline) raise_stop(w, WITGEN_STOP_LIMIT);
        else if (w->deadline - now < next) next = w->deadline - now;
    }
    return next;
}

/* The message of a run the time limit stopped says so. */
static void at_time_limit(const zp_engine *e, zp_error *err) {
    size_t n = strlen(err->message);
    snprintf(err->message + n, sizeof err->message - n, ", at the witness time limit of %g s",
             e->opt.witness_time_limit);
}

/* ---- circuits ---------------------------------------------------------- */

static engine_circuit *find_circuit(zp_engine *e, const char *path) {
    for (engine_circuit *c = e->circuits; c; c = c->next) {
        if (strcmp(c->path, path) == 0) return c;
    }
    return NULL;
}

static zp_status check_against_key(const engine_circuit *c, const engine_key *key, zp_error *err) {
    if (c->curve != key->curve) {
        return zp_error_set(err, ZP_ERR_MISMATCH,
                            "%s is a %s circuit and %s a %s key: compile the circuit with circom --prime %s, or use "
                            "its key",
                            c->path, c->curve == ZP_CURVE_NONE ? "non-Groth16-curve" : zp_curve_name(c->curve),
                            key->path, zp_curve_name(key->curve), zp_curve_name(key->curve));
    }
    if (c->witness_size != key->n_vars) {
        return zp_error_set(err, ZP_ERR_MISMATCH, "%s computes %zu wires and %s has %u: they are not of one circuit",
                            c->path, c->witness_size, key->path, key->n_vars);
    }
    return ZP_OK;
}

static void circuit_free(engine_circuit *c) {
    zp_witness_module_close(c->module);
    free(c->measure_path);
    free(c->path);
    free(c);
}

/* The measured memory is kept next to the compiled object, in
 * <key>.witgen (a decimal byte count), so that a later run, or another
 * process, reserves the real figure from its first partition on. A file
 * that is missing or unreadable is no figure; one that says too little
 * is corrected by settle() and rewritten. */
static char *measure_path(const char *so_path) {
    size_t len = strlen(so_path);
    if (len < 3 || strcmp(so_path + len - 3, ".so") != 0) return NULL;
    char *p = malloc(len + 8);
    if (p != NULL) snprintf(p, len + 8, "%.*s.witgen", (int)(len - 3), so_path);
    return p;
}

static uint64_t measure_read(const char *path) {
    FILE *f = path ? fopen(path, "r") : NULL;
    if (f == NULL) return 0;
    unsigned long long bytes = 0;
    if (fscanf(f, "%llu", &bytes) != 1 || bytes > ZP_WITGEN_BOUND) bytes = 0;
    fclose(f);
    return zp_track_round((size_t)bytes) == bytes ? bytes : 0;
}

/* Published by rename, as the objects are: a reader sees a whole figure.
 * The temporary name is the process's and the writer's (two workers may
 * both find a larger figure at once). */
static void measure_write(const char *path, uint64_t bytes, const void *writer) {
    if (path == NULL) return;
    size_t len = strlen(path) + 64;
    char *tmp = malloc(len);
    if (tmp == NULL) return;
    snprintf(tmp, len, "%s.%ld.%p.tmp", path, (long)getpid(), writer);
    FILE *f = fopen(tmp, "w");
    int ok = f != NULL && fprintf(f, "%llu\n", (unsigned long long)bytes) > 0;
    if (f != NULL && fclose(f) != 0) ok = 0;
    if (!ok || rename(tmp, path) != 0) remove(tmp);
    free(tmp);
}

/* Compiles (or finds in the cache) and opens the calculator, and makes
 * one instance to learn its memory before any calculation: into c's
 * fields below `state`, which nothing reads while it is loading. Lock NOT
 * held; c->path is fixed and the circuits thread holds a reference. */
static zp_status circuit_load(zp_engine *e, engine_circuit *c, const char *cache_dir, int *compiled_now,
                              zp_error *err) {
    /* watched: the compile (stopped only when the engine stops: a big
     * circuit's takes minutes), then the module's first calls (getVersion
     * ..., its own code: under the time limit too) */
    witgen_watch watch = {0};
    pthread_mutex_lock(&e->lock);
    watch_begin(e, &watch, NULL);
    int timed = watch.deadline > 0;
    watch.deadline = 0;
    pthread_mutex_unlock(&e->lock);
    zp_witness_compile_options copt = {.cache_dir = cache_dir, .stop = &watch.stop};
    zp_witness_compiled compiled = {0};
    zp_status st = zp_witness_compile(&compiled, c->path, &copt, err);
    if (st == ZP_OK) {
        *compiled_now = compiled.compiled;
        pthread_mutex_lock(&e->lock);
        if (timed) {
            watch.deadline = zp_clock_now() + e->opt.witness_time_limit;
            pthread_cond_signal(&e->sampler_wake);
        }
        pthread_mutex_unlock(&e->lock);
        st = zp_witness_module_open_stoppable(&c->module, compiled.so_path, c->path, &watch.stop, err);
    }
    pthread_mutex_lock(&e->lock);
    if (watch_end(e, &watch) == WITGEN_STOP_LIMIT && st != ZP_OK) at_time_limit(e, err);
    pthread_mutex_unlock(&e->lock);
    if (compiled.so_path == NULL) return st;
    c->measure_path = measure_path(compiled.so_path);
    zp_witness_compiled_free(&compiled);
    zp_witness_instance *inst = NULL;
    if (st == ZP_OK) st = zp_witness_instance_create(&inst, c->module, err);
    if (st != ZP_OK) return st;
    c->initial_bytes = zp_track_round(zp_witness_instance_memory_bytes(inst));
    zp_witness_instance_destroy(inst);
    c->witgen_bytes = measure_read(c->measure_path);
    c->measured = c->witgen_bytes > 0;
    c->curve = zp_witness_module_curve(c->module);
    c->witness_size = zp_witness_module_size(c->module);
    size_t n8 = zp_witness_module_n8(c->module);
    if (n8 != ZP_SCALAR_BYTES &&
        c->curve != ZP_CURVE_NONE) /* both curves' r fit 32 bytes: a wider field is another curve */
        return zp_error_set(err, ZP_ERR_MISMATCH, "%s: field elements of %zu bytes, not %d", c->path, n8,
                            ZP_SCALAR_BYTES);
    return ZP_OK;
}

int engine_circuit_ready(const engine_circuit *c) { return c == NULL || c->state == ZP_CIRCUIT_READY; }

/* The entry for resolved, new or known, with a reference. Lock held. */
static engine_circuit *circuit_ref(zp_engine *e, const char *resolved, zp_error *err) {
    engine_circuit *c = find_circuit(e, resolved);
    if (c == NULL) {
        c = calloc(1, sizeof *c);
        if (c == NULL || (c->path = strdup(resolved)) == NULL) {
            free(c);
            zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
            return NULL;
        }
        c->state = ZP_CIRCUIT_LOADING;
        c->next = e->circuits;
        e->circuits = c;
        pthread_cond_signal(&e->circuits_wake);
    }
    c->refs++;
    return c;
}

zp_status engine_circuit_get(engine_circuit **out, zp_engine *e, const char *wasm_path, zp_error *err) {
    *out = NULL;
    char resolved[PATH_MAX];
    if (realpath(wasm_path, resolved) == NULL) {
        return zp_error_set(err, ZP_ERR_IO, "%s: cannot open the witness calculator: %s", wasm_path, strerror(errno));
    }
    pthread_mutex_lock(&e->lock);
    *out = circuit_ref(e, resolved, err);
    pthread_mutex_unlock(&e->lock);
    return *out == NULL ? ZP_ERR_NOMEM : ZP_OK;
}

zp_status engine_circuit_check(const engine_circuit *c, const engine_key *key, uint64_t *witgen, zp_error *err) {
    *witgen = 0;
    if (c == NULL || c->state == ZP_CIRCUIT_LOADING) return ZP_OK;
    if (c->state == ZP_CIRCUIT_FAILED) {
        *err = c->error;
        return c->error.status;
    }
    *witgen = c->measured ? c->witgen_bytes : c->initial_bytes;
    return check_against_key(c, key, err);
}

zp_status zp_engine_circuit_preload(zp_engine *e, const char *wasm_path, zp_error *err) {
    char resolved[PATH_MAX];
    if (realpath(wasm_path, resolved) == NULL) {
        return zp_error_set(err, ZP_ERR_IO, "%s: cannot open the witness calculator: %s", wasm_path, strerror(errno));
    }
    pthread_mutex_lock(&e->lock);
    engine_circuit *c = circuit_ref(e, resolved, err);
    if (c != NULL && c->pinned) engine_circuit_put(e, c); /* one pin is enough */
    else if (c != NULL) c->pinned = 1;                    /* the reference is the pin's */
    pthread_mutex_unlock(&e->lock);
    return c == NULL ? ZP_ERR_NOMEM : ZP_OK;
}

zp_status zp_engine_circuit_check(zp_engine *e, const char *key_path, const char *wasm_path, zp_circuit_state *state,
                                  zp_error *err) {
    *state = ZP_CIRCUIT_UNKNOWN;
    char resolved[PATH_MAX];
    if (realpath(wasm_path, resolved) == NULL) {
        return zp_error_set(err, ZP_ERR_IO, "%s: cannot open the witness calculator: %s", wasm_path, strerror(errno));
    }
    engine_key *key;
    zp_status st = engine_key_get(&key, e, key_path, err);
    if (st != ZP_OK) return st;
    pthread_mutex_lock(&e->lock);
    const engine_circuit *c = find_circuit(e, resolved);
    if (c != NULL) {
        uint64_t witgen;
        *state = c->state;
        st = engine_circuit_check(c, key, &witgen, err);
    }
    engine_key_put(e, key);
    pthread_mutex_unlock(&e->lock);
    return st;
}

/* Its jobs, once the circuit is loaded or has failed: each is checked
 * against its key and the budget, or fails with the circuit. Lock held. */
static void circuit_settle_jobs(zp_engine *e, engine_circuit *c) {
    for (engine_job *j = e->jobs; j; j = j->next) {
        if (j->circuit != c || j->state != ZP_JOB_QUEUED) continue;
        zp_error err;
        uint64_t witgen;
        zp_status st = engine_circuit_check(c, j->key, &witgen, &err);
        if (st == ZP_OK) st = engine_job_fits(e, j->key, witgen, &err);
        if (st != ZP_OK) engine_job_fail_all(e, j, &err);
    }
    pthread_cond_broadcast(&e->admit);
}

static engine_circuit *circuit_to_load(zp_engine *e) {
    for (engine_circuit *c = e->circuits; c; c = c->next) {
        if (c->state == ZP_CIRCUIT_LOADING && !c->claimed) return c;
    }
    return NULL;
}

void *engine_circuits_main(void *arg) {
    zp_engine *e = arg;
    pthread_mutex_lock(&e->lock);
    for (;;) {
        engine_circuit *c = NULL;
        while (!e->stopping && (c = circuit_to_load(e)) == NULL) pthread_cond_wait(&e->circuits_wake, &e->lock);
        if (c == NULL) break;
        c->claimed = 1;
        c->refs++;
        const char *cache = e->opt.witness_cache_dir;
        pthread_mutex_unlock(&e->lock);
        zp_error err = {0};
        int compiled = 0;
        double t0 = zp_clock_now();
        zp_status st = circuit_load(e, c, cache, &compiled, &err);
        if (e->opt.log != NULL) {
            char line[700];
            if (st == ZP_OK)
                snprintf(line, sizeof line, "circuit %s: %s (%.1f s)", c->path,
                         compiled ? "compiled and loaded" : "loaded from the cache", zp_clock_now() - t0);
            else snprintf(line, sizeof line, "circuit %s: cannot be used: %s", c->path, err.message);
            e->opt.log(e->opt.log_arg, line);
        }
        pthread_mutex_lock(&e->lock);
        c->state = st == ZP_OK ? ZP_CIRCUIT_READY : ZP_CIRCUIT_FAILED;
        if (st != ZP_OK) c->error = err;
        circuit_settle_jobs(e, c);
        engine_circuit_put(e, c);
    }
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

void engine_circuit_put(zp_engine *e, engine_circuit *c) {
    if (c == NULL || --c->refs > 0) return;
    for (engine_circuit **pp = &e->circuits; *pp; pp = &(*pp)->next) {
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    }
    circuit_free(c);
}

void engine_circuits_free_all(zp_engine *e) {
    while (e->circuits) {
        engine_circuit *c = e->circuits;
        e->circuits = c->next;
        circuit_free(c);
    }
}

/* ---- a worker's slot --------------------------------------------------- */

uint64_t engine_witgen_need(const zp_engine *e, const witgen_slot *s, const engine_circuit *c, uint64_t other_need) {
    uint64_t held = s->circuit == c ? s->reserved : 0;
    uint64_t target;
    if (c->measured) {
        target = c->witgen_bytes > c->initial_bytes ? c->witgen_bytes : c->initial_bytes;
    } else if (c->measuring && !s->measuring) {
        return UINT64_MAX; /* its figure comes soon: reserving the bound twice would only wait longer */
    } else {
        /* Not measured yet: what the budget has left, up to what wasm32 can
         * use; settled to the real size when the first calculation ends. */
        target = ZP_WITGEN_BOUND;
        if (e->budget != ZP_BUDGET_UNLIMITED) {
            uint64_t used = e->reserved + other_need - held;
            uint64_t room = e->budget > used ? e->budget - used : 0;
            if (room < target) target = room;
        }
        if (target < c->initial_bytes) target = c->initial_bytes;
    }
    return target > held ? target - held : 0;
}

void engine_witgen_take(zp_engine *e, witgen_slot *s, engine_circuit *c, uint64_t bytes) {
    if (s->circuit != c) {
        engine_witgen_drop(e, s);
        s->circuit = c;
        c->refs++;
    }
    s->reserved += bytes;
    if (!c->measured && !c->measuring) {
        c->measuring = 1;
        s->measuring = 1;
    }
}

/* The slot's first calculation of its circuit did not finish: another
 * worker may measure it. Lock held. */
static void end_measuring(zp_engine *e, witgen_slot *s) {
    if (!s->measuring) return;
    s->measuring = 0;
    s->circuit->measuring = 0;
    pthread_cond_broadcast(&e->admit);
}

int engine_witgen_drop(zp_engine *e, witgen_slot *s) {
    if (s->circuit == NULL) return 0;
    end_measuring(e, s);
    zp_track_free(&e->tracker, &s->memory); /* only uncounts: the instance unmaps its memory */
    zp_track_free(&e->tracker, &s->inputs); /* (none outside a run) */
    zp_witness_instance_destroy(s->inst);
    s->inst = NULL;
    e->reserved -= s->reserved;
    s->reserved = 0;
    engine_circuit_put(e, s->circuit);
    s->circuit = NULL;
    pthread_cond_broadcast(&e->admit);
    return 1;
}

/* After a calculation (done or failed): the instance's memory now is what
 * the tracker counts, and what the slot keeps reserved (at least the
 * circuit's measured figure, which the next partition would reserve
 * anyway). peak is what the run used at most, inputs included: a finished
 * run's is the circuit's figure when larger. A run whose instance was
 * refused a growth (denied) forgets the figure, if any: the next
 * partition reserves what the budget has left and measures again (a
 * figure kept in the cache may be stale; raising it to the refused size
 * instead would let one partition's input set every later partition's
 * reservation). Memory past the reservation (none since the glue limits
 * the growth; kept as a guard) is taken from the budget when it has room;
 * when it has none, the instance is let go and the partition fails. Lock
 * held. */
static zp_status settle(zp_engine *e, witgen_slot *s, int finished, uint64_t peak, int denied, const char *input,
                        uint64_t *remeasured, zp_error *err) {
    engine_circuit *c = s->circuit;
    uint64_t now = zp_track_round(zp_witness_instance_memory_bytes(s->inst));
    *remeasured = 0;
    if (peak < now) peak = now;
    if (denied) {
        c->measured = 0;
    } else if (finished && (!c->measured || peak > c->witgen_bytes)) {
        c->witgen_bytes = peak;
        c->measured = 1;
        *remeasured = peak;
    }
    end_measuring(e, s);
    uint64_t keep = now;
    if (c->measured && c->witgen_bytes > keep) keep = c->witgen_bytes;
    if (keep > s->reserved) {
        uint64_t extra = keep - s->reserved;
        if (e->budget != ZP_BUDGET_UNLIMITED && e->reserved + extra > e->budget) {
            uint64_t had = s->reserved;
            engine_witgen_drop(e, s);
            return zp_error_set(err, ZP_ERR_NOMEM,
                                "%s: the witness calculator's memory grew to %llu bytes, past the %llu reserved for "
                                "it, and the budget has no room for the rest",
                                input, (unsigned long long)now, (unsigned long long)had);
        }
        e->reserved += extra;
        if (e->reserved > e->peak_reserved) e->peak_reserved = e->reserved;
        s->reserved = keep;
    } else if (keep < s->reserved) {
        e->reserved -= s->reserved - keep;
        s->reserved = keep;
        pthread_cond_broadcast(&e->admit);
    }
    zp_track_account_resize(&e->tracker, &s->memory, now);
    return ZP_OK;
}

/* The slot's reservation must cover its instance's memory and total
 * bytes of inputs: the rest is taken from the budget when it has room,
 * else the read fails naming the figures. Lock held. */
static zp_status cover_inputs(zp_engine *e, witgen_slot *s, uint64_t total, const char *input, zp_error *err) {
    uint64_t want = s->memory.bytes + zp_track_round((size_t)total);
    if (want <= s->reserved) return ZP_OK;
    uint64_t extra = want - s->reserved;
    if (e->budget != ZP_BUDGET_UNLIMITED && e->reserved + extra > e->budget) {
        return zp_error_set(err, ZP_ERR_NOMEM,
                            "%s: reading it takes %llu bytes (the text, its JSON tree and its values), which with "
                            "the witness calculator's %llu is more than the %llu reserved for them, and the budget "
                            "has no room for the rest (%llu of %llu reserved)",
                            input, (unsigned long long)total, (unsigned long long)s->memory.bytes,
                            (unsigned long long)s->reserved, (unsigned long long)e->reserved,
                            (unsigned long long)e->budget);
    }
    e->reserved += extra;
    if (e->reserved > e->peak_reserved) e->peak_reserved = e->reserved;
    s->reserved = want;
    return ZP_OK;
}

typedef struct input_read {
    zp_engine *e;
    witgen_slot *s;
    const char *input;
    uint64_t peak; /* the most asked for */
} input_read;

/* zp_witness_reserve_fn: the inputs' memory, reserved and counted before
 * it is taken. */
static zp_status reserve_inputs(void *arg, uint64_t total, zp_error *err) {
    input_read *r = arg;
    zp_engine *e = r->e;
    pthread_mutex_lock(&e->lock);
    zp_status st = cover_inputs(e, r->s, total, r->input, err);
    if (st == ZP_OK) {
        if (r->s->inputs.p == NULL) {
            zp_track_account(&r->s->inputs, &e->tracker, r->s, ZP_BUF_WITGEN, ZP_STAGE_SYNTH, (size_t)total);
        } else {
            zp_track_account_resize(&e->tracker, &r->s->inputs, (size_t)total);
        }
        if (total > r->peak) r->peak = total;
    }
    pthread_mutex_unlock(&e->lock);
    return st;
}

zp_status engine_witgen_run(zp_engine *e, witgen_slot *s, engine_part *p, uint8_t *out, size_t bytes, zp_error *err) {
    engine_circuit *c = s->circuit;
    const char *input = p->job->input_paths[p->index];
    size_t count = c->witness_size, n8 = zp_witness_module_n8(c->module);
    if (count * n8 > bytes) {
        return zp_error_set(err, ZP_ERR_INTERNAL, "%s: a witness of %zu values does not fit its buffer", input, count);
    }
    zp_status st;
    if (s->inst == NULL) {
        st = zp_witness_instance_create(&s->inst, c->module, err);
        if (st != ZP_OK) return st;
        zp_witness_instance_set_stop(s->inst, &s->watch.stop);
        pthread_mutex_lock(&e->lock);
        zp_track_account(&s->memory, &e->tracker, s->inst, ZP_BUF_WITGEN, ZP_STAGE_SYNTH,
                         zp_witness_instance_memory_bytes(s->inst));
        pthread_mutex_unlock(&e->lock);
    }
    zp_witness_inputs in = {0};
    input_read r = {.e = e, .s = s, .input = input};
    st = zp_witness_inputs_read_reserved(&in, input, zp_witness_module_prime(c->module), n8, reserve_inputs, &r, err);
    pthread_mutex_lock(&e->lock);
    uint64_t before = s->memory.bytes; /* the instance's, while the inputs were read */
    uint64_t peak = before + zp_track_round((size_t)r.peak);
    if (st == ZP_OK) {
        /* what the parse left (the values) stays counted; the instance
         * may use the rest of the reservation, no more */
        zp_track_account_resize(&e->tracker, &s->inputs, in.bytes);
        uint64_t held = zp_track_round(in.bytes);
        zp_witness_instance_set_memory_limit(s->inst, e->budget == ZP_BUDGET_UNLIMITED ? UINT64_MAX
                                                      : s->reserved > held             ? s->reserved - held
                                                                                       : before);
    }
    pthread_mutex_unlock(&e->lock);
    if (st == ZP_OK) {
        pthread_mutex_lock(&e->lock);
        watch_begin(e, &s->watch, p->job);
        pthread_mutex_unlock(&e->lock);
        st = zp_witness_instance_calculate(s->inst, &in, out, 0, err);
        pthread_mutex_lock(&e->lock);
        int why = watch_end(e, &s->watch);
        pthread_mutex_unlock(&e->lock);
        if (st != ZP_OK && why == WITGEN_STOP_LIMIT) at_time_limit(e, err);
        if (st != ZP_OK && strstr(err->message, input) == NULL) zp_error_prefix(err, "%s: ", input);
    }
    uint64_t denied = st != ZP_OK ? zp_witness_instance_memory_denied(s->inst) : 0;
    uint64_t held = zp_track_round(in.bytes);
    zp_witness_inputs_free(&in);
    pthread_mutex_lock(&e->lock);
    zp_track_free(&e->tracker, &s->inputs);
    uint64_t after = zp_track_round(zp_witness_instance_memory_bytes(s->inst)) + held;
    if (after > peak) peak = after;
    zp_error settle_err;
    uint64_t remeasured;
    char *keep_at = c->measure_path; /* the circuit outlives this call: the slot holds a reference */
    zp_status sst = settle(e, s, st == ZP_OK, peak, denied != 0, input, &remeasured, &settle_err);
    pthread_mutex_unlock(&e->lock);
    if (remeasured) measure_write(keep_at, remeasured, s);
    if (st == ZP_OK && sst != ZP_OK) {
        *err = settle_err;
        st = sst;
    }
    return st;
}
