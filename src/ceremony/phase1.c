/* Phase 1 of a Groth16 ceremony on snarkjs's .ptau files (ceremony.h):
 * powersoftau new, contribute and beacon; prepare phase2 is in
 * phase1_prepare.c, verify in phase1_verify.c. The layouts and the order
 * of every hash follow snarkjs 0.7.6's powersoftau_new.js,
 * powersoftau_contribute.js, powersoftau_beacon.js, powersoftau_utils.js
 * and keypair.js; docs/ceremony.md says what is checked. Every BLAKE2b here is libb2's
 * (ptau_hash.h): a contribution records a running hash's state. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/random.h"
#include "ceremony/ceremony.h"
#include "ceremony/internal.h"
#include "ceremony/ptau_hash.h"
#include "curve/desc.h"
#include "io/binfile.h"
#include "io/elements.h"
#include "mem/track.h"

/* ---- section 7: the contributions ---- */

static size_t pubkey_bytes(const zp_curve_desc *d) { return 6 * d->g1_bytes + 3 * d->g2_bytes; }

/* The public key as toPtauPubKeyRpr writes it, uncompressed. */
static void pubkey_u(uint8_t *out, const zp_p2_ops *ops, const zp_curve_desc *d, const zp_p1_contribution *c) {
    for (int i = 0; i < 6; i++) ops->g1_to_u(out + i * d->g1_bytes, c->key_g1[i]);
    for (int i = 0; i < 3; i++) ops->g2_to_u(out + 6 * d->g1_bytes + i * d->g2_bytes, c->key_g2[i]);
}

zp_status zp_p1_read_contributions(const zp_cer_ptau *t, zp_p1_contribution **out, uint32_t *count, zp_error *err) {
    *out = NULL;
    *count = 0;
    const zp_curve_desc *d = t->d;
    const zp_p2_ops *ops = zp_p2_ops_get(d->id);
    const char *name = t->bf.name;
    const uint8_t *p;
    uint64_t size;
    zp_status st = zp_binfile_section(&t->bf, 7, "contributions", 1, &p, &size, err);
    if (st != ZP_OK) return st;
    if (size < 4) return zp_error_set(err, ZP_ERR_FORMAT, "%s: section 7 (contributions) is truncated", name);
    uint32_t n = zp_cer_rd32(p);
    size_t g1 = d->g1_bytes, g2 = d->g2_bytes, fixed = 3 * g1 + 2 * g2 + pubkey_bytes(d) + 216 + 64 + 8;
    if (n > size / fixed) {
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: section 7 (contributions): %u contributions do not fit", name, n);
    }
    zp_p1_contribution *cs = calloc((size_t)n + 1, sizeof *cs);
    if (cs == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory reading %s's contributions", name);
    uint64_t off = 4;
    uint8_t *pk = malloc(pubkey_bytes(d));
    if (pk == NULL) {
        free(cs);
        return zp_error_set(err, ZP_ERR_NOMEM, "out of memory reading %s's contributions", name);
    }
    for (uint32_t i = 0; i < n; i++) {
        zp_p1_contribution *c = &cs[i];
        if (size - off < fixed) {
            st = zp_error_set(err, ZP_ERR_FORMAT, "%s: section 7 (contributions): contribution #%u is truncated", name,
                              i + 1);
            goto fail;
        }
        c->raw = p + off;
        uint8_t *g1s[9] = {c->tau_g1,    c->alpha_g1,  c->beta_g1,   c->key_g1[0], c->key_g1[1],
                           c->key_g1[2], c->key_g1[3], c->key_g1[4], c->key_g1[5]};
        uint8_t *g2s[5] = {c->tau_g2, c->beta_g2, c->key_g2[0], c->key_g2[1], c->key_g2[2]};
        /* tauG1, tauG2, alphaG1, betaG1, betaG2, then the key's six G1 and three G2 */
        uint8_t *order[14] = {g1s[0], g2s[0], g1s[1], g1s[2], g2s[1], g1s[3], g1s[4],
                              g1s[5], g1s[6], g1s[7], g1s[8], g2s[2], g2s[3], g2s[4]};
        static const int is_g2[14] = {0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1};
        for (int k = 0; k < 14; k++) {
            size_t e = is_g2[k] ? g2 : g1;
            memcpy(order[k], p + off, e);
            off += e;
            uint64_t limbs[24];
            memcpy(limbs, order[k], e);
            zp_io_point_check r = is_g2[k] ? zp_io_g2_check(d->id, limbs, 1) : zp_io_g1_check(d->id, limbs, 1);
            if (r != ZP_IO_POINT_OK) {
                st = zp_error_set(err, ZP_ERR_FORMAT, "%s: section 7 (contributions): contribution #%u: a point %s",
                                  name, i + 1, zp_io_point_problem(r));
                goto fail;
            }
        }
        memcpy(c->partial, p + off, 216), off += 216;
        memcpy(c->next_challenge, p + off, 64), off += 64;
        c->type = zp_cer_rd32(p + off), off += 4;
        uint32_t plen = zp_cer_rd32(p + off);
        off += 4;
        if (c->type > 1 || plen > size - off) goto bad_params;
        int has_name = 0;
        if (!zp_cer_params_decode(p + off, plen, c->type, c->name, &has_name, &c->iter_exp, c->beacon, &c->beacon_len))
            goto bad_params;
        off += plen;
        c->raw_len = (size_t)(p + off - c->raw);
        zp_ptau_hash h;
        if (!zp_ptau_hash_resume(&h, c->partial)) {
            st = zp_error_set(err, ZP_ERR_FORMAT,
                              "%s: section 7 (contributions): contribution #%u: the partialHash is "
                              "no BLAKE2b state",
                              name, i + 1);
            goto fail;
        }
        pubkey_u(pk, ops, d, c);
        zp_ptau_hash_update(&h, pk, pubkey_bytes(d));
        zp_ptau_hash_final(&h, c->response);
        continue;
    bad_params:
        st = zp_error_set(err, ZP_ERR_FORMAT,
                          "%s: section 7 (contributions): contribution #%u has malformed parameters", name, i + 1);
        goto fail;
    }
    if (off != size) {
        st = zp_error_set(err, ZP_ERR_FORMAT, "%s: section 7 (contributions) has %llu bytes after its end", name,
                          (unsigned long long)(size - off));
        goto fail;
    }
    free(pk);
    *out = cs;
    *count = n;
    return ZP_OK;
fail:
    free(pk);
    free(cs);
    return st;
}

/* writeContribution: the points in LEM, the partialHash, the next
 * challenge, the type, then the parameters: name (1), and for a beacon
 * its iterations exponent (2) and hash (3). */
static void write_contribution(zp_binwriter *w, const zp_curve_desc *d, const zp_p1_contribution *c) {
    size_t g1 = d->g1_bytes, g2 = d->g2_bytes;
    zp_binwriter_bytes(w, c->tau_g1, g1);
    zp_binwriter_bytes(w, c->tau_g2, g2);
    zp_binwriter_bytes(w, c->alpha_g1, g1);
    zp_binwriter_bytes(w, c->beta_g1, g1);
    zp_binwriter_bytes(w, c->beta_g2, g2);
    for (int i = 0; i < 6; i++) zp_binwriter_bytes(w, c->key_g1[i], g1);
    for (int i = 0; i < 3; i++) zp_binwriter_bytes(w, c->key_g2[i], g2);
    zp_binwriter_bytes(w, c->partial, 216);
    zp_binwriter_bytes(w, c->next_challenge, 64);
    zp_binwriter_u32(w, c->type);
    uint8_t params[ZP_CER_PARAMS_MAX];
    size_t np =
        zp_cer_params_encode(params, c->name[0] ? c->name : NULL, c->type, c->iter_exp, c->beacon, c->beacon_len);
    zp_binwriter_u32(w, (uint32_t)np);
    zp_binwriter_bytes(w, params, np);
}

/* ---- the keys ---- */

/* u, n times, into h, 64 copies an update. */
static void hash_copies(zp_ptau_hash *h, const uint8_t *u, size_t elem, uint64_t n) {
    uint8_t block[192 * 64];
    for (size_t i = 0; i < 64; i++) memcpy(block + i * elem, u, elem);
    for (uint64_t i = 0; i < n; i += 64) zp_ptau_hash_update(h, block, (size_t)(n - i < 64 ? n - i : 64) * elem);
}

void zp_p1_first_challenge(const zp_p2_ops *ops, const zp_curve_desc *d, unsigned power, uint8_t out[64]) {
    uint8_t u1[96], u2[192], empty[64];
    ops->g1_to_u(u1, ops->g1_gen);
    ops->g2_to_u(u2, ops->g2_gen);
    zp_ptau_hash_bytes(empty, NULL, 0);
    zp_ptau_hash h;
    zp_ptau_hash_init(&h);
    zp_ptau_hash_update(&h, empty, 64);
    uint64_t n = (uint64_t)1 << power;
    hash_copies(&h, u1, d->g1_bytes, 2 * n - 1);
    hash_copies(&h, u2, d->g2_bytes, n);
    hash_copies(&h, u1, d->g1_bytes, n);
    hash_copies(&h, u1, d->g1_bytes, n);
    zp_ptau_hash_update(&h, u2, d->g2_bytes);
    zp_ptau_hash_final(&h, out);
}

void zp_p1_g2sp(const zp_p2_ops *ops, const zp_curve_desc *d, uint8_t out[192], unsigned personalization,
                const uint8_t challenge[64], const uint8_t *g1_s, const uint8_t *g1_sx) {
    uint8_t b = (uint8_t)personalization, u[96], hash[64];
    zp_ptau_hash h;
    zp_ptau_hash_init(&h);
    zp_ptau_hash_update(&h, &b, 1);
    zp_ptau_hash_update(&h, challenge, 64);
    ops->g1_to_u(u, g1_s);
    zp_ptau_hash_update(&h, u, d->g1_bytes);
    ops->g1_to_u(u, g1_sx);
    zp_ptau_hash_update(&h, u, d->g1_bytes);
    zp_ptau_hash_final(&h, hash);
    ops->hash_to_g2(out, hash);
}

void zp_p1_key(const zp_p2_ops *ops, const zp_curve_desc *d, zp_p1_contribution *c, uint64_t prv[3][4], zp_chacha *rng,
               const uint8_t challenge[64]) {
    for (int i = 0; i < 3; i++) ops->fr_from_rng(prv[i], rng);
    for (int i = 0; i < 3; i++) {
        uint8_t sp[192];
        ops->g1_from_rng(c->key_g1[2 * i], rng);
        ops->g1_mul_ct(c->key_g1[2 * i + 1], c->key_g1[2 * i], prv[i]);
        zp_p1_g2sp(ops, d, sp, (unsigned)i, challenge, c->key_g1[2 * i], c->key_g1[2 * i + 1]);
        ops->g2_mul_ct(c->key_g2[i], sp, prv[i]);
    }
}

/* ---- contribute and beacon ---- */

/* A contribution's secrets, on pages of their own (zp_cer_secret_alloc). */
typedef struct p1_secrets {
    zp_chacha rng;
    zp_ptau_hash seed_hash;
    uint8_t random[64];
    uint8_t seed[64];
    uint64_t prv[3][4]; /* tau, alpha, beta: Montgomery form */
} p1_secrets;

/* One section of the new accumulator: the old points times first·inc^i
 * in snarkjs's chunks (processSection: 2^20 bytes of uncompressed points
 * each, one response-hash update of their compressed forms a chunk: the
 * partialHash's buffer depends on where the updates split). first_out
 * receives points 0 and 1 (1 only when there are two). */
static zp_status apply_section(zp_binwriter *w, long *start, zp_ptau_hash *resp, const zp_cer_ptau *t,
                               const zp_p2_ops *ops, uint32_t id, const char *what, uint64_t count, int g2,
                               const uint64_t *first, const uint64_t *inc, int public_key, uint8_t *chunk,
                               uint8_t *cbuf, uint8_t first_out[2][192], const zp_ceremony_opts *o, zp_error *err) {
    const uint8_t *pts;
    size_t elem = g2 ? t->d->g2_bytes : t->d->g1_bytes, celem = elem / 2;
    /* where the product can test the subgroup on the way, only the curve
     * before it */
    int checked = !g2 && ops->g1_apply_powers_checked != NULL;
    zp_status st = zp_cer_ptau_points(t, id, what, count, g2, 0, count, checked ? ZP_CER_ON_CURVE : ZP_CER_IN_SUBGROUP,
                                      &pts, o, err);
    if (st != ZP_OK) return st;
    size_t per = ((size_t)1 << 20) / elem;
    const zp_parallel *par = o ? o->par : NULL;
    zp_binwriter_begin(w, id);
    *start = ftell(w->f);
    for (uint64_t i = 0; i < count; i += per) {
        size_t k = (size_t)(count - i < per ? count - i : per);
        memcpy(chunk, pts + i * elem, k * elem);
        if (checked) {
            size_t bad = ops->g1_apply_powers_checked(chunk, k, i, first, inc, public_key, par);
            if (bad < k)
                return zp_cer_bad_point(err, &t->bf, id, what, (size_t)i + bad,
                                        zp_io_point_problem(ZP_IO_POINT_OUTSIDE_SUBGROUP));
        } else if (public_key) { /* a beacon's: no need for constant time */
            (g2 ? ops->g2_apply_powers_var : ops->g1_apply_powers_var)(chunk, k, i, first, inc, par);
        } else {
            (g2 ? ops->g2_apply_powers : ops->g1_apply_powers)(chunk, k, i, first, inc, par);
        }
        zp_binwriter_bytes(w, chunk, k * elem);
        for (size_t j = 0; j < k; j++) (g2 ? ops->g2_to_c : ops->g1_to_c)(cbuf + j * celem, chunk + j * elem);
        zp_ptau_hash_update(resp, cbuf, k * celem);
        if (i == 0) {
            for (size_t j = 0; j < 2 && j < k; j++) memcpy(first_out[j], chunk + j * elem, elem);
        }
        char step[64];
        snprintf(step, sizeof step, "contribute: %s", what);
        zp_cer_progress(o, step, (size_t)(i + k), (size_t)count);
    }
    zp_binwriter_end(w);
    return ZP_OK;
}

/* hashSection: the points written at start (count of them), read back
 * and hashed uncompressed. */
static zp_status hash_written(zp_ptau_hash *h, zp_binwriter *w, long start, const zp_p2_ops *ops,
                              const zp_curve_desc *d, uint64_t count, int g2, uint8_t *chunk, uint8_t *ubuf, size_t per,
                              zp_error *err) {
    size_t elem = g2 ? d->g2_bytes : d->g1_bytes;
    if (fflush(w->f) != 0) return zp_error_set(err, ZP_ERR_IO, "%s: cannot write: %s", w->path, strerror(errno));
    for (uint64_t i = 0; i < count; i += per) {
        size_t k = (size_t)(count - i < per ? count - i : per), want = k * elem, got = 0;
        off_t at = (off_t)start + (off_t)(i * elem);
        while (got < want) {
            ssize_t r = pread(fileno(w->f), chunk + got, want - got, at + (off_t)got);
            if (r <= 0) return zp_error_set(err, ZP_ERR_IO, "%s: cannot read back what was written", w->path);
            got += (size_t)r;
        }
        for (size_t j = 0; j < k; j++) (g2 ? ops->g2_to_u : ops->g1_to_u)(ubuf + j * elem, chunk + j * elem);
        zp_ptau_hash_update(h, ubuf, want);
    }
    return ZP_OK;
}

static zp_status contribute(const char *in_path, const char *out_path, const char *name, const char *entropy,
                            const uint8_t *beacon, size_t beacon_len, unsigned iter_exp, const zp_ceremony_opts *o,
                            uint8_t response_out[64], uint8_t next_out[64], zp_error *err) {
    zp_cer_ptau pt;
    zp_p1_contribution *cs = NULL;
    uint32_t n_old = 0;
    p1_secrets *sec = NULL;
    zp_binwriter w = {0};
    int writing = 0;
    zp_tracked chunk = {0}, aux = {0};
    zp_ptau_hash resp, next;
    if (name != NULL && !zp_cer_utf8_valid(name)) return zp_error_set(err, ZP_ERR_ARG, "the name is not valid UTF-8");
    zp_status st = zp_ptau_hash_load(err);
    if (st != ZP_OK) return st;
    zp_ptau_hash_init(&resp);
    zp_ptau_hash_init(&next);
    st = zp_cer_ptau_open(&pt, in_path, err);
    if (st != ZP_OK) goto out;
    const zp_curve_desc *d = pt.d;
    const zp_p2_ops *ops = zp_p2_ops_get(d->id);
    unsigned power = pt.power;
    if (power != pt.ceremony_power) {
        st = zp_error_set(err, ZP_ERR_UNSUPPORTED,
                          "%s: the file has been reduced (power %u of %u): one cannot "
                          "contribute to it",
                          in_path, power, pt.ceremony_power);
        goto out;
    }
    if ((st = zp_p1_read_contributions(&pt, &cs, &n_old, err)) != ZP_OK) goto out;
    uint8_t challenge[64];
    if (n_old > 0) {
        memcpy(challenge, cs[n_old - 1].next_challenge, 64);
    } else {
        zp_p1_first_challenge(ops, d, pt.ceremony_power, challenge);
    }
    if ((sec = zp_cer_secret_alloc(sizeof *sec, err)) == NULL) {
        st = err->status;
        goto out;
    }
    if (beacon == NULL) {
        /* misc.getRandomRng: BLAKE2b-512 of 64 random bytes and the entropy */
        if ((st = zp_random_bytes(sec->random, 64, err)) != ZP_OK) goto out;
        zp_ptau_hash_init(&sec->seed_hash);
        zp_ptau_hash_update(&sec->seed_hash, sec->random, 64);
        zp_ptau_hash_update(&sec->seed_hash, entropy, strlen(entropy));
        zp_ptau_hash_final(&sec->seed_hash, sec->seed);
    } else {
        if ((st = zp_cer_beacon_seed(sec->seed, beacon, beacon_len, iter_exp, err)) != ZP_OK) goto out;
    }
    zp_chacha_seed_be(&sec->rng, sec->seed);
    zp_p1_contribution *c = &cs[n_old];
    memset(c, 0, sizeof *c);
    zp_p1_key(ops, d, c, sec->prv, &sec->rng, challenge);
    explicit_bzero(&sec->rng, sizeof sec->rng);
    explicit_bzero(sec->seed, sizeof sec->seed);
    explicit_bzero(sec->random, sizeof sec->random);
    c->type = beacon != NULL;
    if (name != NULL) zp_cer_js_name(c->name, name);
    if (beacon != NULL) {
        memcpy(c->beacon, beacon, beacon_len);
        c->beacon_len = beacon_len;
        c->iter_exp = iter_exp;
    }

    zp_ptau_hash_update(&resp, challenge, 64);
    if ((st = zp_binwriter_open(&w, out_path, "ptau", 1, 7, err)) != ZP_OK) goto out;
    writing = 1;
    zp_binwriter_begin(&w, 1);
    zp_binwriter_u32(&w, (uint32_t)d->fp_bytes);
    zp_binwriter_bytes(&w, d->fp_modulus, d->fp_bytes);
    zp_binwriter_u32(&w, power);
    zp_binwriter_u32(&w, power);
    zp_binwriter_end(&w);
    if ((st = zp_cer_alloc(&chunk, (size_t)1 << 20, "contribution chunk", err)) != ZP_OK) goto out;
    if ((st = zp_cer_alloc(&aux, (size_t)1 << 20, "contribution hashing", err)) != ZP_OK) goto out;
    uint64_t n = (uint64_t)1 << power;
    long start[7] = {0};
    uint8_t firsts[2][192];
    const uint64_t *tau = sec->prv[0], *alpha = sec->prv[1], *beta = sec->prv[2];
    if ((st = apply_section(&w, &start[2], &resp, &pt, ops, 2, "tauG1", 2 * n - 1, 0, NULL, tau, beacon != NULL,
                            chunk.p, aux.p, firsts, o, err)) != ZP_OK)
        goto out;
    memcpy(c->tau_g1, firsts[1], d->g1_bytes);
    if ((st = apply_section(&w, &start[3], &resp, &pt, ops, 3, "tauG2", n, 1, NULL, tau, beacon != NULL, chunk.p, aux.p,
                            firsts, o, err)) != ZP_OK)
        goto out;
    memcpy(c->tau_g2, firsts[1], d->g2_bytes);
    if ((st = apply_section(&w, &start[4], &resp, &pt, ops, 4, "alphaTauG1", n, 0, alpha, tau, beacon != NULL, chunk.p,
                            aux.p, firsts, o, err)) != ZP_OK)
        goto out;
    memcpy(c->alpha_g1, firsts[0], d->g1_bytes);
    if ((st = apply_section(&w, &start[5], &resp, &pt, ops, 5, "betaTauG1", n, 0, beta, tau, beacon != NULL, chunk.p,
                            aux.p, firsts, o, err)) != ZP_OK)
        goto out;
    memcpy(c->beta_g1, firsts[0], d->g1_bytes);
    if ((st = apply_section(&w, &start[6], &resp, &pt, ops, 6, "betaG2", 1, 1, beta, tau, beacon != NULL, chunk.p,
                            aux.p, firsts, o, err)) != ZP_OK)
        goto out;
    memcpy(c->beta_g2, firsts[0], d->g2_bytes);
    zp_cer_secret_free(sec, sizeof *sec);
    sec = NULL;

    zp_ptau_hash_partial(&resp, c->partial);
    {
        uint8_t pk[6 * 96 + 3 * 192];
        pubkey_u(pk, ops, d, c);
        zp_ptau_hash_update(&resp, pk, pubkey_bytes(d));
    }
    zp_ptau_hash_final(&resp, c->response);
    zp_ptau_hash_update(&next, c->response, 64);
    /* hashSection's chunks: 2^24 bytes; any split gives the same digest */
    const struct {
        uint32_t id;
        uint64_t count;
        int g2;
    } secs[5] = {{2, 2 * n - 1, 0}, {3, n, 1}, {4, n, 0}, {5, n, 0}, {6, 1, 1}};
    for (int i = 0; i < 5; i++) {
        size_t per = ((size_t)1 << 20) / (secs[i].g2 ? d->g2_bytes : d->g1_bytes);
        if ((st = hash_written(&next, &w, start[secs[i].id], ops, d, secs[i].count, secs[i].g2, chunk.p, aux.p, per,
                               err)) != ZP_OK)
            goto out;
    }
    zp_ptau_hash_final(&next, c->next_challenge);
    zp_binwriter_begin(&w, 7);
    zp_binwriter_u32(&w, n_old + 1);
    for (uint32_t i = 0; i < n_old; i++) zp_binwriter_bytes(&w, cs[i].raw, cs[i].raw_len);
    write_contribution(&w, d, c);
    zp_binwriter_end(&w);
    writing = 0;
    if ((st = zp_binwriter_close(&w, err)) != ZP_OK) goto out;
    if (response_out != NULL) memcpy(response_out, c->response, 64);
    if (next_out != NULL) memcpy(next_out, c->next_challenge, 64);
out:
    if (writing) zp_binwriter_abort(&w);
    zp_cer_free(&chunk);
    zp_cer_free(&aux);
    zp_cer_secret_free(sec, sizeof *sec);
    explicit_bzero(&resp, sizeof resp);
    explicit_bzero(&next, sizeof next);
    free(cs);
    zp_cer_ptau_close(&pt);
    return st;
}

zp_status zp_ceremony_ptau_contribute(const char *in_path, const char *out_path, const char *name, const char *entropy,
                                      const zp_ceremony_opts *o, uint8_t response[ZP_CEREMONY_HASH_BYTES],
                                      uint8_t next_challenge[ZP_CEREMONY_HASH_BYTES], zp_error *err) {
    return contribute(in_path, out_path, name, entropy != NULL ? entropy : "", NULL, 0, 0, o, response, next_challenge,
                      err);
}

zp_status zp_ceremony_ptau_beacon(const char *in_path, const char *out_path, const char *name, const char *beacon_hex,
                                  unsigned iter_exp, const zp_ceremony_opts *o,
                                  uint8_t response[ZP_CEREMONY_HASH_BYTES],
                                  uint8_t next_challenge[ZP_CEREMONY_HASH_BYTES], zp_error *err) {
    uint8_t beacon[255];
    size_t len = 0;
    zp_status st = zp_cer_beacon_parse(beacon, &len, beacon_hex, iter_exp, err);
    if (st != ZP_OK) return st;
    return contribute(in_path, out_path, name, NULL, beacon, len, iter_exp, o, response, next_challenge, err);
}

/* ---- powers of tau: new ---- */

static void put_copies(zp_binwriter *w, const uint8_t *lem, size_t elem, uint64_t n) {
    uint8_t block[192 * 64];
    for (size_t i = 0; i < 64; i++) memcpy(block + i * elem, lem, elem);
    for (uint64_t i = 0; i < n; i += 64) zp_binwriter_bytes(w, block, (size_t)(n - i < 64 ? n - i : 64) * elem);
}

zp_status zp_ceremony_ptau_new(zp_curve curve, unsigned power, const char *out_path,
                               uint8_t first_hash[ZP_CEREMONY_HASH_BYTES], zp_error *err) {
    const zp_curve_desc *d = zp_curve_get(curve);
    if (d == NULL) return zp_error_set(err, ZP_ERR_ARG, "unknown curve %d", (int)curve);
    if (power < 1 || power + 1 > d->fr_two_adicity) {
        return zp_error_set(err, ZP_ERR_ARG, "power %u out of range for %s (1 to %u)", power, d->name,
                            d->fr_two_adicity - 1);
    }
    const zp_p2_ops *ops = zp_p2_ops_get(curve);
    size_t g1 = d->g1_bytes, g2 = d->g2_bytes;
    zp_binwriter w;
    zp_status st = zp_ptau_hash_load(err);
    if (st == ZP_OK) st = zp_binwriter_open(&w, out_path, "ptau", 1, 7, err);
    if (st != ZP_OK) return st;
    uint64_t n = (uint64_t)1 << power;
    zp_binwriter_begin(&w, 1);
    zp_binwriter_u32(&w, (uint32_t)d->fp_bytes);
    zp_binwriter_bytes(&w, d->fp_modulus, d->fp_bytes);
    zp_binwriter_u32(&w, power);
    zp_binwriter_u32(&w, power); /* snarkjs passes 0, which writePTauHeader takes as power */
    zp_binwriter_end(&w);
    const struct {
        uint32_t id;
        uint64_t count;
        int g2;
    } secs[5] = {{2, 2 * n - 1, 0}, {3, n, 1}, {4, n, 0}, {5, n, 0}, {6, 1, 1}};
    for (int i = 0; i < 5; i++) {
        zp_binwriter_begin(&w, secs[i].id);
        put_copies(&w, secs[i].g2 ? ops->g2_gen : ops->g1_gen, secs[i].g2 ? g2 : g1, secs[i].count);
        zp_binwriter_end(&w);
    }
    zp_binwriter_begin(&w, 7);
    zp_binwriter_u32(&w, 0);
    zp_binwriter_end(&w);
    if ((st = zp_binwriter_close(&w, err)) != ZP_OK) return st;
    if (first_hash != NULL) zp_p1_first_challenge(ops, d, power, first_hash);
    return ZP_OK;
}
