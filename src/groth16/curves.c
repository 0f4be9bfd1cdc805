/* The Groth16 table of each curve (groth16/curves.h). */
#include "groth16/curves.h"

#include <string.h>

#include "base/error.h"
#include "pairing/pairing.h"

/* e(α, β), then ffjavascript's fixed power of it (pairing.h): the value
 * snarkjs writes as vk_alphabeta_12. */
#define ZP_GROTH16_ALPHABETA_(cid, g, G)                                                                \
    void g##_groth16_vk_alphabeta(uint64_t out[ZP_GROTH16_ALPHABETA_LIMBS], const uint64_t *alpha1,     \
                                  const uint64_t *beta2) {                                              \
        _Static_assert(sizeof(g##_fp12) <= ZP_GROTH16_ALPHABETA_LIMBS * sizeof(uint64_t), #g ": fp12"); \
        g##_g1 a;                                                                                       \
        g##_g2 b;                                                                                       \
        g##_fp12 e;                                                                                     \
        memcpy(&a, alpha1, sizeof a);                                                                   \
        memcpy(&b, beta2, sizeof b);                                                                    \
        g##_pairing_var(&e, &a, &b);                                                                    \
        g##_gt_to_ffjs(&e, &e);                                                                         \
        memcpy(out, &e, sizeof e);                                                                      \
    }
ZP_CURVE_LIST(ZP_GROTH16_ALPHABETA_)

#define ZP_GROTH16_TABLE_(cid, g, G)                      \
    {                                                     \
        .desc = &g##_curve_desc,                          \
        .abc_size = g##_groth16_abc_size,                 \
        .msm_scratch_size = g##_groth16_msm_scratch_size, \
        .tables_size = g##_groth16_tables_size,           \
        .tables_build = g##_groth16_tables_build,         \
        .synthesize = g##_groth16_synthesize,             \
        .prove_start = g##_groth16_prove_start,           \
        .prove_finish = g##_groth16_prove_finish,         \
        .verify = g##_groth16_verify,                     \
        .pvk_size = g##_groth16_pvk_size,                 \
        .pvk_make = g##_groth16_pvk_make,                 \
        .verify_prepared = g##_groth16_verify_prepared,   \
        .setup = g##_groth16_setup,                       \
        .vk_alphabeta = g##_groth16_vk_alphabeta,         \
    },

static const zp_groth16_curve tables[] = {ZP_CURVE_LIST(ZP_GROTH16_TABLE_)};
enum { N_TABLES = sizeof tables / sizeof tables[0] };

const zp_groth16_curve *zp_groth16_curve_get(zp_curve id) {
    for (size_t i = 0; i < N_TABLES; i++) {
        if (tables[i].desc->id == id) return &tables[i];
    }
    return NULL;
}

zp_status zp_groth16_curve_lookup(const zp_groth16_curve **out, zp_curve id, zp_error *err) {
    *out = zp_groth16_curve_get(id);
    if (*out != NULL) return ZP_OK;
    return zp_error_set(err, ZP_ERR_ARG, "unknown curve %d (zkpipe supports %s)", (int)id, ZP_CURVE_NAMES);
}
