#define _GNU_SOURCE /* explicit_bzero */
#include "groth16/setup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "curve/desc.h"
#include "field/mont.h"
#include "groth16/curves.h"
#include "groth16/groth16.h"
#include "msm/fixed_base.h"
#include "ntt/ntt.h"

/* Where the streaming setup's bytes go (setup.h), and the first error,
 * sticky, so the loops need not check each write. */
typedef struct zp_setup_sink {
    zp_setup_put_fn put;
    void *put_arg;
    zp_status st;
    zp_error err;
    const zp_groth16_setup_opts *opts;
    uint64_t done, total;
} zp_setup_sink;

static void zp_setup_put(zp_setup_sink *s, uint32_t id, uint64_t pos, const void *p, size_t n) {
    if (s->st != ZP_OK || n == 0) return;
    s->st = s->put(s->put_arg, id, pos, p, n, &s->err);
}

static void zp_setup_progress(zp_setup_sink *s, uint64_t work) {
    s->done += work;
    if (s->opts != NULL && s->opts->progress != NULL) s->opts->progress(s->opts->progress_arg, s->done, s->total);
}

/* The i-th scalar drawn from a seed (then *draw advances): splitmix64 over
 * the seed's words and a counter, masked to r's bits, redrawn until below
 * r and nonzero. Deterministic, for test keys only (setup.h). */
static zp_status zp_setup_seeded_scalar(uint64_t out[4], zp_curve curve, const uint8_t *seed, uint64_t *draw,
                                        zp_error *err) {
    const zp_curve_desc *d;
    zp_status st = zp_curve_lookup(&d, curve, err);
    if (st != ZP_OK) return st;
    uint64_t mask = d->fr_bits % 64 ? (1ULL << (d->fr_bits % 64)) - 1 : ~0ULL, sw[4];
    memcpy(sw, seed, 32);
    for (;;) {
        for (int i = 0; i < 4; i++) {
            uint64_t z = sw[i] ^ (0x9e3779b97f4a7c15ULL * (4 * *draw + (uint64_t)i + 1));
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
            out[i] = z ^ (z >> 31);
        }
        (*draw)++;
        out[3] &= mask;
        uint64_t diff[4];
        if (zp_limbs_sub(diff, out, d->fr_modulus, 4) && !zp_limbs_is_zero(out, 4)) break;
    }
    explicit_bzero(sw, sizeof sw);
    return ZP_OK;
}

/* setup_impl.h names its key's curve by <prefix>_curve_id. */
#define ZP_SETUP_CURVE_ID_(cid, g, G) static const zp_curve g##_curve_id = cid;
ZP_CURVE_LIST(ZP_SETUP_CURVE_ID_)

#define ZP_G zp_bn254
#include "groth16/setup_impl.h"
#define ZP_G zp_bls12
#include "groth16/setup_impl.h"

/* The table's entry for setup_impl.h's static per-curve setup. */
#define ZP_GROTH16_SETUP_EXPORT_(cid, g, G)                                                                \
    zp_status g##_groth16_setup(zp_groth16_setup_key *key, const zp_constraint_system *cs, unsigned log_n, \
                                const zp_parallel *par, zp_error *err) {                                   \
        return g##_setup(key, cs, log_n, NULL, par, err);                                                  \
    }
ZP_CURVE_LIST(ZP_GROTH16_SETUP_EXPORT_)

/* Validates the constraint system's shape before anything is allocated. */
static zp_status check_system_to(const zp_constraint_system *cs, unsigned *log_n, unsigned max_log, zp_error *err) {
    if (zp_curve_get(cs->curve) == NULL) {
        return zp_error_set(err, ZP_ERR_UNSUPPORTED, "setup: unsupported curve %d (zkpipe supports %s)", (int)cs->curve,
                            ZP_CURVE_NAMES);
    }
    if (cs->n_wires < 1 || cs->n_public >= cs->n_wires) {
        return zp_error_set(err, ZP_ERR_FORMAT, "setup: %u public signals but only %u wires", cs->n_public,
                            cs->n_wires);
    }
    /* snarkjs: domainSize = 2^(floor(log2(constraints + public)) + 1) */
    uint64_t rows = (uint64_t)cs->n_constraints + cs->n_public;
    unsigned l = 0;
    while (((uint64_t)1 << (l + 1)) <= rows) l++;
    *log_n = rows == 0 ? 1 : l + 1;
    /* H needs the 2N-domain's roots of unity */
    unsigned adicity = zp_curve_get(cs->curve)->fr_two_adicity;
    if (max_log > adicity - 1) max_log = adicity - 1;
    if (*log_n > max_log) {
        return zp_error_set(err, ZP_ERR_UNSUPPORTED,
                            "setup: %u constraints need a 2^%u domain; this setup stops at 2^%u", cs->n_constraints,
                            *log_n, max_log);
    }
    for (int k = 0; k < 3; k++) {
        const zp_constraint_matrix *m = &cs->m[k];
        for (uint32_t i = 0; i < cs->n_constraints; i++) {
            if (m->row_start[i] > m->row_start[i + 1]) {
                return zp_error_set(err, ZP_ERR_FORMAT, "setup: constraint %u has a bad term range", i);
            }
        }
        for (uint64_t j = 0; j < m->row_start[cs->n_constraints]; j++) {
            if (m->wire[j] >= cs->n_wires) {
                return zp_error_set(err, ZP_ERR_FORMAT, "setup: a term names wire %u of %u", m->wire[j], cs->n_wires);
            }
        }
    }
    return ZP_OK;
}

static zp_status check_system(const zp_constraint_system *cs, unsigned *log_n, zp_error *err) {
    return check_system_to(cs, log_n, ZP_SETUP_MAX_LOG_DOMAIN, err);
}

static zp_status check_system_stream(const zp_constraint_system *cs, unsigned *log_n, zp_error *err) {
    return check_system_to(cs, log_n, ZP_SETUP_STREAM_MAX_LOG_DOMAIN, err);
}

zp_status zp_groth16_setup(zp_groth16_setup_key *key, const zp_constraint_system *cs, const zp_parallel *par,
                           zp_error *err) {
    unsigned log_n = 0;
    memset(key, 0, sizeof *key);
    zp_status st = check_system(cs, &log_n, err);
    if (st != ZP_OK) return st;
    return zp_groth16_curve_get(cs->curve)->setup(key, cs, log_n, par, err); /* known: check_system */
}

zp_status zp_groth16_setup_seeded(zp_groth16_setup_key *key, const zp_constraint_system *cs, const uint8_t seed[32],
                                  const zp_parallel *par, zp_error *err) {
    unsigned log_n = 0;
    memset(key, 0, sizeof *key);
    zp_status st = check_system(cs, &log_n, err);
    if (st != ZP_OK) return st;
#define ZP_SETUP_SEEDED_(cid, g, G) \
    case cid: return g##_setup(key, cs, log_n, seed, par, err);
    switch (cs->curve) {
        ZP_CURVE_LIST(ZP_SETUP_SEEDED_)
    default: break;
    }
    return zp_error_set(err, ZP_ERR_INTERNAL, "setup: no setup for curve %d", (int)cs->curve);
}

/* The tracked bytes of a plan with R-point and K-wire chunks (each
 * buffer rounded to pages, as the tracker counts it). */
static uint64_t plan_bytes(const zp_curve_desc *d, size_t R, size_t K) {
    size_t fr = 32, table = (size_t)ZP_FIXED_BASE_WINDOWS * ZP_FIXED_BASE_ENTRIES;
    return (uint64_t)zp_track_round(table * d->g1_bytes) + zp_track_round(table * d->g2_bytes) +
           zp_track_round(R * fr) + zp_track_round(2 * R * fr) + zp_track_round(R * 32) +
           zp_track_round(R * d->g2_bytes) + 3 * (uint64_t)zp_track_round(K * fr);
}

/* R and K at their least: R_MIN points (or the domain), and as many wires
 * as ZP_SETUP_MAX_PASSES passes need; R at most R_MAX, past which bigger
 * chunks buy nothing but memory. */
#define R_MIN 1024
#define R_MAX 65536
#define R_MULTI 8192 /* R when the wires take several passes */

static zp_status plan_with(zp_groth16_setup_plan *plan, const zp_constraint_system *cs, uint64_t budget,
                           size_t row_chunk, size_t wire_chunk, zp_error *err) {
    memset(plan, 0, sizeof *plan);
    zp_status st = check_system_stream(cs, &plan->log_n, err);
    if (st != ZP_OK) return st;
    const zp_curve_desc *d = zp_curve_get(cs->curve);
    size_t n = (size_t)1 << plan->log_n, nw = cs->n_wires;
    size_t r_min = n < R_MIN ? n : R_MIN, r_max = n < R_MAX ? n : R_MAX;
    size_t k_min = (nw + ZP_SETUP_MAX_PASSES - 1) / ZP_SETUP_MAX_PASSES;
    if (k_min < (nw < R_MIN ? nw : R_MIN)) k_min = nw < R_MIN ? nw : R_MIN;
    plan->min_bytes = plan_bytes(d, r_min, k_min);
    if (budget != 0 && budget < plan->min_bytes) {
        char a[32], b[32];
        return zp_error_set(err, ZP_ERR_ARG,
                            "setup: a budget of %s is below the minimum for this circuit (2^%u domain, %zu wires): %s",
                            zp_size_text(a, budget), plan->log_n, nw, zp_size_text(b, plan->min_bytes));
    }
    size_t R = r_max, K = nw;
    if (budget != 0 && plan_bytes(d, R, K) > budget) {
        while (R > r_min && plan_bytes(d, R, K) > budget) R /= 2;
        if (R < r_min) R = r_min;
        if (plan_bytes(d, R, K) > budget) { /* several passes */
            R = r_max < R_MULTI ? r_max : R_MULTI;
            if (plan_bytes(d, R, k_min) > budget) R = r_min;
            uint64_t room = (budget - plan_bytes(d, R, 0)) / 3;
            K = (size_t)(room / 4096 * 4096 / 32);
            if (K > nw) K = nw;
            if (K < k_min) K = k_min;
        }
    }
    if (row_chunk != 0) R = row_chunk;
    if (wire_chunk != 0) K = wire_chunk < nw ? wire_chunk : nw;
    plan->row_chunk = R;
    plan->wire_chunk = K;
    plan->passes = (nw + K - 1) / K;
    plan->bytes = plan_bytes(d, R, K);
    return ZP_OK;
}

zp_status zp_groth16_setup_plan_for(zp_groth16_setup_plan *plan, const zp_constraint_system *cs, uint64_t budget,
                                    zp_error *err) {
    return plan_with(plan, cs, budget, 0, 0, err);
}

zp_status zp_groth16_setup_plan_chunks(zp_groth16_setup_plan *plan, const zp_constraint_system *cs, size_t row_chunk,
                                       size_t wire_chunk, zp_error *err) {
    if (row_chunk == 0 || wire_chunk == 0) return zp_error_set(err, ZP_ERR_ARG, "setup: chunks of no size");
    return plan_with(plan, cs, 0, row_chunk, wire_chunk, err);
}

void zp_groth16_setup_shape(zp_groth16_pk *shape, const zp_constraint_system *cs, const zp_groth16_setup_plan *plan) {
    memset(shape, 0, sizeof *shape);
    size_t m = cs->n_constraints;
    shape->curve = cs->curve;
    shape->n_vars = cs->n_wires;
    shape->n_public = cs->n_public;
    shape->domain_size = (uint32_t)1 << plan->log_n;
    shape->n_coefs = cs->m[0].row_start[m] + cs->m[1].row_start[m] + cs->n_public + 1;
}

zp_status zp_groth16_setup_stream(const zp_constraint_system *cs, const zp_groth16_setup_plan *plan,
                                  const zp_groth16_setup_opts *opts, zp_setup_put_fn put, void *put_arg,
                                  const zp_parallel *par, zp_error *err) {
    static const zp_groth16_setup_opts none = {0};
    if (opts == NULL) opts = &none;
    unsigned log_n = 0;
    zp_status st = check_system_stream(cs, &log_n, err);
    if (st != ZP_OK) return st;
    if (plan->log_n != log_n || plan->row_chunk == 0 || plan->wire_chunk == 0) {
        return zp_error_set(err, ZP_ERR_ARG, "setup: the plan is not this circuit's");
    }
    zp_tracker own;
    zp_tracker *tr = opts->tracker;
    if (tr == NULL) {
        zp_tracker_init(&own);
        tr = &own;
    }
    zp_setup_sink s = {.put = put, .put_arg = put_arg, .opts = opts};
    s.total = 6 * (uint64_t)cs->n_wires + ((uint64_t)1 << log_n);
    st = ZP_ERR_INTERNAL;
#define ZP_SETUP_STREAM_(cid, g, G) \
    case cid: st = g##_setup_stream(&s, cs, plan, opts->seed, tr, par, &s.err); break;
    switch (cs->curve) {
        ZP_CURVE_LIST(ZP_SETUP_STREAM_)
    default: zp_error_set(&s.err, ZP_ERR_INTERNAL, "setup: no setup for curve %d", (int)cs->curve); break;
    }
    if (s.st == ZP_OK) s.st = st;
    if (s.st != ZP_OK && err != NULL) *err = s.err;
    return s.st;
}

void zp_groth16_setup_free(zp_groth16_setup_key *key) {
    free(key->memory);
    memset(key, 0, sizeof *key);
}
