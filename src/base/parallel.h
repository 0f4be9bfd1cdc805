/* The execution context the kernels are handed: how to run a loop in
 * parallel, and which instruction-set paths they may take. Internal: no
 * public function takes one (the public API owns its pools).
 *
 * The math never starts threads: whoever owns them (the engine, the CLI)
 * hands the kernels one of these. A NULL zp_parallel means serial, with
 * the CPU's default features. */
#ifndef ZP_BASE_PARALLEL_H
#define ZP_BASE_PARALLEL_H

#include <stddef.h>

/* Runs for every i in [0, n): worker < threads says which of the
 * concurrently running workers runs the call, so a kernel can give each
 * worker its own scratch. */
typedef void (*zp_task_fn)(void *arg, size_t i, size_t worker);

/* Which vector path the kernels take. The results are the same bit for
 * bit; only the speed differs. AUTO (the zero value) is what the CPU has,
 * unless ZKPIPE_SIMD=0 is set (field/ifma.h, field/fma.h decide): IFMA
 * where it is, else AVX2 where the CPU has AVX2 and FMA; a backend sets OFF, IFMA or AVX2
 * from its own context, so two engines in one process can differ and a
 * test can check every path without touching global state. A path the
 * CPU lacks is taken as OFF. AVX2 (the FMA lanes) covers BN254's
 * streamed MSMs (G1, G2) only; every other kernel runs scalar under it. */
typedef enum zp_simd { ZP_SIMD_AUTO = 0, ZP_SIMD_OFF, ZP_SIMD_IFMA, ZP_SIMD_AVX2 } zp_simd;

typedef struct zp_parallel {
    void (*run)(void *pool, size_t n, zp_task_fn fn, void *arg);
    void *pool;
    size_t threads;
    zp_simd simd;
} zp_parallel;

static inline size_t zp_parallel_threads(const zp_parallel *par) {
    return (par != NULL && par->threads > 0) ? par->threads : 1;
}

static inline void zp_parallel_for(const zp_parallel *par, size_t n, zp_task_fn fn, void *arg) {
    if (par == NULL || par->run == NULL || par->threads <= 1 || n <= 1) {
        for (size_t i = 0; i < n; i++) fn(arg, i, 0);
        return;
    }
    par->run(par->pool, n, fn, arg);
}

#endif
