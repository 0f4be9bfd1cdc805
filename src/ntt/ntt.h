/* NTT over the scalar fields of both curves.
 *
 * All transforms are in place on n = 2^log_n elements in Montgomery form,
 * with ω = F_root_of_unity(log_n), the primitive n-th root derived as
 * ffjavascript derives it, so the points are snarkjs's. They return 0 (and
 * leave a alone) when log_n exceeds the field's two-adicity, else 1. The
 * caller gives scratch of the stated size (twiddle tables and a work
 * block per thread, O(sqrt n) elements each; any alignment of the field
 * type) and a zp_parallel of at most that many threads, or NULL to run
 * serially; the transforms neither allocate nor start threads. Where the
 * CPU has AVX-512 IFMA the row and column passes run eight lanes at a
 * time (ntt_simd.h), with the same results.
 *
 * F_root_of_unity(w, log_n): w = ω for that log_n.
 * F_ntt_scratch_size(log_n, threads): bytes of scratch for F_ntt and
 *   also for F_ntt_to_coset, run through a zp_parallel of up to threads.
 * F_ntt(a, log_n, inverse, scratch, par): natural order in and out.
 *   Forward: a[i] <- sum_j a[j]·ω^(ij) (values at ω^i of the polynomial
 *   with coefficients a). Inverse: the same with ω^-1, times 1/n.
 * F_ntt_to_coset(a, log_n, shift, scratch, par): from the values of a
 *   polynomial P of degree < n at ω^i to its values at shift·ω^i, natural
 *   order in and out: exactly F_ntt inverse, a[i] *= shift^i, F_ntt
 *   forward, but without either bit-reversal pass and with the scalings
 *   folded into the transforms' twiddles. With shift the primitive 2n-th
 *   root (F_root_of_unity(log_n + 1)) these are the odd points of the
 *   2n-domain, as the Groth16 prover needs.
 *
 * Below 2^ZP_NTT_PARALLEL_MIN_LOG elements a transform runs serially
 * whatever par: waking the workers would cost more than it gains. A caller
 * with several such transforms can run them as tasks instead, each with a
 * serial zp_parallel and its own scratch of F_ntt_scratch_size(log_n, 1). */
#ifndef ZP_NTT_NTT_H
#define ZP_NTT_NTT_H

#include "base/parallel.h"
#include "field/field.h"
#include "zkpipe.h"

#define ZP_NTT_PARALLEL_MIN_LOG 12

#define ZP_NTT_DECLARE(F)                                                                  \
    int F##_root_of_unity(F *w, unsigned log_n);                                           \
    size_t F##_ntt_scratch_size(unsigned log_n, size_t threads);                           \
    int F##_ntt(F *a, unsigned log_n, int inverse, void *scratch, const zp_parallel *par); \
    int F##_ntt_to_coset(F *a, unsigned log_n, const F *shift, void *scratch, const zp_parallel *par);

ZP_NTT_DECLARE(zp_bn254_fr)
ZP_NTT_DECLARE(zp_bls12_fr)

#endif
