#include "groth16/keys.h"

#include <stdlib.h>

#include "curve/desc.h"

/* 0 for an unknown curve, which callers treat as "no such curve". */
size_t zp_fp_bytes(zp_curve curve) {
    const zp_curve_desc *d = zp_curve_get(curve);
    return d != NULL ? d->fp_bytes : 0;
}

size_t zp_g1_bytes(zp_curve curve) {
    const zp_curve_desc *d = zp_curve_get(curve);
    return d != NULL ? d->g1_bytes : 0;
}

size_t zp_g2_bytes(zp_curve curve) {
    const zp_curve_desc *d = zp_curve_get(curve);
    return d != NULL ? d->g2_bytes : 0;
}

void zp_groth16_vk_free(zp_groth16_vk *vk) {
    if (vk == NULL) return;
    free(vk->ic);
    vk->ic = NULL;
}
