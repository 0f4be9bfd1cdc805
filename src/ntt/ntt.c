#include "ntt/ntt.h"

#include <string.h>

#include "base/parallel.h"
#include "ntt/ntt_simd.h"

#define ZP_N zp_bn254_fr
#define ZP_N_UP ZP_BN254
#include "ntt/ntt_impl.h"
#define ZP_N zp_bls12_fr
#define ZP_N_UP ZP_BLS12
#include "ntt/ntt_impl.h"
