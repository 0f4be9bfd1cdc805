/* A proof larger than its memory budget (docs/architecture.md, "Proofs
 * larger than the budget"): the key's coefficient list and bulk point
 * sections taken chunk by chunk, in order, each once per proof, through
 * a bounded window that the caller's io fills (zp_groth16_stream_io); a
 * streamed MSM sums each chunk and adds it to its running sum. What the
 * proof holds resident is the window, whatever the key's size. */
#ifndef ZP_GROTH16_STREAM_H
#define ZP_GROTH16_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "base/parallel.h"
#include "groth16/keys.h"
#include "mem/track.h"
#include "zkpipe.h"

/* the five point sections, then the coefficient list (§4: its entries,
 * after the count) */
enum { ZP_SRC_A = 0, ZP_SRC_B1, ZP_SRC_B2, ZP_SRC_C, ZP_SRC_H, ZP_SRC_COEFS, ZP_SRC_SECTIONS };

/* Where a streamed proof's key data comes from, and where it parks a,
 * b, c when they are spilled: the caller's (the engine reads the key file
 * with a thread of its own, src/engine/stream_io.h); this layer opens no
 * file and starts no thread. */
typedef struct zp_groth16_stream_io {
    void *ctx;
    const char *name; /* the key's, for messages */
    /* Starts section (ZP_SRC_*): n elements of elem bytes, handed over
     * chunk at a time, in order. */
    zp_status (*begin)(void *ctx, unsigned section, size_t elem, size_t n, size_t chunk, zp_error *err);
    /* The next chunk: *count elements from element *first, valid until
     * the next take or end. ZP_ERR_FORMAT / _IO, naming the file and
     * section, when it cannot be had. */
    zp_status (*take)(void *ctx, const void **data, size_t *first, size_t *count, zp_error *err);
    /* Ends the section (after an error too). */
    void (*end)(void *ctx);
    /* ZP_OK while the key's bytes are still those it was opened with. */
    zp_status (*check)(void *ctx, zp_error *err);
    /* A scratch file of three slots of `slot` bytes, gone on every exit;
     * spill_io writes (write 1) or reads bytes at off of a slot from /
     * into buf; spill_close after a failed open too. */
    zp_status (*spill_open)(void *ctx, size_t slot, zp_error *err);
    zp_status (*spill_io)(void *ctx, int write, unsigned slot, size_t off, void *buf, size_t bytes, zp_error *err);
    void (*spill_close)(void *ctx);
} zp_groth16_stream_io;

/* What a streamed proof reads its points through: the io and the window
 * the io reads into (two halves, each of chunk_g1 G1 or chunk_g2 G2
 * points, or chunk_coefs entries), which the spilled path also uses
 * between the sections, for parts of a, b, c. */
typedef struct zp_groth16_stream_cfg {
    const zp_groth16_stream_io *io;
    void *window;
    size_t chunk_g1, chunk_g2, chunk_coefs;
    size_t window_bytes; /* both halves */
    int spill;           /* 1: a, b, c one at a time, the others in io's scratch file */
} zp_groth16_stream_cfg;

/* ---- the budget's rule (docs/architecture.md, "Proofs larger than the
 * budget") ----
 *
 * A proof in memory holds, at its most, either the key's coefficient
 * list, the constraint matrices and a, b, c (3·32·N bytes for a domain
 * of N: synthesis), or a, b, c, the MSM scratch and every point of the
 * key (mapped and touched: the MSMs). A streamed proof reads the
 * coefficient list through the window too (no matrices) and goes
 * through three phases, each holding
 *   synthesis:  a, b, c + the window
 *   transforms: a, b, c + scratch + the window
 *   MSMs:       h (32·N) + scratch + the window
 * over what is resident throughout (`fixed`: the witness, what the caller
 * keeps), plus ZP_STREAM_SLACK for what no buffer counts: the process's
 * own pages (code, libraries, thread stacks, the allocator's small
 * blocks; zkpipe prove holds 3.5 to 5 MiB of them before a proof). The
 * rule depends on the key and the budget only, never on what happens to
 * be resident when it is asked, so the minimum is the same every time. */
#define ZP_STREAM_SLACK ((size_t)8 << 20)
/* The smallest chunk: 2^14 G1 points (its G2 chunk the same bytes), a
 * 2 MiB window on BN254: each chunk is an MSM of its own, and at 2^10
 * points a 2^20 proof took minutes instead of seconds for 2 MiB less. */
#define ZP_STREAM_MIN_CHUNK_LOG 14
/* a, b, c stay resident when a window of chunks of at least this many
 * points (2^k) fits beside them; below, they are spilled */
#define ZP_STREAM_SPILL_BELOW_LOG 14

typedef struct zp_groth16_stream_plan {
    int streamed; /* 0: the proof fits in memory */
    int spill;    /* 1: a, b, c one at a time (the io's scratch file) */
    size_t chunk_g1, chunk_g2, chunk_coefs;
    size_t window_bytes;  /* both halves */
    size_t scratch_bytes; /* the streamed proof's scratch */
    size_t in_memory;     /* what the in-memory proof needs */
    size_t minimum;       /* the smallest budget a streamed proof fits */
} zp_groth16_stream_plan;

/* The plan for one proof of pk on `threads` workers within budget bytes
 * of resident memory (0: no limit), fixed of them resident throughout
 * (the witness, what the caller keeps; keeps_matrices: the key's matrices
 * among them, which an in-memory proof would build otherwise). ZP_ERR_NOMEM naming the minimum when budget is below
 * it; ZP_ERR_ARG for an unknown curve. */
zp_status zp_groth16_stream_plan_make(zp_groth16_stream_plan *plan, const zp_groth16_pk *pk, size_t threads,
                                      size_t budget, size_t fixed, int keeps_matrices, zp_error *err) ZP_WARN_UNUSED;

/* A proof with the key streamed: synthesis from the coefficient list
 * read through the window, the transforms in abc (zp_groth16_abc_size
 * bytes; its pages are given back as they are done with), the MSMs in scratch
 * (plan.scratch_bytes, 64-byte aligned) over cfg's window, then the
 * assembly; r and s the blinding. ZP_ERR_FORMAT / _IO, naming the key
 * file, when a read fails or the file changed: no proof then. */
zp_status zp_groth16_prove_stream(zp_groth16_proof *proof, const zp_groth16_pk *pk, const uint64_t *witness, void *abc,
                                  void *scratch, const zp_groth16_stream_cfg *cfg, const zp_parallel *par,
                                  zp_error *err) ZP_WARN_UNUSED;

#endif
