/* Pippenger multi-scalar multiplication for one group, instantiated per
 * group by msm.c with ZP_M set to the group prefix (e.g. zp_bn254_g1) and
 * ZP_M_F to its coordinate field.
 *
 * Signed (Booth) windows: window w of a scalar k takes the c+1 bits
 * k[wc-1 .. wc+c-1] and yields a digit d in [-2^(c-1), 2^(c-1)] with
 * sum_w d_w 2^(wc) = k, so only 2^(c-1) buckets are needed and a negative
 * digit adds the negated point. The windows stop at the largest scalar's
 * bit length, and the window width comes from a cost model fed with the
 * count of scalars above 1 (zp_msm_plan_make).
 *
 * Work is split into (window, point range) tiles; each worker sums its tile
 * into buckets, reduces them to one point with the running-sum trick, and
 * the tiles' results are combined at the end (Horner over the windows).
 * Buckets accumulate batch-affine (msm_affine_impl.h) or, for small inputs,
 * in XYZZ coordinates. */
#define ZP_CAT_(a, b) a##b
#define ZP_CAT(a, b) ZP_CAT_(a, b)
#define M_(name) ZP_CAT(ZP_M, _##name)
#define K_(name) ZP_CAT(ZP_M_F, _##name)
#define FT ZP_M_F
#define MA ZP_M
#define MJ ZP_CAT(ZP_M, j)
#define MX ZP_CAT(ZP_M, xyzz)

#include "msm/msm_affine_impl.h"

typedef struct {
    const MA *points;
    const uint64_t *scalars;
    size_t n;
    zp_msm_plan plan;
    char *workspace; /* per worker: ws_size bytes */
    size_t ws_size;
    MJ *results; /* per tile: windows × chunks */
} M_(msm_job);

static void M_(xyzz_tile)(MX *buckets, MJ *result, const MA *points, const uint64_t *scalars, size_t begin,
                          size_t end, unsigned w, unsigned c) {
    size_t nb = (size_t)1 << (c - 1);
    for (size_t b = 0; b < nb; b++) M_(xyzz_set_inf)(&buckets[b]);
    for (size_t i = begin; i < end; i++) {
        int64_t d = zp_msm_booth_digit(scalars + 4 * i, w, c);
        if (d == 0) continue;
        if (d > 0) {
            M_(xyzz_add_affine)(&buckets[d - 1], &buckets[d - 1], &points[i]);
        } else {
            MA neg;
            M_(neg)(&neg, &points[i]);
            M_(xyzz_add_affine)(&buckets[-d - 1], &buckets[-d - 1], &neg);
        }
    }
    /* sum_b (b+1)·bucket[b] = sum over b of the running sums from the top */
    MX running, total;
    M_(xyzz_set_inf)(&running);
    M_(xyzz_set_inf)(&total);
    for (size_t b = nb; b-- > 0;) {
        M_(xyzz_add)(&running, &running, &buckets[b]);
        M_(xyzz_add)(&total, &total, &running);
    }
    M_(xyzz_to_j)(result, &total);
}

static void M_(msm_tile)(void *arg, size_t tile, size_t worker) {
    M_(msm_job) *job = arg;
    const zp_msm_plan *pl = &job->plan;
    unsigned w = (unsigned)(tile % pl->windows);
    size_t chunk = tile / pl->windows;
    size_t begin = chunk * pl->chunk_len;
    size_t end = begin + pl->chunk_len < job->n ? begin + pl->chunk_len : job->n;
    void *mem = job->workspace + worker * job->ws_size;
    if (begin >= end) {
        M_(j_set_inf)(&job->results[tile]);
    } else if (pl->path == ZP_MSM_AFFINE) {
        M_(affine_ws) ws;
        M_(affine_ws_init)(&ws, mem, pl->chunk_len, pl->c);
        M_(affine_tile)(&ws, &job->results[tile], job->points, job->scalars, begin, end, w, pl->c);
    } else {
        M_(xyzz_tile)(mem, &job->results[tile], job->points, job->scalars, begin, end, w, pl->c);
    }
}

static size_t M_(ws_size)(const zp_msm_plan *pl) {
    size_t s = pl->path == ZP_MSM_AFFINE ? M_(affine_ws_size)(pl->chunk_len, pl->c)
                                         : ((size_t)1 << (pl->c - 1)) * sizeof(MX);
    return (s + 63) & ~(size_t)63;
}

/* The most tiles any plan for n points can have (fewer windows mean more
 * chunks): for the results array. */
static size_t M_(max_tiles)(size_t threads) { return (size_t)zp_msm_windows(1, ZP_MSM_SCALAR_BITS) * 4 * threads; }

size_t M_(msm_scratch_size)(size_t n, size_t threads) {
    size_t ws = 0;
    for (int p = ZP_MSM_XYZZ; p <= ZP_MSM_AFFINE; p++) {
        zp_msm_plan pl;
        zp_msm_plan_make(&pl, (zp_msm_path)p, n, n, ZP_MSM_SCALAR_BITS, threads);
        size_t s = M_(ws_size)(&pl);
        if (s > ws) ws = s;
    }
    return threads * ws + M_(max_tiles)(threads) * sizeof(MJ) + 64;
}

void M_(msm_path)(MJ *out, const MA *points, const uint64_t *scalars, size_t n, void *scratch,
                  const zp_parallel *par, zp_msm_path path) {
    M_(msm_job) job;
    size_t threads = zp_parallel_threads(par);
    unsigned bits;
    size_t n_big;
    M_(j_set_inf)(out);
    if (n == 0) return;
    zp_msm_scan(scalars, n, &bits, &n_big);
    if (bits == 0) return;
    job.points = points;
    job.scalars = scalars;
    job.n = n;
    zp_msm_plan_make(&job.plan, path, n, n_big, bits, threads);
    if (job.plan.path == ZP_MSM_AFFINE) {
        /* the workspace is sized for the plan of n full-size scalars, which
         * has the longest chunks */
        zp_msm_plan full;
        zp_msm_plan_make(&full, ZP_MSM_AFFINE, n, n, ZP_MSM_SCALAR_BITS, threads);
        if (job.plan.chunk_len > full.chunk_len) {
            job.plan.chunk_len = full.chunk_len;
            job.plan.chunks = (n + full.chunk_len - 1) / full.chunk_len;
        }
    }
    job.ws_size = M_(ws_size)(&job.plan);
    job.workspace = (char *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    job.results = (MJ *)(job.workspace + threads * job.ws_size);
    size_t tiles = (size_t)job.plan.windows * job.plan.chunks;
    zp_parallel_for(par, tiles, M_(msm_tile), &job);

    /* Horner over the windows, top first: acc = 2^c·acc + window sum */
    MJ acc;
    M_(j_set_inf)(&acc);
    for (unsigned w = job.plan.windows; w-- > 0;) {
        for (unsigned k = 0; k < job.plan.c && !M_(j_is_inf)(&acc); k++) M_(j_dbl)(&acc, &acc);
        for (size_t ch = 0; ch < job.plan.chunks; ch++) M_(j_add)(&acc, &acc, &job.results[ch * job.plan.windows + w]);
    }
    *out = acc;
}

void M_(msm)(MJ *out, const MA *points, const uint64_t *scalars, size_t n, void *scratch,
             const zp_parallel *par) {
    M_(msm_path)(out, points, scalars, n, scratch, par, ZP_MSM_AUTO);
}

/* The reference: sum of k_i·P_i by double-and-add, for tests. */
void M_(msm_naive)(MJ *out, const MA *points, const uint64_t *scalars, size_t n) {
    MJ acc, t, p;
    M_(j_set_inf)(&acc);
    for (size_t i = 0; i < n; i++) {
        M_(j_from_affine)(&p, &points[i]);
        M_(j_mul)(&t, &p, scalars + 4 * i, 4);
        M_(j_add)(&acc, &acc, &t);
    }
    *out = acc;
}

#undef M_
#undef K_
#undef FT
#undef MA
#undef MJ
#undef MX
#undef ZP_M
#undef ZP_M_F
