/* Pippenger multi-scalar multiplication for one group, instantiated per
 * group by msm.c with ZP_M set to the group prefix (e.g. zp_bn254_g1).
 *
 * Signed (Booth) windows: window w of a scalar k takes the c+1 bits
 * k[wc-1 .. wc+c-1] and yields a digit d in [-2^(c-1), 2^(c-1)] with
 * sum_w d_w 2^(wc) = k, so only 2^(c-1) buckets are needed and a negative
 * digit adds the negated point. Digits are computed on the fly from the
 * scalar, so nothing per point is stored.
 *
 * Work is split into (window, point range) tiles; each worker sums its tile
 * into its own XYZZ buckets, reduces them to one point with the running-sum
 * trick, and the tiles' results are combined at the end. */
#define ZP_CAT_(a, b) a##b
#define ZP_CAT(a, b) ZP_CAT_(a, b)
#define M_(name) ZP_CAT(ZP_M, _##name)
#define MA ZP_M
#define MJ ZP_CAT(ZP_M, j)
#define MX ZP_CAT(ZP_M, xyzz)

typedef struct {
    const MA *points;
    const uint64_t *scalars;
    size_t n;
    unsigned c, windows;
    size_t chunks, chunk_len;
    MX *buckets;  /* per worker: 2^(c-1) */
    MJ *results;  /* per tile: windows × chunks */
} M_(msm_job);

static void M_(msm_tile)(void *arg, size_t tile, size_t worker) {
    M_(msm_job) *job = arg;
    unsigned w = (unsigned)(tile % job->windows);
    size_t chunk = tile / job->windows;
    size_t begin = chunk * job->chunk_len;
    size_t end = begin + job->chunk_len < job->n ? begin + job->chunk_len : job->n;
    size_t nb = (size_t)1 << (job->c - 1);
    MX *buckets = job->buckets + worker * nb;
    for (size_t b = 0; b < nb; b++) M_(xyzz_set_inf)(&buckets[b]);

    for (size_t i = begin; i < end; i++) {
        int64_t d = zp_msm_booth_digit(job->scalars + 4 * i, w, job->c);
        if (d == 0) continue;
        if (d > 0) {
            M_(xyzz_add_affine)(&buckets[d - 1], &buckets[d - 1], &job->points[i]);
        } else {
            MA neg;
            M_(neg)(&neg, &job->points[i]);
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
    M_(xyzz_to_j)(&job->results[tile], &total);
}

size_t M_(msm_scratch_size)(size_t n, size_t threads) {
    unsigned c = zp_msm_window_bits(n);
    unsigned windows = zp_msm_windows(c);
    size_t chunks = zp_msm_chunks(n, windows, threads);
    return threads * ((size_t)1 << (c - 1)) * sizeof(MX) + (size_t)windows * chunks * sizeof(MJ);
}

void M_(msm)(MJ *out, const MA *points, const uint64_t *scalars, size_t n, void *scratch,
             const zp_parallel *par) {
    M_(msm_job) job;
    size_t threads = zp_parallel_threads(par);
    job.points = points;
    job.scalars = scalars;
    job.n = n;
    job.c = zp_msm_window_bits(n);
    job.windows = zp_msm_windows(job.c);
    job.chunks = zp_msm_chunks(n, job.windows, threads);
    job.chunk_len = (n + job.chunks - 1) / job.chunks;
    job.buckets = scratch;
    job.results = (MJ *)((char *)scratch + threads * ((size_t)1 << (job.c - 1)) * sizeof(MX));
    if (n == 0) {
        M_(j_set_inf)(out);
        return;
    }
    zp_parallel_for(par, (size_t)job.windows * job.chunks, M_(msm_tile), &job);

    /* Horner over the windows, top first: acc = 2^c·acc + window sum */
    MJ acc;
    M_(j_set_inf)(&acc);
    for (unsigned w = job.windows; w-- > 0;) {
        for (unsigned k = 0; k < job.c && !M_(j_is_inf)(&acc); k++) M_(j_dbl)(&acc, &acc);
        for (size_t ch = 0; ch < job.chunks; ch++) M_(j_add)(&acc, &acc, &job.results[ch * job.windows + w]);
    }
    *out = acc;
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
#undef MA
#undef MJ
#undef MX
#undef ZP_M
