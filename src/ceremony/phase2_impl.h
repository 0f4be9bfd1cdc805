/* The per-curve arithmetic of a phase-2 ceremony, instantiated by phase2.c
 * with ZP_G set to the curve prefix (zp_bn254, zp_bls12) and
 * ZP_G_COF1 / ZP_G_COF2 the G1 / G2 cofactors ffjavascript multiplies a
 * random point by (ZP_G_COF1_N 0: none).
 *
 * What must match snarkjs bit for bit (so that a beacon or `zkey new` gives
 * the same file, and a contribution's g2_sp is the one its verifier derives)
 * follows ffjavascript 0.3's wasm code: Fr/Fp.fromRng (the ChaCha words,
 * masked, taken as the Montgomery form), G.fromRng (x, a sign bit, the
 * root chosen by isNegative, times the cofactor), LEMtoU (big-endian plain
 * coordinates, Fp2 as c1 then c0, infinity all zeros).
 *
 * Secrets (a contribution's delta and its inverse, phase 1's powers) are
 * used only by the constant-time endomorphism split (ct_scalar, ct_mul:
 * masked arithmetic, signed 4-bit windows, masked table scans, complete
 * additions; or the same in the IFMA lanes of ct_lanes.h, through
 * ct_mul_block), ct_to_affine and j_to_affine (Fermat inversion) and the
 * field's constant-time mul and inv. Everything _var here is on public data: points of the files,
 * r1cs coefficients, beacon-derived and verification values. */
#ifndef ZP_P2_WNAF_ONCE
#define ZP_P2_WNAF_ONCE
/* The width-5 NAF of a plain 256-bit k (public: variable time): digits
 * least significant first, each 0 or odd in (-16, 16), no two nonzero
 * within 5 places; the top digit positive. Returns the count (at most 257). */
#define ZP_P2_WNAF_W 5
#define ZP_P2_WNAF_MAX 260
static inline int zp_p2_wnaf(int8_t d[ZP_P2_WNAF_MAX], const uint64_t k[4]) {
    uint64_t t[5] = {k[0], k[1], k[2], k[3], 0};
    int len = 0;
    while (t[0] | t[1] | t[2] | t[3] | t[4]) {
        int v = 0;
        if (t[0] & 1) {
            v = (int)(t[0] & ((1u << ZP_P2_WNAF_W) - 1));
            if (v >= (1 << (ZP_P2_WNAF_W - 1))) v -= 1 << ZP_P2_WNAF_W;
            if (v > 0) { /* t -= v: t's low bits are v's, so no borrow out of limb 0 */
                t[0] -= (uint64_t)v;
            } else { /* t += -v, carrying */
                uint64_t a = (uint64_t)-v;
                for (int i = 0; i < 5 && a; i++) {
                    t[i] += a;
                    a = t[i] < a;
                }
            }
        }
        d[len++] = (int8_t)v;
        for (int i = 0; i < 4; i++) t[i] = (t[i] >> 1) | (t[i + 1] << 63);
        t[4] >>= 1;
    }
    return len;
}

/* out = a·b (na + nb limbs). */
static inline void zp_p2_mulw(uint64_t *out, const uint64_t *a, size_t na, const uint64_t *b, size_t nb) {
    memset(out, 0, (na + nb) * sizeof *out);
    for (size_t i = 0; i < na; i++) {
        unsigned __int128 c = 0;
        for (size_t j = 0; j < nb; j++) {
            c += (unsigned __int128)a[i] * b[j] + out[i + j];
            out[i + j] = (uint64_t)c;
            c >>= 64;
        }
        out[i + nb] = (uint64_t)c;
    }
}
/* r = a - b mod 2^256. */
static inline void zp_p2_sub4(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]) {
    unsigned __int128 br = 0;
    for (int i = 0; i < 4; i++) {
        unsigned __int128 d = (unsigned __int128)a[i] - b[i] - (uint64_t)br;
        r[i] = (uint64_t)d;
        br = (d >> 64) & 1;
    }
}

#endif

#define ZP_CAT_(a, b) a##b
#define ZP_CAT(a, b) ZP_CAT_(a, b)
#define X_(name) ZP_CAT(ZP_G, _p2_##name)
#define G1 ZP_CAT(ZP_G, _g1)
#define G2 ZP_CAT(ZP_G, _g2)
#define G1J ZP_CAT(ZP_G, _g1j)
#define G2J ZP_CAT(ZP_G, _g2j)
#define FR ZP_CAT(ZP_G, _fr)
#define FP ZP_CAT(ZP_G, _fp)
#define FP2 ZP_CAT(ZP_G, _fp2)
#define G1_(name) ZP_CAT(G1, _##name)
#define G2_(name) ZP_CAT(G2, _##name)
#define FR_(name) ZP_CAT(FR, _##name)
#define FP_(name) ZP_CAT(FP, _##name)
#define FP2_(name) ZP_CAT(FP2, _##name)

#define FPN (sizeof(FP) / 8)

/* ---- field helpers (public values: variable time) ---- */

/* r = a^e, e of elen limbs (plain), in Fp2. */
static void X_(fp2_pow_var)(FP2 *r, const FP2 *a, const uint64_t *e, size_t elen) {
    FP2 acc;
    FP2_(set_one)(&acc);
    for (size_t i = elen * 64; i-- > 0;) {
        FP2_(sqr)(&acc, &acc);
        if ((e[i / 64] >> (i % 64)) & 1) FP2_(mul)(&acc, &acc, a);
    }
    *r = acc;
}

/* (p - 3) / 4 and (p - 1) / 2 of the base field, plain limbs. */
static void X_(fp_exps)(uint64_t e34[FPN], uint64_t e12[FPN]) {
    const uint64_t *p = FP_(modulus).v;
    uint64_t t[FPN];
    memcpy(t, p, sizeof t);
    t[0] -= 1; /* p odd: no borrow */
    for (size_t i = 0; i < FPN; i++) e12[i] = (t[i] >> 1) | (i + 1 < FPN ? t[i + 1] << 63 : 0);
    t[0] -= 2; /* p = 3 mod 4: p - 3 has its low two bits clear */
    for (size_t i = 0; i < FPN; i++) e34[i] = (t[i] >> 2) | (i + 1 < FPN ? t[i + 1] << 62 : 0);
}

/* A square root in Fp (p = 3 mod 4): 1 and r when a is a square. */
static int X_(fp_sqrt_var)(FP *r, const FP *a) {
    uint64_t e34[FPN], e12[FPN];
    X_(fp_exps)(e34, e12);
    FP c, t;
    FP_(pow_var)(&c, a, e34, FPN); /* a^((p-3)/4) */
    FP_(mul)(&c, &c, a);           /* a^((p+1)/4) */
    FP_(sqr)(&t, &c);
    if (!FP_(eq_var)(&t, a)) return 0;
    *r = c;
    return 1;
}

/* A square root in Fp2 = Fp[u]/(u²+1), p = 3 mod 4 (Adj and
 * Rodríguez-Henríquez, algorithm 9): 1 and r when a is a square. */
static int X_(fp2_sqrt_var)(FP2 *r, const FP2 *a) {
    uint64_t e34[FPN], e12[FPN];
    X_(fp_exps)(e34, e12);
    FP2 a1, alpha, a0, x0, minus_one, t;
    FP2_(set_one)(&minus_one);
    FP2_(neg)(&minus_one, &minus_one);
    X_(fp2_pow_var)(&a1, a, e34, FPN);
    FP2_(sqr)(&alpha, &a1);
    FP2_(mul)(&alpha, &alpha, a);
    FP2_(conj)(&a0, &alpha);
    FP2_(mul)(&a0, &a0, &alpha);
    if (FP2_(eq_var)(&a0, &minus_one)) return 0;
    FP2_(mul)(&x0, &a1, a);
    if (FP2_(eq_var)(&alpha, &minus_one)) {
        /* u·x0 = (-x0.c1) + x0.c0·u */
        FP c0 = x0.c0;
        FP_(neg)(&t.c0, &x0.c1);
        t.c1 = c0;
    } else {
        FP2 b;
        FP2_(set_one)(&b);
        FP2_(add)(&b, &b, &alpha);
        X_(fp2_pow_var)(&b, &b, e12, FPN);
        FP2_(mul)(&t, &b, &x0);
    }
    FP2 chk;
    FP2_(sqr)(&chk, &t);
    if (!FP2_(eq_var)(&chk, a)) return 0;
    *r = t;
    return 1;
}

/* wasmcurves' isNegative: the plain value above (p - 1) / 2; in Fp2, that
 * of c1, or of c0 when c1 is zero. */
static int X_(fp_is_negative_var)(const FP *a) {
    uint64_t e34[FPN], e12[FPN];
    X_(fp_exps)(e34, e12);
    FP plain;
    FP_(from_mont)(&plain, a);
    return !zp_limbs_lt_var(e12, plain.v, FPN) ? 0 : 1;
}
static int X_(fp2_is_negative_var)(const FP2 *a) {
    return FP_(is_zero)(&a->c1) ? X_(fp_is_negative_var)(&a->c0) : X_(fp_is_negative_var)(&a->c1);
}

/* ffjavascript's F.fromRng: n64 words of nextU64, masked to the modulus's
 * bits, redrawn while not below it; the integer is taken as the element's
 * Montgomery form (so the element is v·R⁻¹). out: n limbs. */
static void X_(limbs_from_rng)(uint64_t *out, size_t n, const uint64_t *modulus, unsigned bits, zp_chacha *rng) {
    unsigned top = bits - 64 * (unsigned)(n - 1);
    uint64_t mask = top >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << top) - 1);
    do {
        for (size_t i = 0; i < n; i++) out[i] = zp_chacha_u64(rng);
        out[n - 1] &= mask;
    } while (!zp_limbs_lt_var(out, modulus, n));
}

static void X_(fr_from_rng)(uint64_t mont[4], zp_chacha *rng) {
    X_(limbs_from_rng)(mont, 4, FR_(modulus).v, ZP_CAT(ZP_G_UP, _FR_BITS), rng);
}

static void X_(fp_from_rng)(FP *r, zp_chacha *rng) {
    X_(limbs_from_rng)(r->v, FPN, FP_(modulus).v, ZP_CAT(ZP_G_UP, _FP_BITS), rng);
}

/* ffjavascript's G1.fromRng, affine. */
static void X_(g1_from_rng)(G1 *out, zp_chacha *rng) {
    G1 p;
    for (;;) {
        FP x3b;
        X_(fp_from_rng)(&p.x, rng);
        int greatest = (int)(zp_chacha_u32(rng) & 1);
        FP_(sqr)(&x3b, &p.x);
        FP_(mul)(&x3b, &x3b, &p.x);
        FP_(add)(&x3b, &x3b, &G1_(b));
        if (!X_(fp_sqrt_var)(&p.y, &x3b)) continue;
        if (greatest ^ X_(fp_is_negative_var)(&p.y)) FP_(neg)(&p.y, &p.y);
        break;
    }
#if ZP_G_COF1_N > 0
    static const uint64_t cof[] = {ZP_G_COF1};
    G1J j;
    G1_(j_from_affine)(&j, &p);
    G1_(j_mul_var)(&j, &j, cof, ZP_G_COF1_N);
    G1_(j_to_affine)(&p, &j);
#endif
    *out = p;
}

static void X_(g2_from_rng)(G2 *out, zp_chacha *rng) {
    G2 p;
    for (;;) {
        FP2 x3b;
        X_(fp_from_rng)(&p.x.c0, rng);
        X_(fp_from_rng)(&p.x.c1, rng);
        int greatest = (int)(zp_chacha_u32(rng) & 1);
        FP2_(sqr)(&x3b, &p.x);
        FP2_(mul)(&x3b, &x3b, &p.x);
        FP2_(add)(&x3b, &x3b, &G2_(b));
        if (!X_(fp2_sqrt_var)(&p.y, &x3b)) continue;
        if (greatest ^ X_(fp2_is_negative_var)(&p.y)) FP2_(neg)(&p.y, &p.y);
        break;
    }
    static const uint64_t cof[] = {ZP_G_COF2};
    G2J j;
    G2_(j_from_affine)(&j, &p);
    G2_(j_mul_var)(&j, &j, cof, sizeof cof / 8);
    G2_(j_to_affine)(&p, &j);
    *out = p;
}

/* ---- encodings ---- */

static void X_(fp_to_be)(uint8_t *out, const FP *a) {
    FP plain;
    FP_(from_mont)(&plain, a);
    for (size_t i = 0; i < FPN * 8; i++) out[i] = (uint8_t)(plain.v[FPN - 1 - i / 8] >> (8 * (7 - i % 8)));
}

/* LEMtoU: affine LEM bytes to snarkjs's uncompressed form. */
static void X_(g1_to_u)(uint8_t *out, const uint8_t *lem) {
    G1 p;
    memcpy(&p, lem, sizeof p);
    if (G1_(is_inf)(&p)) {
        memset(out, 0, sizeof p);
        return;
    }
    X_(fp_to_be)(out, &p.x);
    X_(fp_to_be)(out + FPN * 8, &p.y);
}
static void X_(g2_to_u)(uint8_t *out, const uint8_t *lem) {
    G2 p;
    memcpy(&p, lem, sizeof p);
    if (G2_(is_inf)(&p)) {
        memset(out, 0, sizeof p);
        return;
    }
    X_(fp_to_be)(out, &p.x.c1);
    X_(fp_to_be)(out + FPN * 8, &p.x.c0);
    X_(fp_to_be)(out + FPN * 16, &p.y.c1);
    X_(fp_to_be)(out + FPN * 24, &p.y.c0);
}

/* The points snarkjs derives from a contribution's transcript (keypair.js
 * hashToG2): ChaCha seeded by its first 32 bytes, big-endian words. */
static void X_(hash_to_g2)(uint8_t *lem, const uint8_t transcript[64]) {
    zp_chacha rng;
    zp_chacha_seed_be(&rng, transcript);
    G2 p;
    X_(g2_from_rng)(&p, &rng);
    memcpy(lem, &p, sizeof p);
    explicit_bzero(&rng, sizeof rng);
}

/* ---- secrets: constant time ---- */

/* Fermat inversion (constant time) of a Montgomery-form scalar. */
static void X_(fr_inv_ct)(uint64_t out[4], const uint64_t in[4]) {
    FR a;
    memcpy(a.v, in, 32);
    FR_(inv)(&a, &a);
    memcpy(out, a.v, 32);
    explicit_bzero(&a, sizeof a);
}

/* ---- variable-time scalar multiplication (public scalars) ---- */

/* r = k·p for k recoded by zp_p2_wnaf (variable time): a table of the
 * odd multiples p, 3p, ..., 15p (one doubling, seven additions), then one
 * doubling per digit and one addition per nonzero digit (about one in six):
 * some 255 doublings and 50 additions for a 254-bit k, where 4-bit fixed
 * windows take 255 doublings and 78 additions. */
#define ZP_P2_JMUL(GG, GGJ)                                                                  \
    static inline void X_(GG##_jmul_wnaf)(GGJ * r, const GGJ *p, const int8_t *d, int len) { \
        if (len == 0) {                                                                      \
            ZP_CAT(GG, _j_set_inf)(r);                                                       \
            return;                                                                          \
        }                                                                                    \
        GGJ tab[1 << (ZP_P2_WNAF_W - 2)], two, acc, neg;                                     \
        tab[0] = *p;                                                                         \
        ZP_CAT(GG, _j_dbl)(&two, p);                                                         \
        for (int i = 1; i < (1 << (ZP_P2_WNAF_W - 2)); i++) {                                \
            ZP_CAT(GG, _j_add_var)(&tab[i], &tab[i - 1], &two);                              \
        }                                                                                    \
        int i = len - 1; /* the top digit: nonzero, and positive (zp_p2_wnaf) */             \
        acc = tab[(d[i] - 1) / 2];                                                           \
        for (i--; i >= 0; i--) {                                                             \
            ZP_CAT(GG, _j_dbl)(&acc, &acc);                                                  \
            if (d[i] > 0) {                                                                  \
                ZP_CAT(GG, _j_add_var)(&acc, &acc, &tab[(d[i] - 1) / 2]);                    \
            } else if (d[i] < 0) {                                                           \
                ZP_CAT(GG, _j_neg)(&neg, &tab[(-d[i] - 1) / 2]);                             \
                ZP_CAT(GG, _j_add_var)(&acc, &acc, &neg);                                    \
            }                                                                                \
        }                                                                                    \
        *r = acc;                                                                            \
    }                                                                                        \
    static inline void X_(GG##_jmul_var)(GGJ * r, const GGJ *p, const uint64_t k[4]) {       \
        int8_t d[ZP_P2_WNAF_MAX];                                                            \
        X_(GG##_jmul_wnaf)(r, p, d, zp_p2_wnaf(d, k));                                       \
    }
ZP_P2_JMUL(G1, G1J)
ZP_P2_JMUL(G2, G2J)

/* A wNAF string with its point's odd multiples (t[i] = (2i + 1)·P). */
#define ZP_P2_WNAF_T (1 << (ZP_P2_WNAF_W - 2))
#define ZP_P2_JMULN(GG, GGJ)                                                                                           \
    typedef struct {                                                                                                   \
        GGJ t[ZP_P2_WNAF_T];                                                                                           \
        int8_t d[ZP_P2_WNAF_MAX];                                                                                      \
        int len;                                                                                                       \
    } X_(GG##_wstr);                                                                                                   \
    static inline void X_(GG##_wstr_table)(X_(GG##_wstr) *s, const GGJ *p) {                                           \
        GGJ two;                                                                                                       \
        s->t[0] = *p;                                                                                                  \
        ZP_CAT(GG, _j_dbl)(&two, p);                                                                                   \
        for (int i = 1; i < ZP_P2_WNAF_T; i++) ZP_CAT(GG, _j_add_var)(&s->t[i], &s->t[i - 1], &two);                   \
    }                                                                                                                  \
    /* r = Σ_j Σ_i s_j.d[i]·2^i·P_j: one doubling per digit place, shared by                            \
     * all the strings (Straus), one addition per nonzero digit. */          \
    static inline void X_(GG##_jmuln)(GGJ * r, const X_(GG##_wstr) *s, int cnt) {                                      \
        GGJ acc, neg;                                                                                                  \
        ZP_CAT(GG, _j_set_inf)(&acc);                                                                                  \
        int started = 0, top = 0;                                                                                      \
        for (int h = 0; h < cnt; h++) top = s[h].len > top ? s[h].len : top;                                           \
        for (int i = top - 1; i >= 0; i--) {                                                                           \
            if (started) ZP_CAT(GG, _j_dbl)(&acc, &acc);                                                               \
            for (int h = 0; h < cnt; h++) {                                                                            \
                int dd = i < s[h].len ? s[h].d[i] : 0;                                                                 \
                if (dd == 0) continue;                                                                                 \
                const GGJ *e = &s[h].t[((dd < 0 ? -dd : dd) - 1) / 2];                                                 \
                if (dd < 0) {                                                                                          \
                    ZP_CAT(GG, _j_neg)(&neg, e);                                                                       \
                    e = &neg;                                                                                          \
                }                                                                                                      \
                if (started) {                                                                                         \
                    ZP_CAT(GG, _j_add_var)(&acc, &acc, e);                                                             \
                } else {                                                                                               \
                    acc = *e;                                                                                          \
                    started = 1;                                                                                       \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                              \
        *r = acc;                                                                                                      \
    }                                                                                                                  \
    /* k·p = m·p + q·(D·p), k = q·D + m, D ≈ 2^128 an eigenvalue of the                                  \
     * endomorphism ENDO (ENDO(P) = [D]P, or [-D]P when NEG): two 128-bit                                 \
     * halves, so half the doublings. */      \
    static inline void X_(GG##_prep_split)(X_(GG##_wstr) s[2], const GGJ *p, const uint64_t k[4], const uint64_t D[2], \
                                           void (*endo)(GGJ *, const GGJ *), int endo_neg) {                           \
        uint64_t q[4], m[4];                                                                                           \
        zp_p2_divmod_ct(q, m, k, D);                                                                                   \
        s[0].len = zp_p2_wnaf(s[0].d, m);                                                                              \
        s[1].len = zp_p2_wnaf(s[1].d, q);                                                                              \
        X_(GG##_wstr_table)(&s[0], p);                                                                                 \
        for (int i = 0; i < ZP_P2_WNAF_T; i++) {                                                                       \
            endo(&s[1].t[i], &s[0].t[i]);                                                                              \
            if (endo_neg) ZP_CAT(GG, _j_neg)(&s[1].t[i], &s[1].t[i]);                                                  \
        }                                                                                                              \
    }                                                                                                                  \
    /* one string: plain wNAF (a group without an endomorphism here) */                                                \
    static inline void X_(GG##_prep_plain)(X_(GG##_wstr) s[2], const GGJ *p, const uint64_t k[4]) {                    \
        s[0].len = zp_p2_wnaf(s[0].d, k);                                                                              \
        X_(GG##_wstr_table)(&s[0], p);                                                                                 \
        s[1].len = 0;                                                                                                  \
    }
ZP_P2_JMULN(G1, G1J)
ZP_P2_JMULN(G2, G2J)

/* X_(G1_prep) / X_(G2_prep): k·p as two wNAF strings of about 128 bits
 * (or one of 256 where the group has no split here), for jmuln. */
#ifdef ZP_G_GLV
/* G1 by GLV (Gallant, Lambert, Vanstone): φ(x, y) = (βx, y) is [λ] on
 * G1, and k = k1 + k2·λ mod r with |k1|, |k2| < 2^128 (the lattice of
 * ZP_G_GLV, reduced by the extended Euclidean algorithm on (r, λ); the
 * split checked in Python on 10^5 random k), so k·p = k1·p + k2·φ(p) by
 * interleaved wNAF: 128 doublings shared by both halves instead of 255.
 * The split is constant time (fixed multiplications, a masked |·|): a
 * contribution's secrets are split by it too (ct_scalar). *neg1, *neg2:
 * all ones where that half is negative. */
static inline void X_(glv_split)(uint64_t m1[4], uint64_t *neg1, uint64_t m2[4], uint64_t *neg2, const uint64_t k[4]) {
    static const uint64_t g1[3] = {ZP_G_GLV_G1}, g2[2] = {ZP_G_GLV_G2}, a1[2] = {ZP_G_GLV_A1}, a2[1] = {ZP_G_GLV_A2},
                          b1[1] = {ZP_G_GLV_B1}, b2[2] = {ZP_G_GLV_B2};
    uint64_t w[7], c1[3], c2[2], x[5], y[5], v1[4], v2[4];
    zp_p2_mulw(w, k, 4, g1, 3); /* c1 = k·b2 / r, c2 = k·|b1| / r, rounded down */
    memcpy(c1, w + 4, sizeof c1);
    zp_p2_mulw(w, k, 4, g2, 2);
    memcpy(c2, w + 4, sizeof c2);
    zp_p2_mulw(x, c1, 3, a1, 2); /* k1 = k - c1·a1 - c2·a2 (mod 2^256) */
    zp_p2_sub4(v1, k, x);
    memset(y, 0, sizeof y);
    zp_p2_mulw(y, c2, 2, a2, 1);
    zp_p2_sub4(v1, v1, y);
    memset(x, 0, sizeof x);
    zp_p2_mulw(x, c1, 3, b1, 1); /* k2 = c1·|b1| - c2·b2 */
    zp_p2_mulw(y, c2, 2, b2, 2);
    zp_p2_sub4(v2, x, y);
    *neg1 = zp_p2_abs4_ct(m1, v1);
    *neg2 = zp_p2_abs4_ct(m2, v2);
    explicit_bzero(w, sizeof w), explicit_bzero(c1, sizeof c1), explicit_bzero(c2, sizeof c2);
    explicit_bzero(x, sizeof x), explicit_bzero(y, sizeof y), explicit_bzero(v1, sizeof v1);
    explicit_bzero(v2, sizeof v2);
}

static inline void X_(G1_prep)(X_(G1_wstr) s[2], const G1J *p, const uint64_t k[4]) {
    static const uint64_t beta_plain[4] = {ZP_G_GLV_BETA};
    FP beta;
    memcpy(beta.v, beta_plain, sizeof beta.v);
    FP_(to_mont)(&beta, &beta);
    uint64_t m1[4], m2[4];
    uint64_t neg1, neg2;
    X_(glv_split)(m1, &neg1, m2, &neg2, k);
    s[0].len = zp_p2_wnaf(s[0].d, m1);
    s[1].len = zp_p2_wnaf(s[1].d, m2);
    G1J base;
    if (neg1) {
        G1_(j_neg)(&base, p);
    } else {
        base = *p;
    }
    X_(G1_wstr_table)(&s[0], &base);
    for (int i = 0; i < ZP_P2_WNAF_T; i++) { /* φ(±p) multiples: βX on Jacobian (X/Z² scaled by β) */
        s[1].t[i] = s[0].t[i];
        FP_(mul)(&s[1].t[i].x, &s[1].t[i].x, &beta);
        if (neg1 != neg2) G1_(j_neg)(&s[1].t[i], &s[1].t[i]);
    }
}
#elif defined(ZP_G_G1_ENDO)
static inline void X_(G1_prep)(X_(G1_wstr) s[2], const G1J *p, const uint64_t k[4]) {
    static const uint64_t D[2] = {ZP_G_G1_D};
    X_(G1_prep_split)(s, p, k, D, ZP_G_G1_ENDO, ZP_G_G1_ENDO_NEG);
}
#else
static inline void X_(G1_prep)(X_(G1_wstr) s[2], const G1J *p, const uint64_t k[4]) { X_(G1_prep_plain)(s, p, k); }
#endif
#ifdef ZP_G_G2_ENDO
static inline void X_(G2_prep)(X_(G2_wstr) s[2], const G2J *p, const uint64_t k[4]) {
    static const uint64_t D[2] = {ZP_G_G2_D};
    X_(G2_prep_split)(s, p, k, D, ZP_G_G2_ENDO, 0);
}
#else
static inline void X_(G2_prep)(X_(G2_wstr) s[2], const G2J *p, const uint64_t k[4]) { X_(G2_prep_plain)(s, p, k); }
#endif
static inline void X_(G1_mul_wide)(G1J *r, const G1J *p, const uint64_t k[4]) {
    X_(G1_wstr) s[2];
    X_(G1_prep)(s, p, k);
    X_(G1_jmuln)(r, s, 2);
}
static inline void X_(G2_mul_wide)(G2J *r, const G2J *p, const uint64_t k[4]) {
    X_(G2_wstr) s[2];
    X_(G2_prep)(s, p, k);
    X_(G2_jmuln)(r, s, 2);
}

/* the secrets' multiplications, and the lanes' glue the next one uses */
#include "ceremony/phase2_ct_impl.h"

/* zkey new's sums, prepare phase2's FFT (public) */
#include "ceremony/phase2_bases_impl.h"

/* ---- verification (public) ---- */

/* e(a1, b2) == e(a2, b1), snarkjs's sameRatio(a1, a2, b1, b2): false when
 * any point is infinity. */
static int X_(same_ratio)(const uint8_t *a1, const uint8_t *a2, const uint8_t *b1, const uint8_t *b2) {
    G1 p[2];
    G2 q[2];
    memcpy(&p[0], a1, sizeof(G1));
    memcpy(&p[1], a2, sizeof(G1));
    memcpy(&q[1], b1, sizeof(G2));
    memcpy(&q[0], b2, sizeof(G2));
    if (G1_(is_inf)(&p[0]) || G1_(is_inf)(&p[1]) || G2_(is_inf)(&q[0]) || G2_(is_inf)(&q[1])) return 0;
    G1_(neg)(&p[1], &p[1]);
    return ZP_CAT(ZP_G, _pairing_product_is_one_var)(p, q, 2);
}

/* out = Σ k_i·P_i (affine LEM), points at any alignment. */
static zp_status X_(g1_lincomb)(uint8_t *out, const uint8_t *pts, const uint64_t *scalars, size_t n,
                                const zp_parallel *par, zp_error *err) {
    size_t threads = zp_parallel_threads(par);
    zp_tracked scratch = {0};
    zp_status st = zp_cer_alloc(&scratch, ZP_CAT(G1, _msm_scratch_size)(n, threads), "verification MSM", err);
    if (st != ZP_OK) return st;
    G1J acc;
    ZP_CAT(G1, _msm_var)(&acc, (const G1 *)(const void *)pts, scalars, n, scratch.p, par);
    zp_cer_free(&scratch);
    G1 p;
    G1_(j_to_affine)(&p, &acc);
    memcpy(out, &p, sizeof p);
    return ZP_OK;
}

static int X_(g1_on_curve)(const uint8_t *lem) {
    G1 p;
    memcpy(&p, lem, sizeof p);
    return G1_(is_inf)(&p) || G1_(is_on_curve_var)(&p);
}

#include "ceremony/phase1_impl.h"

static const zp_p2_ops X_(ops) = {
    .fr_from_rng = X_(fr_from_rng),
    .g1_from_rng = (void (*)(uint8_t *, zp_chacha *))X_(g1_from_rng),
    .g1_to_u = X_(g1_to_u),
    .g2_to_u = X_(g2_to_u),
    .hash_to_g2 = X_(hash_to_g2),
    .g1_mul_ct = X_(g1_mul_ct),
    .g2_mul_ct = X_(g2_mul_ct),
    .fr_inv_ct = X_(fr_inv_ct),
    .g1_apply_key = X_(g1_apply_key),
    .lanes_check_init = X_(lanes_check_init),
    .lanes_first_outside = X_(lanes_first_outside),
    .g1_apply_key_var = X_(g1_apply_key_var),
#if defined(ZP_P2_G1_CHECKED)
    .g1_apply_key_checked = X_(g1_apply_key_checked),
#endif
    .compose = X_(compose),
    .g1_sub_to_u = X_(g1_sub_to_u),
    .g1_sub_past_to_u = X_(g1_sub_past_to_u),
    .coef_r2 = X_(coef_r2),
    .same_ratio = X_(same_ratio),
    .g1_lincomb = X_(g1_lincomb),
    .g1_on_curve = X_(g1_on_curve),
    .lagrange = X_(lagrange),
    .lagrange_work_bytes = X_(lagrange_work_bytes),
    .lagrange_rows = X_(lagrange_rows),
    .fr_dft = X_(fr_dft),
    .fr_geometric = X_(fr_geometric),
    .lincomb_bytes = X_(lincomb_bytes),
    .g1_apply_powers = X_(G1_apply_powers),
    .g2_apply_powers = X_(G2_apply_powers),
    .g1_apply_powers_var = X_(G1_apply_powers_var),
#if defined(ZP_P2_G1_CHECKED)
    .g1_apply_powers_checked = X_(G1_apply_powers_checked),
#endif
    .g2_apply_powers_var = X_(G2_apply_powers_var),
    .g1_to_c = X_(g1_to_c),
    .g2_to_c = X_(g2_to_c),
    .g2_lincomb = X_(g2_lincomb),
    .g1_gen = (const uint8_t *)&G1_(generator),
    .g2_gen = (const uint8_t *)&G2_(generator),
};

#undef FPN
#undef X_
#undef G1
#undef G2
#undef G1J
#undef G2J
#undef FR
#undef FP
#undef FP2
#undef G1_
#undef G2_
#undef FR_
#undef FP_
#undef FP2_
#undef ZP_P2_ADD_SCALED
#undef ZP_P2_JMUL
#undef ZP_P2_WNAF_FROM
#undef ZP_P2_FFT_BLOCK
#undef ZP_P2_APPLY_BLOCK
#undef ZP_P2_APPLY_VAR_BLOCK
#undef ZP_P2_COMPOSE_BLOCK
#undef ZP_P2_CT_MUL
#undef ZP_P2_MUL_CT
#undef ZP_P2_G1_CT_ENDO_NEG
#undef ZP_P2_G2_CT_ENDO_NEG
#undef ZP_G
#undef ZP_G_UP
#undef ZP_G_COF1
#undef ZP_G_COF1_N
#undef ZP_G_COF2
#undef ZP_G_GLV
#undef ZP_G_GLV_G1
#undef ZP_G_GLV_G2
#undef ZP_G_GLV_A1
#undef ZP_G_GLV_A2
#undef ZP_G_GLV_B1
#undef ZP_G_GLV_B2
#undef ZP_G_GLV_BETA
#undef ZP_G_G1_ENDO
#undef ZP_G_G1_ENDO_NEG
#undef ZP_G_G1_D
#undef ZP_G_G2_ENDO
#undef ZP_G_G2_ENDO_CONJ
#undef ZP_G_G2_CHECK_ENDO
#undef ZP_G_G1_CHECK_ENDO
#undef ZP_P2_G1_CHECKED
#undef ZP_G_X_ABS
#undef ZP_G_G2_D
#undef ZP_G_SPLIT_X2
#undef ZP_P2_JMULN
#undef ZP_P2_WNAF_T
#undef ZP_P2_STRAUS
