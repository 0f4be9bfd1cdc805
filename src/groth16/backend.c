/* The backend table (the one place a backend is looked up by name) and
 * the CPU backend: today's prover (prove.c) behind the descriptor, with
 * the IFMA choice and the thread count in its context. */
#include "groth16/backend.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "field/ifma.h"

/* A new backend is one more entry here (and its descriptor). */
static const zp_backend *const backends[] = {&zp_backend_cpu};
#define N_BACKENDS (sizeof backends / sizeof backends[0])

const char *zp_backend_names(void) { return "cpu"; }

zp_status zp_backend_find(const zp_backend **out, const char *name, zp_error *err) {
    *out = NULL;
    if (name == NULL || name[0] == '\0') name = "cpu";
    for (size_t i = 0; i < N_BACKENDS; i++) {
        if (strcmp(backends[i]->name, name) == 0) {
            *out = backends[i];
            return ZP_OK;
        }
    }
    return zp_error_set(err, ZP_ERR_ARG, "unknown prover backend \"%s\" (known: %s)", name, zp_backend_names());
}

zp_status zp_backend_ctx_create(zp_backend_ctx **out, const char *name, const zp_backend_config *config,
                                zp_error *err) {
    *out = NULL;
    const zp_backend *be;
    zp_status st = zp_backend_find(&be, name, err);
    if (st != ZP_OK) return st;
    zp_backend_config def = {1, ZP_SIMD_AUTO, NULL};
    return be->create(out, config ? config : &def, err);
}

/* ---- cpu ----------------------------------------------------------------- */

typedef struct {
    zp_backend_ctx base;
    size_t threads;
    zp_simd simd; /* OFF or IFMA: decided once, at creation */
} cpu_ctx;

static zp_status cpu_create(zp_backend_ctx **out, const zp_backend_config *config, zp_error *err) {
    cpu_ctx *c = calloc(1, sizeof *c);
    if (c == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory creating the cpu backend");
    c->base.type = &zp_backend_cpu;
    c->threads = config->threads ? config->threads : 1;
    /* AUTO reads the CPU and ZKPIPE_SIMD here, once; IFMA asked for on a
     * CPU without it is off, as the kernels would take it */
    int ifma = config->simd == ZP_SIMD_AUTO ? zp_ifma_default()
               : config->simd == ZP_SIMD_IFMA ? zp_ifma_available()
                                               : 0;
    c->simd = ifma ? ZP_SIMD_IFMA : ZP_SIMD_OFF;
    *out = &c->base;
    return ZP_OK;
}

static void cpu_destroy(zp_backend_ctx *ctx) { free(ctx); }

static void cpu_sizes(zp_backend_sizes *out, const zp_backend_ctx *ctx, const zp_groth16_pk *pk) {
    const cpu_ctx *c = (const cpu_ctx *)ctx;
    out->abc = (zp_backend_buffer){zp_groth16_abc_size(pk), ZP_MEM_HOST};
    out->scratch = (zp_backend_buffer){zp_groth16_msm_scratch_size(pk, c->threads), ZP_MEM_HOST};
}

/* The caller's pool with this context's vector path: the kernels read it
 * from there. */
static zp_parallel cpu_par(const cpu_ctx *c, const zp_parallel *par) {
    zp_parallel p = {NULL, NULL, 1, ZP_SIMD_AUTO};
    if (par != NULL) p = *par;
    p.simd = c->simd;
    return p;
}

static zp_status cpu_prove_start(const zp_backend_ctx *ctx, zp_groth16_pending *pend, const zp_groth16_pk *pk,
                                 const uint64_t *witness, void *abc, void *scratch, const zp_parallel *par,
                                 zp_error *err) {
    const cpu_ctx *c = (const cpu_ctx *)ctx;
    if (zp_parallel_threads(par) > c->threads) { /* the scratch has room for c->threads workers */
        return zp_error_set(err, ZP_ERR_INTERNAL, "cpu backend: a pool of %zu threads, scratch sized for %zu",
                            zp_parallel_threads(par), c->threads);
    }
    zp_parallel p = cpu_par(c, par);
    return zp_groth16_prove_start(pend, pk, witness, abc, scratch, &p, err);
}

static zp_status cpu_prove_finish(const zp_backend_ctx *ctx, zp_groth16_proof *proof, const zp_groth16_pending *pend,
                                  const zp_groth16_pk *pk, const uint64_t *witness, void *scratch,
                                  const zp_parallel *par, zp_error *err) {
    const cpu_ctx *c = (const cpu_ctx *)ctx;
    if (zp_parallel_threads(par) > c->threads) {
        return zp_error_set(err, ZP_ERR_INTERNAL, "cpu backend: a pool of %zu threads, scratch sized for %zu",
                            zp_parallel_threads(par), c->threads);
    }
    zp_parallel p = cpu_par(c, par);
    zp_groth16_prove_finish(proof, pend, pk, witness, scratch, &p);
    return ZP_OK;
}

int zp_backend_cpu_uses_ifma(const zp_backend_ctx *ctx) {
    return ctx->type == &zp_backend_cpu && ((const cpu_ctx *)ctx)->simd == ZP_SIMD_IFMA;
}

const zp_backend zp_backend_cpu = {
    .name = "cpu",
    .create = cpu_create,
    .destroy = cpu_destroy,
    .sizes = cpu_sizes,
    .prove_start = cpu_prove_start,
    .prove_finish = cpu_prove_finish,
};
