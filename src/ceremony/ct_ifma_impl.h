/* One instance of ct_lanes.h's kernels (the multiplication, the subgroup
 * checks), included by ct_ifma.c with
 * IFMA_NL and IFMA_NW (the base field's 52-bit limbs and 64-bit words, as
 * for field/ifma_impl.h) and CT_EXT (1: G1, coordinates in the base
 * field; 2: G2, in Fp[u]/(u² + 1)). */
#if IFMA_NW == 4 && CT_EXT == 1
#define CT_W 4
#elif IFMA_NW == 4
#define CT_W 8
#elif CT_EXT == 1
#define CT_W 6
#else
#define CT_W 12
#endif
#define CL_(name) ZP_VCAT(ZP_VCAT(zp_ct_lanes, CT_W), _##name)
#define B_(name) ZP_VCAT(ZP_VCAT(zp_v, IFMA_NL), _##name)
#define BT ZP_VCAT(zp_v, IFMA_NL)
#define BC ZP_VCAT(ZP_VCAT(zp_v, IFMA_NL), _field)

/* a coordinate: CT_EXT base-field elements of eight lanes */
typedef struct {
    BT c[CT_EXT];
} CL_(fe);

/* projective (X : Y : Z), x = X/Z, y = Y/Z; infinity (0 : 1 : 0) */
typedef struct {
    CL_(fe) x, y, z;
} CL_(pt);

typedef struct {
    BC c;
    CL_(fe) b3, ex, ey, one, zero;
    int conj;
} CL_(ctx);

/* the scalar code's Montgomery product and sums, canonical in and out;
 * in the extension c0 = a0·b0 + a1·(p - b1), c1 = a0·b1 + a1·b0, a pair
 * of products under one reduction each (as msm_ifma_impl.h's mul) */
VI void CL_(fe_mul)(CL_(fe) * r, const CL_(fe) * a, const CL_(fe) * b, const CL_(ctx) * k) {
#if CT_EXT == 1
    B_(mul_r)(&r->c[0], &a->c[0], &b->c[0], &k->c);
#else
    BT as0, as1, nb1, c0, c1;
    B_(shift_r)(&as0, &a->c[0], &k->c);
    B_(shift_r)(&as1, &a->c[1], &k->c);
    B_(sub_p)(&nb1, &k->zero.c[0], &b->c[1], &k->c);
    B_(mul2_r)(&c0, &as0, &b->c[0], &as1, &nb1, &k->c);
    B_(mul2_r)(&c1, &as0, &b->c[1], &as1, &b->c[0], &k->c);
    r->c[0] = c0;
    r->c[1] = c1;
#endif
}
/* r = a²; in the extension (a0 + a1)(a0 - a1) + 2·a0·a1·u: two products */
VI void CL_(fe_sqr)(CL_(fe) * r, const CL_(fe) * a, const CL_(ctx) * k) {
#if CT_EXT == 1
    CL_(fe_mul)(r, a, a, k);
#else
    BT s, d, a2;
    B_(add_4p)(&s, &a->c[0], &a->c[1], &k->c); /* below 2p: mul_r takes it */
    B_(sub)(&d, &a->c[0], &a->c[1], &k->c);
    B_(add_4p)(&a2, &a->c[0], &a->c[0], &k->c);
    B_(mul_r)(&r->c[0], &s, &d, &k->c);
    B_(mul_r)(&r->c[1], &a2, &a->c[1], &k->c);
#endif
}
VI void CL_(fe_add)(CL_(fe) * r, const CL_(fe) * a, const CL_(fe) * b, const CL_(ctx) * k) {
    for (int i = 0; i < CT_EXT; i++) B_(add)(&r->c[i], &a->c[i], &b->c[i], &k->c);
}
VI void CL_(fe_sub)(CL_(fe) * r, const CL_(fe) * a, const CL_(fe) * b, const CL_(ctx) * k) {
    for (int i = 0; i < CT_EXT; i++) B_(sub)(&r->c[i], &a->c[i], &b->c[i], &k->c);
}
/* a + b and a - b for a value that only goes into fe_mul: in G1 left in
 * [0, 2p) with one carry pass (add_4p, sub_p: mul_r takes operands below
 * 2p); canonical in G2 (mul2_r wants them at most p). a, b canonical. */
VI void CL_(fe_add_m)(CL_(fe) * r, const CL_(fe) * a, const CL_(fe) * b, const CL_(ctx) * k) {
#if CT_EXT == 1
    B_(add_4p)(&r->c[0], &a->c[0], &b->c[0], &k->c);
#else
    CL_(fe_add)(r, a, b, k);
#endif
}
VI void CL_(fe_sub_m)(CL_(fe) * r, const CL_(fe) * a, const CL_(fe) * b, const CL_(ctx) * k) {
#if CT_EXT == 1
    B_(sub_p)(&r->c[0], &a->c[0], &b->c[0], &k->c);
#else
    CL_(fe_sub)(r, a, b, k);
#endif
}

/* r = 2p, complete (RCB algorithm 9, a = 0): 6M + 2S + one product by 3b */
static void CL_(dbl)(CL_(pt) * r, const CL_(pt) * p, const CL_(ctx) * k) {
    CL_(fe) t0, t1, t2, x3, y3, z3;
    CL_(fe_sqr)(&t0, &p->y, k);
    CL_(fe_add)(&z3, &t0, &t0, k);
    CL_(fe_add)(&z3, &z3, &z3, k);
    CL_(fe_add_m)(&z3, &z3, &z3, k);
    CL_(fe_mul)(&t1, &p->y, &p->z, k);
    CL_(fe_sqr)(&t2, &p->z, k);
    CL_(fe_mul)(&t2, &k->b3, &t2, k);
    CL_(fe_mul)(&x3, &t2, &z3, k);
    CL_(fe_add_m)(&y3, &t0, &t2, k);
    CL_(fe_mul)(&z3, &t1, &z3, k);
    CL_(fe_add)(&t1, &t2, &t2, k);
    CL_(fe_add)(&t2, &t1, &t2, k);
    CL_(fe_sub_m)(&t0, &t0, &t2, k);
    CL_(fe_mul)(&y3, &t0, &y3, k);
    CL_(fe_add)(&y3, &x3, &y3, k);
    CL_(fe_mul)(&t1, &p->x, &p->y, k);
    CL_(fe_mul)(&x3, &t0, &t1, k);
    CL_(fe_add)(&x3, &x3, &x3, k);
    r->x = x3, r->y = y3, r->z = z3;
}

/* r = p + q, complete (RCB algorithm 7, a = 0): 12M + two products by 3b;
 * r may alias p or q. The sums that only go into products are _m. */
static void CL_(addp)(CL_(pt) * r, const CL_(pt) * p, const CL_(pt) * q, const CL_(ctx) * k) {
    CL_(fe) t0, t1, t2, t3, t4, x3, y3, z3;
    CL_(fe_mul)(&t0, &p->x, &q->x, k);
    CL_(fe_mul)(&t1, &p->y, &q->y, k);
    CL_(fe_mul)(&t2, &p->z, &q->z, k);
    CL_(fe_add_m)(&t3, &p->x, &p->y, k);
    CL_(fe_add_m)(&t4, &q->x, &q->y, k);
    CL_(fe_mul)(&t3, &t3, &t4, k);
    CL_(fe_add)(&t4, &t0, &t1, k);
    CL_(fe_sub_m)(&t3, &t3, &t4, k);
    CL_(fe_add_m)(&t4, &p->y, &p->z, k);
    CL_(fe_add_m)(&x3, &q->y, &q->z, k);
    CL_(fe_mul)(&t4, &t4, &x3, k);
    CL_(fe_add)(&x3, &t1, &t2, k);
    CL_(fe_sub_m)(&t4, &t4, &x3, k);
    CL_(fe_add_m)(&x3, &p->x, &p->z, k);
    CL_(fe_add_m)(&y3, &q->x, &q->z, k);
    CL_(fe_mul)(&x3, &x3, &y3, k);
    CL_(fe_add)(&y3, &t0, &t2, k);
    CL_(fe_sub_m)(&y3, &x3, &y3, k);
    CL_(fe_add)(&x3, &t0, &t0, k);
    CL_(fe_add_m)(&t0, &x3, &t0, k);
    CL_(fe_mul)(&t2, &k->b3, &t2, k);
    CL_(fe_add_m)(&z3, &t1, &t2, k);
    CL_(fe_sub_m)(&t1, &t1, &t2, k);
    CL_(fe_mul)(&y3, &k->b3, &y3, k);
    CL_(fe_mul)(&x3, &t4, &y3, k);
    CL_(fe_mul)(&t2, &t3, &t1, k);
    CL_(fe_sub)(&x3, &t2, &x3, k);
    CL_(fe_mul)(&y3, &y3, &t0, k);
    CL_(fe_mul)(&t1, &t1, &z3, k);
    CL_(fe_add)(&y3, &t1, &y3, k);
    CL_(fe_mul)(&t0, &t0, &t3, k);
    CL_(fe_mul)(&z3, &z3, &t4, k);
    CL_(fe_add)(&z3, &z3, &t0, k);
    r->x = x3, r->y = y3, r->z = z3;
}

VI void CL_(blend_elem)(CL_(fe) * r, __mmask8 m, const CL_(fe) * a) {
    for (int i = 0; i < CT_EXT; i++)
        for (int j = 0; j < IFMA_NL; j++) r->c[i].l[j] = _mm512_mask_mov_epi64(r->c[i].l[j], m, a->c[i].l[j]);
}
VI void CL_(blend)(CL_(pt) * r, __mmask8 m, const CL_(pt) * a) {
    CL_(blend_elem)(&r->x, m, &a->x);
    CL_(blend_elem)(&r->y, m, &a->y);
    CL_(blend_elem)(&r->z, m, &a->z);
}

/* r = t[abs - 1] in each lane (infinity for abs 0), negated where neg:
 * all eight entries read and blended under masks */
VI void CL_(pick)(CL_(pt) * r, const CL_(pt) t[8], __m512i abs, __m512i neg, const CL_(ctx) * k) {
    r->x = k->zero, r->y = k->one, r->z = k->zero;
    for (int j = 0; j < 8; j++) {
        __mmask8 m = _mm512_cmpeq_epi64_mask(abs, _mm512_set1_epi64(j + 1));
        CL_(blend)(r, m, &t[j]);
    }
    CL_(fe) ny;
    CL_(fe_sub)(&ny, &k->zero, &r->y, k);
    CL_(blend_elem)(&r->y, _mm512_test_epi64_mask(neg, neg), &ny);
}

/* a coordinate at word off of each lane's point, and a constant in every lane */
static void CL_(load_elem)(CL_(fe) * r, const uint64_t *const e[8], size_t off) {
    for (int i = 0; i < CT_EXT; i++) {
        const uint64_t *p[8];
        for (int l = 0; l < 8; l++) p[l] = e[l] + off + (size_t)i * IFMA_NW;
        B_(load8)(&r->c[i], p);
    }
}
static void CL_(load_const)(CL_(fe) * r, const uint64_t *v) {
    const uint64_t *const p[8] = {v, v, v, v, v, v, v, v};
    CL_(load_elem)(r, p, 0);
}
static void CL_(store_elem)(uint64_t *out, size_t off, const CL_(fe) * a) {
    for (int i = 0; i < CT_EXT; i++) {
        uint64_t *o[8];
        for (int l = 0; l < 8; l++) o[l] = out + 3 * CT_W * (size_t)l + off + (size_t)i * IFMA_NW;
        B_(store8)(o, &a->c[i], 0xff);
    }
}

/* E(X : Y : Z) = (ex·X̄ : ey·Ȳ : Z̄), the bar the conjugation where conj */
static void CL_(endo)(CL_(pt) * r, const CL_(pt) * p, const CL_(ctx) * k) {
    *r = *p;
#if CT_EXT == 2
    if (k->conj) {
        B_(sub)(&r->x.c[1], &k->zero.c[0], &p->x.c[1], &k->c);
        B_(sub)(&r->y.c[1], &k->zero.c[0], &p->y.c[1], &k->c);
        B_(sub)(&r->z.c[1], &k->zero.c[0], &p->z.c[1], &k->c);
    }
#endif
    CL_(fe_mul)(&r->x, &r->x, &k->ex, k);
    CL_(fe_mul)(&r->y, &r->y, &k->ey, k);
}

static void CL_(ctx_init)(CL_(ctx) * k, const zp_ct_lanes_curve *c) {
    B_(field_load)(&k->c, &c->f);
    CL_(load_const)(&k->b3, c->b3);
    CL_(load_const)(&k->ex, c->ex);
    CL_(load_const)(&k->ey, c->ey);
    CL_(load_const)(&k->one, c->one);
    for (int i = 0; i < CT_EXT; i++)
        for (int j = 0; j < IFMA_NL; j++) k->zero.c[i].l[j] = _mm512_setzero_si512();
    k->conj = c->conj;
}

/* the lanes where a is zero */
VI __mmask8 CL_(fe_zero_mask)(const CL_(fe) * a) {
    __m512i any = _mm512_setzero_si512();
    for (int i = 0; i < CT_EXT; i++)
        for (int j = 0; j < IFMA_NL; j++) any = _mm512_or_si512(any, a->c[i].l[j]);
    return _mm512_testn_epi64_mask(any, any);
}

/* the lanes' affine points, infinity (all zero) as (0 : 1 : 0) */
static void CL_(load_point)(CL_(pt) * p, const uint64_t *const in[8], const CL_(ctx) * k) {
    CL_(load_elem)(&p->x, in, 0);
    CL_(load_elem)(&p->y, in, CT_W);
    __mmask8 inf = CL_(fe_zero_mask)(&p->x) & CL_(fe_zero_mask)(&p->y);
    p->z = k->one;
    CL_(blend_elem)(&p->z, inf, &k->zero);
    CL_(blend_elem)(&p->y, inf, &k->one);
}

/* half h's digit i of each lane's scalar: |digit| (abs) or its sign mask
 * (neg) */
VI __m512i CL_(digits)(const zp_p2_ct_scalar *const s[8], int h, int i, int neg) {
    uint64_t d[8];
    for (int l = 0; l < 8; l++) d[l] = neg ? s[l]->half[h].neg[i] : s[l]->half[h].abs[i];
    __m512i v = _mm512_loadu_si512(d);
    explicit_bzero(d, sizeof d);
    return v;
}

/* t[0][d - 1] = d·P, t[1][d - 1] = E(d·P) = d·E(P) (E public) */
static void CL_(tables)(CL_(pt) t[2][8], const CL_(pt) * p, const CL_(ctx) * k) {
    t[0][0] = *p;
    CL_(dbl)(&t[0][1], p, k);
    for (int i = 2; i < 8; i++) CL_(addp)(&t[0][i], &t[0][i - 1], p, k);
    for (int i = 0; i < 8; i++) CL_(endo)(&t[1][i], &t[0][i], k);
}

/* out = Σ_j s[j][l]·P_j in each lane l (the lanes' Jacobian points, as
 * mul's) for the n points whose tables are t[j], their doublings shared
 * (Straus), from window digits - 1 down (ZP_P2_CT_DIGITS: every window).
 * pub (public scalars only: variable time in them) skips a half's
 * addition where every lane's digit is 0; the leading windows a caller
 * leaves out are those where every digit is 0, so the point is the same
 * either way (the projective form may differ; the caller's affine one
 * does not). */
static void CL_(sum_points)(uint64_t *out, CL_(pt) (*t)[2][8], const zp_p2_ct_scalar *const (*s)[8], size_t n,
                            int digits, int pub, const CL_(ctx) * k) {
    CL_(pt) acc, pick;
    acc.x = k->zero, acc.y = k->one, acc.z = k->zero;
    for (int i = digits - 1; i >= 0; i--) {
        if (i < digits - 1)
            for (int b = 0; b < 4; b++) CL_(dbl)(&acc, &acc, k);
        for (size_t j = 0; j < n; j++)
            for (int h = 0; h < 2; h++) {
                __m512i abs = CL_(digits)(s[j], h, i, 0), neg = CL_(digits)(s[j], h, i, 1);
                if (pub && _mm512_test_epi64_mask(abs, abs) == 0) continue;
                CL_(pick)(&pick, t[j][h], abs, neg, k);
                CL_(addp)(&acc, &acc, &pick, k);
            }
    }

    /* (X : Y : Z) -> Jacobian (X·Z, Y·Z², Z): the same point, which the
     * caller's ct_to_affine takes */
    CL_(fe) jx, jy, zz;
    CL_(fe_mul)(&jx, &acc.x, &acc.z, k);
    CL_(fe_sqr)(&zz, &acc.z, k);
    CL_(fe_mul)(&jy, &acc.y, &zz, k);
    CL_(store_elem)(out, 0, &jx);
    CL_(store_elem)(out, CT_W, &jy);
    CL_(store_elem)(out, 2 * CT_W, &acc.z);
    explicit_bzero(&acc, sizeof acc);
    explicit_bzero(&pick, sizeof pick);
    explicit_bzero(&jx, sizeof jx);
    explicit_bzero(&jy, sizeof jy);
    explicit_bzero(&zz, sizeof zz);
}

/* out = s[l]·p in each lane l, in constant time in s: sum_points of one
 * point over every window */
static void CL_(mul_point)(uint64_t *out, const CL_(pt) * p, const zp_p2_ct_scalar *const s[8], const CL_(ctx) * k) {
    CL_(pt) t[1][2][8];
    CL_(tables)(t[0], p, k);
    const zp_p2_ct_scalar *const(*ss)[8] = (const zp_p2_ct_scalar *const(*)[8])s;
    CL_(sum_points)(out, t, ss, 1, ZP_P2_CT_DIGITS, 0, k);
}

/* the number of windows up to the highest nonzero digit of n terms' eight
 * lanes (at least 1) */
static int CL_(pub_digits)(const zp_p2_ct_scalar *const (*s)[8], size_t n) {
    int digits = 1;
    for (size_t j = 0; j < n; j++)
        for (int l = 0; l < 8; l++)
            for (int h = 0; h < 2; h++)
                for (int i = ZP_P2_CT_DIGITS - 1; i >= digits; i--)
                    if (s[j][l]->half[h].abs[i] != 0) {
                        digits = i + 1;
                        break;
                    }
    return digits;
}

static void CL_(mul)(uint64_t *out, const uint64_t *const in[8], const zp_p2_ct_scalar *const s[8],
                     const zp_ct_lanes_curve *c) {
    CL_(ctx) k;
    CL_(ctx_init)(&k, c);
    CL_(pt) p;
    CL_(load_point)(&p, in, &k);
    CL_(mul_point)(out, &p, s, &k);
}

/* sum_pub (ct_lanes.h): n <= ZP_CT_LANES_TERMS public products a lane,
 * summed with their doublings shared */
static void CL_(sum_pub)(uint64_t *out, const uint64_t *const in[][8], const zp_p2_ct_scalar *const s[][8], size_t n,
                         const zp_ct_lanes_curve *c) {
    CL_(ctx) k;
    CL_(ctx_init)(&k, c);
    CL_(pt) t[ZP_CT_LANES_TERMS][2][8];
    for (size_t j = 0; j < n; j++) {
        CL_(pt) p;
        CL_(load_point)(&p, in[j], &k);
        CL_(tables)(t[j], &p, &k);
    }
    CL_(sum_points)(out, t, s, n, CL_(pub_digits)(s, n), 1, &k);
}

/* Jacobian (X, Y, Z) in: projective (X·Z : Y : Z³), the same point;
 * infinity (Z = 0) with Y set to 1 */
static void CL_(mul_j)(uint64_t *out, const uint64_t *const in[8], const zp_p2_ct_scalar *const s[8],
                       const zp_ct_lanes_curve *c) {
    CL_(ctx) k;
    CL_(ctx_init)(&k, c);
    CL_(pt) p;
    CL_(fe) x, z, zz;
    CL_(load_elem)(&x, in, 0);
    CL_(load_elem)(&p.y, in, CT_W);
    CL_(load_elem)(&z, in, 2 * CT_W);
    CL_(fe_mul)(&p.x, &x, &z, &k);
    CL_(fe_sqr)(&zz, &z, &k);
    CL_(fe_mul)(&p.z, &z, &zz, &k);
    CL_(blend_elem)(&p.y, CL_(fe_zero_mask)(&z), &k.one);
    CL_(mul_point)(out, &p, s, &k);
}

/* ---- subgroup membership (curve/subgroup.h's tests; public points:
 * variable time in the points' count only, the same steps in every lane)
 *
 * In Jacobian coordinates (x = X/Z², y = Y/Z³; Z = 0: infinity), not the
 * complete projective ones: a doubling costs 7 products where RCB's costs
 * 9, and the tests are nearly all doublings (126 a BLS12-381 G1 point).
 * The additions are not complete: where an operand is infinity or the
 * two have the same x (P ± P), the lane is marked unsure and the caller
 * tests its point on the scalar path, which handles every case. A point
 * of the group never gets there (its multiples [m]P, m < 2^64, are
 * neither infinity nor ±P); one with a component of small order may. */

/* Out-of-line products for the tests' rare steps (an addition is 10 of a
 * BLS12-381 G1 test's 136 operations, the comparison one): inlined, each
 * copy of a product is kilobytes of code, and the binary grew by half a
 * megabyte; the call costs nothing next to the product. */
static __attribute__((noinline)) void CL_(fe_mul_n)(CL_(fe) * r, const CL_(fe) * a, const CL_(fe) * b,
                                                    const CL_(ctx) * k) {
    CL_(fe_mul)(r, a, b, k);
}
static __attribute__((noinline)) void CL_(fe_sqr_n)(CL_(fe) * r, const CL_(fe) * a, const CL_(ctx) * k) {
    CL_(fe_sqr)(r, a, k);
}

/* r = 2p, dbl-2009-l for a = 0: 2M + 5S; no point of these curves has
 * order 2, and infinity doubles to infinity (Z3 = 2·Y·Z). r may alias p. */
static void CL_(jdbl)(CL_(pt) * r, const CL_(pt) * p, const CL_(ctx) * k) {
    CL_(fe) a, b, c, d, e, f, yz;
    CL_(fe_sqr)(&a, &p->x, k);
    CL_(fe_sqr)(&b, &p->y, k);
    CL_(fe_sqr)(&c, &b, k);
    CL_(fe_add_m)(&d, &p->x, &b, k);
    CL_(fe_sqr)(&d, &d, k);
    CL_(fe_sub)(&d, &d, &a, k);
    CL_(fe_sub)(&d, &d, &c, k);
    CL_(fe_add)(&d, &d, &d, k); /* D = 2((X + B)² - A - C) */
    CL_(fe_add)(&e, &a, &a, k);
    CL_(fe_add)(&e, &e, &a, k); /* E = 3A */
    CL_(fe_sqr)(&f, &e, k);
    CL_(fe_mul)(&yz, &p->y, &p->z, k);
    CL_(fe_sub)(&r->x, &f, &d, k);
    CL_(fe_sub)(&r->x, &r->x, &d, k); /* X3 = F - 2D */
    CL_(fe_sub)(&f, &d, &r->x, k);
    CL_(fe_mul)(&f, &e, &f, k);
    CL_(fe_add)(&c, &c, &c, k);
    CL_(fe_add)(&c, &c, &c, k);
    CL_(fe_add)(&c, &c, &c, k);
    CL_(fe_sub)(&r->y, &f, &c, k); /* Y3 = E(D - X3) - 8C */
    CL_(fe_add)(&r->z, &yz, &yz, k);
}

/* r = p + q, add-2007-bl: 11M + 5S. The lanes where it does not hold
 * (an operand infinity, or the same x: H = 0) are returned; r there is
 * meaningless. r may alias p or q. */
static __mmask8 CL_(jadd)(CL_(pt) * r, const CL_(pt) * p, const CL_(pt) * q, const CL_(ctx) * k) {
    CL_(fe) z1z1, z2z2, u1, u2, s1, s2, h, i, j, rr, v, t;
    CL_(fe_sqr_n)(&z1z1, &p->z, k);
    CL_(fe_sqr_n)(&z2z2, &q->z, k);
    CL_(fe_mul_n)(&u1, &p->x, &z2z2, k);
    CL_(fe_mul_n)(&u2, &q->x, &z1z1, k);
    CL_(fe_mul_n)(&s1, &q->z, &z2z2, k);
    CL_(fe_mul_n)(&s1, &p->y, &s1, k);
    CL_(fe_mul_n)(&s2, &p->z, &z1z1, k);
    CL_(fe_mul_n)(&s2, &q->y, &s2, k);
    CL_(fe_sub)(&h, &u2, &u1, k);
    __mmask8 bad = CL_(fe_zero_mask)(&h) | CL_(fe_zero_mask)(&p->z) | CL_(fe_zero_mask)(&q->z);
    CL_(fe_add)(&i, &h, &h, k);
    CL_(fe_sqr_n)(&i, &i, k); /* I = (2H)² */
    CL_(fe_mul_n)(&j, &h, &i, k);
    CL_(fe_sub)(&rr, &s2, &s1, k);
    CL_(fe_add)(&rr, &rr, &rr, k);
    CL_(fe_mul_n)(&v, &u1, &i, k);
    CL_(fe_add_m)(&t, &p->z, &q->z, k);
    CL_(fe_sqr_n)(&t, &t, k);
    CL_(fe_sub)(&t, &t, &z1z1, k);
    CL_(fe_sub)(&t, &t, &z2z2, k);
    CL_(fe_mul_n)(&r->z, &t, &h, k); /* Z3 = ((Z1 + Z2)² - Z1Z1 - Z2Z2)·H */
    CL_(fe_sqr_n)(&t, &rr, k);
    CL_(fe_sub)(&t, &t, &j, k);
    CL_(fe_sub)(&t, &t, &v, k);
    CL_(fe_sub)(&r->x, &t, &v, k); /* X3 = rr² - J - 2V */
    CL_(fe_sub)(&v, &v, &r->x, k);
    CL_(fe_mul_n)(&v, &rr, &v, k);
    CL_(fe_mul_n)(&s1, &s1, &j, k);
    CL_(fe_add)(&s1, &s1, &s1, k);
    CL_(fe_sub)(&r->y, &v, &s1, k); /* Y3 = rr(V - X3) - 2·S1·J */
    return bad;
}

/* r = e·p for a public e > 0: double-and-add from e's top bit; the lanes
 * where an addition did not hold are added to *unsure */
static void CL_(jmul_small)(CL_(pt) * r, const CL_(pt) * p, uint64_t e, __mmask8 *unsure, const CL_(ctx) * k) {
    CL_(pt) acc = *p;
    int top = 63 - __builtin_clzll(e);
    for (int i = top - 1; i >= 0; i--) {
        CL_(jdbl)(&acc, &acc, k);
        if ((e >> i) & 1) *unsure |= CL_(jadd)(&acc, &acc, p, k);
    }
    *r = acc;
}

VI __mmask8 CL_(fe_eq)(const CL_(fe) * a, const CL_(fe) * b) {
    __mmask8 m = 0xff;
    for (int i = 0; i < CT_EXT; i++)
        for (int j = 0; j < IFMA_NL; j++) m &= _mm512_cmpeq_epi64_mask(a->c[i].l[j], b->c[i].l[j]);
    return m;
}
/* Jacobian equality: X1·Z2² = X2·Z1² and Y1·Z2³ = Y2·Z1³ for two finite
 * points; infinity equals only infinity */
static __mmask8 CL_(jeq)(const CL_(pt) * p, const CL_(pt) * q, const CL_(ctx) * k) {
    CL_(fe) z1z1, z2z2, a, b, c, d;
    CL_(fe_sqr_n)(&z1z1, &p->z, k);
    CL_(fe_sqr_n)(&z2z2, &q->z, k);
    CL_(fe_mul_n)(&a, &p->x, &z2z2, k);
    CL_(fe_mul_n)(&b, &q->x, &z1z1, k);
    CL_(fe_mul_n)(&z2z2, &z2z2, &q->z, k);
    CL_(fe_mul_n)(&z1z1, &z1z1, &p->z, k);
    CL_(fe_mul_n)(&c, &p->y, &z2z2, k);
    CL_(fe_mul_n)(&d, &q->y, &z1z1, k);
    __mmask8 inf1 = CL_(fe_zero_mask)(&p->z), inf2 = CL_(fe_zero_mask)(&q->z);
    return (__mmask8)((inf1 & inf2) | (~inf1 & ~inf2 & CL_(fe_eq)(&a, &b) & CL_(fe_eq)(&c, &d)));
}

/* The lanes' p finite with E(p) = ±[|x|]p (CT_W 12: BLS12-381's G2 test)
 * or ±[|x|]([|x|]p) (CT_W 6: its G1 test; in *q the [|x|]p on the way),
 * the sign − where neg (the test's E is ψ or φ, mul_checked's −φ):
 * in_subgroup's mask, and *unsure. */
#if CT_W == 6 || CT_W == 12
static unsigned CL_(x_test)(CL_(pt) * q, const CL_(pt) * p, int neg, unsigned *unsure, const CL_(ctx) * k,
                            uint64_t x_abs) {
    CL_(pt) lhs, rhs;
    __mmask8 inf = CL_(fe_zero_mask)(&p->z), bad = 0;
    CL_(endo)(&lhs, p, k);
    CL_(jmul_small)(q, p, x_abs, &bad, k);
#if CT_W == 6
    CL_(jmul_small)(&rhs, q, x_abs, &bad, k);
#else
    rhs = *q;
#endif
    if (neg) CL_(fe_sub)(&rhs.y, &k->zero, &rhs.y, k);
    /* infinity is in the group; an unsure lane is the caller's */
    *unsure = (unsigned)(bad & (__mmask8)~inf);
    return (unsigned)((CL_(jeq)(&lhs, &rhs, k) & (__mmask8)~bad) | inf);
}
#endif

static unsigned CL_(in_subgroup)(const uint64_t *const in[8], const zp_ct_lanes_curve *c, unsigned *unsure) {
#if CT_W == 4
    (void)in, (void)c;
    *unsure = 0;
    return 0xff; /* BN254's G1: cofactor 1 */
#else
    CL_(ctx) k;
    CL_(ctx_init)(&k, c);
    CL_(pt) p;
    CL_(load_point)(&p, in, &k); /* affine (x : y : 1) is Jacobian too */
#if CT_W == 8
    /* BN254 G2: [x+1]P + ψ([x]P) + ψ²([x]P) = ψ³([2x]P) */
    CL_(pt) lhs, rhs, xp, t;
    __mmask8 inf = CL_(fe_zero_mask)(&p.z), bad = 0;
    CL_(jmul_small)(&xp, &p, c->x_abs, &bad, &k);
    bad |= CL_(jadd)(&lhs, &xp, &p, &k);
    CL_(endo)(&t, &xp, &k);
    bad |= CL_(jadd)(&lhs, &lhs, &t, &k);
    CL_(endo)(&t, &t, &k);
    bad |= CL_(jadd)(&lhs, &lhs, &t, &k);
    CL_(jdbl)(&rhs, &xp, &k);
    for (int i = 0; i < 3; i++) CL_(endo)(&rhs, &rhs, &k);
    *unsure = (unsigned)(bad & (__mmask8)~inf);
    return (unsigned)((CL_(jeq)(&lhs, &rhs, &k) & (__mmask8)~bad) | inf);
#else
    /* BLS12-381, x < 0: ψ(P) = -[|x|]P on G2, φ(P) = -[|x|]([|x|]P) on G1 */
    CL_(pt) q;
    return CL_(x_test)(&q, &p, 1, unsure, &k, c->x_abs);
#endif
#endif
}

#if CT_W == 6
/* mul_checked (ct_lanes.h): BLS12-381's G1. E is the split's, -φ, which
 * is [x²] on the group: the test is E(P) = [|x|]([|x|]P), and [|x|]P is
 * the second point of a four-part multiplication of half the windows. */
static unsigned CL_(mul_checked)(uint64_t *out, const uint64_t *const in[8], const zp_p2_ct_scalar *const s[][8],
                                 const zp_ct_lanes_curve *c, unsigned *unsure) {
    CL_(ctx) k;
    CL_(ctx_init)(&k, c);
    CL_(pt) p, q, t[2][2][8];
    CL_(load_point)(&p, in, &k);
    unsigned ok = CL_(x_test)(&q, &p, 0, unsure, &k, c->x_abs);
    __mmask8 inf = CL_(fe_zero_mask)(&p.z);
    /* [|x|]P, Jacobian, to projective (X·Z : Y : Z³); infinity where P is */
    CL_(fe) zz;
    CL_(fe_sqr)(&zz, &q.z, &k);
    CL_(fe_mul)(&q.x, &q.x, &q.z, &k);
    CL_(fe_mul)(&q.z, &q.z, &zz, &k);
    CL_(blend)(&q, inf, &p);
    CL_(tables)(t[0], &p, &k);
    CL_(tables)(t[1], &q, &k);
    CL_(sum_points)(out, t, s, 2, ZP_P2_CT_X4_DIGITS, 0, &k);
    return ok;
}
#endif

#undef CL_
#undef CT_W
#undef CT_EXT
#undef B_
#undef BT
#undef BC
