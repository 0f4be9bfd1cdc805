/* The four groups: G1 (over Fp) and G2 (over Fp2, on the sextic twist) of
 * BN254 and BLS12-381. Types: zp_<curve>_g1 (affine), zp_<curve>_g1j
 * (Jacobian), zp_<curve>_g1xyzz; the same for g2. */
#ifndef ZP_CURVE_CURVE_H
#define ZP_CURVE_CURVE_H

#include "curve/params.h"
#include "field/field.h"

#define ZP_P zp_bn254_g1
#define ZP_P_F zp_bn254_fp
#define ZP_P_B ZP_BN254_G1_B_INIT
#define ZP_P_GEN ZP_BN254_G1_GEN_INIT
#define ZP_P_SCALAR zp_bn254_fr
#include "curve/point_impl.h"

#define ZP_P zp_bn254_g2
#define ZP_P_F zp_bn254_fp2
#define ZP_P_B ZP_BN254_G2_B_INIT
#define ZP_P_GEN ZP_BN254_G2_GEN_INIT
#define ZP_P_SCALAR zp_bn254_fr
#include "curve/point_impl.h"

#define ZP_P zp_bls12_g1
#define ZP_P_F zp_bls12_fp
#define ZP_P_B ZP_BLS12_G1_B_INIT
#define ZP_P_GEN ZP_BLS12_G1_GEN_INIT
#define ZP_P_SCALAR zp_bls12_fr
#include "curve/point_impl.h"

#define ZP_P zp_bls12_g2
#define ZP_P_F zp_bls12_fp2
#define ZP_P_B ZP_BLS12_G2_B_INIT
#define ZP_P_GEN ZP_BLS12_G2_GEN_INIT
#define ZP_P_SCALAR zp_bls12_fr
#include "curve/point_impl.h"

#endif
