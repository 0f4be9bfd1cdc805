/* A secret scalar split for the constant-time multiplications of a
 * ceremony (phase2_ct_impl.h's ct_mul, the IFMA lanes of ct_lanes.h): a
 * masked absolute value, a long division under masks, and each half's
 * signed 4-bit windows, every step without a branch or an index that
 * depends on the scalar. */
#ifndef ZP_CEREMONY_CT_SPLIT_H
#define ZP_CEREMONY_CT_SPLIT_H

#include <stdint.h>
#include <string.h>

/* m = |v| and its sign as a mask (all ones when v < 0), v two's
 * complement mod 2^256: constant time. */
static inline uint64_t zp_p2_abs4_ct(uint64_t m[4], const uint64_t v[4]) {
    uint64_t mask = (uint64_t)0 - (v[3] >> 63);
    unsigned __int128 c = mask & 1;
    for (int i = 0; i < 4; i++) {
        c += v[i] ^ mask;
        m[i] = (uint64_t)c;
        c >>= 64;
    }
    return mask;
}
/* k = q·d + m, d nonzero of two limbs (so m < 2^128), in constant time:
 * the 256 steps of the long division subtract d under a mask, never by a
 * branch (the variable-time splits use it too: it costs the same). */
static inline void zp_p2_divmod_ct(uint64_t q[4], uint64_t m[4], const uint64_t k[4], const uint64_t d[2]) {
    uint64_t rem[3] = {0, 0, 0};
    memset(q, 0, 4 * sizeof *q);
    for (int i = 255; i >= 0; i--) {
        rem[2] = (rem[2] << 1) | (rem[1] >> 63);
        rem[1] = (rem[1] << 1) | (rem[0] >> 63);
        rem[0] = (rem[0] << 1) | ((k[i / 64] >> (i % 64)) & 1);
        unsigned __int128 t0 = (unsigned __int128)rem[0] - d[0];
        unsigned __int128 t1 = (unsigned __int128)rem[1] - d[1] - (uint64_t)((t0 >> 64) & 1);
        unsigned __int128 t2 = (unsigned __int128)rem[2] - (uint64_t)((t1 >> 64) & 1);
        uint64_t ge = (uint64_t)((t2 >> 64) & 1) ^ 1, mask = (uint64_t)0 - ge; /* no borrow: rem >= d */
        rem[0] ^= (rem[0] ^ (uint64_t)t0) & mask;
        rem[1] ^= (rem[1] ^ (uint64_t)t1) & mask;
        rem[2] ^= (rem[2] ^ (uint64_t)t2) & mask;
        q[i / 64] |= ge << (i % 64);
    }
    m[0] = rem[0];
    m[1] = rem[1];
    m[2] = m[3] = 0;
    explicit_bzero(rem, sizeof rem);
}
/* A half of a split secret scalar in signed 4-bit windows (Booth): 33
 * digits in [-8, 8), least significant first, each as |digit| and a
 * negation mask, for m < 2^128 (every half here is: the lattice's and
 * the divisions' bounds); neg flips every digit's sign (the half's). */
#define ZP_P2_CT_DIGITS 33
typedef struct zp_p2_ct_digits {
    uint64_t abs[ZP_P2_CT_DIGITS];
    uint64_t neg[ZP_P2_CT_DIGITS];
} zp_p2_ct_digits;
static inline void zp_p2_booth_ct(zp_p2_ct_digits *r, const uint64_t m[4], uint64_t neg) {
    uint64_t carry = 0;
    for (unsigned i = 0; i < ZP_P2_CT_DIGITS; i++) {
        unsigned sh = 4 * i;
        uint64_t val = ((m[sh / 64] >> (sh % 64)) & 15) + carry;
        carry = (val + 8) >> 4;
        uint64_t dg = val - (carry << 4); /* two's complement, in [-8, 8) */
        uint64_t sign = dg >> 63, mask = (uint64_t)0 - sign;
        r->abs[i] = (dg ^ mask) + sign;
        r->neg[i] = mask ^ neg;
    }
}
/* k = m1 ± m2·λ: the two halves' digits, what a constant-time k·P reads. */
typedef struct zp_p2_ct_scalar {
    zp_p2_ct_digits half[2];
} zp_p2_ct_scalar;
/* k = q·D + m (zp_p2_divmod_ct) into the halves' digits: k·P = m·P +
 * q·(D·P), D an endomorphism's eigenvalue of about 2^128. */
static inline void zp_p2_split_div_ct(zp_p2_ct_scalar *s, const uint64_t k[4], const uint64_t D[2]) {
    uint64_t q[4], m[4];
    zp_p2_divmod_ct(q, m, k, D);
    zp_p2_booth_ct(&s->half[0], m, 0);
    zp_p2_booth_ct(&s->half[1], q, 0);
    explicit_bzero(q, sizeof q), explicit_bzero(m, sizeof m);
}
/* Division by a one-limb divisor d with its top bit set, in constant time
 * in the dividend: Möller and Granlund's 2-by-1 division by the
 * reciprocal v = ⌊(2^128 − 1)/d⌋ − 2^64 (zp_p2_recip, of the public d), two
 * multiplications a limb and its two corrections under masks, where the
 * long division above takes 64 masked steps a bit. */
static inline uint64_t zp_p2_recip(uint64_t d) {
    return (uint64_t)((((unsigned __int128)~d) << 64 | ~(uint64_t)0) / d);
}
/* (u1·2^64 + u0) = q·d + *r for u1 < d: returns q */
static inline uint64_t zp_p2_div21_ct(uint64_t *r, uint64_t u1, uint64_t u0, uint64_t d, uint64_t v) {
    unsigned __int128 p = (unsigned __int128)v * u1 + (((unsigned __int128)u1 << 64) | u0);
    uint64_t q = (uint64_t)(p >> 64) + 1, rem = u0 - q * d;
    uint64_t mask = (uint64_t)0 - (uint64_t)((((unsigned __int128)(uint64_t)p - rem) >> 64) & 1); /* rem > p's low */
    q += mask;                                                                                    /* q − 1 */
    rem += mask & d;
    mask = (uint64_t)0 - ((uint64_t)((((unsigned __int128)rem - d) >> 64) & 1) ^ 1); /* rem >= d */
    q -= mask;
    rem -= mask & d;
    *r = rem;
    return q;
}
/* k = q·d + r over four limbs, d's top bit set: q into q, returns r */
static inline uint64_t zp_p2_div1_ct(uint64_t q[4], const uint64_t k[4], uint64_t d, uint64_t v) {
    uint64_t r = 0;
    for (int i = 3; i >= 0; i--) q[i] = zp_p2_div21_ct(&r, r, k[i], d, v);
    return r;
}
/* k = a0 + a1·x + a2·x² + a3·x³ with a0, a1, a2 < x, for x of one limb
 * with its top bit set (BLS12-381's |x|): three divisions by x. a3 < x
 * where k < x⁴, which every k < r is on BLS12-381 (r < x⁴). */
static inline void zp_p2_digits_x_ct(uint64_t a[4][4], const uint64_t k[4], uint64_t x) {
    const uint64_t v = zp_p2_recip(x);
    uint64_t t[4], u[4];
    memset(a, 0, 16 * sizeof(uint64_t));
    a[0][0] = zp_p2_div1_ct(t, k, x, v);
    a[1][0] = zp_p2_div1_ct(u, t, x, v);
    a[2][0] = zp_p2_div1_ct(t, u, x, v);
    memcpy(a[3], t, sizeof t);
    explicit_bzero(t, sizeof t), explicit_bzero(u, sizeof u);
}
/* a + b·x as two limbs (a, b, x of one limb each) */
static inline void zp_p2_mac_x(uint64_t m[4], uint64_t a, uint64_t b, uint64_t x) {
    unsigned __int128 t = (unsigned __int128)b * x + a;
    m[0] = (uint64_t)t, m[1] = (uint64_t)(t >> 64), m[2] = m[3] = 0;
}
/* The split m + q·x² from the digits a of zp_p2_digits_x_ct: m = a0 +
 * a1·x and q = a2 + a3·x into the halves of *s. */
static inline void zp_p2_split_of_digits(zp_p2_ct_scalar *s, const uint64_t a[4][4], uint64_t x) {
    uint64_t m[4];
    zp_p2_mac_x(m, a[0][0], a[1][0], x);
    zp_p2_booth_ct(&s->half[0], m, 0);
    zp_p2_mac_x(m, a[2][0], a[3][0], x);
    zp_p2_booth_ct(&s->half[1], m, 0);
    explicit_bzero(m, sizeof m);
}
/* zp_p2_split_div_ct for D = x², x of one limb with its top bit set
 * (BLS12-381's |x|; D = ZP_G_G1_D = ZP_G_G2_D): the same split. */
static inline void zp_p2_split_x2_ct(zp_p2_ct_scalar *s, const uint64_t k[4], uint64_t x) {
    uint64_t a[4][4];
    zp_p2_digits_x_ct(a, k, x);
    zp_p2_split_of_digits(s, (const uint64_t(*)[4])a, x);
    explicit_bzero(a, sizeof a);
}
/* The split of zp_p2_split_x2_ct into *s, and the same cut again at x,
 * the subgroup test's parameter, into s4: s4[0] holds (m mod x, q mod x)
 * = (a0, a2), s4[1] (m div x, q div x) = (a1, a3), so that k·P = Σ of the
 * four parts times P, [x]P, [x²]P and [x³]P. Every part is below 2^64
 * (k < r < x⁴), so ZP_P2_CT_X4_DIGITS windows of each hold it. */
#define ZP_P2_CT_X4_DIGITS 17 /* 16 windows of a 64-bit part and Booth's carry */
static inline void zp_p2_split_x4_ct(zp_p2_ct_scalar *s, zp_p2_ct_scalar s4[2], const uint64_t k[4], uint64_t x) {
    uint64_t a[4][4];
    zp_p2_digits_x_ct(a, k, x);
    zp_p2_split_of_digits(s, (const uint64_t(*)[4])a, x);
    for (int h = 0; h < 2; h++) {
        zp_p2_booth_ct(&s4[0].half[h], a[2 * h], 0);
        zp_p2_booth_ct(&s4[1].half[h], a[2 * h + 1], 0);
    }
    explicit_bzero(a, sizeof a);
}
#endif
