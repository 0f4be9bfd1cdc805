/* zkey new's sums over a ptau's bases and prepare phase2's Lagrange
 * bases, for one curve (public scalars: variable time): included by
 * phase2_impl.h inside its instantiation (its macros: G1, G2, FP, FR,
 * X_ ...). */

/* ---- zkey new: Σ coef·base per signal (public: variable time) ---- */

/* acc += k·P; k above r/2 is taken as -(r - k), so circom's many -1,
 * -2 ... cost what 1, 2 do; small k by double-and-add from k's top bit
 * (no table to build); wider ones go to the lanes where the CPU has them
 * (from ZP_P2_LANES_FROM bits: 10 measured as fast as 24 at 2^16 and 5%
 * faster on circom's sha256, whose 2^i run to 2^31), else, from
 * ZP_P2_WNAF_FROM bits, become two wNAF strings pending in ws (*nw of
 * them), added to acc by flush with their doublings shared, ZP_P2_STRAUS
 * terms at a time. */
#define ZP_P2_LANES_FROM 10
#define ZP_P2_WNAF_FROM 24
#define ZP_P2_STRAUS 4
/* k = |coef| (plain, below r) as add_scaled takes it: above r/2 as
 * -(r - coef), *neg then 1; returns k's top bit, -1 for 0 */
static int X_(coef_signed)(uint64_t k[4], int *neg, const uint64_t coef[4]) {
    uint64_t half[4];
    const uint64_t *r = FR_(modulus).v;
    for (int i = 0; i < 4; i++) half[i] = (r[i] >> 1) | (i < 3 ? r[i + 1] << 63 : 0);
    memcpy(k, coef, 4 * sizeof *k);
    *neg = zp_limbs_lt_var(half, k, 4);
    if (*neg) {
        unsigned __int128 b = 0;
        for (int i = 0; i < 4; i++) {
            unsigned __int128 d = (unsigned __int128)r[i] - k[i] - (uint64_t)b;
            k[i] = (uint64_t)d;
            b = (d >> 64) & 1;
        }
    }
    int top = 255;
    while (top >= 0 && !((k[top / 64] >> (top % 64)) & 1)) top--;
    return top;
}
/* A wide term costs the lanes (sum_pub) the windows of the longest of
 * its batch: zkey new sorts them into batches by length (circom's
 * coefficients are mostly 2^i of Num2Bits, -1, and wide constants),
 * below 2^36, 2^68, 2^128 and the rest. pub_scalar: k's split as sum_pub
 * takes it, k itself in one half when below 2^128 (what any split of it
 * gives: k·P + 0·E(P)). */
#define ZP_P2_WIDE_CLASSES 4
static inline int X_(wide_class)(int top) { return top < 36 ? 0 : top < 68 ? 1 : top < 128 ? 2 : 3; }
#define ZP_P2_PUB_SCALAR(GG)                                                                    \
    static inline void X_(GG##_pub_scalar)(zp_p2_ct_scalar * s, const uint64_t k[4], int top) { \
        if (top >= 128) {                                                                       \
            X_(GG##_ct_scalar)(s, k);                                                           \
            return;                                                                             \
        }                                                                                       \
        zp_p2_booth_ct(&s->half[0], k, 0);                                                      \
        memset(&s->half[1], 0, sizeof s->half[1]);                                              \
    }
ZP_P2_PUB_SCALAR(G1)
ZP_P2_PUB_SCALAR(G2)

/* A signal's wide terms pending for the lanes' sum_pub: a group holds up
 * to ZP_CT_LANES_TERMS of one signal's terms of one length class (|coef|,
 * its top bit, the point negated where coef was); a full group, and at
 * the signal's end the rest, goes to the sums of its class and size,
 * eight groups a batch, each lane adding Σ_j k[j]·pts[j] to its dst with
 * the terms' doublings shared (a batch of mixed sizes would run every
 * lane as long as its largest). The splits are made at flush, on its
 * stack. */
#define ZP_P2_SUMS(GG, GGJ)                                                                                            \
    typedef struct {                                                                                                   \
        unsigned n;                                                                                                    \
        int top[ZP_CT_LANES_TERMS];                                                                                    \
        uint64_t k[ZP_CT_LANES_TERMS][4];                                                                              \
        GG pts[ZP_CT_LANES_TERMS];                                                                                     \
    } X_(GG##_group);                                                                                                  \
    typedef struct {                                                                                                   \
        const zp_ct_lanes_curve *c;                                                                                    \
        unsigned n; /* the terms of each group */                                                                      \
        size_t m;                                                                                                      \
        GGJ *dst[8];                                                                                                   \
        X_(GG##_group) g[8];                                                                                           \
    } X_(GG##_sums);                                                                                                   \
    static void X_(GG##_sums_flush)(X_(GG##_sums) *b) {                                                                \
        if (b->m == 0) return;                                                                                         \
        zp_p2_ct_scalar own[ZP_CT_LANES_TERMS][8];                                                                     \
        const uint64_t *in[ZP_CT_LANES_TERMS][8];                                                                      \
        const zp_p2_ct_scalar *sc[ZP_CT_LANES_TERMS][8];                                                               \
        for (unsigned j = 0; j < b->n; j++)                                                                            \
            for (size_t l = 0; l < 8; l++) {                                                                           \
                size_t from = l < b->m ? l : 0; /* spare lanes redo lane 0 */                                          \
                if (l < b->m) X_(GG##_pub_scalar)(&own[j][l], b->g[l].k[j], b->g[l].top[j]);                           \
                in[j][l] = (const uint64_t *)(const void *)&b->g[from].pts[j], sc[j][l] = &own[j][from];               \
            }                                                                                                          \
        GGJ prod[8];                                                                                                   \
        b->c->kern->sum_pub((uint64_t *)(void *)prod, (const uint64_t *const(*)[8])in,                                 \
                            (const zp_p2_ct_scalar *const(*)[8])sc, b->n, b->c);                                       \
        for (size_t l = 0; l < b->m; l++) ZP_CAT(GG, _j_add_var)(b->dst[l], b->dst[l], &prod[l]);                      \
        b->m = 0;                                                                                                      \
    }                                                                                                                  \
    /* g (n terms) to the sums of its size; g emptied */                                                               \
    static void X_(GG##_sums_add)(X_(GG##_sums) *sums, X_(GG##_group) *g, GGJ * dst) {                                 \
        X_(GG##_sums) *b = &sums[g->n - 1];                                                                            \
        if (b->m == 8) X_(GG##_sums_flush)(b);                                                                         \
        b->g[b->m] = *g, b->dst[b->m] = dst, b->m++;                                                                   \
        g->n = 0;                                                                                                      \
    }                                                                                                                  \
    static void X_(GG##_group_push)(X_(GG##_group) *g, X_(GG##_sums) *sums, const GG *q, const uint64_t k[4], int top, \
                                    GGJ *dst) {                                                                        \
        memcpy(g->k[g->n], k, 4 * sizeof *k);                                                                          \
        g->top[g->n] = top, g->pts[g->n] = *q;                                                                         \
        if (++g->n == ZP_CT_LANES_TERMS) X_(GG##_sums_add)(sums, g, dst);                                              \
    }
ZP_P2_SUMS(G1, G1J)
ZP_P2_SUMS(G2, G2J)

/* groups: NULL, or the signal's ZP_P2_WIDE_CLASSES groups for the lanes
 * (ZP_P2_SUMS), sums their ZP_P2_WIDE_CLASSES × ZP_CT_LANES_TERMS batches:
 * a wide term goes to its class's group instead of the wNAF strings */
#define ZP_P2_ADD_SCALED(GG, GGJ)                                                                             \
    static void X_(GG##_flush)(GGJ * acc, const X_(GG##_wstr) *ws, int *nw) {                                 \
        if (*nw == 0) return;                                                                                 \
        GGJ t;                                                                                                \
        X_(GG##_jmuln)(&t, ws, *nw);                                                                          \
        ZP_CAT(GG, _j_add_var)(acc, acc, &t);                                                                 \
        *nw = 0;                                                                                              \
    }                                                                                                         \
    static void X_(GG##_add_scaled)(GGJ * acc, const GG *p, const uint64_t *coef, X_(GG##_wstr) *ws, int *nw, \
                                    X_(GG##_group) *groups, X_(GG##_sums) *sums) {                            \
        if (coef == NULL) {                                                                                   \
            ZP_CAT(GG, _j_add_affine_var)(acc, acc, p);                                                       \
            return;                                                                                           \
        }                                                                                                     \
        uint64_t k[4];                                                                                        \
        int neg, top = X_(coef_signed)(k, &neg, coef);                                                        \
        if (top < 0) return;                                                                                  \
        GG q = *p;                                                                                            \
        if (neg) ZP_CAT(GG, _neg)(&q, &q);                                                                    \
        if (top >= ZP_P2_LANES_FROM && groups != NULL) {                                                      \
            int c = X_(wide_class)(top);                                                                      \
            X_(GG##_group_push)(&groups[c], sums + c * ZP_CT_LANES_TERMS, &q, k, top, acc);                   \
            return;                                                                                           \
        }                                                                                                     \
        GGJ t;                                                                                                \
        ZP_CAT(GG, _j_from_affine)(&t, &q);                                                                   \
        if (top >= ZP_P2_WNAF_FROM) {                                                                         \
            X_(GG##_prep)(ws + *nw, &t, k);                                                                   \
            *nw += 2;                                                                                         \
            if (*nw == 2 * ZP_P2_STRAUS) X_(GG##_flush)(acc, ws, nw);                                         \
            return;                                                                                           \
        }                                                                                                     \
        for (int i = top - 1; i >= 0; i--) {                                                                  \
            ZP_CAT(GG, _j_dbl)(&t, &t);                                                                       \
            if ((k[i / 64] >> (i % 64)) & 1) ZP_CAT(GG, _j_add_affine_var)(&t, &t, &q);                       \
        }                                                                                                     \
        ZP_CAT(GG, _j_add_var)(acc, acc, &t);                                                                 \
    }
ZP_P2_ADD_SCALED(G1, G1J)
ZP_P2_ADD_SCALED(G2, G2J)

typedef struct {
    uint8_t *out;
    size_t n;
    const uint64_t *row_start;
    const zp_p2_term *terms;
    int g2;
    const zp_ct_lanes_curve *lanes; /* the group's eight-lane path, or NULL */
} X_(compose_job);

#define ZP_P2_COMPOSE_BLOCK 256
/* A block of signals [lo, hi): each signal's terms summed by add_scaled,
 * with the lanes where the job has them (each wide term's product there,
 * eight independent products at a time: they cost less than four
 * sharing their doublings in scalar code), then to affine. */
#define ZP_P2_COMPOSE(GG, GGJ, FF)                                                                               \
    static void X_(GG##_compose_block)(const X_(compose_job) *job, size_t lo, size_t hi) {                       \
        GGJ acc[ZP_P2_COMPOSE_BLOCK];                                                                            \
        X_(GG##_wstr) ws[2 * ZP_P2_STRAUS];                                                                      \
        FF scratch[2 * ZP_P2_COMPOSE_BLOCK];                                                                     \
        GG res[ZP_P2_COMPOSE_BLOCK];                                                                             \
        X_(GG##_group) groups[ZP_P2_WIDE_CLASSES];                                                               \
        X_(GG##_sums) sums[ZP_P2_WIDE_CLASSES * ZP_CT_LANES_TERMS];                                              \
        int lanes = job->lanes != NULL;                                                                          \
        for (int c = 0; c < ZP_P2_WIDE_CLASSES; c++) groups[c].n = 0;                                            \
        for (int i = 0; i < ZP_P2_WIDE_CLASSES * ZP_CT_LANES_TERMS; i++)                                         \
            sums[i].c = job->lanes, sums[i].n = (unsigned)(i % ZP_CT_LANES_TERMS) + 1, sums[i].m = 0;            \
        for (size_t s = lo; s < hi; s++) {                                                                       \
            ZP_CAT(GG, _j_set_inf)(&acc[s - lo]);                                                                \
            int nw = 0;                                                                                          \
            for (uint64_t e = job->row_start[s]; e < job->row_start[s + 1]; e++) {                               \
                GG p;                                                                                            \
                memcpy(&p, job->terms[e].base, sizeof p);                                                        \
                X_(GG##_add_scaled)(&acc[s - lo], &p, job->terms[e].coef, ws, &nw, lanes ? groups : NULL, sums); \
            }                                                                                                    \
            X_(GG##_flush)(&acc[s - lo], ws, &nw);                                                               \
            for (int c = 0; c < ZP_P2_WIDE_CLASSES; c++)                                                         \
                if (groups[c].n > 0) X_(GG##_sums_add)(sums + c * ZP_CT_LANES_TERMS, &groups[c], &acc[s - lo]);  \
        }                                                                                                        \
        for (int i = 0; i < ZP_P2_WIDE_CLASSES * ZP_CT_LANES_TERMS; i++) X_(GG##_sums_flush)(&sums[i]);          \
        ZP_CAT(GG, _j_batch_to_affine_var)(res, acc, hi - lo, scratch);                                          \
        memcpy(job->out + lo * sizeof(GG), res, (hi - lo) * sizeof(GG));                                         \
    }
ZP_P2_COMPOSE(G1, G1J, FP)
ZP_P2_COMPOSE(G2, G2J, FP2)

static void X_(compose_task)(void *arg, size_t t, size_t worker) {
    (void)worker;
    const X_(compose_job) *job = arg;
    size_t lo = t * ZP_P2_COMPOSE_BLOCK, hi = lo + ZP_P2_COMPOSE_BLOCK < job->n ? lo + ZP_P2_COMPOSE_BLOCK : job->n;
    if (job->g2) X_(G2_compose_block)(job, lo, hi);
    else X_(G1_compose_block)(job, lo, hi);
}

static void X_(compose)(uint8_t *out, size_t n, const uint64_t *row_start, const zp_p2_term *terms, int g2,
                        const zp_parallel *par) {
    zp_ct_lanes_curve lc;
    int lanes = g2 ? X_(G2_lanes_curve)(&lc, par) : X_(G1_lanes_curve)(&lc, par);
    X_(compose_job) job = {out, n, row_start, terms, g2, lanes ? &lc : NULL};
    zp_parallel_for(par, (n + ZP_P2_COMPOSE_BLOCK - 1) / ZP_P2_COMPOSE_BLOCK, X_(compose_task), &job);
}

/* out[i] = U(a[i] - b[i]) (zkey_new.js's hash of the H points). */
static void X_(g1_sub_to_u)(uint8_t *out, const uint8_t *a, const uint8_t *b, size_t n) {
    enum { BLK = 256 };
    G1J acc[BLK];
    FP scratch[2 * BLK];
    G1 res[BLK];
    for (size_t lo = 0; lo < n; lo += BLK) {
        size_t m = n - lo < BLK ? n - lo : BLK;
        for (size_t i = 0; i < m; i++) {
            G1 p, q;
            memcpy(&p, a + (lo + i) * sizeof(G1), sizeof p);
            memcpy(&q, b + (lo + i) * sizeof(G1), sizeof q);
            G1_(neg)(&q, &q);
            G1_(j_from_affine)(&acc[i], &p);
            G1_(j_add_affine_var)(&acc[i], &acc[i], &q);
        }
        G1_(j_batch_to_affine_var)(res, acc, m, scratch);
        for (size_t i = 0; i < m; i++) X_(g1_to_u)(out + (lo + i) * sizeof(G1), (const uint8_t *)&res[i]);
    }
}

/* ---- ffjavascript's G1 subtraction on any bytes (zkey_new.js's point
 * past tauG1) ----
 *
 * zkey_new.js hashes τ^(2·dom − 1) − τ^(dom − 1) when the domain is the
 * ptau's power, and reads the first from the bytes after tauG1 (the next
 * section's header and first bytes): coordinates of up to 2^(64·FPN),
 * most of them at least p. wasmcurves' field code, given such values, is
 * not arithmetic mod p: its add and sub subtract or add p once on a carry
 * (a sum at least 2^N + p stays off by 2^N mod p), so its result has to be
 * reproduced operation by operation. Its Montgomery product is exact for
 * any inputs below 2^N (T = x·y + m·p, m the one that clears the low N
 * bits, then T/2^N less p on a carry out or when at least p), and from
 * the Jacobian result on (inversion, to affine, from Montgomery) every
 * step is arithmetic mod p, so the rest is this code's own. N = 64·FPN;
 * variable time (public bytes). */
static void X_(js_add)(uint64_t *r, const uint64_t *x, const uint64_t *y) {
    const uint64_t *q = FP_(modulus).v;
    if (zp_limbs_add(r, x, y, FPN) || !zp_limbs_lt_var(r, q, FPN)) (void)zp_limbs_sub(r, r, q, FPN);
}
static void X_(js_sub)(uint64_t *r, const uint64_t *x, const uint64_t *y) {
    if (zp_limbs_sub(r, x, y, FPN)) (void)zp_limbs_add(r, r, FP_(modulus).v, FPN);
}
static void X_(js_mul)(uint64_t *r, const uint64_t *x, const uint64_t *y) {
    const uint64_t *q = FP_(modulus).v;
    uint64_t t[2 * FPN + 1] = {0}, inv = 1;
    for (int i = 0; i < 6; i++) inv *= 2 - q[0] * inv; /* q^-1 mod 2^64 */
    for (size_t i = 0; i < FPN; i++) {
        uint64_t c = 0;
        for (size_t j = 0; j < FPN; j++) {
            zp_u128 v = (zp_u128)x[i] * y[j] + t[i + j] + c;
            t[i + j] = (uint64_t)v, c = (uint64_t)(v >> 64);
        }
        t[i + FPN] = c;
    }
    for (size_t i = 0; i < FPN; i++) { /* + m·q, a word of m at a time */
        uint64_t m = t[i] * (0 - inv), c = 0;
        for (size_t j = 0; j < FPN; j++) {
            zp_u128 v = (zp_u128)m * q[j] + t[i + j] + c;
            t[i + j] = (uint64_t)v, c = (uint64_t)(v >> 64);
        }
        for (size_t k = i + FPN; c != 0 && k <= 2 * FPN; k++) {
            zp_u128 v = (zp_u128)t[k] + c;
            t[k] = (uint64_t)v, c = (uint64_t)(v >> 64);
        }
    }
    memcpy(r, t + FPN, FPN * 8);
    if (t[2 * FPN] != 0 || !zp_limbs_lt_var(r, q, FPN)) (void)zp_limbs_sub(r, r, q, FPN);
}

/* out = U(a − b) as g1m_subAffine, g1m_batchToAffine and g1m_batchLEMtoU
 * give it: a any 2·FPN words (LEM), b a point of the ptau (reduced). */
static void X_(g1_sub_past_to_u)(uint8_t *out, const uint8_t *a, const uint8_t *b) {
    const uint64_t *q = FP_(modulus).v;
    uint64_t x1[FPN], y1[FPN], x2[FPN], y2[FPN], zero[FPN] = {0};
    memcpy(x1, a, sizeof x1), memcpy(y1, a + 8 * FPN, sizeof y1);
    memcpy(x2, b, sizeof x2), memcpy(y2, b + 8 * FPN, sizeof y2);
    X_(js_sub)(y2, zero, y2); /* g1m_negAffine */
    G1J j;
    if (zp_limbs_is_zero(x1, FPN) && zp_limbs_is_zero(y1, FPN)) { /* a is infinity: −b */
        G1 p;
        memcpy(&p.x, x2, sizeof x2), memcpy(&p.y, y2, sizeof y2);
        G1_(j_from_affine)(&j, &p);
    } else if (memcmp(x1, x2, sizeof x1) == 0 && memcmp(y1, y2, sizeof y1) == 0) { /* reduced: −b doubled */
        G1 p;
        memcpy(&p.x, x2, sizeof x2), memcpy(&p.y, y2, sizeof y2);
        G1_(j_from_affine)(&j, &p);
        G1_(j_dbl)(&j, &j);
    } else { /* g1m_addAffine's formulas, operation by operation */
        uint64_t h[FPN], hh[FPN], dy[FPN], ii[FPN], jj[FPN], r[FPN], r2[FPN], v[FPN], v2[FPN], yj[FPN];
        uint64_t x3[FPN], y3[FPN], z3[FPN];
        X_(js_sub)(h, x2, x1);
        X_(js_sub)(dy, y2, y1);
        X_(js_mul)(hh, h, h);
        X_(js_add)(ii, hh, hh);
        X_(js_add)(ii, ii, ii);
        X_(js_mul)(jj, h, ii);
        X_(js_add)(r, dy, dy);
        X_(js_mul)(v, x1, ii);
        X_(js_mul)(r2, r, r);
        X_(js_add)(v2, v, v);
        X_(js_sub)(x3, r2, jj);
        X_(js_sub)(x3, x3, v2);
        X_(js_mul)(yj, y1, jj);
        X_(js_add)(yj, yj, yj);
        X_(js_sub)(y3, v, x3);
        X_(js_mul)(y3, y3, r);
        X_(js_sub)(y3, y3, yj);
        X_(js_add)(z3, h, h);
        uint64_t *c[3] = {x3, y3, z3};
        for (int k = 0; k < 3; k++) /* from here on the arithmetic is mod p */
            while (!zp_limbs_lt_var(c[k], q, FPN)) (void)zp_limbs_sub(c[k], c[k], q, FPN);
        memcpy(&j.x, x3, sizeof x3), memcpy(&j.y, y3, sizeof y3), memcpy(&j.z, z3, sizeof z3);
    }
    G1 res;
    FP scratch[2];
    G1_(j_batch_to_affine_var)(&res, &j, 1, scratch);
    X_(g1_to_u)(out, (const uint8_t *)&res);
}

/* §4's value: the r1cs coefficient n as snarkjs stores it, n·R² mod r
 * (plain, little-endian). */
static void X_(coef_r2)(uint8_t out[32], const uint64_t plain[4]) {
    FR a;
    memcpy(a.v, plain, 32);
    FR_(to_mont)(&a, &a);
    FR_(to_mont)(&a, &a); /* the limbs of (n·R) taken as plain, times R: n·R² */
    memcpy(out, a.v, 32);
}

/* ---- prepare phase2: Lagrange bases in the exponent (public) ---- */

/* The inverse FFT of n = 2^log_n points (ffjavascript's G.ifft, which is
 * lagrangeEvaluations below 2^s): out_i = n⁻¹ Σ_j ω^(-ij) in_j, ω the
 * NTT's root (ffjavascript's Fr.w[log_n]). Radix 2, decimation in time,
 * each stage's butterflies on the workers. */
typedef struct {
    void *a;
    size_t n, half;
    const uint64_t *tw;     /* half plain twiddles of the stage */
    const uint64_t *uscale; /* the last stage: n⁻¹ (plain), u's factor; NULL before */
    int g2;
    const zp_ct_lanes_curve *lanes;  /* the group's eight-lane path, or NULL */
    const zp_p2_ct_scalar *uscale_s; /* with lanes: uscale split */
} X_(fft_job);

#define ZP_P2_FFT_BLOCK 64
/* prepare's products pending for the lanes (lanes_run), eight at a time:
 * dst[l] gets s[l]·in[l], in the group's Jacobian points. */
#define ZP_P2_LANES_BATCH(GG, GGJ)                                                                               \
    typedef struct {                                                                                             \
        const zp_ct_lanes_curve *c;                                                                              \
        size_t m;                                                                                                \
        const uint64_t *in[8];                                                                                   \
        const zp_p2_ct_scalar *s[8];                                                                             \
        GGJ *dst[8];                                                                                             \
    } X_(GG##_batch);                                                                                            \
    static void X_(GG##_batch_flush)(X_(GG##_batch) *b) {                                                        \
        if (b->m == 0) return;                                                                                   \
        GGJ prod[8];                                                                                             \
        X_(GG##_lanes_run)(prod, b->in, b->s, b->m, ZP_P2_LANES_JACOBIAN, b->c);                                 \
        for (size_t l = 0; l < b->m; l++) *b->dst[l] = prod[l];                                                  \
        b->m = 0;                                                                                                \
    }                                                                                                            \
    static void X_(GG##_batch_push)(X_(GG##_batch) *b, const uint64_t *in, const zp_p2_ct_scalar *s, GGJ *dst) { \
        b->in[b->m] = in, b->s[b->m] = s, b->dst[b->m] = dst;                                                    \
        if (++b->m == 8) X_(GG##_batch_flush)(b);                                                                \
    }
ZP_P2_LANES_BATCH(G1, G1J)
ZP_P2_LANES_BATCH(G2, G2J)

/* A block of butterflies [lo, hi) with its multiplications eight at a
 * time in the lanes (a batch of the FFT's Jacobian points): v = ω^k·a[i1]
 * (a twiddle split per product, or per distinct k in the early stages'
 * short groups), u = n⁻¹·a[i0] in the last stage; then the sums. Twiddles are public: the lanes' constant
 * time costs nothing here, and they beat the scalar wNAF. */
#define ZP_P2_FFT_LANES(GG, GGJ, FF)                                                                          \
    static void X_(GG##_fft_lanes)(const X_(fft_job) *j, size_t lo, size_t hi) {                              \
        GGJ *a = j->a, v[ZP_P2_FFT_BLOCK], u[ZP_P2_FFT_BLOCK];                                                \
        zp_p2_ct_scalar sc[ZP_P2_FFT_BLOCK];                                                                  \
        X_(GG##_batch) batch = {.c = j->lanes};                                                               \
        for (size_t b = lo; b < hi; b++) {                                                                    \
            size_t grp = b / j->half, k = b % j->half, i0 = grp * 2 * j->half + k, i1 = i0 + j->half;         \
            if (j->uscale != NULL)                                                                            \
                X_(GG##_batch_push)(&batch, (const uint64_t *)(const void *)&a[i0], j->uscale_s, &u[b - lo]); \
            if (k == 0 && j->uscale == NULL) {                                                                \
                v[b - lo] = a[i1];                                                                            \
                continue;                                                                                     \
            }                                                                                                 \
            /* a block holds 64 butterflies from a multiple of 64: a short \
             * group's k repeat, split at their first */                                  \
            size_t slot = j->half < ZP_P2_FFT_BLOCK ? k : b - lo;                                             \
            if (j->half >= ZP_P2_FFT_BLOCK || b - lo < j->half) X_(GG##_ct_scalar)(&sc[slot], j->tw + 4 * k); \
            X_(GG##_batch_push)(&batch, (const uint64_t *)(const void *)&a[i1], &sc[slot], &v[b - lo]);       \
        }                                                                                                     \
        X_(GG##_batch_flush)(&batch);                                                                         \
        for (size_t b = lo; b < hi; b++) {                                                                    \
            size_t grp = b / j->half, k = b % j->half, i0 = grp * 2 * j->half + k, i1 = i0 + j->half;         \
            GGJ nv, uu = j->uscale != NULL ? u[b - lo] : a[i0];                                               \
            ZP_CAT(GG, _j_add_var)(&a[i0], &uu, &v[b - lo]);                                                  \
            ZP_CAT(GG, _j_neg)(&nv, &v[b - lo]);                                                              \
            ZP_CAT(GG, _j_add_var)(&a[i1], &uu, &nv);                                                         \
        }                                                                                                     \
    }
ZP_P2_FFT_LANES(G1, G1J, FP)
ZP_P2_FFT_LANES(G2, G2J, FP2)

static void X_(fft_task)(void *arg, size_t t, size_t worker) {
    (void)worker;
    const X_(fft_job) *j = arg;
    size_t lo = t * ZP_P2_FFT_BLOCK, hi = lo + ZP_P2_FFT_BLOCK < j->n / 2 ? lo + ZP_P2_FFT_BLOCK : j->n / 2;
    if (j->lanes != NULL) {
        if (j->g2) X_(G2_fft_lanes)(j, lo, hi);
        else X_(G1_fft_lanes)(j, lo, hi);
        return;
    }
    for (size_t b = lo; b < hi; b++) {
        size_t grp = b / j->half, k = b % j->half, i0 = grp * 2 * j->half + k, i1 = i0 + j->half;
        if (!j->g2) {
            G1J *a = j->a, v;
            if (k == 0 && j->uscale == NULL) {
                v = a[i1];
            } else {
                X_(G1_mul_wide)(&v, &a[i1], j->tw + 4 * k);
            }
            G1J u = a[i0], nv;
            if (j->uscale != NULL) X_(G1_mul_wide)(&u, &u, j->uscale);
            G1_(j_add_var)(&a[i0], &u, &v);
            G1_(j_neg)(&nv, &v);
            G1_(j_add_var)(&a[i1], &u, &nv);
        } else {
            G2J *a = j->a, v;
            if (k == 0 && j->uscale == NULL) {
                v = a[i1];
            } else {
                X_(G2_mul_wide)(&v, &a[i1], j->tw + 4 * k);
            }
            G2J u = a[i0], nv;
            if (j->uscale != NULL) X_(G2_mul_wide)(&u, &u, j->uscale);
            G2_(j_add_var)(&a[i0], &u, &v);
            G2_(j_neg)(&nv, &v);
            G2_(j_add_var)(&a[i1], &u, &nv);
        }
    }
}

/* In place over n affine LEM points (any alignment); work: n Jacobian
 * points of the group plus 2n field elements (lagrange_work_bytes). */
static size_t X_(lagrange_work_bytes)(size_t n, int g2) {
    return g2 ? n * (sizeof(G2J) + 2 * sizeof(FP2) + sizeof(G2)) : n * (sizeof(G1J) + 2 * sizeof(FP) + sizeof(G1));
}

/* a (Jacobian, work's head) = pts (2^log_n affine LEM) in bit-reversed order */
static void X_(fft_load)(uint8_t *a, const uint8_t *pts, unsigned log_n, int g2) {
    size_t n = (size_t)1 << log_n, pe = g2 ? sizeof(G2) : sizeof(G1), je = g2 ? sizeof(G2J) : sizeof(G1J);
    for (size_t i = 0; i < n; i++) {
        size_t r = 0;
        for (unsigned b = 0; b < log_n; b++) r |= ((i >> b) & 1) << (log_n - 1 - b);
        if (!g2) {
            G1 p;
            memcpy(&p, pts + i * pe, pe);
            G1_(j_from_affine)((G1J *)(void *)(a + r * je), &p);
        } else {
            G2 p;
            memcpy(&p, pts + i * pe, pe);
            G2_(j_from_affine)((G2J *)(void *)(a + r * je), &p);
        }
    }
}

/* The stages over a, loaded by fft_load: a_i = Σ_j ω^(-ij) in_j, times
 * n⁻¹ where normalise (folded into the last stage: its outputs are n⁻¹u ±
 * (n⁻¹ω^k)v, two multiplications per butterfly there instead of three).
 * tw: n/2 plain scalars of room; lanes: the group's, or NULL. */
static void X_(fft_stages)(uint8_t *a, unsigned log_n, int g2, int normalise, uint64_t *tw,
                           const zp_ct_lanes_curve *lanes, const zp_parallel *par) {
    size_t n = (size_t)1 << log_n;
    FR ninv, ninv_plain;
    FR_(from_u64)(&ninv, n);
    FR_(inv)(&ninv, &ninv);
    FR_(from_mont)(&ninv_plain, &ninv);
    zp_p2_ct_scalar us;
    if (g2) X_(G2_ct_scalar)(&us, ninv_plain.v);
    else X_(G1_ct_scalar)(&us, ninv_plain.v);
    for (unsigned s = 1; s <= log_n; s++) {
        size_t half = (size_t)1 << (s - 1);
        int scale = normalise && s == log_n;
        FR w, x;
        ZP_CAT(FR, _root_of_unity)(&w, s);
        FR_(inv)(&w, &w);
        if (scale) {
            x = ninv;
        } else {
            FR_(set_one)(&x);
        }
        for (size_t k = 0; k < half; k++) {
            FR plain;
            FR_(from_mont)(&plain, &x);
            memcpy(tw + 4 * k, plain.v, 32);
            FR_(mul)(&x, &x, &w);
        }
        X_(fft_job) job = {a, n, half, tw, scale ? ninv_plain.v : NULL, g2, lanes, &us};
        zp_parallel_for(par, (n / 2 + ZP_P2_FFT_BLOCK - 1) / ZP_P2_FFT_BLOCK, X_(fft_task), &job);
    }
}

/* pts = a (n Jacobian points) in affine, with one inversion per block;
 * scratch: 2n field elements and n affine points */
static void X_(fft_to_affine)(uint8_t *pts, uint8_t *a, size_t n, int g2, uint8_t *scratch) {
    size_t pe = g2 ? sizeof(G2) : sizeof(G1);
    if (!g2) {
        G1 *out = (G1 *)(void *)(scratch + 2 * n * sizeof(FP));
        G1_(j_batch_to_affine_var)(out, (G1J *)(void *)a, n, (FP *)(void *)scratch);
        memcpy(pts, out, n * pe);
    } else {
        G2 *out = (G2 *)(void *)(scratch + 2 * n * sizeof(FP2));
        G2_(j_batch_to_affine_var)(out, (G2J *)(void *)a, n, (FP2 *)(void *)scratch);
        memcpy(pts, out, n * pe);
    }
}

static zp_status X_(lagrange)(uint8_t *pts, unsigned log_n, int g2, void *work, const zp_parallel *par, zp_error *err) {
    size_t n = (size_t)1 << log_n, je = g2 ? sizeof(G2J) : sizeof(G1J);
    if (n == 1) return ZP_OK;
    uint8_t *a = work;
    zp_tracked twb = {0};
    zp_status st = zp_cer_alloc(&twb, n / 2 * 32, "twiddles", err);
    if (st != ZP_OK) return st;
    zp_ct_lanes_curve lc;
    int lanes = g2 ? X_(G2_lanes_curve)(&lc, par) : X_(G1_lanes_curve)(&lc, par);
    X_(fft_load)(a, pts, log_n, g2);
    X_(fft_stages)(a, log_n, g2, 1, twb.p, lanes ? &lc : NULL, par);
    zp_cer_free(&twb);
    X_(fft_to_affine)(pts, a, n, g2, a + n * je);
    return ZP_OK;
}

/* The twist of lagrange_rows: a (count rows of m Jacobian points) point
 * (i, k) times n⁻¹·ω_n^(-(first + i)·k), a block of 64 points a task. */
typedef struct {
    uint8_t *a;
    size_t m, count;
    uint64_t first;
    FR winv, ninv; /* ω_n⁻¹ and n⁻¹, Montgomery */
    int g2;
    const zp_ct_lanes_curve *lanes;
} X_(twist_job);

/* a[lo, hi) times the plain scalars k[0, hi - lo): in the lanes, or else
 * one wide multiplication each */
#define ZP_P2_SCALE_BLOCK(GG, GGJ)                                                                  \
    static void X_(GG##_scale_block)(GGJ * a, size_t lo, size_t hi, const uint64_t(*k)[4],          \
                                     const zp_ct_lanes_curve *lanes) {                              \
        if (lanes == NULL) {                                                                        \
            for (size_t p = lo; p < hi; p++) X_(GG##_mul_wide)(&a[p], &a[p], k[p - lo]);            \
            return;                                                                                 \
        }                                                                                           \
        zp_p2_ct_scalar sc[ZP_P2_FFT_BLOCK];                                                        \
        X_(GG##_batch) batch = {.c = lanes};                                                        \
        for (size_t p = lo; p < hi; p++) {                                                          \
            X_(GG##_ct_scalar)(&sc[p - lo], k[p - lo]);                                             \
            X_(GG##_batch_push)(&batch, (const uint64_t *)(const void *)&a[p], &sc[p - lo], &a[p]); \
        }                                                                                           \
        X_(GG##_batch_flush)(&batch);                                                               \
    }
ZP_P2_SCALE_BLOCK(G1, G1J)
ZP_P2_SCALE_BLOCK(G2, G2J)

static void X_(twist_task)(void *arg, size_t t, size_t worker) {
    (void)worker;
    const X_(twist_job) *j = arg;
    size_t total = j->m * j->count, lo = t * ZP_P2_FFT_BLOCK;
    size_t hi = lo + ZP_P2_FFT_BLOCK < total ? lo + ZP_P2_FFT_BLOCK : total;
    FR step, x;
    uint64_t plain[ZP_P2_FFT_BLOCK][4];
    /* a block's points follow one another in a row, but for the first and
     * any that starts a row: those start their powers afresh */
    for (size_t p = lo; p < hi; p++) {
        size_t i = p / j->m, k = p % j->m;
        if (p == lo || k == 0) {
            uint64_t e = j->first + i, kk = k;
            FR_(pow_var)(&step, &j->winv, &e, 1);
            FR_(pow_var)(&x, &step, &kk, 1);
            FR_(mul)(&x, &x, &j->ninv);
        }
        FR pl;
        FR_(from_mont)(&pl, &x);
        memcpy(plain[p - lo], pl.v, 32);
        FR_(mul)(&x, &x, &step);
    }
    if (j->g2) X_(G2_scale_block)((G2J *)(void *)j->a, lo, hi, (const uint64_t(*)[4])plain, j->lanes);
    else X_(G1_scale_block)((G1J *)(void *)j->a, lo, hi, (const uint64_t(*)[4])plain, j->lanes);
}

/* count rows of 2^log_m affine LEM points, in place: row i, point k
 * becomes Σ_j ω_m^(-jk)·in_j, then, where log_n, times
 * n⁻¹·ω_n^(-(first + i)·k) (the four-step transform's twist:
 * phase1_prepare.c under a budget); work: lagrange_work_bytes(count·2^log_m). */
static zp_status X_(lagrange_rows)(uint8_t *pts, unsigned log_m, size_t count, unsigned log_n, uint64_t first, int g2,
                                   void *work, const zp_parallel *par, zp_error *err) {
    size_t m = (size_t)1 << log_m, pe = g2 ? sizeof(G2) : sizeof(G1), je = g2 ? sizeof(G2J) : sizeof(G1J);
    uint8_t *a = work;
    zp_tracked twb = {0};
    zp_status st = zp_cer_alloc(&twb, (m / 2 + 1) * 32, "twiddles", err);
    if (st != ZP_OK) return st;
    zp_ct_lanes_curve lc;
    int lanes = g2 ? X_(G2_lanes_curve)(&lc, par) : X_(G1_lanes_curve)(&lc, par);
    for (size_t i = 0; i < count; i++) {
        X_(fft_load)(a + i * m * je, pts + i * m * pe, log_m, g2);
        X_(fft_stages)(a + i * m * je, log_m, g2, 0, twb.p, lanes ? &lc : NULL, par);
    }
    zp_cer_free(&twb);
    if (log_n > 0) {
        X_(twist_job) job = {.a = a, .m = m, .count = count, .first = first, .g2 = g2, .lanes = lanes ? &lc : NULL};
        ZP_CAT(FR, _root_of_unity)(&job.winv, log_n);
        FR_(inv)(&job.winv, &job.winv);
        FR_(from_u64)(&job.ninv, (uint64_t)1 << log_n);
        FR_(inv)(&job.ninv, &job.ninv);
        zp_parallel_for(par, (m * count + ZP_P2_FFT_BLOCK - 1) / ZP_P2_FFT_BLOCK, X_(twist_task), &job);
    }
    X_(fft_to_affine)(pts, a, m * count, g2, a + m * count * je);
    return ZP_OK;
}

/* k (n = 2^log_n plain scalars) replaced by s_i = Σ_j k_j·ω^(ij), ω
 * lagrange()'s root: lagrange() makes P = Σ_i ω^(ij)·L_i of its output L,
 * so Σ_j k_j·P_j = Σ_i s_i·L_i, the check of a prepared section. */
static zp_status X_(fr_dft)(uint64_t *k, unsigned log_n, const zp_parallel *par, zp_error *err) {
    size_t n = (size_t)1 << log_n;
    FR *a = (FR *)(void *)k;
    zp_tracked scratch = {0};
    zp_status st = zp_cer_alloc(&scratch, ZP_CAT(FR, _ntt_scratch_size)(log_n, zp_parallel_threads(par)),
                                "verification transform", err);
    if (st != ZP_OK) return st;
    for (size_t i = 0; i < n; i++) FR_(to_mont)(&a[i], &a[i]);
    int done = ZP_CAT(FR, _ntt)(a, log_n, 0, scratch.p, par);
    zp_cer_free(&scratch);
    for (size_t i = 0; i < n; i++) FR_(from_mont)(&a[i], &a[i]);
    return done ? ZP_OK : zp_error_set(err, ZP_ERR_UNSUPPORTED, "a domain of 2^%u is past the field's", log_n);
}
/* fr_dft's check of a level too large to hold at once, part by part, with
 * k_j = ρ^j in place of random k: then s_i = Σ_j k_j·ω^(ij) is the
 * geometric series (1 − ρ^n)/(1 − ρ·ω^i) (n = 2^log_n, ω fr_dft's), one
 * term at a time. k and s for i, j in [from, from + count), plain, from
 * a plain ρ; scratch: count field elements. Gives 0 where ρ^n = 1 (a
 * denominator would be 0: the caller draws another ρ). A wrong section
 * passes with probability below n/r: Σ_j ρ^j·(P_j − Σ_i ω^(ij)·L_i), in
 * the discrete logarithms, is a nonzero polynomial in ρ of degree < n. */
static int X_(fr_geometric)(uint64_t *k, uint64_t *s, uint64_t from, size_t count, unsigned log_n,
                            const uint64_t rho[4], uint64_t *scratch) {
    FR r, w, num, x, y, t;
    FR *kk = (FR *)(void *)k, *ss = (FR *)(void *)s;
    memcpy(r.v, rho, 32);
    FR_(to_mont)(&r, &r);
    const uint64_t n = (uint64_t)1 << log_n;
    FR_(pow_var)(&num, &r, &n, 1);
    if (FR_(is_one_var)(&num)) return 0;
    FR_(set_one)(&t);
    FR_(sub)(&num, &t, &num); /* 1 − ρ^n */
    if (!ZP_CAT(FR, _root_of_unity)(&w, log_n)) return 0;
    FR_(pow_var)(&x, &r, &from, 1); /* ρ^from */
    FR_(pow_var)(&y, &w, &from, 1); /* ω^from */
    for (size_t i = 0; i < count; i++) {
        kk[i] = x;
        FR_(mul)(&x, &x, &r);
        FR_(mul)(&ss[i], &r, &y);
        FR_(set_one)(&t);
        FR_(sub)(&ss[i], &t, &ss[i]); /* 1 − ρ·ω^i, not 0 as ρ^n ≠ 1 */
        FR_(mul)(&y, &y, &w);
    }
    FR_(batch_inv_var)(ss, ss, count, (FR *)(void *)scratch);
    for (size_t i = 0; i < count; i++) {
        FR_(mul)(&ss[i], &ss[i], &num);
        FR_(from_mont)(&ss[i], &ss[i]);
        FR_(from_mont)(&kk[i], &kk[i]);
    }
    return 1;
}

/* what g1_lincomb or g2_lincomb of n points takes besides its operands */
static size_t X_(lincomb_bytes)(size_t n, int g2, const zp_parallel *par) {
    size_t threads = zp_parallel_threads(par);
    return g2 ? ZP_CAT(G2, _msm_scratch_size)(n, threads) : ZP_CAT(G1, _msm_scratch_size)(n, threads);
}
