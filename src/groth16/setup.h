/* Development setup: a Groth16 proving key for a constraint system from
 * random toxic waste drawn from the OS and then forgotten. Anyone who kept
 * the waste could forge proofs, and nobody can show it was forgotten: keys
 * made this way are for tests and benchmarks, never for production (use a
 * snarkjs ceremony for that). It exists because snarkjs needs many minutes
 * for the powers of tau a large circuit needs; this takes seconds. */
#ifndef ZP_GROTH16_SETUP_H
#define ZP_GROTH16_SETUP_H

#include <stdint.h>

#include "base/parallel.h"
#include "groth16/keys.h"
#include "mem/track.h"
#include "zkpipe.h"

/* A key made by setup: the view plus the memory behind it. */
typedef struct zp_groth16_setup_key {
    zp_groth16_pk pk;
    void *memory; /* one allocation holding every array of pk */
} zp_groth16_setup_key;

/* Largest domain the in-memory setup accepts (2^log): bounded by memory,
 * not math. The streaming one (below) goes to 2^27, or less where the
 * curve's 2N-domain (H) has no roots of unity: its memory does not grow
 * with the key. */
#define ZP_SETUP_MAX_LOG_DOMAIN 24
#define ZP_SETUP_STREAM_MAX_LOG_DOMAIN 27

zp_status zp_groth16_setup(zp_groth16_setup_key *key, const zp_constraint_system *cs, const zp_parallel *par,
                           zp_error *err) ZP_WARN_UNUSED;
void zp_groth16_setup_free(zp_groth16_setup_key *key);

/* The same from toxic waste drawn from a 32-byte seed instead of the OS:
 * the same seed gives the same key, byte for byte, here and from
 * zp_groth16_setup_write. For tests that compare keys; a key whose waste
 * anyone with the seed can recompute protects nothing. */
zp_status zp_groth16_setup_seeded(zp_groth16_setup_key *key, const zp_constraint_system *cs, const uint8_t seed[32],
                                  const zp_parallel *par, zp_error *err) ZP_WARN_UNUSED;

/* The streaming setup: the key is written section by section as it is
 * computed, within a budget of working memory, so a key larger than the
 * machine's memory can be made. Its working memory:
 *   - per wire, u, v, w (32 bytes each) for a chunk of K wires; the
 *     constraint rows are walked once per chunk ("pass"), so a budget that
 *     holds every wire's u, v, w at once needs one pass, a smaller one
 *     more (at most ZP_SETUP_MAX_PASSES: that bounds the minimum);
 *   - per row chunk of R rows or points, the Lagrange values and their
 *     scratch (96 bytes), the scalars (32) and the points made (one G2);
 *   - the fixed-base tables of G1 and G2.
 * Nothing else grows with the circuit (the constraint system is the
 * caller's). Every buffer is tracked (mem/track.h), class 0, stage 0. */
#define ZP_SETUP_MAX_PASSES 64

typedef struct zp_groth16_setup_plan {
    uint64_t bytes;     /* the tracked bytes the setup will hold at most */
    uint64_t min_bytes; /* the least any budget can give this system */
    size_t wire_chunk;  /* K */
    size_t row_chunk;   /* R */
    size_t passes;      /* over the constraint rows: ceil(wires / K) */
    unsigned log_n;     /* the domain: 2^log_n */
} zp_groth16_setup_plan;

/* The plan for a budget of tracked bytes (0: no limit, the largest
 * chunks). A budget below the minimum is ZP_ERR_ARG, with the minimum in
 * the message and in plan->min_bytes; a system setup refuses gives that
 * error (as zp_groth16_setup). */
zp_status zp_groth16_setup_plan_for(zp_groth16_setup_plan *plan, const zp_constraint_system *cs, uint64_t budget,
                                    zp_error *err) ZP_WARN_UNUSED;

/* The same with R and K given (tests that want many small chunks). */
zp_status zp_groth16_setup_plan_chunks(zp_groth16_setup_plan *plan, const zp_constraint_system *cs, size_t row_chunk,
                                       size_t wire_chunk, zp_error *err) ZP_WARN_UNUSED;

/* The key's sizes without its arrays (curve, n_vars, n_public,
 * domain_size, n_coefs; every pointer NULL): what a writer needs to lay
 * the file out before the points exist (io/zkey_writer.h). */
void zp_groth16_setup_shape(zp_groth16_pk *shape, const zp_constraint_system *cs, const zp_groth16_setup_plan *plan);

/* Where the streaming setup's bytes go: n bytes at pos of the .zkey's
 * section id (snarkjs's numbers, docs/formats.md: 2 the header, whose
 * pos counts from its first point, alpha1; 3 IC, 4 the coefficients from
 * their count, 5 A, 6 B1, 7 B2, 8 C, 9 H). Each byte is put once, in no
 * set order. ZP_OK, or an error with err set, which ends the setup. */
enum {
    ZP_SETUP_S_HEADER = 2,
    ZP_SETUP_S_IC = 3,
    ZP_SETUP_S_COEFS = 4,
    ZP_SETUP_S_A = 5,
    ZP_SETUP_S_B1 = 6,
    ZP_SETUP_S_B2 = 7,
    ZP_SETUP_S_C = 8,
    ZP_SETUP_S_H = 9
};
typedef zp_status (*zp_setup_put_fn)(void *arg, uint32_t id, uint64_t pos, const void *p, size_t n, zp_error *err);

typedef struct zp_groth16_setup_opts {
    const uint8_t *seed; /* 32 bytes (see zp_groth16_setup_seeded); NULL: OS randomness */
    zp_tracker *tracker; /* counts the buffers; NULL: one of the call's own */
    /* Called after each chunk with the work done and the whole (points
     * made, a G2 point weighing 3); from the calling thread. NULL: not. */
    void (*progress)(void *arg, uint64_t done, uint64_t total);
    void *progress_arg;
} zp_groth16_setup_opts;

/* Makes the key zp_groth16_setup makes (zp_groth16_setup_seeded's with a
 * seed) in the chunks plan gives, holding at most plan->bytes of tracked
 * memory, and puts each chunk of its sections as it is done: §2's
 * points, §3-§9 (the writer owns §1, §2's sizes and §10). opts may be
 * NULL. Errors: the put function's, ZP_ERR_NOMEM from the tracker, ZP_ERR_ARG for a plan of
 * another system, and zp_groth16_setup's. The toxic waste and the values
 * made from it are zeroed before it returns, whatever happened. */
zp_status zp_groth16_setup_stream(const zp_constraint_system *cs, const zp_groth16_setup_plan *plan,
                                  const zp_groth16_setup_opts *opts, zp_setup_put_fn put, void *put_arg,
                                  const zp_parallel *par, zp_error *err) ZP_WARN_UNUSED;

#endif
