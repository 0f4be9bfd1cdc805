/* libFuzzer: the witness calculator's glue (src/witness/w2c_glue.c.in) and
 * its host (src/witness/calc.c) against a module that answers whatever the
 * fuzzer says. The module is tests/witness/hostile/puppet.wat: circom 2's
 * exports and imports, each export taking its next answer or action (a
 * hostile value, a trap, an exception, a message, a log of a value, a
 * memory.grow, endless recursion, a wild load) from a script in its linear
 * memory; this target writes the script there through the instance hook
 * of zp_witness_module_open_hooked, so one compiled module serves every
 * input and libFuzzer drives every answer. The module is compiled once,
 * at start, with clang, AddressSanitizer and libFuzzer's coverage (a CC
 * wrapper in the cache adds -fsanitize=fuzzer-no-link), so the glue's own
 * copies are checked and its branches guide the search.
 *
 * Input: byte 0 flags (bits 0-1: input signals, 0 to 3, one value each;
 * bit 2: init's sanity-check flag; bits 3-4: the memory limit, none,
 * 192 KiB, 1 MiB or 8 MiB; bit 5: calculate twice on one instance), byte 1
 * the number of script words for the probe instance (open), then the
 * words, little-endian: the probe's first, the calculator's after.
 *
 * Whatever the answers, open and calculate must return a status with a
 * message (never crash, never write outside their buffers), an instance's
 * memory must stay within its limit, and the witness buffer is exactly
 * the module's size. ZKPIPE_CACHE (else a folder under /tmp) keeps the
 * compiled module. */
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "witness/calc.h"
#include "witness/compile.h"
#include "witness/input.h"

#define SCRIPT_AT 65536u
#define SCRIPT_MAX_WORDS 16384u

/* wasm2c's wasm_rt_memory_t (wasm-rt.h, wabt 1.0.32): the data pointer first */
typedef struct w2c_memory {
    uint8_t *data;
    uint32_t pages, max_pages, size;
} w2c_memory;

static char so_path[4096];
static w2c_memory *(*memory_of)(void *state);

typedef struct script {
    const uint8_t *words[2]; /* probe, then every later instance */
    size_t bytes[2];
    size_t made;
} script;

static void hook(void *arg, void *state) {
    script *s = arg;
    size_t k = s->made++ == 0 ? 0 : 1;
    w2c_memory *mem = memory_of(state);
    if (mem == NULL || mem->size < SCRIPT_AT + SCRIPT_MAX_WORDS * 4) abort(); /* the puppet has 2 pages */
    uint32_t len = (uint32_t)s->bytes[k], zero = 0;
    memcpy(mem->data, &zero, 4);
    memcpy(mem->data + 4, &len, 4);
    if (len > 0) memcpy(mem->data + SCRIPT_AT, s->words[k], len);
}

static void die(const char *what) {
    fprintf(stderr, "fuzz_glue: %s\n", what);
    exit(2);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    char dir[4096], wat[4096], wasm[4096], cc[4096], cmd[12800];
    /* the source tree, from this file's path (CMake compiles it by its absolute path) */
    snprintf(dir, sizeof dir, "%s", __FILE__);
    char *slash = strrchr(dir, '/');
    if (slash == NULL) die("cannot find the source tree from __FILE__");
    *slash = 0;
    snprintf(wat, sizeof wat, "%s/../tests/witness/hostile/puppet.wat", dir);
    const char *cache = getenv("ZKPIPE_CACHE");
    static char tmp[] = "/tmp/zp-fuzz-glue-XXXXXX";
    if (cache == NULL || cache[0] == 0) {
        if (mkdtemp(tmp) == NULL) die("cannot make a cache folder");
        cache = tmp;
        setenv("ZKPIPE_CACHE", cache, 1);
    }
    mkdir(cache, 0700);
    snprintf(wasm, sizeof wasm, "%s/puppet.wasm", cache);
    snprintf(cmd, sizeof cmd, "wat2wasm '%s' -o '%s'", wat, wasm);
    if (system(cmd) != 0) die("wat2wasm failed (apt-get install wabt)");
    /* clang with libFuzzer's coverage: the glue's branches count */
    snprintf(cc, sizeof cc, "%s/cc-fuzz.sh", cache);
    FILE *f = fopen(cc, "w");
    if (f == NULL) die("cannot write the compiler wrapper");
    fputs("#!/bin/sh\nexec clang -fsanitize=fuzzer-no-link \"$@\"\n", f);
    fclose(f);
    chmod(cc, 0755);
    setenv("CC", cc, 1);
    setenv("ZKPIPE_WITNESS_SANITIZE", "address", 1);
    setenv("ZKPIPE_WITNESS_OPT", "-O1", 1);
    zp_witness_compiled c;
    zp_error err = {0};
    if (zp_witness_compile(&c, wasm, NULL, &err) != ZP_OK) die(err.message);
    snprintf(so_path, sizeof so_path, "%s", c.so_path);
    zp_witness_compiled_free(&c);
    /* kept open: the same object every module below opens */
    void *h = dlopen(so_path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) die(dlerror());
    *(void **)&memory_of = dlsym(h, "Z_circuitZ_memory");
    if (memory_of == NULL) die("the puppet exports no memory");
    return 0;
}

static void check_status(zp_status st, const zp_error *err) {
    if (st != ZP_OK && err->message[0] == 0) abort(); /* an error without a message */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    unsigned flags = data[0];
    size_t words = (size - 2) / 4, probe = data[1] < words ? data[1] : words;
    if (words > SCRIPT_MAX_WORDS) return 0;
    script s = {.words = {data + 2, data + 2 + 4 * probe}, .bytes = {4 * probe, 4 * (words - probe)}};
    zp_witness_module *m = NULL;
    zp_error err = {0};
    zp_status st = zp_witness_module_open_hooked(&m, so_path, "puppet.wasm", hook, &s, &err);
    check_status(st, &err);
    if (st != ZP_OK) return 0;
    size_t n8 = zp_witness_module_n8(m), count = zp_witness_module_size(m);
    if (n8 == 0 || n8 > ZP_WITNESS_MAX_N8 || n8 % 8 != 0) abort(); /* open let a bad field through */
    if (count > (1u << 16)) {                                      /* the module says so; not worth the memory here */
        zp_witness_module_close(m);
        return 0;
    }
    static const char *const json[4] = {"{}", "{\"a\": 1}", "{\"a\": 1, \"b\": \"2\"}",
                                        "{\"a\": 1, \"b\": \"2\", \"c\": [3]}"};
    zp_witness_inputs in = {0};
    const char *text = json[flags & 3];
    st = zp_witness_inputs_parse(&in, text, strlen(text), zp_witness_module_prime(m), n8, "input", &err);
    if (st != ZP_OK) { /* a prime the reader refuses (below 2): fine */
        zp_witness_module_close(m);
        return 0;
    }
    static const uint64_t limits[4] = {UINT64_MAX, 192u << 10, 1u << 20, 8u << 20};
    uint64_t limit = limits[(flags >> 3) & 3];
    uint8_t *out = malloc(count ? count * n8 : 1); /* exactly the witness: ASan sees a byte past it */
    zp_witness_instance *inst = NULL;
    st = zp_witness_instance_create(&inst, m, &err);
    check_status(st, &err);
    if (st == ZP_OK) {
        zp_witness_instance_set_memory_limit(inst, limit);
        for (int round = 0; round < ((flags & 32) ? 2 : 1); round++) {
            st = zp_witness_instance_calculate(inst, &in, out, (flags >> 2) & 1, &err);
            check_status(st, &err);
            if (limit != UINT64_MAX && zp_witness_instance_memory_bytes(inst) > limit &&
                zp_witness_instance_memory_bytes(inst) > 2 * 65536) {
                abort(); /* grew past the limit */
            }
            size_t len;
            const char *log = zp_witness_instance_log(inst, &len);
            if (len > 8192 || (len > 0 && log == NULL)) abort();
        }
    }
    zp_witness_instance_destroy(inst);
    free(out);
    zp_witness_inputs_free(&in);
    zp_witness_module_close(m);
    return 0;
}
