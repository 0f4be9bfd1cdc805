/* libFuzzer: the input.json reader (src/witness/input.c). The first byte
 * picks the prime (bn128's or bls12381's scalar field, Goldilocks, 3); the
 * rest is the text. Whatever it reads must be reduced below p, and its
 * values written back as hex strings must read back the same. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve/desc.h"
#include "witness/input.h"

static void prime_of(uint8_t *p, size_t *n8, unsigned sel) {
    memset(p, 0, ZP_WITNESS_INPUT_MAX_N8);
    if (sel < 2) {
        const zp_curve_desc *d = zp_curve_get(sel == 0 ? ZP_CURVE_BN254 : ZP_CURVE_BLS12_381);
        *n8 = d->fr_limbs * 8;
        for (size_t i = 0; i < *n8; i++) p[i] = (uint8_t)(d->fr_modulus[i / 8] >> (8 * (i % 8)));
    } else if (sel == 2) {
        static const uint8_t goldilocks[8] = {1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
        memcpy(p, goldilocks, 8);
        *n8 = 8;
    } else {
        p[0] = 3;
        *n8 = 16;
    }
}

/* a < p, both n8 bytes little-endian. */
static int below(const uint8_t *a, const uint8_t *p, size_t n8) {
    for (size_t i = n8; i-- > 0;) {
        if (a[i] != p[i]) return a[i] < p[i];
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    uint8_t p[ZP_WITNESS_INPUT_MAX_N8];
    size_t n8;
    prime_of(p, &n8, data[0] % 4);
    zp_witness_inputs in;
    zp_error err;
    if (zp_witness_inputs_parse(&in, (const char *)data + 1, size - 1, p, n8, "fuzz.json", &err) != ZP_OK) {
        if (in.count != 0 || in.signals != NULL) abort();
        if (err.status != ZP_ERR_FORMAT && err.status != ZP_ERR_NOMEM) abort();
        return 0;
    }
    size_t total = 0;
    for (size_t s = 0; s < in.count; s++) {
        const zp_witness_signal *sig = &in.signals[s];
        if (sig->name == NULL || sig->values == NULL) abort();
        if (strcmp(sig->name, "__proto__") == 0) abort();
        for (size_t i = 0; i < sig->count; i++) {
            if (!below(sig->values + i * n8, p, n8)) abort();
        }
        total += sig->count;
    }
    /* Back as {"s0": ["0x..", ...], ...}: the same values. */
    size_t cap = 64 + in.count * 32 + total * (2 * n8 + 6);
    char *text = malloc(cap), *o = text;
    o += sprintf(o, "{");
    for (size_t s = 0; s < in.count; s++) {
        const zp_witness_signal *sig = &in.signals[s];
        o += sprintf(o, "%s\"s%zu\": [", s ? ", " : "", s);
        for (size_t i = 0; i < sig->count; i++) {
            o += sprintf(o, "%s\"0x", i ? "," : "");
            for (size_t b = n8; b-- > 0;) o += sprintf(o, "%02x", sig->values[i * n8 + b]);
            o += sprintf(o, "\"");
        }
        o += sprintf(o, "]");
    }
    o += sprintf(o, "}");
    zp_witness_inputs back;
    if (zp_witness_inputs_parse(&back, text, (size_t)(o - text), p, n8, "back", &err) != ZP_OK) abort();
    if (back.count != in.count) abort();
    for (size_t s = 0; s < in.count; s++) {
        if (back.signals[s].count != in.signals[s].count) abort();
        if (in.signals[s].count && memcmp(back.signals[s].values, in.signals[s].values, in.signals[s].count * n8))
            abort();
    }
    zp_witness_inputs_free(&back);
    zp_witness_inputs_free(&in);
    free(text);
    return 0;
}
