/* Subgroup membership of points already known to be on their curve,
 * by endomorphisms instead of the order: r·P = O costs a 255-bit scalar
 * multiplication, these one or two by the curve parameter x (64 bits).
 * A key's header points, a verifying key's and every proof's π_B are
 * checked this way, so the check is part of each small proof's fixed cost.
 *
 * - BN254 G1: the cofactor is 1, so every point on the curve is in G1.
 * - BN254 G2: El Housni, Guillevic and Piellard (eprint 2022/348), for BN
 *   curves with x ≠ 4 mod 13 and x ≠ 92 mod 97 (checked by
 *   tools/gen_constants.py): P ∈ G2 iff
 *   [x+1]P + ψ([x]P) + ψ²([x]P) = ψ³([2x]P).
 * - BLS12-381 G1: Scott (eprint 2021/1130): P ∈ G1 iff φ(P) = [-x²]P, φ
 *   the endomorphism (βx, y) with the β of curve/params.h.
 * - BLS12-381 G2: Scott (eprint 2021/1130): P ∈ G2 iff ψ(P) = [x]P.
 *
 * ψ is the untwist-Frobenius-twist map (conj(x)·c_x, conj(y)·c_y); on
 * Jacobian coordinates it conjugates Z too, Frobenius being a field
 * automorphism. tests/test_group.c checks each test against r·P = O
 * (is_in_subgroup_ref_var) on random points of the group and on points
 * outside it with a component of each prime factor of the cofactors.
 * Variable time: for public points. */
#ifndef ZP_CURVE_SUBGROUP_H
#define ZP_CURVE_SUBGROUP_H

#include "curve/curve.h"

/* Many points at once (points on the curve, public): S = Σ c_i·P_i with
 * random 64-bit c_i, tested once. A point with a component of order q
 * outside the group leaves S in the group for at most one c_i modulo q,
 * probability at most 1/q + 2^-64; q is at least the cofactor's smallest
 * prime. BN254 G2's cofactor is 10069 · 5864401 · 1875725156269 · (a
 * 177-bit prime) (tests/subgroup_vectors.h), so five rounds with fresh
 * c_i pass a bad point with probability below 2^-66. BLS12-381's
 * cofactors have 3 (G1) and 13 (G2): there each point is tested. */
#define ZP_SUBGROUP_BN254_G2_BATCH_ROUNDS 5

#define ZP_SUBGROUP_PSI_(G, F2, PRE)                                        \
    static inline void G##_j_psi(G##j *r, const G##j *p) {                  \
        static const F2 cx = PRE##_G2_PSI_X_INIT, cy = PRE##_G2_PSI_Y_INIT; \
        F2##_conj(&r->x, &p->x);                                            \
        F2##_conj(&r->y, &p->y);                                            \
        F2##_conj(&r->z, &p->z);                                            \
        F2##_mul(&r->x, &r->x, &cx);                                        \
        F2##_mul(&r->y, &r->y, &cy);                                        \
    }
ZP_SUBGROUP_PSI_(zp_bn254_g2, zp_bn254_fp2, ZP_BN254)
ZP_SUBGROUP_PSI_(zp_bls12_g2, zp_bls12_fp2, ZP_BLS12)
#undef ZP_SUBGROUP_PSI_

static inline int zp_bn254_g1_is_in_subgroup_var(const zp_bn254_g1 *p) {
    (void)p;
    return 1;
}

static inline int zp_bn254_g2_is_in_subgroup_var(const zp_bn254_g2 *p) {
    static const uint64_t x[1] = {ZP_BN254_X_ABS};
    zp_bn254_g2j P, xp, lhs, t, rhs;
    zp_bn254_g2_j_from_affine(&P, p);
    zp_bn254_g2_j_mul_var(&xp, &P, x, 1);
    zp_bn254_g2_j_add_var(&lhs, &xp, &P); /* [x+1]P */
    zp_bn254_g2_j_psi(&t, &xp);
    zp_bn254_g2_j_add_var(&lhs, &lhs, &t); /* + ψ([x]P) */
    zp_bn254_g2_j_psi(&t, &t);
    zp_bn254_g2_j_add_var(&lhs, &lhs, &t); /* + ψ²([x]P) */
    zp_bn254_g2_j_dbl(&rhs, &xp);
    zp_bn254_g2_j_psi(&rhs, &rhs);
    zp_bn254_g2_j_psi(&rhs, &rhs);
    zp_bn254_g2_j_psi(&rhs, &rhs); /* ψ³([2x]P) */
    return zp_bn254_g2_j_eq_var(&lhs, &rhs);
}

/* x < 0: φ(P) = [-x²]P = -[|x|]([|x|]P). */
static inline int zp_bls12_g1_is_in_subgroup_var(const zp_bls12_g1 *p) {
    static const uint64_t x[1] = {ZP_BLS12_X_ABS};
    static const zp_bls12_fp beta = ZP_BLS12_G1_BETA_INIT;
    zp_bls12_g1j P, phi, t;
    zp_bls12_g1_j_from_affine(&P, p);
    phi = P;
    zp_bls12_fp_mul(&phi.x, &phi.x, &beta);
    zp_bls12_g1_j_mul_var(&t, &P, x, 1);
    zp_bls12_g1_j_mul_var(&t, &t, x, 1);
    zp_bls12_g1_j_neg(&t, &t);
    return zp_bls12_g1_j_eq_var(&phi, &t);
}

/* x < 0: ψ(P) = [x]P = -[|x|]P. */
static inline int zp_bls12_g2_is_in_subgroup_var(const zp_bls12_g2 *p) {
    static const uint64_t x[1] = {ZP_BLS12_X_ABS};
    zp_bls12_g2j P, psi, t;
    zp_bls12_g2_j_from_affine(&P, p);
    zp_bls12_g2_j_psi(&psi, &P);
    zp_bls12_g2_j_mul_var(&t, &P, x, 1);
    zp_bls12_g2_j_neg(&t, &t);
    return zp_bls12_g2_j_eq_var(&psi, &t);
}

#endif
