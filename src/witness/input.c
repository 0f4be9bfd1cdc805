/* input.json, read exactly as `snarkjs wtns calculate` reads it.
 *
 * snarkjs does four things to the file, and each has corners this reader
 * reproduces on purpose, so that a witness from zkpipe is byte-identical to
 * snarkjs's for every input snarkjs accepts:
 *
 * 1. JSON.parse. Every JSON number becomes a double, so an integer beyond
 *    2^53 written as a bare number is rounded to the nearest double before
 *    anything else sees it (21888...617 as a number is not p). We do the
 *    same: jansson with JSON_DECODE_INT_AS_REAL parses every number with
 *    strtod, which rounds correctly, as V8 does; the value used is then the
 *    exact integer value of that double. Big values belong in strings.
 *    A duplicate member name keeps its first position and its last value
 *    (jansson replaces in place, as a JS object does).
 * 2. ffjavascript's unstringifyBigInts turns digit strings and "0x" hex
 *    strings into BigInts and leaves every other string a string; it
 *    rebuilds objects with `res[k] = ...`, so a member named "__proto__"
 *    sets the prototype and vanishes: we drop it too.
 * 3. Object.keys gives the signals in JS property order: names that are
 *    array indices ("0", "17"; below 2^32 - 1, no leading zero) first, in
 *    numeric order, then the rest in the file's order.
 * 4. circom_runtime's flatArray (depth first) and normalize: BigInt(x) % p,
 *    plus p when negative. BigInt(string) trims JS white space (Unicode's
 *    too), takes an optional sign before decimal digits, or a 0x/0X, 0o/0O,
 *    0b/0B prefix without a sign, and makes the empty string 0. BigInt of a
 *    boolean is 0 or 1; of a number that is not an integer, of null and of
 *    an object it throws, and so do we, naming the signal and the value.
 *
 * Two deliberate differences, each an error here with a clear message:
 * - a top level that is not an object. snarkjs takes Object.keys of
 *   whatever it is: none for a number, a boolean or [] (a circuit without
 *   inputs then runs), "0", "1", ... for an array or a string (no circom
 *   signal has such a name: "Signal 0 not found"), a TypeError for null;
 * - an object among the values. In snarkjs it is an error too, except for
 *   objects whose "__proto__" member makes them convert to a number string
 *   through an inherited toString; no circuit's input is written that way.
 * tests/witness/input_cases.sh checks both sides on such files (diverge_*).
 *
 * Reduction mod p works on arbitrarily long digit strings in one pass
 * (Horner's rule, a 64-bit chunk of digits at a time, each step one
 * single-limb long division by p as in Knuth's Algorithm D), so a value
 * costs time linear in its length and no memory beyond a few limbs. */
#include "witness/input.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/file.h"

/* ---- arithmetic mod p ------------------------------------------------- */

#define MAX_LIMBS (ZP_WITNESS_INPUT_MAX_N8 / 8)

typedef struct modulus {
    size_t limbs;           /* n8 / 8: the width of every value */
    size_t np;              /* limbs of p up to its highest non-zero one */
    uint64_t p[MAX_LIMBS];  /* p, little-endian */
    uint64_t pn[MAX_LIMBS]; /* p << shift: its top bit set (Knuth's normalisation) */
    unsigned shift;
} modulus;

static int modulus_init(modulus *m, const uint8_t *prime, size_t n8) {
    if (prime == NULL || n8 == 0 || n8 % 8 != 0 || n8 > ZP_WITNESS_INPUT_MAX_N8) return 0;
    memset(m, 0, sizeof *m);
    m->limbs = n8 / 8;
    for (size_t i = 0; i < n8; i++) m->p[i / 8] |= (uint64_t)prime[i] << (8 * (i % 8));
    m->np = m->limbs;
    while (m->np > 0 && m->p[m->np - 1] == 0) m->np--;
    if (m->np == 0 || (m->np == 1 && m->p[0] < 2)) return 0; /* no field below 2 */
    m->shift = (unsigned)__builtin_clzll(m->p[m->np - 1]);
    for (size_t i = 0; i < m->np; i++) {
        m->pn[i] = m->p[i] << m->shift;
        if (m->shift != 0 && i > 0) m->pn[i] |= m->p[i - 1] >> (64 - m->shift);
    }
    return 1;
}

/* r = r·mul + add mod p, for r < p. With r < p, and add < p (made so for a
 * one-limb p; automatic for a longer one), t = r·mul + add < 2^64·p, so the
 * quotient fits one limb: Knuth's Algorithm D for a single quotient digit,
 * whose estimate from the top two limbs over the normalised divisor's top
 * limb is at most 2 too large (Theorem 4.3.1B), hence at most two add-backs. */
static void mod_mul_add(const modulus *m, uint64_t *r, uint64_t mul, uint64_t add) {
    const size_t np = m->np;
    if (np == 1) add %= m->p[0];
    uint64_t t[MAX_LIMBS + 1];
    unsigned __int128 acc = add;
    for (size_t i = 0; i < np; i++) {
        acc += (unsigned __int128)r[i] * mul;
        t[i] = (uint64_t)acc;
        acc >>= 64;
    }
    t[np] = (uint64_t)acc;
    /* u = t << shift: fits np + 1 limbs since t < 2^64·p. */
    uint64_t u[MAX_LIMBS + 1];
    for (size_t i = np + 1; i-- > 0;) {
        u[i] = t[i] << m->shift;
        if (m->shift != 0 && i > 0) u[i] |= t[i - 1] >> (64 - m->shift);
    }
    const uint64_t top = m->pn[np - 1];
    uint64_t q;
    if (u[np] >= top) {
        q = UINT64_MAX;
    } else {
        q = (uint64_t)((((unsigned __int128)u[np] << 64) | u[np - 1]) / top);
    }
    /* u -= q·pn, with the borrow out of the top limb kept as a sign. */
    unsigned __int128 prod = 0;
    uint64_t borrow = 0;
    for (size_t i = 0; i <= np; i++) {
        if (i < np) prod += (unsigned __int128)q * m->pn[i];
        uint64_t sub = (uint64_t)prod;
        prod >>= 64;
        uint64_t d = u[i] - sub;
        uint64_t b1 = u[i] < sub;
        uint64_t d2 = d - borrow;
        uint64_t b2 = d < borrow;
        u[i] = d2;
        borrow = b1 | b2;
    }
    while (borrow) { /* negative: add pn back until the carry cancels the borrow */
        uint64_t carry = 0;
        for (size_t i = 0; i <= np; i++) {
            unsigned __int128 s = (unsigned __int128)u[i] + (i < np ? m->pn[i] : 0) + carry;
            u[i] = (uint64_t)s;
            carry = (uint64_t)(s >> 64);
        }
        if (carry) borrow = 0;
    }
    for (size_t i = 0; i < np; i++) {
        r[i] = u[i] >> m->shift;
        if (m->shift != 0) r[i] |= u[i + 1] << (64 - m->shift);
    }
    for (size_t i = np; i < m->limbs; i++) r[i] = 0;
}

/* r = -r mod p, for r < p. */
static void mod_neg(const modulus *m, uint64_t *r) {
    int zero = 1;
    for (size_t i = 0; i < m->np; i++) zero &= r[i] == 0;
    if (zero) return;
    uint64_t borrow = 0;
    for (size_t i = 0; i < m->np; i++) {
        uint64_t d = m->p[i] - r[i];
        uint64_t b = m->p[i] < r[i];
        r[i] = d - borrow;
        borrow = b | (d < borrow);
    }
}

static void store_le(uint8_t *out, const uint64_t *r, size_t limbs) {
    for (size_t i = 0; i < limbs * 8; i++) out[i] = (uint8_t)(r[i / 8] >> (8 * (i % 8)));
}

/* ---- BigInt(x) for the values JSON can hold ---------------------------- */

/* The byte length of one JS white space or line terminator at s (the
 * StrWhiteSpaceChar of ECMA-262's StringToBigInt), 0 when there is none:
 * TAB, LF, VT, FF, CR, space, U+00A0, U+1680, U+2000-U+200A, U+2028,
 * U+2029, U+202F, U+205F, U+3000, U+FEFF. s is valid UTF-8 (jansson checks). */
static size_t js_space_len(const unsigned char *s, size_t n) {
    if (n >= 1 && (s[0] == ' ' || (s[0] >= 0x09 && s[0] <= 0x0d))) return 1;
    if (n >= 2 && s[0] == 0xc2 && s[1] == 0xa0) return 2;
    if (n >= 3) {
        unsigned cp = ((unsigned)(s[0] & 0x0f) << 12) | ((unsigned)(s[1] & 0x3f) << 6) | (s[2] & 0x3f);
        if ((s[0] & 0xf0) != 0xe0) return 0;
        if (cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 || cp == 0x202f ||
            cp == 0x205f || cp == 0x3000 || cp == 0xfeff) {
            return 3;
        }
    }
    return 0;
}

static int digit_value(unsigned char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return 99;
}

/* Horner's rule over n digits of base, chunked so that base^k < 2^64. */
static int digits_to_value(const modulus *m, uint64_t *r, const unsigned char *s, size_t n, unsigned base) {
    if (n == 0) return 0;
    unsigned per = base == 2 ? 63 : base == 8 ? 21 : base == 10 ? 19 : 15;
    memset(r, 0, m->limbs * sizeof *r);
    for (size_t i = 0; i < n;) {
        uint64_t chunk = 0, scale = 1;
        for (unsigned k = 0; k < per && i < n; k++, i++) {
            int d = digit_value(s[i]);
            if (d >= (int)base) return 0;
            chunk = chunk * base + (uint64_t)d;
            scale *= base;
        }
        mod_mul_add(m, r, scale, chunk);
    }
    return 1;
}

/* BigInt(string) mod p, as ECMA-262's StringToBigInt reads it: returns 0
 * when the string is not an integer literal. */
static int string_to_value(const modulus *m, uint64_t *r, const char *str, size_t n) {
    const unsigned char *s = (const unsigned char *)str;
    size_t w;
    while (n > 0 && (w = js_space_len(s, n)) != 0) {
        s += w;
        n -= w;
    }
    while (n > 0) { /* trailing white space: find the start of the last character */
        size_t back = 1;
        while (back < n && back < 3 && (s[n - back] & 0xc0) == 0x80) back++;
        if (js_space_len(s + n - back, back) != back) break;
        n -= back;
    }
    if (n == 0) { /* BigInt("") and BigInt("  ") are 0 */
        memset(r, 0, m->limbs * sizeof *r);
        return 1;
    }
    if (n > 2 && s[0] == '0') {
        unsigned base = 0;
        if (s[1] == 'x' || s[1] == 'X') base = 16;
        if (s[1] == 'o' || s[1] == 'O') base = 8;
        if (s[1] == 'b' || s[1] == 'B') base = 2;
        if (base != 0) return digits_to_value(m, r, s + 2, n - 2, base);
    }
    int negative = s[0] == '-';
    if (s[0] == '-' || s[0] == '+') {
        s++;
        n--;
    }
    if (!digits_to_value(m, r, s, n, 10)) return 0;
    if (negative) mod_neg(m, r);
    return 1;
}

/* BigInt(number) mod p: the double's exact integer value; 0 when it is not
 * an integer (jansson has already refused infinities). Read from the IEEE
 * 754 fields (value = mant · 2^shift), so exact at any magnitude, and
 * without libm, which the prover would otherwise load for this alone. */
static int double_to_value(const modulus *m, uint64_t *r, double x) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int negative = (int)(bits >> 63), biased = (int)((bits >> 52) & 0x7ff);
    uint64_t mant = bits & (((uint64_t)1 << 52) - 1);
    memset(r, 0, m->limbs * sizeof *r);
    if (biased == 0x7ff) return 0;     /* infinity or NaN */
    if (biased == 0) return mant == 0; /* ±0, or a subnormal: not an integer */
    mant |= (uint64_t)1 << 52;
    int shift = biased - 1075;
    if (shift < 0) {
        if (shift < -52 || (mant & (((uint64_t)1 << -shift) - 1)) != 0) return 0; /* a fraction */
        mant >>= -shift;
        shift = 0;
    }
    mod_mul_add(m, r, 1, mant);
    while (shift > 0) {
        int k = shift > 63 ? 63 : shift;
        mod_mul_add(m, r, (uint64_t)1 << k, 0);
        shift -= k;
    }
    if (negative) mod_neg(m, r);
    return 1;
}

/* ---- flattening ------------------------------------------------------- */

typedef struct ctx {
    const modulus *mod;
    const char *what;
    const char *signal; /* the member's name, for messages */
    size_t index;       /* the next value's position after flattening */
    size_t depth;
    size_t path[JSON_PARSER_MAX_DEPTH + 1]; /* array indices down to the value */
    zp_error *err;
} ctx;

/* s, at most max characters of it, printable ASCII (others as '?'), with
 * "..." when cut: user text in one-line messages. */
static const char *quoted(char *buf, size_t cap, const char *s, size_t len, size_t max) {
    size_t o = 0;
    for (size_t i = 0; i < len && i < max && o + 1 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        buf[o++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (len > max && o + 4 < cap) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = '\0';
    return buf;
}

static zp_status bad_value(ctx *c, const char *problem) {
    char name[80], where[160] = "";
    quoted(name, sizeof name, c->signal, strlen(c->signal), 64);
    if (c->depth > 1) { /* nested arrays: also say where, in[1][0] */
        size_t o = (size_t)snprintf(where, sizeof where, " (%s", name);
        for (size_t i = 0; i < c->depth && o + 24 < sizeof where; i++) {
            o += (size_t)snprintf(where + o, sizeof where - o, "[%zu]", c->path[i]);
        }
        if (o + 2 < sizeof where) snprintf(where + o, sizeof where - o, ")");
    }
    return zp_error_set(c->err, ZP_ERR_FORMAT, "%s: signal '%s', value %zu%s: %s", c->what, name, c->index, where,
                        problem);
}

/* How many values v flattens to (an empty array: none). */
static size_t count_values(const json_t *v) {
    if (!json_is_array(v)) return 1;
    size_t n = 0;
    for (size_t i = 0; i < json_array_size(v); i++) n += count_values(json_array_get(v, i));
    return n;
}

/* One value, reduced, into out (n8 bytes). */
static zp_status put_value(ctx *c, const json_t *v, uint8_t *out) {
    const modulus *m = c->mod;
    uint64_t r[MAX_LIMBS];
    char problem[160], text[80];
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        size_t n = json_string_length(v);
        if (!string_to_value(m, r, s, n)) {
            snprintf(problem, sizeof problem, "not a number ('%s')", quoted(text, sizeof text, s, n, 40));
            return bad_value(c, problem);
        }
    } else if (json_is_real(v)) {
        double x = json_real_value(v);
        if (!double_to_value(m, r, x)) {
            /* the shortest text that reads back as x, as JS prints it */
            char num[40];
            for (int digits = 1; digits <= 17; digits++) {
                snprintf(num, sizeof num, "%.*g", digits, x);
                if (strtod(num, NULL) == x) break;
            }
            snprintf(problem, sizeof problem, "%s is not an integer", num);
            return bad_value(c, problem);
        }
    } else if (json_is_integer(v)) { /* not made with JSON_DECODE_INT_AS_REAL; kept for safety */
        json_int_t x = json_integer_value(v);
        memset(r, 0, sizeof r);
        mod_mul_add(m, r, 1, x < 0 ? 0 - (uint64_t)x : (uint64_t)x);
        if (x < 0) mod_neg(m, r);
    } else if (json_is_boolean(v)) {
        memset(r, 0, sizeof r);
        mod_mul_add(m, r, 1, json_is_true(v) ? 1 : 0);
    } else if (json_is_null(v)) {
        return bad_value(c, "null is not a number");
    } else {
        return bad_value(c, "an object is not a number");
    }
    store_le(out, r, m->limbs);
    return ZP_OK;
}

/* v flattened depth first into out, c->index values already there. */
static zp_status put_values(ctx *c, const json_t *v, uint8_t *out) {
    if (!json_is_array(v)) {
        zp_status st = put_value(c, v, out + c->index * (c->mod->limbs * 8));
        c->index++;
        return st;
    }
    size_t depth = c->depth++;
    for (size_t i = 0; i < json_array_size(v); i++) {
        c->path[depth] = i;
        zp_status st = put_values(c, json_array_get(v, i), out);
        if (st != ZP_OK) return st;
    }
    c->depth = depth;
    return ZP_OK;
}

/* ---- signals ---------------------------------------------------------- */

uint64_t zp_witness_fnv1a(const char *name, size_t len) {
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)name[i];
        h *= 0x100000001b3u;
    }
    return h;
}

/* snarkjs's fnvHash: FNV-1a over the name's UTF-16 code units, each XORed
 * whole. The same as over the bytes for ASCII names (every circom name);
 * for others this is the key snarkjs would send, so the lookup fails or
 * succeeds as it does there. */
static uint64_t snarkjs_hash(const char *name, size_t len) {
    const unsigned char *s = (const unsigned char *)name;
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < len;) {
        uint32_t cp = s[i];
        size_t w = cp < 0x80 ? 1 : cp < 0xe0 ? 2 : cp < 0xf0 ? 3 : 4;
        if (i + w > len) w = len - i; /* cannot happen: jansson checked UTF-8 */
        if (w > 1) cp &= 0xffu >> (w + 1);
        for (size_t k = 1; k < w; k++) cp = (cp << 6) | (s[i + k] & 0x3f);
        i += w;
        uint32_t units[2] = {cp, 0};
        int nu = 1;
        if (cp >= 0x10000) {
            units[0] = 0xd800 + ((cp - 0x10000) >> 10);
            units[1] = 0xdc00 + ((cp - 0x10000) & 0x3ff);
            nu = 2;
        }
        for (int k = 0; k < nu; k++) {
            h ^= units[k];
            h *= 0x100000001b3u;
        }
    }
    return h;
}

/* A JS array index: "0" or digits without a leading zero, below 2^32 - 1.
 * Object.keys lists such names first, in numeric order. */
static int array_index(const char *name, uint64_t *value) {
    size_t n = strlen(name);
    if (n == 0 || n > 10 || (n > 1 && name[0] == '0')) return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (name[i] < '0' || name[i] > '9') return 0;
        v = v * 10 + (uint64_t)(name[i] - '0');
    }
    if (v >= 0xffffffffu) return 0;
    *value = v;
    return 1;
}

typedef struct member {
    const char *name;
    const json_t *value;
    uint64_t order; /* array indices: their value; others: 2^32 + position */
} member;

static int member_cmp(const void *a, const void *b) {
    uint64_t x = ((const member *)a)->order, y = ((const member *)b)->order;
    return x < y ? -1 : x > y;
}

/* What malloc(n) may take from the heap: glibc's chunks, 16-byte aligned
 * with an 8-byte header, 32 bytes at least, and 16 more where a free
 * chunk it splits would leave less than its 32-byte minimum (it hands
 * out the whole chunk then: which happens depends on the heap's history);
 * from 128 KiB (its first mmap threshold) whole pages. A bound for other
 * mallocs too. */
static uint64_t heap_bytes(uint64_t n) {
    uint64_t chunk = (n + 8 + 15) & ~(uint64_t)15;
    if (chunk >= ((uint64_t)128 << 10)) return (n + 16 + 4095) & ~(uint64_t)4095;
    return (chunk < 32 ? 32 : chunk) + 16;
}

void zp_witness_inputs_free(zp_witness_inputs *in) {
    if (in == NULL) return;
    for (size_t i = 0; i < in->count; i++) {
        free(in->signals[i].name);
        free(in->signals[i].values);
    }
    free(in->signals);
    memset(in, 0, sizeof *in);
}

static const char *json_kind(const json_t *v) {
    switch (json_typeof(v)) {
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER:
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    default: return "an object";
    }
}

static zp_status parse_root(zp_witness_inputs *out, const json_t *root, const modulus *mod, const char *what,
                            zp_error *err) {
    if (!json_is_object(root)) {
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: the top level is %s, not an object of input signals", what,
                            json_kind(root));
    }
    size_t n = json_object_size(root);
    member *members = calloc(n ? n : 1, sizeof *members);
    out->signals = calloc(n ? n : 1, sizeof *out->signals);
    ctx *c = malloc(sizeof *c);
    zp_status st = ZP_OK;
    if (members == NULL || out->signals == NULL || c == NULL) {
        st = zp_error_set(err, ZP_ERR_NOMEM, "%s: out of memory for %zu signals", what, n);
        goto done;
    }
    size_t kept = 0, position = 0;
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)root, key, value) {
        if (strcmp(key, "__proto__") == 0) continue; /* snarkjs loses it (see the top) */
        uint64_t index;
        members[kept].name = key;
        members[kept].value = value;
        members[kept].order = array_index(key, &index) ? index : ((uint64_t)1 << 32) + position;
        kept++;
        position++;
    }
    qsort(members, kept, sizeof *members, member_cmp);

    const size_t n8 = mod->limbs * 8;
    out->bytes = heap_bytes((n ? n : 1) * sizeof *out->signals);
    for (size_t i = 0; i < kept; i++) {
        zp_witness_signal *sig = &out->signals[i];
        size_t len = strlen(members[i].name);
        size_t count = count_values(members[i].value);
        sig->name = malloc(len + 1);
        sig->values = malloc(count ? count * n8 : 1);
        out->count = i + 1;
        if (sig->name == NULL || sig->values == NULL) {
            st = zp_error_set(err, ZP_ERR_NOMEM, "%s: out of memory for signal %zu's %zu values", what, i, count);
            goto done;
        }
        out->bytes += heap_bytes(len + 1) + heap_bytes(count ? count * n8 : 1);
        memcpy(sig->name, members[i].name, len + 1);
        sig->hash = snarkjs_hash(sig->name, len);
        sig->count = count;
        *c = (ctx){.mod = mod, .what = what, .signal = sig->name, .err = err};
        st = put_values(c, members[i].value, sig->values);
        if (st != ZP_OK) goto done;
    }
done:
    free(c);
    free(members);
    if (st != ZP_OK) zp_witness_inputs_free(out);
    return st;
}

zp_status zp_witness_inputs_parse(zp_witness_inputs *out, const char *json, size_t len, const uint8_t *prime, size_t n8,
                                  const char *what, zp_error *err) {
    if (out == NULL) return zp_error_set(err, ZP_ERR_ARG, "inputs: no output");
    memset(out, 0, sizeof *out);
    if (what == NULL) what = "input.json";
    modulus mod;
    if (!modulus_init(&mod, prime, n8)) {
        return zp_error_set(err, ZP_ERR_ARG, "%s: the prime is not a number of 8 to %d bytes (n8 %zu) above 1", what,
                            ZP_WITNESS_INPUT_MAX_N8, n8);
    }
    if (json == NULL && len != 0) return zp_error_set(err, ZP_ERR_ARG, "%s: no text", what);
    json_error_t jerr;
    /* Every number through strtod, as JSON.parse makes it a double; any
     * top-level value, so that one that is not an object gets our message. */
    json_t *root = json_loadb(json ? json : "", len, JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL, &jerr);
    if (root == NULL) {
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: not valid JSON: %s (line %d, column %d)", what, jerr.text,
                            jerr.line, jerr.column);
    }
    zp_status st = parse_root(out, root, &mod, what, err);
    json_decref(root);
    if (st == ZP_OK) out->n8 = n8;
    return st;
}

zp_status zp_witness_inputs_read(zp_witness_inputs *out, const char *path, const uint8_t *prime, size_t n8,
                                 zp_error *err) {
    if (out == NULL) return zp_error_set(err, ZP_ERR_ARG, "inputs: no output");
    memset(out, 0, sizeof *out);
    char *buf;
    size_t n;
    zp_status st = zp_file_read_all(&buf, &n, path, ZP_WITNESS_INPUT_MAX_BYTES, "an input file", err);
    if (st != ZP_OK) return st;
    st = zp_witness_inputs_parse(out, buf, n, prime, n8, path, err);
    free(buf);
    return st;
}

/* ---- memory ------------------------------------------------------------ */

/* jansson 2.14's allocations (load.c, value.c, hashtable.c), as
 * heap_bytes rounds them: a number (json_real) 24 bytes; a string 32
 * bytes and its text (the token's raw length + 3 at most, decoded in
 * place); an array 40 bytes and a table of 8 pointers, doubled as it
 * fills (at most 2 n slots of 8 bytes, and while it grows, the old table
 * beside the new: 3 n for the largest); an object 72 bytes, 8 buckets of
 * 16, each key a 56-byte pair with its text, the buckets doubled as keys
 * come (at most 2 per key, and the old beside the new); true, false and
 * null are shared. The lexer keeps the longest token, doubled. */
enum {
    COST_NUMBER = 32,
    COST_STRING = 48,
    COST_SLOT = 16,   /* per array element: the table at twice the count */
    COST_ARRAY = 128, /* the array and its first table of 8 */
    COST_OBJECT = 256,
    COST_KEY = 64 + 96, /* the pair (with 8 bytes of its key) and its buckets' share while they double */
    COST_SIGNAL = 256,  /* per member: its signal, its place in the order, its name's chunk */
};

uint64_t zp_witness_inputs_parse_bytes(const char *json, size_t len, size_t n8) {
    /* Containers deeper than jansson parses make it fail: a bound from
     * the first JSON_PARSER_MAX_DEPTH is enough. */
    enum { DEPTH = JSON_PARSER_MAX_DEPTH + 1 };
    char kind[DEPTH];         /* '[' or '{', by depth */
    uint32_t elements[DEPTH]; /* an open array's elements so far */
    size_t depth = 0;
    uint64_t tree = 0, values = 0, slots = 0, members = 0, names = 0, longest = 0, largest_array = 0;
    const unsigned char *t = (const unsigned char *)json;
    for (size_t i = 0; i < len;) {
        unsigned char ch = t[i];
        int in_array = depth > 0 && depth <= DEPTH && kind[depth - 1] == '[';
        size_t start = i;
        if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == ',' || ch == ':') {
            i++;
            continue;
        }
        if (ch == '[' || ch == '{') {
            tree += ch == '[' ? COST_ARRAY : COST_OBJECT;
            if (in_array) elements[depth - 1]++, slots++;
            if (depth < DEPTH) kind[depth] = (char)ch, elements[depth] = 0;
            depth++;
            i++;
            continue;
        }
        if (ch == ']' || ch == '}') {
            if (depth > 0) {
                depth--;
                if (depth < DEPTH && kind[depth] == '[' && elements[depth] > largest_array) {
                    largest_array = elements[depth];
                }
            }
            i++;
            continue;
        }
        if (ch == '"') {
            for (i++; i < len && t[i] != '"'; i++) {
                if (t[i] == '\\') i++;
            }
            i = i < len ? i + 1 : len;
            uint64_t raw = i - start;
            if (raw > longest) longest = raw;
            size_t k = i;
            while (k < len && (t[k] == ' ' || t[k] == '\t' || t[k] == '\n' || t[k] == '\r')) k++;
            if (k < len && t[k] == ':') { /* a key */
                tree += COST_KEY + heap_bytes(raw);
                if (depth == 1) {
                    members++;
                    names += heap_bytes(raw);
                }
                continue;
            }
            tree += COST_STRING + heap_bytes(raw + 3);
        } else {
            /* a number, true, false, null (or not JSON): to the next delimiter */
            while (i < len && !strchr(" \t\n\r,:[]{}\"", t[i])) i++;
            if (i == start) i++; /* a NUL byte */
            if (i - start > longest) longest = i - start;
            if (ch == '-' || (ch >= '0' && ch <= '9')) tree += COST_NUMBER;
        }
        if (in_array) elements[depth - 1]++, slots++;
        values++;
    }
    /* arrays left open (not JSON: the parse fails, but a bound all the same) */
    for (size_t d = depth < DEPTH ? depth : DEPTH; d-- > 0;) {
        if (kind[d] == '[' && elements[d] > largest_array) largest_array = elements[d];
    }
    /* the tables, and the largest one's growth: the old beside the new */
    tree += COST_SLOT * slots + 8 * largest_array + 64;
    tree += 2 * heap_bytes(longest + 1) + 4096; /* the lexer, the parser's small state */
    uint64_t ours =
        heap_bytes(sizeof(ctx)) + members * COST_SIGNAL + names + values * (uint64_t)n8 + (members + 1) * 32;
    return tree + ours;
}

zp_status zp_witness_inputs_read_reserved(zp_witness_inputs *out, const char *path, const uint8_t *prime, size_t n8,
                                          zp_witness_reserve_fn *reserve, void *reserve_arg, zp_error *err) {
    if (out == NULL) return zp_error_set(err, ZP_ERR_ARG, "inputs: no output");
    memset(out, 0, sizeof *out);
    int fd;
    uint64_t size;
    zp_status st = zp_file_open_regular(&fd, &size, path, err);
    if (st != ZP_OK) return st;
    close(fd);
    if (size > ZP_WITNESS_INPUT_MAX_BYTES) {
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: %llu bytes, more than an input file can hold (%zu MiB)", path,
                            (unsigned long long)size, ZP_WITNESS_INPUT_MAX_BYTES >> 20);
    }
    uint64_t text_bytes = heap_bytes(size + 2); /* zp_file_read_all's buffer */
    if ((st = reserve(reserve_arg, text_bytes, err)) != ZP_OK) return st;
    char *buf;
    size_t n;
    /* at most the size reserved: a file that grew since is refused */
    st = zp_file_read_all(&buf, &n, path, (size_t)size, "the input file it was a moment ago", err);
    if (st != ZP_OK) return st;
    if ((st = reserve(reserve_arg, text_bytes + zp_witness_inputs_parse_bytes(buf, n, n8), err)) == ZP_OK) {
        st = zp_witness_inputs_parse(out, buf, n, prime, n8, path, err);
    }
    free(buf);
    return st;
}
