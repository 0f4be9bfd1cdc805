/* The benchmark's measure of the eight-lane multiplication (field/ifma.h).
 * Compiled with -mavx512f -mavx512ifma (CMakeLists.txt); called only after
 * zp_ifma_enabled has seen the CPU support them. Without ZP_IFMA, a stub. */
#include "field/ifma.h"

#include <stdlib.h>

#if defined(ZP_IFMA)
#include "field/ifma_fields.h"

/* CHAINS independent chains of eight lanes, each multiplied iters times
 * by the same factor: a throughput measure, as the scalar field rows run
 * eight independent chains */
#define CHAINS 8
#define MUL_CHAINS(NL)                                                                             \
    static void mul_chains_##NL(const zp_ifma_field *f, size_t nw, uint64_t *vals, size_t iters) { \
        zp_v##NL##_field c;                                                                        \
        zp_v##NL acc[CHAINS], y;                                                                   \
        const uint64_t *e[8];                                                                      \
        uint64_t *d[8];                                                                            \
        zp_v##NL##_field_load(&c, f);                                                              \
        for (size_t k = 0; k <= CHAINS; k++) {                                                     \
            for (size_t l = 0; l < 8; l++) e[l] = vals + (k * 8 + l) * nw;                         \
            zp_v##NL##_load8(k < CHAINS ? &acc[k] : &y, e);                                        \
        }                                                                                          \
        for (size_t i = 0; i < iters; i++)                                                         \
            for (size_t k = 0; k < CHAINS; k++) zp_v##NL##_mul(&acc[k], &acc[k], &y, &c);          \
        for (size_t k = 0; k < CHAINS; k++) {                                                      \
            for (size_t l = 0; l < 8; l++) d[l] = vals + (k * 8 + l) * nw;                         \
            zp_v##NL##_store8(d, &acc[k], 0xff);                                                   \
        }                                                                                          \
    }
MUL_CHAINS(5)
MUL_CHAINS(8)

void zp_ifma_mul_chains(const zp_ifma_field *f, size_t nw, uint64_t *vals, size_t iters) {
    if (nw == 4) {
        mul_chains_5(f, nw, vals, iters);
    } else {
        mul_chains_8(f, nw, vals, iters);
    }
}

#else

void zp_ifma_mul_chains(const zp_ifma_field *f, size_t nw, uint64_t *vals, size_t iters) {
    (void)f, (void)nw, (void)vals, (void)iters;
    abort();
}
#endif
