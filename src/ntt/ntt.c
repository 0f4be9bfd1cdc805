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

#define ZP_N zp_bn254_fr
#define ZP_N_UP ZP_BN254
#include "ntt/ntt_impl.h"
#define ZP_N zp_bls12_fr
#define ZP_N_UP ZP_BLS12
#include "ntt/ntt_impl.h"
