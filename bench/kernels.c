/* zkpipe-bench-kernels: times the arithmetic kernels and prints one table
 * (and, with --json, writes it as JSON).
 *
 * Every figure is the median of --runs repetitions with their min and max.
 * For the MSMs and NTTs the table also gives a lower bound and the
 * efficiency bound/median; the bound is what the operation would take if
 * every core did nothing but field multiplications at the measured
 * throughput (the "field mul" rows, 8 independent chains):
 *
 *   MSM, n points, scalars of b bits, window c (the cost model's choice),
 *   W = ceil((b+1)/c) signed windows: every nonzero window digit costs one
 *   bucket addition and every window a reduction of 2^(c-1) buckets
 *   (2 additions per bucket). An addition is counted at 6 multiplications
 *   of the coordinate field, the cost of an affine addition whose
 *   inversion is shared by a batch (3 for the batch inversion, 1 for the
 *   slope, 1 square, 1 for y), the cheapest form known. For circom-like
 *   scalars each scalar is counted at its own length: a 0 costs nothing,
 *   a 1 one addition, others ceil((bits+1)/c) additions.
 *     bound = adds · 6 · t_mul(coordinate field) / cores
 *   NTT of size n = 2^k: radix-2 needs (n/2)·k multiplications
 *     bound = (n/2)·k · t_mul(Fr) / cores
 *   with t_mul the eight-lane IFMA multiplication's time per element (the
 *   "IFMA x8" rows) where the CPU has it, the scalar one for the
 *   "(scalar)" rows (the same transforms with that path turned off);
 *   the same for the MSMs, whose batch-affine additions run on the IFMA
 *   lanes (an extension-field multiplication counted as 3 lane ones), and
 *   whose "(scalar)" rows, at the largest size, run without;
 *   (radix-4 saves a quarter of those, so efficiency can pass 100%).
 *   to_coset (the prover's inverse NTT, coset shift, forward NTT): two
 *   transforms plus n multiplications for the shift and 1/n scaling.
 *
 * Usage: zkpipe-bench-kernels [--runs N] [--threads N] [--max-log K]
 *                             [--only field|msm|ntt] [--json FILE]
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/parallel.h"
#include "engine/pool.h"
#include "field/fma.h"
#include "field/ifma.h"
#include "mem/large.h"
#include "msm/msm.h"
#include "ntt/ntt.h"
#include "ntt/ntt_simd.h"
#include "stats.h"

/* ---- options, timing, results ---- */

static size_t opt_runs = 5, opt_threads = 0;
static unsigned opt_min_log = 16, opt_max_log = 20;
static const char *opt_only = NULL, *opt_json = NULL;
static int have_simd; /* the CPU has the NTT's IFMA path */
static zp_simd lanes; /* the MSM's: IFMA, AVX2 (BN254 G1 only) or OFF */

static json_t *json_rows;

/* Prints one row (and adds it to the JSON) and returns its median:
 * samples sorted, in unit ("ns" or "ms"); bound 0 = none. */
static double report(const char *name, const char *size, const char *unit, double *samples, size_t runs, double bound) {
    double median = bench_median(samples, runs), min = samples[0], max = samples[runs - 1];
    printf("%-34s %-6s %10.3f %10.3f %10.3f %-3s", name, size, median, min, max, unit);
    if (bound > 0) printf(" %10.3f %5.0f%%", bound, 100.0 * bound / median);
    printf("\n");
    fflush(stdout);
    json_t *o = json_pack("{s:s, s:s, s:s, s:f, s:f, s:f, s:I}", "name", name, "size", size, "unit", unit, "median",
                          median, "min", min, "max", max, "runs", (json_int_t)runs);
    if (bound > 0) {
        json_object_set_new(o, "lower_bound", json_real(bound));
        json_object_set_new(o, "efficiency", json_real(bound / median));
    }
    json_array_append_new(json_rows, o);
    return median;
}

/* xorshift, seeded from the clock: inputs differ every run */
static uint64_t rng_state;
static uint64_t rand64(void) {
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

static void rand_scalar(uint64_t k[4], const uint64_t m[4]) {
    do {
        for (int i = 0; i < 4; i++) k[i] = rand64();
        k[3] &= (1ULL << 63) - 1;
    } while (!zp_limbs_lt_var(k, m, 4));
}

/* circom-like witness: 40% zeros, 40% ones, 10% below 2^16, 5% below 2^64,
 * 5% full size; the proportions of the Poseidon benchmark circuit's
 * witness are similar (most wires of linear layers are 0/1 selectors) */
static unsigned fill_circom_like(uint64_t *k, const uint64_t m[4]) {
    uint64_t r = rand64() % 100;
    memset(k, 0, 32);
    if (r < 40) return 0;
    if (r < 80) {
        k[0] = 1;
        return 1;
    }
    if (r < 90) k[0] = rand64() % 65536;
    else if (r < 95) k[0] = rand64();
    else rand_scalar(k, m);
    unsigned bits = 0;
    for (int i = 3; i >= 0; i--) {
        if (k[i]) {
            bits = 64 * (unsigned)i + 64 - (unsigned)__builtin_clzll(k[i]);
            break;
        }
    }
    return bits;
}

enum {
    F_BN_FP,
    F_BN_FR,
    F_BN_FP2,
    F_BLS_FP,
    F_BLS_FR,
    F_BLS_FP2,
    F_BN_FR_IFMA,
    F_BLS_FR_IFMA,
    F_BN_FP_IFMA,
    F_BLS_FP_IFMA,
    F_BN_FP2_IFMA,
    F_BLS_FP2_IFMA,
    F_COUNT
};
static double t_mul_ns[F_COUNT]; /* measured by the field rows, for the bounds */

/* ---- field multiplication and inversion ---- */

/* mul and sqr: 8 independent chains; inv (Fermat) and inv_var (safegcd):
 * one chain x = x^-1 + y, the addition so that the variable-time
 * inversion never sees the same value twice */
#define CHAINS 8
#define FIELD_BENCH(F, SEED, ID, NAME)                                      \
    static void bench_field_##F(void) {                                     \
        F x[CHAINS], y;                                                     \
        const size_t iters = 1 << 20, inv_iters = 1 << 12;                  \
        double mul[64], sqr[64], inv[64], inv_var[64];                      \
        for (size_t r = 0; r < opt_runs; r++) {                             \
            for (int c = 0; c < CHAINS; c++) SEED(&x[c]);                   \
            SEED(&y);                                                       \
            double t0 = zp_clock_now();                                     \
            for (size_t i = 0; i < iters; i++)                              \
                for (int c = 0; c < CHAINS; c++) F##_mul(&x[c], &x[c], &y); \
            double t1 = zp_clock_now();                                     \
            for (size_t i = 0; i < iters; i++)                              \
                for (int c = 0; c < CHAINS; c++) F##_sqr(&x[c], &x[c]);     \
            double t2 = zp_clock_now();                                     \
            for (size_t i = 0; i < inv_iters; i++) {                        \
                F##_inv(&x[0], &x[0]);                                      \
                F##_add(&x[0], &x[0], &y);                                  \
            }                                                               \
            double t3 = zp_clock_now();                                     \
            for (size_t i = 0; i < inv_iters; i++) {                        \
                F##_inv_var(&x[0], &x[0]);                                  \
                F##_add(&x[0], &x[0], &y);                                  \
            }                                                               \
            double t4 = zp_clock_now();                                     \
            /* keep the chains alive */                                     \
            volatile uint64_t sink = *(const uint64_t *)&x[0];              \
            (void)sink;                                                     \
            mul[r] = (t1 - t0) * 1e9 / (double)(iters * CHAINS);            \
            sqr[r] = (t2 - t1) * 1e9 / (double)(iters * CHAINS);            \
            inv[r] = (t3 - t2) * 1e9 / (double)inv_iters;                   \
            inv_var[r] = (t4 - t3) * 1e9 / (double)inv_iters;               \
        }                                                                   \
        t_mul_ns[ID] = report(NAME " mul", "1", "ns", mul, opt_runs, 0);    \
        report(NAME " sqr", "1", "ns", sqr, opt_runs, 0);                   \
        report(NAME " inv", "1", "ns", inv, opt_runs, 0);                   \
        report(NAME " inv_var", "1", "ns", inv_var, opt_runs, 0);           \
    }

#define SEED_BASE(F) \
    static void seed_##F(F *x) { F##_from_u64(x, rand64()); }
#define SEED_EXT(F, B)                  \
    static void seed_##F(F *x) {        \
        B##_from_u64(&x->c0, rand64()); \
        B##_from_u64(&x->c1, rand64()); \
    }
SEED_BASE(zp_bn254_fp)
SEED_BASE(zp_bn254_fr)
SEED_BASE(zp_bls12_fp)
SEED_BASE(zp_bls12_fr)
SEED_EXT(zp_bn254_fp2, zp_bn254_fp)
SEED_EXT(zp_bls12_fp2, zp_bls12_fp)

FIELD_BENCH(zp_bn254_fp, seed_zp_bn254_fp, F_BN_FP, "field bn254 Fp")
FIELD_BENCH(zp_bn254_fr, seed_zp_bn254_fr, F_BN_FR, "field bn254 Fr")
FIELD_BENCH(zp_bn254_fp2, seed_zp_bn254_fp2, F_BN_FP2, "field bn254 Fp2")
FIELD_BENCH(zp_bls12_fp, seed_zp_bls12_fp, F_BLS_FP, "field bls12-381 Fp")
FIELD_BENCH(zp_bls12_fr, seed_zp_bls12_fr, F_BLS_FR, "field bls12-381 Fr")
FIELD_BENCH(zp_bls12_fp2, seed_zp_bls12_fp2, F_BLS_FP2, "field bls12-381 Fp2")

/* The eight-lane IFMA multiplication (field/ifma.h), per element: 8
 * independent chains of 8 lanes, as the scalar rows run 8 chains. For the
 * quadratic extensions the bound counts 3 of these (Karatsuba; the
 * additions left out). */
static void bench_field_ifma(const uint64_t *modulus, size_t nw, void (*seed)(uint64_t *), int id, const char *name) {
    zp_ifma_field f;
    zp_ifma_field_init(&f, modulus, nw);
    uint64_t vals[9 * 8 * 6];
    const size_t iters = 1 << 16;
    double mul[64];
    for (size_t r = 0; r < opt_runs; r++) {
        for (size_t i = 0; i < 9 * 8; i++) seed(vals + i * nw);
        double t0 = zp_clock_now();
        zp_ifma_mul_chains(&f, nw, vals, iters);
        mul[r] = (zp_clock_now() - t0) * 1e9 / (double)(iters * 8 * 8);
    }
    t_mul_ns[id] = report(name, "1", "ns", mul, opt_runs, 0);
}
/* The four-lane FP64 FMA product (field/fma.h), per element: zp_fma_mul
 * over 64 values in place, their conversion from and to words included,
 * as a caller with data in the scalar form pays it. No bound uses it
 * (no kernel runs on it yet). */
static void bench_field_fma(const uint64_t *modulus, void (*seed)(uint64_t *), const char *name) {
    zp_ifma_field f;
    zp_ifma_field_init(&f, modulus, 4);
    uint64_t x[64 * 4], y[64 * 4];
    const size_t iters = 1 << 14;
    double mul[64];
    for (size_t r = 0; r < opt_runs; r++) {
        for (size_t i = 0; i < 64; i++) {
            seed(x + 4 * i);
            seed(y + 4 * i);
        }
        double t0 = zp_clock_now();
        for (size_t i = 0; i < iters; i++) zp_fma_mul(&f, x, x, y, 64);
        mul[r] = (zp_clock_now() - t0) * 1e9 / (double)(iters * 64);
    }
    report(name, "1", "ns", mul, opt_runs, 0);
}
static void seed_bn_fp_limbs(uint64_t *v) { seed_zp_bn254_fp((zp_bn254_fp *)v); }
static void seed_bn_fr_limbs(uint64_t *v) { seed_zp_bn254_fr((zp_bn254_fr *)v); }
static void seed_bls_fp_limbs(uint64_t *v) { seed_zp_bls12_fp((zp_bls12_fp *)v); }
static void seed_bls_fr_limbs(uint64_t *v) { seed_zp_bls12_fr((zp_bls12_fr *)v); }

/* ---- MSM ---- */

static void size_label(char *out, size_t len, unsigned log_n) { snprintf(out, len, "2^%u", log_n); }

/* Bucket additions of Pippenger with the library's window choice. */
static double msm_adds(size_t n, const unsigned *bits, size_t point_bytes) {
    size_t n_big = 0;
    unsigned max_bits = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned b = bits ? bits[i] : ZP_MSM_SCALAR_BITS;
        n_big += b > 1;
        if (b > max_bits) max_bits = b;
    }
    zp_msm_plan plan;
    zp_msm_plan_make(&plan, ZP_MSM_AFFINE, n, n_big, max_bits, point_bytes, 1);
    unsigned c = plan.c;
    double adds = (double)plan.windows * 2.0 * (double)((size_t)1 << (c - 1));
    for (size_t i = 0; i < n; i++) {
        unsigned b = bits ? bits[i] : ZP_MSM_SCALAR_BITS;
        if (b == 0) continue;
        adds += b == 1 ? 1.0 : (double)((b + 1 + c - 1) / c);
    }
    return adds;
}

/* Random points: a random start plus consecutive multiples of a random
 * step, made affine in blocks (one inversion per block). */
#define MSM_BENCH(G, FP, FR, FID, FID_IFMA, NAME)                                                        \
    static void make_points_##G(G *pts, size_t n) {                                                      \
        enum { BLOCK = 4096 };                                                                           \
        G##j cur, step, *blk = malloc(BLOCK * sizeof *blk);                                              \
        FP *scratch = malloc(2 * BLOCK * sizeof *scratch);                                               \
        uint64_t k[4];                                                                                   \
        G##j gen;                                                                                        \
        G##_j_from_affine(&gen, &G##_generator);                                                         \
        rand_scalar(k, FR##_modulus.v);                                                                  \
        G##_j_mul(&cur, &gen, k, 4);                                                                     \
        rand_scalar(k, FR##_modulus.v);                                                                  \
        G##_j_mul(&step, &gen, k, 4);                                                                    \
        for (size_t b = 0; b < n; b += BLOCK) {                                                          \
            size_t len = n - b < BLOCK ? n - b : BLOCK;                                                  \
            for (size_t i = 0; i < len; i++) {                                                           \
                blk[i] = cur;                                                                            \
                G##_j_add_var(&cur, &cur, &step);                                                        \
            }                                                                                            \
            G##_j_batch_to_affine_var(pts + b, blk, len, scratch);                                       \
        }                                                                                                \
        free(blk);                                                                                       \
        free(scratch);                                                                                   \
    }                                                                                                    \
    /* simd: the path (rows marked where the CPU has lanes; the AVX2     \
     * rows' bound is the scalar one, which the lanes are to beat) */                               \
    static void bench_msm_##G(const zp_parallel *par, unsigned log_lo, unsigned log_hi, int circom_like, \
                              zp_simd simd) {                                                            \
        int fid = simd == ZP_SIMD_IFMA ? FID_IFMA : FID;                                                 \
        const char *path = simd == ZP_SIMD_AVX2                          ? " (AVX2 FMA)"                 \
                           : simd == ZP_SIMD_OFF && lanes != ZP_SIMD_OFF ? " (scalar)"                   \
                                                                         : "";                           \
        zp_parallel ctx_ = par ? *par : (zp_parallel){0};                                                \
        ctx_.simd = simd;                                                                                \
        par = &ctx_;                                                                                     \
        size_t max_n = (size_t)1 << log_hi;                                                              \
        size_t threads = zp_parallel_threads(par);                                                       \
        G *pts = malloc(max_n * sizeof *pts);                                                            \
        uint64_t *sc = malloc(max_n * 32);                                                               \
        unsigned *bits = circom_like ? malloc(max_n * sizeof *bits) : NULL;                              \
        if (pts == NULL || sc == NULL || (circom_like && bits == NULL)) {                                \
            fprintf(stderr, "out of memory\n");                                                          \
            exit(4);                                                                                     \
        }                                                                                                \
        make_points_##G(pts, max_n);                                                                     \
        for (unsigned lg = log_lo; lg <= log_hi; lg += 2) {                                              \
            size_t n = (size_t)1 << lg;                                                                  \
            void *scratch = malloc(G##_msm_scratch_size(n, threads));                                    \
            double samples[64];                                                                          \
            G##j out;                                                                                    \
            for (size_t r = 0; r < opt_runs; r++) {                                                      \
                for (size_t i = 0; i < n; i++) {                                                         \
                    if (circom_like) bits[i] = fill_circom_like(sc + 4 * i, FR##_modulus.v);             \
                    else rand_scalar(sc + 4 * i, FR##_modulus.v);                                        \
                }                                                                                        \
                double t0 = zp_clock_now();                                                              \
                G##_msm_var(&out, pts, sc, n, scratch, par);                                             \
                samples[r] = (zp_clock_now() - t0) * 1e3;                                                \
            }                                                                                            \
            char size[16], name[64];                                                                     \
            size_label(size, sizeof size, lg);                                                           \
            snprintf(name, sizeof name, "msm %s%s%s", NAME, circom_like ? " circom-like" : "", path);    \
            double bound = msm_adds(n, bits, sizeof(G)) * 6.0 * t_mul_ns[fid] * 1e-6 / (double)threads;  \
            report(name, size, "ms", samples, opt_runs, bound);                                          \
            free(scratch);                                                                               \
        }                                                                                                \
        free(pts);                                                                                       \
        free(sc);                                                                                        \
        free(bits);                                                                                      \
    }

MSM_BENCH(zp_bn254_g1, zp_bn254_fp, zp_bn254_fr, F_BN_FP, F_BN_FP_IFMA, "bn254 G1")
MSM_BENCH(zp_bn254_g2, zp_bn254_fp2, zp_bn254_fr, F_BN_FP2, F_BN_FP2_IFMA, "bn254 G2")
MSM_BENCH(zp_bls12_g1, zp_bls12_fp, zp_bls12_fr, F_BLS_FP, F_BLS_FP_IFMA, "bls12-381 G1")
MSM_BENCH(zp_bls12_g2, zp_bls12_fp2, zp_bls12_fr, F_BLS_FP2, F_BLS_FP2_IFMA, "bls12-381 G2")

/* ---- NTT ---- */

#define NTT_BENCH(F, FID, NAME)                                                                    \
    static void bench_ntt_##F(const zp_parallel *par, int simd) {                                  \
        size_t threads = zp_parallel_threads(par);                                                 \
        const char *path = !simd && have_simd ? " (scalar)" : "";                                  \
        int fid = simd ? FID##_IFMA : FID;                                                         \
        zp_parallel ctx_ = par ? *par : (zp_parallel){0};                                          \
        ctx_.simd = simd ? ZP_SIMD_IFMA : ZP_SIMD_OFF;                                             \
        par = &ctx_;                                                                               \
        for (unsigned lg = opt_min_log; lg <= opt_max_log; lg += 2) {                              \
            size_t n = (size_t)1 << lg;                                                            \
            /* as the prover allocates it: mmap with huge pages asked for */                       \
            zp_error err;                                                                          \
            F *a = zp_mem_map(n * sizeof *a, "ntt vector", &err);                                  \
            if (a == NULL) {                                                                       \
                fprintf(stderr, "%s\n", err.message);                                              \
                exit(4);                                                                           \
            }                                                                                      \
            void *scratch = malloc(F##_ntt_scratch_size(lg, threads));                             \
            for (size_t i = 0; i < n; i++) F##_from_u64(&a[i], rand64());                          \
            double fwd[64], coset[64];                                                             \
            F shift;                                                                               \
            F##_root_of_unity(&shift, lg + 1);                                                     \
            for (size_t r = 0; r < opt_runs; r++) {                                                \
                double t0 = zp_clock_now();                                                        \
                F##_ntt(a, lg, 0, scratch, par);                                                   \
                double t1 = zp_clock_now();                                                        \
                F##_ntt_to_coset(a, lg, &shift, scratch, par);                                     \
                double t2 = zp_clock_now();                                                        \
                fwd[r] = (t1 - t0) * 1e3;                                                          \
                coset[r] = (t2 - t1) * 1e3;                                                        \
            }                                                                                      \
            char size[16];                                                                         \
            size_label(size, sizeof size, lg);                                                     \
            double muls = (double)n / 2 * lg;                                                      \
            char name[64];                                                                         \
            snprintf(name, sizeof name, "ntt " NAME " forward%s", path);                           \
            report(name, size, "ms", fwd, opt_runs, muls *t_mul_ns[fid] * 1e-6 / (double)threads); \
            snprintf(name, sizeof name, "ntt " NAME " to_coset%s", path);                          \
            report(name, size, "ms", coset, opt_runs,                                              \
                   (2 * muls + (double)n) * t_mul_ns[fid] * 1e-6 / (double)threads);               \
            zp_mem_unmap(a, n * sizeof *a);                                                        \
            free(scratch);                                                                         \
        }                                                                                          \
    }

NTT_BENCH(zp_bn254_fr, F_BN_FR, "bn254")
NTT_BENCH(zp_bls12_fr, F_BLS_FR, "bls12-381")

/* ---- main ---- */

static void usage(FILE *f) {
    fprintf(f,
            "usage: zkpipe-bench-kernels [--runs N] [--threads N] [--min-log J] [--max-log K]\n"
            "                            [--only field|msm|ntt] [--json FILE]\n"
            "Times field mul/sqr/inv, MSM (G1, G2; 2^J..2^K points, every other power) and NTT\n"
            "(likewise) and prints median, min and max of N runs (default 5), with a lower\n"
            "bound from the measured field-mul time and the efficiency bound/median (see\n"
            "bench/kernels.c for the model).\n"
            "J defaults to 16 (10..24), K to 20 (J..24); threads to one per CPU.\n");
}

static int want(const char *part) { return opt_only == NULL || strcmp(opt_only, part) == 0; }

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--runs") == 0 && v) {
            opt_runs = strtoul(v, NULL, 10);
            i++;
        } else if (strcmp(a, "--threads") == 0 && v) {
            opt_threads = strtoul(v, NULL, 10);
            i++;
        } else if (strcmp(a, "--min-log") == 0 && v) {
            opt_min_log = (unsigned)strtoul(v, NULL, 10);
            i++;
        } else if (strcmp(a, "--max-log") == 0 && v) {
            opt_max_log = (unsigned)strtoul(v, NULL, 10);
            i++;
        } else if (strcmp(a, "--only") == 0 && v) {
            opt_only = v;
            i++;
        } else if (strcmp(a, "--json") == 0 && v) {
            opt_json = v;
            i++;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (opt_runs < 1 || opt_runs > 64 || opt_min_log < 10 || opt_min_log > 24 || opt_max_log < opt_min_log ||
        opt_max_log > 24) {
        fprintf(stderr, "--runs must be 1..64, --min-log 10..24 and --max-log from --min-log to 24\n");
        return 2;
    }
    rng_state = (uint64_t)(zp_clock_now() * 1e9) | 1;
    zp_pool *pool;
    zp_error err;
    if (zp_pool_create(&pool, opt_threads, &err) != ZP_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 4;
    }
    zp_parallel par = zp_pool_parallel(pool);
    json_rows = json_array();
    printf("threads %zu, runs %zu; times: median, min, max; bound: see bench/kernels.c\n", zp_pool_threads(pool),
           opt_runs);
    printf("%-34s %-6s %10s %10s %10s %-3s %10s %6s\n", "kernel", "size", "median", "min", "max", "", "bound", "eff");
    /* the bounds need the mul times, so the field rows always run */
    bench_field_zp_bn254_fp();
    bench_field_zp_bn254_fr();
    bench_field_zp_bn254_fp2();
    bench_field_zp_bls12_fp();
    bench_field_zp_bls12_fr();
    bench_field_zp_bls12_fp2();
    /* the IFMA paths where the CPU has them (and ZKPIPE_SIMD is not 0),
     * with the scalar ones they replace timed too */
    have_simd = zp_ifma_default();
    if (have_simd) {
        bench_field_ifma(zp_bn254_fp_modulus.v, 4, seed_bn_fp_limbs, F_BN_FP_IFMA, "field bn254 Fp mul, IFMA x8");
        bench_field_ifma(zp_bn254_fr_modulus.v, 4, seed_bn_fr_limbs, F_BN_FR_IFMA, "field bn254 Fr mul, IFMA x8");
        bench_field_ifma(zp_bls12_fp_modulus.v, 6, seed_bls_fp_limbs, F_BLS_FP_IFMA, "field bls12-381 Fp mul, IFMA x8");
        bench_field_ifma(zp_bls12_fr_modulus.v, 4, seed_bls_fr_limbs, F_BLS_FR_IFMA, "field bls12-381 Fr mul, IFMA x8");
        t_mul_ns[F_BN_FP2_IFMA] = 3 * t_mul_ns[F_BN_FP_IFMA];
        t_mul_ns[F_BLS_FP2_IFMA] = 3 * t_mul_ns[F_BLS_FP_IFMA];
    }
    if (zp_fma_available()) {
        bench_field_fma(zp_bn254_fp_modulus.v, seed_bn_fp_limbs, "field bn254 Fp mul, AVX2 FMA x4");
        bench_field_fma(zp_bn254_fr_modulus.v, seed_bn_fr_limbs, "field bn254 Fr mul, AVX2 FMA x4");
        bench_field_fma(zp_bls12_fr_modulus.v, seed_bls_fr_limbs, "field bls12-381 Fr mul, AVX2 FMA x4");
    }
    lanes = zp_ifma_default() ? ZP_SIMD_IFMA : zp_fma_default() ? ZP_SIMD_AVX2 : ZP_SIMD_OFF;
    if (want("msm")) {
        /* every group on the lanes where the CPU has them; then also
         * without, at the largest size (the AVX2 lanes, BN254's only,
         * at every size, for the comparison) */
        zp_simd other = lanes == ZP_SIMD_IFMA ? lanes : ZP_SIMD_OFF;
        bench_msm_zp_bn254_g1(&par, opt_min_log, opt_max_log, 0, lanes);
        bench_msm_zp_bn254_g1(&par, opt_max_log, opt_max_log, 1, lanes);
        if (lanes == ZP_SIMD_AVX2) {
            bench_msm_zp_bn254_g1(&par, opt_min_log, opt_max_log, 0, ZP_SIMD_OFF);
            bench_msm_zp_bn254_g1(&par, opt_max_log, opt_max_log, 1, ZP_SIMD_OFF);
        }
        bench_msm_zp_bls12_g1(&par, opt_min_log, opt_max_log, 0, other);
        bench_msm_zp_bls12_g1(&par, opt_max_log, opt_max_log, 1, other);
        bench_msm_zp_bn254_g2(&par, opt_min_log, opt_max_log, 0, lanes);
        if (lanes == ZP_SIMD_AVX2) bench_msm_zp_bn254_g2(&par, opt_min_log, opt_max_log, 0, ZP_SIMD_OFF);
        bench_msm_zp_bls12_g2(&par, opt_min_log, opt_max_log, 0, other);
        if (lanes == ZP_SIMD_IFMA) {
            bench_msm_zp_bn254_g1(&par, opt_max_log, opt_max_log, 0, ZP_SIMD_OFF);
            bench_msm_zp_bls12_g1(&par, opt_max_log, opt_max_log, 0, ZP_SIMD_OFF);
            bench_msm_zp_bn254_g2(&par, opt_max_log, opt_max_log, 0, ZP_SIMD_OFF);
            bench_msm_zp_bls12_g2(&par, opt_max_log, opt_max_log, 0, ZP_SIMD_OFF);
        }
    }
    if (want("ntt")) {
        for (int simd = have_simd; simd >= 0; simd--) {
            bench_ntt_zp_bn254_fr(&par, simd);
            bench_ntt_zp_bls12_fr(&par, simd);
        }
    }
    size_t peak = zp_mem_peak_rss();
    printf("peak RSS %.0f MB\n", (double)peak / 1e6);
    if (opt_json) {
        json_t *doc = json_pack("{s:I, s:I, s:f, s:o}", "threads", (json_int_t)zp_pool_threads(pool), "runs",
                                (json_int_t)opt_runs, "peak_rss_mb", (double)peak / 1e6, "results", json_rows);
        if (json_dump_file(doc, opt_json, JSON_INDENT(1)) != 0) {
            fprintf(stderr, "%s: cannot write\n", opt_json);
            return 3;
        }
        json_decref(doc);
    } else {
        json_decref(json_rows);
    }
    zp_pool_destroy(pool);
    return 0;
}
