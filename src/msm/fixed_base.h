/* Fixed-base scalar multiplication: many k_i·G for one base G, by a table
 * of d·2^(8w)·G (32 windows of 8 bits, affine), so each product is at most
 * 32 mixed additions and no doublings. Used by the development setup.
 * Variable time (_var): the table entry read and the additions skipped
 * depend on the scalar's bytes. */
#ifndef ZP_MSM_FIXED_BASE_H
#define ZP_MSM_FIXED_BASE_H

#include "base/parallel.h"
#include "curve/curve.h"
#include "zkpipe.h"

#define ZP_FIXED_BASE_WINDOWS 32
#define ZP_FIXED_BASE_ENTRIES 255 /* d = 1..255 per window */

/* The table's size in bytes, the table of a base, and products by it. */
#define ZP_FIXED_BASE_DECLARE(G)                                               \
    size_t G##_fixed_table_size(void);                                         \
    void G##_fixed_table_var(G *table, const G *base);                         \
    /* out[i] = k_i·base (affine), k plain 4-limb scalars; parallel over i */ \
    void G##_fixed_mul_var(G *out, const G *table, const uint64_t *scalars, size_t n, const zp_parallel *par);

ZP_FIXED_BASE_DECLARE(zp_bn254_g1)
ZP_FIXED_BASE_DECLARE(zp_bn254_g2)
ZP_FIXED_BASE_DECLARE(zp_bls12_g1)
ZP_FIXED_BASE_DECLARE(zp_bls12_g2)

#endif
