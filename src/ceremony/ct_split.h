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
/* The split k = m + q·D of zp_p2_split_div_ct into *s, and the same cut
 * again at x, the subgroup test's parameter (D = x², x of one limb), into
 * s4: s4[0] holds (m mod x, q mod x), s4[1] (m div x, q div x), so that
 * k·P = Σ of the four parts times P, [x]P, [x²]P and [x³]P. Every part is
 * below 2^64 where x has its top bit set, m < D (always) and q < D (k < r
 * and r < D·(D + 1), as for BLS12-381), so ZP_P2_CT_X4_DIGITS windows of
 * each hold it. Three of zp_p2_divmod_ct's divisions: constant time. */
#define ZP_P2_CT_X4_DIGITS 17 /* 16 windows of a 64-bit part and Booth's carry */
static inline void zp_p2_split_x4_ct(zp_p2_ct_scalar *s, zp_p2_ct_scalar s4[2], const uint64_t k[4],
                                     const uint64_t D[2], uint64_t x) {
    const uint64_t dx[2] = {x, 0};
    uint64_t q[4], m[4], hi[4], lo[4];
    zp_p2_divmod_ct(q, m, k, D);
    zp_p2_booth_ct(&s->half[0], m, 0);
    zp_p2_booth_ct(&s->half[1], q, 0);
    for (int h = 0; h < 2; h++) {
        zp_p2_divmod_ct(hi, lo, h ? q : m, dx);
        zp_p2_booth_ct(&s4[0].half[h], lo, 0);
        zp_p2_booth_ct(&s4[1].half[h], hi, 0);
    }
    explicit_bzero(q, sizeof q), explicit_bzero(m, sizeof m);
    explicit_bzero(lo, sizeof lo), explicit_bzero(hi, sizeof hi);
}
#endif
