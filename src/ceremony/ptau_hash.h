/* BLAKE2b-512 as snarkjs's powers of tau hash it, through libb2 (whose
 * state is public), with the one thing OpenSSL's EVP cannot give: the
 * running state snarkjs stores as a contribution's partialHash.
 *
 * snarkjs 0.7.6 (misc.js toPartialHash / fromPartialHash) writes the
 * internal state of @noble/hashes' BLAKE2b in the 216-byte layout of
 * blake2b-wasm, which older snarkjs used:
 *
 *   [0, 128)    the block buffer, all 128 bytes, stale ones included
 *   [128, 192)  h[0..7], little-endian 64-bit words
 *   [192, 200)  the bytes compressed so far (little-endian; snarkjs
 *               writes only the low 32 bits, zkpipe all 64)
 *   [200, 208)  how many bytes of the buffer are pending (1 to 128 once
 *               anything was hashed: the last block always waits, since
 *               it may be the final one)
 *   [208, 216)  zero
 *
 * libb2 (loaded when a phase-1 step starts, base/dynlib.h) 0.98 buffers up to two blocks where noble buffers one, so a
 * state with more than one block pending is brought to noble's by
 * compressing the first through libb2's own update (zp_ptau_hash_partial).
 * The bytes of the buffer past the pending ones are whatever noble left
 * there: they change no hash, but snarkjs's files hold them, so a beacon
 * is byte for byte snarkjs's only if they are the same; noble's update
 * is modelled here (which bytes land in the buffer and where; it never
 * copies a full block of a longer input, it compresses it in place), for
 * inputs at 4-byte-aligned addresses, as snarkjs's always are. */
#ifndef ZP_CEREMONY_PTAU_HASH_H
#define ZP_CEREMONY_PTAU_HASH_H

#include <blake2.h>
#include <stddef.h>
#include <stdint.h>

#include "zkpipe.h"

#define ZP_PTAU_PARTIAL_BYTES 216

typedef struct zp_ptau_hash {
    blake2b_state s;
    uint8_t nbuf[128]; /* noble's block buffer */
    unsigned npos;     /* its pending bytes */
} zp_ptau_hash;

/* Loads libb2 (once per process; the error names Debian's package): call
 * it before any other function here. */
zp_status zp_ptau_hash_load(zp_error *err) ZP_WARN_UNUSED;
void zp_ptau_hash_init(zp_ptau_hash *h);
/* One update call of snarkjs's (the buffer model depends on where the
 * calls split the input). */
void zp_ptau_hash_update(zp_ptau_hash *h, const void *data, size_t len);
/* Writes the digest (64 bytes) and zeroises h. */
void zp_ptau_hash_final(zp_ptau_hash *h, uint8_t out[64]);
/* snarkjs's toPartialHash of the state h is in; h is unchanged. */
void zp_ptau_hash_partial(const zp_ptau_hash *h, uint8_t out[ZP_PTAU_PARTIAL_BYTES]);
/* snarkjs's fromPartialHash: 1 on success, 0 when in is no state (a
 * pending count above 128, a compressed count not whole blocks). */
int zp_ptau_hash_resume(zp_ptau_hash *h, const uint8_t in[ZP_PTAU_PARTIAL_BYTES]);
/* BLAKE2b-512 of one buffer. */
void zp_ptau_hash_bytes(uint8_t out[64], const void *data, size_t len);

#endif
