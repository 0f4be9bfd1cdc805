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
 * additions), ct_to_affine and j_to_affine (Fermat inversion) and the
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
    static const uint64_t D[2] = {ZP_G_G1_D};
    zp_p2_split_div_ct(s, k, D);
}
static inline void X_(G1_ct_endo)(G1J *r, const G1J *p) { ZP_G_G1_ENDO(r, p); }
#define ZP_P2_G1_CT_ENDO_NEG ZP_G_G1_ENDO_NEG
#else
#error "the constant-time path needs an endomorphism split of G1"
#endif
#if defined(ZP_G_G2_ENDO)
static inline void X_(G2_ct_scalar)(zp_p2_ct_scalar *s, const uint64_t k[4]) {
    static const uint64_t D[2] = {ZP_G_G2_D};
    zp_p2_split_div_ct(s, k, D);
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

/* The eight-lane path (ct_lanes.h) for a group, where zp_ifma_enabled(par)
 * says so: 1 and the group's constants in *c; else 0. The endomorphism's
 * constants are read off E(1 : 1 : 1), which the split's E gives as
 * (ex, ey, 1). And acc[i] = k_i·pts[i] (affine LEM in, Jacobian out) for
 * i < n <= 64, in constant time in the k_i, given split: s[i·ds] (ds 0:
 * one scalar for every point); lanes: that path's group, or NULL. */
static void X_(lanes_mul)(uint64_t *out, const uint64_t *const in[8], const zp_p2_ct_scalar *const s[8],
                          const zp_ct_lanes_curve *c, size_t words) {
    switch (words) {
    case 4: zp_ct_lanes4_mul(out, in, s, c); break;
    case 6: zp_ct_lanes6_mul(out, in, s, c); break;
    case 8: zp_ct_lanes8_mul(out, in, s, c); break;
    default: zp_ct_lanes12_mul(out, in, s, c); break;
    }
}
#define ZP_P2_CT_BLOCK(GG, GGJ, FF, B_INIT, CONJ)                                                                   \
    static int X_(GG##_lanes_curve)(zp_ct_lanes_curve * c, const zp_parallel *par) {                                \
        if (!zp_ifma_enabled(par)) return 0;                                                                        \
        memset(c, 0, sizeof *c);                                                                                    \
        zp_ifma_field_init(&c->f, FP_(modulus).v, FPN);                                                             \
        static const FF b = B_INIT;                                                                                 \
        FF b3;                                                                                                      \
        ZP_CAT(FF, _add)(&b3, &b, &b);                                                                              \
        ZP_CAT(FF, _add)(&b3, &b3, &b);                                                                             \
        memcpy(c->b3, &b3, sizeof b3);                                                                              \
        GGJ one, e;                                                                                                 \
        ZP_CAT(FF, _set_one)(&one.x), ZP_CAT(FF, _set_one)(&one.y), ZP_CAT(FF, _set_one)(&one.z);                   \
        X_(GG##_ct_endo)(&e, &one);                                                                                 \
        if (ZP_P2_##GG##_CT_ENDO_NEG) ZP_CAT(GG, _j_neg)(&e, &e);                                                   \
        if (memcmp(&e.z, &one.z, sizeof e.z) != 0) return 0; /* not of that form: the scalar path */                \
        memcpy(c->ex, &e.x, sizeof e.x);                                                                            \
        memcpy(c->ey, &e.y, sizeof e.y);                                                                            \
        memcpy(c->one, &one.x, sizeof one.x);                                                                       \
        c->conj = (CONJ);                                                                                           \
        return 1;                                                                                                   \
    }                                                                                                               \
    static void X_(GG##_ct_mul_block)(GGJ * acc, const uint8_t *pts, const zp_p2_ct_scalar *s, size_t ds, size_t n, \
                                      const zp_ct_lanes_curve *lanes) {                                             \
        _Static_assert(sizeof(GGJ) == 3 * sizeof(FF) && sizeof(GG) == 2 * sizeof(FF), "the lanes' point layout");   \
        if (lanes != NULL) {                                                                                        \
            for (size_t i = 0; i < n; i += 8) {                                                                     \
                const uint64_t *in[8];                                                                              \
                const zp_p2_ct_scalar *sc[8];                                                                       \
                uint64_t out[8 * 3 * (sizeof(FF) / 8)];                                                             \
                for (size_t l = 0; l < 8; l++) {                                                                    \
                    size_t j = i + l < n ? i + l : i; /* a tail's spare lanes redo point i */                       \
                    in[l] = (const uint64_t *)(const void *)(pts + j * sizeof(GG));                                 \
                    sc[l] = s + j * ds;                                                                             \
                }                                                                                                   \
                X_(lanes_mul)(out, in, sc, lanes, sizeof(FF) / 8);                                                  \
                size_t m = n - i < 8 ? n - i : 8;                                                                   \
                memcpy(&acc[i], out, m * sizeof(GGJ));                                                              \
                explicit_bzero(out, sizeof out);                                                                    \
            }                                                                                                       \
            return;                                                                                                 \
        }                                                                                                           \
        GGJ tab[2][8];                                                                                              \
        for (size_t i = 0; i < n; i++) {                                                                            \
            GG p;                                                                                                   \
            memcpy(&p, pts + i * sizeof(GG), sizeof p);                                                             \
            ZP_CAT(GG, _j_from_affine)(&acc[i], &p);                                                                \
            X_(GG##_ct_tables)(tab, &acc[i]);                                                                       \
            X_(GG##_ct_mul)(&acc[i], tab, s + i * ds);                                                              \
        }                                                                                                           \
    }
ZP_P2_CT_BLOCK(G1, G1J, FP, ZP_CAT(ZP_G_UP, _G1_B_INIT), 0)
ZP_P2_CT_BLOCK(G2, G2J, FP2, ZP_CAT(ZP_G_UP, _G2_B_INIT), ZP_G_G2_ENDO_CONJ)

/* Subgroup checks in the lanes (ops.lanes_check_init, lanes_first_outside):
 * the test's endomorphism (ψ on G2, φ on BLS12-381's G1: ZP_G_*_CHECK_ENDO)
 * read off E(1 : 1 : 1) as the split's; BN254's G1 (cofactor 1, no
 * ZP_G_G1_CHECK_ENDO) needs none. */
#define ZP_P2_CHECK_LANES(GG, GGJ, FF, ENDO, CONJ)                                                         \
    static int X_(GG##_lanes_check_init)(zp_ct_lanes_curve * c, const zp_parallel *par) {                  \
        if (!X_(GG##_lanes_curve)(c, par)) return 0;                                                       \
        GGJ one, e;                                                                                        \
        ZP_CAT(FF, _set_one)(&one.x), ZP_CAT(FF, _set_one)(&one.y), ZP_CAT(FF, _set_one)(&one.z);          \
        ENDO(&e, &one);                                                                                    \
        if (memcmp(&e.z, &one.z, sizeof e.z) != 0) return 0;                                               \
        memcpy(c->ex, &e.x, sizeof e.x);                                                                   \
        memcpy(c->ey, &e.y, sizeof e.y);                                                                   \
        c->conj = (CONJ);                                                                                  \
        c->x_abs = ZP_G_X_ABS;                                                                             \
        return 1;                                                                                          \
    }                                                                                                      \
    static size_t X_(GG##_lanes_first_outside)(const uint8_t *pts, size_t n, const zp_ct_lanes_curve *c) { \
        for (size_t i = 0; i < n; i += 8) {                                                                \
            const uint64_t *in[8];                                                                         \
            for (size_t l = 0; l < 8; l++)                                                                 \
                in[l] = (const uint64_t *)(const void *)(pts + (i + l < n ? i + l : i) * sizeof(GG));      \
            unsigned ok;                                                                                   \
            switch (sizeof(FF) / 8) {                                                                      \
            case 6: ok = zp_ct_lanes6_in_subgroup(in, c); break;                                           \
            case 8: ok = zp_ct_lanes8_in_subgroup(in, c); break;                                           \
            case 12: ok = zp_ct_lanes12_in_subgroup(in, c); break;                                         \
            default: ok = zp_ct_lanes4_in_subgroup(in, c); break;                                          \
            }                                                                                              \
            for (size_t l = 0; l < 8 && i + l < n; l++)                                                    \
                if (!((ok >> l) & 1)) return i + l;                                                        \
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
static void X_(g1_apply_key)(uint8_t *pts, size_t n, const uint64_t kmont[4], const zp_parallel *par) {
    FR k;
    memcpy(k.v, kmont, 32);
    FR_(from_mont)(&k, &k);
    zp_p2_ct_scalar s;
    X_(G1_ct_scalar)(&s, k.v);
    zp_ct_lanes_curve lc;
    int lanes = X_(G1_lanes_curve)(&lc, par);
    X_(apply_ct_job) job = {pts, n, &s, lanes ? &lc : NULL};
    zp_parallel_for(par, (n + ZP_P2_APPLY_BLOCK - 1) / ZP_P2_APPLY_BLOCK, X_(apply_ct_task), &job);
    explicit_bzero(&k, sizeof k);
    explicit_bzero(&s, sizeof s);
}

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
        X_(g1_apply_key)(pts, n, kmont, par);
        return;
    }
    FR k;
    memcpy(k.v, kmont, 32);
    FR_(from_mont)(&k, &k);
    X_(apply_job) job = {pts, n, k.v};
    zp_parallel_for(par, (n + ZP_P2_APPLY_VAR_BLOCK - 1) / ZP_P2_APPLY_VAR_BLOCK, X_(apply_var_task), &job);
}

/* ---- zkey new: Σ coef·base per signal (public: variable time) ---- */

/* acc += k·P; k above r/2 is taken as -(r - k), so circom's many -1,
 * -2 ... cost what 1, 2 do; small k by double-and-add from k's top bit
 * (no table to build); wide ones (from ZP_P2_WNAF_FROM bits) become two
 * wNAF strings pending in ws (*nw of them), added to acc by flush with
 * their doublings shared, ZP_P2_STRAUS terms at a time. */
#define ZP_P2_WNAF_FROM 24
#define ZP_P2_STRAUS 4
/* whether add_scaled takes k (plain, below r) as a wide term: from
 * ZP_P2_WNAF_FROM bits after k above r/2 is taken as -(r - k) */
static int X_(coef_is_wide)(const uint64_t coef[4]) {
    uint64_t k[4], half[4];
    const uint64_t *r = FR_(modulus).v;
    for (int i = 0; i < 4; i++) half[i] = (r[i] >> 1) | (i < 3 ? r[i + 1] << 63 : 0);
    memcpy(k, coef, sizeof k);
    if (zp_limbs_lt_var(half, k, 4)) {
        unsigned __int128 b = 0;
        for (int i = 0; i < 4; i++) {
            unsigned __int128 d = (unsigned __int128)r[i] - k[i] - (uint64_t)b;
            k[i] = (uint64_t)d;
            b = (d >> 64) & 1;
        }
    }
    int top = 255;
    while (top >= 0 && !((k[top / 64] >> (top % 64)) & 1)) top--;
    return top >= ZP_P2_WNAF_FROM;
}
#define ZP_P2_ADD_SCALED(GG, GGJ)                                                                               \
    static void X_(GG##_flush)(GGJ * acc, const X_(GG##_wstr) *ws, int *nw) {                                   \
        if (*nw == 0) return;                                                                                   \
        GGJ t;                                                                                                  \
        X_(GG##_jmuln)(&t, ws, *nw);                                                                            \
        ZP_CAT(GG, _j_add_var)(acc, acc, &t);                                                                   \
        *nw = 0;                                                                                                \
    }                                                                                                           \
    static void X_(GG##_add_scaled)(GGJ * acc, const GG *p, const uint64_t *coef, X_(GG##_wstr) *ws, int *nw) { \
        if (coef == NULL) {                                                                                     \
            ZP_CAT(GG, _j_add_affine_var)(acc, acc, p);                                                         \
            return;                                                                                             \
        }                                                                                                       \
        uint64_t k[4], half[4];                                                                                 \
        const uint64_t *r = FR_(modulus).v;                                                                     \
        for (int i = 0; i < 4; i++) half[i] = (r[i] >> 1) | (i < 3 ? r[i + 1] << 63 : 0);                       \
        GG q = *p;                                                                                              \
        memcpy(k, coef, sizeof k);                                                                              \
        if (zp_limbs_lt_var(half, k, 4)) {                                                                      \
            unsigned __int128 b = 0;                                                                            \
            for (int i = 0; i < 4; i++) {                                                                       \
                unsigned __int128 d = (unsigned __int128)r[i] - k[i] - (uint64_t)b;                             \
                k[i] = (uint64_t)d;                                                                             \
                b = (d >> 64) & 1;                                                                              \
            }                                                                                                   \
            ZP_CAT(GG, _neg)(&q, &q);                                                                           \
        }                                                                                                       \
        int top = 255;                                                                                          \
        while (top >= 0 && !((k[top / 64] >> (top % 64)) & 1)) top--;                                           \
        if (top < 0) return;                                                                                    \
        GGJ t;                                                                                                  \
        ZP_CAT(GG, _j_from_affine)(&t, &q);                                                                     \
        if (top >= ZP_P2_WNAF_FROM) {                                                                           \
            X_(GG##_prep)(ws + *nw, &t, k);                                                                     \
            *nw += 2;                                                                                           \
            if (*nw == 2 * ZP_P2_STRAUS) X_(GG##_flush)(acc, ws, nw);                                           \
            return;                                                                                             \
        }                                                                                                       \
        for (int i = top - 1; i >= 0; i--) {                                                                    \
            ZP_CAT(GG, _j_dbl)(&t, &t);                                                                         \
            if ((k[i / 64] >> (i % 64)) & 1) ZP_CAT(GG, _j_add_affine_var)(&t, &t, &q);                         \
        }                                                                                                       \
        ZP_CAT(GG, _j_add_var)(acc, acc, &t);                                                                   \
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

#define ZP_P2_COMPOSE_BLOCK 64
/* A block of signals with the lanes: each wide term's product (from
 * ZP_P2_WNAF_FROM bits) eight at a time in the lanes, added to its
 * signal's sum; the short ones as add_scaled adds them. Eight
 * independent products cost less there than four sharing their
 * doublings in scalar code. */
#define ZP_P2_COMPOSE_LANES(GG, GGJ, FF)                                                                         \
    static void X_(GG##_compose_lanes)(const X_(compose_job) *job, size_t lo, size_t hi, GGJ *acc) {             \
        enum { W = sizeof(FF) / 8 };                                                                             \
        zp_p2_ct_scalar sc[8];                                                                                   \
        const uint64_t *in[8];                                                                                   \
        const zp_p2_ct_scalar *sp[8];                                                                            \
        size_t sig[8], m = 0;                                                                                    \
        uint64_t out[8 * 3 * W];                                                                                 \
        X_(GG##_wstr) ws[2];                                                                                     \
        for (size_t s = lo; s <= hi; s++) {                                                                      \
            if (s < hi) {                                                                                        \
                ZP_CAT(GG, _j_set_inf)(&acc[s - lo]);                                                            \
                for (uint64_t e = job->row_start[s]; e < job->row_start[s + 1]; e++) {                           \
                    const uint64_t *coef = job->terms[e].coef;                                                   \
                    int wide = 0;                                                                                \
                    if (coef != NULL) {                                                                          \
                        uint64_t k[4];                                                                           \
                        memcpy(k, coef, sizeof k);                                                               \
                        wide = X_(coef_is_wide)(k);                                                              \
                    }                                                                                            \
                    if (!wide) {                                                                                 \
                        GG p;                                                                                    \
                        int nw = 0;                                                                              \
                        memcpy(&p, job->terms[e].base, sizeof p);                                                \
                        X_(GG##_add_scaled)(&acc[s - lo], &p, coef, ws, &nw);                                    \
                        continue;                                                                                \
                    }                                                                                            \
                    X_(GG##_ct_scalar)(&sc[m], coef);                                                            \
                    in[m] = (const uint64_t *)(const void *)job->terms[e].base, sp[m] = &sc[m], sig[m] = s - lo; \
                    if (++m < 8) continue;                                                                       \
                    X_(lanes_mul)(out, in, sp, job->lanes, W);                                                   \
                    for (size_t l = 0; l < 8; l++) {                                                             \
                        GGJ q;                                                                                   \
                        memcpy(&q, out + 3 * W * l, sizeof q);                                                   \
                        ZP_CAT(GG, _j_add_var)(&acc[sig[l]], &acc[sig[l]], &q);                                  \
                    }                                                                                            \
                    m = 0;                                                                                       \
                }                                                                                                \
                continue;                                                                                        \
            }                                                                                                    \
            if (m == 0) break;                                                                                   \
            for (size_t l = m; l < 8; l++) in[l] = in[0], sp[l] = sp[0];                                         \
            X_(lanes_mul)(out, in, sp, job->lanes, W);                                                           \
            for (size_t l = 0; l < m; l++) {                                                                     \
                GGJ q;                                                                                           \
                memcpy(&q, out + 3 * W * l, sizeof q);                                                           \
                ZP_CAT(GG, _j_add_var)(&acc[sig[l]], &acc[sig[l]], &q);                                          \
            }                                                                                                    \
        }                                                                                                        \
    }
ZP_P2_COMPOSE_LANES(G1, G1J, FP)
ZP_P2_COMPOSE_LANES(G2, G2J, FP2)

static void X_(compose_task)(void *arg, size_t t, size_t worker) {
    (void)worker;
    const X_(compose_job) *job = arg;
    size_t lo = t * ZP_P2_COMPOSE_BLOCK, hi = lo + ZP_P2_COMPOSE_BLOCK < job->n ? lo + ZP_P2_COMPOSE_BLOCK : job->n;
    if (job->lanes != NULL && !job->g2) {
        G1J acc[ZP_P2_COMPOSE_BLOCK];
        FP scratch[2 * ZP_P2_COMPOSE_BLOCK];
        G1 res[ZP_P2_COMPOSE_BLOCK];
        X_(G1_compose_lanes)(job, lo, hi, acc);
        G1_(j_batch_to_affine_var)(res, acc, hi - lo, scratch);
        memcpy(job->out + lo * sizeof(G1), res, (hi - lo) * sizeof(G1));
        return;
    }
    if (job->lanes != NULL) {
        G2J acc[ZP_P2_COMPOSE_BLOCK];
        FP2 scratch[2 * ZP_P2_COMPOSE_BLOCK];
        G2 res[ZP_P2_COMPOSE_BLOCK];
        X_(G2_compose_lanes)(job, lo, hi, acc);
        G2_(j_batch_to_affine_var)(res, acc, hi - lo, scratch);
        memcpy(job->out + lo * sizeof(G2), res, (hi - lo) * sizeof(G2));
        return;
    }
    if (!job->g2) {
        G1J acc[ZP_P2_COMPOSE_BLOCK];
        X_(G1_wstr) ws[2 * ZP_P2_STRAUS];
        FP scratch[2 * ZP_P2_COMPOSE_BLOCK];
        for (size_t s = lo; s < hi; s++) {
            G1_(j_set_inf)(&acc[s - lo]);
            int nw = 0;
            for (uint64_t e = job->row_start[s]; e < job->row_start[s + 1]; e++) {
                G1 p;
                memcpy(&p, job->terms[e].base, sizeof p);
                X_(G1_add_scaled)(&acc[s - lo], &p, job->terms[e].coef, ws, &nw);
            }
            X_(G1_flush)(&acc[s - lo], ws, &nw);
        }
        G1 res[ZP_P2_COMPOSE_BLOCK];
        G1_(j_batch_to_affine_var)(res, acc, hi - lo, scratch);
        memcpy(job->out + lo * sizeof(G1), res, (hi - lo) * sizeof(G1));
    } else {
        G2J acc[ZP_P2_COMPOSE_BLOCK];
        X_(G2_wstr) ws[2 * ZP_P2_STRAUS];
        FP2 scratch[2 * ZP_P2_COMPOSE_BLOCK];
        for (size_t s = lo; s < hi; s++) {
            G2_(j_set_inf)(&acc[s - lo]);
            int nw = 0;
            for (uint64_t e = job->row_start[s]; e < job->row_start[s + 1]; e++) {
                G2 p;
                memcpy(&p, job->terms[e].base, sizeof p);
                X_(G2_add_scaled)(&acc[s - lo], &p, job->terms[e].coef, ws, &nw);
            }
            X_(G2_flush)(&acc[s - lo], ws, &nw);
        }
        G2 res[ZP_P2_COMPOSE_BLOCK];
        G2_(j_batch_to_affine_var)(res, acc, hi - lo, scratch);
        memcpy(job->out + lo * sizeof(G2), res, (hi - lo) * sizeof(G2));
    }
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
static void X_(lanes_mul_j)(uint64_t *out, const uint64_t *const in[8], const zp_p2_ct_scalar *const s[8],
                            const zp_ct_lanes_curve *c, size_t words) {
    switch (words) {
    case 4: zp_ct_lanes4_mul_j(out, in, s, c); break;
    case 6: zp_ct_lanes6_mul_j(out, in, s, c); break;
    case 8: zp_ct_lanes8_mul_j(out, in, s, c); break;
    default: zp_ct_lanes12_mul_j(out, in, s, c); break;
    }
}
/* A block of butterflies [lo, hi) with its multiplications eight at a
 * time in the lanes: v = ω^k·a[i1] (a twiddle split per product, or per
 * distinct k in the early stages' short groups), u = n⁻¹·a[i0] in the
 * last stage; then the sums. Twiddles are public: the lanes' constant
 * time costs nothing here, and they beat the scalar wNAF. */
#define ZP_P2_FFT_LANES(GG, GGJ, FF)                                                                              \
    static void X_(GG##_fft_lanes)(const X_(fft_job) *j, size_t lo, size_t hi) {                                  \
        enum { W = sizeof(FF) / 8 };                                                                              \
        GGJ *a = j->a, v[ZP_P2_FFT_BLOCK], u[ZP_P2_FFT_BLOCK];                                                    \
        zp_p2_ct_scalar sc[ZP_P2_FFT_BLOCK];                                                                      \
        const uint64_t *in[8];                                                                                    \
        const zp_p2_ct_scalar *sp[8];                                                                             \
        GGJ *dst[8];                                                                                              \
        uint64_t out[8 * 3 * W];                                                                                  \
        size_t m = 0;                                                                                             \
        for (int pass = 0; pass < 2; pass++) { /* 0: the v, 1: the u */                                           \
            if (pass == 1 && j->uscale == NULL) break;                                                            \
            for (size_t b = lo; b <= hi; b++) {                                                                   \
                if (b < hi) {                                                                                     \
                    size_t grp = b / j->half, k = b % j->half, i0 = grp * 2 * j->half + k, i1 = i0 + j->half;     \
                    if (pass == 0) {                                                                              \
                        if (k == 0 && j->uscale == NULL) {                                                        \
                            v[b - lo] = a[i1];                                                                    \
                            continue;                                                                             \
                        }                                                                                         \
                        /* a block holds 64 butterflies from a multiple of 64: a short                        \
                         * group's k repeat, split at their first */   \
                        size_t slot = j->half < ZP_P2_FFT_BLOCK ? k : b - lo;                                     \
                        if (j->half >= ZP_P2_FFT_BLOCK || b - lo < j->half)                                       \
                            X_(GG##_ct_scalar)(&sc[slot], j->tw + 4 * k);                                         \
                        in[m] = (const uint64_t *)(const void *)&a[i1], sp[m] = &sc[slot], dst[m] = &v[b - lo];   \
                    } else {                                                                                      \
                        in[m] = (const uint64_t *)(const void *)&a[i0], sp[m] = j->uscale_s, dst[m] = &u[b - lo]; \
                    }                                                                                             \
                    if (++m < 8) continue;                                                                        \
                } else if (m == 0) {                                                                              \
                    break;                                                                                        \
                }                                                                                                 \
                for (size_t l = m; l < 8; l++) in[l] = in[0], sp[l] = sp[0];                                      \
                X_(lanes_mul_j)(out, in, sp, j->lanes, W);                                                        \
                for (size_t l = 0; l < m; l++) memcpy(dst[l], out + 3 * W * l, sizeof(GGJ));                      \
                m = 0;                                                                                            \
            }                                                                                                     \
        }                                                                                                         \
        for (size_t b = lo; b < hi; b++) {                                                                        \
            size_t grp = b / j->half, k = b % j->half, i0 = grp * 2 * j->half + k, i1 = i0 + j->half;             \
            GGJ nv, uu = j->uscale != NULL ? u[b - lo] : a[i0];                                                   \
            ZP_CAT(GG, _j_add_var)(&a[i0], &uu, &v[b - lo]);                                                      \
            ZP_CAT(GG, _j_neg)(&nv, &v[b - lo]);                                                                  \
            ZP_CAT(GG, _j_add_var)(&a[i1], &uu, &nv);                                                             \
        }                                                                                                         \
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

static zp_status X_(lagrange)(uint8_t *pts, unsigned log_n, int g2, void *work, const zp_parallel *par, zp_error *err) {
    size_t n = (size_t)1 << log_n, pe = g2 ? sizeof(G2) : sizeof(G1), je = g2 ? sizeof(G2J) : sizeof(G1J);
    if (n == 1) return ZP_OK;
    uint8_t *a = work;
    /* load in bit-reversed order */
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
    zp_tracked twb = {0};
    zp_status st = zp_cer_alloc(&twb, n / 2 * 32, "twiddles", err);
    if (st != ZP_OK) return st;
    uint64_t *tw = twb.p;
    /* n⁻¹ is folded into the last stage: its outputs are n⁻¹u ± (n⁻¹ω^k)v,
     * two multiplications per butterfly there instead of three */
    FR ninv, ninv_plain;
    FR_(from_u64)(&ninv, n);
    FR_(inv)(&ninv, &ninv);
    FR_(from_mont)(&ninv_plain, &ninv);
    zp_ct_lanes_curve lc;
    int lanes = g2 ? X_(G2_lanes_curve)(&lc, par) : X_(G1_lanes_curve)(&lc, par);
    zp_p2_ct_scalar us;
    if (g2) X_(G2_ct_scalar)(&us, ninv_plain.v);
    else X_(G1_ct_scalar)(&us, ninv_plain.v);
    for (unsigned s = 1; s <= log_n; s++) {
        size_t half = (size_t)1 << (s - 1);
        FR w, x;
        ZP_CAT(FR, _root_of_unity)(&w, s);
        FR_(inv)(&w, &w);
        if (s == log_n) {
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
        X_(fft_job) job = {a, n, half, tw, s == log_n ? ninv_plain.v : NULL, g2, lanes ? &lc : NULL, &us};
        zp_parallel_for(par, (n / 2 + ZP_P2_FFT_BLOCK - 1) / ZP_P2_FFT_BLOCK, X_(fft_task), &job);
    }
    zp_cer_free(&twb);
    /* to affine, with one inversion per block */
    uint8_t *scratch = a + n * je;
    if (!g2) {
        G1 *out = (G1 *)(void *)(scratch + 2 * n * sizeof(FP));
        G1_(j_batch_to_affine_var)(out, (G1J *)(void *)a, n, (FP *)(void *)scratch);
        memcpy(pts, out, n * pe);
    } else {
        G2 *out = (G2 *)(void *)(scratch + 2 * n * sizeof(FP2));
        G2_(j_batch_to_affine_var)(out, (G2J *)(void *)a, n, (FP2 *)(void *)scratch);
        memcpy(pts, out, n * pe);
    }
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
    .compose = X_(compose),
    .g1_sub_to_u = X_(g1_sub_to_u),
    .coef_r2 = X_(coef_r2),
    .same_ratio = X_(same_ratio),
    .g1_lincomb = X_(g1_lincomb),
    .g1_on_curve = X_(g1_on_curve),
    .lagrange = X_(lagrange),
    .lagrange_work_bytes = X_(lagrange_work_bytes),
    .fr_dft = X_(fr_dft),
    .g1_apply_powers = X_(G1_apply_powers),
    .g2_apply_powers = X_(G2_apply_powers),
    .g1_apply_powers_var = X_(G1_apply_powers_var),
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
#undef ZP_G_X_ABS
#undef ZP_G_G2_D
#undef ZP_P2_JMULN
#undef ZP_P2_WNAF_T
#undef ZP_P2_STRAUS
