/* The input.json reader (src/witness/input.c): values and their reduction
 * against an independent bit-at-a-time reference on random numbers of every
 * written form and several moduli, snarkjs's corner cases, and errors that
 * name the signal and the value.
 *
 * With arguments it is the C side of tests/witness/input_cases.sh:
 *   test_witness_input --dump bn128|bls12381 FILE...
 * prints what the reader made of each file in the format of
 * tests/witness/input_reference.js (snarkjs's own code path). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "curve/desc.h"
#include "testutil.h"
#include "witness/input.h"

/* ---- an independent reference: little-endian 32-bit words, bit by bit ---- */

typedef struct big {
    uint32_t w[40]; /* up to 1280 bits */
    size_t n;
} big;

static void big_random(big *b, size_t bits) {
    memset(b, 0, sizeof *b);
    b->n = (bits + 31) / 32;
    for (size_t i = 0; i < b->n; i++) b->w[i] = (uint32_t)zp_test_rand64();
    if (bits % 32) b->w[b->n - 1] &= (1u << (bits % 32)) - 1;
}

static int big_is_zero(const big *b) {
    for (size_t i = 0; i < b->n; i++) {
        if (b->w[i]) return 0;
    }
    return 1;
}

/* b /= d, returns the remainder. */
static uint32_t big_divmod_small(big *b, uint32_t d) {
    uint64_t rem = 0;
    for (size_t i = b->n; i-- > 0;) {
        uint64_t cur = (rem << 32) | b->w[i];
        b->w[i] = (uint32_t)(cur / d);
        rem = cur % d;
    }
    return (uint32_t)rem;
}

/* In base 10, 16, 8 or 2, with no prefix; "0" for zero. */
static void big_to_text(char *out, const big *b0, uint32_t base) {
    big b = *b0;
    char tmp[1400];
    size_t n = 0;
    do {
        tmp[n++] = "0123456789abcdef"[big_divmod_small(&b, base)];
    } while (!big_is_zero(&b));
    for (size_t i = 0; i < n; i++) out[i] = tmp[n - 1 - i];
    out[n] = '\0';
}

/* b mod p, p given as n8 little-endian bytes: r = 2r + bit, r -= p when
 * r >= p, from the top bit down. Written n8 bytes little-endian. */
static void big_mod(uint8_t *out, const big *b, const uint8_t *p, size_t n8) {
    uint8_t r[ZP_WITNESS_INPUT_MAX_N8 + 1] = {0};
    for (size_t bit = b->n * 32; bit-- > 0;) {
        unsigned carry = (b->w[bit / 32] >> (bit % 32)) & 1;
        for (size_t i = 0; i <= n8; i++) {
            unsigned v = ((unsigned)r[i] << 1) | carry;
            r[i] = (uint8_t)v;
            carry = v >> 8;
        }
        int ge = 1; /* r >= p ? (r has n8 + 1 bytes) */
        if (r[n8] == 0) {
            for (size_t i = n8; i-- > 0;) {
                if (r[i] != p[i]) {
                    ge = r[i] > p[i];
                    break;
                }
            }
        }
        if (ge) {
            int borrow = 0;
            for (size_t i = 0; i <= n8; i++) {
                int v = r[i] - (i < n8 ? p[i] : 0) - borrow;
                borrow = v < 0;
                r[i] = (uint8_t)(v + (borrow ? 256 : 0));
            }
        }
    }
    memcpy(out, r, n8);
}

static void neg_mod(uint8_t *v, const uint8_t *p, size_t n8) {
    int zero = 1;
    for (size_t i = 0; i < n8; i++) zero &= v[i] == 0;
    if (zero) return;
    int borrow = 0;
    for (size_t i = 0; i < n8; i++) {
        int d = p[i] - v[i] - borrow;
        borrow = d < 0;
        v[i] = (uint8_t)(d + (borrow ? 256 : 0));
    }
}

/* ---- the moduli ---- */

typedef struct modulus_case {
    const char *title;
    uint8_t p[ZP_WITNESS_INPUT_MAX_N8];
    size_t n8;
} modulus_case;

static void curve_prime(uint8_t *out, size_t *n8, zp_curve id) {
    const zp_curve_desc *d = zp_curve_get(id);
    *n8 = d->fr_limbs * 8;
    for (size_t i = 0; i < *n8; i++) out[i] = (uint8_t)(d->fr_modulus[i / 8] >> (8 * (i % 8)));
}

static size_t make_moduli(modulus_case *m) {
    size_t n = 0;
    m[n].title = "bn128 r";
    curve_prime(m[n].p, &m[n].n8, ZP_CURVE_BN254);
    n++;
    m[n].title = "bls12381 r";
    curve_prime(m[n].p, &m[n].n8, ZP_CURVE_BLS12_381);
    n++;
    m[n] = (modulus_case){.title = "bn128 r in 64 bytes", .n8 = 64};
    curve_prime(m[n].p, &(size_t){0}, ZP_CURVE_BN254);
    n++;
    m[n] = (modulus_case){.title = "goldilocks", .n8 = 8, .p = {1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}};
    n++;
    m[n] = (modulus_case){.title = "2", .n8 = 8, .p = {2}};
    n++;
    m[n] = (modulus_case){.title = "3", .n8 = 16, .p = {3}};
    n++;
    m[n] = (modulus_case){.title = "2^256 + 297", .n8 = 40, .p = {0x29, 1}};
    m[n].p[32] = 1;
    n++;
    m[n] = (modulus_case){.title = "2^512 - 569", .n8 = 64};
    memset(m[n].p, 0xff, 64);
    m[n].p[0] = (uint8_t)(0 - 569);
    m[n].p[1] = 0xfd;
    n++;
    return n;
}

/* ---- helpers ---- */

static int parse(zp_witness_inputs *in, const char *json, const modulus_case *m, zp_error *err) {
    return zp_witness_inputs_parse(in, json, strlen(json), m->p, m->n8, "input.json", err) == ZP_OK;
}

/* The one value of signal "x" in {"x": <text>}, as n8 bytes; 0 on error. */
static int one_value(uint8_t *out, const char *text, const modulus_case *m, zp_error *err) {
    char *json = malloc(strlen(text) + 16);
    sprintf(json, "{\"x\": %s}", text);
    zp_witness_inputs in;
    int ok = parse(&in, json, m, err);
    free(json);
    if (!ok) return 0;
    ok = in.count == 1 && in.signals[0].count == 1;
    if (ok) memcpy(out, in.signals[0].values, m->n8);
    zp_witness_inputs_free(&in);
    return ok;
}

static void small_value(uint8_t *out, uint64_t v, size_t n8) {
    memset(out, 0, n8);
    for (size_t i = 0; i < 8 && i < n8; i++) out[i] = (uint8_t)(v >> (8 * i));
}

/* ---- tests ---- */

static void test_fnv(void) {
    CHECK(zp_witness_fnv1a("", 0) == 0xcbf29ce484222325u);
    CHECK(zp_witness_fnv1a("a", 1) == 0xaf63dc4c8601ec8cu);
    CHECK(zp_witness_fnv1a("foobar", 6) == 0x85944171f73967e8u);
}

/* Random numbers of up to 1100 bits in every form snarkjs takes, against
 * the bit-at-a-time reference, on every modulus. */
static void test_random(const modulus_case *mods, size_t nmods) {
    size_t iters = zp_test_iters(200);
    char text[1400], json[1500];
    for (size_t k = 0; k < nmods; k++) {
        const modulus_case *m = &mods[k];
        for (size_t it = 0; it < iters; it++) {
            big b;
            size_t bits = 1 + zp_test_rand64() % (it % 4 == 0 ? 1100 : 8 * m->n8 + 8);
            big_random(&b, bits);
            uint8_t want[ZP_WITNESS_INPUT_MAX_N8], got[ZP_WITNESS_INPUT_MAX_N8];
            big_mod(want, &b, m->p, m->n8);
            int form = (int)(zp_test_rand64() % 7);
            int negative = form == 1;
            switch (form) {
            case 0: big_to_text(text, &b, 10), snprintf(json, sizeof json, "\"%s\"", text); break;
            case 1: big_to_text(text, &b, 10), snprintf(json, sizeof json, "\"-%s\"", text); break;
            case 2: big_to_text(text, &b, 16), snprintf(json, sizeof json, "\"0x%s\"", text); break;
            case 3: big_to_text(text, &b, 16), snprintf(json, sizeof json, "\" 0X%s\\n\"", text); break;
            case 4: big_to_text(text, &b, 8), snprintf(json, sizeof json, "\"0o%s\"", text); break;
            case 5: big_to_text(text, &b, 2), snprintf(json, sizeof json, "\"0B%s\"", text); break;
            default: big_to_text(text, &b, 10), snprintf(json, sizeof json, "\"+000%s\"", text); break;
            }
            if (negative) neg_mod(want, m->p, m->n8);
            zp_error err = {0};
            int ok = one_value(got, json, m, &err);
            CHECK_MSG(ok && memcmp(got, want, m->n8) == 0, "modulus %s, form %d, %s: %s", m->title, form, json,
                      ok ? "wrong value" : err.message);
        }
    }
}

/* JSON numbers: doubles, as JSON.parse makes them. */
static void test_numbers(const modulus_case *bn) {
    static const struct {
        const char *json;
        const char *decimal; /* the exact integer snarkjs uses, "" for an error */
    } cases[] = {
        {"0", "0"},
        {"-0", "0"},
        {"7", "7"},
        {"1.0", "1"},
        {"1e3", "1000"},
        {"9007199254740993", "9007199254740992"}, /* 2^53 + 1 rounds to 2^53 */
        {"1e30", "1000000000000000019884624838656"},
        {"123456789012345678901234567890", "123456789012345677877719597056"},
        {"1e-400", "0"},
        {"4503599627370497", "4503599627370497"}, /* 2^52 + 1: the last bit of the mantissa */
        {"1e100",
         "10000000000000000159028911097599180468360808563945281389781327557747838772170381060813469985856815104"},
        {"-1e30", "-1000000000000000019884624838656"},
        {"0.5", ""},
        {"1.5", ""},
        {"4503599627370495.5", ""}, /* 2^52 - 0.5: the smallest fraction bit there is */
        {"5e-324", ""},
        {"1e400", ""}, /* Infinity: BigInt throws; jansson refuses */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t got[32], want[32];
        zp_error err = {0};
        int ok = one_value(got, cases[i].json, bn, &err);
        if (cases[i].decimal[0] == '\0') {
            CHECK_MSG(!ok, "%s should be refused", cases[i].json);
            continue;
        }
        char quoted[160];
        snprintf(quoted, sizeof quoted, "\"%s\"", cases[i].decimal);
        CHECK(one_value(want, quoted, bn, &err));
        CHECK_MSG(ok && memcmp(got, want, 32) == 0, "%s: %s", cases[i].json, ok ? "wrong value" : err.message);
    }
    /* Negative numbers: x mod p + p. */
    uint8_t got[32], want[32];
    zp_error err;
    CHECK(one_value(got, "-5", bn, &err));
    small_value(want, 5, 32);
    neg_mod(want, bn->p, 32);
    CHECK(memcmp(got, want, 32) == 0);
}

/* Strings as BigInt(string) reads them, and the other JSON values. */
static void test_strings(const modulus_case *bn) {
    static const struct {
        const char *json;
        int64_t value; /* INT64_MIN: an error */
    } cases[] = {
        {"\"12\"", 12},
        {"\"007\"", 7},
        {"\"-007\"", -7},
        {"\"+5\"", 5},
        {"\"\"", 0},
        {"\"  \\t\\n \"", 0},
        {"\" 12 \"", 12},
        {"\"\\u00a012\\ufeff\"", 12},
        {"\"\\u20281\\u3000\"", 1},
        {"\"0xff\"", 255},
        {"\"0XFF\"", 255},
        {"\"0xAbC\"", 0xabc},
        {"\"0b101\"", 5},
        {"\"0o17\"", 15},
        {"\"0O17\"", 15},
        {"true", 1},
        {"false", 0},
        {"\"-0\"", 0},
        {"\"0x\"", INT64_MIN},
        {"\"-0x5\"", INT64_MIN},
        {"\"+0x5\"", INT64_MIN},
        {"\"1e3\"", INT64_MIN},
        {"\"1.0\"", INT64_MIN},
        {"\"abc\"", INT64_MIN},
        {"\"1_000\"", INT64_MIN},
        {"\"- 1\"", INT64_MIN},
        {"\"-\"", INT64_MIN},
        {"\"0b2\"", INT64_MIN},
        {"\"0o8\"", INT64_MIN},
        {"\"\\u200b1\"", INT64_MIN},
        {"\"1 2\"", INT64_MIN},
        {"null", INT64_MIN},
        {"{}", INT64_MIN},
        {"{\"a\": 1}", INT64_MIN},
        {"\"0x-1\"", INT64_MIN},
        {"\"٣\"", INT64_MIN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t got[32], want[32];
        zp_error err = {0};
        int ok = one_value(got, cases[i].json, bn, &err);
        if (cases[i].value == INT64_MIN) {
            CHECK_MSG(!ok, "%s should be refused", cases[i].json);
            CHECK_MSG(ok || err.status == ZP_ERR_FORMAT, "%s: status %d", cases[i].json, err.status);
            continue;
        }
        int64_t v = cases[i].value;
        small_value(want, (uint64_t)(v < 0 ? -v : v), 32);
        if (v < 0) neg_mod(want, bn->p, 32);
        CHECK_MSG(ok && memcmp(got, want, 32) == 0, "%s: %s", cases[i].json, ok ? "wrong value" : err.message);
    }
}

/* p itself, p + 1, -p, and values just below. */
static void test_edges(const modulus_case *mods, size_t nmods) {
    for (size_t k = 0; k < nmods; k++) {
        const modulus_case *m = &mods[k];
        big p = {0};
        p.n = m->n8 / 4;
        for (size_t i = 0; i < m->n8; i++) p.w[i / 4] |= (uint32_t)m->p[i] << (8 * (i % 4));
        char text[200], json[220];
        big_to_text(text, &p, 10);
        uint8_t got[ZP_WITNESS_INPUT_MAX_N8], zero[ZP_WITNESS_INPUT_MAX_N8] = {0};
        zp_error err;
        snprintf(json, sizeof json, "\"%s\"", text);
        CHECK_MSG(one_value(got, json, m, &err) && memcmp(got, zero, m->n8) == 0, "%s: p", m->title);
        snprintf(json, sizeof json, "\"-%s\"", text);
        CHECK_MSG(one_value(got, json, m, &err) && memcmp(got, zero, m->n8) == 0, "%s: -p", m->title);
        /* p - 1 written as hex, and -1: both p - 1 */
        big pm1 = p;
        pm1.w[0] -= 1; /* no borrow: every modulus here is odd or even > 1 with w[0] >= 1 */
        big_to_text(text, &pm1, 16);
        snprintf(json, sizeof json, "\"0x%s\"", text);
        uint8_t a[ZP_WITNESS_INPUT_MAX_N8], b[ZP_WITNESS_INPUT_MAX_N8];
        CHECK(one_value(a, json, m, &err));
        CHECK(one_value(b, "-1", m, &err));
        CHECK_MSG(memcmp(a, b, m->n8) == 0 && memcmp(a, m->p, m->n8) != 0, "%s: p - 1", m->title);
        CHECK(a[0] == (uint8_t)(m->p[0] - 1));
    }
}

static void test_structure(const modulus_case *bn) {
    zp_witness_inputs in;
    zp_error err = {0};
    /* Nested arrays flatten depth first; empty arrays add nothing. */
    CHECK(parse(&in, "{\"a\": [[1, 2], [], [[3], [[]], 4]], \"b\": [], \"c\": [[[]]], \"d\": 9}", bn, &err));
    CHECK(in.count == 4 && in.n8 == 32);
    if (in.count == 4) {
        CHECK(strcmp(in.signals[0].name, "a") == 0 && in.signals[0].count == 4);
        for (size_t i = 0; i < 4 && in.signals[0].count == 4; i++) CHECK(in.signals[0].values[32 * i] == i + 1);
        CHECK(in.signals[1].count == 0 && in.signals[2].count == 0 && in.signals[3].count == 1);
        CHECK(in.signals[3].values[0] == 9);
        CHECK(in.signals[0].hash == zp_witness_fnv1a("a", 1));
    }
    zp_witness_inputs_free(&in);
    /* Object.keys order: array-index names first, ascending; a duplicate
     * keeps its first place and its last value; "__proto__" vanishes. */
    CHECK(parse(&in,
                "{\"b\": 1, \"a\": 2, \"b\": 3, \"10\": 4, \"2\": 5, \"01\": 6, \"4294967295\": 7, "
                "\"4294967294\": 8, \"__proto__\": 9}",
                bn, &err));
    static const char *order[] = {"2", "10", "4294967294", "b", "a", "01", "4294967295"};
    static const uint8_t vals[] = {5, 4, 8, 3, 2, 6, 7};
    CHECK(in.count == 7);
    for (size_t i = 0; i < 7 && in.count == 7; i++) {
        CHECK_MSG(strcmp(in.signals[i].name, order[i]) == 0 && in.signals[i].values[0] == vals[i], "member %zu: %s", i,
                  in.signals[i].name);
    }
    zp_witness_inputs_free(&in);
    /* An empty object is a circuit without inputs. */
    CHECK(parse(&in, " {} ", bn, &err) && in.count == 0);
    zp_witness_inputs_free(&in);
    /* A non-ASCII name: snarkjs's hash over UTF-16 code units. "é" is one
     * unit 0xe9: the byte FNV of the single byte 0xe9. "😀" is two. */
    CHECK(parse(&in, "{\"\xc3\xa9\": 1, \"\xf0\x9f\x98\x80\": 2}", bn, &err) && in.count == 2);
    if (in.count == 2) {
        CHECK(in.signals[0].hash == zp_witness_fnv1a("\xe9", 1));
        uint64_t h = 0xcbf29ce484222325u;
        h = (h ^ 0xd83d) * 0x100000001b3u;
        h = (h ^ 0xde00) * 0x100000001b3u;
        CHECK(in.signals[1].hash == h);
    }
    zp_witness_inputs_free(&in);
    /* Deep nesting: jansson's bound (2048 levels, the object one of them). */
    for (size_t depth = 2000; depth <= 3000; depth += 1000) {
        size_t len = 2 * depth + 16;
        char *json = malloc(len);
        size_t o = (size_t)sprintf(json, "{\"a\":");
        for (size_t i = 0; i < depth; i++) json[o++] = '[';
        json[o++] = '1';
        for (size_t i = 0; i < depth; i++) json[o++] = ']';
        json[o++] = '}';
        json[o] = '\0';
        int ok = parse(&in, json, bn, &err);
        CHECK_MSG(ok == (depth == 2000), "depth %zu: %s", depth, ok ? "accepted" : err.message);
        if (ok) CHECK(in.count == 1 && in.signals[0].count == 1 && in.signals[0].values[0] == 1);
        zp_witness_inputs_free(&in);
        free(json);
    }
}

static void check_error(const modulus_case *bn, const char *json, const char *want) {
    zp_witness_inputs in;
    zp_error err = {0};
    int ok = zp_witness_inputs_parse(&in, json, strlen(json), bn->p, bn->n8, "input.json", &err) == ZP_OK;
    CHECK_MSG(!ok && err.status == ZP_ERR_FORMAT && strstr(err.message, want) != NULL, "%s: got '%s', want '%s'", json,
              ok ? "accepted" : err.message, want);
    CHECK(in.count == 0 && in.signals == NULL);
    if (ok) zp_witness_inputs_free(&in);
}

static void test_errors(const modulus_case *bn) {
    check_error(bn, "{\"in\": [1, 2, 3, \"abc\"]}", "input.json: signal 'in', value 3: not a number ('abc')");
    check_error(bn, "{\"a\": 1, \"in\": [[1, 2], [3, null]]}", "signal 'in', value 3 (in[1][1]): null is not a number");
    check_error(bn, "{\"x\": 1.5}", "signal 'x', value 0: 1.5 is not an integer");
    check_error(bn, "{\"x\": [0.1]}", "signal 'x', value 0: 0.1 is not an integer");
    check_error(bn, "{\"x\": [{}]}", "signal 'x', value 0: an object is not a number");
    check_error(bn, "{\"x\": \"0x12g\"}", "not a number ('0x12g')");
    check_error(bn, "[1, 2]", "input.json: the top level is an array, not an object of input signals");
    check_error(bn, "5", "the top level is a number");
    check_error(bn, "\"abc\"", "the top level is a string");
    check_error(bn, "null", "the top level is null");
    check_error(bn, "", "input.json: not valid JSON");
    check_error(bn, "{\"a\": 1,}", "not valid JSON");
    check_error(bn, "{\"a\": 1} x", "not valid JSON");
    check_error(bn, "\xef\xbb\xbf{}", "not valid JSON"); /* a BOM: JSON.parse refuses it too */
    check_error(bn, "{\"a\": \"\xff\"}", "not valid JSON");
    check_error(bn, "{\"a\": 1e400}", "not valid JSON");
    check_error(bn, "{\"a\\u0000\": 1}", "not valid JSON");
    /* A long or unprintable value is cut and masked in the message. */
    char json[400];
    snprintf(json, sizeof json, "{\"s\": \"%0200d\\u0001\"}", 5);
    check_error(bn, json, "...')");
    check_error(bn, "{\"s\\n\": \"\\u0001\"}", "signal 's?', value 0: not a number ('?')");

    /* A caller's bad prime is ZP_ERR_ARG, never a crash. */
    zp_witness_inputs in;
    zp_error err;
    uint8_t p[80] = {0};
    CHECK(zp_witness_inputs_parse(&in, "{}", 2, p, 32, "i", &err) == ZP_ERR_ARG);
    p[0] = 1;
    CHECK(zp_witness_inputs_parse(&in, "{}", 2, p, 32, "i", &err) == ZP_ERR_ARG);
    p[0] = 7;
    CHECK(zp_witness_inputs_parse(&in, "{}", 2, p, 12, "i", &err) == ZP_ERR_ARG);
    CHECK(zp_witness_inputs_parse(&in, "{}", 2, p, 72, "i", &err) == ZP_ERR_ARG);
    CHECK(zp_witness_inputs_parse(&in, "{}", 2, NULL, 32, "i", &err) == ZP_ERR_ARG);
    CHECK(zp_witness_inputs_parse(&in, "{}", 2, p, 8, "i", &err) == ZP_OK && in.count == 0);
    zp_witness_inputs_free(&in);
    /* The text need not be NUL-terminated: only len bytes are read. */
    CHECK(zp_witness_inputs_parse(&in, "{\"a\": 1}garbage", 8, bn->p, 32, "i", &err) == ZP_OK && in.count == 1);
    zp_witness_inputs_free(&in);
}

static void test_read(const modulus_case *bn) {
    char dir[] = "/tmp/zp-witinput-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256];
    zp_witness_inputs in;
    zp_error err = {0};
    snprintf(path, sizeof path, "%s/input.json", dir);
    FILE *f = fopen(path, "w");
    fputs("{\"in\": [\"1\", 2, \"0x3\"], \"k\": \"bad\"}", f);
    fclose(f);
    CHECK(zp_witness_inputs_read(&in, path, bn->p, bn->n8, &err) == ZP_ERR_FORMAT);
    CHECK_MSG(strstr(err.message, path) != NULL && strstr(err.message, "signal 'k', value 0") != NULL, "%s",
              err.message);
    f = fopen(path, "w");
    fputs("{\"in\": [\"1\", 2, \"0x3\"]}", f);
    fclose(f);
    CHECK(zp_witness_inputs_read(&in, path, bn->p, bn->n8, &err) == ZP_OK);
    CHECK(in.count == 1 && in.signals[0].count == 3 && in.signals[0].values[64] == 3);
    zp_witness_inputs_free(&in);
    /* Over the cap: refused from the size, before reading (a sparse file). */
    int fd = open(path, O_WRONLY | O_TRUNC);
    CHECK(fd >= 0 && ftruncate(fd, (off_t)ZP_WITNESS_INPUT_MAX_BYTES + 1) == 0);
    close(fd);
    CHECK(zp_witness_inputs_read(&in, path, bn->p, bn->n8, &err) == ZP_ERR_FORMAT);
    CHECK_MSG(strstr(err.message, "more than an input file can hold (64 MiB)") != NULL, "%s", err.message);
    /* Not there, a directory, a FIFO: refused without blocking. */
    snprintf(path, sizeof path, "%s/none.json", dir);
    CHECK(zp_witness_inputs_read(&in, path, bn->p, bn->n8, &err) == ZP_ERR_IO);
    CHECK(zp_witness_inputs_read(&in, dir, bn->p, bn->n8, &err) == ZP_ERR_IO);
    snprintf(path, sizeof path, "%s/fifo", dir);
    CHECK(mkfifo(path, 0600) == 0);
    CHECK(zp_witness_inputs_read(&in, path, bn->p, bn->n8, &err) == ZP_ERR_IO);
    CHECK(in.count == 0);
    unlink(path);
    snprintf(path, sizeof path, "%s/input.json", dir);
    unlink(path);
    rmdir(dir);
}

/* A large flat input: time linear in its size. */
static void test_large(const modulus_case *bn) {
    size_t n = 100000;
    char *json = malloc(n * 80 + 16), *o = json;
    o += sprintf(o, "{\"in\": [");
    for (size_t i = 0; i < n; i++) {
        o += sprintf(o, "%s\"%020" PRIu64 "%020" PRIu64 "%020" PRIu64 "\"", i ? "," : "", zp_test_rand64(),
                     zp_test_rand64(), (uint64_t)i);
    }
    o += sprintf(o, "]}");
    zp_witness_inputs in;
    zp_error err = {0};
    CHECK(zp_witness_inputs_parse(&in, json, (size_t)(o - json), bn->p, bn->n8, "big.json", &err) == ZP_OK);
    CHECK(in.count == 1 && in.signals[0].count == n);
    zp_witness_inputs_free(&in);
    free(json);
}

/* ---- --dump: the C side of tests/witness/input_cases.sh ---- */

static int dump(const char *curve, int nfiles, char **files, int values) {
    uint8_t p[ZP_WITNESS_INPUT_MAX_N8];
    size_t n8;
    if (strcmp(curve, "bn128") == 0) {
        curve_prime(p, &n8, ZP_CURVE_BN254);
    } else if (strcmp(curve, "bls12381") == 0) {
        curve_prime(p, &n8, ZP_CURVE_BLS12_381);
    } else {
        fprintf(stderr, "unknown curve %s\n", curve);
        return 2;
    }
    for (int f = 0; f < nfiles; f++) {
        const char *base = strrchr(files[f], '/');
        printf("== %s\n", base ? base + 1 : files[f]);
        zp_witness_inputs in;
        zp_error err;
        if (zp_witness_inputs_read(&in, files[f], p, n8, &err) != ZP_OK) {
            printf("ERROR %s\n", err.message);
            continue;
        }
        for (size_t s = 0; s < in.count; s++) {
            const zp_witness_signal *sig = &in.signals[s];
            for (const char *c = sig->name; *c; c++) printf("%02x", (unsigned char)*c);
            printf(" %016" PRIx64 " %zu\n", sig->hash, sig->count);
            for (size_t i = 0; values && i < sig->count; i++) {
                for (size_t b = n8; b-- > 0;) printf("%02x", sig->values[i * n8 + b]);
                printf("\n");
            }
        }
        zp_witness_inputs_free(&in);
    }
    return 0;
}

int main(int argc, char **argv) {
    /* --count: the signals without their values, to time the reader */
    if (argc >= 2 && (strcmp(argv[1], "--dump") == 0 || strcmp(argv[1], "--count") == 0)) {
        if (argc < 4) {
            fprintf(stderr, "usage: %s --dump|--count bn128|bls12381 FILE...\n", argv[0]);
            return 2;
        }
        return dump(argv[2], argc - 3, argv + 3, strcmp(argv[1], "--dump") == 0);
    }
    zp_test_init("test_witness_input");
    modulus_case mods[8];
    size_t nmods = make_moduli(mods);
    test_fnv();
    test_random(mods, nmods);
    test_numbers(&mods[0]);
    test_strings(&mods[0]);
    test_edges(mods, nmods);
    test_structure(&mods[0]);
    test_errors(&mods[0]);
    test_read(&mods[0]);
    test_large(&mods[0]);
    return zp_test_done();
}
