#include "field/ifma.h"

#include <stdlib.h>
#include <string.h>

/* -1: not decided yet. Atomic: the kernels ask from many threads, and
 * the first question may come from several at once (they all decide the
 * same). */
static int ifma_state = -1;

int zp_ifma_use(int mode) {
#if defined(ZP_IFMA)
    int have = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
#else
    int have = 0;
#endif
    if (mode >= 0) {
        __atomic_store_n(&ifma_state, have && mode != 0, __ATOMIC_RELAXED);
    } else if (__atomic_load_n(&ifma_state, __ATOMIC_RELAXED) < 0) {
        const char *env = getenv("ZKPIPE_SIMD");
        __atomic_store_n(&ifma_state, have && !(env != NULL && strcmp(env, "0") == 0), __ATOMIC_RELAXED);
    }
    return __atomic_load_n(&ifma_state, __ATOMIC_RELAXED);
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
