/* zkpipe-bench-msm-ab: one MSM size on this CPU's vector lanes against the
 * scalar code, runs alternated (lanes, scalar, scalar, lanes, ...) so that
 * a VM whose speed drifts by tens of percent within minutes (this
 * project's machines do) compares the two in the same moments. Prints
 * the median and min of each, their ratio, whether the results agreed,
 * and the peak RSS. A benchmark, not a test.
 *
 * Usage: zkpipe-bench-msm-ab [--group g1|g2] [--log K] [--threads N]
 *                            [--runs R]
 *   BN254 G1 (default) or G2, 2^K points (default 16), random full-size
 *   scalars, N threads (default one per CPU), R runs of each (default 15).
 * The lanes are what the CPU has (IFMA, else the AVX2 FMA lanes, which
 * cover BN254's streamed MSMs); "none" where it has neither. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "curve/curve.h"
#include "engine/pool.h"
#include "field/fma.h"
#include "field/ifma.h"
#include "mem/large.h"
#include "msm/msm.h"
#include "stats.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* points 2^i·G-ish: a running sum with a doubling now and then, made
 * affine at once (distinct points; their values do not matter) */
#define AB_GROUP(G, F)                                                                                        \
    static void run_##G(size_t n, size_t runs, zp_parallel par, zp_simd lanes) {                              \
        G *pts = malloc(n * sizeof *pts);                                                                     \
        G##j *tmp = malloc(n * sizeof *tmp), gen, acc;                                                        \
        void *inv = malloc(2 * n * sizeof(F));                                                                \
        uint64_t *sc = malloc(n * 32);                                                                        \
        size_t threads = zp_parallel_threads(&par);                                                           \
        void *scratch = malloc(G##_msm_scratch_size(n, threads));                                             \
        double *t[2] = {malloc(runs * sizeof(double)), malloc(runs * sizeof(double))};                        \
        if (!pts || !tmp || !inv || !sc || !scratch || !t[0] || !t[1]) {                                      \
            fprintf(stderr, "out of memory\n");                                                               \
            exit(4);                                                                                          \
        }                                                                                                     \
        G##_j_from_affine(&gen, &G##_generator);                                                              \
        acc = gen;                                                                                            \
        for (size_t i = 0; i < n; i++) {                                                                      \
            tmp[i] = acc;                                                                                     \
            G##_j_add_var(&acc, &acc, &gen);                                                                  \
            G##_j_add_var(&acc, &acc, &tmp[i / 2]);                                                           \
        }                                                                                                     \
        G##_j_batch_to_affine_var(pts, tmp, n, inv);                                                          \
        for (size_t i = 0; i < n; i++) {                                                                      \
            for (int j = 0; j < 4; j++) sc[4 * i + j] = next();                                               \
            sc[4 * i + 3] &= 0x0fffffffffffffffULL; /* below both group orders */                             \
        }                                                                                                     \
        G##j out[2];                                                                                          \
        for (size_t r = 0; r < runs; r++)                                                                     \
            for (int k = 0; k < 2; k++) {                                                                     \
                int which = (int)((r + (size_t)k) % 2); /* 0: lanes, 1: scalar */                             \
                par.simd = which == 0 ? lanes : ZP_SIMD_OFF;                                                  \
                double t0 = zp_clock_now();                                                                   \
                G##_msm_var(&out[which], pts, sc, n, scratch, &par);                                          \
                t[which][r] = (zp_clock_now() - t0) * 1e3;                                                    \
            }                                                                                                 \
        int same = G##_j_eq_var(&out[0], &out[1]);                                                            \
        double m0 = bench_median(t[0], runs), m1 = bench_median(t[1], runs);                                  \
        printf("%-12s %8zu %12.2f %10.2f %12.2f %10.2f %8.3f %s\n", #G, n, m0, t[0][0], m1, t[1][0], m1 / m0, \
               same ? "same" : "DIFFER");                                                                     \
        free(pts), free(tmp), free(inv), free(sc), free(scratch), free(t[0]), free(t[1]);                     \
    }
AB_GROUP(zp_bn254_g1, zp_bn254_fp)
AB_GROUP(zp_bn254_g2, zp_bn254_fp2)

int main(int argc, char **argv) {
    const char *group = "g1";
    unsigned log_n = 16;
    size_t threads = 0, runs = 15;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--group") == 0 && i + 1 < argc) {
            group = argv[++i];
        } else if (strcmp(argv[i], "--log") == 0 && i + 1 < argc) {
            log_n = (unsigned)atoi(argv[++i]);
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            threads = (size_t)atoi(argv[++i]);
        } else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            runs = (size_t)atoi(argv[++i]);
        } else {
            fprintf(stderr,
                    "usage: zkpipe-bench-msm-ab [--group g1|g2] [--log K] [--threads N] [--runs R]\n"
                    "Times one BN254 MSM of 2^K points on the CPU's vector lanes and on the scalar\n"
                    "code, R runs of each alternated; prints medians, mins, scalar/lanes.\n");
            return 2;
        }
    }
    if (log_n < 4 || log_n > 24 || runs < 1 || runs > 1000 || (strcmp(group, "g1") && strcmp(group, "g2"))) {
        fprintf(stderr, "--group g1|g2, --log 4..24, --runs 1..1000\n");
        return 2;
    }
    zp_pool *pool;
    zp_error err;
    if (zp_pool_create(&pool, threads, &err) != ZP_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 4;
    }
    zp_simd lanes = zp_ifma_default() ? ZP_SIMD_IFMA : zp_fma_default() ? ZP_SIMD_AVX2 : ZP_SIMD_OFF;
    printf("threads %zu, runs %zu alternated; lanes: %s; times in ms\n", zp_pool_threads(pool), runs,
           lanes == ZP_SIMD_IFMA   ? "AVX-512 IFMA"
           : lanes == ZP_SIMD_AVX2 ? "AVX2 FMA"
                                   : "none");
    printf("%-12s %8s %12s %10s %12s %10s %8s\n", "group", "points", "lanes med", "min", "scalar med", "min",
           "scalar/lanes");
    size_t n = (size_t)1 << log_n;
    if (strcmp(group, "g1") == 0) {
        run_zp_bn254_g1(n, runs, zp_pool_parallel(pool), lanes);
    } else {
        run_zp_bn254_g2(n, runs, zp_pool_parallel(pool), lanes);
    }
    printf("peak RSS %.0f MB\n", (double)zp_mem_peak_rss() / 1e6);
    zp_pool_destroy(pool);
    return 0;
}
