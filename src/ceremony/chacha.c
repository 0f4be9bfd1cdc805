/* ffjavascript's ChaCha generator (src/chacha.js), word for word: a
 * beacon's and a contribution's keys, and the G2 point every verifier
 * derives from a transcript, come from it, so it must give the same words. */
#include <string.h>

#include "ceremony/internal.h"

#define ROTL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))
#define QR(s, a, b, c, d)                           \
    do {                                            \
        s[a] += s[b], s[d] = ROTL(s[d] ^ s[a], 16); \
        s[c] += s[d], s[b] = ROTL(s[b] ^ s[c], 12); \
        s[a] += s[b], s[d] = ROTL(s[d] ^ s[a], 8);  \
        s[c] += s[d], s[b] = ROTL(s[b] ^ s[c], 7);  \
    } while (0)

void zp_chacha_seed_be(zp_chacha *c, const uint8_t seed[32]) {
    static const uint32_t sigma[4] = {0x61707865, 0x3320646E, 0x79622D32, 0x6B206574};
    memcpy(c->state, sigma, sizeof sigma);
    for (int i = 0; i < 8; i++) {
        const uint8_t *b = seed + 4 * i;
        c->state[4 + i] = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
    }
    c->state[12] = c->state[13] = c->state[14] = c->state[15] = 0;
    c->idx = 16;
}

static void update(zp_chacha *c) {
    uint32_t *s = c->buf;
    memcpy(s, c->state, sizeof c->buf);
    for (int i = 0; i < 10; i++) {
        QR(s, 0, 4, 8, 12);
        QR(s, 1, 5, 9, 13);
        QR(s, 2, 6, 10, 14);
        QR(s, 3, 7, 11, 15);
        QR(s, 0, 5, 10, 15);
        QR(s, 1, 6, 11, 12);
        QR(s, 2, 7, 8, 13);
        QR(s, 3, 4, 9, 14);
    }
    for (int i = 0; i < 16; i++) s[i] += c->state[i];
    c->idx = 0;
    for (int i = 12; i < 16; i++) {
        if (++c->state[i] != 0) break;
    }
}

uint32_t zp_chacha_u32(zp_chacha *c) {
    if (c->idx == 16) update(c);
    return c->buf[c->idx++];
}

uint64_t zp_chacha_u64(zp_chacha *c) {
    uint64_t hi = zp_chacha_u32(c);
    return hi << 32 | zp_chacha_u32(c);
}
