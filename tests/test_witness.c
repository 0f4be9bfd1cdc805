/* The compiled witness calculator from C: one loaded module, instances on
 * two threads at once with different inputs, each witness checked against
 * the single-threaded one and against values computed here; an instance
 * reused after a failed calculation. Run under TSan (build-tsan) too.
 *
 * The circuit is tests/witness/circuits/multidim.wasm (circom 2 --wasm of
 * multidim.circom, bn128), compiled into $ZKPIPE_CACHE (CMake points it at
 * the build folder). Without wasm2c the test says so and passes.
 *
 * Stopping (calc.h, zp_witness_instance_set_stop): tests/witness/circuits/
 * loop.wat, built with wat2wasm when there is one, loops or recurses for
 * ever on its input; another thread's flag stops it within a second, and
 * the same instance then computes a good witness. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "testutil.h"
#include "witness/calc.h"
#include "witness/compile.h"
#include "witness/input.h"

#define WASM "tests/witness/circuits/multidim.wasm"
#define ROUNDS 200

/* a[2][3], b[3][2], c[2][2][2], k from a seed: small numbers, so the
 * outputs can be computed here with plain integers. */
typedef struct case_inputs {
    long long a[2][3], b[3][2], c[2][2][2], k;
} case_inputs;

static void make_case(case_inputs *ci, int seed) {
    int v = seed * 7 + 1;
    for (int i = 0; i < 2; i++)
        for (int t = 0; t < 3; t++) ci->a[i][t] = (v = (v * 31 + 7) % 1000);
    for (int t = 0; t < 3; t++)
        for (int j = 0; j < 2; j++) ci->b[t][j] = (v = (v * 31 + 7) % 1000);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            for (int l = 0; l < 2; l++) ci->c[i][j][l] = (v = (v * 31 + 7) % 1000);
    ci->k = seed + 3;
}

static char *case_json(const case_inputs *ci) {
    static const size_t cap = 2048;
    char *s = malloc(cap);
    if (s == NULL) return NULL;
    snprintf(s, cap,
             "{\"a\": [[%lld, %lld, %lld], [%lld, %lld, %lld]], \"b\": [[%lld, %lld], [%lld, %lld], [%lld, %lld]],"
             " \"c\": [[[%lld, %lld], [%lld, %lld]], [[%lld, %lld], [%lld, %lld]]], \"k\": \"%lld\"}",
             ci->a[0][0], ci->a[0][1], ci->a[0][2], ci->a[1][0], ci->a[1][1], ci->a[1][2], ci->b[0][0], ci->b[0][1],
             ci->b[1][0], ci->b[1][1], ci->b[2][0], ci->b[2][1], ci->c[0][0][0], ci->c[0][0][1], ci->c[0][1][0],
             ci->c[0][1][1], ci->c[1][0][0], ci->c[1][0][1], ci->c[1][1][0], ci->c[1][1][1], ci->k);
    return s;
}

/* The outputs (witness 1..5: out[2][2], then pick), as the circuit says. */
static void expected_outputs(const case_inputs *ci, unsigned long long out[5]) {
    for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 2; j++) {
            long long acc = 0;
            for (int t = 0; t < 3; t++) acc += ci->a[i][t] * ci->b[t][j];
            out[2 * i + j] = (unsigned long long)(acc + ci->c[i][j][0] * ci->k);
        }
    }
    out[4] = (unsigned long long)(ci->c[1][0][1] * ci->k + ci->c[0][1][0]);
}

static int value_is(const uint8_t *v, size_t n8, unsigned long long x) {
    for (size_t b = 0; b < n8; b++) {
        if (v[b] != (b < 8 ? (uint8_t)(x >> (8 * b)) : 0)) return 0;
    }
    return 1;
}

typedef struct worker {
    zp_witness_module *m;
    zp_witness_inputs in;
    const uint8_t *reference;
    int mismatches, failures;
} worker;

static void *work(void *arg) {
    worker *w = arg;
    zp_error err = {0};
    zp_witness_instance *inst = NULL;
    size_t bytes = zp_witness_module_size(w->m) * zp_witness_module_n8(w->m);
    uint8_t *out = malloc(bytes);
    if (out == NULL || zp_witness_instance_create(&inst, w->m, &err) != ZP_OK) {
        w->failures++;
        free(out);
        return NULL;
    }
    for (int r = 0; r < ROUNDS; r++) {
        memset(out, 0xee, bytes);
        if (zp_witness_instance_calculate(inst, &w->in, out, 0, &err) != ZP_OK) {
            w->failures++;
            break;
        }
        if (memcmp(out, w->reference, bytes) != 0) w->mismatches++;
    }
    zp_witness_instance_destroy(inst);
    free(out);
    return NULL;
}

static void *raise_later(void *arg) {
    usleep(100000);
    __atomic_store_n((int *)arg, 1, __ATOMIC_RELAXED);
    return NULL;
}

static int parse(zp_witness_inputs *in, const zp_witness_module *m, const char *json);

/* Stops loop.wat's calculations: set before, raised during (a loop with
 * no call, a recursion with no loop), then a good witness on the same
 * instance; a module open stopped in getVersion. */
static void stop_checks(void) {
    const char *cache = getenv("ZKPIPE_CACHE");
    char wasm[4096], cmd[4200];
    if (cache == NULL || system("wat2wasm --version >/dev/null 2>&1") != 0) {
        printf("test_witness: stop checks skipped: no wat2wasm (apt-get install wabt)\n");
        return;
    }
    snprintf(wasm, sizeof wasm, "%s/loop-test.wasm", cache);
    snprintf(cmd, sizeof cmd, "wat2wasm tests/witness/circuits/loop.wat -o '%s'", wasm);
    CHECK(system(cmd) == 0);
    zp_error err = {0};
    zp_witness_compiled c;
    zp_status st = zp_witness_compile(&c, wasm, NULL, &err);
    CHECK_MSG(st == ZP_OK, "compile loop.wat: %s", err.message);
    if (st != ZP_OK) return;
    zp_witness_module *m = NULL;
    int stop = 1;
    st = zp_witness_module_open_stoppable(&m, c.so_path, wasm, &stop, &err);
    CHECK_MSG(st == ZP_ERR_UNSUPPORTED && strstr(err.message, "stopped during getVersion") != NULL, "%d %s", (int)st,
              err.message);
    stop = 0;
    CHECK(zp_witness_module_open_stoppable(&m, c.so_path, wasm, &stop, &err) == ZP_OK);
    zp_witness_compiled_free(&c);
    if (m == NULL) return;
    size_t bytes = zp_witness_module_size(m) * zp_witness_module_n8(m);
    uint8_t *out = malloc(bytes);
    zp_witness_instance *inst = NULL;
    zp_witness_inputs in[3] = {{0}};
    CHECK(out != NULL && zp_witness_instance_create(&inst, m, &err) == ZP_OK);
    CHECK(parse(&in[0], m, "{\"mode\": 0}") && parse(&in[1], m, "{\"mode\": 1}") && parse(&in[2], m, "{\"mode\": 2}"));
    if (inst == NULL || out == NULL) goto done;
    zp_witness_instance_set_stop(inst, &stop);
    stop = 1; /* set before: nothing runs */
    st = zp_witness_instance_calculate(inst, &in[0], out, 0, &err);
    CHECK_MSG(st == ZP_ERR_UNSUPPORTED && strstr(err.message, "stopped during init") != NULL, "%d %s", (int)st,
              err.message);
    for (int mode = 1; mode <= 2; mode++) {
        stop = 0;
        pthread_t t;
        CHECK(pthread_create(&t, NULL, raise_later, &stop) == 0);
        double t0 = zp_clock_now();
        st = zp_witness_instance_calculate(inst, &in[mode], out, 0, &err);
        double took = zp_clock_now() - t0;
        pthread_join(t, NULL);
        CHECK_MSG(st == ZP_ERR_UNSUPPORTED && strstr(err.message, "stopped during setInputSignal") != NULL,
                  "mode %d: %d %s", mode, (int)st, err.message);
        CHECK_MSG(took < 1.0, "mode %d: stopped %.3f s after it started (raised at 0.1 s)", mode, took);
    }
    /* the stopped instance is rebuilt: a good witness (1, 0, 0, ...) */
    stop = 0;
    memset(out, 0xee, bytes);
    st = zp_witness_instance_calculate(inst, &in[0], out, 0, &err);
    CHECK_MSG(st == ZP_OK, "after the stops: %s", err.message);
    CHECK(value_is(out, 32, 1));
    for (size_t i = 1; i < zp_witness_module_size(m); i++) {
        if (!value_is(out + i * 32, 32, 0)) {
            CHECK_MSG(0, "after the stops: value %zu is not 0", i);
            break;
        }
    }
done:
    for (int i = 0; i < 3; i++) zp_witness_inputs_free(&in[i]);
    zp_witness_instance_destroy(inst);
    free(out);
    zp_witness_module_close(m);
}

static int parse(zp_witness_inputs *in, const zp_witness_module *m, const char *json) {
    zp_error err = {0};
    zp_status st = zp_witness_inputs_parse(in, json, strlen(json), zp_witness_module_prime(m), zp_witness_module_n8(m),
                                           "test input", &err);
    CHECK_MSG(st == ZP_OK, "parse: %s", err.message);
    return st == ZP_OK;
}

int main(void) {
    zp_test_init("test_witness");
    if (system("wasm2c --version >/dev/null 2>&1") != 0) {
        printf("test_witness: skipped: no wasm2c (apt-get install wabt)\n");
        return zp_test_done();
    }
    /* instrument the calculator too, so the sanitizer sees its memory */
#if defined(__SANITIZE_THREAD__)
    setenv("ZKPIPE_WITNESS_SANITIZE", "thread", 1);
#elif defined(__SANITIZE_ADDRESS__)
    /* (not undefined: wasm2c's own load_data passes memcpy a NULL for an
     * empty data segment) */
    setenv("ZKPIPE_WITNESS_SANITIZE", "address", 1);
#endif
    zp_error err = {0};
    zp_witness_compiled c;
    zp_status st = zp_witness_compile(&c, WASM, NULL, &err);
    CHECK_MSG(st == ZP_OK, "compile: %s", err.message);
    if (st != ZP_OK) return zp_test_done();
    zp_witness_module *m = NULL;
    st = zp_witness_module_open(&m, c.so_path, WASM, &err);
    CHECK_MSG(st == ZP_OK, "open: %s", err.message);
    zp_witness_compiled_free(&c);
    if (st != ZP_OK) return zp_test_done();
    CHECK(zp_witness_module_curve(m) == ZP_CURVE_BN254);
    CHECK(zp_witness_module_n8(m) == 32);
    CHECK(zp_witness_module_version(m) == 2);
    size_t count = zp_witness_module_size(m), n8 = zp_witness_module_n8(m), bytes = count * n8;
    CHECK(count == 36);

    /* Single-threaded references for two inputs. */
    case_inputs ci[2];
    worker w[2];
    uint8_t *ref[2];
    memset(w, 0, sizeof w);
    zp_witness_instance *inst = NULL;
    CHECK(zp_witness_instance_create(&inst, m, &err) == ZP_OK);
    if (inst == NULL) return zp_test_done();
    CHECK(zp_witness_instance_memory_bytes(inst) >= 65536);
    for (int i = 0; i < 2; i++) {
        make_case(&ci[i], i + 1);
        char *json = case_json(&ci[i]);
        CHECK(json != NULL && parse(&w[i].in, m, json));
        free(json);
        ref[i] = malloc(bytes);
        CHECK(zp_witness_instance_calculate(inst, &w[i].in, ref[i], 0, &err) == ZP_OK);
        unsigned long long want[5];
        expected_outputs(&ci[i], want);
        CHECK(value_is(ref[i], n8, 1)); /* w[0] = 1 */
        for (int o = 0; o < 5; o++) CHECK_MSG(value_is(ref[i] + (o + 1) * n8, n8, want[o]), "case %d output %d", i, o);
        CHECK(value_is(ref[i] + 6 * n8, n8, (unsigned long long)ci[i].k)); /* the public input k */
    }
    CHECK(memcmp(ref[0], ref[1], bytes) != 0);

    /* A failed calculation (an unknown signal: circom's table answers
     * "Too many values for input signal nosuch", as snarkjs says), then a good one on the same
     * instance: the instance is rebuilt, the witness right. */
    zp_witness_inputs wrong = {0};
    CHECK(parse(&wrong, m, "{\"nosuch\": 1}"));
    uint8_t *tmp = malloc(bytes);
    st = zp_witness_instance_calculate(inst, &wrong, tmp, 0, &err);
    CHECK_MSG(st == ZP_ERR_FORMAT && strstr(err.message, "input signal nosuch") != NULL, "%d %s", (int)st, err.message);
    CHECK(zp_witness_instance_calculate(inst, &w[0].in, tmp, 0, &err) == ZP_OK);
    CHECK(memcmp(tmp, ref[0], bytes) == 0);
    zp_witness_inputs_free(&wrong);
    free(tmp);
    zp_witness_instance_destroy(inst);

    /* Two threads at once, one module, each its own instance and inputs. */
    pthread_t th[2];
    for (int i = 0; i < 2; i++) {
        w[i].m = m;
        w[i].reference = ref[i];
        CHECK(pthread_create(&th[i], NULL, work, &w[i]) == 0);
    }
    for (int i = 0; i < 2; i++) {
        pthread_join(th[i], NULL);
        CHECK_MSG(w[i].failures == 0, "thread %d: %d failed calculations", i, w[i].failures);
        CHECK_MSG(w[i].mismatches == 0, "thread %d: %d of %d witnesses differ from the single-threaded one", i,
                  w[i].mismatches, ROUNDS);
        zp_witness_inputs_free(&w[i].in);
        free(ref[i]);
    }
    zp_witness_module_close(m);
    stop_checks();
    return zp_test_done();
}
