/* Synthesis over the precompiled matrices against the serial pass over the
 * coefficient list that prove_start used to make (kept here as the
 * reference), on random keys of both curves: lists in snarkjs's order, in
 * the setup's order, shuffled and otherwise out of order, unaligned, with
 * empty and heavy rows and an empty tail; 32- and 64-bit indices; serial
 * and with 1 and 3 pool threads. Also: the size is exact (nothing written
 * past it), too little or misaligned memory is refused, and a corrupt entry
 * is rejected with ZP_ERR_FORMAT naming it. */
#include <stdlib.h>
#include <string.h>

#include "base/parallel.h"
#include "engine/pool.h"
#include "field/field.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"
#include "testutil.h"

#define E ZP_ZKEY_COEF_BYTES

/* The old serial pass: a += A·w, b += B·w entry by entry, then c = a∘b. */
#define REFERENCE_FN(FR)                                                                      \
    static void reference_##FR(void *abc, const zp_groth16_pk *pk, const uint64_t *witness) { \
        size_t n = pk->domain_size;                                                           \
        FR *a = abc, *b = a + n, *c = b + n;                                                  \
        memset(a, 0, 2 * n * sizeof *a);                                                      \
        for (size_t i = 0; i < pk->n_coefs; i++) {                                            \
            const uint8_t *e = pk->coefs + i * E;                                             \
            uint32_t matrix, row, signal;                                                     \
            FR v, w, t;                                                                       \
            memcpy(&matrix, e, 4);                                                            \
            memcpy(&row, e + 4, 4);                                                           \
            memcpy(&signal, e + 8, 4);                                                        \
            memcpy(v.v, e + 12, sizeof v.v);                                                  \
            memcpy(w.v, witness + 4 * (size_t)signal, sizeof w.v);                            \
            FR##_mul(&t, &v, &w);                                                             \
            FR *dst = matrix == ZP_MATRIX_A ? a : b;                                          \
            FR##_add(&dst[row], &dst[row], &t);                                               \
        }                                                                                     \
        for (size_t i = 0; i < n; i++) FR##_mul(&c[i], &a[i], &b[i]);                         \
    }                                                                                         \
    static void random_##FR(uint64_t out[4]) { /* a random element, reduced */                \
        FR x, y;                                                                              \
        FR##_from_u64(&x, zp_test_rand64());                                                  \
        FR##_from_u64(&y, zp_test_rand64());                                                  \
        FR##_mul(&x, &x, &y);                                                                 \
        memcpy(out, x.v, 32);                                                                 \
    }
REFERENCE_FN(zp_bn254_fr)
REFERENCE_FN(zp_bls12_fr)

static void reference(void *abc, const zp_groth16_pk *pk, const uint64_t *w) {
    if (pk->curve == ZP_CURVE_BN254) {
        reference_zp_bn254_fr(abc, pk, w);
    } else {
        reference_zp_bls12_fr(abc, pk, w);
    }
}

static void random_fr(uint64_t out[4], zp_curve curve) {
    if (curve == ZP_CURVE_BN254) {
        random_zp_bn254_fr(out);
    } else {
        random_zp_bls12_fr(out);
    }
}

static size_t rand_below(size_t n) { return (size_t)(zp_test_rand64() % n); }

/* The orders of the list: the two in use, and three that the rows cannot
 * index in place: shuffled, rows going down, a row's A and B terms mixed. */
enum order { ORDER_SNARKJS, ORDER_SETUP, ORDER_SHUFFLED, ORDER_ROWS_DOWN, ORDER_MIXED, N_ORDERS };
static const char *order_name[] = {"snarkjs order", "setup order", "shuffled", "rows descending", "A and B mixed"};

/* A random key's synthesis part: domain 2^log_n, rows [0, used) with terms
 * (the last `tail` of them in A only, like the public-input rows), the
 * rest empty; n_vars wires. The list is laid out in the given order, at
 * an odd address when unaligned. */
typedef struct {
    zp_groth16_pk pk;
    uint8_t *memory;
    uint64_t *witness;
} test_key;

static void put(uint8_t *e, uint32_t m, uint32_t r, uint32_t s, zp_curve curve) {
    uint64_t v[4];
    random_fr(v, curve);
    memcpy(e, &m, 4);
    memcpy(e + 4, &r, 4);
    memcpy(e + 8, &s, 4);
    memcpy(e + 12, v, 32);
}

static void make_key(test_key *k, zp_curve curve, unsigned log_n, enum order order, int unaligned) {
    size_t n = (size_t)1 << log_n;
    size_t used = n == 1 ? 1 : n / 2 + rand_below(n / 2 + 1), tail = used > 2 ? 1 + rand_below(3) : 0;
    uint32_t n_vars = 1 + (uint32_t)rand_below(3 * n);
    /* terms per (row, matrix): mostly 0-3, sometimes a heavy row */
    uint16_t *count = calloc(2 * n, sizeof *count);
    size_t total = 0;
    for (size_t r = 0; r < used; r++) {
        for (int m = 0; m < 2; m++) {
            if (m == 1 && r >= used - tail) continue;
            size_t c = rand_below(4);
            if (rand_below(64) == 0) c = 50 + rand_below(200);
            count[2 * r + m] = (uint16_t)c;
            total += c;
        }
    }
    memset(k, 0, sizeof *k);
    k->memory = malloc(total * E + 1);
    uint8_t *coefs = k->memory + (unaligned ? 1 : 0);
    size_t at = 0;
    if (order == ORDER_SETUP) { /* all of A but the tail, all of B, the tail */
        for (int pass = 0; pass < 3; pass++) {
            int m = pass == 1;
            size_t lo = pass == 2 ? used - tail : 0, hi = pass == 0 ? used - tail : used;
            for (size_t r = lo; r < hi; r++) {
                for (size_t j = 0; j < count[2 * r + m]; j++) {
                    put(coefs + at++ * E, (uint32_t)m, (uint32_t)r, (uint32_t)rand_below(n_vars), curve);
                }
            }
        }
    } else { /* per row, A then B (snarkjs); the other orders start from it */
        for (size_t i = 0; i < used; i++) {
            size_t r = order == ORDER_ROWS_DOWN ? used - 1 - i : i;
            size_t left[2] = {count[2 * r], count[2 * r + 1]};
            while (left[0] + left[1] > 0) {
                int m = left[0] == 0 || (order == ORDER_MIXED && left[1] > 0 && rand_below(2));
                left[m]--;
                put(coefs + at++ * E, (uint32_t)m, (uint32_t)r, (uint32_t)rand_below(n_vars), curve);
            }
        }
    }
    if (order == ORDER_SHUFFLED) {
        for (size_t i = total; i > 1; i--) {
            size_t j = rand_below(i);
            uint8_t t[E];
            memcpy(t, coefs + (i - 1) * E, E);
            memcpy(coefs + (i - 1) * E, coefs + j * E, E);
            memcpy(coefs + j * E, t, E);
        }
    }
    free(count);
    k->pk.curve = curve;
    k->pk.n_vars = n_vars;
    k->pk.n_public = 0;
    k->pk.domain_size = (uint32_t)n;
    k->pk.coefs = coefs;
    k->pk.n_coefs = total;
    k->witness = malloc((size_t)n_vars * 32);
    for (uint32_t i = 0; i < n_vars; i++) { /* plain values below r */
        uint64_t v[4];
        random_fr(v, curve);
        memcpy(k->witness + 4 * (size_t)i, v, 32);
    }
}

static void free_key(test_key *k) {
    free(k->memory);
    free(k->witness);
}

/* Whether the rows can index the list in place: within each matrix, rows
 * never go down, and a row's entries are adjacent in the list. */
static int in_order(const zp_groth16_pk *pk) {
    int64_t last_row[2] = {-1, -1}, last_at[2] = {-1, -1};
    for (size_t i = 0; i < pk->n_coefs; i++) {
        uint32_t m, r;
        memcpy(&m, pk->coefs + i * E, 4);
        memcpy(&r, pk->coefs + i * E + 4, 4);
        if ((int64_t)r < last_row[m] || ((int64_t)r == last_row[m] && last_at[m] != (int64_t)i - 1)) return 0;
        last_row[m] = r;
        last_at[m] = (int64_t)i;
    }
    return 1;
}

static size_t n_permuted[2]; /* how many builds took each layout */

/* Builds the matrices with nothing to spare and checks that nothing past
 * the size was written; NULL when the build failed. */
static void *build(const zp_groth16_pk *pk, unsigned index_bytes, const zp_parallel *par, size_t *bytes_out) {
    zp_error err;
    size_t bytes = zp_groth16_matrices_size_as(pk, index_bytes);
    CHECK(bytes == zp_groth16_matrices_size_as(pk, index_bytes));
    CHECK(bytes % 64 == 0);
    uint8_t *mem = aligned_alloc(64, bytes + 128);
    memset(mem, 0xa5, bytes + 128);
    zp_status st = zp_groth16_matrices_build_as(mem, bytes, pk, index_bytes, par, &err);
    CHECK_MSG(st == ZP_OK, "build: %s", err.message);
    int untouched = 1;
    for (size_t i = bytes; i < bytes + 128; i++) untouched &= mem[i] == 0xa5;
    CHECK_MSG(untouched, "the build wrote past its %zu bytes", bytes);
    if (st != ZP_OK) {
        free(mem);
        return NULL;
    }
    *bytes_out = bytes;
    return mem;
}

static void check_synthesis(zp_curve curve, unsigned log_n, enum order order, int unaligned, zp_parallel *pars,
                            size_t n_pars) {
    test_key k;
    make_key(&k, curve, log_n, order, unaligned);
    const zp_groth16_pk *pk = &k.pk;
    size_t n = pk->domain_size, abc_bytes = zp_groth16_abc_size(pk);
    uint8_t *want = malloc(abc_bytes), *got = malloc(abc_bytes);
    reference(want, pk, k.witness);
    for (unsigned ib = 4; ib <= 8; ib += 4) {
        size_t bytes;
        void *mat = build(pk, ib == 4 ? 0 : 8, pars[0].threads ? &pars[0] : NULL, &bytes);
        if (mat == NULL) break;
        zp_groth16_matrices_info info = zp_groth16_matrices_describe(mat);
        CHECK(info.index_bytes == ib);
        CHECK(info.bytes == bytes);
        /* both orders in use are read in place; the others mostly not (a
         * shuffle of a short list can come out in order) */
        int expect_permuted = !in_order(pk);
        if (order == ORDER_SNARKJS || order == ORDER_SETUP) CHECK(!expect_permuted);
        CHECK_MSG(info.permuted == expect_permuted, "%s, 2^%u, %s: permuted %d", zp_curve_name(curve), log_n,
                  order_name[order], info.permuted);
        n_permuted[info.permuted]++;
        if (ib == 4) CHECK(bytes == zp_groth16_matrices_size(pk));
        for (size_t p = 0; p < n_pars; p++) {
            const zp_parallel *par = pars[p].threads ? &pars[p] : NULL;
            memset(got, 0xff, abc_bytes); /* synthesis must write every row */
            zp_groth16_synthesize(got, pk, mat, k.witness, par);
            CHECK_MSG(memcmp(got, want, 3 * n * 32) == 0,
                      "%s, 2^%u, %s%s, %u-byte indices, %zu threads: synthesis differs from the serial pass",
                      zp_curve_name(curve), log_n, order_name[order], unaligned ? ", unaligned" : "", ib,
                      zp_parallel_threads(par));
        }
        free(mat);
    }
    free(want);
    free(got);
    free_key(&k);
}

/* What a pager saw: the spans must be consecutive, in order, each at
 * most a step (plus the entry that crossed it), and cover the list. */
typedef struct {
    const uint8_t *next;
    size_t spans, bad;
} pager_seen;

static void pager_done(void *ctx, const uint8_t *p, size_t bytes) {
    pager_seen *seen = ctx;
    if (p != seen->next || bytes > ZP_COEF_PAGE_STEP + ZP_ZKEY_COEF_BYTES) seen->bad++;
    seen->next = p + bytes;
    seen->spans++;
}

/* The paged size is the size, whatever the order, and the pager is handed
 * the list once, a step at a time: all of it when it is in order (a walk
 * over a list out of order may stop early). */
static void check_paged(zp_curve curve, unsigned log_n, enum order order) {
    test_key k;
    make_key(&k, curve, log_n, order, 0);
    const zp_groth16_pk *pk = &k.pk;
    pager_seen seen = {pk->coefs, 0, 0};
    zp_groth16_pager pager = {pager_done, &seen};
    size_t list = pk->n_coefs * ZP_ZKEY_COEF_BYTES;
    int ordered = -1;
    CHECK(zp_groth16_matrices_size_paged(pk, &pager, &ordered) == zp_groth16_matrices_size(pk));
    CHECK(ordered == in_order(pk));
    int whole = in_order(pk) ? seen.next == pk->coefs + list : seen.next <= pk->coefs + list;
    CHECK_MSG(seen.bad == 0 && whole && seen.spans >= 1, "%s, 2^%u, %s: %zu spans, %zu bad, %zu of %zu bytes",
              zp_curve_name(curve), log_n, order_name[order], seen.spans, seen.bad, (size_t)(seen.next - pk->coefs),
              list);
    if (in_order(pk)) CHECK(seen.spans >= list / (ZP_COEF_PAGE_STEP + ZP_ZKEY_COEF_BYTES));
    free_key(&k);
}

static void check_empty(zp_curve curve) {
    zp_groth16_pk pk;
    memset(&pk, 0, sizeof pk);
    pk.curve = curve;
    pk.n_vars = 1;
    pk.domain_size = 8;
    uint64_t w[4] = {1, 0, 0, 0};
    size_t bytes, abc_bytes = zp_groth16_abc_size(&pk);
    void *mat = build(&pk, 0, NULL, &bytes);
    uint8_t *abc = malloc(abc_bytes), zero[3 * 8 * 32] = {0};
    memset(abc, 0x5a, abc_bytes);
    if (mat != NULL) zp_groth16_synthesize(abc, &pk, mat, w, NULL);
    CHECK_MSG(memcmp(abc, zero, sizeof zero) == 0, "%s: no coefficients, all zero", zp_curve_name(curve));
    free(abc);
    free(mat);
}

static void check_rejects(zp_curve curve) {
    test_key k;
    zp_error err;
    make_key(&k, curve, 6, ORDER_SNARKJS, 1);
    zp_groth16_pk *pk = &k.pk;
    size_t bytes = zp_groth16_matrices_size(pk);
    void *mem = aligned_alloc(64, bytes + 64);
    /* too small, misaligned */
    CHECK(zp_groth16_matrices_build(mem, bytes - 1, pk, NULL, &err) == ZP_ERR_ARG);
    CHECK(zp_groth16_matrices_build((uint8_t *)mem + 8, bytes, pk, NULL, &err) == ZP_ERR_ARG);
    /* a corrupt entry: each field in turn */
    uint8_t *coefs = (uint8_t *)(uintptr_t)pk->coefs;
    for (int field = 0; field < 3; field++) {
        size_t i = rand_below(pk->n_coefs);
        uint8_t saved[12];
        memcpy(saved, coefs + i * E, 12);
        uint32_t bad = field == 0   ? 2 + (uint32_t)rand_below(100)
                       : field == 1 ? pk->domain_size + (uint32_t)rand_below(5)
                                    : pk->n_vars + (uint32_t)rand_below(5);
        memcpy(coefs + i * E + 4 * field, &bad, 4);
        size_t corrupt_bytes = zp_groth16_matrices_size(pk); /* defined, whatever the list holds */
        CHECK(corrupt_bytes > 0);
        void *cmem = aligned_alloc(64, corrupt_bytes);
        memset(&err, 0, sizeof err);
        CHECK(zp_groth16_matrices_build(cmem, corrupt_bytes, pk, NULL, &err) == ZP_ERR_FORMAT);
        char needle[64];
        snprintf(needle, sizeof needle, "coefficient %zu:", i);
        CHECK_MSG(strstr(err.message, needle) != NULL, "message names the entry: %s", err.message);
        static const char *what[] = {"matrix", "constraint", "signal"};
        CHECK_MSG(strstr(err.message, what[field]) != NULL, "message names the field: %s", err.message);
        free(cmem);
        memcpy(coefs + i * E, saved, 12);
    }
    CHECK(zp_groth16_matrices_build(mem, bytes, pk, NULL, &err) == ZP_OK);
    free(mem);
    free_key(&k);
}

int main(void) {
    zp_test_init("test_synth");
    zp_pool *pool1, *pool3;
    zp_error err;
    if (zp_pool_create(&pool1, 1, &err) != ZP_OK || zp_pool_create(&pool3, 3, &err) != ZP_OK) return 1;
    zp_parallel pars[3] = {{0}, zp_pool_parallel(pool1), zp_pool_parallel(pool3)};
    zp_curve curves[2] = {ZP_CURVE_BN254, ZP_CURVE_BLS12_381};
    size_t iters = zp_test_iters(3);
    for (int c = 0; c < 2; c++) {
        for (size_t it = 0; it < iters; it++) {
            for (int order = 0; order < N_ORDERS; order++) {
                unsigned log_n = 1 + (unsigned)rand_below(12);
                /* the build on a pool sometimes, to show it does not matter */
                zp_parallel run[3] = {pars[it % 2 ? 2 : 0], pars[1], pars[2]};
                check_synthesis(curves[c], log_n, (enum order)order, (int)rand_below(2), run, 3);
            }
        }
        check_synthesis(curves[c], 0, ORDER_SNARKJS, 0, pars, 3); /* a domain of one row */
        check_synthesis(curves[c], 14, ORDER_SETUP, 1, pars, 3);  /* more rows than chunks */
        check_synthesis(curves[c], 14, ORDER_SHUFFLED, 0, pars, 3);
        for (int order = 0; order < N_ORDERS; order++) check_paged(curves[c], order ? 10 : 17, (enum order)order);
        check_empty(curves[c]);
        check_rejects(curves[c]);
    }
    CHECK_MSG(n_permuted[0] > 0 && n_permuted[1] > 0, "both layouts tested (%zu in place, %zu permuted)", n_permuted[0],
              n_permuted[1]);
    zp_pool_destroy(pool1);
    zp_pool_destroy(pool3);
    return zp_test_done();
}
