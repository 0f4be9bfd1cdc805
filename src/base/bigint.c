#include "base/bigint.h"

#include <string.h>

int zp_bigint_from_dec(uint64_t *out, size_t n, const char *s) {
    memset(out, 0, n * sizeof *out);
    if (*s == '\0') return 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return 0;
        /* out = out * 10 + digit */
        unsigned __int128 carry = (unsigned)(*s - '0');
        for (size_t i = 0; i < n; i++) {
            unsigned __int128 t = (unsigned __int128)out[i] * 10 + carry;
            out[i] = (uint64_t)t;
            carry = t >> 64;
        }
        if (carry != 0) return 0;
    }
    return 1;
}

int zp_bigint_to_dec(char *buf, size_t cap, const uint64_t *v, size_t n) {
    uint64_t t[16];
    char digits[400];
    size_t nd = 0;
    if (n > 16 || cap == 0) return 0;
    memcpy(t, v, n * sizeof *t);
    for (;;) {
        /* t = t / 10, remainder is the next digit */
        unsigned __int128 rem = 0;
        int nonzero = 0;
        for (size_t i = n; i-- > 0;) {
            unsigned __int128 cur = (rem << 64) | t[i];
            t[i] = (uint64_t)(cur / 10);
            rem = cur % 10;
            nonzero |= t[i] != 0;
        }
        digits[nd++] = (char)('0' + (int)rem);
        if (!nonzero) break;
    }
    if (nd + 1 > cap) return 0;
    for (size_t i = 0; i < nd; i++) buf[i] = digits[nd - 1 - i];
    buf[nd] = '\0';
    return 1;
}
