/* The constant-time multiplications of a ceremony's secrets, for one
 * curve: included by phase2_impl.h inside its instantiation (its macros:
 * G1, G2, FP, FR, X_ ...). The endomorphism split's tables and windows
 * (scalar path), the IFMA lanes' glue (ct_lanes.h), and the blocks of
 * points a contribution multiplies (apply_key, and the beacon's). */

/* ---- secrets: constant time, by the endomorphism split ---- */

/* k·P for a secret k as m1·P + m2·E(P), E the endomorphism of the var-time
 * path above (φ, ψ or ψ²), m1, m2 < 2^128: 33 signed 4-bit windows, each
 * four doublings and two complete additions of an entry of a table of
 * 1..8 times P (or E(P)), read by a masked scan of all eight and negated
 * under a mask. About 132 doublings and 66 additions, where the 256-bit
 * ladder (curve's j_mul) takes 256 and 64 and a table twice the size. The
 * split itself is constant time (the lattice's multiplications and a
 * masked |·|, or a long division under masks); the tables depend on the
 * public point only. Valid for points of the prime-order subgroup, which
 * every point a contribution multiplies is (zp_cer_check_points). */
#if defined(ZP_G_GLV)
static inline void X_(G1_ct_scalar)(zp_p2_ct_scalar *s, const uint64_t k[4]) {
    uint64_t m1[4], m2[4], neg1, neg2;
    X_(glv_split)(m1, &neg1, m2, &neg2, k);
    zp_p2_booth_ct(&s->half[0], m1, neg1);
    zp_p2_booth_ct(&s->half[1], m2, neg2);
    explicit_bzero(m1, sizeof m1), explicit_bzero(m2, sizeof m2);
    explicit_bzero(&neg1, sizeof neg1), explicit_bzero(&neg2, sizeof neg2);
}
static inline void X_(G1_ct_endo)(G1J *r, const G1J *p) {
    static const uint64_t beta_plain[4] = {ZP_G_GLV_BETA};
    FP beta;
    memcpy(beta.v, beta_plain, sizeof beta.v);
    FP_(to_mont)(&beta, &beta);
    *r = *p;
    FP_(mul)(&r->x, &r->x, &beta);
}
#define ZP_P2_G1_CT_ENDO_NEG 0
#elif defined(ZP_G_G1_ENDO)
static inline void X_(G1_ct_scalar)(zp_p2_ct_scalar *s, const uint64_t k[4]) {
#if defined(ZP_G_SPLIT_X2)
    zp_p2_split_x2_ct(s, k, ZP_G_X_ABS);
#else
    static const uint64_t D[2] = {ZP_G_G1_D};
    zp_p2_split_div_ct(s, k, D);
#endif
}
static inline void X_(G1_ct_endo)(G1J *r, const G1J *p) { ZP_G_G1_ENDO(r, p); }
#define ZP_P2_G1_CT_ENDO_NEG ZP_G_G1_ENDO_NEG
#else
#error "the constant-time path needs an endomorphism split of G1"
#endif
#if defined(ZP_G_G2_ENDO)
static inline void X_(G2_ct_scalar)(zp_p2_ct_scalar *s, const uint64_t k[4]) {
#if defined(ZP_G_SPLIT_X2)
    zp_p2_split_x2_ct(s, k, ZP_G_X_ABS);
#else
    static const uint64_t D[2] = {ZP_G_G2_D};
    zp_p2_split_div_ct(s, k, D);
#endif
}
static inline void X_(G2_ct_endo)(G2J *r, const G2J *p) { ZP_G_G2_ENDO(r, p); }
#define ZP_P2_G2_CT_ENDO_NEG 0
#else
#error "the constant-time path needs an endomorphism split of G2"
#endif

#define ZP_P2_CT_MUL(GG, GGJ, FF)                                                                                     \
    /* t[0][d - 1] = d·p, t[1][d - 1] = d·E(p) for d = 1..8 (public) */                                             \
    static inline void X_(GG##_ct_tables)(GGJ t[2][8], const GGJ *p) {                                                \
        t[0][0] = *p;                                                                                                 \
        ZP_CAT(GG, _j_dbl)(&t[0][1], p);                                                                              \
        for (int i = 2; i < 8; i++) ZP_CAT(GG, _j_add)(&t[0][i], &t[0][i - 1], p);                                    \
        for (int i = 0; i < 8; i++) {                                                                                 \
            X_(GG##_ct_endo)(&t[1][i], &t[0][i]);                                                                     \
            if (ZP_P2_##GG##_CT_ENDO_NEG) ZP_CAT(GG, _j_neg)(&t[1][i], &t[1][i]);                                     \
        }                                                                                                             \
    }                                                                                                                 \
    /* r = t[abs - 1] (infinity for abs 0), negated under neg: every entry read */                                    \
    static inline void X_(GG##_ct_pick)(GGJ * r, const GGJ t[8], uint64_t abs, uint64_t neg) {                        \
        ZP_CAT(GG, _j_set_inf)(r);                                                                                    \
        for (uint64_t j = 0; j < 8; j++) {                                                                            \
            uint64_t x = abs ^ (j + 1);                                                                               \
            ZP_CAT(GG, _j_cmov)(r, &t[j], zp_point_zero_mask(&x, 1));                                                 \
        }                                                                                                             \
        GGJ n;                                                                                                        \
        ZP_CAT(GG, _j_neg)(&n, r);                                                                                    \
        ZP_CAT(GG, _j_cmov)(r, &n, neg);                                                                              \
    }                                                                                                                 \
    static void X_(GG##_ct_mul)(GGJ * r, const GGJ t[2][8], const zp_p2_ct_scalar *s) {                               \
        GGJ acc, pick;                                                                                                \
        ZP_CAT(GG, _j_set_inf)(&acc);                                                                                 \
        for (int i = ZP_P2_CT_DIGITS - 1; i >= 0; i--) {                                                              \
            for (int b = 0; b < 4; b++) ZP_CAT(GG, _j_dbl)(&acc, &acc);                                               \
            for (int h = 0; h < 2; h++) {                                                                             \
                X_(GG##_ct_pick)(&pick, t[h], s->half[h].abs[i], s->half[h].neg[i]);                                  \
                ZP_CAT(GG, _j_add)(&acc, &acc, &pick);                                                                \
            }                                                                                                         \
        }                                                                                                             \
        *r = acc;                                                                                                     \
        explicit_bzero(&acc, sizeof acc);                                                                             \
        explicit_bzero(&pick, sizeof pick);                                                                           \
    }                                                                                                                 \
    /* out[i] = in[i] in affine form, one constant-time inversion for all n                                         \
     * (Montgomery's trick; a Z of 0, infinity, counted as 1 and its output                                          \
     * zeroed under a mask); scratch holds n field elements */ \
    static void X_(GG##_ct_to_affine)(GG * out, const GGJ *in, size_t n, FF *scratch) {                               \
        FF acc, inv, z, one, zi, zi2, zi3;                                                                            \
        ZP_CAT(FF, _set_one)(&one);                                                                                   \
        acc = one;                                                                                                    \
        for (size_t i = 0; i < n; i++) {                                                                              \
            z = in[i].z;                                                                                              \
            zp_point_cmov((uint64_t *)&z, (const uint64_t *)&one,                                                     \
                          zp_point_zero_mask((const uint64_t *)&in[i].z, sizeof(FF) / 8), sizeof(FF) / 8);            \
            scratch[i] = acc;                                                                                         \
            ZP_CAT(FF, _mul)(&acc, &acc, &z);                                                                         \
        }                                                                                                             \
        ZP_CAT(FF, _inv)(&inv, &acc);                                                                                 \
        for (size_t i = n; i-- > 0;) {                                                                                \
            uint64_t inf = zp_point_zero_mask((const uint64_t *)&in[i].z, sizeof(FF) / 8);                            \
            z = in[i].z;                                                                                              \
            zp_point_cmov((uint64_t *)&z, (const uint64_t *)&one, inf, sizeof(FF) / 8);                               \
            ZP_CAT(FF, _mul)(&zi, &inv, &scratch[i]);                                                                 \
            ZP_CAT(FF, _mul)(&inv, &inv, &z);                                                                         \
            ZP_CAT(FF, _sqr)(&zi2, &zi);                                                                              \
            ZP_CAT(FF, _mul)(&zi3, &zi2, &zi);                                                                        \
            ZP_CAT(FF, _mul)(&out[i].x, &in[i].x, &zi2);                                                              \
            ZP_CAT(FF, _mul)(&out[i].y, &in[i].y, &zi3);                                                              \
            uint64_t keep = ~inf;                                                                                     \
            uint64_t *o = (uint64_t *)&out[i];                                                                        \
            for (size_t l = 0; l < sizeof(GG) / 8; l++) o[l] &= keep;                                                 \
        }                                                                                                             \
        explicit_bzero(&acc, sizeof acc);                                                                             \
        explicit_bzero(&inv, sizeof inv);                                                                             \
        explicit_bzero(&zi, sizeof zi);                                                                               \
    }
ZP_P2_CT_MUL(G1, G1J, FP)
ZP_P2_CT_MUL(G2, G2J, FP2)

/* out = k·in, k a Montgomery-form scalar (converted here), in constant
 * time; affine LEM in and out. */
#define ZP_P2_MUL_CT(GG, GGJ)                                                                    \
    static void X_(GG##_mul_ct_lem)(uint8_t * out, const uint8_t *in, const uint64_t kmont[4]) { \
        FR k;                                                                                    \
        memcpy(k.v, kmont, 32);                                                                  \
        FR_(from_mont)(&k, &k);                                                                  \
        zp_p2_ct_scalar s;                                                                       \
        X_(GG##_ct_scalar)(&s, k.v);                                                             \
        GG p;                                                                                    \
        GGJ j, t[2][8];                                                                          \
        memcpy(&p, in, sizeof p);                                                                \
        ZP_CAT(GG, _j_from_affine)(&j, &p);                                                      \
        X_(GG##_ct_tables)(t, &j);                                                               \
        X_(GG##_ct_mul)(&j, t, &s);                                                              \
        ZP_CAT(GG, _j_to_affine)(&p, &j);                                                        \
        memcpy(out, &p, sizeof p);                                                               \
        explicit_bzero(&k, sizeof k);                                                            \
        explicit_bzero(&s, sizeof s);                                                            \
        explicit_bzero(&j, sizeof j);                                                            \
    }
ZP_P2_MUL_CT(G1, G1J)
ZP_P2_MUL_CT(G2, G2J)
static void X_(g1_mul_ct)(uint8_t *out, const uint8_t *in, const uint64_t kmont[4]) {
    X_(G1_mul_ct_lem)(out, in, kmont);
}
static void X_(g2_mul_ct)(uint8_t *out, const uint8_t *in, const uint64_t kmont[4]) {
    X_(G2_mul_ct_lem)(out, in, kmont);
}

/* The eight-lane path (ct_lanes.h) for a group, where the build has it
 * and zp_ifma_enabled(par) says so: lanes_curve gives 1 and the group's
 * kernels and constants in *c (the split's endomorphism); else 0.
 * lanes_endo reads an endomorphism E of the form (ex·x̄, ey·ȳ) off
 * E(1 : 1 : 1) = (ex, ey, 1) into *c (0 if E is not of that form).
 * lanes_run: out[l] = s[l]·in[l] for l < m <= 8, Jacobian out; in affine
 * LEM points (kind ZP_P2_LANES_SECRET: constant time in s) or the
 * group's Jacobian points (_JACOBIAN, public); the
 * spare lanes redo lane 0. ct_mul_block: acc[i] = k_i·pts[i] (affine LEM in, Jacobian
 * out) for i < n <= 64, in constant time in the k_i, given split: s[i·ds]
 * (ds 0: one scalar for every point); lanes: the group's, or NULL. */
#ifndef ZP_P2_LANES_KINDS
#define ZP_P2_LANES_KINDS /* once for both curves' instantiations */
enum { ZP_P2_LANES_SECRET, ZP_P2_LANES_JACOBIAN };
#endif
#define ZP_P2_CT_BLOCK(GG, GGJ, FF, B_INIT, CONJ)                                                                     \
    static int X_(GG##_lanes_endo)(zp_ct_lanes_curve * c, void (*endo)(GGJ *, const GGJ *), int neg, int conj) {      \
        GGJ one, e;                                                                                                   \
        ZP_CAT(FF, _set_one)(&one.x), ZP_CAT(FF, _set_one)(&one.y), ZP_CAT(FF, _set_one)(&one.z);                     \
        endo(&e, &one);                                                                                               \
        if (neg) ZP_CAT(GG, _j_neg)(&e, &e);                                                                          \
        if (memcmp(&e.z, &one.z, sizeof e.z) != 0) return 0;                                                          \
        memcpy(c->ex, &e.x, sizeof e.x);                                                                              \
        memcpy(c->ey, &e.y, sizeof e.y);                                                                              \
        memcpy(c->one, &one.x, sizeof one.x);                                                                         \
        c->conj = conj;                                                                                               \
        return 1;                                                                                                     \
    }                                                                                                                 \
    static int X_(GG##_lanes_curve)(zp_ct_lanes_curve * c, const zp_parallel *par) {                                  \
        const zp_ct_lanes_kernels *kern = zp_ct_lanes_get(sizeof(FF) / 8);                                            \
        if (kern == NULL || !zp_ifma_enabled(par)) return 0;                                                          \
        memset(c, 0, sizeof *c);                                                                                      \
        c->kern = kern;                                                                                               \
        zp_ifma_field_init(&c->f, FP_(modulus).v, FPN);                                                               \
        static const FF b = B_INIT;                                                                                   \
        FF b3;                                                                                                        \
        ZP_CAT(FF, _add)(&b3, &b, &b);                                                                                \
        ZP_CAT(FF, _add)(&b3, &b3, &b);                                                                               \
        memcpy(c->b3, &b3, sizeof b3);                                                                                \
        return X_(GG##_lanes_endo)(c, X_(GG##_ct_endo), ZP_P2_##GG##_CT_ENDO_NEG, (CONJ));                            \
    }                                                                                                                 \
    static void X_(GG##_lanes_run)(GGJ * out, const uint64_t *const in[], const zp_p2_ct_scalar *const s[], size_t m, \
                                   int kind, const zp_ct_lanes_curve *c) {                                            \
        _Static_assert(sizeof(GGJ) == 3 * sizeof(FF) && sizeof(GG) == 2 * sizeof(FF), "the lanes' point layout");     \
        const uint64_t *lin[8];                                                                                       \
        const zp_p2_ct_scalar *ls[8];                                                                                 \
        uint64_t res[8 * 3 * (sizeof(FF) / 8)];                                                                       \
        for (size_t l = 0; l < 8; l++) lin[l] = in[l < m ? l : 0], ls[l] = s[l < m ? l : 0];                          \
        (kind == ZP_P2_LANES_JACOBIAN ? c->kern->mul_j : c->kern->mul)(res, lin, ls, c);                              \
        memcpy(out, res, m * sizeof(GGJ));                                                                            \
        explicit_bzero(res, sizeof res);                                                                              \
    }                                                                                                                 \
    static void X_(GG##_ct_mul_block)(GGJ * acc, const uint8_t *pts, const zp_p2_ct_scalar *s, size_t ds, size_t n,   \
                                      const zp_ct_lanes_curve *lanes) {                                               \
        if (lanes != NULL) {                                                                                          \
            for (size_t i = 0; i < n; i += 8) {                                                                       \
                const uint64_t *in[8];                                                                                \
                const zp_p2_ct_scalar *sc[8];                                                                         \
                size_t m = n - i < 8 ? n - i : 8;                                                                     \
                for (size_t l = 0; l < m; l++) {                                                                      \
                    in[l] = (const uint64_t *)(const void *)(pts + (i + l) * sizeof(GG));                             \
                    sc[l] = s + (i + l) * ds;                                                                         \
                }                                                                                                     \
                X_(GG##_lanes_run)(&acc[i], in, sc, m, ZP_P2_LANES_SECRET, lanes);                                    \
            }                                                                                                         \
            return;                                                                                                   \
        }                                                                                                             \
        GGJ tab[2][8];                                                                                                \
        for (size_t i = 0; i < n; i++) {                                                                              \
            GG p;                                                                                                     \
            memcpy(&p, pts + i * sizeof(GG), sizeof p);                                                               \
            ZP_CAT(GG, _j_from_affine)(&acc[i], &p);                                                                  \
            X_(GG##_ct_tables)(tab, &acc[i]);                                                                         \
            X_(GG##_ct_mul)(&acc[i], tab, s + i * ds);                                                                \
        }                                                                                                             \
    }
ZP_P2_CT_BLOCK(G1, G1J, FP, ZP_CAT(ZP_G_UP, _G1_B_INIT), 0)
ZP_P2_CT_BLOCK(G2, G2J, FP2, ZP_CAT(ZP_G_UP, _G2_B_INIT), ZP_G_G2_ENDO_CONJ)

/* Subgroup checks in the lanes (ops.lanes_check_init, lanes_first_outside):
 * the test's endomorphism (ψ on G2, φ on BLS12-381's G1: ZP_G_*_CHECK_ENDO)
 * in place of the split's; BN254's G1 (cofactor 1, no ZP_G_G1_CHECK_ENDO)
 * needs none. A lane the kernel is unsure of (ct_lanes.h) is tested on
 * the scalar path. */
#define ZP_P2_CHECK_LANES(GG, GGJ, FF, ENDO, CONJ)                                                         \
    static int X_(GG##_lanes_check_init)(zp_ct_lanes_curve * c, const zp_parallel *par) {                  \
        if (!X_(GG##_lanes_curve)(c, par) || !X_(GG##_lanes_endo)(c, ENDO, 0, (CONJ))) return 0;           \
        c->x_abs = ZP_G_X_ABS;                                                                             \
        return 1;                                                                                          \
    }                                                                                                      \
    static size_t X_(GG##_lanes_first_outside)(const uint8_t *pts, size_t n, const zp_ct_lanes_curve *c) { \
        for (size_t i = 0; i < n; i += 8) {                                                                \
            const uint64_t *in[8];                                                                         \
            for (size_t l = 0; l < 8; l++)                                                                 \
                in[l] = (const uint64_t *)(const void *)(pts + (i + l < n ? i + l : i) * sizeof(GG));      \
            unsigned unsure, ok = c->kern->in_subgroup(in, c, &unsure);                                    \
            for (size_t l = 0; l < 8 && i + l < n; l++) {                                                  \
                if ((unsure >> l) & 1) {                                                                   \
                    GG p;                                                                                  \
                    memcpy(&p, in[l], sizeof p);                                                           \
                    ok |= (unsigned)GG##_(is_in_subgroup_var)(&p) << l;                                    \
                }                                                                                          \
                if (!((ok >> l) & 1)) return i + l;                                                        \
            }                                                                                              \
        }                                                                                                  \
        return n;                                                                                          \
    }
#if defined(ZP_G_G1_CHECK_ENDO)
ZP_P2_CHECK_LANES(G1, G1J, FP, ZP_G_G1_CHECK_ENDO, 0)
#endif
ZP_P2_CHECK_LANES(G2, G2J, FP2, ZP_G_G2_CHECK_ENDO, 1)
static int X_(lanes_check_init)(zp_ct_lanes_curve *c, int g2, const zp_parallel *par) {
#if defined(ZP_G_G1_CHECK_ENDO)
    if (!g2) return X_(G1_lanes_check_init)(c, par);
#else
    if (!g2) return 0; /* an on-curve check is all it takes */
#endif
    return X_(G2_lanes_check_init)(c, par);
}
static size_t X_(lanes_first_outside)(const uint8_t *pts, size_t n, int g2, const zp_ct_lanes_curve *c) {
#if defined(ZP_G_G1_CHECK_ENDO)
    if (!g2) return X_(G1_lanes_first_outside)(pts, n, c);
#else
    if (!g2) return n;
#endif
    return X_(G2_lanes_first_outside)(pts, n, c);
}

/* Multiplies n affine G1 points in place by the plain scalar k, in
 * constant time in k: k split once, then per point its tables and the
 * windows (eight points at once in the lanes where the CPU has them),
 * one inversion per block of points. */
typedef struct {
    uint8_t *pts;
    size_t n;
    const zp_p2_ct_scalar *s;
    const zp_ct_lanes_curve *lanes; /* NULL: the scalar path */
} X_(apply_ct_job);

#define ZP_P2_APPLY_BLOCK 64
static void X_(apply_ct_task)(void *arg, size_t t, size_t worker) {
    (void)worker;
    const X_(apply_ct_job) *job = arg;
    size_t lo = t * ZP_P2_APPLY_BLOCK, hi = lo + ZP_P2_APPLY_BLOCK < job->n ? lo + ZP_P2_APPLY_BLOCK : job->n;
    G1J acc[ZP_P2_APPLY_BLOCK];
    G1 res[ZP_P2_APPLY_BLOCK];
    FP scratch[ZP_P2_APPLY_BLOCK];
    X_(G1_ct_mul_block)(acc, job->pts + lo * sizeof(G1), job->s, 0, hi - lo, job->lanes);
    X_(G1_ct_to_affine)(res, acc, hi - lo, scratch);
    memcpy(job->pts + lo * sizeof(G1), res, (hi - lo) * sizeof(G1));
    explicit_bzero(acc, sizeof acc);
}
/* lanes: the group's (lanes_curve), or NULL */
static void X_(g1_apply_key_with)(uint8_t *pts, size_t n, const uint64_t kmont[4], const zp_parallel *par,
                                  const zp_ct_lanes_curve *lanes) {
    FR k;
    memcpy(k.v, kmont, 32);
    FR_(from_mont)(&k, &k);
    zp_p2_ct_scalar s;
    X_(G1_ct_scalar)(&s, k.v);
    X_(apply_ct_job) job = {pts, n, &s, lanes};
    zp_parallel_for(par, (n + ZP_P2_APPLY_BLOCK - 1) / ZP_P2_APPLY_BLOCK, X_(apply_ct_task), &job);
    explicit_bzero(&k, sizeof k);
    explicit_bzero(&s, sizeof s);
}
static void X_(g1_apply_key)(uint8_t *pts, size_t n, const uint64_t kmont[4], const zp_parallel *par) {
    zp_ct_lanes_curve lc;
    int lanes = X_(G1_lanes_curve)(&lc, par);
    X_(g1_apply_key_with)(pts, n, kmont, par, lanes ? &lc : NULL);
}

/* The products that test the subgroup on the way: only where the split
 * is k = m + q·x² by the divisions by |x| (ZP_G_SPLIT_X2) and the test is
 * E(P) = [x²]P (ZP_G_G1_CHECK_ENDO with ZP_G_G1_ENDO, not GLV), which
 * ZP_P2_G1_CHECKED tells the ops table. */
#if defined(ZP_G_G1_CHECK_ENDO) && defined(ZP_G_G1_ENDO) && defined(ZP_G_SPLIT_X2) && !defined(ZP_G_GLV)
#define ZP_P2_G1_CHECKED 1
/* The m ≤ 8 affine points at in[] (in[l] for l ≥ m a copy of in[0])
 * times their own scalars, each tested for the subgroup on the way: acc[l]
 * = k_l·P_l where bit l of the result is set (else meaningless). s[l] is
 * k_l's G1_ct_scalar split for the scalar path, s4[0][l] and s4[1][l] its
 * four parts (zp_p2_split_x4_ct) for the lanes' mul_checked; k_var[l] the
 * plain k_l where it is public (a beacon's: the scalar path takes the
 * variable-time product), else NULL. A lane the kernel is unsure of, and
 * every point without the lanes, is tested and multiplied on the scalar
 * path. */
static unsigned X_(G1_mul_checked8)(G1J *acc, const uint64_t *const in[8], size_t m, const zp_p2_ct_scalar *const s[8],
                                    const zp_p2_ct_scalar *const s4[2][8], const uint64_t *const k_var[8],
                                    const zp_ct_lanes_curve *lanes) {
    G1J tab[2][8];
    uint64_t out[8 * sizeof(G1J) / 8];
    unsigned unsure = 0xff, ok = 0;
    if (lanes != NULL) {
        ok = lanes->kern->mul_checked(out, in, s4, lanes, &unsure);
        memcpy(acc, out, m * sizeof(G1J));
        explicit_bzero(out, sizeof out);
    }
    for (size_t l = 0; l < m; l++) {
        if (!((unsure >> l) & 1)) continue;
        G1 p;
        memcpy(&p, in[l], sizeof p);
        if (!G1_(is_in_subgroup_var)(&p)) continue;
        G1_(j_from_affine)(&acc[l], &p);
        if (k_var[l] != NULL) {
            X_(G1_mul_wide)(&acc[l], &acc[l], k_var[l]);
        } else {
            X_(G1_ct_tables)(tab, &acc[l]);
            X_(G1_ct_mul)(&acc[l], tab, s[l]);
        }
        ok |= 1u << l;
    }
    explicit_bzero(tab, sizeof tab);
    return ok & ((1u << m) - 1);
}

/* Multiplies n affine G1 points in place by the plain scalar k as
 * apply_key does, and tests each for the subgroup on the way
 * (G1_mul_checked8): the index of the first point outside it, n if none
 * (the points then hold meaningless values). In the lanes, BLS12-381's
 * mul_checked (ct_lanes.h) takes the test's [|x|]P as a second point and
 * halves the windows (var: k is public, a beacon's). */
typedef struct {
    uint8_t *pts;
    size_t n;
    const zp_p2_ct_scalar *s, *s4; /* k's split, and its four parts (s4[0], s4[1]) */
    const uint64_t *k_var;         /* plain k where public (a beacon's), else NULL */
    const zp_ct_lanes_curve *lanes;
    _Atomic size_t bad;
} X_(apply_checked_job);

/* One block of checked products, each point's scalars s[l], s4[.][l] and
 * k_var[l]: the results to affine in place, the first bad index noted. */
static void X_(G1_checked_block)(uint8_t *pts, size_t lo, size_t hi, const zp_p2_ct_scalar *const s[],
                                 const zp_p2_ct_scalar *const s4[2][ZP_P2_APPLY_BLOCK], const uint64_t *const k_var[],
                                 const zp_ct_lanes_curve *lanes, _Atomic size_t *bad) {
    G1J acc[ZP_P2_APPLY_BLOCK];
    G1 res[ZP_P2_APPLY_BLOCK];
    FP scratch[ZP_P2_APPLY_BLOCK];
    size_t first_bad = SIZE_MAX;
    for (size_t i = lo; i < hi; i += 8) {
        size_t m = hi - i < 8 ? hi - i : 8;
        const uint64_t *in[8];
        const zp_p2_ct_scalar *ls[8], *ls4[2][8];
        const uint64_t *lk[8];
        for (size_t l = 0; l < 8; l++) {
            size_t j = i - lo + (l < m ? l : 0);
            in[l] = (const uint64_t *)(const void *)(pts + (lo + j) * sizeof(G1));
            ls[l] = s[j], ls4[0][l] = s4[0][j], ls4[1][l] = s4[1][j], lk[l] = k_var[j];
        }
        unsigned ok = X_(G1_mul_checked8)(&acc[i - lo], in, m, ls, (const zp_p2_ct_scalar *const(*)[8])ls4, lk, lanes);
        if (ok != (1u << m) - 1 && first_bad == SIZE_MAX) first_bad = i + (size_t)__builtin_ctz(~ok);
    }
    if (first_bad != SIZE_MAX) zp_cer_note_first(bad, first_bad);
    X_(G1_ct_to_affine)(res, acc, hi - lo, scratch);
    memcpy(pts + lo * sizeof(G1), res, (hi - lo) * sizeof(G1));
    explicit_bzero(acc, sizeof acc);
}

static void X_(apply_checked_task)(void *arg, size_t t, size_t worker) {
    (void)worker;
    X_(apply_checked_job) *job = arg;
    size_t lo = t * ZP_P2_APPLY_BLOCK, hi = lo + ZP_P2_APPLY_BLOCK < job->n ? lo + ZP_P2_APPLY_BLOCK : job->n;
    const zp_p2_ct_scalar *s[ZP_P2_APPLY_BLOCK], *s4[2][ZP_P2_APPLY_BLOCK];
    const uint64_t *k_var[ZP_P2_APPLY_BLOCK];
    for (size_t j = 0; j < hi - lo; j++)
        s[j] = job->s, s4[0][j] = &job->s4[0], s4[1][j] = &job->s4[1], k_var[j] = job->k_var;
    X_(G1_checked_block)(job->pts, lo, hi, s, (const zp_p2_ct_scalar *const(*)[ZP_P2_APPLY_BLOCK])s4, k_var, job->lanes,
                         &job->bad);
}
static size_t X_(g1_apply_key_checked)(uint8_t *pts, size_t n, const uint64_t kmont[4], int var,
                                       const zp_parallel *par) {
    zp_ct_lanes_curve lc;
    int lanes = X_(G1_lanes_curve)(&lc, par) && lc.kern->mul_checked != NULL;
    lc.x_abs = ZP_G_X_ABS;
    FR k;
    memcpy(k.v, kmont, 32);
    FR_(from_mont)(&k, &k);
    zp_p2_ct_scalar s, s4[2]; /* s: G1_ct_scalar's split, for the scalar path */
    zp_p2_split_x4_ct(&s, s4, k.v, ZP_G_X_ABS);
    X_(apply_checked_job) job = {pts, n, &s, s4, var && !lanes ? k.v : NULL, lanes ? &lc : NULL, n};
    zp_parallel_for(par, (n + ZP_P2_APPLY_BLOCK - 1) / ZP_P2_APPLY_BLOCK, X_(apply_checked_task), &job);
    explicit_bzero(&k, sizeof k);
    explicit_bzero(&s, sizeof s);
    explicit_bzero(s4, sizeof s4);
    return atomic_load(&job.bad);
}
#endif

/* The same, variable time, for a public k (a beacon's): GLV or the
 * endomorphism split (G1_mul_wide), then one inversion per block. */
typedef struct {
    uint8_t *pts;
    size_t n;
    const uint64_t *k; /* plain */
} X_(apply_job);

#define ZP_P2_APPLY_VAR_BLOCK 64
static void X_(apply_var_task)(void *arg, size_t t, size_t worker) {
    (void)worker;
    const X_(apply_job) *job = arg;
    size_t lo = t * ZP_P2_APPLY_VAR_BLOCK,
           hi = lo + ZP_P2_APPLY_VAR_BLOCK < job->n ? lo + ZP_P2_APPLY_VAR_BLOCK : job->n;
    G1J acc[ZP_P2_APPLY_VAR_BLOCK];
    FP scratch[2 * ZP_P2_APPLY_VAR_BLOCK];
    G1 res[ZP_P2_APPLY_VAR_BLOCK];
    for (size_t i = lo; i < hi; i++) {
        G1 p;
        memcpy(&p, job->pts + i * sizeof(G1), sizeof p);
        G1_(j_from_affine)(&acc[i - lo], &p);
        X_(G1_mul_wide)(&acc[i - lo], &acc[i - lo], job->k);
    }
    G1_(j_batch_to_affine_var)(res, acc, hi - lo, scratch);
    memcpy(job->pts + lo * sizeof(G1), res, (hi - lo) * sizeof(G1));
}
static void X_(g1_apply_key_var)(uint8_t *pts, size_t n, const uint64_t kmont[4], const zp_parallel *par) {
    /* eight lanes of the constant-time path beat the scalar wNAF (2^16
     * BN254 points: 2.4x less CPU): the same points, so the same bytes */
    zp_ct_lanes_curve lc;
    if (X_(G1_lanes_curve)(&lc, par)) {
        X_(g1_apply_key_with)(pts, n, kmont, par, &lc);
        return;
    }
    FR k;
    memcpy(k.v, kmont, 32);
    FR_(from_mont)(&k, &k);
    X_(apply_job) job = {pts, n, k.v};
    zp_parallel_for(par, (n + ZP_P2_APPLY_VAR_BLOCK - 1) / ZP_P2_APPLY_VAR_BLOCK, X_(apply_var_task), &job);
}
