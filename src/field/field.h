/* The four prime fields: base fields Fp and scalar fields Fr of BN254
 * (circom's bn128) and BLS12-381 (circom's bls12381), plus the quadratic
 * extensions Fp2 = Fp[u]/(u² + 1) that G2 lives over.
 *
 * Timing (libsecp256k1's convention): names ending in _var take time that
 * depends on the values (memcmp, early exits, skipped zeros): eq_var,
 * is_one_var, is_canonical_var, from_bytes_le_var, pow_var (its exponent's
 * bits), inv_var (safegcd, src/field/modinv.h), batch_inv_var,
 * zp_limbs_lt_var. The rest is constant time: add, sub, neg, dbl, mul,
 * sqr (portable and ADX), to_mont, from_mont, from_u64, is_zero,
 * pow_window and inv (Fermat: a fixed chain with a masked table scan;
 * inv(0) = 0), zp_limbs_select. */
#ifndef ZP_FIELD_FIELD_H
#define ZP_FIELD_FIELD_H

#define ZP_F zp_bn254_fp
#define ZP_F_UP ZP_BN254_FP
#define ZP_F_N 4
#include "field/field_impl.h"

#define ZP_F zp_bn254_fr
#define ZP_F_UP ZP_BN254_FR
#define ZP_F_N 4
#include "field/field_impl.h"

#define ZP_F zp_bls12_fp
#define ZP_F_UP ZP_BLS12_FP
#define ZP_F_N 6
#include "field/field_impl.h"

#define ZP_F zp_bls12_fr
#define ZP_F_UP ZP_BLS12_FR
#define ZP_F_N 4
#include "field/field_impl.h"

#define ZP_F2 zp_bn254_fp2
#define ZP_F2_BASE zp_bn254_fp
#define ZP_F2_XI ZP_BN254_FP_XI
#include "field/fp2_impl.h"

#define ZP_F2 zp_bls12_fp2
#define ZP_F2_BASE zp_bls12_fp
#define ZP_F2_XI ZP_BLS12_FP_XI
#include "field/fp2_impl.h"

#endif
