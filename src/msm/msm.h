/* Multi-scalar multiplication: out = sum_i k_i·P_i, for G1 and G2 of both
 * curves. Points are affine (infinity = all zero); scalars are plain
 * integers below the group order, 4 little-endian limbs each. The caller
 * provides scratch of msm_scratch_size(n, threads) bytes (8-byte aligned),
 * with threads = zp_parallel_threads(par); msm_path, which picks the path,
 * msm_path_scratch_size(n, threads, path). msm_many runs several MSMs of
 * one group as one parallel loop (scratch: msm_many_scratch_size).
 * Variable time (_var): the buckets a point goes to are its scalars'
 * digits, and zeros, ones and equal points take shortcuts. The scratch
 * sizes depend on the sizes only. */
#ifndef ZP_MSM_MSM_H
#define ZP_MSM_MSM_H

#include "base/parallel.h"
#include "curve/curve.h"
#include "zkpipe.h"

/* How the bucket sums are accumulated: XYZZ, batch-affine streaming
 * (msm_affine_impl.h), or batch-affine over digits sorted by bucket
 * (msm_sorted_impl.h). AUTO takes the sorted path up to
 * ZP_MSM_SORTED_MAX_N points and streaming above; every path can be
 * asked for, for tests. */
typedef enum { ZP_MSM_AUTO, ZP_MSM_XYZZ, ZP_MSM_AFFINE, ZP_MSM_SORTED } zp_msm_path;
#define ZP_MSM_SORTED_MAX_N ((size_t)1 << 14)
/* The sorted path's tile holds the entries of a group of windows: at
 * most this many (and one window, whatever n). */
#define ZP_MSM_SORTED_ENTRIES ((size_t)1 << 16)

/* The bits a scalar can have (both scalar fields are below 2^255). */
#define ZP_MSM_SCALAR_BITS 255

/* One MSM's shape: window width c, windows W (enough for the largest
 * scalar's bits plus the Booth carry), and the split of the work into
 * tiles that keep every worker busy: the points into chunks, the windows
 * into groups of `group` (1 but on the sorted path), a tile being one
 * chunk and one group. */
typedef struct {
    zp_msm_path path;
    unsigned c, windows;
    unsigned bits; /* of the largest scalar */
    size_t chunks, chunk_len;
    unsigned group;
    /* 1: the points are a table's (zp_msm_table): window w's digits
     * multiply copy w, so every window of a tile sums into one set of
     * buckets, and the tiles' results add up without doublings */
    int tabled;
} zp_msm_plan;

/* Precomputed multiples of an MSM's points, for a key that proves many
 * times (the prover context keeps them): copy j of the n points is
 * 2^(c·j)·P, j < copies = zp_msm_windows(c, ZP_MSM_SCALAR_BITS), affine,
 * copy 0 being the points themselves, at table[j·n]. With them window w's
 * digit d adds d·(copy w of P) to one shared set of buckets: an MSM of
 * n full-size scalars costs n·W additions and one bucket reduction per
 * tile instead of W (at 2^11 points, c = 11: 49K additions instead of
 * 74K), for W copies of the points' memory. */
typedef struct zp_msm_table {
    const void *points; /* copies·n affine points, copy j from j·n */
    size_t n;
    unsigned c; /* copies: zp_msm_table_copies(c) */
    int force;  /* 1: use it whatever the cost (tests); build sets 0 */
} zp_msm_table;

/* The window width of a table for n points whose MSMs run on `threads`
 * workers, and its copies. */
unsigned zp_msm_table_c(size_t n, size_t threads);
unsigned zp_msm_table_copies(unsigned c);

/* Several MSMs of one group as the tiles of a parallel loop that the
 * caller runs (msm_job_begin, then msm_job_tile for every tile in
 * [0, job.tiles) on any workers, then msm_job_end, or msm_job_end_part
 * for every part k < job.count on any workers), so that MSMs of two
 * groups can share one loop: the prover's G1 and G2 MSMs of a small key,
 * where one MSM alone does not keep two workers busy. msm_many is
 * begin, one zp_parallel_for, end. Group-neutral: the impl casts the
 * pointers back.
 *
 * begin takes two 64-byte aligned buffers: results, of
 * msm_job_results_size(n, count, threads) bytes, and workspace, of
 * msm_job_workspace_size(n, tables, count, threads), per worker. tables
 * (NULL: none; else one per part, NULL where a part has none) are the
 * parts' zp_msm_table, built for the part's points (n equal): a part
 * uses its table where that costs less than the plain plan. A worker runs
 * one tile at a time, so jobs run in one loop may share a workspace of
 * the larger size: zp_msm_jobs_share_workspace after both begins. */
#define ZP_MSM_JOB_MAX 8
typedef struct zp_msm_part {
    void *out;          /* the group's Jacobian point */
    const void *points; /* affine, any alignment */
    const uint64_t *scalars;
    size_t n;
    zp_msm_plan plan;
    size_t first_tile; /* in the job's tile numbering */
    void *results;     /* per window and chunk: windows × chunks Jacobian points */
} zp_msm_part;

typedef struct zp_msm_job {
    zp_msm_part parts[ZP_MSM_JOB_MAX];
    size_t count, tiles;
    char *workspace; /* per worker: ws_size bytes */
    size_t ws_size;
    int simd; /* the lanes, as the caller's zp_parallel says */
} zp_msm_job;

static inline void zp_msm_jobs_share_workspace(zp_msm_job *a, zp_msm_job *b) {
    size_t ws = a->ws_size > b->ws_size ? a->ws_size : b->ws_size;
    b->workspace = a->workspace;
    a->ws_size = b->ws_size = ws;
}

#define ZP_MSM_DECLARE(G)                                                                                             \
    size_t G##_msm_scratch_size(size_t n, size_t threads);                                                            \
    void G##_msm_var(G##j *out, const G *points, const uint64_t *scalars, size_t n, void *scratch,                    \
                     const zp_parallel *par);                                                                         \
    size_t G##_msm_path_scratch_size(size_t n, size_t threads, zp_msm_path path);                                     \
    void G##_msm_path_var(G##j *out, const G *points, const uint64_t *scalars, size_t n, void *scratch,               \
                          const zp_parallel *par, zp_msm_path path);                                                  \
    size_t G##_msm_many_scratch_size(const size_t *n, size_t count, size_t threads);                                  \
    void G##_msm_many_var(G##j **out, const G *const *points, const uint64_t *const *scalars, const size_t *n,        \
                          size_t count, void *scratch, const zp_parallel *par);                                       \
    size_t G##_msm_job_results_size(const size_t *n, size_t count, size_t threads);                                   \
    size_t G##_msm_job_workspace_size(const size_t *n, const zp_msm_table *const *tables, size_t count,               \
                                      size_t threads);                                                                \
    void G##_msm_job_begin(zp_msm_job *job, G##j *const *out, const G *const *points, const uint64_t *const *scalars, \
                           const size_t *n, const zp_msm_table *const *tables, size_t count, void *results,           \
                           void *workspace, const zp_parallel *par);                                                  \
    /* the table of n points (zp_msm_table) in table_bytes(n, c) bytes, any                            \
     * alignment of points; parallel over the points */              \
    size_t G##_msm_table_bytes(size_t n, unsigned c);                                                                 \
    void G##_msm_table_build(zp_msm_table *table, G *mem, const G *points, size_t n, unsigned c,                      \
                             const zp_parallel *par);                                                                 \
    void G##_msm_job_tile(void *job, size_t tile, size_t worker);                                                     \
    void G##_msm_job_end(const zp_msm_job *job);                                                                      \
    void G##_msm_job_end_part(void *job, size_t k, size_t worker);

ZP_MSM_DECLARE(zp_bn254_g1)
ZP_MSM_DECLARE(zp_bn254_g2)
ZP_MSM_DECLARE(zp_bls12_g1)
ZP_MSM_DECLARE(zp_bls12_g2)

/* Tiles per chunk: the window groups. */
static inline size_t zp_msm_plan_groups(const zp_msm_plan *plan) {
    return (plan->windows + plan->group - 1) / plan->group;
}

/* n points of point_bytes each (affine), of which n_big have scalars above
 * 1 (zeros cost nothing, ones one addition in window 0), the largest scalar
 * having `bits` bits. The window and chunk are never larger than in the
 * plan for n full-size scalars, which sizes the scratch. */
void zp_msm_plan_make(zp_msm_plan *plan, zp_msm_path path, size_t n, size_t n_big, unsigned bits, size_t point_bytes,
                      size_t threads);
/* The plan over a table of window width c when that costs less than
 * plan_make's AUTO plan (or force), which it is otherwise. */
void zp_msm_plan_tabled(zp_msm_plan *plan, size_t n, size_t n_big, unsigned bits, unsigned c, size_t point_bytes,
                        size_t threads, int force);
/* Window count for c-bit windows over scalars of `bits` bits. */
unsigned zp_msm_windows(unsigned c, unsigned bits);
/* The scan the plan needs: bit length of the largest scalar and the count
 * of scalars above 1. */
void zp_msm_scan_var(const uint64_t *scalars, size_t n, unsigned *bits, size_t *n_big);

/* Booth digit of window w (width c ≤ 20) of the 4-limb scalar k: the c+1
 * bits k[wc-1 .. wc+c-1] (the lowest borrowed from the window below, zero
 * for window 0) give d in [-2^(c-1), 2^(c-1)] with sum_w d_w 2^(wc) = k. */
static inline int64_t zp_msm_booth_digit(const uint64_t *k, unsigned w, unsigned c) {
    uint64_t v;
    if (w == 0) {
        v = k[0] << 1;
    } else {
        unsigned lo = w * c - 1, limb = lo / 64, shift = lo % 64;
        if (limb >= 4) return 0;
        v = k[limb] >> shift;
        if (shift != 0 && limb + 1 < 4) v |= k[limb + 1] << (64 - shift);
    }
    v &= ((uint64_t)1 << (c + 1)) - 1;
    int64_t x = (int64_t)(v >> 1), low = (int64_t)(v & 1), top = (int64_t)(v >> c);
    return x + low - (top << c);
}

#endif
