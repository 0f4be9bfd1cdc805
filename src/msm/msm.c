#include "msm/msm.h"

#include "base/parallel.h"
#include "field/fma.h"
#include "field/ifma.h"
#include "msm/msm_simd.h"

unsigned zp_msm_windows(unsigned c, unsigned bits) {
    unsigned w = (bits + 1 + c - 1) / c; /* +1: the Booth carry out of the top */
    return w > 0 ? w : 1;
}

void zp_msm_scan_var(const uint64_t *scalars, size_t n, unsigned *bits, size_t *n_big) {
    uint64_t top[4] = {0, 0, 0, 0};
    size_t big = 0;
    for (size_t i = 0; i < n; i++) {
        const uint64_t *k = scalars + 4 * i;
        big += (k[0] > 1) | ((k[1] | k[2] | k[3]) != 0);
        top[0] |= k[0];
        top[1] |= k[1];
        top[2] |= k[2];
        top[3] |= k[3];
    }
    unsigned b = 0;
    for (int l = 3; l >= 0; l--) {
        if (top[l] != 0) {
            b = 64 * (unsigned)l + 64 - (unsigned)__builtin_clzll(top[l]);
            break;
        }
    }
    *bits = b;
    *n_big = big;
}

/* Cost of one window in units of a batch-affine addition (~6
 * multiplications). Streaming: every point with a nonzero digit is one
 * addition, plus its share of the batch's inversion (~330 multiplications
 * over a batch of min(1024, buckets/4)); the running-sum reduction costs
 * two XYZZ additions per bucket (~24 multiplications, 3 units after
 * memory effects; measured). Sorted: the same additions in full batches,
 * and the reduction batched too (2 per bucket). XYZZ accumulation costs
 * ~10 multiplications per point (units of that: 2.4 per bucket).
 * point_bytes: the size of one affine point; pts: the points with a
 * scalar above 1, plus one. */
static double window_cost(zp_msm_path path, unsigned c, double pts, size_t point_bytes) {
    double nb = (double)((size_t)1 << (c - 1)), cost;
    if (path == ZP_MSM_AFFINE) {
        double batch = nb / 4 < 1024 ? (nb / 4 > 128 ? nb / 4 : 128) : 1024;
        cost = pts * (1.0 + 55.0 / batch) + 3.0 * nb;
        /* G1 additions are cheap enough that buckets spilling out of
         * a 2 MiB share of the cache show: BLS12-381 G1 at 2^20 points
         * runs 6% faster with c = 15 (1.5 MiB of buckets) than with 16
         * (3 MiB), BN254 G1 best at 16 (2 MiB). G2 measured
         * compute-bound. */
        if (point_bytes < 128 && nb * (double)point_bytes > 2.0 * 1024 * 1024) cost += 0.1 * pts;
    } else if (path == ZP_MSM_SORTED) {
        cost = pts + 2.0 * nb;
    } else {
        cost = pts + 2.4 * nb;
    }
    return cost;
}

/* A tabled MSM's cost in the same units: every window's points into one
 * set of buckets per tile, each tile reducing all of them; a reduction's
 * steps are small flushes, which make its additions cost about 2.5
 * units per bucket (at 2^11 points on two workers c = 11 measured
 * faster than 12, which this model ties without it). */
static double tabled_cost(unsigned c, unsigned windows, size_t tiles, double pts) {
    double nb = (double)((size_t)1 << (c - 1));
    return pts * windows + 2.5 * nb * (double)tiles;
}

/* Tiles of a tabled MSM: one per worker, no more than windows. */
static size_t tabled_tiles(unsigned windows, size_t threads) {
    size_t t = threads > 0 ? threads : 1;
    return t < windows ? t : windows;
}

unsigned zp_msm_table_copies(unsigned c) { return zp_msm_windows(c, ZP_MSM_SCALAR_BITS); }

unsigned zp_msm_table_c(size_t n, size_t threads) {
    unsigned best = 4;
    double best_cost = 0;
    for (unsigned c = 4; c <= 16; c++) {
        unsigned w = zp_msm_table_copies(c);
        double cost = tabled_cost(c, w, tabled_tiles(w, threads), (double)n + 1.0);
        if (c == 4 || cost < best_cost) {
            best = c;
            best_cost = cost;
        }
    }
    return best;
}

void zp_msm_plan_make(zp_msm_plan *plan, zp_msm_path path, size_t n, size_t n_big, unsigned bits, size_t point_bytes,
                      size_t threads) {
    if (path == ZP_MSM_AUTO) path = n <= ZP_MSM_SORTED_MAX_N ? ZP_MSM_SORTED : ZP_MSM_AFFINE;
    if (n >= ((size_t)1 << 31)) path = ZP_MSM_XYZZ; /* the tiles' lists hold 31-bit indices */
    double pts = (double)n_big + 1.0;
    unsigned best = 1;
    double best_cost = 0;
    for (unsigned c = 1; c <= 20; c++) {
        double cost = window_cost(path, c, pts, point_bytes) * (double)zp_msm_windows(c, bits);
        if (c == 1 || cost < best_cost) {
            best = c;
            best_cost = cost;
        }
    }
    plan->tabled = 0;
    plan->path = path;
    plan->bits = bits;
    plan->c = best;
    plan->windows = zp_msm_windows(best, bits);
    plan->chunks = 1;
    plan->group = 1;
    if (path == ZP_MSM_SORTED) {
        /* two groups per worker, each as many entries as a tile holds */
        size_t want = 2 * threads, per = (plan->windows + want - 1) / want;
        size_t cap = n > 0 ? ZP_MSM_SORTED_ENTRIES / n : per;
        plan->group = (unsigned)(per < cap ? per : cap > 1 ? cap : 1);
    } else {
        while ((size_t)plan->windows * plan->chunks < 2 * threads && n / (plan->chunks * 2) >= 1024) plan->chunks *= 2;
    }
    plan->chunk_len = n == 0 ? 0 : (n + plan->chunks - 1) / plan->chunks;
    /* The scratch is sized for the plan of n full-size scalars: never a
     * wider window, a longer chunk or a larger group than that one. */
    if (bits < ZP_MSM_SCALAR_BITS || n_big < n) {
        zp_msm_plan full;
        zp_msm_plan_make(&full, path, n, n, ZP_MSM_SCALAR_BITS, point_bytes, threads);
        if (plan->c > full.c) {
            plan->c = full.c;
            plan->windows = zp_msm_windows(full.c, bits);
        }
        if (plan->chunk_len > full.chunk_len) {
            plan->chunk_len = full.chunk_len;
            plan->chunks = (n + full.chunk_len - 1) / full.chunk_len;
        }
        if (plan->group > full.group) plan->group = full.group;
    }
}

void zp_msm_plan_tabled(zp_msm_plan *plan, size_t n, size_t n_big, unsigned bits, unsigned c, size_t point_bytes,
                        size_t threads, int force) {
    zp_msm_plan_make(plan, ZP_MSM_AUTO, n, n_big, bits, point_bytes, threads);
    if (n == 0 || bits == 0) return;
    if ((uint64_t)zp_msm_table_copies(c) * n >= ((uint64_t)1 << 31)) return; /* 31-bit entries */
    double pts = (double)n_big + 1.0;
    double plain = window_cost(plan->path, plan->c, pts, point_bytes) * (double)plan->windows;
    unsigned windows = zp_msm_windows(c, bits);
    size_t tiles = tabled_tiles(windows, threads);
    if (!force && tabled_cost(c, windows, tiles, pts) >= plain) return;
    plan->path = ZP_MSM_SORTED;
    plan->tabled = 1;
    plan->bits = bits;
    plan->c = c;
    plan->windows = windows;
    plan->chunks = 1;
    plan->chunk_len = n;
    plan->group = (unsigned)((windows + tiles - 1) / tiles);
}

/* ZP_M_IFMA: the words of a coordinate, naming the eight-lane batch
 * arithmetic of msm_simd.h; its base field and that field's words */
#define ZP_M zp_bn254_g1
#define ZP_M_F zp_bn254_fp
#define ZP_M_IFMA 4
#define ZP_M_IFMA_BASE zp_bn254_fp
#define ZP_M_IFMA_NW 4
#include "msm/msm_impl.h"
#define ZP_M zp_bn254_g2
#define ZP_M_IFMA 8
#define ZP_M_IFMA_BASE zp_bn254_fp
#define ZP_M_IFMA_NW 4
#define ZP_M_F zp_bn254_fp2
#include "msm/msm_impl.h"
#define ZP_M zp_bls12_g1
#define ZP_M_IFMA 6
#define ZP_M_IFMA_BASE zp_bls12_fp
#define ZP_M_IFMA_NW 6
#define ZP_M_F zp_bls12_fp
#include "msm/msm_impl.h"
#define ZP_M zp_bls12_g2
#define ZP_M_IFMA 12
#define ZP_M_IFMA_BASE zp_bls12_fp
#define ZP_M_IFMA_NW 6
#define ZP_M_F zp_bls12_fp2
#include "msm/msm_impl.h"
