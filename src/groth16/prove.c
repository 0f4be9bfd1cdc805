#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/parallel.h"
#include "base/random.h"
#include "groth16/groth16.h"
#include "msm/msm.h"
#include "ntt/ntt.h"
#include "pairing/pairing.h"

#define ZP_G zp_bn254
#include "groth16/prove_impl.h"
#define ZP_G zp_bls12
#include "groth16/prove_impl.h"

size_t zp_groth16_abc_size(const zp_groth16_pk *pk) {
    return pk->curve == ZP_CURVE_BN254 ? zp_bn254_groth16_abc_size(pk) : zp_bls12_groth16_abc_size(pk);
}

size_t zp_groth16_msm_scratch_size(const zp_groth16_pk *pk, size_t threads) {
    return pk->curve == ZP_CURVE_BN254 ? zp_bn254_msm_scratch(pk, threads) : zp_bls12_msm_scratch(pk, threads);
}

static const uint64_t *group_order(zp_curve curve) {
    return curve == ZP_CURVE_BN254 ? zp_bn254_fr_modulus.v : zp_bls12_fr_modulus.v;
}

zp_status zp_groth16_random_scalar(uint64_t out[4], zp_curve curve, zp_error *err) {
    const uint64_t *r = group_order(curve);
    unsigned top_bits = curve == ZP_CURVE_BN254 ? ZP_BN254_FR_BITS : ZP_BLS12_FR_BITS;
    uint64_t mask = top_bits % 64 ? (1ULL << (top_bits % 64)) - 1 : ~0ULL;
    do { /* rejection sampling: uniform, and each try succeeds with p > 1/2 */
        zp_status st = zp_random_bytes(out, 32, err);
        if (st != ZP_OK) return st;
        out[3] &= mask;
    } while (!zp_limbs_lt_var(out, r, 4) || zp_limbs_is_zero(out, 4));
    return ZP_OK;
}

zp_status zp_groth16_check_witness(const zp_groth16_pk *pk, zp_curve witness_curve, size_t n_witness,
                                   const uint64_t *witness, zp_error *err) {
    if (witness_curve != pk->curve) {
        return zp_error_set(err, ZP_ERR_MISMATCH, "the witness is for curve %s but the key is for %s",
                            zp_curve_name(witness_curve), zp_curve_name(pk->curve));
    }
    if (n_witness != pk->n_vars) {
        return zp_error_set(err, ZP_ERR_MISMATCH,
                            "the witness has %zu values but the key's circuit has %u wires: "
                            "the witness is for another circuit",
                            n_witness, pk->n_vars);
    }
    if (witness[0] != 1 || witness[1] != 0 || witness[2] != 0 || witness[3] != 0) {
        return zp_error_set(err, ZP_ERR_FORMAT, "the witness's first value (the constant signal) is not 1");
    }
    return ZP_OK;
}

zp_status zp_groth16_prove_start_with(zp_groth16_pending *pend, const zp_groth16_pk *pk, const uint64_t *witness,
                                      const uint64_t r[4], const uint64_t s[4], void *abc,
                                      void *msm_scratch, const zp_parallel *par, zp_error *err) {
    (void)err;
    if (pk->curve == ZP_CURVE_BN254) {
        return zp_bn254_groth16_prove_start(pend, pk, witness, r, s, abc, msm_scratch, par);
    }
    return zp_bls12_groth16_prove_start(pend, pk, witness, r, s, abc, msm_scratch, par);
}

zp_status zp_groth16_prove_start(zp_groth16_pending *pend, const zp_groth16_pk *pk, const uint64_t *witness,
                                 void *abc, void *msm_scratch, const zp_parallel *par, zp_error *err) {
    uint64_t r[4], s[4];
    zp_status st = zp_groth16_random_scalar(r, pk->curve, err);
    if (st == ZP_OK) st = zp_groth16_random_scalar(s, pk->curve, err);
    if (st != ZP_OK) return st;
    st = zp_groth16_prove_start_with(pend, pk, witness, r, s, abc, msm_scratch, par, err);
    memset(r, 0, sizeof r);
    memset(s, 0, sizeof s);
    return st;
}

void zp_groth16_prove_finish(zp_proof *proof, const zp_groth16_pending *pend, const zp_groth16_pk *pk,
                             const uint64_t *witness, void *msm_scratch, const zp_parallel *par) {
    if (pk->curve == ZP_CURVE_BN254) {
        zp_bn254_groth16_prove_finish(proof, pend, pk, witness, msm_scratch, par);
    } else {
        zp_bls12_groth16_prove_finish(proof, pend, pk, witness, msm_scratch, par);
    }
}

int zp_groth16_verify(const zp_groth16_vk *vk, const uint64_t *pub, const zp_proof *proof) {
    if (proof->curve != vk->curve) return 0;
    if (vk->curve == ZP_CURVE_BN254) return zp_bn254_groth16_verify(vk, pub, proof);
    return zp_bls12_groth16_verify(vk, pub, proof);
}

int zp_groth16_verify_with_pk(const zp_groth16_pk *pk, const uint64_t *witness, const zp_proof *proof) {
    zp_groth16_vk vk;
    vk.curve = pk->curve;
    vk.n_public = pk->n_public;
    memcpy(vk.alpha1, pk->alpha1, sizeof vk.alpha1);
    memcpy(vk.beta2, pk->beta2, sizeof vk.beta2);
    memcpy(vk.gamma2, pk->gamma2, sizeof vk.gamma2);
    memcpy(vk.delta2, pk->delta2, sizeof vk.delta2);
    vk.ic = (uint64_t *)(uintptr_t)pk->ic; /* read only: verify does not write it */
    return zp_groth16_verify(&vk, zp_groth16_witness_public(witness), proof);
}
