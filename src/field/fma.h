/* Field products four lanes at a time with AVX2 and FMA: the multiplier
 * of the CPUs without AVX-512 IFMA (Zen 2 and 3, Haswell to Alder Lake).
 *
 * Why: on those CPUs the scalar MULX product is bound by its carry chains
 * (about 19 ns for a 4-word product on a Zen 3 VM at ~3.2 GHz), and
 * VPMULUDQ's 32-bit products are no better: nine 29-bit limbs need 171 of
 * them per four products, 22.5 ns an element there. The FP64 unit's
 * fused multiply-add computes a 52 x 52-bit product exactly as two
 * doubles, after the method of Emmart, Zheng and Weems (ARITH 2018):
 * with the rounding toward -inf, h = fma(a, b, 2^104) holds H = floor(a·b
 * / 2^52) in its mantissa, l = fma(a, b, 2^104 + 2^52 - h) holds the low
 * 52 bits, and the bit patterns of h and l are H and a·b - H·2^52 plus
 * constants (the patterns of consecutive doubles are consecutive
 * integers), summed in 64-bit integer lanes (fma_impl.h). A version exact
 * under the default rounding to nearest needs one subtraction more a
 * product (L = a·b - H·2^52 signed) and measured 25% slower (mul_r 17.1
 * against 13.4 ns), which lost the MSM's gain. On that VM a Montgomery
 * product of five 52-bit limbs (R' = 2^260), two of four lanes
 * interleaved, takes 11 to 13 ns an element with its operands kept in
 * limbs; zp_fma_mul below, which
 * converts from and to words on every call, 17 to 23 ns: no faster than
 * MULX. The lanes pay only where the data stay in limbs across a whole
 * batch: BN254's streamed batch-affine additions, G1 and G2
 * (msm/msm_fma.c).
 *
 * The limbs and the field's constants are the IFMA lanes' (zp_ifma_field,
 * field/ifma.h), and so is the trick that keeps data in the scalar code's
 * Montgomery form (R = 2^256): a·16 enters the lanes, so the product
 * comes out as a·b·R^-1. Only the 4-word fields (BN254 Fp, Fr; BLS12-381
 * Fr). Availability is asked at run time: an x86-64 build runs anywhere. */
#ifndef ZP_FIELD_FMA_H
#define ZP_FIELD_FMA_H

#include <stddef.h>
#include <stdint.h>

#include "field/ifma.h"

/* Whether this build and this CPU have AVX2 and FMA, with the OS saving
 * the YMM state (asked once, by cpu.c), and the rounding toward -inf
 * takes effect (asked once here: valgrind rounds to nearest whatever
 * MXCSR says, so under it this is 0 and the kernels take the scalar
 * path). */
int zp_fma_available(void);
/* The default (read once): available, and zp_simd_env() is AVX2, or AUTO
 * on a CPU without IFMA (whose lanes cover more and run faster). On the 2-core Zen 3
 * VM, two threads, 15 runs alternated, BN254 G1's streamed MSM took 4 to
 * 10% less time on them (2^16: 129 against 143 ms; 2^20: 1.50 against
 * 1.62 s), G2's 7% (2^16: 355 against 381 ms; 2^18: 1.34 against
 * 1.44 s); the sorted path's small MSMs do not take them (G1 at 2^12: 19
 * against 15 ms). */
int zp_fma_default(void);
/* Whether a kernel handed par takes the FMA lanes (ZP_SIMD_AVX2, or AUTO
 * and the default). */
int zp_fma_enabled(const zp_parallel *par);

/* r[i] = a[i]·b[i]·2^-256 mod p for i < n: zp_mont_mul's product, bit for
 * bit (canonical, below p).
 * In:  f: the field, from zp_ifma_field_init(f, p, 4), p below 2^255.
 *      a, b: n values of 4 little-endian words each, below p.
 *      r: room for n values; may be a or b.
 * Needs zp_fma_available() (abort()s where the build lacks the path).
 * The SSE rounding is toward -inf while it runs; the caller's mode is
 * back on return (a signal handler doing floating point on this thread
 * meanwhile would see the other mode). */
void zp_fma_mul(const zp_ifma_field *f, uint64_t *r, const uint64_t *a, const uint64_t *b, size_t n);

#endif
