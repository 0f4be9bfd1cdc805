#include <stdint.h>
#include <stdlib.h>

#include "server/internal.h"

int zp_base64_sextet(unsigned char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

unsigned char *zp_base64_decode(const char *text, size_t len, size_t *out_len) {
    while (len > 0 && text[len - 1] == '=') len--;
    if (len % 4 == 1) return NULL;
    unsigned char *out = malloc(len / 4 * 3 + 3);
    if (out == NULL) return NULL;
    size_t n = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len; i++) {
        int v = zp_base64_sextet((unsigned char)text[i]);
        if (v < 0) {
            free(out);
            return NULL;
        }
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[n++] = (unsigned char)(acc >> bits);
        }
    }
    *out_len = n;
    return out;
}
