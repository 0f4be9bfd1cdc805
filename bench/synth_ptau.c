/* zkpipe-bench-ptau: a prepared powers-of-tau file (.ptau) for benchmarks,
 * made directly from secrets τ, α, β drawn from a seed, without a ceremony.
 *
 * FOR BENCHMARKS ONLY. Whoever knows the seed knows the file's toxic waste
 * and can forge proofs for every key made from it. It exists so that
 * `zkpipe zkey new`, `zkey contribute` and `zkey verify` can be measured at
 * 2^20..2^24 with a file made in minutes, where `powersoftau contribute`
 * and `prepare phase2` take hours on this machine.
 *
 * The file is what `zkpipe powersoftau new`, one contribution of τ, α, β
 * and `powersoftau prepare phase2` write (src/ceremony/phase1.c), except
 * that section 7 lists no contribution (no reader of a prepared file needs
 * one; `powersoftau verify` refuses the file):
 *    1 header: n8q, q, power, ceremonyPower (= power)
 *    2 tauG1 τ^i·G1, i < 2N - 1 (N = 2^power)    3 tauG2 τ^i·G2, i < N
 *    4 alphaTauG1 α·τ^i·G1, 5 betaTauG1 β·τ^i·G1, i < N; 6 betaG2 β·G2
 *    7 contributions: a count of 0
 *   12 lagrange tauG1: levels k = 0 .. power + 1, 13 lagrange tauG2,
 *   14 lagrange alphaTauG1, 15 lagrange betaTauG1: levels 0 .. power.
 * Level k of a Lagrange section is prepare's inverse FFT of the first
 * m = 2^k points of its source section (ffjavascript's G.ifft, with the
 * NTT's root ω = Fr root_of_unity(k)): out_i = m⁻¹ Σ_j ω^(-ij)·c·τ^j·G,
 * which sums to c·L_i(τ)·G, L_i(τ) = (ω^i/m)·(τ^m - 1)/(τ - ω^i). The top
 * level of section 12 (m = 2N) lacks tauG1's last point τ^(2N-1), which
 * prepare takes as zero (snarkjs's way), so there the scalar is
 * c·(L_i(τ) - m⁻¹·ω^i·τ^(m-1)). Each point is c·s·G for a scalar s of
 * the field: the fixed-base multiplication of src/msm/fixed_base.h, the
 * Lagrange denominators inverted in batches.
 *
 * --level L writes only the points that `zkey new` and `zkey verify` read
 * for a circuit of a 2^L domain (src/ceremony/phase2_new.c): tauG1
 * up to the last point the circuit hash takes, the first points of 4, 5
 * and 6, levels L and L + 1 of section 12 and level L of 13, 14 and 15.
 * The rest of the file is a hole (ftruncate, then pwrite of the needed
 * ranges): a power-25 file for a 2^24 circuit is 9 GB of disk instead of
 * 36. Any other use of such a file reads zeros (points at infinity).
 *
 * --unprepared writes sections 1 to 7 only (what a contribution writes):
 * `zkpipe powersoftau prepare phase2` of it gives the full file byte for
 * byte, which is how this tool is checked.
 *
 * Usage: zkpipe-bench-ptau [--curve bn128|bls12381] [--seed S] [--level L]
 *                          [--threads T] [--unprepared] POWER OUT.ptau
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/clock.h"
#include "curve/curve.h"
#include "curve/desc.h"
#include "engine/pool.h"
#include "field/field.h"
#include "msm/fixed_base.h"
#include "ntt/ntt.h"

#define CHUNK ((size_t)1 << 16) /* points made and written at a time */
#define PIECE ((size_t)1 << 10) /* points per task: one batch inversion each */

/* Either curve's scalar (both 4 limbs), Montgomery form. */
typedef struct fr {
    uint64_t v[4];
} fr;

/* A run of points written as one: points [from, from + count) of section
 * id (of its level k when lagrange), c·τ^i·G or c·L_i(τ)·G. */
typedef struct run {
    uint32_t id;
    int g2;
    int lagrange;
    unsigned k;
    int mult; /* c: 0 one, 1 α, 2 β */
    int cut;  /* the top level of section 12: τ^(m-1) missing */
    uint64_t from, count;
    uint64_t at; /* the file offset of point from */
    /* set by prep: c; for lagrange c·(τ^m - 1)/m, c·τ^(m-1)/m (cut) or
     * 0, and ω */
    fr c, cz, ct, w;
} run;

/* ---- the seed ---- */

static uint64_t rng_state;
static uint64_t rand64(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
/* A plain scalar in [1, r), uniform: r's bits masked, redrawn above. */
static void draw_plain(uint64_t out[4], const zp_curve_desc *d) {
    uint64_t mask = d->fr_bits % 64 ? ((uint64_t)1 << (d->fr_bits % 64)) - 1 : ~(uint64_t)0;
    for (;;) {
        for (int i = 0; i < 4; i++) out[i] = rand64();
        out[3] &= mask;
        int below = 0, zero = !(out[0] | out[1] | out[2] | out[3]);
        for (int i = 3; i >= 0; i--) {
            if (out[i] != d->fr_modulus[i]) {
                below = out[i] < d->fr_modulus[i];
                break;
            }
        }
        if (below && !zero) return;
    }
}

/* ---- one curve's arithmetic (instantiated per curve of ZP_CURVE_LIST) ---- */

typedef struct curve_impl {
    zp_curve id;
    /* τ, α, β drawn in that order; τ redrawn while τ^(2^(power+1)) = 1
     * (a root of unity of a domain would be a zero denominator) */
    void (*secrets)(fr s[3], const zp_curve_desc *d, unsigned power);
    void (*prep)(run *r, const fr s[3]);
    size_t (*table_bytes)(int g2);
    void (*table)(void *t, int g2); /* of the generator */
    /* points lo .. lo + n of r into out (affine LEM); scratch: 4n words of
     * plain scalars, then 3n scalars */
    void (*fill)(const run *r, const fr s[3], uint64_t lo, size_t n, uint8_t *out, const void *table, void *scratch);
} curve_impl;

#define BP_CURVE(cid, g, G)                                                                                         \
    static void g##_bp_secrets(fr s[3], const zp_curve_desc *d, unsigned power) {                                   \
        for (int i = 0; i < 3; i++) {                                                                               \
            g##_fr x, t;                                                                                            \
            uint64_t e = (uint64_t)2 << power;                                                                      \
            do {                                                                                                    \
                draw_plain(x.v, d);                                                                                 \
                g##_fr_to_mont(&x, &x);                                                                             \
                g##_fr_pow_var(&t, &x, &e, 1);                                                                      \
            } while (i == 0 && g##_fr_is_one_var(&t));                                                              \
            memcpy(s[i].v, x.v, 32);                                                                                \
        }                                                                                                           \
    }                                                                                                               \
    static void g##_bp_prep(run *r, const fr s[3]) {                                                                \
        g##_fr tau, c, w, z, t, minv, one;                                                                          \
        memcpy(tau.v, s[0].v, 32);                                                                                  \
        if (r->mult) {                                                                                              \
            memcpy(c.v, s[r->mult].v, 32);                                                                          \
        } else {                                                                                                    \
            g##_fr_set_one(&c);                                                                                     \
        }                                                                                                           \
        memcpy(r->c.v, c.v, 32);                                                                                    \
        if (!r->lagrange) return;                                                                                   \
        uint64_t m = (uint64_t)1 << r->k, e = m - 1;                                                                \
        g##_fr_root_of_unity(&w, r->k);                                                                             \
        g##_fr_set_one(&one);                                                                                       \
        g##_fr_from_u64(&minv, m);                                                                                  \
        g##_fr_inv_var(&minv, &minv);                                                                               \
        g##_fr_pow_var(&z, &tau, &m, 1);                                                                            \
        g##_fr_sub(&z, &z, &one);                                                                                   \
        g##_fr_mul(&z, &z, &minv);                                                                                  \
        g##_fr_mul(&z, &z, &c); /* c·(τ^m - 1)/m */                                                               \
        g##_fr_set_zero(&t);                                                                                        \
        if (r->cut) {                                                                                               \
            g##_fr_pow_var(&t, &tau, &e, 1);                                                                        \
            g##_fr_mul(&t, &t, &minv);                                                                              \
            g##_fr_mul(&t, &t, &c); /* c·τ^(m-1)/m */                                                             \
        }                                                                                                           \
        memcpy(r->cz.v, z.v, 32);                                                                                   \
        memcpy(r->ct.v, t.v, 32);                                                                                   \
        memcpy(r->w.v, w.v, 32);                                                                                    \
    }                                                                                                               \
    static size_t g##_bp_table_bytes(int g2) { return g2 ? g##_g2_fixed_table_size() : g##_g1_fixed_table_size(); } \
    static void g##_bp_table(void *t, int g2) {                                                                     \
        if (g2) {                                                                                                   \
            g##_g2_fixed_table_var(t, &g##_g2_generator);                                                           \
        } else {                                                                                                    \
            g##_g1_fixed_table_var(t, &g##_g1_generator);                                                           \
        }                                                                                                           \
    }                                                                                                               \
    static void g##_bp_fill(const run *r, const fr s[3], uint64_t lo, size_t n, uint8_t *out, const void *table,    \
                            void *scratch) {                                                                        \
        uint64_t *plain = scratch;                                                                                  \
        g##_fr *den = (g##_fr *)(void *)(plain + 4 * n), *wp = den + n, *inv_scratch = wp + n;                      \
        g##_fr tau, x, step;                                                                                        \
        memcpy(tau.v, s[0].v, 32);                                                                                  \
        if (!r->lagrange) { /* c·τ^lo, then one multiplication a point */                                         \
            g##_fr c;                                                                                               \
            memcpy(c.v, r->c.v, 32);                                                                                \
            g##_fr_pow_var(&x, &tau, &lo, 1);                                                                       \
            g##_fr_mul(&x, &x, &c);                                                                                 \
            for (size_t i = 0; i < n; i++) {                                                                        \
                g##_fr p;                                                                                           \
                g##_fr_from_mont(&p, &x);                                                                           \
                memcpy(plain + 4 * i, p.v, 32);                                                                     \
                g##_fr_mul(&x, &x, &tau);                                                                           \
            }                                                                                                       \
        } else { /* ω^i·(c(τ^m - 1)/m · 1/(τ - ω^i) - ct) */                                                  \
            g##_fr cz, ct;                                                                                          \
            memcpy(cz.v, r->cz.v, 32);                                                                              \
            memcpy(ct.v, r->ct.v, 32);                                                                              \
            memcpy(step.v, r->w.v, 32);                                                                             \
            g##_fr_pow_var(&x, &step, &lo, 1);                                                                      \
            for (size_t i = 0; i < n; i++) {                                                                        \
                wp[i] = x;                                                                                          \
                g##_fr_sub(&den[i], &tau, &x);                                                                      \
                g##_fr_mul(&x, &x, &step);                                                                          \
            }                                                                                                       \
            g##_fr_batch_inv_var(den, den, n, inv_scratch);                                                         \
            for (size_t i = 0; i < n; i++) {                                                                        \
                g##_fr p;                                                                                           \
                g##_fr_mul(&p, &cz, &den[i]);                                                                       \
                g##_fr_sub(&p, &p, &ct);                                                                            \
                g##_fr_mul(&p, &p, &wp[i]);                                                                         \
                g##_fr_from_mont(&p, &p);                                                                           \
                memcpy(plain + 4 * i, p.v, 32);                                                                     \
            }                                                                                                       \
        }                                                                                                           \
        if (r->g2) {                                                                                                \
            g##_g2_fixed_mul_var((g##_g2 *)(void *)out, table, plain, n, NULL);                                     \
        } else {                                                                                                    \
            g##_g1_fixed_mul_var((g##_g1 *)(void *)out, table, plain, n, NULL);                                     \
        }                                                                                                           \
    }
ZP_CURVE_LIST(BP_CURVE)

#define BP_IMPL(cid, g, G) {cid, g##_bp_secrets, g##_bp_prep, g##_bp_table_bytes, g##_bp_table, g##_bp_fill},
static const curve_impl impls[] = {ZP_CURVE_LIST(BP_IMPL)};

/* ---- the file ---- */

static const char *out_path;
static int out_fd = -1;
static uint64_t bytes_written;

static int put(const void *p, size_t n, uint64_t at) {
    const uint8_t *b = p;
    while (n > 0) {
        ssize_t w = pwrite(out_fd, b, n, (off_t)at);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            fprintf(stderr, "zkpipe-bench-ptau: %s: cannot write: %s\n", out_path, w < 0 ? strerror(errno) : "0 bytes");
            return 0;
        }
        b += w, n -= (size_t)w, at += (uint64_t)w;
        bytes_written += (uint64_t)w;
    }
    return 1;
}
static void le32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void le64(uint8_t *p, uint64_t v) {
    le32(p, (uint32_t)v);
    le32(p + 4, (uint32_t)(v >> 32));
}

/* ---- making the runs on the pool ---- */

typedef struct fill_job {
    const curve_impl *ci;
    const run *r;
    const fr *s;
    uint64_t lo;
    size_t n, elem;
    uint8_t *out;
    const void *table;
    uint8_t *scratch; /* per worker */
    size_t scratch_bytes;
} fill_job;

static void fill_task(void *arg, size_t t, size_t worker) {
    const fill_job *j = arg;
    size_t lo = t * PIECE, n = j->n - lo < PIECE ? j->n - lo : PIECE;
    j->ci->fill(j->r, j->s, j->lo + lo, n, j->out + lo * j->elem, j->table, j->scratch + worker * j->scratch_bytes);
}

static const char *section_name(uint32_t id) {
    switch (id) {
    case 2: return "tauG1";
    case 3: return "tauG2";
    case 4: return "alphaTauG1";
    case 5: return "betaTauG1";
    case 6: return "betaG2";
    case 12: return "lagrange tauG1";
    case 13: return "lagrange tauG2";
    case 14: return "lagrange alphaTauG1";
    default: return "lagrange betaTauG1";
    }
}

static double peak_rss_mib(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
    return (double)ru.ru_maxrss / 1024.0; /* KiB on Linux */
}

static void usage(FILE *f) {
    fprintf(f,
            "usage: zkpipe-bench-ptau [--curve bn128|bls12381] [--seed S] [--level L] [--threads T]\n"
            "                         [--unprepared] POWER OUT.ptau\n"
            "Writes a powers-of-tau file prepared for phase 2 (sections 1-7 and 12-15, as\n"
            "'zkpipe powersoftau prepare phase2' writes them) for secrets tau, alpha, beta drawn\n"
            "from the seed, without a ceremony.\n"
            "\n"
            "  FOR BENCHMARKS ONLY: its toxic waste is known to anyone with the seed, who can\n"
            "  forge proofs for every key made from it. Never use it for a real key.\n"
            "\n"
            "  --seed S       the secrets' seed (default 1): the same arguments, the same file\n"
            "  --level L      only the points 'zkey new' and 'zkey verify' read for a circuit\n"
            "                 of a 2^L domain (L <= POWER); the rest of the file is a hole\n"
            "  --threads T    worker threads (default: one per CPU)\n"
            "  --unprepared   sections 1-7 only (what 'powersoftau contribute' writes), to\n"
            "                 check this tool against 'zkpipe powersoftau prepare phase2'\n");
}

#define MAX_RUNS 256

int main(int argc, char **argv) {
    const zp_curve_desc *d = zp_curve_get(ZP_CURVE_BN254);
    uint64_t seed = 1;
    long level = -1, power = -1;
    size_t threads = 0;
    int unprepared = 0;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--curve") && i + 1 < argc) {
            if ((d = zp_curve_find(argv[++i])) == NULL) {
                fprintf(stderr, "zkpipe-bench-ptau: unknown curve '%s' (%s)\n", argv[i], ZP_CURVE_NAMES);
                return 2;
            }
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = strtoull(argv[++i], &end, 0);
            if (*end) goto bad;
        } else if (!strcmp(argv[i], "--level") && i + 1 < argc) {
            level = strtol(argv[++i], &end, 10);
            if (*end || level < 1) goto bad;
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            threads = (size_t)strtoul(argv[++i], &end, 10);
            if (*end) goto bad;
        } else if (!strcmp(argv[i], "--unprepared")) {
            unprepared = 1;
        } else if (argv[i][0] != '-' && power < 0) {
            power = strtol(argv[i], &end, 10);
            if (*end) goto bad;
        } else if (argv[i][0] != '-' && out_path == NULL) {
            out_path = argv[i];
        } else {
            goto bad;
        }
    }
    if (out_path == NULL) goto bad;
    if (power < 1 || power > 30 || (unsigned)power + 1 > d->fr_two_adicity) {
        fprintf(stderr, "zkpipe-bench-ptau: POWER must be 1 to %u for %s\n",
                d->fr_two_adicity - 1 < 30 ? d->fr_two_adicity - 1 : 30, d->name);
        return 2;
    }
    if (level > power || (level > 0 && unprepared)) {
        fprintf(stderr, "zkpipe-bench-ptau: --level must be at most POWER, and without --unprepared\n");
        return 2;
    }
    const curve_impl *ci = NULL;
    for (size_t i = 0; i < sizeof impls / sizeof impls[0]; i++) {
        if (impls[i].id == d->id) ci = &impls[i];
    }
    double t0 = zp_clock_now();
    unsigned p = (unsigned)power;
    uint64_t n = (uint64_t)1 << p, all = 2 * n - 1;
    size_t g1 = d->g1_bytes, g2 = d->g2_bytes;

    /* the sections and their offsets: a 12-byte file header, then each
     * section's id (u32) and size (u64) before its data */
    static const uint32_t ids[11] = {1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15};
    uint64_t sizes[11] = {4 + d->fp_bytes + 8, all * g1, n * g2,   n * g1,  n * g1, g2, 4,
                          (2 * all + 1) * g1,  all * g2, all * g1, all * g1};
    int nsec = unprepared ? 7 : 11;
    uint64_t data_at[16] = {0}, at = 12;
    for (int i = 0; i < nsec; i++) {
        data_at[ids[i]] = at + 12;
        at += 12 + sizes[i];
    }
    uint64_t file_size = at;

    /* the runs of points to make */
    static run runs[MAX_RUNS];
    size_t nruns = 0;
#define ADD_RUN(ID, G2, LAG, K, MULT, FROM, COUNT)                                          \
    do {                                                                                    \
        run *r_ = &runs[nruns++];                                                           \
        memset(r_, 0, sizeof *r_);                                                          \
        r_->id = (ID), r_->g2 = (G2), r_->lagrange = (LAG), r_->k = (K), r_->mult = (MULT); \
        r_->cut = (ID) == 12 && (K) == p + 1;                                               \
        r_->from = (FROM), r_->count = (COUNT);                                             \
        uint64_t base_ = (LAG) ? ((uint64_t)1 << (K)) - 1 : 0;                              \
        r_->at = data_at[ID] + (base_ + (FROM)) * ((G2) ? g2 : g1);                         \
    } while (0)
    if (level < 0) {
        ADD_RUN(2, 0, 0, 0, 0, 0, all);
        ADD_RUN(3, 1, 0, 0, 0, 0, n);
        ADD_RUN(4, 0, 0, 0, 1, 0, n);
        ADD_RUN(5, 0, 0, 0, 2, 0, n);
        ADD_RUN(6, 1, 0, 0, 2, 0, 1);
        if (!unprepared) {
            for (unsigned k = 0; k <= p + 1; k++) ADD_RUN(12, 0, 1, k, 0, 0, (uint64_t)1 << k);
            for (unsigned k = 0; k <= p; k++) ADD_RUN(13, 1, 1, k, 0, 0, (uint64_t)1 << k);
            for (unsigned k = 0; k <= p; k++) ADD_RUN(14, 0, 1, k, 1, 0, (uint64_t)1 << k);
            for (unsigned k = 0; k <= p; k++) ADD_RUN(15, 0, 1, k, 2, 0, (uint64_t)1 << k);
        }
    } else {
        /* zkey_new (src/ceremony/phase2_new.c): H's hash takes tauG1 up to
         * dom + hashed, hashed = the chunks of 2^14 over dom - 1 points,
         * the last one not cut */
        unsigned L = (unsigned)level;
        uint64_t dom = (uint64_t)1 << L, chunk = 1 << 14;
        uint64_t per = dom - 1 < chunk ? dom - 1 : chunk, hashed = (dom - 1 + chunk - 1) / chunk * per;
        uint64_t hash_end = dom + hashed < all ? dom + hashed : all;
        ADD_RUN(2, 0, 0, 0, 0, 0, hash_end);
        ADD_RUN(4, 0, 0, 0, 1, 0, 1);
        ADD_RUN(5, 0, 0, 0, 2, 0, 1);
        ADD_RUN(6, 1, 0, 0, 2, 0, 1);
        ADD_RUN(12, 0, 1, L, 0, 0, dom);
        ADD_RUN(12, 0, 1, L + 1, 0, 0, 2 * dom);
        ADD_RUN(13, 1, 1, L, 0, 0, dom);
        ADD_RUN(14, 0, 1, L, 1, 0, dom);
        ADD_RUN(15, 0, 1, L, 2, 0, dom);
    }
#undef ADD_RUN
    uint64_t total = 0;
    for (size_t i = 0; i < nruns; i++) total += runs[i].count;

    /* the secrets, the pool, the tables, the buffers */
    fr s[3];
    rng_state = seed;
    ci->secrets(s, d, p);
    zp_error err = {0};
    zp_pool *pool = NULL;
    if (zp_pool_create(&pool, threads, &err) != ZP_OK) {
        fprintf(stderr, "zkpipe-bench-ptau: %s\n", err.message);
        return 4;
    }
    zp_parallel par = zp_pool_parallel(pool);
    size_t nthreads = zp_pool_threads(pool), scratch_bytes = PIECE * (4 * 8 + 3 * sizeof(fr));
    void *table[2] = {malloc(ci->table_bytes(0)), malloc(ci->table_bytes(1))};
    uint8_t *buf = malloc(CHUNK * g2), *scratch = malloc(nthreads * scratch_bytes);
    if (table[0] == NULL || table[1] == NULL || buf == NULL || scratch == NULL) {
        fprintf(stderr, "zkpipe-bench-ptau: out of memory\n");
        return 4;
    }
    ci->table(table[0], 0);
    ci->table(table[1], 1);

    out_fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out_fd < 0) {
        fprintf(stderr, "zkpipe-bench-ptau: %s: cannot create: %s\n", out_path, strerror(errno));
        return 4;
    }
    if (ftruncate(out_fd, (off_t)file_size) != 0) {
        fprintf(stderr, "zkpipe-bench-ptau: %s: cannot size to %llu bytes: %s\n", out_path,
                (unsigned long long)file_size, strerror(errno));
        return 4;
    }
    int ok = 1;
    {
        uint8_t hdr[12];
        memcpy(hdr, "ptau", 4);
        le32(hdr + 4, 1);
        le32(hdr + 8, (uint32_t)nsec);
        ok &= put(hdr, 12, 0);
        for (int i = 0; i < nsec; i++) {
            le32(hdr, ids[i]);
            le64(hdr + 4, sizes[i]);
            ok &= put(hdr, 12, data_at[ids[i]] - 12);
        }
        uint8_t h1[4 + 48 + 8];
        le32(h1, (uint32_t)d->fp_bytes);
        for (size_t i = 0; i < d->fp_limbs; i++) le64(h1 + 4 + 8 * i, d->fp_modulus[i]);
        le32(h1 + 4 + d->fp_bytes, p);
        le32(h1 + 8 + d->fp_bytes, p); /* ceremonyPower: writePTauHeader's default, power */
        ok &= put(h1, (size_t)sizes[0], data_at[1]);
        uint8_t zero[4] = {0};
        ok &= put(zero, 4, data_at[7]); /* no contributions */
    }

    uint64_t done = 0;
    double last = t0;
    int tty = isatty(2);
    for (size_t ri = 0; ri < nruns && ok; ri++) {
        run *r = &runs[ri];
        ci->prep(r, s);
        size_t elem = r->g2 ? g2 : g1;
        for (uint64_t i = 0; i < r->count && ok; i += CHUNK) {
            size_t m = (size_t)(r->count - i < CHUNK ? r->count - i : CHUNK);
            fill_job job = {ci, r, s, r->from + i, m, elem, buf, table[r->g2], scratch, scratch_bytes};
            zp_parallel_for(&par, (m + PIECE - 1) / PIECE, fill_task, &job);
            ok &= put(buf, m * elem, r->at + i * elem);
            done += m;
            double now = zp_clock_now();
            if (done == total || now - last >= (tty ? 0.2 : 10.0)) {
                last = now;
                char lv[32] = "";
                if (r->lagrange) snprintf(lv, sizeof lv, " 2^%u", r->k);
                fprintf(stderr, "%szkpipe-bench-ptau: %s%s: %llu/%llu points (%.0f%%), %.1f s%s", tty ? "\r" : "",
                        section_name(r->id), lv, (unsigned long long)done, (unsigned long long)total,
                        100.0 * (double)done / (double)total, now - t0, tty ? "   " : "\n");
            }
        }
    }
    if (tty) fputc('\n', stderr);
    double t_made = zp_clock_now() - t0;
    if (ok && fsync(out_fd) != 0) {
        fprintf(stderr, "zkpipe-bench-ptau: %s: cannot sync: %s\n", out_path, strerror(errno));
        ok = 0;
    }
    if (close(out_fd) != 0 && ok) {
        fprintf(stderr, "zkpipe-bench-ptau: %s: cannot close: %s\n", out_path, strerror(errno));
        ok = 0;
    }
    explicit_bzero(s, sizeof s);
    free(table[0]);
    free(table[1]);
    free(buf);
    free(scratch);
    zp_pool_destroy(pool);
    if (!ok) {
        unlink(out_path);
        return 4;
    }
    char what[64];
    if (level < 0) {
        snprintf(what, sizeof what, unprepared ? "unprepared" : "prepared");
    } else {
        snprintf(what, sizeof what, "prepared, the points of a 2^%ld circuit", level);
    }
    printf(
        "%s: %s power %u (%s; FOR BENCHMARKS ONLY: seed %llu), %llu points, %llu of %llu bytes written "
        "in %.2f s (%.2f s with the sync), %zu threads, peak RSS %.1f MiB\n",
        out_path, d->name, p, what, (unsigned long long)seed, (unsigned long long)total,
        (unsigned long long)bytes_written, (unsigned long long)file_size, t_made, zp_clock_now() - t0, nthreads,
        peak_rss_mib());
    return 0;
bad:
    usage(stderr);
    return 2;
}
