/* The prover backend: the seam between whoever schedules proofs (the
 * engine's stages, the public API's prover) and the code that runs the
 * heavy part of a proof (the NTTs and MSMs).
 *
 * The shape is SQLite's VFS and redis's ConnectionType: a backend is one
 * descriptor of function pointers (zp_backend), registered by name in one
 * table (backend.c) and looked up in one place (zp_backend_find); an
 * unknown name is an error. Its callers hold a zp_backend_ctx * and never
 * ask which backend it is; the inline wrappers below dispatch.
 *
 * A context is created per engine (or per prover) from a zp_backend_config:
 * it holds what the backend decided once, e.g. the CPU backend's thread
 * count and IFMA choice; a GPU backend's device, streams and device memory.
 *
 * Memory, per proof, is the caller's, so it stays where the tracker sees
 * it: zp_backend_sizes says how many bytes of which kind (host, pinned,
 * device: mem/track.h) each buffer is, and the caller allocates them
 * through its tracker:
 *   abc      the a, b, c vectors synthesis writes and prove_start consumes
 *            (always host memory: synthesis runs on the CPU); freed as soon
 *            as prove_start returns;
 *   scratch  the backend's working memory from prove_start to prove_finish.
 * What a context keeps across proofs (a GPU's device buffers, a key's
 * bases uploaded once, the CPU's precomputed multiples of a small key's
 * points) it allocates itself through config.tracker, so it is counted as
 * well, and only where config.keep_bytes allows: prepare makes it for a
 * key, and prove_start and prove_finish use it for that pk until the
 * next prepare.
 *
 * Synthesis (a = A·w, b = B·w, c = a∘b over the key's precompiled
 * matrices) is not behind the seam: it is sparse, memory-bound CPU work
 * on matrices the engine shares between all partitions of a key and runs
 * on its own workers; a GPU backend takes its output, as cuzk does. See
 * docs/backend.md for what a CUDA backend implements. */
#ifndef ZP_GROTH16_BACKEND_H
#define ZP_GROTH16_BACKEND_H

#include "base/parallel.h"
#include "groth16/groth16.h"
#include "mem/track.h"
#include "zkpipe.h"

typedef struct zp_backend_config {
    /* Threads of the zp_parallel the backend will be handed (its scratch
     * is sized for that many workers); 0 is taken as 1. */
    size_t threads;
    /* The vector path; AUTO: the backend's default (for the CPU: what the
     * CPU has, unless ZKPIPE_SIMD=0). */
    zp_simd simd;
    /* For the memory the context keeps; may be NULL when it keeps none. */
    zp_tracker *tracker;
    /* The most it may keep for a key (prepare; 0: nothing), counted in
     * tracker as class keep_class. */
    size_t keep_bytes;
    unsigned keep_class;
} zp_backend_config;

typedef struct zp_backend_buffer {
    size_t bytes;
    zp_mem_kind kind;
} zp_backend_buffer;

typedef struct zp_backend_sizes {
    zp_backend_buffer abc;     /* host */
    zp_backend_buffer scratch; /* host for the CPU; pinned or device for a GPU */
} zp_backend_sizes;

typedef struct zp_backend zp_backend;

/* Every context starts with this header (the implementation's own struct
 * embeds it first), as a redis connection starts with its type. */
typedef struct zp_backend_ctx {
    const zp_backend *type;
} zp_backend_ctx;

struct zp_backend {
    const char *name; /* "cpu" */
    zp_status (*create)(zp_backend_ctx **out, const zp_backend_config *config, zp_error *err);
    void (*destroy)(zp_backend_ctx *ctx);
    /* What the context keeps for a key across proofs, made once per
     * key_id (a number no other key shares; the caller's key serial) and
     * used for pk from then on, until the next prepare: call it before
     * every proof that should use it, with the pk that proof passes.
     * Nothing is kept past keep_bytes, and a key that needs more, or
     * memory that runs out, proves without (ZP_OK). *kept: the bytes it
     * keeps for this key (0: none; zp_backend_prepare zeroes it first).
     * pk NULL: proofs until the next prepare use nothing kept (it stays
     * for its key). NULL op: the backend keeps nothing. The CPU backend
     * keeps point tables (groth16.h, zp_groth16_tables), which change
     * its sizes. */
    zp_status (*prepare)(zp_backend_ctx *ctx, const zp_groth16_pk *pk, uint64_t key_id, const zp_parallel *par,
                         size_t *kept, zp_error *err);
    /* The per-proof buffers for this key (exact; the engine reserves
     * exactly this much). */
    void (*sizes)(zp_backend_sizes *out, const zp_backend_ctx *ctx, const zp_groth16_pk *pk);
    /* The NTTs and the G1 MSMs from the a, b, c in abc (overwritten),
     * with r and s drawn from the OS; leaves what prove_finish needs in
     * pend. par is the caller's pool; the backend may ignore it. */
    zp_status (*prove_start)(const zp_backend_ctx *ctx, zp_groth16_pending *pend, const zp_groth16_pk *pk,
                             const uint64_t *witness, void *abc, void *scratch, const zp_parallel *par, zp_error *err);
    /* The G2 MSM and the assembly, in the scratch prove_start had. */
    zp_status (*prove_finish)(const zp_backend_ctx *ctx, zp_groth16_proof *proof, const zp_groth16_pending *pend,
                              const zp_groth16_pk *pk, const uint64_t *witness, void *scratch, const zp_parallel *par,
                              zp_error *err);
};

/* Today's CPU code, scalar and IFMA paths. */
extern const zp_backend zp_backend_cpu;

/* The backend of that name; NULL means the default ("cpu"). An unknown
 * name is ZP_ERR_ARG, the message listing the known ones. */
zp_status zp_backend_find(const zp_backend **out, const char *name, zp_error *err) ZP_WARN_UNUSED;
/* The registered backends' names, comma-separated ("cpu"). */
const char *zp_backend_names(void);

/* Finds the backend by name and creates a context of it. */
zp_status zp_backend_ctx_create(zp_backend_ctx **out, const char *name, const zp_backend_config *config,
                                zp_error *err) ZP_WARN_UNUSED;

static inline void zp_backend_ctx_destroy(zp_backend_ctx *ctx) {
    if (ctx != NULL) ctx->type->destroy(ctx);
}
static inline const char *zp_backend_ctx_name(const zp_backend_ctx *ctx) { return ctx->type->name; }
static inline void zp_backend_sizes_get(zp_backend_sizes *out, const zp_backend_ctx *ctx, const zp_groth16_pk *pk) {
    ctx->type->sizes(out, ctx, pk);
}
static inline zp_status zp_backend_prepare(zp_backend_ctx *ctx, const zp_groth16_pk *pk, uint64_t key_id,
                                           const zp_parallel *par, size_t *kept, zp_error *err) {
    *kept = 0;
    return ctx->type->prepare != NULL ? ctx->type->prepare(ctx, pk, key_id, par, kept, err) : ZP_OK;
}
static inline zp_status zp_backend_prove_start(const zp_backend_ctx *ctx, zp_groth16_pending *pend,
                                               const zp_groth16_pk *pk, const uint64_t *witness, void *abc,
                                               void *scratch, const zp_parallel *par, zp_error *err) {
    return ctx->type->prove_start(ctx, pend, pk, witness, abc, scratch, par, err);
}
static inline zp_status zp_backend_prove_finish(const zp_backend_ctx *ctx, zp_groth16_proof *proof,
                                                const zp_groth16_pending *pend, const zp_groth16_pk *pk,
                                                const uint64_t *witness, void *scratch, const zp_parallel *par,
                                                zp_error *err) {
    return ctx->type->prove_finish(ctx, proof, pend, pk, witness, scratch, par, err);
}

/* The CPU context's choice, for tests and reports: 1 when its kernels
 * take the IFMA path. */
int zp_backend_cpu_uses_ifma(const zp_backend_ctx *ctx);

#endif
