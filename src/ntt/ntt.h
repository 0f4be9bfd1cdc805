/* NTT over the scalar fields of both curves. The caller gives scratch of
 * ntt_scratch_size(log_n) bytes (the twiddle table). */
#ifndef ZP_NTT_NTT_H
#define ZP_NTT_NTT_H

#include "field/field.h"
#include "zkpipe.h"

#define ZP_NTT_DECLARE(F)                                                                  \
    int F##_root_of_unity(F *w, unsigned log_n);                                           \
    size_t F##_ntt_scratch_size(unsigned log_n);                                           \
    int F##_ntt(F *a, unsigned log_n, int inverse, void *scratch, const zp_parallel *par); \
    void F##_coset_shift(F *a, size_t n, const F *g, const zp_parallel *par);

ZP_NTT_DECLARE(zp_bn254_fr)
ZP_NTT_DECLARE(zp_bls12_fr)

#endif
