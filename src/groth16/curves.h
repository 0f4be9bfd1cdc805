/* The Groth16 functions of each curve, one table per curve, built from the
 * curve list (curve/desc.h) and looked up in one place.
 *
 * The curve's facts (names, moduli, sizes) are its zp_curve_desc, in the
 * curve layer; this second table holds what sits above the pairing: the
 * prover's sizes and steps, the verifier (plain and prepared), the development setup and the
 * verification key's e(α, β) in snarkjs's form. Each entry is one
 * instantiation of prove_impl.h, synth_impl.h and setup_impl.h, named
 * <prefix>_groth16_<step>. groth16.h's zp_groth16_* functions dispatch
 * through it; callers above (the engine, io, the command line) use those,
 * or this table when they need a function the API does not wrap. */
#ifndef ZP_GROTH16_CURVES_H
#define ZP_GROTH16_CURVES_H

#include "curve/desc.h"
#include "groth16/groth16.h"
#include "groth16/setup.h"

/* e(α, β) as 12 base field elements, at most ZP_CURVE_MAX_FP_LIMBS each. */
#define ZP_GROTH16_ALPHABETA_LIMBS (12 * ZP_CURVE_MAX_FP_LIMBS)

typedef struct zp_groth16_curve {
    const zp_curve_desc *desc;
    size_t (*abc_size)(const zp_groth16_pk *pk);
    size_t (*msm_scratch_size)(const zp_groth16_pk *pk, size_t threads);
    size_t (*tables_size)(const zp_groth16_pk *pk, size_t threads);
    zp_status (*tables_build)(void *mem, size_t bytes, const zp_groth16_pk *pk, size_t threads, const zp_parallel *par,
                              zp_error *err);
    void (*synthesize)(void *abc, const zp_groth16_pk *pk, const void *matrices, const uint64_t *witness,
                       const zp_parallel *par);
    zp_status (*prove_start)(zp_groth16_pending *pend, const zp_groth16_pk *pk, const uint64_t *witness,
                             const uint64_t r[4], const uint64_t s[4], void *abc, void *msm_scratch,
                             const zp_parallel *par);
    void (*prove_finish)(zp_groth16_proof *proof, const zp_groth16_pending *pend, const zp_groth16_pk *pk,
                         const uint64_t *witness, void *msm_scratch, const zp_parallel *par);
    /* par: the pool the two halves of the Miller loops may run on (NULL:
     * serial) */
    int (*verify)(const zp_groth16_vk *vk, const uint64_t *pub, const zp_groth16_proof *proof, const zp_parallel *par);
    /* a prepared verifying key's curve part (zp_groth16_pvk): its size,
     * making it from the vk, and verifying through it */
    size_t (*pvk_size)(void);
    void (*pvk_make)(void *data, const zp_groth16_vk *vk);
    int (*verify_prepared)(const void *data, const zp_groth16_vk *vk, const uint64_t *pub,
                           const zp_groth16_proof *proof, const zp_parallel *par);
    /* log_n: the domain the constraint system needs, checked by the caller */
    zp_status (*setup)(zp_groth16_setup_key *key, const zp_constraint_system *cs, unsigned log_n,
                       const zp_parallel *par, zp_error *err);
    /* e(α, β) as snarkjs's vk_alphabeta_12 holds it: ffjavascript's power of
     * the pairing (pairing.h, gt_to_ffjs), the 12 Fp elements in the
     * tower's memory order, Montgomery form; α, β as in the key. */
    void (*vk_alphabeta)(uint64_t out[ZP_GROTH16_ALPHABETA_LIMBS], const uint64_t *alpha1, const uint64_t *beta2);
} zp_groth16_curve;

/* The table of a curve; NULL when the curve is unknown. */
const zp_groth16_curve *zp_groth16_curve_get(zp_curve id);
/* The same as a status: ZP_ERR_ARG naming the unknown curve. */
zp_status zp_groth16_curve_lookup(const zp_groth16_curve **out, zp_curve id, zp_error *err) ZP_WARN_UNUSED;

/* The instantiations the tables are built from (prove.c, synth.c, setup.c,
 * curves.c). */
#define ZP_GROTH16_DECLARE_(cid, g, G)                                                                              \
    size_t g##_groth16_abc_size(const zp_groth16_pk *pk);                                                           \
    size_t g##_groth16_msm_scratch_size(const zp_groth16_pk *pk, size_t threads);                                   \
    size_t g##_groth16_tables_size(const zp_groth16_pk *pk, size_t threads);                                        \
    zp_status g##_groth16_tables_build(void *mem, size_t bytes, const zp_groth16_pk *pk, size_t threads,            \
                                       const zp_parallel *par, zp_error *err);                                      \
    void g##_groth16_synthesize(void *abc, const zp_groth16_pk *pk, const void *matrices, const uint64_t *witness,  \
                                const zp_parallel *par);                                                            \
    zp_status g##_groth16_prove_start(zp_groth16_pending *pend, const zp_groth16_pk *pk, const uint64_t *witness,   \
                                      const uint64_t r[4], const uint64_t s[4], void *abc, void *msm_scratch,       \
                                      const zp_parallel *par);                                                      \
    void g##_groth16_prove_finish(zp_groth16_proof *proof, const zp_groth16_pending *pend, const zp_groth16_pk *pk, \
                                  const uint64_t *witness, void *msm_scratch, const zp_parallel *par);              \
    int g##_groth16_verify(const zp_groth16_vk *vk, const uint64_t *pub, const zp_groth16_proof *proof,             \
                           const zp_parallel *par);                                                                 \
    size_t g##_groth16_pvk_size(void);                                                                              \
    void g##_groth16_pvk_make(void *data, const zp_groth16_vk *vk);                                                 \
    int g##_groth16_verify_prepared(const void *data, const zp_groth16_vk *vk, const uint64_t *pub,                 \
                                    const zp_groth16_proof *proof, const zp_parallel *par);                         \
    zp_status g##_groth16_setup(zp_groth16_setup_key *key, const zp_constraint_system *cs, unsigned log_n,          \
                                const zp_parallel *par, zp_error *err);                                             \
    void g##_groth16_vk_alphabeta(uint64_t out[ZP_GROTH16_ALPHABETA_LIMBS], const uint64_t *alpha1,                 \
                                  const uint64_t *beta2);
ZP_CURVE_LIST(ZP_GROTH16_DECLARE_)

#endif
