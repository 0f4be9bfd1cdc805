/* snarkjs `powersoftau verify` (ceremony.h), after powersoftau_verify.js
 * 0.7.6: the last contribution against the points, then every earlier
 * one against its predecessor, then a prepared file's Lagrange bases;
 * docs/ceremony.md says what is checked. */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/random.h"
#include "ceremony/ceremony.h"
#include "ceremony/internal.h"
#include "ceremony/ptau_hash.h"
#include "curve/desc.h"
#include "io/binfile.h"
#include "mem/track.h"

/* How a failed check is reported: the contribution (#id and name) and
 * what failed. */
static zp_status invalid(zp_error *err, const char *path, const zp_p1_contribution *c, uint32_t id, const char *what) {
    return zp_error_set(err, ZP_ERR_INVALID, "%s: contribution #%u%s%s%s: %s", path, id, c->name[0] ? " (" : "",
                        c->name, c->name[0] ? ")" : "", what);
}

/* verifyContribution: cur's proofs of knowledge against prev's next
 * challenge (and, for a beacon, its key recomputed from the beacon), and
 * cur's first points as prev's moved by cur's secrets. */
static zp_status verify_contribution(const zp_p2_ops *ops, const zp_curve_desc *d, const char *path,
                                     const zp_p1_contribution *cur, const zp_p1_contribution *prev, uint32_t id,
                                     zp_error *err) {
    size_t g1 = d->g1_bytes, g2 = d->g2_bytes;
    if (cur->type == 1) {
        uint8_t seed[32];
        zp_status st = zp_cer_beacon_seed(seed, cur->beacon, cur->beacon_len, cur->iter_exp, err);
        if (st != ZP_OK) return st;
        zp_chacha rng;
        zp_chacha_seed_be(&rng, seed);
        zp_p1_contribution k;
        uint64_t prv[3][4];
        memset(&k, 0, sizeof k);
        zp_p1_key(ops, d, &k, prv, &rng, prev->next_challenge);
        static const char *const names[3] = {"tau", "alpha", "beta"};
        for (int i = 0; i < 3; i++) {
            if (memcmp(k.key_g1[2 * i], cur->key_g1[2 * i], g1) != 0 ||
                memcmp(k.key_g1[2 * i + 1], cur->key_g1[2 * i + 1], g1) != 0 ||
                memcmp(k.key_g2[i], cur->key_g2[i], g2) != 0) {
                char what[96];
                snprintf(what, sizeof what, "BEACON key (%s) is not generated correctly", names[i]);
                return invalid(err, path, cur, id, what);
            }
        }
    }
    uint8_t sp[3][192];
    for (int i = 0; i < 3; i++) {
        zp_p1_g2sp(ops, d, sp[i], (unsigned)i, prev->next_challenge, cur->key_g1[2 * i], cur->key_g1[2 * i + 1]);
    }
    if (!ops->same_ratio(cur->key_g1[0], cur->key_g1[1], sp[0], cur->key_g2[0]))
        return invalid(err, path, cur, id, "INVALID key (tau): its proof of knowledge fails");
    if (!ops->same_ratio(cur->key_g1[2], cur->key_g1[3], sp[1], cur->key_g2[1]))
        return invalid(err, path, cur, id, "INVALID key (alpha): its proof of knowledge fails");
    if (!ops->same_ratio(cur->key_g1[4], cur->key_g1[5], sp[2], cur->key_g2[2]))
        return invalid(err, path, cur, id, "INVALID key (beta): its proof of knowledge fails");
    if (!ops->same_ratio(prev->tau_g1, cur->tau_g1, sp[0], cur->key_g2[0]))
        return invalid(err, path, cur, id, "INVALID tau*G1: it does not follow the previous contribution");
    if (!ops->same_ratio(cur->key_g1[0], cur->key_g1[1], prev->tau_g2, cur->tau_g2))
        return invalid(err, path, cur, id, "INVALID tau*G2: it does not follow the previous contribution");
    if (!ops->same_ratio(prev->alpha_g1, cur->alpha_g1, sp[1], cur->key_g2[1]))
        return invalid(err, path, cur, id, "INVALID alpha*G1: it does not follow the previous contribution");
    if (!ops->same_ratio(prev->beta_g1, cur->beta_g1, sp[2], cur->key_g2[2]))
        return invalid(err, path, cur, id, "INVALID beta*G1: it does not follow the previous contribution");
    if (!ops->same_ratio(cur->key_g1[4], cur->key_g1[5], prev->beta_g2, cur->beta_g2))
        return invalid(err, path, cur, id, "INVALID beta*G2: it does not follow the previous contribution");
    return ZP_OK;
}

/* Under --budget (o->budget; 0: none) a section is summed a part at a
 * time: the largest power of two of points whose scalars (k, s and the
 * inversion's scratch: 96 bytes a point), pages of the file (two points
 * a point: a Lagrange level and its source, G2 at most) and MSM fit
 * beside a fixed VERIFY_BASE_BYTES (the program, a slice of the mapped
 * file that the point checks hold, the contributions), at least
 * VERIFY_LEAST_PART. */
#define VERIFY_BASE_BYTES ((uint64_t)96 << 20)
#define VERIFY_LEAST_PART ((size_t)64)
static uint64_t part_need(const zp_p2_ops *ops, const zp_curve_desc *d, size_t part, const zp_ceremony_opts *o) {
    const zp_parallel *par = o ? o->par : NULL;
    size_t m1 = ops->lincomb_bytes(part, 0, par), m2 = ops->lincomb_bytes(part, 1, par);
    return VERIFY_BASE_BYTES + (96 + 2 * (uint64_t)d->g2_bytes) * part + (m1 > m2 ? m1 : m2);
}
static size_t part_points(const zp_p2_ops *ops, const zp_curve_desc *d, size_t n, const zp_ceremony_opts *o) {
    if (o == NULL || o->budget == 0) return n;
    size_t part = VERIFY_LEAST_PART;
    while (part < n && part_need(ops, d, 2 * part, o) <= o->budget) part *= 2;
    return part < n ? part : n;
}

/* *acc (affine LEM) += p; first: *acc = p */
static zp_status sum_into(uint8_t acc[192], const uint8_t *p, int first, const zp_p2_ops *ops, size_t elem, int g2,
                          const zp_ceremony_opts *o, zp_error *err) {
    if (first) {
        memcpy(acc, p, elem);
        return ZP_OK;
    }
    uint8_t two[2 * 192];
    uint64_t ones[8] = {1, 0, 0, 0, 1, 0, 0, 0};
    memcpy(two, acc, elem);
    memcpy(two + elem, p, elem);
    return (g2 ? ops->g2_lincomb : ops->g1_lincomb)(acc, two, ones, 2, o ? o->par : NULL, err);
}

/* The powers check of one section (processSection): with random 128-bit
 * r_i, R1 = Σ r_i·P_i and R2 = Σ r_i·P_(i+1) over i < n - 1; P_(i+1) =
 * τ·P_i for every i makes R2 = τ·R1, which the caller checks by a
 * pairing; any other section passes with probability about 2^-128. A
 * part of the points at a time (part_points), their pages let go. */
static zp_status section_sums(uint8_t r1[192], uint8_t r2[192], const zp_cer_ptau *t, const zp_p2_ops *ops,
                              const uint8_t *pts, uint64_t n, int g2, const zp_ceremony_opts *o, zp_error *err) {
    size_t elem = g2 ? t->d->g2_bytes : t->d->g1_bytes;
    zp_tracked sc = {0};
    size_t m = (size_t)(n - 1), part = part_points(ops, t->d, m, o);
    zp_status st = zp_cer_alloc(&sc, (part ? part : 1) * 32, "verification scalars", err);
    if (st != ZP_OK) return st;
    uint64_t *k = sc.p;
    const zp_parallel *par = o ? o->par : NULL;
    zp_status (*lincomb)(uint8_t *, const uint8_t *, const uint64_t *, size_t, const zp_parallel *, zp_error *) =
        g2 ? ops->g2_lincomb : ops->g1_lincomb;
    if (m == 0) { /* empty sums: both at infinity */
        if ((st = lincomb(r1, pts, k, 0, par, err)) == ZP_OK) memcpy(r2, r1, elem);
    }
    for (size_t at = 0; at < m && st == ZP_OK; at += part) {
        size_t c = m - at < part ? m - at : part;
        uint8_t p1[192], p2[192];
        if ((st = zp_cer_random_scalars128(k, c, err)) != ZP_OK) break;
        if ((st = lincomb(p1, pts + at * elem, k, c, par, err)) != ZP_OK ||
            (st = lincomb(p2, pts + (at + 1) * elem, k, c, par, err)) != ZP_OK ||
            (st = sum_into(r1, p1, at == 0, ops, elem, g2, o, err)) != ZP_OK ||
            (st = sum_into(r2, p2, at == 0, ops, elem, g2, o, err)) != ZP_OK)
            break;
        if (part < m) zp_binfile_release(&t->bf, pts + at * elem, c * elem);
    }
    zp_cer_free(&sc);
    return st;
}

/* A prepared file's section lag (12 to 15) holds, level by level, L =
 * lagrange() of the first 2^p points P of its source section (those past
 * the file's taken as zero), so P_j = Σ_i ω^(ij)·L_i. Checked as snarkjs
 * checks it, with 128-bit random k where snarkjs draws 32-bit ones:
 * Σ k_j·P_j = Σ_i s_i·L_i with s = fr_dft(k), two MSMs a level instead of
 * the transform in the exponent (n·log n scalar multiplications: 17 min
 * at 2^16). A level larger than a part (part_points, under a budget)
 * takes k_j = ρ^j for a random ρ, whose s is a geometric series known a
 * term at a time (ops->fr_geometric), and is summed a part at a time.
 * Every point of the section is checked first to be in the prime-order
 * subgroup, where the transform is invertible, so a wrong section passes
 * with probability about 2^-128 (2^-128 + 2^p/r with ρ). */
static zp_status verify_lagrange(const zp_cer_ptau *t, const zp_p2_ops *ops, uint32_t lag, const char *what,
                                 const uint8_t *pts, uint64_t avail, unsigned top, int g2, const zp_ceremony_opts *o,
                                 int *ok, zp_error *err) {
    size_t elem = g2 ? t->d->g2_bytes : t->d->g1_bytes, nmax = (size_t)1 << top, part = part_points(ops, t->d, nmax, o);
    uint64_t count = ((uint64_t)2 << top) - 1;
    const uint8_t *have;
    zp_status st = zp_cer_ptau_points(t, lag, what, count, g2, 0, count, ZP_CER_IN_SUBGROUP, &have, o, err);
    if (st != ZP_OK) return st;
    zp_tracked sc = {0};
    /* whole levels: k; in parts: k, s and the inversion's scratch */
    if ((st = zp_cer_alloc(&sc, (part == nmax ? nmax : 3 * part) * 32, "verification scalars", err)) != ZP_OK)
        return st;
    uint64_t *k = sc.p, *s = part < nmax ? k + 4 * part : NULL, *scratch = part < nmax ? s + 4 * part : NULL;
    const zp_parallel *par = o ? o->par : NULL;
    zp_status (*lincomb)(uint8_t *, const uint8_t *, const uint64_t *, size_t, const zp_parallel *, zp_error *) =
        g2 ? ops->g2_lincomb : ops->g1_lincomb;
    *ok = 1;
    for (unsigned p = 0; st == ZP_OK && p <= top && *ok; p++) {
        size_t n = (size_t)1 << p, copy = n <= avail ? n : (size_t)avail;
        uint8_t lhs[192], rhs[192];
        if (n <= part) { /* the level at once */
            if ((st = zp_cer_random_scalars128(k, n, err)) != ZP_OK) break;
            if ((st = lincomb(lhs, pts, k, copy, par, err)) != ZP_OK) break;
            if ((st = ops->fr_dft(k, p, par, err)) != ZP_OK) break;
            if ((st = lincomb(rhs, have + (n - 1) * elem, k, n, par, err)) != ZP_OK) break;
            *ok = memcmp(lhs, rhs, elem) == 0;
            if (o != NULL && o->budget != 0) { /* the next level reads the source again */
                zp_binfile_release(&t->bf, have + (n - 1) * elem, n * elem);
                zp_binfile_release(&t->bf, pts, copy * elem);
            }
            continue;
        }
        uint64_t rho[4];
        int tries = 0, drawn = 0;
        while (!drawn && tries++ < 8) { /* below 2^252 < r; ρ^n = 1 has n roots of 2^252 */
            if ((st = zp_random_bytes(rho, sizeof rho, err)) != ZP_OK) break;
            rho[3] &= ((uint64_t)1 << 60) - 1;
            drawn = ops->fr_geometric(k, s, 0, 1, p, rho, scratch);
        }
        if (st == ZP_OK && !drawn) { /* a level past the roots: the caller refused it */
            st = zp_error_set(err, ZP_ERR_UNSUPPORTED, "a domain of 2^%u is past the field's", p);
            break;
        }
        for (size_t at = 0; st == ZP_OK && at < n; at += part) {
            uint8_t l[192], r[192];
            (void)ops->fr_geometric(k, s, at, part, p, rho, scratch);
            if (at < copy) {
                size_t c = copy - at < part ? copy - at : part;
                if ((st = lincomb(l, pts + at * elem, k, c, par, err)) != ZP_OK ||
                    (st = sum_into(lhs, l, at == 0, ops, elem, g2, o, err)) != ZP_OK)
                    break;
                zp_binfile_release(&t->bf, pts + at * elem, c * elem);
            }
            if ((st = lincomb(r, have + (n - 1 + at) * elem, s, part, par, err)) != ZP_OK ||
                (st = sum_into(rhs, r, at == 0, ops, elem, g2, o, err)) != ZP_OK)
                break;
            zp_binfile_release(&t->bf, have + (n - 1 + at) * elem, part * elem);
        }
        if (st == ZP_OK) *ok = memcmp(lhs, rhs, elem) == 0;
    }
    zp_cer_free(&sc);
    return st;
}

static void report_contribution(FILE *f, const zp_p1_contribution *c, const zp_p1_contribution *prev, uint32_t id) {
    if (f == NULL) return;
    fprintf(f, "-----------------------------------------------------\n");
    fprintf(f, "Contribution #%u: %s\n", id, c->name);
    zp_ceremony_print_hash(f, "Next Challenge: ", c->next_challenge);
    zp_ceremony_print_hash(f, "Response Hash:", c->response);
    zp_ceremony_print_hash(f, "Challenge Hash:", prev->next_challenge);
    if (c->type == 1) {
        fprintf(f, "Beacon generator: ");
        for (size_t i = 0; i < c->beacon_len; i++) fprintf(f, "%02x", c->beacon[i]);
        fprintf(f, "\nBeacon iterations Exp: %u\n", c->iter_exp);
    }
}

zp_status zp_ceremony_ptau_verify(const char *path, const zp_ceremony_opts *o, FILE *report, zp_error *err) {
    zp_cer_ptau pt;
    zp_p1_contribution *cs = NULL, init;
    uint32_t nc = 0;
    zp_status st = zp_ptau_hash_load(err);
    if (st != ZP_OK) return st;
    if ((st = zp_cer_ptau_open(&pt, path, err)) != ZP_OK) goto out;
    const zp_curve_desc *d = pt.d;
    const zp_p2_ops *ops = zp_p2_ops_get(d->id);
    size_t g1 = d->g1_bytes, g2 = d->g2_bytes;
    unsigned power = pt.power;
    if (pt.ceremony_power < power || pt.ceremony_power > 30) {
        st = zp_error_set(err, ZP_ERR_FORMAT, "%s: section 1 (header): ceremony power %u with power %u", path,
                          pt.ceremony_power, power);
        goto out;
    }
    /* a prepared file's top Lagrange level (tauG1's, 2^(power + 1)) has
     * the field's 2^(power + 1)-th roots in its check: past the two-adic
     * part of r - 1 there are none (ffjavascript's split FFT, not done
     * here). Refused now, not after the powers' hours of work. */
    int prepared;
    if ((st = zp_cer_ptau_lagrange_count(&pt, &prepared, err)) != ZP_OK) goto out;
    if (prepared != 0 && power + 1 > d->fr_two_adicity) {
        st = zp_error_set(err, ZP_ERR_UNSUPPORTED,
                          "%s: a prepared ptau of power %u: its Lagrange bases of 2^%u points are past %s's "
                          "2^%u-th roots of unity, which zkpipe does not check yet",
                          path, power, power + 1, d->name, d->fr_two_adicity);
        goto out;
    }
    uint64_t least = part_need(ops, d, VERIFY_LEAST_PART, o);
    if (o != NULL && o->budget != 0 && o->budget < least) {
        char a[32], b[32];
        st = zp_error_set(err, ZP_ERR_ARG, "powersoftau verify: a budget of %s is below the %s (%llu bytes) it needs",
                          zp_size_text(a, o->budget), zp_size_text(b, least), (unsigned long long)least);
        goto out;
    }
    size_t part = part_points(ops, d, ((size_t)2 << power) - 1, o);
    if (report != NULL && part < ((size_t)2 << power) - 1)
        fprintf(report, "within the budget: sections summed %zu points at a time\n", part);
    if ((st = zp_p1_read_contributions(&pt, &cs, &nc, err)) != ZP_OK) goto out;
    memset(&init, 0, sizeof init);
    memcpy(init.tau_g1, ops->g1_gen, g1);
    memcpy(init.alpha_g1, ops->g1_gen, g1);
    memcpy(init.beta_g1, ops->g1_gen, g1);
    memcpy(init.tau_g2, ops->g2_gen, g2);
    memcpy(init.beta_g2, ops->g2_gen, g2);
    zp_p1_first_challenge(ops, d, pt.ceremony_power, init.next_challenge);
    if (nc == 0) {
        st = zp_error_set(err, ZP_ERR_INVALID, "%s: the file has no contribution: it cannot be used in production",
                          path);
        goto out;
    }
    const zp_p1_contribution *cur = &cs[nc - 1], *prev = nc > 1 ? &cs[nc - 2] : &init;
    if ((st = verify_contribution(ops, d, path, cur, prev, nc, err)) != ZP_OK) goto out;

    /* the points: the powers of the last contribution's secrets */
    uint64_t n = (uint64_t)1 << power;
    const uint8_t *tau1, *tau2, *alpha, *beta, *beta2;
    zp_cer_powers pw;
    if ((st = zp_cer_ptau_powers(&pt, power, &pw, o, err)) != ZP_OK) goto out;
    tau1 = pw.tau_g1, tau2 = pw.tau_g2, alpha = pw.alpha_g1, beta = pw.beta_g1, beta2 = pw.beta_g2;
    uint8_t r1[192], r2[192];
    zp_cer_progress(o, "verify: powers", 0, 4);
    if ((st = section_sums(r1, r2, &pt, ops, tau1, 2 * n - 1, 0, o, err)) != ZP_OK) goto out;
    if (!ops->same_ratio(r1, r2, ops->g2_gen, cur->tau_g2)) {
        st = invalid(err, path, cur, nc, "tauG1 section: the powers do not match");
        goto out;
    }
    if (memcmp(tau1, ops->g1_gen, g1) != 0) {
        st = invalid(err, path, cur, nc, "the first point of tauG1 is not the generator");
        goto out;
    }
    if (memcmp(tau1 + g1, cur->tau_g1, g1) != 0) {
        st = invalid(err, path, cur, nc, "the second point of tauG1 is not the contribution's tauG1");
        goto out;
    }
    zp_cer_progress(o, "verify: powers", 1, 4);
    if ((st = section_sums(r1, r2, &pt, ops, tau2, n, 1, o, err)) != ZP_OK) goto out;
    if (!ops->same_ratio(ops->g1_gen, cur->tau_g1, r1, r2)) {
        st = invalid(err, path, cur, nc, "tauG2 section: the powers do not match");
        goto out;
    }
    if (memcmp(tau2, ops->g2_gen, g2) != 0) {
        st = invalid(err, path, cur, nc, "the first point of tauG2 is not the generator");
        goto out;
    }
    if (memcmp(tau2 + g2, cur->tau_g2, g2) != 0) {
        st = invalid(err, path, cur, nc, "the second point of tauG2 is not the contribution's tauG2");
        goto out;
    }
    zp_cer_progress(o, "verify: powers", 2, 4);
    if ((st = section_sums(r1, r2, &pt, ops, alpha, n, 0, o, err)) != ZP_OK) goto out;
    if (!ops->same_ratio(r1, r2, ops->g2_gen, cur->tau_g2)) {
        st = invalid(err, path, cur, nc, "alphaTauG1 section: the powers do not match");
        goto out;
    }
    if (memcmp(alpha, cur->alpha_g1, g1) != 0) {
        st = invalid(err, path, cur, nc, "the first point of alphaTauG1 is not the contribution's alphaG1");
        goto out;
    }
    zp_cer_progress(o, "verify: powers", 3, 4);
    if ((st = section_sums(r1, r2, &pt, ops, beta, n, 0, o, err)) != ZP_OK) goto out;
    if (!ops->same_ratio(r1, r2, ops->g2_gen, cur->tau_g2)) {
        st = invalid(err, path, cur, nc, "betaTauG1 section: the powers do not match");
        goto out;
    }
    if (memcmp(beta, cur->beta_g1, g1) != 0) {
        st = invalid(err, path, cur, nc, "the first point of betaTauG1 is not the contribution's betaG1");
        goto out;
    }
    zp_cer_progress(o, "verify: powers", 4, 4);
    if (memcmp(beta2, cur->beta_g2, g2) != 0) {
        st = invalid(err, path, cur, nc, "the betaG2 section is not the contribution's betaG2");
        goto out;
    }

    /* the next challenge: the response hash, then every point uncompressed */
    uint8_t next[64];
    {
        zp_ptau_hash h;
        zp_ptau_hash_init(&h);
        zp_ptau_hash_update(&h, cur->response, 64);
        const uint8_t *secs[5] = {tau1, tau2, alpha, beta, beta2};
        const uint64_t counts[5] = {2 * n - 1, n, n, n, 1};
        static const int isg2[5] = {0, 1, 0, 0, 1};
        uint8_t u[64 * 192];
        for (int s = 0; s < 5; s++) {
            size_t elem = isg2[s] ? g2 : g1;
            uint64_t kept = 0; /* the section's pages from point kept on are held */
            for (uint64_t i = 0; i < counts[s]; i += 64) {
                size_t k = (size_t)(counts[s] - i < 64 ? counts[s] - i : 64);
                for (size_t j = 0; j < k; j++) {
                    (isg2[s] ? ops->g2_to_u : ops->g1_to_u)(u + j * elem, secs[s] + (i + j) * elem);
                }
                zp_ptau_hash_update(&h, u, k * elem);
                if ((i + k - kept) * elem >= ZP_CER_SLICE_BYTES || i + k == counts[s]) {
                    zp_binfile_release(&pt.bf, secs[s] + kept * elem, (size_t)(i + k - kept) * elem);
                    kept = i + k;
                }
            }
        }
        zp_ptau_hash_final(&h, next);
    }
    if (power == pt.ceremony_power && memcmp(next, cur->next_challenge, 64) != 0) {
        st = invalid(err, path, cur, nc,
                     "the hash of the points (from its partialHash's response hash) is not its next challenge");
        goto out;
    }
    if (report != NULL) zp_ceremony_print_hash(report, "Next challenge hash: ", next);

    report_contribution(report, cur, prev, nc);
    for (uint32_t i = nc - 1; i-- > 0;) {
        const zp_p1_contribution *c = &cs[i], *p = i > 0 ? &cs[i - 1] : &init;
        if ((st = verify_contribution(ops, d, path, c, p, i + 1, err)) != ZP_OK) goto out;
        report_contribution(report, c, p, i + 1);
    }
    if (report != NULL) fprintf(report, "-----------------------------------------------------\n");

    if (prepared == 0) {
        if (report != NULL) {
            fprintf(report,
                    "this file does not contain phase2 precalculated values: 'zkpipe powersoftau prepare "
                    "phase2' makes them\n");
        }
    } else {
        const struct {
            uint32_t id;
            const char *what;
            const uint8_t *pts;
            uint64_t avail;
            unsigned top;
            int g2;
        } lag[4] = {{12, "lagrange tauG1", tau1, 2 * n - 1, power + 1, 0},
                    {13, "lagrange tauG2", tau2, n, power, 1},
                    {14, "lagrange alphaTauG1", alpha, n, power, 0},
                    {15, "lagrange betaTauG1", beta, n, power, 0}};
        for (int i = 0; i < 4; i++) {
            int ok = 0;
            zp_cer_progress(o, "verify: lagrange", (size_t)i, 4);
            if ((st = verify_lagrange(&pt, ops, lag[i].id, lag[i].what, lag[i].pts, lag[i].avail, lag[i].top, lag[i].g2,
                                      o, &ok, err)) != ZP_OK)
                goto out;
            if (!ok) {
                st = zp_error_set(err, ZP_ERR_INVALID, "%s: section %u (%s) is not the Lagrange basis of the powers",
                                  path, lag[i].id, lag[i].what);
                goto out;
            }
        }
        zp_cer_progress(o, "verify: lagrange", 4, 4);
    }
    if (report != NULL) fprintf(report, "Powers of Tau Ok!\n");
out:
    free(cs);
    zp_cer_ptau_close(&pt);
    return st;
}
