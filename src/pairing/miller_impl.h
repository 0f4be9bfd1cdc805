/* The Miller loop of the optimal ate pairing, instantiated per curve by
 * pairing.c.
 *
 * Include with:
 *   ZP_T             curve prefix (zp_bn254, zp_bls12)
 *   ZP_PAIR_TWIST_D  1 for a D-type sextic twist (BN254: b' = b/xi),
 *                    0 for an M-type one (BLS12-381: b' = b·xi)
 *   ZP_PAIR_BN       1 to add the two Frobenius lines of BN curves
 *   ZP_PAIR_X_NEG    1 when the loop parameter is the negative of the
 *                    loop count (BLS12-381's x): f is conjugated at the end
 *   ZP_PAIR_LOOP_BITS, ZP_PAIR_LOOP_BIT(i)  the loop count, MSB first
 *
 * T runs in homogeneous projective coordinates (x = X/Z, y = Y/Z) on the
 * twist. Doubling and mixed addition with their lines are the formulas of
 * Costello, Lange and Naehrig, "Faster pairing computations on curves with
 * high-degree twists" (PKC 2010), as simplified in Aranha, Barreto, Longa
 * and Ricardini, "The realm of the pairings" (SAC 2013, eq. 10-12) — the
 * same as arkworks' bn/bls12 models. Lines are computed up to a factor in
 * Fp2 (or a power of w times one), which the final exponentiation kills.
 *
 * Where the line lands in Fp12 (the classic bug). With w⁶ = xi:
 * - D-type, untwist psi(x, y) = (x·w², y·w³): the line through T with slope
 *   lambda at P is yP - lambda·xP·w + (lambda·xT - yT)·w³: positions w^0,
 *   w^1, w^3 = c0.c0, c1.c0, c1.c1 (mul_by_034).
 * - M-type, psi(x, y) = (x/w², y/w³): times w³ the line is
 *   (lambda·xT - yT) - lambda·xP·w² + yP·w³: positions w^0, w^2, w^3 =
 *   c0.c0, c0.c1, c1.c1 (mul_by_014). */
#define ZP_CAT_(a, b) a##b
#define ZP_CAT(a, b) ZP_CAT_(a, b)
#define N_(name) ZP_CAT(ZP_T, _##name)
#define F_(name) ZP_CAT(ZP_T, _fp_##name)
#define E2_(name) ZP_CAT(ZP_T, _fp2_##name)
#define E12_(name) ZP_CAT(ZP_T, _fp12_##name)
#define TF ZP_CAT(ZP_T, _fp)
#define T2 ZP_CAT(ZP_T, _fp2)
#define T12 ZP_CAT(ZP_T, _fp12)
#define TG1 ZP_CAT(ZP_T, _g1)
#define TG2 ZP_CAT(ZP_T, _g2)
#define TPROJ ZP_CAT(ZP_T, _g2proj)
#define TLINE ZP_CAT(ZP_T, _line) /* pairing.h */
#define TLINES ZP_CAT(ZP_T, _g2_lines)

/* Pairs whose Miller loops share one accumulator, f, on the stack. */
#define ZP_PAIR_CHUNK ZP_PAIRING_LINES_MAX_PAIRS

typedef struct {
    T2 x, y, z;
} TPROJ;
/* TLINE holds a line's coefficients before evaluation at P: (c0, c1, c2)
 * as arkworks orders them; D-type: c0·yP, c1·xP, c2 at w^0, w^1, w^3;
 * M-type: c0, c1·xP, c2·yP at w^0, w^2, w^3. */

/* Doubling step, T ← 2T. With A = XY/2, B = Y², C = Z², E = 3b'·C, F = 3E,
 * G = (B + F)/2, H = (Y + Z)² - B - C = 2YZ, I = E - B, J = X²:
 *   X3 = A(B - F), Y3 = G² - 3E², Z3 = B·H,
 * and the tangent line times -2YZ is (-H·yP, 3J·xP, I) (D) — since
 * -H·lambda = -3X², -H(lambda·xT - yT) = 3b'Z² - Y² — or (I, 3J·xP, -H·yP) (M). */
static inline void N_(dbl_step)(TLINE *l, TPROJ *t, const TF *two_inv, const T2 *b3) {
    T2 a, b, c, e, f, g, h, i, j, e2;
    E2_(mul)(&a, &t->x, &t->y);
    E2_(mul_base)(&a, &a, two_inv);
    E2_(sqr)(&b, &t->y);
    E2_(sqr)(&c, &t->z);
    E2_(mul)(&e, &c, b3);
    E2_(dbl)(&f, &e);
    E2_(add)(&f, &f, &e);
    E2_(add)(&g, &b, &f);
    E2_(mul_base)(&g, &g, two_inv);
    E2_(add)(&h, &t->y, &t->z);
    E2_(sqr)(&h, &h);
    E2_(sub)(&h, &h, &b);
    E2_(sub)(&h, &h, &c);
    E2_(sub)(&i, &e, &b);
    E2_(sqr)(&j, &t->x);
    E2_(sqr)(&e2, &e);

    E2_(sub)(&t->x, &b, &f);
    E2_(mul)(&t->x, &t->x, &a); /* X3 = A(B - F) */
    E2_(sqr)(&t->y, &g);
    E2_(sub)(&t->y, &t->y, &e2);
    E2_(sub)(&t->y, &t->y, &e2);
    E2_(sub)(&t->y, &t->y, &e2); /* Y3 = G² - 3E² */
    E2_(mul)(&t->z, &b, &h);     /* Z3 = B·H */

    T2 j3, nh;
    E2_(dbl)(&j3, &j);
    E2_(add)(&j3, &j3, &j);
    E2_(neg)(&nh, &h);
#if ZP_PAIR_TWIST_D
    l->c0 = nh;
    l->c1 = j3;
    l->c2 = i;
#else
    l->c0 = i;
    l->c1 = j3;
    l->c2 = nh;
#endif
}

/* Mixed addition step, T ← T + Q. With theta = Y - yQ·Z, lambda = X - xQ·Z
 * (the slope is theta/lambda), C = theta², D = lambda², E = lambda·D,
 * F = Z·C, G = X·D, H = E + F - 2G:
 *   X3 = lambda·H, Y3 = theta(G - H) - E·Y, Z3 = Z·E,
 * and the line times lambda is (lambda·yP, -theta·xP, theta·xQ - lambda·yQ)
 * (D) or (theta·xQ - lambda·yQ, -theta·xP, lambda·yP) (M). */
static inline void N_(add_step)(TLINE *l, TPROJ *t, const TG2 *q) {
    T2 theta, lambda, c, d, e, f, g, h, j, tmp;
    E2_(mul)(&tmp, &q->y, &t->z);
    E2_(sub)(&theta, &t->y, &tmp);
    E2_(mul)(&tmp, &q->x, &t->z);
    E2_(sub)(&lambda, &t->x, &tmp);
    E2_(sqr)(&c, &theta);
    E2_(sqr)(&d, &lambda);
    E2_(mul)(&e, &lambda, &d);
    E2_(mul)(&f, &t->z, &c);
    E2_(mul)(&g, &t->x, &d);
    E2_(add)(&h, &e, &f);
    E2_(sub)(&h, &h, &g);
    E2_(sub)(&h, &h, &g);

    E2_(mul)(&t->x, &lambda, &h); /* X3 = lambda·H */
    E2_(sub)(&tmp, &g, &h);
    E2_(mul)(&tmp, &tmp, &theta);
    E2_(mul)(&c, &e, &t->y);
    E2_(sub)(&t->y, &tmp, &c);  /* Y3 = theta(G - H) - E·Y */
    E2_(mul)(&t->z, &t->z, &e); /* Z3 = Z·E */

    E2_(mul)(&j, &theta, &q->x);
    E2_(mul)(&tmp, &lambda, &q->y);
    E2_(sub)(&j, &j, &tmp);
    E2_(neg)(&theta, &theta);
#if ZP_PAIR_TWIST_D
    l->c0 = lambda;
    l->c1 = theta;
    l->c2 = j;
#else
    l->c0 = j;
    l->c1 = theta;
    l->c2 = lambda;
#endif
}

/* f ← f·l(P) */
static inline void N_(ell)(T12 *f, const TLINE *l, const TG1 *p) {
    T2 a, b;
#if ZP_PAIR_TWIST_D
    E2_(mul_base)(&a, &l->c0, &p->y);
    E2_(mul_base)(&b, &l->c1, &p->x);
    E12_(mul_by_034)(f, f, &a, &b, &l->c2);
#else
    E2_(mul_base)(&a, &l->c1, &p->x);
    E2_(mul_base)(&b, &l->c2, &p->y);
    E12_(mul_by_014)(f, f, &l->c0, &a, &b);
#endif
}

#if ZP_PAIR_BN
/* pi(Q) = psi^-1(pi_p(psi(Q))) on the D-type twist: (conj(x)·gamma_{1,2},
 * conj(y)·gamma_{1,3}); k = 2: (x·gamma_{2,2}, y·gamma_{2,3}). */
static inline void N_(g2_frobenius)(TG2 *r, const TG2 *q, int k) {
    const T2(*g)[5] = ZP_CAT(ZP_T, _frob_gamma);
    T2 x = q->x, y = q->y;
    if (k & 1) {
        E2_(conj)(&x, &x);
        E2_(conj)(&y, &y);
    }
    E2_(mul)(&r->x, &x, &g[k - 1][1]);
    E2_(mul)(&r->y, &y, &g[k - 1][2]);
}
#endif

/* The constants of the steps: 1/2 and 3b' (b' the twist's b). */
static void N_(step_consts)(TF *two_inv, T2 *b3) {
    F_(from_u64)(two_inv, 2);
    F_(inv)(two_inv, two_inv);
    E2_(dbl)(b3, &ZP_CAT(TG2, _b));
    E2_(add)(b3, b3, &ZP_CAT(TG2, _b));
}

/* One shared Miller loop over n <= ZP_PAIR_CHUNK pairs (P[k], Q[k]) and m
 * <= ZP_PAIR_CHUNK pairs (PL[k], the point whose lines are L[k]), none at
 * infinity. Every point's loop has the same steps, so the k-th line of
 * each L is the k-th step's. */
static void N_(miller_chunk)(T12 *f, const TG1 *P, const TG2 *Q, size_t n, const TG1 *PL, const TLINES *const *L,
                             size_t m, const TF *two_inv, const T2 *b3) {
    TPROJ t[ZP_PAIR_CHUNK];
    TLINE l;
    size_t li = 0;
    for (size_t k = 0; k < n; k++) {
        t[k].x = Q[k].x;
        t[k].y = Q[k].y;
        E2_(set_one)(&t[k].z);
    }
    E12_(set_one)(f);
    for (int i = ZP_PAIR_LOOP_BITS - 2; i >= 0; i--) {
        E12_(sqr)(f, f);
        for (size_t k = 0; k < n; k++) {
            N_(dbl_step)(&l, &t[k], two_inv, b3);
            N_(ell)(f, &l, &P[k]);
        }
        for (size_t k = 0; k < m; k++) N_(ell)(f, &L[k]->l[li], &PL[k]);
        li++;
        if (ZP_PAIR_LOOP_BIT(i)) {
            for (size_t k = 0; k < n; k++) {
                N_(add_step)(&l, &t[k], &Q[k]);
                N_(ell)(f, &l, &P[k]);
            }
            for (size_t k = 0; k < m; k++) N_(ell)(f, &L[k]->l[li], &PL[k]);
            li++;
        }
    }
#if ZP_PAIR_BN
    /* T = (6x+2)Q; add Q1 = pi(Q), then Q2 = -pi²(Q) (only the line). */
    for (size_t k = 0; k < n; k++) {
        TG2 q1, q2;
        N_(g2_frobenius)(&q1, &Q[k], 1);
        N_(g2_frobenius)(&q2, &Q[k], 2);
        E2_(neg)(&q2.y, &q2.y);
        N_(add_step)(&l, &t[k], &q1);
        N_(ell)(f, &l, &P[k]);
        N_(add_step)(&l, &t[k], &q2);
        N_(ell)(f, &l, &P[k]);
    }
    for (size_t k = 0; k < m; k++) {
        N_(ell)(f, &L[k]->l[li], &PL[k]);
        N_(ell)(f, &L[k]->l[li + 1], &PL[k]);
    }
#endif
#if ZP_PAIR_X_NEG
    /* f_{-|x|} = 1/(f_{|x|}·v) with v a vertical line that the final
     * exponentiation kills; the inverse is the conjugate after it. */
    E12_(conj)(f, f);
#endif
}

void N_(miller_loop_var)(T12 *f, const TG1 *P, const TG2 *Q, size_t n) {
    TG1 p[ZP_PAIR_CHUNK];
    TG2 q[ZP_PAIR_CHUNK];
    TF two_inv;
    T2 b3;
    N_(step_consts)(&two_inv, &b3);
    E12_(set_one)(f);
    size_t m = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && !ZP_CAT(TG1, _is_inf)(&P[i]) && !ZP_CAT(TG2, _is_inf)(&Q[i])) {
            p[m] = P[i];
            q[m] = Q[i];
            m++;
        }
        if (m == ZP_PAIR_CHUNK || (i == n && m > 0)) {
            T12 g;
            N_(miller_chunk)(&g, p, q, m, NULL, NULL, 0, &two_inv, &b3);
            E12_(mul)(f, f, &g);
            m = 0;
        }
    }
}

/* The steps of miller_chunk for Q alone, keeping the lines. */
void N_(g2_lines_make)(TLINES *r, const TG2 *q) {
    TF two_inv;
    T2 b3;
    TPROJ t;
    memset(r, 0, sizeof *r);
    r->inf = ZP_CAT(TG2, _is_inf)(q);
    if (r->inf) return;
    N_(step_consts)(&two_inv, &b3);
    t.x = q->x;
    t.y = q->y;
    E2_(set_one)(&t.z);
    for (int i = ZP_PAIR_LOOP_BITS - 2; i >= 0; i--) {
        N_(dbl_step)(&r->l[r->n++], &t, &two_inv, &b3);
        if (ZP_PAIR_LOOP_BIT(i)) N_(add_step)(&r->l[r->n++], &t, q);
    }
#if ZP_PAIR_BN
    TG2 q1, q2;
    N_(g2_frobenius)(&q1, q, 1);
    N_(g2_frobenius)(&q2, q, 2);
    E2_(neg)(&q2.y, &q2.y);
    N_(add_step)(&r->l[r->n++], &t, &q1);
    N_(add_step)(&r->l[r->n++], &t, &q2);
#endif
}

void N_(miller_loop_lines_var)(T12 *f, const TG1 *P, const TG2 *Q, size_t n, const TG1 *PL, const TLINES *const *L,
                               size_t m) {
    TG1 p[ZP_PAIR_CHUNK], pl[ZP_PAIR_CHUNK];
    TG2 q[ZP_PAIR_CHUNK];
    const TLINES *ll[ZP_PAIR_CHUNK];
    size_t np = 0, nl = 0;
    for (size_t i = 0; i < n && i < ZP_PAIR_CHUNK; i++) {
        if (ZP_CAT(TG1, _is_inf)(&P[i]) || ZP_CAT(TG2, _is_inf)(&Q[i])) continue;
        p[np] = P[i];
        q[np++] = Q[i];
    }
    for (size_t i = 0; i < m && i < ZP_PAIR_CHUNK; i++) {
        if (ZP_CAT(TG1, _is_inf)(&PL[i]) || L[i]->inf) continue;
        pl[nl] = PL[i];
        ll[nl++] = L[i];
    }
    if (np + nl == 0) {
        E12_(set_one)(f);
        return;
    }
    TF two_inv;
    T2 b3;
    N_(step_consts)(&two_inv, &b3);
    N_(miller_chunk)(f, p, q, np, pl, ll, nl, &two_inv, &b3);
}

void N_(final_exp_easy)(T12 *r, const T12 *f) {
    T12 t, u;
    E12_(inv)(&t, f);
    E12_(conj)(&u, f);
    E12_(mul)(&u, &u, &t); /* f^(p^6 - 1) */
    E12_(frobenius)(&t, &u, 2);
    E12_(mul)(r, &t, &u); /* ^(p^2 + 1) */
}

void N_(final_exp_hard_ref)(T12 *r, const T12 *f) {
    static const uint64_t hard[] = ZP_CAT(ZP_T_UP, _FINAL_EXP_HARD_INIT);
    E12_(pow_var)(r, f, hard, sizeof hard / sizeof hard[0], 1);
}

void N_(gt_to_ffjs)(T12 *r, const T12 *e) {
    static const uint64_t m[] = ZP_CAT(ZP_T_UP, _FFJS_GT_EXP_INIT);
    E12_(pow_var)(r, e, m, sizeof m / sizeof m[0], 1);
}

void N_(gt_from_ffjs)(T12 *r, const T12 *e) {
    static const uint64_t minv[] = ZP_CAT(ZP_T_UP, _FFJS_GT_EXP_INV_INIT);
    E12_(pow_var)(r, e, minv, sizeof minv / sizeof minv[0], 1);
}

/* f^|x| in the cyclotomic subgroup, |x| the curve parameter. */
static inline void N_(cyc_exp_x)(T12 *r, const T12 *f) {
    static const uint64_t x[1] = {ZP_CAT(ZP_T_UP, _X_ABS)};
    E12_(pow_var)(r, f, x, 1, 1);
}

void N_(final_exp)(T12 *r, const T12 *f) {
    T12 t;
    N_(final_exp_easy)(&t, f);
    N_(final_exp_hard)(r, &t);
}

void N_(pairing_var)(T12 *r, const TG1 *P, const TG2 *Q) {
    T12 f;
    N_(miller_loop_var)(&f, P, Q, 1);
    N_(final_exp)(r, &f);
}

int N_(pairing_product_is_one_var)(const TG1 *P, const TG2 *Q, size_t n) {
    T12 f;
    N_(miller_loop_var)(&f, P, Q, n);
    N_(final_exp)(&f, &f);
    return E12_(is_one_var)(&f);
}

#undef N_
#undef F_
#undef E2_
#undef E12_
#undef TF
#undef T2
#undef T12
#undef TG1
#undef TG2
#undef TPROJ
#undef TLINE
#undef TLINES
#undef ZP_PAIR_CHUNK
#undef ZP_T
#undef ZP_T_UP
#undef ZP_PAIR_TWIST_D
#undef ZP_PAIR_BN
#undef ZP_PAIR_X_NEG
#undef ZP_PAIR_LOOP_BITS
#undef ZP_PAIR_LOOP_BIT
