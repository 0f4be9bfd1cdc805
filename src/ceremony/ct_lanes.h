/* A ceremony's constant-time multiplications, eight points at once in
 * the AVX-512 IFMA lanes (field/ifma.h): the same split scalar and the
 * same windows as phase2_ct_impl.h's ct_mul (33 signed 4-bit windows of each
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
 * test for infinity or for equal points: they are complete on every
 * point of these curves, none of which has a point of order 2 (their
 * cofactors are odd). Whether an input point is infinity is public (it
 * is in the file) and is also handled by masks. The subgroup checks,
 * on public points, take cheaper Jacobian formulas instead and leave
 * their exceptional cases to the scalar path (ct_ifma_impl.h).
 * valgrind cannot run AVX-512, so ctime_valgrind checks the scalar path
 * only; tests/test_ctime.c compares the lanes with it natively.
 *
 * Both G1s and both G2s (Fp2 products as msm_ifma_impl.h's). Results
 * are the scalar path's bit for bit after ct_to_affine (the same
 * point, and affine form is unique). Only for points of the prime-order
 * subgroup, as the scalar path. */
#ifndef ZP_CEREMONY_CT_LANES_H
#define ZP_CEREMONY_CT_LANES_H

#include <stddef.h>
#include <stdint.h>

#include "ceremony/ct_split.h"
#include "field/ifma.h"

struct zp_ct_lanes_curve;

/* The kernels for one coordinate size W (words: 4 and 8 for BN254's G1
 * and G2, 6 and 12 for BLS12-381's).
 *
 * mul: out = s[k]·in[k] for the eight lanes k, in constant time in s.
 *  out: 8 Jacobian points (X, Y, Z, W words each), lane k at out + 3·W·k;
 *       infinity has Z = 0.
 *  in:  8 affine points (x, then y, W words each; all zero: infinity),
 *       of the prime-order subgroup; the same pointer may repeat.
 *  s:   each lane's split scalar (phase2_ct_impl.h's ct_scalar for the
 *       group); the same pointer may repeat (one secret for many points).
 *  c:   the group, prepared by the caller.
 * sum_pub: out = Σ_j s[j][k]·in[j][k] for the n <= ZP_CT_LANES_TERMS
 *  terms j of each lane k (points as mul's), for public scalars (zkey
 *  new's coefficients), variable time in them: only the windows up to
 *  the highest nonzero digit of them all (a 32-bit coefficient costs a
 *  quarter of a wide one), no addition of a half whose eight digits are
 *  0, and the terms' doublings shared (Straus: n terms cost the windows
 *  of one product and the additions of n).
 * mul_j: the same for Jacobian points in (X, Y, Z, W words each; Z = 0:
 *  infinity), lane k's at in[k].
 * in_subgroup: the mask of the lanes whose point (on its curve, affine as
 *  for mul; public: variable time) is in the prime-order subgroup, by the
 *  tests of curve/subgroup.h (W = 4: BN254's G1, every point; 8: BN254's
 *  G2; 6 and 12: BLS12-381's), c prepared for them: E = (ex·x̄, ey·ȳ) the
 *  test's ψ (G2) or φ (BLS12-381's G1), not the split's, and x_abs. In
 *  *unsure the lanes it could not tell (an exceptional case of its
 *  incomplete additions, met only by points with a component of small
 *  order): the caller tests those on the scalar path; they are not in
 *  the mask.
 * mul_checked: BLS12-381's G1 only (NULL for the others): mul and
 *  in_subgroup at once, the test's [|x|]P the second point of the
 *  product: out = s[0][k]·in[k] + s[1][k]·[|x|]in[k] (E's tables for each
 *  half as mul's), the scalars zp_p2_split_x4_ct's, ZP_P2_CT_X4_DIGITS
 *  windows, constant time in them; c the split's (mul's) with x_abs.
 *  Returns in_subgroup's mask and *unsure; out is meaningless in a lane
 *  outside the mask. 64 doublings a point fewer than mul after
 *  in_subgroup (about 15% of a contribution on BLS12-381). */
#define ZP_CT_LANES_TERMS 4 /* sum_pub's most terms a lane (its tables: 4·16 points a lane, on the stack) */
typedef struct zp_ct_lanes_kernels {
    void (*mul)(uint64_t *out, const uint64_t *const in[8], const zp_p2_ct_scalar *const s[8],
                const struct zp_ct_lanes_curve *c);
    void (*sum_pub)(uint64_t *out, const uint64_t *const in[][8], const zp_p2_ct_scalar *const s[][8], size_t n,
                    const struct zp_ct_lanes_curve *c);
    void (*mul_j)(uint64_t *out, const uint64_t *const in[8], const zp_p2_ct_scalar *const s[8],
                  const struct zp_ct_lanes_curve *c);
    unsigned (*in_subgroup)(const uint64_t *const in[8], const struct zp_ct_lanes_curve *c, unsigned *unsure);
    unsigned (*mul_checked)(uint64_t *out, const uint64_t *const in[8], const zp_p2_ct_scalar *const s[][8],
                            const struct zp_ct_lanes_curve *c, unsigned *unsure);
} zp_ct_lanes_kernels;

/* One group for the lanes: its kernels and constants, the field elements
 * in the scalar code's Montgomery form, W words each (an element of Fp2
 * is c0 then c1). */
typedef struct zp_ct_lanes_curve {
    const zp_ct_lanes_kernels *kern;
    zp_ifma_field f; /* the base field */
    uint64_t b3[12]; /* 3b, b of y² = x³ + b */
    uint64_t ex[12]; /* the endomorphism of the split: E(x, y) = (ex·x̄, ey·ȳ), */
    uint64_t ey[12]; /* the bar the conjugation of Fp2 where conj (G2's ψ) */
    uint64_t one[12];
    int conj;
    uint64_t x_abs; /* the subgroup checks': |x|, the curve's parameter */
} zp_ct_lanes_curve;

/* The kernels for coordinates of `words` words (4, 6, 8, 12); NULL in a
 * build without ZP_IFMA. Callers run them only where zp_ifma_enabled
 * said so. */
const zp_ct_lanes_kernels *zp_ct_lanes_get(size_t words);

#endif
