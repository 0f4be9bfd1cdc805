/* The public API of include/zkpipe.h on the bundled example, both curves:
 * open, prove, write, verify with snarkjs's verification key; and the
 * errors it reports for mismatched inputs. Then a prover context: many
 * proofs of both curves through one, its matrices kept per key, the
 * caller's scratch (and a too-small one refused), the proof's canonical
 * encoding checked against the proof.json snarkjs reads; the point tables
 * a prover builds by itself after 192 proofs of one key in a row, on a
 * small key (ZP_TEST_SLOW=1: on the example's key too, 193 proofs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chain_circuit.h"
#include "groth16/curves.h"
#include "groth16/setup.h"
#include "io/json.h"
#include "io/wtns.h"
#include "io/zkey.h"
#include "testutil.h"
#include "zkpipe.h"

static void test_curve(const char *curve, const char *other) {
    char zkey[256], wtns[256], vk[256], other_wtns[256], proof_path[256], public_path[256];
    snprintf(zkey, sizeof zkey, "examples/merkle/%s/merkle.zkey", curve);
    snprintf(wtns, sizeof wtns, "examples/merkle/%s/w1.wtns", curve);
    snprintf(vk, sizeof vk, "examples/merkle/%s/vk.json", curve);
    snprintf(other_wtns, sizeof other_wtns, "examples/merkle/%s/w1.wtns", other);
    snprintf(proof_path, sizeof proof_path, "/tmp/zp_test_api_%d_proof.json", (int)getpid());
    snprintf(public_path, sizeof public_path, "/tmp/zp_test_api_%d_public.json", (int)getpid());

    zp_error err;
    zp_key *key = NULL;
    zp_witness *w = NULL, *w_other = NULL;
    CHECK_MSG(zp_key_open(&key, zkey, &err) == ZP_OK, "%s: %s", zkey, err.message);
    CHECK_MSG(zp_witness_open(&w, wtns, &err) == ZP_OK, "%s: %s", wtns, err.message);
    CHECK_MSG(zp_witness_open(&w_other, other_wtns, &err) == ZP_OK, "%s: %s", other_wtns, err.message);
    if (key == NULL || w == NULL || w_other == NULL) goto done;
    CHECK(zp_key_public(key) == 4 && zp_key_wires(key) == 3108 && zp_key_domain_size(key) == 4096);

    zp_proof proof;
    zp_prove_options opt = {.threads = 2};
    CHECK_MSG(zp_prove(&proof, NULL, key, w, &opt, &err) == ZP_OK, "%s prove: %s", curve, err.message);
    CHECK(zp_proof_write(proof_path, public_path, &proof, key, w, &err) == ZP_OK);
    CHECK_MSG(zp_verify_files(vk, public_path, proof_path, &err) == ZP_OK, "%s verify: %s", curve, err.message);
    /* again from the same key: the one-shot proof let go of the key's
     * coefficient pages after synthesis, and they come back unchanged */
    CHECK_MSG(zp_prove(&proof, NULL, key, w, &opt, &err) == ZP_OK, "%s prove again: %s", curve, err.message);
    CHECK(zp_proof_write(proof_path, public_path, &proof, key, w, &err) == ZP_OK);
    CHECK_MSG(zp_verify_files(vk, public_path, proof_path, &err) == ZP_OK, "%s verify again: %s", curve, err.message);
    /* the other curve's witness */
    CHECK(zp_prove(&proof, NULL, key, w_other, NULL, &err) == ZP_ERR_MISMATCH);
    /* a missing file */
    zp_key *none = NULL;
    CHECK(zp_key_open(&none, "/nonexistent/k.zkey", &err) == ZP_ERR_IO && none == NULL);
    unlink(proof_path);
    unlink(public_path);
done:
    zp_witness_close(w);
    zp_witness_close(w_other);
    zp_key_close(key);
}

/* A big-endian integer as decimal digits. */
static void to_decimal(char *out, size_t cap, const uint8_t *be, size_t n) {
    uint8_t v[64];
    char rev[160];
    size_t len = 0;
    memcpy(v, be, n);
    for (;;) {
        int zero = 1;
        unsigned rem = 0;
        for (size_t i = 0; i < n; i++) {
            unsigned cur = rem * 256 + v[i];
            v[i] = (uint8_t)(cur / 10);
            rem = cur % 10;
            if (v[i]) zero = 0;
        }
        rev[len++] = (char)('0' + rem);
        if (zero || len + 1 >= sizeof rev) break;
    }
    size_t k = 0;
    while (len > 0 && k + 1 < cap) out[k++] = rev[--len];
    out[k] = '\0';
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* Where "decimal" stands in the text, as a quoted JSON string; NULL if not. */
static const char *find_value(const char *text, const uint8_t *be, size_t n) {
    char dec[160], quoted[170];
    to_decimal(dec, sizeof dec, be, n);
    snprintf(quoted, sizeof quoted, "\"%s\"", dec);
    return strstr(text, quoted);
}

typedef struct curve_files {
    const char *name;
    char zkey[128], vk[128], w[2][128];
    zp_key *key;
    zp_witness *wit[2];
} curve_files;

static int open_curve(curve_files *c, const char *name) {
    zp_error err;
    memset(c, 0, sizeof *c);
    c->name = name;
    snprintf(c->zkey, sizeof c->zkey, "examples/merkle/%s/merkle.zkey", name);
    snprintf(c->vk, sizeof c->vk, "examples/merkle/%s/vk.json", name);
    for (int i = 0; i < 2; i++) snprintf(c->w[i], sizeof c->w[i], "examples/merkle/%s/w%d.wtns", name, i + 1);
    CHECK_MSG(zp_key_open(&c->key, c->zkey, &err) == ZP_OK, "%s: %s", c->zkey, err.message);
    for (int i = 0; i < 2; i++) {
        CHECK_MSG(zp_witness_open(&c->wit[i], c->w[i], &err) == ZP_OK, "%s: %s", c->w[i], err.message);
    }
    return c->key && c->wit[0] && c->wit[1];
}

static void close_curve(curve_files *c) {
    for (int i = 0; i < 2; i++) zp_witness_close(c->wit[i]);
    zp_key_close(c->key);
}

/* The proof is well formed, verifies with snarkjs's vk through the files,
 * and its canonical bytes are the coordinates proof.json carries: G1 x, y;
 * G2 with the imaginary part first, where snarkjs writes c0 first. */
static void check_proof(const zp_proof *proof, const curve_files *c, int which, const char *what) {
    char proof_path[128], public_path[128];
    zp_error err;
    snprintf(proof_path, sizeof proof_path, "/tmp/zp_test_api_%d_proof.json", (int)getpid());
    snprintf(public_path, sizeof public_path, "/tmp/zp_test_api_%d_public.json", (int)getpid());
    size_t fb = strcmp(c->name, "bn128") == 0 ? 32 : 48;
    CHECK_MSG(proof->curve == zp_key_curve(c->key) && proof->fp_bytes == fb, "%s %s: curve and size", c->name, what);
    for (size_t i = 2 * fb; i < sizeof proof->a; i++) CHECK(proof->a[i] == 0 && proof->c[i] == 0);
    for (size_t i = 4 * fb; i < sizeof proof->b; i++) CHECK(proof->b[i] == 0);
    CHECK_MSG(zp_proof_write(proof_path, public_path, proof, c->key, c->wit[which], &err) == ZP_OK, "%s %s: %s",
              c->name, what, err.message);
    CHECK_MSG(zp_verify_files(c->vk, public_path, proof_path, &err) == ZP_OK, "%s %s verify: %s", c->name, what,
              err.message);
    const char *text = slurp(proof_path);
    CHECK(text != NULL);
    if (text != NULL) {
        const char *pa = strstr(text, "pi_a"), *pb = strstr(text, "pi_b"), *pc = strstr(text, "pi_c");
        const char *ax = find_value(text, proof->a, fb), *ay = find_value(text, proof->a + fb, fb);
        const char *x1 = find_value(text, proof->b, fb), *x0 = find_value(text, proof->b + fb, fb);
        const char *y1 = find_value(text, proof->b + 2 * fb, fb), *y0 = find_value(text, proof->b + 3 * fb, fb);
        const char *cx = find_value(text, proof->c, fb), *cy = find_value(text, proof->c + fb, fb);
        CHECK_MSG(pa && pb && pc && ax && ay && x0 && x1 && y0 && y1 && cx && cy, "%s %s: coordinates in proof.json",
                  c->name, what);
        if (pa && pb && pc && ax && ay && x0 && x1 && y0 && y1 && cx && cy) {
            CHECK_MSG(pa < ax && ax < ay && ay < pb, "%s %s: pi_a", c->name, what);
            CHECK_MSG(pb < x0 && x0 < x1 && x1 < y0 && y0 < y1 && y1 < pc, "%s %s: pi_b, Fp2 order", c->name, what);
            CHECK_MSG(pc < cx && cx < cy, "%s %s: pi_c", c->name, what);
        }
    }
    unlink(proof_path);
    unlink(public_path);
}

/* The prover's own choice of point tables (src/engine/api.c): none until
 * a key has had PROVER_TABLES_AFTER = 192 proofs in a row, then built for
 * the 193rd and kept. When other is given, one proof of it first breaks
 * a run of 100 of c's proofs, which must start the count again. The last
 * proof, made with the tables built on the way, must verify. */
static void threshold_run(curve_files *c, curve_files *other, const char *what) {
    zp_error err;
    zp_prover *p = NULL;
    zp_prover_options two = {.threads = 2, .skip_verify = 1};
    CHECK(zp_prover_create(&p, &two, &err) == ZP_OK);
    if (p == NULL) return;
    zp_proof proof;
    zp_prove_stats st;
    if (other != NULL) {
        for (int i = 0; i < 100; i++) {
            CHECK(zp_prover_prove(p, &proof, &st, c->key, c->wit[i % 2], &err) == ZP_OK);
            CHECK_MSG(st.tables_bytes == 0, "%s: proof %d of a first run: no point tables yet", what, i);
        }
        CHECK(zp_prover_prove(p, &proof, &st, other->key, other->wit[0], &err) == ZP_OK);
        CHECK_MSG(st.tables_bytes == 0, "%s: the other key: no point tables", what);
    }
    for (int i = 0; i <= 193; i++) {
        CHECK(zp_prover_prove(p, &proof, &st, c->key, c->wit[i % 2], &err) == ZP_OK);
        if (i < 192) {
            if (st.tables_bytes != 0) {
                CHECK_MSG(st.tables_bytes == 0, "%s: proof %d in a row: point tables already", what, i);
                break;
            }
        } else if (i == 192) {
            CHECK_MSG(st.tables_s > 0 && st.tables_bytes > 0, "%s: proof 192 in a row: point tables built", what);
        } else {
            CHECK_MSG(st.tables_s == 0 && st.tables_bytes > 0, "%s: proof 193: point tables kept", what);
        }
    }
    check_proof(&proof, c, 1, "lazy tables");
    zp_prover_destroy(p);
}

/* A chain circuit's key (tests/chain_circuit.h: m squarings, one public
 * output) as files in dir: the key, its verification key as snarkjs
 * writes it, two witnesses; opened as the example's are. */
static int make_chain_files(curve_files *c, const char *dir, const char *name, uint32_t m, zp_curve curve) {
    zp_error err;
    chain_circuit circ;
    zp_groth16_setup_key setup;
    const zp_groth16_curve *gc = NULL;
    int ok = 0;
    memset(c, 0, sizeof *c);
    c->name = curve == ZP_CURVE_BN254 ? "bn128" : "bls12381";
    chain_build(&circ, curve, m, 1);
    if (zp_groth16_setup(&setup, &circ.cs, NULL, &err) != ZP_OK) {
        CHECK_MSG(0, "setup of %s: %s", name, err.message);
        chain_free(&circ);
        return 0;
    }
    snprintf(c->zkey, sizeof c->zkey, "%s/%s.zkey", dir, name);
    snprintf(c->vk, sizeof c->vk, "%s/%s_vk.json", dir, name);
    zp_groth16_vk vk = {0};
    uint64_t alphabeta[ZP_GROTH16_ALPHABETA_LIMBS];
    CHECK(zp_zkey_write(c->zkey, &setup.pk, NULL, &err) == ZP_OK);
    CHECK(zp_zkey_vk(&vk, &setup.pk, &err) == ZP_OK && zp_groth16_curve_lookup(&gc, curve, &err) == ZP_OK);
    if (gc != NULL) {
        gc->vk_alphabeta(alphabeta, setup.pk.alpha1, setup.pk.beta2);
        CHECK_MSG(zp_json_vk_write(c->vk, &vk, alphabeta, &err) == ZP_OK, "%s: %s", c->vk, err.message);
    }
    zp_groth16_vk_free(&vk);
    uint64_t *w = malloc((size_t)circ.cs.n_wires * 32);
    for (int i = 0; w != NULL && i < 2; i++) {
        snprintf(c->w[i], sizeof c->w[i], "%s/%s_%d.wtns", dir, name, i);
        chain_witness(w, &circ, zp_test_rand64());
        CHECK(zp_wtns_write(c->w[i], curve, w, circ.cs.n_wires, &err) == ZP_OK);
    }
    free(w);
    zp_groth16_setup_free(&setup);
    chain_free(&circ);
    ok = zp_key_open(&c->key, c->zkey, &err) == ZP_OK;
    CHECK_MSG(ok, "%s: %s", c->zkey, err.message);
    for (int i = 0; ok && i < 2; i++) {
        CHECK_MSG(zp_witness_open(&c->wit[i], c->w[i], &err) == ZP_OK, "%s: %s", c->w[i], err.message);
    }
    return c->key && c->wit[0] && c->wit[1];
}

/* The threshold on keys of 8 and 16 constraints: 295 proofs of about a
 * millisecond each, where one of the example's key takes 0.1 s. */
static void test_tables_threshold(void) {
    char dir[] = "/tmp/zp-test-api-XXXXXX";
    if (mkdtemp(dir) == NULL) {
        CHECK_MSG(0, "mkdtemp: %s", dir);
        return;
    }
    curve_files small, other;
    if (make_chain_files(&small, dir, "small", 7, ZP_CURVE_BN254) &
        make_chain_files(&other, dir, "other", 15, ZP_CURVE_BN254)) {
        threshold_run(&small, &other, "small key");
    }
    close_curve(&small);
    close_curve(&other);
    for (int i = 0; i < 2; i++) {
        unlink(small.w[i]);
        unlink(other.w[i]);
    }
    unlink(small.zkey);
    unlink(small.vk);
    unlink(other.zkey);
    unlink(other.vk);
    rmdir(dir);
}

static void test_prover(void) {
    curve_files cf[2];
    zp_error err;
    int ok = open_curve(&cf[0], "bn128") & open_curve(&cf[1], "bls12381");
    zp_prover *pr = NULL;
    zp_prover_options opt = {.threads = 2};
    CHECK_MSG(zp_prover_create(&pr, &opt, &err) == ZP_OK, "prover: %s", err.message);
    if (!ok || pr == NULL) goto done;
    CHECK(zp_prover_threads(pr) == 2);

    /* many proofs through one context, both curves, the key switching:
     * the matrices are built when the key changes, and only then */
    static const int order[] = {0, 0, 1, 1, 1, 0, 1};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        curve_files *c = &cf[order[i]];
        zp_proof proof;
        zp_prove_stats st;
        int which = (int)(i % 2);
        CHECK_MSG(zp_prover_prove(pr, &proof, &st, c->key, c->wit[which], &err) == ZP_OK, "%s proof %zu: %s", c->name,
                  i, err.message);
        int key_changed = i == 0 || order[i] != order[i - 1];
        CHECK_MSG(key_changed ? st.matrices_s > 0 : st.matrices_s == 0, "%s proof %zu: matrices %s", c->name, i,
                  key_changed ? "built" : "kept");
        /* no point tables until a key has had many proofs in a row */
        CHECK_MSG(st.tables_s == 0 && st.tables_bytes == 0, "%s proof %zu: no point tables yet", c->name, i);
        char what[32];
        snprintf(what, sizeof what, "proof %zu", i);
        check_proof(&proof, c, which, what);
    }

    /* the caller's scratch: misaligned, full of garbage, reused */
    for (int k = 0; k < 2; k++) {
        curve_files *c = &cf[k];
        size_t need = zp_prove_scratch_size(c->key, zp_prover_threads(pr));
        CHECK(need > 0 && need == zp_prove_scratch_size(c->key, 2));
        unsigned char *mem = malloc(need + 1);
        CHECK(mem != NULL);
        if (mem == NULL) continue;
        memset(mem, 0xa5, need + 1);
        for (int round = 0; round < 2; round++) {
            zp_proof proof;
            CHECK_MSG(zp_prover_prove_scratch(pr, &proof, NULL, c->key, c->wit[round], mem + 1, need, &err) == ZP_OK,
                      "%s scratch: %s", c->name, err.message);
            check_proof(&proof, c, round, "caller's scratch");
        }
        /* one byte short is refused, and no proof comes out */
        zp_proof proof;
        memset(&proof, 0x5a, sizeof proof);
        CHECK(zp_prover_prove_scratch(pr, &proof, NULL, c->key, c->wit[0], mem + 1, need - 1, &err) == ZP_ERR_ARG);
        CHECK_MSG(strstr(err.message, "scratch") != NULL, "%s", err.message);
        CHECK(proof.curve == ZP_CURVE_NONE && proof.a[0] == 0);
        CHECK(zp_prover_prove_scratch(pr, &proof, NULL, c->key, c->wit[0], NULL, need, &err) == ZP_ERR_ARG);
        free(mem);
    }

    /* errors: the other curve's witness; a proof that is not canonical */
    zp_proof proof;
    CHECK(zp_prover_prove(pr, &proof, NULL, cf[0].key, cf[1].wit[0], &err) == ZP_ERR_MISMATCH);
    CHECK(zp_prover_prove(pr, &proof, NULL, cf[0].key, cf[0].wit[0], &err) == ZP_OK);
    zp_proof bad = proof;
    memset(bad.a, 0xff, 32); /* x >= p */
    CHECK(zp_proof_write("/dev/null", NULL, &bad, cf[0].key, cf[0].wit[0], &err) == ZP_ERR_ARG);
    bad = proof;
    bad.fp_bytes = 48;
    CHECK(zp_proof_write("/dev/null", NULL, &bad, cf[0].key, cf[0].wit[0], &err) == ZP_ERR_ARG);
    CHECK(zp_proof_write("/dev/null", NULL, &proof, cf[1].key, cf[1].wit[0], &err) == ZP_ERR_MISMATCH);
    /* point tables asked for (zp_prover_prepare), on two threads and on
     * one (the five MSMs as one loop on one worker); none kept where the
     * limit is below them; none for the caller's scratch */
    for (int k = 0; k < 2; k++) {
        zp_prover_options one = {.threads = 1}, none_kept = {.threads = 2, .table_bytes = 1};
        zp_prover *p1 = NULL, *p2 = NULL;
        zp_prove_stats st;
        CHECK(zp_prover_create(&p1, &one, &err) == ZP_OK && zp_prover_create(&p2, &none_kept, &err) == ZP_OK);
        if (p1 == NULL || p2 == NULL) break;
        CHECK(zp_prover_prepare(pr, cf[k].key, &err) == ZP_OK && zp_prover_prepare(p1, cf[k].key, &err) == ZP_OK &&
              zp_prover_prepare(p2, cf[k].key, &err) == ZP_OK);
        zp_prover *with[2] = {pr, p1};
        for (int round = 0; round < 2; round++) {
            for (int t = 0; t < 2; t++) {
                CHECK_MSG(zp_prover_prove(with[t], &proof, &st, cf[k].key, cf[k].wit[round], &err) == ZP_OK, "%s: %s",
                          cf[k].name, err.message);
                CHECK_MSG(st.tables_s == 0 && st.tables_bytes > 0, "%s: prepared point tables, %zu threads", cf[k].name,
                          st.threads);
                check_proof(&proof, &cf[k], round, t ? "one thread, tables" : "two threads, tables");
            }
            CHECK_MSG(zp_prover_prove(p2, &proof, &st, cf[k].key, cf[k].wit[round], &err) == ZP_OK, "%s: %s",
                      cf[k].name, err.message);
            CHECK(st.tables_s == 0 && st.tables_bytes == 0);
            check_proof(&proof, &cf[k], round, "no tables");
        }
        size_t need = zp_prove_scratch_size(cf[k].key, 2);
        void *mem = malloc(need);
        CHECK(mem != NULL &&
              zp_prover_prove_scratch(pr, &proof, &st, cf[k].key, cf[k].wit[0], mem, need, &err) == ZP_OK);
        CHECK(st.tables_bytes == 0);
        check_proof(&proof, &cf[k], 0, "caller's scratch after tables");
        free(mem);
        zp_prover_destroy(p1);
        zp_prover_destroy(p2);
    }
    /* without asking: after 192 proofs of one key in a row, on the
     * example's key (ZP_TEST_SLOW=1: 193 proofs, half a minute on two
     * cores; test_tables_threshold checks the same on a small key) */
    const char *slow = getenv("ZP_TEST_SLOW");
    if (slow != NULL && strcmp(slow, "1") == 0) threshold_run(&cf[0], NULL, "example key");
done:
    zp_prover_destroy(pr);
    /* an unknown backend is an error, naming it */
    zp_prover *none = NULL;
    zp_prover_options cuda = {.backend = "cuda-not-here"};
    CHECK(zp_prover_create(&none, &cuda, &err) == ZP_ERR_ARG && none == NULL);
    CHECK_MSG(strstr(err.message, "cuda-not-here") != NULL, "%s", err.message);
    zp_prover_options cpu = {.threads = 1, .skip_verify = 1, .backend = "cpu"};
    CHECK(zp_prover_create(&none, &cpu, &err) == ZP_OK && none != NULL);
    zp_prover_destroy(none);
    close_curve(&cf[0]);
    close_curve(&cf[1]);
}

/* The least budget a proof of c's key may have, from the refusal of a
 * budget of 1 byte ("... key of domain 2^k: X MiB (in memory ..."), in
 * bytes rounded up past the message's 0.1 MiB; 0 when not found. */
static size_t least_budget(curve_files *c) {
    zp_error err;
    zp_proof proof;
    zp_prove_options o = {.threads = 2, .budget = 1};
    if (zp_prove(&proof, NULL, c->key, c->wit[0], &o, &err) != ZP_ERR_NOMEM) return 0;
    const char *at = strstr(err.message, "key of domain 2^");
    double mib = 0;
    if (at == NULL || (at = strchr(at, ':')) == NULL || sscanf(at + 1, "%lf", &mib) != 1) return 0;
    return (size_t)((mib + 0.1) * 1048576);
}

/* One proof of c's first witness within budget, streamed, spilled and
 * paged or not as asked; checked as every proof is, and the witness then
 * proves in memory (a paged proof reads it back whole). */
static void streamed_run(curve_files *c, size_t budget, int paged, const char *what) {
    zp_error err;
    zp_proof proof;
    zp_prove_stats st;
    zp_prove_options o = {.threads = 2, .budget = budget};
    zp_status s = zp_prove(&proof, &st, c->key, c->wit[0], &o, &err);
    CHECK_MSG(s == ZP_OK, "%s %s: %s", c->name, what, err.message);
    if (s != ZP_OK) return;
    CHECK_MSG(st.window_bytes > 0 && st.spilled && st.paged == paged, "%s %s: window %zu, spilled %d, paged %d",
              c->name, what, st.window_bytes, st.spilled, st.paged);
    check_proof(&proof, c, 0, what);
    zp_prove_options whole = {.threads = 2};
    CHECK_MSG(zp_prove(&proof, NULL, c->key, c->wit[0], &whole, &err) == ZP_OK, "%s %s, the witness after: %s", c->name,
              what, err.message);
}

/* Streamed proofs at the least budget, paged (the witness in the scratch
 * file while a vector of the domain is resident) and, with paging off,
 * spilled: under the sanitizers, on both curves (chain keys of 2^14 rows,
 * the smallest a paged proof's chunks fit). */
static void test_streamed(void) {
    char dir[] = "/tmp/zp-test-api-XXXXXX";
    if (mkdtemp(dir) == NULL) {
        CHECK_MSG(0, "mkdtemp: %s", dir);
        return;
    }
    zp_curve curves[2] = {ZP_CURVE_BN254, ZP_CURVE_BLS12_381};
    for (int i = 0; i < 2; i++) {
        curve_files c;
        if (make_chain_files(&c, dir, "big", 16000, curves[i])) {
            size_t paged = least_budget(&c);
            CHECK_MSG(paged > 0, "%s: the least budget named", c.name);
            if (paged > 0) streamed_run(&c, paged, 1, "at the least budget, paged");
            setenv("ZKPIPE_STREAM_PAGE", "0", 1);
            size_t spilled = least_budget(&c);
            CHECK_MSG(spilled > paged, "%s: paging lowers the least budget (%zu, %zu spilled)", c.name, paged, spilled);
            if (spilled > 0) streamed_run(&c, spilled, 0, "at the least spilled budget");
            unsetenv("ZKPIPE_STREAM_PAGE");
        }
        close_curve(&c);
        for (int k = 0; k < 2; k++) unlink(c.w[k]);
        unlink(c.zkey);
        unlink(c.vk);
    }
    rmdir(dir);
}

int main(void) {
    zp_test_init("test_api");
    test_streamed();
    test_curve("bn128", "bls12381");
    test_curve("bls12381", "bn128");
    test_prover();
    test_tables_threshold();
    return zp_test_done();
}
