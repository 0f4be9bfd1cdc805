#include "io/elements.h"

#include <string.h>

#include "curve/curve.h"

size_t zp_io_fp_limbs(zp_curve curve) { return curve == ZP_CURVE_BLS12_381 ? 6 : 4; }

const char *zp_io_curve_title(zp_curve curve) {
    switch (curve) {
    case ZP_CURVE_BN254: return "BN254";
    case ZP_CURVE_BLS12_381: return "BLS12-381";
    default: return "unknown curve";
    }
}

/* An n8-byte little-endian integer equals the limbs m (n limbs) exactly,
 * including the zero padding above them. */
static int le_equals(const uint8_t *le, size_t n8, const uint64_t *m, size_t n) {
    if (n8 != 8 * n) return 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t w;
        memcpy(&w, le + 8 * i, 8);
        if (w != m[i]) return 0;
    }
    return 1;
}

zp_curve zp_io_curve_from_q(const uint8_t *le, size_t n8) {
    if (le_equals(le, n8, zp_bn254_fp_modulus.v, 4)) return ZP_CURVE_BN254;
    if (le_equals(le, n8, zp_bls12_fp_modulus.v, 6)) return ZP_CURVE_BLS12_381;
    return ZP_CURVE_NONE;
}

zp_curve zp_io_curve_from_r(const uint8_t *le, size_t n8) {
    if (le_equals(le, n8, zp_bn254_fr_modulus.v, 4)) return ZP_CURVE_BN254;
    if (le_equals(le, n8, zp_bls12_fr_modulus.v, 4)) return ZP_CURVE_BLS12_381;
    return ZP_CURVE_NONE;
}

const uint64_t *zp_io_fp_modulus(zp_curve curve) {
    return curve == ZP_CURVE_BLS12_381 ? zp_bls12_fp_modulus.v : zp_bn254_fp_modulus.v;
}

const uint64_t *zp_io_fr_modulus(zp_curve curve) {
    return curve == ZP_CURVE_BLS12_381 ? zp_bls12_fr_modulus.v : zp_bn254_fr_modulus.v;
}

int zp_io_fr_is_canonical(zp_curve curve, const uint64_t v[4]) {
    return zp_limbs_lt_var(v, zp_io_fr_modulus(curve), 4);
}

int zp_io_fp_is_canonical(zp_curve curve, const uint64_t *v) {
    return zp_limbs_lt_var(v, zp_io_fp_modulus(curve), zp_io_fp_limbs(curve));
}

void zp_io_fp_to_mont(zp_curve curve, uint64_t *out, const uint64_t *plain) {
    if (curve == ZP_CURVE_BLS12_381) {
        zp_bls12_fp a, r;
        memcpy(&a, plain, sizeof a);
        zp_bls12_fp_to_mont(&r, &a);
        memcpy(out, &r, sizeof r);
    } else {
        zp_bn254_fp a, r;
        memcpy(&a, plain, sizeof a);
        zp_bn254_fp_to_mont(&r, &a);
        memcpy(out, &r, sizeof r);
    }
}

void zp_io_fp_from_mont(zp_curve curve, uint64_t *plain, const uint64_t *mont) {
    if (curve == ZP_CURVE_BLS12_381) {
        zp_bls12_fp a, r;
        memcpy(&a, mont, sizeof a);
        zp_bls12_fp_from_mont(&r, &a);
        memcpy(plain, &r, sizeof r);
    } else {
        zp_bn254_fp a, r;
        memcpy(&a, mont, sizeof a);
        zp_bn254_fp_from_mont(&r, &a);
        memcpy(plain, &r, sizeof r);
    }
}

static int all_canonical(zp_curve curve, const uint64_t *limbs, size_t n_coords) {
    size_t n = zp_io_fp_limbs(curve);
    for (size_t i = 0; i < n_coords; i++) {
        if (!zp_io_fp_is_canonical(curve, limbs + i * n)) return 0;
    }
    return 1;
}

/* The point types are the bare coordinate limbs (see point_impl.h), so a
 * memcpy moves between them and limb arrays. */
zp_io_point_check zp_io_g1_check(zp_curve curve, const uint64_t *limbs, int subgroup) {
    if (!all_canonical(curve, limbs, 2)) return ZP_IO_POINT_NONCANONICAL;
    if (curve == ZP_CURVE_BLS12_381) {
        zp_bls12_g1 p;
        memcpy(&p, limbs, sizeof p);
        if (!zp_bls12_g1_is_on_curve_var(&p)) return ZP_IO_POINT_OFF_CURVE;
        if (subgroup && !zp_bls12_g1_is_in_subgroup_var(&p)) return ZP_IO_POINT_OUTSIDE_SUBGROUP;
    } else {
        zp_bn254_g1 p;
        memcpy(&p, limbs, sizeof p);
        /* BN254's G1 has cofactor 1: on the curve is in the group. */
        if (!zp_bn254_g1_is_on_curve_var(&p)) return ZP_IO_POINT_OFF_CURVE;
    }
    return ZP_IO_POINT_OK;
}

zp_io_point_check zp_io_g2_check(zp_curve curve, const uint64_t *limbs, int subgroup) {
    if (!all_canonical(curve, limbs, 4)) return ZP_IO_POINT_NONCANONICAL;
    if (curve == ZP_CURVE_BLS12_381) {
        zp_bls12_g2 p;
        memcpy(&p, limbs, sizeof p);
        if (!zp_bls12_g2_is_on_curve_var(&p)) return ZP_IO_POINT_OFF_CURVE;
        if (subgroup && !zp_bls12_g2_is_in_subgroup_var(&p)) return ZP_IO_POINT_OUTSIDE_SUBGROUP;
    } else {
        zp_bn254_g2 p;
        memcpy(&p, limbs, sizeof p);
        if (!zp_bn254_g2_is_on_curve_var(&p)) return ZP_IO_POINT_OFF_CURVE;
        if (subgroup && !zp_bn254_g2_is_in_subgroup_var(&p)) return ZP_IO_POINT_OUTSIDE_SUBGROUP;
    }
    return ZP_IO_POINT_OK;
}

const char *zp_io_point_problem(zp_io_point_check c) {
    switch (c) {
    case ZP_IO_POINT_OK: return "is valid";
    case ZP_IO_POINT_NONCANONICAL: return "has a coordinate not below the base field modulus";
    case ZP_IO_POINT_OFF_CURVE: return "is not on the curve";
    case ZP_IO_POINT_OUTSIDE_SUBGROUP: return "is not in the prime-order subgroup";
    }
    return "is invalid";
}
