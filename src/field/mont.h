/* Montgomery arithmetic on n 64-bit limbs, little-endian, for odd moduli
 * below 2^(64n-1). Each function takes the limb count as an argument; the
 * per-field wrappers in field_impl.h pass a constant, so after inlining the
 * loops are fully unrolled (blst's mul_mont_n shape: one implementation, the
 * modulus and its constants as parameters).
 *
 * zp_mont_mul_portable is the portable path (unsigned __int128), always
 * compiled. zp_mont_mul dispatches on the constant n and, on x86-64 builds
 * with ZP_FIELD_ADX (CMake option ZP_ADX, on by default there), on the CPU:
 * n = 4 and n = 6 go to the MULX/ADCX/ADOX inline asm in mont_x86_64.h when
 * the CPU has BMI2 and ADX, everything else to the portable code. Both give
 * the same fully reduced result. zp_mont_sqr does the same with the
 * squaring (zp_mont_sqr_portable and the asm in mont_sqr_x86_64.h), except
 * where the portable squaring measured slower than the multiplication.
 *
 * The CPU is asked once, before main (src/field/cpu.c, as blst's
 * __blst_platform_cap): the answer is kept there and read through
 * zp_field_adx_on(). No file is compiled with -mbmi2/-madx (the assembler
 * takes the instructions without them, and with them the compiler would
 * emit MULX and ADX anywhere), so one build runs on any x86-64. */
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
/* The quadratic extensions' products are kept out of line (one copy per
 * translation unit): inlined, each carried three inlined base products,
 * and the G2 and Fp12 formulas built of them grew to 20-55 KB apiece.
 * Text 4.8 -> 2.6 MB; a 2^11 one-shot proof's peak RSS 6.3 -> 5.7 MB (the
 * code it touches is resident, bench/results/2026-12-03-rss-fp2-outline.txt)
 * in the same time. "unused": a unit that takes none is quiet. */
#define ZP_OUTLINE static __attribute__((noinline, unused))
#define ZP_MAX_LIMBS 6

/* ZP_VERIFY builds (CMake option ZP_VERIFY; libsecp256k1's VERIFY): the
 * field wrappers check their invariants on every call and abort, naming
 * the function, when one does not hold. A failed check is a bug in the
 * caller, never bad input (readers validate before values become field
 * elements), so an abort is the honest answer, in tests only. */
#ifdef ZP_VERIFY
#include <stdio.h>
#include <stdlib.h>
__attribute__((noreturn, noinline, cold)) static void zp_verify_fail(const char *func, const char *what) {
    fprintf(stderr, "zkpipe VERIFY: %s: %s\n", func, what);
    abort();
}
#define ZP_VERIFY_CHECK(cond, what)                  \
    do {                                             \
        if (!(cond)) zp_verify_fail(__func__, what); \
    } while (0)
#else
#define ZP_VERIFY_CHECK(cond, what) ((void)0)
#endif

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
ZP_INLINE int zp_limbs_lt_var(const uint64_t *a, const uint64_t *b, size_t n) {
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

#if defined(__x86_64__)
#include <immintrin.h>
/* With the carry-flag intrinsics both compilers emit straight ADC/SBB
 * chains and CMOVs; the generic code leaves clang and gcc computing each
 * borrow as a separate 128-bit subtraction. They need no ADX (ADC and SBB
 * are baseline x86-64), so every x86-64 build uses them;
 * zp_mont_add_portable and zp_mont_sub_portable stay compiled for other
 * targets and for tests/test_field.c to compare against. */
#define ZP_ADDSUB_X86 1
#else
#define ZP_ADDSUB_X86 0
#endif

/* r = a + b mod p, for a, b < p: the generic code. */
ZP_INLINE void zp_mont_add_portable(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p, size_t n) {
    uint64_t s[ZP_MAX_LIMBS], t[ZP_MAX_LIMBS];
    uint64_t carry = zp_limbs_add(s, a, b, n);
    uint64_t borrow = zp_limbs_sub(t, s, p, n);
    /* keep s only when s < p, i.e. no carry and the subtraction borrowed */
    uint64_t keep = (uint64_t)0 - (borrow & (carry ^ 1));
    zp_limbs_select(r, keep, s, t, n);
}

/* r = a - b mod p, for a, b < p: the generic code. */
ZP_INLINE void zp_mont_sub_portable(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p, size_t n) {
    uint64_t d[ZP_MAX_LIMBS], t[ZP_MAX_LIMBS];
    uint64_t borrow = zp_limbs_sub(d, a, b, n);
    zp_limbs_add(t, d, p, n);
    zp_limbs_select(r, (uint64_t)0 - borrow, t, d, n);
}

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
    zp_mont_add_portable(r, a, b, p, n);
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
    zp_mont_sub_portable(r, a, b, p, n);
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
ZP_INLINE void zp_mont_mul_portable(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p, uint64_t n0,
                                    size_t n) {
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

/* r = a * a * 2^(-64n) mod p, for a < p: the square first, then its
 * Montgomery reduction (SOS, same paper). The square takes the products
 * a_i * a_j (i < j) once, doubles them and adds the diagonal a_i^2: n(n+1)/2
 * word products (10 instead of 16 for n = 4, 21 instead of 36 for n = 6).
 *
 * The reduction of T = a^2 = t_hi * R + t_lo (R = 2^(64n)) is REDC:
 * n rounds of m = t[i] * n0, T += m * p * 2^(64i), and then T / R. The
 * rounds only read the low half (each m depends on words below n), so they
 * run on u = t_lo alone, u = (u + m * p) / 2^64, and t_hi is added at the
 * end: (T + M p) / R = u + t_hi. That keeps every sum in its words, given
 * p < R / 2 (top limb below 2^63: BN254 p and r 0x3064..., BLS12-381 p
 * 0x1a01..., r 0x73ed...):
 *   - each round, u < R and m * p < 2^64 * R / 2, so u + m * p fits n + 1
 *     words and the new u < R / 2^64 + p < R;
 *   - after n rounds u = (t_lo + M p) / R < (R + R p) / R, so u <= p, and
 *     u + t_hi = (T + M p) / R < (p^2 + R p) / R < 3p / 2 < R: the add
 *     carries nothing out, and one subtraction of p reduces fully.
 * Adding t_hi into word n + i during round i (textbook SOS) would need a
 * carry word: between rounds that running value can reach R + p, one bit
 * over n words. */
ZP_INLINE void zp_mont_sqr_portable(uint64_t *r, const uint64_t *a, const uint64_t *p, uint64_t n0, size_t n) {
    uint64_t t[2 * ZP_MAX_LIMBS] = {0};
    /* row i adds a_i * a[i+1..n-1] from word 2i + 1 and ends in word n + i */
    for (size_t i = 0; i < n; i++) {
        uint64_t c = 0;
        for (size_t j = i + 1; j < n; j++) {
            zp_u128 uv = (zp_u128)a[i] * a[j] + t[i + j] + c;
            t[i + j] = (uint64_t)uv;
            c = (uint64_t)(uv >> 64);
        }
        t[i + n] = c;
    }
    /* double (no carry out: the off-diagonal sum is below a^2 / 2) and add
     * a_i^2 at word 2i */
    uint64_t c = 0;
    for (size_t i = 0; i < n; i++) {
        zp_u128 sq = (zp_u128)a[i] * a[i];
        zp_u128 s = (zp_u128)t[2 * i] + t[2 * i] + (uint64_t)sq + c;
        t[2 * i] = (uint64_t)s;
        s = (zp_u128)t[2 * i + 1] + t[2 * i + 1] + (uint64_t)(sq >> 64) + (uint64_t)(s >> 64);
        t[2 * i + 1] = (uint64_t)s;
        c = (uint64_t)(s >> 64);
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t m = t[0] * n0;
        zp_u128 uv = (zp_u128)m * p[0] + t[0];
        uint64_t C = (uint64_t)(uv >> 64);
        for (size_t j = 1; j < n; j++) {
            uv = (zp_u128)m * p[j] + t[j] + C;
            t[j - 1] = (uint64_t)uv;
            C = (uint64_t)(uv >> 64);
        }
        t[n - 1] = C;
    }
    zp_limbs_add(t, t, t + n, n);
    uint64_t s[ZP_MAX_LIMBS];
    uint64_t borrow = zp_limbs_sub(s, t, p, n);
    zp_limbs_select(r, (uint64_t)0 - borrow, t, s, n);
}

/* Turns the asm path on (mode 1, when the CPU and the build have it) or off
 * (mode 0) for the whole process, or only asks (mode < 0); returns whether
 * it is on. For tests and benchmarks: call it while no other thread does
 * field arithmetic. */
int zp_field_adx_use(int mode);
/* Whether the CPU has AVX-512F and IFMA and the OS saves their state
 * (asked by cpu.c's constructor; field/ifma.h decides what to do with it). */
int zp_cpu_has_ifma(void);
/* Whether the CPU has AVX2 and FMA and the OS saves the YMM state
 * (field/fma.h). */
int zp_cpu_has_fma(void);

#if defined(ZP_FIELD_ADX) && defined(__x86_64__)
#include "field/mont_sqr_x86_64.h"
#include "field/mont_x86_64.h"
#define ZP_MONT_MUL_ADX 1
/* The branch is one load and a compare that always goes the same way
 * (the asm's "memory" clobber makes the compiler reload the flag after each
 * call). The portable code it would take instead is called out of line,
 * one copy per limb count in cpu.c: inlined next to the asm at every call
 * site it made the library's code half as large again (3.7 to 5.5 MB) for
 * a path that runs only on CPUs older than Broadwell and Zen 1, or when
 * asked for. */
/* 1 while the asm path is on: the CPU has BMI2 and ADX, the build allows
 * it (ZP_FIELD_ADX) and neither ZKPIPE_ADX=0 nor zp_field_adx_use(0) turned
 * it off; 0 before cpu.c's constructor has run, so nothing can take an
 * instruction the CPU may lack. Marked const, so the compiler reads it
 * once per calling function and keeps it across the asm's "memory"
 * clobbers, where a load of a global would be redone after every
 * multiplication. */
int zp_field_adx_on(void) __attribute__((const, visibility("hidden")));
#define ZP_ADX_ON() __builtin_expect(zp_field_adx_on() != 0, 1)
void zp_mont_mul_4_portable(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p, uint64_t n0);
void zp_mont_mul_6_portable(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p, uint64_t n0);
void zp_mont_sqr_6_portable(uint64_t *r, const uint64_t *a, const uint64_t *p, uint64_t n0);
#else
#define ZP_MONT_MUL_ADX 0
#define ZP_ADX_ON() 0
#endif

/* r = a * b * 2^(-64n) mod p for a, b < p; r may alias a or b. */
ZP_INLINE void zp_mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p, uint64_t n0,
                           size_t n) {
#if ZP_MONT_MUL_ADX
    if (n == 4) {
        if (ZP_ADX_ON()) {
            zp_mont_mul_4_adx(r, a, b, p, n0);
        } else {
            zp_mont_mul_4_portable(r, a, b, p, n0);
        }
        return;
    }
    if (n == 6) {
        if (ZP_ADX_ON()) {
            zp_mont_mul_6_adx(r, a, b, p, n0);
        } else {
            zp_mont_mul_6_portable(r, a, b, p, n0);
        }
        return;
    }
#endif
    zp_mont_mul_portable(r, a, b, p, n0, n);
}

/* r = a * a * 2^(-64n) mod p for a < p; r may alias a.
 *
 * The asm squaring beats the asm mul at both sizes (bench/kernels.c field
 * rows, same run, AMD EPYC: 11.4-11.7 against 12.3-12.5 ns for 4 limbs,
 * 24.3-24.7 against 25.5-25.8 ns for 6; callgrind 148 against 159 and 291
 * against 316 instructions a call). The portable squaring pays only from 6
 * limbs: 46.8 against 51.2 ns (gcc 12, ZP_ADX=OFF), while for 4 limbs it
 * ran 10% (gcc 12: 426 against 395 instructions) and 5% (clang 14) slower
 * than zp_mont_mul_portable, so smaller n square with the mul. */
ZP_INLINE void zp_mont_sqr(uint64_t *r, const uint64_t *a, const uint64_t *p, uint64_t n0, size_t n) {
#if ZP_MONT_MUL_ADX
    if (n == 4) {
        if (ZP_ADX_ON()) {
            zp_mont_sqr_4_adx(r, a, p, n0);
        } else {
            zp_mont_mul_4_portable(r, a, a, p, n0);
        }
        return;
    }
    if (n == 6) {
        if (ZP_ADX_ON()) {
            zp_mont_sqr_6_adx(r, a, p, n0);
        } else {
            zp_mont_sqr_6_portable(r, a, p, n0);
        }
        return;
    }
#endif
    if (n < 6) {
        zp_mont_mul_portable(r, a, a, p, n0, n);
        return;
    }
    zp_mont_sqr_portable(r, a, p, n0, n);
}

#endif
