/* Witness generation in the pipeline engine: jobs given a circuit's wasm
 * and one input.json per partition (src/engine/witgen.c).
 *
 * Without arguments (ctest test_engine_witgen): the tracker's accounting
 * call for memory it did not map, the job spec's rules, and the checks at
 * submission (a wasm whose witness size is not the key's wires, a wasm of
 * the other curve, a file that is not wasm) on tests/witness/circuits/
 * multidim.wasm (bn128) against chain-circuit keys; $ZKPIPE_CACHE is the
 * build folder's, shared with test_witness.
 *
 * With arguments, as tests/witness/run.sh calls it after it made a circom
 * circuit and its key:
 *   test_engine_witgen KEY WASM FAILING_INPUT INPUT1 INPUT2 ...
 * two synthesis workers prove every input (each proof verified against the
 * key's verification key, each partition's public values its own), a job
 * whose second partition's input fails the circuit's assert fails with the
 * circuit's message, and a run at a budget of one partition and one
 * calculator, with the stats sampled all along: tracked, reserved and the
 * witgen class within the budget, at most one instance per worker, and
 * nothing left tracked or reserved but the key once idle. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "chain_circuit.h"
#include "groth16/groth16.h"
#include "groth16/setup.h"
#include "io/zkey.h"
#include "mem/track.h"
#include "testutil.h"
#include "zkpipe_engine.h"

#define MULTIDIM_WASM "tests/witness/circuits/multidim.wasm"

static char workdir[] = "/tmp/zp-test-witgen-XXXXXX";

/* ---- the tracker's accounting call ------------------------------------- */

static void test_track_account(void) {
    zp_tracker t;
    zp_tracker_init(&t);
    int owner;
    zp_tracked buf;
    zp_track_account(&buf, &t, &owner, 5, 1, 1000);
    size_t page = zp_track_round(1);
    CHECK(buf.p == &owner && buf.bytes == page && buf.external);
    CHECK(atomic_load(&t.class_bytes[5]) == page && atomic_load(&t.class_count[5]) == 1);
    CHECK(atomic_load(&t.bytes[5][1]) == page && atomic_load(&t.total) == page);
    zp_track_account_resize(&t, &buf, 10 * page + 1);
    CHECK(buf.bytes == 11 * page && atomic_load(&t.class_bytes[5]) == 11 * page);
    CHECK(atomic_load(&t.class_count[5]) == 1 && atomic_load(&t.class_peak[5]) == 11 * page);
    zp_track_account_resize(&t, &buf, 2 * page);
    CHECK(atomic_load(&t.total) == 2 * page && atomic_load(&t.total_peak) == 11 * page);
    zp_track_move(&t, &buf, 3);
    CHECK(atomic_load(&t.bytes[5][1]) == 0 && atomic_load(&t.bytes[5][3]) == 2 * page);
    zp_track_free(&t, &buf); /* only uncounts: owner is on the stack */
    CHECK(buf.p == NULL && atomic_load(&t.total) == 0 && atomic_load(&t.class_count[5]) == 0);
    zp_track_account(&buf, &t, NULL, 5, 1, 100); /* nothing to count */
    CHECK(buf.p == NULL && atomic_load(&t.total) == 0);
}

/* ---- submission checks ------------------------------------------------- */

static void make_key(char *path, size_t len, zp_curve curve, const char *name) {
    chain_circuit c;
    zp_groth16_setup_key setup;
    zp_error err;
    chain_build(&c, curve, 40, 1);
    CHECK(zp_groth16_setup(&setup, &c.cs, NULL, &err) == ZP_OK);
    snprintf(path, len, "%s/%s.zkey", workdir, name);
    CHECK(zp_zkey_write(path, &setup.pk, NULL, &err) == ZP_OK);
    zp_groth16_setup_free(&setup);
    chain_free(&c);
}

static zp_status submit(zp_engine *e, const zp_job_spec *spec, zp_error *err) {
    uint64_t id;
    return zp_engine_submit(&id, e, spec, err);
}

/* Waits for a job to end: ZP_OK when done, else its error. */
static zp_status job_end(zp_engine *e, uint64_t id, zp_job_state *state, zp_error *err) {
    zp_job_info info;
    for (int i = 0; i < 600; i++) {
        if (zp_engine_job(&info, e, id, 0.5, err) != ZP_OK) return err->status;
        if (info.state != ZP_JOB_QUEUED && info.state != ZP_JOB_RUNNING) break;
    }
    *state = info.state;
    if (info.state == ZP_JOB_DONE) return ZP_OK;
    *err = info.error;
    return info.state == ZP_JOB_FAILED ? info.error.status : ZP_ERR_INTERNAL;
}

/* A submission whose circuit is not loaded yet is accepted and fails when
 * it is; one whose circuit is loaded fails at once: either way, the error
 * the job gets. */
static zp_status submit_ended(zp_engine *e, const zp_job_spec *spec, zp_error *err) {
    uint64_t id;
    zp_status st = zp_engine_submit(&id, e, spec, err);
    if (st != ZP_OK) return st;
    zp_job_state state;
    return job_end(e, id, &state, err);
}

static void test_submission_checks(void) {
    char bn_key[256], bls_key[256], input[300];
    make_key(bn_key, sizeof bn_key, ZP_CURVE_BN254, "bn");
    make_key(bls_key, sizeof bls_key, ZP_CURVE_BLS12_381, "bls");
    snprintf(input, sizeof input, "%s/input.json", workdir);
    FILE *f = fopen(input, "w");
    CHECK(f != NULL);
    if (f) {
        fputs("{\"k\": 1}\n", f);
        fclose(f);
    }
    const char *inputs[] = {input, input};
    zp_engine_options opt = {0};
    opt.budget = 1ull << 30;
    opt.synth_workers = 1;
    zp_engine *e;
    zp_error err;
    CHECK(zp_engine_create(&e, &opt, &err) == ZP_OK);

    zp_job_spec spec = {.key_path = bn_key, .partitions = 2, .input_paths = inputs};
    CHECK(submit(e, &spec, &err) == ZP_ERR_ARG); /* inputs without a wasm */
    spec = (zp_job_spec){.key_path = bn_key, .partitions = 2, .wasm_path = MULTIDIM_WASM};
    CHECK(submit(e, &spec, &err) == ZP_ERR_ARG); /* a wasm without inputs */
    spec = (zp_job_spec){.key_path = bn_key,
                         .partitions = 2,
                         .witness_paths = inputs,
                         .wasm_path = MULTIDIM_WASM,
                         .input_paths = inputs};
    CHECK(submit(e, &spec, &err) == ZP_ERR_ARG); /* two ways at once */
    const char *missing[] = {input, "/nonexistent/input.json"};
    spec = (zp_job_spec){.key_path = bn_key, .partitions = 2, .wasm_path = MULTIDIM_WASM, .input_paths = missing};
    CHECK(submit(e, &spec, &err) != ZP_OK && strstr(err.message, "/nonexistent/input.json") != NULL);

    /* the wasm's witness is not the key's wires */
    spec = (zp_job_spec){.key_path = bn_key, .partitions = 2, .wasm_path = MULTIDIM_WASM, .input_paths = inputs};
    zp_status st = submit_ended(e, &spec, &err);
    CHECK_MSG(st == ZP_ERR_MISMATCH && strstr(err.message, "wires") && strstr(err.message, "multidim.wasm"),
              "wires mismatch: %s", err.message);
    /* a bn128 circuit and a bls12-381 key: refused at the submit while the
     * circuit is still loaded, or the job fails once it loads again (an
     * engine keeps a circuit only while a job holds it; when the first
     * job was refused at its submit, none did) */
    spec.key_path = bls_key;
    st = submit_ended(e, &spec, &err);
    CHECK_MSG(st == ZP_ERR_MISMATCH && strstr(err.message, "bls12381 key") && strstr(err.message, "bn128 circuit"),
              "curve mismatch: %s", err.message);
    /* not wasm at all: the key file */
    spec = (zp_job_spec){.key_path = bn_key, .partitions = 2, .wasm_path = bn_key, .input_paths = inputs};
    st = submit_ended(e, &spec, &err);
    CHECK_MSG(st == ZP_ERR_FORMAT && strstr(err.message, "WebAssembly"), "not wasm: %s", err.message);

    zp_engine_stats s;
    zp_engine_stats_get(&s, e);
    CHECK(s.by_class[ZP_BUF_WITGEN].count == 0 && s.reserved == 0 && s.tracked == 0);
    zp_engine_destroy(e);
}

/* ---- compiling never blocks a submission ------------------------------- */

static zp_status chain_fill(void *arg, size_t partition, uint64_t *values, size_t count, zp_curve curve,
                            zp_error *err) {
    const chain_circuit *c = arg;
    (void)curve;
    (void)err;
    if (count != c->cs.n_wires) return ZP_ERR_INTERNAL;
    chain_witness(values, c, 5 + partition);
    return ZP_OK;
}

/* A compiler that takes 4 s more than cc: the compile of a fresh wasm
 * runs in the engine's circuits thread while submissions return at once,
 * other jobs are proved, and the job waits, queued, until its circuit is
 * loaded; then it is checked against its key (here: the wrong number of
 * wires) and fails with that message. zp_engine_circuit_check says
 * "loading" meanwhile and gives the mismatch after. */
static void test_compile_in_background(void) {
    char key[256], slowcc[300], cache[300], input[300];
    make_key(key, sizeof key, ZP_CURVE_BN254, "bg");
    snprintf(input, sizeof input, "%s/input.json", workdir);
    snprintf(cache, sizeof cache, "%s/slow-cache", workdir);
    snprintf(slowcc, sizeof slowcc, "%s/slowcc", workdir);
    FILE *f = fopen(slowcc, "w");
    CHECK(f != NULL);
    if (f == NULL) return;
    const char *cc = getenv("CC") && getenv("CC")[0] ? getenv("CC") : "cc";
    fprintf(f, "#!/bin/sh\nsleep 4\nexec %s \"$@\"\n", cc);
    fclose(f);
    CHECK(chmod(slowcc, 0755) == 0);
    char *saved_cc = getenv("CC") ? strdup(getenv("CC")) : NULL;
    setenv("CC", slowcc, 1);

    chain_circuit chain;
    chain_build(&chain, ZP_CURVE_BN254, 40, 1); /* make_key's circuit */
    zp_engine_options opt = {0};
    opt.budget = 1ull << 30;
    opt.synth_workers = 1;
    opt.witness_cache_dir = cache;
    zp_engine *e;
    zp_error err;
    CHECK(zp_engine_create(&e, &opt, &err) == ZP_OK);
    const char *inputs[] = {input};
    zp_job_spec wasm_job = {.key_path = key, .partitions = 1, .wasm_path = MULTIDIM_WASM, .input_paths = inputs};
    uint64_t waiting, other;
    double t0 = zp_clock_now();
    CHECK(zp_engine_submit(&waiting, e, &wasm_job, &err) == ZP_OK);
    double submit_s = zp_clock_now() - t0;
    CHECK_MSG(submit_s < 1.0, "the submission returns during the compile (%.2f s)", submit_s);
    zp_circuit_state cstate;
    CHECK(zp_engine_circuit_check(e, key, MULTIDIM_WASM, &cstate, &err) == ZP_OK && cstate == ZP_CIRCUIT_LOADING);
    zp_job_spec chain_job = {.key_path = key, .partitions = 2, .witness_fn = chain_fill, .witness_arg = &chain};
    CHECK(zp_engine_submit(&other, e, &chain_job, &err) == ZP_OK);
    zp_job_state state;
    CHECK_MSG(job_end(e, other, &state, &err) == ZP_OK, "another job is proved meanwhile: %s", err.message);
    zp_job_info info;
    CHECK(zp_engine_job(&info, e, waiting, 0, &err) == ZP_OK);
    CHECK_MSG(info.state == ZP_JOB_QUEUED && zp_clock_now() - t0 < 4.0,
              "the wasm job waits, queued, for its compile (state %d after %.2f s)", (int)info.state,
              zp_clock_now() - t0);
    zp_status st = job_end(e, waiting, &state, &err);
    CHECK_MSG(
        st == ZP_ERR_MISMATCH && state == ZP_JOB_FAILED && strstr(err.message, "wires") && zp_clock_now() - t0 >= 4.0,
        "checked against its key once compiled: %s", err.message);
    CHECK(zp_engine_circuit_check(e, key, MULTIDIM_WASM, &cstate, &err) == ZP_ERR_MISMATCH &&
          cstate == ZP_CIRCUIT_READY);
    zp_engine_stats s;
    zp_engine_stats_get(&s, e);
    CHECK(s.by_class[ZP_BUF_WITGEN].count == 0 && s.jobs_failed == 1 && s.jobs_done == 1);
    zp_engine_destroy(e);
    chain_free(&chain);
    if (saved_cc) setenv("CC", saved_cc, 1);
    else unsetenv("CC");
    free(saved_cc);
}

/* ---- a real circuit (from tests/witness/run.sh) ------------------------ */

/* Samples the stats while jobs run: the budget invariant, and at most one
 * calculator per synthesis worker. */
typedef struct sampler {
    zp_engine *e;
    atomic_int stop;
    uint64_t max_tracked, max_reserved, max_witgen, max_witgen_count, samples, violations;
    char first_violation[200];
} sampler;

static void *sample_main(void *arg) {
    sampler *sm = arg;
    while (!atomic_load(&sm->stop)) {
        zp_engine_stats s;
        zp_engine_stats_get(&s, sm->e);
        uint64_t wg = s.by_class[ZP_BUF_WITGEN].bytes, wc = s.by_class[ZP_BUF_WITGEN].count;
        if (s.tracked > sm->max_tracked) sm->max_tracked = s.tracked;
        if (s.reserved > sm->max_reserved) sm->max_reserved = s.reserved;
        if (wg > sm->max_witgen) sm->max_witgen = wg;
        if (wc > sm->max_witgen_count) sm->max_witgen_count = wc;
        /* a worker's slot counts two witgen buffers: its instance's
         * memory and, while a witness is made, its parsed inputs */
        int bad = s.tracked > s.buffer_budget || s.reserved > s.buffer_budget || wc > 2 * s.synth_workers;
        if (bad && sm->violations++ == 0) {
            snprintf(sm->first_violation, sizeof sm->first_violation,
                     "tracked %llu reserved %llu budget %llu witgen %llu x%llu", (unsigned long long)s.tracked,
                     (unsigned long long)s.reserved, (unsigned long long)s.buffer_budget, (unsigned long long)wg,
                     (unsigned long long)wc);
        }
        sm->samples++;
        usleep(500);
    }
    return NULL;
}

typedef struct circuit_files {
    const char *key, *wasm, *failing;
    const char *const *inputs;
    size_t n;
} circuit_files;

/* Runs every input as one job on an engine of two synthesis workers at
 * the given budget (0: 1 GiB); every proof verifies and partition i's
 * public values are its own. Returns the witgen class's peak. */
static uint64_t run_job(const circuit_files *cf, uint64_t budget, const char *cache, const char *what) {
    zp_engine_options opt = {0};
    opt.witness_cache_dir = cache;
    opt.budget = budget ? budget : 1ull << 30;
    opt.synth_workers = 2;
    opt.synth_threads = 1;
    opt.prove_threads = 1;
    zp_engine *e;
    zp_error err;
    CHECK(zp_engine_create(&e, &opt, &err) == ZP_OK);
    sampler sm = {.e = e};
    pthread_t th;
    CHECK(pthread_create(&th, NULL, sample_main, &sm) == 0);
    zp_job_spec spec = {.key_path = cf->key, .partitions = cf->n, .wasm_path = cf->wasm, .input_paths = cf->inputs};
    uint64_t job = 0;
    zp_status st = zp_engine_submit(&job, e, &spec, &err);
    CHECK_MSG(st == ZP_OK, "%s: submit: %s", what, err.message);
    zp_job_info info = {0};
    if (st == ZP_OK) CHECK(zp_engine_job(&info, e, job, 600, &err) == ZP_OK);
    CHECK_MSG(info.state == ZP_JOB_DONE, "%s: job %s: %s", what, zp_job_state_name(info.state), info.error.message);

    zp_zkey *zkey;
    zp_groth16_vk vk;
    CHECK(zp_zkey_open(&zkey, cf->key, &err) == ZP_OK);
    CHECK(zp_zkey_vk(&vk, zp_zkey_pk(zkey), &err) == ZP_OK);
    size_t np_key = zp_zkey_pk(zkey)->n_public;
    uint64_t *pubs = calloc(cf->n * (np_key + 1) * 4, sizeof *pubs);
    for (size_t i = 0; info.state == ZP_JOB_DONE && i < cf->n; i++) {
        zp_groth16_proof proof;
        size_t np = 0;
        CHECK(zp_engine_proof(&proof, pubs + i * (np_key + 1) * 4, np_key + 1, &np, e, job, i, &err) == ZP_OK);
        CHECK_MSG(np == np_key && zp_groth16_verify(&vk, pubs + i * (np_key + 1) * 4, &proof) == 1,
                  "%s: partition %zu verifies", what, i);
    }
    /* random inputs: every partition's public values differ from the
     * others' (a shared or stale instance would repeat one) */
    for (size_t i = 0; np_key > 0 && i < cf->n; i++) {
        for (size_t j = i + 1; j < cf->n; j++) {
            CHECK_MSG(memcmp(pubs + i * (np_key + 1) * 4, pubs + j * (np_key + 1) * 4, np_key * 32) != 0,
                      "%s: partitions %zu and %zu have their own witnesses", what, i, j);
        }
    }
    free(pubs);
    zp_groth16_vk_free(&vk);
    zp_zkey_close(zkey);

    /* idle: the workers let their calculators go */
    zp_engine_stats s;
    for (int tries = 0; tries < 500; tries++) {
        zp_engine_stats_get(&s, e);
        if (s.by_class[ZP_BUF_WITGEN].count == 0 && s.by_stage[ZP_STAGE_DEALLOC].count == 0) break;
        usleep(2000);
    }
    atomic_store(&sm.stop, 1);
    pthread_join(th, NULL);
    zp_engine_stats_get(&s, e);
    uint64_t keys = s.by_class[ZP_BUF_KEY].bytes + s.by_class[ZP_BUF_MATRICES].bytes;
    CHECK_MSG(s.by_class[ZP_BUF_WITGEN].count == 0 && s.tracked == keys && s.reserved == keys,
              "%s: idle: witgen %llu, tracked %llu, reserved %llu, keys %llu", what,
              (unsigned long long)s.by_class[ZP_BUF_WITGEN].count, (unsigned long long)s.tracked,
              (unsigned long long)s.reserved, (unsigned long long)keys);
    CHECK_MSG(sm.violations == 0, "%s: %llu of %llu samples out of the budget, first: %s", what,
              (unsigned long long)sm.violations, (unsigned long long)sm.samples, sm.first_violation);
    CHECK_MSG(s.peak_tracked <= s.buffer_budget && s.peak_reserved <= s.buffer_budget, "%s: peaks within the budget",
              what);
    uint64_t peak = s.by_class[ZP_BUF_WITGEN].peak_bytes;
    CHECK_MSG(peak > 0 && sm.max_witgen_count <= 4, /* two slots of two buffers; the sampler may miss some */
              "%s: witgen counted (peak %llu, %llu at once)", what, (unsigned long long)peak,
              (unsigned long long)sm.max_witgen_count);
    printf(
        "%s: %zu proofs, budget %.1f MiB; peak tracked %.1f MiB, reserved %.1f MiB, witgen %.2f MiB (%llu "
        "buffers at once); %llu samples\n",
        what, cf->n, (double)s.buffer_budget / 1048576, (double)s.peak_tracked / 1048576,
        (double)s.peak_reserved / 1048576, (double)peak / 1048576, (unsigned long long)sm.max_witgen_count,
        (unsigned long long)sm.samples);

    /* a failed assert in partition 1 fails that partition and the job, with the circuit's message */
    const char *with_bad[3] = {cf->inputs[0], cf->failing, cf->inputs[1 % cf->n]};
    spec = (zp_job_spec){.key_path = cf->key, .partitions = 3, .wasm_path = cf->wasm, .input_paths = with_bad};
    CHECK(zp_engine_submit(&job, e, &spec, &err) == ZP_OK);
    CHECK(zp_engine_job(&info, e, job, 600, &err) == ZP_OK);
    CHECK_MSG(info.state == ZP_JOB_FAILED && strstr(info.error.message, "partition 1") &&
                  strstr(info.error.message, "Assert Failed") && strstr(info.error.message, cf->failing),
              "%s: failed assert: %s: %s", what, zp_job_state_name(info.state), info.error.message);
    zp_engine_destroy(e);
    return peak;
}

/* The measured figure kept next to the compiled object in cache. */
static uint64_t kept_figure(const char *cache) {
    char cmd[400];
    snprintf(cmd, sizeof cmd, "cat %s/*.witgen 2>/dev/null", cache);
    FILE *p = popen(cmd, "r");
    unsigned long long v = 0;
    if (p == NULL) return 0;
    if (fscanf(p, "%llu", &v) != 1) v = 0;
    pclose(p);
    return v;
}

static void test_circuit(const circuit_files *cf) {
    /* a cache of its own: the first run has no figure, and keeps one */
    char cache[300];
    snprintf(cache, sizeof cache, "%s/cache", workdir);
    uint64_t witgen = run_job(cf, 0, cache, "two workers");
    uint64_t kept = kept_figure(cache);
    CHECK_MSG(kept > 0 && kept <= witgen, "the measured figure is kept in the cache (%llu)", (unsigned long long)kept);
    /* One partition and one calculator: the second worker waits. */
    zp_engine_options opt = {0};
    opt.budget = 1ull << 30;
    zp_engine *e;
    zp_error err;
    zp_engine_key_info ki;
    CHECK(zp_engine_create(&e, &opt, &err) == ZP_OK);
    CHECK(zp_engine_key_describe(&ki, e, cf->key, &err) == ZP_OK);
    zp_engine_destroy(e);
    uint64_t small = ki.key_bytes + ki.matrices_bytes + ki.partition_bytes + kept;
    run_job(cf, small, cache, "small budget");
}

int main(int argc, char **argv) {
    zp_test_init("test_engine_witgen");
    if (mkdtemp(workdir) == NULL) return 1;
    if (argc >= 5) {
        circuit_files cf = {argv[1], argv[2], argv[3], (const char *const *)argv + 4, (size_t)argc - 4};
        test_circuit(&cf);
    } else {
        test_track_account();
        test_submission_checks();
        test_compile_in_background();
    }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", workdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", workdir);
    return zp_test_done();
}
