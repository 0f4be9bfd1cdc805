/* Synthesis internals that tests look at: which layout the precompiled
 * matrices took, and a way to force the wide (64-bit index) layout on a
 * small key. The API itself is in groth16/groth16.h. */
#ifndef ZP_GROTH16_SYNTH_H
#define ZP_GROTH16_SYNTH_H

#include "base/parallel.h"
#include "groth16/keys.h"
#include "zkpipe.h"

/* How a key's matrices are laid out (see synth.c). */
typedef struct zp_groth16_matrices_info {
    unsigned index_bytes; /* 4 or 8: the width of every stored index */
    int permuted;         /* 0: rows index the coefficient list in place;
                           * 1: the list is out of order, rows index a permutation of it */
    size_t bytes;         /* the whole layout, = zp_groth16_matrices_size */
} zp_groth16_matrices_info;

/* The layout of built matrices. */
zp_groth16_matrices_info zp_groth16_matrices_describe(const void *matrices);

/* zp_groth16_matrices_size / _build with the index width chosen by the
 * caller: index_bytes 0 takes the narrowest that fits (what the API does),
 * 8 forces 64-bit indices (for tests; a key needs them only past 2^32
 * coefficients). */
size_t zp_groth16_matrices_size_as(const zp_groth16_pk *pk, unsigned index_bytes);
/* At least zp_groth16_matrices_size(pk), without its scan of the
 * coefficient list (which would map the list): the layout of a list out
 * of order, the largest. */
size_t zp_groth16_matrices_bound(const zp_groth16_pk *pk);
zp_status zp_groth16_matrices_build_as(void *mem, size_t bytes, const zp_groth16_pk *pk, unsigned index_bytes,
                                       const zp_parallel *par, zp_error *err) ZP_WARN_UNUSED;

#endif
