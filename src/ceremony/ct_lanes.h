/* A ceremony's constant-time G1 multiplications, eight points at once in
 * the AVX-512 IFMA lanes (field/ifma.h): the same split scalar and the
 * same windows as phase2_impl.h's ct_mul (33 signed 4-bit windows of each
 * half, two tables of 1..8 times P and E(P)), with the complete
 * projective formulas of Renes, Costello and Batina (2016, algorithms 7
 * and 9 for a = 0) in place of the scalar path's Jacobian ones.
 *
 * Why: a contribution multiplies every point of a key (2^25 at 2^24) by
 * one secret, and the scalar path spent 54 µs of CPU a point on it. Eight
 * lanes of 52-bit multiply-adds do eight Montgomery products for about a
 * fifth of eight scalar ones.
 *
 * Constant time in the scalars: every lane runs the same instructions
 * whatever the digits; an entry is picked by comparing every table index
 * with the digits into lane masks and blending all eight, and a negation
 * is a blend under the digit's sign mask. The complete formulas need no
 * test for infinity or for equal points. Whether an input point is
 * infinity is public (it is in the file) and is also handled by masks.
 * valgrind cannot run AVX-512, so ctime_valgrind checks the scalar path
 * only; tests/test_ctime.c compares the lanes with it natively.
 *
 * Results are the scalar path's bit for bit after ct_to_affine (the same
 * point, and affine form is unique). Only for points of the prime-order
 * subgroup, as the scalar path. */
#ifndef ZP_CEREMONY_CT_LANES_H
#define ZP_CEREMONY_CT_LANES_H

#include <stddef.h>
#include <stdint.h>

#include "ceremony/ct_split.h"
#include "field/ifma.h"

/* One curve's G1 for the lanes; the field elements in the scalar code's
 * Montgomery form, nw words each (4: BN254, 6: BLS12-381). */
typedef struct zp_ct_lanes_curve {
    zp_ifma_field f;  /* the base field */
    uint64_t b3[6];   /* 3b, b of y² = x³ + b */
    uint64_t beta[6]; /* E(x, y) = (beta·x, y), negated when endo_neg */
    uint64_t one[6];
    int endo_neg;
} zp_ct_lanes_curve;

/* out = s[k]·in[k] for the eight lanes k, in constant time in s.
 *
 *  out: 8 Jacobian points (X, Y, Z, nw words each), lane k at out + 3·nw·k;
 *       infinity has Z = 0.
 *  in:  8 affine points (x, then y, nw words each; all zero: infinity),
 *       of the prime-order subgroup; the same pointer may repeat.
 *  s:   each lane's split scalar (phase2_impl.h's ct_scalar); the same
 *       pointer may repeat (one secret for many points).
 *  c:   the curve, prepared by the caller.
 * Callers run these only where zp_ifma_enabled said so; a build without
 * ZP_IFMA has stubs that abort. */
void zp_ct_lanes4_g1_mul(uint64_t *out, const uint64_t *const in[8], const zp_p2_ct_scalar *const s[8],
                         const zp_ct_lanes_curve *c);
void zp_ct_lanes6_g1_mul(uint64_t *out, const uint64_t *const in[8], const zp_p2_ct_scalar *const s[8],
                         const zp_ct_lanes_curve *c);

#endif
