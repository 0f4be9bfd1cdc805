#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/parallel.h"
#include "base/random.h"
#include "groth16/curves.h"
#include "groth16/groth16.h"
#include "groth16/stream.h"
#include "groth16/synth.h"
#include "mem/large.h"
#include "mem/track.h"
#include "msm/msm.h"
#include "ntt/ntt.h"
#include "pairing/pairing.h"

#define ZP_G zp_bn254
#include "groth16/prove_impl.h"
#define ZP_G zp_bls12
#include "groth16/prove_impl.h"

/* The steps of the table that prove_impl.h keeps static. */
#define ZP_GROTH16_PROVE_EXPORT_(cid, g, G)                                        \
    size_t g##_groth16_msm_scratch_size(const zp_groth16_pk *pk, size_t threads) { \
        return g##_msm_scratch(pk, threads);                                       \
    }
ZP_CURVE_LIST(ZP_GROTH16_PROVE_EXPORT_)

/* ---- streamed proofs (stream.h) ---- */

typedef struct {
    size_t (*scratch)(const zp_groth16_pk *pk, size_t threads, size_t chunk_g1, size_t chunk_g2);
    zp_status (*prove)(zp_groth16_proof *proof, const zp_groth16_pk *pk, uint64_t *witness, const uint64_t r[4],
                       const uint64_t s[4], void *abc, void *scratch, const zp_groth16_stream_cfg *cfg,
                       const zp_parallel *par, zp_error *err);
} stream_fns;

static const stream_fns *stream_of(zp_curve curve) {
    static const stream_fns bn = {zp_bn254_groth16_stream_scratch, zp_bn254_groth16_prove_stream},
                            bls = {zp_bls12_groth16_stream_scratch, zp_bls12_groth16_prove_stream};
    return curve == ZP_CURVE_BN254 ? &bn : curve == ZP_CURVE_BLS12_381 ? &bls : NULL;
}

static size_t max3(size_t a, size_t b, size_t c) {
    size_t m = a > b ? a : b;
    return m > c ? m : c;
}

/* The smallest block of rows a paged synthesis sums at a time: two of
 * them live in the scratch. */
#define PAGE_MIN_BLOCK_ROWS ((size_t)1 << 12)

zp_status zp_groth16_stream_plan_make(zp_groth16_stream_plan *plan, const zp_groth16_pk *pk,
                                      const zp_groth16_stream_need *need, zp_error *err) {
    memset(plan, 0, sizeof *plan);
    const stream_fns *fns = stream_of(pk->curve);
    const zp_groth16_curve *gc;
    zp_status st = zp_groth16_curve_lookup(&gc, pk->curve, err);
    if (st != ZP_OK) return st;
    if (fns == NULL) return zp_error_set(err, ZP_ERR_ARG, "no streamed prover for curve %s", zp_curve_name(pk->curve));
    size_t g1 = zp_g1_bytes(pk->curve), g2 = zp_g2_bytes(pk->curve), n = pk->domain_size, v = pk->n_vars;
    size_t budget = need->budget, fixed = need->fixed, threads = need->threads;
    size_t wit = need->witness < fixed ? need->witness : fixed, other = fixed - wit;
    size_t mat = need->keeps_matrices ? 0 : zp_track_round(zp_groth16_matrices_bound(pk));
    size_t coefs = zp_track_round(pk->n_coefs * ZP_ZKEY_COEF_BYTES);
    size_t abc = zp_track_round(gc->abc_size(pk)), h = zp_track_round(n * ZP_FR_BYTES);
    size_t points = (2 * v + (v - pk->n_public - 1) + n) * g1 + v * g2;
    size_t inmem_scratch = zp_track_round(gc->msm_scratch_size(pk, threads));
    /* in memory: synthesis reads the coefficients through the matrices;
     * the MSMs read every point of the mapped key (the coefficients'
     * pages given back, the matrices freed, before) */
    size_t syn = coefs + mat + abc, msm = abc + inmem_scratch + points;
    plan->in_memory = fixed + ZP_STREAM_SLACK + (syn > msm ? syn : msm);
    size_t longest = v > n ? v : n;
    int top = ZP_STREAM_MIN_CHUNK_LOG;
    while (top < 30 && ((size_t)1 << top) < longest) top++;
    /* mode 0: a, b, c resident while a window of chunks of at least
     * 2^ZP_STREAM_SPILL_BELOW_LOG points fits beside them; 1: spilled, one
     * vector at a time, the others in the scratch file (stream.h), any
     * chunk; 2: paged, the witness and one vector never resident at once
     * (a list in order only; chunks no longer than the domain, whose
     * vector's memory holds a chunk's scalars) */
    int chosen = -1; /* the chunk's log, of the mode chosen */
    for (int mode = 0; mode < 3; mode++) {
        if (mode == 2 && !need->in_order) break;
        int bottom = mode ? ZP_STREAM_MIN_CHUNK_LOG : ZP_STREAM_SPILL_BELOW_LOG;
        for (int k = top; k >= bottom; k--) {
            size_t c1 = (size_t)1 << k, half = zp_track_round(c1 * g1), c2 = half / g2;
            if (mode == 2 && c1 > n) continue;
            size_t window = 2 * half, scratch = zp_track_round(fns->scratch(pk, threads, c1, c2) + 64);
            size_t peak;
            if (mode < 2) {
                size_t vecs = mode ? h : abc;
                size_t ph[3] = {vecs + window, vecs + scratch + window, h + scratch + window};
                peak = fixed + ZP_STREAM_SLACK + max3(ph[0], ph[1], ph[2]);
            } else {
                size_t blocks = zp_track_round(2 * PAGE_MIN_BLOCK_ROWS * ZP_FR_BYTES + 64);
                if (scratch < blocks) scratch = blocks;
                peak = other + ZP_STREAM_SLACK + (wit > h ? wit : h) + scratch + window;
            }
            if (mode) plan->minimum = peak; /* the smallest chunk's, at the end */
            /* the largest window that fits; a later mode (more I/O) only
             * for a larger one where the earlier's chunks are short */
            if (k > chosen && chosen < ZP_STREAM_GOOD_CHUNK_LOG && (budget == 0 || peak <= budget)) {
                chosen = k;
                plan->spill = mode >= 1;
                plan->page = mode == 2;
                plan->chunk_g1 = c1;
                plan->chunk_g2 = c2;
                plan->chunk_coefs = half / ZP_ZKEY_COEF_BYTES;
                plan->window_bytes = window;
                plan->scratch_bytes = scratch;
            }
        }
    }
    if (budget == 0 || plan->in_memory <= budget) {
        plan->page = 0; /* in memory: nothing is paged */
        return ZP_OK;
    }
    plan->streamed = 1;
    if (chosen < 0) {
        return zp_error_set(err, ZP_ERR_NOMEM,
                            "a memory budget of %.1f MiB is below the minimum for this %s key of domain 2^%u: "
                            "%.1f MiB (in memory it needs %.1f MiB; docs/architecture.md, \"Proofs larger than "
                            "the budget\")",
                            (double)budget / (1 << 20), zp_curve_name(pk->curve), (unsigned)__builtin_ctz(n),
                            (double)plan->minimum / (1 << 20), (double)plan->in_memory / (1 << 20));
    }
    return ZP_OK;
}

zp_status zp_groth16_prove_stream(zp_groth16_proof *proof, const zp_groth16_pk *pk, uint64_t *witness, void *abc,
                                  void *scratch, const zp_groth16_stream_cfg *cfg, const zp_parallel *par,
                                  zp_error *err) {
    memset(proof, 0, sizeof *proof);
    const stream_fns *fns = stream_of(pk->curve);
    if (fns == NULL) return zp_error_set(err, ZP_ERR_ARG, "no streamed prover for curve %s", zp_curve_name(pk->curve));
    uint64_t r[4], s[4];
    zp_status st = zp_groth16_random_scalar(r, pk->curve, err);
    if (st == ZP_OK) st = zp_groth16_random_scalar(s, pk->curve, err);
    if (st == ZP_OK) st = fns->prove(proof, pk, witness, r, s, abc, scratch, cfg, par, err);
    memset(r, 0, sizeof r);
    memset(s, 0, sizeof s);
    if (st != ZP_OK) memset(proof, 0, sizeof *proof);
    return st;
}

/* 0 for a key of an unknown curve: no reader or setup makes one, and
 * prove_start refuses it. */
size_t zp_groth16_abc_size(const zp_groth16_pk *pk) {
    const zp_groth16_curve *gc = zp_groth16_curve_get(pk->curve);
    return gc != NULL ? gc->abc_size(pk) : 0;
}

size_t zp_groth16_msm_scratch_size(const zp_groth16_pk *pk, size_t threads) {
    const zp_groth16_curve *gc = zp_groth16_curve_get(pk->curve);
    return gc != NULL ? gc->msm_scratch_size(pk, threads) : 0;
}

size_t zp_groth16_tables_size(const zp_groth16_pk *pk, size_t threads) {
    const zp_groth16_curve *gc = zp_groth16_curve_get(pk->curve);
    return gc != NULL ? gc->tables_size(pk, threads) : 0;
}

zp_status zp_groth16_tables_build(void *mem, size_t bytes, const zp_groth16_pk *pk, size_t threads,
                                  const zp_parallel *par, zp_error *err) {
    const zp_groth16_curve *gc;
    zp_status st = zp_groth16_curve_lookup(&gc, pk->curve, err);
    if (st != ZP_OK) return st;
    return gc->tables_build(mem, bytes, pk, threads, par, err);
}

zp_status zp_groth16_random_scalar(uint64_t out[4], zp_curve curve, zp_error *err) {
    const zp_curve_desc *d;
    zp_status st = zp_curve_lookup(&d, curve, err);
    if (st != ZP_OK) return st;
    const uint64_t *r = d->fr_modulus;
    uint64_t mask = d->fr_bits % 64 ? (1ULL << (d->fr_bits % 64)) - 1 : ~0ULL;
    /* Rejection sampling: uniform, and each try succeeds with p > 1/2. The
     * test is constant time (the borrow of out - r, and an OR of the limbs),
     * so the only thing the loop's branch reveals is whether a draw was
     * kept, which says nothing about the value kept. */
    uint64_t keep;
    do {
        st = zp_random_bytes(out, 32, err);
        if (st != ZP_OK) return st;
        out[3] &= mask;
        uint64_t diff[4];
        uint64_t below = zp_limbs_sub(diff, out, r, 4);
        uint64_t nonzero = (uint64_t)(zp_limbs_is_zero(out, 4) ^ 1);
        keep = below & nonzero;
    } while (!keep);
    return ZP_OK;
}

zp_status zp_groth16_check_witness(const zp_groth16_pk *pk, zp_curve witness_curve, size_t n_witness,
                                   const uint64_t *witness, zp_error *err) {
    if (witness_curve != pk->curve) {
        return zp_error_set(err, ZP_ERR_MISMATCH, "the witness is for curve %s but the key is for %s",
                            zp_curve_name(witness_curve), zp_curve_name(pk->curve));
    }
    if (n_witness != pk->n_vars) {
        return zp_error_set(err, ZP_ERR_MISMATCH,
                            "the witness has %zu values but the key's circuit has %u wires: "
                            "the witness is for another circuit",
                            n_witness, pk->n_vars);
    }
    if (witness[0] != 1 || witness[1] != 0 || witness[2] != 0 || witness[3] != 0) {
        return zp_error_set(err, ZP_ERR_FORMAT, "the witness's first value (the constant signal) is not 1");
    }
    return ZP_OK;
}

zp_status zp_groth16_prove_start_with(zp_groth16_pending *pend, const zp_groth16_pk *pk, const uint64_t *witness,
                                      const uint64_t r[4], const uint64_t s[4], void *abc, void *msm_scratch,
                                      const zp_parallel *par, zp_error *err) {
    const zp_groth16_curve *gc;
    zp_status st = zp_groth16_curve_lookup(&gc, pk->curve, err);
    if (st != ZP_OK) return st;
    return gc->prove_start(pend, pk, witness, r, s, abc, msm_scratch, par);
}

zp_status zp_groth16_prove_start(zp_groth16_pending *pend, const zp_groth16_pk *pk, const uint64_t *witness, void *abc,
                                 void *msm_scratch, const zp_parallel *par, zp_error *err) {
    uint64_t r[4], s[4];
    zp_status st = zp_groth16_random_scalar(r, pk->curve, err);
    if (st == ZP_OK) st = zp_groth16_random_scalar(s, pk->curve, err);
    if (st != ZP_OK) return st;
    st = zp_groth16_prove_start_with(pend, pk, witness, r, s, abc, msm_scratch, par, err);
    memset(r, 0, sizeof r);
    memset(s, 0, sizeof s);
    return st;
}

void zp_groth16_prove_finish(zp_groth16_proof *proof, const zp_groth16_pending *pend, const zp_groth16_pk *pk,
                             const uint64_t *witness, void *msm_scratch, const zp_parallel *par) {
    const zp_groth16_curve *gc = zp_groth16_curve_get(pk->curve);
    if (gc == NULL || pend->curve != pk->curve) {
        /* prove_start refused this key, so there is no pending proof: leave
         * one that verifies for nothing (curve NONE) */
        memset(proof, 0, sizeof *proof);
        return;
    }
    gc->prove_finish(proof, pend, pk, witness, msm_scratch, par);
}

static int verify_on(const zp_groth16_vk *vk, const uint64_t *pub, const zp_groth16_proof *proof,
                     const zp_parallel *par) {
    if (proof->curve != vk->curve) return 0;
    const zp_groth16_curve *gc = zp_groth16_curve_get(vk->curve);
    if (gc == NULL) return -1;
    return gc->verify(vk, pub, proof, par);
}

int zp_groth16_verify(const zp_groth16_vk *vk, const uint64_t *pub, const zp_groth16_proof *proof) {
    return verify_on(vk, pub, proof, NULL);
}

void zp_groth16_vk_of_pk(zp_groth16_vk *vk, const zp_groth16_pk *pk) {
    memset(vk, 0, sizeof *vk);
    vk->curve = pk->curve;
    vk->n_public = pk->n_public;
    memcpy(vk->alpha1, pk->alpha1, sizeof vk->alpha1);
    memcpy(vk->beta2, pk->beta2, sizeof vk->beta2);
    memcpy(vk->gamma2, pk->gamma2, sizeof vk->gamma2);
    memcpy(vk->delta2, pk->delta2, sizeof vk->delta2);
    vk->ic = (uint64_t *)(uintptr_t)pk->ic; /* read only: verify does not write it */
}

int zp_groth16_verify_with_pk(const zp_groth16_pk *pk, const uint64_t *witness, const zp_groth16_proof *proof,
                              const zp_parallel *par) {
    zp_groth16_vk vk;
    zp_groth16_vk_of_pk(&vk, pk);
    return verify_on(&vk, zp_groth16_witness_public(witness), proof, par);
}

struct zp_groth16_pvk {
    zp_groth16_vk vk; /* ic borrowed */
    const zp_groth16_curve *gc;
    uint64_t data[]; /* the curve's part */
};

zp_groth16_pvk *zp_groth16_pvk_new(const zp_groth16_vk *vk) {
    const zp_groth16_curve *gc = zp_groth16_curve_get(vk->curve);
    if (gc == NULL) return NULL;
    zp_groth16_pvk *pvk = malloc(sizeof *pvk + gc->pvk_size());
    if (pvk == NULL) return NULL;
    pvk->vk = *vk;
    pvk->gc = gc;
    gc->pvk_make(pvk->data, vk);
    return pvk;
}

zp_groth16_pvk *zp_groth16_pvk_of_pk(const zp_groth16_pk *pk) {
    zp_groth16_vk vk;
    zp_groth16_vk_of_pk(&vk, pk);
    return zp_groth16_pvk_new(&vk);
}

void zp_groth16_pvk_free(zp_groth16_pvk *pvk) { free(pvk); }

int zp_groth16_verify_prepared(const zp_groth16_pvk *pvk, const uint64_t *pub, const zp_groth16_proof *proof,
                               const zp_parallel *par) {
    if (proof->curve != pvk->vk.curve) return 0;
    return pvk->gc->verify_prepared(pvk->data, &pvk->vk, pub, proof, par);
}
