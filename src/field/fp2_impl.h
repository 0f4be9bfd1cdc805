/* Fp2 = Fp[u]/(u² + 1), instantiated per base field.
 *
 * Include with ZP_F2 (type and prefix, e.g. zp_bn254_fp2), ZP_F2_BASE (the
 * base field prefix) and ZP_F2_XI (k such that the sextic non-residue of the
 * tower above is xi = k + u) defined. Layout: c0 then c1, as .zkey files
 * store G2 coordinates. */
#define ZP_CAT_(a, b) a##b
#define ZP_CAT(a, b) ZP_CAT_(a, b)
#define E_(name) ZP_CAT(ZP_F2, _##name)
#define B_(name) ZP_CAT(ZP_F2_BASE, _##name)
#define BT ZP_F2_BASE

typedef struct {
    BT c0, c1;
} ZP_F2;

/* ZP_VERIFY: both coordinates of x are reduced, or the enclosing function
 * aborts with its name (field_impl.h says what this can and cannot check).
 * The base field's functions check too, but conj, set and copies do no
 * arithmetic, and a failure here names the Fp2 function. */
#define E_VERIFY(x, what)                                                                                             \
    do {                                                                                                              \
        ZP_VERIFY_CHECK(zp_limbs_lt_var((x)->c0.v, B_(modulus).v, sizeof(BT) / 8), what ".c0 is not reduced (>= p)"); \
        ZP_VERIFY_CHECK(zp_limbs_lt_var((x)->c1.v, B_(modulus).v, sizeof(BT) / 8), what ".c1 is not reduced (>= p)"); \
    } while (0)

ZP_INLINE void E_(set_zero)(ZP_F2 *r) { memset(r, 0, sizeof *r); }
ZP_INLINE void E_(set_one)(ZP_F2 *r) {
    B_(set_one)(&r->c0);
    B_(set_zero)(&r->c1);
}
ZP_INLINE int E_(is_zero)(const ZP_F2 *a) {
    E_VERIFY(a, "a");
    return B_(is_zero)(&a->c0) & B_(is_zero)(&a->c1);
}
ZP_INLINE int E_(eq_var)(const ZP_F2 *a, const ZP_F2 *b) {
    E_VERIFY(a, "a");
    E_VERIFY(b, "b");
    return B_(eq_var)(&a->c0, &b->c0) & B_(eq_var)(&a->c1, &b->c1);
}
ZP_INLINE int E_(is_one_var)(const ZP_F2 *a) {
    E_VERIFY(a, "a");
    return B_(is_one_var)(&a->c0) & B_(is_zero)(&a->c1);
}

ZP_INLINE void E_(add)(ZP_F2 *r, const ZP_F2 *a, const ZP_F2 *b) {
    E_VERIFY(a, "a");
    E_VERIFY(b, "b");
    B_(add)(&r->c0, &a->c0, &b->c0);
    B_(add)(&r->c1, &a->c1, &b->c1);
    E_VERIFY(r, "the result");
}
ZP_INLINE void E_(sub)(ZP_F2 *r, const ZP_F2 *a, const ZP_F2 *b) {
    E_VERIFY(a, "a");
    E_VERIFY(b, "b");
    B_(sub)(&r->c0, &a->c0, &b->c0);
    B_(sub)(&r->c1, &a->c1, &b->c1);
    E_VERIFY(r, "the result");
}
ZP_INLINE void E_(dbl)(ZP_F2 *r, const ZP_F2 *a) {
    E_VERIFY(a, "a");
    B_(dbl)(&r->c0, &a->c0);
    B_(dbl)(&r->c1, &a->c1);
    E_VERIFY(r, "the result");
}
ZP_INLINE void E_(neg)(ZP_F2 *r, const ZP_F2 *a) {
    E_VERIFY(a, "a");
    B_(neg)(&r->c0, &a->c0);
    B_(neg)(&r->c1, &a->c1);
    E_VERIFY(r, "the result");
}
/* Conjugate a0 - a1·u: the Frobenius map on Fp2. */
ZP_INLINE void E_(conj)(ZP_F2 *r, const ZP_F2 *a) {
    E_VERIFY(a, "a");
    r->c0 = a->c0;
    B_(neg)(&r->c1, &a->c1);
    E_VERIFY(r, "the result");
}

/* Karatsuba: (a0 + a1u)(b0 + b1u) = (a0b0 - a1b1) + ((a0+a1)(b0+b1) - a0b0 - a1b1)u */
ZP_OUTLINE void E_(mul)(ZP_F2 *r, const ZP_F2 *a, const ZP_F2 *b) {
    E_VERIFY(a, "a");
    E_VERIFY(b, "b");
    BT t0, t1, s0, s1;
    B_(mul)(&t0, &a->c0, &b->c0);
    B_(mul)(&t1, &a->c1, &b->c1);
    B_(add)(&s0, &a->c0, &a->c1);
    B_(add)(&s1, &b->c0, &b->c1);
    B_(mul)(&s0, &s0, &s1);
    B_(sub)(&r->c0, &t0, &t1);
    B_(sub)(&s0, &s0, &t0);
    B_(sub)(&r->c1, &s0, &t1);
    E_VERIFY(r, "the result");
}
/* Complex squaring: (a0 + a1u)² = (a0+a1)(a0-a1) + 2a0a1·u */
ZP_OUTLINE void E_(sqr)(ZP_F2 *r, const ZP_F2 *a) {
    E_VERIFY(a, "a");
    BT s, d, m;
    B_(add)(&s, &a->c0, &a->c1);
    B_(sub)(&d, &a->c0, &a->c1);
    B_(mul)(&m, &a->c0, &a->c1);
    B_(mul)(&r->c0, &s, &d);
    B_(dbl)(&r->c1, &m);
    E_VERIFY(r, "the result");
}
ZP_INLINE void E_(mul_base)(ZP_F2 *r, const ZP_F2 *a, const BT *k) {
    E_VERIFY(a, "a");
    B_(mul)(&r->c0, &a->c0, k);
    B_(mul)(&r->c1, &a->c1, k);
    E_VERIFY(r, "the result");
}
/* r = a·xi with xi = k + u: (k·a0 - a1) + (a0 + k·a1)u, k small, by additions. */
ZP_INLINE void E_(mul_by_xi)(ZP_F2 *r, const ZP_F2 *a) {
    E_VERIFY(a, "a");
    BT k0 = a->c0, k1 = a->c1;
    for (int i = 1; i < ZP_F2_XI; i++) {
        B_(add)(&k0, &k0, &a->c0);
        B_(add)(&k1, &k1, &a->c1);
    }
    BT c0;
    B_(sub)(&c0, &k0, &a->c1);
    B_(add)(&r->c1, &a->c0, &k1);
    r->c0 = c0;
    E_VERIFY(r, "the result");
}
/* 1/(a0 + a1u) = (a0 - a1u)/(a0² + a1²), the base field inversion given:
 * inv (constant time) or inv_var. */
ZP_INLINE void E_(inv_with)(ZP_F2 *r, const ZP_F2 *a, void (*base_inv)(BT *, const BT *)) {
    E_VERIFY(a, "a");
    BT t0, t1;
    B_(sqr)(&t0, &a->c0);
    B_(sqr)(&t1, &a->c1);
    B_(add)(&t0, &t0, &t1);
    base_inv(&t0, &t0);
    B_(mul)(&r->c0, &a->c0, &t0);
    B_(mul)(&t1, &a->c1, &t0);
    B_(neg)(&r->c1, &t1);
    E_VERIFY(r, "the result");
}
static inline void E_(inv)(ZP_F2 *r, const ZP_F2 *a) { E_(inv_with)(r, a, B_(inv)); }
/* Variable time (the base field's inv_var), for values that are not secret. */
static inline void E_(inv_var)(ZP_F2 *r, const ZP_F2 *a) { E_(inv_with)(r, a, B_(inv_var)); }

/* Montgomery's trick, as the base field's batch_inv_var; zeros map to zero. */
static inline void E_(batch_inv_var)(ZP_F2 *out, const ZP_F2 *in, size_t n, ZP_F2 *scratch) {
    ZP_F2 acc;
    E_(set_one)(&acc);
    for (size_t i = 0; i < n; i++) {
        E_VERIFY(&in[i], "an input");
        scratch[i] = acc;
        if (!E_(is_zero)(&in[i])) E_(mul)(&acc, &acc, &in[i]);
    }
    E_(inv_var)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (E_(is_zero)(&in[i])) {
            E_(set_zero)(&out[i]);
            continue;
        }
        ZP_F2 t;
        E_(mul)(&t, &acc, &scratch[i]);
        E_(mul)(&acc, &acc, &in[i]);
        out[i] = t;
    }
}

#undef E_VERIFY
#undef E_
#undef B_
#undef BT
#undef ZP_F2
#undef ZP_F2_BASE
#undef ZP_F2_XI
