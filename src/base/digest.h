/* SHA-256, through OpenSSL's libcrypto (Debian's libssl-dev).
 *
 * Used where a value must stand for bytes it cannot hold: the digest of a
 * whole job request behind its request_id, and the key of a compiled
 * witness calculator in its cache. Nothing here is secret or constant
 * time; it only has to be collision resistant. */
#ifndef ZP_BASE_DIGEST_H
#define ZP_BASE_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#include "zkpipe.h"

#define ZP_SHA256_BYTES 32
#define ZP_SHA256_HEX (2 * ZP_SHA256_BYTES + 1) /* with its NUL */

/* An incremental digest: init, any number of updates, final. */
typedef struct zp_sha256 {
    void *ctx; /* EVP_MD_CTX */
} zp_sha256;

zp_status zp_sha256_init(zp_sha256 *h, zp_error *err) ZP_WARN_UNUSED;
/* Loads libcrypto now (zp_sha256_init does it at the first digest): for
 * a process whose memory budget counts its own memory when it starts. */
zp_status zp_sha256_load(zp_error *err) ZP_WARN_UNUSED;
void zp_sha256_update(zp_sha256 *h, const void *data, size_t len);
/* Writes the digest and frees the context (also safe on a failed init). */
void zp_sha256_final(zp_sha256 *h, uint8_t out[ZP_SHA256_BYTES]);
/* Frees the context without a digest, on an error path. */
void zp_sha256_abort(zp_sha256 *h);

/* The digest of one buffer. */
zp_status zp_sha256_bytes(uint8_t out[ZP_SHA256_BYTES], const void *data, size_t len, zp_error *err) ZP_WARN_UNUSED;

/* Lower-case hex of a digest, NUL-terminated. */
void zp_sha256_hex(char out[ZP_SHA256_HEX], const uint8_t digest[ZP_SHA256_BYTES]);

/* BLAKE2b-512 (libcrypto's EVP_blake2b512), as snarkjs hashes a
 * ceremony's transcript and contributions: the same incremental shape,
 * plus a copy (snarkjs clones a running transcript to check each
 * contribution). A failed init leaves ctx NULL, and update and final then
 * do nothing and give zeros. */
#define ZP_BLAKE2B_BYTES 64

typedef struct zp_blake2b {
    void *ctx; /* EVP_MD_CTX */
} zp_blake2b;

zp_status zp_blake2b_init(zp_blake2b *h, zp_error *err) ZP_WARN_UNUSED;
/* dst: a new context in src's state (free it with final or abort). */
zp_status zp_blake2b_copy(zp_blake2b *dst, const zp_blake2b *src, zp_error *err) ZP_WARN_UNUSED;
void zp_blake2b_update(zp_blake2b *h, const void *data, size_t len);
void zp_blake2b_final(zp_blake2b *h, uint8_t out[ZP_BLAKE2B_BYTES]);
void zp_blake2b_abort(zp_blake2b *h);

#endif
