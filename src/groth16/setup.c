#include "groth16/setup.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "groth16/groth16.h"
#include "msm/fixed_base.h"
#include "ntt/ntt.h"

#define zp_bn254_curve_id ZP_CURVE_BN254
#define zp_bls12_curve_id ZP_CURVE_BLS12_381

#define ZP_G zp_bn254
#include "groth16/setup_impl.h"
#define ZP_G zp_bls12
#include "groth16/setup_impl.h"

/* Validates the constraint system's shape before anything is allocated. */
static zp_status check_system(const zp_constraint_system *cs, unsigned *log_n, zp_error *err) {
    if (cs->curve != ZP_CURVE_BN254 && cs->curve != ZP_CURVE_BLS12_381) {
        return zp_error_set(err, ZP_ERR_UNSUPPORTED, "setup: unsupported curve");
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
                return zp_error_set(err, ZP_ERR_FORMAT, "setup: a term names wire %u of %u", m->wire[j],
                                    cs->n_wires);
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
    if (cs->curve == ZP_CURVE_BN254) return zp_bn254_setup(key, cs, log_n, par, err);
    return zp_bls12_setup(key, cs, log_n, par, err);
}

void zp_groth16_setup_free(zp_groth16_setup_key *key) {
    free(key->memory);
    memset(key, 0, sizeof *key);
}
