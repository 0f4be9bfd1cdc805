/* The eight-lane AVX-512 IFMA arithmetic (field/ifma_impl.h): what code
 * built without those instructions needs to prepare for it and to decide
 * whether to use it.
 *
 * Why: the scalar MULX multiplication is bound by its carry chains at
 * ~40 cycles; the 52-bit multiply-adds of IFMA do eight products per
 * instruction, so an eight-lane Montgomery multiplication costs about a
 * fifth of eight scalar ones on the machines that have it (Zen 4/5, Ice
 * Lake and later). The NTT and the BN254 G1 MSM use it; their results are
 * the scalar path's, bit for bit.
 *
 * Availability is decided at run time (CPUID, through the compiler's
 * cpu-supports check), so an x86-64 build runs everywhere. Whether a
 * kernel uses it is the simd field of the zp_parallel it is handed (the
 * backend's context sets it); NULL or ZP_SIMD_AUTO means the default:
 * on where the CPU has it, unless the environment says ZKPIPE_SIMD=0.
 * There is no process-wide switch. */
#ifndef ZP_FIELD_IFMA_H
#define ZP_FIELD_IFMA_H

#include <stddef.h>
#include <stdint.h>

#include "base/parallel.h"

/* One value below p in five 52-bit limbs (the 4-word fields' constants). */
typedef struct {
    uint64_t l[5];
} zp_ifma_limbs;

/* The field: p and -p^-1 mod 2^52, in 52-bit limbs (5 for 4-word
 * moduli, 8 for 6-word ones; the rest zero). */
typedef struct {
    uint64_t p[8];
    uint64_t n0;
} zp_ifma_field;

/* Bytes of one element of eight lanes (64-byte aligned vectors of five
 * limbs), for 4-word fields. */
#define ZP_IFMA_ELEM_BYTES 320

/* Whether this build and this CPU have the IFMA path. */
int zp_ifma_available(void);
/* ZKPIPE_SIMD as the lanes' defaults read it: "0" OFF (no lanes), "avx2"
 * AVX2 (the FMA lanes of field/fma.h, even beside IFMA: for tests),
 * anything else or unset AUTO. */
zp_simd zp_simd_env(void);
/* The default: available, and zp_simd_env() is AUTO (read once). */
int zp_ifma_default(void);
/* Whether a kernel handed par takes the IFMA path. */
int zp_ifma_enabled(const zp_parallel *par);

/* The descriptor of the field with an nw-word modulus p (odd, below
 * 2^(64·nw - 1)); nw is 4 or 6. */
void zp_ifma_field_init(zp_ifma_field *f, const uint64_t *p, size_t nw);

/* For the benchmark: 8 chains of 8 lanes over vals (9·8 values of nw
 * words: the chains' start values, then the factor), each multiplied by
 * the factor iters times; the results are left in the chains' values. */
void zp_ifma_mul_chains(const zp_ifma_field *f, size_t nw, uint64_t *vals, size_t iters);

/* A 4-limb little-endian value to 52-bit limbs. */
static inline void zp_ifma_from_limbs(zp_ifma_limbs *t, const uint64_t v[4]) {
    const uint64_t m = ((uint64_t)1 << 52) - 1;
    t->l[0] = v[0] & m;
    t->l[1] = ((v[0] >> 52) | (v[1] << 12)) & m;
    t->l[2] = ((v[1] >> 40) | (v[2] << 24)) & m;
    t->l[3] = ((v[2] >> 28) | (v[3] << 36)) & m;
    t->l[4] = v[3] >> 16;
}

#endif
