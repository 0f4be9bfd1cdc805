/* Montgomery multiplication and squaring on the four prime fields, once
 * on each path zp_mont_mul and zp_mont_sqr can take: the MULX/ADCX/ADOX
 * asm (when the build has it, ZP_ADX, and the CPU has BMI2 and ADX) and
 * the portable code (always, forced with zp_field_adx_use(0), which puts
 * the out-of-line copies that run on older CPUs through the same checks).
 * On each path: zp_mont_mul and zp_mont_sqr against zp_mont_mul_portable
 * and zp_mont_sqr_portable on random, carry-heavy and edge inputs, the
 * add/sub against their generic code, a few algebraic identities, and a
 * slow independent reference (schoolbook product, then reduction by
 * bit-by-bit shift-subtract) for from_mont(mul(to_mont(x), to_mont(y))) ==
 * x·y mod p and the same for sqr. The safegcd inversion inv_var against
 * the Fermat inv, and batch_inv_var against both, Fp2 included. Where
 * the CPU has AVX-512 IFMA, its eight-lane product (field/ifma.h) against
 * the portable one on the same edge and random operands; where it has AVX2
 * and FMA, the four-lane FP64 product (field/fma.h) likewise, also under
 * a caller's rounding toward +inf. In a
 * ZP_VERIFY build, also that an unreduced input aborts the operation it
 * enters. */
#include <string.h>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "field/field.h"
#include "field/fma.h"
#include "field/ifma.h"
#include "testutil.h"

typedef struct {
    const char *name;
    size_t n;
    const uint64_t *p, *r1, *r2;
    uint64_t n0;
    /* the per-field wrappers (constant limb count, as the library uses them) */
    void (*mul)(uint64_t *r, const uint64_t *a, const uint64_t *b);
    void (*sqr)(uint64_t *r, const uint64_t *a);
    void (*inv)(uint64_t *r, const uint64_t *a);
    void (*inv_var)(uint64_t *r, const uint64_t *a);
    void (*to_mont)(uint64_t *r, const uint64_t *a);
    void (*from_mont)(uint64_t *r, const uint64_t *a);
} field_t;

/* one operand, computed in place (r may alias a, as the library allows) */
#define FIELD_WRAPPER1(F, OP)                                \
    static void F##_w_##OP(uint64_t *r, const uint64_t *a) { \
        F x;                                                 \
        memcpy(x.v, a, sizeof x);                            \
        F##_##OP(&x, &x);                                    \
        memcpy(r, x.v, sizeof x);                            \
    }
#define FIELD_WRAPPERS(F)                                                      \
    static void F##_w_mul(uint64_t *r, const uint64_t *a, const uint64_t *b) { \
        F x, y, z;                                                             \
        memcpy(x.v, a, sizeof x);                                              \
        memcpy(y.v, b, sizeof y);                                              \
        F##_mul(&z, &x, &y);                                                   \
        memcpy(r, z.v, sizeof z);                                              \
    }                                                                          \
    FIELD_WRAPPER1(F, sqr)                                                     \
    FIELD_WRAPPER1(F, inv)                                                     \
    FIELD_WRAPPER1(F, inv_var)                                                 \
    FIELD_WRAPPER1(F, to_mont)                                                 \
    FIELD_WRAPPER1(F, from_mont)

FIELD_WRAPPERS(zp_bn254_fp)
FIELD_WRAPPERS(zp_bn254_fr)
FIELD_WRAPPERS(zp_bls12_fp)
FIELD_WRAPPERS(zp_bls12_fr)

#define FIELD_ENTRY(F, UP, N)                                                                                    \
    {                                                                                                            \
#F, N, F##_modulus.v, F##_one_mont.v, F##_r2.v, UP##_N0, F##_w_mul, F##_w_sqr, F##_w_inv, F##_w_inv_var, \
            F##_w_to_mont, F##_w_from_mont                                                                       \
    }

static const field_t fields[] = {
    FIELD_ENTRY(zp_bn254_fp, ZP_BN254_FP, 4),
    FIELD_ENTRY(zp_bn254_fr, ZP_BN254_FR, 4),
    FIELD_ENTRY(zp_bls12_fp, ZP_BLS12_FP, 6),
    FIELD_ENTRY(zp_bls12_fr, ZP_BLS12_FR, 4),
};

#define N_MAX ZP_MAX_LIMBS

static void print_limbs(const char *label, const uint64_t *a, size_t n) {
    fprintf(stderr, "  %s = 0x", label);
    for (size_t i = n; i-- > 0;) fprintf(stderr, "%016llx", (unsigned long long)a[i]);
    fprintf(stderr, "\n");
}

/* A uniformly random value below p. */
static void rand_below(uint64_t *x, const field_t *f) {
    unsigned top = 64 - (unsigned)__builtin_clzll(f->p[f->n - 1]);
    uint64_t mask = top == 64 ? ~(uint64_t)0 : (((uint64_t)1 << top) - 1);
    do {
        for (size_t i = 0; i < f->n; i++) x[i] = zp_test_rand64();
        x[f->n - 1] &= mask;
    } while (!zp_limbs_lt_var(x, f->p, f->n));
}

/* Edge values, all below p. Returns the count. */
enum { EDGE_MAX = 40 };
static size_t edge_values(uint64_t out[][N_MAX], const field_t *f) {
    size_t n = f->n, k = 0;
    uint64_t one[N_MAX] = {1}, two[N_MAX] = {2};
    if (n < 2 || n > N_MAX) return 0;
    memset(out, 0, sizeof(uint64_t) * N_MAX * EDGE_MAX);
    k++;                                         /* 0 */
    out[k++][0] = 1;                             /* 1 */
    out[k++][0] = 2;                             /* 2 */
    zp_limbs_sub(out[k++], f->p, one, n);        /* p - 1 */
    zp_limbs_sub(out[k++], f->p, two, n);        /* p - 2 */
    memcpy(out[k++], f->r1, n * 8);              /* R mod p (one in Montgomery form) */
    memcpy(out[k++], f->r2, n * 8);              /* R^2 mod p */
    zp_limbs_sub(out[k++], f->r1, one, n);       /* R mod p - 1 */
    zp_mont_sub(out[k++], f->p, f->r1, f->p, n); /* -R mod p (p - R mod p) */
    out[k][n - 1] = f->p[n - 1] - 1;             /* all low limbs set, top below p's */
    for (size_t i = 0; i < n - 1; i++) out[k][i] = ~(uint64_t)0;
    k++;
    for (size_t i = 0; i < n; i++) out[k][i] = ~(uint64_t)0; /* all ones in p's top bits */
    out[k][n - 1] = ((uint64_t)1 << (63 - __builtin_clzll(f->p[n - 1]))) - 1;
    k++;
    out[k][n - 1] = (uint64_t)1 << (63 - __builtin_clzll(f->p[n - 1])); /* top bit of p only */
    k++;
    for (size_t i = 0; i < n - 1; i++) out[k][i] = ~(uint64_t)0; /* 2^(64(n-1)) - 1 */
    k++;
    out[k++][n - 1] = 1; /* 2^(64(n-1)) */
    out[k][0] = ~(uint64_t)0;
    k++;
    memcpy(out[k], f->p, n * 8); /* p's top limb, zero below */
    memset(out[k], 0, (n - 1) * 8);
    k++;
    memcpy(out[k], f->p, n * 8); /* p with the lowest limb cleared */
    out[k][0] = 0;
    k++;
    /* random values near p: p - (small random) and p - (one random limb) */
    for (int j = 0; j < 8; j++) {
        uint64_t d[N_MAX] = {0};
        d[0] = 1 + (zp_test_rand64() % (j < 4 ? 1000 : ~(uint64_t)0));
        if (j >= 6) d[1] = zp_test_rand64();
        zp_limbs_sub(out[k++], f->p, d, n);
    }
    /* the top limb of p, random lower limbs (below p) */
    for (int j = 0; j < 4; j++) {
        do {
            for (size_t i = 0; i < n - 1; i++) out[k][i] = zp_test_rand64();
            out[k][n - 1] = f->p[n - 1];
        } while (!zp_limbs_lt_var(out[k], f->p, n));
        k++;
    }
    return k;
}

/* ---- slow independent reference ---- */

/* r (2n limbs) = a * b, schoolbook. */
static void ref_mul_wide(uint64_t *r, const uint64_t *a, const uint64_t *b, size_t n) {
    memset(r, 0, 2 * n * 8);
    for (size_t i = 0; i < n; i++) {
        uint64_t carry = 0;
        for (size_t j = 0; j < n; j++) {
            zp_u128 t = (zp_u128)a[i] * b[j] + r[i + j] + carry;
            r[i + j] = (uint64_t)t;
            carry = (uint64_t)(t >> 64);
        }
        r[i + n] = carry;
    }
}

/* r = x mod p, x of 2n limbs, by bit-by-bit shift-subtract (p < 2^(64n-1)). */
static void ref_mod(uint64_t *r, const uint64_t *x, const uint64_t *p, size_t n) {
    uint64_t acc[N_MAX] = {0};
    for (size_t bit = 2 * n * 64; bit-- > 0;) {
        uint64_t in = (x[bit / 64] >> (bit % 64)) & 1;
        for (size_t i = n; i-- > 1;) acc[i] = (acc[i] << 1) | (acc[i - 1] >> 63);
        acc[0] = (acc[0] << 1) | in;
        if (!zp_limbs_lt_var(acc, p, n)) zp_limbs_sub(acc, acc, p, n);
    }
    memcpy(r, acc, n * 8);
}

/* A value below p whose limbs are each 0, all ones or random (the top limb
 * 0, p's top limb - 1 or random below it), to drive the carry chains of the
 * squaring's doubling and reduction to their ends. */
static void rand_patterned(uint64_t *x, const field_t *f) {
    uint64_t top = f->p[f->n - 1];
    for (size_t i = 0; i < f->n - 1; i++) {
        uint64_t r = zp_test_rand64() % 3;
        x[i] = r == 0 ? 0 : r == 1 ? ~(uint64_t)0 : zp_test_rand64();
    }
    uint64_t r = zp_test_rand64() % 3;
    x[f->n - 1] = r == 0 ? 0 : r == 1 ? top - 1 : zp_test_rand64() % top;
}

static int eq(const uint64_t *a, const uint64_t *b, size_t n) { return memcmp(a, b, n * 8) == 0; }

static int check_pair(const field_t *f, const uint64_t *a, const uint64_t *b, const char *what) {
    uint64_t r1[N_MAX], r2[N_MAX], r3[N_MAX];
    size_t n = f->n;
    zp_mont_mul(r1, a, b, f->p, f->n0, n); /* runtime n: the dispatch itself */
    zp_mont_mul_portable(r2, a, b, f->p, f->n0, n);
    f->mul(r3, a, b); /* constant n, through the field wrapper */
    int ok = eq(r1, r2, n) && eq(r3, r2, n) && zp_limbs_lt_var(r2, f->p, n);
    CHECK_MSG(ok, "%s: %s: mont_mul mismatch", f->name, what);
    /* add and sub: the x86-64 carry-flag code against the generic one */
    uint64_t s1[N_MAX], s2[N_MAX];
    zp_mont_add(s1, a, b, f->p, n);
    zp_mont_add_portable(s2, a, b, f->p, n);
    CHECK_MSG(eq(s1, s2, n) && zp_limbs_lt_var(s1, f->p, n), "%s: %s: mont_add mismatch", f->name, what);
    zp_mont_sub(s1, a, b, f->p, n);
    zp_mont_sub_portable(s2, a, b, f->p, n);
    CHECK_MSG(eq(s1, s2, n) && zp_limbs_lt_var(s1, f->p, n), "%s: %s: mont_sub mismatch", f->name, what);
    if (!ok) {
        print_limbs("a", a, n);
        print_limbs("b", b, n);
        print_limbs("dispatch", r1, n);
        print_limbs("portable", r2, n);
        print_limbs("wrapper ", r3, n);
    }
    return ok;
}

/* sqr(a) through the dispatch (also in place), the portable squaring and
 * the field wrapper, all equal to mul(a, a). */
static int check_sqr(const field_t *f, const uint64_t *a, const char *what) {
    uint64_t want[N_MAX], r1[N_MAX], r2[N_MAX], r3[N_MAX], r4[N_MAX];
    size_t n = f->n;
    zp_mont_mul_portable(want, a, a, f->p, f->n0, n);
    zp_mont_sqr(r1, a, f->p, f->n0, n); /* runtime n: the dispatch itself */
    zp_mont_sqr_portable(r2, a, f->p, f->n0, n);
    f->sqr(r3, a); /* constant n, in place, through the field wrapper */
    memcpy(r4, a, n * 8);
    zp_mont_sqr(r4, r4, f->p, f->n0, n);
    int ok = eq(r1, want, n) && eq(r2, want, n) && eq(r3, want, n) && eq(r4, want, n);
    CHECK_MSG(ok, "%s: %s: mont_sqr mismatch", f->name, what);
    if (!ok) {
        print_limbs("a", a, n);
        print_limbs("mul(a,a)", want, n);
        print_limbs("dispatch", r1, n);
        print_limbs("portable", r2, n);
        print_limbs("wrapper ", r3, n);
        print_limbs("in place", r4, n);
    }
    return ok;
}

/* ---- the eight-lane IFMA product (field/ifma_impl.h) ---- */

/* x / 2 mod p */
static void half_mod(uint64_t *x, const field_t *f) {
    size_t n = f->n;
    uint64_t top = 0;
    if (x[0] & 1) top = zp_limbs_add(x, x, f->p, n);
    for (size_t i = 0; i + 1 < n; i++) x[i] = (x[i] >> 1) | (x[i + 1] << 63);
    x[n - 1] = (x[n - 1] >> 1) | (top << 63);
}

/* Values whose 52-bit limbs are zero below some point (2^(52j)·r): they
 * make a Montgomery round's low limb 0 mod 2^52, where the product's
 * reduction carries nothing up. */
static void rand_limb_aligned(uint64_t *x, const field_t *f) {
    size_t bits = 64 * f->n;
    unsigned j = (unsigned)(zp_test_rand64() % (bits / 52));
    memset(x, 0, f->n * 8);
    uint64_t r = zp_test_rand64() >> (zp_test_rand64() % 64);
    size_t at = 52 * (size_t)j;
    x[at / 64] |= r << (at % 64);
    if (at % 64 != 0 && at / 64 + 1 < f->n) x[at / 64 + 1] |= r >> (64 - at % 64);
    while (!zp_limbs_lt_var(x, f->p, f->n)) x[f->n - 1] >>= 1;
}

/* A random operand for the lanes' products: an edge value, one with its
 * low 52-bit limbs zero, a carry-heavy pattern or a plain random one. */
static void rand_lane_operand(uint64_t *v, const field_t *f, uint64_t edges[][N_MAX], size_t ne) {
    unsigned kind = (unsigned)(zp_test_rand64() % 4);
    if (kind == 0) {
        memcpy(v, edges[zp_test_rand64() % ne], f->n * 8);
    } else if (kind == 1) {
        rand_limb_aligned(v, f);
    } else if (kind == 2) {
        rand_patterned(v, f);
    } else {
        rand_below(v, f);
    }
}

/* a·b·2^-(52·NL) mod p for lane products a·b, NL = 5 (4 words) or 8 (6):
 * the portable Montgomery product (a·b·2^-(64·n)) halved 52·NL - 64·n
 * times. 64 products per call: 8 chains of 8 lanes, one step each, value
 * i = 8·chain + lane times factor 64 + lane (a lane's factor is the same
 * in every chain). The first rounds pair every edge value with every
 * other: round r takes the 8 factors from edge 8·(r / g) on and the 8
 * chains' values from edge 8·(r mod g) on, g = ceil(edges / 8). */
static void test_ifma_field(const field_t *f) {
    size_t n = f->n, fails0 = (size_t)zp_test_failures;
    unsigned extra = n == 4 ? 52 * 5 - 256 : 52 * 8 - 384;
    zp_ifma_field fld;
    zp_ifma_field_init(&fld, f->p, n);
    uint64_t edges[EDGE_MAX][N_MAX];
    size_t ne = edge_values(edges, f), g = (ne + 7) / 8;
    size_t rounds = g * g + zp_test_iters(4000);
    for (size_t it = 0; it < rounds; it++) {
        uint64_t vals[72 * N_MAX], a[64][N_MAX];
        for (size_t i = 0; i < 72; i++) {
            uint64_t *v = vals + i * n;
            if (it < g * g) {
                size_t e = i < 64 ? 8 * (it % g) + i / 8 : 8 * (it / g) + (i - 64);
                memcpy(v, edges[e % ne], n * 8);
            } else {
                rand_lane_operand(v, f, edges, ne);
            }
            if (i < 64) memcpy(a[i], v, n * 8);
        }
        zp_ifma_mul_chains(&fld, n, vals, 1);
        for (size_t i = 0; i < 64; i++) {
            uint64_t want[N_MAX];
            zp_mont_mul_portable(want, a[i], vals + (64 + i % 8) * n, f->p, f->n0, n);
            for (unsigned k = 0; k < extra; k++) half_mod(want, f);
            if (!eq(vals + i * n, want, n)) {
                CHECK_MSG(0, "%s: IFMA product %zu of round %zu differs from the portable one", f->name, i, it);
                print_limbs("a", a[i], n);
                print_limbs("b", vals + (64 + i % 8) * n, n);
                print_limbs("ifma", vals + i * n, n);
                print_limbs("want", want, n);
                return;
            }
        }
    }
    if ((size_t)zp_test_failures == fails0) printf("%s: IFMA x8 product ok\n", f->name);
}

/* ---- the four-lane FP64 FMA product (field/fma.h), 4-word fields ---- */
#if defined(__x86_64__)

/* zp_fma_mul against the portable product on every pair of edge values
 * and on random ones of each kind, over lengths that leave partial groups
 * of eight, in place and not. */
static void test_fma_field(const field_t *f) {
    size_t n = f->n, fails0 = (size_t)zp_test_failures;
    enum { M = 67 }; /* 8 groups of eight and 3 over */
    zp_ifma_field fld;
    zp_ifma_field_init(&fld, f->p, n);
    uint64_t edges[EDGE_MAX][N_MAX];
    size_t ne = edge_values(edges, f);
    size_t rounds = ne + zp_test_iters(2000);
    for (size_t it = 0; it < rounds; it++) {
        uint64_t a[M][4], b[M][4], r[M][4];
        size_t len = it < ne ? ne : 1 + (size_t)(zp_test_rand64() % M);
        for (size_t i = 0; i < len; i++) {
            for (int side = 0; side < 2; side++) {
                uint64_t *v = side ? b[i] : a[i];
                if (it < ne) {
                    memcpy(v, edges[side ? it : i], 32); /* edge it times every edge */
                } else {
                    rand_lane_operand(v, f, edges, ne);
                }
            }
        }
        int in_place = (int)(it % 2);
        if (in_place) memcpy(r, a, sizeof r);
        /* every third round under a caller's other rounding mode: the
         * lanes round toward -inf while they run, and give it back */
        unsigned csr = _mm_getcsr(), mode = it % 3 == 2 ? 0x4000u : 0; /* MXCSR.RC: 10 up */
        _mm_setcsr((csr & ~0x6000u) | mode);
        zp_fma_mul(&fld, r[0], in_place ? r[0] : a[0], b[0], len);
        CHECK_MSG((_mm_getcsr() & 0x6000u) == mode, "%s: the caller's rounding mode kept", f->name);
        _mm_setcsr(csr);
        for (size_t i = 0; i < len; i++) {
            uint64_t want[N_MAX];
            zp_mont_mul_portable(want, a[i], b[i], f->p, f->n0, n);
            if (!eq(r[i], want, n)) {
                CHECK_MSG(0, "%s: FMA product %zu of %zu (round %zu) differs from the portable one", f->name, i, len,
                          it);
                print_limbs("a", a[i], n);
                print_limbs("b", b[i], n);
                print_limbs("fma", r[i], n);
                print_limbs("want", want, n);
                return;
            }
        }
    }
    if ((size_t)zp_test_failures == fails0) printf("%s: AVX2 FMA x4 product ok\n", f->name);
}
#endif

static void test_field(const field_t *f) {
    size_t n = f->n;
    size_t fails0 = (size_t)zp_test_failures;
    uint64_t edges[EDGE_MAX][N_MAX];
    size_t ne = edge_values(edges, f);

    /* edge x edge, edge x random */
    for (size_t i = 0; i < ne; i++) {
        CHECK_MSG(zp_limbs_lt_var(edges[i], f->p, n), "%s: edge %zu not below p", f->name, i);
        check_sqr(f, edges[i], "edge");
        for (size_t j = 0; j < ne; j++) check_pair(f, edges[i], edges[j], "edge x edge");
        for (int k = 0; k < 64; k++) {
            uint64_t x[N_MAX];
            rand_below(x, f);
            check_pair(f, edges[i], x, "edge x random");
            check_pair(f, x, edges[i], "random x edge");
        }
    }

    /* random x random; squares of random and of carry-heavy values */
    size_t iters = zp_test_iters(100000);
    for (size_t it = 0; it < iters; it++) {
        uint64_t a[N_MAX], b[N_MAX], c[N_MAX];
        rand_below(a, f);
        rand_below(b, f);
        rand_patterned(c, f);
        if (!check_pair(f, a, b, "random")) break;
        if (!check_sqr(f, a, "random") || !check_sqr(f, c, "patterned")) break;
    }

    /* aliasing: r == a, r == b, r == a == b through the dispatch */
    for (int it = 0; it < 1000; it++) {
        uint64_t a[N_MAX], b[N_MAX], want[N_MAX], x[N_MAX];
        rand_below(a, f);
        rand_below(b, f);
        zp_mont_mul_portable(want, a, b, f->p, f->n0, n);
        memcpy(x, a, n * 8);
        zp_mont_mul(x, x, b, f->p, f->n0, n);
        CHECK_MSG(eq(x, want, n), "%s: r == a aliasing", f->name);
        memcpy(x, b, n * 8);
        zp_mont_mul(x, a, x, f->p, f->n0, n);
        CHECK_MSG(eq(x, want, n), "%s: r == b aliasing", f->name);
        zp_mont_mul_portable(want, a, a, f->p, f->n0, n);
        memcpy(x, a, n * 8);
        zp_mont_mul(x, x, x, f->p, f->n0, n);
        CHECK_MSG(eq(x, want, n), "%s: r == a == b aliasing", f->name);
    }

    /* identities */
    size_t id_iters = zp_test_iters(2000);
    for (size_t it = 0; it < id_iters; it++) {
        uint64_t a[N_MAX], b[N_MAX], c[N_MAX], ab[N_MAX], ba[N_MAX], t1[N_MAX], t2[N_MAX];
        if (it < 3) {
            memcpy(a, edges[3 + it], n * 8); /* p - 1, p - 2, R mod p */
        } else {
            rand_below(a, f);
        }
        rand_below(b, f);
        rand_below(c, f);
        f->mul(ab, a, b);
        f->mul(ba, b, a);
        CHECK_MSG(eq(ab, ba, n), "%s: a*b != b*a", f->name);
        f->mul(t1, ab, c);
        f->mul(t2, b, c);
        f->mul(t2, a, t2);
        CHECK_MSG(eq(t1, t2, n), "%s: (a*b)*c != a*(b*c)", f->name);
        f->mul(t1, a, f->r1);
        CHECK_MSG(eq(t1, a, n), "%s: a*1 != a", f->name);
        if (it < 200 && !zp_limbs_is_zero(a, n)) {
            f->inv(t1, a);
            f->mul(t2, a, t1);
            CHECK_MSG(eq(t2, f->r1, n), "%s: a*a^-1 != 1", f->name);
        }
    }

    /* against the reference: to_mont(x) == x*R mod p and
     * from_mont(mul(to_mont(x), to_mont(y))) == x*y mod p */
    size_t ref_iters = zp_test_iters(2000);
    for (size_t it = 0; it < ref_iters + ne; it++) {
        uint64_t x[N_MAX], y[N_MAX], xm[N_MAX], ym[N_MAX], zm[N_MAX], z[N_MAX], want[N_MAX];
        uint64_t wide[2 * N_MAX] = {0};
        if (it < ne) {
            memcpy(x, edges[it], n * 8);
            memcpy(y, edges[(it * 7 + 3) % ne], n * 8);
        } else {
            rand_below(x, f);
            rand_below(y, f);
        }
        f->to_mont(xm, x);
        f->to_mont(ym, y);
        memcpy(wide + n, x, n * 8); /* x * 2^(64n) */
        memset(wide, 0, n * 8);
        ref_mod(want, wide, f->p, n);
        CHECK_MSG(eq(xm, want, n), "%s: to_mont(x) != x*R mod p", f->name);
        f->mul(zm, xm, ym);
        f->from_mont(z, zm);
        ref_mul_wide(wide, x, y, n);
        ref_mod(want, wide, f->p, n);
        if (!eq(z, want, n)) {
            CHECK_MSG(0, "%s: x*y mod p differs from the reference", f->name);
            print_limbs("x", x, n);
            print_limbs("y", y, n);
            print_limbs("got ", z, n);
            print_limbs("want", want, n);
            break;
        }
        f->sqr(zm, xm);
        f->from_mont(z, zm);
        ref_mul_wide(wide, x, x, n);
        ref_mod(want, wide, f->p, n);
        if (!eq(z, want, n)) {
            CHECK_MSG(0, "%s: x^2 mod p differs from the reference", f->name);
            print_limbs("x", x, n);
            print_limbs("got ", z, n);
            print_limbs("want", want, n);
            break;
        }
        f->from_mont(z, xm);
        CHECK_MSG(eq(z, x, n), "%s: from_mont(to_mont(x)) != x", f->name);
    }
    printf("%s (%zu limbs): %zu random products, %zu random squares, %zu edge values: %s\n", f->name, n, iters,
           2 * iters, ne, (size_t)zp_test_failures == fails0 ? "ok" : "FAILED");
}

/* inv_var(a) == inv(a) (Fermat, independent code) and a·inv_var(a) == 1;
 * 0 -> 0. Returns 0 on a mismatch, printed. */
static int check_inv(const field_t *f, const uint64_t *a, const char *what) {
    uint64_t want[N_MAX], got[N_MAX], prod[N_MAX];
    size_t n = f->n;
    f->inv(want, a);
    f->inv_var(got, a);
    int ok = eq(got, want, n) && zp_limbs_lt_var(got, f->p, n);
    if (zp_limbs_is_zero(a, n)) {
        ok = ok && zp_limbs_is_zero(got, n);
    } else {
        f->mul(prod, a, got);
        ok = ok && eq(prod, f->r1, n);
    }
    CHECK_MSG(ok, "%s: %s: inv_var differs from inv or a*a^-1 != 1", f->name, what);
    if (!ok) {
        print_limbs("a", a, n);
        print_limbs("inv    ", want, n);
        print_limbs("inv_var", got, n);
    }
    return ok;
}

/* inv_var against inv on the edge values, both as they are and as the
 * plain values of elements (to_mont of them: the gcd works on the plain
 * value), on small values and powers of two (long runs of zero bits in
 * the divsteps), p minus those, and random elements. */
static void test_inv(const field_t *f) {
    size_t n = f->n;
    size_t fails0 = (size_t)zp_test_failures;
    uint64_t edges[EDGE_MAX][N_MAX], x[N_MAX], a[N_MAX];
    size_t ne = edge_values(edges, f);
    for (size_t i = 0; i < ne; i++) {
        check_inv(f, edges[i], "edge");
        f->to_mont(a, edges[i]);
        check_inv(f, a, "edge, plain");
    }
    unsigned bits = 64 * (unsigned)(n - 1) + 64 - (unsigned)__builtin_clzll(f->p[n - 1]);
    for (unsigned k = 0; k < bits + 100; k++) {
        memset(x, 0, sizeof x);
        if (k < 100) x[0] = k;                                    /* 0 .. 99 */
        else x[(k - 100) / 64] = (uint64_t)1 << ((k - 100) % 64); /* 2^0 .. 2^(bits-1) */
        f->to_mont(a, x);
        check_inv(f, a, "small or power of two, plain");
        zp_mont_neg(a, a, f->p, n);
        check_inv(f, a, "minus small or power of two, plain");
    }
    size_t iters = zp_test_iters(5000);
    for (size_t it = 0; it < iters; it++) {
        rand_below(a, f);
        if (!check_inv(f, a, "random")) break;
        rand_patterned(a, f);
        if (!check_inv(f, a, "patterned")) break;
    }
    printf(
        "%s: inv_var against inv: %zu edge values (twice), %u small and powers of two (and minus), %zu random: "
        "%s\n",
        f->name, ne, bits + 100, 2 * iters, (size_t)zp_test_failures == fails0 ? "ok" : "FAILED");
}

/* batch_inv_var (Montgomery's trick, one inv_var for all) against inv of
 * each element, zeros included, on the base fields and on Fp2. */
#define BATCH_INV_TEST(T, RAND)                                                  \
    static void test_batch_inv_##T(void) {                                       \
        enum { COUNT = 67 };                                                     \
        T in[COUNT], out[COUNT], scratch[COUNT], want;                           \
        for (size_t i = 0; i < COUNT; i++) {                                     \
            if (i % 11 == 3) T##_set_zero(&in[i]);                               \
            else RAND(&in[i]);                                                   \
        }                                                                        \
        T##_batch_inv_var(out, in, COUNT, scratch);                              \
        int ok = 1;                                                              \
        for (size_t i = 0; i < COUNT; i++) {                                     \
            T##_inv(&want, &in[i]);                                              \
            ok &= T##_eq_var(&out[i], &want);                                    \
            T##_inv_var(&want, &in[i]);                                          \
            ok &= T##_eq_var(&out[i], &want);                                    \
        }                                                                        \
        memcpy(out, in, sizeof in); /* in place */                               \
        T##_batch_inv_var(out, out, COUNT, scratch);                             \
        for (size_t i = 0; i < COUNT; i++) {                                     \
            T##_inv(&want, &in[i]);                                              \
            ok &= T##_eq_var(&out[i], &want);                                    \
        }                                                                        \
        CHECK_MSG(ok, "%s: batch_inv_var differs from inv of each element", #T); \
    }

#define RAND_BASE(T)                                                                           \
    static void rand_##T(T *x) {                                                               \
        do {                                                                                   \
            for (size_t i = 0; i < sizeof x->v / 8; i++) x->v[i] = zp_test_rand64();           \
            x->v[sizeof x->v / 8 - 1] >>= __builtin_clzll(T##_modulus.v[sizeof x->v / 8 - 1]); \
        } while (!T##_is_canonical_var(x));                                                    \
    }
#define RAND_EXT(T, B)           \
    static void rand_##T(T *x) { \
        rand_##B(&x->c0);        \
        rand_##B(&x->c1);        \
    }
RAND_BASE(zp_bn254_fp)
RAND_BASE(zp_bn254_fr)
RAND_BASE(zp_bls12_fp)
RAND_BASE(zp_bls12_fr)
RAND_EXT(zp_bn254_fp2, zp_bn254_fp)
RAND_EXT(zp_bls12_fp2, zp_bls12_fp)
BATCH_INV_TEST(zp_bn254_fp, rand_zp_bn254_fp)
BATCH_INV_TEST(zp_bn254_fr, rand_zp_bn254_fr)
BATCH_INV_TEST(zp_bls12_fp, rand_zp_bls12_fp)
BATCH_INV_TEST(zp_bls12_fr, rand_zp_bls12_fr)
BATCH_INV_TEST(zp_bn254_fp2, rand_zp_bn254_fp2)
BATCH_INV_TEST(zp_bls12_fp2, rand_zp_bls12_fp2)

static void test_batch_inv(void) {
    size_t fails0 = (size_t)zp_test_failures;
    test_batch_inv_zp_bn254_fp();
    test_batch_inv_zp_bn254_fr();
    test_batch_inv_zp_bls12_fp();
    test_batch_inv_zp_bls12_fr();
    test_batch_inv_zp_bn254_fp2();
    test_batch_inv_zp_bls12_fp2();
    printf("batch_inv_var on Fp, Fr and Fp2 of both curves, zeros included: %s\n",
           (size_t)zp_test_failures == fails0 ? "ok" : "FAILED");
}

#ifdef ZP_VERIFY
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs fn in a child and returns 1 when the child died of SIGABRT (the
 * VERIFY check), with its message left on stderr. */
static int aborts(void (*fn)(void)) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        fn();
        _exit(0);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid) return 0;
    return WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT;
}

/* Unreduced values, one into each kind of operation: p itself (the
 * smallest value that is not reduced) and p + 1. */
static volatile int sink;
static void bad_add_bn254_fp(void) {
    zp_bn254_fp a = zp_bn254_fp_modulus, r;
    zp_bn254_fp_add(&r, &a, &zp_bn254_fp_one_mont);
    sink = (int)r.v[0];
}
static void bad_mul_bn254_fr(void) {
    zp_bn254_fr a = zp_bn254_fr_modulus, r;
    a.v[0] += 1;
    zp_bn254_fr_mul(&r, &zp_bn254_fr_one_mont, &a);
    sink = (int)r.v[0];
}
static void bad_sqr_bls12_fp(void) {
    zp_bls12_fp a = zp_bls12_fp_modulus;
    zp_bls12_fp_sqr(&a, &a);
    sink = (int)a.v[0];
}
static void bad_neg_bls12_fr(void) {
    zp_bls12_fr a = zp_bls12_fr_modulus, r;
    zp_bls12_fr_neg(&r, &a);
    sink = (int)r.v[0];
}
static void bad_inv_var_bls12_fp(void) {
    zp_bls12_fp a = zp_bls12_fp_modulus, r;
    zp_bls12_fp_inv_var(&r, &a);
    sink = (int)r.v[0];
}
static void bad_fp2_mul(void) {
    zp_bn254_fp2 a, r;
    zp_bn254_fp2_set_one(&a);
    a.c1 = zp_bn254_fp_modulus;
    zp_bn254_fp2_mul(&r, &a, &a);
    sink = (int)r.c0.v[0];
}
static void bad_fp2_conj(void) { /* conj copies c0 without arithmetic */
    zp_bls12_fp2 a, r;
    zp_bls12_fp2_set_zero(&a);
    a.c0 = zp_bls12_fp_modulus;
    zp_bls12_fp2_conj(&r, &a);
    sink = (int)r.c0.v[0];
}
static void good_ops(void) {
    zp_bn254_fp2 a, r;
    zp_bn254_fp2_set_one(&a);
    zp_bn254_fp2_mul(&r, &a, &a);
    zp_bn254_fp2_conj(&r, &r);
    sink = (int)r.c0.v[0];
}

static void test_verify(void) {
    printf("ZP_VERIFY: an unreduced input must abort (the messages below are expected)\n");
    CHECK_MSG(!aborts(good_ops), "VERIFY aborted on reduced values");
    CHECK_MSG(aborts(bad_add_bn254_fp), "VERIFY let zp_bn254_fp_add take p");
    CHECK_MSG(aborts(bad_mul_bn254_fr), "VERIFY let zp_bn254_fr_mul take p + 1");
    CHECK_MSG(aborts(bad_sqr_bls12_fp), "VERIFY let zp_bls12_fp_sqr take p");
    CHECK_MSG(aborts(bad_neg_bls12_fr), "VERIFY let zp_bls12_fr_neg take p");
    CHECK_MSG(aborts(bad_inv_var_bls12_fp), "VERIFY let zp_bls12_fp_inv_var take p");
    CHECK_MSG(aborts(bad_fp2_mul), "VERIFY let zp_bn254_fp2_mul take c1 = p");
    CHECK_MSG(aborts(bad_fp2_conj), "VERIFY let zp_bls12_fp2_conj take c0 = p");
}
#endif

int main(void) {
    zp_test_init("test_field");
    /* every path this build and CPU can take: the asm first when there is
     * one, then the portable code, which runs everywhere */
    int saved = zp_field_adx_use(-1);
    int have_asm = zp_field_adx_use(1);
    printf("x86-64 MULX/ADCX/ADOX asm: %s\n", have_asm          ? "built in (ZP_ADX) and the CPU has BMI2 and ADX"
                                              : ZP_MONT_MUL_ADX ? "built in (ZP_ADX), but the CPU lacks BMI2 or ADX"
                                                                : "not built (ZP_ADX off or not x86-64)");
    for (int use = have_asm; use >= 0; use--) {
        int on = zp_field_adx_use(use);
        CHECK_MSG(on == use, "zp_field_adx_use(%d) returned %d", use, on);
        printf("path: %s\n", on ? "asm (MULX/ADCX/ADOX) for 4 and 6 limbs"
                                : "portable (zp_mont_mul_portable; the squaring from 6 limbs)");
        for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
            test_field(&fields[i]);
            test_inv(&fields[i]);
        }
        test_batch_inv();
    }
    zp_field_adx_use(saved);
    if (zp_ifma_available()) {
        for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) test_ifma_field(&fields[i]);
    } else {
        printf("IFMA: not in this build or CPU; its product is not checked here\n");
    }
#if defined(__x86_64__)
    if (zp_fma_available()) {
        for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
            if (fields[i].n == 4) test_fma_field(&fields[i]);
    } else
#endif
    {
        printf("AVX2 FMA: not in this build or CPU; its product is not checked here\n");
    }
#ifdef ZP_VERIFY
    test_verify();
#endif
    /* one line for the suite's summary (scripts/test.sh) */
    printf("test_field: paths checked: portable%s%s%s\n", have_asm ? ", MULX/ADX asm" : "",
           zp_fma_available() ? ", AVX2 FMA" : "", zp_ifma_available() ? ", AVX-512 IFMA" : "");
    return zp_test_done();
}
