/* The four-lane FP64 FMA Montgomery product (field/fma.h), on the lane
 * arithmetic of field/fma_impl.h, whose functions carry their own target
 * attribute: this file needs no special flags and the rest of the build
 * none of those instructions. */
#include "field/fma.h"
#include "field/mont.h"

#include <stdlib.h>

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define ZP_FMA 1
#endif

#if defined(ZP_FMA)
#include "field/fma_impl.h"

/* Whether the rounding toward -inf takes effect: an emulator may ignore
 * MXCSR's rounding field (valgrind rounds every SSE and AVX operation to
 * nearest), and then the lanes' products would be wrong, so the lanes
 * are not available there. The inputs are read and the results written
 * through volatile, so that the compiler can neither fold the operations
 * with its own (nearest) rounding nor move them out from between the
 * MXCSR writes. */
__attribute__((target("avx2,fma"))) static int rounding_down_works(void) {
    static volatile double one = 1.0, tiny = 0x1p-60, big = 0x1p52 - 1.0, three = 3.0;
    volatile double x, y;
    unsigned csr = zp_f8_round_down();
    /* 1 - 2^-60 rounds down to 1 - 2^-53; 2^104 + 3·(2^52 - 1), a product
     * as the lanes form them, to 2^104 + 2^53 where nearest gives 2^104 +
     * 3·2^52 */
    x = _mm256_cvtsd_f64(_mm256_fmadd_pd(_mm256_set1_pd(one), _mm256_set1_pd(one), _mm256_set1_pd(-tiny)));
    y = _mm256_cvtsd_f64(_mm256_fmadd_pd(_mm256_set1_pd(big), _mm256_set1_pd(three), _mm256_set1_pd(0x1p104)));
    zp_f8_round_restore(csr);
    return x == 1.0 - 0x1p-53 && y == 0x1p104 + 0x1p53;
}
#endif

/* -1: not asked yet; a cached fact, as below */
static int fma_works = -1;

int zp_fma_available(void) {
#if defined(ZP_FMA)
    int v = __atomic_load_n(&fma_works, __ATOMIC_RELAXED);
    if (v < 0) {
        v = zp_cpu_has_fma() && rounding_down_works();
        __atomic_store_n(&fma_works, v, __ATOMIC_RELAXED);
    }
    return v;
#else
    return 0;
#endif
}

/* -1: not read yet; as ifma.c's, a cached fact */
static int fma_default = -1;

int zp_fma_default(void) {
    int v = __atomic_load_n(&fma_default, __ATOMIC_RELAXED);
    if (v < 0) {
        zp_simd env = zp_simd_env();
        v = zp_fma_available() && (env == ZP_SIMD_AVX2 || (env == ZP_SIMD_AUTO && !zp_ifma_available()));
        __atomic_store_n(&fma_default, v, __ATOMIC_RELAXED);
    }
    return v;
}

int zp_fma_enabled(const zp_parallel *par) {
    zp_simd s = par != NULL ? par->simd : ZP_SIMD_AUTO;
    if (s == ZP_SIMD_AVX2) return zp_fma_available();
    return s == ZP_SIMD_AUTO && zp_fma_default();
}

#if defined(ZP_FMA)
__attribute__((target("avx2,fma"))) void zp_fma_mul(const zp_ifma_field *f, uint64_t *r, const uint64_t *a,
                                                    const uint64_t *b, size_t n) {
    static const uint64_t zero[4] = {0};
    zp_f8_field c;
    zp_f8_field_load(&c, f);
    unsigned csr = zp_f8_round_down();
    for (size_t at = 0; at < n; at += 8) {
        /* the lanes past n read zeros and store nothing */
        const uint64_t *ea[8], *eb[8];
        uint64_t *er[8];
        unsigned mask = 0;
        for (size_t k = 0; k < 8; k++) {
            int in = at + k < n;
            ea[k] = in ? a + 4 * (at + k) : zero;
            eb[k] = in ? b + 4 * (at + k) : zero;
            er[k] = in ? r + 4 * (at + k) : NULL;
            mask |= (unsigned)in << k;
        }
        zp_f8 x, y;
        zp_f8_load8(&x, ea, &c);
        zp_f8_load8(&y, eb, &c);
        zp_f8_mul_r(&x, &x, &y, &c);
        zp_f8_store8(er, &x, mask);
    }
    zp_f8_round_restore(csr);
}

#else

void zp_fma_mul(const zp_ifma_field *f, uint64_t *r, const uint64_t *a, const uint64_t *b, size_t n) {
    (void)f, (void)r, (void)a, (void)b, (void)n;
    abort();
}
#endif
