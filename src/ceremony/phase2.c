/* Phase 2 of a Groth16 ceremony on snarkjs's files (ceremony.h). The file
 * layouts and the order of every hash follow snarkjs 0.7.6's zkey_new.js,
 * zkey_contribute.js, zkey_beacon.js, zkey_utils.js and
 * zkey_verify_frominit.js; docs/ceremony.md says what is checked. */
#include "ceremony/ceremony.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/digest.h"
#include "base/error.h"
#include "base/random.h"
#include "ceremony/ct_lanes.h"
#include "ceremony/ct_split.h"
#include "ceremony/internal.h"
#include "curve/curve.h"
#include "curve/desc.h"
#include "curve/subgroup.h"
#include "field/ifma.h"
#include "io/binfile.h"
#include "io/elements.h"
#include "io/zkey.h"
#include "mem/track.h"
#include "msm/msm.h"
#include "ntt/ntt.h"
#include "pairing/pairing.h"

#define ZP_G zp_bn254
#define ZP_G_UP ZP_BN254
#define ZP_G_COF1_N 0
#define ZP_G_COF2 0x345f2299c0f9fa8dULL, 0x06ceecda572a2489ULL, 0xb85045b68181585eULL, 0x30644e72e131a029ULL
/* GLV on G1 (phase2_impl.h): k = k1 + k2·λ, λ the cube root of unity mod r
 * with [λ](x, y) = (βx, y); the reduced basis (a1, -b1), (a2, b2) and
 * g1 = ⌊2^256·b2/r⌋, g2 = ⌊2^256·b1/r⌋, all plain little-endian limbs. */
#define ZP_G_GLV 1
/* G2: ψ (curve/subgroup.h) is [p mod r] = [6x²] on BN254's G2. */
#define ZP_G_G2_ENDO zp_bn254_g2_j_psi
#define ZP_G_G2_ENDO_CONJ 1 /* ψ conjugates (ct_lanes.h) */
/* the subgroup checks' (curve/subgroup.h; G1 needs none) */
#define ZP_G_G2_CHECK_ENDO zp_bn254_g2_j_psi
#define ZP_G_X_ABS ZP_BN254_X_ABS
#define ZP_G_G2_D 0xf83e9682e87cfd46ULL, 0x6f4d8248eeb859fbULL
#define ZP_G_GLV_G1 0x5398fd0300ff6565ULL, 0x4ccef014a773d2d2ULL, 0x0000000000000002ULL
#define ZP_G_GLV_G2 0xd91d232ec7e0b3d7ULL, 0x0000000000000002ULL
#define ZP_G_GLV_A1 0x8211bbeb7d4f1128ULL, 0x6f4d8248eeb859fcULL
#define ZP_G_GLV_A2 0x89d3256894d213e3ULL
#define ZP_G_GLV_B1 0x89d3256894d213e3ULL
#define ZP_G_GLV_B2 0x0be4e1541221250bULL, 0x6f4d8248eeb859fdULL
#define ZP_G_GLV_BETA 0xe4bd44e5607cfd48ULL, 0xc28f069fbb966e3dULL, 0x5e6dd9e7e0acccb0ULL, 0x30644e72e131a029ULL
#include "ceremony/phase2_impl.h"

/* BLS12-381: φ(x, y) = (βx, y) is [-x²] on G1 and ψ² is [x²] on G2
 * (curve/subgroup.h), x² ≈ 2^128: each scalar splits as q·x² + m. */
static inline void zp_p2_bls12_g1_phi(zp_bls12_g1j *r, const zp_bls12_g1j *p) {
    static const zp_bls12_fp beta = ZP_BLS12_G1_BETA_INIT;
    *r = *p;
    zp_bls12_fp_mul(&r->x, &r->x, &beta);
}
static inline void zp_p2_bls12_g2_psi2(zp_bls12_g2j *r, const zp_bls12_g2j *p) {
    zp_bls12_g2_j_psi(r, p);
    zp_bls12_g2_j_psi(r, r);
}
#define ZP_G_G1_ENDO zp_p2_bls12_g1_phi
#define ZP_G_G1_ENDO_NEG 1
#define ZP_G_G1_D 0x0000000100000000ULL, 0xac45a4010001a402ULL
#define ZP_G_G2_ENDO zp_p2_bls12_g2_psi2
#define ZP_G_G2_ENDO_CONJ 0 /* ψ² conjugates twice: not at all */
#define ZP_G_G1_CHECK_ENDO zp_p2_bls12_g1_phi
#define ZP_G_G2_CHECK_ENDO zp_bls12_g2_j_psi
#define ZP_G_X_ABS ZP_BLS12_X_ABS
#define ZP_G_G2_D 0x0000000100000000ULL, 0xac45a4010001a402ULL
#define ZP_G_SPLIT_X2 1 /* both Ds are x², |x| of one limb, top bit set: ct_split.h's divisions by |x| */
#define ZP_G zp_bls12
#define ZP_G_UP ZP_BLS12
#define ZP_G_COF1_N 2
#define ZP_G_COF1 0x8c00aaab0000aaabULL, 0x396c8c005555e156ULL
#define ZP_G_COF2                                                                                                      \
    0xcf1c38e31c7238e5ULL, 0x1616ec6e786f0c70ULL, 0x21537e293a6691aeULL, 0xa628f1cb4d9e82efULL, 0xa68a205b2e5a7ddfULL, \
        0xcd91de4547085abaULL, 0x091d50792876a202ULL, 0x05d543a95414e7f1ULL
#include "ceremony/phase2_impl.h"

const zp_p2_ops *zp_p2_ops_get(zp_curve c) {
    switch (c) {
    case ZP_CURVE_BN254: return &zp_bn254_p2_ops;
    case ZP_CURVE_BLS12_381: return &zp_bls12_p2_ops;
    default: return NULL;
    }
}

/* ---- §10: the contributions ---- */

typedef struct contribution {
    uint8_t delta_after[96], g1_s[96], g1_sx[96], g2_spx[192]; /* affine LEM */
    uint8_t transcript[64];
    uint32_t type; /* 0: contribution, 1: beacon */
    char name[256];
    int has_name;
    unsigned iter_exp;
    uint8_t beacon[255];
    size_t beacon_len;
    uint8_t hash[64]; /* the contribution hash, computed */
} contribution;

typedef struct mpc {
    uint8_t cs_hash[64];
    uint32_t n;
    contribution *c; /* n + 1 slots: room for the next */
} mpc;

static zp_status mpc_read(mpc *m, const zp_binfile *bf, const zp_curve_desc *d, zp_error *err) {
    memset(m, 0, sizeof *m);
    const uint8_t *p;
    uint64_t size;
    zp_status st = zp_binfile_section(bf, 10, "contributions", 1, &p, &size, err);
    if (st != ZP_OK) return st;
    const char *name = bf->name;
    if (size < 68) return zp_error_set(err, ZP_ERR_FORMAT, "%s: section 10 (contributions) is truncated", name);
    memcpy(m->cs_hash, p, 64);
    uint32_t n = zp_cer_rd32(p + 64);
    size_t g1 = d->g1_bytes, g2 = d->g2_bytes, fixed = 3 * g1 + g2 + 64 + 8;
    if (n > size / fixed) {
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: section 10 (contributions): %u contributions do not fit", name, n);
    }
    m->c = calloc((size_t)n + 1, sizeof *m->c);
    if (m->c == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory reading %s's contributions", name);
    m->n = n;
    uint64_t off = 68;
    for (uint32_t i = 0; i < n; i++) {
        contribution *c = &m->c[i];
        if (size - off < fixed) {
            return zp_error_set(err, ZP_ERR_FORMAT, "%s: section 10 (contributions): contribution #%u is truncated",
                                name, i + 1);
        }
        memcpy(c->delta_after, p + off, g1), off += g1;
        memcpy(c->g1_s, p + off, g1), off += g1;
        memcpy(c->g1_sx, p + off, g1), off += g1;
        memcpy(c->g2_spx, p + off, g2), off += g2;
        memcpy(c->transcript, p + off, 64), off += 64;
        c->type = zp_cer_rd32(p + off), off += 4;
        uint32_t plen = zp_cer_rd32(p + off);
        off += 4;
        const uint8_t *pts[4] = {c->delta_after, c->g1_s, c->g1_sx, c->g2_spx};
        for (int k = 0; k < 4; k++) {
            uint64_t limbs[24];
            memcpy(limbs, pts[k], k < 3 ? g1 : g2);
            zp_io_point_check r = k < 3 ? zp_io_g1_check(d->id, limbs, 1) : zp_io_g2_check(d->id, limbs, 1);
            if (r != ZP_IO_POINT_OK) {
                return zp_error_set(err, ZP_ERR_FORMAT, "%s: section 10 (contributions): contribution #%u: a point %s",
                                    name, i + 1, zp_io_point_problem(r));
            }
        }
        if (c->type > 1 || plen > size - off) {
            return zp_error_set(err, ZP_ERR_FORMAT, "%s: section 10 (contributions): contribution #%u is malformed",
                                name, i + 1);
        }
        if (!zp_cer_params_decode(p + off, plen, c->type, c->name, &c->has_name, &c->iter_exp, c->beacon,
                                  &c->beacon_len))
            goto bad_params;
        off += plen;
        continue;
    bad_params:
        return zp_error_set(err, ZP_ERR_FORMAT,
                            "%s: section 10 (contributions): contribution #%u has malformed parameters", name, i + 1);
    }
    if (off != size) {
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: section 10 (contributions) has %llu bytes after its end", name,
                            (unsigned long long)(size - off));
    }
    return ZP_OK;
}

static void mpc_free(mpc *m) {
    free(m->c);
    m->c = NULL;
}

static void hash_pubkey(zp_blake2b *h, const zp_p2_ops *ops, const zp_curve_desc *d, const contribution *c) {
    uint8_t u[192];
    ops->g1_to_u(u, c->delta_after);
    zp_blake2b_update(h, u, d->g1_bytes);
    ops->g1_to_u(u, c->g1_s);
    zp_blake2b_update(h, u, d->g1_bytes);
    ops->g1_to_u(u, c->g1_sx);
    zp_blake2b_update(h, u, d->g1_bytes);
    ops->g2_to_u(u, c->g2_spx);
    zp_blake2b_update(h, u, d->g2_bytes);
    zp_blake2b_update(h, c->transcript, 64);
}

static zp_status contribution_hash(uint8_t out[64], const zp_p2_ops *ops, const zp_curve_desc *d, const contribution *c,
                                   zp_error *err) {
    zp_blake2b h;
    zp_status st = zp_blake2b_init(&h, err);
    if (st != ZP_OK) return st;
    hash_pubkey(&h, ops, d, c);
    zp_blake2b_final(&h, out);
    return ZP_OK;
}

static void mpc_write(zp_binwriter *w, const mpc *m, const zp_curve_desc *d, uint32_t n) {
    zp_binwriter_begin(w, 10);
    zp_binwriter_bytes(w, m->cs_hash, 64);
    zp_binwriter_u32(w, n);
    for (uint32_t i = 0; i < n; i++) {
        const contribution *c = &m->c[i];
        zp_binwriter_bytes(w, c->delta_after, d->g1_bytes);
        zp_binwriter_bytes(w, c->g1_s, d->g1_bytes);
        zp_binwriter_bytes(w, c->g1_sx, d->g1_bytes);
        zp_binwriter_bytes(w, c->g2_spx, d->g2_bytes);
        zp_binwriter_bytes(w, c->transcript, 64);
        zp_binwriter_u32(w, c->type);
        uint8_t params[ZP_CER_PARAMS_MAX];
        size_t np =
            zp_cer_params_encode(params, c->has_name ? c->name : NULL, c->type, c->iter_exp, c->beacon, c->beacon_len);
        zp_binwriter_u32(w, (uint32_t)np);
        zp_binwriter_bytes(w, params, np);
    }
    zp_binwriter_end(w);
}

zp_status zp_ceremony_zkey_new(const char *r1cs_path, const char *ptau_path, const char *out_path,
                               const zp_ceremony_opts *o, uint8_t cs_hash_out[64], zp_error *err) {
    return zp_p2_zkey_new(r1cs_path, ptau_path, out_path, o, cs_hash_out, NULL, err);
}

/* ---- contribute and beacon ---- */

/* A contribution's secrets, on pages of their own: kept out of core dumps
 * and swap as far as the OS lets, zeroised before they are unmapped. */
typedef struct secrets {
    zp_chacha rng;
    uint8_t random[64];
    uint8_t seed[64];
    uint64_t k[4];    /* delta, Montgomery form */
    uint64_t kinv[4]; /* its inverse */
} secrets;

static zp_status contribute(const char *in_path, const char *out_path, const char *name, const char *entropy,
                            const uint8_t *beacon, size_t beacon_len, unsigned iter_exp, const zp_ceremony_opts *o,
                            uint8_t hash_out[64], zp_error *err) {
    zp_zkey *zkey = NULL;
    zp_binfile bf;
    int bf_open = 0, writing = 0;
    mpc m = {0};
    secrets *sec = NULL;
    zp_blake2b h = {0};
    zp_binwriter w = {0};
    zp_tracked chunk = {0};
    zp_status st;
    if (name != NULL && !zp_cer_utf8_valid(name)) return zp_error_set(err, ZP_ERR_ARG, "the name is not valid UTF-8");
    if ((st = zp_zkey_open(&zkey, in_path, err)) != ZP_OK) goto out;
    if ((st = zp_binfile_open(&bf, in_path, "zkey", 1, err)) != ZP_OK) goto out;
    bf_open = 1;
    const zp_groth16_pk *pk = zp_zkey_pk(zkey);
    const zp_curve_desc *d = zp_curve_get(pk->curve);
    const zp_p2_ops *ops = zp_p2_ops_get(pk->curve);
    size_t g1 = d->g1_bytes, g2 = d->g2_bytes;
    if ((st = mpc_read(&m, &bf, d, err)) != ZP_OK) goto out;
    if ((sec = zp_cer_secret_alloc(sizeof *sec, err)) == NULL) {
        st = err->status;
        goto out;
    }
    if (beacon == NULL) {
        if ((st = zp_random_bytes(sec->random, 64, err)) != ZP_OK) goto out;
        if ((st = zp_blake2b_init(&h, err)) != ZP_OK) goto out;
        zp_blake2b_update(&h, sec->random, 64);
        zp_blake2b_update(&h, entropy, strlen(entropy));
        zp_blake2b_final(&h, sec->seed);
    } else {
        if ((st = zp_cer_beacon_seed(sec->seed, beacon, beacon_len, iter_exp, err)) != ZP_OK) goto out;
    }
    zp_chacha_seed_be(&sec->rng, sec->seed);

    contribution *c = &m.c[m.n];
    memset(c, 0, sizeof *c);
    if ((st = zp_blake2b_init(&h, err)) != ZP_OK) goto out;
    zp_blake2b_update(&h, m.cs_hash, 64);
    for (uint32_t i = 0; i < m.n; i++) hash_pubkey(&h, ops, d, &m.c[i]);
    ops->fr_from_rng(sec->k, &sec->rng);
    ops->g1_from_rng(c->g1_s, &sec->rng);
    ops->g1_mul_ct(c->g1_sx, c->g1_s, sec->k);
    uint8_t u[192], g2_sp[192];
    ops->g1_to_u(u, c->g1_s);
    zp_blake2b_update(&h, u, g1);
    ops->g1_to_u(u, c->g1_sx);
    zp_blake2b_update(&h, u, g1);
    zp_blake2b_final(&h, c->transcript);
    ops->hash_to_g2(g2_sp, c->transcript);
    ops->g2_mul_ct(c->g2_spx, g2_sp, sec->k);
    uint8_t delta1[96], delta2[192];
    ops->g1_mul_ct(delta1, (const uint8_t *)pk->delta1, sec->k);
    ops->g2_mul_ct(delta2, (const uint8_t *)pk->delta2, sec->k);
    memcpy(c->delta_after, delta1, g1);
    c->type = beacon != NULL;
    if (name != NULL) {
        zp_cer_js_name(c->name, name);
        c->has_name = 1;
    }
    if (beacon != NULL) {
        memcpy(c->beacon, beacon, beacon_len);
        c->beacon_len = beacon_len;
        c->iter_exp = iter_exp;
    }
    ops->fr_inv_ct(sec->kinv, sec->k);
    explicit_bzero(sec->k, sizeof sec->k);
    explicit_bzero(&sec->rng, sizeof sec->rng);
    explicit_bzero(sec->seed, sizeof sec->seed);

    if ((st = zp_binwriter_open(&w, out_path, "zkey", 1, 10, err)) != ZP_OK) goto out;
    writing = 1;
    if ((st = zp_cer_copy_section(&w, &bf, ZP_ZS_PROTOCOL, "protocol", err)) != ZP_OK) goto out;
    {
        const uint8_t *p;
        uint64_t n;
        if ((st = zp_binfile_section(&bf, ZP_ZS_HEADER, "header", 1, &p, &n, err)) != ZP_OK) goto out;
        size_t at = (size_t)n - (g1 + g2); /* delta1, delta2 close the header */
        zp_binwriter_begin(&w, ZP_ZS_HEADER);
        zp_binwriter_bytes(&w, p, at);
        zp_binwriter_bytes(&w, delta1, g1);
        zp_binwriter_bytes(&w, delta2, g2);
        zp_binwriter_end(&w);
    }
    static const char *const names[] = {"IC", "coefficients", "A", "B1", "B2"};
    for (uint32_t id = ZP_ZS_IC; id <= ZP_ZS_B2; id++) {
        if ((st = zp_cer_copy_section(&w, &bf, id, names[id - ZP_ZS_IC], err)) != ZP_OK) goto out;
    }
    const size_t max_chunk = (size_t)1 << 16;
    if ((st = zp_cer_alloc(&chunk, max_chunk * g1, "contribution chunk", err)) != ZP_OK) goto out;
    for (uint32_t id = ZP_ZS_C; id <= ZP_ZS_H; id++) {
        const uint8_t *p;
        uint64_t n;
        if ((st = zp_binfile_section(&bf, id, id == ZP_ZS_C ? "C" : "H", 1, &p, &n, err)) != ZP_OK) goto out;
        size_t pts = (size_t)(n / g1); /* a whole number: zp_zkey_open checked the size */
        /* where the product can test the subgroup on the way, only the
         * curve before it */
        const char *what = id == ZP_ZS_C ? "C" : "H";
        zp_cer_check check = ops->g1_apply_key_checked != NULL ? ZP_CER_ON_CURVE : ZP_CER_IN_SUBGROUP;
        if ((st = zp_cer_check_points(&bf, id, what, d, p, pts, 0, check, o, err)) != ZP_OK) goto out;
        zp_binwriter_begin(&w, id);
        for (size_t i = 0; i < pts; i += max_chunk) {
            size_t k = pts - i < max_chunk ? pts - i : max_chunk;
            memcpy(chunk.p, p + i * g1, k * g1);
            zp_binfile_release(&bf, p + i * g1, k * g1);
            /* a beacon's key is public: no need for constant time */
            if (check == ZP_CER_ON_CURVE) {
                size_t bad = ops->g1_apply_key_checked(chunk.p, k, sec->kinv, beacon != NULL, o ? o->par : NULL);
                if (bad < k) {
                    st = zp_cer_bad_point(err, &bf, id, what, i + bad,
                                          zp_io_point_problem(ZP_IO_POINT_OUTSIDE_SUBGROUP));
                    goto out;
                }
            } else if (beacon != NULL) {
                ops->g1_apply_key_var(chunk.p, k, sec->kinv, o ? o->par : NULL);
            } else {
                ops->g1_apply_key(chunk.p, k, sec->kinv, o ? o->par : NULL);
            }
            zp_binwriter_bytes(&w, chunk.p, k * g1);
            zp_cer_progress(o, id == ZP_ZS_C ? "contribute: L" : "contribute: H", i + k, pts);
        }
        zp_binwriter_end(&w);
    }
    mpc_write(&w, &m, d, m.n + 1);
    writing = 0;
    if ((st = zp_binwriter_close(&w, err)) != ZP_OK) goto out;
    if ((st = contribution_hash(c->hash, ops, d, c, err)) != ZP_OK) goto out;
    if (hash_out != NULL) memcpy(hash_out, c->hash, 64);
out:
    if (writing) zp_binwriter_abort(&w);
    zp_cer_free(&chunk);
    zp_cer_secret_free(sec, sizeof *sec);
    zp_blake2b_abort(&h);
    mpc_free(&m);
    if (bf_open) zp_binfile_close(&bf);
    zp_zkey_close(zkey);
    return st;
}

zp_status zp_ceremony_zkey_contribute(const char *in_path, const char *out_path, const char *name, const char *entropy,
                                      const zp_ceremony_opts *o, uint8_t hash[64], zp_error *err) {
    return contribute(in_path, out_path, name, entropy != NULL ? entropy : "", NULL, 0, 0, o, hash, err);
}

zp_status zp_ceremony_zkey_beacon(const char *in_path, const char *out_path, const char *name, const char *beacon_hex,
                                  unsigned iter_exp, const zp_ceremony_opts *o, uint8_t hash[64], zp_error *err) {
    uint8_t beacon[255];
    size_t len = 0;
    zp_status st = zp_cer_beacon_parse(beacon, &len, beacon_hex, iter_exp, err);
    if (st != ZP_OK) return st;
    return contribute(in_path, out_path, name, NULL, beacon, len, iter_exp, o, hash, err);
}

/* ---- verify ---- */

/* e(Σ r_i·init_i, delta2_init) == e(Σ r_i·final_i, delta2_final) over
 * section id with random 128-bit r_i: the final points are the initial
 * ones times one scalar, the same for all, the one delta moved by. A
 * slice of points at a time, each checked on its own (every slice must
 * pass, as the whole would), its pages let go after: the memory is one
 * slice's whatever the key, and the slice fits the budget. */
#define RATIO_SLICE ((size_t)1 << 20)
#define RATIO_SLICE_MIN ((size_t)1 << 10)
/* Points a slice: 2^20, or under a budget fewer, so that a slice's points
 * in both files and its scalars take at most half of what the budget
 * leaves past the process's 96 MiB (the MSM's scratch is the other half). */
static size_t ratio_slice(size_t g1, uint64_t budget) {
    size_t slice = RATIO_SLICE;
    uint64_t room = budget > ((uint64_t)96 << 20) ? (budget - ((uint64_t)96 << 20)) / 2 : 0;
    while (budget != 0 && slice > RATIO_SLICE_MIN && slice * (2 * g1 + 32) > room) slice /= 2;
    return slice;
}
/* Affine LEM's infinity: x = y = 0. */
static int all_zero(const uint8_t *p, size_t n) {
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++) acc |= p[i];
    return acc == 0;
}

static zp_status section_ratio(int *ok, const zp_p2_ops *ops, const zp_binfile *bi, const uint8_t *init,
                               const zp_binfile *bf, const uint8_t *fin, size_t n, size_t g1, const uint8_t *d2_init,
                               const uint8_t *d2_final, const zp_ceremony_opts *o, zp_error *err) {
    *ok = 1;
    if (n == 0) return ZP_OK;
    zp_tracked sc = {0};
    size_t slice = ratio_slice(g1, o ? o->budget : 0), cap = n < slice ? n : slice;
    zp_status st = zp_cer_alloc(&sc, cap * 32, "verification scalars", err);
    for (size_t at = 0; at < n && st == ZP_OK && *ok; at += cap) {
        size_t m = n - at < cap ? n - at : cap;
        uint64_t *k = sc.p;
        if ((st = zp_cer_random_scalars128(k, m, err)) != ZP_OK) break;
        uint8_t r1[96], r2[96];
        if ((st = ops->g1_lincomb(r1, init + at * g1, k, m, o ? o->par : NULL, err)) != ZP_OK) break;
        if ((st = ops->g1_lincomb(r2, fin + at * g1, k, m, o ? o->par : NULL, err)) != ZP_OK) break;
        zp_binfile_release(bi, init + at * g1, m * g1);
        zp_binfile_release(bf, fin + at * g1, m * g1);
        /* Both sums at infinity pass, as with snarkjs, whose MSM of
         * points at infinity is a zero its sameRatio does not refuse and
         * its pairing takes as one: the H of a key on a ptau with tau = 1
         * (powersoftau new, no contribution) is all infinity. One sum at
         * infinity and not the other fails. */
        int inf1 = all_zero(r1, g1), inf2 = all_zero(r2, g1);
        *ok = inf1 || inf2 ? inf1 && inf2 : ops->same_ratio(r1, r2, d2_final, d2_init);
    }
    zp_cer_free(&sc);
    return st;
}

/* A key's L (section 8, "C") and H (9) points as bf maps them, each
 * section of the size pk's counts give: bf is a second opening of the
 * file zp_zkey_open read pk from, and the file may have changed in
 * between. */
static zp_status key_points(const zp_binfile *bf, const zp_groth16_pk *pk, size_t g1, const uint8_t **c,
                            const uint8_t **h, zp_error *err) {
    const uint32_t ids[2] = {ZP_ZS_C, ZP_ZS_H};
    const uint64_t want[2] = {(uint64_t)(pk->n_vars - pk->n_public - 1) * g1, (uint64_t)pk->domain_size * g1};
    const uint8_t **out[2] = {c, h};
    for (int i = 0; i < 2; i++) {
        uint64_t n;
        zp_status st = zp_binfile_section(bf, ids[i], i ? "H" : "C", 1, out[i], &n, err);
        if (st != ZP_OK) return st;
        if (n != want[i]) {
            return zp_error_set(err, ZP_ERR_FORMAT, "%s: section %u (%s) is %llu bytes, not %llu: the file changed",
                                bf->name, ids[i], i ? "H" : "C", (unsigned long long)n, (unsigned long long)want[i]);
        }
    }
    return ZP_OK;
}

zp_status zp_ceremony_zkey_verify(const char *r1cs_path, const char *ptau_path, const char *zkey_path,
                                  const zp_ceremony_opts *o, FILE *report, zp_error *err) {
    char tmp[32];
    int tmp_fd = -1;
    zp_zkey *fin = NULL, *ini = NULL;
    zp_binfile bf, bi;
    int bf_open = 0, bi_open = 0;
    mpc m = {0}, mi = {0};
    zp_blake2b acc = {0}, ours = {0};
    zp_status st;
    /* The key first: a malformed key is reported before minutes of work. */
    if ((st = zp_zkey_open(&fin, zkey_path, err)) != ZP_OK) goto out;
    if ((st = zp_binfile_open(&bf, zkey_path, "zkey", 1, err)) != ZP_OK) goto out;
    bf_open = 1;
    const zp_groth16_pk *pk = zp_zkey_pk(fin);
    const zp_curve_desc *d = zp_curve_get(pk->curve);
    const zp_p2_ops *ops = zp_p2_ops_get(pk->curve);
    size_t g1 = d->g1_bytes;
    if ((st = mpc_read(&m, &bf, d, err)) != ZP_OK) goto out;
    /* the points the key was changed in: the rest is compared byte for
     * byte. Read through bf, whose pages the checks let go of (pk's are
     * another mapping of the file: reading them there would keep them). */
    const uint8_t *fin_c, *fin_h;
    if ((st = key_points(&bf, pk, g1, &fin_c, &fin_h, err)) != ZP_OK) goto out;
    if ((st = zp_cer_check_points(&bf, ZP_ZS_C, "C", d, fin_c, pk->n_vars - pk->n_public - 1, 0, ZP_CER_IN_SUBGROUP, o,
                                  err)) != ZP_OK)
        goto out;
    if ((st = zp_cer_check_points(&bf, ZP_ZS_H, "H", d, fin_h, pk->domain_size, 0, ZP_CER_IN_SUBGROUP, o, err)) !=
        ZP_OK)
        goto out;

    /* The chain. */
    if ((st = zp_blake2b_init(&acc, err)) != ZP_OK) goto out;
    zp_blake2b_update(&acc, m.cs_hash, 64);
    const uint8_t *cur_delta = ops->g1_gen;
    for (uint32_t i = 0; i < m.n; i++) {
        contribution *c = &m.c[i];
        if ((st = zp_blake2b_copy(&ours, &acc, err)) != ZP_OK) goto out;
        uint8_t u[192], t[64], g2_sp[192];
        ops->g1_to_u(u, c->g1_s);
        zp_blake2b_update(&ours, u, g1);
        ops->g1_to_u(u, c->g1_sx);
        zp_blake2b_update(&ours, u, g1);
        zp_blake2b_final(&ours, t);
        const char *who = c->has_name ? c->name : "";
        if (memcmp(t, c->transcript, 64) != 0) {
            st = zp_error_set(err, ZP_ERR_INVALID, "%s: contribution #%u %s: inconsistent transcript", zkey_path, i + 1,
                              who);
            goto out;
        }
        ops->hash_to_g2(g2_sp, c->transcript);
        if (!ops->same_ratio(c->g1_s, c->g1_sx, g2_sp, c->g2_spx)) {
            st = zp_error_set(err, ZP_ERR_INVALID,
                              "%s: contribution #%u %s: its public key's G1 and G2 parts do not have the same ratio",
                              zkey_path, i + 1, who);
            goto out;
        }
        if (!ops->same_ratio(cur_delta, c->delta_after, g2_sp, c->g2_spx)) {
            st = zp_error_set(err, ZP_ERR_INVALID, "%s: contribution #%u %s: deltaAfter does not follow its public key",
                              zkey_path, i + 1, who);
            goto out;
        }
        if (c->type == 1) {
            zp_chacha rng;
            uint8_t seed[32], s[96], sx[96];
            uint64_t k[4];
            if ((st = zp_cer_beacon_seed(seed, c->beacon, c->beacon_len, c->iter_exp, err)) != ZP_OK) goto out;
            zp_chacha_seed_be(&rng, seed);
            ops->fr_from_rng(k, &rng);
            ops->g1_from_rng(s, &rng);
            ops->g1_mul_ct(sx, s, k);
            if (memcmp(s, c->g1_s, g1) != 0 || memcmp(sx, c->g1_sx, g1) != 0) {
                st = zp_error_set(err, ZP_ERR_INVALID, "%s: contribution #%u %s: the key does not match its beacon",
                                  zkey_path, i + 1, who);
                goto out;
            }
        }
        hash_pubkey(&acc, ops, d, c);
        if ((st = contribution_hash(c->hash, ops, d, c, err)) != ZP_OK) goto out;
        cur_delta = c->delta_after;
    }

    /* The initial key, recomputed. */
    if ((st = zp_cer_unnamed_file(&tmp_fd, tmp, NULL, err)) != ZP_OK) goto out;
    int inexact = 0;
    if ((st = zp_p2_zkey_new(r1cs_path, ptau_path, tmp, o, NULL, &inexact, err)) != ZP_OK) goto out;
    if ((st = zp_zkey_open(&ini, tmp, err)) != ZP_OK) goto out;
    if ((st = zp_binfile_open(&bi, tmp, "zkey", 1, err)) != ZP_OK) goto out;
    bi_open = 1;
    const zp_groth16_pk *pi = zp_zkey_pk(ini);
    if ((st = mpc_read(&mi, &bi, d, err)) != ZP_OK) goto out;
#define FAIL(...)                                                            \
    do {                                                                     \
        st = zp_error_set(err, ZP_ERR_INVALID, "%s: INVALID: " __VA_ARGS__); \
        goto out;                                                            \
    } while (0)
    if (pi->curve != pk->curve) FAIL("a key of another curve than %s", zkey_path, r1cs_path);
    if (pi->n_vars != pk->n_vars || pi->n_public != pk->n_public || pi->domain_size != pk->domain_size) {
        FAIL("different circuit parameters: nVars %u, nPublic %u, domain %u in the key; %u, %u, %u for %s", zkey_path,
             pk->n_vars, pk->n_public, pk->domain_size, pi->n_vars, pi->n_public, pi->domain_size, r1cs_path);
    }
    /* Where zkpipe cannot make snarkjs's circuit hash (zkey_new above), the
     * byte comparisons of every section below bind the key to the circuit
     * without it. */
    if (!inexact && memcmp(m.cs_hash, mi.cs_hash, 64) != 0) {
        FAIL("the circuit hash is not that of %s", zkey_path, r1cs_path);
    }
    if (memcmp(pi->alpha1, pk->alpha1, g1) != 0) FAIL("alpha1 is not the ptau's", zkey_path);
    if (memcmp(pi->beta1, pk->beta1, g1) != 0) FAIL("beta1 is not the ptau's", zkey_path);
    if (memcmp(pi->beta2, pk->beta2, d->g2_bytes) != 0) FAIL("beta2 is not the ptau's", zkey_path);
    if (memcmp(pi->gamma2, pk->gamma2, d->g2_bytes) != 0) FAIL("gamma2 is not the generator", zkey_path);
    if (memcmp(pk->delta1, cur_delta, g1) != 0) FAIL("delta1 is not the last contribution's", zkey_path);
    if (!ops->same_ratio(ops->g1_gen, cur_delta, ops->g2_gen, (const uint8_t *)pk->delta2)) {
        FAIL("delta2 does not match delta1", zkey_path);
    }
    static const char *const names[] = {"IC", "coefficients", "A", "B1", "B2"};
    for (uint32_t id = ZP_ZS_IC; id <= ZP_ZS_B2; id++) {
        const uint8_t *p, *q;
        uint64_t n, nq;
        if ((st = zp_binfile_section(&bf, id, names[id - ZP_ZS_IC], 1, &p, &n, err)) != ZP_OK) goto out;
        if ((st = zp_binfile_section(&bi, id, names[id - ZP_ZS_IC], 1, &q, &nq, err)) != ZP_OK) goto out;
        if (n != nq || !zp_cer_same_bytes(&bf, p, &bi, q, n))
            FAIL("section %u (%s) is not the circuit's", zkey_path, id, names[id - ZP_ZS_IC]);
    }
    int ok;
    size_t nl = pk->n_vars - pk->n_public - 1;
    const uint8_t *ini_c, *ini_h;
    if ((st = key_points(&bi, pi, g1, &ini_c, &ini_h, err)) != ZP_OK) goto out;
    if ((st = section_ratio(&ok, ops, &bi, ini_c, &bf, fin_c, nl, g1, (const uint8_t *)pi->delta2,
                            (const uint8_t *)pk->delta2, o, err)) != ZP_OK)
        goto out;
    if (!ok) FAIL("section 8 (C, the L points) does not match delta", zkey_path);
    if ((st = section_ratio(&ok, ops, &bi, ini_h, &bf, fin_h, pk->domain_size, g1, (const uint8_t *)pi->delta2,
                            (const uint8_t *)pk->delta2, o, err)) != ZP_OK)
        goto out;
    if (!ok) FAIL("section 9 (H) does not match delta", zkey_path);
#undef FAIL
    if (report != NULL) {
        zp_ceremony_print_hash(report, "Circuit Hash: ", m.cs_hash);
        if (inexact) {
            fputs(
                "(not compared with the circuit's: snarkjs's hash of a key whose domain is the ptau's power, "
                "above 2^14, reads past the ptau's tauG1, where this ptau ends; every section was compared "
                "instead)\n",
                report);
        }
        for (uint32_t i = m.n; i-- > 0;) {
            const contribution *c = &m.c[i];
            char title[300];
            snprintf(title, sizeof title, "contribution #%u %s:", i + 1, c->has_name ? c->name : "");
            fputs("-------------------------\n", report);
            zp_ceremony_print_hash(report, title, c->hash);
            if (c->type == 1) {
                fputs("Beacon generator: ", report);
                for (size_t j = 0; j < c->beacon_len; j++) fprintf(report, "%02x", c->beacon[j]);
                fprintf(report, "\nBeacon iterations Exp: %u\n", c->iter_exp);
            }
        }
        fputs("-------------------------\nZKey Ok!\n", report);
    }
out:
    zp_blake2b_abort(&acc);
    zp_blake2b_abort(&ours);
    mpc_free(&m);
    mpc_free(&mi);
    if (bf_open) zp_binfile_close(&bf);
    if (bi_open) zp_binfile_close(&bi);
    zp_zkey_close(fin);
    zp_zkey_close(ini);
    if (tmp_fd >= 0) close(tmp_fd);
    return st;
}
