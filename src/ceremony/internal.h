/* Internal to src/ceremony: ffjavascript's ChaCha generator, the table of
 * one curve's ceremony arithmetic (phase2_impl.h, phase1_impl.h), and what
 * the steps of both phases share (common.c). */
#ifndef ZP_CEREMONY_INTERNAL_H
#define ZP_CEREMONY_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base/parallel.h"
#include "ceremony/ceremony.h"
#include "io/binfile.h"
#include "mem/track.h"
#include "zkpipe.h"

struct zp_curve_desc;

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

struct zp_ct_lanes_curve; /* ct_lanes.h */

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
    /* g1_apply_key on points only known to be on the curve, each tested
     * for the subgroup on the way: the index of the first outside it (the
     * points then meaningless), n if none; var: k is public (a beacon's),
     * as for g1_apply_key_var. NULL where the curve has no cheaper way
     * than the test before the product (BN254's G1 needs none);
     * BLS12-381's shares the test's doublings with the product. */
    size_t (*g1_apply_key_checked)(uint8_t *pts, size_t n, const uint64_t kmont[4], int var, const zp_parallel *par);
    void (*compose)(uint8_t *out, size_t n, const uint64_t *row_start, const zp_p2_term *terms, int g2,
                    const zp_parallel *par);
    void (*g1_sub_to_u)(uint8_t *out, const uint8_t *a, const uint8_t *b, size_t n);
    /* out = U(a − b) as ffjavascript computes it for a any bytes
     * (phase2_new.c's point past tauG1) and b a point */
    void (*g1_sub_past_to_u)(uint8_t *out, const uint8_t *a, const uint8_t *b);
    void (*coef_r2)(uint8_t out[32], const uint64_t plain[4]);
    int (*same_ratio)(const uint8_t *a1, const uint8_t *a2, const uint8_t *b1, const uint8_t *b2);
    zp_status (*g1_lincomb)(uint8_t *out, const uint8_t *pts, const uint64_t *scalars, size_t n, const zp_parallel *par,
                            zp_error *err);
    int (*g1_on_curve)(const uint8_t *lem);
    /* ffjavascript's lagrangeEvaluations up to 2^s points: in place over
     * 2^log_n affine LEM points, work of lagrange_work_bytes(n, g2). */
    zp_status (*lagrange)(uint8_t *pts, unsigned log_n, int g2, void *work, const zp_parallel *par, zp_error *err);
    size_t (*lagrange_work_bytes)(size_t n, int g2);
    /* count rows of 2^log_m such points, in place: row i's point k
     * becomes Σ_j ω_m^(-jk)·in_j, then, where log_n > 0, times
     * 2^-log_n·ω_n^(-(first + i)·k): a step of the four-step transform
     * (phase1_prepare.c under a budget); work of
     * lagrange_work_bytes(count·2^log_m, g2) */
    zp_status (*lagrange_rows)(uint8_t *pts, unsigned log_m, size_t count, unsigned log_n, uint64_t first, int g2,
                               void *work, const zp_parallel *par, zp_error *err);
    /* k, 2^log_n plain scalars, in place: s_i = Σ_j k_j·ω^(ij) with
     * lagrange()'s ω, so that Σ k_j·P_j = Σ s_i·L_i for L = lagrange(P) */
    zp_status (*fr_dft)(uint64_t *k, unsigned log_n, const zp_parallel *par, zp_error *err);
    /* the same check part by part (phase1_verify.c under a budget):
     * k_j = ρ^j and s_i = Σ_j k_j·ω^(ij) for i, j in [from, from + count)
     * of 2^log_n, plain, ρ plain; scratch of count scalars; 0 where ρ is a
     * 2^log_n-th root of one (draw another) */
    int (*fr_geometric)(uint64_t *k, uint64_t *s, uint64_t from, size_t count, unsigned log_n, const uint64_t rho[4],
                        uint64_t *scratch);
    /* the bytes g1_lincomb (g2: g2_lincomb) of n points allocates */
    size_t (*lincomb_bytes)(size_t n, int g2, const zp_parallel *par);
    /* phase 1 (phase1_impl.h): pts[i] *= first·inc^(start + i), in
     * constant time in first (NULL: one) and inc (Montgomery form) */
    void (*g1_apply_powers)(uint8_t *pts, size_t n, uint64_t start, const uint64_t first[4], const uint64_t inc[4],
                            const zp_parallel *par);
    void (*g2_apply_powers)(uint8_t *pts, size_t n, uint64_t start, const uint64_t first[4], const uint64_t inc[4],
                            const zp_parallel *par);
    /* the same for public first and inc (a beacon's): variable time */
    void (*g1_apply_powers_var)(uint8_t *pts, size_t n, uint64_t start, const uint64_t first[4], const uint64_t inc[4],
                                const zp_parallel *par);
    void (*g2_apply_powers_var)(uint8_t *pts, size_t n, uint64_t start, const uint64_t first[4], const uint64_t inc[4],
                                const zp_parallel *par);
    /* g1_apply_powers (var: g1_apply_powers_var) on points only known to
     * be on the curve, each tested for the subgroup on the way, as
     * g1_apply_key_checked: the index of the first outside it, n if none;
     * NULL where that curve has none */
    size_t (*g1_apply_powers_checked)(uint8_t *pts, size_t n, uint64_t start, const uint64_t first[4],
                                      const uint64_t inc[4], int var, const zp_parallel *par);
    /* subgroup checks eight points at a time in the IFMA lanes
     * (ct_lanes.h): lanes_check_init gives 1 and prepares *c where par
     * allows the lanes and they pay for the group (g2: G2), else 0; then
     * lanes_first_outside gives the index of the first of n points (affine
     * LEM, each already on its curve) outside the subgroup, n if none */
    int (*lanes_check_init)(struct zp_ct_lanes_curve *c, int g2, const zp_parallel *par);
    size_t (*lanes_first_outside)(const uint8_t *pts, size_t n, int g2, const struct zp_ct_lanes_curve *c);
    void (*g1_to_c)(uint8_t *out, const uint8_t *lem); /* wasmcurves' LEMtoC */
    void (*g2_to_c)(uint8_t *out, const uint8_t *lem);
    zp_status (*g2_lincomb)(uint8_t *out, const uint8_t *pts, const uint64_t *scalars, size_t n, const zp_parallel *par,
                            zp_error *err);
    const uint8_t *g1_gen, *g2_gen; /* affine LEM */
} zp_p2_ops;

/* The table of a curve; NULL for an unknown one. tests/test_ctime.c runs
 * the secret-handling entries under valgrind. */
const zp_p2_ops *zp_p2_ops_get(zp_curve curve);

/* ---- common.c ---- */

static inline uint32_t zp_cer_rd32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The large buffers of a ceremony step, counted like every other. */
zp_status zp_cer_alloc(zp_tracked *b, size_t bytes, const char *what, zp_error *err) ZP_WARN_UNUSED;
void zp_cer_free(zp_tracked *b);
/* "\rzkpipe: step done/total" on stderr when o asks for progress. */
void zp_cer_progress(const zp_ceremony_opts *o, const char *step, size_t done, size_t total);

/* A file with no name in dir (NULL: $TMPDIR, default /tmp): O_TMPFILE, so
 * nothing another user of a shared directory could see, pre-empt or find
 * left behind; where the file system has no O_TMPFILE, mkstemp's file
 * unlinked at once. *fd stays open (the caller closes it); path, where
 * not NULL, is where to reopen it (/proc/self/fd/N). */
zp_status zp_cer_unnamed_file(int *fd, char path[32], const char *dir, zp_error *err) ZP_WARN_UNUSED;

/* The bytes of a mapped file a step reads before it lets them go (the
 * budget holds a slice of a file, not the file). */
#define ZP_CER_SLICE_BYTES ((size_t)32 << 20)

/* How far zp_cer_check_points checks a point. A step multiplies only
 * points of the prime-order subgroup (the endomorphism splits of
 * phase2_impl.h are k·P only there); a point it copies or hashes, or
 * adds with the group law, which holds on the whole curve, need only be
 * on its curve, and the subgroup test costs 126 doublings a BLS12-381
 * G1 point where the curve's costs two products. */
typedef enum { ZP_CER_ON_CURVE, ZP_CER_IN_SUBGROUP } zp_cer_check;

/* Every point of pts[0, n) (affine LEM, any alignment) is canonical and
 * on its curve, and where check is ZP_CER_IN_SUBGROUP in the prime-order
 * subgroup (zp_io_g1_check), checked in parallel; the first bad one is
 * reported as ZP_ERR_FORMAT naming the file bf, the section id and what
 * it holds. */
zp_status zp_cer_check_points(const zp_binfile *bf, uint32_t id, const char *what, const struct zp_curve_desc *d,
                              const uint8_t *pts, size_t n, int g2, zp_cer_check check, const zp_ceremony_opts *o,
                              zp_error *err) ZP_WARN_UNUSED;

/* *first = the lower of it and i, atomically: the workers' first bad
 * point of a block. */
static inline void zp_cer_note_first(_Atomic size_t *first, size_t i) {
    size_t cur = atomic_load(first);
    while (i < cur && !atomic_compare_exchange_weak(first, &cur, i)) {
    }
}
/* n random scalars below 2^128 from the OS, four limbs each (k[4i..4i+3],
 * the upper two zero): a verification's random combination. */
zp_status zp_cer_random_scalars128(uint64_t *k, size_t n, zp_error *err) ZP_WARN_UNUSED;
/* ZP_ERR_FORMAT for point #index of section id (what it holds) of the file
 * bf: problem is zp_io_point_problem's text. */
zp_status zp_cer_bad_point(zp_error *err, const zp_binfile *bf, uint32_t id, const char *what, size_t index,
                           const char *problem);

/* An open .ptau: its header (section 1) read and checked. */
typedef struct zp_cer_ptau {
    zp_binfile bf;
    int open;
    const struct zp_curve_desc *d;
    unsigned power, ceremony_power;
} zp_cer_ptau;

zp_status zp_cer_ptau_open(zp_cer_ptau *t, const char *path, zp_error *err) ZP_WARN_UNUSED;
void zp_cer_ptau_close(zp_cer_ptau *t);
/* How many of the Lagrange sections (12 to 15) of prepare phase2 the open
 * ptau holds (a section that appears twice is an error, in err). */
zp_status zp_cer_ptau_lagrange_count(const zp_cer_ptau *t, int *count, zp_error *err) ZP_WARN_UNUSED;
/* Section id of the ptau, which must hold exactly count points (G2 ones
 * when g2); those of [from, from + used), the ones the step reads, are
 * checked as far as check says (zp_cer_check_points). */
zp_status zp_cer_ptau_points(const zp_cer_ptau *t, uint32_t id, const char *what, uint64_t count, int g2, uint64_t from,
                             uint64_t used, zp_cer_check check, const uint8_t **out, const zp_ceremony_opts *o,
                             zp_error *err) ZP_WARN_UNUSED;

/* The powers of a ptau of 2^power: sections 2 to 6 (tauG1's 2·2^power
 * − 1 points, tauG2's, alphaTauG1's and betaTauG1's 2^power, betaG2),
 * every point checked for the subgroup (zp_cer_ptau_points). */
typedef struct zp_cer_powers {
    const uint8_t *tau_g1, *tau_g2, *alpha_g1, *beta_g1, *beta_g2;
} zp_cer_powers;
zp_status zp_cer_ptau_powers(const zp_cer_ptau *t, unsigned power, zp_cer_powers *p, const zp_ceremony_opts *o,
                             zp_error *err) ZP_WARN_UNUSED;

/* Pages for a contribution's secrets: kept out of core dumps and swap as
 * far as the OS lets; zeroised before they are unmapped. */
void *zp_cer_secret_alloc(size_t size, zp_error *err);
void zp_cer_secret_free(void *p, size_t size);

/* A beacon (snarkjs's checks): 1 to 255 bytes of hex (an 0x allowed),
 * 10 <= iter_exp <= 63; and misc.rngFromBeaconParams's seed, SHA-256
 * iterated 2^iter_exp times. */
zp_status zp_cer_beacon_parse(uint8_t beacon[255], size_t *len, const char *beacon_hex, unsigned iter_exp,
                              zp_error *err) ZP_WARN_UNUSED;
zp_status zp_cer_beacon_seed(uint8_t seed[32], const uint8_t *beacon, size_t len, unsigned iter_exp,
                             zp_error *err) ZP_WARN_UNUSED;

/* A contribution's parameter list, as both phases write it (snarkjs's
 * writeContribution / writeMPCParams): 1 the name, 2 a beacon's
 * iteration exponent, 3 its bytes, each a type byte, a length byte and
 * the bytes (2's length byte is the exponent itself). */
#define ZP_CER_PARAMS_MAX (2 + 255 + 2 + 2 + 255)
/* Writes the list into out and returns its length: the name when name is
 * not NULL (an empty one too), the beacon when type is 1. */
size_t zp_cer_params_encode(uint8_t out[ZP_CER_PARAMS_MAX], const char *name, uint32_t type, unsigned iter_exp,
                            const uint8_t *beacon, size_t beacon_len);
/* Reads the list of len bytes at q for a contribution of the given type:
 * the name into name (terminated; *has_name 1 when there was one), the
 * beacon into beacon, *beacon_len and *iter_exp. Returns 0 when it is
 * malformed: types out of order or unknown, a length past the end, or a
 * beacon (type 1) without bytes or with iter_exp outside 10..63. */
int zp_cer_params_decode(const uint8_t *q, size_t len, uint32_t type, char name[256], int *has_name, unsigned *iter_exp,
                         uint8_t beacon[255], size_t *beacon_len);

/* Copies section id of bf verbatim into w, a slice at a time. */
zp_status zp_cer_copy_section(zp_binwriter *w, const zp_binfile *bf, uint32_t id, const char *what,
                              zp_error *err) ZP_WARN_UNUSED;
/* memcmp(a, b, n) == 0, a slice at a time, the pages of a (in fa) and b
 * (in fb) let go as it goes. */
int zp_cer_same_bytes(const zp_binfile *fa, const uint8_t *a, const zp_binfile *fb, const uint8_t *b, uint64_t n);

/* JavaScript's name.substring(0, 64) then UTF-8: at most 64 UTF-16 units;
 * a surrogate pair cut in two leaves its high half, which TextEncoder
 * writes as U+FFFD. Invalid UTF-8 in name is refused by the caller
 * (zp_cer_utf8_valid). */
void zp_cer_js_name(char out[256], const char *name);
int zp_cer_utf8_valid(const char *str);

/* ---- phase 2 ---- */

/* The sections of a .zkey, as snarkjs numbers them. */
enum {
    ZP_ZS_PROTOCOL = 1,
    ZP_ZS_HEADER,
    ZP_ZS_IC,
    ZP_ZS_COEFS,
    ZP_ZS_A,
    ZP_ZS_B1,
    ZP_ZS_B2,
    ZP_ZS_C,
    ZP_ZS_H,
    ZP_ZS_CONTRIB
};

/* zkey new (phase2_new.c), within o->budget. inexact: NULL to refuse a
 * key whose circuit hash zkpipe cannot make as snarkjs does (a domain of
 * the ptau's own power, above 2^14, on a ptau that ends after tauG1,
 * where zkey_new.js reads one point more); else the key is made,
 * *inexact set, and its hash is not snarkjs's (zkey verify compares
 * every section). */
zp_status zp_p2_zkey_new(const char *r1cs_path, const char *ptau_path, const char *out_path, const zp_ceremony_opts *o,
                         uint8_t cs_hash_out[64], int *inexact, zp_error *err) ZP_WARN_UNUSED;

/* ---- phase 1 (phase1.c): section 7 of a .ptau, the keys ---- */

/* One contribution of section 7 (powersoftau_utils.js readContribution),
 * points in affine LEM. key_g1: tau, alpha, beta's g1_s and g1_sx in
 * that order; key_g2: their g2_spx. response: the contribution's response
 * hash, from its partialHash and its public key. */
typedef struct zp_p1_contribution {
    uint8_t tau_g1[96], tau_g2[192], alpha_g1[96], beta_g1[96], beta_g2[192];
    uint8_t key_g1[6][96], key_g2[3][192];
    uint8_t partial[216];
    uint8_t next_challenge[64];
    uint8_t response[64];
    uint32_t type; /* 0: contribution, 1: beacon */
    char name[256];
    unsigned iter_exp;
    uint8_t beacon[255];
    size_t beacon_len;
    const uint8_t *raw; /* the record as the file holds it */
    size_t raw_len;
} zp_p1_contribution;

/* Reads section 7 of t: *out (free it) holds *n contributions and room
 * for one more. ZP_ERR_FORMAT names the file, the section and the
 * contribution. */
zp_status zp_p1_read_contributions(const zp_cer_ptau *t, zp_p1_contribution **out, uint32_t *n,
                                   zp_error *err) ZP_WARN_UNUSED;
/* calculateFirstChallengeHash: the challenge before any contribution to
 * a 2^power ceremony. */
void zp_p1_first_challenge(const zp_p2_ops *ops, const struct zp_curve_desc *d, unsigned power, uint8_t out[64]);
/* keypair.js getG2sp: hashToG2 of BLAKE2b(personalization, challenge,
 * g1_s, g1_sx uncompressed). */
void zp_p1_g2sp(const zp_p2_ops *ops, const struct zp_curve_desc *d, uint8_t out[192], unsigned personalization,
                const uint8_t challenge[64], const uint8_t *g1_s, const uint8_t *g1_sx);
/* keypair.js createPTauKey's public key from rng: the three secrets
 * (Montgomery form, tau, alpha, beta) drawn first, then each one's g1_s,
 * g1_sx = s·g1_s, g2_spx = s·g2sp, into c->key_g1 / c->key_g2. The
 * secrets go to prv (pages of zp_cer_secret_alloc). */
void zp_p1_key(const zp_p2_ops *ops, const struct zp_curve_desc *d, zp_p1_contribution *c, uint64_t prv[3][4],
               zp_chacha *rng, const uint8_t challenge[64]);

#endif
