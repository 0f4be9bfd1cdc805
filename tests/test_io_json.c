/* snarkjs JSON (src/io/json.c): proof.json, public.json,
 * verification_key.json. Round trips on both curves, the exact shapes
 * snarkjs writes (third coordinates, infinity, nesting, key order), and
 * bad inputs of every kind. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigint.h"
#include "base/file.h"
#include "groth16/keys.h"
#include "io/json.h"
#include "test_io_common.h"
#include "testutil.h"

static const char *const BN254_P = "21888242871839275222246405745257275088696311157297823662689037894645226208583";
static const char *const BN254_R = "21888242871839275222246405745257275088548364400416034343698204186575808495617";
static const char *const BLS12_R = "52435875175126190479447740508185965837690552500527637822603658699938581184513";

static void rand_proof(zp_groth16_proof *p, zp_curve c) {
    memset(p, 0, sizeof *p);
    p->curve = c;
    io_rand_g1(c, p->a);
    io_rand_g2(c, p->b);
    io_rand_g1(c, p->c);
}

static json_t *to_json(const char *text) {
    json_t *j = json_loads(text, 0, NULL);
    CHECK(j != NULL);
    return j;
}

static zp_status parse_proof(const json_t *j, zp_curve expected, zp_groth16_proof *out, zp_error *e) {
    char *s = json_dumps(j, 0);
    zp_status st = zp_json_proof_parse(out, s, strlen(s), "proof.json", expected, e);
    free(s);
    return st;
}

static zp_status parse_vk(const json_t *j, zp_groth16_vk *vk, zp_error *e) {
    char *s = json_dumps(j, 0);
    zp_status st = zp_json_vk_parse(vk, s, strlen(s), "verification_key.json", e);
    free(s);
    return st;
}

/* Edits a copy of the proof object with stmt (on `j`) and checks the error. */
#define PROOF_BAD(base, expected, stmt, st, want)                                                                   \
    do {                                                                                                            \
        json_t *copy_ = json_deep_copy(base);                                                                       \
        json_t *j = copy_;                                                                                          \
        stmt;                                                                                                       \
        zp_error e_ = {0};                                                                                          \
        zp_groth16_proof p_;                                                                                        \
        zp_status s_ = parse_proof(j, expected, &p_, &e_);                                                          \
        CHECK_MSG(s_ == (st) && strstr(e_.message, want) != NULL, "status %d '%s', want '%s'", (int)s_, e_.message, \
                  want);                                                                                            \
        json_decref(j);                                                                                             \
    } while (0)

#define AT(a, i) json_array_get((a), (i))
#define SET(a, i, v) json_array_set_new((a), (i), (v))

/* Random mutations of valid text: a clean error or a parse, never a crash. */
static void mutate_text(const char *text, int kind, size_t iters) {
    size_t n = strlen(text);
    char *b = malloc(n + 1);
    static const char alphabet[] = "0123456789\"[]{},:-. eE\\x";
    for (size_t i = 0; i < iters; i++) {
        memcpy(b, text, n + 1);
        size_t k = 1 + zp_test_rand64() % 4;
        for (size_t t = 0; t < k; t++) b[zp_test_rand64() % n] = alphabet[zp_test_rand64() % (sizeof alphabet - 1)];
        size_t len = (zp_test_rand64() % 8 == 0) ? zp_test_rand64() % n : n;
        zp_error e = {0};
        zp_status st;
        if (kind == 0) {
            zp_groth16_proof p;
            st = zp_json_proof_parse(&p, b, len, "m.json", ZP_CURVE_NONE, &e);
        } else if (kind == 1) {
            uint64_t *v;
            size_t cnt;
            st = zp_json_public_parse(&v, &cnt, b, len, "m.json", ZP_CURVE_BN254, &e);
            if (st == ZP_OK) free(v);
        } else {
            zp_groth16_vk vk;
            st = zp_json_vk_parse(&vk, b, len, "m.json", &e);
            if (st == ZP_OK) zp_groth16_vk_free(&vk);
        }
        CHECK(st == ZP_OK || e.message[0] != '\0');
    }
    free(b);
}

static void test_proof(zp_curve c) {
    zp_error err = {0};
    zp_groth16_proof p, q;
    rand_proof(&p, c);
    const char *path = io_path("proof.json");
    CHECK(zp_json_proof_write(path, &p, &err) == ZP_OK);
    CHECK_MSG(zp_json_proof_read(&q, path, c, &err) == ZP_OK, "%s", err.message);
    CHECK(!memcmp(&p, &q, sizeof p));
    char *text;
    CHECK(zp_json_proof_dump(&text, &p, &err) == ZP_OK);
    io_corpus("json", c == ZP_CURVE_BN254 ? "proof_bn" : "proof_bls", text, strlen(text));
    json_t *j = to_json(text);
    /* The shape snarkjs writes. */
    CHECK(!strcmp(json_string_value(AT(json_object_get(j, "pi_a"), 2)), "1"));
    json_t *bz = AT(json_object_get(j, "pi_b"), 2);
    CHECK(!strcmp(json_string_value(AT(bz, 0)), "1") && !strcmp(json_string_value(AT(bz, 1)), "0"));
    CHECK(!strcmp(json_string_value(json_object_get(j, "protocol")), "groth16"));
    CHECK(!strcmp(json_string_value(json_object_get(j, "curve")), c == ZP_CURVE_BN254 ? "bn128" : "bls12381"));
    CHECK(strstr(text, "\"pi_a\"") < strstr(text, "\"pi_b\"") &&
          strstr(text, "\"pi_c\"") < strstr(text, "\"protocol\""));
    free(text);
    text = json_dumps(j, 0);
    mutate_text(text, 0, zp_test_iters(1500));
    free(text);

    /* Infinity, as ffjavascript's toObject writes it, both ways. */
    zp_groth16_proof inf = p;
    memset(inf.a, 0, sizeof inf.a);
    memset(inf.b, 0, sizeof inf.b);
    CHECK(zp_json_proof_dump(&text, &inf, &err) == ZP_OK);
    json_t *ji = to_json(text);
    free(text);
    char *a_txt = json_dumps(json_object_get(ji, "pi_a"), JSON_COMPACT);
    char *b_txt = json_dumps(json_object_get(ji, "pi_b"), JSON_COMPACT);
    CHECK_MSG(!strcmp(a_txt, "[\"0\",\"1\",\"0\"]"), "%s", a_txt);
    CHECK_MSG(!strcmp(b_txt, "[[\"0\",\"0\"],[\"1\",\"0\"],[\"0\",\"0\"]]"), "%s", b_txt);
    free(a_txt);
    free(b_txt);
    CHECK(parse_proof(ji, c, &q, &err) == ZP_OK && !memcmp(&inf, &q, sizeof q));
    json_decref(ji);
    /* z = 0 means infinity whatever x and y say (ffjavascript's fromObject);
     * [x, y] without z is affine. */
    PROOF_BAD(j, c, SET(json_object_get(j, "pi_a"), 2, json_string("0")), ZP_OK, "");
    PROOF_BAD(j, c, json_array_remove(json_object_get(j, "pi_a"), 2), ZP_OK, "");

    /* Bad coordinates: out of range, not strings, not decimal. */
    const char *title = c == ZP_CURVE_BN254 ? "BN254" : "BLS12-381";
    char want[160];
    snprintf(want, sizeof want, "proof.json: pi_b[1][0] is not a decimal number below the %s base field modulus",
             title);
    if (c == ZP_CURVE_BN254) {
        PROOF_BAD(j, c, SET(AT(json_object_get(j, "pi_b"), 1), 0, json_string(BN254_P)), ZP_ERR_FORMAT, want);
    }
    static const char *const junk[] = {
        "-1",
        "",
        " 1",
        "0x10",
        "1e3",
        "1.0",
        "+5",
        ("1000000000000000000000000000000000000000000000000000000000000000000000000000000"
         "0000000000000000000000000000000000000000000000000000000000000")};
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) {
        PROOF_BAD(j, c, SET(AT(json_object_get(j, "pi_b"), 1), 0, json_string(junk[i])), ZP_ERR_FORMAT, want);
    }
    PROOF_BAD(j, c, SET(AT(json_object_get(j, "pi_b"), 1), 0, json_integer(1)), ZP_ERR_FORMAT, want);
    PROOF_BAD(j, c, SET(json_object_get(j, "pi_a"), 0, json_integer(1)), ZP_ERR_FORMAT, "pi_a[0] is not a decimal");
    PROOF_BAD(j, c,
              SET(json_object_get(j, "pi_a"), 0,
                  json_stringn("1\0"
                               "2",
                               3)),
              ZP_ERR_FORMAT, "proof.json: ");
    /* Off the curve; (0, 0) with z = 1 is not infinity; z neither 0 nor 1. */
    PROOF_BAD(j, c, SET(json_object_get(j, "pi_a"), 1, json_deep_copy(AT(json_object_get(j, "pi_a"), 0))),
              ZP_ERR_FORMAT, "proof.json: pi_a is not on the curve");
    PROOF_BAD(
        j, c,
        (SET(json_object_get(j, "pi_c"), 0, json_string("0")), SET(json_object_get(j, "pi_c"), 1, json_string("0"))),
        ZP_ERR_FORMAT, "pi_c is not on the curve");
    PROOF_BAD(j, c, SET(AT(json_object_get(j, "pi_b"), 0), 1, json_deep_copy(AT(AT(json_object_get(j, "pi_b"), 0), 0))),
              ZP_ERR_FORMAT, "pi_b is not on the curve");
    PROOF_BAD(j, c, SET(json_object_get(j, "pi_a"), 2, json_string("2")), ZP_ERR_FORMAT, "pi_a[2] is neither 1");
    PROOF_BAD(j, c, SET(AT(json_object_get(j, "pi_b"), 2), 1, json_string("1")), ZP_ERR_FORMAT, "pi_b[2] is neither");
    /* Wrong shapes and missing fields. */
    PROOF_BAD(j, c, SET(json_object_get(j, "pi_b"), 0, json_string("1")), ZP_ERR_FORMAT, "pi_b[0] is not a pair");
    PROOF_BAD(j, c, json_array_append_new(json_object_get(j, "pi_a"), json_string("1")), ZP_ERR_FORMAT,
              "pi_a is not a G1 point");
    PROOF_BAD(j, c, json_object_set_new(j, "pi_b", json_object()), ZP_ERR_FORMAT, "pi_b is not a G2 point");
    PROOF_BAD(j, c, json_object_del(j, "pi_c"), ZP_ERR_FORMAT, "proof.json: pi_c is missing");
    PROOF_BAD(j, c, json_object_del(j, "protocol"), ZP_ERR_FORMAT, "protocol is missing");
    PROOF_BAD(j, c, json_object_set_new(j, "protocol", json_string("plonk")), ZP_ERR_UNSUPPORTED, "groth16 only");
    PROOF_BAD(j, c, json_object_set_new(j, "protocol", json_integer(1)), ZP_ERR_FORMAT, "protocol is not a string");
    PROOF_BAD(j, ZP_CURVE_NONE, json_object_del(j, "curve"), ZP_ERR_FORMAT, "curve is missing");
    PROOF_BAD(j, c, json_object_del(j, "curve"), ZP_OK, "");
    PROOF_BAD(j, c, json_object_set_new(j, "curve", json_string("secp256k1")), ZP_ERR_UNSUPPORTED, "unsupported curve");
    zp_curve other = c == ZP_CURVE_BN254 ? ZP_CURVE_BLS12_381 : ZP_CURVE_BN254;
    PROOF_BAD(j, other, (void)0, ZP_ERR_MISMATCH, "but the verification key is for");
    if (c == ZP_CURVE_BN254) {
        PROOF_BAD(j, c, json_object_set_new(j, "curve", json_string("BN-254")), ZP_OK, "");
        PROOF_BAD(j, c, json_object_set_new(j, "curve", json_string("alt_bn128")), ZP_OK, "");
    }
    json_decref(j);

    /* Text-level: duplicate keys, not JSON, not an object, missing file. */
    static const char *const bad_text[] = {
        "{\"protocol\":\"groth16\",\"protocol\":\"groth16\"}", "{", "[]", "", "null", "\"x\""};
    for (size_t i = 0; i < sizeof bad_text / sizeof bad_text[0]; i++) {
        zp_error e = {0};
        CHECK(zp_json_proof_parse(&q, bad_text[i], strlen(bad_text[i]), "proof.json", c, &e) == ZP_ERR_FORMAT &&
              !strncmp(e.message, "proof.json: ", 12));
    }
    CHECK(zp_json_proof_read(&q, io_path("nope.json"), c, &err) == ZP_ERR_IO);
    zp_groth16_proof unk = p;
    unk.curve = ZP_CURVE_NONE;
    CHECK(zp_json_proof_dump(&text, &unk, &err) == ZP_ERR_ARG);
}

static void test_public(zp_curve c) {
    zp_error err = {0};
    enum { N = 5 };
    uint64_t v[N * 4];
    for (int i = 0; i < N; i++) io_rand_scalar(v + 4 * i);
    memset(v, 0, 32); /* 0 is a valid value */
    const char *path = io_path("public.json");
    CHECK(zp_json_public_write(path, v, N, &err) == ZP_OK);
    uint64_t *got;
    size_t n;
    CHECK_MSG(zp_json_public_read(&got, &n, path, c, &err) == ZP_OK, "%s", err.message);
    CHECK(n == N && !memcmp(got, v, sizeof v));
    free(got);
    char *text;
    CHECK(zp_json_public_dump(&text, v, N, &err) == ZP_OK);
    json_t *j = to_json(text);
    char dec[128];
    zp_bigint_to_dec(dec, sizeof dec, v + 8, 4);
    CHECK(json_is_array(j) && !strcmp(json_string_value(AT(j, 2)), dec));
    json_decref(j);
    io_corpus("json", c == ZP_CURVE_BN254 ? "public_bn" : "public_bls", text, strlen(text));
    mutate_text(text, 1, zp_test_iters(1000));
    free(text);
    CHECK(zp_json_public_parse(&got, &n, "[]", 2, "public.json", c, &err) == ZP_OK && n == 0);
    free(got);
    char bad[256];
    snprintf(bad, sizeof bad, "[\"1\", \"2\", \"%s\"]", c == ZP_CURVE_BN254 ? BN254_R : BLS12_R);
    CHECK(zp_json_public_parse(&got, &n, bad, strlen(bad), "public.json", c, &err) == ZP_ERR_FORMAT &&
          strstr(err.message, "public.json: [2] is not a decimal number below the") != NULL && got == NULL);
    CHECK(zp_json_public_parse(&got, &n, "[1]", 3, "public.json", c, &err) == ZP_ERR_FORMAT);
    CHECK(zp_json_public_parse(&got, &n, "{}", 2, "public.json", c, &err) == ZP_ERR_FORMAT &&
          strstr(err.message, "not a JSON array") != NULL);
    CHECK(zp_json_public_parse(&got, &n, "[]", 2, "public.json", ZP_CURVE_NONE, &err) == ZP_ERR_ARG);
}

static void test_vk(zp_curve c) {
    zp_error err = {0};
    size_t nl = io_fp_limbs(c);
    zp_groth16_vk vk = {.curve = c, .n_public = 3};
    io_rand_g1(c, vk.alpha1);
    io_rand_g2(c, vk.beta2);
    io_rand_g2(c, vk.gamma2);
    io_rand_g2(c, vk.delta2);
    vk.ic = malloc(4 * 2 * nl * sizeof *vk.ic);
    for (int i = 0; i < 4; i++) io_rand_g1(c, vk.ic + i * 2 * nl);
    memset(vk.ic + 2 * 2 * nl, 0, 2 * nl * sizeof *vk.ic); /* IC[2] at infinity */
    /* Any canonical values stand in for e(alpha, beta) here. */
    uint64_t ab[12 * 6];
    for (int i = 0; i < 12; i++) {
        zp_test_rand_bytes(ab + i * nl, nl * 8);
        ab[i * nl + nl - 1] &= 0x0fffffffffffffffULL;
    }
    const char *path = io_path("verification_key.json");
    CHECK(zp_json_vk_write(path, &vk, ab, &err) == ZP_OK);
    zp_groth16_vk got;
    CHECK_MSG(zp_json_vk_read(&got, path, &err) == ZP_OK, "%s", err.message);
    CHECK(got.curve == c && got.n_public == 3 && !memcmp(got.alpha1, vk.alpha1, sizeof vk.alpha1) &&
          !memcmp(got.beta2, vk.beta2, sizeof vk.beta2) && !memcmp(got.gamma2, vk.gamma2, sizeof vk.gamma2) &&
          !memcmp(got.delta2, vk.delta2, sizeof vk.delta2) && !memcmp(got.ic, vk.ic, 4 * 2 * nl * 8));
    zp_groth16_vk_free(&got);
    CHECK(got.ic == NULL);
    char *text;
    CHECK(zp_json_vk_dump(&text, &vk, ab, &err) == ZP_OK);
    /* snarkjs's key order, and vk_alphabeta_12[i][j][k] = element 6i + 2j + k. */
    static const char *const keys[] = {"\"protocol\"",   "\"curve\"",           "\"nPublic\"",
                                       "\"vk_alpha_1\"", "\"vk_beta_2\"",       "\"vk_gamma_2\"",
                                       "\"vk_delta_2\"", "\"vk_alphabeta_12\"", "\"IC\""};
    for (size_t i = 1; i < sizeof keys / sizeof keys[0]; i++) CHECK(strstr(text, keys[i - 1]) < strstr(text, keys[i]));
    json_t *j = to_json(text);
    for (int idx = 0; idx < 12; idx++) {
        uint64_t plain[6] = {0};
        if (c == ZP_CURVE_BN254) {
            zp_bn254_fp m, pl;
            memcpy(&m, ab + idx * nl, sizeof m);
            zp_bn254_fp_from_mont(&pl, &m);
            memcpy(plain, &pl, sizeof pl);
        } else {
            zp_bls12_fp m, pl;
            memcpy(&m, ab + idx * nl, sizeof m);
            zp_bls12_fp_from_mont(&pl, &m);
            memcpy(plain, &pl, sizeof pl);
        }
        char dec[128];
        zp_bigint_to_dec(dec, sizeof dec, plain, nl);
        json_t *e = AT(AT(AT(json_object_get(j, "vk_alphabeta_12"), idx / 6), idx % 6 / 2), idx % 2);
        CHECK(json_string_value(e) && !strcmp(json_string_value(e), dec));
    }
    CHECK(json_integer_value(json_object_get(j, "nPublic")) == 3);
    char *ic2 = json_dumps(AT(json_object_get(j, "IC"), 2), JSON_COMPACT);
    CHECK(!strcmp(ic2, "[\"0\",\"1\",\"0\"]"));
    free(ic2);
    io_corpus("json", c == ZP_CURVE_BN254 ? "vk_bn" : "vk_bls", text, strlen(text));
    mutate_text(text, 2, zp_test_iters(c == ZP_CURVE_BN254 ? 600 : 150));
    free(text);
#define VK_BAD(stmt, st, want)                                                                                      \
    do {                                                                                                            \
        json_t *k = json_deep_copy(j);                                                                              \
        stmt;                                                                                                       \
        zp_error e_ = {0};                                                                                          \
        zp_groth16_vk v_;                                                                                           \
        zp_status s_ = parse_vk(k, &v_, &e_);                                                                       \
        CHECK_MSG(s_ == (st) && strstr(e_.message, want) != NULL, "status %d '%s', want '%s'", (int)s_, e_.message, \
                  want);                                                                                            \
        if (s_ == ZP_OK) zp_groth16_vk_free(&v_);                                                                   \
        CHECK(s_ == ZP_OK || v_.ic == NULL);                                                                        \
        json_decref(k);                                                                                             \
    } while (0)
    VK_BAD(json_object_del(k, "vk_alphabeta_12"), ZP_OK, "");
    VK_BAD(json_object_set_new(k, "nPublic", json_integer(2)), ZP_ERR_FORMAT, "IC is not an array of nPublic + 1 = 3");
    VK_BAD(json_object_set_new(k, "nPublic", json_integer(-1)), ZP_ERR_FORMAT, "nPublic is not a non-negative");
    VK_BAD(json_object_set_new(k, "nPublic", json_string("3")), ZP_ERR_FORMAT, "nPublic is not a non-negative");
    VK_BAD(json_object_del(k, "nPublic"), ZP_ERR_FORMAT, "nPublic is missing");
    VK_BAD(json_object_del(k, "vk_gamma_2"), ZP_ERR_FORMAT, "vk_gamma_2 is missing");
    VK_BAD(json_object_del(k, "curve"), ZP_ERR_FORMAT, "curve is missing");
    VK_BAD(json_object_set_new(k, "protocol", json_string("fflonk")), ZP_ERR_UNSUPPORTED, "groth16 only");
    VK_BAD(SET(AT(json_object_get(k, "IC"), 1), 1, json_string("5")), ZP_ERR_FORMAT,
           "verification_key.json: IC[1] is not on the curve");
    VK_BAD(SET(AT(json_object_get(k, "vk_delta_2"), 1), 1, json_string("7")), ZP_ERR_FORMAT,
           "vk_delta_2 is not on the curve");
    VK_BAD(SET(json_object_get(k, "vk_alpha_1"), 0, json_string("x")), ZP_ERR_FORMAT,
           "vk_alpha_1[0] is not a decimal number");
    VK_BAD(json_array_clear(json_object_get(k, "IC")), ZP_ERR_FORMAT, "IC is not an array");
    json_decref(j);
    CHECK(zp_json_vk_parse(&got, "[]", 2, "verification_key.json", &err) == ZP_ERR_FORMAT &&
          strstr(err.message, "not a JSON object"));
    free(vk.ic);
}

/* A file written over another is the new text exactly: written in
 * place and cut (base/file.h), a longer old file leaves no tail. */
static void test_text_write(void) {
    zp_error err = {0};
    const char *path = io_path("text.json");
    const char *texts[] = {"[\"a longer first text\"]", "[1]", "", "[\"longer again, past the first one\"]"};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        CHECK_MSG(zp_json_text_write(path, strdup(texts[i]), &err) == ZP_OK, "%s", err.message);
        char *back;
        size_t len;
        CHECK_MSG(zp_file_read_all(&back, &len, path, 1 << 10, "a text", &err) == ZP_OK, "%s", err.message);
        CHECK_MSG(len == strlen(texts[i]) + 1 && memcmp(back, texts[i], len - 1) == 0 && back[len - 1] == '\n',
                  "text %zu read back as written (%zu bytes)", i, len);
        free(back);
    }
    /* a directory is no file to write: named in the error */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    CHECK(zp_json_text_write(dir, strdup("[]"), &err) == ZP_ERR_IO);
    CHECK_MSG(strstr(err.message, dir) != NULL && strstr(err.message, "cannot create") != NULL, "%s", err.message);
}

int main(void) {
    zp_test_init("test_io_json");
    io_tmp_init();
    for (int i = 0; i < 2; i++) {
        zp_curve c = i == 0 ? ZP_CURVE_BN254 : ZP_CURVE_BLS12_381;
        test_proof(c);
        test_public(c);
        test_vk(c);
    }
    test_text_write();
    io_tmp_cleanup();
    return zp_test_done();
}
