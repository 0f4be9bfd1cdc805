/* SHA-256 and BLAKE2b-512 over libcrypto's EVP interface (the one
 * OpenSSL 3 keeps), loaded at the first digest rather than linked
 * (base/dynlib.h): most zkpipe processes (a proof, a cached witness
 * calculator) hash nothing, and libcrypto's loading costs each about 4 ms
 * of CPU. */
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
    const zp_dynsym syms[] = {SYM(MD_CTX_new),    SYM(MD_CTX_free),  SYM(sha256),
                              SYM(DigestInit_ex), SYM(DigestUpdate), SYM(DigestFinal_ex)};
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

/* A context started on md (its symbols loaded), or NULL and err. */
static zp_status md_start(void **ctx, const EVP_MD *md, const char *name, zp_error *err) {
    EVP_MD_CTX *c = evp.MD_CTX_new();
    *ctx = c;
    if (c == NULL || evp.DigestInit_ex(c, md, NULL) != 1) {
        evp.MD_CTX_free(c);
        *ctx = NULL;
        return zp_error_set(err, ZP_ERR_NOMEM, "%s: cannot start a digest", name);
    }
    return ZP_OK;
}

static void md_abort(void **ctx) {
    if (*ctx != NULL) evp.MD_CTX_free(*ctx);
    *ctx = NULL;
}

static void md_update(void *ctx, const void *data, size_t len) {
    if (ctx != NULL && len > 0) (void)evp.DigestUpdate(ctx, data, len);
}

/* The digest of size bytes into out (zeros when there is none), and the
 * context freed. */
static void md_final(void **ctx, uint8_t *out, unsigned size) {
    unsigned n = 0;
    if (*ctx == NULL || evp.DigestFinal_ex(*ctx, out, &n) != 1 || n != size) {
        for (unsigned i = 0; i < size; i++) out[i] = 0;
    }
    md_abort(ctx);
}

zp_status zp_sha256_init(zp_sha256 *h, zp_error *err) {
    h->ctx = NULL;
    zp_status st = crypto_load(err);
    return st != ZP_OK ? st : md_start(&h->ctx, evp.sha256(), "sha256", err);
}

void zp_sha256_update(zp_sha256 *h, const void *data, size_t len) { md_update(h->ctx, data, len); }
void zp_sha256_final(zp_sha256 *h, uint8_t out[ZP_SHA256_BYTES]) { md_final(&h->ctx, out, ZP_SHA256_BYTES); }
void zp_sha256_abort(zp_sha256 *h) { md_abort(&h->ctx); }

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
    return st != ZP_OK ? st : md_start(&h->ctx, evp.blake2b512(), "blake2b", err);
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

void zp_blake2b_update(zp_blake2b *h, const void *data, size_t len) { md_update(h->ctx, data, len); }
void zp_blake2b_final(zp_blake2b *h, uint8_t out[ZP_BLAKE2B_BYTES]) { md_final(&h->ctx, out, ZP_BLAKE2B_BYTES); }
void zp_blake2b_abort(zp_blake2b *h) { md_abort(&h->ctx); }
