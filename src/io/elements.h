/* Curve-generic checks on field elements and points as the readers meet
 * them: a format names its curve at run time, and these apply that curve's
 * descriptor (curve/desc.h) for all of src/io. An unknown curve has no
 * limbs (0), no canonical values and no valid points. Internal to src/io. */
#ifndef ZP_IO_ELEMENTS_H
#define ZP_IO_ELEMENTS_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "zkpipe.h"

/* Every format here is little-endian and the readers copy file bytes
 * straight into uint64_t limbs. */
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "zkpipe's formats code assumes a little-endian host");

#define ZP_IO_MAX_LIMBS 6 /* = ZP_CURVE_MAX_FP_LIMBS */

size_t zp_io_fp_limbs(zp_curve curve); /* 4 or 6; 0 for an unknown curve */
/* "BN254" / "BLS12-381", for messages. */
const char *zp_io_curve_title(zp_curve curve);

/* The curve whose base field (q) or scalar field (r) modulus is the n8-byte
 * little-endian integer at le; ZP_CURVE_NONE when it is neither. */
zp_curve zp_io_curve_from_q(const uint8_t *le, size_t n8);
zp_curve zp_io_curve_from_r(const uint8_t *le, size_t n8);
/* The moduli as limbs (fp: zp_io_fp_limbs(curve) limbs, fr: 4 limbs);
 * NULL for an unknown curve. */
const uint64_t *zp_io_fp_modulus(zp_curve curve);
const uint64_t *zp_io_fr_modulus(zp_curve curve);

int zp_io_fr_is_canonical(zp_curve curve, const uint64_t v[4]);
int zp_io_fp_is_canonical(zp_curve curve, const uint64_t *v);
/* Plain <-> Montgomery in the base field; the input must be canonical.
 * For an unknown curve nothing is written. */
void zp_io_fp_to_mont(zp_curve curve, uint64_t *out, const uint64_t *plain);
void zp_io_fp_from_mont(zp_curve curve, uint64_t *plain, const uint64_t *mont);

typedef enum zp_io_point_check {
    ZP_IO_POINT_OK = 0,
    ZP_IO_POINT_NONCANONICAL, /* a coordinate is not below p */
    ZP_IO_POINT_OFF_CURVE,
    ZP_IO_POINT_OUTSIDE_SUBGROUP,
    ZP_IO_POINT_UNKNOWN_CURVE
} zp_io_point_check;

/* Checks an affine point in Montgomery form (limbs as in zp_groth16_proof; all
 * zeros is infinity, which passes). subgroup: also check r·P = 0, which
 * costs a scalar multiplication and is skipped where the cofactor is 1. */
zp_io_point_check zp_io_g1_check(zp_curve curve, const uint64_t *limbs, int subgroup);
zp_io_point_check zp_io_g2_check(zp_curve curve, const uint64_t *limbs, int subgroup);
/* "is not on the curve", ... for messages. */
const char *zp_io_point_problem(zp_io_point_check c);

/* Little-endian u32/u64 from possibly unaligned bytes. */
static inline uint32_t zp_io_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t zp_io_u64(const uint8_t *p) { return (uint64_t)zp_io_u32(p) | (uint64_t)zp_io_u32(p + 4) << 32; }
static inline void zp_io_put_u32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

#endif
