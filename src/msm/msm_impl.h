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

static void M_(xyzz_tile)(MX *buckets, MJ *result, const MA *points, const uint64_t *scalars, size_t begin, size_t end,
                          unsigned w, unsigned c) {
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

/* The lanes a tile of this group takes on its path, from the job's
 * (ZP_MSM_LANES_*, 0: none): the IFMA lanes everywhere; the FMA lanes
 * (msm_fma.c) for BN254's coordinates only (4 and 8 words), and only when
 * streaming: on the sorted path's small MSMs they measured slower than
 * the scalar code. */
static int M_(tile_lanes)(int simd, zp_msm_path path) {
    if (simd != ZP_MSM_LANES_FMA) return simd;
    return (ZP_M_IFMA == 4 || ZP_M_IFMA == 8) && path == ZP_MSM_AFFINE ? simd : 0;
}

void M_(msm_job_tile)(void *arg, size_t tile, size_t worker) {
    zp_msm_job *job = arg;
    size_t k = 0;
    while (k + 1 < job->count && tile >= job->parts[k + 1].first_tile) k++;
    const zp_msm_part *part = &job->parts[k];
    const zp_msm_plan *pl = &part->plan;
    const MA *points = part->points;
    MJ *results = part->results;
    size_t t = tile - part->first_tile, groups = zp_msm_plan_groups(pl);
    unsigned w = (unsigned)(t % groups) * pl->group;
    size_t chunk = t / groups, r = chunk * pl->windows + w;
    size_t begin = chunk * pl->chunk_len;
    size_t end = begin + pl->chunk_len < part->n ? begin + pl->chunk_len : part->n;
    void *mem = job->workspace + worker * job->ws_size;
    if (begin >= end) {
        M_(j_set_inf)(&results[r]);
    } else if (pl->path == ZP_MSM_SORTED) {
        /* one chunk: all the points */
        size_t nw = pl->windows - w < pl->group ? pl->windows - w : pl->group;
        M_(affine_ws) ws;
        M_(sorted_ws_layout)(&ws, (uintptr_t)mem, part->n, pl->c, pl->group, pl->tabled,
                             M_(tile_lanes)(job->simd, pl->path));
        M_(sorted_tile)(&ws, &results[r], points, part->scalars, part->n, w, nw, pl->c, pl->tabled);
    } else if (pl->path == ZP_MSM_AFFINE) {
        M_(affine_ws) ws;
        M_(affine_ws_layout)(&ws, (uintptr_t)mem, pl->chunk_len, pl->c, M_(tile_lanes)(job->simd, pl->path));
        M_(affine_tile)(&ws, &results[r], points, part->scalars, begin, end, w, pl->c, pl->bits);
    } else {
        M_(xyzz_tile)(mem, &results[r], points, part->scalars, begin, end, w, pl->c);
    }
}

static size_t M_(ws_size)(const zp_msm_plan *pl) {
    size_t s = pl->path == ZP_MSM_SORTED   ? M_(sorted_ws_size)(pl->chunk_len, pl->c, pl->group, pl->tabled)
               : pl->path == ZP_MSM_AFFINE ? M_(affine_ws_size)(pl->chunk_len, pl->c)
                                           : ((size_t)1 << (pl->c - 1)) * sizeof(MX);
    return (s + 63) & ~(size_t)63;
}

/* The plan of n full-size scalars on a path (AUTO: the one msm_var would
 * take for n points). It sizes the scratch: every other plan for n points
 * is clamped to its window, chunk and group (zp_msm_plan_make). */
static void M_(full_plan)(zp_msm_plan *pl, size_t n, size_t threads, zp_msm_path path) {
    zp_msm_plan_make(pl, path, n, n, ZP_MSM_SCALAR_BITS, sizeof(MA), threads);
}

/* The most results (windows × chunks) a plan for n points can have.
 * Windows are at most windows(1, 255); a sorted plan has one chunk; a
 * streaming one doubles its chunks only while windows × chunks < 2·threads
 * (so ends below 4·threads), or has the full plan's chunks. */
static size_t M_(max_results)(size_t n, size_t threads, zp_msm_path path) {
    zp_msm_plan full;
    M_(full_plan)(&full, n, threads, path);
    size_t most = (size_t)zp_msm_windows(1, ZP_MSM_SCALAR_BITS) * full.chunks;
    return most > 4 * threads ? most : 4 * threads;
}

static size_t M_(max_ws)(size_t n, size_t threads, zp_msm_path path) {
    zp_msm_plan full;
    M_(full_plan)(&full, n, threads, path);
    return M_(ws_size)(&full);
}

static size_t M_(workspace_size)(const size_t *n, const zp_msm_table *const *tables, size_t count, size_t threads,
                                 zp_msm_path path) {
    size_t ws = 0;
    for (size_t k = 0; k < count; k++) {
        size_t s = M_(max_ws)(n[k], threads, path);
        if (s > ws) ws = s;
        if (tables != NULL && tables[k] != NULL) {
            /* a part with a table: its plan of n full-size scalars over
             * the table as well as the plain one (a witness's scalars may
             * take either) */
            zp_msm_plan full;
            zp_msm_plan_tabled(&full, n[k], n[k], ZP_MSM_SCALAR_BITS, tables[k]->c, sizeof(MA), threads, 1);
            s = M_(ws_size)(&full);
            if (s > ws) ws = s;
        }
    }
    return threads * ws;
}

static size_t M_(results_size)(const size_t *n, size_t count, size_t threads, zp_msm_path path) {
    size_t r = 0;
    for (size_t k = 0; k < count; k++) r += M_(max_results)(n[k], threads, path);
    return (r * sizeof(MJ) + 63) & ~(size_t)63;
}

size_t M_(msm_job_workspace_size)(const size_t *n, const zp_msm_table *const *tables, size_t count, size_t threads) {
    return M_(workspace_size)(n, tables, count, threads, ZP_MSM_AUTO);
}

size_t M_(msm_job_results_size)(const size_t *n, size_t count, size_t threads) {
    return M_(results_size)(n, count, threads, ZP_MSM_AUTO);
}

size_t M_(msm_many_scratch_size)(const size_t *n, size_t count, size_t threads) {
    return M_(msm_job_workspace_size)(n, NULL, count, threads) + M_(msm_job_results_size)(n, count, threads) + 64;
}

size_t M_(msm_path_scratch_size)(size_t n, size_t threads, zp_msm_path path) {
    return M_(workspace_size)(&n, NULL, 1, threads, path) + M_(results_size)(&n, 1, threads, path) + 64;
}

size_t M_(msm_scratch_size)(size_t n, size_t threads) { return M_(msm_path_scratch_size)(n, threads, ZP_MSM_AUTO); }

/* Plans every part and lays out the workers' workspaces and the tiles'
 * results. */
static void M_(job_begin_path)(zp_msm_job *job, MJ *const *out, const MA *const *points, const uint64_t *const *scalars,
                               const size_t *n, const zp_msm_table *const *tables, size_t count, void *results_mem,
                               void *workspace, const zp_parallel *par, zp_msm_path path) {
    size_t threads = zp_parallel_threads(par), tiles = 0, ws_size = 0;
    job->count = count;
    for (size_t k = 0; k < count; k++) {
        zp_msm_part *pt = &job->parts[k];
        unsigned bits = 0;
        size_t n_big = 0;
        pt->out = out[k];
        pt->points = points[k];
        pt->scalars = scalars[k];
        pt->n = n[k];
        M_(j_set_inf)(out[k]);
        zp_msm_scan_var(pt->scalars, pt->n, &bits, &n_big);
        if (bits == 0) pt->n = 0; /* all zero: no tiles */
        const zp_msm_table *table = tables != NULL ? tables[k] : NULL;
        if (table != NULL && path == ZP_MSM_AUTO && table->n == pt->n) {
            zp_msm_plan_tabled(&pt->plan, pt->n, n_big, bits, table->c, sizeof(MA), threads, table->force);
            if (pt->plan.tabled) pt->points = table->points;
        } else {
            zp_msm_plan_make(&pt->plan, path, pt->n, n_big, bits, sizeof(MA), threads);
        }
        if (pt->n == 0) pt->plan.chunks = 0;
        pt->first_tile = tiles;
        tiles += zp_msm_plan_groups(&pt->plan) * pt->plan.chunks;
        size_t s = M_(ws_size)(&pt->plan);
        if (s > ws_size) ws_size = s;
    }
    job->tiles = tiles;
    job->workspace = workspace;
    job->ws_size = ws_size;
    job->simd = zp_ifma_enabled(par) ? ZP_MSM_LANES_IFMA : zp_fma_enabled(par) ? ZP_MSM_LANES_FMA : 0;
    MJ *results = results_mem;
    for (size_t k = 0; k < count; k++) {
        job->parts[k].results = results;
        results += (size_t)job->parts[k].plan.windows * job->parts[k].plan.chunks;
    }
}

/* msm_many's layout of its scratch: the results, then the workspaces
 * (placing them takes the results' size: one full plan per part). */
static void M_(job_begin_in)(zp_msm_job *job, MJ *const *out, const MA *const *points, const uint64_t *const *scalars,
                             const size_t *n, size_t count, void *scratch, const zp_parallel *par, zp_msm_path path) {
    char *base = (char *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    char *workspace = base + M_(results_size)(n, count, zp_parallel_threads(par), path);
    M_(job_begin_path)(job, out, points, scalars, n, NULL, count, base, workspace, par, path);
}

void M_(msm_job_begin)(zp_msm_job *job, MJ *const *out, const MA *const *points, const uint64_t *const *scalars,
                       const size_t *n, const zp_msm_table *const *tables, size_t count, void *results, void *workspace,
                       const zp_parallel *par) {
    M_(job_begin_path)(job, out, points, scalars, n, tables, count, results, workspace, par, ZP_MSM_AUTO);
}

/* Part k's sum: Horner over the windows, top first, acc = 2^c·acc +
 * window sum; tabled, the sum of the tiles' results. A task function, so
 * that a caller may run the parts' Horners in parallel. */
void M_(msm_job_end_part)(void *arg, size_t k, size_t worker) {
    (void)worker;
    const zp_msm_job *job = arg;
    const zp_msm_part *pt = &job->parts[k];
    const MJ *results = pt->results;
    MJ acc;
    M_(j_set_inf)(&acc);
    if (pt->plan.chunks == 0) return;
    if (pt->plan.tabled) {
        for (unsigned w = 0; w < pt->plan.windows; w += pt->plan.group) M_(j_add_var)(&acc, &acc, &results[w]);
        *(MJ *)pt->out = acc;
        return;
    }
    for (unsigned w = pt->plan.windows; w-- > 0;) {
        for (unsigned b = 0; b < pt->plan.c && !M_(j_is_inf)(&acc); b++) M_(j_dbl)(&acc, &acc);
        for (size_t ch = 0; ch < pt->plan.chunks; ch++) {
            M_(j_add_var)(&acc, &acc, &results[ch * pt->plan.windows + w]);
        }
    }
    *(MJ *)pt->out = acc;
}

void M_(msm_job_end)(const zp_msm_job *job) {
    for (size_t k = 0; k < job->count; k++) M_(msm_job_end_part)((void *)job, k, 0);
}

size_t M_(msm_table_bytes)(size_t n, unsigned c) { return (size_t)zp_msm_table_copies(c) * n * sizeof(MA); }

/* A table's points in chunks of ZP_MSM_TABLE_CHUNK, one task each: c
 * doublings (Jacobian) from one copy to the next, every copy of the chunk
 * made affine with one inversion. */
#ifndef ZP_MSM_TABLE_CHUNK
#define ZP_MSM_TABLE_CHUNK 64
#endif
typedef struct {
    MA *mem;
    const MA *points;
    size_t n;
    unsigned c, copies;
} M_(table_job);

static void M_(table_task)(void *arg, size_t t, size_t worker) {
    (void)worker;
    const M_(table_job) *job = arg;
    size_t begin = t * ZP_MSM_TABLE_CHUNK;
    size_t len = job->n - begin < ZP_MSM_TABLE_CHUNK ? job->n - begin : ZP_MSM_TABLE_CHUNK;
    MJ cur[ZP_MSM_TABLE_CHUNK];
    FT tmp[2 * ZP_MSM_TABLE_CHUNK];
    for (size_t i = 0; i < len; i++) {
        MA p;
        memcpy(&p, &job->points[begin + i], sizeof p); /* any alignment */
        job->mem[begin + i] = p;
        M_(j_from_affine)(&cur[i], &p);
    }
    for (unsigned j = 1; j < job->copies; j++) {
        for (size_t i = 0; i < len; i++) {
            for (unsigned b = 0; b < job->c; b++) M_(j_dbl)(&cur[i], &cur[i]);
        }
        M_(j_batch_to_affine_var)(job->mem + (size_t)j * job->n + begin, cur, len, tmp);
    }
}

void M_(msm_table_build)(zp_msm_table *table, MA *mem, const MA *points, size_t n, unsigned c, const zp_parallel *par) {
    M_(table_job) job = {mem, points, n, c, zp_msm_table_copies(c)};
    zp_parallel_for(par, (n + ZP_MSM_TABLE_CHUNK - 1) / ZP_MSM_TABLE_CHUNK, M_(table_task), &job);
    table->points = mem;
    table->n = n;
    table->c = c;
    table->force = 0;
}

/* Several MSMs of one group as one parallel loop over all their tiles, so
 * no worker idles at the end of each (the prover's A, B1, C and H). */
void M_(msm_many_var)(MJ **out, const MA *const *points, const uint64_t *const *scalars, const size_t *n, size_t count,
                      void *scratch, const zp_parallel *par) {
    zp_msm_job job;
    for (size_t done = 0; done < count; done += ZP_MSM_JOB_MAX) {
        size_t m = count - done < ZP_MSM_JOB_MAX ? count - done : ZP_MSM_JOB_MAX;
        M_(job_begin_in)(&job, out + done, points + done, scalars + done, n + done, m, scratch, par, ZP_MSM_AUTO);
        zp_parallel_for(par, job.tiles, M_(msm_job_tile), &job);
        zp_parallel_for(par, job.count, M_(msm_job_end_part), &job);
    }
}

void M_(msm_path_var)(MJ *out, const MA *points, const uint64_t *scalars, size_t n, void *scratch,
                      const zp_parallel *par, zp_msm_path path) {
    zp_msm_job job;
    M_(job_begin_in)(&job, &out, &points, &scalars, &n, 1, scratch, par, path);
    zp_parallel_for(par, job.tiles, M_(msm_job_tile), &job);
    M_(msm_job_end)(&job);
}

void M_(msm_var)(MJ *out, const MA *points, const uint64_t *scalars, size_t n, void *scratch, const zp_parallel *par) {
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
