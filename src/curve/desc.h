/* One descriptor per curve, looked up in one place.
 *
 * Everything above the arithmetic that needs to know "which curve" asks
 * here: the formats layer (names in JSON, moduli in binary headers, element
 * sizes, point checks), the prover (group order, bit counts), the command
 * line. The shape is SQLite's sqlite3_vfs: a struct that says its own facts
 * and carries its functions, so a caller holds a `const zp_curve_desc *` and
 * never writes `if BN254 ... else` again. An unknown curve is NULL from the
 * getters and an error from zp_curve_lookup, never a fallback.
 *
 * A new curve is one line in ZP_CURVE_LIST, its names below, its field,
 * curve and pairing constants (the params.h files, from
 * tools/gen_constants.py), a zp_curve value in include/zkpipe.h, and the
 * template instantiations with its prefix (field/field.h, curve/curve.h,
 * pairing/pairing.h, groth16/prove.c, synth.c, setup.c): the tables name
 * each instantiated function, so a missing one fails the build rather than
 * running another curve's code. The Groth16 functions of each curve are in
 * a second table built from the same list (groth16/curves.h), since the
 * prover sits above this layer. */
#ifndef ZP_CURVE_DESC_H
#define ZP_CURVE_DESC_H

#include <stddef.h>
#include <stdint.h>

#include "zkpipe.h"

/* X(zp_curve value, prefix of its instantiations, prefix of its constants),
 * one line per curve, in the order they are listed to users. */
#define ZP_CURVE_LIST(X)                  \
    X(ZP_CURVE_BN254, zp_bn254, ZP_BN254) \
    X(ZP_CURVE_BLS12_381, zp_bls12, ZP_BLS12)

/* Names. _NAME: circom's (`circom --prime`) and snarkjs's JSON "curve";
 * _TITLE: for people; _ALIASES: what an input may say, normalised as
 * snarkjs's curves.js compares them (upper case, letters and digits only).
 * _G1_COFACTOR_ONE: every point on the G1 curve is in the group, so the
 * readers skip the subgroup check. */
#define ZP_BN254_NAME "bn128"
#define ZP_BN254_TITLE "BN254"
#define ZP_BN254_ALIASES "BN128", "BN254", "ALTBN128"
#define ZP_BN254_G1_COFACTOR_ONE 1

#define ZP_BLS12_NAME "bls12381"
#define ZP_BLS12_TITLE "BLS12-381"
#define ZP_BLS12_ALIASES "BLS12381"
#define ZP_BLS12_G1_COFACTOR_ONE 0

/* Every curve's circom name, space separated, for messages: "bn128 bls12381". */
#define ZP_CURVE_NAME_WORD_(id, g, G) " " G##_NAME
#define ZP_CURVE_NAMES (&ZP_CURVE_LIST(ZP_CURVE_NAME_WORD_)[1])

/* The largest base field, in limbs (BLS12-381's 381 bits). */
#define ZP_CURVE_MAX_FP_LIMBS 6

typedef struct zp_curve_desc {
    zp_curve id;
    const char *name;           /* "bn128": circom's and snarkjs's spelling */
    const char *title;          /* "BN254": for messages */
    const char *const *aliases; /* normalised input spellings, NULL-terminated */

    /* Fp, the base field: modulus as fp_limbs little-endian limbs; its
     * elements take fp_bytes in the formats (= 8 · fp_limbs). */
    const uint64_t *fp_modulus;
    size_t fp_limbs, fp_bytes;
    unsigned fp_bits;
    /* Fr, the scalar field (group order r): 4 limbs on both curves today. */
    const uint64_t *fr_modulus;
    size_t fr_limbs, fr_bytes;
    unsigned fr_bits;
    unsigned fr_two_adicity; /* largest k with 2^k | r - 1: bounds the NTT domain */
    /* Affine points as the formats and the prover lay them out: x, y for
     * G1; x.c0, x.c1, y.c0, y.c1 for G2. */
    size_t g1_bytes, g2_bytes;
    int g1_cofactor_one;

    /* Base field conversions, on fp_limbs limbs; in must be canonical. */
    void (*fp_to_mont)(uint64_t *mont, const uint64_t *plain);
    void (*fp_from_mont)(uint64_t *plain, const uint64_t *mont);
    /* Affine points in Montgomery form (all zeros is infinity, which is on
     * the curve and in the group). is_in_subgroup_var assumes on the curve and
     * costs a scalar multiplication unless the cofactor is 1. */
    int (*g1_is_on_curve_var)(const uint64_t *p);
    int (*g1_is_in_subgroup_var)(const uint64_t *p);
    int (*g2_is_on_curve_var)(const uint64_t *p);
    int (*g2_is_in_subgroup_var)(const uint64_t *p);
} zp_curve_desc;

/* Each curve's descriptor by name (zp_bn254_curve_desc, ...), for tables
 * built at compile time; everyone else asks zp_curve_get. */
#define ZP_CURVE_DECLARE_(cid, g, G) extern const zp_curve_desc g##_curve_desc;
ZP_CURVE_LIST(ZP_CURVE_DECLARE_)

/* The descriptor of a curve; NULL when id is not a curve zkpipe knows. */
const zp_curve_desc *zp_curve_get(zp_curve id);
/* The same as a status: ZP_ERR_ARG, "unknown curve 99 (zkpipe supports
 * bn128 bls12381)", when id is unknown. */
zp_status zp_curve_lookup(const zp_curve_desc **out, zp_curve id, zp_error *err) ZP_WARN_UNUSED;
/* By name: circom's name, the title or an alias, any case, punctuation
 * ignored ("BLS12-381", "alt_bn128"); NULL when none matches. */
const zp_curve_desc *zp_curve_find(const char *name);
/* By modulus: the curve whose Fp (resp. Fr) modulus is the n8-byte
 * little-endian integer at le, exactly (n8 must be the field's byte size);
 * NULL when there is none. */
const zp_curve_desc *zp_curve_find_fp(const uint8_t *le, size_t n8);
const zp_curve_desc *zp_curve_find_fr(const uint8_t *le, size_t n8);

/* The curves in ZP_CURVE_LIST order: i < zp_curve_count(). */
size_t zp_curve_count(void);
const zp_curve_desc *zp_curve_at(size_t i);

#endif
