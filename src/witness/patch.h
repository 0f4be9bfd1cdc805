/* The fastfr patch: wasm2c's C of a circom witness calculator, with the
 * hottest functions of circom's own 32-bit field library (Fr_F1m_mul,
 * Fr_copy, Fr_int_gte, ...) replaced by native 64-bit code working in place
 * on the wasm's linear memory (src/witness/fastfr.c.in says which and why
 * their bytes are the wasm's).
 *
 * The patch is applied only when the module's field is one zkpipe knows
 * (circom's bn128 or bls12381 scalar field, read from the data segment the
 * field code takes its modulus from, and its -p^-1 mod 2^32 constant) and
 * every replaced function is there with exactly the signature expected;
 * otherwise the text is left as it is. */
#ifndef ZP_WITNESS_PATCH_H
#define ZP_WITNESS_PATCH_H

#include <stddef.h>

#include "base/error.h"
#include "zkpipe.h"

/* Bump when fastfr.c.in or the patching changes: compile.c hashes it (and
 * the text) into the cache key, so objects built otherwise are not reused. */
#define ZP_FASTFR_PATCH_VERSION "fastfr 11"

typedef struct zp_fastfr_outcome {
    int applied;          /* 1: the functions were replaced */
    const char *field;    /* "bn128" / "bls12381" when applied */
    const char *why_not;  /* a static reason when not applied */
    size_t copies_merged; /* Fr_copy calls merged into zp_ff_copy_list runs */
} zp_fastfr_outcome;

/* 0 when ZKPIPE_WITNESS_FASTFR=0 asks for the wasm's own field code (for
 * measuring); 1 otherwise. Part of the cache key (compile.c). */
int zp_witness_fastfr_enabled(void);

/* What compile.c hashes into the key after ZP_FASTFR_PATCH_VERSION: the
 * text the patch inserts when enabled, "fastfr off" when not. */
const char *zp_witness_fastfr_key_text(void);

/* Patches the C text (len bytes, NUL-terminated) when it can: *out is a new
 * malloc'd text and *out_len its length, or *out is NULL when it is left
 * as it is (outcome->why_not says why). ZP_ERR_NOMEM is the only error. */
zp_status zp_witness_fastfr_patch(char **out, size_t *out_len, const char *text, size_t len, zp_fastfr_outcome *outcome,
                                  zp_error *err) ZP_WARN_UNUSED;

#endif
