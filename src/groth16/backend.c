/* The backend table (the one place a backend is looked up by name) and
 * the CPU backend: today's prover (prove.c) behind the descriptor, with
 * the IFMA choice and the thread count in its context. */
#include "groth16/backend.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "field/fma.h"
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
    zp_backend_config def = {1, ZP_SIMD_AUTO, NULL, 0, 0};
    return be->create(out, config ? config : &def, err);
}

/* ---- cpu ----------------------------------------------------------------- */

typedef struct {
    zp_backend_ctx base;
    size_t threads;
    zp_simd simd; /* OFF or IFMA: decided once, at creation */
    zp_tracker *tracker;
    size_t keep_bytes;
    unsigned keep_class;
    /* the point tables of key tables_key (0: none prepared; p NULL: none
     * for it), and the pk proofs use them with (NULL: none) */
    zp_tracked tables;
    uint64_t tables_key;
    const zp_groth16_pk *tables_pk;
} cpu_ctx;

static zp_status cpu_create(zp_backend_ctx **out, const zp_backend_config *config, zp_error *err) {
    cpu_ctx *c = calloc(1, sizeof *c);
    if (c == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory creating the cpu backend");
    c->base.type = &zp_backend_cpu;
    c->threads = config->threads ? config->threads : 1;
    /* AUTO reads the CPU and ZKPIPE_SIMD here, once; IFMA asked for on a
     * CPU without it is off, as the kernels would take it */
    int ifma = config->simd == ZP_SIMD_AUTO   ? zp_ifma_default()
               : config->simd == ZP_SIMD_IFMA ? zp_ifma_available()
                                              : 0;
    int fma = config->simd == ZP_SIMD_AUTO ? zp_fma_default() : config->simd == ZP_SIMD_AVX2 ? zp_fma_available() : 0;
    c->simd = ifma ? ZP_SIMD_IFMA : fma ? ZP_SIMD_AVX2 : ZP_SIMD_OFF;
    c->tracker = config->tracker;
    c->keep_bytes = config->tracker != NULL ? config->keep_bytes : 0;
    c->keep_class = config->keep_class;
    *out = &c->base;
    return ZP_OK;
}

static void cpu_destroy(zp_backend_ctx *ctx) {
    cpu_ctx *c = (cpu_ctx *)ctx;
    if (c->tables.p != NULL) zp_track_free(c->tracker, &c->tables);
    free(ctx);
}

/* The caller's pool with this context's vector path: the kernels read it
 * from there. */
static zp_parallel cpu_par(const cpu_ctx *c, const zp_parallel *par) {
    zp_parallel p = {NULL, NULL, 1, ZP_SIMD_AUTO};
    if (par != NULL) p = *par;
    p.simd = c->simd;
    return p;
}

/* The point tables, for the key prepared last; none when a key needs more
 * than keep_bytes (the copies would cost more memory than the caller
 * gave), or when they cannot be allocated. */
static zp_status cpu_prepare(zp_backend_ctx *ctx, const zp_groth16_pk *pk, uint64_t key_id, const zp_parallel *par,
                             size_t *kept, zp_error *err) {
    (void)err;
    cpu_ctx *c = (cpu_ctx *)ctx;
    if (c->keep_bytes == 0 || pk == NULL) {
        c->tables_pk = NULL; /* what is kept stays for its key */
        return ZP_OK;
    }
    if (c->tables_key == key_id && key_id != 0) {
        c->tables_pk = pk;
        *kept = c->tables.p != NULL ? c->tables.bytes : 0;
        return ZP_OK;
    }
    if (c->tables.p != NULL) zp_track_free(c->tracker, &c->tables);
    c->tables_pk = pk;
    c->tables_key = key_id;
    size_t bytes = zp_groth16_tables_size(pk, c->threads);
    if (bytes == 0 || bytes > c->keep_bytes) return ZP_OK;
    zp_error ignored;
    if (zp_track_alloc(&c->tables, c->tracker, c->keep_class, 0, bytes, "the point tables", &ignored) != ZP_OK)
        return ZP_OK;
    zp_parallel p = cpu_par(c, par);
    if (zp_groth16_tables_build(c->tables.p, bytes, pk, c->threads, &p, &ignored) != ZP_OK)
        zp_track_free(c->tracker, &c->tables);
    *kept = c->tables.p != NULL ? c->tables.bytes : 0;
    return ZP_OK;
}

/* pk, or in *copy the key with its tables attached when prepare made
 * them for this pk. */
static const zp_groth16_pk *cpu_key(const cpu_ctx *c, const zp_groth16_pk *pk, zp_groth16_pk *copy) {
    if (c->tables.p == NULL || c->tables_pk != pk) return pk;
    *copy = *pk;
    copy->tables = c->tables.p;
    return copy;
}

static void cpu_sizes(zp_backend_sizes *out, const zp_backend_ctx *ctx, const zp_groth16_pk *pk) {
    const cpu_ctx *c = (const cpu_ctx *)ctx;
    zp_groth16_pk copy;
    pk = cpu_key(c, pk, &copy);
    out->abc = (zp_backend_buffer){zp_groth16_abc_size(pk), ZP_MEM_HOST};
    out->scratch = (zp_backend_buffer){zp_groth16_msm_scratch_size(pk, c->threads), ZP_MEM_HOST};
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
    zp_groth16_pk copy;
    return zp_groth16_prove_start(pend, cpu_key(c, pk, &copy), witness, abc, scratch, &p, err);
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
    zp_groth16_pk copy;
    zp_groth16_prove_finish(proof, pend, cpu_key(c, pk, &copy), witness, scratch, &p);
    return ZP_OK;
}

int zp_backend_cpu_uses_ifma(const zp_backend_ctx *ctx) {
    return ctx->type == &zp_backend_cpu && ((const cpu_ctx *)ctx)->simd == ZP_SIMD_IFMA;
}

const zp_backend zp_backend_cpu = {
    .name = "cpu",
    .create = cpu_create,
    .destroy = cpu_destroy,
    .prepare = cpu_prepare,
    .sizes = cpu_sizes,
    .prove_start = cpu_prove_start,
    .prove_finish = cpu_prove_finish,
};
