/* Phase 1's arithmetic for one curve: included by phase2_impl.h inside its
 * instantiation (its macros: G1, G2, FR, X_ ...), entries of zp_p2_ops. */

/* ---- contribute: the powers, in constant time ---- */

/* pts[i] (affine LEM, n of them) times first·inc^(start + i), first (NULL:
 * one) and inc Montgomery-form secrets: each task derives its block's first scalar
 * by a square-and-multiply over the public exponent (start + lo), whose
 * multiplications are constant time in the secret, then multiplies each
 * point by the constant-time split (ct_scalar, ct_mul), steps the scalar
 * by inc, and takes the block to affine with one inversion. */
typedef struct {
    uint8_t *pts;
    size_t n;
    uint64_t start;
    const FR *first, *inc;
    const zp_ct_lanes_curve *lanes; /* the eight-lane path, or NULL */
} X_(powers_job);

#define ZP_P1_POWERS_BLOCK 64
static void X_(fr_pow_public)(FR *r, const FR *a, uint64_t e) {
    FR acc, base = *a;
    FR_(set_one)(&acc);
    for (; e != 0; e >>= 1) {
        if (e & 1) FR_(mul)(&acc, &acc, &base);
        FR_(sqr)(&base, &base);
    }
    *r = acc;
    explicit_bzero(&base, sizeof base);
    explicit_bzero(&acc, sizeof acc);
}
#define ZP_P1_POWERS(GG, GGJ, FF)                                                                            \
    static void X_(GG##_powers_task)(void *arg, size_t t, size_t worker) {                                   \
        (void)worker;                                                                                        \
        const X_(powers_job) *job = arg;                                                                     \
        size_t lo = t * ZP_P1_POWERS_BLOCK;                                                                  \
        size_t hi = lo + ZP_P1_POWERS_BLOCK < job->n ? lo + ZP_P1_POWERS_BLOCK : job->n;                     \
        GGJ acc[ZP_P1_POWERS_BLOCK];                                                                         \
        GG res[ZP_P1_POWERS_BLOCK];                                                                          \
        FF scratch[ZP_P1_POWERS_BLOCK];                                                                      \
        zp_p2_ct_scalar sc[8];                                                                               \
        FR s, k;                                                                                             \
        X_(fr_pow_public)(&s, job->inc, job->start + lo);                                                    \
        if (job->first != NULL) FR_(mul)(&s, &s, job->first);                                                \
        for (size_t i = lo; i < hi; i += 8) {                                                                \
            size_t m = hi - i < 8 ? hi - i : 8;                                                              \
            for (size_t l = 0; l < m; l++) {                                                                 \
                FR_(from_mont)(&k, &s);                                                                      \
                X_(GG##_ct_scalar)(&sc[l], k.v);                                                             \
                FR_(mul)(&s, &s, job->inc);                                                                  \
            }                                                                                                \
            X_(GG##_ct_mul_block)(&acc[i - lo], job->pts + i * sizeof(GG), sc, 1, m, job->lanes);            \
        }                                                                                                    \
        X_(GG##_ct_to_affine)(res, acc, hi - lo, scratch);                                                   \
        memcpy(job->pts + lo * sizeof(GG), res, (hi - lo) * sizeof(GG));                                     \
        explicit_bzero(&s, sizeof s);                                                                        \
        explicit_bzero(&k, sizeof k);                                                                        \
        explicit_bzero(sc, sizeof sc);                                                                       \
        explicit_bzero(acc, sizeof acc);                                                                     \
    }                                                                                                        \
    /* lanes: the group's (lanes_curve), or NULL */                                                          \
    static void X_(GG##_apply_powers_with)(uint8_t * pts, size_t n, uint64_t start, const uint64_t first[4], \
                                           const uint64_t inc[4], const zp_parallel *par,                    \
                                           const zp_ct_lanes_curve *lanes) {                                 \
        FR f, c;                                                                                             \
        if (first != NULL) memcpy(f.v, first, 32);                                                           \
        memcpy(c.v, inc, 32);                                                                                \
        X_(powers_job) job = {pts, n, start, first != NULL ? &f : NULL, &c, lanes};                          \
        zp_parallel_for(par, (n + ZP_P1_POWERS_BLOCK - 1) / ZP_P1_POWERS_BLOCK, X_(GG##_powers_task), &job); \
        explicit_bzero(&f, sizeof f);                                                                        \
        explicit_bzero(&c, sizeof c);                                                                        \
    }                                                                                                        \
    static void X_(GG##_apply_powers)(uint8_t * pts, size_t n, uint64_t start, const uint64_t first[4],      \
                                      const uint64_t inc[4], const zp_parallel *par) {                       \
        zp_ct_lanes_curve lc;                                                                                \
        int lanes = X_(GG##_lanes_curve)(&lc, par);                                                          \
        X_(GG##_apply_powers_with)(pts, n, start, first, inc, par, lanes ? &lc : NULL);                      \
    }
ZP_P1_POWERS(G1, G1J, FP)
ZP_P1_POWERS(G2, G2J, FP2)

#if defined(ZP_P2_G1_CHECKED)
/* G1_apply_powers on points only known to be on the curve, each tested for
 * the subgroup on the way (phase2_ct_impl.h's G1_checked_block: in the
 * lanes, BLS12-381's mul_checked shares the test's [|x|]P with the
 * product): the index of the first point outside it, n if none (the points
 * then meaningless). var: first and inc are public (a beacon's). */
typedef struct {
    uint8_t *pts;
    size_t n;
    uint64_t start;
    const FR *first, *inc;
    int var;
    const zp_ct_lanes_curve *lanes;
    _Atomic size_t bad;
} X_(powers_checked_job);

static void X_(G1_powers_checked_task)(void *arg, size_t t, size_t worker) {
    (void)worker;
    X_(powers_checked_job) *job = arg;
    size_t lo = t * ZP_P2_APPLY_BLOCK, hi = lo + ZP_P2_APPLY_BLOCK < job->n ? lo + ZP_P2_APPLY_BLOCK : job->n;
    zp_p2_ct_scalar sc[ZP_P2_APPLY_BLOCK], sc4[ZP_P2_APPLY_BLOCK][2];
    FR kv[ZP_P2_APPLY_BLOCK];
    const zp_p2_ct_scalar *s[ZP_P2_APPLY_BLOCK], *s4[2][ZP_P2_APPLY_BLOCK];
    const uint64_t *k_var[ZP_P2_APPLY_BLOCK];
    FR p;
    X_(fr_pow_public)(&p, job->inc, job->start + lo);
    if (job->first != NULL) FR_(mul)(&p, &p, job->first);
    for (size_t j = 0; j < hi - lo; j++) {
        FR_(from_mont)(&kv[j], &p);
        zp_p2_split_x4_ct(&sc[j], sc4[j], kv[j].v, ZP_G_X_ABS);
        FR_(mul)(&p, &p, job->inc);
        s[j] = &sc[j], s4[0][j] = &sc4[j][0], s4[1][j] = &sc4[j][1];
        k_var[j] = job->var && job->lanes == NULL ? kv[j].v : NULL;
    }
    X_(G1_checked_block)(job->pts, lo, hi, s, (const zp_p2_ct_scalar *const(*)[ZP_P2_APPLY_BLOCK])s4, k_var, job->lanes,
                         &job->bad);
    explicit_bzero(&p, sizeof p);
    explicit_bzero(kv, sizeof kv);
    explicit_bzero(sc, sizeof sc);
    explicit_bzero(sc4, sizeof sc4);
}
static size_t X_(G1_apply_powers_checked)(uint8_t *pts, size_t n, uint64_t start, const uint64_t first[4],
                                          const uint64_t inc[4], int var, const zp_parallel *par) {
    zp_ct_lanes_curve lc;
    int lanes = X_(G1_lanes_curve)(&lc, par) && lc.kern->mul_checked != NULL;
    lc.x_abs = ZP_G_X_ABS;
    FR f, c;
    if (first != NULL) memcpy(f.v, first, 32);
    memcpy(c.v, inc, 32);
    X_(powers_checked_job) job = {pts, n, start, first != NULL ? &f : NULL, &c, var, lanes ? &lc : NULL, n};
    zp_parallel_for(par, (n + ZP_P2_APPLY_BLOCK - 1) / ZP_P2_APPLY_BLOCK, X_(G1_powers_checked_task), &job);
    explicit_bzero(&f, sizeof f);
    explicit_bzero(&c, sizeof c);
    return atomic_load(&job.bad);
}
#endif

/* The same for public first and inc (a beacon's): each point by the
 * endomorphism split and wNAF (G1_mul_wide), one inversion per block. */
#define ZP_P1_POWERS_VAR_BLOCK 64
#define ZP_P1_POWERS_VAR(GG, GGJ, FF)                                                                             \
    static void X_(GG##_powers_var_task)(void *arg, size_t t, size_t worker) {                                    \
        (void)worker;                                                                                             \
        const X_(powers_job) *job = arg;                                                                          \
        size_t lo = t * ZP_P1_POWERS_VAR_BLOCK;                                                                   \
        size_t hi = lo + ZP_P1_POWERS_VAR_BLOCK < job->n ? lo + ZP_P1_POWERS_VAR_BLOCK : job->n;                  \
        GGJ acc[ZP_P1_POWERS_VAR_BLOCK];                                                                          \
        FF scratch[2 * ZP_P1_POWERS_VAR_BLOCK];                                                                   \
        GG res[ZP_P1_POWERS_VAR_BLOCK];                                                                           \
        FR s, k;                                                                                                  \
        X_(fr_pow_public)(&s, job->inc, job->start + lo);                                                         \
        if (job->first != NULL) FR_(mul)(&s, &s, job->first);                                                     \
        for (size_t i = lo; i < hi; i++) {                                                                        \
            GG p;                                                                                                 \
            memcpy(&p, job->pts + i * sizeof(GG), sizeof p);                                                      \
            FR_(from_mont)(&k, &s);                                                                               \
            ZP_CAT(GG, _j_from_affine)(&acc[i - lo], &p);                                                         \
            X_(GG##_mul_wide)(&acc[i - lo], &acc[i - lo], k.v);                                                   \
            FR_(mul)(&s, &s, job->inc);                                                                           \
        }                                                                                                         \
        ZP_CAT(GG, _j_batch_to_affine_var)(res, acc, hi - lo, scratch);                                           \
        memcpy(job->pts + lo * sizeof(GG), res, (hi - lo) * sizeof(GG));                                          \
    }                                                                                                             \
    static void X_(GG##_apply_powers_var)(uint8_t * pts, size_t n, uint64_t start, const uint64_t first[4],       \
                                          const uint64_t inc[4], const zp_parallel *par) {                        \
        zp_ct_lanes_curve lc; /* the lanes beat the scalar wNAF (g1_apply_key_var) */                             \
        if (X_(GG##_lanes_curve)(&lc, par)) {                                                                     \
            X_(GG##_apply_powers_with)(pts, n, start, first, inc, par, &lc);                                      \
            return;                                                                                               \
        }                                                                                                         \
        FR f, c;                                                                                                  \
        if (first != NULL) memcpy(f.v, first, 32);                                                                \
        memcpy(c.v, inc, 32);                                                                                     \
        X_(powers_job) job = {pts, n, start, first != NULL ? &f : NULL, &c, NULL};                                \
        zp_parallel_for(par, (n + ZP_P1_POWERS_VAR_BLOCK - 1) / ZP_P1_POWERS_VAR_BLOCK, X_(GG##_powers_var_task), \
                        &job);                                                                                    \
    }
ZP_P1_POWERS_VAR(G1, G1J, FP)
ZP_P1_POWERS_VAR(G2, G2J, FP2)

/* ---- encodings ---- */

/* wasmcurves' LEMtoC, the compressed form snarkjs hashes a response in:
 * x big-endian (c1 then c0 in G2), the top bit set when y is "negative"
 * (fp_is_negative_var); infinity is zeros with 0x40 first. */
static void X_(g1_to_c)(uint8_t *out, const uint8_t *lem) {
    G1 p;
    memcpy(&p, lem, sizeof p);
    if (G1_(is_inf)(&p)) {
        memset(out, 0, FPN * 8);
        out[0] = 0x40;
        return;
    }
    X_(fp_to_be)(out, &p.x);
    if (X_(fp_is_negative_var)(&p.y)) out[0] |= 0x80;
}
static void X_(g2_to_c)(uint8_t *out, const uint8_t *lem) {
    G2 p;
    memcpy(&p, lem, sizeof p);
    if (G2_(is_inf)(&p)) {
        memset(out, 0, FPN * 16);
        out[0] = 0x40;
        return;
    }
    X_(fp_to_be)(out, &p.x.c1);
    X_(fp_to_be)(out + FPN * 8, &p.x.c0);
    if (X_(fp2_is_negative_var)(&p.y)) out[0] |= 0x80;
}

/* ---- verify (public) ---- */

/* out = Σ k_i·Q_i over G2 (affine LEM), as g1_lincomb. */
static zp_status X_(g2_lincomb)(uint8_t *out, const uint8_t *pts, const uint64_t *scalars, size_t n,
                                const zp_parallel *par, zp_error *err) {
    size_t threads = zp_parallel_threads(par);
    zp_tracked scratch = {0};
    zp_status st = zp_cer_alloc(&scratch, ZP_CAT(G2, _msm_scratch_size)(n, threads), "verification MSM", err);
    if (st != ZP_OK) return st;
    G2J acc;
    ZP_CAT(G2, _msm_var)(&acc, (const G2 *)(const void *)pts, scalars, n, scratch.p, par);
    zp_cer_free(&scratch);
    G2 p;
    G2_(j_to_affine)(&p, &acc);
    memcpy(out, &p, sizeof p);
    return ZP_OK;
}

#undef ZP_P1_POWERS
#undef ZP_P1_POWERS_BLOCK
#undef ZP_P1_POWERS_VAR
#undef ZP_P1_POWERS_VAR_BLOCK
