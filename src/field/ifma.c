#include "field/ifma.h"
#include "field/mont.h"

#include <stdlib.h>
#include <string.h>

int zp_ifma_available(void) {
#if defined(ZP_IFMA)
    return zp_cpu_has_ifma();
#else
    return 0;
#endif
}

zp_simd zp_simd_env(void) {
    const char *env = getenv("ZKPIPE_SIMD");
    if (env != NULL && strcmp(env, "0") == 0) return ZP_SIMD_OFF;
    if (env != NULL && strcmp(env, "avx2") == 0) return ZP_SIMD_AVX2;
    return ZP_SIMD_AUTO;
}

/* -1: not read yet. The CPU and the environment do not change while the
 * process runs, so this caches a fact, not a setting; the first reads may
 * race, and they all store the same value. */
static int ifma_default = -1;

int zp_ifma_default(void) {
    int v = __atomic_load_n(&ifma_default, __ATOMIC_RELAXED);
    if (v < 0) {
        v = zp_ifma_available() && zp_simd_env() == ZP_SIMD_AUTO;
        __atomic_store_n(&ifma_default, v, __ATOMIC_RELAXED);
    }
    return v;
}

int zp_ifma_enabled(const zp_parallel *par) {
    zp_simd s = par != NULL ? par->simd : ZP_SIMD_AUTO;
    if (s == ZP_SIMD_OFF) return 0;
    if (s == ZP_SIMD_IFMA) return zp_ifma_available();
    return zp_ifma_default();
}

void zp_ifma_field_init(zp_ifma_field *f, const uint64_t *p, size_t nw) {
    uint64_t inv = p[0];
    for (int i = 0; i < 6; i++) inv *= 2 - p[0] * inv; /* p^-1 mod 2^64, Newton */
    memset(f, 0, sizeof *f);
    for (size_t j = 0; 52 * j < 64 * nw; j++) { /* the 52-bit limbs of p */
        size_t bit = 52 * j, w = bit / 64, s = bit % 64;
        uint64_t v = p[w] >> s;
        if (s > 12 && w + 1 < nw) v |= p[w + 1] << (64 - s);
        f->p[j] = v & (((uint64_t)1 << 52) - 1);
    }
    f->n0 = (0 - inv) & (((uint64_t)1 << 52) - 1);
}
