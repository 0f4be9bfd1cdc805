/* The four-lane FP64 FMA Montgomery product (field/fma.h). The functions
 * that use AVX2 and FMA carry their own target attribute, so this file
 * needs no special flags and the rest of the build none of those
 * instructions. */
#include "field/fma.h"
#include "field/mont.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define ZP_FMA 1
#endif

int zp_fma_available(void) {
#if defined(ZP_FMA)
    return zp_cpu_has_fma();
#else
    return 0;
#endif
}

#if defined(ZP_FMA)
#include <immintrin.h>

#define FV static inline __attribute__((always_inline, target("avx2,fma")))
#if defined(__clang__)
#define UNROLL _Pragma("clang loop unroll(full)")
#else
#define UNROLL _Pragma("GCC unroll 16")
#endif

#define NL 5 /* 52-bit limbs of a 4-word element */
#define K 2  /* products of four lanes interleaved: one alone waits on its chain */
#define MASK52 (((uint64_t)1 << 52) - 1)
#define C104 0x1p104
#define C104P52 (0x1p104 + 0x1p52)
#define BITS104 0x4670000000000000ULL /* the bit patterns of 2^104 and 2^52 */
#define BITS52 0x4330000000000000ULL

/* limb j of the four lanes of product k at v[k][j] */
typedef struct {
    __m256i v[K][NL];
} lanes;

/* x < 2^52 as a double: 2^52 + x has x as its mantissa */
FV __m256d to_double(__m256i x) {
    return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(x, _mm256_set1_epi64x((long long)BITS52))),
                         _mm256_set1_pd(0x1p52));
}

/* hi += H + BITS104, lo += a·b - H·2^52 + BITS52, H = floor(a·b / 2^52) */
FV void product(__m256i *hi, __m256i *lo, __m256d a, __m256d b) {
    __m256d h = _mm256_fmadd_pd(a, b, _mm256_set1_pd(C104));
    __m256d l = _mm256_fmadd_pd(a, b, _mm256_sub_pd(_mm256_set1_pd(C104P52), h));
    *hi = _mm256_add_epi64(*hi, _mm256_castpd_si256(h));
    *lo = _mm256_add_epi64(*lo, _mm256_castpd_si256(l));
}

/* r = a·b / 2^260 mod p, below 2p for a·b < 16p², K products of four
 * lanes. Operand scanning: round i adds a·b_i, then m·p with m = t_i·n0
 * mod 2^52, whose low limb is left out: t_i + lo(m·p_0) = 0 mod 2^52, so
 * what moves up is t_i / 2^52 rounded up. The accumulators hold the
 * constants' bit patterns too, off[] of them per column (the same in
 * every lane; the unrolled loops make them compile-time constants); each
 * column's are taken out before its value is shifted or stored, and its
 * true value, at most 2·NL + 2 terms below 2^52, fits. */
FV void mont(lanes *r, const lanes *a, const lanes *b, const __m256d p[NL], __m256i n0_lo, __m256i n0_hi) {
    const __m256i mask = _mm256_set1_epi64x((long long)MASK52), m26 = _mm256_set1_epi64x((1 << 26) - 1);
    __m256d ad[K][NL], bd[K][NL];
    __m256i t[K][2 * NL + 1];
    uint64_t off[2 * NL + 1] = {0};
    UNROLL for (int k = 0; k < K; k++) {
        UNROLL for (int j = 0; j < NL; j++) {
            ad[k][j] = to_double(a->v[k][j]);
            bd[k][j] = to_double(b->v[k][j]);
        }
        UNROLL for (int j = 0; j <= 2 * NL; j++) t[k][j] = _mm256_setzero_si256();
    }
    UNROLL for (int i = 0; i < NL; i++) {
        UNROLL for (int j = 0; j < NL; j++) {
            UNROLL for (int k = 0; k < K; k++) product(&t[k][i + j + 1], &t[k][i + j], ad[k][j], bd[k][i]);
            off[i + j + 1] += BITS104;
            off[i + j] += BITS52;
        }
        UNROLL for (int k = 0; k < K; k++) {
            /* m = t_i·n0 mod 2^52 from 26-bit halves (the integer unit's
             * 32-bit products: shorter than the FP path's chain) */
            __m256i ti = t[k][i];
            __m256i lo = _mm256_and_si256(ti, m26), hi = _mm256_and_si256(_mm256_srli_epi64(ti, 26), m26);
            __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(lo, n0_hi), _mm256_mul_epu32(hi, n0_lo));
            __m256i m = _mm256_add_epi64(_mm256_mul_epu32(lo, n0_lo), _mm256_slli_epi64(cross, 26));
            __m256d md = to_double(_mm256_and_si256(m, mask));
            ti = _mm256_sub_epi64(ti, _mm256_set1_epi64x((long long)off[i]));
            t[k][i + 1] = _mm256_add_epi64(t[k][i + 1], _mm256_srli_epi64(_mm256_add_epi64(ti, mask), 52));
            t[k][i + 1] = _mm256_add_epi64(t[k][i + 1],
                                           _mm256_castpd_si256(_mm256_fmadd_pd(md, p[0], _mm256_set1_pd(C104))));
            UNROLL for (int j = 1; j < NL; j++) product(&t[k][i + j + 1], &t[k][i + j], md, p[j]);
        }
        off[i + 1] += BITS104;
        UNROLL for (int j = 1; j < NL; j++) {
            off[i + j + 1] += BITS104;
            off[i + j] += BITS52;
        }
    }
    UNROLL for (int k = 0; k < K; k++) {
        __m256i x[NL];
        UNROLL for (int j = 0; j < NL; j++) x[j] = _mm256_sub_epi64(t[k][NL + j], _mm256_set1_epi64x((long long)off[NL + j]));
        UNROLL for (int j = 0; j + 1 < NL; j++) {
            x[j + 1] = _mm256_add_epi64(x[j + 1], _mm256_srli_epi64(x[j], 52));
            r->v[k][j] = _mm256_and_si256(x[j], mask);
        }
        r->v[k][NL - 1] = x[NL - 1];
    }
}

/* four rows of four words to four columns, and back (its own inverse) */
FV void transpose(__m256i w[4]) {
    __m256i t0 = _mm256_unpacklo_epi64(w[0], w[1]), t1 = _mm256_unpackhi_epi64(w[0], w[1]);
    __m256i t2 = _mm256_unpacklo_epi64(w[2], w[3]), t3 = _mm256_unpackhi_epi64(w[2], w[3]);
    w[0] = _mm256_permute2x128_si256(t0, t2, 0x20);
    w[1] = _mm256_permute2x128_si256(t1, t3, 0x20);
    w[2] = _mm256_permute2x128_si256(t0, t2, 0x31);
    w[3] = _mm256_permute2x128_si256(t1, t3, 0x31);
}

/* four values (16 words from v), times 2^shift (0 or 4), to limbs */
FV void load4(__m256i l[NL], const uint64_t *v, int shift) {
    const __m256i mask = _mm256_set1_epi64x((long long)MASK52);
    __m256i w[4], top = _mm256_setzero_si256();
    for (int i = 0; i < 4; i++) w[i] = _mm256_loadu_si256((const __m256i *)(v + 4 * i));
    transpose(w);
    if (shift) {
        top = _mm256_srli_epi64(w[3], 60);
        for (int i = 3; i > 0; i--) w[i] = _mm256_or_si256(_mm256_slli_epi64(w[i], 4), _mm256_srli_epi64(w[i - 1], 60));
        w[0] = _mm256_slli_epi64(w[0], 4);
    }
    l[0] = _mm256_and_si256(w[0], mask);
    l[1] = _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi64(w[0], 52), _mm256_slli_epi64(w[1], 12)), mask);
    l[2] = _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi64(w[1], 40), _mm256_slli_epi64(w[2], 24)), mask);
    l[3] = _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi64(w[2], 28), _mm256_slli_epi64(w[3], 36)), mask);
    l[4] = _mm256_or_si256(_mm256_srli_epi64(w[3], 16), _mm256_slli_epi64(top, 48));
}

/* limbs of four values below 2p (< 2^256) to 16 words at v, less p
 * where not below it */
FV void store4(uint64_t *v, const __m256i l[NL], const __m256i p[NL]) {
    const __m256i mask = _mm256_set1_epi64x((long long)MASK52);
    __m256i d[NL], borrow = _mm256_setzero_si256(), w[4];
    for (int j = 0; j < NL; j++) {
        __m256i x = _mm256_sub_epi64(_mm256_sub_epi64(l[j], p[j]), borrow);
        borrow = _mm256_srli_epi64(x, 63);
        d[j] = _mm256_and_si256(x, mask);
    }
    /* borrow out: the value was below p, keep it */
    __m256i keep = _mm256_cmpeq_epi64(borrow, _mm256_set1_epi64x(1)), c[NL];
    for (int j = 0; j < NL; j++) c[j] = _mm256_blendv_epi8(d[j], l[j], keep);
    w[0] = _mm256_or_si256(c[0], _mm256_slli_epi64(c[1], 52));
    w[1] = _mm256_or_si256(_mm256_srli_epi64(c[1], 12), _mm256_slli_epi64(c[2], 40));
    w[2] = _mm256_or_si256(_mm256_srli_epi64(c[2], 24), _mm256_slli_epi64(c[3], 28));
    w[3] = _mm256_or_si256(_mm256_srli_epi64(c[3], 36), _mm256_slli_epi64(c[4], 16));
    transpose(w);
    for (int i = 0; i < 4; i++) _mm256_storeu_si256((__m256i *)(v + 4 * i), w[i]);
}

__attribute__((target("avx2,fma"))) void zp_fma_mul(const zp_ifma_field *f, uint64_t *r, const uint64_t *a,
                                                    const uint64_t *b, size_t n) {
    __m256d p[NL];
    __m256i pi[NL];
    for (int j = 0; j < NL; j++) {
        p[j] = _mm256_set1_pd((double)f->p[j]);
        pi[j] = _mm256_set1_epi64x((long long)f->p[j]);
    }
    __m256i n0_lo = _mm256_set1_epi64x((long long)(f->n0 & ((1 << 26) - 1)));
    __m256i n0_hi = _mm256_set1_epi64x((long long)(f->n0 >> 26));
    unsigned csr = _mm_getcsr();
    _mm_setcsr((csr & ~0x6000u) | 0x2000u); /* rounding toward -inf */
    for (size_t at = 0; at < n; at += 4 * K) {
        /* a last partial group goes through zero-padded copies */
        uint64_t ta[4 * K * 4], tb[4 * K * 4], tr[4 * K * 4];
        const uint64_t *ga = a + 4 * at, *gb = b + 4 * at;
        uint64_t *gr = r + 4 * at;
        size_t count = n - at < 4 * K ? n - at : 4 * K;
        if (count < 4 * K) {
            memset(ta, 0, sizeof ta);
            memset(tb, 0, sizeof tb);
            memcpy(ta, ga, 32 * count);
            memcpy(tb, gb, 32 * count);
            ga = ta, gb = tb, gr = tr;
        }
        lanes la, lb, lr;
        for (int k = 0; k < K; k++) {
            load4(la.v[k], ga + 16 * k, 1);
            load4(lb.v[k], gb + 16 * k, 0);
        }
        mont(&lr, &la, &lb, p, n0_lo, n0_hi);
        for (int k = 0; k < K; k++) store4(gr + 16 * k, lr.v[k], pi);
        if (count < 4 * K) memcpy(r + 4 * at, tr, 32 * count);
    }
    _mm_setcsr(csr);
}

#else

void zp_fma_mul(const zp_ifma_field *f, uint64_t *r, const uint64_t *a, const uint64_t *b, size_t n) {
    (void)f, (void)r, (void)a, (void)b, (void)n;
    abort();
}
#endif
