/* SHA-256 over libcrypto's EVP interface (the one OpenSSL 3 keeps),
 * loaded at the first digest rather than linked (base/dynlib.h): most
 * zkpipe processes (a proof, a cached witness calculator) hash nothing,
 * and libcrypto's loading costs each about 4 ms of CPU. */
#include "base/digest.h"

#include <openssl/evp.h>

#include "base/dynlib.h"
#include "base/error.h"

static struct {
    __typeof__(EVP_MD_CTX_new) *MD_CTX_new;
    __typeof__(EVP_MD_CTX_free) *MD_CTX_free;
    __typeof__(EVP_sha256) *sha256;
    __typeof__(EVP_DigestInit_ex) *DigestInit_ex;
    __typeof__(EVP_DigestUpdate) *DigestUpdate;
    __typeof__(EVP_DigestFinal_ex) *DigestFinal_ex;
    __typeof__(EVP_blake2b512) *blake2b512;
    __typeof__(EVP_MD_CTX_copy_ex) *MD_CTX_copy_ex;
} evp;

static zp_status crypto_load(zp_error *err) {
    static int once;
    static const char *const sonames[] = {"libcrypto.so.3", "libcrypto.so", NULL};
#define SYM(f) \
    { "EVP_" #f, (void **)&evp.f }
    const zp_dynsym syms[] = {SYM(MD_CTX_new),   SYM(MD_CTX_free),    SYM(sha256),     SYM(DigestInit_ex),
                              SYM(DigestUpdate), SYM(DigestFinal_ex), SYM(blake2b512), SYM(MD_CTX_copy_ex)};
#undef SYM
    return zp_dynlib_load(&once, sonames, syms, sizeof syms / sizeof *syms, "libssl3", err);
}

zp_status zp_sha256_load(zp_error *err) { return crypto_load(err); }

/* BLAKE2b's symbols on their own, so that a libcrypto built without it
 * costs SHA-256's users nothing. */
static zp_status blake2b_load(zp_error *err) {
    zp_status st = crypto_load(err);
    if (st != ZP_OK) return st;
    static int once;
    static const char *const sonames[] = {"libcrypto.so.3", "libcrypto.so", NULL};
#define SYM(f) \
    { "EVP_" #f, (void **)&evp.f }
    const zp_dynsym syms[] = {SYM(blake2b512), SYM(MD_CTX_copy_ex)};
#undef SYM
    return zp_dynlib_load(&once, sonames, syms, sizeof syms / sizeof *syms, "libssl3", err);
}

zp_status zp_sha256_init(zp_sha256 *h, zp_error *err) {
    h->ctx = NULL;
    zp_status st = crypto_load(err);
    if (st != ZP_OK) return st;
    EVP_MD_CTX *ctx = evp.MD_CTX_new();
    h->ctx = ctx;
    if (ctx == NULL || evp.DigestInit_ex(ctx, evp.sha256(), NULL) != 1) {
        evp.MD_CTX_free(ctx);
        h->ctx = NULL;
        return zp_error_set(err, ZP_ERR_NOMEM, "sha256: cannot start a digest");
    }
    return ZP_OK;
}

void zp_sha256_update(zp_sha256 *h, const void *data, size_t len) {
    if (h->ctx != NULL && len > 0) (void)evp.DigestUpdate(h->ctx, data, len);
}

void zp_sha256_final(zp_sha256 *h, uint8_t out[ZP_SHA256_BYTES]) {
    unsigned n = 0;
    if (h->ctx == NULL || evp.DigestFinal_ex(h->ctx, out, &n) != 1 || n != ZP_SHA256_BYTES) {
        for (int i = 0; i < ZP_SHA256_BYTES; i++) out[i] = 0;
    }
    zp_sha256_abort(h);
}

void zp_sha256_abort(zp_sha256 *h) {
    if (h->ctx != NULL) evp.MD_CTX_free(h->ctx);
    h->ctx = NULL;
}

zp_status zp_sha256_bytes(uint8_t out[ZP_SHA256_BYTES], const void *data, size_t len, zp_error *err) {
    zp_sha256 h;
    zp_status st = zp_sha256_init(&h, err);
    if (st != ZP_OK) return st;
    zp_sha256_update(&h, data, len);
    zp_sha256_final(&h, out);
    return ZP_OK;
}

void zp_sha256_hex(char out[ZP_SHA256_HEX], const uint8_t digest[ZP_SHA256_BYTES]) {
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < ZP_SHA256_BYTES; i++) {
        out[2 * i] = hex[digest[i] >> 4];
        out[2 * i + 1] = hex[digest[i] & 15];
    }
    out[2 * ZP_SHA256_BYTES] = 0;
}

/* BLAKE2b-512: the same EVP context, another digest (snarkjs's ceremony
 * transcripts). */
zp_status zp_blake2b_init(zp_blake2b *h, zp_error *err) {
    h->ctx = NULL;
    zp_status st = blake2b_load(err);
    if (st != ZP_OK) return st;
    EVP_MD_CTX *ctx = evp.MD_CTX_new();
    h->ctx = ctx;
    if (ctx == NULL || evp.DigestInit_ex(ctx, evp.blake2b512(), NULL) != 1) {
        evp.MD_CTX_free(ctx);
        h->ctx = NULL;
        return zp_error_set(err, ZP_ERR_NOMEM, "blake2b: cannot start a digest");
    }
    return ZP_OK;
}

zp_status zp_blake2b_copy(zp_blake2b *dst, const zp_blake2b *src, zp_error *err) {
    dst->ctx = NULL;
    if (src->ctx == NULL) return zp_error_set(err, ZP_ERR_ARG, "blake2b: copy of no digest");
    EVP_MD_CTX *ctx = evp.MD_CTX_new();
    if (ctx == NULL || evp.MD_CTX_copy_ex(ctx, src->ctx) != 1) {
        evp.MD_CTX_free(ctx);
        return zp_error_set(err, ZP_ERR_NOMEM, "blake2b: cannot copy a digest");
    }
    dst->ctx = ctx;
    return ZP_OK;
}

void zp_blake2b_update(zp_blake2b *h, const void *data, size_t len) {
    if (h->ctx != NULL && len > 0) (void)evp.DigestUpdate(h->ctx, data, len);
}

void zp_blake2b_final(zp_blake2b *h, uint8_t out[ZP_BLAKE2B_BYTES]) {
    unsigned n = 0;
    if (h->ctx == NULL || evp.DigestFinal_ex(h->ctx, out, &n) != 1 || n != ZP_BLAKE2B_BYTES) {
        for (int i = 0; i < ZP_BLAKE2B_BYTES; i++) out[i] = 0;
    }
    zp_blake2b_abort(h);
}

void zp_blake2b_abort(zp_blake2b *h) {
    if (h->ctx != NULL) evp.MD_CTX_free(h->ctx);
    h->ctx = NULL;
}
