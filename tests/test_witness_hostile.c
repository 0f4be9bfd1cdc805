/* A hostile witness calculator (issue 31, item 1): a module with circom 2's
 * exports and imports whose answers change from call to call must never
 * make the host copy more than it sized, run host code on its behalf, or
 * grow past the memory the host allows; each case must end in one clear
 * error, and the next good calculation must work.
 *
 * The module is tests/witness/hostile/puppet.wat (wat2wasm at run time,
 * compiled into $ZKPIPE_CACHE once): each of its exports takes its next
 * answer or action from a script of 32-bit words that the hook of
 * zp_witness_module_open_hooked writes into its linear memory before the
 * first call (the script of instance k is cases[k]: the probe that
 * zp_witness_module_open makes is instance 0). start.wat and table.wat
 * are shapes the puppet cannot take: a start function that grows the
 * memory before the host could limit it (refused at compile), and a
 * table too large. Without
 * wasm2c or wat2wasm the test says so and passes. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "witness/calc.h"
#include "witness/compile.h"
#include "witness/input.h"

#define WAT "tests/witness/hostile/puppet.wat"
#define SCRIPT_AT 65536u
#define SCRIPT_MAX 16384u /* words */

/* wasm2c's wasm_rt_memory_t (wasm-rt.h, wabt 1.0.32): the data pointer first */
typedef struct w2c_memory {
    uint8_t *data;
    uint32_t pages, max_pages, size;
} w2c_memory;

/* The scripts of the instances a module makes, in order (none: circom's
 * answers). */
typedef struct scripts {
    const uint32_t *words[4];
    size_t len[4];
    size_t made;
    w2c_memory *(*memory)(void *state);
} scripts;

static void hook(void *arg, void *state) {
    scripts *s = arg;
    size_t k = s->made < 4 ? s->made : 3;
    s->made++;
    /* the glue's state begins with wasm2c's instance (w2c_glue.c.in) */
    w2c_memory *mem = s->memory(state);
    if (mem == NULL || mem->size < SCRIPT_AT + SCRIPT_MAX * 4) return;
    uint32_t len = (uint32_t)(s->len[k] * 4), zero = 0;
    memcpy(mem->data, &zero, 4);
    memcpy(mem->data + 4, &len, 4);
    if (len > 0) memcpy(mem->data + SCRIPT_AT, s->words[k], len);
}

static char so_path[4096];
static w2c_memory *(*memory_of)(void *state);

/* Opens the puppet with these scripts: *st and err say how it went. */
static zp_witness_module *open_with(scripts *s, zp_status *st, zp_error *err) {
    zp_witness_module *m = NULL;
    s->memory = memory_of;
    s->made = 0;
    *st = zp_witness_module_open_hooked(&m, so_path, "puppet.wasm", hook, s, err);
    return m;
}

#define WORDS(...) ((const uint32_t[]){__VA_ARGS__}), (sizeof((const uint32_t[]){__VA_ARGS__}) / 4)

/* One value of signal "a": {"a": 5} */
static void one_input(zp_witness_inputs *in, const zp_witness_module *m) {
    zp_error err = {0};
    const char *json = "{\"a\": 5}";
    zp_status st = zp_witness_inputs_parse(in, json, strlen(json), zp_witness_module_prime(m), zp_witness_module_n8(m),
                                           "input", &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
}

/* The puppet m calculated once with its one input into out (3 wires):
 * the instance, to be destroyed (NULL when none could be made). */
static zp_witness_instance *calculate_once(zp_witness_module *m, uint8_t *out, zp_error *err) {
    zp_witness_inputs in = {0};
    one_input(&in, m);
    zp_witness_instance *inst = NULL;
    CHECK(zp_witness_instance_create(&inst, m, err) == ZP_OK);
    zp_status st = inst ? zp_witness_instance_calculate(inst, &in, out, 0, err) : ZP_ERR_INTERNAL;
    CHECK_MSG(st == ZP_OK, "calculate: %s", err->message);
    zp_witness_inputs_free(&in);
    return inst;
}

/* Opens the puppet (probe script open_words), calculates once with the
 * calc script; returns the status, the message in err. */
static zp_status calc_with(const uint32_t *open_words, size_t open_len, const uint32_t *calc_words, size_t calc_len,
                           uint64_t limit, zp_error *err) {
    scripts s = {.words = {open_words, calc_words}, .len = {open_len, calc_len}};
    zp_status st;
    zp_witness_module *m = open_with(&s, &st, err);
    if (st != ZP_OK) return st;
    zp_witness_inputs in = {0};
    one_input(&in, m);
    size_t bytes = zp_witness_module_size(m) * zp_witness_module_n8(m);
    uint8_t *out = malloc(bytes ? bytes : 1);
    zp_witness_instance *inst = NULL;
    st = zp_witness_instance_create(&inst, m, err);
    if (st == ZP_OK && limit) zp_witness_instance_set_memory_limit(inst, limit);
    if (st == ZP_OK) st = zp_witness_instance_calculate(inst, &in, out, 0, err);
    if (st == ZP_OK && limit) CHECK(zp_witness_instance_memory_bytes(inst) <= limit);
    if (st != ZP_OK && inst != NULL) {
        /* the same instance, now with circom's answers: rebuilt, right */
        zp_error e2 = {0};
        uint8_t *again = malloc(bytes ? bytes : 1);
        zp_status st2 = zp_witness_instance_calculate(inst, &in, again, 0, &e2);
        CHECK_MSG(st2 == ZP_OK || zp_witness_module_size(m) != 3, "after a failure: %s", e2.message);
        free(again);
    }
    zp_witness_instance_destroy(inst);
    free(out);
    zp_witness_inputs_free(&in);
    zp_witness_module_close(m);
    return st;
}

/* ZP_HOSTILE_CASE=word runs only the cases whose name has it. */
static int selected(const char *name) {
    const char *c = getenv("ZP_HOSTILE_CASE");
    return c == NULL || c[0] == 0 || strstr(name, c) != NULL;
}

/* wat2wasm into $ZKPIPE_CACHE (a folder of this user's; without it, a new
 * one under /tmp, not a name another user could have put a link at):
 * wasm, the module's path; 0 when wat2wasm failed. */
static char wasm_dir[64];
static int wat_to_wasm(const char *wat, char *wasm, size_t cap) {
    const char *cache = getenv("ZKPIPE_CACHE");
    if (cache == NULL || cache[0] == 0) {
        if (wasm_dir[0] == 0) {
            snprintf(wasm_dir, sizeof wasm_dir, "/tmp/zp_hostile_XXXXXX");
            if (mkdtemp(wasm_dir) == NULL) wasm_dir[0] = 0;
        }
        cache = wasm_dir;
    }
    mkdir(cache, 0700);
    const char *base = strrchr(wat, '/');
    snprintf(wasm, cap, "%s/hostile-%ld-%s.wasm", cache, (long)getpid(), base ? base + 1 : wat);
    char cmd[8400];
    snprintf(cmd, sizeof cmd, "wat2wasm '%s' -o '%s'", wat, wasm);
    int ok = cache[0] != 0 && system(cmd) == 0;
    CHECK_MSG(ok, "%s", cmd);
    return ok;
}

/* wat2wasm, then zp_witness_compile into $ZKPIPE_CACHE: the object's path. */
static int compile_wat(const char *wat, char *so, size_t cap) {
    char wasm[4096];
    if (!wat_to_wasm(wat, wasm, sizeof wasm)) return 0;
    zp_error err = {0};
    zp_witness_compiled c;
    zp_status st = zp_witness_compile(&c, wasm, NULL, &err);
    unlink(wasm);
    CHECK_MSG(st == ZP_OK, "compile %s: %s", wat, err.message);
    if (st != ZP_OK) return 0;
    snprintf(so, cap, "%s", c.so_path);
    zp_witness_compiled_free(&c);
    return 1;
}

static void expect_error(const char *name, zp_status st, const zp_error *err, const char *want) {
    CHECK_MSG(st != ZP_OK, "%s: accepted", name);
    CHECK_MSG(st == ZP_OK || strstr(err->message, want) != NULL, "%s: '%s' has no '%s'", name, err->message, want);
    if (st != ZP_OK) printf("  %s: %s\n", name, err->message);
    fflush(stdout);
}

int main(void) {
    zp_test_init("test_witness_hostile");
    if (system("wasm2c --version >/dev/null 2>&1 && wat2wasm --version >/dev/null 2>&1") != 0) {
        printf("test_witness_hostile: skipped: no wasm2c or wat2wasm (apt-get install wabt)\n");
        return zp_test_done();
    }
#if defined(__SANITIZE_ADDRESS__)
    setenv("ZKPIPE_WITNESS_SANITIZE", "address", 1); /* the glue's copies too, under ASan */
#elif defined(__SANITIZE_THREAD__)
    setenv("ZKPIPE_WITNESS_SANITIZE", "thread", 1);
#endif
    setenv("ZKPIPE_WITNESS_OPT", "-O1", 1); /* tiny modules: the quickest build */
    zp_error err = {0};
    zp_status st;
    if (!compile_wat(WAT, so_path, sizeof so_path)) return zp_test_done();
    void *h = dlopen(so_path, RTLD_NOW | RTLD_LOCAL);
    CHECK_MSG(h != NULL, "%s", dlerror());
    if (h == NULL) return zp_test_done();
    *(void **)&memory_of = dlsym(h, "Z_circuitZ_memory");
    CHECK(memory_of != NULL);
    if (memory_of == NULL) return zp_test_done();

    /* The puppet as circom: 3 wires, wire i = i. */
    {
        scripts s = {0};
        zp_witness_module *m = open_with(&s, &st, &err);
        CHECK_MSG(st == ZP_OK, "open: %s", err.message);
        if (m != NULL) {
            uint8_t out[3 * 32];
            zp_witness_instance *inst = calculate_once(m, out, &err);
            for (int i = 0; i < 3; i++) CHECK(out[32 * i] == i && out[32 * i + 1] == 0);
            zp_witness_instance_destroy(inst);
            zp_witness_module_close(m);
        }
    }

    /* Open: getVersion, getFieldNumLen32 (8), then getRawPrime's own
     * getFieldNumLen32 answers 64: the prime would be 64 words, copied
     * over the 16 the host has (a stack buffer). */
    if (selected("prime")) {
        st = calc_with(WORDS(0, 0, 1, 64), NULL, 0, 0, &err);
        expect_error("prime: n32 64 at getRawPrime", st, &err, "getFieldNumLen32");
    }
    /* A first answer whose 4 n32 wraps to 64 in 32 bits. */
    if (selected("wrap")) {
        st = calc_with(WORDS(0, 1, 0x40000010u), NULL, 0, 0, &err);
        expect_error("wrap: n32 2^30 + 16", st, &err, "32-bit words");
    }
    /* 2000 wires, and 64 words a value when the witness is read: 2000
     * values of 64 words into a block buffer of 1024 values of 8. */
    if (selected("witness")) {
        st = calc_with(WORDS(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2000),
                       WORDS(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 64), 0, &err);
        expect_error("witness: n32 64 at getWitness", st, &err, "getFieldNumLen32");
    }
    /* 64 words when an input is set: the host would hand it 64 words of
     * its stack (16 are its own). */
    if (selected("input")) {
        st = calc_with(NULL, 0, WORDS(0, 0, 1, 64), 0, &err);
        expect_error("input: n32 64 at setInputSignal", st, &err, "getFieldNumLen32");
    }
    /* showSharedRWMemory (circom's log of a value) with 64 words. */
    if (selected("log")) {
        st = calc_with(NULL, 0, WORDS(6, 1, 64), 0, &err);
        expect_error("log: n32 64 at showSharedRWMemory", st, &err, "getFieldNumLen32");
    }
    /* printErrorMessage whose getMessageChar calls printErrorMessage,
     * 1200 deep: host frames (an 8 KiB message buffer each) under wasm
     * frames, until the stack ends. */
    if (selected("reenter")) {
        static uint32_t deep[1200];
        for (size_t i = 0; i < 1200; i++) deep[i] = 4;
        st = calc_with(NULL, 0, deep, 1200, 0, &err);
        expect_error("reenter: printErrorMessage within printErrorMessage", st, &err, "from inside");
    }
    /* A message with a terminal escape and a carriage return, then an
     * assert: one line of printable text. */
    if (selected("message")) {
        st = calc_with(NULL, 0, WORDS(4, 1, 27, 1, '[', 1, '2', 1, 'J', 1, '\r', 1, 'A', 0, 3, 4), 0, &err);
        expect_error("message: escapes", st, &err, "Assert Failed. ?[2J?A");
        CHECK(strchr(err.message, 27) == NULL && strchr(err.message, '\r') == NULL);
        /* a log() line of the same text: printable too */
        static const uint32_t log_script[] = {5, 1, 27, 1, 'x', 0, 5, 1, '\n', 0};
        scripts s = {.words = {NULL, log_script}, .len = {0, 10}};
        zp_witness_module *m = open_with(&s, &st, &err);
        CHECK_MSG(m != NULL, "message: open for the log: %s", err.message);
        if (m != NULL) {
            uint8_t out[3 * 32];
            zp_witness_instance *inst = calculate_once(m, out, &err);
            size_t len = 0;
            const char *log = inst ? zp_witness_instance_log(inst, &len) : "";
            CHECK_MSG(len == 3 && memcmp(log, "?x\n", 3) == 0, "log: %zu '%.*s'", len, (int)len, log);
            zp_witness_instance_destroy(inst);
            zp_witness_module_close(m);
        }
    }
    /* A trap and the call depth: clear errors, as before. */
    if (selected("trap")) {
        st = calc_with(NULL, 0, WORDS(8), 0, &err);
        expect_error("trap: endless recursion", st, &err, "call stack exhausted");
        st = calc_with(NULL, 0, WORDS(9, 0xfffffff0u), 0, &err);
        expect_error("trap: load out of bounds", st, &err, "out-of-bounds");
    }
    /* Growth past the host's limit (4 MiB; the puppet has 128 KiB):
     * refused, and the module's "Not enough memory" named with the
     * figures; within it, granted. */
    if (selected("grow")) {
        st = calc_with(NULL, 0, WORDS(7, 1000), (uint64_t)4 << 20, &err);
        expect_error("grow: past the limit", st, &err, "past its limit of 4194304 bytes");
        st = calc_with(NULL, 0, WORDS(7, 30), (uint64_t)4 << 20, &err);
        CHECK_MSG(st == ZP_OK, "grow: within the limit: %s", err.message);
    }

    /* A start function (here one that grows the memory before the host
     * could limit it) is refused when the module is compiled: it would run
     * while an instance is made, before a limit or a stop flag is set. The
     * glue's own refusal to grow during instantiation stays behind it. */
    char other[4096];
    if (selected("start")) {
        char wasm[4096];
        CHECK(wat_to_wasm("tests/witness/hostile/start.wat", wasm, sizeof wasm));
        zp_witness_compiled c;
        st = zp_witness_compile(&c, wasm, NULL, &err);
        unlink(wasm);
        expect_error("start: a start function", st, &err, "start function");
        if (st == ZP_OK) zp_witness_compiled_free(&c);
    }
    /* A table of 2^21 elements: refused at instantiation, not calloc'd. */
    if (selected("table") && compile_wat("tests/witness/hostile/table.wat", other, sizeof other)) {
        zp_witness_module *m = NULL;
        st = zp_witness_module_open(&m, other, "table.wasm", &err);
        expect_error("table: 2^21 elements", st, &err, "failed to instantiate");
        zp_witness_module_close(m);
    }

    dlclose(h);
    if (wasm_dir[0] != 0) rmdir(wasm_dir);
    return zp_test_done();
}
