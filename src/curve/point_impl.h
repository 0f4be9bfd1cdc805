/* A group of points on y² = x³ + b (a = 0), instantiated per group.
 *
 * Include with:
 *   ZP_P        prefix: the affine type is ZP_P, Jacobian ZP_P##j, XYZZ ZP_P##xyzz
 *   ZP_P_F      the coordinate field prefix (zp_bn254_fp, zp_bn254_fp2, ...)
 *   ZP_P_B      initializer of the coefficient b in that field
 *   ZP_P_GEN    initializer of the generator (affine)
 *   ZP_P_SCALAR the scalar field prefix (for the subgroup check)
 * Affine points are x then y, and the point at infinity is all zeros: (0, 0)
 * is never on these curves (b ≠ 0), and it is how .zkey files encode it.
 * Formulas are from the Explicit-Formulas Database (hyperelliptic.org/EFD),
 * "g1p/auto-shortw-jacobian-0" and "auto-shortw-xyzz", named where used.
 *
 * Timing (libsecp256k1's convention): a name ending in _var takes time that
 * depends on its inputs' values (branches on infinity or equal points,
 * memcmp, early exits), for public data only: the MSMs, the verifier, the
 * checks of a file's points. Everything else runs the same instructions and
 * touches the same addresses whatever the values, given the compiler keeps
 * the masks as masks (tests/test_ctime.c checks the built code under
 * valgrind): is_inf, set_inf, neg, j_neg, j_from_affine, j_dbl, j_add (the
 * complete addition, special cases chosen by masks), j_mul (4-bit fixed
 * windows), j_to_affine (Fermat inversion; infinity maps to 0 through it),
 * xyzz_dbl, xyzz_to_j. The prover's terms in its secrets r and s use only
 * these.
 */
#define ZP_CAT_(a, b) a##b
#define ZP_CAT(a, b) ZP_CAT_(a, b)
#define P_(name) ZP_CAT(ZP_P, _##name)
#define K_(name) ZP_CAT(ZP_P_F, _##name)
#define FT ZP_P_F
#define PJ ZP_CAT(ZP_P, j)
#define PX ZP_CAT(ZP_P, xyzz)

#ifndef ZP_CURVE_POINT_CT_HELPERS
#define ZP_CURVE_POINT_CT_HELPERS
/* All ones when the n limbs are all zero, else zero, by arithmetic alone:
 * acc | -acc has its top bit set exactly when acc != 0. */
ZP_INLINE uint64_t zp_point_zero_mask(const uint64_t *a, size_t n) {
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++) acc |= a[i];
    return ((acc | ((uint64_t)0 - acc)) >> 63) - 1;
}
/* r = a where mask is all ones, r unchanged where it is zero. */
ZP_INLINE void zp_point_cmov(uint64_t *r, const uint64_t *a, uint64_t mask, size_t n) {
    for (size_t i = 0; i < n; i++) r[i] ^= (r[i] ^ a[i]) & mask;
}
#endif

typedef struct {
    FT x, y;
} ZP_P;
typedef struct {
    FT x, y, z;
} PJ;
/* XYZZ: x = X/ZZ, y = Y/ZZZ with ZZ³ = ZZZ²; cheapest mixed additions for
 * bucket sums. ZZ = 0 is infinity. */
typedef struct {
    FT x, y, zz, zzz;
} PX;

static const FT P_(b) = ZP_P_B;
static const ZP_P P_(generator) = ZP_P_GEN;

/* Field elements, points: structs of 64-bit limbs with no padding. */
#define FT_LIMBS (sizeof(FT) / sizeof(uint64_t))
ZP_INLINE uint64_t P_(fe_zero_mask)(const FT *a) { return zp_point_zero_mask((const uint64_t *)a, FT_LIMBS); }
ZP_INLINE void P_(j_cmov)(PJ *r, const PJ *a, uint64_t mask) {
    zp_point_cmov((uint64_t *)r, (const uint64_t *)a, mask, sizeof(PJ) / sizeof(uint64_t));
}

ZP_INLINE int P_(is_inf)(const ZP_P *p) { return K_(is_zero)(&p->x) & K_(is_zero)(&p->y); }
ZP_INLINE void P_(set_inf)(ZP_P *p) { memset(p, 0, sizeof *p); }
ZP_INLINE int P_(j_is_inf)(const PJ *p) { return K_(is_zero)(&p->z); }
ZP_INLINE void P_(j_set_inf)(PJ *p) { memset(p, 0, sizeof *p); }
ZP_INLINE int P_(xyzz_is_inf)(const PX *p) { return K_(is_zero)(&p->zz); }
ZP_INLINE void P_(xyzz_set_inf)(PX *p) { memset(p, 0, sizeof *p); }

/* -(x, y) = (x, -y); the field's neg maps 0 to 0, so infinity (0, 0) maps
 * to itself without a test. */
ZP_INLINE void P_(neg)(ZP_P *r, const ZP_P *p) {
    r->x = p->x;
    K_(neg)(&r->y, &p->y);
}
ZP_INLINE void P_(j_neg)(PJ *r, const PJ *p) {
    r->x = p->x;
    K_(neg)(&r->y, &p->y);
    r->z = p->z;
}

/* (x, y) -> (x : y : 1); infinity (0, 0) -> (0 : 0 : 0), Z masked to 0. */
ZP_INLINE void P_(j_from_affine)(PJ *r, const ZP_P *p) {
    uint64_t inf = P_(fe_zero_mask)(&p->x) & P_(fe_zero_mask)(&p->y);
    r->x = p->x;
    r->y = p->y;
    K_(set_one)(&r->z);
    uint64_t *z = (uint64_t *)&r->z;
    for (size_t i = 0; i < FT_LIMBS; i++) z[i] &= ~inf;
}

/* y² == x³ + b; infinity counts as on the curve. Variable time: for
 * validating public points. */
static inline int P_(is_on_curve_var)(const ZP_P *p) {
    if (P_(is_inf)(p)) return 1;
    FT l, r;
    K_(sqr)(&l, &p->y);
    K_(sqr)(&r, &p->x);
    K_(mul)(&r, &r, &p->x);
    K_(add)(&r, &r, &P_(b));
    return K_(eq_var)(&l, &r);
}

/* dbl-2009-l: 2M + 5S. No special case: Z = 0 (infinity) gives Z3 = 2YZ =
 * 0, and Y = 0 (a point of order 2) gives Z3 = 0 = 2P, as it should. */
static inline void P_(j_dbl)(PJ *r, const PJ *p) {
    FT a, b, c, d, e, f, t;
    K_(sqr)(&a, &p->x);
    K_(sqr)(&b, &p->y);
    K_(sqr)(&c, &b);
    K_(add)(&d, &p->x, &b);
    K_(sqr)(&d, &d);
    K_(sub)(&d, &d, &a);
    K_(sub)(&d, &d, &c);
    K_(dbl)(&d, &d); /* D = 2((X+B)² - A - C) */
    K_(dbl)(&e, &a);
    K_(add)(&e, &e, &a); /* E = 3A */
    K_(sqr)(&f, &e);
    K_(mul)(&t, &p->y, &p->z);
    K_(dbl)(&r->z, &t); /* Z3 = 2YZ */
    K_(sub)(&r->x, &f, &d);
    K_(sub)(&r->x, &r->x, &d); /* X3 = F - 2D */
    K_(sub)(&t, &d, &r->x);
    K_(mul)(&t, &e, &t);
    K_(dbl)(&c, &c);
    K_(dbl)(&c, &c);
    K_(dbl)(&c, &c);
    K_(sub)(&r->y, &t, &c); /* Y3 = E(D - X3) - 8C */
}

/* madd-2007-bl: Jacobian + affine, all special cases handled by branches
 * (variable time). */
static inline void P_(j_add_affine_var)(PJ *r, const PJ *p, const ZP_P *q) {
    if (P_(is_inf)(q)) {
        *r = *p;
        return;
    }
    if (P_(j_is_inf)(p)) {
        P_(j_from_affine)(r, q);
        return;
    }
    FT z1z1, u2, s2, h, hh, i, j, rr, v, t;
    K_(sqr)(&z1z1, &p->z);
    K_(mul)(&u2, &q->x, &z1z1);
    K_(mul)(&s2, &q->y, &p->z);
    K_(mul)(&s2, &s2, &z1z1);
    K_(sub)(&h, &u2, &p->x);
    K_(sub)(&rr, &s2, &p->y);
    if (K_(is_zero)(&h)) {
        if (K_(is_zero)(&rr)) {
            P_(j_dbl)(r, p);
        } else {
            P_(j_set_inf)(r);
        }
        return;
    }
    K_(dbl)(&rr, &rr); /* r = 2(S2 - Y1) */
    K_(sqr)(&hh, &h);
    K_(dbl)(&i, &hh);
    K_(dbl)(&i, &i); /* I = 4HH */
    K_(mul)(&j, &h, &i);
    K_(mul)(&v, &p->x, &i);
    FT z3;
    K_(add)(&z3, &p->z, &h);
    K_(sqr)(&z3, &z3);
    K_(sub)(&z3, &z3, &z1z1);
    K_(sub)(&r->z, &z3, &hh); /* Z3 = (Z1 + H)² - Z1Z1 - HH */
    FT y1j;
    K_(mul)(&y1j, &p->y, &j);
    K_(sqr)(&t, &rr);
    K_(sub)(&t, &t, &j);
    K_(sub)(&t, &t, &v);
    K_(sub)(&r->x, &t, &v); /* X3 = r² - J - 2V */
    K_(sub)(&t, &v, &r->x);
    K_(mul)(&t, &rr, &t);
    K_(dbl)(&y1j, &y1j);
    K_(sub)(&r->y, &t, &y1j); /* Y3 = r(V - X3) - 2·Y1·J */
}

/* The two halves of add-2007-bl, shared by j_add_var and j_add: first
 * H = U2 - U1 and r = S2 - S1 (with the values the second half needs),
 * whose zeros tell the special cases apart; then the general sum, which
 * holds when P ≠ ±Q and neither is infinity. r may alias p or q. */
typedef struct {
    FT z1z1, z2z2, u1, s1, h, rr;
} P_(add_terms);

static inline void P_(j_add_terms)(P_(add_terms) *t, const PJ *p, const PJ *q) {
    FT u2, s2;
    K_(sqr)(&t->z1z1, &p->z);
    K_(sqr)(&t->z2z2, &q->z);
    K_(mul)(&t->u1, &p->x, &t->z2z2);
    K_(mul)(&u2, &q->x, &t->z1z1);
    K_(mul)(&t->s1, &p->y, &q->z);
    K_(mul)(&t->s1, &t->s1, &t->z2z2);
    K_(mul)(&s2, &q->y, &p->z);
    K_(mul)(&s2, &s2, &t->z1z1);
    K_(sub)(&t->h, &u2, &t->u1);
    K_(sub)(&t->rr, &s2, &t->s1);
}

static inline void P_(j_add_general)(PJ *r, const PJ *p, const PJ *q, P_(add_terms) *a) {
    FT i, j, v, t, z3;
    K_(dbl)(&a->rr, &a->rr);
    K_(dbl)(&i, &a->h);
    K_(sqr)(&i, &i); /* I = (2H)² */
    K_(mul)(&j, &a->h, &i);
    K_(mul)(&v, &a->u1, &i);
    K_(add)(&z3, &p->z, &q->z);
    K_(sqr)(&z3, &z3);
    K_(sub)(&z3, &z3, &a->z1z1);
    K_(sub)(&z3, &z3, &a->z2z2);
    K_(mul)(&r->z, &z3, &a->h); /* Z3 = ((Z1+Z2)² - Z1Z1 - Z2Z2)·H */
    K_(mul)(&a->s1, &a->s1, &j);
    K_(dbl)(&a->s1, &a->s1);
    K_(sqr)(&t, &a->rr);
    K_(sub)(&t, &t, &j);
    K_(sub)(&t, &t, &v);
    K_(sub)(&r->x, &t, &v); /* X3 = r² - J - 2V */
    K_(sub)(&t, &v, &r->x);
    K_(mul)(&t, &a->rr, &t);
    K_(sub)(&r->y, &t, &a->s1); /* Y3 = r(V - X3) - 2·S1·J */
}

/* add-2007-bl: Jacobian + Jacobian, all special cases handled by branches
 * (variable time: the MSMs, the verifier). */
static inline void P_(j_add_var)(PJ *r, const PJ *p, const PJ *q) {
    if (P_(j_is_inf)(p)) {
        *r = *q;
        return;
    }
    if (P_(j_is_inf)(q)) {
        *r = *p;
        return;
    }
    P_(add_terms) a;
    P_(j_add_terms)(&a, p, q);
    if (K_(is_zero)(&a.h)) {
        if (K_(is_zero)(&a.rr)) {
            P_(j_dbl)(r, p);
        } else {
            P_(j_set_inf)(r);
        }
        return;
    }
    P_(j_add_general)(r, p, q, &a);
}

/* add-2007-bl as j_add_var, complete and constant time: the general
 * formula, the doubling and the special cases are all computed and the
 * answer is picked by masks. For P = -Q (H = 0, r ≠ 0) the formula's Z3 =
 * (…)·H is 0 already; X3 and Y3 are zeroed too, infinity's canonical form.
 * 11M + 5S + a doubling (2M + 5S): used for the prover's terms in r and s,
 * where P = ±Q or infinity arises only with negligible probability but the
 * code must not branch on it. */
static inline void P_(j_add)(PJ *r, const PJ *p, const PJ *q) {
    PJ sum, dbl, zero;
    P_(add_terms) a;
    P_(j_add_terms)(&a, p, q);
    uint64_t h_zero = P_(fe_zero_mask)(&a.h), r_zero = P_(fe_zero_mask)(&a.rr);
    uint64_t p_inf = P_(fe_zero_mask)(&p->z), q_inf = P_(fe_zero_mask)(&q->z);
    P_(j_add_general)(&sum, p, q, &a);
    P_(j_dbl)(&dbl, p);
    P_(j_set_inf)(&zero);
    P_(j_cmov)(&sum, &dbl, h_zero & r_zero);   /* P = Q */
    P_(j_cmov)(&sum, &zero, h_zero & ~r_zero); /* P = -Q */
    P_(j_cmov)(&sum, q, p_inf);                /* O + Q (last two win) */
    P_(j_cmov)(&sum, p, q_inf);                /* P + O */
    *r = sum;
}

/* (X : Y : Z) -> (X/Z², Y/Z³), constant time: the inversion is Fermat's
 * (field inv, a fixed chain) and maps Z = 0 to 0, so infinity comes out as
 * (0, 0) with no test. */
static inline void P_(j_to_affine)(ZP_P *r, const PJ *p) {
    FT zi, zi2, zi3;
    K_(inv)(&zi, &p->z);
    K_(sqr)(&zi2, &zi);
    K_(mul)(&zi3, &zi2, &zi);
    K_(mul)(&r->x, &p->x, &zi2);
    K_(mul)(&r->y, &p->y, &zi3);
}

/* out[i] = in[i] in affine form for all i, with one inversion (Montgomery's
 * trick over the Z coordinates). scratch holds 2n field elements. Variable
 * time (it skips the points at infinity). */
static inline void P_(j_batch_to_affine_var)(ZP_P *out, const PJ *in, size_t n, FT *scratch) {
    FT *zinv = scratch, *tmp = scratch + n;
    for (size_t i = 0; i < n; i++) zinv[i] = in[i].z;
    K_(batch_inv_var)(zinv, zinv, n, tmp);
    for (size_t i = 0; i < n; i++) {
        if (K_(is_zero)(&zinv[i])) {
            P_(set_inf)(&out[i]);
            continue;
        }
        FT zi2, zi3;
        K_(sqr)(&zi2, &zinv[i]);
        K_(mul)(&zi3, &zi2, &zinv[i]);
        K_(mul)(&out[i].x, &in[i].x, &zi2);
        K_(mul)(&out[i].y, &in[i].y, &zi3);
    }
}

/* p == q, with the Z's multiplied out instead of inverted: X1·Z2² =
 * X2·Z1² and Y1·Z2³ = Y2·Z1³ (variable time: for public points; the
 * subgroup tests compare this way). */
static inline int P_(j_eq_var)(const PJ *p, const PJ *q) {
    int p_inf = P_(j_is_inf)(p), q_inf = P_(j_is_inf)(q);
    if (p_inf || q_inf) return p_inf && q_inf;
    FT pz2, qz2, a, b;
    K_(sqr)(&pz2, &p->z);
    K_(sqr)(&qz2, &q->z);
    K_(mul)(&a, &p->x, &qz2);
    K_(mul)(&b, &q->x, &pz2);
    if (!K_(eq_var)(&a, &b)) return 0;
    K_(mul)(&pz2, &pz2, &p->z);
    K_(mul)(&qz2, &qz2, &q->z);
    K_(mul)(&a, &p->y, &qz2);
    K_(mul)(&b, &q->y, &pz2);
    return K_(eq_var)(&a, &b);
}

/* r = k·p, k a plain integer of klen limbs, in constant time (the prover
 * multiplies by its secrets r and s, and by points that depend on them):
 * 4-bit fixed windows, T[d] = d·p for d < 16, and per window four
 * doublings and one complete addition of T[digit], the entry read by a
 * masked scan of all 16 so that neither a branch nor an address depends on
 * k. About 64 · (5 doublings + 1 addition) for 256 bits, against 256 · (1 +
 * 1) for double-and-add. */
static inline void P_(j_mul)(PJ *r, const PJ *p, const uint64_t *k, size_t klen) {
    PJ table[16], acc, pick;
    P_(j_set_inf)(&table[0]);
    table[1] = *p;
    for (int d = 2; d < 16; d++) P_(j_add)(&table[d], &table[d - 1], p);
    P_(j_set_inf)(&acc);
    for (size_t nib = klen * 16; nib-- > 0;) {
        for (int b = 0; b < 4; b++) P_(j_dbl)(&acc, &acc);
        uint64_t digit = (k[nib / 16] >> (4 * (nib % 16))) & 15;
        P_(j_set_inf)(&pick);
        for (uint64_t d = 0; d < 16; d++) {
            uint64_t x = d ^ digit;
            P_(j_cmov)(&pick, &table[d], zp_point_zero_mask(&x, 1));
        }
        P_(j_add)(&acc, &acc, &pick);
    }
    *r = acc;
}

/* r = k·p by double-and-add, skipping the additions of zero bits
 * (variable time: for public scalars, such as the subgroup check's). */
static inline void P_(j_mul_var)(PJ *r, const PJ *p, const uint64_t *k, size_t klen) {
    PJ acc;
    P_(j_set_inf)(&acc);
    for (size_t i = klen * 64; i-- > 0;) {
        P_(j_dbl)(&acc, &acc);
        if ((k[i / 64] >> (i % 64)) & 1) P_(j_add_var)(&acc, &acc, p);
    }
    *r = acc;
}

/* Subgroup membership by its definition: r·p == infinity, r the scalar
 * field's modulus. curve/subgroup.h has the fast tests that the readers
 * use (is_in_subgroup_var); this is the reference they are tested
 * against. Variable time: for public points. */
static inline int P_(is_in_subgroup_ref_var)(const ZP_P *p) {
    PJ j, t;
    P_(j_from_affine)(&j, p);
    P_(j_mul_var)(&t, &j, ZP_CAT(ZP_P_SCALAR, _modulus).v, 4);
    return P_(j_is_inf)(&t);
}

/* XYZZ doubling, dbl-2008-s-1: 6M + 3S; ZZ = 0 (infinity) stays 0. */
static inline void P_(xyzz_dbl)(PX *r, const PX *p) {
    FT u, v, w, s, m, t;
    K_(dbl)(&u, &p->y);
    K_(sqr)(&v, &u);
    K_(mul)(&w, &u, &v);
    K_(mul)(&s, &p->x, &v);
    K_(sqr)(&m, &p->x);
    K_(dbl)(&t, &m);
    K_(add)(&m, &m, &t); /* M = 3X² */
    K_(mul)(&r->zz, &v, &p->zz);
    K_(mul)(&r->zzz, &w, &p->zzz);
    K_(mul)(&w, &w, &p->y);
    K_(sqr)(&t, &m);
    K_(sub)(&t, &t, &s);
    K_(sub)(&r->x, &t, &s); /* X3 = M² - 2S */
    K_(sub)(&t, &s, &r->x);
    K_(mul)(&t, &m, &t);
    K_(sub)(&r->y, &t, &w); /* Y3 = M(S - X3) - W·Y1 */
}

/* XYZZ + affine, madd-2008-s: 8M + 2S; all special cases handled by
 * branches (variable time: the MSM's buckets). */
static inline void P_(xyzz_add_affine_var)(PX *r, const PX *p, const ZP_P *q) {
    if (P_(is_inf)(q)) {
        *r = *p;
        return;
    }
    if (P_(xyzz_is_inf)(p)) {
        r->x = q->x;
        r->y = q->y;
        K_(set_one)(&r->zz);
        K_(set_one)(&r->zzz);
        return;
    }
    FT u2, s2, pp, ppp, rr, q1, y1ppp, t;
    K_(mul)(&u2, &q->x, &p->zz);
    K_(mul)(&s2, &q->y, &p->zzz);
    K_(sub)(&u2, &u2, &p->x); /* P = U2 - X1 */
    K_(sub)(&rr, &s2, &p->y); /* R = S2 - Y1 */
    if (K_(is_zero)(&u2)) {
        if (K_(is_zero)(&rr)) {
            P_(xyzz_dbl)(r, p);
        } else {
            P_(xyzz_set_inf)(r);
        }
        return;
    }
    K_(sqr)(&pp, &u2);
    K_(mul)(&ppp, &pp, &u2);
    K_(mul)(&q1, &p->x, &pp); /* Q = X1·PP */
    K_(mul)(&y1ppp, &p->y, &ppp);
    K_(mul)(&r->zz, &p->zz, &pp);
    K_(mul)(&r->zzz, &p->zzz, &ppp);
    K_(sqr)(&t, &rr);
    K_(sub)(&t, &t, &ppp);
    K_(sub)(&t, &t, &q1);
    K_(sub)(&r->x, &t, &q1); /* X3 = R² - PPP - 2Q */
    K_(sub)(&t, &q1, &r->x);
    K_(mul)(&t, &rr, &t);
    K_(sub)(&r->y, &t, &y1ppp); /* Y3 = R(Q - X3) - Y1·PPP */
}

/* XYZZ + XYZZ, add-2008-s: 12M + 2S; special cases by branches (variable
 * time). */
static inline void P_(xyzz_add_var)(PX *r, const PX *p, const PX *q) {
    if (P_(xyzz_is_inf)(q)) {
        *r = *p;
        return;
    }
    if (P_(xyzz_is_inf)(p)) {
        *r = *q;
        return;
    }
    FT u1, u2, s1, s2, pd, rr, pp, ppp, q1, t;
    K_(mul)(&u1, &p->x, &q->zz);
    K_(mul)(&u2, &q->x, &p->zz);
    K_(mul)(&s1, &p->y, &q->zzz);
    K_(mul)(&s2, &q->y, &p->zzz);
    K_(sub)(&pd, &u2, &u1);
    K_(sub)(&rr, &s2, &s1);
    if (K_(is_zero)(&pd)) {
        if (K_(is_zero)(&rr)) {
            P_(xyzz_dbl)(r, p);
        } else {
            P_(xyzz_set_inf)(r);
        }
        return;
    }
    K_(sqr)(&pp, &pd);
    K_(mul)(&ppp, &pp, &pd);
    K_(mul)(&q1, &u1, &pp);
    K_(mul)(&r->zz, &p->zz, &q->zz);
    K_(mul)(&r->zz, &r->zz, &pp);
    K_(mul)(&r->zzz, &p->zzz, &q->zzz);
    K_(mul)(&r->zzz, &r->zzz, &ppp);
    K_(sqr)(&t, &rr);
    K_(sub)(&t, &t, &ppp);
    K_(sub)(&t, &t, &q1);
    K_(sub)(&r->x, &t, &q1); /* X3 = R² - PPP - 2Q */
    K_(mul)(&s1, &s1, &ppp);
    K_(sub)(&t, &q1, &r->x);
    K_(mul)(&t, &rr, &t);
    K_(sub)(&r->y, &t, &s1); /* Y3 = R(Q - X3) - S1·PPP */
}

/* To Jacobian without an inversion: any Z works, and Z = ZZ·ZZZ gives
 * X = x·Z² = X·ZZ·ZZZ², Y = y·Z³ = Y·ZZ³·ZZZ². Infinity (ZZ = 0) gives
 * Z = 0, and X, Y are masked to 0 (its canonical form). */
static inline void P_(xyzz_to_j)(PJ *r, const PX *p) {
    uint64_t inf = P_(fe_zero_mask)(&p->zz);
    PJ zero;
    FT zzz2, zz2, t;
    K_(mul)(&r->z, &p->zzz, &p->zz);
    K_(sqr)(&zzz2, &p->zzz);
    K_(mul)(&t, &p->x, &p->zz);
    K_(mul)(&r->x, &t, &zzz2);
    K_(sqr)(&zz2, &p->zz);
    K_(mul)(&t, &zz2, &p->zz);
    K_(mul)(&t, &t, &zzz2);
    K_(mul)(&r->y, &p->y, &t);
    P_(j_set_inf)(&zero);
    P_(j_cmov)(r, &zero, inf);
}

#undef P_
#undef K_
#undef FT
#undef PJ
#undef PX
#undef FT_LIMBS
#undef ZP_P
#undef ZP_P_F
#undef ZP_P_B
#undef ZP_P_GEN
#undef ZP_P_SCALAR
