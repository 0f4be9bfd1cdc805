/* Trusted-setup ceremonies on snarkjs's files (docs/ceremony.md).
 *
 * Phase 2 (per circuit) as snarkjs 0.7 does it, on its .zkey and .ptau:
 * zkey new (the initial key from a circuit and a prepared powers of tau,
 * byte for byte snarkjs's), contribute (a secret delta from OS randomness
 * and the user's entropy, combined as snarkjs does), beacon (delta from a
 * public beacon, byte for byte snarkjs's), verify (every contribution of
 * the chain, and the key against the circuit and the ptau).
 *
 * This layer sits above the formats (src/io) and below the command: it is
 * handed its worker threads (par: NULL for serial) and reports progress
 * on stderr when `progress` is set.
 *
 * Errors: ZP_ERR_FORMAT / ZP_ERR_UNSUPPORTED for a malformed or truncated
 * file (the message names the file and the section), ZP_ERR_MISMATCH for
 * files that do not belong together (a ptau too small for the circuit, of
 * another curve), ZP_ERR_INVALID for a key that fails verification (the
 * message names the contribution and the check), ZP_ERR_IO, ZP_ERR_NOMEM. */
#ifndef ZP_CEREMONY_CEREMONY_H
#define ZP_CEREMONY_CEREMONY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/parallel.h"
#include "zkpipe.h"

#define ZP_CEREMONY_HASH_BYTES 64

typedef struct zp_ceremony_opts {
    const zp_parallel *par; /* NULL: serial */
    int progress;           /* 1: a progress line on stderr */
    uint64_t budget;        /* bytes of memory a step may hold (docs/ceremony.md); 0: no limit */
} zp_ceremony_opts;

/* snarkjs `zkey new`: writes the initial key of the circuit at r1cs_path
 * from the prepared ptau at ptau_path into out_path; cs_hash (may be
 * NULL) receives the circuit hash. */
zp_status zp_ceremony_zkey_new(const char *r1cs_path, const char *ptau_path, const char *out_path,
                               const zp_ceremony_opts *opts, uint8_t cs_hash[ZP_CEREMONY_HASH_BYTES],
                               zp_error *err) ZP_WARN_UNUSED;

/* snarkjs `zkey contribute`: a new key with one more contribution, its
 * secret from 64 bytes of OS randomness and entropy (UTF-8, may be empty
 * but not NULL) hashed together with BLAKE2b-512. name may be NULL.
 * hash (may be NULL) receives the contribution hash. */
zp_status zp_ceremony_zkey_contribute(const char *in_path, const char *out_path, const char *name, const char *entropy,
                                      const zp_ceremony_opts *opts, uint8_t hash[ZP_CEREMONY_HASH_BYTES],
                                      zp_error *err) ZP_WARN_UNUSED;

/* snarkjs `zkey beacon`: the contribution made from beacon_hex (1 to 255
 * bytes in hex) hashed 2^iter_exp times with SHA-256 (10 <= iter_exp <=
 * 63). Deterministic: the same file snarkjs writes. */
zp_status zp_ceremony_zkey_beacon(const char *in_path, const char *out_path, const char *name, const char *beacon_hex,
                                  unsigned iter_exp, const zp_ceremony_opts *opts, uint8_t hash[ZP_CEREMONY_HASH_BYTES],
                                  zp_error *err) ZP_WARN_UNUSED;

/* snarkjs `zkey verify`: ZP_OK when the key at zkey_path is the circuit's
 * initial key (recomputed from r1cs_path and ptau_path) changed only by
 * the contributions its §10 lists, each of which checks; the report
 * (circuit hash, each contribution's hash and name, last first) goes to
 * report (may be NULL). ZP_ERR_INVALID names the failed check. */
zp_status zp_ceremony_zkey_verify(const char *r1cs_path, const char *ptau_path, const char *zkey_path,
                                  const zp_ceremony_opts *opts, FILE *report, zp_error *err) ZP_WARN_UNUSED;

/* snarkjs `powersoftau new CURVE POWER out.ptau`: the first accumulator
 * (every point a generator), byte for byte snarkjs's; first_hash (may be
 * NULL) receives the first challenge hash snarkjs prints. */
zp_status zp_ceremony_ptau_new(zp_curve curve, unsigned power, const char *out_path,
                               uint8_t first_hash[ZP_CEREMONY_HASH_BYTES], zp_error *err) ZP_WARN_UNUSED;

/* snarkjs `powersoftau prepare phase2`: the Lagrange bases (sections 12
 * to 15) of a phase-1 file, byte for byte snarkjs's; at most power
 * 2^(s-1), s the scalar field's two-adicity. */
zp_status zp_ceremony_ptau_prepare(const char *in_path, const char *out_path, const zp_ceremony_opts *opts,
                                   zp_error *err) ZP_WARN_UNUSED;

/* snarkjs `powersoftau contribute`: a new accumulator with one more
 * contribution, its secrets (tau, alpha, beta) from 64 bytes of OS
 * randomness and entropy (UTF-8, may be empty but not NULL) hashed
 * together with BLAKE2b-512, every power multiplied in constant time.
 * name may be NULL. response and next_challenge (may be NULL) receive
 * the contribution's response hash and the next challenge hash. */
zp_status zp_ceremony_ptau_contribute(const char *in_path, const char *out_path, const char *name, const char *entropy,
                                      const zp_ceremony_opts *opts, uint8_t response[ZP_CEREMONY_HASH_BYTES],
                                      uint8_t next_challenge[ZP_CEREMONY_HASH_BYTES], zp_error *err) ZP_WARN_UNUSED;

/* snarkjs `powersoftau beacon`: the contribution made from beacon_hex (1
 * to 255 bytes in hex) hashed 2^iter_exp times with SHA-256 (10 <=
 * iter_exp <= 63). Deterministic: the same file snarkjs writes. */
zp_status zp_ceremony_ptau_beacon(const char *in_path, const char *out_path, const char *name, const char *beacon_hex,
                                  unsigned iter_exp, const zp_ceremony_opts *opts,
                                  uint8_t response[ZP_CEREMONY_HASH_BYTES],
                                  uint8_t next_challenge[ZP_CEREMONY_HASH_BYTES], zp_error *err) ZP_WARN_UNUSED;

/* Whether the ptau at path holds phase 2's Lagrange sections (12 to 15)
 * as `powersoftau prepare phase2` writes them: 1 when it does, 0 when it
 * does not or cannot be read (the step that reads it then says why). A
 * contribution or a beacon drops those sections, as snarkjs's do, so a
 * caller warns before making one from a prepared file. */
int zp_ceremony_ptau_prepared(const char *path);

/* snarkjs `powersoftau verify`: ZP_OK when every contribution of the
 * ptau at path checks (its proofs of knowledge, its place in the chain),
 * the points are the powers of the last one (random linear combinations
 * and pairings), the hashes agree, and a prepared file's Lagrange
 * sections are those of its powers. The report (each contribution, last
 * first, as snarkjs prints it) goes to report (may be NULL).
 * ZP_ERR_INVALID names the contribution and the check. */
zp_status zp_ceremony_ptau_verify(const char *path, const zp_ceremony_opts *opts, FILE *report,
                                  zp_error *err) ZP_WARN_UNUSED;

/* snarkjs's formatHash: four lines of four big-endian words in hex, each
 * line starting with two tabs, after title and a newline. */
void zp_ceremony_print_hash(FILE *f, const char *title, const uint8_t hash[ZP_CEREMONY_HASH_BYTES]);

#endif
