/* The NTT against a plain radix-2 reference kept here (the transform as it
 * was before the four-step rewrite) and, up to 2^8, the naive DFT: both
 * fields, every size from 2^0 to 2^20 (2^16 when ZP_TEST_ITERS < 100, the
 * sanitizer runs), through a two-thread pool and serially. Checks the
 * forward and inverse transforms, round trips, and ntt_to_coset against
 * inverse NTT, a[i] *= shift^i, forward NTT, and with shift^-1 back. */
#include <stdlib.h>
#include <string.h>

#include "base/parallel.h"
#include "engine/pool.h"
#include "ntt/ntt.h"
#include "ntt/ntt_simd.h"
#include "testutil.h"

/* whether the CPU has the eight-lane IFMA path (ntt_simd.h); when it does
 * every check below runs on both paths */
static int have_simd;

/* Random elements below the modulus m, in Montgomery form, with some 0, 1
 * and m - 1 mixed in. */
#define FILL_FN(F)                                                            \
    static void fill_##F(F *a, size_t n) {                                    \
        const uint64_t *m = F##_modulus.v;                                    \
        uint64_t top = m[3];                                                  \
        uint64_t mask = 1;                                                    \
        while (mask < top) mask = (mask << 1) | 1;                            \
        for (size_t i = 0; i < n; i++) {                                      \
            uint64_t r = zp_test_rand64() % 32;                               \
            memset(a[i].v, 0, sizeof a[i].v);                                 \
            if (r == 0) continue;                                             \
            if (r == 1) {                                                     \
                a[i].v[0] = 1;                                                \
            } else if (r == 2) {                                              \
                memcpy(a[i].v, m, sizeof a[i].v);                             \
                a[i].v[0] -= 1;                                               \
            } else {                                                          \
                do {                                                          \
                    for (int k = 0; k < 4; k++) a[i].v[k] = zp_test_rand64(); \
                    a[i].v[3] &= mask;                                        \
                } while (!zp_limbs_lt_var(a[i].v, m, 4));                     \
            }                                                                 \
            F##_to_mont(&a[i], &a[i]);                                        \
        }                                                                     \
    }

/* The reference: bit-reversal permutation, then log n radix-2
 * Cooley-Tukey stages with twiddles w^(j·n/2h) from a power table; the
 * inverse uses w^-1 and scales by 1/n. Serial. */
#define REF_FN(F)                                                                        \
    static void ref_ntt_##F(F *a, unsigned log_n, int inverse) {                         \
        size_t n = (size_t)1 << log_n;                                                   \
        F w, cur;                                                                        \
        F##_root_of_unity(&w, log_n);                                                    \
        if (inverse) F##_inv(&w, &w);                                                    \
        F *tw = malloc((n / 2 + 1) * sizeof *tw);                                        \
        F##_set_one(&cur);                                                               \
        for (size_t i = 0; i < n / 2 + 1; i++) {                                         \
            tw[i] = cur;                                                                 \
            F##_mul(&cur, &cur, &w);                                                     \
        }                                                                                \
        for (size_t i = 0; i < n; i++) {                                                 \
            size_t j = 0;                                                                \
            for (unsigned b = 0; b < log_n; b++) j |= ((i >> b) & 1) << (log_n - 1 - b); \
            if (i < j) {                                                                 \
                F t = a[i];                                                              \
                a[i] = a[j];                                                             \
                a[j] = t;                                                                \
            }                                                                            \
        }                                                                                \
        for (size_t half = 1; half < n; half *= 2) {                                     \
            size_t stride = n / (2 * half);                                              \
            for (size_t blk = 0; blk < n; blk += 2 * half) {                             \
                for (size_t j = 0; j < half; j++) {                                      \
                    F u = a[blk + j], v;                                                 \
                    F##_mul(&v, &a[blk + j + half], &tw[j * stride]);                    \
                    F##_add(&a[blk + j], &u, &v);                                        \
                    F##_sub(&a[blk + j + half], &u, &v);                                 \
                }                                                                        \
            }                                                                            \
        }                                                                                \
        if (inverse) {                                                                   \
            F s;                                                                         \
            F##_from_u64(&s, n);                                                         \
            F##_inv(&s, &s);                                                             \
            for (size_t i = 0; i < n; i++) F##_mul(&a[i], &a[i], &s);                    \
        }                                                                                \
        free(tw);                                                                        \
    }                                                                                    \
    /* a[i] *= g^i: the coset shift */                                                   \
    static void coset_shift_##F(F *a, size_t n, const F *g) {                            \
        F cur;                                                                           \
        F##_set_one(&cur);                                                               \
        for (size_t i = 0; i < n; i++) {                                                 \
            F##_mul(&a[i], &a[i], &cur);                                                 \
            F##_mul(&cur, &cur, g);                                                      \
        }                                                                                \
    }                                                                                    \
    /* a[i] <- sum_j a[j]·w^(ij), straight from the definition */                       \
    static void naive_dft_##F(F *out, const F *a, unsigned log_n) {                      \
        size_t n = (size_t)1 << log_n;                                                   \
        F w;                                                                             \
        F##_root_of_unity(&w, log_n);                                                    \
        for (size_t i = 0; i < n; i++) {                                                 \
            F acc, wi, wij, t;                                                           \
            uint64_t e[1] = {i};                                                         \
            F##_set_zero(&acc);                                                          \
            F##_pow_var(&wi, &w, e, 1);                                                  \
            F##_set_one(&wij);                                                           \
            for (size_t j = 0; j < n; j++) {                                             \
                F##_mul(&t, &a[j], &wij);                                                \
                F##_add(&acc, &acc, &t);                                                 \
                F##_mul(&wij, &wij, &wi);                                                \
            }                                                                            \
            out[i] = acc;                                                                \
        }                                                                                \
    }

/* One size, one field: the references are computed once and every
 * zp_parallel in pars is checked against them. Up to 2^16 (full) every
 * check runs against the radix-2 reference; above, to keep the run short,
 * the inverse is checked through the round trip (the forward one being
 * checked against the reference), ntt_to_coset against inverse NTT,
 * a[i] *= shift^i, forward NTT, and only through the pool. buf holds four
 * arrays of 2^log_n. */
#define NTT_TEST(F, NAME)                                                                                      \
    FILL_FN(F)                                                                                                 \
    REF_FN(F)                                                                                                  \
    static void test_ntt_##F(F *buf, unsigned log_n, const zp_parallel *const *pars, size_t npars) {           \
        size_t n = (size_t)1 << log_n, bytes = n * sizeof(F);                                                  \
        int full = log_n <= 16;                                                                                \
        F *a = buf, *fwd = a + n, *inv = fwd + n, *cos = inv + n;                                              \
        /* what the transforms run on, and their scratch, at exact sizes so                              \
         * that the sanitizer build sees any overrun */     \
        F *b = malloc(bytes), *c = malloc(bytes);                                                              \
        void *scratch = malloc(F##_ntt_scratch_size(log_n, 2));                                                \
        F shift, shift_inv;                                                                                    \
        F##_root_of_unity(&shift, log_n + 1);                                                                  \
        F##_inv(&shift_inv, &shift);                                                                           \
        fill_##F(a, n);                                                                                        \
        memcpy(fwd, a, bytes);                                                                                 \
        ref_ntt_##F(fwd, log_n, 0);                                                                            \
        if (full) {                                                                                            \
            memcpy(inv, a, bytes);                                                                             \
            ref_ntt_##F(inv, log_n, 1);                                                                        \
            memcpy(cos, inv, bytes);                                                                           \
            coset_shift_##F(cos, n, &shift);                                                                   \
            ref_ntt_##F(cos, log_n, 0);                                                                        \
        }                                                                                                      \
        if (log_n <= 8) {                                                                                      \
            naive_dft_##F(b, a, log_n);                                                                        \
            CHECK_MSG(memcmp(b, fwd, bytes) == 0, NAME " reference vs naive DFT, n=2^%u", log_n);              \
        }                                                                                                      \
        for (size_t run = 0; run < 2 * npars; run++) {                                                         \
            if (run >= npars && !have_simd) break;                                                             \
            /* the same context, asking for the scalar path, then the lanes */                                 \
            zp_parallel ctx = *pars[run % npars];                                                              \
            ctx.simd = run >= npars ? ZP_SIMD_IFMA : ZP_SIMD_OFF;                                              \
            const zp_parallel *par = &ctx;                                                                     \
            const char *how = run >= npars ? (par->run == NULL ? "serial, ifma" : "pool, ifma")                \
                                           : (par->run == NULL ? "serial" : "pool");                           \
            memcpy(b, a, bytes);                                                                               \
            CHECK(F##_ntt(b, log_n, 0, scratch, par));                                                         \
            CHECK_MSG(memcmp(b, fwd, bytes) == 0, NAME " forward vs reference, n=2^%u %s", log_n, how);        \
            CHECK(F##_ntt(b, log_n, 1, scratch, par));                                                         \
            CHECK_MSG(memcmp(b, a, bytes) == 0, NAME " round trip, n=2^%u %s", log_n, how);                    \
            /* the composition the prover used before, through the fast transforms */                          \
            memcpy(c, a, bytes);                                                                               \
            CHECK(F##_ntt(c, log_n, 1, scratch, par));                                                         \
            if (full) {                                                                                        \
                CHECK_MSG(memcmp(c, inv, bytes) == 0, NAME " inverse vs reference, n=2^%u %s", log_n, how);    \
            } else {                                                                                           \
                memcpy(inv, c, bytes); /* checked by the round trip */                                         \
            }                                                                                                  \
            coset_shift_##F(c, n, &shift);                                                                     \
            CHECK(F##_ntt(c, log_n, 0, scratch, par));                                                         \
            if (full) {                                                                                        \
                CHECK_MSG(memcmp(c, cos, bytes) == 0, NAME " ntt + coset_shift + ntt, n=2^%u %s", log_n, how); \
            } else {                                                                                           \
                memcpy(cos, c, bytes);                                                                         \
            }                                                                                                  \
            /* coset round trip: back from the coset by inverse NTT, shift by 1/g */                           \
            CHECK(F##_ntt(c, log_n, 1, scratch, par));                                                         \
            coset_shift_##F(c, n, &shift_inv);                                                                 \
            CHECK_MSG(memcmp(c, inv, bytes) == 0, NAME " coset round trip, n=2^%u %s", log_n, how);            \
            memcpy(b, a, bytes);                                                                               \
            CHECK(F##_ntt_to_coset(b, log_n, &shift, scratch, par));                                           \
            CHECK_MSG(memcmp(b, cos, bytes) == 0, NAME " to_coset vs reference, n=2^%u %s", log_n, how);       \
            if (!full) continue;                                                                               \
            CHECK(F##_ntt_to_coset(b, log_n, &shift_inv, scratch, par));                                       \
            CHECK_MSG(memcmp(b, a, bytes) == 0, NAME " to_coset round trip, n=2^%u %s", log_n, how);           \
        }                                                                                                      \
        free(b);                                                                                               \
        free(c);                                                                                               \
        free(scratch);                                                                                         \
    }                                                                                                          \
    /* An arbitrary shift (not a root of unity) and the sizes past the field's two-adicity. */                 \
    static void test_misc_##F(const zp_parallel *par) {                                                        \
        for (unsigned log_n = 0; log_n <= 13; log_n += 13) {                                                   \
            size_t n = (size_t)1 << log_n, bytes = n * sizeof(F);                                              \
            F *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes), g;                                   \
            void *scratch = malloc(F##_ntt_scratch_size(log_n, 2));                                            \
            fill_##F(a, n);                                                                                    \
            fill_##F(&g, 1);                                                                                   \
            memcpy(b, a, bytes);                                                                               \
            CHECK(F##_ntt_to_coset(b, log_n, &g, scratch, par));                                               \
            memcpy(c, a, bytes);                                                                               \
            ref_ntt_##F(c, log_n, 1);                                                                          \
            coset_shift_##F(c, n, &g);                                                                         \
            ref_ntt_##F(c, log_n, 0);                                                                          \
            CHECK_MSG(memcmp(b, c, bytes) == 0, NAME " to_coset with a random shift, n=2^%u", log_n);          \
            free(a);                                                                                           \
            free(b);                                                                                           \
            free(c);                                                                                           \
            free(scratch);                                                                                     \
        }                                                                                                      \
        F x, w;                                                                                                \
        unsigned big = 0;                                                                                      \
        while (F##_root_of_unity(&w, big + 1)) big++;                                                          \
        CHECK_MSG(big >= 28, NAME " two-adicity %u", big);                                                     \
        CHECK(F##_ntt_scratch_size(big + 1, 2) == 0);                                                          \
        F##_set_one(&x);                                                                                       \
        CHECK(!F##_ntt(&x, big + 1, 0, NULL, par));                                                            \
        CHECK(!F##_ntt_to_coset(&x, big + 1, &x, NULL, par));                                                  \
        CHECK(F##_is_one_var(&x));                                                                             \
        /* the roots keep their order: w^(2^k) = 1, w^(2^(k-1)) != 1 */                                        \
        for (unsigned k = 1; k <= big; k += 9) {                                                               \
            F##_root_of_unity(&w, k);                                                                          \
            for (unsigned i = 1; i < k; i++) F##_sqr(&w, &w);                                                  \
            CHECK_MSG(!F##_is_one_var(&w), NAME " root primitive 2^%u", k);                                    \
            F##_sqr(&w, &w);                                                                                   \
            CHECK_MSG(F##_is_one_var(&w), NAME " root order 2^%u", k);                                         \
        }                                                                                                      \
    }

/* Every stored value at its largest, p - 1 (and alternating with 0): the
 * lanes keep values in [0, 2p) between butterflies and leave out most
 * reductions (field/ifma_impl.h's lazy forms), so inputs at the top of
 * the range are where a wrong bound would overflow. The lanes' results
 * must equal the scalar path's (itself checked against the reference). */
#define EXTREMES_TEST(F, NAME)                                                                             \
    static void test_extremes_##F(const zp_parallel *pool) {                                               \
        for (unsigned log_n = 3; log_n <= 13; log_n += 5) {                                                \
            size_t n = (size_t)1 << log_n, bytes = n * sizeof(F);                                          \
            F *a = malloc(bytes), *lanes = malloc(bytes), *scalar = malloc(bytes), shift;                  \
            void *scratch = malloc(F##_ntt_scratch_size(log_n, 2));                                        \
            zp_parallel on = *pool, off = *pool;                                                           \
            on.simd = ZP_SIMD_IFMA;                                                                        \
            off.simd = ZP_SIMD_OFF;                                                                        \
            F##_root_of_unity(&shift, log_n + 1);                                                          \
            for (int pattern = 0; pattern < 2; pattern++) {                                                \
                for (size_t i = 0; i < n; i++) {                                                           \
                    memcpy(a[i].v, F##_modulus.v, sizeof a[i].v);                                          \
                    a[i].v[0] -= 1;                                                                        \
                    if (pattern == 1 && (i & 1)) memset(a[i].v, 0, sizeof a[i].v);                         \
                }                                                                                          \
                for (int what = 0; what < 3; what++) {                                                     \
                    memcpy(lanes, a, bytes);                                                               \
                    memcpy(scalar, a, bytes);                                                              \
                    if (what < 2) {                                                                        \
                        CHECK(F##_ntt(lanes, log_n, what, scratch, &on));                                  \
                        CHECK(F##_ntt(scalar, log_n, what, scratch, &off));                                \
                    } else {                                                                               \
                        CHECK(F##_ntt_to_coset(lanes, log_n, &shift, scratch, &on));                       \
                        CHECK(F##_ntt_to_coset(scalar, log_n, &shift, scratch, &off));                     \
                    }                                                                                      \
                    CHECK_MSG(memcmp(lanes, scalar, bytes) == 0, NAME " %s of %s, n=2^%u: lanes = scalar", \
                              what == 0   ? "forward"                                                      \
                              : what == 1 ? "inverse"                                                      \
                                          : "to_coset",                                                    \
                              pattern ? "p-1 and 0" : "all p-1", log_n);                                   \
                }                                                                                          \
            }                                                                                              \
            free(a);                                                                                       \
            free(lanes);                                                                                   \
            free(scalar);                                                                                  \
            free(scratch);                                                                                 \
        }                                                                                                  \
    }

NTT_TEST(zp_bn254_fr, "bn254")
NTT_TEST(zp_bls12_fr, "bls12-381")
EXTREMES_TEST(zp_bn254_fr, "bn254")
EXTREMES_TEST(zp_bls12_fr, "bls12-381")

int main(void) {
    zp_test_init("test_ntt");
    zp_pool *pool;
    zp_error err;
    if (zp_pool_create(&pool, 2, &err) != ZP_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    zp_parallel par = zp_pool_parallel(pool);
    zp_parallel serial = {NULL, NULL, 1, ZP_SIMD_AUTO};
    const zp_parallel *pars[] = {&par, &serial};
    /* ZP_TEST_ITERS below 100 (the sanitizer runs) stops at 2^16 */
    unsigned max_log = zp_test_iters(100) >= 100 ? 20 : 16;
    have_simd = zp_ifma_available();
    printf("test_ntt: AVX-512 IFMA path %s\n",
           have_simd ? "present: checked as well as the scalar one" : "absent on this CPU: scalar path only");
    /* four arrays of the largest size */
    _Static_assert(sizeof(zp_bn254_fr) == 32 && sizeof(zp_bls12_fr) == 32, "4-limb scalars");
    void *buf = malloc(4 * ((size_t)32 << max_log));
    for (unsigned log_n = 0; log_n <= max_log; log_n++) {
        /* serially only up to 2^16: past that the code is the same, the pool
         * only changes who runs which task */
        size_t npars = log_n <= 16 ? 2 : 1;
        test_ntt_zp_bn254_fr(buf, log_n, pars, npars);
        test_ntt_zp_bls12_fr(buf, log_n, pars, npars);
    }
    free(buf);
    for (int simd = 0; simd <= have_simd; simd++) {
        zp_parallel pool_par = par, ser = serial;
        pool_par.simd = ser.simd = simd ? ZP_SIMD_IFMA : ZP_SIMD_OFF;
        test_misc_zp_bn254_fr(&pool_par);
        test_misc_zp_bls12_fr(&ser);
    }
    test_misc_zp_bls12_fr(NULL); /* no context: serial, the CPU's default path */
    if (have_simd) {
        test_extremes_zp_bn254_fr(&par);
        test_extremes_zp_bls12_fr(&serial);
    }
    zp_pool_destroy(pool);
    return zp_test_done();
}
