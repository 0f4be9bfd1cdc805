/* What api.c lends api_bind.c (the public API's block for language
 * bindings): its handles' insides, behind functions, so the structs stay
 * in one file. */
#ifndef ZP_ENGINE_API_INTERNAL_H
#define ZP_ENGINE_API_INTERNAL_H

#include "groth16/groth16.h"
#include "io/wtns.h"
#include "io/zkey.h"
#include "mem/track.h"
#include "zkpipe.h"

/* A key over zkey (owned from now on: closed with the key); copy, when
 * not NULL, is the mapping of copy_bytes it reads from (unmapped after it). */
zp_status zp_api_key_wrap(zp_key **out, zp_zkey *zkey, void *copy, size_t copy_bytes, zp_error *err);
/* A witness over wtns (owned from now on). */
zp_status zp_api_witness_wrap(zp_witness **out, zp_wtns *wtns, zp_error *err);
const zp_zkey *zp_api_key_zkey(const zp_key *key);
const zp_wtns *zp_api_witness_wtns(const zp_witness *witness);
zp_status zp_api_proof_decode(zp_groth16_proof *out, const zp_proof *in, zp_error *err);
const zp_tracker *zp_api_prover_tracker(const zp_prover *prover);
/* The flag zp_prover_set_stop last gave the prover (NULL: none). */
const int *zp_api_prover_stop(const zp_prover *prover);

#endif
