/* Cross-check against ffjavascript (the arithmetic library of snarkjs):
 * every entry of vector files written by tests/ffjs/gen_vectors.js (field
 * ops of Fr and Fp, G1/G2 multiples, sums and doubles, and pairings) is
 * recomputed here with zkpipe's code and compared exactly, Fp12 values
 * coefficient by coefficient.
 *
 *   test_ffjs VEC.json...            files for either curve ("curve" field)
 *   ZP_FFJS_DIR=dir test_ffjs        reads dir/bn128.json, dir/bls12381.json
 *
 * With neither, it says so and exits 0 (skipped); a path that is given but
 * cannot be read is a failure.
 *
 * The per-curve half of this file is written once and compiled twice: the
 * file includes itself with ZP_FFJS_CURVE defined (blst's way of
 * instantiating one text per group, kept in one file). */
#ifndef ZP_FFJS_CURVE

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigint.h"
#include "curve/curve.h"
#include "curve/subgroup.h"
#include "pairing/pairing.h"
#include "testutil.h"

/* Decimal string of a JSON value into n limbs; 0 when it is not one. */
static int dec_limbs(uint64_t *out, size_t n, const json_t *v) {
    if (!json_is_string(v)) return 0;
    return zp_bigint_from_dec(out, n, json_string_value(v));
}

static int str_eq_limbs(const json_t *v, const uint64_t *limbs, size_t n) {
    uint64_t t[6] = {0};
    return n <= 6 && dec_limbs(t, n, v) && memcmp(t, limbs, n * sizeof(uint64_t)) == 0;
}

#define ZP_FFJS_CURVE 1
#define C_(name) zp_bn254_##name
#define FP_N 4
#define CURVE_NAME "bn128"
#include "test_ffjs.c"

#define ZP_FFJS_CURVE 2
#define C_(name) zp_bls12_##name
#define FP_N 6
#define CURVE_NAME "bls12381"
#include "test_ffjs.c"

static int check_file(const char *path) {
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    if (doc == NULL) {
        fprintf(stderr, "%s: cannot read vectors: %s (line %d)\n", path, jerr.text, jerr.line);
        return 0;
    }
    const char *curve = json_string_value(json_object_get(doc, "curve"));
    int ok = 1;
    if (curve != NULL && strcmp(curve, "bn128") == 0) {
        check_doc_1(doc);
    } else if (curve != NULL && strcmp(curve, "bls12381") == 0) {
        check_doc_2(doc);
    } else {
        fprintf(stderr, "%s: unknown \"curve\"\n", path);
        ok = 0;
    }
    json_decref(doc);
    return ok;
}

int main(int argc, char **argv) {
    zp_test_init("test_ffjs");
    int files = 0;
    for (int i = 1; i < argc; i++) {
        printf("vectors: %s\n", argv[i]);
        CHECK_MSG(check_file(argv[i]), "%s", argv[i]);
        files++;
    }
    const char *dir = getenv("ZP_FFJS_DIR");
    if (argc < 2 && dir != NULL && *dir) {
        static const char *names[] = {"bn128.json", "bls12381.json"};
        for (size_t i = 0; i < 2; i++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            printf("vectors: %s\n", path);
            CHECK_MSG(check_file(path), "%s", path);
            files++;
        }
    }
    if (files == 0) {
        printf(
            "test_ffjs: SKIPPED: no vector files (give paths, or set ZP_FFJS_DIR; "
            "see tests/ffjs/README.md)\n");
        return 0;
    }
    return zp_test_done();
}

#else /* ------------------------------------------- one curve, twice */

#define FN_(a, b) a##_##b
#define FN(a, b) FN_(a, b)
#define L_(name) FN(name, ZP_FFJS_CURVE)

/* Plain decimal into Montgomery form; 0 when not a canonical element. */
static int L_(parse_fp)(C_(fp) *r, const json_t *v) {
    C_(fp) t = {{0}};
    if (!dec_limbs(t.v, FP_N, v) || !C_(fp_is_canonical_var)(&t)) return 0;
    C_(fp_to_mont)(r, &t);
    return 1;
}
static int L_(parse_fr)(C_(fr) *r, const json_t *v) {
    C_(fr) t = {{0}};
    if (!dec_limbs(t.v, 4, v) || !C_(fr_is_canonical_var)(&t)) return 0;
    C_(fr_to_mont)(r, &t);
    return 1;
}
static int L_(parse_fp2)(C_(fp2) *r, const json_t *v) {
    return json_array_size(v) == 2 && L_(parse_fp)(&r->c0, json_array_get(v, 0)) &&
           L_(parse_fp)(&r->c1, json_array_get(v, 1));
}
/* null is the point at infinity. */
static int L_(parse_g1)(C_(g1) *r, const json_t *v) {
    if (json_is_null(v)) {
        C_(g1_set_inf)(r);
        return 1;
    }
    return json_array_size(v) == 2 && L_(parse_fp)(&r->x, json_array_get(v, 0)) &&
           L_(parse_fp)(&r->y, json_array_get(v, 1));
}
static int L_(parse_g2)(C_(g2) *r, const json_t *v) {
    if (json_is_null(v)) {
        C_(g2_set_inf)(r);
        return 1;
    }
    return json_array_size(v) == 2 && L_(parse_fp2)(&r->x, json_array_get(v, 0)) &&
           L_(parse_fp2)(&r->y, json_array_get(v, 1));
}
/* [[[c000,c001],[c010,c011],[c020,c021]],[[c100,...]...]]: e = sum c_ijk w^i v^j u^k */
static int L_(parse_fp12)(C_(fp12) *r, const json_t *v) {
    if (json_array_size(v) != 2) return 0;
    C_(fp6) *h[2] = {&r->c0, &r->c1};
    for (size_t i = 0; i < 2; i++) {
        const json_t *a = json_array_get(v, i);
        if (json_array_size(a) != 3) return 0;
        C_(fp2) *c[3] = {&h[i]->c0, &h[i]->c1, &h[i]->c2};
        for (size_t j = 0; j < 3; j++) {
            if (!L_(parse_fp2)(c[j], json_array_get(a, j))) return 0;
        }
    }
    return 1;
}
static int L_(g1_eq)(const C_(g1) *a, const C_(g1) *b) {
    return C_(fp_eq_var)(&a->x, &b->x) && C_(fp_eq_var)(&a->y, &b->y);
}
static int L_(g2_eq)(const C_(g2) *a, const C_(g2) *b) {
    return C_(fp2_eq_var)(&a->x, &b->x) && C_(fp2_eq_var)(&a->y, &b->y);
}

#define FIELD_CHECKS(F, PARSE, list)                                                                          \
    do {                                                                                                      \
        size_t i_;                                                                                            \
        json_t *e_;                                                                                           \
        json_array_foreach(list, i_, e_) {                                                                    \
            C_(F) a, b, x, y;                                                                                 \
            int ok_ = PARSE(&a, json_object_get(e_, "a")) && PARSE(&b, json_object_get(e_, "b"));             \
            CHECK_MSG(ok_, CURVE_NAME " " #F "[%zu]: bad a/b", i_);                                           \
            if (!ok_) continue;                                                                               \
            static const char *keys_[] = {"add", "sub", "mul", "sqr_a", "inv_a"};                             \
            for (size_t k_ = 0; k_ < 5; k_++) {                                                               \
                CHECK_MSG(PARSE(&y, json_object_get(e_, keys_[k_])), CURVE_NAME " " #F "[%zu].%s: bad", i_,   \
                          keys_[k_]);                                                                         \
                switch (k_) {                                                                                 \
                case 0: C_(F##_add)(&x, &a, &b); break;                                                       \
                case 1: C_(F##_sub)(&x, &a, &b); break;                                                       \
                case 2: C_(F##_mul)(&x, &a, &b); break;                                                       \
                case 3: C_(F##_sqr)(&x, &a); break;                                                           \
                default: C_(F##_inv)(&x, &a); break;                                                          \
                }                                                                                             \
                CHECK_MSG(C_(F##_eq_var)(&x, &y), CURVE_NAME " " #F "[%zu].%s differs from ffjavascript", i_, \
                          keys_[k_]);                                                                         \
            }                                                                                                 \
        }                                                                                                     \
    } while (0)

/* Group entries: kG = k·G, P and Q on the curve and in the subgroup,
 * P+Q (through both additions) and 2P. */
#define GROUP_CHECKS(G, list)                                                                                          \
    do {                                                                                                               \
        size_t i_;                                                                                                     \
        json_t *e_;                                                                                                    \
        json_array_foreach(list, i_, e_) {                                                                             \
            C_(G) kg, p, q, pq, p2, t;                                                                                 \
            C_(G##j) j, jq, acc;                                                                                       \
            uint64_t k[4] = {0};                                                                                       \
            int ok_ = dec_limbs(k, 4, json_object_get(e_, "k")) && L_(parse_##G)(&kg, json_object_get(e_, "kG")) &&    \
                      L_(parse_##G)(&p, json_object_get(e_, "P")) && L_(parse_##G)(&q, json_object_get(e_, "Q")) &&    \
                      L_(parse_##G)(&pq, json_object_get(e_, "P+Q")) && L_(parse_##G)(&p2, json_object_get(e_, "2P")); \
            CHECK_MSG(ok_, CURVE_NAME " " #G "[%zu]: bad entry", i_);                                                  \
            if (!ok_) continue;                                                                                        \
            CHECK_MSG(C_(G##_is_on_curve_var)(&p) && C_(G##_is_on_curve_var)(&q) && C_(G##_is_on_curve_var)(&pq),      \
                      CURVE_NAME " " #G "[%zu]: not on curve", i_);                                                    \
            CHECK_MSG(C_(G##_is_in_subgroup_var)(&p) && C_(G##_is_in_subgroup_var)(&q),                                \
                      CURVE_NAME " " #G "[%zu]: not in subgroup", i_);                                                 \
            C_(G##_j_from_affine)(&j, &C_(G##_generator));                                                             \
            C_(G##_j_mul)(&acc, &j, k, 4);                                                                             \
            C_(G##_j_to_affine)(&t, &acc);                                                                             \
            CHECK_MSG(L_(G##_eq)(&t, &kg), CURVE_NAME " " #G "[%zu]: k*G differs", i_);                                \
            C_(G##_j_from_affine)(&j, &p);                                                                             \
            C_(G##_j_from_affine)(&jq, &q);                                                                            \
            C_(G##_j_add_var)(&acc, &j, &jq);                                                                          \
            C_(G##_j_to_affine)(&t, &acc);                                                                             \
            CHECK_MSG(L_(G##_eq)(&t, &pq), CURVE_NAME " " #G "[%zu]: P+Q differs (j_add)", i_);                        \
            C_(G##_j_add_affine_var)(&acc, &j, &q);                                                                    \
            C_(G##_j_to_affine)(&t, &acc);                                                                             \
            CHECK_MSG(L_(G##_eq)(&t, &pq), CURVE_NAME " " #G "[%zu]: P+Q differs (j_add_affine)", i_);                 \
            C_(G##_j_dbl)(&acc, &j);                                                                                   \
            C_(G##_j_to_affine)(&t, &acc);                                                                             \
            CHECK_MSG(L_(G##_eq)(&t, &p2), CURVE_NAME " " #G "[%zu]: 2P differs", i_);                                 \
        }                                                                                                              \
    } while (0)

static void L_(check_pairings)(json_t *list) {
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e) {
        C_(g1) p, t1, np;
        C_(g2) q, t2;
        C_(g1j) j1;
        C_(g2j) j2;
        C_(fp12) want, got, f;
        uint64_t a[4] = {0}, b[4] = {0};
        int ok = dec_limbs(a, 4, json_object_get(e, "a")) && dec_limbs(b, 4, json_object_get(e, "b")) &&
                 L_(parse_g1)(&p, json_object_get(e, "P")) && L_(parse_g2)(&q, json_object_get(e, "Q")) &&
                 L_(parse_fp12)(&want, json_object_get(e, "e"));
        CHECK_MSG(ok, CURVE_NAME " pairing[%zu]: bad entry", i);
        if (!ok) continue;
        C_(g1_j_from_affine)(&j1, &C_(g1_generator));
        C_(g1_j_mul)(&j1, &j1, a, 4);
        C_(g1_j_to_affine)(&t1, &j1);
        CHECK_MSG(L_(g1_eq)(&t1, &p), CURVE_NAME " pairing[%zu]: P != a*G1", i);
        C_(g2_j_from_affine)(&j2, &C_(g2_generator));
        C_(g2_j_mul)(&j2, &j2, b, 4);
        C_(g2_j_to_affine)(&t2, &j2);
        CHECK_MSG(L_(g2_eq)(&t2, &q), CURVE_NAME " pairing[%zu]: Q != b*G2", i);

        /* ffjavascript's value is e^m for a fixed m (pairing.h says why):
         * map ours to theirs and theirs back to ours, both exactly */
        C_(fp12) mine, back;
        C_(pairing_var)(&mine, &p, &q);
        C_(gt_to_ffjs)(&got, &mine);
        CHECK_MSG(C_(fp12_eq_var)(&got, &want), CURVE_NAME " pairing[%zu]: e(P, Q)^m differs from ffjavascript", i);
        C_(gt_from_ffjs)(&back, &want);
        CHECK_MSG(C_(fp12_eq_var)(&back, &mine), CURVE_NAME " pairing[%zu]: ffjavascript^(1/m) differs from e(P, Q)",
                  i);
        /* the reference hard part (plain exponent (p^4-p^2+1)/r) agrees */
        C_(miller_loop_var)(&f, &p, &q, 1);
        C_(final_exp_easy)(&f, &f);
        C_(final_exp_hard_ref)(&f, &f);
        CHECK_MSG(C_(fp12_eq_var)(&f, &mine), CURVE_NAME " pairing[%zu]: reference final exp differs", i);
        /* the value ffjavascript gives is in GT: want^r = 1, and not 1 */
        C_(fr) rm = C_(fr_modulus);
        C_(fp12_pow_var)(&f, &want, rm.v, 4, 1);
        CHECK_MSG(C_(fp12_is_one_var)(&f) && !C_(fp12_is_one_var)(&want),
                  CURVE_NAME " pairing[%zu]: ffjavascript value not of order r", i);
        /* e(P, Q)·e(-P, Q) = 1 */
        C_(g1) pp[2];
        C_(g2) qq[2] = {q, q};
        C_(g1_neg)(&np, &p);
        pp[0] = p;
        pp[1] = np;
        CHECK_MSG(C_(pairing_product_is_one_var)(pp, qq, 2), CURVE_NAME " pairing[%zu]: e(P,Q)e(-P,Q) != 1", i);
    }
}

static void L_(check_doc)(json_t *doc) {
    C_(fp) pm = C_(fp_modulus);
    C_(fr) rm = C_(fr_modulus);
    CHECK_MSG(str_eq_limbs(json_object_get(doc, "q"), pm.v, FP_N), CURVE_NAME ": \"q\" is not our base field modulus");
    CHECK_MSG(str_eq_limbs(json_object_get(doc, "r"), rm.v, 4), CURVE_NAME ": \"r\" is not our scalar field modulus");
    json_t *lists[5];
    static const char *names[5] = {"fr", "fp", "g1", "g2", "pairing"};
    for (size_t i = 0; i < 5; i++) {
        lists[i] = json_object_get(doc, names[i]);
        CHECK_MSG(json_is_array(lists[i]) && json_array_size(lists[i]) > 0, CURVE_NAME ": list \"%s\" missing or empty",
                  names[i]);
    }
    FIELD_CHECKS(fr, L_(parse_fr), lists[0]);
    FIELD_CHECKS(fp, L_(parse_fp), lists[1]);
    GROUP_CHECKS(g1, lists[2]);
    GROUP_CHECKS(g2, lists[3]);
    L_(check_pairings)(lists[4]);
    printf("  %s: %zu fr, %zu fp, %zu g1, %zu g2, %zu pairing entries checked\n", CURVE_NAME, json_array_size(lists[0]),
           json_array_size(lists[1]), json_array_size(lists[2]), json_array_size(lists[3]), json_array_size(lists[4]));
}

#undef FIELD_CHECKS
#undef GROUP_CHECKS
#undef L_
#undef C_
#undef FP_N
#undef CURVE_NAME
#undef ZP_FFJS_CURVE
#endif
