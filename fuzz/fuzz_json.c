/* libFuzzer: the three JSON readers. The first byte picks the reader (and
 * the curve for public.json); the rest is the text. A parsed proof or key
 * must dump back to JSON that parses to the same value. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    int kind = data[0] % 3;
    zp_curve curve = (data[0] & 4) ? ZP_CURVE_BLS12_381 : ZP_CURVE_BN254;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    zp_error err;
    char *out = NULL;
    if (kind == 0) {
        zp_groth16_proof p, q;
        if (zp_json_proof_parse(&p, text, len, "fuzz.json", ZP_CURVE_NONE, &err) != ZP_OK) return 0;
        if (zp_json_proof_dump(&out, &p, &err) != ZP_OK) abort();
        if (zp_json_proof_parse(&q, out, strlen(out), "dump", p.curve, &err) != ZP_OK) abort();
        if (memcmp(&p, &q, sizeof p) != 0) abort();
    } else if (kind == 1) {
        uint64_t *v;
        size_t n;
        if (zp_json_public_parse(&v, &n, text, len, "fuzz.json", curve, &err) != ZP_OK) return 0;
        if (zp_json_public_dump(&out, v, n, &err) != ZP_OK) abort();
        free(v);
    } else {
        zp_groth16_vk vk, back;
        if (zp_json_vk_parse(&vk, text, len, "fuzz.json", &err) != ZP_OK) return 0;
        uint64_t ab[72] = {0};
        if (zp_json_vk_dump(&out, &vk, ab, &err) != ZP_OK) abort();
        if (zp_json_vk_parse(&back, out, strlen(out), "dump", &err) != ZP_OK) abort();
        if (back.n_public != vk.n_public || memcmp(back.beta2, vk.beta2, sizeof vk.beta2) != 0) abort();
        zp_groth16_vk_free(&back);
        zp_groth16_vk_free(&vk);
    }
    free(out);
    return 0;
}
