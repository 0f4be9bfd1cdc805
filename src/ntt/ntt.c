#include "ntt/ntt.h"

#include <stdlib.h>
#include <string.h>

#include "base/parallel.h"
#include "ntt/ntt_simd.h"

static int simd_state = -1; /* -1: not decided yet */

int zp_ntt_simd(int mode) {
#if defined(ZP_NTT_IFMA)
    int have = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
#else
    int have = 0;
#endif
    if (mode >= 0) {
        simd_state = have && mode != 0;
    } else if (simd_state < 0) {
        const char *env = getenv("ZKPIPE_SIMD");
        simd_state = have && !(env != NULL && strcmp(env, "0") == 0);
    }
    return simd_state;
}

void zp_ntt_simd_field_init(zp_ntt_simd_field *f, const uint64_t p[4]) {
    uint64_t inv = p[0];
    for (int i = 0; i < 6; i++) inv *= 2 - p[0] * inv; /* p^-1 mod 2^64, Newton */
    zp_ntt_tw pt;
    zp_ntt_tw_from_limbs(&pt, p);
    memcpy(f->p, pt.l, sizeof pt.l);
    f->n0 = (0 - inv) & (((uint64_t)1 << 52) - 1);
}

#define ZP_N zp_bn254_fr
#define ZP_N_UP ZP_BN254
#include "ntt/ntt_impl.h"
#define ZP_N zp_bls12_fr
#define ZP_N_UP ZP_BLS12
#include "ntt/ntt_impl.h"
