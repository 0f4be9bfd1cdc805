/* A squaring-chain circuit for tests that need real keys and witnesses
 * without files: wires 0 = 1, 1..npub = public outputs (copies of chain
 * values), then the chain x_0 .. x_m with x_{i+1} = x_i². Constraints:
 * x_i·x_i = x_{i+1} for i < m, then x_k·1 = out_k for the public outputs.
 * Header-only (static) so each test program takes just what it uses. */
#ifndef ZP_TESTS_CHAIN_CIRCUIT_H
#define ZP_TESTS_CHAIN_CIRCUIT_H

#include <stdlib.h>
#include <string.h>

#include "field/field.h"
#include "groth16/keys.h"
#include "testutil.h"

typedef struct chain_circuit {
    zp_constraint_system cs;
    uint32_t m, npub;
    uint64_t *row_start[3];
    uint32_t *wire[3];
    uint64_t *coef[3];
} chain_circuit;

static void chain_build(chain_circuit *c, zp_curve curve, uint32_t m, uint32_t npub) {
    uint32_t nw = 1 + npub + m + 1, nc = m + npub;
    memset(c, 0, sizeof *c);
    c->m = m;
    c->npub = npub;
    c->cs.curve = curve;
    c->cs.n_wires = nw;
    c->cs.n_public = npub;
    c->cs.n_constraints = nc;
    for (int k = 0; k < 3; k++) {
        c->row_start[k] = calloc(nc + 1, sizeof(uint64_t));
        c->wire[k] = calloc(nc, sizeof(uint32_t));
        c->coef[k] = calloc((size_t)nc * 4, sizeof(uint64_t));
        for (uint32_t i = 0; i < nc; i++) {
            c->row_start[k][i + 1] = i + 1;
            c->coef[k][4 * i] = 1;
        }
    }
    uint32_t x0 = 1 + npub;
    for (uint32_t i = 0; i < m; i++) {
        c->wire[0][i] = x0 + i;
        c->wire[1][i] = x0 + i;
        c->wire[2][i] = x0 + i + 1;
    }
    for (uint32_t j = 0; j < npub; j++) {
        uint32_t src = x0 + (j * 7 + 3) % (m + 1);
        c->wire[0][m + j] = src;
        c->wire[1][m + j] = 0;
        c->coef[1][4 * (m + j)] = 1;
        c->wire[2][m + j] = 1 + j;
    }
    for (int k = 0; k < 3; k++) {
        c->cs.m[k].row_start = c->row_start[k];
        c->cs.m[k].wire = c->wire[k];
        c->cs.m[k].coef = c->coef[k];
    }
}

static void chain_free(chain_circuit *c) {
    for (int k = 0; k < 3; k++) {
        free(c->row_start[k]);
        free(c->wire[k]);
        free(c->coef[k]);
    }
}

#define CHAIN_WITNESS_FN(FR)                                                                   \
    static void chain_witness_##FR(uint64_t *w, uint32_t m, uint32_t npub, uint64_t x_start) { \
        uint32_t x0 = 1 + npub;                                                                \
        FR x, t;                                                                               \
        memset(w, 0, (size_t)(x0 + m + 1) * 32);                                               \
        w[0] = 1;                                                                              \
        FR##_from_u64(&x, x_start | 2);                                                        \
        for (uint32_t i = 0; i <= m; i++) {                                                    \
            FR##_from_mont(&t, &x);                                                            \
            memcpy(w + 4 * (x0 + i), t.v, 32);                                                 \
            FR##_sqr(&x, &x);                                                                  \
        }                                                                                      \
        for (uint32_t j = 0; j < npub; j++) {                                                  \
            memcpy(w + 4 * (1 + j), w + 4 * (x0 + (j * 7 + 3) % (m + 1)), 32);                 \
        }                                                                                      \
    }
CHAIN_WITNESS_FN(zp_bn254_fr)
CHAIN_WITNESS_FN(zp_bls12_fr)

/* A satisfying witness of c (n_wires values), the chain started at x_start. */
static void chain_witness(uint64_t *w, const chain_circuit *c, uint64_t x_start) {
    if (c->cs.curve == ZP_CURVE_BN254) {
        chain_witness_zp_bn254_fr(w, c->m, c->npub, x_start);
    } else {
        chain_witness_zp_bls12_fr(w, c->m, c->npub, x_start);
    }
}

#endif
