/* The binary formats of src/io: .zkey, .wtns, .r1cs. Round trips on both
 * curves, then every kind of bad input (test_io_json.c does the JSON). */
#define _GNU_SOURCE /* O_PATH */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/digest.h"
#include "base/file.h"
#include "base/memory.h"
#include "base/options.h"
#include "groth16/keys.h"
#include "io/binfile.h"
#include "io/json.h"
#include "io/r1cs.h"
#include "io/wtns.h"
#include "io/wtns_stream.h"
#include "io/zkey.h"
#include "test_io_common.h"
#include "testutil.h"

static const zp_curve CURVES[2] = {ZP_CURVE_BN254, ZP_CURVE_BLS12_381};

static const uint64_t BN254_R[4] = {0x43e1f593f0000001ULL, 0x2833e84879b97091ULL, 0xb85045b68181585dULL,
                                    0x30644e72e131a029ULL};
static const uint64_t BLS12_R[4] = {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL,
                                    0x73eda753299d7d48ULL};
static const uint64_t *r_of(zp_curve c) { return c == ZP_CURVE_BN254 ? BN254_R : BLS12_R; }

static void rand_fr(uint64_t v[4]) { io_rand_scalar(v); }

/* ---- .zkey ---- */

typedef struct test_key {
    zp_groth16_pk pk;
    void *bufs[7];
} test_key;

static void *rand_buf(size_t n) {
    void *p = malloc(n ? n : 1);
    zp_test_rand_bytes(p, n);
    return p;
}

static void make_key(test_key *k, zp_curve c, uint32_t nvars, uint32_t npub, uint32_t domain, size_t ncoefs) {
    memset(k, 0, sizeof *k);
    zp_groth16_pk *pk = &k->pk;
    pk->curve = c;
    pk->n_vars = nvars;
    pk->n_public = npub;
    pk->domain_size = domain;
    io_rand_g1(c, pk->alpha1);
    io_rand_g1(c, pk->beta1);
    io_rand_g1(c, pk->delta1);
    io_rand_g2(c, pk->beta2);
    io_rand_g2(c, pk->gamma2);
    io_rand_g2(c, pk->delta2);
    size_t g1 = zp_g1_bytes(c), g2 = zp_g2_bytes(c);
    uint64_t *ic = malloc((npub + 1) * g1);
    for (uint32_t i = 0; i <= npub; i++) io_rand_g1(c, ic + i * g1 / 8);
    k->bufs[0] = ic;
    /* Bulk points are not checked at open: random bytes will do. */
    k->bufs[1] = rand_buf(nvars * g1);
    k->bufs[2] = rand_buf(nvars * g1);
    k->bufs[3] = rand_buf(nvars * g2);
    k->bufs[4] = rand_buf((nvars - npub - 1) * g1);
    k->bufs[5] = rand_buf(domain * g1);
    uint8_t *coefs = malloc(ncoefs * ZP_ZKEY_COEF_BYTES + 1);
    for (size_t i = 0; i < ncoefs; i++) {
        uint8_t *e = coefs + i * ZP_ZKEY_COEF_BYTES;
        uint32_t f[3] = {(uint32_t)(zp_test_rand64() & 1), (uint32_t)(zp_test_rand64() % domain),
                         (uint32_t)(zp_test_rand64() % nvars)};
        uint64_t v[4];
        rand_fr(v);
        memcpy(e, f, 12);
        memcpy(e + 12, v, 32);
    }
    k->bufs[6] = coefs;
    pk->ic = ic;
    pk->a = k->bufs[1];
    pk->b1 = k->bufs[2];
    pk->b2 = k->bufs[3];
    pk->c = k->bufs[4];
    pk->h = k->bufs[5];
    pk->coefs = coefs;
    pk->n_coefs = ncoefs;
}

static void free_key(test_key *k) {
    for (int i = 0; i < 7; i++) free(k->bufs[i]);
}

static int same_pk(const zp_groth16_pk *a, const zp_groth16_pk *b) {
    zp_curve c = a->curve;
    size_t g1 = zp_g1_bytes(c), g2 = zp_g2_bytes(c), nv = a->n_vars, np = a->n_public;
    return a->curve == b->curve && a->n_vars == b->n_vars && a->n_public == b->n_public &&
           a->domain_size == b->domain_size && a->n_coefs == b->n_coefs && !memcmp(a->alpha1, b->alpha1, g1) &&
           !memcmp(a->beta1, b->beta1, g1) && !memcmp(a->delta1, b->delta1, g1) && !memcmp(a->beta2, b->beta2, g2) &&
           !memcmp(a->gamma2, b->gamma2, g2) && !memcmp(a->delta2, b->delta2, g2) &&
           !memcmp(a->ic, b->ic, (np + 1) * g1) && !memcmp(a->a, b->a, nv * g1) && !memcmp(a->b1, b->b1, nv * g1) &&
           !memcmp(a->b2, b->b2, nv * g2) && !memcmp(a->c, b->c, (nv - np - 1) * g1) &&
           !memcmp(a->h, b->h, (size_t)a->domain_size * g1) &&
           !memcmp(a->coefs, b->coefs, a->n_coefs * ZP_ZKEY_COEF_BYTES);
}

static int aligned8(const void *p) { return ((uintptr_t)p & 7) == 0; }

/* p lies in [d, d + n): the key reads it in place, at any alignment */
static int inside(const void *p, const uint8_t *d, size_t n) {
    return (const uint8_t *)p >= d && (const uint8_t *)p < d + n;
}

static zp_status open_zkey(const uint8_t *d, size_t n, zp_error *err) {
    zp_zkey *z;
    zp_status st = zp_zkey_open_mem(&z, d, n, "key.zkey", err);
    if (st == ZP_OK) {
        const zp_groth16_pk *pk = zp_zkey_pk(z);
        CHECK(inside(pk->ic, d, n) && inside(pk->a, d, n) && inside(pk->b1, d, n) && inside(pk->b2, d, n) &&
              inside(pk->c, d, n) && inside(pk->h, d, n));
        zp_zkey_close(z);
    }
    return st;
}

/* Replaces section id's bytes with (p, n) and checks the error. */
static void zkey_edit(const uint8_t *file, size_t size, uint32_t id, const void *p, uint64_t n, zp_status st,
                      const char *want) {
    io_sec s[16];
    size_t k = io_split(file, size, s, 16);
    io_sec *t = io_find(s, k, id);
    t->p = p;
    t->n = n;
    size_t out_n;
    uint8_t *out = io_join(file, s, k, &out_n);
    IO_EXPECT(open_zkey, out, out_n, st, want);
    free(out);
}

/* A copy of section id that the caller may edit (freed by the caller). */
static uint8_t *section_copy(const uint8_t *file, size_t size, uint32_t id, uint64_t *n) {
    io_sec s[16];
    size_t k = io_split(file, size, s, 16);
    io_sec *t = io_find(s, k, id);
    *n = t->n;
    uint8_t *b = malloc(t->n + 64);
    memcpy(b, t->p, t->n);
    return b;
}

static void test_zkey(zp_curve c) {
    test_key k;
    make_key(&k, c, 9, 2, 16, 23);
    const char *path = io_path(c == ZP_CURVE_BN254 ? "bn.zkey" : "bls.zkey");
    zp_error err = {0};
    uint8_t hash[64];
    zp_test_rand_bytes(hash, 64);
    CHECK(zp_zkey_write(path, &k.pk, hash, &err) == ZP_OK);
    zp_zkey *z = NULL;
    CHECK_MSG(zp_zkey_open(&z, path, &err) == ZP_OK, "%s", err.message);
    if (z != NULL) {
        CHECK(same_pk(&k.pk, zp_zkey_pk(z)));
        /* the coefficients' pages let go of come back from the file, the same */
        zp_zkey_release_coefs(z);
        CHECK(same_pk(&k.pk, zp_zkey_pk(z)));
        CHECK(zp_zkey_circuit_hash(z) != NULL && !memcmp(zp_zkey_circuit_hash(z), hash, 64));
        zp_groth16_vk vk;
        CHECK(zp_zkey_vk(&vk, zp_zkey_pk(z), &err) == ZP_OK);
        CHECK(vk.curve == c && vk.n_public == 2 && !memcmp(vk.ic, k.pk.ic, 3 * zp_g1_bytes(c)) &&
              !memcmp(vk.delta2, k.pk.delta2, zp_g2_bytes(c)));
        zp_groth16_vk_free(&vk);
        zp_zkey_close(z);
    }
    size_t size;
    uint8_t *file = io_slurp(path, &size);
    io_corpus("zkey", c == ZP_CURVE_BN254 ? "bn" : "bls", file, size);
    /* snarkjs's section order (zkey_new.js): 1, 2, 4, 3, 9, 8, 5, 6, 7, 10. */
    io_sec s[16];
    size_t ns = io_split(file, size, s, 16);
    static const uint32_t order[10] = {1, 2, 4, 3, 9, 8, 5, 6, 7, 10};
    CHECK(ns == 10);
    for (size_t i = 0; i < ns && i < 10; i++) CHECK(s[i].id == order[i]);
    /* In memory at every misalignment: read in place, equal. */
    uint8_t *shifted = malloc(size + 8);
    for (size_t off = 0; off < 8; off++) {
        memcpy(shifted + off, file, size);
        CHECK(zp_zkey_open_mem(&z, shifted + off, size, "key.zkey", &err) == ZP_OK);
        if (z != NULL) {
            zp_zkey_release_coefs(z); /* borrowed memory: left as it is */
            CHECK(same_pk(&k.pk, zp_zkey_pk(z)) && !memcmp(shifted + off, file, size));
            CHECK(open_zkey(shifted + off, size, &err) == ZP_OK);
            zp_zkey_close(z);
        }
    }
    free(shifted);
    /* Without §10. */
    {
        size_t n2;
        uint8_t *f2 = io_join(file, s, 9, &n2);
        CHECK(zp_zkey_open_mem(&z, f2, n2, "key.zkey", &err) == ZP_OK);
        if (z) CHECK(zp_zkey_circuit_hash(z) == NULL);
        zp_zkey_close(z);
        free(f2);
    }
    io_mutate(open_zkey, file, size, zp_test_iters(c == ZP_CURVE_BN254 ? 1500 : 400));
    /* Truncated files through the mmap path, at random offsets. */
    for (int i = 0; i < 10; i++) {
        size_t len = zp_test_rand64() % size;
        io_spit(io_path("trunc.zkey"), file, len);
        z = NULL;
        zp_error e = {0};
        CHECK(zp_zkey_open(&z, io_path("trunc.zkey"), &e) != ZP_OK && z == NULL && e.message[0]);
    }
    CHECK(zp_zkey_open(&z, io_path("missing.zkey"), &err) == ZP_ERR_IO);

    uint8_t *bad = malloc(size);
    /* Wrong magic, wrong version. */
    memcpy(bad, file, size);
    memcpy(bad, "wtns", 4);
    IO_EXPECT(open_zkey, bad, size, ZP_ERR_FORMAT, "key.zkey: not a .zkey file (magic 'wtns')");
    memcpy(bad, file, size);
    bad[4] = 2;
    IO_EXPECT(open_zkey, bad, size, ZP_ERR_UNSUPPORTED, "version 2");
    /* Another protocol. */
    uint32_t proto = 2;
    zkey_edit(file, size, 1, &proto, 4, ZP_ERR_UNSUPPORTED, "PLONK");
    proto = 10;
    zkey_edit(file, size, 1, &proto, 4, ZP_ERR_UNSUPPORTED, "FFLONK");
    proto = 7;
    zkey_edit(file, size, 1, &proto, 4, ZP_ERR_FORMAT, "unknown protocol 7");

    /* Header edits. */
    uint64_t hn;
    uint8_t *h = section_copy(file, size, 2, &hn);
    size_t n8q = c == ZP_CURVE_BN254 ? 32 : 48, g1 = zp_g1_bytes(c), g2 = zp_g2_bytes(c);
    size_t counts = 4 + n8q + 4 + 32; /* nVars, nPublic, domainSize */
    uint8_t *hb = malloc(hn);
#define HEDIT(stmt, st, want)                       \
    do {                                            \
        memcpy(hb, h, hn);                          \
        stmt;                                       \
        zkey_edit(file, size, 2, hb, hn, st, want); \
    } while (0)
    HEDIT(hb[4] ^= 1, ZP_ERR_UNSUPPORTED, "unsupported curve");           /* q */
    HEDIT(hb[4 + n8q + 4] ^= 1, ZP_ERR_UNSUPPORTED, "unsupported curve"); /* r */
    HEDIT(hb[0] = 40, ZP_ERR_UNSUPPORTED, "unsupported curve");
    HEDIT(hb[counts + 8] = 24, ZP_ERR_FORMAT, "domainSize 24 is not a power of two");
    HEDIT(hb[counts + 8] = 0, ZP_ERR_FORMAT, "domainSize 0");
    HEDIT(hb[counts + 4] = 9, ZP_ERR_FORMAT, "nPublic 9 is not below nVars 9");
    HEDIT(hb[counts] = 10, ZP_ERR_FORMAT, "section 5 (A) is");
    /* 2^28 needs a 2^29-th root of unity: BN254's Fr has none. (Any
     * power-of-two u32 fits BLS12-381's 2-adicity of 32.) */
    if (c == ZP_CURVE_BN254)
        HEDIT((memset(hb + counts + 8, 0, 4), hb[counts + 11] = 0x10), ZP_ERR_UNSUPPORTED, "too large");
    /* alpha1 with y := x: off the curve; x := p: not canonical. */
    HEDIT(memcpy(hb + counts + 12 + g1 / 2, hb + counts + 12, g1 / 2), ZP_ERR_FORMAT,
          "header point alpha1 is not on the curve");
    HEDIT(memset(hb + counts + 12 + 2 * g1 + g2 + 3, 0xff, 8), ZP_ERR_FORMAT, "header point gamma2");
    zkey_edit(file, size, 2, h, hn - 1, ZP_ERR_FORMAT, "section 2 (header) is");
#undef HEDIT
    free(hb);
    free(h);

    /* Bulk sizes: B2 one point short, H one byte long. */
    uint64_t bn;
    uint8_t *b2 = section_copy(file, size, 7, &bn);
    char want[160];
    snprintf(want, sizeof want, "key.zkey: section 7 (B2) is %llu bytes, expected %llu for 9 G2 points",
             (unsigned long long)(bn - g2), (unsigned long long)bn);
    zkey_edit(file, size, 7, b2, bn - g2, ZP_ERR_FORMAT, want);
    free(b2);
    uint8_t *hh = section_copy(file, size, 9, &bn);
    zkey_edit(file, size, 9, hh, bn + 1, ZP_ERR_FORMAT, "section 9 (H) is");
    free(hh);
    /* IC: a non-canonical coordinate, a point off the curve. */
    uint8_t *ic = section_copy(file, size, 3, &bn);
    memset(ic + g1, 0xff, g1 / 2);
    zkey_edit(file, size, 3, ic, bn, ZP_ERR_FORMAT, "IC[1] has a coordinate not below");
    free(ic);
    ic = section_copy(file, size, 3, &bn);
    ic[2 * g1] ^= 1;
    zkey_edit(file, size, 3, ic, bn, ZP_ERR_FORMAT, "IC[2] is not on the curve");
    free(ic);

    /* Coefficients: each field out of range. */
    uint8_t *co = section_copy(file, size, 4, &bn);
    uint8_t *cb = malloc(bn);
    uint32_t v;
#define CEDIT(off, val, want)                                   \
    do {                                                        \
        memcpy(cb, co, bn);                                     \
        v = (val);                                              \
        memcpy(cb + 4 + 5 * ZP_ZKEY_COEF_BYTES + (off), &v, 4); \
        zkey_edit(file, size, 4, cb, bn, ZP_ERR_FORMAT, want);  \
    } while (0)
    CEDIT(0, 2, "coefficient 5: matrix 2 is neither 0 (A) nor 1 (B)");
    CEDIT(4, 16, "coefficient 5: constraint 16 is not below domainSize 16");
    CEDIT(8, 9, "coefficient 5: signal 9 is not below nVars 9");
#undef CEDIT
    memcpy(cb, co, bn);
    memcpy(cb + 4 + 5 * ZP_ZKEY_COEF_BYTES + 12, r_of(c), 32);
    zkey_edit(file, size, 4, cb, bn, ZP_ERR_FORMAT, "coefficient 5: value is not below");
    zkey_edit(file, size, 4, co, bn - 1, ZP_ERR_FORMAT, "section 4 (coefficients) is");
    memcpy(cb, co, bn);
    cb[0] += 1;
    zkey_edit(file, size, 4, cb, bn, ZP_ERR_FORMAT, "expected");
    free(cb);
    free(co);

    /* Missing and duplicated sections. */
    {
        io_sec s2[16];
        size_t k2 = io_split(file, size, s2, 16);
        io_sec *hs = io_find(s2, k2, 9);
        *hs = s2[k2 - 1]; /* H replaced by §10: H missing */
        size_t n2;
        uint8_t *f2 = io_join(file, s2, k2 - 1, &n2);
        IO_EXPECT(open_zkey, f2, n2, ZP_ERR_FORMAT, "section 9 (H) is missing");
        free(f2);
        k2 = io_split(file, size, s2, 16);
        s2[k2] = *io_find(s2, k2, 3);
        f2 = io_join(file, s2, k2 + 1, &n2);
        IO_EXPECT(open_zkey, f2, n2, ZP_ERR_FORMAT, "section 3 (IC) appears more than once");
        free(f2);
    }
    /* A section that runs past the end; a count too large for the file. */
    memcpy(bad, file, size);
    bad[12 + 4 + 4] = 0x10;
    IO_EXPECT(open_zkey, bad, size, ZP_ERR_FORMAT, "truncated: section 1 extends past the end of the file");
    memcpy(bad, file, size);
    memset(bad + 8, 0xff, 4);
    IO_EXPECT(open_zkey, bad, size, ZP_ERR_FORMAT, "truncated");
    free(bad);
    free(file);
    free_key(&k);
}

/* ---- .wtns ---- */

/* The .wtns checked as a stream (io/wtns_stream.h), in pieces of 1 to 97
 * bytes; bytes after the file's end are left, as the reader tolerates. */
static zp_status stream_wtns(zp_curve *curve, size_t *count, const uint8_t *d, size_t n, zp_error *err) {
    zp_wtns_stream s;
    zp_wtns_stream_init(&s, "w.wtns");
    size_t pos = 0;
    while (pos < n && !zp_wtns_stream_done(&s)) {
        size_t piece = 1 + (size_t)(zp_test_rand64() % 97), used;
        if (piece > n - pos) piece = n - pos;
        zp_status st = zp_wtns_stream_feed(&s, d + pos, piece, &used, err);
        if (st != ZP_OK) return st;
        CHECK(used <= piece && (used == piece || zp_wtns_stream_done(&s)));
        pos += used;
    }
    return zp_wtns_stream_finish(&s, curve, count, err);
}

/* Every .wtns goes through the reader, the in-place check and the stream
 * check: all three must agree on whether it is valid, and on its curve and
 * count when it is. */
static zp_status open_wtns(const uint8_t *d, size_t n, zp_error *err) {
    zp_wtns *w;
    zp_status st = zp_wtns_open_mem(&w, d, n, "w.wtns", err);
    zp_curve c1 = ZP_CURVE_NONE, c2 = ZP_CURVE_NONE;
    size_t n1 = 0, n2 = 0;
    zp_error e1, e2;
    zp_status st1 = zp_wtns_check_mem(&c1, &n1, d, n, "w.wtns", &e1);
    zp_status st2 = stream_wtns(&c2, &n2, d, n, &e2);
    CHECK_MSG((st == ZP_OK) == (st1 == ZP_OK), "open %d, check_mem %d: %s", st, st1, e1.message);
    CHECK_MSG((st == ZP_OK) == (st2 == ZP_OK), "open %d (%s), stream %d: %s", st, st ? err->message : "", st2,
              st2 ? e2.message : "");
    if (st == ZP_OK) {
        CHECK(zp_wtns_count(w) >= 1 && aligned8(zp_wtns_values(w)) && zp_wtns_values(w)[0] == 1);
        CHECK(c1 == zp_wtns_curve(w) && n1 == zp_wtns_count(w) && c2 == c1 && n2 == n1);
        zp_wtns_close(w);
    }
    return st;
}

static void test_wtns(zp_curve c) {
    enum { N = 37 };
    uint64_t vals[N * 4];
    for (size_t i = 0; i < N; i++) rand_fr(vals + 4 * i);
    memset(vals, 0, 32);
    vals[0] = 1;
    memcpy(vals + 4 * 5, r_of(c), 32);
    vals[4 * 5] -= 1; /* r - 1: the largest valid value */
    const char *path = io_path("w.wtns");
    zp_error err = {0};
    CHECK(zp_wtns_write(path, c, vals, N, &err) == ZP_OK);
    zp_wtns *w = NULL;
    CHECK_MSG(zp_wtns_open(&w, path, &err) == ZP_OK, "%s", err.message);
    if (w != NULL) {
        CHECK(zp_wtns_curve(w) == c && zp_wtns_count(w) == N && !memcmp(zp_wtns_values(w), vals, sizeof vals));
        zp_wtns_close(w);
    }
    size_t size;
    uint8_t *file = io_slurp(path, &size);
    io_corpus("wtns", c == ZP_CURVE_BN254 ? "bn" : "bls", file, size);
    io_mutate(open_wtns, file, size, zp_test_iters(3000));
    uint8_t *bad = malloc(size);
#define WEDIT(stmt, st, want)                      \
    do {                                           \
        memcpy(bad, file, size);                   \
        stmt;                                      \
        IO_EXPECT(open_wtns, bad, size, st, want); \
    } while (0)
    /* Header at 12 + 12 = 24: n8, prime (32), nWitness; values at 24 + 40 + 12. */
    WEDIT(memcpy(bad, "zkey", 4), ZP_ERR_FORMAT, "w.wtns: not a .wtns file (magic 'zkey')");
    WEDIT(bad[4] = 1, ZP_ERR_UNSUPPORTED, "version 1");
    WEDIT(bad[24] = 48, ZP_ERR_UNSUPPORTED, "unsupported prime");
    WEDIT(bad[28] ^= 2, ZP_ERR_UNSUPPORTED, "unsupported prime");
    WEDIT(bad[60] += 1, ZP_ERR_FORMAT, "section 2 (values) is");
    WEDIT(memcpy(bad + 76 + 32 * 7, r_of(c), 32), ZP_ERR_FORMAT, "w.wtns: w[7] is not below the");
    WEDIT(bad[76] = 2, ZP_ERR_FORMAT, "w[0] is not 1");
    WEDIT(bad[12 + 4] = 41, ZP_ERR_FORMAT, "truncated: section");
#undef WEDIT
    /* Section 1 of 41 bytes: the size must be exact. */
    {
        io_sec s[4];
        size_t k = io_split(file, size, s, 4);
        uint8_t h41[41] = {0};
        memcpy(h41, s[0].p, 40);
        s[0].p = h41;
        s[0].n = 41;
        size_t n2;
        uint8_t *f2 = io_join(file, s, k, &n2);
        IO_EXPECT(open_wtns, f2, n2, ZP_ERR_FORMAT, "section 1 (header) is 41 bytes, expected 40");
        free(f2);
    }
    free(bad);
    free(file);
}

/* ---- .r1cs ---- */

static zp_status open_r1cs(const uint8_t *d, size_t n, zp_error *err) {
    zp_r1cs *r;
    zp_status st = zp_r1cs_open_mem(&r, d, n, "c.r1cs", err);
    if (st == ZP_OK) {
        const zp_r1cs_header *h = zp_r1cs_get_header(r);
        for (int k = 0; k < 3; k++) {
            const zp_r1cs_matrix *m = zp_r1cs_get_matrix(r, k);
            CHECK(m->row_start[h->n_constraints] == m->n_terms);
            for (size_t t = 0; t < m->n_terms; t++) CHECK(m->wire[t] < h->n_wires);
        }
        zp_r1cs_close(r);
    }
    return st;
}

static void test_r1cs(zp_curve c) {
    enum { NC = 11, NW = 14 };
    zp_r1cs_header h = {
        .curve = c, .n_wires = NW, .n_pub_out = 1, .n_pub_in = 2, .n_prv_in = 3, .n_labels = NW, .n_constraints = NC};
    zp_r1cs_matrix m[3];
    for (int k = 0; k < 3; k++) {
        m[k].row_start = malloc((NC + 1) * sizeof *m[k].row_start);
        m[k].wire = malloc(NC * 4 * sizeof *m[k].wire);
        m[k].coef = malloc(NC * 4 * 4 * sizeof *m[k].coef);
        size_t t = 0;
        for (size_t i = 0; i < NC; i++) {
            m[k].row_start[i] = t;
            size_t terms = zp_test_rand64() % 4; /* empty rows included */
            for (size_t j = 0; j < terms; j++, t++) {
                m[k].wire[t] = (uint32_t)(zp_test_rand64() % NW);
                rand_fr(m[k].coef + 4 * t);
            }
        }
        m[k].row_start[NC] = t;
        m[k].n_terms = t;
    }
    const char *path = io_path("c.r1cs");
    zp_error err = {0};
    CHECK(zp_r1cs_write(path, &h, m, &err) == ZP_OK);
    zp_r1cs *r = NULL;
    CHECK_MSG(zp_r1cs_open(&r, path, &err) == ZP_OK, "%s", err.message);
    if (r != NULL) {
        /* field by field: the struct has padding, whose bytes are unspecified */
        const zp_r1cs_header *g0 = zp_r1cs_get_header(r);
        CHECK(g0->curve == h.curve && g0->n_wires == h.n_wires && g0->n_pub_out == h.n_pub_out &&
              g0->n_pub_in == h.n_pub_in && g0->n_prv_in == h.n_prv_in && g0->n_labels == h.n_labels &&
              g0->n_constraints == h.n_constraints);
        for (int k = 0; k < 3; k++) {
            const zp_r1cs_matrix *g = zp_r1cs_get_matrix(r, k);
            CHECK(g->n_terms == m[k].n_terms && !memcmp(g->row_start, m[k].row_start, (NC + 1) * 8) &&
                  !memcmp(g->wire, m[k].wire, g->n_terms * 4) && !memcmp(g->coef, m[k].coef, g->n_terms * 32));
        }
        CHECK(zp_r1cs_get_matrix(r, 3) == NULL);
        zp_r1cs_close(r);
    }
    size_t size;
    uint8_t *file = io_slurp(path, &size);
    io_corpus("r1cs", c == ZP_CURVE_BN254 ? "bn" : "bls", file, size);
    io_mutate(open_r1cs, file, size, zp_test_iters(3000));
    io_sec s[4];
    size_t k = io_split(file, size, s, 4);
    /* circom writes §2 before §1; without §3 it is still fine. */
    {
        io_sec t[3] = {s[1], s[0]};
        size_t n2;
        uint8_t *f2 = io_join(file, t, 2, &n2);
        IO_EXPECT(open_r1cs, f2, n2, ZP_OK, "");
        free(f2);
    }
    uint8_t *sec2 = malloc(s[1].n + 36);
    io_sec t[3] = {s[0], s[1], s[2]};
    t[1].p = sec2;
#define R1EDIT(stmt, len_, want)                             \
    do {                                                     \
        memcpy(sec2, s[1].p, s[1].n);                        \
        stmt;                                                \
        t[1].n = (len_);                                     \
        size_t n2_;                                          \
        uint8_t *f2_ = io_join(file, t, k, &n2_);            \
        IO_EXPECT(open_r1cs, f2_, n2_, ZP_ERR_FORMAT, want); \
        free(f2_);                                           \
    } while (0)
    /* The first term of the first non-empty LC: find it. */
    size_t first = 0;
    uint32_t cnt;
    for (;; first += 4 + 36 * (size_t)cnt) {
        memcpy(&cnt, s[1].p + first, 4);
        if (cnt) break;
    }
    uint32_t big = NW;
    R1EDIT(memcpy(sec2 + first + 4, &big, 4), s[1].n, "refers to wire 14, not below nWires 14");
    R1EDIT(memcpy(sec2 + first + 8, r_of(c), 32), s[1].n, "is not below the");
    R1EDIT((void)0, s[1].n + 1, "c.r1cs: section 2 (constraints) is");
    R1EDIT((void)0, s[1].n - 1, "ends inside constraint 10");
    R1EDIT(memset(sec2 + first, 0xff, 4), s[1].n, "ends inside constraint");
#undef R1EDIT
    free(sec2);
    uint8_t *bad = malloc(size);
    memcpy(bad, file, size);
    size_t h1 = (size_t)(s[0].p - file);
    bad[h1 + 36] = 0; /* nWires = 0 */
    memset(bad + h1 + 37, 0, 3);
    IO_EXPECT(open_r1cs, bad, size, ZP_ERR_FORMAT, "nWires 0 is smaller");
    memcpy(bad, file, size);
    memset(bad + h1 + 60, 0xff, 4); /* nConstraints */
    IO_EXPECT(open_r1cs, bad, size, ZP_ERR_FORMAT, "too short for 4294967295 constraints");
    memcpy(bad, file, size);
    bad[h1 + 4] ^= 0x80;
    IO_EXPECT(open_r1cs, bad, size, ZP_ERR_UNSUPPORTED, "unsupported prime");
    free(bad);
    free(file);
    for (int j = 0; j < 3; j++) {
        free(m[j].row_start);
        free(m[j].wire);
        free(m[j].coef);
    }
}

static void test_binfile(void) {
    zp_binfile bf;
    zp_error err = {0};
    static const uint8_t tiny[] = {'z', 'k', 'e', 'y', 1, 0, 0};
    CHECK(zp_binfile_open_mem(&bf, tiny, sizeof tiny, "t", "zkey", 1, &err) == ZP_ERR_FORMAT &&
          strstr(err.message, "truncated") != NULL);
    static const uint8_t ctl[] = {'\n', 0, 'x', 'y', 1, 0, 0, 0, 0, 0, 0, 0};
    CHECK(zp_binfile_open_mem(&bf, ctl, sizeof ctl, "t", "zkey", 1, &err) == ZP_ERR_FORMAT &&
          strstr(err.message, "(magic '??xy')") != NULL);
    static const uint8_t empty[] = {'z', 'k', 'e', 'y', 1, 0, 0, 0, 0, 0, 0, 0};
    CHECK(zp_binfile_open_mem(&bf, empty, sizeof empty, "t", "zkey", 1, &err) == ZP_OK);
    const uint8_t *p;
    uint64_t n;
    CHECK(zp_binfile_section(&bf, 1, "x", 0, &p, &n, &err) == ZP_OK && p == NULL && n == 0);
    CHECK(zp_binfile_section(&bf, 1, "x", 1, &p, &n, &err) == ZP_ERR_FORMAT);
    zp_binfile_close(&bf);
    /* A directory and an empty file. */
    CHECK(zp_binfile_open(&bf, io_tmpdir, "zkey", 1, &err) == ZP_ERR_IO);
    io_spit(io_path("empty.zkey"), "", 0);
    CHECK(zp_binfile_open(&bf, io_path("empty.zkey"), "zkey", 1, &err) == ZP_ERR_FORMAT);
    /* The writer reports an unwritable path. */
    zp_binwriter w;
    CHECK(zp_binwriter_open(&w, "/nonexistent-dir/x.zkey", "zkey", 1, 0, &err) == ZP_ERR_IO);
    /* Releasing pages lets go of this file's pages only: a pointer into
     * memory just below its mapping (zkey verify once released a key's
     * points through a second mapping of the file) leaves that memory
     * as it was, where madvise would have zeroed it. */
    enum { DATA = 1 << 16 };
    uint8_t *file = calloc(1, 24 + DATA);
    CHECK(file != NULL);
    if (file == NULL) return;
    memcpy(file, "zkey\1\0\0\0\1\0\0\0\1\0\0\0", 16);
    file[16 + 2] = 1; /* section 1: 65536 bytes */
    io_spit(io_path("pages.zkey"), file, 24 + DATA);
    free(file);
    CHECK(zp_binfile_open(&bf, io_path("pages.zkey"), "zkey", 1, &err) == ZP_OK);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *below = mmap((uint8_t *)(uintptr_t)bf.data - 2 * page, 2 * page, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (below != MAP_FAILED && below == (uint8_t *)(uintptr_t)bf.data - 2 * page) {
        memset(below, 0xab, 2 * page);
        zp_binfile_release(&bf, below, 2 * page);
        zp_binfile_release(&bf, below + page, 2 * page); /* across the mapping's start */
        CHECK_MSG(below[0] == 0xab && below[2 * page - 1] == 0xab, "release outside the mapping left it as it was");
        munmap(below, 2 * page);
    }
    zp_binfile_close(&bf);
}

/* Every reader of a user-named file refuses a FIFO (at once: alarm() turns
 * a hang into a failure), a device and a directory, naming the kind; a
 * JSON file over its cap is refused from its size, before any read. */
static void on_alarm(int sig) {
    (void)sig;
    static const char msg[] = "test_io: a reader blocked on a FIFO\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(1);
}

static void check_refused(zp_status st, const zp_error *err, const char *kind) {
    CHECK_MSG(st == ZP_ERR_IO && strstr(err->message, "not a regular file") && strstr(err->message, kind), "%s",
              err->message);
}

static void test_special_files(void) {
    const char *fifo = io_path("fifo");
    CHECK(mkfifo(fifo, 0600) == 0);
    const char *paths[3] = {fifo, "/dev/zero", io_tmpdir};
    const char *kinds[3] = {"(a FIFO)", "(a character device)", "(a directory)"};
    signal(SIGALRM, on_alarm);
    alarm(10);
    for (int i = 0; i < 3; i++) {
        zp_error err = {0};
        zp_zkey *z;
        zp_wtns *w;
        zp_r1cs *r;
        uint64_t values[4 * 4];
        check_refused(zp_zkey_open(&z, paths[i], &err), &err, kinds[i]);
        check_refused(zp_wtns_open(&w, paths[i], &err), &err, kinds[i]);
        check_refused(zp_wtns_read_into(values, 4, ZP_CURVE_BN254, paths[i], &err), &err, kinds[i]);
        check_refused(zp_r1cs_open(&r, paths[i], &err), &err, kinds[i]);
        zp_groth16_proof proof;
        zp_groth16_vk vk;
        uint64_t *pub;
        size_t n;
        check_refused(zp_json_proof_read(&proof, paths[i], ZP_CURVE_NONE, &err), &err, kinds[i]);
        check_refused(zp_json_vk_read(&vk, paths[i], &err), &err, kinds[i]);
        check_refused(zp_json_public_read(&pub, &n, paths[i], ZP_CURVE_BN254, &err), &err, kinds[i]);
        int fd;
        check_refused(zp_file_open_regular(&fd, NULL, paths[i], &err), &err, kinds[i]);
        CHECK(fd == -1);
    }
    alarm(0);
    /* a regular file: a blocking descriptor and its size */
    io_spit(io_path("five"), "12345", 5);
    int fd;
    uint64_t size;
    zp_error err = {0};
    CHECK(zp_file_open_regular(&fd, &size, io_path("five"), &err) == ZP_OK && size == 5 &&
          !(fcntl(fd, F_GETFL) & O_NONBLOCK));
    close(fd);
    CHECK(zp_file_open_regular(&fd, &size, io_path("nothing"), &err) == ZP_ERR_IO &&
          strstr(err.message, "cannot open") && fd == -1);
    /* Sparse files far over each cap: refused by size, so quickly and
     * without the memory a read would take. */
    const char *big = io_path("big.json");
    int bfd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(bfd >= 0 && ftruncate(bfd, 100LL << 30) == 0);
    close(bfd);
    zp_groth16_proof proof;
    zp_groth16_vk vk;
    uint64_t *pub;
    size_t n;
    CHECK_MSG(zp_json_proof_read(&proof, big, ZP_CURVE_NONE, &err) == ZP_ERR_FORMAT &&
                  strstr(err.message, "107374182400 bytes, more than a proof can hold (64 KiB)"),
              "%s", err.message);
    CHECK_MSG(zp_json_vk_read(&vk, big, &err) == ZP_ERR_FORMAT &&
                  strstr(err.message, "more than a verification key can hold (64 MiB)"),
              "%s", err.message);
    CHECK_MSG(zp_json_public_read(&pub, &n, big, ZP_CURVE_BN254, &err) == ZP_ERR_FORMAT &&
                  strstr(err.message, "more than a list of public signals can hold (64 MiB)"),
              "%s", err.message);
    /* just over the proof's cap: still refused; the cap is exact */
    bfd = open(big, O_WRONLY | O_TRUNC);
    CHECK(bfd >= 0 && ftruncate(bfd, (64 << 10) + 1) == 0);
    close(bfd);
    CHECK(zp_json_proof_read(&proof, big, ZP_CURVE_NONE, &err) == ZP_ERR_FORMAT && strstr(err.message, "65537 bytes"));
    unlink(big);
}

/* Opening beneath a directory (what a store row or a request names):
 * openat2 where the kernel has it, and the O_NOFOLLOW walk alone (the
 * fallback before 5.6), with the same answers. A private directory. */
static int beneath_file_is(const char *path, const char *want) {
    char buf[64] = {0};
    int fd = open(path, O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0) close(fd);
    return n >= 0 && strcmp(buf, want) == 0;
}

static void test_beneath(void) {
    char root[600], out[600], p[700], abs_secret[700];
    snprintf(root, sizeof root, "%s/beneath", io_tmpdir);
    snprintf(out, sizeof out, "%s/out", io_tmpdir);
    snprintf(abs_secret, sizeof abs_secret, "%s/secret", out);
    CHECK(mkdir(root, 0700) == 0 && mkdir(out, 0700) == 0);
    snprintf(p, sizeof p, "%s/a", root);
    CHECK(mkdir(p, 0700) == 0);
    snprintf(p, sizeof p, "%s/a/b", root);
    CHECK(mkdir(p, 0700) == 0);
    snprintf(p, sizeof p, "%s/a/b/f", root);
    io_spit(p, "ok", 2);
    io_spit(abs_secret, "secret", 6);
    snprintf(p, sizeof p, "%s/link", root);
    CHECK(symlink(out, p) == 0); /* a directory link to outside */
    snprintf(p, sizeof p, "%s/a/lf", root);
    CHECK(symlink(abs_secret, p) == 0); /* a file link to outside */
    snprintf(p, sizeof p, "%s/a/fifo", root);
    CHECK(mkfifo(p, 0600) == 0);
    int dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    CHECK(dfd >= 0);
    signal(SIGALRM, on_alarm);
    alarm(10);
    for (int walk = 0; walk < 2; walk++) {
        int (*op)(int, const char *, int, unsigned) = walk ? zp_file_open_beneath_walk : zp_file_open_beneath;
        const char *how = walk ? "walk" : "openat2";
        char buf[8] = {0};
        int fd = op(dfd, "a/b/f", O_RDONLY | O_CLOEXEC, 0);
        CHECK_MSG(fd >= 0 && read(fd, buf, sizeof buf) == 2 && !strcmp(buf, "ok"), "%s: a/b/f", how);
        if (fd >= 0) close(fd);
        fd = op(dfd, "./a//b/f", O_RDONLY | O_CLOEXEC, 0);
        CHECK_MSG(fd >= 0, "%s: ./a//b/f", how);
        if (fd >= 0) close(fd);
        static const struct {
            const char *rel;
            int flags, err;
        } refused[] = {
            {"link/secret", O_RDONLY, ELOOP},
            {"a/lf", O_RDONLY, ELOOP},
            {"a/lf", O_PATH, ELOOP},
            {"../out/secret", O_RDONLY, EXDEV},
            {"a/../../out/secret", O_RDONLY, EXDEV},
            {"link/new", O_WRONLY | O_CREAT | O_EXCL, ELOOP},
            {"", O_RDONLY, ENOENT},
            {"a/nothing", O_RDONLY, ENOENT},
        };
        for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
            errno = 0;
            fd = op(dfd, refused[i].rel, refused[i].flags | O_CLOEXEC, 0600);
            CHECK_MSG(fd < 0 && errno == refused[i].err, "%s: '%s' gave %d, errno %d (%s), wanted %d", how,
                      refused[i].rel, fd, errno, strerror(errno), refused[i].err);
            if (fd >= 0) close(fd);
        }
        errno = 0;
        fd = op(dfd, abs_secret, O_RDONLY | O_CLOEXEC, 0);
        CHECK_MSG(fd < 0 && errno == EXDEV, "%s: an absolute path gave %d, errno %d", how, fd, errno);
        /* a file link is never written through, created over or followed */
        fd = op(dfd, "a/lf", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        CHECK_MSG(fd < 0 && (errno == EEXIST || errno == ELOOP), "%s: O_CREAT over a link: %d", how, fd);
        if (fd >= 0) close(fd);
        /* a FIFO opens at once with O_NONBLOCK (the caller's fstat refuses it) */
        fd = op(dfd, "a/fifo", O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
        struct stat sb;
        CHECK_MSG(fd >= 0 && fstat(fd, &sb) == 0 && S_ISFIFO(sb.st_mode), "%s: a/fifo", how);
        if (fd >= 0) close(fd);
        /* creating beneath: a new file, then not over it */
        fd = op(dfd, "a/new", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        CHECK_MSG(fd >= 0 && fstat(fd, &sb) == 0 && (sb.st_mode & 0777) == 0600, "%s: a/new", how);
        if (fd >= 0) close(fd);
        errno = 0;
        CHECK_MSG(op(dfd, "a/new", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600) < 0 && errno == EEXIST, "%s", how);
        snprintf(p, sizeof p, "%s/a/new", root);
        unlink(p);
    }
    alarm(0);
    CHECK(beneath_file_is(abs_secret, "secret"));
    snprintf(p, sizeof p, "%s/new", out);
    CHECK(access(p, F_OK) != 0);
    close(dfd);

    /* a private directory: this user's, writable by nobody else */
    zp_error err = {0};
    int d = open(out, O_RDONLY | O_DIRECTORY);
    CHECK(d >= 0 && zp_file_check_private_dir(d, "spool_dir", out, &err) == ZP_OK);
    CHECK(chmod(out, 0755) == 0 && zp_file_check_private_dir(d, "spool_dir", out, &err) == ZP_OK);
    CHECK(chmod(out, 0770) == 0);
    CHECK_MSG(zp_file_check_private_dir(d, "spool_dir", out, &err) == ZP_ERR_ARG && strstr(err.message, out) &&
                  strstr(err.message, "writable by its group (mode 0770)"),
              "%s", err.message);
    CHECK(chmod(out, 01777) == 0);
    CHECK_MSG(zp_file_check_private_dir(d, "data_dir", out, &err) == ZP_ERR_ARG && strstr(err.message, "data_dir") &&
                  strstr(err.message, "its group and others (mode 1777)"),
              "%s", err.message);
    CHECK(chmod(out, 0700) == 0);
    if (geteuid() == 0) {
        CHECK(chown(out, 65534, (gid_t)-1) == 0);
        CHECK_MSG(zp_file_check_private_dir(d, "spool_dir", out, &err) == ZP_ERR_ARG &&
                      strstr(err.message, "owned by uid 65534"),
                  "%s", err.message);
        CHECK(chown(out, 0, (gid_t)-1) == 0);
    }
    if (d >= 0) close(d);
    d = open(abs_secret, O_RDONLY);
    CHECK(d >= 0 && zp_file_check_private_dir(d, "spool_dir", abs_secret, &err) == ZP_ERR_ARG &&
          strstr(err.message, "not a directory"));
    if (d >= 0) close(d);

    char cmd[1400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", root, out);
    CHECK(system(cmd) == 0);
}

/* Sizes and numbers are read strictly: no nan, inf, sign, exponent, hex,
 * spaces or overflow (strtod once read "nan" as 8 EiB). */
static void test_sizes(void) {
    static const struct {
        const char *text;
        uint64_t value;
    } good[] = {{"0", 0},
                {"4096", 4096},
                {"8G", 8ULL << 30},
                {"8g", 8ULL << 30},
                {"8GiB", 8ULL << 30},
                {"8GB", 8ULL << 30},
                {"8Gi", 8ULL << 30},
                {"512M", 512ULL << 20},
                {"512MiB", 512ULL << 20},
                {"100K", 100ULL << 10},
                {"1.5G", 3ULL << 29},
                {"2TiB", 2ULL << 40},
                {"0.5K", 512},
                {"100B", 100},
                {"18446744073709551615", UINT64_MAX},
                {"16777215.999999T", 18446744073708452104ULL}};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        uint64_t v = 1;
        CHECK_MSG(zp_size_parse(&v, good[i].text) && v == good[i].value, "'%s' read as %llu", good[i].text,
                  (unsigned long long)v);
    }
    static const char *bad[] = {"nan",       "NaN",
                                "inf",       "infinity",
                                "-1",        "-0",
                                "+8G",       "1e3",
                                "1E3",       "0x10",
                                " 8G",       "8G ",
                                "8 G",       "",
                                ".5G",       "5.G",
                                "8x",        "16E",
                                "8iB",       "8GG",
                                "8Gb",       "18446744073709551616",
                                "16777216T", "99999999999999999999999G",
                                "1.5.G"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        uint64_t v = 1;
        CHECK_MSG(!zp_size_parse(&v, bad[i]) && zp_parse_size(bad[i]) == 0, "'%s' accepted as %llu", bad[i],
                  (unsigned long long)v);
    }
    /* through an option table: bytes, whole numbers, integers, seconds */
    struct {
        uint64_t bytes, whole;
        size_t count;
        long long i;
        double secs;
    } d;
    static const zp_option t[] = {
        {"budget", 0, ZP_OPT_BYTES, offsetof(__typeof__(d), bytes), 1, UINT64_MAX, NULL, NULL, "", NULL},
        {"n", 0, ZP_OPT_UINT, offsetof(__typeof__(d), whole), 0, 0, NULL, NULL, "", NULL},
        {"c", 0, ZP_OPT_COUNT, offsetof(__typeof__(d), count), 1, 64, NULL, NULL, "", NULL},
        {"i", 0, ZP_OPT_INT, offsetof(__typeof__(d), i), 0, 0, NULL, NULL, "", NULL},
        {"wait", 0, ZP_OPT_SECONDS, offsetof(__typeof__(d), secs), 0, 0, NULL, NULL, "", NULL},
    };
    zp_error err = {0};
    CHECK_MSG(zp_options_set(&d, &t[0], "--budget", "nan", NULL, &err) == ZP_ERR_ARG &&
                  !strcmp(err.message, "--budget needs a size such as 8G or 512M, not 'nan'"),
              "%s", err.message);
    CHECK(zp_options_set(&d, &t[0], "--budget", "1.5G", NULL, &err) == ZP_OK && d.bytes == 3ULL << 29);
    CHECK(zp_options_set(&d, &t[0], "--budget", "0", NULL, &err) == ZP_ERR_ARG); /* below min */
    /* a memory budget: at most what the machine (or its cgroup) has */
    static const zp_option mem = {"budget", 0,  ZP_OPT_MEMORY, offsetof(__typeof__(d), bytes), 1, UINT64_MAX, NULL,
                                  NULL,     "", NULL};
    char what[300];
    uint64_t have = zp_memory_limit(what, sizeof what);
    CHECK_MSG(have >= (16u << 20), "the machine's memory: %llu (%s)", (unsigned long long)have, what);
    CHECK(zp_options_set(&d, &mem, "--budget", "16M", NULL, &err) == ZP_OK && d.bytes == 16u << 20);
    CHECK_MSG(zp_options_set(&d, &mem, "--budget", "18446744073709551615", NULL, &err) == ZP_ERR_ARG &&
                  strstr(err.message, "--budget 18446744073709551615 (16.0 EiB) is more than this machine's memory"),
              "%s", err.message);
    char just_over[32];
    snprintf(just_over, sizeof just_over, "%llu", (unsigned long long)have + 1);
    CHECK(zp_options_set(&d, &mem, "--budget", just_over, "file:3", &err) == ZP_ERR_ARG &&
          strstr(err.message, "file:3: --budget"));
    snprintf(just_over, sizeof just_over, "%llu", (unsigned long long)have);
    CHECK(zp_options_set(&d, &mem, "--budget", just_over, NULL, &err) == ZP_OK && d.bytes == have);
    static const char *bad_whole[] = {" 5", "+5", "-1", " -1", "5 ", "0x10", "1e3", "5.0", "", "18446744073709551616"};
    for (size_t i = 0; i < sizeof bad_whole / sizeof *bad_whole; i++) {
        CHECK_MSG(zp_options_set(&d, &t[1], "--n", bad_whole[i], NULL, &err) == ZP_ERR_ARG, "'%s'", bad_whole[i]);
        CHECK_MSG(zp_options_set(&d, &t[2], "--c", bad_whole[i], NULL, &err) == ZP_ERR_ARG, "'%s'", bad_whole[i]);
    }
    CHECK(zp_options_set(&d, &t[1], "--n", "18446744073709551615", NULL, &err) == ZP_OK && d.whole == UINT64_MAX);
    CHECK(zp_options_set(&d, &t[2], "--c", "64", NULL, &err) == ZP_OK && d.count == 64);
    CHECK(zp_options_set(&d, &t[3], "--i", "-9223372036854775808", NULL, &err) == ZP_OK && d.i == LLONG_MIN);
    CHECK(zp_options_set(&d, &t[3], "--i", "9223372036854775807", NULL, &err) == ZP_OK && d.i == LLONG_MAX);
    CHECK(zp_options_set(&d, &t[3], "--i", "-17", NULL, &err) == ZP_OK && d.i == -17);
    static const char *bad_int[] = {"9223372036854775808", "-9223372036854775809", " 1", "+1", "--1", "-", "1 "};
    for (size_t i = 0; i < sizeof bad_int / sizeof *bad_int; i++) {
        CHECK_MSG(zp_options_set(&d, &t[3], "--i", bad_int[i], NULL, &err) == ZP_ERR_ARG, "'%s'", bad_int[i]);
    }
    CHECK(zp_options_set(&d, &t[4], "--wait", "0.25", NULL, &err) == ZP_OK && d.secs == 0.25);
    CHECK(zp_options_set(&d, &t[4], "--wait", "30", NULL, &err) == ZP_OK && d.secs == 30);
    static const char *bad_secs[] = {"nan",
                                     "inf",
                                     "-1",
                                     "1e3",
                                     "0x10",
                                     " 5",
                                     "5 ",
                                     ".5",
                                     "5.",
                                     "",
                                     "1"
                                     "000000000000000000000000000000000000000000000000000000000000000000000000"
                                     "000000000000000000000000000000000000000000000000000000000000000000000000"
                                     "000000000000000000000000000000000000000000000000000000000000000000000000"
                                     "000000000000000000000000000000000000000000000000000000000000000000000000"
                                     "000000000000000000000000000000000000000000000000000000000000000000000000"};
    for (size_t i = 0; i < sizeof bad_secs / sizeof *bad_secs; i++) {
        CHECK_MSG(zp_options_set(&d, &t[4], "--wait", bad_secs[i], NULL, &err) == ZP_ERR_ARG, "'%s'", bad_secs[i]);
    }
}

/* FIPS 180-2's vectors, whole and fed in pieces. */
static void test_sha256(void) {
    static const struct {
        const char *text, *hex;
    } v[] = {{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
             {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
             {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"}};
    zp_error err;
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        uint8_t d[ZP_SHA256_BYTES];
        char hex[ZP_SHA256_HEX];
        CHECK(zp_sha256_bytes(d, v[i].text, strlen(v[i].text), &err) == ZP_OK);
        zp_sha256_hex(hex, d);
        CHECK_MSG(strcmp(hex, v[i].hex) == 0, "sha256('%s') = %s", v[i].text, hex);
        zp_sha256 h;
        CHECK(zp_sha256_init(&h, &err) == ZP_OK);
        for (size_t k = 0; v[i].text[k]; k++) zp_sha256_update(&h, v[i].text + k, 1);
        zp_sha256_final(&h, d);
        zp_sha256_hex(hex, d);
        CHECK_MSG(strcmp(hex, v[i].hex) == 0, "sha256('%s') bytewise = %s", v[i].text, hex);
    }
}

int main(void) {
    zp_test_init("test_io");
    test_sha256();
    io_tmp_init();
    test_binfile();
    test_special_files();
    test_beneath();
    test_sizes();
    for (int i = 0; i < 2; i++) {
        test_zkey(CURVES[i]);
        test_wtns(CURVES[i]);
        test_r1cs(CURVES[i]);
    }
    io_tmp_cleanup();
    return zp_test_done();
}
