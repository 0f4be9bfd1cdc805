/* The Groth16 prover and verifier for one curve, instantiated by prove.c
 * with ZP_G set to the curve prefix (zp_bn254, zp_bls12).
 *
 * The prover follows snarkjs (docs/formats.md, "How snarkjs computes H"):
 *   a = A·w, b = B·w from the key's coefficient list, c = a∘b (synthesis,
 *   done before prove_start, by synth.c);
 *   for each: inverse NTT, coefficient i times ω_2N^i, forward NTT, which
 *   gives the values at the odd points of the 2N domain; h = a·b - c there;
 *   π_A = α + Σ w_i A_i + r·δ
 *   π_B = β + Σ w_i B_i + s·δ          (G2; B_G1 likewise in G1)
 *   π_C = Σ_priv w_i C_i + Σ h_j H_j + s·π_A + r·B_G1 - r·s·δ
 * prove_start does everything but the G2 MSM; prove_finish does that,
 * unless the key is small enough that prove_start runs it too (joint). */
#include "groth16/stream.h"
#define ZP_CAT_(a, b) a##b
#define ZP_CAT(a, b) ZP_CAT_(a, b)
#define X_(name) ZP_CAT(ZP_G, _##name)
#define G1 ZP_CAT(ZP_G, _g1)
#define G1J ZP_CAT(ZP_G, _g1j)
#define G2 ZP_CAT(ZP_G, _g2)
#define G2J ZP_CAT(ZP_G, _g2j)
#define FR ZP_CAT(ZP_G, _fr)
#define G1_(name) ZP_CAT(G1, _##name)
#define G2_(name) ZP_CAT(G2, _##name)
#define FR_(name) ZP_CAT(FR, _##name)

static unsigned X_(log2)(uint32_t n) {
    unsigned l = 0;
    while (((uint32_t)1 << l) < n) l++;
    return l;
}

/* The G1 MSMs (A, B1, C over the wires, H over the domain) run as one
 * loop; the G2 one reuses the same scratch, after them, in prove_finish,
 * so the engine can overlap it with the next proof's G1 work. A small key
 * (joint) runs all five in prove_start's one loop instead: one small MSM
 * does not keep two workers busy (at 2^11 a G1 MSM of circom's mostly 0/1
 * scalars runs only 1.36× faster on two threads than on one), five MSMs'
 * tiles do. The two jobs share the workers' workspaces, so the scratch
 * grows by the G2 job's results only. */
static void X_(g1_sizes)(const zp_groth16_pk *pk, size_t n[4]) {
    n[0] = n[1] = pk->n_vars;
    n[2] = pk->n_vars - ((size_t)pk->n_public + 1);
    n[3] = pk->domain_size;
}

/* The key's tables (groth16.h), when they are for it: NULL otherwise,
 * which proves without them. */
static const zp_groth16_tables *X_(tables_of)(const zp_groth16_pk *pk) {
    const zp_groth16_tables *t = pk->tables;
    if (t == NULL || t->curve != pk->curve || t->n_vars != pk->n_vars || t->domain_size != pk->domain_size) return NULL;
    return t;
}

/* The MSMs' tables as msm_job_begin takes them: G1's four, G2's one;
 * NULLs without tables. */
static void X_(table_lists)(const zp_groth16_pk *pk, const zp_msm_table *g1[4], const zp_msm_table **g2) {
    const zp_groth16_tables *t = X_(tables_of)(pk);
    for (int k = 0; k < 4; k++) g1[k] = t != NULL ? &t->g1[k] : NULL;
    *g2 = t != NULL ? &t->g2 : NULL;
}

/* One thread runs the five MSMs as one loop too when the key has tables:
 * only the joint path takes them. */
static int X_(joint)(const zp_groth16_pk *pk, size_t threads) {
    return (threads > 1 || X_(tables_of)(pk) != NULL) && pk->domain_size <= ZP_GROTH16_JOINT_MAX_DOMAIN;
}

/* The joint loop's scratch (64-byte aligned): the G1 results, the G2
 * ones from g2_results, the shared workspaces from the returned offset. */
static size_t X_(joint_layout)(const zp_groth16_pk *pk, size_t *g2_results, size_t threads) {
    size_t n[4], n2 = pk->n_vars;
    X_(g1_sizes)(pk, n);
    *g2_results = G1_(msm_job_results_size)(n, 4, threads);
    return *g2_results + G2_(msm_job_results_size)(&n2, 1, threads);
}

static size_t X_(joint_scratch)(const zp_groth16_pk *pk, size_t threads) {
    size_t n[4], n2 = pk->n_vars, g2_results;
    const zp_msm_table *t1[4], *t2;
    X_(g1_sizes)(pk, n);
    X_(table_lists)(pk, t1, &t2);
    size_t ws1 = G1_(msm_job_workspace_size)(n, t1, 4, threads),
           ws2 = G2_(msm_job_workspace_size)(&n2, &t2, 1, threads);
    return X_(joint_layout)(pk, &g2_results, threads) + (ws1 > ws2 ? ws1 : ws2) + 64;
}

/* The tables' layout from mem (64-byte aligned): the struct, then A, B1,
 * C, H and B2's copies, each at a 64-byte boundary; returns the size. */
static size_t X_(tables_layout)(zp_groth16_tables *t, char *mem, const zp_groth16_pk *pk, size_t threads, char **at) {
    size_t n[4], off = (sizeof *t + 63) & ~(size_t)63;
    X_(g1_sizes)(pk, n);
    for (int k = 0; k < 4; k++) {
        unsigned c = zp_msm_table_c(n[k], threads);
        t->g1[k] = (zp_msm_table){NULL, n[k], c, 0};
        at[k] = mem + off;
        off += (G1_(msm_table_bytes)(n[k], c) + 63) & ~(size_t)63;
    }
    unsigned c2 = zp_msm_table_c(pk->n_vars, threads);
    t->g2 = (zp_msm_table){NULL, pk->n_vars, c2, 0};
    at[4] = mem + off;
    off += (G2_(msm_table_bytes)(pk->n_vars, c2) + 63) & ~(size_t)63;
    return off;
}

size_t X_(groth16_tables_size)(const zp_groth16_pk *pk, size_t threads) {
    if (pk->domain_size > ZP_GROTH16_JOINT_MAX_DOMAIN) return 0;
    zp_groth16_tables t;
    char *at[5];
    return X_(tables_layout)(&t, NULL, pk, threads, at);
}

zp_status X_(groth16_tables_build)(void *mem, size_t bytes, const zp_groth16_pk *pk, size_t threads,
                                   const zp_parallel *par, zp_error *err) {
    size_t need = X_(groth16_tables_size)(pk, threads);
    if (need == 0) {
        return zp_error_set(err, ZP_ERR_ARG, "a key of domain %u has no point tables (at most %u)", pk->domain_size,
                            ZP_GROTH16_JOINT_MAX_DOMAIN);
    }
    if (bytes < need || ((uintptr_t)mem & 63) != 0) {
        return zp_error_set(err, ZP_ERR_ARG, "the point tables need %zu bytes, 64-byte aligned: got %zu at %p", need,
                            bytes, mem);
    }
    zp_groth16_tables *t = mem;
    char *at[5];
    X_(tables_layout)(t, mem, pk, threads, at);
    t->curve = pk->curve;
    t->n_vars = pk->n_vars;
    t->domain_size = pk->domain_size;
    const void *points[4] = {pk->a, pk->b1, pk->c, pk->h};
    for (int k = 0; k < 4; k++) G1_(msm_table_build)(&t->g1[k], (G1 *)at[k], points[k], t->g1[k].n, t->g1[k].c, par);
    G2_(msm_table_build)(&t->g2, (G2 *)at[4], pk->b2, t->g2.n, t->g2.c, par);
    return ZP_OK;
}

/* Transforms too small to use the workers (ntt.h) run as three tasks,
 * each in its own part of the scratch. */
static int X_(ntt_tasks)(unsigned log_n, size_t threads) { return threads > 1 && log_n < ZP_NTT_PARALLEL_MIN_LOG; }

static size_t X_(ntt_task_scratch)(unsigned log_n) { return (FR_(ntt_scratch_size)(log_n, 1) + 63) & ~(size_t)63; }

static size_t X_(msm_scratch)(const zp_groth16_pk *pk, size_t threads) {
    size_t n[4];
    unsigned log_n = X_(log2)(pk->domain_size);
    X_(g1_sizes)(pk, n);
    size_t m = G1_(msm_many_scratch_size)(n, 4, threads);
    size_t g2 = G2_(msm_scratch_size)(pk->n_vars, threads);
    /* the NTTs run before the MSMs, in the same scratch */
    size_t ntt =
        X_(ntt_tasks)(log_n, threads) ? 3 * X_(ntt_task_scratch)(log_n) + 64 : FR_(ntt_scratch_size)(log_n, threads);
    if (X_(joint)(pk, threads)) {
        m = X_(joint_scratch)(pk, threads);
    } else if (g2 > m) {
        m = g2;
    }
    return ntt > m ? ntt : m;
}

typedef struct {
    zp_msm_job g1, g2;
} X_(joint_job);

/* The G2 tiles first: they are the longest, so the loop ends balanced. */
static void X_(joint_tile)(void *arg, size_t t, size_t worker) {
    X_(joint_job) *job = arg;
    if (t < job->g2.tiles) {
        G2_(msm_job_tile)(&job->g2, t, worker);
    } else {
        G1_(msm_job_tile)(&job->g1, t - job->g2.tiles, worker);
    }
}

/* Each MSM's Horner over its windows, G2's (the longest) first. */
static void X_(joint_end)(void *arg, size_t k, size_t worker) {
    X_(joint_job) *job = arg;
    if (k < job->g2.count) {
        G2_(msm_job_end_part)(&job->g2, k, worker);
    } else {
        G1_(msm_job_end_part)(&job->g1, k - job->g2.count, worker);
    }
}

size_t X_(groth16_abc_size)(const zp_groth16_pk *pk) { return 3 * (size_t)pk->domain_size * sizeof(FR); }

typedef struct {
    const zp_groth16_pk *pk;
    FR *a, *b, *c;
    size_t tasks;
} X_(abc_job);

/* after the transforms, h = a·b - c as plain integers */
static void X_(h_task)(void *arg, size_t t, size_t worker) {
    (void)worker;
    X_(abc_job) *job = arg;
    size_t n = job->pk->domain_size, per = (n + job->tasks - 1) / job->tasks;
    size_t begin = t * per, end = begin + per < n ? begin + per : n;
    for (size_t i = begin; i < end; i++) {
        FR h;
        FR_(mul)(&h, &job->a[i], &job->b[i]);
        FR_(sub)(&h, &h, &job->c[i]);
        FR_(from_mont)(&job->a[i], &h);
    }
}

/* One polynomial from its values on the N-domain to its values on the odd
 * points of the 2N-domain. */
static void X_(to_odd_points)(FR *v, unsigned log_n, const FR *shift, void *ntt_scratch, const zp_parallel *par) {
    FR_(ntt_to_coset)(v, log_n, shift, ntt_scratch, par);
}

/* The work of a proof that waits for neither the transforms nor the
 * MSMs: the blinding terms r·δ₁, s·δ₁, rs·δ₁ and s·δ₂ (constant time,
 * about 0.45 ms at BN254 for the four) and, where they are too small to
 * use the workers, the three transforms. One parallel loop runs them, the
 * longest first; they used to run one after another on one core while
 * the other idled (at 2^11 the transforms took 0.45 ms and the blinding
 * terms as much again). */
typedef struct {
    const zp_groth16_pk *pk;
    const uint64_t *k[3]; /* r, s, rs */
    G1J k_delta1[3];      /* r·δ₁, s·δ₁, rs·δ₁ */
    G2J s_delta2;
    FR *v[3]; /* a, b, c, when the transforms are tasks */
    size_t n_ntt;
    unsigned log_n;
    FR shift;
    char *ntt_scratch; /* n_ntt parts of ntt_each bytes */
    size_t ntt_each;
    zp_parallel serial; /* the caller's vector path, one thread */
} X_(blind_job);

static void X_(blind_task)(void *arg, size_t t, size_t worker) {
    (void)worker;
    X_(blind_job) *job = arg;
    if (t == 0) {
        G2J d;
        G2_(j_from_affine)(&d, (const G2 *)job->pk->delta2);
        G2_(j_mul)(&job->s_delta2, &d, job->k[1], 4);
    } else if (t - 1 < job->n_ntt) {
        t -= 1;
        X_(to_odd_points)(job->v[t], job->log_n, &job->shift, job->ntt_scratch + t * job->ntt_each, &job->serial);
    } else {
        t -= 1 + job->n_ntt;
        G1J d;
        G1_(j_from_affine)(&d, (const G1 *)job->pk->delta1);
        G1_(j_mul)(&job->k_delta1[t], &d, job->k[t], 4);
    }
}

/* π_C's terms s·π_A and r·B_G1, one task each (constant time). */
typedef struct {
    const G1J *p[2];
    const uint64_t *k[2];
    G1J out[2];
} X_(cross_job);

static void X_(cross_task)(void *arg, size_t t, size_t worker) {
    (void)worker;
    X_(cross_job) *job = arg;
    G1_(j_mul)(&job->out[t], job->p[t], job->k[t], 4);
}

static void X_(plain_mul)(uint64_t out[4], const uint64_t x[4], const uint64_t y[4]) {
    FR a, b;
    memcpy(a.v, x, 32);
    memcpy(b.v, y, 32);
    FR_(to_mont)(&a, &a);
    FR_(to_mont)(&b, &b);
    FR_(mul)(&a, &a, &b);
    FR_(from_mont)(&a, &a);
    memcpy(out, a.v, 32);
}

/* The blinding's job over r, s, rs = r·s, with no transforms among its
 * tasks (yet). */
static void X_(blind_init)(X_(blind_job) *blind, const zp_groth16_pk *pk, const uint64_t r[4], const uint64_t s[4],
                           const uint64_t rs[4]) {
    blind->pk = pk;
    blind->k[0] = r;
    blind->k[1] = s;
    blind->k[2] = rs;
    blind->n_ntt = 0;
}

/* The work before the MSMs: the blinding terms and the transforms of a,
 * b, c, then h = a·b - c, plain, in a (the b and c parts are done with). */
static void X_(transforms)(X_(blind_job) *blind, const zp_groth16_pk *pk, FR *a, const uint64_t r[4],
                           const uint64_t s[4], const uint64_t rs[4], void *msm_scratch, const zp_parallel *par) {
    size_t n = pk->domain_size;
    unsigned log_n = X_(log2)(pk->domain_size);
    FR *b = a + n, *c = b + n;
    X_(abc_job) job = {pk, a, b, c, 4 * zp_parallel_threads(par)};

    /* a, b, c = a∘b are in abc already (synth.c) */
    X_(blind_init)(blind, pk, r, s, rs);
    blind->log_n = log_n;
    FR_(root_of_unity)(&blind->shift, log_n + 1);
    blind->serial = (zp_parallel){NULL, NULL, 1, par != NULL ? par->simd : ZP_SIMD_AUTO};
    if (X_(ntt_tasks)(log_n, zp_parallel_threads(par))) {
        blind->n_ntt = 3;
        blind->v[0] = a;
        blind->v[1] = b;
        blind->v[2] = c;
        blind->ntt_scratch = (char *)(((uintptr_t)msm_scratch + 63) & ~(uintptr_t)63);
        blind->ntt_each = X_(ntt_task_scratch)(log_n);
        /* the three transforms' tables and work, in one call (as the
         * MSMs' part below): the MSMs reuse these pages */
        zp_mem_prefault(blind->ntt_scratch, blind->n_ntt * blind->ntt_each);
    } else {
        X_(to_odd_points)(a, log_n, &blind->shift, msm_scratch, par);
        X_(to_odd_points)(b, log_n, &blind->shift, msm_scratch, par);
        X_(to_odd_points)(c, log_n, &blind->shift, msm_scratch, par);
    }
    zp_parallel_for(par, 1 + blind->n_ntt + 3, X_(blind_task), blind);
    zp_parallel_for(par, job.tasks, X_(h_task), &job); /* h, plain, now in a */
}

/* π_A, π_C and s·δ₂ into pend, from the MSMs' sums (constant time in
 * the blinding: see below). */
static void X_(assemble)(zp_groth16_pending *pend, const zp_groth16_pk *pk, const X_(blind_job) *blind, G1J pi_a,
                         G1J b1, G1J pi_c, const G1J *h, const uint64_t r[4], const uint64_t s[4],
                         const zp_parallel *par) {
    G1J t;
    G1 affine;
    /* From here on every operation that touches r or s, or a point that
     * depends on them, is constant time (curve/point_impl.h: j_mul, j_add,
     * j_neg, j_to_affine; plain_mul is Montgomery arithmetic): no branch
     * and no address depends on the blinding, which tests/test_ctime.c
     * checks under valgrind. The MSMs above are variable time in the
     * witness, as in every fast prover. */
    /* π_A = α + Σ w_i A_i + r·δ */
    G1_(j_add_affine_var)(&pi_a, &pi_a, (const G1 *)pk->alpha1);
    G1_(j_add)(&pi_a, &pi_a, &blind->k_delta1[0]);
    /* B_G1 = β + Σ w_i B_i + s·δ */
    G1_(j_add_affine_var)(&b1, &b1, (const G1 *)pk->beta1);
    G1_(j_add)(&b1, &b1, &blind->k_delta1[1]);
    /* π_C = Σ_priv w_i C_i + Σ h_j H_j + s·π_A + r·B_G1 - r·s·δ */
    X_(cross_job) cross;
    cross.p[0] = &pi_a;
    cross.k[0] = s;
    cross.p[1] = &b1;
    cross.k[1] = r;
    zp_parallel_for(par, 2, X_(cross_task), &cross);
    G1_(j_add_var)(&pi_c, &pi_c, h);
    G1_(j_add)(&pi_c, &pi_c, &cross.out[0]);
    G1_(j_add)(&pi_c, &pi_c, &cross.out[1]);
    G1_(j_neg)(&t, &blind->k_delta1[2]);
    G1_(j_add)(&pi_c, &pi_c, &t);

    memset(pend, 0, sizeof *pend);
    pend->curve = pk->curve;
    memcpy(pend->s_delta2, &blind->s_delta2, sizeof blind->s_delta2);
    G1_(j_to_affine)(&affine, &pi_a);
    memcpy(pend->pi_a, &affine, sizeof affine);
    G1_(j_to_affine)(&affine, &pi_c);
    memcpy(pend->pi_c, &affine, sizeof affine);
}

zp_status X_(groth16_prove_start)(zp_groth16_pending *pend, const zp_groth16_pk *pk, const uint64_t *witness,
                                  const uint64_t r[4], const uint64_t s[4], void *abc, void *msm_scratch,
                                  const zp_parallel *par) {
    FR *a = abc;
    uint64_t rs[4];
    X_(plain_mul)(rs, r, s);
    X_(blind_job) blind;
    X_(transforms)(&blind, pk, a, r, s, rs, msm_scratch, par);

    G1J pi_a, b1, pi_c, h;
    G2J b2_sum;
    int joint = X_(joint)(pk, zp_parallel_threads(par));
    {
        size_t first_private = (size_t)pk->n_public + 1, n[4];
        X_(g1_sizes)(pk, n);
        G1J *outs[4] = {&pi_a, &b1, &pi_c, &h};
        const G1 *points[4] = {pk->a, pk->b1, pk->c, pk->h};
        const uint64_t *scalars[4] = {witness, witness, witness + 4 * first_private, (const uint64_t *)a};
        if (joint) {
            X_(joint_job) job;
            G2J *out2 = &b2_sum;
            const G2 *points2 = pk->b2;
            size_t n2 = pk->n_vars;
            char *base = (char *)(((uintptr_t)msm_scratch + 63) & ~(uintptr_t)63);
            size_t g2_results, workspace = X_(joint_layout)(pk, &g2_results, zp_parallel_threads(par));
            const zp_msm_table *t1[4], *t2;
            X_(table_lists)(pk, t1, &t2);
            G1_(msm_job_begin)(&job.g1, outs, points, scalars, n, t1, 4, base, base + workspace, par);
            G2_(msm_job_begin)
            (&job.g2, &out2, &points2, &witness, &n2, &t2, 1, base + g2_results, base + workspace, par);
            zp_msm_jobs_share_workspace(&job.g1, &job.g2);
            /* the results and each worker's workspace, as these plans lay
             * them out, mapped in one call rather than a fault a page: in
             * a one-shot proof they are fresh (zkpipe prove at 2^11: ~200
             * of its ~450 faults); kept scratch costs a walk */
            zp_mem_prefault(base, workspace + zp_parallel_threads(par) * job.g1.ws_size);
            zp_parallel_for(par, job.g2.tiles + job.g1.tiles, X_(joint_tile), &job);
            zp_parallel_for(par, job.g2.count + job.g1.count, X_(joint_end), &job);
        } else {
            G1_(msm_many_var)(outs, points, scalars, n, 4, msm_scratch, par);
        }
    }
    X_(assemble)(pend, pk, &blind, pi_a, b1, pi_c, &h, r, s, par);
    memset(rs, 0, sizeof rs);
    _Static_assert(sizeof b2_sum <= sizeof pend->b2_sum, "pending's b2_sum holds a Jacobian G2 point");
    if (joint) {
        memcpy(pend->b2_sum, &b2_sum, sizeof b2_sum);
        pend->b2_done = 1;
    }
    return ZP_OK;
}

void X_(groth16_prove_finish)(zp_groth16_proof *proof, const zp_groth16_pending *pend, const zp_groth16_pk *pk,
                              const uint64_t *witness, void *msm_scratch, const zp_parallel *par) {
    G2J pi_b, s_delta2;
    G2 affine;
    /* π_B = β + Σ w_i B_i + s·δ (prove_start made s·δ) */
    if (pend->b2_done) {
        memcpy(&pi_b, pend->b2_sum, sizeof pi_b);
    } else {
        G2_(msm_var)(&pi_b, pk->b2, witness, pk->n_vars, msm_scratch, par);
    }
    G2_(j_add_affine_var)(&pi_b, &pi_b, (const G2 *)pk->beta2);
    memcpy(&s_delta2, pend->s_delta2, sizeof s_delta2);
    G2_(j_add)(&pi_b, &pi_b, &s_delta2); /* constant time, as in prove_start */

    memset(proof, 0, sizeof *proof);
    proof->curve = pk->curve;
    memcpy(proof->a, pend->pi_a, sizeof(G1));
    memcpy(proof->c, pend->pi_c, sizeof(G1));
    G2_(j_to_affine)(&affine, &pi_b);
    memcpy(proof->b, &affine, sizeof affine);
}

/* ---- a proof with the key's points streamed (groth16/stream.h) ---- */

/* The scratch of a streamed proof whose MSMs take chunk_g1 / chunk_g2
 * points at a time: the transforms' first, then the chunks' MSMs. */
size_t X_(groth16_stream_scratch)(const zp_groth16_pk *pk, size_t threads, size_t chunk_g1, size_t chunk_g2) {
    unsigned log_n = X_(log2)(pk->domain_size);
    size_t ntt =
        X_(ntt_tasks)(log_n, threads) ? 3 * X_(ntt_task_scratch)(log_n) + 64 : FR_(ntt_scratch_size)(log_n, threads);
    size_t g1 = G1_(msm_scratch_size)(chunk_g1, threads), g2 = G2_(msm_scratch_size)(chunk_g2, threads);
    size_t m = g1 > g2 ? g1 : g2, one = FR_(ntt_scratch_size)(log_n, threads); /* the spilled path's, one at a time */
    if (one > ntt) ntt = one;
    return ntt > m ? ntt : m;
}

/* Where a streamed MSM's scalars come from: memory, or (the paged path)
 * the witness's slot of the scratch file, read a chunk at a time into buf
 * (chunk_g1 scalars), from element `from` on. */
typedef struct {
    const uint64_t *mem;
    uint64_t *buf;
    size_t from;
} X_(scalars);

/* Σ k_i P_i over one section, its points read chunk by chunk (the read
 * of the next overlapping the sum of this one). */
#define ZP_STREAM_MSM_(name, P, PJ, P_)                                                                            \
    static zp_status X_(name)(PJ * out, const zp_groth16_stream_cfg *cfg, unsigned section, size_t n,              \
                              const X_(scalars) *k, size_t chunk, void *scratch, const zp_parallel *par,           \
                              zp_error *err) {                                                                     \
        const zp_groth16_stream_io *io = cfg->io;                                                                  \
        P_(j_set_inf)(out);                                                                                        \
        zp_status st = io->begin(io->ctx, section, sizeof(P), n, chunk, err);                                      \
        for (size_t done = 0; st == ZP_OK && done < n;) {                                                          \
            const void *pts;                                                                                       \
            size_t first, count;                                                                                   \
            st = io->take(io->ctx, &pts, &first, &count, err);                                                     \
            if (st != ZP_OK) break;                                                                                \
            const uint64_t *sc = k->mem != NULL ? k->mem + 4 * first : k->buf;                                     \
            if (k->mem == NULL && (st = io->spill_io(io->ctx, 0, ZP_STREAM_SLOT_W, (k->from + first) * sizeof(FR), \
                                                     k->buf, count * sizeof(FR), err)) != ZP_OK)                   \
                break;                                                                                             \
            PJ part;                                                                                               \
            P_(msm_var)(&part, (const P *)pts, sc, count, scratch, par);                                           \
            P_(j_add_var)(out, out, &part);                                                                        \
            done = first + count;                                                                                  \
        }                                                                                                          \
        io->end(io->ctx);                                                                                          \
        return st;                                                                                                 \
    }
ZP_STREAM_MSM_(msm_stream_g1, G1, G1J, G1_)
ZP_STREAM_MSM_(msm_stream_g2, G2, G2J, G2_)
#undef ZP_STREAM_MSM_

/* Synthesis from the streamed coefficient list, without the matrices:
 * each chunk of entries is summed into a (matrix A) and b (matrix B),
 * the tasks split by matrix and row residue; an entry out of range (the
 * file changed since it was validated at open) is counted, not used. */
typedef struct {
    const uint8_t *e;
    size_t count;
    FR *ab[2];
    const uint64_t *witness;
    uint32_t rows, vars;
    size_t bad;
    size_t only;  /* with one of ab NULL: the matrix summed (0 A, 1 B) */
    size_t tasks; /* a multiple of the matrices summed */
} X_(coef_job);

/* One entry of the list (e, ZP_ZKEY_COEF_BYTES): its matrix, row and
 * signal; 0 when one is out of range (the file changed since it was
 * validated), which the callers count, not use. */
static inline int X_(coef_read)(const uint8_t *e, uint32_t rows, uint32_t vars, uint32_t *m, uint32_t *row,
                                uint32_t *signal) {
    memcpy(m, e, 4);
    memcpy(row, e + 4, 4);
    memcpy(signal, e + 8, 4);
    return *m <= 1 && *row < rows && *signal < vars;
}

/* *dst += the entry's value times the witness's value of its signal */
static inline void X_(coef_add)(FR *dst, const uint8_t *e, const uint64_t *witness, uint32_t signal) {
    FR v, w, p;
    memcpy(v.v, e + 12, sizeof v.v);
    memcpy(w.v, witness + 4 * (size_t)signal, sizeof w.v);
    FR_(mul)(&p, &v, &w); /* v·R² times plain w: the Montgomery form of v·w (synth_impl.h) */
    FR_(add)(dst, dst, &p);
}

static void X_(coef_task)(void *arg, size_t t, size_t worker) {
    (void)worker;
    X_(coef_job) *job = arg;
    /* task t: one matrix (both alternate, or the only one), and the rows
     * of one residue mod parts: no two tasks write one row, whatever the
     * list's order */
    size_t mats = job->ab[0] != NULL && job->ab[1] != NULL ? 2 : 1, parts = job->tasks / mats;
    uint32_t mat = mats == 2 ? (uint32_t)(t % 2) : (uint32_t)job->only;
    size_t part = mats == 2 ? t / 2 : t;
    FR *dst = job->ab[mat];
    size_t bad = 0;
    for (size_t i = 0; i < job->count; i++) {
        const uint8_t *e = job->e + i * ZP_ZKEY_COEF_BYTES;
        uint32_t m, row, signal;
        if (!X_(coef_read)(e, job->rows, job->vars, &m, &row, &signal)) {
            bad++;
            continue;
        }
        if (m != mat || row % parts != part) continue;
        X_(coef_add)(&dst[row], e, job->witness, signal);
    }
    if (t == 0) job->bad = bad; /* one task counts them */
}

/* out[i] = x[i]·y[i] (op 0) or from_mont(y[i] - x[i]) (op 1: h from a·b
 * and c), for i < n, in tasks parts */
typedef struct {
    FR *out;
    const FR *x, *y;
    size_t n, tasks;
    int op;
} X_(pair_job);

static void X_(pair_task)(void *arg, size_t t, size_t worker) {
    (void)worker;
    X_(pair_job) *job = arg;
    size_t per = (job->n + job->tasks - 1) / job->tasks, begin = t * per,
           end = begin + per < job->n ? begin + per : job->n;
    for (size_t i = begin; i < end; i++) {
        if (job->op == 0) {
            FR_(mul)(&job->out[i], &job->x[i], &job->y[i]);
        } else {
            FR h;
            FR_(sub)(&h, &job->y[i], &job->x[i]);
            FR_(from_mont)(&job->out[i], &h);
        }
    }
}

/* Sums the coefficient list into dst_a (matrix A) and dst_b (B), or,
 * when one of them is NULL, the other only (the spilled path, which
 * holds one vector at a time); zeroes them first. Every worker scans each
 * chunk and sums the entries of its matrix and its residue of rows. */
static zp_status X_(coefs_stream)(FR *dst_a, FR *dst_b, const zp_groth16_pk *pk, const uint64_t *witness,
                                  const zp_groth16_stream_cfg *cfg, const zp_parallel *par, zp_error *err) {
    size_t n = pk->domain_size;
    if (dst_a != NULL) memset(dst_a, 0, n * sizeof(FR));
    if (dst_b != NULL) memset(dst_b, 0, n * sizeof(FR));
    size_t mats = dst_a != NULL && dst_b != NULL ? 2 : 1;
    X_(coef_job) job = {NULL,
                        0,
                        {dst_a, dst_b},
                        witness,
                        pk->domain_size,
                        pk->n_vars,
                        0,
                        dst_a == NULL ? 1 : 0,
                        mats * zp_parallel_threads(par)};
    size_t tasks = job.tasks;
    const zp_groth16_stream_io *io = cfg->io;
    zp_status st = io->begin(io->ctx, ZP_SRC_COEFS, ZP_ZKEY_COEF_BYTES, pk->n_coefs, cfg->chunk_coefs, err);
    size_t bad = 0, first_bad = 0;
    for (size_t done = 0; st == ZP_OK && done < pk->n_coefs;) {
        const void *e;
        size_t first;
        st = io->take(io->ctx, &e, &first, &job.count, err);
        if (st != ZP_OK) break;
        job.e = e;
        zp_parallel_for(par, tasks, X_(coef_task), &job);
        if (job.bad != 0 && bad == 0) first_bad = first;
        bad += job.bad;
        done = first + job.count;
    }
    io->end(io->ctx);
    if (st == ZP_OK && bad != 0) {
        st = zp_error_set(err, ZP_ERR_FORMAT,
                          "%s: %zu coefficients from entry %zu on are out of range (the key file changed since it "
                          "was opened): no proof",
                          io->name, bad, first_bad);
    }
    return st;
}

static zp_status X_(synthesize_stream)(FR *a, const zp_groth16_pk *pk, const uint64_t *witness,
                                       const zp_groth16_stream_cfg *cfg, const zp_parallel *par, zp_error *err) {
    size_t n = pk->domain_size;
    zp_status st = X_(coefs_stream)(a, a + n, pk, witness, cfg, par, err);
    if (st != ZP_OK) return st;
    X_(pair_job) cj = {a + 2 * n, a, a + n, n, 4 * zp_parallel_threads(par), 0}; /* c = a∘b */
    zp_parallel_for(par, cj.tasks, X_(pair_task), &cj);
    return ZP_OK;
}

/* ---- the spilled path: one vector of N resident, the others in the
 * io's scratch file (groth16/stream.h) ---- */

/* For all i < n, slot `in`'s [i] read through buf (bytes) a part at a
 * time, then v[i] op= it (out < 0), or, out >= 0, v[i] op it written to
 * slot out (v unchanged). */
static zp_status X_(spill_combine)(FR *v, const zp_groth16_stream_io *io, unsigned in, int out, int op, void *buf,
                                   size_t bytes, size_t n, const zp_parallel *par, zp_error *err) {
    size_t per = bytes / sizeof(FR);
    for (size_t i = 0; i < n; i += per) {
        size_t m = n - i < per ? n - i : per;
        zp_status st = io->spill_io(io->ctx, 0, in, i * sizeof(FR), buf, m * sizeof(FR), err);
        if (st != ZP_OK) return st;
        X_(pair_job) job = {out < 0 ? v + i : buf, v + i, buf, m, 2 * zp_parallel_threads(par), op};
        zp_parallel_for(par, job.tasks, X_(pair_task), &job);
        if (out >= 0 &&
            (st = io->spill_io(io->ctx, 1, (unsigned)out, i * sizeof(FR), buf, m * sizeof(FR), err)) != ZP_OK)
            return st;
    }
    return ZP_OK;
}

/* The paged path's synthesis (groth16/stream.h): a and b summed from the
 * list into two blocks of `rows` rows each (block m holds matrix m's rows
 * [base[m], base[m] + rows)), each written to its slot once the list has
 * passed it, so that only the witness and the blocks are resident. A
 * chunk of entries is summed in rounds: each round sums the entries in
 * the blocks and finds the least row past each block; a block with rows
 * past it is complete, written, and moves to that row for the next round.
 * An entry below `floor` (its matrix's block when the chunk began: rows
 * already written) means the list is out of order, which the plan ruled
 * out: the file changed since it was checked. */
typedef struct {
    const uint8_t *e;
    size_t count;
    FR *blk[2];
    uint32_t base[2], floor[2], rows;
    int active[2]; /* the matrix's block moved since the round before: its entries there not summed yet */
    const uint64_t *witness;
    uint32_t n_rows, vars;
    size_t tasks; /* even: the two matrices alternate */
    /* found by the tasks: entries out of range, entries below floor, and
     * the least row at or past each block's end (UINT32_MAX: none) */
    size_t bad, below[2];
    uint32_t past[2];
} X_(block_job);

static void X_(block_task)(void *arg, size_t t, size_t worker) {
    (void)worker;
    X_(block_job) *job = arg;
    uint32_t mat = (uint32_t)(t % 2);
    size_t parts = job->tasks / 2, part = t / 2;
    uint32_t base = job->base[mat], floor = job->floor[mat], end = base + job->rows, past = UINT32_MAX;
    FR *dst = job->blk[mat];
    size_t bad = 0, below = 0;
    for (size_t i = 0; i < job->count && job->active[mat]; i++) {
        const uint8_t *e = job->e + i * ZP_ZKEY_COEF_BYTES;
        uint32_t m, row, signal;
        if (!X_(coef_read)(e, job->n_rows, job->vars, &m, &row, &signal)) {
            bad++;
            continue;
        }
        if (m != mat) continue;
        if (row < base) { /* summed in an earlier round, or out of order */
            below += row < floor;
            continue;
        }
        if (row >= end) {
            if (row < past) past = row;
            continue;
        }
        if ((row - base) % parts != part) continue;
        X_(coef_add)(&dst[row - base], e, job->witness, signal);
    }
    if (t == 0 && job->active[mat]) job->bad = bad; /* round 0: both active */
    if (part == 0) {                                /* every task of a matrix sees the same */
        job->below[mat] = below;
        job->past[mat] = past;
    }
}

/* Writes rows [from, to) of matrix m's vector to its slot: those of the
 * block (from >= base), zeros for rows past it (the block, zeroed, is the
 * source); the block is zero after. */
static zp_status X_(block_write)(X_(block_job) *job, const zp_groth16_stream_io *io, unsigned m, unsigned slot,
                                 uint32_t to, zp_error *err) {
    uint32_t at = job->base[m];
    size_t rows = job->rows;
    while (at < to) {
        size_t k = to - at < rows ? to - at : rows;
        zp_status st = io->spill_io(io->ctx, 1, slot, (size_t)at * sizeof(FR), job->blk[m], k * sizeof(FR), err);
        if (st != ZP_OK) return st;
        if (at == job->base[m]) memset(job->blk[m], 0, rows * sizeof(FR));
        at += (uint32_t)k;
    }
    return ZP_OK;
}

static zp_status X_(synthesize_blocks)(const zp_groth16_pk *pk, const uint64_t *witness,
                                       const zp_groth16_stream_cfg *cfg, void *blocks, size_t blocks_bytes,
                                       const zp_parallel *par, zp_error *err) {
    const zp_groth16_stream_io *io = cfg->io;
    size_t rows = blocks_bytes / (2 * sizeof(FR));
    if (rows > pk->domain_size) rows = pk->domain_size;
    const unsigned slot[2] = {ZP_STREAM_SLOT_A, ZP_STREAM_SLOT_B};
    X_(block_job) job = {.blk = {blocks, (FR *)blocks + rows},
                         .rows = (uint32_t)rows,
                         .witness = witness,
                         .n_rows = pk->domain_size,
                         .vars = pk->n_vars,
                         .tasks = 2 * zp_parallel_threads(par)};
    memset(blocks, 0, 2 * rows * sizeof(FR));
    zp_status st = io->begin(io->ctx, ZP_SRC_COEFS, ZP_ZKEY_COEF_BYTES, pk->n_coefs, cfg->chunk_coefs, err);
    size_t bad = 0, first_bad = 0, below = 0;
    for (size_t done = 0; st == ZP_OK && done < pk->n_coefs;) {
        const void *e;
        size_t first;
        st = io->take(io->ctx, &e, &first, &job.count, err);
        if (st != ZP_OK) break;
        job.e = e;
        job.floor[0] = job.base[0];
        job.floor[1] = job.base[1];
        job.active[0] = job.active[1] = 1;
        for (int round = 0;; round++) {
            zp_parallel_for(par, job.tasks, X_(block_task), &job);
            if (round == 0) {
                if (job.bad != 0 && bad == 0) first_bad = first;
                bad += job.bad;
                below += job.below[0] + job.below[1];
            }
            int more = 0;
            for (unsigned m = 0; m < 2 && st == ZP_OK; m++) {
                job.active[m] = job.past[m] != UINT32_MAX;
                if (!job.active[m]) continue;
                /* the block is complete, and so are the rows up to the
                 * least row past it: written, the block moves there, and
                 * only a matrix whose block moved is summed again */
                st = X_(block_write)(&job, io, m, slot[m], job.past[m], err);
                job.base[m] = job.past[m];
                more = 1;
            }
            if (!more || st != ZP_OK) break;
        }
        done = first + job.count;
    }
    io->end(io->ctx);
    for (unsigned m = 0; m < 2 && st == ZP_OK; m++) st = X_(block_write)(&job, io, m, slot[m], pk->domain_size, err);
    if (st == ZP_OK && (bad != 0 || below != 0)) {
        st = zp_error_set(err, ZP_ERR_FORMAT,
                          "%s: %zu coefficients out of range (from entry %zu on) and %zu out of order (the key file "
                          "changed since it was opened): no proof",
                          io->name, bad, first_bad, below);
    }
    return st;
}

/* h (plain) into v (N elements) from a in slot A and b in v: c = a∘b a
 * part at a time; the three transforms one at a time, each vector parked
 * in the file while another is resident. */
static zp_status X_(h_from_slots)(FR *v, const zp_groth16_pk *pk, const zp_groth16_stream_cfg *cfg, void *scratch,
                                  const zp_parallel *par, zp_error *err) {
    size_t n = pk->domain_size, bytes = n * sizeof(FR);
    unsigned log_n = X_(log2)(pk->domain_size);
    FR shift;
    FR_(root_of_unity)(&shift, log_n + 1);
    const zp_groth16_stream_io *io = cfg->io;
    enum { SLOT_A = ZP_STREAM_SLOT_A, SLOT_B = ZP_STREAM_SLOT_B, SLOT_C = ZP_STREAM_SLOT_C }; /* A: a, then a·b */
    zp_status st;
    /* c = a∘b: a read back a part at a time into the window, times b, out */
    if ((st = X_(spill_combine)(v, io, SLOT_A, SLOT_C, 0, cfg->window, cfg->window_bytes, n, par, err)) != ZP_OK)
        return st;
    X_(to_odd_points)(v, log_n, &shift, scratch, par); /* b */
    if ((st = io->spill_io(io->ctx, 1, SLOT_B, 0, v, bytes, err)) != ZP_OK) return st;
    if ((st = io->spill_io(io->ctx, 0, SLOT_A, 0, v, bytes, err)) != ZP_OK) return st;
    X_(to_odd_points)(v, log_n, &shift, scratch, par); /* a */
    if ((st = X_(spill_combine)(v, io, SLOT_B, -1, 0, cfg->window, cfg->window_bytes, n, par, err)) != ZP_OK) return st;
    if ((st = io->spill_io(io->ctx, 1, SLOT_A, 0, v, bytes, err)) != ZP_OK) return st; /* a·b */
    if ((st = io->spill_io(io->ctx, 0, SLOT_C, 0, v, bytes, err)) != ZP_OK) return st;
    X_(to_odd_points)(v, log_n, &shift, scratch, par); /* c */
    return X_(spill_combine)(v, io, SLOT_A, -1, 1, cfg->window, cfg->window_bytes, n, par, err);
}

/* h (plain) into v, a and b summed from the list one at a time into v
 * (the spilled path), or a block of rows at a time into scratch and the
 * witness parked in its slot, its pages let go, before v is touched (the
 * paged path). The io's scratch file is open. */
static zp_status X_(h_spilled)(FR *v, const zp_groth16_pk *pk, uint64_t *witness, const zp_groth16_stream_cfg *cfg,
                               void *scratch, int *paged, const zp_parallel *par, zp_error *err) {
    size_t bytes = pk->domain_size * sizeof(FR), wbytes = (size_t)pk->n_vars * sizeof(FR);
    const zp_groth16_stream_io *io = cfg->io;
    zp_status st;
    if (cfg->page) {
        if ((st = X_(synthesize_blocks)(pk, witness, cfg, scratch, cfg->scratch_bytes, par, err)) != ZP_OK) return st;
        if ((st = io->spill_io(io->ctx, 1, ZP_STREAM_SLOT_W, 0, witness, wbytes, err)) != ZP_OK) return st;
        zp_mem_release(witness, wbytes); /* read back before the proof returns */
        *paged = 1;
        if ((st = io->spill_io(io->ctx, 0, ZP_STREAM_SLOT_B, 0, v, bytes, err)) != ZP_OK) return st;
    } else {
        if ((st = X_(coefs_stream)(v, NULL, pk, witness, cfg, par, err)) != ZP_OK) return st;
        if ((st = io->spill_io(io->ctx, 1, ZP_STREAM_SLOT_A, 0, v, bytes, err)) != ZP_OK) return st;
        if ((st = X_(coefs_stream)(NULL, v, pk, witness, cfg, par, err)) != ZP_OK) return st;
    }
    return X_(h_from_slots)(v, pk, cfg, scratch, par, err);
}

/* The proof's sums over the streamed sections, H first (so that h's pages
 * go before the others stream), the witness's scalars from memory or,
 * paged, from its slot (into the head of abc, free by then). */
static zp_status X_(stream_msms)(G1J *h, G1J *pi_a, G1J *b1, G1J *pi_c, G2J *b2, const zp_groth16_pk *pk,
                                 const uint64_t *witness, FR *abc, void *scratch, const zp_groth16_stream_cfg *cfg,
                                 const zp_parallel *par, zp_error *err) {
    size_t n = pk->domain_size, first_private = (size_t)pk->n_public + 1;
    X_(scalars) hk = {(const uint64_t *)abc, NULL, 0};
    zp_status st = X_(msm_stream_g1)(h, cfg, ZP_SRC_H, n, &hk, cfg->chunk_g1, scratch, par, err);
    zp_mem_release(abc, n * sizeof(FR));
    X_(scalars) wk = {cfg->page ? NULL : witness, (uint64_t *)abc, 0};
    X_(scalars) ck = {cfg->page ? NULL : witness + 4 * first_private, (uint64_t *)abc, first_private};
    if (st == ZP_OK) st = X_(msm_stream_g1)(pi_a, cfg, ZP_SRC_A, pk->n_vars, &wk, cfg->chunk_g1, scratch, par, err);
    if (st == ZP_OK) st = X_(msm_stream_g1)(b1, cfg, ZP_SRC_B1, pk->n_vars, &wk, cfg->chunk_g1, scratch, par, err);
    if (st == ZP_OK)
        st = X_(msm_stream_g1)(pi_c, cfg, ZP_SRC_C, pk->n_vars - first_private, &ck, cfg->chunk_g1, scratch, par, err);
    if (st == ZP_OK) st = X_(msm_stream_g2)(b2, cfg, ZP_SRC_B2, pk->n_vars, &wk, cfg->chunk_g2, scratch, par, err);
    /* the chunk of scalars goes too, before the witness is read back */
    if (cfg->page) zp_mem_release(abc, cfg->chunk_g1 * sizeof(FR));
    return st;
}

zp_status X_(groth16_prove_stream)(zp_groth16_proof *proof, const zp_groth16_pk *pk, uint64_t *witness,
                                   const uint64_t r[4], const uint64_t s[4], void *abc, void *scratch,
                                   const zp_groth16_stream_cfg *cfg, const zp_parallel *par, zp_error *err) {
    size_t n = pk->domain_size, wbytes = (size_t)pk->n_vars * sizeof(FR);
    const zp_groth16_stream_io *io = cfg->io;
    FR *a = abc;
    uint64_t rs[4];
    X_(plain_mul)(rs, r, s);
    X_(blind_job) blind;
    memset(&blind, 0, sizeof blind);
    zp_status st = ZP_OK;
    int paged = 0; /* the witness in its slot, its pages let go */
    if (cfg->spill) {
        size_t slot = n > pk->n_vars ? n * sizeof(FR) : wbytes;
        st = io->spill_open(io->ctx, slot, err);
        if (st == ZP_OK) st = X_(h_spilled)(a, pk, witness, cfg, scratch, &paged, par, err);
        if (st == ZP_OK) { /* h is in a: the blinding terms, without transforms */
            X_(blind_init)(&blind, pk, r, s, rs);
            zp_parallel_for(par, 4, X_(blind_task), &blind);
        }
    } else {
        st = X_(synthesize_stream)(a, pk, witness, cfg, par, err);
        if (st == ZP_OK) {
            X_(transforms)(&blind, pk, a, r, s, rs, scratch, par);
            /* b and c are done with: their pages go back now (the tracker
             * keeps counting the buffer; the budget's phases say what is
             * resident) */
            zp_mem_release((char *)abc + n * sizeof(FR), 2 * n * sizeof(FR));
        }
    }
    G1J pi_a, b1, pi_c, h;
    G2J b2;
    if (st == ZP_OK) st = X_(stream_msms)(&h, &pi_a, &b1, &pi_c, &b2, pk, witness, a, scratch, cfg, par, err);
    /* a point changed under the reads is a wrong sum: no proof */
    if (st == ZP_OK) st = io->check(io->ctx, err);
    if (paged) { /* the witness back as it was, whatever happened since */
        zp_error rerr;
        zp_status rst = io->spill_io(io->ctx, 0, ZP_STREAM_SLOT_W, 0, witness, wbytes, &rerr);
        if (rst != ZP_OK && st == ZP_OK) {
            st = rst;
            if (err != NULL) *err = rerr;
        }
    }
    if (cfg->spill) io->spill_close(io->ctx);
    if (st == ZP_OK) {
        zp_groth16_pending pend;
        X_(assemble)(&pend, pk, &blind, pi_a, b1, pi_c, &h, r, s, par);
        memcpy(pend.b2_sum, &b2, sizeof b2);
        pend.b2_done = 1;
        X_(groth16_prove_finish)(proof, &pend, pk, witness, scratch, par);
        memset(&pend, 0, sizeof pend);
    }
    memset(rs, 0, sizeof rs);
    memset(&blind, 0, sizeof blind);
    return st;
}

/* Up to this many public inputs, L is summed from one multiplication per
 * input: the MSM's set-up (its scratch, the windows' buckets and their
 * reduction) cost a one-shot 2^11 self-verify with one input about
 * 0.3 ms more. */
#define VK_L_DIRECT_MAX 4

/* L = IC_0 + Σ x_i IC_i, affine; 0, or -1 when out of memory. */
static int X_(vk_l)(G1 *out, const zp_groth16_vk *vk, const uint64_t *pub) {
    const G1 *ic = (const G1 *)vk->ic;
    G1J l, ic0;
    if (vk->n_public <= VK_L_DIRECT_MAX) {
        G1_(j_set_inf)(&l);
        for (size_t i = 0; i < vk->n_public; i++) {
            G1 p;
            G1J pj, term;
            memcpy(&p, &ic[1 + i], sizeof p); /* in place in the key: any alignment */
            G1_(j_from_affine)(&pj, &p);
            G1_(j_mul_var)(&term, &pj, pub + 4 * i, 4);
            G1_(j_add_var)(&l, &l, &term);
        }
    } else {
        void *scratch = malloc(G1_(msm_scratch_size)(vk->n_public, 1));
        if (scratch == NULL) return -1;
        G1_(msm_var)(&l, ic + 1, pub, vk->n_public, scratch, NULL);
        free(scratch);
    }
    G1 ic_0;
    memcpy(&ic_0, &ic[0], sizeof ic_0); /* IC is read in place in the key: any alignment */
    G1_(j_from_affine)(&ic0, &ic_0);
    G1_(j_add_var)(&l, &l, &ic0);
    G1_(j_to_affine)(out, &l);
    return 0;
}

/* The verifier's pairs: n general ones (p[i], q[i]) and m with prepared
 * lines (pl[j], lines[j]). With a pool of two or more workers (the
 * prover's self-check) their Miller loops run in two halves, one task
 * each: the first n0 general and m0 line pairs, then the rest; the
 * product of the halves is the loop over all the pairs, exactly. Serial,
 * they run as one loop, which shares its squarings across all the pairs.
 * Only the final exponentiation is serial either way. */
typedef struct {
    const G1 *p, *pl;
    const G2 *q;
    const ZP_CAT(ZP_G, _g2_lines) *const *lines;
    size_t n, m, n0, m0;
    ZP_CAT(ZP_G, _fp12) f[2];
} X_(miller_pairs);

static void X_(miller_half_task)(void *arg, size_t i, size_t worker) {
    (void)worker;
    X_(miller_pairs) *h = arg;
    size_t n0 = i == 0 ? 0 : h->n0, n = i == 0 ? h->n0 : h->n - h->n0;
    size_t m0 = i == 0 ? 0 : h->m0, m = i == 0 ? h->m0 : h->m - h->m0;
    X_(miller_loop_lines_var)(&h->f[i], n ? h->p + n0 : NULL, n ? h->q + n0 : NULL, n, m ? h->pl + m0 : NULL,
                              m ? h->lines + m0 : NULL, m);
}

/* 1 when the pairs' product after the final exponentiation (times extra,
 * a Miller loop value, when not NULL) is one. */
static int X_(miller_pairs_check)(X_(miller_pairs) *h, const ZP_CAT(ZP_G, _fp12) * extra, const zp_parallel *par) {
    ZP_CAT(ZP_G, _fp12) f;
    if (zp_parallel_threads(par) >= 2) {
        zp_parallel_for(par, 2, X_(miller_half_task), h);
        ZP_CAT(ZP_G, _fp12_mul)(&f, &h->f[0], &h->f[1]);
    } else {
        X_(miller_loop_lines_var)(&f, h->p, h->q, h->n, h->pl, h->lines, h->m);
    }
    if (extra != NULL) ZP_CAT(ZP_G, _fp12_mul)(&f, &f, extra);
    X_(final_exp)(&f, &f);
    return ZP_CAT(ZP_G, _fp12_is_one_var)(&f);
}

/* e(π_A, π_B) = e(α, β)·e(L, γ)·e(π_C, δ), checked as one product of four
 * pairings with a shared final exponentiation: (-π_A, π_B) and (α, β) in
 * one half, (L, γ) and (π_C, δ) in the other. */
int X_(groth16_verify)(const zp_groth16_vk *vk, const uint64_t *pub, const zp_groth16_proof *proof,
                       const zp_parallel *par) {
    G1 p[4];
    G2 q[4];
    if (X_(vk_l)(&p[2], vk, pub) < 0) return -1;
    G1_(neg)(&p[0], (const G1 *)proof->a);
    memcpy(&q[0], proof->b, sizeof(G2));
    memcpy(&p[1], vk->alpha1, sizeof(G1));
    memcpy(&q[1], vk->beta2, sizeof(G2));
    memcpy(&q[2], vk->gamma2, sizeof(G2));
    memcpy(&p[3], proof->c, sizeof(G1));
    memcpy(&q[3], vk->delta2, sizeof(G2));
    X_(miller_pairs) h = {.p = p, .q = q, .n = 4, .n0 = 2};
    return X_(miller_pairs_check)(&h, NULL, par);
}

/* The prepared part of a verifying key (groth16.h, zp_groth16_pvk): the
 * Miller loop of (α, β), which the final exponentiation of the product
 * turns into e(α, β), and the lines of γ and δ. */
typedef struct {
    ZP_CAT(ZP_G, _fp12) alpha_beta;
    ZP_CAT(ZP_G, _g2_lines) gamma, delta;
} X_(pvk_data);

size_t X_(groth16_pvk_size)(void) { return sizeof(X_(pvk_data)); }

void X_(groth16_pvk_make)(void *data, const zp_groth16_vk *vk) {
    X_(pvk_data) *d = data;
    G1 alpha;
    G2 beta, gamma, delta;
    memcpy(&alpha, vk->alpha1, sizeof alpha);
    memcpy(&beta, vk->beta2, sizeof beta);
    memcpy(&gamma, vk->gamma2, sizeof gamma);
    memcpy(&delta, vk->delta2, sizeof delta);
    X_(miller_loop_var)(&d->alpha_beta, &alpha, &beta, 1);
    X_(g2_lines_make)(&d->gamma, &gamma);
    X_(g2_lines_make)(&d->delta, &delta);
}

/* The same check as groth16_verify: (π_A, π_B) through a general Miller
 * loop in one half, L and π_C through the lines of γ and δ in the other,
 * times the loop of (α, β). */
int X_(groth16_verify_prepared)(const void *data, const zp_groth16_vk *vk, const uint64_t *pub,
                                const zp_groth16_proof *proof, const zp_parallel *par) {
    const X_(pvk_data) *d = data;
    G1 a, pl[2];
    G2 b;
    if (X_(vk_l)(&pl[0], vk, pub) < 0) return -1;
    G1_(neg)(&a, (const G1 *)proof->a);
    memcpy(&b, proof->b, sizeof b);
    memcpy(&pl[1], proof->c, sizeof(G1));
    const ZP_CAT(ZP_G, _g2_lines) * lines[2] = {&d->gamma, &d->delta};
    X_(miller_pairs) h = {.p = &a, .q = &b, .n = 1, .n0 = 1, .pl = pl, .lines = lines, .m = 2, .m0 = 0};
    return X_(miller_pairs_check)(&h, &d->alpha_beta, par);
}

#undef X_
#undef G1
#undef G1J
#undef G2
#undef G2J
#undef FR
#undef G1_
#undef G2_
#undef FR_
#undef ZP_G
