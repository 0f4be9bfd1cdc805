/* Internal to src/ceremony: ffjavascript's ChaCha generator and the table
 * of one curve's phase-2 arithmetic (phase2_impl.h). */
#ifndef ZP_CEREMONY_INTERNAL_H
#define ZP_CEREMONY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "base/parallel.h"
#include "zkpipe.h"

/* ffjavascript's ChaCha (chacha.js): the 20-round block function over
 * "expand 32-byte k", an 8-word key, a 4-word counter from zero, words
 * handed out in order; nextU64 is the first word times 2^32 plus the
 * second. A contribution's generator is seeded from its secret, so it
 * is zeroised after use (explicit_bzero). */
typedef struct zp_chacha {
    uint32_t state[16];
    uint32_t buf[16];
    unsigned idx;
} zp_chacha;

/* Seeds from 32 bytes read as eight big-endian words (snarkjs's habit). */
void zp_chacha_seed_be(zp_chacha *c, const uint8_t seed[32]);
uint32_t zp_chacha_u32(zp_chacha *c);
uint64_t zp_chacha_u64(zp_chacha *c);

/* One term of a point sum: base (affine LEM, in the ptau mapping) times
 * coef (plain, 4 limbs; NULL: one). */
typedef struct zp_p2_term {
    const uint8_t *base;
    const uint64_t *coef;
} zp_p2_term;

typedef struct zp_p2_ops {
    void (*fr_from_rng)(uint64_t mont[4], zp_chacha *rng);
    void (*g1_from_rng)(uint8_t *lem, zp_chacha *rng);
    void (*g1_to_u)(uint8_t *out, const uint8_t *lem);
    void (*g2_to_u)(uint8_t *out, const uint8_t *lem);
    void (*hash_to_g2)(uint8_t *lem, const uint8_t transcript[64]);
    void (*g1_mul_ct)(uint8_t *out, const uint8_t *in, const uint64_t kmont[4]);
    void (*g2_mul_ct)(uint8_t *out, const uint8_t *in, const uint64_t kmont[4]);
    void (*fr_inv_ct)(uint64_t out[4], const uint64_t in[4]);
    void (*g1_apply_key)(uint8_t *pts, size_t n, const uint64_t kmont[4], const zp_parallel *par);
    /* the same for a public k (a beacon's): variable time, faster */
    void (*g1_apply_key_var)(uint8_t *pts, size_t n, const uint64_t kmont[4], const zp_parallel *par);
    void (*compose)(uint8_t *out, size_t n, const uint64_t *row_start, const zp_p2_term *terms, int g2,
                    const zp_parallel *par);
    void (*g1_sub_to_u)(uint8_t *out, const uint8_t *a, const uint8_t *b, size_t n);
    void (*coef_r2)(uint8_t out[32], const uint64_t plain[4]);
    int (*same_ratio)(const uint8_t *a1, const uint8_t *a2, const uint8_t *b1, const uint8_t *b2);
    zp_status (*g1_lincomb)(uint8_t *out, const uint8_t *pts, const uint64_t *scalars, size_t n, const zp_parallel *par,
                            zp_error *err);
    int (*g1_on_curve)(const uint8_t *lem);
    /* ffjavascript's lagrangeEvaluations up to 2^s points: in place over
     * 2^log_n affine LEM points, work of lagrange_work_bytes(n, g2). */
    zp_status (*lagrange)(uint8_t *pts, unsigned log_n, int g2, void *work, const zp_parallel *par, zp_error *err);
    size_t (*lagrange_work_bytes)(size_t n, int g2);
    const uint8_t *g1_gen, *g2_gen; /* affine LEM */
} zp_p2_ops;

/* The table of a curve; NULL for an unknown one. tests/test_ctime.c runs
 * the secret-handling entries under valgrind. */
const zp_p2_ops *zp_p2_ops_get(zp_curve curve);

#endif
