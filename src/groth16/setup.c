#include "groth16/setup.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "groth16/curves.h"
#include "groth16/groth16.h"
#include "msm/fixed_base.h"
#include "ntt/ntt.h"

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
        return g##_setup(key, cs, log_n, par, err);                                                        \
    }
ZP_CURVE_LIST(ZP_GROTH16_SETUP_EXPORT_)

/* Validates the constraint system's shape before anything is allocated. */
static zp_status check_system(const zp_constraint_system *cs, unsigned *log_n, zp_error *err) {
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
    if (*log_n > ZP_SETUP_MAX_LOG_DOMAIN) {
        return zp_error_set(err, ZP_ERR_UNSUPPORTED,
                            "setup: %u constraints need a 2^%u domain; the development setup stops at 2^%u",
                            cs->n_constraints, *log_n, ZP_SETUP_MAX_LOG_DOMAIN);
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

zp_status zp_groth16_setup(zp_groth16_setup_key *key, const zp_constraint_system *cs, const zp_parallel *par,
                           zp_error *err) {
    unsigned log_n = 0;
    memset(key, 0, sizeof *key);
    zp_status st = check_system(cs, &log_n, err);
    if (st != ZP_OK) return st;
    return zp_groth16_curve_get(cs->curve)->setup(key, cs, log_n, par, err); /* known: check_system */
}

void zp_groth16_setup_free(zp_groth16_setup_key *key) {
    free(key->memory);
    memset(key, 0, sizeof *key);
}
