/* The public API of include/zkpipe.h: keys and witnesses, the prover
 * context (a pool, a backend, working memory and the last key's matrices,
 * kept across proofs), the one-shot zp_prove over it, and the canonical
 * proof encoding. (The pipeline engine, for many proofs under a budget,
 * is built beside this.) */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/error.h"
#include "curve/desc.h"
#include "engine/api_internal.h"
#include "engine/pool.h"
#include "engine/prover_internal.h"
#include "engine/stream_io.h"
#include "field/mont.h"
#include "groth16/backend.h"
#include "groth16/groth16.h"
#include "groth16/stream.h"
#include "io/elements.h"
#include "io/json.h"
#include "io/wtns.h"
#include "io/zkey.h"
#include "mem/large.h"
#include "mem/track.h"
#include "zkpipe.h"

struct zp_key {
    zp_zkey *zkey;
    /* Unique per opened key, so a prover can tell that the key it built
     * matrices for is still the one it is handed (an address could be
     * reused by the next key opened). */
    uint64_t serial;
    /* the copy a key opened from memory is read in place from (an
     * anonymous mapping; NULL for a file, which zkey maps itself) */
    void *copy;
    size_t copy_bytes;
};

static _Atomic uint64_t key_serials;
struct zp_witness {
    zp_wtns *wtns;
};

zp_status zp_key_open(zp_key **out, const char *path, zp_error *err) {
    *out = NULL;
    zp_key *key = calloc(1, sizeof *key);
    if (key == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    zp_status st = zp_zkey_open(&key->zkey, path, err);
    if (st != ZP_OK) {
        free(key);
        return st;
    }
    key->serial = atomic_fetch_add(&key_serials, 1) + 1;
    *out = key;
    return ZP_OK;
}

void zp_key_close(zp_key *key) {
    if (key == NULL) return;
    zp_zkey_close(key->zkey);
    if (key->copy != NULL) zp_mem_unmap(key->copy, key->copy_bytes);
    free(key);
}

zp_curve zp_key_curve(const zp_key *key) { return zp_zkey_pk(key->zkey)->curve; }
uint32_t zp_key_wires(const zp_key *key) { return zp_zkey_pk(key->zkey)->n_vars; }
uint32_t zp_key_public(const zp_key *key) { return zp_zkey_pk(key->zkey)->n_public; }
uint32_t zp_key_domain_size(const zp_key *key) { return zp_zkey_pk(key->zkey)->domain_size; }

zp_status zp_witness_open(zp_witness **out, const char *path, zp_error *err) {
    *out = NULL;
    zp_witness *w = calloc(1, sizeof *w);
    if (w == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    zp_status st = zp_wtns_open(&w->wtns, path, err);
    if (st != ZP_OK) {
        free(w);
        return st;
    }
    *out = w;
    return ZP_OK;
}

void zp_witness_close(zp_witness *witness) {
    if (witness == NULL) return;
    zp_wtns_close(witness->wtns);
    free(witness);
}

/* ---- the canonical proof encoding --------------------------------------- */

/* The curve's base field limbs (the table's; 0 for an unknown curve). */
static size_t fp_limbs(zp_curve curve) {
    const zp_curve_desc *d = zp_curve_get(curve);
    return d != NULL ? d->fp_limbs : 0;
}

/* n coordinates of nl limbs each, Montgomery form -> big-endian plain. */
static void encode_coords(uint8_t *out, const uint64_t *mont, size_t n, zp_curve curve) {
    size_t nl = fp_limbs(curve);
    for (size_t k = 0; k < n; k++) {
        uint64_t plain[ZP_MAX_LIMBS];
        zp_io_fp_from_mont(curve, plain, mont + k * nl);
        uint8_t *o = out + k * 8 * nl;
        for (size_t b = 0; b < 8 * nl; b++) { /* byte b from the most significant */
            size_t bit = 8 * (8 * nl - 1 - b);
            o[b] = (uint8_t)(plain[bit / 64] >> (bit % 64));
        }
    }
}

/* The inverse; 0 when a coordinate is not below p. */
static int decode_coords(uint64_t *mont, const uint8_t *in, size_t n, zp_curve curve) {
    size_t nl = fp_limbs(curve);
    for (size_t k = 0; k < n; k++) {
        uint64_t plain[ZP_MAX_LIMBS] = {0};
        const uint8_t *c = in + k * 8 * nl;
        for (size_t b = 0; b < 8 * nl; b++) {
            size_t bit = 8 * (8 * nl - 1 - b);
            plain[bit / 64] |= (uint64_t)c[b] << (bit % 64);
        }
        if (!zp_io_fp_is_canonical(curve, plain)) return 0;
        zp_io_fp_to_mont(curve, mont + k * nl, plain);
    }
    return 1;
}

/* G2 inside: x.c0, x.c1, y.c0, y.c1; encoded: the imaginary part first. */
static void swap_fp2(uint64_t *g2, size_t nl) {
    for (size_t k = 0; k < 4 * nl; k += 2 * nl) {
        for (size_t i = 0; i < nl; i++) {
            uint64_t t = g2[k + i];
            g2[k + i] = g2[k + nl + i];
            g2[k + nl + i] = t;
        }
    }
}

static void proof_encode(zp_proof *out, const zp_groth16_proof *in) {
    memset(out, 0, sizeof *out);
    size_t nl = fp_limbs(in->curve);
    out->curve = in->curve;
    out->fp_bytes = (uint32_t)(8 * nl);
    uint64_t b[24];
    memcpy(b, in->b, sizeof b);
    swap_fp2(b, nl);
    encode_coords(out->a, in->a, 2, in->curve);
    encode_coords(out->b, b, 4, in->curve);
    encode_coords(out->c, in->c, 2, in->curve);
}

static zp_status proof_decode(zp_groth16_proof *out, const zp_proof *in, zp_error *err) {
    memset(out, 0, sizeof *out);
    size_t nl = fp_limbs(in->curve);
    if (nl == 0) return zp_error_set(err, ZP_ERR_ARG, "the proof's curve (%d) is not a known curve", (int)in->curve);
    if (in->fp_bytes != 8 * nl) {
        return zp_error_set(err, ZP_ERR_ARG, "the proof's coordinates are %u bytes, but %zu for %s", in->fp_bytes,
                            8 * nl, zp_curve_name(in->curve));
    }
    out->curve = in->curve;
    if (!decode_coords(out->a, in->a, 2, in->curve) || !decode_coords(out->b, in->b, 4, in->curve) ||
        !decode_coords(out->c, in->c, 2, in->curve)) {
        return zp_error_set(err, ZP_ERR_ARG, "the proof has a coordinate that is not below the %s field modulus",
                            zp_curve_name(in->curve));
    }
    swap_fp2(out->b, nl);
    return ZP_OK;
}

/* ---- the prover context ------------------------------------------------ */

/* Tracked classes and stage of the prover's buffers (its own tracker:
 * the counts are there for a debugger, and the allocator hook is what a
 * device backend's memory goes through). */
enum {
    BUF_MATRICES = ZP_PROVER_BUF_MATRICES,
    BUF_ABC = ZP_PROVER_BUF_ABC,
    BUF_SCRATCH = ZP_PROVER_BUF_SCRATCH,
    BUF_TABLES = ZP_PROVER_BUF_TABLES,
    BUF_WINDOW = ZP_PROVER_BUF_WINDOW, /* the key's points, streamed (groth16/stream.h) */
};

/* zp_prover_options.table_bytes's default: a 2^13 BN254 key's tables
 * (about 60 MB) fit. */
#define PROVER_TABLE_BYTES ((size_t)64 << 20)
/* Point tables cost about 50 proofs' time to build (bn128 2^11 0.27 s
 * against 5.2 ms of NTTs and MSMs; 2^13 0.91 s against 17 ms; bls12-381
 * 2^11 0.45 s against 11 ms) and save about a quarter of each later
 * proof: a prover builds them once it has spent about what they cost,
 * after this many proofs of one key in a row (as a skier rents until the
 * rent would have bought the skis, which never costs more than twice the
 * best choice in hindsight), unless zp_prover_prepare asks for them. */
#define PROVER_TABLES_AFTER 192

struct zp_prover {
    zp_pool *pool;
    zp_parallel par;
    zp_backend_ctx *backend;
    zp_tracker tracker;
    int skip_verify;
    size_t budget; /* zp_prover_options.budget */
    /* 1: one proof (zp_prove): the matrices and a, b, c go as soon as
     * they are used, as before the prover kept them */
    int one_shot;
    zp_tracked matrices, abc, scratch;
    zp_tracked window;     /* a streamed proof's (BUF_WINDOW): freed when it ends */
    uint64_t matrices_key; /* the serial of the key the matrices are for; 0: none */
    /* the serial of the key whose coefficient list was scanned for its
     * order (a paged plan's need: a pass over the list, once per key),
     * and what it found; 0: none */
    uint64_t order_key;
    int order_in;
    /* that key's verification key prepared for the self-checks (a small
     * heap block; not for one proof, which verifies once) */
    zp_groth16_pvk *pvk;
    uint64_t pvk_key;
    uint64_t tables_key; /* the key the backend last prepared (its point tables) */
    /* proofs in a row with key run_key: the tables come after
     * PROVER_TABLES_AFTER of them (or zp_prover_prepare) */
    uint64_t run_key;
    size_t run_proofs;
    const int *stop; /* zp_prover_set_stop's flag; NULL: none */
};

zp_status zp_prover_create(zp_prover **out, const zp_prover_options *options, zp_error *err) {
    *out = NULL;
    zp_prover_options opt = {0, 0, NULL, 0, 0};
    if (options != NULL) opt = *options;
    zp_prover *pr = calloc(1, sizeof *pr);
    if (pr == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory creating a prover");
    zp_tracker_init(&pr->tracker);
    pr->skip_verify = opt.skip_verify;
    pr->budget = opt.budget;
    zp_status st = zp_pool_create(&pr->pool, opt.threads, err);
    if (st == ZP_OK) {
        pr->par = zp_pool_parallel(pr->pool);
        zp_backend_config cfg = {zp_pool_threads(pr->pool), ZP_SIMD_AUTO, &pr->tracker,
                                 opt.table_bytes ? opt.table_bytes : PROVER_TABLE_BYTES, BUF_TABLES};
        st = zp_backend_ctx_create(&pr->backend, opt.backend, &cfg, err);
    }
    if (st != ZP_OK) {
        zp_prover_destroy(pr);
        return st;
    }
    *out = pr;
    return ZP_OK;
}

void zp_prover_destroy(zp_prover *pr) {
    if (pr == NULL) return;
    /* the pool's threads first: unmapping while another thread of the
     * process lives costs each munmap a TLB shootdown of its CPU (a
     * one-shot 2^11 proof's teardown 0.48-0.65 -> 0.34-0.49 ms, and the
     * caller's unmaps after it cheaper too) */
    zp_pool_destroy(pr->pool);
    zp_track_free(&pr->tracker, &pr->matrices);
    zp_track_free(&pr->tracker, &pr->abc);
    zp_track_free(&pr->tracker, &pr->scratch);
    zp_track_free(&pr->tracker, &pr->window);
    zp_groth16_pvk_free(pr->pvk);
    zp_backend_ctx_destroy(pr->backend);
    free(pr);
}

size_t zp_prover_class_bytes(const zp_prover *pr, unsigned cls, size_t *peak) {
    zp_tracker *t = (zp_tracker *)&pr->tracker; /* atomics: loads do not change it */
    if (peak != NULL) *peak = (size_t)atomic_load(&t->class_peak[cls]);
    return (size_t)atomic_load(&t->class_bytes[cls]);
}

size_t zp_prover_threads(const zp_prover *pr) { return zp_pool_threads(pr->pool); }

/* buf holds at least bytes of that kind, reallocated when smaller. */
static zp_status ensure(zp_prover *pr, zp_tracked *buf, zp_backend_buffer need, unsigned cls, const char *what,
                        zp_error *err) {
    if (buf->p != NULL && buf->bytes >= need.bytes && buf->kind == need.kind) return ZP_OK;
    zp_track_free(&pr->tracker, buf);
    zp_status st = zp_track_alloc_kind(buf, &pr->tracker, need.kind, cls, 0, need.bytes, what, err);
    /* the matrices and a, b, c are written whole next; the MSM scratch
     * only in part, and prove_start maps what its plans use */
    if (st == ZP_OK && need.kind == ZP_MEM_HOST && cls != BUF_SCRATCH) zp_mem_prefault(buf->p, need.bytes);
    return st;
}

/* The key's matrices, built unless the prover has them for this key. */
static zp_status ensure_matrices(zp_prover *pr, const zp_key *key, double *seconds, zp_error *err) {
    *seconds = 0;
    if (pr->matrices.p != NULL && pr->matrices_key == key->serial) return ZP_OK;
    const zp_groth16_pk *pk = zp_zkey_pk(key->zkey);
    double t0 = zp_clock_now();
    size_t bytes = zp_groth16_matrices_size(pk);
    pr->matrices_key = 0;
    zp_status st = ensure(pr, &pr->matrices, (zp_backend_buffer){bytes, ZP_MEM_HOST}, BUF_MATRICES,
                          "the constraint matrices", err);
    if (st == ZP_OK) st = zp_groth16_matrices_build(pr->matrices.p, bytes, pk, &pr->par, err);
    if (st == ZP_OK) pr->matrices_key = key->serial;
    *seconds = zp_clock_now() - t0;
    return st;
}

/* The backend's point tables for key (NULL: proofs use none until the
 * next call), made unless it has them; *kept: their bytes, *seconds: the
 * time making them took (0 when they were there, or none were made). */
static zp_status ensure_tables(zp_prover *pr, const zp_key *key, size_t *kept, double *seconds, zp_error *err) {
    *seconds = 0;
    if (key == NULL) return zp_backend_prepare(pr->backend, NULL, 0, &pr->par, kept, err);
    double t0 = zp_clock_now();
    int fresh = pr->tables_key != key->serial;
    zp_status st = zp_backend_prepare(pr->backend, zp_zkey_pk(key->zkey), key->serial, &pr->par, kept, err);
    if (st != ZP_OK) return st;
    if (fresh && *kept > 0) *seconds = zp_clock_now() - t0;
    pr->tables_key = key->serial;
    return ZP_OK;
}

/* The key's prepared verification key, made unless the prover has it. */
static zp_status ensure_pvk(zp_prover *pr, const zp_key *key, zp_error *err) {
    if (pr->pvk != NULL && pr->pvk_key == key->serial) return ZP_OK;
    zp_groth16_pvk_free(pr->pvk);
    pr->pvk_key = 0;
    if ((pr->pvk = zp_groth16_pvk_of_pk(zp_zkey_pk(key->zkey))) == NULL)
        return zp_error_set(err, ZP_ERR_NOMEM, "out of memory preparing the verification key");
    pr->pvk_key = key->serial;
    return ZP_OK;
}

static size_t align64(size_t n) { return (n + 63) & ~(size_t)63; }

static size_t scratch_bytes_for(const zp_backend_sizes *sz) {
    return align64(sz->abc.bytes) + align64(sz->scratch.bytes) + 64;
}

size_t zp_prove_scratch_size(const zp_key *key, size_t threads) {
    zp_backend_ctx *ctx;
    zp_backend_config cfg = {threads ? threads : zp_pool_default_threads(), ZP_SIMD_AUTO, NULL, 0, 0};
    if (zp_backend_ctx_create(&ctx, NULL, &cfg, NULL) != ZP_OK) return 0;
    zp_backend_sizes sz;
    zp_backend_sizes_get(&sz, ctx, zp_zkey_pk(key->zkey));
    zp_backend_ctx_destroy(ctx);
    return scratch_bytes_for(&sz);
}

/* One proof with the key's points streamed (plan from
 * zp_groth16_stream_plan_make): synthesis, then the matrices and the
 * coefficients' pages go, then the transforms and the MSMs over a window
 * that is freed before this returns, whatever happens. The proof in p. */
static zp_status prove_streamed(zp_prover *pr, zp_groth16_proof *p, zp_prove_stats *stat, const zp_key *key,
                                uint64_t *w, const zp_groth16_stream_plan *plan, zp_error *err) {
    const zp_groth16_pk *pk = zp_zkey_pk(key->zkey);
    zp_stream_source src = {.fd = -1};
    const char *path;
    zp_zkey_stamp stamp;
    uint64_t off[ZP_SRC_SECTIONS];
    uint32_t id[ZP_SRC_SECTIONS];
    zp_status st = zp_zkey_point_sections(key->zkey, &path, &stamp, off, id, err);
    if (st == ZP_OK) st = zp_stream_source_open(&src, path, &stamp, off, id, err);
    /* no matrices: synthesis streams the coefficient list */
    zp_track_free(&pr->tracker, &pr->matrices);
    pr->matrices_key = 0;
    if (st == ZP_OK) {
        /* spilled: one vector of the three */
        size_t abc = plan->spill ? zp_groth16_abc_size(pk) / 3 : zp_groth16_abc_size(pk);
        st = zp_track_alloc(&pr->abc, &pr->tracker, BUF_ABC, 0, abc, "the a, b, c vectors", err);
    }
    if (st == ZP_OK) {
        st = zp_track_alloc(&pr->scratch, &pr->tracker, BUF_SCRATCH, 0, plan->scratch_bytes, "the streamed MSMs", err);
    }
    if (st == ZP_OK) {
        st = zp_track_alloc(&pr->window, &pr->tracker, BUF_WINDOW, 0, plan->window_bytes, "the key's window", err);
    }
    double t1 = zp_clock_now();
    if (st == ZP_OK) {
        /* the reads, their thread and the scratch file are the engine's;
         * the prover math sees them through io */
        void *scratch = (void *)align64((size_t)(uintptr_t)pr->scratch.p);
        st = zp_stream_prove(p, pk, w, pr->abc.p, scratch, pr->window.p, &src, plan, &pr->par, err);
    }
    stat->start_s = zp_clock_now() - t1;
    stat->window_bytes = plan->window_bytes;
    stat->spilled = plan->spill;
    stat->paged = plan->page;
    /* nothing of a streamed proof stays: the next proof plans anew */
    zp_track_free(&pr->tracker, &pr->window);
    zp_track_free(&pr->tracker, &pr->scratch);
    zp_track_free(&pr->tracker, &pr->abc);
    zp_stream_source_close(&src);
    return st;
}

void zp_prover_set_stop(zp_prover *pr, const int *stop) { pr->stop = stop; }

/* ZP_ERR_UNSUPPORTED, naming the stage it stopped before, when the
 * prover's stop flag is set; ZP_OK otherwise. */
static zp_status check_stop(const zp_prover *pr, const char *before, zp_error *err) {
    if (pr->stop == NULL || !__atomic_load_n(pr->stop, __ATOMIC_RELAXED)) return ZP_OK;
    return zp_error_set(err, ZP_ERR_UNSUPPORTED, "the proof was stopped before %s", before);
}

/* The self-check (unless skipped), then the proof encoded. */
static zp_status prove_check(zp_prover *pr, zp_proof *proof, zp_prove_stats *stats, zp_prove_stats *stat,
                             const zp_groth16_proof *p, const zp_groth16_pk *pk, const uint64_t *w, zp_error *err) {
    if (!pr->skip_verify) {
        zp_status st = check_stop(pr, "its self-check", err);
        if (st != ZP_OK) return st;
        double t4 = zp_clock_now();
        int ok = pr->pvk != NULL ? zp_groth16_verify_prepared(pr->pvk, zp_groth16_witness_public(w), p, &pr->par)
                                 : zp_groth16_verify_with_pk(pk, w, p, &pr->par);
        stat->verify_s = zp_clock_now() - t4;
        if (ok != 1) {
            return ok < 0 ? zp_error_set(err, ZP_ERR_NOMEM, "out of memory verifying the proof")
                          : zp_error_set(err, ZP_ERR_UNSATISFIED,
                                         "the witness does not satisfy the circuit (its proof does not verify)");
        }
    }
    proof_encode(proof, p);
    pr->run_proofs++;
    if (stats != NULL) *stats = *stat;
    return ZP_OK;
}

/* One proof; abc and scratch are the caller's (mem != NULL) or the
 * prover's own. */
static zp_status prover_prove(zp_prover *pr, zp_proof *proof, zp_prove_stats *stats, const zp_key *key,
                              const zp_witness *witness, void *mem, size_t mem_bytes, zp_error *err) {
    const zp_groth16_pk *pk = zp_zkey_pk(key->zkey);
    const uint64_t *w = zp_wtns_values(witness->wtns);
    memset(proof, 0, sizeof *proof);
    zp_status st = zp_groth16_check_witness(pk, zp_wtns_curve(witness->wtns), zp_wtns_count(witness->wtns), w, err);
    if (st == ZP_OK) st = check_stop(pr, "it started", err);
    if (st != ZP_OK) return st;
    /* what the backend keeps for the key (the point tables) first: it
     * changes the sizes; the caller's scratch was sized without it */
    if (pr->run_key != key->serial) {
        pr->run_key = key->serial;
        pr->run_proofs = 0;
    }
    zp_groth16_stream_plan plan = {0};
    if (mem == NULL && pr->budget != 0) {
        /* what earlier proofs left (buffers sized for another key, the
         * tables) goes first: the budget is for this proof */
        if (pr->matrices_key != key->serial) zp_track_free(&pr->tracker, &pr->matrices);
        zp_track_free(&pr->tracker, &pr->abc);
        zp_track_free(&pr->tracker, &pr->scratch);
        size_t none;
        double none_s;
        st = ensure_tables(pr, NULL, &none, &none_s, err);
        if (st != ZP_OK) return st;
        /* resident throughout: the witness, and the matrices when kept */
        size_t wbytes = zp_track_round(zp_groth16_witness_bytes(pk));
        size_t fixed = wbytes + (pr->matrices.p != NULL ? pr->matrices.bytes : 0);
        /* an earlier proof's synthesis may have left the coefficients'
         * pages resident: a streamed proof never maps them, an in-memory
         * one maps them again when it reads them */
        zp_zkey_release_coefs(key->zkey);
        zp_groth16_stream_need need = {zp_prover_threads(pr), pr->budget, fixed, wbytes, pr->matrices.p != NULL, 0};
        st = zp_groth16_stream_plan_make(&plan, pk, &need, err);
        /* ZKPIPE_STREAM_PAGE=0: never paged (tests of the spilled path) */
        const char *page_env = getenv("ZKPIPE_STREAM_PAGE");
        int may_page = page_env == NULL || strcmp(page_env, "0") != 0;
        if (may_page && (st == ZP_ERR_NOMEM ||
                         (st == ZP_OK && plan.spill && plan.chunk_g1 < ((size_t)1 << ZP_STREAM_GOOD_CHUNK_LOG)))) {
            /* tight: a paged proof may fit where a spilled one does not,
             * or with a larger window, if the list is in order (a scan
             * over it, its pages given back behind) */
            if (pr->order_key != key->serial) {
                zp_groth16_pager pager = {zp_zkey_release_span, key->zkey};
                (void)zp_groth16_matrices_size_paged(pk, &pager, &pr->order_in);
                pr->order_key = key->serial;
            }
            need.in_order = pr->order_in;
            if (need.in_order) st = zp_groth16_stream_plan_make(&plan, pk, &need, err);
        }
        if (st != ZP_OK) return st;
    }
    int want = mem == NULL && !plan.streamed && pr->budget == 0 &&
               (pr->tables_key == key->serial || pr->run_proofs >= PROVER_TABLES_AFTER);
    size_t kept;
    double tables_s;
    st = ensure_tables(pr, want ? key : NULL, &kept, &tables_s, err);
    if (st != ZP_OK) return st;
    zp_prove_stats stat = {.threads = zp_prover_threads(pr), .tables_s = tables_s, .tables_bytes = kept};
    zp_groth16_proof p;
    if (plan.streamed) {
        if (!pr->skip_verify && !pr->one_shot) st = ensure_pvk(pr, key, err);
        /* paged, the witness's pages are let go and read back during
         * the proof: its values are this library's memory (zp_mem_map in
         * wtns.c), writable; zkpipe.h says not to share it meanwhile */
        if (st == ZP_OK) st = prove_streamed(pr, &p, &stat, key, (uint64_t *)(uintptr_t)w, &plan, err);
        if (st != ZP_OK) return st;
        return prove_check(pr, proof, stats, &stat, &p, pk, w, err);
    }
    zp_backend_sizes sz;
    zp_backend_sizes_get(&sz, pr->backend, pk);
    void *abc, *scratch;
    if (mem != NULL) {
        size_t need = scratch_bytes_for(&sz);
        if (sz.abc.kind != ZP_MEM_HOST || sz.scratch.kind != ZP_MEM_HOST) {
            return zp_error_set(err, ZP_ERR_UNSUPPORTED, "the %s backend needs %s memory: it cannot use the caller's",
                                zp_backend_ctx_name(pr->backend), zp_mem_kind_name(sz.scratch.kind));
        }
        if (mem_bytes < need) {
            return zp_error_set(err, ZP_ERR_ARG,
                                "the scratch buffer has %zu bytes, this key needs %zu with %zu threads", mem_bytes,
                                need, zp_prover_threads(pr));
        }
        abc = (void *)align64((size_t)(uintptr_t)mem);
        scratch = (char *)abc + align64(sz.abc.bytes);
    } else {
        st = ensure(pr, &pr->abc, sz.abc, BUF_ABC, "the a, b, c vectors", err);
        if (st == ZP_OK) st = ensure(pr, &pr->scratch, sz.scratch, BUF_SCRATCH, "the MSM buckets", err);
        if (st != ZP_OK) return st;
        abc = pr->abc.p;
        scratch = pr->scratch.p;
    }
    st = ensure_matrices(pr, key, &stat.matrices_s, err);
    if (st == ZP_OK && !pr->one_shot && !pr->skip_verify) st = ensure_pvk(pr, key, err);
    if (st == ZP_OK) st = check_stop(pr, "its synthesis", err);
    if (st != ZP_OK) return st;
    double t1 = zp_clock_now();
    zp_groth16_synthesize(abc, pk, pr->matrices.p, w, &pr->par);
    if (pr->one_shot) { /* one proof needs them once, and the key's coefficients with them */
        zp_track_free(&pr->tracker, &pr->matrices);
        pr->matrices_key = 0;
        zp_zkey_release_coefs(key->zkey);
    }
    double t2 = zp_clock_now();
    zp_groth16_pending pend;
    if ((st = check_stop(pr, "its transforms and G1 MSMs", err)) != ZP_OK) return st;
    st = zp_backend_prove_start(pr->backend, &pend, pk, w, abc, scratch, &pr->par, err);
    if (pr->one_shot) zp_track_free(&pr->tracker, &pr->abc); /* a, b, c are done with */
    if (st != ZP_OK) return st;
    double t3 = zp_clock_now();
    /* pend holds values only: nothing to release when it stops here */
    if ((st = check_stop(pr, "its G2 MSM", err)) != ZP_OK) return st;
    st = zp_backend_prove_finish(pr->backend, &p, &pend, pk, w, scratch, &pr->par, err);
    memset(&pend, 0, sizeof pend);
    if (st != ZP_OK) return st;
    double t4 = zp_clock_now();
    stat.synth_s = t2 - t1;
    stat.start_s = t3 - t2;
    stat.finish_s = t4 - t3;
    return prove_check(pr, proof, stats, &stat, &p, pk, w, err);
}

zp_status zp_prover_prepare(zp_prover *pr, const zp_key *key, zp_error *err) {
    double seconds;
    size_t kept;
    zp_status st = ensure_matrices(pr, key, &seconds, err);
    if (st == ZP_OK && !pr->skip_verify) st = ensure_pvk(pr, key, err);
    if (st == ZP_OK) st = ensure_tables(pr, key, &kept, &seconds, err);
    return st;
}

zp_status zp_prover_prove(zp_prover *pr, zp_proof *proof, zp_prove_stats *stats, const zp_key *key,
                          const zp_witness *witness, zp_error *err) {
    return prover_prove(pr, proof, stats, key, witness, NULL, 0, err);
}

zp_status zp_prover_prove_scratch(zp_prover *pr, zp_proof *proof, zp_prove_stats *stats, const zp_key *key,
                                  const zp_witness *witness, void *scratch, size_t scratch_bytes, zp_error *err) {
    if (scratch == NULL) {
        memset(proof, 0, sizeof *proof);
        return zp_error_set(err, ZP_ERR_ARG, "no scratch buffer given");
    }
    return prover_prove(pr, proof, stats, key, witness, scratch, scratch_bytes, err);
}

zp_status zp_prove(zp_proof *proof, zp_prove_stats *stats, const zp_key *key, const zp_witness *witness,
                   const zp_prove_options *options, zp_error *err) {
    zp_prover *pr;
    memset(proof, 0, sizeof *proof);
    zp_prover_options opt = {0, 0, NULL, 0, 0};
    if (options != NULL) {
        opt.threads = options->threads;
        opt.skip_verify = options->skip_verify;
        opt.budget = options->budget;
    }
    opt.table_bytes = 1; /* one proof: building tables costs more than they save */
    zp_status st = zp_prover_create(&pr, &opt, err);
    if (st != ZP_OK) return st;
    pr->one_shot = 1;
    pr->stop = options != NULL ? options->stop : NULL;
    st = zp_prover_prove(pr, proof, stats, key, witness, err);
    zp_prover_destroy(pr);
    return st;
}

zp_status zp_proof_write(const char *proof_path, const char *public_path, const zp_proof *proof, const zp_key *key,
                         const zp_witness *witness, zp_error *err) {
    zp_groth16_proof p;
    zp_status st = proof_decode(&p, proof, err);
    if (st == ZP_OK && proof->curve != zp_key_curve(key)) {
        st = zp_error_set(err, ZP_ERR_MISMATCH, "the proof is for curve %s but the key is for %s",
                          zp_curve_name(proof->curve), zp_curve_name(zp_key_curve(key)));
    }
    if (st == ZP_OK && proof_path != NULL) st = zp_json_proof_write(proof_path, &p, err);
    if (st == ZP_OK && public_path != NULL) {
        st = zp_json_public_write(public_path, zp_groth16_witness_public(zp_wtns_values(witness->wtns)),
                                  zp_key_public(key), err);
    }
    return st;
}

zp_status zp_verify_files(const char *vk_path, const char *public_path, const char *proof_path, zp_error *err) {
    zp_groth16_vk vk = {0};
    uint64_t *pub = NULL;
    size_t n_pub = 0;
    zp_groth16_proof proof;
    zp_status st = zp_json_vk_read(&vk, vk_path, err);
    if (st == ZP_OK) st = zp_json_proof_read(&proof, proof_path, vk.curve, err);
    if (st == ZP_OK) st = zp_json_public_read(&pub, &n_pub, public_path, vk.curve, err);
    if (st == ZP_OK && n_pub != vk.n_public) {
        st = zp_error_set(err, ZP_ERR_MISMATCH, "%s has %zu public signals but the verification key %s expects %u",
                          public_path, n_pub, vk_path, vk.n_public);
    }
    if (st == ZP_OK) {
        int ok = zp_groth16_verify(&vk, pub, &proof);
        if (ok < 0) st = zp_error_set(err, ZP_ERR_NOMEM, "out of memory verifying %s", proof_path);
        if (ok == 0) {
            st = zp_error_set(err, ZP_ERR_INVALID, "invalid proof: %s does not verify for %s with %s", proof_path,
                              public_path, vk_path);
        }
    }
    free(pub);
    zp_groth16_vk_free(&vk);
    return st;
}

/* ---- for the binding's block (api_bind.c, engine/api_internal.h) ------- */

zp_status zp_api_key_wrap(zp_key **out, zp_zkey *zkey, void *copy, size_t copy_bytes, zp_error *err) {
    *out = NULL;
    zp_key *key = calloc(1, sizeof *key);
    if (key == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    key->zkey = zkey;
    key->copy = copy;
    key->copy_bytes = copy_bytes;
    key->serial = atomic_fetch_add(&key_serials, 1) + 1;
    *out = key;
    return ZP_OK;
}

zp_status zp_api_witness_wrap(zp_witness **out, zp_wtns *wtns, zp_error *err) {
    *out = NULL;
    zp_witness *w = calloc(1, sizeof *w);
    if (w == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    w->wtns = wtns;
    *out = w;
    return ZP_OK;
}

const zp_zkey *zp_api_key_zkey(const zp_key *key) { return key->zkey; }
const zp_wtns *zp_api_witness_wtns(const zp_witness *witness) { return witness->wtns; }
zp_status zp_api_proof_decode(zp_groth16_proof *out, const zp_proof *in, zp_error *err) {
    return proof_decode(out, in, err);
}
const zp_tracker *zp_api_prover_tracker(const zp_prover *pr) { return &pr->tracker; }
const int *zp_api_prover_stop(const zp_prover *pr) { return pr->stop; }
