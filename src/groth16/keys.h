/* Groth16 keys, witnesses and proofs as the prover and verifier see them.
 *
 * These are views: the formats layer (src/io/) fills them from a mapped
 * .zkey or a parsed JSON file, and the arithmetic reads them. Points are
 * affine, Montgomery form, laid out exactly as zp_<curve>_g1 / _g2 (the
 * layout .zkey files use), so a mapped section can be used in place when it
 * is 8-byte aligned.
 */
#ifndef ZP_GROTH16_KEYS_H
#define ZP_GROTH16_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "mem/large.h"
#include "zkpipe.h"

/* Byte sizes from the curve descriptor (curve/desc.h); 0 for an unknown
 * curve. */
size_t zp_fp_bytes(zp_curve curve); /* 32 or 48 */
size_t zp_g1_bytes(zp_curve curve); /* 64 or 96: x, y */
size_t zp_g2_bytes(zp_curve curve); /* 128 or 192: x.c0, x.c1, y.c0, y.c1 */
#define ZP_FR_BYTES 32              /* both scalar fields fit four limbs */

/* One entry of the .zkey coefficient list (§4): 12 + 32 bytes, packed. */
#define ZP_ZKEY_COEF_BYTES 44
/* How much of the coefficient list a walk over a mapped key (reading it,
 * sizing its matrices) touches before it gives those pages back: the most
 * of the list such a walk keeps resident (docs/architecture.md, "Proofs
 * larger than the budget"). */
#define ZP_COEF_PAGE_STEP ZP_MEM_RELEASE_STEP
enum { ZP_MATRIX_A = 0, ZP_MATRIX_B = 1 };

typedef struct zp_groth16_pk {
    zp_curve curve;
    uint32_t n_vars;      /* witness length, including the constant 1 */
    uint32_t n_public;    /* outputs + public inputs, not the constant 1 */
    uint32_t domain_size; /* power of two, > constraints + n_public */
    /* Header points, copied out (they are not aligned in the file). */
    uint64_t alpha1[12], beta1[12], delta1[12];
    uint64_t beta2[24], gamma2[24], delta2[24];
    /* Bulk points: 8-byte aligned; in the mapping or in an owned copy. */
    const void *ic; /* n_public + 1 G1 */
    const void *a;  /* n_vars G1 */
    const void *b1; /* n_vars G1 */
    const void *b2; /* n_vars G2 */
    const void *c;  /* n_vars - n_public - 1 G1 (the private wires) */
    const void *h;  /* domain_size G1 */
    /* §4 as stored: n_coefs entries {u32 matrix, u32 constraint, u32 signal,
     * 32-byte value}, the value in Montgomery form times R (see docs/formats.md).
     * Possibly unaligned: read with memcpy. */
    const uint8_t *coefs;
    size_t n_coefs;
    /* Precomputed multiples of the bulk points (groth16.h,
     * zp_groth16_tables), or NULL: a key as read or made has none; a
     * prover that keeps them attaches them to its own copy of the key. */
    const struct zp_groth16_tables *tables;
} zp_groth16_pk;

typedef struct zp_groth16_vk {
    zp_curve curve;
    uint32_t n_public;
    uint64_t alpha1[12];
    uint64_t beta2[24], gamma2[24], delta2[24];
    uint64_t *ic; /* n_public + 1 G1 points, owned (malloc) */
} zp_groth16_vk;

void zp_groth16_vk_free(zp_groth16_vk *vk);

/* A proof as the prover and verifier compute it: affine points in
 * Montgomery form, x then y (G2: x.c0, x.c1, y.c0, y.c1), each coordinate
 * 4 (BN254) or 6 (BLS12-381) limbs; all zeros is infinity. The public
 * zp_proof (zkpipe.h) is its canonical byte encoding. */
typedef struct zp_groth16_proof {
    zp_curve curve;
    uint64_t a[12];
    uint64_t b[24];
    uint64_t c[12];
} zp_groth16_proof;

/* One matrix of a constraint system in compressed rows: the terms of
 * constraint i are [row_start[i], row_start[i+1]); coefficients plain,
 * 4 limbs, below r. The formats layer's .r1cs reader yields this shape. */
typedef struct zp_constraint_matrix {
    const uint64_t *row_start;
    const uint32_t *wire;
    const uint64_t *coef;
} zp_constraint_matrix;

typedef struct zp_constraint_system {
    zp_curve curve;
    uint32_t n_wires;  /* including the constant 1 */
    uint32_t n_public; /* outputs + public inputs */
    uint32_t n_constraints;
    zp_constraint_matrix m[3]; /* A, B, C */
} zp_constraint_system;

#endif
