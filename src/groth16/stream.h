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
    size_t window_bytes;  /* both halves */
    size_t scratch_bytes; /* of the scratch the proof is given */
    int spill;            /* 1: a, b, c one at a time, the others in io's scratch file */
    int page;             /* 1 (with spill): the witness paged out after synthesis (see below) */
} zp_groth16_stream_cfg;

/* The slots of io's scratch file: a, b, c (spilled), and the witness
 * (paged). Each is as large as the larger of the domain's vectors and the
 * witness. */
enum { ZP_STREAM_SLOT_A = 0, ZP_STREAM_SLOT_C = 1, ZP_STREAM_SLOT_B = 2, ZP_STREAM_SLOT_W = 3 };

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
 * keeps). Spilled, one vector of N stands for a, b, c: the others wait in
 * the scratch file. Paged (a spilled proof of a key whose list is in
 * order, zp_groth16_matrices_size_paged), the witness (W = 32·V bytes for
 * V wires) is resident only while synthesis sums a and b a block of rows
 * at a time into scratch, then waits in the scratch file, its pages let
 * go, while one vector of N is transformed and H summed; the other MSMs
 * read its scalars from the file a chunk at a time; it is read back at
 * the end. The phases then hold W + scratch + window, or 32·N + scratch +
 * window: max(W, 32·N) in all, not their sum. Add ZP_STREAM_SLACK for
 * what no buffer counts: the process's
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
/* Chunks of 2^18 points and more sum nearly as fast per point as longer
 * ones (an MSM's window grows with the log of its size): past them, a
 * larger window is not worth the paged path's extra reads and writes, and
 * a plan takes it only for a window whose chunks are shorter. */
#define ZP_STREAM_GOOD_CHUNK_LOG 18

typedef struct zp_groth16_stream_plan {
    int streamed; /* 0: the proof fits in memory */
    int spill;    /* 1: a, b, c one at a time (the io's scratch file) */
    int page;     /* 1 (with spill): the witness paged out after synthesis */
    size_t chunk_g1, chunk_g2, chunk_coefs;
    size_t window_bytes;  /* both halves */
    size_t scratch_bytes; /* the streamed proof's scratch */
    size_t in_memory;     /* what the in-memory proof needs */
    size_t minimum;       /* the smallest budget a streamed proof fits */
} zp_groth16_stream_plan;

/* What a plan is made for: a proof on `threads` workers within budget
 * bytes of resident memory (0: no limit), fixed of them resident
 * throughout (the witness, what the caller keeps), witness of those the
 * witness's own (which a paged proof lets go for a while); keeps_matrices:
 * the key's matrices are among fixed (an in-memory proof would build
 * them otherwise); in_order: the key's coefficient list is in order
 * (zp_groth16_matrices_size_paged), which a paged proof needs. */
typedef struct zp_groth16_stream_need {
    size_t threads, budget, fixed, witness;
    int keeps_matrices, in_order;
} zp_groth16_stream_need;

/* The plan for one proof of pk as need says: in memory when it fits, else
 * the largest window that fits with a, b, c resident, else spilled, else
 * paged. ZP_ERR_NOMEM naming the minimum when the budget is below it;
 * ZP_ERR_ARG for an unknown curve. */
zp_status zp_groth16_stream_plan_make(zp_groth16_stream_plan *plan, const zp_groth16_pk *pk,
                                      const zp_groth16_stream_need *need, zp_error *err) ZP_WARN_UNUSED;

/* A proof with the key streamed: synthesis from the coefficient list
 * read through the window, the transforms in abc (zp_groth16_abc_size
 * bytes, a third of it spilled; its pages are given back as they are done
 * with), the MSMs in scratch (cfg->scratch_bytes, 64-byte aligned) over
 * cfg's window, then the assembly; r and s the blinding. Paged
 * (cfg->page), the witness's memory must be the caller's to write: its
 * pages are let go after synthesis and it is read back from the scratch
 * file before this returns (no other thread may read it meanwhile); abc
 * may then be the witness's own memory, when that has room for a vector
 * of the domain, so that one buffer serves both. ZP_ERR_FORMAT / _IO,
 * naming the key file, when a read fails or the file changed: no proof
 * then (an error reading the witness back leaves it unusable). */
zp_status zp_groth16_prove_stream(zp_groth16_proof *proof, const zp_groth16_pk *pk, uint64_t *witness, void *abc,
                                  void *scratch, const zp_groth16_stream_cfg *cfg, const zp_parallel *par,
                                  zp_error *err) ZP_WARN_UNUSED;

#endif
