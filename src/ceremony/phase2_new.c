/* snarkjs `zkey new` (zkey_new.js), within a budget of memory: the
 * circuit is read in passes over its file (io/r1cs.h) instead of into
 * memory, each point section is composed a range of signals at a time,
 * and the pages of the mapped ptau leave the resident set once a range is
 * done. docs/ceremony.md ("Memory") says what the budget must hold. */
#include <string.h>

#include "base/digest.h"
#include "base/error.h"
#include "ceremony/ceremony.h"
#include "ceremony/internal.h"
#include "curve/desc.h"
#include "io/binfile.h"
#include "io/r1cs.h"
#include "mem/track.h"

static void u32_be(uint8_t out[4], uint32_t v) {
    out[0] = (uint8_t)(v >> 24), out[1] = (uint8_t)(v >> 16), out[2] = (uint8_t)(v >> 8), out[3] = (uint8_t)v;
}

/* What a composed point's terms cost while its range is held: the term
 * (16 bytes), its coefficient (32) and, per signal, its row start (8). */
#define TERM_BYTES (sizeof(zp_p2_term) + 32)
/* Held besides the ranges: the r1cs pages a pass reads before it lets
 * them go (16 MiB, io/r1cs.c), the ptau points being checked
 * (zp_cer_check_points' slice), the coefficient and H buffers, the
 * process itself. */
#define SLACK_BYTES ((uint64_t)96 << 20)
#define COEF_CHUNK 65536 /* §4 entries written at a time */
#define H_CHUNK 16384    /* zkey_new.js's: the H hash must cut where it cuts */

/* One point section's sources: per matrix (A, B, C), where the ptau
 * points its terms scale (the row of the constraint) will be, or NULL;
 * extra: the public signals' one term each (snarkjs's extra rows), at row
 * nc + s. The points are found, and checked, once the budget is known to
 * suffice: until then a source says which levels it reads. */
typedef struct source {
    const uint8_t *const *base[3];
    size_t stride;
    const uint8_t *const *extra;
} source;

typedef struct new_state {
    const zp_p2_ops *ops;
    const zp_curve_desc *d;
    const zp_ceremony_opts *o;
    zp_r1cs_stream *rs;
    zp_cer_ptau *pt;
    uint32_t nc, npub, nv;
    uint64_t dom;
    uint32_t *count[3]; /* per wire, the terms of A, B, C */
    uint64_t budget;    /* 0: no limit */
    uint64_t fixed;     /* what is held all along */
    zp_binwriter *w;
    zp_blake2b *h;
} new_state;

/* ---- §4 and the per-wire counts: one pass ---- */

typedef struct coef_pass {
    new_state *z;
    uint8_t *buf;
    size_t used;
} coef_pass;

static void coef_term(void *arg, int k, uint32_t c, uint32_t wire, const uint64_t coef[4]) {
    coef_pass *cp = arg;
    new_state *z = cp->z;
    z->count[k][wire]++;
    if (k == ZP_R1CS_C) return;
    uint8_t *e = cp->buf + cp->used * 44;
    uint32_t v[3] = {(uint32_t)k, c, wire};
    memcpy(e, v, 12);
    z->ops->coef_r2(e + 12, coef);
    if (++cp->used == COEF_CHUNK) {
        zp_binwriter_bytes(z->w, cp->buf, cp->used * 44);
        cp->used = 0;
    }
}

/* §4: per constraint its A terms then its B terms, then one A term per
 * public signal (snarkjs's extra rows), each value n·R² mod r. */
static zp_status write_coefs(new_state *z, zp_error *err) {
    zp_tracked b = {0};
    zp_status st = zp_cer_alloc(&b, COEF_CHUNK * 44, "coefficients", err);
    if (st != ZP_OK) return st;
    uint64_t count = zp_r1cs_stream_terms(z->rs, ZP_R1CS_A) + zp_r1cs_stream_terms(z->rs, ZP_R1CS_B) + z->npub + 1;
    if (count > UINT32_MAX) {
        st = zp_error_set(err, ZP_ERR_UNSUPPORTED, "zkey new: %llu coefficients, more than a .zkey can list",
                          (unsigned long long)count);
        goto out;
    }
    coef_pass cp = {z, b.p, 0};
    zp_binwriter_begin(z->w, ZP_ZS_COEFS);
    zp_binwriter_u32(z->w, (uint32_t)count);
    zp_cer_progress(z->o, "zkey new: coefficients", 0, 1);
    if ((st = zp_r1cs_stream_pass(z->rs, coef_term, &cp, err)) != ZP_OK) goto out;
    static const uint64_t one[4] = {1, 0, 0, 0};
    for (uint32_t s = 0; s <= z->npub; s++) {
        uint8_t *e = cp.buf + cp.used * 44;
        uint32_t v[3] = {0, z->nc + s, s};
        memcpy(e, v, 12);
        z->ops->coef_r2(e + 12, one);
        if (++cp.used == COEF_CHUNK) {
            zp_binwriter_bytes(z->w, cp.buf, cp.used * 44);
            cp.used = 0;
        }
    }
    zp_binwriter_bytes(z->w, cp.buf, cp.used * 44);
    zp_binwriter_end(z->w);
    zp_cer_progress(z->o, "zkey new: coefficients", 1, 1);
out:
    zp_cer_free(&b);
    return st;
}

/* ---- a point section, a range of signals at a time ---- */

typedef struct collect_pass {
    const source *src;
    uint32_t lo, hi;
    uint64_t *fill; /* per signal of the range, where its next term goes */
    const uint64_t *rows;
    zp_p2_term *terms;
    uint64_t (*coefs)[4];
    int changed; /* a signal got more terms than the counts said */
} collect_pass;

static const uint64_t ONE[4] = {1, 0, 0, 0};

static void collect_term(void *arg, int k, uint32_t c, uint32_t wire, const uint64_t coef[4]) {
    collect_pass *cp = arg;
    if (wire < cp->lo || wire >= cp->hi || cp->src->base[k] == NULL) return;
    uint64_t at = cp->fill[wire - cp->lo];
    if (at >= cp->rows[wire - cp->lo + 1]) {
        cp->changed = 1;
        return;
    }
    cp->fill[wire - cp->lo] = at + 1;
    const uint64_t *kc = NULL;
    if (memcmp(coef, ONE, sizeof ONE) != 0) {
        memcpy(cp->coefs[at], coef, 32);
        kc = cp->coefs[at];
    }
    cp->terms[at] = (zp_p2_term){*cp->src->base[k] + (size_t)c * cp->src->stride, kc};
}

/* The terms signal s has in the section. */
static uint64_t signal_terms(const new_state *z, const source *src, uint32_t s) {
    uint64_t t = 0;
    for (int k = 0; k < 3; k++) t += src->base[k] != NULL ? z->count[k][s] : 0;
    return t + (src->extra != NULL && s <= z->npub);
}

/* The ptau pages a section's terms may touch: every level its sources
 * read (they are let go after each range). */
static uint64_t mapped_bytes(const new_state *z, const source *src) {
    uint64_t b = 0;
    for (int k = 0; k < 3; k++) b += src->base[k] != NULL ? z->dom * src->stride : 0;
    return b;
}

static void release_sources(const new_state *z, const source *src) {
    for (int k = 0; k < 3; k++) {
        if (src->base[k] != NULL) zp_binfile_release(&z->pt->bf, *src->base[k], (size_t)z->dom * src->stride);
    }
}

/* The most a range of this section may hold, or 0 when the budget cannot
 * hold even one signal (*need: what it would take). */
static uint64_t range_room(const new_state *z, const source *src, uint32_t lo, uint32_t hi, size_t elem,
                           uint64_t *need) {
    uint64_t widest = 0;
    for (uint32_t s = lo; s < hi; s++) {
        uint64_t t = signal_terms(z, src, s);
        widest = t > widest ? t : widest;
    }
    uint64_t held = z->fixed + mapped_bytes(z, src);
    uint64_t one = elem + 16 + widest * TERM_BYTES + 3 * 4096; /* page rounding of the three buffers */
    *need = held + one;
    if (z->budget == 0) return UINT64_MAX;
    return z->budget >= *need ? z->budget - held : 0;
}

static zp_status compose_section(new_state *z, uint32_t id, const char *what, uint32_t lo, uint32_t hi, int g2,
                                 const source *src, zp_error *err) {
    size_t elem = g2 ? z->d->g2_bytes : z->d->g1_bytes;
    uint64_t need, room = range_room(z, src, lo, hi, elem, &need);
    if (room == 0) {
        char a[32], b[32];
        return zp_error_set(err, ZP_ERR_ARG, "zkey new: a budget of %s is below the %s the section %s needs",
                            zp_size_text(a, z->budget), zp_size_text(b, need), what);
    }
    uint8_t be[4];
    u32_be(be, hi - lo);
    zp_blake2b_update(z->h, be, 4);
    zp_binwriter_begin(z->w, id);
    zp_status st = ZP_OK;
    for (uint32_t at = lo; at < hi && st == ZP_OK;) {
        /* the range: as many signals as the room holds */
        uint64_t bytes = 16 + 3 * 4096, terms = 0;
        uint32_t end = at;
        while (end < hi) {
            uint64_t t = signal_terms(z, src, end), more = elem + 8 + t * TERM_BYTES;
            if (end > at && bytes + more > room) break;
            bytes += more, terms += t, end++;
        }
        size_t n = end - at;
        zp_tracked rb = {0}, fb = {0}, tb = {0}, cb = {0}, ob = {0};
        if ((st = zp_cer_alloc(&rb, (n + 1) * 8, "term rows", err)) != ZP_OK) goto range_out;
        if ((st = zp_cer_alloc(&fb, n * 8, "term fill", err)) != ZP_OK) goto range_out;
        if ((st = zp_cer_alloc(&tb, terms * sizeof(zp_p2_term), "terms", err)) != ZP_OK) goto range_out;
        if ((st = zp_cer_alloc(&cb, terms * 32, "term coefficients", err)) != ZP_OK) goto range_out;
        if ((st = zp_cer_alloc(&ob, n * elem, what, err)) != ZP_OK) goto range_out;
        uint64_t *rows = rb.p;
        for (size_t i = 0; i < n; i++) rows[i + 1] = rows[i] + signal_terms(z, src, at + (uint32_t)i);
        memcpy(fb.p, rows, n * 8);
        collect_pass cp = {src, at, end, fb.p, rows, tb.p, cb.p, 0};
        if ((st = zp_r1cs_stream_pass(z->rs, collect_term, &cp, err)) != ZP_OK) goto range_out;
        uint64_t *fill = fb.p;
        if (src->extra != NULL) { /* after the matrices' terms, as zkey_new.js adds them */
            for (uint32_t s = at; s < end && s <= z->npub; s++) {
                uint64_t e = fill[s - at]++;
                if (e >= rows[s - at + 1]) {
                    cp.changed = 1;
                    break;
                }
                cp.terms[e] = (zp_p2_term){*src->extra + (size_t)(z->nc + s) * src->stride, NULL};
            }
        }
        for (size_t i = 0; i < n && !cp.changed; i++) cp.changed = fill[i] != rows[i + 1];
        if (cp.changed) {
            st = zp_error_set(err, ZP_ERR_FORMAT, "zkey new: the circuit's file changed while it was read");
            goto range_out;
        }
        z->ops->compose(ob.p, n, rows, tb.p, g2, z->o ? z->o->par : NULL);
        zp_binwriter_bytes(z->w, ob.p, n * elem);
        uint8_t u[192];
        for (size_t i = 0; i < n; i++) {
            if (g2) {
                z->ops->g2_to_u(u, (uint8_t *)ob.p + i * elem);
            } else {
                z->ops->g1_to_u(u, (uint8_t *)ob.p + i * elem);
            }
            zp_blake2b_update(z->h, u, elem);
        }
        release_sources(z, src);
        zp_cer_progress(z->o, what, end - lo, hi - lo);
        at = end;
    range_out:
        zp_cer_free(&ob);
        zp_cer_free(&cb);
        zp_cer_free(&tb);
        zp_cer_free(&fb);
        zp_cer_free(&rb);
    }
    zp_binwriter_end(z->w);
    return st;
}

/* §9, H: the odd points of the 2·dom Lagrange basis; hashed as zkey_new.js
 * does, by the differences τ^(i+dom) − τ^i of the plain powers, in chunks
 * of 2^14 whose last is not cut (so dom points are hashed above 2^14,
 * dom − 1 below), each chunk's pages let go once read. past: the bytes
 * after tauG1 in the file, which zkey_new.js reads as τ^(2·dom − 1) when
 * the domain is the ptau's power (NULL: not needed, or not in the file:
 * the hash then stops at tauG1's end, as verify's inexact case takes it). */
static zp_status write_h(new_state *z, const uint8_t *l2, const uint8_t *tau_g1, uint64_t all, const uint8_t *past,
                         zp_error *err) {
    size_t g1 = z->d->g1_bytes;
    uint64_t dom = z->dom, per = dom - 1 < H_CHUNK ? dom - 1 : H_CHUNK;
    zp_tracked b = {0};
    zp_status st = zp_cer_alloc(&b, H_CHUNK * g1 + 1, "H", err);
    if (st != ZP_OK) return st;
    uint8_t *buf = b.p;
    zp_binwriter_begin(z->w, ZP_ZS_H);
    for (uint64_t i = 0; i < dom; i += H_CHUNK) {
        uint64_t k = dom - i < H_CHUNK ? dom - i : H_CHUNK;
        for (uint64_t j = 0; j < k; j++) memcpy(buf + j * g1, l2 + (2 * (i + j) + 1) * g1, g1);
        zp_binwriter_bytes(z->w, buf, k * g1);
        zp_binfile_release(&z->pt->bf, l2 + 2 * i * g1, 2 * k * g1);
    }
    zp_binwriter_end(z->w);
    uint8_t be[4];
    u32_be(be, (uint32_t)(dom - 1));
    zp_blake2b_update(z->h, be, 4);
    for (uint64_t i = 0; i < dom - 1; i += H_CHUNK) {
        uint64_t k = i + dom + per <= all ? per : all - i - dom; /* what tauG1 has */
        z->ops->g1_sub_to_u(buf, tau_g1 + (i + dom) * g1, tau_g1 + i * g1, k);
        if (k < per && past != NULL) {
            /* the one point past tauG1 (k = per - 1 here), taken as
             * ffjavascript takes those bytes */
            z->ops->g1_sub_past_to_u(buf + k * g1, past, tau_g1 + (i + k) * g1);
            k++;
        }
        zp_blake2b_update(z->h, buf, k * g1);
        zp_binfile_release(&z->pt->bf, tau_g1 + i * g1, k * g1);
        zp_binfile_release(&z->pt->bf, tau_g1 + (i + dom) * g1, k * g1);
    }
    zp_cer_free(&b);
    return ZP_OK;
}

static unsigned js_log2(uint32_t v) {
    unsigned r = 0;
    while (v >>= 1) r++;
    return r;
}

zp_status zp_p2_zkey_new(const char *r1cs_path, const char *ptau_path, const char *out_path, const zp_ceremony_opts *o,
                         uint8_t cs_hash_out[64], int *inexact, zp_error *err) {
    zp_cer_ptau pt;
    zp_binwriter w = {0};
    int writing = 0;
    zp_blake2b h = {0};
    zp_tracked counts = {0};
    new_state z = {.o = o, .pt = &pt, .w = &w, .h = &h, .budget = o ? o->budget : 0};
    zp_status st = zp_cer_ptau_open(&pt, ptau_path, err);
    if (st != ZP_OK) goto out;
    if ((st = zp_r1cs_stream_open(&z.rs, r1cs_path, err)) != ZP_OK) goto out;
    const zp_r1cs_header *rh = zp_r1cs_stream_header(z.rs);
    const zp_curve_desc *d = z.d = pt.d;
    if (rh->curve != d->id) {
        st = zp_error_set(err, ZP_ERR_MISMATCH, "%s is a %s circuit but %s is a %s powers of tau", r1cs_path,
                          zp_curve_name(rh->curve), ptau_path, d->name);
        goto out;
    }
    const zp_p2_ops *ops = z.ops = zp_p2_ops_get(d->id);
    uint32_t nc = z.nc = rh->n_constraints, npub = z.npub = rh->n_pub_out + rh->n_pub_in, nv = z.nv = rh->n_wires;
    if (npub >= nv) {
        st = zp_error_set(err, ZP_ERR_FORMAT, "%s: %u public signals of %u wires", r1cs_path, npub, nv);
        goto out;
    }
    unsigned cir_power = js_log2(nc + npub) + 1;
    if (cir_power > pt.power) {
        st = zp_error_set(err, ZP_ERR_MISMATCH,
                          "%s: powers of tau too small for %s: %u constraints + %u public need 2^%u, the ptau has "
                          "2^%u",
                          ptau_path, r1cs_path, nc, npub, cir_power, pt.power);
        goto out;
    }
    if (cir_power >= d->fr_two_adicity) {
        st = zp_error_set(err, ZP_ERR_UNSUPPORTED, "%s: a 2^%u domain is too large for %s", r1cs_path, cir_power,
                          d->title);
        goto out;
    }
    size_t g1 = d->g1_bytes, g2 = d->g2_bytes;
    uint64_t dom = z.dom = (uint64_t)1 << cir_power, all = ((uint64_t)2 << pt.power) - 1;
    /* zkey_new.js hashes H's points in chunks of 2^14 whose last is not
     * cut: above 2^14 it hashes dom differences τ^(i+dom) − τ^i, and when
     * the domain is the ptau's power the last one reads past tauG1 into
     * the next section's bytes, which its wasm arithmetic turns into a
     * point (write_h, ops->g1_sub_past_to_u). */
    uint64_t per = dom - 1 < H_CHUNK ? dom - 1 : H_CHUNK, hashed = (dom - 1 + H_CHUNK - 1) / H_CHUNK * per;
    const uint8_t *past = NULL;
    if (dom + hashed > all) {
        /* one point (dom + hashed = all + 1 only) read after tauG1's end:
         * in a ptau as snarkjs writes it, the next section's header and
         * its first bytes */
        const uint8_t *p;
        uint64_t n;
        if ((st = zp_binfile_section(&pt.bf, 2, "tauG1", 1, &p, &n, err)) != ZP_OK) goto out;
        if (dom + hashed == all + 1 && n == all * d->g1_bytes &&
            (uint64_t)(pt.bf.data + pt.bf.size - (p + n)) >= d->g1_bytes)
            past = p + n;
        else if (inexact == NULL) {
            st = zp_error_set(err, ZP_ERR_UNSUPPORTED,
                              "%s: a 2^%u circuit on a 2^%u powers of tau: snarkjs's circuit hash here reads "
                              "bytes past the ptau's tauG1 (zkey_new.js), and %s ends there; use a ptau of power "
                              "%u or more",
                              r1cs_path, cir_power, pt.power, ptau_path, cir_power + 1);
            goto out;
        } else {
            *inexact = 1;
        }
    }
    /* what is held all along: the per-wire counts and the slack */
    z.fixed = zp_track_round((size_t)nv * 12) + SLACK_BYTES;
    /* the points read: tauG1's up to the last the hash of H takes, the
     * first of alpha, beta and betaG2, the Lagrange bases of the domain
     * (and of 2·domain for tauG1, whose odd points are H); the large ones
     * are checked after §4, once the budget is known to suffice */
    const uint8_t *tau_g1, *alpha1, *beta1, *beta2, *lag[4];
    uint64_t hash_end = dom + hashed < all ? dom + hashed : all;
    if ((st = zp_cer_ptau_points(&pt, 4, "alphaTauG1", all / 2 + 1, 0, 0, 1, ZP_CER_IN_SUBGROUP, &alpha1, o, err)) !=
        ZP_OK)
        goto out;
    if ((st = zp_cer_ptau_points(&pt, 5, "betaTauG1", all / 2 + 1, 0, 0, 1, ZP_CER_IN_SUBGROUP, &beta1, o, err)) !=
        ZP_OK)
        goto out;
    if ((st = zp_cer_ptau_points(&pt, 6, "betaG2", 1, 1, 0, 1, ZP_CER_IN_SUBGROUP, &beta2, o, err)) != ZP_OK) goto out;
    {
        const uint8_t *p;
        uint64_t n;
        if ((st = zp_binfile_section(&pt.bf, 12, "lagrange tauG1", 0, &p, &n, err)) != ZP_OK) goto out;
        if (p == NULL) {
            st = zp_error_set(err, ZP_ERR_MISMATCH,
                              "%s: not prepared for phase 2 (no section 12; run 'powersoftau prepare phase2')",
                              ptau_path);
            goto out;
        }
    }

    if ((st = zp_cer_alloc(&counts, (size_t)nv * 12, "per-wire term counts", err)) != ZP_OK) goto out;
    for (int k = 0; k < 3; k++) z.count[k] = (uint32_t *)counts.p + (size_t)k * nv;
    if ((st = zp_blake2b_init(&h, err)) != ZP_OK) goto out;
    if ((st = zp_binwriter_open(&w, out_path, "zkey", 1, 10, err)) != ZP_OK) goto out;
    writing = 1;
    zp_binwriter_begin(&w, ZP_ZS_PROTOCOL);
    zp_binwriter_u32(&w, 1);
    zp_binwriter_end(&w);

    zp_binwriter_begin(&w, ZP_ZS_HEADER);
    zp_binwriter_u32(&w, (uint32_t)d->fp_bytes);
    zp_binwriter_bytes(&w, d->fp_modulus, d->fp_bytes);
    zp_binwriter_u32(&w, (uint32_t)d->fr_bytes);
    zp_binwriter_bytes(&w, d->fr_modulus, d->fr_bytes);
    zp_binwriter_u32(&w, nv);
    zp_binwriter_u32(&w, npub);
    zp_binwriter_u32(&w, (uint32_t)dom);
    const uint8_t *hdr[6] = {alpha1, beta1, beta2, ops->g2_gen, ops->g1_gen, ops->g2_gen};
    const int hdr_g2[6] = {0, 0, 1, 1, 0, 1};
    uint8_t u[192];
    for (int i = 0; i < 6; i++) {
        zp_binwriter_bytes(&w, hdr[i], hdr_g2[i] ? g2 : g1);
        if (hdr_g2[i]) {
            ops->g2_to_u(u, hdr[i]);
        } else {
            ops->g1_to_u(u, hdr[i]);
        }
        zp_blake2b_update(&h, u, hdr_g2[i] ? g2 : g1);
    }
    zp_binwriter_end(&w);

    if ((st = write_coefs(&z, err)) != ZP_OK) goto out;
    /* IC and C: β·A + α·B + C of each signal, the public ones (IC) with
     * their extra row; A with its extra row; B in G1 and G2 */
    const uint8_t *l_tau = NULL, *l_tau2 = NULL, *l_alpha = NULL, *l_beta = NULL;
    const source s_ic = {{&l_beta, &l_alpha, &l_tau}, g1, &l_beta};
    const source s_c = {{&l_beta, &l_alpha, &l_tau}, g1, NULL};
    const source s_a = {{&l_tau, NULL, NULL}, g1, &l_tau};
    const source s_b1 = {{NULL, &l_tau, NULL}, g1, NULL};
    const source s_b2 = {{NULL, &l_tau2, NULL}, g2, NULL};
    const struct {
        uint32_t id;
        const char *what;
        uint32_t from, to;
        int g2;
        const source *src;
    } sec[5] = {{ZP_ZS_IC, "zkey new: IC", 0, npub + 1, 0, &s_ic},
                {ZP_ZS_C, "zkey new: C", npub + 1, nv, 0, &s_c},
                {ZP_ZS_A, "zkey new: A", 0, nv, 0, &s_a},
                {ZP_ZS_B1, "zkey new: B1", 0, nv, 0, &s_b1},
                {ZP_ZS_B2, "zkey new: B2", 0, nv, 1, &s_b2}};
    /* the budget's minimum, now that each signal's terms are known: the
     * section that needs most, one signal at a time */
    uint64_t least = 0, need;
    for (int i = 0; i < 5; i++) {
        (void)range_room(&z, sec[i].src, sec[i].from, sec[i].to, sec[i].g2 ? g2 : g1, &need);
        least = need > least ? need : least;
    }
    if (z.budget != 0 && z.budget < least) {
        char a[32], b[32];
        st = zp_error_set(err, ZP_ERR_ARG,
                          "zkey new: a budget of %s is below the minimum for %s (2^%u domain, %u wires): %s",
                          zp_size_text(a, z.budget), r1cs_path, cir_power, nv, zp_size_text(b, least));
        goto out;
    }
    /* tauG1 only goes into the hash of H, as differences of two points,
     * and the 2·domain basis (prepare phase2 writes the Lagrange bases of
     * 2^0 .. 2^power points, and for tauG1 one level more) only into H,
     * copied: on their curve is all the bytes need. The rest is
     * multiplied. At 2^16 on BLS12-381 this is 57% fewer subgroup tests,
     * which were two thirds of the step. */
    if ((st = zp_cer_ptau_points(&pt, 2, "tauG1", all, 0, 0, hash_end, ZP_CER_ON_CURVE, &tau_g1, o, err)) != ZP_OK)
        goto out;
    if ((st = zp_cer_ptau_points(&pt, 12, "lagrange tauG1", 2 * all + 1, 0, dom - 1, dom, ZP_CER_IN_SUBGROUP, &lag[0],
                                 o, err)) != ZP_OK ||
        (st = zp_cer_ptau_points(&pt, 12, "lagrange tauG1", 2 * all + 1, 0, 2 * dom - 1, 2 * dom, ZP_CER_ON_CURVE,
                                 &lag[0], o, err)) != ZP_OK)
        goto out;
    if ((st = zp_cer_ptau_points(&pt, 13, "lagrange tauG2", all, 1, dom - 1, dom, ZP_CER_IN_SUBGROUP, &lag[1], o,
                                 err)) != ZP_OK)
        goto out;
    if ((st = zp_cer_ptau_points(&pt, 14, "lagrange alphaTauG1", all, 0, dom - 1, dom, ZP_CER_IN_SUBGROUP, &lag[2], o,
                                 err)) != ZP_OK)
        goto out;
    if ((st = zp_cer_ptau_points(&pt, 15, "lagrange betaTauG1", all, 0, dom - 1, dom, ZP_CER_IN_SUBGROUP, &lag[3], o,
                                 err)) != ZP_OK)
        goto out;
    l_tau = lag[0] + (dom - 1) * g1, l_tau2 = lag[1] + (dom - 1) * g2;
    l_alpha = lag[2] + (dom - 1) * g1, l_beta = lag[3] + (dom - 1) * g1;
    /* IC, then H, then C, A, B1, B2: zkey_new.js's order of the file and
     * the hash */
    for (int i = 0; i < 5; i++) {
        if (i == 1 && (st = write_h(&z, lag[0] + (2 * dom - 1) * g1, tau_g1, all, past, err)) != ZP_OK) goto out;
        if ((st = compose_section(&z, sec[i].id, sec[i].what, sec[i].from, sec[i].to, sec[i].g2, sec[i].src, err)) !=
            ZP_OK)
            goto out;
    }
    uint8_t cs_hash[64];
    zp_blake2b_final(&h, cs_hash);
    zp_binwriter_begin(&w, ZP_ZS_CONTRIB);
    zp_binwriter_bytes(&w, cs_hash, 64);
    zp_binwriter_u32(&w, 0);
    zp_binwriter_end(&w);
    writing = 0;
    if ((st = zp_binwriter_close(&w, err)) != ZP_OK) goto out;
    if (cs_hash_out != NULL) memcpy(cs_hash_out, cs_hash, 64);
out:
    if (writing) zp_binwriter_abort(&w);
    zp_blake2b_abort(&h);
    zp_cer_free(&counts);
    zp_r1cs_stream_close(z.rs);
    zp_cer_ptau_close(&pt);
    return st;
}
