/* Variable-time modular inversion for odd moduli of n 64-bit limbs:
 * Bernstein and Yang's safegcd ("Fast constant-time gcd computation and
 * modular inversion", 2019), in the shape of libsecp256k1's modinv64_var
 * (Peter Dettman and Pieter Wuille; its doc/safegcd_implementation.md
 * explains every step).
 * The limb count is a parameter, as in mont.h: the per-field wrappers pass
 * a constant, and one implementation serves 256- and 381-bit moduli.
 *
 * Numbers are held in signed62 form: limbs of 62 bits in int64_t, the top
 * limb signed, value = sum v[i]·2^(62i). Each round does 62 divsteps on
 * the low 64 bits of f and g alone (divsteps_62_var), giving a transition
 * matrix scaled by 2^62, then applies it to the full f, g (update_fg) and
 * to the Bézout coefficients d, e modulo p (update_de). Rounds continue
 * until g = 0; then f = ±1 and d = ±a^-1. For a b-bit modulus that is at
 * most ⌊(49b + 57)/17⌋ divsteps (Bernstein–Yang's bound, b >= 46): 12 rounds
 * for 256 bits, 18 for 381.
 *
 * Time depends on the input: only for values that are not secret. */
#ifndef ZP_FIELD_MODINV_H
#define ZP_FIELD_MODINV_H

#include "field/mont.h"

/* Enough 62-bit limbs for a modulus of ZP_MAX_LIMBS 64-bit limbs with
 * room for the sign and the range (-2p, p) of d and e. */
#define ZP_MODINV_MAX_LIMBS62 (64 * ZP_MAX_LIMBS / 62 + 1)

typedef __int128 zp_i128;

typedef struct {
    int64_t v[ZP_MODINV_MAX_LIMBS62];
} zp_signed62;

/* The 2x2 transition matrix [u v; q r] of 62 divsteps, scaled by 2^62. */
typedef struct {
    int64_t u, v, q, r;
} zp_modinv_trans;

static const uint64_t ZP_M62 = UINT64_MAX >> 2;

/* signed62 limbs needed for an n-limb modulus: 5 for 4 limbs, 7 for 6. */
ZP_INLINE size_t zp_modinv_limbs62(size_t n) { return 64 * n / 62 + 1; }

/* r (signed62, len limbs) = a (n 64-bit limbs), all limbs non-negative. */
ZP_INLINE void zp_modinv_to_signed62(zp_signed62 *r, const uint64_t *a, size_t n, size_t len) {
    for (size_t i = 0; i < len; i++) {
        size_t bit = 62 * i, w = bit / 64, s = bit % 64;
        uint64_t x = a[w] >> s;
        /* below 2 bits of shift, a[w] alone holds the 62 bits */
        if (s > 2 && w + 1 < n) x |= a[w + 1] << (64 - s);
        r->v[i] = (int64_t)(x & ZP_M62);
    }
}

/* r (n 64-bit limbs) = a (signed62, limbs in [0, 2^62), value below
 * 2^(64n)): the 64-bit limbs fill up by the last signed62 one. */
ZP_INLINE void zp_modinv_from_signed62(uint64_t *r, const zp_signed62 *a, size_t n) {
    zp_u128 acc = 0;
    unsigned bits = 0;
    for (size_t i = 0, j = 0; j < n; i++) {
        acc |= (zp_u128)(uint64_t)a->v[i] << bits;
        bits += 62;
        if (bits >= 64) {
            r[j++] = (uint64_t)acc;
            acc >>= 64;
            bits -= 64;
        }
    }
}

/* 62 divsteps on the low bits of f and g (f odd), variable time: a run
 * of zeros in g is divided out at once, and when g is odd one multiple of
 * f clears up to 4 or 6 of its low bits, the work of as many divsteps.
 * Returns the new eta (= -delta) and the matrix t with t·[f0, g0] =
 * 2^62·[f, g] on the low bits. libsecp256k1's divsteps_62_var. */
static inline int64_t zp_modinv_divsteps_62_var(int64_t eta, uint64_t f0, uint64_t g0, zp_modinv_trans *t) {
    uint64_t u = 1, v = 0, q = 0, r = 1;
    uint64_t f = f0, g = g0, m;
    uint32_t w;
    int i = 62, limit, zeros;
    for (;;) {
        /* the sentinel bits above i stop the count at the steps left */
        zeros = __builtin_ctzll(g | (UINT64_MAX << i));
        g >>= zeros;
        u <<= zeros;
        v <<= zeros;
        eta -= zeros;
        i -= zeros;
        if (i == 0) break;
        if (eta < 0) {
            /* delta > 0: swap, (f, g) = (g, -f), and continue with -eta */
            uint64_t tmp;
            eta = -eta;
            tmp = f;
            f = g;
            g = -tmp;
            tmp = u;
            u = q;
            q = -tmp;
            tmp = v;
            v = r;
            r = -tmp;
            /* cancel up to 6 low bits of g, no more than the steps left
             * (i) nor than eta + 1 (after which the swap comes back):
             * w = -g/f mod 64, with f^-1 = f·(f² - 2) mod 64 */
            limit = ((int)eta + 1) > i ? i : ((int)eta + 1);
            m = (UINT64_MAX >> (64 - limit)) & 63U;
            w = (uint32_t)((f * g * (f * f - 2)) & m);
        } else {
            /* eta is small here: up to 4 bits, f^-1 mod 16 by a cheaper
             * formula */
            limit = ((int)eta + 1) > i ? i : ((int)eta + 1);
            m = (UINT64_MAX >> (64 - limit)) & 15U;
            w = (uint32_t)(f + (((f + 1) & 4) << 1));
            w = (uint32_t)((-(uint64_t)w * g) & m);
        }
        g += f * w;
        q += u * w;
        r += v * w;
        ZP_VERIFY_CHECK((g & m) == 0, "the divstep did not cancel the low bits of g");
    }
    t->u = (int64_t)u;
    t->v = (int64_t)v;
    t->q = (int64_t)q;
    t->r = (int64_t)r;
    return eta;
}

/* [d, e] = t·[d, e] / 2^62 mod p, d and e in (-2p, p) before and after,
 * all limbs in (-2^62, 2^62). The division is exact after adding the
 * multiples md, me of p that clear the low 62 bits (p_inv62 = p^-1 mod
 * 2^62), as in Montgomery reduction; md, me start with u, v, q, r where
 * d, e are negative, which keeps the result above -2p. */
ZP_INLINE void zp_modinv_update_de_62(zp_signed62 *d, zp_signed62 *e, const zp_modinv_trans *t, const zp_signed62 *p,
                                      uint64_t p_inv62, size_t len) {
    const int64_t u = t->u, v = t->v, q = t->q, r = t->r;
    int64_t sd = d->v[len - 1] >> 63, se = e->v[len - 1] >> 63;
    int64_t md = (u & sd) + (v & se), me = (q & sd) + (r & se);
    int64_t di = d->v[0], ei = e->v[0];
    zp_i128 cd = (zp_i128)u * di + (zp_i128)v * ei;
    zp_i128 ce = (zp_i128)q * di + (zp_i128)r * ei;
    md -= (int64_t)((p_inv62 * (uint64_t)cd + (uint64_t)md) & ZP_M62);
    me -= (int64_t)((p_inv62 * (uint64_t)ce + (uint64_t)me) & ZP_M62);
    cd += (zp_i128)p->v[0] * md;
    ce += (zp_i128)p->v[0] * me;
    ZP_VERIFY_CHECK(((uint64_t)cd & ZP_M62) == 0 && ((uint64_t)ce & ZP_M62) == 0, "update_de: low bits not cleared");
    cd >>= 62;
    ce >>= 62;
    for (size_t i = 1; i < len; i++) {
        di = d->v[i];
        ei = e->v[i];
        cd += (zp_i128)u * di + (zp_i128)v * ei + (zp_i128)p->v[i] * md;
        ce += (zp_i128)q * di + (zp_i128)r * ei + (zp_i128)p->v[i] * me;
        d->v[i - 1] = (int64_t)((uint64_t)cd & ZP_M62);
        e->v[i - 1] = (int64_t)((uint64_t)ce & ZP_M62);
        cd >>= 62;
        ce >>= 62;
    }
    d->v[len - 1] = (int64_t)cd;
    e->v[len - 1] = (int64_t)ce;
}

/* [f, g] = t·[f, g] / 2^62 on the low len limbs (the rest are sign
 * extension: the caller shrinks len as f and g shrink). */
ZP_INLINE void zp_modinv_update_fg_62_var(zp_signed62 *f, zp_signed62 *g, const zp_modinv_trans *t, size_t len) {
    const int64_t u = t->u, v = t->v, q = t->q, r = t->r;
    int64_t fi = f->v[0], gi = g->v[0];
    zp_i128 cf = (zp_i128)u * fi + (zp_i128)v * gi;
    zp_i128 cg = (zp_i128)q * fi + (zp_i128)r * gi;
    ZP_VERIFY_CHECK(((uint64_t)cf & ZP_M62) == 0 && ((uint64_t)cg & ZP_M62) == 0, "update_fg: low bits not zero");
    cf >>= 62;
    cg >>= 62;
    for (size_t i = 1; i < len; i++) {
        fi = f->v[i];
        gi = g->v[i];
        cf += (zp_i128)u * fi + (zp_i128)v * gi;
        cg += (zp_i128)q * fi + (zp_i128)r * gi;
        f->v[i - 1] = (int64_t)((uint64_t)cf & ZP_M62);
        g->v[i - 1] = (int64_t)((uint64_t)cg & ZP_M62);
        cf >>= 62;
        cg >>= 62;
    }
    f->v[len - 1] = (int64_t)cf;
    g->v[len - 1] = (int64_t)cg;
}

/* r in (-2p, p), limbs in (-2^62, 2^62), to [0, p) with limbs in
 * [0, 2^62), negated on the way when sign < 0: add p if negative, negate,
 * carry, add p again if still negative, carry. */
ZP_INLINE void zp_modinv_normalize_62(zp_signed62 *r, int64_t sign, const zp_signed62 *p, size_t len) {
    int64_t add = r->v[len - 1] >> 63, neg = sign >> 63;
    for (size_t i = 0; i < len; i++) r->v[i] = ((r->v[i] + (p->v[i] & add)) ^ neg) - neg;
    for (size_t i = 0; i + 1 < len; i++) {
        r->v[i + 1] += r->v[i] >> 62;
        r->v[i] &= (int64_t)ZP_M62;
    }
    add = r->v[len - 1] >> 63;
    for (size_t i = 0; i < len; i++) r->v[i] += p->v[i] & add;
    for (size_t i = 0; i + 1 < len; i++) {
        r->v[i + 1] += r->v[i] >> 62;
        r->v[i] &= (int64_t)ZP_M62;
    }
}

/* r = a^-1 mod p (plain integers, not Montgomery form), a < p, p odd and
 * below 2^(64n-1); n0 = -p^-1 mod 2^64 as for zp_mont_mul. The inverse of
 * 0 is 0 (the first round finds g = 0 and leaves d = 0). Variable time. */
static inline void zp_modinv_var(uint64_t *r, const uint64_t *a, const uint64_t *p_limbs, uint64_t n0, size_t n) {
    const size_t len_full = zp_modinv_limbs62(n);
    const uint64_t p_inv62 = (0 - n0) & ZP_M62;
    zp_signed62 p, d = {{0}}, e = {{1}}, f, g;
    size_t len = len_full;
    int64_t eta = -1; /* eta = -delta, delta starts at 1 */
#ifdef ZP_VERIFY
    size_t rounds = 0;
#endif
    zp_modinv_to_signed62(&p, p_limbs, n, len_full);
    zp_modinv_to_signed62(&g, a, n, len_full);
    f = p;
    for (;;) {
        zp_modinv_trans t;
        eta = zp_modinv_divsteps_62_var(eta, (uint64_t)f.v[0], (uint64_t)g.v[0], &t);
        zp_modinv_update_de_62(&d, &e, &t, &p, p_inv62, len_full);
        zp_modinv_update_fg_62_var(&f, &g, &t, len);
#ifdef ZP_VERIFY
        rounds++;
        ZP_VERIFY_CHECK(rounds <= (49 * 64 * n + 57) / 17 / 62 + 1, "more rounds than the divstep bound");
#endif
        if (g.v[0] == 0) {
            int64_t rest = 0;
            for (size_t j = 1; j < len; j++) rest |= g.v[j];
            if (rest == 0) break;
        }
        /* when the top limbs of f and g are both 0 or -1, fold the sign
         * into the limb below and work on one limb less */
        int64_t fn = f.v[len - 1], gn = g.v[len - 1];
        if (len > 1 && ((fn ^ (fn >> 63)) | (gn ^ (gn >> 63))) == 0) {
            f.v[len - 2] = (int64_t)((uint64_t)f.v[len - 2] | (uint64_t)fn << 62);
            g.v[len - 2] = (int64_t)((uint64_t)g.v[len - 2] | (uint64_t)gn << 62);
            len--;
        }
    }
    /* g = 0 and f = ±gcd = ±1 (or ±p when a = 0, with d = 0): d = ±a^-1 */
    zp_modinv_normalize_62(&d, f.v[len - 1], &p, len_full);
    zp_modinv_from_signed62(r, &d, n);
}

#endif
