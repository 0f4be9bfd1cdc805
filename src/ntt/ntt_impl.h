/* Radix-2 number-theoretic transform over one scalar field, instantiated
 * per field by ntt.c with ZP_N set to the field prefix (e.g. zp_bn254_fr).
 *
 * Forward: a[i] <- sum_j a[j]·ω^(ij), ω the primitive n-th root derived as
 * ffjavascript derives it (so values sit at the same points as snarkjs's).
 * Inverse: with ω^-1, then scaled by 1/n. Iterative Cooley-Tukey after a
 * bit-reversal permutation; each stage's butterflies are split over the
 * workers. */
#define ZP_CAT_(a, b) a##b
#define ZP_CAT(a, b) ZP_CAT_(a, b)
#define N_(name) ZP_CAT(ZP_N, _##name)
#define FT ZP_N
#define NC_(name) ZP_CAT(ZP_N_UP, _##name)

static const FT N_(max_root) = {NC_(FR_ROOT_INIT)};

int N_(root_of_unity)(FT *w, unsigned log_n) {
    if (log_n > NC_(FR_TWO_ADICITY)) return 0;
    *w = N_(max_root);
    for (unsigned i = log_n; i < NC_(FR_TWO_ADICITY); i++) ZP_CAT(FT, _sqr)(w, w);
    return 1;
}

typedef struct {
    FT *a;
    size_t n, tasks;
    unsigned log_n;
    FT *tw;
    FT base; /* for the power tables */
    size_t half;
} N_(ntt_job);

/* tw[i] = base^i for i in the task's range */
static void N_(powers_task)(void *arg, size_t t, size_t worker) {
    (void)worker;
    N_(ntt_job) *job = arg;
    size_t len = job->half, per = (len + job->tasks - 1) / job->tasks;
    size_t begin = t * per, end = begin + per < len ? begin + per : len;
    if (begin >= end) return;
    FT cur;
    uint64_t e[1] = {begin};
    ZP_CAT(FT, _pow)(&cur, &job->base, e, 1);
    for (size_t i = begin; i < end; i++) {
        job->tw[i] = cur;
        ZP_CAT(FT, _mul)(&cur, &cur, &job->base);
    }
}

static size_t N_(bitrev)(size_t x, unsigned bits) {
    size_t r = 0;
    for (unsigned i = 0; i < bits; i++) r |= ((x >> i) & 1) << (bits - 1 - i);
    return r;
}

static void N_(bitrev_task)(void *arg, size_t t, size_t worker) {
    (void)worker;
    N_(ntt_job) *job = arg;
    size_t per = (job->n + job->tasks - 1) / job->tasks;
    size_t begin = t * per, end = begin + per < job->n ? begin + per : job->n;
    for (size_t i = begin; i < end; i++) {
        size_t j = N_(bitrev)(i, job->log_n);
        if (i < j) {
            FT t0 = job->a[i];
            job->a[i] = job->a[j];
            job->a[j] = t0;
        }
    }
}

/* One stage: butterflies over blocks of 2·half, twiddle stride n/(2·half). */
static void N_(stage_task)(void *arg, size_t t, size_t worker) {
    (void)worker;
    N_(ntt_job) *job = arg;
    size_t total = job->n / 2, per = (total + job->tasks - 1) / job->tasks;
    size_t begin = t * per, end = begin + per < total ? begin + per : total;
    size_t half = job->half, stride = job->n / (2 * half);
    for (size_t k = begin; k < end; k++) {
        size_t block = k / half, j = k % half;
        size_t i0 = block * 2 * half + j, i1 = i0 + half;
        FT u = job->a[i0], v;
        ZP_CAT(FT, _mul)(&v, &job->a[i1], &job->tw[j * stride]);
        ZP_CAT(FT, _add)(&job->a[i0], &u, &v);
        ZP_CAT(FT, _sub)(&job->a[i1], &u, &v);
    }
}

static void N_(scale_task)(void *arg, size_t t, size_t worker) {
    (void)worker;
    N_(ntt_job) *job = arg;
    size_t per = (job->n + job->tasks - 1) / job->tasks;
    size_t begin = t * per, end = begin + per < job->n ? begin + per : job->n;
    for (size_t i = begin; i < end; i++) ZP_CAT(FT, _mul)(&job->a[i], &job->a[i], &job->base);
}

/* a[i] *= g^i: the coset shift (values at g·ω^j after a forward NTT). */
static void N_(coset_task)(void *arg, size_t t, size_t worker) {
    (void)worker;
    N_(ntt_job) *job = arg;
    size_t per = (job->n + job->tasks - 1) / job->tasks;
    size_t begin = t * per, end = begin + per < job->n ? begin + per : job->n;
    if (begin >= end) return;
    FT cur;
    uint64_t e[1] = {begin};
    ZP_CAT(FT, _pow)(&cur, &job->base, e, 1);
    for (size_t i = begin; i < end; i++) {
        ZP_CAT(FT, _mul)(&job->a[i], &job->a[i], &cur);
        ZP_CAT(FT, _mul)(&cur, &cur, &job->base);
    }
}

size_t N_(ntt_scratch_size)(unsigned log_n) { return (((size_t)1 << log_n) / 2 + 1) * sizeof(FT); }

static size_t N_(task_count)(size_t n, const zp_parallel *par) {
    size_t threads = zp_parallel_threads(par);
    if (threads == 1 || n < 4096) return 1;
    return 4 * threads;
}

int N_(ntt)(FT *a, unsigned log_n, int inverse, void *scratch, const zp_parallel *par) {
    N_(ntt_job) job;
    FT w;
    if (!N_(root_of_unity)(&w, log_n)) return 0;
    if (inverse) ZP_CAT(FT, _inv)(&w, &w);
    job.a = a;
    job.n = (size_t)1 << log_n;
    job.log_n = log_n;
    job.tw = scratch;
    job.tasks = N_(task_count)(job.n, par);
    job.base = w;
    job.half = job.n / 2;
    zp_parallel_for(par, job.tasks, N_(powers_task), &job);
    zp_parallel_for(par, job.tasks, N_(bitrev_task), &job);
    for (job.half = 1; job.half < job.n; job.half *= 2) zp_parallel_for(par, job.tasks, N_(stage_task), &job);
    if (inverse) {
        FT n_inv;
        ZP_CAT(FT, _from_u64)(&n_inv, job.n);
        ZP_CAT(FT, _inv)(&job.base, &n_inv);
        zp_parallel_for(par, job.tasks, N_(scale_task), &job);
    }
    return 1;
}

void N_(coset_shift)(FT *a, size_t n, const FT *g, const zp_parallel *par) {
    N_(ntt_job) job;
    job.a = a;
    job.n = n;
    job.tasks = N_(task_count)(n, par);
    job.base = *g;
    zp_parallel_for(par, job.tasks, N_(coset_task), &job);
}

#undef N_
#undef NC_
#undef FT
#undef ZP_N
#undef ZP_N_UP
