/* What reading an input.json costs (issue 31, item 8): the bound
 * zp_witness_inputs_parse_bytes gives from one pass over the text must be
 * at least the heap a parse really takes at its peak (jansson's tree and
 * the values, both alive at once), for every shape of input, and not far
 * above it for the usual ones, so the engine can reserve it before it
 * parses. The peak is measured here by interposing malloc (glibc's
 * __libc_* underneath; a block costs malloc_usable_size + its 8-byte
 * header); under a sanitizer, whose allocator is another, the test says so
 * and passes.
 *
 * zp_witness_inputs_read_reserved is checked too: it asks for the text
 * before reading it and for the parse before parsing, and a refusal ends
 * the read with the refusal's error. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "curve/desc.h"
#include "testutil.h"
#include "witness/input.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MEASURE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define MEASURE 0
#endif
#endif
#if !defined(MEASURE) && defined(__GLIBC__)
#define MEASURE 1
#elif !defined(MEASURE)
#define MEASURE 0
#endif

#if MEASURE
#include <malloc.h>
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
static _Thread_local int counting;
static _Thread_local int64_t heap_now, heap_peak;

static void count(void *p, int sign) {
    if (!counting || p == NULL) return;
    heap_now += sign * (int64_t)(malloc_usable_size(p) + 8);
    if (heap_now > heap_peak) heap_peak = heap_now;
}
void *malloc(size_t n) {
    void *p = __libc_malloc(n);
    count(p, 1);
    return p;
}
void *calloc(size_t n, size_t size) {
    void *p = __libc_calloc(n, size);
    count(p, 1);
    return p;
}
void *realloc(void *old, size_t n) {
    count(old, -1);
    void *p = __libc_realloc(old, n);
    count(p != NULL ? p : old, 1);
    return p;
}
void free(void *p) {
    count(p, -1);
    __libc_free(p);
}
#endif

static uint8_t prime[32];

/* {"a": [item, item, ...]} with n items, or {item, ...} when top. */
static char *make(const char *head, const char *item, size_t n, const char *tail) {
    size_t il = strlen(item);
    char *s = malloc(strlen(head) + n * (il + 1) + strlen(tail) + 1), *o = s;
    o += sprintf(o, "%s", head);
    for (size_t i = 0; i < n; i++) {
        if (i) *o++ = ',';
        memcpy(o, item, il);
        o += il;
    }
    sprintf(o, "%s", tail);
    return s;
}

static void bound_holds(const char *name, char *text, int tight) {
    size_t len = strlen(text);
    uint64_t bound = zp_witness_inputs_parse_bytes(text, len, 32);
    zp_witness_inputs in;
    zp_error err = {0};
#if MEASURE
    heap_now = heap_peak = 0;
    counting = 1;
#endif
    zp_status st = zp_witness_inputs_parse(&in, text, len, prime, 32, name, &err);
#if MEASURE
    int64_t peak = heap_peak, held = heap_now;
    counting = 0;
    CHECK_MSG(peak <= (int64_t)bound, "%s: the parse took %" PRId64 " bytes, over the bound %" PRIu64, name, peak,
              bound);
    /* the usual shapes: the bound within 1.5 times the real peak */
    CHECK_MSG(!tight || (double)bound <= 1.5 * (double)peak, "%s: bound %" PRIu64 " for a peak of %" PRId64, name,
              bound, peak);
    if (st == ZP_OK) {
        /* at most a page more a signal: a large block may be mmap'd or not */
        CHECK_MSG((int64_t)in.bytes >= held && in.bytes <= (size_t)held + 4096 * in.count + 64,
                  "%s: result holds %" PRId64 ", says %zu", name, held, in.bytes);
    }
    printf("  %-22s %9zu bytes of text: peak %10" PRId64 ", bound %10" PRIu64 " (%.2f)%s\n", name, len, peak, bound,
           peak ? (double)bound / (double)peak : 0.0, st == ZP_OK ? "" : ", not read");
#else
    (void)bound, (void)tight;
#endif
    if (st == ZP_OK) zp_witness_inputs_free(&in);
    free(text);
}

typedef struct refuse_at {
    uint64_t limit;
    int calls;
    uint64_t last;
} refuse_at;

static zp_status refuse_over(void *arg, uint64_t total, zp_error *err) {
    refuse_at *r = arg;
    r->calls++;
    r->last = total;
    if (total > r->limit) return zp_error_set(err, ZP_ERR_NOMEM, "over %llu", (unsigned long long)r->limit);
    return ZP_OK;
}

static void test_reserved(void) {
    char path[] = "/tmp/zp-test-inputs-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    char *text = make("{\"a\": [", "\"123\"", 1000, "], \"b\": 7}");
    CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    uint64_t bound = zp_witness_inputs_parse_bytes(text, strlen(text), 32);
    zp_witness_inputs in;
    zp_error err = {0};
    /* refused before the text is read: one call, the file's size */
    refuse_at r = {.limit = 100};
    CHECK(zp_witness_inputs_read_reserved(&in, path, prime, 32, refuse_over, &r, &err) == ZP_ERR_NOMEM);
    CHECK(r.calls == 1 && r.last >= strlen(text) && r.last < strlen(text) + 64);
    CHECK(in.count == 0 && in.signals == NULL);
    /* refused before it is parsed: the text and the bound */
    r = (refuse_at){.limit = bound};
    CHECK(zp_witness_inputs_read_reserved(&in, path, prime, 32, refuse_over, &r, &err) == ZP_ERR_NOMEM);
    CHECK_MSG(r.calls == 2 && r.last > bound && strstr(err.message, "over") != NULL, "%d %s", r.calls, err.message);
    /* granted: read, and the result holds less than was asked for */
    r = (refuse_at){.limit = UINT64_MAX};
    CHECK(zp_witness_inputs_read_reserved(&in, path, prime, 32, refuse_over, &r, &err) == ZP_OK);
    CHECK(r.calls == 2 && in.count == 2 && in.signals[0].count == 1000 && in.bytes < r.last);
    zp_witness_inputs_free(&in);
    unlink(path);
    free(text);
}

int main(void) {
    zp_test_init("test_witness_input_memory");
    const zp_curve_desc *d = zp_curve_get(ZP_CURVE_BN254);
    for (size_t i = 0; i < 32; i++) prime[i] = (uint8_t)(d->fr_modulus[i / 8] >> (8 * (i % 8)));
#if !MEASURE
    printf("test_witness_input_memory: the heap is not measured here (a sanitizer's allocator)\n");
#endif
    size_t n = MEASURE ? 200000 : 2000;                         /* not measured: the shapes only */
    bound_holds("warm-up", make("{\"a\": [", "0", 1, "]}"), 0); /* jansson's and stdio's first use */
    bound_holds("small numbers", make("{\"a\": [", "0", n, "]}"), 1);
    bound_holds("numbers", make("{\"a\": [", "123456789", n, "]}"), 1);
    bound_holds("1-char strings", make("{\"a\": [", "\"1\"", n, "]}"), 1);
    bound_holds("16-char strings", make("{\"a\": [", "\"1234567890123456\"", n, "]}"), 1);
    bound_holds("77-digit strings",
                make("{\"a\": [", "\"12345678901234567890123456789012345678901234567890123456789012345678901234567\"",
                     n / 4, "]}"),
                1);
    bound_holds("escaped strings", make("{\"a\": [", "\"\\u0031\\n\"", n, "]}"), 0);
    bound_holds("booleans", make("{\"a\": [", "true", n, "]}"), 1);
    bound_holds("empty arrays", make("{\"a\": [", "[]", n, "]}"), 0);
    bound_holds("rows of 3", make("{\"a\": [", "[1,2,3]", n / 3, "]}"), 1);
    bound_holds("empty objects", make("{\"a\": [", "{}", n, "]}"), 0);
    bound_holds("objects", make("{\"a\": [", "{\"k\":0,\"l\":[1]}", n / 4, "]}"), 0);
    bound_holds("many signals", make("{", "\"s\":1", 1, "}"), 0);
    {
        char *t = malloc(n * 16), *o = t;
        o += sprintf(o, "{");
        for (size_t i = 0; i < n / 4; i++) o += sprintf(o, "%s\"s%zu\":[%zu]", i ? "," : "", i, i);
        sprintf(o, "}");
        bound_holds("50000 signals", t, 0);
    }
    {
        size_t depth = 2000;
        char *t = malloc(2 * depth + 16), *o = t;
        o += sprintf(o, "{\"a\":");
        for (size_t i = 0; i < depth; i++) *o++ = '[';
        *o++ = '1';
        for (size_t i = 0; i < depth; i++) *o++ = ']';
        sprintf(o, "}");
        bound_holds("2000 deep", t, 0);
    }
    bound_holds("not JSON", make("{\"a\": [", "1", n, ""), 0);
    test_reserved();
    return zp_test_done();
}
