#include "io/elements.h"

#include <string.h>

#include "curve/desc.h"
#include "field/mont.h"

_Static_assert(ZP_IO_MAX_LIMBS == ZP_CURVE_MAX_FP_LIMBS, "io's limb buffers fit every curve's base field");

/* Every function here is the curve's descriptor (curve/desc.h) applied to
 * limbs; an unknown curve is never treated as some known one: it has no
 * limbs, no canonical values and no valid points. */

size_t zp_io_fp_limbs(zp_curve curve) {
    const zp_curve_desc *d = zp_curve_get(curve);
    return d != NULL ? d->fp_limbs : 0;
}

const char *zp_io_curve_title(zp_curve curve) {
    const zp_curve_desc *d = zp_curve_get(curve);
    return d != NULL ? d->title : "unknown curve";
}

zp_curve zp_io_curve_from_q(const uint8_t *le, size_t n8) {
    const zp_curve_desc *d = zp_curve_find_fp(le, n8);
    return d != NULL ? d->id : ZP_CURVE_NONE;
}

zp_curve zp_io_curve_from_r(const uint8_t *le, size_t n8) {
    const zp_curve_desc *d = zp_curve_find_fr(le, n8);
    return d != NULL ? d->id : ZP_CURVE_NONE;
}

const uint64_t *zp_io_fp_modulus(zp_curve curve) {
    const zp_curve_desc *d = zp_curve_get(curve);
    return d != NULL ? d->fp_modulus : NULL;
}

const uint64_t *zp_io_fr_modulus(zp_curve curve) {
    const zp_curve_desc *d = zp_curve_get(curve);
    return d != NULL ? d->fr_modulus : NULL;
}

int zp_io_fr_is_canonical(zp_curve curve, const uint64_t v[4]) {
    const zp_curve_desc *d = zp_curve_get(curve);
    return d != NULL && zp_limbs_lt_var(v, d->fr_modulus, d->fr_limbs);
}

int zp_io_fp_is_canonical(zp_curve curve, const uint64_t *v) {
    const zp_curve_desc *d = zp_curve_get(curve);
    return d != NULL && zp_limbs_lt_var(v, d->fp_modulus, d->fp_limbs);
}

/* Unknown curve: nothing is written (its size is unknown too); every
 * caller has checked the curve before. */
void zp_io_fp_to_mont(zp_curve curve, uint64_t *out, const uint64_t *plain) {
    const zp_curve_desc *d = zp_curve_get(curve);
    if (d != NULL) d->fp_to_mont(out, plain);
}

void zp_io_fp_from_mont(zp_curve curve, uint64_t *plain, const uint64_t *mont) {
    const zp_curve_desc *d = zp_curve_get(curve);
    if (d != NULL) d->fp_from_mont(plain, mont);
}

static int all_canonical(const zp_curve_desc *d, const uint64_t *limbs, size_t n_coords) {
    for (size_t i = 0; i < n_coords; i++) {
        if (!zp_limbs_lt_var(limbs + i * d->fp_limbs, d->fp_modulus, d->fp_limbs)) return 0;
    }
    return 1;
}

zp_io_point_check zp_io_g1_check(zp_curve curve, const uint64_t *limbs, int subgroup) {
    const zp_curve_desc *d = zp_curve_get(curve);
    if (d == NULL) return ZP_IO_POINT_UNKNOWN_CURVE;
    if (!all_canonical(d, limbs, 2)) return ZP_IO_POINT_NONCANONICAL;
    if (!d->g1_is_on_curve_var(limbs)) return ZP_IO_POINT_OFF_CURVE;
    /* free where the cofactor is 1 (BN254): on the curve is in the group */
    if (subgroup && !d->g1_is_in_subgroup_var(limbs)) return ZP_IO_POINT_OUTSIDE_SUBGROUP;
    return ZP_IO_POINT_OK;
}

zp_io_point_check zp_io_g2_check(zp_curve curve, const uint64_t *limbs, int subgroup) {
    const zp_curve_desc *d = zp_curve_get(curve);
    if (d == NULL) return ZP_IO_POINT_UNKNOWN_CURVE;
    if (!all_canonical(d, limbs, 4)) return ZP_IO_POINT_NONCANONICAL;
    if (!d->g2_is_on_curve_var(limbs)) return ZP_IO_POINT_OFF_CURVE;
    if (subgroup && !d->g2_is_in_subgroup_var(limbs)) return ZP_IO_POINT_OUTSIDE_SUBGROUP;
    return ZP_IO_POINT_OK;
}

const char *zp_io_point_problem(zp_io_point_check c) {
    switch (c) {
    case ZP_IO_POINT_OK: return "is valid";
    case ZP_IO_POINT_NONCANONICAL: return "has a coordinate not below the base field modulus";
    case ZP_IO_POINT_OFF_CURVE: return "is not on the curve";
    case ZP_IO_POINT_OUTSIDE_SUBGROUP: return "is not in the prime-order subgroup";
    case ZP_IO_POINT_UNKNOWN_CURVE: return "is on an unknown curve";
    }
    return "is invalid";
}
