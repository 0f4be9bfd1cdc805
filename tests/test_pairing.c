/* Tests of the Fp6/Fp12 tower and the optimal ate pairings, both curves,
 * from first principles (seeded RNG, ZP_TEST_SEED / ZP_TEST_ITERS):
 * - tower laws: mul/sqr/inv, sparse line products against the general
 *   product, Frobenius against a^p, a^(p^k), conj = a^(p^6), cyclotomic
 *   squaring against squaring, the final exponentiation's addition chain
 *   against the plain exponent (p^4 - p^2 + 1)/r;
 * - pairings: e(G1, G2) != 1, e(G1, G2)^r = 1, bilinearity
 *   e(aP, bQ) = e(P, Q)^(ab) = e(abP, Q), product checks true and false
 *   (e(aG1, bG2)·e(-abG1, G2) = 1, the Groth16 shape), more pairs than
 *   one Miller-loop chunk, points at infinity;
 * - a known vector from an independent implementation: e(G1, G2) as
 *   ffjavascript computes it (= ours^m, see gt_to_ffjs), both curves.
 * The per-curve half is compiled twice: this file includes itself with
 * ZP_PT_CURVE defined. */
#ifndef ZP_PT_CURVE

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/bigint.h"
#include "base/clock.h"
#include "pairing/pairing.h"
#include "testutil.h"

static const char *const known_bn254[12];
static const char *const known_bls12[12];

#define ZP_PT_CURVE 1
#define C_(name) zp_bn254_##name
#define FP_N 4
#define FP_TOP_MASK 0x1fffffffffffffffULL /* < 2^253 < p */
#define CURVE_NAME "bn254"
#define KNOWN known_bn254
#include "test_pairing.c"

#define ZP_PT_CURVE 2
#define C_(name) zp_bls12_##name
#define FP_N 6
#define FP_TOP_MASK 0x0fffffffffffffffULL /* < 2^380 < p */
#define CURVE_NAME "bls12-381"
#define KNOWN known_bls12
#include "test_pairing.c"

/* e(G1, G2) as ffjavascript 0.3.1 computes it (curve.pairing; entry 0 of
 * every tests/ffjs/gen_vectors.js file), in its Fp12 order c_ijk (w^i v^j
 * u^k), plain decimal: an independent implementation's value, kept here so
 * that this test needs no node. It is e(G1, G2)^m (see gt_to_ffjs). */
static const char *const known_bn254[12] = {
    "17264119758069723980713015158403419364912226240334615592005620718956030922389",
    "1300711225518851207585954685848229181392358478699795190245709208408267917898",
    "8894217292938489450175280157304813535227569267786222825147475294561798790624",
    "1829859855596098509359522796979920150769875799037311140071969971193843357227",
    "4968700049505451466697923764727215585075098085662966862137174841375779106779",
    "12814315002058128940449527172080950701976819591738376253772993495204862218736",
    "4233474252585134102088637248223601499779641130562251948384759786370563844606",
    "9420544134055737381096389798327244442442230840902787283326002357297404128074",
    "13457906610892676317612909831857663099224588803620954529514857102808143524905",
    "5122435115068592725432309312491733755581898052459744089947319066829791570839",
    "8891987925005301465158626530377582234132838601606565363865129986128301774627",
    "440796048150724096437130979851431985500142692666486515369083499585648077975"};
static const char *const known_bls12[12] = {
    "281910560595369124527780305632268408688470300047396106571648550603358850420383102906644864235804259750101429410450"
    "2",
    "132396823298699674257131520615140596510424254233968072216422090081230352433462837016336615383998419629868522773479"
    "9",
    "298733504972131250442860298844761632883034172237696221401167487596905283504387565857942554851292563404014470419213"
    "5",
    "387972358245255245253868431447908196750211149741307659881616375902884292766832754287510845775596641788179796627131"
    "1",
    "26150818251799700317138574337465333918605951849423954313983902587887001261497530267629670493088098223830832668125"
    "3",
    "23148899224646045966381359834244866985447394210505438151134678671900588334087603204360673907088309964777379317061"
    "4",
    "399358209551642265877366906893136113418873815976671557618749030561175912655479656986805381810585066114222294819855"
    "7",
    "107477351169842234450226400615985971050216404591141275083164168078301252555587246710824927128675739912118350890063"
    "4",
    "272758829908354568673902431799851274056116701104694024998855741932306880901913762494370391026779060128707333919394"
    "3",
    "49364329981443764091474567785436967004108034434960750465654335579907748553628886600924502809198814610705951454659"
    "4",
    "73440133219664144183943910594262314123414895797240778225735506022919385432492741786540189559610812444357528386865"
    "5",
    "234833009828855642091867250292366495262015248312859348430175939458332035835418648272362999937024167497383231824849"
    "7"};

int main(void) {
    zp_test_init("test_pairing");
    run_1();
    run_2();
    return zp_test_done();
}

#else /* ------------------------------------------- one curve, twice */

#define FN_(a, b) a##_##b
#define FN(a, b) FN_(a, b)
#define L_(name) FN(name, ZP_PT_CURVE)

static void L_(rand_fp)(C_(fp) *r) {
    C_(fp) t;
    for (size_t i = 0; i < FP_N; i++) t.v[i] = zp_test_rand64();
    t.v[FP_N - 1] &= FP_TOP_MASK;
    C_(fp_to_mont)(r, &t);
}
static void L_(rand_fp2)(C_(fp2) *r) {
    L_(rand_fp)(&r->c0);
    L_(rand_fp)(&r->c1);
}
static void L_(rand_fp6)(C_(fp6) *r) {
    L_(rand_fp2)(&r->c0);
    L_(rand_fp2)(&r->c1);
    L_(rand_fp2)(&r->c2);
}
static void L_(rand_fp12)(C_(fp12) *r) {
    L_(rand_fp6)(&r->c0);
    L_(rand_fp6)(&r->c1);
}
/* A scalar below r (plain limbs): 4 random limbs, top bits cleared. */
static void L_(rand_scalar)(uint64_t k[4]) {
    for (size_t i = 0; i < 4; i++) k[i] = zp_test_rand64();
    k[3] &= 0x0fffffffffffffffULL;
    if (k[0] == 0) k[0] = 1;
}
/* ab mod r, plain limbs. */
static void L_(scalar_mul)(uint64_t out[4], const uint64_t a[4], const uint64_t b[4]) {
    C_(fr) x, y;
    memcpy(x.v, a, sizeof x.v);
    memcpy(y.v, b, sizeof y.v);
    C_(fr_to_mont)(&x, &x);
    C_(fr_to_mont)(&y, &y);
    C_(fr_mul)(&x, &x, &y);
    C_(fr_from_mont)(&x, &x);
    memcpy(out, x.v, sizeof x.v);
}
static void L_(g1_mul)(C_(g1) *r, const C_(g1) *p, const uint64_t k[4]) {
    C_(g1j) j;
    C_(g1_j_from_affine)(&j, p);
    C_(g1_j_mul)(&j, &j, k, 4);
    C_(g1_j_to_affine)(r, &j);
}
static void L_(g2_mul)(C_(g2) *r, const C_(g2) *p, const uint64_t k[4]) {
    C_(g2j) j;
    C_(g2_j_from_affine)(&j, p);
    C_(g2_j_mul)(&j, &j, k, 4);
    C_(g2_j_to_affine)(r, &j);
}

static void L_(test_tower)(void) {
    size_t iters = zp_test_iters(20);
    C_(fp) pm = C_(fp_modulus);
    for (size_t it = 0; it < iters; it++) {
        C_(fp12) a, b, c, x, y, z;
        L_(rand_fp12)(&a);
        L_(rand_fp12)(&b);
        L_(rand_fp12)(&c);
        /* ring laws */
        C_(fp12_mul)(&x, &a, &b);
        C_(fp12_mul)(&y, &b, &a);
        CHECK(C_(fp12_eq_var)(&x, &y));
        C_(fp12_mul)(&x, &x, &c);
        C_(fp12_mul)(&y, &b, &c);
        C_(fp12_mul)(&y, &a, &y);
        CHECK(C_(fp12_eq_var)(&x, &y));
        C_(fp12_add)(&x, &b, &c);
        C_(fp12_mul)(&x, &a, &x);
        C_(fp12_mul)(&y, &a, &b);
        C_(fp12_mul)(&z, &a, &c);
        C_(fp12_add)(&y, &y, &z);
        CHECK(C_(fp12_eq_var)(&x, &y));
        C_(fp12_sqr)(&x, &a);
        C_(fp12_mul)(&y, &a, &a);
        CHECK(C_(fp12_eq_var)(&x, &y));
        C_(fp6_sqr)(&x.c0, &a.c0);
        C_(fp6_mul)(&y.c0, &a.c0, &a.c0);
        CHECK(C_(fp6_eq_var)(&x.c0, &y.c0));
        C_(fp12_inv)(&x, &a);
        C_(fp12_mul)(&x, &x, &a);
        CHECK(C_(fp12_is_one_var)(&x));
        CHECK(!C_(fp12_is_one_var)(&a));
        /* w² = v: w·w is (0, 1, 0; 0, 0, 0) */
        C_(fp12) w, v;
        memset(&w, 0, sizeof w);
        memset(&v, 0, sizeof v);
        C_(fp2_set_one)(&w.c1.c0);
        C_(fp2_set_one)(&v.c0.c1);
        C_(fp12_sqr)(&x, &w);
        CHECK(C_(fp12_eq_var)(&x, &v));
        /* sparse products against the general product */
        C_(fp2) s0, s1, s2;
        L_(rand_fp2)(&s0);
        L_(rand_fp2)(&s1);
        L_(rand_fp2)(&s2);
        memset(&z, 0, sizeof z);
        z.c0.c0 = s0;
        z.c1.c0 = s1;
        z.c1.c1 = s2;
        C_(fp12_mul)(&x, &a, &z);
        C_(fp12_mul_by_034)(&y, &a, &s0, &s1, &s2);
        CHECK_MSG(C_(fp12_eq_var)(&x, &y), CURVE_NAME " mul_by_034");
        memset(&z, 0, sizeof z);
        z.c0.c0 = s0;
        z.c0.c1 = s1;
        z.c1.c1 = s2;
        C_(fp12_mul)(&x, &a, &z);
        C_(fp12_mul_by_014)(&y, &a, &s0, &s1, &s2);
        CHECK_MSG(C_(fp12_eq_var)(&x, &y), CURVE_NAME " mul_by_014");
        /* Frobenius: a^p, a^(p^k) by composition, conj = a^(p^6), 12 = id */
        if (it < 3) {
            C_(fp12_pow_var)(&x, &a, pm.v, FP_N, 0);
            C_(fp12_frobenius)(&y, &a, 1);
            CHECK_MSG(C_(fp12_eq_var)(&x, &y), CURVE_NAME " frobenius(a, 1) != a^p");
        }
        C_(fp12_frobenius)(&x, &a, 1);
        C_(fp12_frobenius)(&x, &x, 1);
        C_(fp12_frobenius)(&y, &a, 2);
        CHECK_MSG(C_(fp12_eq_var)(&x, &y), CURVE_NAME " frobenius 1∘1 != 2");
        C_(fp12_frobenius)(&x, &x, 1);
        C_(fp12_frobenius)(&y, &a, 3);
        CHECK_MSG(C_(fp12_eq_var)(&x, &y), CURVE_NAME " frobenius 1∘1∘1 != 3");
        C_(fp12_frobenius)(&x, &a, 6);
        C_(fp12_conj)(&y, &a);
        CHECK_MSG(C_(fp12_eq_var)(&x, &y), CURVE_NAME " frobenius 6 != conj");
        C_(fp12_frobenius)(&x, &a, 5);
        C_(fp12_frobenius)(&x, &x, 7);
        CHECK(C_(fp12_eq_var)(&x, &a));
        C_(fp12_mul)(&x, &a, &b);
        C_(fp12_frobenius)(&x, &x, 1);
        C_(fp12_frobenius)(&y, &a, 1);
        C_(fp12_frobenius)(&z, &b, 1);
        C_(fp12_mul)(&y, &y, &z);
        CHECK(C_(fp12_eq_var)(&x, &y));
        /* cyclotomic subgroup: after the easy part, conj = inverse,
         * cyclotomic squaring = squaring, chain = reference exponent */
        C_(final_exp_easy)(&x, &a);
        C_(fp12_conj)(&y, &x);
        C_(fp12_mul)(&y, &y, &x);
        CHECK_MSG(C_(fp12_is_one_var)(&y), CURVE_NAME " easy part not cyclotomic");
        C_(fp12_sqr)(&y, &x);
        C_(fp12_cyclotomic_sqr)(&z, &x);
        CHECK_MSG(C_(fp12_eq_var)(&y, &z), CURVE_NAME " cyclotomic_sqr != sqr");
        if (it < 2) {
            C_(final_exp_hard_ref)(&y, &x);
            C_(final_exp)(&z, &a);
            CHECK_MSG(C_(fp12_eq_var)(&y, &z), CURVE_NAME " final_exp chain != (p^4-p^2+1)/r");
        }
    }
}

static void L_(test_pairing)(void) {
    const C_(g1) *g1 = &C_(g1_generator);
    const C_(g2) *g2 = &C_(g2_generator);
    C_(fr) rmod = C_(fr_modulus);
    C_(fp12) e, x, y;

    /* non-degenerate, of order r */
    C_(pairing_var)(&e, g1, g2);
    CHECK_MSG(!C_(fp12_is_one_var)(&e), CURVE_NAME " e(G1, G2) = 1");
    C_(fp12_pow_var)(&x, &e, rmod.v, 4, 1);
    CHECK_MSG(C_(fp12_is_one_var)(&x), CURVE_NAME " e(G1, G2)^r != 1");
    /* the final exponentiation of the Miller loop, split by hand */
    C_(miller_loop_var)(&x, g1, g2, 1);
    C_(final_exp_easy)(&x, &x);
    C_(final_exp_hard_ref)(&x, &x);
    CHECK(C_(fp12_eq_var)(&x, &e));

    size_t iters = zp_test_iters(3);
    for (size_t it = 0; it < iters; it++) {
        uint64_t a[4], b[4], ab[4];
        L_(rand_scalar)(a);
        L_(rand_scalar)(b);
        L_(scalar_mul)(ab, a, b);
        C_(g1) aP, abP, nabP, P;
        C_(g2) bQ, Q;
        L_(g1_mul)(&aP, g1, a);
        L_(g1_mul)(&abP, g1, ab);
        L_(g2_mul)(&bQ, g2, b);
        /* bilinearity: e(aG1, bG2) = e(G1, G2)^(ab) = e(abG1, G2) */
        C_(pairing_var)(&x, &aP, &bQ);
        C_(fp12_pow_var)(&y, &e, ab, 4, 1);
        CHECK_MSG(C_(fp12_eq_var)(&x, &y), CURVE_NAME " e(aP, bQ) != e(P, Q)^(ab)");
        C_(pairing_var)(&y, &abP, g2);
        CHECK_MSG(C_(fp12_eq_var)(&x, &y), CURVE_NAME " e(aP, bQ) != e(abP, Q)");
        /* both arguments at once, away from the generators:
         * e(aG1, aG2) = e^(a²), e(bG1, bG2) = e^(b²) */
        L_(g1_mul)(&P, g1, b);
        L_(g2_mul)(&Q, g2, a);
        {
            C_(fp12) z;
            uint64_t aa[4], bb[4];
            L_(scalar_mul)(aa, a, a);
            L_(scalar_mul)(bb, b, b);
            C_(pairing_var)(&x, &aP, &Q);
            C_(fp12_pow_var)(&z, &e, aa, 4, 1);
            CHECK_MSG(C_(fp12_eq_var)(&x, &z), CURVE_NAME " e(aG1, aG2) != e^(a²)");
            C_(pairing_var)(&y, &P, &bQ);
            C_(fp12_pow_var)(&z, &e, bb, 4, 1);
            CHECK_MSG(C_(fp12_eq_var)(&y, &z), CURVE_NAME " e(bG1, bG2) != e^(b²)");
        }

        /* the Groth16 shape: e(aG1, bG2)·e(-abG1, G2) = 1, and false when off by one */
        C_(g1_neg)(&nabP, &abP);
        C_(g1) ps[4] = {aP, nabP, *g1, *g1};
        C_(g2) qs[4] = {bQ, *g2, *g2, *g2};
        CHECK_MSG(C_(pairing_product_is_one_var)(ps, qs, 2), CURVE_NAME " e(aG1, bG2)e(-abG1, G2) != 1");
        CHECK_MSG(!C_(pairing_product_is_one_var)(ps, qs, 3), CURVE_NAME " product with an extra e(G1, G2) is 1");
        C_(g1_neg)(&ps[3], g1);
        CHECK_MSG(C_(pairing_product_is_one_var)(ps, qs, 4), CURVE_NAME " 4-pair product != 1");
        ps[0] = abP;
        CHECK_MSG(!C_(pairing_product_is_one_var)(ps, qs, 2), CURVE_NAME " e(abG1, bG2)e(-abG1, G2) = 1");
        /* swapped roles: e(G1, bG2)·e(-bG1, G2) = 1 */
        C_(g1) bP;
        L_(g1_mul)(&bP, g1, b);
        C_(g1_neg)(&bP, &bP);
        C_(g1) ps2[2] = {*g1, bP};
        C_(g2) qs2[2] = {bQ, *g2};
        CHECK(C_(pairing_product_is_one_var)(ps2, qs2, 2));
    }

    /* more pairs than a Miller-loop chunk (8): sum of k_i·G1 paired with
     * G2 against e((sum k_i)G1, G2), with infinities mixed in */
    {
        enum { NP = 19 };
        C_(g1) ps[NP];
        C_(g2) qs[NP];
        C_(fr) sum;
        C_(fr_set_zero)(&sum);
        for (size_t i = 0; i < NP - 1; i++) {
            uint64_t k[4];
            L_(rand_scalar)(k);
            C_(fr) kf;
            memcpy(kf.v, k, sizeof kf.v);
            C_(fr_to_mont)(&kf, &kf);
            C_(fr_add)(&sum, &sum, &kf);
            L_(g1_mul)(&ps[i], g1, k);
            qs[i] = *g2;
            if (i % 5 == 3) C_(g1_set_inf)(&ps[i]); /* contributes 1 ... */
            if (i % 5 == 3) C_(fr_sub)(&sum, &sum, &kf);
            if (i % 7 == 2) { /* ... and so does a Q at infinity */
                C_(g2_set_inf)(&qs[i]);
                C_(fr_sub)(&sum, &sum, &kf);
            }
        }
        C_(fr_neg)(&sum, &sum);
        C_(fr_from_mont)(&sum, &sum);
        L_(g1_mul)(&ps[NP - 1], g1, sum.v);
        qs[NP - 1] = *g2;
        CHECK_MSG(C_(pairing_product_is_one_var)(ps, qs, NP), CURVE_NAME " %d-pair product != 1", (int)NP);
        C_(g1_neg)(&ps[0], &ps[0]);
        CHECK_MSG(!C_(pairing_product_is_one_var)(ps, qs, NP), CURVE_NAME " %d-pair product wrongly 1", (int)NP);
    }

    /* infinity: e(O, Q) = e(P, O) = 1; empty products are 1 */
    {
        C_(g1) o1;
        C_(g2) o2;
        C_(g1_set_inf)(&o1);
        C_(g2_set_inf)(&o2);
        C_(pairing_var)(&x, &o1, g2);
        CHECK(C_(fp12_is_one_var)(&x));
        C_(pairing_var)(&x, g1, &o2);
        CHECK(C_(fp12_is_one_var)(&x));
        CHECK(C_(pairing_product_is_one_var)(&o1, &o2, 1));
        CHECK(C_(pairing_product_is_one_var)(g1, g2, 0));
        CHECK(!C_(pairing_product_is_one_var)(g1, g2, 1));
    }
}

/* Prepared lines: the Miller loop of general pairs and of points' lines
 * together equals the plain loop over the same pairs after the final
 * exponentiation, with infinities on either side among them; and the
 * Groth16-shaped check e(-aG1, bG2)·e(cG1, dG2)·e(eG1, gG2) = 1 for
 * ab = cd + eg holds through the lines of dG2 and gG2 and fails when a
 * point is changed. */
static void L_(test_lines)(void) {
    const C_(g1) *g1 = &C_(g1_generator);
    const C_(g2) *g2 = &C_(g2_generator);
    for (int round = 0; round < 4; round++) {
        enum { N = 3, M = 5 };
        C_(g1) p[N + M];
        C_(g2) q[N + M];
        C_(g2_lines) *lines = malloc(M * sizeof *lines);
        const C_(g2_lines) *lp[M];
        CHECK(lines != NULL);
        if (lines == NULL) return;
        for (int i = 0; i < N + M; i++) {
            uint64_t a[4], b[4];
            L_(rand_scalar)(a);
            L_(rand_scalar)(b);
            L_(g1_mul)(&p[i], g1, a);
            L_(g2_mul)(&q[i], g2, b);
        }
        if (round == 1) C_(g1_set_inf)(&p[N + 1]); /* a prepared pair with P at infinity */
        if (round == 2) C_(g2_set_inf)(&q[N + 2]); /* lines of infinity */
        if (round == 3) C_(g1_set_inf)(&p[0]);     /* a general pair at infinity */
        for (int j = 0; j < M; j++) {
            C_(g2_lines_make)(&lines[j], &q[N + j]);
            lp[j] = &lines[j];
        }
        CHECK_MSG(lines[0].n <= sizeof lines[0].l / sizeof lines[0].l[0], CURVE_NAME " too many lines");
        C_(fp12) x, y;
        C_(miller_loop_var)(&x, p, q, N + M);
        C_(final_exp)(&x, &x);
        C_(miller_loop_lines_var)(&y, p, q, N, p + N, lp, M);
        C_(final_exp)(&y, &y);
        CHECK_MSG(memcmp(&x, &y, sizeof x) == 0, CURVE_NAME " lines round %d: differs from the plain loop", round);
        C_(miller_loop_lines_var)(&y, p, q, 0, p + N, lp, M); /* lines alone */
        C_(final_exp)(&y, &y);
        C_(miller_loop_var)(&x, p + N, q + N, M);
        C_(final_exp)(&x, &x);
        CHECK_MSG(memcmp(&x, &y, sizeof x) == 0, CURVE_NAME " lines round %d: lines alone differ", round);
        free(lines);
    }
    {
        /* a·b = c·d + e·g: e(-aG1, bG2)·e(cG1, dG2)·e(eG1, gG2) = 1 */
        C_(fr) k[6];
        uint64_t raw[6][4];
        for (int i = 0; i < 6; i++) {
            if (i == 1) continue;
            L_(rand_scalar)(raw[i]);
            memcpy(k[i].v, raw[i], sizeof k[i].v);
            C_(fr_to_mont)(&k[i], &k[i]);
        }
        C_(fr) cd, eg, ainv;
        C_(fr_mul)(&cd, &k[2], &k[3]);
        C_(fr_mul)(&eg, &k[4], &k[5]);
        C_(fr_add)(&cd, &cd, &eg);
        C_(fr_inv)(&ainv, &k[0]);
        C_(fr_mul)(&k[1], &cd, &ainv); /* b = (cd + eg)/a */
        C_(fr_from_mont)(&k[1], &k[1]);
        memcpy(raw[1], k[1].v, sizeof raw[1]);
        C_(g1) p1[3];
        C_(g2) q1[3];
        for (int i = 0; i < 3; i++) {
            L_(g1_mul)(&p1[i], g1, raw[2 * i]);
            L_(g2_mul)(&q1[i], g2, raw[2 * i + 1]);
        }
        C_(g1_neg)(&p1[0], &p1[0]);
        C_(g2_lines) *lines = malloc(2 * sizeof *lines);
        CHECK(lines != NULL);
        if (lines == NULL) return;
        C_(g2_lines_make)(&lines[0], &q1[1]);
        C_(g2_lines_make)(&lines[1], &q1[2]);
        const C_(g2_lines) *lp[2] = {&lines[0], &lines[1]};
        C_(fp12) f;
        C_(miller_loop_lines_var)(&f, p1, q1, 1, p1 + 1, lp, 2);
        C_(final_exp)(&f, &f);
        CHECK_MSG(C_(fp12_is_one_var)(&f), CURVE_NAME " Groth16-shaped check through lines != 1");
        C_(g1_neg)(&p1[2], &p1[2]);
        C_(miller_loop_lines_var)(&f, p1, q1, 1, p1 + 1, lp, 2);
        C_(final_exp)(&f, &f);
        CHECK_MSG(!C_(fp12_is_one_var)(&f), CURVE_NAME " Groth16-shaped check with a point changed = 1");
        free(lines);
    }
}

/* The known vector: ffjavascript's e(G1, G2), both ways through the
 * conversion. */
static void L_(test_known)(void) {
    C_(fp12) want, e, x;
    C_(fp2) *c[6] = {&want.c0.c0, &want.c0.c1, &want.c0.c2, &want.c1.c0, &want.c1.c1, &want.c1.c2};
    for (size_t i = 0; i < 6; i++) {
        C_(fp) t[2];
        for (size_t k = 0; k < 2; k++) {
            memset(&t[k], 0, sizeof t[k]);
            CHECK(zp_bigint_from_dec(t[k].v, FP_N, KNOWN[2 * i + k]));
            C_(fp_to_mont)(&t[k], &t[k]);
        }
        c[i]->c0 = t[0];
        c[i]->c1 = t[1];
    }
    C_(pairing_var)(&e, &C_(g1_generator), &C_(g2_generator));
    C_(gt_to_ffjs)(&x, &e);
    CHECK_MSG(C_(fp12_eq_var)(&x, &want), CURVE_NAME " e(G1, G2)^m != ffjavascript's e(G1, G2)");
    C_(gt_from_ffjs)(&x, &want);
    CHECK_MSG(C_(fp12_eq_var)(&x, &e), CURVE_NAME " ffjavascript's e(G1, G2)^(1/m) != e(G1, G2)");
    CHECK_MSG(!C_(fp12_eq_var)(&e, &want), CURVE_NAME " m = 1?");
}

/* Times one pairing and a 4-pair product check (printed, not checked). */
static void L_(bench)(void) {
    const C_(g1) *g1 = &C_(g1_generator);
    const C_(g2) *g2 = &C_(g2_generator);
    C_(fp12) x;
    C_(g1) ps[4] = {*g1, *g1, *g1, *g1};
    C_(g2) qs[4] = {*g2, *g2, *g2, *g2};
    C_(g1_neg)(&ps[1], g1);
    C_(g1_neg)(&ps[3], g1);
    int reps = 5, ok = 1;
    double t0 = zp_clock_now();
    for (int i = 0; i < reps; i++) C_(pairing_var)(&x, g1, g2);
    double t1 = zp_clock_now();
    for (int i = 0; i < reps; i++) ok &= C_(pairing_product_is_one_var)(ps, qs, 4);
    double t2 = zp_clock_now();
    CHECK(ok);
    C_(fp12) f;
    C_(miller_loop_var)(&f, g1, g2, 1);
    double t3 = zp_clock_now();
    for (int i = 0; i < reps; i++) C_(final_exp)(&x, &f);
    double t4 = zp_clock_now();
    printf("  %s: pairing %.2f ms, 4-pair product check %.2f ms, final exp %.2f ms\n", CURVE_NAME,
           1e3 * (t1 - t0) / reps, 1e3 * (t2 - t1) / reps, 1e3 * (t4 - t3) / reps);
}

static void L_(run)(void) {
    L_(test_tower)();
    L_(test_pairing)();
    L_(test_lines)();
    L_(test_known)();
    L_(bench)();
}

#undef L_
#undef C_
#undef FP_N
#undef FP_TOP_MASK
#undef CURVE_NAME
#undef KNOWN
#undef ZP_PT_CURVE
#endif
