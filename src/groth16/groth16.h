/* Groth16 proving, split as the engine needs it, and verification.
 *
 * A proof is three steps:
 *   zp_groth16_synthesize    a = A·w, b = B·w, c = a∘b into abc, over the
 *                            key's constraint matrices (built once per key
 *                            by zp_groth16_matrices_build);
 *   zp_groth16_prove_start   the NTTs and the G1 MSMs, from the a, b, c that
 *                            synthesis left in abc (it does not synthesize);
 *   zp_groth16_prove_finish  the G2 MSM and the assembly (for a small key
 *                            the G2 MSM runs in prove_start).
 *
 * Memory is the caller's, so the big buffers can go early:
 * - matrices (zp_groth16_matrices_size): per key, read only; they index the
 *   key's coefficient list, so the key must outlive them;
 * - abc (zp_groth16_abc_size): the a, b, c vectors, written by synthesis
 *   and used by prove_start only: free it as soon as prove_start returns;
 * - msm scratch (zp_groth16_msm_scratch_size): the MSM buckets, for both
 *   prove_start and prove_finish, and before them the NTTs' twiddles and
 *   work blocks.
 * The caller allocates them (through the tracker, for the engine). The
 * witness (plain 4-limb integers, n_vars of them) must stay alive until
 * prove_finish. */
#ifndef ZP_GROTH16_GROTH16_H
#define ZP_GROTH16_GROTH16_H

#include "base/parallel.h"
#include "groth16/keys.h"
#include "msm/msm.h"
#include "zkpipe.h"

/* What prove_start leaves for prove_finish: π_A and π_C done, and the
 * blinding term s·δ₂ that π_B still needs; for a key of at most this
 * domain, when prove_start had more than one thread, also Σ w_i B_i (the
 * G2 MSM ran in the same loop as the G1 ones; prove_finish then only
 * assembles). */
#define ZP_GROTH16_JOINT_MAX_DOMAIN ((uint32_t)1 << 13)
typedef struct zp_groth16_pending {
    zp_curve curve;
    uint64_t pi_a[12], pi_c[12];
    uint64_t s_delta2[36]; /* Jacobian G2 */
    int b2_done;
    uint64_t b2_sum[36]; /* Jacobian G2 */
} zp_groth16_pending;

size_t zp_groth16_abc_size(const zp_groth16_pk *pk);

/* Precomputed multiples of a small key's bulk points (msm/msm.h,
 * zp_msm_table), one table for each of A, B1, C, H and B2: each MSM
 * costs about a third less (a 2^11 proof's MSMs ~30% less time) for
 * about 24 copies of the points. A prover that proves one key many
 * times builds them once and attaches them to its copy of the pk
 * (pk.tables); the msm scratch size and prove_start then take them into
 * account. Only keys whose domain is at most ZP_GROTH16_JOINT_MAX_DOMAIN
 * have them (above that the copies cost more memory than they save
 * time): tables_size is 0 for the others, and for an unknown curve. */
typedef struct zp_groth16_tables {
    zp_curve curve;
    uint32_t n_vars, domain_size;
    zp_msm_table g1[4]; /* A, B1, C (the private wires), H */
    zp_msm_table g2;    /* B2 */
} zp_groth16_tables;
size_t zp_groth16_tables_size(const zp_groth16_pk *pk, size_t threads);
/* Builds them in mem (64-byte aligned, bytes >= tables_size(pk, threads);
 * the struct at its start) for MSMs on pools of `threads` workers, the
 * work parallel on par: ZP_ERR_ARG when the key has none or mem is too
 * small. They point into the key's points' copies, not into the key. */
zp_status zp_groth16_tables_build(void *mem, size_t bytes, const zp_groth16_pk *pk, size_t threads,
                                  const zp_parallel *par, zp_error *err) ZP_WARN_UNUSED;
size_t zp_groth16_msm_scratch_size(const zp_groth16_pk *pk, size_t threads);

/* A witness is n_vars plain 4-limb integers: w[0] = 1, then the public
 * signals, then the private ones. These say its size and where its public
 * signals are, so no caller writes the layout out again. */
#define ZP_SCALAR_BYTES 32
static inline size_t zp_groth16_witness_bytes(const zp_groth16_pk *pk) { return (size_t)pk->n_vars * ZP_SCALAR_BYTES; }
static inline const uint64_t *zp_groth16_witness_public(const uint64_t *witness) { return witness + 4; }

/* Checks a witness against the key: its length and curve, w[0] = 1. */
zp_status zp_groth16_check_witness(const zp_groth16_pk *pk, zp_curve witness_curve, size_t n_witness,
                                   const uint64_t *witness, zp_error *err);

/* Bytes of the precompiled constraint matrices for this key (exact; the
 * engine reserves exactly this much before building). Scans the
 * coefficient list once. */
size_t zp_groth16_matrices_size(const zp_groth16_pk *pk);
/* The caller's way to let pages of the coefficient list go behind a walk
 * over it (a mapped key's list touched whole would stay resident: 210 MB
 * at 2^20). done(ctx, p, bytes) is called on consecutive, disjoint spans
 * of at most ZP_COEF_PAGE_STEP bytes (and one entry), in order from the
 * list's start, each once the walk has passed it, up to where the walk
 * stopped (the whole list, unless it stopped early: an entry out of order
 * or corrupt); the list must read the same afterwards (a mapping's pages
 * are read back in). */
typedef struct {
    void (*done)(void *ctx, const uint8_t *p, size_t bytes);
    void *ctx;
} zp_groth16_pager;
/* zp_groth16_matrices_size, handing each span of the list to pager (not
 * NULL) as the scan passes it: what a caller that only sizes the matrices
 * (the engine deciding whether a key is streamed) uses to keep at most a
 * step of the list resident. *in_order (unless NULL): 1 when the list is
 * in order (see synth.c: each matrix's rows in increasing order), what a
 * streamed proof needs to synthesize a part of the rows at a time. */
size_t zp_groth16_matrices_size_paged(const zp_groth16_pk *pk, const zp_groth16_pager *pager, int *in_order);
/* Builds the matrices into mem (bytes >= zp_groth16_matrices_size(pk),
 * 64-byte aligned, caller-owned, e.g. mmap'd). They refer into the key's
 * coefficient list: the key must outlive them. ZP_ERR_FORMAT on a corrupt
 * coefficient list (matrix not 0/1, row >= domain_size, signal >= n_vars),
 * naming the entry; ZP_ERR_ARG when mem is too small or misaligned. */
zp_status zp_groth16_matrices_build(void *mem, size_t bytes, const zp_groth16_pk *pk, const zp_parallel *par,
                                    zp_error *err) ZP_WARN_UNUSED;
/* Synthesis: a = A·w, b = B·w, c = a∘b (Montgomery form) into abc
 * (zp_groth16_abc_size bytes; its contents need not be cleared), parallel
 * over rows through par. The witness is n_vars plain 4-limb integers, the
 * matrices those built for this pk. Rows past the last coefficient row
 * are zero. */
void zp_groth16_synthesize(void *abc, const zp_groth16_pk *pk, const void *matrices, const uint64_t *witness,
                           const zp_parallel *par);

/* The NTTs and the G1 MSMs, with r and s drawn from the OS. abc must hold
 * the a, b, c that zp_groth16_synthesize wrote for this witness; they are
 * overwritten. */
zp_status zp_groth16_prove_start(zp_groth16_pending *pend, const zp_groth16_pk *pk, const uint64_t *witness, void *abc,
                                 void *msm_scratch, const zp_parallel *par, zp_error *err);
/* The same with given blinding factors (plain, below r): for tests. */
zp_status zp_groth16_prove_start_with(zp_groth16_pending *pend, const zp_groth16_pk *pk, const uint64_t *witness,
                                      const uint64_t r[4], const uint64_t s[4], void *abc, void *msm_scratch,
                                      const zp_parallel *par, zp_error *err);
/* The G2 MSM and the assembly, in the msm scratch given to prove_start.
 * Every per-curve step dispatches through the curve's table
 * (groth16/curves.h); a key of an unknown curve gets 0 sizes, no
 * synthesis, an error from prove_start, and an all-zero proof here. */
void zp_groth16_prove_finish(zp_groth16_proof *proof, const zp_groth16_pending *pend, const zp_groth16_pk *pk,
                             const uint64_t *witness, void *msm_scratch, const zp_parallel *par);

/* 1 when the proof verifies for the public values (n_public plain
 * integers), 0 when it does not, -1 on an internal failure (memory) or a
 * key of an unknown curve. The
 * proof's points must be on the curve and in the subgroup (the JSON reader
 * checks that). */
int zp_groth16_verify(const zp_groth16_vk *vk, const uint64_t *pub, const zp_groth16_proof *proof);

/* The verification key inside a proving key, as a view: its ic points
 * into the key, which must outlive it (do not vk_free it). */
void zp_groth16_vk_of_pk(zp_groth16_vk *vk, const zp_groth16_pk *pk);

/* Verifies a proof against the verification key inside a proving key, with
 * the public values taken from the witness: the prover's self-check. Its
 * Miller loops run as two tasks on par (NULL: serial). */
int zp_groth16_verify_with_pk(const zp_groth16_pk *pk, const uint64_t *witness, const zp_groth16_proof *proof,
                              const zp_parallel *par);

/* A verification key prepared for many proofs (a loaded key's self-checks):
 * the Miller loop of (α, β) and the lines of γ and δ, made once (about one
 * pairing's work), leave each verification one general pair, two line
 * evaluations and the final exponentiation instead of four full pairs.
 * pvk_new copies the vk but borrows its ic, which must outlive the pvk;
 * NULL when out of memory or for a key of an unknown curve. The pvk is
 * read only: any number of threads may verify through it at once. */
typedef struct zp_groth16_pvk zp_groth16_pvk;
zp_groth16_pvk *zp_groth16_pvk_new(const zp_groth16_vk *vk);
/* The same for the vk inside a proving key, which must outlive the pvk. */
zp_groth16_pvk *zp_groth16_pvk_of_pk(const zp_groth16_pk *pk);
void zp_groth16_pvk_free(zp_groth16_pvk *pvk);
/* As zp_groth16_verify, through the prepared key; the Miller loops as two
 * tasks on par (NULL: serial). */
int zp_groth16_verify_prepared(const zp_groth16_pvk *pvk, const uint64_t *pub, const zp_groth16_proof *proof,
                               const zp_parallel *par);

/* A uniformly random scalar below the curve's group order, from the OS;
 * ZP_ERR_ARG for an unknown curve. */
zp_status zp_groth16_random_scalar(uint64_t out[4], zp_curve curve, zp_error *err);

#endif
