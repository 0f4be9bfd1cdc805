/* The pairing target field tower over Fp2, instantiated per curve:
 *
 *   Fp6  = Fp2[v] / (v³ - xi)     {c0, c1, c2} = c0 + c1·v + c2·v²
 *   Fp12 = Fp6[w] / (w² - v)      {c0, c1}     = c0 + c1·w
 *
 * xi = 9 + u (BN254) or 1 + u (BLS12-381). This is ffjavascript's tower
 * (and so snarkjs's: vk_alphabeta_12 is stored in this order), so an Fp12
 * value compares coefficient by coefficient with theirs. In the flat basis
 * w^e (w⁶ = xi), coefficient c_i.c_j sits at e = i + 2j.
 *
 * Include with ZP_T (curve prefix, e.g. zp_bn254) and ZP_T_UP (its constant
 * prefix in pairing/params.h, e.g. ZP_BN254) defined; the Fp2 type ZP_T_fp2
 * must exist. Formulas: Beuchat et al., "High-speed software implementation
 * of the optimal ate pairing over Barreto-Naehrig curves" (2010), and
 * Granger-Scott, "Faster squaring in the cyclotomic subgroup of sixth degree
 * extensions" (2010). Not constant time: the pairing is for verification. */
#define ZP_CAT_(a, b) a##b
#define ZP_CAT(a, b) ZP_CAT_(a, b)
#define T2 ZP_CAT(ZP_T, _fp2)
#define T6 ZP_CAT(ZP_T, _fp6)
#define T12 ZP_CAT(ZP_T, _fp12)
#define E2_(name) ZP_CAT(T2, _##name)
#define E6_(name) ZP_CAT(T6, _##name)
#define E12_(name) ZP_CAT(T12, _##name)
#define TC_(name) ZP_CAT(ZP_T_UP, _##name)

typedef struct {
    T2 c0, c1, c2;
} T6;
typedef struct {
    T6 c0, c1;
} T12;

/* gamma[k-1][j-1] = xi^(j(p^k - 1)/6) = w^(j(p^k - 1)): the Frobenius p^k
 * sends w^j to gamma_kj·w^j. */
static const T2 ZP_CAT(ZP_T, _frob_gamma)[3][5] = {
    {TC_(FROB1_1_INIT), TC_(FROB1_2_INIT), TC_(FROB1_3_INIT), TC_(FROB1_4_INIT), TC_(FROB1_5_INIT)},
    {TC_(FROB2_1_INIT), TC_(FROB2_2_INIT), TC_(FROB2_3_INIT), TC_(FROB2_4_INIT), TC_(FROB2_5_INIT)},
    {TC_(FROB3_1_INIT), TC_(FROB3_2_INIT), TC_(FROB3_3_INIT), TC_(FROB3_4_INIT), TC_(FROB3_5_INIT)},
};

/* ---------------------------------------------------------------- Fp6 */

ZP_INLINE void E6_(set_zero)(T6 *r) { memset(r, 0, sizeof *r); }
ZP_INLINE void E6_(set_one)(T6 *r) {
    E2_(set_one)(&r->c0);
    E2_(set_zero)(&r->c1);
    E2_(set_zero)(&r->c2);
}
ZP_INLINE int E6_(is_zero)(const T6 *a) { return E2_(is_zero)(&a->c0) & E2_(is_zero)(&a->c1) & E2_(is_zero)(&a->c2); }
ZP_INLINE int E6_(eq_var)(const T6 *a, const T6 *b) {
    return E2_(eq_var)(&a->c0, &b->c0) & E2_(eq_var)(&a->c1, &b->c1) & E2_(eq_var)(&a->c2, &b->c2);
}
ZP_INLINE void E6_(add)(T6 *r, const T6 *a, const T6 *b) {
    E2_(add)(&r->c0, &a->c0, &b->c0);
    E2_(add)(&r->c1, &a->c1, &b->c1);
    E2_(add)(&r->c2, &a->c2, &b->c2);
}
ZP_INLINE void E6_(sub)(T6 *r, const T6 *a, const T6 *b) {
    E2_(sub)(&r->c0, &a->c0, &b->c0);
    E2_(sub)(&r->c1, &a->c1, &b->c1);
    E2_(sub)(&r->c2, &a->c2, &b->c2);
}
ZP_INLINE void E6_(neg)(T6 *r, const T6 *a) {
    E2_(neg)(&r->c0, &a->c0);
    E2_(neg)(&r->c1, &a->c1);
    E2_(neg)(&r->c2, &a->c2);
}
/* a·v = xi·a2 + a0·v + a1·v² */
ZP_INLINE void E6_(mul_by_v)(T6 *r, const T6 *a) {
    T2 t;
    E2_(mul_by_xi)(&t, &a->c2);
    r->c2 = a->c1;
    r->c1 = a->c0;
    r->c0 = t;
}

/* Karatsuba over Fp2, 6 Fp2 multiplications (Beuchat et al. 2010, alg. 13). */
static inline void E6_(mul)(T6 *r, const T6 *a, const T6 *b) {
    T2 t0, t1, t2, s0, s1, c0, c1, c2;
    E2_(mul)(&t0, &a->c0, &b->c0);
    E2_(mul)(&t1, &a->c1, &b->c1);
    E2_(mul)(&t2, &a->c2, &b->c2);
    /* c0 = t0 + xi·((a1 + a2)(b1 + b2) - t1 - t2) */
    E2_(add)(&s0, &a->c1, &a->c2);
    E2_(add)(&s1, &b->c1, &b->c2);
    E2_(mul)(&c0, &s0, &s1);
    E2_(sub)(&c0, &c0, &t1);
    E2_(sub)(&c0, &c0, &t2);
    E2_(mul_by_xi)(&c0, &c0);
    E2_(add)(&c0, &c0, &t0);
    /* c1 = (a0 + a1)(b0 + b1) - t0 - t1 + xi·t2 */
    E2_(add)(&s0, &a->c0, &a->c1);
    E2_(add)(&s1, &b->c0, &b->c1);
    E2_(mul)(&c1, &s0, &s1);
    E2_(sub)(&c1, &c1, &t0);
    E2_(sub)(&c1, &c1, &t1);
    E2_(mul_by_xi)(&s0, &t2);
    E2_(add)(&c1, &c1, &s0);
    /* c2 = (a0 + a2)(b0 + b2) - t0 - t2 + t1 */
    E2_(add)(&s0, &a->c0, &a->c2);
    E2_(add)(&s1, &b->c0, &b->c2);
    E2_(mul)(&c2, &s0, &s1);
    E2_(sub)(&c2, &c2, &t0);
    E2_(sub)(&c2, &c2, &t2);
    E2_(add)(&c2, &c2, &t1);
    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

/* Chung-Hasan SQR2 (Beuchat et al. 2010, alg. 16). */
static inline void E6_(sqr)(T6 *r, const T6 *a) {
    T2 s0, s1, s2, s3, s4, t;
    E2_(sqr)(&s0, &a->c0);
    E2_(mul)(&s1, &a->c0, &a->c1);
    E2_(dbl)(&s1, &s1); /* 2a0a1 */
    E2_(sub)(&t, &a->c0, &a->c1);
    E2_(add)(&t, &t, &a->c2);
    E2_(sqr)(&s2, &t); /* (a0 - a1 + a2)² */
    E2_(mul)(&s3, &a->c1, &a->c2);
    E2_(dbl)(&s3, &s3); /* 2a1a2 */
    E2_(sqr)(&s4, &a->c2);
    /* c0 = s0 + xi·s3, c1 = s1 + xi·s4, c2 = s1 + s2 + s3 - s0 - s4 */
    E2_(mul_by_xi)(&t, &s3);
    E2_(add)(&r->c0, &s0, &t);
    E2_(add)(&r->c2, &s1, &s2);
    E2_(add)(&r->c2, &r->c2, &s3);
    E2_(sub)(&r->c2, &r->c2, &s0);
    E2_(sub)(&r->c2, &r->c2, &s4);
    E2_(mul_by_xi)(&t, &s4);
    E2_(add)(&r->c1, &s1, &t);
}

/* 1/a by the norm to Fp2 (Beuchat et al. 2010, alg. 17):
 * A = a0² - xi·a1a2, B = xi·a2² - a0a1, C = a1² - a0a2,
 * F = a0·A + xi·(a2·B + a1·C), a^-1 = (A, B, C)/F. */
static inline void E6_(inv)(T6 *r, const T6 *a) {
    T2 A, B, C, F, t;
    E2_(sqr)(&A, &a->c0);
    E2_(mul)(&t, &a->c1, &a->c2);
    E2_(mul_by_xi)(&t, &t);
    E2_(sub)(&A, &A, &t);
    E2_(sqr)(&B, &a->c2);
    E2_(mul_by_xi)(&B, &B);
    E2_(mul)(&t, &a->c0, &a->c1);
    E2_(sub)(&B, &B, &t);
    E2_(sqr)(&C, &a->c1);
    E2_(mul)(&t, &a->c0, &a->c2);
    E2_(sub)(&C, &C, &t);
    E2_(mul)(&F, &a->c2, &B);
    E2_(mul)(&t, &a->c1, &C);
    E2_(add)(&F, &F, &t);
    E2_(mul_by_xi)(&F, &F);
    E2_(mul)(&t, &a->c0, &A);
    E2_(add)(&F, &F, &t);
    E2_(inv)(&F, &F);
    E2_(mul)(&r->c0, &A, &F);
    E2_(mul)(&r->c1, &B, &F);
    E2_(mul)(&r->c2, &C, &F);
}

/* a·(b0 + b1·v), the Fp6 half of a sparse line: 5 Fp2 multiplications. */
static inline void E6_(mul_by_01)(T6 *r, const T6 *a, const T2 *b0, const T2 *b1) {
    T2 t0, t1, s, c0, c1, c2;
    E2_(mul)(&t0, &a->c0, b0);
    E2_(mul)(&t1, &a->c1, b1);
    /* c0 = t0 + xi·a2·b1 */
    E2_(mul)(&c0, &a->c2, b1);
    E2_(mul_by_xi)(&c0, &c0);
    E2_(add)(&c0, &c0, &t0);
    /* c1 = (a0 + a1)(b0 + b1) - t0 - t1 */
    E2_(add)(&s, &a->c0, &a->c1);
    E2_(add)(&c1, b0, b1);
    E2_(mul)(&c1, &c1, &s);
    E2_(sub)(&c1, &c1, &t0);
    E2_(sub)(&c1, &c1, &t1);
    /* c2 = a2·b0 + t1 */
    E2_(mul)(&c2, &a->c2, b0);
    E2_(add)(&c2, &c2, &t1);
    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

/* a·(b1·v): 3 Fp2 multiplications. */
static inline void E6_(mul_by_1)(T6 *r, const T6 *a, const T2 *b1) {
    T2 c0;
    E2_(mul)(&c0, &a->c2, b1);
    E2_(mul_by_xi)(&c0, &c0);
    E2_(mul)(&r->c2, &a->c1, b1);
    E2_(mul)(&r->c1, &a->c0, b1);
    r->c0 = c0;
}

/* a·b0, b0 in Fp2. */
ZP_INLINE void E6_(mul_fp2)(T6 *r, const T6 *a, const T2 *b0) {
    E2_(mul)(&r->c0, &a->c0, b0);
    E2_(mul)(&r->c1, &a->c1, b0);
    E2_(mul)(&r->c2, &a->c2, b0);
}

/* --------------------------------------------------------------- Fp12 */

ZP_INLINE void E12_(set_one)(T12 *r) {
    E6_(set_one)(&r->c0);
    E6_(set_zero)(&r->c1);
}
ZP_INLINE int E12_(eq_var)(const T12 *a, const T12 *b) {
    return E6_(eq_var)(&a->c0, &b->c0) & E6_(eq_var)(&a->c1, &b->c1);
}
ZP_INLINE int E12_(is_one_var)(const T12 *a) {
    T12 one;
    E12_(set_one)(&one);
    return E12_(eq_var)(a, &one);
}
ZP_INLINE void E12_(add)(T12 *r, const T12 *a, const T12 *b) {
    E6_(add)(&r->c0, &a->c0, &b->c0);
    E6_(add)(&r->c1, &a->c1, &b->c1);
}
ZP_INLINE void E12_(sub)(T12 *r, const T12 *a, const T12 *b) {
    E6_(sub)(&r->c0, &a->c0, &b->c0);
    E6_(sub)(&r->c1, &a->c1, &b->c1);
}
/* a0 - a1·w = a^(p^6): the inverse on the cyclotomic subgroup. */
ZP_INLINE void E12_(conj)(T12 *r, const T12 *a) {
    r->c0 = a->c0;
    E6_(neg)(&r->c1, &a->c1);
}

/* Karatsuba over Fp6 (w² = v). */
static inline void E12_(mul)(T12 *r, const T12 *a, const T12 *b) {
    T6 t0, t1, s0, s1;
    E6_(mul)(&t0, &a->c0, &b->c0);
    E6_(mul)(&t1, &a->c1, &b->c1);
    E6_(add)(&s0, &a->c0, &a->c1);
    E6_(add)(&s1, &b->c0, &b->c1);
    E6_(mul)(&s0, &s0, &s1);
    E6_(sub)(&s0, &s0, &t0);
    E6_(sub)(&r->c1, &s0, &t1); /* c1 = (a0 + a1)(b0 + b1) - t0 - t1 */
    E6_(mul_by_v)(&t1, &t1);
    E6_(add)(&r->c0, &t0, &t1); /* c0 = t0 + v·t1 */
}

/* Complex squaring: c0 = (a0 + a1)(a0 + v·a1) - a0a1 - v·a0a1, c1 = 2a0a1. */
static inline void E12_(sqr)(T12 *r, const T12 *a) {
    T6 m, s0, s1;
    E6_(mul)(&m, &a->c0, &a->c1);
    E6_(add)(&s0, &a->c0, &a->c1);
    E6_(mul_by_v)(&s1, &a->c1);
    E6_(add)(&s1, &s1, &a->c0);
    E6_(mul)(&s0, &s0, &s1);
    E6_(sub)(&s0, &s0, &m);
    E6_(mul_by_v)(&s1, &m);
    E6_(sub)(&r->c0, &s0, &s1);
    E6_(add)(&r->c1, &m, &m);
}

/* 1/(a0 + a1·w) = (a0 - a1·w)/(a0² - v·a1²); the inverse of 0 is 0. */
static inline void E12_(inv)(T12 *r, const T12 *a) {
    T6 t0, t1;
    E6_(sqr)(&t0, &a->c0);
    E6_(sqr)(&t1, &a->c1);
    E6_(mul_by_v)(&t1, &t1);
    E6_(sub)(&t0, &t0, &t1);
    E6_(inv)(&t0, &t0);
    E6_(mul)(&r->c0, &a->c0, &t0);
    E6_(mul)(&t1, &a->c1, &t0);
    E6_(neg)(&r->c1, &t1);
}

/* a^(p^k), k = 1, 2, 3 (other k by composition): each Fp2 coefficient at
 * w^e is raised to p^k (conjugated when k is odd) and multiplied by
 * w^(e(p^k - 1)) = gamma_{k,e}. */
static inline void E12_(frobenius)(T12 *r, const T12 *a, int k) {
    const T2(*g)[5] = ZP_CAT(ZP_T, _frob_gamma);
    T2 *out[6] = {&r->c0.c0, &r->c1.c0, &r->c0.c1, &r->c1.c1, &r->c0.c2, &r->c1.c2}; /* by e */
    const T2 *in[6] = {&a->c0.c0, &a->c1.c0, &a->c0.c1, &a->c1.c1, &a->c0.c2, &a->c1.c2};
    k = ((k % 12) + 12) % 12;
    if (k == 0) {
        *r = *a;
        return;
    }
    if (k > 3) {
        T12 t;
        E12_(frobenius)(&t, a, 3);
        E12_(frobenius)(r, &t, k - 3);
        return;
    }
    for (int e = 0; e < 6; e++) {
        T2 c;
        if (k & 1) {
            E2_(conj)(&c, in[e]);
        } else {
            c = *in[e];
        }
        if (e == 0) {
            *out[0] = c;
        } else {
            E2_(mul)(out[e], &c, &g[k - 1][e - 1]);
        }
    }
}

/* a·(b0 + b3·w + b4·w³): the line of a D-type twist (BN254), with b0, b3,
 * b4 at flat positions w^0, w^1, w^3, i.e. c0.c0, c1.c0, c1.c1. */
static inline void E12_(mul_by_034)(T12 *r, const T12 *a, const T2 *b0, const T2 *b3, const T2 *b4) {
    T6 t0, t1, s;
    T2 b03;
    E6_(mul_fp2)(&t0, &a->c0, b0);       /* a0·b0 */
    E6_(mul_by_01)(&t1, &a->c1, b3, b4); /* a1·(b3 + b4·v) */
    E2_(add)(&b03, b0, b3);
    E6_(add)(&s, &a->c0, &a->c1);
    E6_(mul_by_01)(&s, &s, &b03, b4); /* (a0 + a1)(b0 + b3 + b4·v) */
    E6_(sub)(&s, &s, &t0);
    E6_(sub)(&r->c1, &s, &t1);
    E6_(mul_by_v)(&t1, &t1);
    E6_(add)(&r->c0, &t0, &t1);
}

/* a·(b0 + b1·w² + b4·w³): the line of an M-type twist (BLS12-381), with
 * b0, b1, b4 at flat positions w^0, w^2, w^3, i.e. c0.c0, c0.c1, c1.c1. */
static inline void E12_(mul_by_014)(T12 *r, const T12 *a, const T2 *b0, const T2 *b1, const T2 *b4) {
    T6 t0, t1, s;
    T2 b14;
    E6_(mul_by_01)(&t0, &a->c0, b0, b1); /* a0·(b0 + b1·v) */
    E6_(mul_by_1)(&t1, &a->c1, b4);      /* a1·(b4·v) */
    E2_(add)(&b14, b1, b4);
    E6_(add)(&s, &a->c0, &a->c1);
    E6_(mul_by_01)(&s, &s, b0, &b14); /* (a0 + a1)(b0 + (b1 + b4)·v) */
    E6_(sub)(&s, &s, &t0);
    E6_(sub)(&r->c1, &s, &t1);
    E6_(mul_by_v)(&t1, &t1);
    E6_(add)(&r->c0, &t0, &t1);
}

/* Granger-Scott squaring (2010, section 3.2), valid only for a in the
 * cyclotomic subgroup (a^(p^6 + 1) = 1, as after the easy part of the final
 * exponentiation); 9 Fp2 squarings instead of 12 multiplications.
 * View Fp12 as Fp4[w]/(w³ - s) with Fp4 = Fp2[s]/(s² - xi), s = w³; then
 * a = g0 + g1·w + g2·w² with g0 = (c0.c0, c1.c1), g1 = (c1.c0, c0.c2),
 * g2 = (c0.c1, c1.c2) as pairs (x, y) = x + y·s, and
 *   g0' = 3·g0² - 2·conj(g0), g1' = 3·s·g2² + 2·conj(g1), g2' = 3·g1² - 2·conj(g2)
 * with conj(x + y·s) = x - y·s. */
static inline void E12_(cyclotomic_sqr)(T12 *r, const T12 *a) {
    T2 t0, t1, t2, t3, t4, t5, t6, t7, x, y;
    /* Fp4 squaring of (x, y): (x² + xi·y², 2xy) */
#define FP4_SQR(o0, o1, a0, a1)  \
    do {                         \
        E2_(sqr)(&x, a0);        \
        E2_(sqr)(&y, a1);        \
        E2_(mul_by_xi)(&o0, &y); \
        E2_(add)(&o0, &o0, &x);  \
        E2_(add)(&o1, a0, a1);   \
        E2_(sqr)(&o1, &o1);      \
        E2_(sub)(&o1, &o1, &x);  \
        E2_(sub)(&o1, &o1, &y);  \
    } while (0)
    FP4_SQR(t0, t1, &a->c0.c0, &a->c1.c1); /* g0² */
    FP4_SQR(t2, t3, &a->c1.c0, &a->c0.c2); /* g1² */
    FP4_SQR(t4, t5, &a->c0.c1, &a->c1.c2); /* g2² */
#undef FP4_SQR
    /* g0' = 3g0² - 2conj(g0): x' = 3t0 - 2x, y' = 3t1 + 2y */
    E2_(sub)(&t6, &t0, &a->c0.c0);
    E2_(dbl)(&t6, &t6);
    E2_(add)(&r->c0.c0, &t6, &t0);
    E2_(add)(&t7, &t1, &a->c1.c1);
    E2_(dbl)(&t7, &t7);
    E2_(add)(&r->c1.c1, &t7, &t1);
    /* g2·s squared: s·(t4 + t5 s) = xi·t5 + t4·s.
     * g1' = 3·(xi·t5, t4) + 2conj(g1): x' = 3xi·t5 + 2x, y' = 3t4 - 2y */
    E2_(mul_by_xi)(&t6, &t5);
    E2_(add)(&t7, &t6, &a->c1.c0);
    E2_(dbl)(&t7, &t7);
    E2_(add)(&t7, &t7, &t6);
    E2_(sub)(&t6, &t4, &a->c0.c2);
    E2_(dbl)(&t6, &t6);
    E2_(add)(&t6, &t6, &t4);
    /* g2' = 3g1² - 2conj(g2): x' = 3t2 - 2x, y' = 3t3 + 2y */
    E2_(sub)(&x, &t2, &a->c0.c1);
    E2_(dbl)(&x, &x);
    E2_(add)(&x, &x, &t2);
    E2_(add)(&y, &t3, &a->c1.c2);
    E2_(dbl)(&y, &y);
    E2_(add)(&y, &y, &t3);
    r->c1.c0 = t7;
    r->c0.c2 = t6;
    r->c0.c1 = x;
    r->c1.c2 = y;
}

/* r = a^e, e as little-endian limbs, by left-to-right square-and-multiply
 * (variable time). cyclotomic: a is known to be in the cyclotomic
 * subgroup, so the cheaper squaring may be used. */
static inline void E12_(pow_var)(T12 *r, const T12 *a, const uint64_t *e, size_t elen, int cyclotomic) {
    T12 acc;
    E12_(set_one)(&acc);
    int started = 0;
    for (size_t i = elen * 64; i-- > 0;) {
        if (started) {
            if (cyclotomic) {
                E12_(cyclotomic_sqr)(&acc, &acc);
            } else {
                E12_(sqr)(&acc, &acc);
            }
        }
        if ((e[i / 64] >> (i % 64)) & 1) {
            if (started) {
                E12_(mul)(&acc, &acc, a);
            } else {
                acc = *a;
                started = 1;
            }
        }
    }
    *r = acc;
}

#undef T2
#undef T6
#undef T12
#undef E2_
#undef E6_
#undef E12_
#undef TC_
#undef ZP_T
#undef ZP_T_UP
