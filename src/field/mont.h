/* Montgomery arithmetic on n 64-bit limbs, little-endian, for odd moduli
 * below 2^(64n-1). Each function takes the limb count as an argument; the
 * per-field wrappers in field_impl.h pass a constant, so after inlining the
 * loops are fully unrolled (blst's mul_mont_n shape: one implementation, the
 * modulus and its constants as parameters).
 *
 * zp_mont_mul_portable is the portable path (unsigned __int128), always
 * compiled. zp_mont_mul dispatches on the constant n: with ZP_FIELD_ADX on
 * x86-64 (CMake option ZP_ADX, needs BMI2 + ADX) n = 4 and n = 6 go to the
 * MULX/ADCX/ADOX inline asm in mont_x86_64.h, everything else to the
 * portable code. Both give the same fully reduced result. */
#ifndef ZP_FIELD_MONT_H
#define ZP_FIELD_MONT_H

#include <stddef.h>
#include <stdint.h>

/* Hot arithmetic is forced inline so the per-field wrappers unroll; the
 * sanitizer builds leave the choice to the compiler, which keeps their
 * instrumented code (and compile time) an order of magnitude smaller. */
#ifdef ZP_NO_FORCE_INLINE
#define ZP_INLINE static inline
#else
#define ZP_INLINE static inline __attribute__((always_inline))
#endif
#define ZP_MAX_LIMBS 6

typedef unsigned __int128 zp_u128;

/* r = a + b, returns the carry out. */
ZP_INLINE uint64_t zp_limbs_add(uint64_t *r, const uint64_t *a, const uint64_t *b, size_t n) {
    uint64_t carry = 0;
    for (size_t i = 0; i < n; i++) {
        zp_u128 t = (zp_u128)a[i] + b[i] + carry;
        r[i] = (uint64_t)t;
        carry = (uint64_t)(t >> 64);
    }
    return carry;
}

/* r = a - b, returns the borrow out (1 when a < b). */
ZP_INLINE uint64_t zp_limbs_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, size_t n) {
    uint64_t borrow = 0;
    for (size_t i = 0; i < n; i++) {
        zp_u128 t = (zp_u128)a[i] - b[i] - borrow;
        r[i] = (uint64_t)t;
        borrow = (uint64_t)(t >> 64) & 1;
    }
    return borrow;
}

/* Constant-time select: r = mask ? a : b, mask all ones or zero. */
ZP_INLINE void zp_limbs_select(uint64_t *r, uint64_t mask, const uint64_t *a, const uint64_t *b, size_t n) {
    for (size_t i = 0; i < n; i++) r[i] = (a[i] & mask) | (b[i] & ~mask);
}

/* 1 when a < b (variable time; for validating inputs). */
ZP_INLINE int zp_limbs_lt(const uint64_t *a, const uint64_t *b, size_t n) {
    for (size_t i = n; i-- > 0;) {
        if (a[i] != b[i]) return a[i] < b[i];
    }
    return 0;
}

ZP_INLINE int zp_limbs_is_zero(const uint64_t *a, size_t n) {
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++) acc |= a[i];
    return acc == 0;
}

#if defined(ZP_FIELD_ADX) && defined(__x86_64__)
#include <immintrin.h>
/* With the carry-flag intrinsics both compilers emit straight ADC/SBB
 * chains and CMOVs; the generic code below leaves clang and gcc computing
 * each borrow as a separate 128-bit subtraction. (They need no ADX, but
 * they go with the assembly multiplication so that a -DZP_ADX=OFF build
 * runs, and tests, the generic code throughout.) */
#define ZP_ADDSUB_X86 1
#else
#define ZP_ADDSUB_X86 0
#endif

/* r = a + b mod p, for a, b < p. */
ZP_INLINE void zp_mont_add(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p, size_t n) {
#if ZP_ADDSUB_X86
    /* p < 2^(64n-1), so a + b < 2^(64n): no carry out */
    unsigned long long s[ZP_MAX_LIMBS], t[ZP_MAX_LIMBS];
    unsigned char c = 0, borrow = 0;
    for (size_t i = 0; i < n; i++) c = _addcarry_u64(c, a[i], b[i], &s[i]);
    for (size_t i = 0; i < n; i++) borrow = _subborrow_u64(borrow, s[i], p[i], &t[i]);
    uint64_t keep = (uint64_t)0 - borrow; /* s < p */
    for (size_t i = 0; i < n; i++) r[i] = (s[i] & keep) | (t[i] & ~keep);
#else
    uint64_t s[ZP_MAX_LIMBS], t[ZP_MAX_LIMBS];
    uint64_t carry = zp_limbs_add(s, a, b, n);
    uint64_t borrow = zp_limbs_sub(t, s, p, n);
    /* keep s only when s < p, i.e. no carry and the subtraction borrowed */
    uint64_t keep = (uint64_t)0 - (borrow & (carry ^ 1));
    zp_limbs_select(r, keep, s, t, n);
#endif
}

/* r = a - b mod p, for a, b < p. */
ZP_INLINE void zp_mont_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p, size_t n) {
#if ZP_ADDSUB_X86
    unsigned long long d[ZP_MAX_LIMBS];
    unsigned char borrow = 0, c = 0;
    for (size_t i = 0; i < n; i++) borrow = _subborrow_u64(borrow, a[i], b[i], &d[i]);
    uint64_t mask = (uint64_t)0 - borrow; /* add p back when a < b */
    for (size_t i = 0; i < n; i++) c = _addcarry_u64(c, d[i], p[i] & mask, &d[i]);
    for (size_t i = 0; i < n; i++) r[i] = d[i];
#else
    uint64_t d[ZP_MAX_LIMBS], t[ZP_MAX_LIMBS];
    uint64_t borrow = zp_limbs_sub(d, a, b, n);
    zp_limbs_add(t, d, p, n);
    zp_limbs_select(r, (uint64_t)0 - borrow, t, d, n);
#endif
}

/* r = -a mod p. */
ZP_INLINE void zp_mont_neg(uint64_t *r, const uint64_t *a, const uint64_t *p, size_t n) {
    uint64_t t[ZP_MAX_LIMBS];
    zp_limbs_sub(t, p, a, n);
    uint64_t zero = (uint64_t)0 - (uint64_t)zp_limbs_is_zero(a, n);
    for (size_t i = 0; i < n; i++) r[i] = t[i] & ~zero;
}

/* r = a * b * 2^(-64n) mod p: CIOS (Koc, Acar, Kaliski, "Analyzing and
 * comparing Montgomery multiplication algorithms", 1996) with the no-carry
 * shortcut (as in gnark-crypto): when the top limb of p is below
 * 2^63 - 1, which holds for all four moduli here, the running sum fits n
 * limbs plus the two carries A and C, so no (n+1)-th and (n+2)-th limbs. */
ZP_INLINE void zp_mont_mul_portable(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p,
                                    uint64_t n0, size_t n) {
    uint64_t t[ZP_MAX_LIMBS] = {0};
    for (size_t i = 0; i < n; i++) {
        uint64_t bi = b[i];
        zp_u128 uv = (zp_u128)a[0] * bi + t[0];
        uint64_t A = (uint64_t)(uv >> 64);
        uint64_t t0 = (uint64_t)uv;
        uint64_t m = t0 * n0;
        zp_u128 c = (zp_u128)m * p[0] + t0;
        uint64_t C = (uint64_t)(c >> 64);
        for (size_t j = 1; j < n; j++) {
            uv = (zp_u128)a[j] * bi + t[j] + A;
            A = (uint64_t)(uv >> 64);
            c = (zp_u128)m * p[j] + (uint64_t)uv + C;
            C = (uint64_t)(c >> 64);
            t[j - 1] = (uint64_t)c;
        }
        t[n - 1] = C + A;
    }
    /* t < 2p: subtract p once when t >= p */
    uint64_t s[ZP_MAX_LIMBS];
    uint64_t borrow = zp_limbs_sub(s, t, p, n);
    zp_limbs_select(r, (uint64_t)0 - borrow, t, s, n);
}

#if defined(ZP_FIELD_ADX) && defined(__x86_64__)
#include "field/mont_x86_64.h"
#define ZP_MONT_MUL_ADX 1
#else
#define ZP_MONT_MUL_ADX 0
#endif

/* r = a * b * 2^(-64n) mod p for a, b < p; r may alias a or b. */
ZP_INLINE void zp_mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p, uint64_t n0,
                           size_t n) {
#if ZP_MONT_MUL_ADX
    if (n == 4) {
        zp_mont_mul_4_adx(r, a, b, p, n0);
        return;
    }
    if (n == 6) {
        zp_mont_mul_6_adx(r, a, b, p, n0);
        return;
    }
#endif
    zp_mont_mul_portable(r, a, b, p, n0, n);
}

#endif
