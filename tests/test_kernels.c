/* MSM against the naive sum, every accumulation path, both curves and
 * groups, random inputs each run, through a two-thread pool (the NTT has
 * its own test_ntt). The naive sum is group_ref.h's, in affine
 * coordinates, which shares no formula with the MSM's j_add and XYZZ
 * additions (test_group checks those against it too). */
#include <stdlib.h>
#include <string.h>

#include "base/parallel.h"
#include "engine/pool.h"
#include "field/fma.h"
#include "field/ifma.h"
#include "group_ref.h"
#include "msm/msm.h"
#include "testutil.h"

/* A uniformly random plain scalar below the field modulus m. */
static void rand_scalar(uint64_t k[4], const uint64_t m[4]) {
    do {
        for (int i = 0; i < 4; i++) k[i] = zp_test_rand64();
        k[3] &= 0x7fffffffffffffffULL;
    } while (!zp_limbs_lt_var(k, m, 4));
}

enum { S_RANDOM, S_ZERO, S_ONE, S_SMALL, S_MIXED, S_MAX };
static const char *kind_name[] = {"random", "zero", "one", "small", "mixed", "max"};

static void fill_scalars(uint64_t *s, size_t n, int kind, const uint64_t m[4]) {
    for (size_t i = 0; i < n; i++) {
        uint64_t *k = s + 4 * i;
        memset(k, 0, 32);
        switch (kind) {
        case S_RANDOM: rand_scalar(k, m); break;
        case S_ZERO: break;
        case S_ONE: k[0] = 1; break;
        case S_SMALL: k[0] = zp_test_rand64() % 1000; break;
        case S_MIXED: { /* circom-like: mostly 0 and 1, some small, some full */
            uint64_t r = zp_test_rand64() % 10;
            if (r < 4) break;
            if (r < 8) k[0] = 1;
            else if (r < 9) k[0] = zp_test_rand64() % 65536;
            else rand_scalar(k, m);
            break;
        }
        case S_MAX:
            memcpy(k, m, 32);
            k[0] -= 1;
            break; /* r - 1 */
        }
    }
}

/* Every accumulation path (the automatic choice, XYZZ, batch-affine)
 * against the naive sum, on the points aligned and 4 bytes off 8, as a
 * key's sections lie in the file (the prover reads them there); and the
 * tabled MSM (a prover's point tables, msm.h: zp_msm_table) built from
 * the unaligned copy: with the width a prover picks and a narrow one
 * (more copies), as the cost model chooses and forced, in exactly the
 * scratch the job asks for. */
#define MSM_TEST(G, FR, NAME)                                                                                      \
    static void check_tabled_##G(const G *pts, const G *unaligned, const uint64_t *sc, size_t n, const G##j *want, \
                                 const zp_parallel *par, const char *what) {                                       \
        size_t threads = zp_parallel_threads(par);                                                                 \
        unsigned widths[2] = {zp_msm_table_c(n, threads), 5};                                                      \
        (void)pts;                                                                                                 \
        for (int wi = 0; wi < (n <= 300 ? 2 : 1); wi++) {                                                          \
            zp_msm_table table;                                                                                    \
            G *mem = malloc(G##_msm_table_bytes(n, widths[wi]) + 1);                                               \
            G##_msm_table_build(&table, mem, unaligned, n, widths[wi], par);                                       \
            CHECK(table.points == mem && table.n == n && table.c == widths[wi]);                                   \
            for (int force = 0; force <= 1; force++) {                                                             \
                const zp_msm_table *tabs[1] = {&table};                                                            \
                table.force = force;                                                                               \
                size_t ws = G##_msm_job_workspace_size(&n, tabs, 1, threads);                                      \
                size_t rs = G##_msm_job_results_size(&n, 1, threads);                                              \
                char *results = aligned_alloc(64, (rs + 63) / 64 * 64);                                            \
                char *work = aligned_alloc(64, (ws + 63) / 64 * 64);                                               \
                zp_msm_job job;                                                                                    \
                G##j got, *out = &got;                                                                             \
                G##_msm_job_begin(&job, &out, &unaligned, &sc, &n, tabs, 1, results, work, par);                   \
                CHECK(!force || n == 0 || job.parts[0].plan.tabled || job.tiles == 0);                             \
                zp_parallel_for(par, job.tiles, G##_msm_job_tile, &job);                                           \
                G##_msm_job_end(&job);                                                                             \
                CHECK_MSG(G##_j_eq_var(&got, want), NAME " n=%zu %s tabled c=%u force=%d", n, what, widths[wi],    \
                          force);                                                                                  \
                free(results);                                                                                     \
                free(work);                                                                                        \
            }                                                                                                      \
            free(mem);                                                                                             \
        }                                                                                                          \
    }                                                                                                              \
    static void check_paths_##G(const G *pts, const uint64_t *sc, size_t n, const zp_parallel *par,                \
                                const char *what) {                                                                \
        unsigned char *off = malloc(n * sizeof *pts + 4);                                                          \
        memcpy(off + 4, pts, n * sizeof *pts);                                                                     \
        G##j got, want;                                                                                            \
        G want_affine;                                                                                             \
        G##_ref_msm(&want_affine, pts, sc, n);                                                                     \
        G##_j_from_affine(&want, &want_affine);                                                                    \
        for (int path = ZP_MSM_AUTO; path <= ZP_MSM_SORTED; path++) {                                              \
            /* exactly the path's size, so that ASan sees an overrun */                                            \
            void *scratch = malloc(G##_msm_path_scratch_size(n, zp_parallel_threads(par), (zp_msm_path)path));     \
            G##_msm_path_var(&got, pts, sc, n, scratch, par, (zp_msm_path)path);                                   \
            CHECK_MSG(G##_j_eq_var(&got, &want), NAME " n=%zu %s path=%d", n, what, path);                         \
            G##_msm_path_var(&got, (const G *)(const void *)(off + 4), sc, n, scratch, par, (zp_msm_path)path);    \
            CHECK_MSG(G##_j_eq_var(&got, &want), NAME " n=%zu %s path=%d, points 4 bytes off", n, what, path);     \
            free(scratch);                                                                                         \
        }                                                                                                          \
        if (n <= 4096) check_tabled_##G(pts, (const G *)(const void *)(off + 4), sc, n, &want, par, what);         \
        free(off);                                                                                                 \
    }                                                                                                              \
    /* equal points (doublings in a batch) and opposite ones (cancellations) */                                    \
    static void test_msm_degenerate_##G(const zp_parallel *par, size_t n) {                                        \
        G *pts = malloc(n * sizeof *pts);                                                                          \
        uint64_t *sc = malloc(n * 32);                                                                             \
        G##j p;                                                                                                    \
        uint64_t k[4];                                                                                             \
        rand_scalar(k, FR##_modulus.v);                                                                            \
        G##_j_from_affine(&p, &G##_generator);                                                                     \
        G##_j_mul(&p, &p, k, 4);                                                                                   \
        G##_j_to_affine(&pts[0], &p);                                                                              \
        for (size_t i = 0; i < n; i++) pts[i] = pts[0];                                                            \
        fill_scalars(sc, n, S_RANDOM, FR##_modulus.v);                                                             \
        check_paths_##G(pts, sc, n, par, "one point, random scalars");                                             \
        fill_scalars(sc, n, S_SMALL, FR##_modulus.v);                                                              \
        check_paths_##G(pts, sc, n, par, "one point, small scalars");                                              \
        for (size_t i = 1; i < n; i += 2) G##_neg(&pts[i], &pts[0]);                                               \
        for (size_t i = 0; i < n; i++) sc[4 * i] = 1 + (i / 2) % 5;                                                \
        check_paths_##G(pts, sc, n, par, "P, -P pairs");                                                           \
        fill_scalars(sc, n, S_MIXED, FR##_modulus.v);                                                              \
        check_paths_##G(pts, sc, n, par, "P, -P, mixed scalars");                                                  \
        free(pts);                                                                                                 \
        free(sc);                                                                                                  \
    }                                                                                                              \
    /* pts[i] = (k0 + i)·G for a random k0; *step = G */                                                          \
    static void chain_##G(G *pts, size_t n, G##j *step) {                                                          \
        G##j cur;                                                                                                  \
        uint64_t k0[4];                                                                                            \
        rand_scalar(k0, FR##_modulus.v);                                                                           \
        G##_j_from_affine(step, &G##_generator);                                                                   \
        G##_j_mul(&cur, step, k0, 4);                                                                              \
        for (size_t i = 0; i < n; i++) {                                                                           \
            G##_j_to_affine(&pts[i], &cur);                                                                        \
            G##_j_add_var(&cur, &cur, step);                                                                       \
        }                                                                                                          \
    }                                                                                                              \
    /* one bucket's list longer than the sorted path's tree nodes, summed in                          \
     * pieces: distinct points, one point (doublings), P and -P (every                                  \
     * piece sums to infinity) */            \
    static void test_msm_long_list_##G(const zp_parallel *par, size_t n) {                                         \
        G *pts = malloc(n * sizeof *pts);                                                                          \
        uint64_t *sc = calloc(n, 32);                                                                              \
        G##j step;                                                                                                 \
        chain_##G(pts, n, &step);                                                                                  \
        for (size_t i = 0; i < n; i++) sc[4 * i] = 1;                                                              \
        check_paths_##G(pts, sc, n, par, "long list: ones, distinct points");                                      \
        sc[4 * (n / 3)] = 3; /* a second list, and the long one cut elsewhere */                                   \
        check_paths_##G(pts, sc, n, par, "long list: ones and a three");                                           \
        for (size_t i = 1; i < n; i++) pts[i] = pts[0];                                                            \
        check_paths_##G(pts, sc, n, par, "long list: one point");                                                  \
        for (size_t i = 1; i < n; i += 2) G##_neg(&pts[i], &pts[0]);                                               \
        sc[4 * (n / 3)] = 1;                                                                                       \
        check_paths_##G(pts, sc, n, par, "long list: P, -P");                                                      \
        free(pts);                                                                                                 \
        free(sc);                                                                                                  \
    }                                                                                                              \
    static void test_msm_##G(const zp_parallel *par, size_t max_n) {                                               \
        size_t sizes[] = {1, 2, 3, 31, 257, 2100, 9000};                                                           \
        G *pts = malloc(max_n * sizeof *pts);                                                                      \
        uint64_t *sc = malloc(max_n * 32);                                                                         \
        G##j step;                                                                                                 \
        chain_##G(pts, max_n, &step);                                                                              \
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes && sizes[si] <= max_n; si++) {                       \
            size_t n = sizes[si];                                                                                  \
            for (int kind = 0; kind <= S_MAX; kind++) {                                                            \
                fill_scalars(sc, n, kind, FR##_modulus.v);                                                         \
                /* sprinkle points at infinity and repeated points */                                              \
                G saved0 = pts[0];                                                                                 \
                if (n > 3) {                                                                                       \
                    G##_set_inf(&pts[n / 2]);                                                                      \
                    pts[n - 1] = pts[0];                                                                           \
                }                                                                                                  \
                check_paths_##G(pts, sc, n, par, kind_name[kind]);                                                 \
                if (n > 3) { /* restore the chain for the next kind */                                             \
                    G##j t;                                                                                        \
                    G##_j_from_affine(&t, &saved0);                                                                \
                    for (size_t i = 0; i < n / 2; i++) G##_j_add_var(&t, &t, &step);                               \
                    G##_j_to_affine(&pts[n / 2], &t);                                                              \
                    G##_j_from_affine(&t, &saved0);                                                                \
                    for (size_t i = 0; i < n - 1; i++) G##_j_add_var(&t, &t, &step);                               \
                    G##_j_to_affine(&pts[n - 1], &t);                                                              \
                }                                                                                                  \
            }                                                                                                      \
        }                                                                                                          \
        free(pts);                                                                                                 \
        free(sc);                                                                                                  \
    }

MSM_TEST(zp_bn254_g1, zp_bn254_fr, "bn254 G1")
MSM_TEST(zp_bn254_g2, zp_bn254_fr, "bn254 G2")
MSM_TEST(zp_bls12_g1, zp_bls12_fr, "bls12-381 G1")
MSM_TEST(zp_bls12_g2, zp_bls12_fr, "bls12-381 G2")

/* Tiles of a G1 job and a G2 job in one loop, interleaved so both run
 * at once on the workers. */
static void shared_tile(void *arg, size_t t, size_t worker) {
    zp_msm_job *jobs = arg; /* g1, then g2 */
    size_t both = jobs[0].tiles < jobs[1].tiles ? jobs[0].tiles : jobs[1].tiles;
    if (t < 2 * both) {
        if (t % 2) zp_bn254_g2_msm_job_tile(&jobs[1], t / 2, worker);
        else zp_bn254_g1_msm_job_tile(&jobs[0], t / 2, worker);
    } else if (jobs[0].tiles > both) {
        zp_bn254_g1_msm_job_tile(&jobs[0], t - both, worker);
    } else {
        zp_bn254_g2_msm_job_tile(&jobs[1], t - both, worker);
    }
}

/* msm_many: several MSMs in one loop give what each gives alone (sizes
 * that take both paths, one all-zero). */
static void test_msm_many(const zp_parallel *par) {
    enum { K = 4 };
    size_t n[K] = {3000, 1, 700, 257};
    int kind[K] = {S_MIXED, S_RANDOM, S_ZERO, S_SMALL};
    zp_bn254_g1 *pts[K];
    uint64_t *sc[K];
    zp_bn254_g1j got[K], want, *outs[K];
    zp_bn254_g1j p, g;
    zp_bn254_g1_j_from_affine(&g, &zp_bn254_g1_generator);
    p = g;
    for (int k = 0; k < K; k++) {
        pts[k] = malloc(n[k] * sizeof *pts[k]);
        sc[k] = malloc(n[k] * 32);
        for (size_t i = 0; i < n[k]; i++) {
            zp_bn254_g1_j_add_var(&p, &p, &g);
            zp_bn254_g1_j_to_affine(&pts[k][i], &p);
        }
        fill_scalars(sc[k], n[k], kind[k], zp_bn254_fr_modulus.v);
        outs[k] = &got[k];
    }
    void *scratch = malloc(zp_bn254_g1_msm_many_scratch_size(n, K, zp_parallel_threads(par)));
    zp_bn254_g1_msm_many_var(outs, (const zp_bn254_g1 *const *)pts, (const uint64_t *const *)sc, n, K, scratch, par);
    for (int k = 0; k < K; k++) {
        zp_bn254_g1 want_affine;
        zp_bn254_g1_ref_msm(&want_affine, pts[k], sc[k], n[k]);
        zp_bn254_g1_j_from_affine(&want, &want_affine);
        CHECK_MSG(zp_bn254_g1_j_eq_var(&got[k], &want), "msm_many part %d (n=%zu)", k, n[k]);
        free(pts[k]);
        free(sc[k]);
    }
    free(scratch);
}

/* A G1 and a G2 job in one loop, sharing the workers' workspaces (as the
 * prover runs a small key's MSMs): each gives what it gives alone. */
static void test_msm_jobs_shared(const zp_parallel *par) {
    size_t n1[2] = {700, 2000}, n2 = 500, threads = zp_parallel_threads(par);
    zp_bn254_g1 *p1[2];
    uint64_t *s1[2], *s2 = malloc(n2 * 32);
    zp_bn254_g2 *p2 = malloc(n2 * sizeof *p2);
    zp_bn254_g1j g1, acc1, got1[2], *out1[2] = {&got1[0], &got1[1]};
    zp_bn254_g2j g2, acc2, got2, *out2 = &got2;
    zp_bn254_g1_j_from_affine(&g1, &zp_bn254_g1_generator);
    zp_bn254_g2_j_from_affine(&g2, &zp_bn254_g2_generator);
    acc1 = g1;
    acc2 = g2;
    for (int k = 0; k < 2; k++) {
        p1[k] = malloc(n1[k] * sizeof *p1[k]);
        s1[k] = malloc(n1[k] * 32);
        for (size_t i = 0; i < n1[k]; i++) {
            zp_bn254_g1_j_add_var(&acc1, &acc1, &g1);
            zp_bn254_g1_j_to_affine(&p1[k][i], &acc1);
        }
        fill_scalars(s1[k], n1[k], k == 0 ? S_MIXED : S_RANDOM, zp_bn254_fr_modulus.v);
    }
    for (size_t i = 0; i < n2; i++) {
        zp_bn254_g2_j_add_var(&acc2, &acc2, &g2);
        zp_bn254_g2_j_to_affine(&p2[i], &acc2);
    }
    fill_scalars(s2, n2, S_RANDOM, zp_bn254_fr_modulus.v);
    size_t ws1 = zp_bn254_g1_msm_job_workspace_size(n1, NULL, 2, threads);
    size_t ws2 = zp_bn254_g2_msm_job_workspace_size(&n2, NULL, 1, threads);
    size_t ws = ws1 > ws2 ? ws1 : ws2, r1 = zp_bn254_g1_msm_job_results_size(n1, 2, threads);
    char *mem = aligned_alloc(64, ws + r1 + zp_bn254_g2_msm_job_results_size(&n2, 1, threads));
    zp_msm_job jobs[2]; /* g1, g2: shared_tile */
    zp_bn254_g1_msm_job_begin(&jobs[0], out1, (const zp_bn254_g1 *const *)p1, (const uint64_t *const *)s1, n1, NULL, 2,
                              mem + ws, mem, par);
    zp_bn254_g2_msm_job_begin(&jobs[1], &out2, (const zp_bn254_g2 *const *)&p2, (const uint64_t *const *)&s2, &n2, NULL,
                              1, mem + ws + r1, mem, par);
    zp_msm_jobs_share_workspace(&jobs[0], &jobs[1]);
    size_t tiles = jobs[0].tiles + jobs[1].tiles;
    CHECK(jobs[0].tiles > 0 && jobs[1].tiles > 0);
    zp_parallel_for(par, tiles, shared_tile, jobs);
    zp_bn254_g1_msm_job_end(&jobs[0]);
    zp_bn254_g2_msm_job_end(&jobs[1]);
    for (int k = 0; k < 2; k++) {
        zp_bn254_g1 want_affine;
        zp_bn254_g1j want;
        zp_bn254_g1_ref_msm(&want_affine, p1[k], s1[k], n1[k]);
        zp_bn254_g1_j_from_affine(&want, &want_affine);
        CHECK_MSG(zp_bn254_g1_j_eq_var(&got1[k], &want), "shared jobs: G1 part %d", k);
        free(p1[k]);
        free(s1[k]);
    }
    zp_bn254_g2 want2_affine;
    zp_bn254_g2j want2;
    zp_bn254_g2_ref_msm(&want2_affine, p2, s2, n2);
    zp_bn254_g2_j_from_affine(&want2, &want2_affine);
    CHECK_MSG(zp_bn254_g2_j_eq_var(&got2, &want2), "shared jobs: G2");
    free(p2);
    free(s2);
    free(mem);
}

static void test_booth(void) {
    /* The digits of every window recombine to the scalar: sum_w d_w·2^(wc)
     * computed in Fr equals k (k < r), and every digit is in range. */
    for (unsigned c = 1; c <= 20; c++) {
        uint64_t k[4];
        rand_scalar(k, zp_bn254_fr_modulus.v);
        zp_bn254_fr acc, pow2c, scale, kf;
        zp_bn254_fr_set_zero(&acc);
        zp_bn254_fr_set_one(&scale);
        zp_bn254_fr_from_u64(&pow2c, 1ULL << c);
        int in_range = 1;
        for (unsigned w = 0; w < zp_msm_windows(c, ZP_MSM_SCALAR_BITS); w++) {
            int64_t d = zp_msm_booth_digit(k, w, c);
            in_range &= d >= -((int64_t)1 << (c - 1)) && d <= ((int64_t)1 << (c - 1));
            zp_bn254_fr t;
            zp_bn254_fr_from_u64(&t, (uint64_t)(d < 0 ? -d : d));
            if (d < 0) zp_bn254_fr_neg(&t, &t);
            zp_bn254_fr_mul(&t, &t, &scale);
            zp_bn254_fr_add(&acc, &acc, &t);
            zp_bn254_fr_mul(&scale, &scale, &pow2c);
        }
        memcpy(kf.v, k, 32);
        zp_bn254_fr_to_mont(&kf, &kf);
        CHECK_MSG(in_range && zp_bn254_fr_eq_var(&acc, &kf), "booth digits recombine, c=%u", c);
    }
}

int main(void) {
    zp_test_init("test_kernels");
    zp_pool *pool;
    zp_error err;
    if (zp_pool_create(&pool, 2, &err) != ZP_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    zp_parallel par = zp_pool_parallel(pool);
    test_booth();
    /* ZP_TEST_ITERS below 100 (the sanitizer runs) stops at smaller sizes */
    size_t big = zp_test_iters(100) >= 100 ? 2100 : 257;
    /* TSan checks the pool's hand-offs, which do not depend on the
     * arithmetic: under it every path runs threaded at sizes the workers
     * split (G2 to 31 points), not serial and not the degenerate inputs or
     * long lists, which the release, ASan and verify builds check. Under
     * TSan the serial runs took 15 s and G2 at 257 points 65 s of 140. */
#if defined(__SANITIZE_THREAD__)
    const int under_tsan = 1;
#else
    const int under_tsan = 0;
#endif
    size_t g2_n = under_tsan ? 31 : 257;
    /* the batch-affine additions run on eight IFMA lanes where the CPU
     * has them, and BN254's on the AVX2 FMA lanes where it has those
     * (msm_simd.h): every test runs on each path the CPU can take */
    zp_simd paths[3];
    int n_paths = 0;
    if (zp_ifma_available()) paths[n_paths++] = ZP_SIMD_IFMA;
    if (zp_fma_available()) paths[n_paths++] = ZP_SIMD_AVX2;
    paths[n_paths++] = ZP_SIMD_OFF;
    printf("test_kernels: paths checked: %s%sscalar\n", zp_ifma_available() ? "AVX-512 IFMA, " : "",
           zp_fma_available() ? "AVX2 FMA (BN254 G1, G2), " : "");
    /* the path is the execution context's, not the process's: each pass
     * hands the kernels contexts that ask for it */
    for (int path = 0; path < n_paths; path++) {
        zp_parallel pool_par = par, serial = {NULL, NULL, 1, paths[path]};
        pool_par.simd = serial.simd;
        test_msm_many(&pool_par);
        test_msm_jobs_shared(&pool_par);
        test_msm_zp_bn254_g1(&pool_par, zp_test_iters(100) >= 100 ? 9000 : 257);
        if (!under_tsan) test_msm_zp_bn254_g1(&serial, 257);
        test_msm_degenerate_zp_bn254_g1(&pool_par, big);
        test_msm_zp_bls12_g1(&pool_par, big);
        test_msm_zp_bn254_g2(&pool_par, g2_n);
        test_msm_zp_bls12_g2(&pool_par, g2_n);
        if (under_tsan) continue;
        test_msm_degenerate_zp_bls12_g1(&pool_par, 600);
        test_msm_degenerate_zp_bn254_g2(&pool_par, 600);
        test_msm_degenerate_zp_bls12_g2(&pool_par, 600);
        /* past 2·128 KiB of nodes: 4096, 2048, 2730 and 1364 entries */
        test_msm_long_list_zp_bn254_g1(&pool_par, 4500);
        test_msm_long_list_zp_bn254_g2(&pool_par, 2500);
        test_msm_long_list_zp_bls12_g1(&pool_par, 3000);
        test_msm_long_list_zp_bls12_g2(&pool_par, 1500);
    }
    /* no context at all: serial, the CPU's default path */
    if (!under_tsan) test_msm_zp_bn254_g1(NULL, 257);
    zp_pool_destroy(pool);
    return zp_test_done();
}
