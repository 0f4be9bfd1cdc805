#include "groth16/keys.h"

#include <stdlib.h>

size_t zp_fp_bytes(zp_curve curve) {
    switch (curve) {
    case ZP_CURVE_BN254: return 32;
    case ZP_CURVE_BLS12_381: return 48;
    default: return 0;
    }
}

size_t zp_g1_bytes(zp_curve curve) { return 2 * zp_fp_bytes(curve); }

size_t zp_g2_bytes(zp_curve curve) { return 4 * zp_fp_bytes(curve); }

void zp_groth16_vk_free(zp_groth16_vk *vk) {
    if (vk == NULL) return;
    free(vk->ic);
    vk->ic = NULL;
}
