/* snarkjs's BLAKE2b state on libb2 (ptau_hash.h). */
#include "ceremony/ptau_hash.h"

#include <string.h>

#include "base/dynlib.h"

/* libb2, loaded at the first phase-1 step (base/dynlib.h): it brings
 * libgomp, which no proof should pay for. */
static struct {
    __typeof__(blake2b_init) *init;
    __typeof__(blake2b_update) *update;
    __typeof__(blake2b_final) *final;
} b2;

zp_status zp_ptau_hash_load(zp_error *err) {
    static int once;
    static const char *const sonames[] = {"libb2.so.1", "libb2.so", NULL};
    const zp_dynsym syms[] = {
        {"blake2b_init", (void **)&b2.init},
        {"blake2b_update", (void **)&b2.update},
        {"blake2b_final", (void **)&b2.final},
    };
    return zp_dynlib_load(&once, sonames, syms, sizeof syms / sizeof *syms, "libb2-1", err);
}

#define BLOCK 128

void zp_ptau_hash_init(zp_ptau_hash *h) {
    memset(h, 0, sizeof *h);
    b2.init(&h->s, 64);
}

/* noble's BLAKE2.update (@noble/hashes _blake.js), buffer only: a full
 * buffer is compressed when more input comes; a whole block of input
 * that is not the input's last is compressed from the input, never
 * copied; everything else is copied into the buffer. */
static void noble_buffer(zp_ptau_hash *h, const uint8_t *d, size_t len) {
    size_t pos = 0;
    while (pos < len) {
        if (h->npos == BLOCK) h->npos = 0;
        size_t take = len - pos < BLOCK - h->npos ? len - pos : BLOCK - h->npos;
        if (take == BLOCK && pos + take < len) {
            while (pos + BLOCK < len) pos += BLOCK;
            continue;
        }
        memcpy(h->nbuf + h->npos, d + pos, take);
        h->npos += (unsigned)take;
        pos += take;
    }
}

void zp_ptau_hash_update(zp_ptau_hash *h, const void *data, size_t len) {
    b2.update(&h->s, data, len);
    noble_buffer(h, data, len);
}

void zp_ptau_hash_final(zp_ptau_hash *h, uint8_t out[64]) {
    b2.final(&h->s, out, 64);
    memset(h, 0, sizeof *h);
}

static void le64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint64_t rd64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

void zp_ptau_hash_partial(const zp_ptau_hash *h, uint8_t out[ZP_PTAU_PARTIAL_BYTES]) {
    blake2b_state s = h->s;
    if (s.buflen > BLOCK) {
        /* Two blocks pending: compress the first, as noble has. libb2's
         * update compresses buf[0, 128) when an input overflows its two
         * blocks: with 255 bytes held, 2 more do it, leaving the second
         * block's place to be refilled with the real pending bytes. */
        uint8_t tail[BLOCK], two[2] = {0, 0};
        size_t rest = s.buflen - BLOCK;
        memcpy(tail, s.buf + BLOCK, rest);
        s.buflen = 2 * BLOCK - 1;
        b2.update(&s, two, 2);
        memcpy(s.buf, tail, rest);
        s.buflen = (uint32_t)rest;
    }
    memset(out, 0, ZP_PTAU_PARTIAL_BYTES);
    memcpy(out, h->nbuf, BLOCK);
    memcpy(out, s.buf, s.buflen); /* the same bytes as the model's, by construction */
    for (int i = 0; i < 8; i++) le64(out + BLOCK + 8 * i, s.h[i]);
    le64(out + 192, s.t[0]);
    le64(out + 200, s.buflen);
    memset(&s, 0, sizeof s);
}

int zp_ptau_hash_resume(zp_ptau_hash *h, const uint8_t in[ZP_PTAU_PARTIAL_BYTES]) {
    uint64_t done = rd64(in + 192), pos = rd64(in + 200);
    if (pos > BLOCK || done % BLOCK != 0) return 0;
    zp_ptau_hash_init(h); /* outlen, and the rest of libb2's fields */
    for (int i = 0; i < 8; i++) h->s.h[i] = rd64(in + BLOCK + 8 * i);
    h->s.t[0] = done;
    h->s.t[1] = 0;
    memcpy(h->s.buf, in, (size_t)pos);
    h->s.buflen = (uint32_t)pos;
    memcpy(h->nbuf, in, BLOCK);
    h->npos = (unsigned)pos;
    return 1;
}

void zp_ptau_hash_bytes(uint8_t out[64], const void *data, size_t len) {
    zp_ptau_hash h;
    zp_ptau_hash_init(&h);
    zp_ptau_hash_update(&h, data, len);
    zp_ptau_hash_final(&h, out);
}
