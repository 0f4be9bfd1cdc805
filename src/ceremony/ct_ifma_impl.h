/* One instance of ct_lanes.h's multiplication, included by ct_ifma.c with
 * IFMA_NL and IFMA_NW (the base field's 52-bit limbs and 64-bit words, as
 * for field/ifma_impl.h). */
#define CL_(name) ZP_VCAT(ZP_VCAT(zp_ct_lanes, IFMA_NW), _##name)
#define B_(name) ZP_VCAT(ZP_VCAT(zp_v, IFMA_NL), _##name)
#define BT ZP_VCAT(zp_v, IFMA_NL)
#define BC ZP_VCAT(ZP_VCAT(zp_v, IFMA_NL), _field)

/* projective (X : Y : Z), x = X/Z, y = Y/Z; infinity (0 : 1 : 0) */
typedef struct {
    BT x, y, z;
} CL_(pt);

typedef struct {
    BC c;
    BT b3, beta, one, zero;
} CL_(ctx);

/* the scalar code's Montgomery product and sums, canonical in and out */
VI void CL_(mul)(BT *r, const BT *a, const BT *b, const CL_(ctx) *k) { B_(mul_r)(r, a, b, &k->c); }
VI void CL_(add)(BT *r, const BT *a, const BT *b, const CL_(ctx) *k) { B_(add)(r, a, b, &k->c); }
VI void CL_(sub)(BT *r, const BT *a, const BT *b, const CL_(ctx) *k) { B_(sub)(r, a, b, &k->c); }

/* r = 2p, complete (RCB algorithm 9, a = 0): 6M + 2S + one product by 3b */
static void CL_(dbl)(CL_(pt) *r, const CL_(pt) *p, const CL_(ctx) *k) {
    BT t0, t1, t2, x3, y3, z3;
    CL_(mul)(&t0, &p->y, &p->y, k);
    CL_(add)(&z3, &t0, &t0, k);
    CL_(add)(&z3, &z3, &z3, k);
    CL_(add)(&z3, &z3, &z3, k);
    CL_(mul)(&t1, &p->y, &p->z, k);
    CL_(mul)(&t2, &p->z, &p->z, k);
    CL_(mul)(&t2, &k->b3, &t2, k);
    CL_(mul)(&x3, &t2, &z3, k);
    CL_(add)(&y3, &t0, &t2, k);
    CL_(mul)(&z3, &t1, &z3, k);
    CL_(add)(&t1, &t2, &t2, k);
    CL_(add)(&t2, &t1, &t2, k);
    CL_(sub)(&t0, &t0, &t2, k);
    CL_(mul)(&y3, &t0, &y3, k);
    CL_(add)(&y3, &x3, &y3, k);
    CL_(mul)(&t1, &p->x, &p->y, k);
    CL_(mul)(&x3, &t0, &t1, k);
    CL_(add)(&x3, &x3, &x3, k);
    r->x = x3, r->y = y3, r->z = z3;
}

/* r = p + q, complete (RCB algorithm 7, a = 0): 12M + two products by 3b;
 * r may alias p or q */
static void CL_(addp)(CL_(pt) *r, const CL_(pt) *p, const CL_(pt) *q, const CL_(ctx) *k) {
    BT t0, t1, t2, t3, t4, x3, y3, z3;
    CL_(mul)(&t0, &p->x, &q->x, k);
    CL_(mul)(&t1, &p->y, &q->y, k);
    CL_(mul)(&t2, &p->z, &q->z, k);
    CL_(add)(&t3, &p->x, &p->y, k);
    CL_(add)(&t4, &q->x, &q->y, k);
    CL_(mul)(&t3, &t3, &t4, k);
    CL_(add)(&t4, &t0, &t1, k);
    CL_(sub)(&t3, &t3, &t4, k);
    CL_(add)(&t4, &p->y, &p->z, k);
    CL_(add)(&x3, &q->y, &q->z, k);
    CL_(mul)(&t4, &t4, &x3, k);
    CL_(add)(&x3, &t1, &t2, k);
    CL_(sub)(&t4, &t4, &x3, k);
    CL_(add)(&x3, &p->x, &p->z, k);
    CL_(add)(&y3, &q->x, &q->z, k);
    CL_(mul)(&x3, &x3, &y3, k);
    CL_(add)(&y3, &t0, &t2, k);
    CL_(sub)(&y3, &x3, &y3, k);
    CL_(add)(&x3, &t0, &t0, k);
    CL_(add)(&t0, &x3, &t0, k);
    CL_(mul)(&t2, &k->b3, &t2, k);
    CL_(add)(&z3, &t1, &t2, k);
    CL_(sub)(&t1, &t1, &t2, k);
    CL_(mul)(&y3, &k->b3, &y3, k);
    CL_(mul)(&x3, &t4, &y3, k);
    CL_(mul)(&t2, &t3, &t1, k);
    CL_(sub)(&x3, &t2, &x3, k);
    CL_(mul)(&y3, &y3, &t0, k);
    CL_(mul)(&t1, &t1, &z3, k);
    CL_(add)(&y3, &t1, &y3, k);
    CL_(mul)(&t0, &t0, &t3, k);
    CL_(mul)(&z3, &z3, &t4, k);
    CL_(add)(&z3, &z3, &t0, k);
    r->x = x3, r->y = y3, r->z = z3;
}

VI void CL_(blend_elem)(BT *r, __mmask8 m, const BT *a) {
    for (int j = 0; j < IFMA_NL; j++) r->l[j] = _mm512_mask_mov_epi64(r->l[j], m, a->l[j]);
}
VI void CL_(blend)(CL_(pt) *r, __mmask8 m, const CL_(pt) *a) {
    CL_(blend_elem)(&r->x, m, &a->x);
    CL_(blend_elem)(&r->y, m, &a->y);
    CL_(blend_elem)(&r->z, m, &a->z);
}

/* r = t[abs - 1] in each lane (infinity for abs 0), negated where neg:
 * all eight entries read and blended under masks */
VI void CL_(pick)(CL_(pt) *r, const CL_(pt) t[8], __m512i abs, __m512i neg, const CL_(ctx) *k) {
    r->x = k->zero, r->y = k->one, r->z = k->zero;
    for (int j = 0; j < 8; j++) {
        __mmask8 m = _mm512_cmpeq_epi64_mask(abs, _mm512_set1_epi64(j + 1));
        CL_(blend)(r, m, &t[j]);
    }
    BT ny;
    CL_(sub)(&ny, &k->zero, &r->y, k);
    CL_(blend_elem)(&r->y, _mm512_test_epi64_mask(neg, neg), &ny);
}

static void CL_(load_elem)(BT *r, const uint64_t *const e[8], size_t off) {
    const uint64_t *p[8];
    for (int i = 0; i < 8; i++) p[i] = e[i] + off;
    B_(load8)(r, p);
}
static void CL_(load_const)(BT *r, const uint64_t *v) {
    const uint64_t *p[8] = {v, v, v, v, v, v, v, v};
    B_(load8)(r, p);
}

void CL_(g1_mul)(uint64_t *out, const uint64_t *const in[8], const zp_p2_ct_scalar *const s[8],
                 const zp_ct_lanes_curve *c) {
    enum { NW = IFMA_NW };
    CL_(ctx) k;
    B_(field_load)(&k.c, &c->f);
    CL_(load_const)(&k.b3, c->b3);
    CL_(load_const)(&k.beta, c->beta);
    CL_(load_const)(&k.one, c->one);
    for (int j = 0; j < IFMA_NL; j++) k.zero.l[j] = _mm512_setzero_si512();

    /* P, with infinity (all-zero affine) as (0 : 1 : 0) */
    CL_(pt) p;
    CL_(load_elem)(&p.x, in, 0);
    CL_(load_elem)(&p.y, in, NW);
    __m512i any = _mm512_setzero_si512();
    for (int j = 0; j < IFMA_NL; j++) any = _mm512_or_si512(any, _mm512_or_si512(p.x.l[j], p.y.l[j]));
    __mmask8 inf = _mm512_testn_epi64_mask(any, any);
    p.z = k.one;
    CL_(blend_elem)(&p.z, inf, &k.zero);
    CL_(blend_elem)(&p.y, inf, &k.one);

    /* t[0][d - 1] = d·P, t[1][d - 1] = ±E(d·P) = d·E(P) (public) */
    CL_(pt) t[2][8];
    t[0][0] = p;
    CL_(dbl)(&t[0][1], &p, &k);
    for (int i = 2; i < 8; i++) CL_(addp)(&t[0][i], &t[0][i - 1], &p, &k);
    for (int i = 0; i < 8; i++) {
        t[1][i] = t[0][i];
        CL_(mul)(&t[1][i].x, &t[0][i].x, &k.beta, &k);
        if (c->endo_neg) CL_(sub)(&t[1][i].y, &k.zero, &t[0][i].y, &k);
    }

    CL_(pt) acc, pick;
    acc.x = k.zero, acc.y = k.one, acc.z = k.zero;
    for (int i = ZP_P2_CT_DIGITS - 1; i >= 0; i--) {
        for (int b = 0; b < 4; b++) CL_(dbl)(&acc, &acc, &k);
        for (int h = 0; h < 2; h++) {
            __m512i abs = _mm512_set_epi64(
                (long long)s[7]->half[h].abs[i], (long long)s[6]->half[h].abs[i], (long long)s[5]->half[h].abs[i],
                (long long)s[4]->half[h].abs[i], (long long)s[3]->half[h].abs[i], (long long)s[2]->half[h].abs[i],
                (long long)s[1]->half[h].abs[i], (long long)s[0]->half[h].abs[i]);
            __m512i neg = _mm512_set_epi64(
                (long long)s[7]->half[h].neg[i], (long long)s[6]->half[h].neg[i], (long long)s[5]->half[h].neg[i],
                (long long)s[4]->half[h].neg[i], (long long)s[3]->half[h].neg[i], (long long)s[2]->half[h].neg[i],
                (long long)s[1]->half[h].neg[i], (long long)s[0]->half[h].neg[i]);
            CL_(pick)(&pick, t[h], abs, neg, &k);
            CL_(addp)(&acc, &acc, &pick, &k);
        }
    }

    /* (X : Y : Z) -> Jacobian (X·Z, Y·Z², Z): the same point, which the
     * caller's ct_to_affine takes */
    CL_(pt) jac;
    BT zz;
    CL_(mul)(&jac.x, &acc.x, &acc.z, &k);
    CL_(mul)(&zz, &acc.z, &acc.z, &k);
    CL_(mul)(&jac.y, &acc.y, &zz, &k);
    jac.z = acc.z;
    uint64_t *o[8];
    for (int i = 0; i < 8; i++) o[i] = out + 3 * NW * (size_t)i;
    B_(store8)(o, &jac.x, 0xff);
    for (int i = 0; i < 8; i++) o[i] += NW;
    B_(store8)(o, &jac.y, 0xff);
    for (int i = 0; i < 8; i++) o[i] += NW;
    B_(store8)(o, &jac.z, 0xff);
    explicit_bzero(&acc, sizeof acc);
    explicit_bzero(&pick, sizeof pick);
    explicit_bzero(&jac, sizeof jac);
    explicit_bzero(&zz, sizeof zz);
}

#undef CL_
#undef B_
#undef BT
#undef BC
