/* The curve descriptors (curve/desc.h) and the Groth16 tables
 * (groth16/curves.h): every field against facts from outside zkpipe (the
 * moduli as circom's and snarkjs's documentation print them, in decimal),
 * the lookups by id, name and modulus, and an unknown curve (an id, a name,
 * a prime) refused with a clear error by every lookup, the prover, the
 * setup, every writer and every reader. */
#include <stdlib.h>
#include <string.h>

#include "curve/curve.h"
#include "curve/desc.h"
#include "groth16/curves.h"
#include "groth16/groth16.h"
#include "groth16/setup.h"
#include "io/elements.h"
#include "io/json.h"
#include "io/r1cs.h"
#include "io/wtns.h"
#include "io/zkey.h"
#include "test_io_common.h"
#include "testutil.h"

/* circom's --prime bn128 / bls12381 (docs.circom.io) and the p of each
 * curve (EIP-196; draft-irtf-cfrg-pairing-friendly-curves). */
static const char BN254_R[] = "21888242871839275222246405745257275088548364400416034343698204186575808495617";
static const char BN254_P[] = "21888242871839275222246405745257275088696311157297823662689037894645226208583";
static const char BLS12_R[] = "52435875175126190479447740508185965837690552500527637822603658699938581184513";
static const char BLS12_P[] =
    "40024095552216673934177898257359041565568828199390078853320581361240316504908"
    "37864442687629129015664037894272559787";
/* secp256k1's p and n: primes, and neither curve's. */
static const uint64_t SECP_P[4] = {0xfffffffefffffc2fULL, ~0ULL, ~0ULL, ~0ULL};
static const uint64_t SECP_N[4] = {0xbfd25e8cd0364141ULL, 0xbaaedce6af48a03bULL, 0xfffffffffffffffeULL, ~0ULL};

static const zp_curve UNKNOWN[] = {ZP_CURVE_NONE, (zp_curve)3, (zp_curve)99, (zp_curve)-1};
enum { N_UNKNOWN = sizeof UNKNOWN / sizeof UNKNOWN[0] };

/* Decimal to n little-endian limbs, by hand (not base/bigint.c: the test
 * should not share code with what it checks). */
static void dec_to_limbs(uint64_t *out, size_t n, const char *s) {
    memset(out, 0, n * sizeof *out);
    for (; *s; s++) {
        unsigned __int128 carry = (unsigned)(*s - '0');
        for (size_t i = 0; i < n; i++) {
            unsigned __int128 t = (unsigned __int128)out[i] * 10 + carry;
            out[i] = (uint64_t)t;
            carry = t >> 64;
        }
        CHECK(carry == 0);
    }
}

static unsigned bit_length(const uint64_t *v, size_t n) {
    for (size_t i = n; i-- > 0;) {
        if (v[i]) return (unsigned)(64 * i + 64 - (unsigned)__builtin_clzll(v[i]));
    }
    return 0;
}

/* Largest k with 2^k | v - 1 (v odd). */
static unsigned two_adicity(const uint64_t *v, size_t n) {
    uint64_t w[8];
    memcpy(w, v, n * sizeof *v);
    w[0] -= 1;
    unsigned k = 0;
    for (size_t i = 0; i < n; i++) {
        if (w[i]) return k + (unsigned)__builtin_ctzll(w[i]);
        k += 64;
    }
    return k;
}

typedef struct expect {
    zp_curve id;
    const char *name, *title, *p, *r;
    size_t fp_limbs;
    unsigned fp_bits, fr_bits, adicity;
    int cofactor_one;
} expect;

static const expect EXPECT[] = {
    {ZP_CURVE_BN254, "bn128", "BN254", BN254_P, BN254_R, 4, 254, 254, 28, 1},
    {ZP_CURVE_BLS12_381, "bls12381", "BLS12-381", BLS12_P, BLS12_R, 6, 381, 255, 32, 0},
};

static void test_descriptors(void) {
    CHECK(zp_curve_count() == 2);
    CHECK(zp_curve_at(2) == NULL);
    for (size_t i = 0; i < 2; i++) {
        const expect *e = &EXPECT[i];
        const zp_curve_desc *d = zp_curve_get(e->id);
        CHECK_MSG(d != NULL && zp_curve_at(i) == d, "%s", e->name);
        if (d == NULL) continue;
        uint64_t p[6], r[4];
        dec_to_limbs(p, e->fp_limbs, e->p);
        dec_to_limbs(r, 4, e->r);
        CHECK(d->id == e->id && !strcmp(d->name, e->name) && !strcmp(d->title, e->title));
        CHECK(!strcmp(zp_curve_name(e->id), e->name));
        CHECK_MSG(d->fp_limbs == e->fp_limbs && d->fp_bytes == 8 * e->fp_limbs, "%s fp size", e->name);
        CHECK_MSG(!memcmp(d->fp_modulus, p, 8 * e->fp_limbs), "%s: p", e->name);
        CHECK_MSG(d->fr_limbs == 4 && d->fr_bytes == 32 && !memcmp(d->fr_modulus, r, 32), "%s: r", e->name);
        CHECK_MSG(d->fp_bits == e->fp_bits && bit_length(p, e->fp_limbs) == e->fp_bits, "%s: p bits", e->name);
        CHECK_MSG(d->fr_bits == e->fr_bits && bit_length(r, 4) == e->fr_bits, "%s: r bits", e->name);
        CHECK_MSG(d->fr_two_adicity == e->adicity && two_adicity(r, 4) == e->adicity, "%s: two-adicity %u", e->name,
                  d->fr_two_adicity);
        CHECK(d->g1_bytes == 2 * d->fp_bytes && d->g2_bytes == 4 * d->fp_bytes);
        CHECK(d->g1_cofactor_one == e->cofactor_one);
        CHECK(zp_fp_bytes(e->id) == d->fp_bytes && zp_g1_bytes(e->id) == d->g1_bytes &&
              zp_g2_bytes(e->id) == d->g2_bytes);
        CHECK(d->aliases != NULL && d->aliases[0] != NULL);

        /* Montgomery form: 1 -> R mod p (not 1) -> 1. */
        uint64_t one[6] = {1}, m[6], back[6];
        d->fp_to_mont(m, one);
        d->fp_from_mont(back, m);
        CHECK(memcmp(m, one, d->fp_bytes) != 0 && !memcmp(back, one, d->fp_bytes));
    }
}

/* The descriptors' point checks on each generator, and on it moved off the
 * curve (y + 1). */
static void test_point_checks(void) {
    const zp_curve_desc *bn = zp_curve_get(ZP_CURVE_BN254), *bls = zp_curve_get(ZP_CURVE_BLS12_381);
    uint64_t g[24];
    memcpy(g, &zp_bn254_g1_generator, sizeof zp_bn254_g1_generator);
    CHECK(bn->g1_is_on_curve_var(g) && bn->g1_is_in_subgroup_var(g));
    g[4] ^= 1;
    CHECK(!bn->g1_is_on_curve_var(g));
    memcpy(g, &zp_bn254_g2_generator, sizeof zp_bn254_g2_generator);
    CHECK(bn->g2_is_on_curve_var(g) && bn->g2_is_in_subgroup_var(g));
    g[8] ^= 1;
    CHECK(!bn->g2_is_on_curve_var(g));
    memcpy(g, &zp_bls12_g1_generator, sizeof zp_bls12_g1_generator);
    CHECK(bls->g1_is_on_curve_var(g) && bls->g1_is_in_subgroup_var(g));
    g[6] ^= 1;
    CHECK(!bls->g1_is_on_curve_var(g));
    memcpy(g, &zp_bls12_g2_generator, sizeof zp_bls12_g2_generator);
    CHECK(bls->g2_is_on_curve_var(g) && bls->g2_is_in_subgroup_var(g));
    g[12] ^= 1;
    CHECK(!bls->g2_is_on_curve_var(g));
}

static void test_lookups(void) {
    static const struct {
        const char *name;
        zp_curve want;
    } names[] = {{"bn128", ZP_CURVE_BN254},
                 {"BN128", ZP_CURVE_BN254},
                 {"bn254", ZP_CURVE_BN254},
                 {"BN-254", ZP_CURVE_BN254},
                 {"alt_bn128", ZP_CURVE_BN254},
                 {"altbn128", ZP_CURVE_BN254},
                 {"bls12381", ZP_CURVE_BLS12_381},
                 {"BLS12-381", ZP_CURVE_BLS12_381},
                 {"bls12_381", ZP_CURVE_BLS12_381},
                 {"bn999", ZP_CURVE_NONE},
                 {"bls12", ZP_CURVE_NONE},
                 {"bls12377", ZP_CURVE_NONE},
                 {"secp256k1", ZP_CURVE_NONE},
                 {"", ZP_CURVE_NONE},
                 {"-_-", ZP_CURVE_NONE},
                 {"bn128bn128bn128bn128bn128bn128bn128", ZP_CURVE_NONE}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const zp_curve_desc *d = zp_curve_find(names[i].name);
        zp_curve got = d != NULL ? d->id : ZP_CURVE_NONE;
        CHECK_MSG(got == names[i].want, "find(\"%s\") = %d", names[i].name, (int)got);
    }
    CHECK(zp_curve_find(NULL) == NULL);

    for (size_t i = 0; i < 2; i++) {
        const zp_curve_desc *d = zp_curve_get(EXPECT[i].id);
        uint8_t le[48];
        memcpy(le, d->fp_modulus, d->fp_bytes);
        CHECK(zp_curve_find_fp(le, d->fp_bytes) == d);
        CHECK(zp_curve_find_fr(le, d->fp_bytes) == NULL); /* p is not r */
        CHECK(zp_curve_find_fp(le, d->fp_bytes + 8) == NULL && zp_curve_find_fp(le, 40) == NULL);
        le[0] ^= 2; /* p ± 2: odd, not the modulus */
        CHECK(zp_curve_find_fp(le, d->fp_bytes) == NULL);
        memcpy(le, d->fr_modulus, 32);
        CHECK(zp_curve_find_fr(le, 32) == d && zp_io_curve_from_r(le, 32) == d->id);
        le[31] ^= 0x40;
        CHECK(zp_curve_find_fr(le, 32) == NULL && zp_io_curve_from_r(le, 32) == ZP_CURVE_NONE);

        const zp_groth16_curve *gc = zp_groth16_curve_get(d->id);
        CHECK(gc != NULL && gc->desc == d);
        if (gc != NULL) {
            CHECK(gc->abc_size && gc->msm_scratch_size && gc->tables_size && gc->tables_build && gc->synthesize &&
                  gc->prove_start && gc->prove_finish && gc->verify && gc->setup && gc->vk_alphabeta);
        }
    }
    CHECK(zp_curve_find_fp((const uint8_t *)SECP_P, 32) == NULL);
    CHECK(zp_curve_find_fr((const uint8_t *)SECP_N, 32) == NULL);
    CHECK(zp_io_curve_from_q((const uint8_t *)SECP_P, 32) == ZP_CURVE_NONE);
}

/* An unknown curve id, asked of everything that takes one. */
static void test_unknown_ids(void) {
    for (size_t i = 0; i < N_UNKNOWN; i++) {
        zp_curve c = UNKNOWN[i];
        zp_error err = {0};
        const zp_curve_desc *d = (const zp_curve_desc *)&err;
        const zp_groth16_curve *gc = (const zp_groth16_curve *)&err;
        char want[64];
        snprintf(want, sizeof want, "unknown curve %d (zkpipe supports bn128 bls12381)", (int)c);
        CHECK(zp_curve_get(c) == NULL && zp_groth16_curve_get(c) == NULL);
        CHECK_MSG(zp_curve_lookup(&d, c, &err) == ZP_ERR_ARG && d == NULL && !strcmp(err.message, want), "%s",
                  err.message);
        memset(&err, 0, sizeof err);
        CHECK_MSG(zp_groth16_curve_lookup(&gc, c, &err) == ZP_ERR_ARG && gc == NULL && !strcmp(err.message, want), "%s",
                  err.message);
        CHECK(!strcmp(zp_curve_name(c), "unknown"));
        CHECK(zp_fp_bytes(c) == 0 && zp_g1_bytes(c) == 0 && zp_g2_bytes(c) == 0);
        CHECK(zp_io_fp_limbs(c) == 0 && !strcmp(zp_io_curve_title(c), "unknown curve"));
        CHECK(zp_io_fp_modulus(c) == NULL && zp_io_fr_modulus(c) == NULL);
        uint64_t zero[24] = {0};
        CHECK(!zp_io_fr_is_canonical(c, zero) && !zp_io_fp_is_canonical(c, zero));
        CHECK(zp_io_g1_check(c, zero, 1) == ZP_IO_POINT_UNKNOWN_CURVE &&
              zp_io_g2_check(c, zero, 1) == ZP_IO_POINT_UNKNOWN_CURVE);

        /* The prover: no sizes, an error from prove_start, no proof. */
        static _Alignas(64) unsigned char k_mem[4096];
        zp_groth16_pk pk;
        memset(&pk, 0, sizeof pk);
        pk.curve = c;
        pk.n_vars = 2;
        pk.domain_size = 4;
        CHECK(zp_groth16_abc_size(&pk) == 0 && zp_groth16_msm_scratch_size(&pk, 4) == 0 &&
              zp_groth16_tables_size(&pk, 4) == 0);
        CHECK(zp_groth16_tables_build(k_mem, sizeof k_mem, &pk, 2, NULL, &err) == ZP_ERR_ARG);
        uint64_t k[4] = {1}, w[8] = {1};
        zp_groth16_pending pend;
        memset(&err, 0, sizeof err);
        CHECK_MSG(zp_groth16_prove_start_with(&pend, &pk, w, k, k, NULL, NULL, NULL, &err) == ZP_ERR_ARG &&
                      strstr(err.message, "unknown curve") != NULL,
                  "%s", err.message);
        memset(&err, 0, sizeof err);
        CHECK(zp_groth16_prove_start(&pend, &pk, w, NULL, NULL, NULL, &err) == ZP_ERR_ARG);
        CHECK(zp_groth16_random_scalar(k, c, &err) == ZP_ERR_ARG && strstr(err.message, "unknown curve"));
        zp_groth16_proof proof;
        memset(&proof, 0xa5, sizeof proof);
        pend.curve = c;
        zp_groth16_prove_finish(&proof, &pend, &pk, w, NULL, NULL);
        CHECK(proof.curve == ZP_CURVE_NONE && proof.a[0] == 0);
        zp_groth16_vk vk;
        memset(&vk, 0, sizeof vk);
        vk.curve = c;
        proof.curve = c;
        CHECK(zp_groth16_verify(&vk, w, &proof) == -1);

        /* The setup. */
        uint64_t row_start[2] = {0, 0};
        zp_constraint_system cs;
        memset(&cs, 0, sizeof cs);
        cs.curve = c;
        cs.n_wires = 2;
        cs.n_constraints = 1;
        for (int m = 0; m < 3; m++) cs.m[m].row_start = row_start;
        zp_groth16_setup_key key;
        memset(&err, 0, sizeof err);
        CHECK_MSG(zp_groth16_setup(&key, &cs, NULL, &err) == ZP_ERR_UNSUPPORTED &&
                      strstr(err.message, "unsupported curve") != NULL,
                  "%s", err.message);

        /* The writers. */
        memset(&err, 0, sizeof err);
        CHECK(zp_wtns_write(io_path("u.wtns"), c, w, 2, &err) == ZP_ERR_ARG && strstr(err.message, "unknown curve"));
        zp_r1cs_header h = {.curve = c, .n_wires = 2};
        zp_r1cs_matrix rm[3];
        memset(rm, 0, sizeof rm);
        for (int m = 0; m < 3; m++) rm[m].row_start = row_start;
        memset(&err, 0, sizeof err);
        CHECK(zp_r1cs_write(io_path("u.r1cs"), &h, rm, &err) == ZP_ERR_ARG && strstr(err.message, "unknown curve"));
        memset(&err, 0, sizeof err);
        CHECK(zp_zkey_write(io_path("u.zkey"), &pk, NULL, &err) == ZP_ERR_ARG && strstr(err.message, "unknown curve"));
        CHECK(zp_zkey_vk(&vk, &pk, &err) == ZP_ERR_ARG);
        char *text = NULL;
        CHECK(zp_json_proof_dump(&text, &proof, &err) == ZP_ERR_ARG && text == NULL);
        vk.curve = c;
        CHECK(zp_json_vk_dump(&text, &vk, NULL, &err) == ZP_ERR_ARG && text == NULL);
        uint64_t *vals = NULL;
        size_t count = 0;
        memset(&err, 0, sizeof err);
        CHECK(zp_json_public_parse(&vals, &count, "[\"1\"]", 5, "public.json", c, &err) == ZP_ERR_ARG && vals == NULL);
    }
}

/* Overwrites the 32-byte prime of a .wtns/.r1cs whose header section comes
 * first: file header (12), section header (12), n8 (4), prime. */
static void set_prime(uint8_t *file, const uint64_t *prime) { memcpy(file + 28, prime, 32); }

static void test_unknown_primes(void) {
    zp_error err = {0};
    const char *path = io_path("w.wtns");
    uint64_t w[8] = {1, 0, 0, 0, 5, 0, 0, 0};
    CHECK(zp_wtns_write(path, ZP_CURVE_BN254, w, 2, &err) == ZP_OK);
    size_t size;
    uint8_t *file = io_slurp(path, &size);
    const uint64_t *primes[] = {SECP_N, SECP_P, zp_curve_get(ZP_CURVE_BN254)->fp_modulus};
    for (size_t i = 0; i < 3; i++) {
        set_prime(file, primes[i]);
        zp_wtns *wt = NULL;
        memset(&err, 0, sizeof err);
        CHECK_MSG(
            zp_wtns_open_mem(&wt, file, size, "w.wtns", &err) == ZP_ERR_UNSUPPORTED && wt == NULL &&
                !strcmp(err.message, "w.wtns: unsupported prime (not the scalar field of any of: bn128 bls12381)"),
            "%s", err.message);
        io_spit(path, file, size);
        memset(&err, 0, sizeof err);
        CHECK(zp_wtns_open(&wt, path, &err) == ZP_ERR_UNSUPPORTED && wt == NULL &&
              strstr(err.message, "unsupported prime"));
        uint64_t into[8];
        memset(&err, 0, sizeof err);
        CHECK(zp_wtns_read_into(into, 2, ZP_CURVE_BN254, path, &err) == ZP_ERR_UNSUPPORTED &&
              strstr(err.message, "unsupported prime"));
    }
    free(file);

    /* .r1cs: one constraint with no terms. */
    uint64_t row_start[2] = {0, 0};
    zp_r1cs_matrix rm[3];
    memset(rm, 0, sizeof rm);
    for (int m = 0; m < 3; m++) rm[m].row_start = row_start;
    zp_r1cs_header h = {.curve = ZP_CURVE_BLS12_381, .n_wires = 2, .n_pub_out = 1, .n_constraints = 1};
    path = io_path("c.r1cs");
    CHECK(zp_r1cs_write(path, &h, rm, &err) == ZP_OK);
    file = io_slurp(path, &size);
    zp_r1cs *r = NULL;
    CHECK(zp_r1cs_open_mem(&r, file, size, "c.r1cs", &err) == ZP_OK &&
          zp_r1cs_get_header(r)->curve == ZP_CURVE_BLS12_381);
    zp_r1cs_close(r);
    set_prime(file, SECP_N);
    memset(&err, 0, sizeof err);
    CHECK_MSG(zp_r1cs_open_mem(&r, file, size, "c.r1cs", &err) == ZP_ERR_UNSUPPORTED &&
                  strstr(err.message, "c.r1cs: unsupported prime") != NULL,
              "%s", err.message);
    io_spit(path, file, size);
    CHECK(zp_r1cs_open(&r, path, &err) == ZP_ERR_UNSUPPORTED && r == NULL);
    free(file);
}

/* A .zkey cut short after its header: protocol, then a header with the
 * given moduli, zero counts and all-infinity points. */
static size_t make_zkey(uint8_t *out, uint32_t n8q, const void *q, const void *r) {
    uint8_t *p = out;
    memcpy(p, "zkey", 4);
    zp_io_put_u32(p + 4, 1);
    zp_io_put_u32(p + 8, 2);
    p += 12;
    zp_io_put_u32(p, 1);
    memset(p + 4, 0, 8);
    p[4] = 4;
    zp_io_put_u32(p + 12, 1);
    p += 16;
    uint64_t len = 4 + n8q + 4 + 32 + 12 + 3 * 2 * (uint64_t)n8q + 3 * 4 * (uint64_t)n8q;
    zp_io_put_u32(p, 2);
    memcpy(p + 4, &len, 8);
    p += 12;
    memset(p, 0, len);
    zp_io_put_u32(p, n8q);
    memcpy(p + 4, q, n8q);
    zp_io_put_u32(p + 4 + n8q, 32);
    memcpy(p + 8 + n8q, r, 32);
    uint8_t *counts = p + 8 + n8q + 32;
    zp_io_put_u32(counts, 2);     /* nVars */
    zp_io_put_u32(counts + 8, 4); /* domainSize */
    return (size_t)(p - out) + len;
}

static void test_unknown_zkey(void) {
    static uint8_t buf[2048];
    uint64_t q40[5] = {0};
    const zp_curve_desc *bn = zp_curve_get(ZP_CURVE_BN254), *bls = zp_curve_get(ZP_CURVE_BLS12_381);
    static const struct {
        int q, r; /* 0 secp256k1, 1 BN254, 2 BLS12-381, 3 a 40-byte field */
        zp_status st;
        const char *want;
    } cases[] = {
        {1, 1, ZP_ERR_FORMAT, "k.zkey: section 4 (coefficients) is missing"}, /* the file is fine so far */
        {2, 2, ZP_ERR_FORMAT, "k.zkey: section 4 (coefficients) is missing"},
        {0, 0, ZP_ERR_UNSUPPORTED,
         "k.zkey: unsupported curve: the header's moduli q and r are not those of any of: bn128 bls12381"},
        {1, 0, ZP_ERR_UNSUPPORTED, "k.zkey: unsupported curve: the header's moduli"},
        {0, 1, ZP_ERR_UNSUPPORTED, "k.zkey: unsupported curve: the header's moduli"},
        {1, 2, ZP_ERR_UNSUPPORTED, "k.zkey: unsupported curve: the header's moduli"}, /* mixed */
        {3, 1, ZP_ERR_UNSUPPORTED, "k.zkey: unsupported curve (a 40-byte base field; zkpipe supports bn128 bls12381)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const void *qs[] = {SECP_P, bn->fp_modulus, bls->fp_modulus, q40};
        const void *rs[] = {SECP_N, bn->fr_modulus, bls->fr_modulus};
        const uint32_t n8qs[] = {32, (uint32_t)bn->fp_bytes, (uint32_t)bls->fp_bytes, 40};
        uint32_t n8q = n8qs[cases[i].q];
        size_t size = make_zkey(buf, n8q, qs[cases[i].q], rs[cases[i].r]);
        zp_zkey *z = NULL;
        zp_error err = {0};
        zp_status st = zp_zkey_open_mem(&z, buf, size, "k.zkey", &err);
        CHECK_MSG(st == cases[i].st && z == NULL && !strncmp(err.message, cases[i].want, strlen(cases[i].want)),
                  "case %zu: %d %s", i, (int)st, err.message);
        io_spit(io_path("k.zkey"), buf, size);
        memset(&err, 0, sizeof err);
        CHECK(zp_zkey_open(&z, io_path("k.zkey"), &err) == cases[i].st && z == NULL);
    }
}

static void test_unknown_json(void) {
    static const char proof[] =
        "{\"pi_a\": [\"1\", \"2\", \"1\"], \"pi_b\": [[\"1\", \"0\"], [\"1\", \"0\"], "
        "[\"1\", \"0\"]], \"pi_c\": [\"1\", \"2\", \"1\"], \"protocol\": \"groth16\", "
        "\"curve\": \"bn999\"}";
    static const char vk[] = "{\"protocol\": \"groth16\", \"curve\": \"bn999\", \"nPublic\": 0}";
    zp_error err = {0};
    zp_groth16_proof p;
    zp_curve expect[] = {ZP_CURVE_NONE, ZP_CURVE_BN254, ZP_CURVE_BLS12_381};
    for (size_t i = 0; i < 3; i++) {
        memset(&err, 0, sizeof err);
        zp_status st = zp_json_proof_parse(&p, proof, strlen(proof), "proof.json", expect[i], &err);
        CHECK_MSG(st == ZP_ERR_UNSUPPORTED &&
                      !strcmp(err.message, "proof.json: unsupported curve \"bn999\" (expected one of: bn128 bls12381)"),
                  "%s", err.message);
    }
    zp_groth16_vk v;
    memset(&err, 0, sizeof err);
    CHECK_MSG(zp_json_vk_parse(&v, vk, strlen(vk), "vk.json", &err) == ZP_ERR_UNSUPPORTED &&
                  strstr(err.message, "vk.json: unsupported curve \"bn999\"") != NULL,
              "%s", err.message);
}

int main(void) {
    zp_test_init("test_curves");
    io_tmp_init();
    test_descriptors();
    test_point_checks();
    test_lookups();
    test_unknown_ids();
    test_unknown_primes();
    test_unknown_zkey();
    test_unknown_json();
    io_tmp_cleanup();
    return zp_test_done();
}
