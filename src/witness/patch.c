/* The fastfr patch of wasm2c's output (patch.h). */
#define _GNU_SOURCE /* memmem */
#include "witness/patch.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field/params.h"
#include "witness/fastfr_text.h"

/* circom's names (--prime) of the fields the patch knows: circom keeps
 * both 4-limb scalar fields in Montgomery form with R = 2^256. */
typedef struct fastfr_field {
    const char *name;
    uint64_t p[4];
    uint64_t n0; /* -p^-1 mod 2^64 */
} fastfr_field;

static const fastfr_field known_fields[] = {
    {"bn128", ZP_BN254_FR_P_INIT, ZP_BN254_FR_N0},
    {"bls12381", ZP_BLS12_FR_P_INIT, ZP_BLS12_FR_N0},
};

/* The definitions replaced, exactly as wasm2c 1.0.32 writes them; the
 * prototypes wasm2c writes earlier are kept (the replacements match them). */
static const char *const replaced[] = {
    "static u32 w2c_Fr_int_add(Z_circuit_instance_t* instance, u32 w2c_x, u32 w2c_y, u32 w2c_r) {\n",
    "static u32 w2c_Fr_int_sub(Z_circuit_instance_t* instance, u32 w2c_x, u32 w2c_y, u32 w2c_r) {\n",
    "static u32 w2c_Fr_int_gte(Z_circuit_instance_t* instance, u32 w2c_px, u32 w2c_py) {\n",
    "static void w2c_Fr_F1m_add(Z_circuit_instance_t* instance, u32 w2c_x, u32 w2c_y, u32 w2c_r) {\n",
    "static void w2c_Fr_F1m_sub(Z_circuit_instance_t* instance, u32 w2c_x, u32 w2c_y, u32 w2c_r) {\n",
    "static void w2c_Fr_F1m_mul(Z_circuit_instance_t* instance, u32 w2c_x, u32 w2c_y, u32 w2c_r) {\n",
    "static void w2c_Fr_F1m_square(Z_circuit_instance_t* instance, u32 w2c_x, u32 w2c_r) {\n",
    "static void w2c_Fr_F1m_fromMontgomery(Z_circuit_instance_t* instance, u32 w2c_x, u32 w2c_r) {\n",
    "static void w2c_Fr_copy(Z_circuit_instance_t* instance, u32 w2c_pr, u32 w2c_px) {\n",
    "static u32 w2c_Fr_int_gt(Z_circuit_instance_t* instance, u32 w2c_px, u32 w2c_py) {\n",
    "static u32 w2c_Fr_int_eq(Z_circuit_instance_t* instance, u32 w2c_px, u32 w2c_py) {\n",
    "static void w2c_Fr_toNormal(Z_circuit_instance_t* instance, u32 w2c_pR) {\n",
    "static u32 w2c_Fr_getLsb32(Z_circuit_instance_t* instance, u32 w2c_pA) {\n",
    "static u32 w2c_Fr_isNegative(Z_circuit_instance_t* instance, u32 w2c_pA) {\n",
    /* optional, from here: replaced only when the body hashes to known_body[i - FIRST_HASHED] */
    "static u32 w2c_Fr_isTrue(Z_circuit_instance_t* instance, u32 w2c_px) {\n",
    "static u32 w2c_Fr_toInt(Z_circuit_instance_t* instance, u32 w2c_pA) {\n",
    "static void w2c_Fr_lt(Z_circuit_instance_t* instance, u32 w2c_pR, u32 w2c_pA, u32 w2c_pB) {\n",
    "static u32 w2c_Fr_eqR(Z_circuit_instance_t* instance, u32 w2c_pA, u32 w2c_pB) {\n",
    "static u32 w2c_Fr_gtR(Z_circuit_instance_t* instance, u32 w2c_pA, u32 w2c_pB) {\n",
    "static void w2c_Fr_add(Z_circuit_instance_t* instance, u32 w2c_pR, u32 w2c_pA, u32 w2c_pB) {\n",
    "static void w2c_Fr_sub(Z_circuit_instance_t* instance, u32 w2c_pR, u32 w2c_pA, u32 w2c_pB) {\n",
    "static void w2c_Fr_mul(Z_circuit_instance_t* instance, u32 w2c_pR, u32 w2c_pA, u32 w2c_pB) {\n",
    "static void w2c_Fr_toMontgomery(Z_circuit_instance_t* instance, u32 w2c_pR) {\n",
    "static void w2c_Fr_int_div(Z_circuit_instance_t* instance, u32 w2c_x, u32 w2c_y, u32 w2c_c, u32 w2c_r) {\n",
    "static void w2c_Fr_int_inverseMod(Z_circuit_instance_t* instance, u32 w2c_px, u32 w2c_pm, u32 w2c_pr) {\n",
};
#define FIRST_HASHED 14
/* The type-level functions (wasmcurves' buildFr: they branch on the short,
 * long and Montgomery flags): their bodies as wasm2c 1.0.32 writes them
 * from circom 2.1's wasm (the same in every circuit and for both primes:
 * they hold no address of the field's constants), as 64-bit FNV-1a hashes
 * of the whole definition, and the macro that tells fastfr.c.in each is
 * known. Fr_mul's holds the address of R^3 mod p (704, the same for both
 * primes), which fastfr.c.in uses as ZP_FF_R3_ADDR: the hash pins it.
 * Fr_int_inverseMod (wasmcurves' extended Euclid, behind Fr_inv and
 * Fr_div) holds its scratch addresses, the same for both primes too. */
static const struct {
    uint64_t fnv;
    const char *macro;
} known_body[] = {
    {0x6e5c3328490738c3ULL, "ZP_FF_HAVE_IS_TRUE"},     {0xaf386f4fffc1087eULL, "ZP_FF_HAVE_TO_INT"},
    {0x5ea4edc9d541248fULL, "ZP_FF_HAVE_LT"},          {0x5a2d52d06aab623aULL, "ZP_FF_HAVE_EQR"},
    {0xb7423c1bcb46ed01ULL, "ZP_FF_HAVE_GTR"},         {0x522fd080799bc14eULL, "ZP_FF_HAVE_ADD"},
    {0xf1e193ba0afd69c5ULL, "ZP_FF_HAVE_SUB"},         {0x535c73b4d34ee21fULL, "ZP_FF_HAVE_MUL"},
    {0x6807286921ec213fULL, "ZP_FF_HAVE_TO_MONT"},     {0x9f8d2f671d42c381ULL, "ZP_FF_HAVE_INT_DIV"},
    {0x03ee26cae8c582a5ULL, "ZP_FF_HAVE_INVERSE_MOD"},
};
#define INT_DIV_INDEX (FIRST_HASHED + 9)
/* fastfr's Fr_int_div reproduces what these write, so they are pinned
 * too: it is replaced only when all of them have their known bodies */
static const struct {
    const char *def;
    uint64_t fnv;
} int_div_helpers[] = {
    {"static void w2c_Fr_int_copy(Z_circuit_instance_t* instance, u32 w2c_px, u32 w2c_pr) {\n", 0xf48885dc047b5b0fULL},
    {"static void w2c_Fr_int_zero(Z_circuit_instance_t* instance, u32 w2c_pr) {\n", 0xae7ef4adbedf4e77ULL},
    {"static void w2c_Fr_int__mul1(Z_circuit_instance_t* instance, u32 w2c_px, u64 w2c_y, u32 w2c_pr) {\n",
     0xd848b11ae40a6acbULL},
    {"static void w2c_Fr_int__add1(Z_circuit_instance_t* instance, u32 w2c_x, u64 w2c_y) {\n", 0x8eddfa7af839cf82ULL},
};

static uint64_t fnv1a64(const char *p, size_t len) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < len; i++) h = (h ^ (uint8_t)p[i]) * 0x100000001b3ULL;
    return h;
}
#define N_REPLACED (sizeof replaced / sizeof *replaced)
_Static_assert(sizeof known_body / sizeof *known_body == N_REPLACED - FIRST_HASHED,
               "a hash for each optional function");
#define MUL_INDEX 5 /* Fr_F1m_mul: the modulus and -p^-1 are read from it */
#define COPY_INDEX 8
#define IS_NEGATIVE_INDEX 13 /* optional: replaced only when its body is this one */

/* wasm2c's Fr_isNegative, whole; %u: the address of (p - 1) / 2 */
static const char is_negative_body[] =
    "static u32 w2c_Fr_isNegative(Z_circuit_instance_t* instance, u32 w2c_pA) {\n"
    "  FUNC_PROLOGUE;\n"
    "  u32 w2c_i0, w2c_i1;\n"
    "  w2c_i0 = w2c_pA;\n"
    "  w2c_i0 = i32_load8_u(&instance->w2c_memory, (u64)(w2c_i0) + 7u);\n"
    "  w2c_i1 = 128u;\n"
    "  w2c_i0 &= w2c_i1;\n"
    "  if (w2c_i0) {\n"
    "    w2c_i0 = w2c_pA;\n"
    "    w2c_Fr_toNormal(instance, w2c_i0);\n"
    "    w2c_i0 = w2c_pA;\n"
    "    w2c_i1 = 8u;\n"
    "    w2c_i0 += w2c_i1;\n"
    "    w2c_i1 = %uu;\n"
    "    w2c_i0 = w2c_Fr_int_gt(instance, w2c_i0, w2c_i1);\n"
    "    goto w2c_Bfunc;\n"
    "  }\n"
    "  w2c_i0 = w2c_pA;\n"
    "  w2c_i0 = i32_load(&instance->w2c_memory, (u64)(w2c_i0));\n"
    "  w2c_i1 = 0u;\n"
    "  w2c_i0 = (u32)((s32)w2c_i0 < (s32)w2c_i1);\n"
    "  w2c_Bfunc:;\n"
    "  FUNC_EPILOGUE;\n"
    "  return w2c_i0;\n"
    "}\n";

static size_t body_len(const char *def);

/* The parsing below never hands the rest of the text to a function that
 * measures it (sscanf calls strlen on its input, which made the copy-run
 * pass quadratic: 77 s of a 96 s compile for a 34 MB C file): every
 * search and every number is bounded by the function or line it is in. */

/* needle in [from, to), or NULL */
static const char *find_in(const char *from, const char *to, const char *needle) {
    if (from == NULL || to <= from) return NULL;
    return memmem(from, (size_t)(to - from), needle, strlen(needle));
}

/* The length of s when [p, end) starts with it, else 0. */
static size_t starts_with(const char *p, const char *end, const char *s, size_t len) {
    return (size_t)(end - p) >= len && memcmp(p, s, len) == 0 ? len : 0;
}

/* Spaces at p, before end. */
static size_t spaces(const char *p, const char *end) {
    const char *q = p;
    while (q < end && *q == ' ') q++;
    return (size_t)(q - p);
}

/* A decimal number of 1 to max_digits digits at p (no sign, no space) of
 * at most max: its digits, *v its value; 0 when there is none. */
static size_t decimal(const char *p, const char *end, size_t max_digits, uint64_t max, uint64_t *v) {
    size_t n = 0;
    uint64_t x = 0;
    while (p + n < end && p[n] >= '0' && p[n] <= '9') {
        if (++n > max_digits) return 0;
        x = x * 10 + (uint64_t)(p[n - 1] - '0');
    }
    if (n == 0 || x > max) return 0;
    *v = x;
    return n;
}

/* "<prefix><u32>u;" at p, before end: its length, *v the number; else 0. */
static size_t u32_statement(const char *p, const char *end, const char *prefix, unsigned *v) {
    size_t pl = starts_with(p, end, prefix, strlen(prefix));
    uint64_t x;
    size_t dl = pl ? decimal(p + pl, end, 10, 0xffffffffu, &x) : 0;
    if (dl == 0 || starts_with(p + pl + dl, end, "u;", 2) == 0) return 0;
    *v = (unsigned)x;
    return pl + dl + 2;
}

/* The address Fr_isNegative compares with, when its body is exactly the
 * expected one; 0 otherwise (then it is not replaced). */
static unsigned is_negative_half(const char *def) {
    static const char before[] = "    w2c_i1 = 8u;\n    w2c_i0 += w2c_i1;\n";
    size_t len = body_len(def);
    const char *at = find_in(def, def + len, before);
    unsigned addr = 0;
    if (at == NULL || u32_statement(at + sizeof before - 1, def + len, "    w2c_i1 = ", &addr) == 0 || addr == 0) {
        return 0;
    }
    char expect[sizeof is_negative_body + 16];
    int n = snprintf(expect, sizeof expect, is_negative_body, addr);
    if (n <= 0 || (size_t)n != len || memcmp(expect, def, len) != 0) return 0;
    return addr;
}

int zp_witness_fastfr_enabled(void) {
    const char *e = getenv("ZKPIPE_WITNESS_FASTFR");
    return !(e != NULL && strcmp(e, "0") == 0);
}

const char *zp_witness_fastfr_key_text(void) { return zp_witness_fastfr_enabled() ? zp_fastfr_text : "fastfr off"; }

/* The one occurrence of needle in text, or NULL when none or several. */
static const char *find_once(const char *text, size_t len, const char *needle) {
    const char *end = text + len, *at = find_in(text, end, needle);
    if (at == NULL || find_in(at + 1, end, needle) != NULL) return NULL;
    return at;
}

/* The body of the function defined at def: up to the first "\n}\n"
 * (strstr stops there: each definition is searched once). */
static size_t body_len(const char *def) {
    const char *end = strstr(def, "\n}\n");
    return end == NULL ? 0 : (size_t)(end - def) + 3;
}

/* Reads the 32 bytes wasm2c writes for the data segment loaded at addr
 * (LOAD_DATA(instance->w2c_memory, <addr>u, data_segment_data_w2c_<name>, 32)). */
static int data_at(const char *text, size_t len, unsigned addr, uint8_t bytes[32]) {
    const char *end = text + len;
    char needle[96], name[64];
    snprintf(needle, sizeof needle, "LOAD_DATA(instance->w2c_memory, %uu, data_segment_data_w2c_", addr);
    const char *at = find_once(text, len, needle);
    if (at == NULL) return 0;
    at += strlen(needle);
    size_t n = 0;
    while (at + n < end && n < sizeof name &&
           ((at[n] >= 'a' && at[n] <= 'z') || (at[n] >= 'A' && at[n] <= 'Z') || (at[n] >= '0' && at[n] <= '9') ||
            at[n] == '_')) {
        n++;
    }
    if (n == 0 || n >= sizeof name || starts_with(at + n, end, ", 32);", 6) == 0) return 0;
    memcpy(name, at, n);
    name[n] = 0;
    char decl[128];
    snprintf(decl, sizeof decl, "static const u8 data_segment_data_w2c_%s[] = {\n", name);
    const char *d = find_once(text, len, decl);
    if (d == NULL) return 0;
    d += strlen(decl);
    for (int i = 0; i < 32; i++) { /* "0x" and one or two hex digits, then a comma */
        while (d < end && (*d == ' ' || *d == '\n')) d++;
        if (starts_with(d, end, "0x", 2) == 0) return 0;
        d += 2;
        unsigned v = 0;
        int digits = 0;
        for (; digits < 2 && d < end; digits++, d++) {
            char c = *d;
            int x = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
            if (x < 0) break;
            v = v * 16 + (unsigned)x;
        }
        if (digits == 0 || d >= end || *d != ',') return 0;
        d++;
        bytes[i] = (uint8_t)v;
    }
    while (d < end && (*d == ' ' || *d == '\n')) d++;
    return d < end && *d == '}';
}

/* The field of the module: the modulus Fr_F1m_mul reduces by (the address
 * it hands Fr_int_gte) must be a known prime, and the constant -p^-1 mod
 * 2^32 it starts with must be that prime's. */
static const fastfr_field *module_field(const char *text, size_t text_len, const char *mul_def, const char **why_not) {
    size_t len = body_len(mul_def);
    if (len == 0) return *why_not = "Fr_F1m_mul has no end", NULL;
    const char *end = mul_def + len;
    static const char gte_call[] = "w2c_i0 = w2c_Fr_int_gte(instance, w2c_i0, w2c_i1);";
    const char *last = NULL;
    for (const char *p = mul_def; (p = find_in(p, end, gte_call)) != NULL; p++) last = p;
    if (last == NULL) return *why_not = "Fr_F1m_mul does not compare with the modulus", NULL;
    /* the line before: w2c_i1 = <addr>u; */
    const char *line = last;
    while (line > mul_def && line[-1] == ' ') line--;
    if (line <= mul_def + 1 || line[-1] != '\n') return *why_not = "unexpected Fr_F1m_mul", NULL;
    line--;
    while (line > mul_def && line[-1] != '\n') line--;
    unsigned addr = 0;
    const char *stmt = line + spaces(line, end);
    if (u32_statement(stmt, end, "w2c_i1 = ", &addr) == 0) {
        return *why_not = "unexpected Fr_F1m_mul", NULL;
    }
    uint64_t np32 = 0;
    const char *prologue = find_in(mul_def, end, "FUNC_PROLOGUE;");
    const char *np = find_in(mul_def, end, "w2c_np32 = w2c_j0;");
    if (prologue == NULL || np == NULL) return *why_not = "unexpected Fr_F1m_mul", NULL;
    const char *j0 = find_in(prologue, np, "w2c_j0 = ");
    size_t dl = j0 ? decimal(j0 + 9, np, 19, UINT64_MAX, &np32) : 0;
    if (dl == 0 || starts_with(j0 + 9 + dl, np, "ull;", 4) == 0) return *why_not = "unexpected Fr_F1m_mul", NULL;
    uint8_t bytes[32];
    if (!data_at(text, text_len, addr, bytes)) return *why_not = "the modulus is not a 32-byte data segment", NULL;
    for (size_t f = 0; f < sizeof known_fields / sizeof *known_fields; f++) {
        const fastfr_field *k = &known_fields[f];
        int same = 1;
        for (int i = 0; i < 32; i++) same &= bytes[i] == (uint8_t)(k->p[i / 8] >> (8 * (i % 8)));
        if (same && np32 == (k->n0 & 0xffffffffu)) return k;
    }
    return *why_not = "not a field zkpipe knows (bn128, bls12381)", NULL;
}

/* Runs of Fr_copy calls. circom initialises a function's local arrays
 * from its constants one element at a time, and wasm2c writes each as
 *
 *   w2c_i0 = K;  w2c_i1 = 40u;  w2c_i0 *= w2c_i1;  w2c_i1 = w2c_lvar;
 *   w2c_i0 += w2c_i1;  w2c_i1 = S;  w2c_Fr_copy(instance, w2c_i0, w2c_i1);
 *
 * (one statement a line). Consecutive blocks with K, K + 1, ... (the
 * sources need not be consecutive) become one zp_ff_copy_list call
 * (fastfr.c.in) with the sources in a static table: poseidon_chain's
 * MixS templates make 290 such calls each. The stack slots w2c_i0 and
 * w2c_i1 are empty after a void call (wasm2c names them by stack depth),
 * so nothing reads what the blocks left in them. */
#define COPY_RUN_MIN 2

/* The block at p (a line start, before end): its length, with *indent,
 * *k, *src; 0 when it is not one. */
static size_t copy_block(const char *p, const char *end, size_t *indent, unsigned *k, unsigned *src) {
    size_t ind = spaces(p, end);
    if (ind == 0 || ind > 64 || starts_with(p + ind, end, "w2c_i0 = ", 9) == 0) return 0;
    /* a line with a number: its text before the number, then "u;" */
    static const struct {
        const char *text;
        int number;
    } lines[] = {{"w2c_i0 = ", 1},
                 {"w2c_i1 = 40u;", 0},
                 {"w2c_i0 *= w2c_i1;", 0},
                 {"w2c_i1 = w2c_lvar;", 0},
                 {"w2c_i0 += w2c_i1;", 0},
                 {"w2c_i1 = ", 1},
                 {"w2c_Fr_copy(instance, w2c_i0, w2c_i1);", 0}};
    const char *q = p;
    unsigned vals[2];
    int nv = 0;
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        if (spaces(q, end) != ind) return 0;
        q += ind;
        size_t l = lines[i].number ? u32_statement(q, end, lines[i].text, &vals[nv++])
                                   : starts_with(q, end, lines[i].text, strlen(lines[i].text));
        if (l == 0 || starts_with(q + l, end, "\n", 1) == 0) return 0;
        q += l + 1;
    }
    *indent = ind, *k = vals[0], *src = vals[1];
    return (size_t)(q - p);
}

/* Rewrites text (len bytes) with its runs merged, into a new buffer of at
 * most len + 1 bytes; *merged counts the calls merged. NULL: out of memory. */
static char *merge_copy_runs(const char *text, size_t len, size_t *out_len, size_t *merged) {
    char *o = malloc(len + 1);
    if (o == NULL) return NULL;
    size_t used = 0, from = 0;
    unsigned *srcs = NULL;
    size_t srcs_cap = 0;
    *merged = 0;
    for (const char *p = text; p < text + len;) {
        size_t ind, blen;
        unsigned k0, s0;
        if ((blen = copy_block(p, text + len, &ind, &k0, &s0)) == 0) {
            const char *nl = memchr(p, '\n', (size_t)(text + len - p));
            if (nl == NULL) break;
            p = nl + 1;
            continue;
        }
        /* the run from p */
        size_t n = 0, run_len = 0;
        unsigned mins = 0xffffffffu, maxs = 0;
        for (;;) {
            size_t i2, b2;
            unsigned k, sv;
            b2 = copy_block(p + run_len, text + len, &i2, &k, &sv);
            if (b2 == 0 || i2 != ind || k != k0 + (unsigned)n) break;
            if (n == srcs_cap) {
                size_t nc = srcs_cap ? 2 * srcs_cap : 64;
                unsigned *ns = realloc(srcs, nc * sizeof *ns);
                if (ns == NULL) {
                    free(srcs), free(o);
                    return NULL;
                }
                srcs = ns, srcs_cap = nc;
            }
            srcs[n++] = sv;
            if (sv > maxs) maxs = sv;
            if (sv < mins) mins = sv;
            run_len += b2;
            if (k0 + (unsigned)n == 0) break; /* K wrapped: end the run */
        }
        if (n < COPY_RUN_MIN) {
            p += blen;
            continue;
        }
        size_t upto = (size_t)(p - text);
        memcpy(o + used, text + from, upto - from);
        used += upto - from;
        /* the replacement is shorter than the blocks: 11 characters a value
         * at most and ~110 a run, against more than 150 a block */
        used +=
            (size_t)sprintf(o + used, "%*s{\n%*sstatic const u32 zp_src[%zu] = {", (int)ind, "", (int)ind + 2, "", n);
        for (size_t j = 0; j < n; j++) used += (size_t)sprintf(o + used, j ? ",%u" : "%u", srcs[j]);
        used += (size_t)sprintf(
            o + used, "};\n%*szp_ff_copy_list(instance, %uu * 40u + w2c_lvar, zp_src, %zuu, %uu, %uu);\n%*s}\n",
            (int)ind + 2, "", k0, n, mins, maxs, (int)ind, "");
        *merged += n;
        p += run_len;
        from = (size_t)(p - text);
    }
    memcpy(o + used, text + from, len - from);
    used += len - from;
    o[used] = 0;
    free(srcs);
    *out_len = used;
    return o;
}

zp_status zp_witness_fastfr_patch(char **out, size_t *out_len, const char *text, size_t len, zp_fastfr_outcome *outcome,
                                  zp_error *err) {
    *out = NULL;
    *out_len = 0;
    memset(outcome, 0, sizeof *outcome);
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    /* wasm2c lays memory out backwards on big-endian hosts */
    (void)text, (void)len, (void)err;
    outcome->why_not = "not a little-endian host";
    return ZP_OK;
#else
    const char *defs[N_REPLACED];
    const char *first = NULL;
    for (size_t i = 0; i < N_REPLACED; i++) {
        defs[i] = find_once(text, len, replaced[i]);
        if (i == IS_NEGATIVE_INDEX) {
            if (defs[i] != NULL && is_negative_half(defs[i]) == 0) defs[i] = NULL;
            if (defs[i] == NULL) continue;
        }
        if (i >= FIRST_HASHED) {
            if (defs[i] != NULL && fnv1a64(defs[i], body_len(defs[i])) != known_body[i - FIRST_HASHED].fnv) {
                defs[i] = NULL;
            }
            for (size_t k = 0;
                 i == INT_DIV_INDEX && defs[i] != NULL && k < sizeof int_div_helpers / sizeof *int_div_helpers; k++) {
                const char *h = find_once(text, len, int_div_helpers[k].def);
                if (h == NULL || fnv1a64(h, body_len(h)) != int_div_helpers[k].fnv) defs[i] = NULL;
            }
            if (defs[i] == NULL) continue;
        }
        if (defs[i] == NULL || body_len(defs[i]) == 0) {
            outcome->why_not = "a replaced function is missing or has another signature";
            return ZP_OK;
        }
        if (first == NULL || defs[i] < first) first = defs[i];
    }
    /* circom's element: 8 header bytes and four 64-bit limbs, copied as five words */
    const char *copy = defs[COPY_INDEX];
    size_t copy_len = body_len(copy);
    const char *last_word = find_in(copy, copy + copy_len, "(u64)(w2c_i1) + 32u);");
    const char *sixth_word = find_in(copy, copy + copy_len, "+ 40u");
    if (last_word == NULL || sixth_word != NULL) {
        outcome->why_not = "Fr_copy does not copy a 4-limb element";
        return ZP_OK;
    }
    const fastfr_field *field = module_field(text, len, defs[MUL_INDEX], &outcome->why_not);
    if (field == NULL) return ZP_OK;

    char head[1024];
    int hl =
        snprintf(head, sizeof head,
                 "\n/* zkpipe: %s, patched for circom's %s field */\n"
                 "#define ZP_FF_P0 0x%016" PRIx64 "ULL\n#define ZP_FF_P1 0x%016" PRIx64
                 "ULL\n"
                 "#define ZP_FF_P2 0x%016" PRIx64 "ULL\n#define ZP_FF_P3 0x%016" PRIx64
                 "ULL\n"
                 "#define ZP_FF_N0 0x%016" PRIx64 "ULL\n",
                 ZP_FASTFR_PATCH_VERSION, field->name, field->p[0], field->p[1], field->p[2], field->p[3], field->n0);
    if (defs[IS_NEGATIVE_INDEX] != NULL && hl > 0 && (size_t)hl < sizeof head) {
        hl += snprintf(head + hl, sizeof head - (size_t)hl, "#define ZP_FF_HALF_ADDR %uu\n",
                       is_negative_half(defs[IS_NEGATIVE_INDEX]));
    }
    for (size_t i = FIRST_HASHED; i < N_REPLACED; i++) {
        if (defs[i] != NULL && hl > 0 && (size_t)hl < sizeof head) {
            hl += snprintf(head + hl, sizeof head - (size_t)hl, "#define %s 1\n", known_body[i - FIRST_HASHED].macro);
        }
    }
    size_t tl = sizeof zp_fastfr_text - 1;
    /* each original keeps its body under the name <name>__wasm (unused) */
    size_t cap = len + (size_t)hl + tl + N_REPLACED * 8 + 2;
    char *o = malloc(cap);
    if (o == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory for the patched witness calculator");
    size_t used = 0, from = 0;
    for (const char *pos = text; pos != NULL;) {
        /* the next definition at or after pos */
        const char *next = NULL;
        size_t which = 0;
        for (size_t i = 0; i < N_REPLACED; i++) {
            if (defs[i] != NULL && defs[i] >= pos && (next == NULL || defs[i] < next)) next = defs[i], which = i;
        }
        if (next == NULL) break;
        size_t upto = (size_t)(next - text);
        memcpy(o + used, text + from, upto - from);
        used += upto - from;
        if (next == first) {
            memcpy(o + used, head, (size_t)hl), used += (size_t)hl;
            memcpy(o + used, zp_fastfr_text, tl), used += tl;
            o[used++] = '\n';
        }
        const char *paren = strchr(replaced[which], '(');
        size_t name_len = (size_t)(paren - replaced[which]);
        memcpy(o + used, next, name_len), used += name_len;
        memcpy(o + used, "__wasm", 6), used += 6;
        from = upto + name_len;
        pos = next + 1;
    }
    memcpy(o + used, text + from, len - from);
    used += len - from;
    o[used] = 0;
    size_t merged_len = 0;
    char *m = merge_copy_runs(o, used, &merged_len, &outcome->copies_merged);
    free(o);
    if (m == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory for the patched witness calculator");
    *out = m;
    *out_len = merged_len;
    outcome->applied = 1;
    outcome->field = field->name;
    return ZP_OK;
#endif
}
