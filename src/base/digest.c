/* SHA-256 over libcrypto's EVP interface (the one OpenSSL 3 keeps). */
#include "base/digest.h"

#include <openssl/evp.h>

#include "base/error.h"

zp_status zp_sha256_init(zp_sha256 *h, zp_error *err) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    h->ctx = ctx;
    if (ctx == NULL || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(ctx);
        h->ctx = NULL;
        return zp_error_set(err, ZP_ERR_NOMEM, "sha256: cannot start a digest");
    }
    return ZP_OK;
}

void zp_sha256_update(zp_sha256 *h, const void *data, size_t len) {
    if (h->ctx != NULL && len > 0) (void)EVP_DigestUpdate(h->ctx, data, len);
}

void zp_sha256_final(zp_sha256 *h, uint8_t out[ZP_SHA256_BYTES]) {
    unsigned n = 0;
    if (h->ctx == NULL || EVP_DigestFinal_ex(h->ctx, out, &n) != 1 || n != ZP_SHA256_BYTES) {
        for (int i = 0; i < ZP_SHA256_BYTES; i++) out[i] = 0;
    }
    zp_sha256_abort(h);
}

void zp_sha256_abort(zp_sha256 *h) {
    EVP_MD_CTX_free(h->ctx);
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
