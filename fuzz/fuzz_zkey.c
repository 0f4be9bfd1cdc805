/* libFuzzer: .zkey reader. Any input must give a clean error or a key. */
#include <stddef.h>
#include <stdint.h>

#include "io/zkey.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    zp_zkey *z = NULL;
    zp_error err;
    if (zp_zkey_open_mem(&z, data, size, "fuzz.zkey", &err) == ZP_OK) {
        /* Touch what the prover would read, so a bad pointer shows up. */
        const zp_groth16_pk *pk = zp_zkey_pk(z);
        volatile uint8_t sink = 0;
        size_t g1 = zp_g1_bytes(pk->curve), g2 = zp_g2_bytes(pk->curve);
        if (pk->n_coefs) sink ^= pk->coefs[pk->n_coefs * ZP_ZKEY_COEF_BYTES - 1];
        sink ^= ((const uint8_t *)pk->ic)[(pk->n_public + 1) * g1 - 1];
        sink ^= ((const uint8_t *)pk->a)[pk->n_vars * g1 - 1];
        sink ^= ((const uint8_t *)pk->b2)[pk->n_vars * g2 - 1];
        sink ^= ((const uint8_t *)pk->h)[pk->domain_size * g1 - 1];
        (void)sink;
        zp_zkey_close(z);
    }
    return 0;
}
