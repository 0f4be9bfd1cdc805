/* The pipeline engine (include/zkpipe_engine.h): proofs of every partition
 * verify and come back in partition order on both curves; priorities;
 * a wrong witness fails its job naming the partition while others finish;
 * a budget too small fails at once; keys are evicted to make room; and a
 * stress run (many small jobs, random cancellations, random injected
 * failures in every stage) never goes over budget, ends every job, and
 * leaves every counter at zero. The tracker's allocator hook and memory
 * kinds; the backend by name (an unknown one an error). */
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "chain_circuit.h"
#include "field/ifma.h"
#include "groth16/backend.h"
#include "groth16/groth16.h"
#include "groth16/setup.h"
#include "io/wtns.h"
#include "io/zkey.h"
#include "mem/large.h"
#include "mem/reuse.h"
#include "mem/track.h"
#include "testutil.h"
#include "zkpipe_engine.h"

#define MAX_WITNESSES 8

/* One key file and a few witness files of a chain circuit. */
typedef struct fixture {
    chain_circuit circuit;
    zp_groth16_setup_key setup;
    char key_path[256];
    char wtns_path[MAX_WITNESSES][256];
    const char *wtns_ptrs[MAX_WITNESSES];
    uint64_t *witness[MAX_WITNESSES];
    size_t n_wires;
} fixture;

static char workdir[] = "/tmp/zp-test-engine-XXXXXX";

static void fixture_make(fixture *f, zp_curve curve, uint32_t m, uint32_t npub, const char *name) {
    zp_error err;
    memset(f, 0, sizeof *f);
    chain_build(&f->circuit, curve, m, npub);
    CHECK(zp_groth16_setup(&f->setup, &f->circuit.cs, NULL, &err) == ZP_OK);
    snprintf(f->key_path, sizeof f->key_path, "%s/%s.zkey", workdir, name);
    CHECK(zp_zkey_write(f->key_path, &f->setup.pk, NULL, &err) == ZP_OK);
    f->n_wires = f->circuit.cs.n_wires;
    for (int i = 0; i < MAX_WITNESSES; i++) {
        f->witness[i] = malloc(f->n_wires * 32);
        chain_witness(f->witness[i], &f->circuit, zp_test_rand64());
        snprintf(f->wtns_path[i], sizeof f->wtns_path[i], "%s/%s_%d.wtns", workdir, name, i);
        CHECK(zp_wtns_write(f->wtns_path[i], curve, f->witness[i], f->n_wires, &err) == ZP_OK);
        f->wtns_ptrs[i] = f->wtns_path[i];
    }
}

static void fixture_free(fixture *f) {
    for (int i = 0; i < MAX_WITNESSES; i++) free(f->witness[i]);
    zp_groth16_setup_free(&f->setup);
    chain_free(&f->circuit);
}

/* Every proof of a done job verifies, and partition i's public values are
 * those of the witness it was given. */
static void check_proofs(zp_engine *e, uint64_t job, const fixture *f, const size_t *witness_of, size_t n) {
    zp_error err;
    zp_groth16_vk vk;
    CHECK(zp_zkey_vk(&vk, &f->setup.pk, &err) == ZP_OK);
    for (size_t i = 0; i < n; i++) {
        zp_groth16_proof proof;
        uint64_t pub[4 * 8];
        size_t np = 0;
        CHECK(zp_engine_proof(&proof, pub, 8, &np, e, job, i, &err) == ZP_OK);
        const uint64_t *w = f->witness[witness_of[i]];
        CHECK_MSG(np == f->circuit.npub && memcmp(pub, w + 4, np * 32) == 0, "job %llu partition %zu: public values",
                  (unsigned long long)job, i);
        CHECK_MSG(zp_groth16_verify(&vk, pub, &proof) == 1, "job %llu partition %zu verifies", (unsigned long long)job,
                  i);
    }
    zp_groth16_vk_free(&vk);
}

static zp_job_state wait_job(zp_engine *e, uint64_t job, zp_job_info *info) {
    zp_error err;
    CHECK(zp_engine_job(info, e, job, 600, &err) == ZP_OK);
    return info->state;
}

/* After everything ended: nothing but keys is tracked or reserved. */
static void check_idle(zp_engine *e, const char *what) {
    zp_engine_stats s;
    /* the dealloc thread may still be freeing, and a failed partition's
     * worker still giving back its reservation after its job ended (seen
     * under TSan on a loaded machine: reserved 24 KiB over the keys) */
    for (int tries = 0; tries < 200; tries++) {
        zp_engine_stats_get(&s, e);
        uint64_t keys_now = s.by_class[ZP_BUF_KEY].bytes + s.by_class[ZP_BUF_MATRICES].bytes;
        if (s.by_stage[ZP_STAGE_DEALLOC].count == 0 && s.tracked == keys_now && s.reserved == keys_now) break;
        usleep(10000);
    }
    zp_engine_stats_get(&s, e);
    uint64_t keys = s.by_class[ZP_BUF_KEY].bytes + s.by_class[ZP_BUF_MATRICES].bytes;
    CHECK_MSG(s.tracked == keys, "%s: tracked %llu = keys %llu", what, (unsigned long long)s.tracked,
              (unsigned long long)keys);
    CHECK_MSG(s.reserved == keys, "%s: reserved %llu = keys %llu", what, (unsigned long long)s.reserved,
              (unsigned long long)keys);
    for (int c = ZP_BUF_WITNESS; c < ZP_BUF_CLASSES; c++) {
        CHECK_MSG(s.by_class[c].count == 0 && s.by_class[c].bytes == 0, "%s: no %s buffers left", what,
                  zp_buffer_class_name((zp_buffer_class)c));
    }
    for (int g = ZP_STAGE_SYNTH; g < ZP_STAGES; g++) {
        CHECK_MSG(s.partitions_in[g] == 0 && s.by_stage[g].bytes == 0, "%s: stage %s empty", what,
                  zp_stage_name((zp_stage)g));
    }
    CHECK_MSG(s.peak_reserved <= s.budget, "%s: peak reserved within the budget", what);
    CHECK_MSG(s.peak_tracked <= s.budget, "%s: peak tracked within the budget", what);
}

/* ---- one job per curve, in order, with a trace ------------------------- */

static void test_basic(const fixture *f) {
    zp_error err;
    zp_engine *e;
    char trace[300];
    snprintf(trace, sizeof trace, "%s/trace.json", workdir);
    zp_engine_options opt = {0};
    opt.budget = 1ULL << 30;
    opt.synth_workers = 3;
    opt.trace_path = trace;
    opt.report_ended = 1;
    CHECK(zp_engine_create(&e, &opt, &err) == ZP_OK);
    size_t order[MAX_WITNESSES] = {3, 1, 4, 0, 5, 2, 7, 6};
    const char *paths[MAX_WITNESSES];
    for (int i = 0; i < MAX_WITNESSES; i++) paths[i] = f->wtns_path[order[i]];
    zp_job_spec spec = {.key_path = f->key_path, .partitions = MAX_WITNESSES, .witness_paths = paths};
    uint64_t job;
    CHECK(zp_engine_submit(&job, e, &spec, &err) == ZP_OK);
    zp_job_info info;
    CHECK_MSG(wait_job(e, job, &info) == ZP_JOB_DONE, "%s: job done (%s)", zp_curve_name(f->circuit.cs.curve),
              info.error.message);
    CHECK(info.done == MAX_WITNESSES);
    check_proofs(e, job, f, order, MAX_WITNESSES);
    uint64_t ended = 0;
    CHECK(zp_engine_next_ended(&ended, e, 1.0) == 1 && ended == job);
    CHECK(zp_engine_next_ended(&ended, e, 0) == 0);
    zp_engine_key_info keys[2];
    CHECK(zp_engine_keys(keys, 2, e) == 1);
    CHECK(keys[0].loaded && keys[0].n_vars == f->n_wires && keys[0].jobs == 1 && keys[0].partitions_active == 0);
    zp_partition_times t;
    CHECK(zp_engine_partition_times(&t, e, job, 0, &err) == ZP_OK);
    CHECK(t.total > 0 && t.prove > 0 && t.total >= t.prove + t.synth);
    /* writing one out as snarkjs files */
    char proof[300], pub[300];
    snprintf(proof, sizeof proof, "%s/proof.json", workdir);
    snprintf(pub, sizeof pub, "%s/public.json", workdir);
    CHECK(zp_engine_write_proof(e, job, 2, proof, pub, &err) == ZP_OK);
    check_idle(e, "basic");
    zp_engine_destroy(e);

    json_error_t jerr;
    json_t *root = json_load_file(trace, 0, &jerr);
    CHECK_MSG(root != NULL, "the trace is JSON: %s", jerr.text);
    json_t *events = json_object_get(root, "traceEvents");
    size_t spans = 0, counters = 0, i;
    json_t *ev;
    json_array_foreach(events, i, ev) {
        const char *ph = json_string_value(json_object_get(ev, "ph"));
        if (ph && strcmp(ph, "X") == 0) spans++;
        if (ph && strcmp(ph, "C") == 0) counters++;
    }
    /* synth, wait_prove, prove, wait_final, final per partition */
    CHECK_MSG(spans == 5 * MAX_WITNESSES, "trace has %zu stage spans", spans);
    CHECK(counters > 0);
    json_decref(root);
}

/* ---- priorities -------------------------------------------------------- */

typedef struct order_log {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int release; /* the first call blocks until this is set */
    int calls;
    char seen[64];
    const fixture *f;
    char tag;
} order_log;

typedef struct order_arg {
    order_log *log;
    char tag;
} order_arg;

static zp_status ordered_witness(void *arg, size_t partition, uint64_t *values, size_t count, zp_curve curve,
                                 zp_error *err) {
    order_arg *a = arg;
    order_log *log = a->log;
    (void)curve;
    (void)err;
    pthread_mutex_lock(&log->lock);
    if (log->calls < (int)sizeof log->seen - 1) log->seen[log->calls] = a->tag;
    int first = log->calls++ == 0;
    while (first && !log->release) pthread_cond_wait(&log->cond, &log->lock);
    pthread_mutex_unlock(&log->lock);
    memcpy(values, log->f->witness[partition % MAX_WITNESSES], count * 32);
    return ZP_OK;
}

static void test_priority(const fixture *f) {
    zp_error err;
    zp_engine *e;
    zp_engine_options opt = {0};
    opt.budget = ZP_BUDGET_UNLIMITED;
    opt.synth_workers = 1;
    CHECK(zp_engine_create(&e, &opt, &err) == ZP_OK);
    order_log log = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, {0}, f, 0};
    order_arg low = {&log, 'L'}, high = {&log, 'H'};
    zp_job_spec a = {.key_path = f->key_path, .partitions = 3, .witness_fn = ordered_witness, .witness_arg = &low};
    zp_job_spec b = {
        .key_path = f->key_path, .partitions = 3, .witness_fn = ordered_witness, .witness_arg = &high, .priority = 5};
    uint64_t ja, jb;
    CHECK(zp_engine_submit(&ja, e, &a, &err) == ZP_OK);
    while (1) { /* the single synthesis worker is inside L's first witness */
        pthread_mutex_lock(&log.lock);
        int calls = log.calls;
        pthread_mutex_unlock(&log.lock);
        if (calls > 0) break;
        usleep(1000);
    }
    CHECK(zp_engine_submit(&jb, e, &b, &err) == ZP_OK);
    pthread_mutex_lock(&log.lock);
    log.release = 1;
    pthread_cond_broadcast(&log.cond);
    pthread_mutex_unlock(&log.lock);
    zp_job_info info;
    CHECK(wait_job(e, ja, &info) == ZP_JOB_DONE);
    CHECK(wait_job(e, jb, &info) == ZP_JOB_DONE);
    CHECK_MSG(strcmp(log.seen, "LHHHLL") == 0, "higher priority synthesized first: %s", log.seen);
    size_t order[3] = {0, 1, 2};
    check_proofs(e, ja, f, order, 3);
    check_proofs(e, jb, f, order, 3);
    check_idle(e, "priority");
    zp_engine_destroy(e);
}

/* ---- failures: a wrong witness, a budget too small, cancellation ------- */

static void test_failures(const fixture *f) {
    zp_error err;
    zp_engine *e;
    zp_engine_options opt = {0};
    opt.budget = 1ULL << 30;
    CHECK(zp_engine_create(&e, &opt, &err) == ZP_OK);

    /* partition 2's witness does not satisfy the circuit */
    char bad_path[300];
    snprintf(bad_path, sizeof bad_path, "%s/bad.wtns", workdir);
    uint64_t *bad = malloc(f->n_wires * 32);
    memcpy(bad, f->witness[0], f->n_wires * 32);
    bad[4 * (f->n_wires - 2)] ^= 4;
    CHECK(zp_wtns_write(bad_path, f->circuit.cs.curve, bad, f->n_wires, &err) == ZP_OK);
    free(bad);
    const char *paths[4] = {f->wtns_path[0], f->wtns_path[1], bad_path, f->wtns_path[3]};
    zp_job_spec spec = {.key_path = f->key_path, .partitions = 4, .witness_paths = paths};
    zp_job_spec good = {.key_path = f->key_path, .partitions = 2, .witness_paths = f->wtns_ptrs};
    uint64_t jbad, jgood;
    CHECK(zp_engine_submit(&jbad, e, &spec, &err) == ZP_OK);
    CHECK(zp_engine_submit(&jgood, e, &good, &err) == ZP_OK);
    zp_job_info info;
    CHECK(wait_job(e, jbad, &info) == ZP_JOB_FAILED);
    CHECK_MSG(strstr(info.error.message, "partition 2") && strstr(info.error.message, "does not satisfy"),
              "reason names the partition: %s", info.error.message);
    CHECK(wait_job(e, jgood, &info) == ZP_JOB_DONE);

    /* a witness of another circuit, and a missing witness file */
    fixture other;
    fixture_make(&other, f->circuit.cs.curve, f->circuit.m + 3, f->circuit.npub, "other");
    const char *mixed[2] = {f->wtns_path[0], other.wtns_path[0]};
    spec = (zp_job_spec){.key_path = f->key_path, .partitions = 2, .witness_paths = mixed};
    CHECK(zp_engine_submit(&jbad, e, &spec, &err) == ZP_OK);
    CHECK(wait_job(e, jbad, &info) == ZP_JOB_FAILED);
    CHECK_MSG(strstr(info.error.message, "partition 1") && strstr(info.error.message, other.wtns_path[0]) &&
                  strstr(info.error.message, "another circuit"),
              "reason names the partition and file: %s", info.error.message);
    const char *missing[1] = {"/nonexistent/w.wtns"};
    spec = (zp_job_spec){.key_path = f->key_path, .partitions = 1, .witness_paths = missing};
    CHECK(zp_engine_submit(&jbad, e, &spec, &err) == ZP_ERR_IO);
    CHECK(strstr(err.message, "/nonexistent/w.wtns") != NULL);
    spec = (zp_job_spec){.key_path = "/nonexistent/k.zkey", .partitions = 1, .witness_paths = f->wtns_ptrs};
    CHECK(zp_engine_submit(&jbad, e, &spec, &err) == ZP_ERR_IO);
    fixture_free(&other);

    /* cancelling a job queued behind a blocked one */
    order_log log = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, {0}, f, 0};
    order_arg tag = {&log, 'B'};
    zp_job_spec blocked = {
        .key_path = f->key_path, .partitions = 2, .witness_fn = ordered_witness, .witness_arg = &tag};
    uint64_t jblocked, jqueued;
    CHECK(zp_engine_submit(&jblocked, e, &blocked, &err) == ZP_OK);
    CHECK(zp_engine_submit(&jqueued, e, &good, &err) == ZP_OK);
    CHECK(zp_engine_cancel(e, jqueued, &err) == ZP_OK);
    CHECK(zp_engine_cancel(e, jblocked, &err) == ZP_OK);
    pthread_mutex_lock(&log.lock);
    log.release = 1;
    pthread_cond_broadcast(&log.cond);
    pthread_mutex_unlock(&log.lock);
    CHECK(wait_job(e, jqueued, &info) == ZP_JOB_CANCELLED);
    CHECK(wait_job(e, jblocked, &info) == ZP_JOB_CANCELLED);
    CHECK(zp_engine_cancel(e, 999999, &err) == ZP_ERR_ARG);
    check_idle(e, "failures");
    zp_engine_destroy(e);

    /* a budget too small for one partition fails at once */
    opt.budget = 64 * 1024;
    CHECK(zp_engine_create(&e, &opt, &err) == ZP_OK);
    CHECK(zp_engine_submit(&jbad, e, &good, &err) == ZP_ERR_NOMEM);
    CHECK_MSG(strstr(err.message, "too small") != NULL, "%s", err.message);
    zp_engine_destroy(e);
}

/* ---- two keys, room for one: the idle one is evicted ------------------- */

static void test_eviction(const fixture *f, const fixture *g) {
    zp_error err;
    zp_engine *e;
    zp_engine_options opt = {0};
    opt.synth_workers = 1;
    opt.prove_threads = 2;
    CHECK(zp_engine_create(&e, &opt, &err) == ZP_OK); /* to learn the sizes */
    uint64_t j1, j2;
    zp_job_spec s1 = {.key_path = f->key_path, .partitions = 2, .witness_paths = f->wtns_ptrs};
    zp_job_spec s2 = {.key_path = g->key_path, .partitions = 2, .witness_paths = g->wtns_ptrs};
    CHECK(zp_engine_key_preload(e, f->key_path, &err) == ZP_OK);
    zp_engine_stats s;
    zp_engine_stats_get(&s, e);
    uint64_t kf = s.tracked;
    CHECK(zp_engine_key_preload(e, g->key_path, &err) == ZP_OK);
    zp_engine_stats_get(&s, e);
    uint64_t kg = s.tracked - kf;
    CHECK(s.keys_loaded == 2);
    CHECK(zp_engine_key_evict(e, f->key_path, &err) == ZP_OK);
    CHECK(zp_engine_key_evict(e, f->key_path, &err) == ZP_ERR_ARG);
    zp_engine_destroy(e);

    /* room for either key and one partition, never for both keys */
    uint64_t fp = 0;
    const zp_groth16_pk *pks[2] = {&f->setup.pk, &g->setup.pk};
    for (int i = 0; i < 2; i++) {
        uint64_t one = zp_track_round((size_t)pks[i]->n_vars * 32) + zp_track_round(zp_groth16_abc_size(pks[i])) +
                       zp_track_round(zp_groth16_msm_scratch_size(pks[i], 2));
        if (one > fp) fp = one;
    }
    opt.budget = (kf > kg ? kf : kg) + fp + (kf < kg ? kf : kg) / 2;
    CHECK(zp_engine_create(&e, &opt, &err) == ZP_OK);
    for (int round = 0; round < 2; round++) {
        CHECK(zp_engine_submit(&j1, e, &s1, &err) == ZP_OK);
        CHECK(zp_engine_submit(&j2, e, &s2, &err) == ZP_OK);
        zp_job_info info;
        CHECK_MSG(wait_job(e, j1, &info) == ZP_JOB_DONE, "eviction: first key's job (%s)", info.error.message);
        CHECK_MSG(wait_job(e, j2, &info) == ZP_JOB_DONE, "eviction: second key's job (%s)", info.error.message);
        size_t order[2] = {0, 1};
        check_proofs(e, j1, f, order, 2);
        check_proofs(e, j2, g, order, 2);
        zp_engine_forget(e, j1);
        zp_engine_forget(e, j2);
    }
    zp_engine_stats_get(&s, e);
    CHECK_MSG(s.peak_tracked <= s.budget, "eviction: within budget");
    check_idle(e, "eviction");
    zp_engine_destroy(e);
}

/* ---- stress ------------------------------------------------------------ */

typedef struct stress_faults {
    _Atomic unsigned long long state;
    int per_mille;
    _Atomic int injected;
} stress_faults;

static int random_fault(void *arg, zp_stage stage, uint64_t job, size_t partition) {
    stress_faults *s = arg;
    (void)stage;
    (void)job;
    (void)partition;
    unsigned long long x = atomic_fetch_add(&s->state, 0x9e3779b97f4a7c15ULL) * 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 31;
    int hit = (int)(x % 1000) < s->per_mille;
    if (hit) atomic_fetch_add(&s->injected, 1);
    return hit;
}

typedef struct watcher {
    zp_engine *e;
    _Atomic int stop;
    int over_budget;
    uint64_t max_tracked;
} watcher;

static void *watch(void *arg) {
    watcher *w = arg;
    while (!atomic_load(&w->stop)) {
        zp_engine_stats s;
        zp_engine_stats_get(&s, w->e);
        if (s.tracked > s.budget || s.reserved > s.budget) w->over_budget++;
        if (s.tracked > w->max_tracked) w->max_tracked = s.tracked;
        usleep(500);
    }
    return NULL;
}

static void test_stress(const fixture *f) {
    zp_error err;
    zp_engine *e;
    stress_faults faults = {zp_test_rand64(), 30, 0};
    zp_engine_options opt = {0};
    opt.synth_workers = 3;
    opt.prove_workers = 2;
    opt.finalize_workers = 2;
    opt.prove_threads = 2;
    opt.fault = random_fault;
    opt.fault_arg = &faults;
    CHECK(zp_engine_create(&e, &opt, &err) == ZP_OK); /* to learn one partition's size */
    CHECK(zp_engine_key_preload(e, f->key_path, &err) == ZP_OK);
    zp_engine_stats s;
    zp_engine_stats_get(&s, e);
    uint64_t key_bytes = s.tracked;
    zp_engine_destroy(e);
    /* the key and about three partitions */
    uint64_t part = zp_track_round(f->n_wires * 32) + zp_track_round(zp_groth16_abc_size(&f->setup.pk)) +
                    zp_track_round(zp_groth16_msm_scratch_size(&f->setup.pk, 2));
    opt.budget = key_bytes + 3 * part;
    CHECK(zp_engine_create(&e, &opt, &err) == ZP_OK);
    watcher w = {e, 0, 0, 0};
    pthread_t tid;
    pthread_create(&tid, NULL, watch, &w);

    size_t jobs = zp_test_iters(40);
    uint64_t *ids = calloc(jobs, sizeof *ids);
    size_t *sizes = calloc(jobs, sizeof *sizes);
    size_t order[MAX_WITNESSES];
    for (size_t i = 0; i < MAX_WITNESSES; i++) order[i] = i;
    for (size_t j = 0; j < jobs; j++) {
        sizes[j] = 1 + zp_test_rand64() % 4;
        zp_job_spec spec = {.key_path = f->key_path,
                            .partitions = sizes[j],
                            .witness_paths = f->wtns_ptrs,
                            .priority = (int)(zp_test_rand64() % 3)};
        CHECK(zp_engine_submit(&ids[j], e, &spec, &err) == ZP_OK);
        if (zp_test_rand64() % 6 == 0) { /* cancel a random earlier job */
            zp_engine_cancel(e, ids[zp_test_rand64() % (j + 1)], &err);
        }
        if (zp_test_rand64() % 4 == 0) usleep(2000);
    }
    size_t done = 0, failed = 0, cancelled = 0;
    for (size_t j = 0; j < jobs; j++) {
        zp_job_info info;
        zp_job_state st = wait_job(e, ids[j], &info);
        CHECK_MSG(st == ZP_JOB_DONE || st == ZP_JOB_FAILED || st == ZP_JOB_CANCELLED, "job %zu ended: %s", j,
                  zp_job_state_name(st));
        if (st == ZP_JOB_DONE) {
            done++;
            check_proofs(e, ids[j], f, order, sizes[j]);
        }
        if (st == ZP_JOB_FAILED) {
            failed++;
            CHECK_MSG(strstr(info.error.message, "injected failure") && strstr(info.error.message, "partition"),
                      "failure names the partition: %s", info.error.message);
        }
        cancelled += st == ZP_JOB_CANCELLED;
    }
    atomic_store(&w.stop, 1);
    pthread_join(tid, NULL);
    CHECK_MSG(w.over_budget == 0, "over budget %d times", w.over_budget);
    zp_engine_stats_get(&s, e);
    CHECK(s.jobs_done == done && s.jobs_failed == failed && s.jobs_cancelled == cancelled);
    fprintf(stderr,
            "stress: %zu jobs: %zu done, %zu failed (%d injected faults), %zu cancelled; peak tracked %.1f "
            "of %.1f MB budget\n",
            jobs, done, failed, atomic_load(&faults.injected), cancelled, (double)s.peak_tracked / (1 << 20),
            (double)s.budget / (1 << 20));
    check_idle(e, "stress");
    CHECK(zp_engine_key_evict(e, f->key_path, &err) == ZP_OK);
    usleep(100000);
    zp_engine_stats_get(&s, e);
    CHECK_MSG(s.tracked == 0 && s.reserved == 0, "stress: zero after evicting the key");
    for (size_t j = 0; j < jobs; j++) zp_engine_forget(e, ids[j]);
    free(ids);
    free(sizes);
    zp_engine_destroy(e);

    /* destroying an engine with work in flight frees everything (LSan) */
    opt.fault = NULL;
    CHECK(zp_engine_create(&e, &opt, &err) == ZP_OK);
    for (int j = 0; j < 6; j++) {
        zp_job_spec spec = {.key_path = f->key_path, .partitions = 4, .witness_paths = f->wtns_ptrs};
        uint64_t id;
        CHECK(zp_engine_submit(&id, e, &spec, &err) == ZP_OK);
    }
    usleep(20000);
    zp_engine_destroy(e);
}

/* A stand-in for a device allocator: malloc, counting what it gives. */
typedef struct fake_device {
    size_t allocs, frees, bytes;
} fake_device;

static void *fake_alloc(void *arg, size_t bytes, zp_mem_kind kind, const char *what, zp_error *err) {
    (void)what;
    (void)err;
    fake_device *d = arg;
    CHECK(kind == ZP_MEM_DEVICE && bytes % 4096 == 0);
    d->allocs++;
    d->bytes += bytes;
    return malloc(bytes);
}

static void fake_free(void *arg, void *p, size_t bytes, zp_mem_kind kind) {
    fake_device *d = arg;
    CHECK(kind == ZP_MEM_DEVICE);
    d->frees++;
    d->bytes -= bytes;
    free(p);
}

static void test_tracker_kinds(void) {
    zp_tracker t;
    zp_error err;
    zp_tracker_init(&t);
    zp_tracked host, pinned, dev;
    /* no device allocator by default: an error naming the buffer */
    CHECK(zp_track_alloc_kind(&dev, &t, ZP_MEM_DEVICE, 1, 2, 100, "the bases", &err) == ZP_ERR_UNSUPPORTED);
    CHECK(dev.p == NULL && strstr(err.message, "the bases") != NULL && atomic_load(&t.total) == 0);
    CHECK(zp_track_alloc(&host, &t, 1, 2, 5000, "h", &err) == ZP_OK);
    CHECK(zp_track_alloc_kind(&pinned, &t, ZP_MEM_PINNED, 1, 2, 100, "p", &err) == ZP_OK);
    fake_device d = {0, 0, 0};
    zp_allocator fake = {"fake device", fake_alloc, fake_free, &d};
    zp_tracker_set_allocator(&t, ZP_MEM_DEVICE, &fake);
    CHECK(zp_track_alloc_kind(&dev, &t, ZP_MEM_DEVICE, 1, 2, 10000, "the bases", &err) == ZP_OK);
    CHECK(d.allocs == 1 && d.bytes == 12288 && dev.bytes == 12288 && dev.kind == ZP_MEM_DEVICE);
    CHECK(atomic_load(&t.kind_bytes[ZP_MEM_HOST]) == 8192 && atomic_load(&t.kind_bytes[ZP_MEM_PINNED]) == 4096);
    CHECK(atomic_load(&t.kind_bytes[ZP_MEM_DEVICE]) == 12288 && atomic_load(&t.total) == 8192 + 4096 + 12288);
    CHECK(atomic_load(&t.class_bytes[1]) == 8192 + 4096 + 12288);
    /* a buffer goes back to the allocator that gave it, even after a change */
    zp_tracker_set_allocator(&t, ZP_MEM_DEVICE, NULL);
    zp_track_free(&t, &dev);
    CHECK(d.frees == 1 && d.bytes == 0 && dev.p == NULL);
    zp_track_free(&t, &pinned);
    zp_track_free(&t, &host);
    CHECK(atomic_load(&t.total) == 0 && atomic_load(&t.kind_peak[ZP_MEM_DEVICE]) == 12288);
    for (int k = 0; k < ZP_MEM_KINDS; k++) {
        CHECK(atomic_load(&t.kind_bytes[k]) == 0 && atomic_load(&t.kind_count[k]) == 0);
    }
    CHECK(strcmp(zp_mem_kind_name(ZP_MEM_DEVICE), "device") == 0);
}

/* zp_mem_prefault maps the pages wholly inside its range and no others,
 * and the memory stays zero-filled (mincore says which are resident). */
static void test_prefault(void) {
    zp_error err;
    size_t page = zp_track_round(1), pages = 8;
    unsigned char *p = zp_mem_map(pages * page, "prefault test", &err), in[8];
    CHECK(p != NULL);
    if (p == NULL) return;
    zp_mem_prefault(p + page / 2, 5 * page); /* wholly inside: pages 1 to 4 */
    CHECK(mincore(p, pages * page, in) == 0);
    int want[8] = {0, 1, 1, 1, 1, 0, 0, 0}, zero = 1;
    for (size_t i = 0; i < pages; i++) CHECK_MSG((in[i] & 1) == want[i], "page %zu resident: %d", i, in[i] & 1);
    for (size_t i = 0; i < pages * page; i++) zero &= p[i] == 0;
    CHECK(zero);
    zp_mem_prefault(p + 3, 0); /* nothing inside: nothing to do */
    zp_mem_prefault(NULL, page);
    zp_mem_unmap(p, pages * page);
}

/* Released buffers come back for the same size, zero-filled, and the
 * cache keeps no more than its cap; the tracker counts them as any. */
static void test_reuse(void) {
    zp_tracker t;
    zp_reuse r;
    zp_error err;
    size_t page = zp_track_round(1);
    zp_tracker_init(&t);
    zp_reuse_init(&r, 8 * page);
    zp_tracker_set_allocator(&t, ZP_MEM_HOST, &r.allocator);
    zp_tracked a, b, c;
    CHECK(zp_track_alloc(&a, &t, 1, 0, 3 * page, "a", &err) == ZP_OK);
    unsigned char *pa = a.p;
    memset(pa, 0xa5, page); /* first page dirty, */
    pa[2 * page + 7] = 1;   /* the third too; the second never touched */
    zp_track_free(&t, &a);
    CHECK(r.n == 1 && r.bytes == 3 * page && atomic_load(&t.total) == 0);
    CHECK(zp_track_alloc(&b, &t, 1, 0, 2 * page, "b", &err) == ZP_OK); /* another size: fresh */
    CHECK(b.p != pa && r.n == 1);
    CHECK(zp_track_alloc(&c, &t, 2, 1, 3 * page - 100, "c", &err) == ZP_OK); /* the same pages: reused */
    CHECK(c.p == pa && r.n == 0 && r.bytes == 0 && atomic_load(&t.total) == 5 * page);
    int zero = 1;
    for (size_t i = 0; i < 3 * page; i++) zero &= pa[i] == 0;
    CHECK_MSG(zero, "a reused buffer is zero-filled");
    zp_track_free(&t, &c);
    zp_track_free(&t, &b);
    CHECK(r.n == 2 && r.bytes == 5 * page);
    zp_tracked big;
    CHECK(zp_track_alloc(&big, &t, 1, 0, 4 * page, "big", &err) == ZP_OK);
    zp_track_free(&t, &big); /* 5 + 4 pages > 8: unmapped, not kept */
    CHECK(r.n == 2 && r.bytes == 5 * page && atomic_load(&t.total) == 0);
    zp_reuse_destroy(&r);
    CHECK(r.n == 0 && r.bytes == 0);
}

static void test_backend_names(void) {
    zp_error err;
    const zp_backend *be = NULL;
    CHECK(zp_backend_find(&be, NULL, &err) == ZP_OK && be == &zp_backend_cpu);
    CHECK(zp_backend_find(&be, "cpu", &err) == ZP_OK && be == &zp_backend_cpu);
    CHECK(zp_backend_find(&be, "cuda", &err) == ZP_ERR_ARG && be == NULL);
    CHECK_MSG(strstr(err.message, "\"cuda\"") && strstr(err.message, "cpu"), "%s", err.message);
    /* the IFMA choice is the context's: off when asked, and never on a CPU
     * without it */
    zp_backend_ctx *ctx;
    zp_backend_config off = {2, ZP_SIMD_OFF, NULL, 0, 0}, on = {2, ZP_SIMD_IFMA, NULL, 0, 0};
    CHECK(zp_backend_ctx_create(&ctx, "cpu", &off, &err) == ZP_OK && !zp_backend_cpu_uses_ifma(ctx));
    zp_backend_ctx_destroy(ctx);
    CHECK(zp_backend_ctx_create(&ctx, "cpu", &on, &err) == ZP_OK);
    CHECK(zp_backend_cpu_uses_ifma(ctx) == zp_ifma_available());
    zp_backend_ctx_destroy(ctx);
    /* an engine with an unknown backend is not created */
    zp_engine *e = NULL;
    zp_engine_options opt = {0};
    opt.budget = 1ULL << 30;
    opt.backend = "cuda";
    CHECK(zp_engine_create(&e, &opt, &err) == ZP_ERR_ARG && e == NULL);
    CHECK_MSG(strstr(err.message, "cuda") != NULL, "%s", err.message);
}

/* A budget that covers the process: its own memory comes off first, the
 * buffers get the rest; one not above it is refused naming it. Without
 * the flag the budget is the buffers' alone. */
static void test_budget_covers_baseline(void) {
    zp_error err;
    zp_engine *e = NULL;
    zp_engine_options opt = {0};
    opt.budget = 1ULL << 30;
    opt.synth_workers = 1;
    CHECK(zp_engine_create(&e, &opt, &err) == ZP_OK);
    zp_engine_stats st;
    zp_engine_stats_get(&st, e);
    CHECK(st.budget == opt.budget && st.buffer_budget == opt.budget);
    zp_engine_destroy(e);
    opt.budget_covers_baseline = 1;
    CHECK(zp_engine_create(&e, &opt, &err) == ZP_OK);
    zp_engine_stats_get(&st, e);
    CHECK_MSG(st.budget == opt.budget && st.baseline_rss > 0 && st.buffer_budget <= opt.budget - st.baseline_rss &&
                  st.buffer_budget > opt.budget - st.baseline_rss - (64ULL << 20),
              "budget %llu, baseline %llu, for buffers %llu", (unsigned long long)st.budget,
              (unsigned long long)st.baseline_rss, (unsigned long long)st.buffer_budget);
    zp_engine_destroy(e);
    opt.budget = 1 << 20; /* below any process's own memory */
    e = NULL;
    CHECK(zp_engine_create(&e, &opt, &err) == ZP_ERR_NOMEM && e == NULL);
    CHECK_MSG(strstr(err.message, "own memory") != NULL, "%s", err.message);
}

int main(void) {
    zp_test_init("test_engine");
    if (mkdtemp(workdir) == NULL) return 1;
    fixture bn, bls, bn_big;
    fixture_make(&bn, ZP_CURVE_BN254, 200, 2, "bn");
    fixture_make(&bls, ZP_CURVE_BLS12_381, 100, 1, "bls");
    fixture_make(&bn_big, ZP_CURVE_BN254, 700, 3, "bn_big");
    test_tracker_kinds();
    test_reuse();
    test_prefault();
    test_backend_names();
    test_budget_covers_baseline();
    test_basic(&bn);
    test_basic(&bls);
    test_priority(&bn);
    test_failures(&bn);
    test_eviction(&bn, &bn_big);
    test_stress(&bn);
    fixture_free(&bn);
    fixture_free(&bls);
    fixture_free(&bn_big);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", workdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", workdir);
    return zp_test_done();
}
