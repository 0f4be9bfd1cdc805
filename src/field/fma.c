/* The four-lane FP64 FMA Montgomery product (field/fma.h), on the lane
 * arithmetic of field/fma_impl.h, whose functions carry their own target
 * attribute: this file needs no special flags and the rest of the build
 * none of those instructions. */
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

/* -1: not read yet; as ifma.c's, a cached fact */
static int fma_default = -1;

int zp_fma_default(void) {
    int v = __atomic_load_n(&fma_default, __ATOMIC_RELAXED);
    if (v < 0) {
        const char *env = getenv("ZKPIPE_SIMD");
        int asked = env != NULL && strcmp(env, "avx2") == 0; /* even beside IFMA (tests) */
        v = zp_fma_available() && (asked || (!zp_ifma_available() && !(env != NULL && strcmp(env, "0") == 0)));
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
#include "field/fma_impl.h"

__attribute__((target("avx2,fma"))) void zp_fma_mul(const zp_ifma_field *f, uint64_t *r, const uint64_t *a,
                                                    const uint64_t *b, size_t n) {
    static const uint64_t zero[4] = {0};
    zp_f8_field c;
    zp_f8_field_load(&c, f);
    unsigned csr = zp_f8_round_nearest();
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
