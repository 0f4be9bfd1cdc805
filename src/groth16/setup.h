/* Development setup: a Groth16 proving key for a constraint system from
 * random toxic waste drawn from the OS and then forgotten. Anyone who kept
 * the waste could forge proofs, and nobody can show it was forgotten: keys
 * made this way are for tests and benchmarks, never for production (use a
 * snarkjs ceremony for that). It exists because snarkjs needs many minutes
 * for the powers of tau a large circuit needs; this takes seconds. */
#ifndef ZP_GROTH16_SETUP_H
#define ZP_GROTH16_SETUP_H

#include "base/parallel.h"
#include "groth16/keys.h"
#include "zkpipe.h"

/* A key made by setup: the view plus the memory behind it. */
typedef struct zp_groth16_setup_key {
    zp_groth16_pk pk;
    void *memory; /* one allocation holding every array of pk */
} zp_groth16_setup_key;

/* Largest domain the setup accepts (2^log): bounded by memory, not math. */
#define ZP_SETUP_MAX_LOG_DOMAIN 24

zp_status zp_groth16_setup(zp_groth16_setup_key *key, const zp_constraint_system *cs, const zp_parallel *par,
                           zp_error *err) ZP_WARN_UNUSED;
void zp_groth16_setup_free(zp_groth16_setup_key *key);

#endif
