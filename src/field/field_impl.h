/* One prime field in Montgomery form, instantiated per modulus.
 *
 * Include with these defined (field.h does it for each of the four fields):
 *   ZP_F     the type and function prefix, e.g. zp_bn254_fp
 *   ZP_F_UP  the prefix of its constants in params.h, e.g. ZP_BN254_FP
 *   ZP_F_N   the limb count
 * Elements are always reduced (< p) and in Montgomery form (a·R mod p,
 * R = 2^(64·N)); "plain" means the ordinary integer, as files and JSON hold
 * it. The layout of the type is the bare limb array, so an element can be
 * read in place from a .zkey, which stores Montgomery form with the same R.
 *
 * A ZP_VERIFY build checks "reduced" (< p) on every input and output of
 * the functions below (F_VERIFY). "In Montgomery form" cannot be seen in
 * a value (every residue is some x·R mod p); it holds by construction: a
 * plain integer becomes an element only through to_mont (from_u64,
 * from_bytes_le), and the only elements read as they are stored are a
 * .zkey's, which hold Montgomery form with this R and are checked below p
 * by the readers (src/io). Code that builds an element from limbs any
 * other way is the bug this cannot catch.
 */
#include "field/modinv.h"
#include "field/mont.h"
#include "field/params.h"

#include <string.h>

#define ZP_CAT_(a, b) a##b
#define ZP_CAT(a, b) ZP_CAT_(a, b)
#define F_(name) ZP_CAT(ZP_F, _##name)
#define FC_(name) ZP_CAT(ZP_F_UP, _##name)

typedef struct {
    uint64_t v[ZP_F_N];
} ZP_F;

static const ZP_F F_(modulus) = {FC_(P_INIT)};
static const ZP_F F_(one_mont) = {FC_(R1_INIT)};
static const ZP_F F_(r2) = {FC_(R2_INIT)};

/* ZP_VERIFY: x (named by what) is below p, or the enclosing function
 * aborts with its name. Nothing without ZP_VERIFY. */
#define F_VERIFY(x, what) ZP_VERIFY_CHECK(zp_limbs_lt_var((x)->v, F_(modulus).v, ZP_F_N), what " is not reduced (>= p)")

ZP_INLINE void F_(set_zero)(ZP_F *r) { memset(r, 0, sizeof *r); }
ZP_INLINE void F_(set_one)(ZP_F *r) { *r = F_(one_mont); }
ZP_INLINE int F_(is_zero)(const ZP_F *a) {
    F_VERIFY(a, "a");
    return zp_limbs_is_zero(a->v, ZP_F_N);
}
ZP_INLINE int F_(is_one_var)(const ZP_F *a) {
    F_VERIFY(a, "a");
    return memcmp(a, &F_(one_mont), sizeof *a) == 0;
}
/* Limb equality is element equality only for reduced values. */
ZP_INLINE int F_(eq_var)(const ZP_F *a, const ZP_F *b) {
    F_VERIFY(a, "a");
    F_VERIFY(b, "b");
    return memcmp(a, b, sizeof *a) == 0;
}

/* In these, r may alias a or b: the inputs are checked before, the result
 * after. */
ZP_INLINE void F_(add)(ZP_F *r, const ZP_F *a, const ZP_F *b) {
    F_VERIFY(a, "a");
    F_VERIFY(b, "b");
    zp_mont_add(r->v, a->v, b->v, F_(modulus).v, ZP_F_N);
    F_VERIFY(r, "the result");
}
ZP_INLINE void F_(sub)(ZP_F *r, const ZP_F *a, const ZP_F *b) {
    F_VERIFY(a, "a");
    F_VERIFY(b, "b");
    zp_mont_sub(r->v, a->v, b->v, F_(modulus).v, ZP_F_N);
    F_VERIFY(r, "the result");
}
ZP_INLINE void F_(neg)(ZP_F *r, const ZP_F *a) {
    F_VERIFY(a, "a");
    zp_mont_neg(r->v, a->v, F_(modulus).v, ZP_F_N);
    F_VERIFY(r, "the result");
}
ZP_INLINE void F_(dbl)(ZP_F *r, const ZP_F *a) {
    F_VERIFY(a, "a");
    zp_mont_add(r->v, a->v, a->v, F_(modulus).v, ZP_F_N);
    F_VERIFY(r, "the result");
}
ZP_INLINE void F_(mul)(ZP_F *r, const ZP_F *a, const ZP_F *b) {
    F_VERIFY(a, "a");
    F_VERIFY(b, "b");
    zp_mont_mul(r->v, a->v, b->v, F_(modulus).v, FC_(N0), ZP_F_N);
    F_VERIFY(r, "the result");
}
ZP_INLINE void F_(sqr)(ZP_F *r, const ZP_F *a) {
    F_VERIFY(a, "a");
    zp_mont_sqr(r->v, a->v, F_(modulus).v, FC_(N0), ZP_F_N);
    F_VERIFY(r, "the result");
}

/* Plain integer (limbs, must be < p) to Montgomery form: a·R² / R. */
ZP_INLINE void F_(to_mont)(ZP_F *r, const ZP_F *plain) {
    F_VERIFY(plain, "the plain input");
    zp_mont_mul(r->v, plain->v, F_(r2).v, F_(modulus).v, FC_(N0), ZP_F_N);
    F_VERIFY(r, "the result");
}
/* Montgomery form to the plain integer: a / R. */
ZP_INLINE void F_(from_mont)(ZP_F *plain, const ZP_F *a) {
    static const uint64_t one_plain[ZP_F_N] = {1};
    F_VERIFY(a, "a");
    zp_mont_mul(plain->v, a->v, one_plain, F_(modulus).v, FC_(N0), ZP_F_N);
    F_VERIFY(plain, "the plain result");
}
static inline void F_(from_u64)(ZP_F *r, uint64_t v) {
    ZP_F t = {{v}};
    F_(to_mont)(r, &t);
}
/* 1 when the limbs hold an integer below p (a canonical encoding). */
static inline int F_(is_canonical_var)(const ZP_F *a) { return zp_limbs_lt_var(a->v, F_(modulus).v, ZP_F_N); }

/* r = a^e, e given as little-endian limbs. The operations are the same
 * for every e of elen limbs, but the select on each bit of e may compile
 * to a branch: variable time in e (for public exponents: roots of unity,
 * the development setup's powers, the pairing's exponentiations). */
static inline void F_(pow_var)(ZP_F *r, const ZP_F *a, const uint64_t *e, size_t elen) {
    F_VERIFY(a, "a");
    ZP_F acc = F_(one_mont), base = *a;
    for (size_t i = 0; i < elen * 64; i++) {
        ZP_F t;
        F_(mul)(&t, &acc, &base);
        if ((e[i / 64] >> (i % 64)) & 1) acc = t;
        F_(sqr)(&base, &base);
    }
    *r = acc;
    F_VERIFY(r, "the result");
}

/* r = a^e for a fixed public exponent, 4-bit fixed windows: 4 squarings
 * and one multiplication per window, the table entry picked by a masked
 * scan of all 16 so that the memory access pattern does not depend on e
 * (a may be secret). About 1.3 operations per exponent bit against 2 for
 * pow. */
static inline void F_(pow_window)(ZP_F *r, const ZP_F *a, const uint64_t *e, size_t elen) {
    ZP_F table[16], acc;
    F_VERIFY(a, "a");
    F_(set_one)(&table[0]);
    table[1] = *a;
    for (int i = 2; i < 16; i++) F_(mul)(&table[i], &table[i - 1], a);
    F_(set_one)(&acc);
    for (size_t nib = elen * 16; nib-- > 0;) {
        for (int k = 0; k < 4; k++) F_(sqr)(&acc, &acc);
        uint64_t digit = (e[nib / 16] >> (4 * (nib % 16))) & 15;
        ZP_F pick;
        F_(set_zero)(&pick);
        for (uint64_t i = 0; i < 16; i++) {
            uint64_t mask = (uint64_t)0 - (uint64_t)(i == digit);
            for (size_t l = 0; l < ZP_F_N; l++) pick.v[l] |= table[i].v[l] & mask;
        }
        F_(mul)(&acc, &acc, &pick);
    }
    *r = acc;
    F_VERIFY(r, "the result");
}

/* r = a^-1 (Fermat: a^(p-2)); the inverse of 0 is 0. */
static inline void F_(inv)(ZP_F *r, const ZP_F *a) {
    ZP_F e = F_(modulus);
    static const uint64_t two[ZP_F_N] = {2};
    zp_limbs_sub(e.v, e.v, two, ZP_F_N);
    F_VERIFY(a, "a");
    F_(pow_window)(r, a, e.v, ZP_F_N);
}

#ifdef ZP_VERIFY
/* x·a = 1, or both are 0: x is a's inverse (for the checks of inv_var). */
static inline int F_(is_inverse_var)(const ZP_F *x, const ZP_F *a) {
    ZP_F prod;
    if (F_(is_zero)(a)) return F_(is_zero)(x);
    F_(mul)(&prod, x, a);
    return F_(is_one_var)(&prod);
}
#endif

/* r = a^-1 (safegcd, modinv.h), variable time: 5 to 9 times faster than
 * inv, for values that are not secret; the inverse of 0 is 0. The gcd
 * inverts the plain value: a·R leaves Montgomery form as a, comes back
 * from the gcd as a^-1, and goes back in as a^-1·R. */
static inline void F_(inv_var)(ZP_F *r, const ZP_F *a) {
    ZP_F x;
    F_VERIFY(a, "a");
    F_(from_mont)(&x, a);
    zp_modinv_var(x.v, x.v, F_(modulus).v, FC_(N0), ZP_F_N);
    F_(to_mont)(&x, &x);
    ZP_VERIFY_CHECK(F_(is_inverse_var)(&x, a), "the result times a is not 1");
    *r = x;
}

/* out[i] = in[i]^-1 for all i with one inversion (Montgomery's trick);
 * zeros map to zero. scratch holds n elements; out may alias in. */
static inline void F_(batch_inv_var)(ZP_F *out, const ZP_F *in, size_t n, ZP_F *scratch) {
    ZP_F acc = F_(one_mont);
    for (size_t i = 0; i < n; i++) {
        F_VERIFY(&in[i], "an input");
        scratch[i] = acc;
        if (!F_(is_zero)(&in[i])) F_(mul)(&acc, &acc, &in[i]);
    }
    F_(inv_var)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (F_(is_zero)(&in[i])) {
            F_(set_zero)(&out[i]);
            continue;
        }
        ZP_F t;
        F_(mul)(&t, &acc, &scratch[i]);
        F_(mul)(&acc, &acc, &in[i]);
        out[i] = t;
    }
}

/* Little-endian bytes of the plain integer (as .wtns/.r1cs store them):
 * returns 0 when the value is not below p. */
static inline int F_(from_bytes_le_var)(ZP_F *r, const uint8_t *in) {
    ZP_F t;
    for (size_t i = 0; i < ZP_F_N; i++) {
        uint64_t w = 0;
        for (size_t b = 0; b < 8; b++) w |= (uint64_t)in[8 * i + b] << (8 * b);
        t.v[i] = w;
    }
    if (!F_(is_canonical_var)(&t)) return 0;
    F_(to_mont)(r, &t);
    return 1;
}
static inline void F_(to_bytes_le)(uint8_t *out, const ZP_F *a) {
    ZP_F t;
    F_VERIFY(a, "a");
    F_(from_mont)(&t, a);
    for (size_t i = 0; i < ZP_F_N; i++) {
        for (size_t b = 0; b < 8; b++) out[8 * i + b] = (uint8_t)(t.v[i] >> (8 * b));
    }
}

#undef F_
#undef FC_
#undef F_VERIFY
#undef ZP_F
#undef ZP_F_UP
#undef ZP_F_N
