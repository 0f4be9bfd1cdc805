/* Synthesis: a = A·w, b = B·w, c = a∘b over the key's constraint matrices,
 * precompiled once per key into compressed rows (docs/architecture.md, "One proof, as
 * data").
 *
 * The matrices refer into the key's coefficient list (§4) rather than copy
 * it: a 2^20 key's list is 2M entries, 92 MB, and a copy of (signal,
 * aligned value) would add 75 MB per key for a pass that takes ~1% of a
 * proof. Measured on 2^18 and 2^20 keys, one thread: copied values were
 * 0-10% faster than reading the packed entries in place (2^20: 0.065 s
 * against 0.066-0.072 s). What synthesis needs is, per row, where its A
 * terms and its B terms are: 16 bytes a row, 17 MB at 2^20.
 *
 * Layout in the caller's memory, each part 64-byte aligned:
 *   header     zp_synth_header (64 bytes)
 *   chunk_row  ZP_SYNTH_CHUNKS + 1 u32: row boundaries cutting the rows into
 *              chunks of about equal work (a row costs 1 + its term count),
 *              so that tasks balance whatever the row lengths are
 *   rows       domain_size × {a_begin, a_end, b_begin, b_end}: row r's A
 *              terms are [a_begin, a_end), its B terms [b_begin, b_end);
 *              each index index_bytes wide (4, or 8 past 2^32 entries)
 *   perm       only for a list out of order: n_coefs indices into the list,
 *              by row then matrix; the rows' ranges then index perm
 *
 * "In order" means that each (matrix, row) group of entries is one run of
 * the list, so the rows can index the list in place. It is checked without
 * memory by asking that, within each matrix, the runs come in increasing
 * row order. Both layouts in use pass: snarkjs's zkey_new.js writes, per
 * constraint, its A terms then its B terms, and after all constraints the
 * public-input rows in A; zkpipe's setup writes all of A, all of B, then
 * those public rows. Anything else costs 4 bytes per entry for perm, and
 * scattered reads of the list: with prefetching, about 1.8x the time of
 * the in-place read at 2^20. */
#include <stdint.h>
#include <string.h>

#include "base/error.h"
#include "base/parallel.h"
#include "field/field.h"
#include "groth16/curves.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"

#define ZP_SYNTH_MAGIC 0x4d53505aU /* "ZPSM" */
#define ZP_SYNTH_CHUNKS 1024
#ifndef ZP_SYNTH_PREFETCH
#define ZP_SYNTH_PREFETCH 16 /* entries ahead, when reading through perm */
#endif

typedef struct zp_synth_header {
    uint32_t magic;
    uint32_t index_bytes;
    uint32_t permuted;
    uint32_t domain_size;
    uint64_t n_coefs;
    uint64_t chunk_off, rows_off, perm_off, bytes;
} zp_synth_header;
_Static_assert(sizeof(zp_synth_header) <= 64, "the header fits its 64 bytes");

static inline size_t round64(size_t n) { return (n + 63) & ~(size_t)63; }

static inline uint32_t rd32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline size_t idx_get(const void *a, unsigned ib, size_t i) {
    return ib == 4 ? ((const uint32_t *)a)[i] : (size_t)((const uint64_t *)a)[i];
}
static inline void idx_set(void *a, unsigned ib, size_t i, size_t v) {
    if (ib == 4) {
        ((uint32_t *)a)[i] = (uint32_t)v;
    } else {
        ((uint64_t *)a)[i] = v;
    }
}

/* Row r's four bounds: A begin, A end, B begin, B end. */
static inline void zp_synth_row(const void *rows, unsigned ib, size_t r, size_t out[4]) {
    if (ib == 4) {
        const uint32_t *p = (const uint32_t *)rows + 4 * r;
        out[0] = p[0], out[1] = p[1], out[2] = p[2], out[3] = p[3];
    } else {
        const uint64_t *p = (const uint64_t *)rows + 4 * r;
        out[0] = p[0], out[1] = p[1], out[2] = p[2], out[3] = p[3];
    }
}

#define ZP_G zp_bn254
#include "groth16/synth_impl.h"
#define ZP_G zp_bls12
#include "groth16/synth_impl.h"

/* One pass over the list: whether it is in order (see the top) and, when
 * validating, the index of its first corrupt entry (n_coefs when none). A
 * corrupt entry counts as out of order, so that the size stays a function
 * of the key whatever the list holds; the build rejects it anyway. Without
 * validation the pass stops as soon as the answer is known. */
static size_t scan(const zp_groth16_pk *pk, int validate, int *in_order, const zp_groth16_pager *pager) {
    int64_t last[2] = {-1, -1};
    uint32_t prev_m = UINT32_MAX, prev_r = 0;
    size_t i, kept = 0, bad = pk->n_coefs; /* kept: the first entry not yet handed to pager */
    *in_order = 1;
    for (i = 0; i < pk->n_coefs; i++) {
        const uint8_t *e = pk->coefs + i * ZP_ZKEY_COEF_BYTES;
        if (pager != NULL && (i - kept) * ZP_ZKEY_COEF_BYTES >= ZP_COEF_PAGE_STEP) {
            pager->done(pager->ctx, pk->coefs + kept * ZP_ZKEY_COEF_BYTES, (i - kept) * ZP_ZKEY_COEF_BYTES);
            kept = i;
        }
        uint32_t m = rd32(e), r = rd32(e + 4), s = rd32(e + 8);
        if (m > ZP_MATRIX_B || r >= pk->domain_size || s >= pk->n_vars) {
            *in_order = 0;
            bad = i++;
            break;
        }
        if (m != prev_m || r != prev_r) { /* a run starts */
            if ((int64_t)r <= last[m]) {
                *in_order = 0;
                if (!validate) {
                    i++;
                    break;
                }
            }
            last[m] = r;
            prev_m = m;
            prev_r = r;
        }
    }
    /* the last span: up to the entry the walk stopped after */
    if (pager != NULL && i > kept)
        pager->done(pager->ctx, pk->coefs + kept * ZP_ZKEY_COEF_BYTES, (i - kept) * ZP_ZKEY_COEF_BYTES);
    return bad;
}

typedef struct {
    unsigned index_bytes;
    int permuted;
    size_t chunk_off, rows_off, perm_off, bytes;
} zp_synth_layout;

/* The layout for a list in order or not (permuted). */
static void layout_as(zp_synth_layout *l, const zp_groth16_pk *pk, unsigned index_bytes, int permuted) {
    l->index_bytes = index_bytes == 8 || pk->n_coefs > UINT32_MAX ? 8 : 4;
    l->permuted = permuted;
    l->chunk_off = round64(sizeof(zp_synth_header));
    l->rows_off = l->chunk_off + round64((ZP_SYNTH_CHUNKS + 1) * sizeof(uint32_t));
    l->perm_off = l->rows_off + round64((size_t)pk->domain_size * 4 * l->index_bytes);
    l->bytes = l->perm_off + (l->permuted ? round64(pk->n_coefs * l->index_bytes) : 0);
}

static size_t layout(zp_synth_layout *l, const zp_groth16_pk *pk, unsigned index_bytes, int validate) {
    int in_order;
    size_t bad = scan(pk, validate, &in_order, NULL);
    layout_as(l, pk, index_bytes, !in_order);
    return bad;
}

size_t zp_groth16_matrices_size_as(const zp_groth16_pk *pk, unsigned index_bytes) {
    zp_synth_layout l;
    layout(&l, pk, index_bytes, 0);
    return l.bytes;
}

size_t zp_groth16_matrices_size(const zp_groth16_pk *pk) { return zp_groth16_matrices_size_as(pk, 0); }

size_t zp_groth16_matrices_size_paged(const zp_groth16_pk *pk, const zp_groth16_pager *pager, int *in_order) {
    zp_synth_layout l;
    int ordered;
    (void)scan(pk, 0, &ordered, pager);
    layout_as(&l, pk, 0, !ordered);
    if (in_order != NULL) *in_order = ordered;
    return l.bytes;
}

size_t zp_groth16_matrices_bound(const zp_groth16_pk *pk) {
    zp_synth_layout l;
    layout_as(&l, pk, 0, 1);
    return l.bytes;
}

static zp_status corrupt(const zp_groth16_pk *pk, size_t i, zp_error *err) {
    const uint8_t *e = pk->coefs + i * ZP_ZKEY_COEF_BYTES;
    uint32_t m = rd32(e), r = rd32(e + 4), s = rd32(e + 8);
    const char *what = "the key's coefficient list (§4)";
    if (m > ZP_MATRIX_B) {
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: coefficient %zu: matrix %u is neither 0 (A) nor 1 (B)", what, i,
                            m);
    }
    if (r >= pk->domain_size) {
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: coefficient %zu: constraint %u is not below the domain size %u",
                            what, i, r, pk->domain_size);
    }
    return zp_error_set(err, ZP_ERR_FORMAT, "%s: coefficient %zu: signal %u is not below nVars %u", what, i, s,
                        pk->n_vars);
}

/* Row boundaries for ZP_SYNTH_CHUNKS chunks of about equal work: chunk j
 * starts at the first row boundary where the work before it reaches
 * j/CHUNKS of the total. */
static void chunk_rows(uint32_t *chunk_row, const void *rows, unsigned ib, size_t n, size_t n_coefs) {
    uint64_t total = (uint64_t)n + n_coefs, acc = 0;
    size_t j = 1;
    chunk_row[0] = 0;
    for (size_t r = 0; r < n && j < ZP_SYNTH_CHUNKS; r++) {
        size_t b[4];
        zp_synth_row(rows, ib, r, b);
        acc += 1 + (b[1] - b[0]) + (b[3] - b[2]);
        /* the target j·total/CHUNKS, in two parts that cannot overflow */
        while (j < ZP_SYNTH_CHUNKS &&
               acc >= total / ZP_SYNTH_CHUNKS * j + total % ZP_SYNTH_CHUNKS * j / ZP_SYNTH_CHUNKS) {
            chunk_row[j++] = (uint32_t)(r + 1);
        }
    }
    while (j <= ZP_SYNTH_CHUNKS) chunk_row[j++] = (uint32_t)n;
}

/* The build is two or three serial passes over the list, once per key:
 * about 12 ms for a 2^20 key (2M entries) once its memory is faulted in,
 * 0.13 s when the list is out of order. par is there for when keys make
 * that worth splitting. */
zp_status zp_groth16_matrices_build_as(void *mem, size_t bytes, const zp_groth16_pk *pk, unsigned index_bytes,
                                       const zp_parallel *par, zp_error *err) {
    (void)par;
    zp_synth_layout l;
    size_t bad = layout(&l, pk, index_bytes, 1);
    if (bad < pk->n_coefs) return corrupt(pk, bad, err);
    if (bytes < l.bytes || ((uintptr_t)mem & 63) != 0) {
        return zp_error_set(err, ZP_ERR_ARG,
                            "the constraint matrices need %zu bytes, 64-byte aligned; given %zu bytes at %p", l.bytes,
                            bytes, mem);
    }
    uint8_t *base = mem;
    size_t n = pk->domain_size, ib = l.index_bytes;
    void *rows = base + l.rows_off, *perm = base + l.perm_off;
    memset(rows, 0, n * 4 * ib);
    if (!l.permuted) {
        /* each (matrix, row) group is one run: note where it starts and ends */
        uint32_t prev_m = UINT32_MAX, prev_r = 0;
        for (size_t i = 0; i < pk->n_coefs; i++) {
            const uint8_t *e = pk->coefs + i * ZP_ZKEY_COEF_BYTES;
            uint32_t m = rd32(e), r = rd32(e + 4);
            size_t k = 4 * (size_t)r + 2 * m;
            if (m != prev_m || r != prev_r) idx_set(rows, l.index_bytes, k, i);
            idx_set(rows, l.index_bytes, k + 1, i + 1);
            prev_m = m;
            prev_r = r;
        }
    } else {
        /* a counting sort by (row, matrix), stable: count into the ends, turn
         * the counts into starts, then place each entry at its group's end */
        for (size_t i = 0; i < pk->n_coefs; i++) {
            const uint8_t *e = pk->coefs + i * ZP_ZKEY_COEF_BYTES;
            size_t k = 4 * (size_t)rd32(e + 4) + 2 * rd32(e) + 1;
            idx_set(rows, l.index_bytes, k, idx_get(rows, l.index_bytes, k) + 1);
        }
        size_t at = 0;
        for (size_t k = 0; k < 4 * n; k += 2) {
            size_t count = idx_get(rows, l.index_bytes, k + 1);
            idx_set(rows, l.index_bytes, k, at);
            idx_set(rows, l.index_bytes, k + 1, at);
            at += count;
        }
        for (size_t i = 0; i < pk->n_coefs; i++) {
            const uint8_t *e = pk->coefs + i * ZP_ZKEY_COEF_BYTES;
            size_t k = 4 * (size_t)rd32(e + 4) + 2 * rd32(e) + 1, at_k = idx_get(rows, l.index_bytes, k);
            idx_set(perm, l.index_bytes, at_k, i);
            idx_set(rows, l.index_bytes, k, at_k + 1);
        }
    }
    chunk_rows((uint32_t *)(void *)(base + l.chunk_off), rows, l.index_bytes, n, pk->n_coefs);

    zp_synth_header h;
    memset(&h, 0, sizeof h);
    h.magic = ZP_SYNTH_MAGIC;
    h.index_bytes = l.index_bytes;
    h.permuted = (uint32_t)l.permuted;
    h.domain_size = pk->domain_size;
    h.n_coefs = pk->n_coefs;
    h.chunk_off = l.chunk_off;
    h.rows_off = l.rows_off;
    h.perm_off = l.perm_off;
    h.bytes = l.bytes;
    memset(base, 0, l.chunk_off);
    memcpy(base, &h, sizeof h);
    return ZP_OK;
}

zp_status zp_groth16_matrices_build(void *mem, size_t bytes, const zp_groth16_pk *pk, const zp_parallel *par,
                                    zp_error *err) {
    return zp_groth16_matrices_build_as(mem, bytes, pk, 0, par, err);
}

zp_groth16_matrices_info zp_groth16_matrices_describe(const void *matrices) {
    const zp_synth_header *h = matrices;
    zp_groth16_matrices_info info = {h->index_bytes, (int)h->permuted, (size_t)h->bytes};
    return info;
}

void zp_groth16_synthesize(void *abc, const zp_groth16_pk *pk, const void *matrices, const uint64_t *witness,
                           const zp_parallel *par) {
    const zp_groth16_curve *gc = zp_groth16_curve_get(pk->curve);
    if (gc != NULL) gc->synthesize(abc, pk, matrices, witness, par); /* else prove_start refuses the key */
}
