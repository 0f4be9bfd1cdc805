/* snarkjs's JSON files: proof.json, public.json, verification_key.json
 * (docs/formats.md). Numbers are decimal strings; points are plain affine
 * coordinates with a third coordinate "1" (["1", "0"] in G2), and the point
 * at infinity is ["0", "1", "0"] / [["0","0"], ["1","0"], ["0","0"]], as
 * ffjavascript's toObject writes it. In memory, points are Montgomery limbs
 * (zp_groth16_proof, zp_groth16_vk) and scalars plain 4-limb integers.
 *
 * Readers validate everything: each coordinate a decimal string below p,
 * each point on the curve and in the prime-order subgroup, each public
 * value below r, protocol "groth16". Messages name the file and the field.
 *
 * Each format comes as parse (text in memory; name is for messages), read
 * (a file), dump (a malloc'd NUL-terminated string; free() it) and write. */
#ifndef ZP_IO_JSON_H
#define ZP_IO_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "groth16/keys.h"
#include "zkpipe.h"

/* expected: the curve the caller needs (that of the verification key), or
 * ZP_CURVE_NONE to accept either; a proof for another curve is
 * ZP_ERR_MISMATCH. */
zp_status zp_json_proof_parse(zp_groth16_proof *proof, const char *text, size_t len, const char *name,
                              zp_curve expected, zp_error *err) ZP_WARN_UNUSED;
zp_status zp_json_proof_read(zp_groth16_proof *proof, const char *path, zp_curve expected,
                             zp_error *err) ZP_WARN_UNUSED;
zp_status zp_json_proof_dump(char **out, const zp_groth16_proof *proof, zp_error *err) ZP_WARN_UNUSED;
zp_status zp_json_proof_write(const char *path, const zp_groth16_proof *proof, zp_error *err) ZP_WARN_UNUSED;

/* *values: malloc'd, *count × 4 plain limbs, each below curve's r. */
zp_status zp_json_public_parse(uint64_t **values, size_t *count, const char *text, size_t len, const char *name,
                               zp_curve curve, zp_error *err) ZP_WARN_UNUSED;
zp_status zp_json_public_read(uint64_t **values, size_t *count, const char *path, zp_curve curve,
                              zp_error *err) ZP_WARN_UNUSED;
zp_status zp_json_public_dump(char **out, const uint64_t *values, size_t count, zp_error *err) ZP_WARN_UNUSED;
zp_status zp_json_public_write(const char *path, const uint64_t *values, size_t count, zp_error *err) ZP_WARN_UNUSED;

/* Reading ignores vk_alphabeta_12 (the verifier computes e(alpha, beta)).
 * vk->ic is malloc'd: release with zp_groth16_vk_free. */
zp_status zp_json_vk_parse(zp_groth16_vk *vk, const char *text, size_t len, const char *name,
                           zp_error *err) ZP_WARN_UNUSED;
zp_status zp_json_vk_read(zp_groth16_vk *vk, const char *path, zp_error *err) ZP_WARN_UNUSED;
/* alphabeta: e(alpha1, beta2) as 12 Fp elements in Montgomery form, each
 * 4 or 6 limbs, in the order c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1
 * (Fp12 = Fp6[w], Fp6 = Fp2[v]); written as snarkjs's nested 2×3×2 array. */
zp_status zp_json_vk_dump(char **out, const zp_groth16_vk *vk, const uint64_t *alphabeta, zp_error *err) ZP_WARN_UNUSED;
zp_status zp_json_vk_write(const char *path, const zp_groth16_vk *vk, const uint64_t *alphabeta,
                           zp_error *err) ZP_WARN_UNUSED;

/* Writes text and a newline to path (zp_file_write_all: an existing
 * file is written over in place), frees text; a partial file is
 * removed. */
zp_status zp_json_text_write(const char *path, char *text, zp_error *err) ZP_WARN_UNUSED;

#endif
