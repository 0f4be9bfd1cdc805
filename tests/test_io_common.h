/* Shared by the src/io tests: a temp dir, random valid points, and
 * whole-file byte manipulation. Header-only (static) so each test program
 * stays one .c file plus testutil. */
#ifndef ZP_TEST_IO_COMMON_H
#define ZP_TEST_IO_COMMON_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "curve/curve.h"
#include "testutil.h"
#include "zkpipe.h"

static char io_tmpdir[256];

static void io_tmp_init(void) {
    const char *base = getenv("TMPDIR");
    snprintf(io_tmpdir, sizeof io_tmpdir, "%s/zp_io_XXXXXX", base && *base ? base : "/tmp");
    if (mkdtemp(io_tmpdir) == NULL) {
        perror("mkdtemp");
        exit(2);
    }
}

static void io_tmp_cleanup(void) {
    DIR *d = opendir(io_tmpdir);
    if (d == NULL) return;
    struct dirent *e;
    char p[512];
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        snprintf(p, sizeof p, "%s/%s", io_tmpdir, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(io_tmpdir);
}

/* A path in the temp dir (static buffer per slot). */
static const char *io_path(const char *name) {
    static char bufs[4][512];
    static int slot;
    char *b = bufs[slot++ % 4];
    snprintf(b, 512, "%s/%s", io_tmpdir, name);
    return b;
}

/* The whole file, NUL-terminated (so text can be read as a string);
 * NULL when it cannot be opened or read whole. */
static uint8_t *io_slurp(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    uint8_t *b = n >= 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc((size_t)n + 1) : NULL;
    if (b != NULL && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b != NULL) b[n] = 0, *size = (size_t)n;
    return b;
}

static void io_spit(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(p, 1, n, f) != n) {
        perror(path);
        exit(2);
    }
    fclose(f);
}

/* Copies a file into $ZP_IO_CORPUS_DIR/<kind>/ when that is set: fuzz/run.sh
 * seeds its corpora with the files the tests make. */
static void io_corpus(const char *kind, const char *name, const void *p, size_t n) {
    const char *dir = getenv("ZP_IO_CORPUS_DIR");
    if (dir == NULL || !*dir) return;
    char sub[512], file[768];
    snprintf(sub, sizeof sub, "%s/%s", dir, kind);
    mkdir(dir, 0755);
    mkdir(sub, 0755);
    snprintf(file, sizeof file, "%s/%s", sub, name);
    io_spit(file, p, n);
}

static size_t io_fp_limbs(zp_curve c) { return c == ZP_CURVE_BLS12_381 ? 6 : 4; }

static void io_rand_scalar(uint64_t k[4]) {
    zp_test_rand_bytes(k, 32);
    k[3] &= 0x0fffffffffffffffULL; /* below both scalar moduli */
}

/* k·G in affine Montgomery limbs, the layout of zp_groth16_proof and .zkey. */
static void io_rand_g1(zp_curve c, uint64_t *out) {
    uint64_t k[4];
    io_rand_scalar(k);
    if (c == ZP_CURVE_BN254) {
        zp_bn254_g1j j, t;
        zp_bn254_g1 a;
        zp_bn254_g1_j_from_affine(&j, &zp_bn254_g1_generator);
        zp_bn254_g1_j_mul(&t, &j, k, 4);
        zp_bn254_g1_j_to_affine(&a, &t);
        memcpy(out, &a, sizeof a);
    } else {
        zp_bls12_g1j j, t;
        zp_bls12_g1 a;
        zp_bls12_g1_j_from_affine(&j, &zp_bls12_g1_generator);
        zp_bls12_g1_j_mul(&t, &j, k, 4);
        zp_bls12_g1_j_to_affine(&a, &t);
        memcpy(out, &a, sizeof a);
    }
}

static void io_rand_g2(zp_curve c, uint64_t *out) {
    uint64_t k[4];
    io_rand_scalar(k);
    if (c == ZP_CURVE_BN254) {
        zp_bn254_g2j j, t;
        zp_bn254_g2 a;
        zp_bn254_g2_j_from_affine(&j, &zp_bn254_g2_generator);
        zp_bn254_g2_j_mul(&t, &j, k, 4);
        zp_bn254_g2_j_to_affine(&a, &t);
        memcpy(out, &a, sizeof a);
    } else {
        zp_bls12_g2j j, t;
        zp_bls12_g2 a;
        zp_bls12_g2_j_from_affine(&j, &zp_bls12_g2_generator);
        zp_bls12_g2_j_mul(&t, &j, k, 4);
        zp_bls12_g2_j_to_affine(&a, &t);
        memcpy(out, &a, sizeof a);
    }
}

/* Container surgery: the sections of a valid file, and a file rebuilt
 * from (possibly edited) sections. */
typedef struct io_sec {
    uint32_t id;
    const uint8_t *p;
    uint64_t n;
} io_sec;

static size_t io_split(const uint8_t *f, size_t size, io_sec *out, size_t max) {
    uint32_t n;
    memcpy(&n, f + 8, 4);
    size_t pos = 12, k = 0;
    for (uint32_t i = 0; i < n && k < max && pos + 12 <= size; i++) {
        memcpy(&out[k].id, f + pos, 4);
        memcpy(&out[k].n, f + pos + 4, 8);
        out[k].p = f + pos + 12;
        pos += 12 + out[k].n;
        k++;
    }
    return k;
}

/* magic+version from hdr (8 bytes); caller frees. */
static uint8_t *io_join(const uint8_t *hdr, const io_sec *s, size_t n, size_t *size) {
    size_t total = 12;
    for (size_t i = 0; i < n; i++) total += 12 + s[i].n;
    uint8_t *b = malloc(total), *q = b;
    memcpy(q, hdr, 8);
    uint32_t ns = (uint32_t)n;
    memcpy(q + 8, &ns, 4);
    q += 12;
    for (size_t i = 0; i < n; i++) {
        memcpy(q, &s[i].id, 4);
        memcpy(q + 4, &s[i].n, 8);
        memcpy(q + 12, s[i].p, s[i].n);
        q += 12 + s[i].n;
    }
    *size = total;
    return b;
}

static io_sec *io_find(io_sec *s, size_t n, uint32_t id) {
    for (size_t i = 0; i < n; i++) {
        if (s[i].id == id) return &s[i];
    }
    return NULL;
}

/* Runs open(data, size) and checks it fails with status st and a message
 * containing want. */
typedef zp_status (*io_opener)(const uint8_t *d, size_t n, zp_error *err);

#define IO_EXPECT(open, d, n, st, want)                                                                           \
    do {                                                                                                          \
        zp_error e_ = {0};                                                                                        \
        zp_status s_ = (open)((d), (n), &e_);                                                                     \
        CHECK_MSG(s_ == (st) && strstr(e_.message, (want)) != NULL, "status %d message '%s', want '%s'", (int)s_, \
                  e_.message, (want));                                                                            \
    } while (0)

/* Every truncation, then random bit flips: each must give a clean error or
 * a successful parse (the suite runs under ASan/UBSan to catch the rest). */
static void io_mutate(io_opener open, const uint8_t *file, size_t size, size_t flips) {
    uint8_t *buf = malloc(size + 1);
    int truncated_ok = 0;
    for (size_t len = 0; len < size; len++) {
        memcpy(buf, file, len);
        zp_error e = {0};
        if (open(buf, len, &e) == ZP_OK) truncated_ok++;
        else CHECK(e.message[0] != '\0');
    }
    CHECK_MSG(truncated_ok == 0, "%d truncations parsed", truncated_ok);
    for (size_t i = 0; i < flips; i++) {
        memcpy(buf, file, size);
        size_t nb = 1 + zp_test_rand64() % 3;
        for (size_t b = 0; b < nb; b++) {
            /* Half the flips land in the first 256 bytes: the headers. */
            size_t pos = (zp_test_rand64() & 1) && size > 256 ? zp_test_rand64() % 256 : zp_test_rand64() % size;
            buf[pos] ^= (uint8_t)(1u << (zp_test_rand64() % 8));
        }
        zp_error e = {0};
        zp_status st = open(buf, size, &e);
        CHECK(st == ZP_OK || e.message[0] != '\0');
    }
    free(buf);
}

#endif
