/* Optimal ate pairings of BN254 and BLS12-381, for verification.
 *
 * e(P, Q) = f_{P,Q}^((p^12 - 1)/r), the reduced optimal ate pairing, with
 * values in the tower of pairing/fp12_impl.h (ffjavascript's, so equal
 * coefficient by coefficient to snarkjs's curve.pairing). P in G1, Q in G2
 * (affine, infinity all zeros; callers check subgroup membership). Not
 * constant time: the inputs of a verifier are public. The Miller loop (it
 * skips pairs with a point at infinity), the pairings, the fp12 pow (its
 * exponent's bits) and the comparisons (memcmp) are named _var; the final
 * exponentiation and the GT conversions run fixed chains. */
#ifndef ZP_PAIRING_PAIRING_H
#define ZP_PAIRING_PAIRING_H

#include <stddef.h>

#include "curve/curve.h"
#include "pairing/params.h"

#define ZP_T zp_bn254
#define ZP_T_UP ZP_BN254
#include "pairing/fp12_impl.h"

#define ZP_T zp_bls12
#define ZP_T_UP ZP_BLS12
#include "pairing/fp12_impl.h"

/* A G2 point's Miller loop lines, for a point paired with many others (a
 * verifying key's γ and δ): made once, they leave each pairing only their
 * evaluation at P. The line's coefficients are miller_impl.h's, before
 * that evaluation; one per doubling and addition step, in loop order. */
#define ZP_PAIRING_LINES_(g, G)                                                                               \
    typedef struct {                                                                                          \
        g##_fp2 c0, c1, c2;                                                                                   \
    } g##_line;                                                                                               \
    typedef struct {                                                                                          \
        g##_line l[2 * G##_ATE_LOOP_BITS]; /* enough: a doubling and an addition a bit */                     \
        uint32_t n;                                                                                           \
        int inf; /* the point is infinity: its pairings are 1 */                                              \
    } g##_g2_lines;                                                                                           \
    void g##_g2_lines_make(g##_g2_lines *r, const g##_g2 *q);                                                 \
    void g##_miller_loop_lines_var(g##_fp12 *f, const g##_g1 *P, const g##_g2 *Q, size_t n, const g##_g1 *PL, \
                                   const g##_g2_lines *const *L, size_t m);
ZP_PAIRING_LINES_(zp_bn254, ZP_BN254)
ZP_PAIRING_LINES_(zp_bls12, ZP_BLS12)
#undef ZP_PAIRING_LINES_
/* miller_loop_lines_var: f = the product of the Miller loops of (P[i],
 * Q[i]) for i < n and of (PL[j], the point of L[j]) for j < m, in one loop
 * (n, m ≤ ZP_PAIRING_LINES_MAX_PAIRS each); pairs with a point at
 * infinity contribute 1. Equal to miller_loop_var over the same pairs
 * after final_exp. */
#define ZP_PAIRING_LINES_MAX_PAIRS 8

/* f = prod_i f_i, f_i the Miller loop of (P[i], Q[i]) (BN254: over 6x+2 with
 * the two Frobenius lines; BLS12-381: over x). Pairs with a point at
 * infinity contribute 1. The value is only meaningful after final_exp. */
void zp_bn254_miller_loop_var(zp_bn254_fp12 *f, const zp_bn254_g1 *P, const zp_bn254_g2 *Q, size_t n);
void zp_bls12_miller_loop_var(zp_bls12_fp12 *f, const zp_bls12_g1 *P, const zp_bls12_g2 *Q, size_t n);

/* r = f^((p^12 - 1)/r) exactly (not a multiple of that exponent). r may
 * alias f. */
void zp_bn254_final_exp(zp_bn254_fp12 *r, const zp_bn254_fp12 *f);
void zp_bls12_final_exp(zp_bls12_fp12 *r, const zp_bls12_fp12 *f);

/* r = e(P, Q). */
void zp_bn254_pairing_var(zp_bn254_fp12 *r, const zp_bn254_g1 *P, const zp_bn254_g2 *Q);
void zp_bls12_pairing_var(zp_bls12_fp12 *r, const zp_bls12_g1 *P, const zp_bls12_g2 *Q);

/* 1 when prod_i e(P[i], Q[i]) = 1, with one shared final exponentiation
 * (the Groth16 check); n = 0 gives 1. */
int zp_bn254_pairing_product_is_one_var(const zp_bn254_g1 *P, const zp_bn254_g2 *Q, size_t n);
int zp_bls12_pairing_product_is_one_var(const zp_bls12_g1 *P, const zp_bls12_g2 *Q, size_t n);

/* ffjavascript's (and so snarkjs's) pairing value is not the reduced
 * pairing itself but a fixed power of it, e^m: its final exponentiations
 * (wasmcurves) use chains that compute a multiple of the exponent, m =
 * 2x(6x² + 3x + 1) for BN254 (Fuentes-Castañeda, Knapp and Rodríguez-
 * Henríquez 2011) and m = 3 for BLS12-381 (Hayashida-Hayasaka-Teruya 2020
 * without the division by 3). Both m are prime to r, so equations such as
 * prod e(P_i, Q_i) = 1 hold in either convention, but values differ: use
 * these to compare with or produce a snarkjs vk_alphabeta_12.
 * to_ffjs: r = e^m; from_ffjs: r = e^(m^-1 mod r). e must be in GT (an
 * output of final_exp). */
void zp_bn254_gt_to_ffjs(zp_bn254_fp12 *r, const zp_bn254_fp12 *e);
void zp_bn254_gt_from_ffjs(zp_bn254_fp12 *r, const zp_bn254_fp12 *e);
void zp_bls12_gt_to_ffjs(zp_bls12_fp12 *r, const zp_bls12_fp12 *e);
void zp_bls12_gt_from_ffjs(zp_bls12_fp12 *r, const zp_bls12_fp12 *e);

/* The hard part of the final exponentiation by plain square-and-multiply
 * with the generated (p^4 - p^2 + 1)/r: slow, kept as the reference the
 * addition chains of final_exp are tested against. f must be in the
 * cyclotomic subgroup (the output of the easy part). */
void zp_bn254_final_exp_hard_ref(zp_bn254_fp12 *r, const zp_bn254_fp12 *f);
void zp_bls12_final_exp_hard_ref(zp_bls12_fp12 *r, const zp_bls12_fp12 *f);
/* The easy part, f^((p^6 - 1)(p^2 + 1)); f must be nonzero. */
void zp_bn254_final_exp_easy(zp_bn254_fp12 *r, const zp_bn254_fp12 *f);
void zp_bls12_final_exp_easy(zp_bls12_fp12 *r, const zp_bls12_fp12 *f);

#endif
