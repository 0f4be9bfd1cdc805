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
 * in XYZZ coordinates; the batch-affine additions run on eight lanes where
 * the CPU has AVX-512 IFMA (msm_simd.h; ZP_M_IFMA and its companions name
 * the instance). */
#define ZP_CAT_(a, b) a##b
#define ZP_CAT(a, b) ZP_CAT_(a, b)
#define M_(name) ZP_CAT(ZP_M, _##name)
#define K_(name) ZP_CAT(ZP_M_F, _##name)
#define FT ZP_M_F
#define MA ZP_M
#define MJ ZP_CAT(ZP_M, j)
#define MX ZP_CAT(ZP_M, xyzz)

#include "msm/msm_affine_impl.h"
#include "msm/msm_sorted_impl.h"

typedef struct {
    MJ *out;
    const MA *points;
    const uint64_t *scalars;
    size_t n;
    zp_msm_plan plan;
    size_t first_tile; /* in the combined tile numbering */
    MJ *results;       /* per window and chunk: windows × chunks */
} M_(msm_part);

typedef struct {
    M_(msm_part) *parts;
    size_t count;
    char *workspace; /* per worker: ws_size bytes */
    size_t ws_size;
    int simd; /* the lanes, as the caller's zp_parallel says */
} M_(msm_job);

static void M_(xyzz_tile)(MX *buckets, MJ *result, const MA *points, const uint64_t *scalars, size_t begin,
                          size_t end, unsigned w, unsigned c) {
    size_t nb = (size_t)1 << (c - 1);
    for (size_t b = 0; b < nb; b++) M_(xyzz_set_inf)(&buckets[b]);
    for (size_t i = begin; i < end; i++) {
        int64_t d = zp_msm_booth_digit(scalars + 4 * i, w, c);
        if (d == 0) continue;
        MA p;
        M_(load)(&p, &points[i], d < 0); /* any alignment */
        M_(xyzz_add_affine_var)(&buckets[(d < 0 ? -d : d) - 1], &buckets[(d < 0 ? -d : d) - 1], &p);
    }
    /* sum_b (b+1)·bucket[b] = sum over b of the running sums from the top */
    MX running, total;
    M_(xyzz_set_inf)(&running);
    M_(xyzz_set_inf)(&total);
    for (size_t b = nb; b-- > 0;) {
        M_(xyzz_add_var)(&running, &running, &buckets[b]);
        M_(xyzz_add_var)(&total, &total, &running);
    }
    M_(xyzz_to_j)(result, &total);
}

static void M_(msm_tile)(void *arg, size_t tile, size_t worker) {
    M_(msm_job) *job = arg;
    size_t k = 0;
    while (k + 1 < job->count && tile >= job->parts[k + 1].first_tile) k++;
    M_(msm_part) *part = &job->parts[k];
    const zp_msm_plan *pl = &part->plan;
    size_t t = tile - part->first_tile, groups = zp_msm_plan_groups(pl);
    unsigned w = (unsigned)(t % groups) * pl->group;
    size_t chunk = t / groups, r = chunk * pl->windows + w;
    size_t begin = chunk * pl->chunk_len;
    size_t end = begin + pl->chunk_len < part->n ? begin + pl->chunk_len : part->n;
    void *mem = job->workspace + worker * job->ws_size;
    if (begin >= end) {
        M_(j_set_inf)(&part->results[r]);
    } else if (pl->path == ZP_MSM_SORTED) {
        /* one chunk: all the points */
        size_t nw = pl->windows - w < pl->group ? pl->windows - w : pl->group;
        M_(affine_ws) ws;
        M_(sorted_ws_layout)(&ws, (uintptr_t)mem, part->n, pl->c, pl->group, job->simd);
        M_(sorted_tile)(&ws, &part->results[r], part->points, part->scalars, part->n, w, nw, pl->c);
    } else if (pl->path == ZP_MSM_AFFINE) {
        M_(affine_ws) ws;
        M_(affine_ws_layout)(&ws, (uintptr_t)mem, pl->chunk_len, pl->c, job->simd);
        M_(affine_tile)(&ws, &part->results[r], part->points, part->scalars, begin, end, w, pl->c, pl->bits);
    } else {
        M_(xyzz_tile)(mem, &part->results[r], part->points, part->scalars, begin, end, w, pl->c);
    }
}

static size_t M_(ws_size)(const zp_msm_plan *pl) {
    size_t s = pl->path == ZP_MSM_SORTED   ? M_(sorted_ws_size)(pl->chunk_len, pl->c, pl->group)
               : pl->path == ZP_MSM_AFFINE ? M_(affine_ws_size)(pl->chunk_len, pl->c)
                                           : ((size_t)1 << (pl->c - 1)) * sizeof(MX);
    return (s + 63) & ~(size_t)63;
}

/* The most tiles any plan can have (fewer windows mean more chunks). */
static size_t M_(max_tiles)(size_t threads) { return (size_t)zp_msm_windows(1, ZP_MSM_SCALAR_BITS) * 4 * threads; }

/* The largest per-worker workspace any plan for n points can need: the
 * plans of n full-size scalars have the widest windows and longest chunks,
 * and every other plan is clamped to them. */
static size_t M_(max_ws)(size_t n, size_t threads) {
    size_t ws = 0;
    for (int p = ZP_MSM_XYZZ; p <= ZP_MSM_SORTED; p++) {
        zp_msm_plan pl;
        zp_msm_plan_make(&pl, (zp_msm_path)p, n, n, ZP_MSM_SCALAR_BITS, sizeof(MA), threads);
        size_t s = M_(ws_size)(&pl);
        if (s > ws) ws = s;
    }
    return ws;
}

size_t M_(msm_many_scratch_size)(const size_t *n, size_t count, size_t threads) {
    size_t ws = 0;
    for (size_t k = 0; k < count; k++) {
        size_t s = M_(max_ws)(n[k], threads);
        if (s > ws) ws = s;
    }
    return threads * ws + count * M_(max_tiles)(threads) * sizeof(MJ) + 64;
}

size_t M_(msm_scratch_size)(size_t n, size_t threads) { return M_(msm_many_scratch_size)(&n, 1, threads); }

/* Several MSMs of one group as one parallel loop over all their tiles, so
 * no worker idles at the end of each (the prover's A, B1, C and H). */
static void M_(msm_run)(M_(msm_part) *parts, size_t count, void *scratch, const zp_parallel *par,
                        zp_msm_path path) {
    size_t threads = zp_parallel_threads(par), tiles = 0, ws_size = 0;
    char *base = (char *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    for (size_t k = 0; k < count; k++) {
        M_(msm_part) *pt = &parts[k];
        unsigned bits = 0;
        size_t n_big = 0;
        M_(j_set_inf)(pt->out);
        zp_msm_scan_var(pt->scalars, pt->n, &bits, &n_big);
        if (bits == 0) pt->n = 0; /* all zero: no tiles */
        zp_msm_plan_make(&pt->plan, path, pt->n, n_big, bits, sizeof(MA), threads);
        if (pt->n == 0) pt->plan.chunks = 0;
        pt->first_tile = tiles;
        tiles += zp_msm_plan_groups(&pt->plan) * pt->plan.chunks;
        size_t s = M_(ws_size)(&pt->plan);
        if (s > ws_size) ws_size = s;
    }
    M_(msm_job) job = {parts, count, base, ws_size, zp_ifma_enabled(par)};
    MJ *results = (MJ *)(base + threads * ws_size);
    for (size_t k = 0; k < count; k++) {
        parts[k].results = results;
        results += (size_t)parts[k].plan.windows * parts[k].plan.chunks;
    }
    zp_parallel_for(par, tiles, M_(msm_tile), &job);

    /* Horner over the windows, top first: acc = 2^c·acc + window sum */
    for (size_t k = 0; k < count; k++) {
        const M_(msm_part) *pt = &parts[k];
        MJ acc;
        M_(j_set_inf)(&acc);
        if (pt->plan.chunks == 0) continue;
        for (unsigned w = pt->plan.windows; w-- > 0;) {
            for (unsigned b = 0; b < pt->plan.c && !M_(j_is_inf)(&acc); b++) M_(j_dbl)(&acc, &acc);
            for (size_t ch = 0; ch < pt->plan.chunks; ch++) {
                M_(j_add_var)(&acc, &acc, &pt->results[ch * pt->plan.windows + w]);
            }
        }
        *pt->out = acc;
    }
}

void M_(msm_many_var)(MJ **out, const MA *const *points, const uint64_t *const *scalars, const size_t *n,
                  size_t count, void *scratch, const zp_parallel *par) {
    M_(msm_part) parts[8];
    for (size_t done = 0; done < count; done += 8) {
        size_t m = count - done < 8 ? count - done : 8;
        for (size_t k = 0; k < m; k++) {
            parts[k].out = out[done + k];
            parts[k].points = points[done + k];
            parts[k].scalars = scalars[done + k];
            parts[k].n = n[done + k];
        }
        M_(msm_run)(parts, m, scratch, par, ZP_MSM_AUTO);
    }
}

void M_(msm_path_var)(MJ *out, const MA *points, const uint64_t *scalars, size_t n, void *scratch,
                  const zp_parallel *par, zp_msm_path path) {
    M_(msm_part) part = {out, points, scalars, n, {0}, 0, NULL};
    M_(msm_run)(&part, 1, scratch, par, path);
}

void M_(msm_var)(MJ *out, const MA *points, const uint64_t *scalars, size_t n, void *scratch,
             const zp_parallel *par) {
    M_(msm_path_var)(out, points, scalars, n, scratch, par, ZP_MSM_AUTO);
}

#undef M_
#undef K_
#undef FT
#undef MA
#undef MJ
#undef MX
#undef ZP_M
#undef ZP_M_F
#undef ZP_M_IFMA
#undef ZP_M_IFMA_BASE
#undef ZP_M_IFMA_NW
