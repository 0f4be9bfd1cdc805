/* The key's bulk point sections read through a bounded window, for a
 * proof larger than its memory budget (docs/architecture.md, "Proofs
 * larger than the budget").
 *
 * A point source is the key file opened a second time and the byte
 * offsets of its five point sections. A streamed MSM reads its section
 * in chunks, in order, each point once per proof, into one of two halves
 * of a tracked window (its own tracker class): while the workers sum
 * chunk i from one half, a reader thread reads chunk i+1 into the other.
 * The window's pages are anonymous memory that every chunk reuses, so
 * what the proof holds resident is the window, whatever the key's size. */
#ifndef ZP_GROTH16_STREAM_H
#define ZP_GROTH16_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/parallel.h"
#include "groth16/keys.h"
#include "mem/track.h"
#include "zkpipe.h"

/* the five point sections, then the coefficient list (§4: its entries,
 * after the count) */
enum { ZP_SRC_A = 0, ZP_SRC_B1, ZP_SRC_B2, ZP_SRC_C, ZP_SRC_H, ZP_SRC_COEFS, ZP_SRC_SECTIONS };

typedef struct zp_groth16_source {
    int fd;                        /* the key file, read only; -1: closed */
    char *name;                    /* for messages (owned) */
    uint64_t off[ZP_SRC_SECTIONS]; /* byte offsets of A, B1, B2, C, H, the coefficients */
    uint32_t id[ZP_SRC_SECTIONS];  /* their section numbers, for messages */
    uint64_t size;                 /* the file's size when the key was opened */
    int64_t mtime_ns;              /* and its modification time */
} zp_groth16_source;

/* Opens path as the source of a key whose mapping had `size` bytes and
 * modification time mtime_ns (0: not known), sections at off[] (ids
 * id[]). ZP_ERR_IO when it cannot be opened; ZP_ERR_FORMAT when its size
 * or time changed since. */
zp_status zp_groth16_source_open(zp_groth16_source *src, const char *path, uint64_t size, int64_t mtime_ns,
                                 const uint64_t off[ZP_SRC_SECTIONS], const uint32_t id[ZP_SRC_SECTIONS],
                                 zp_error *err) ZP_WARN_UNUSED;
void zp_groth16_source_close(zp_groth16_source *src);
/* ZP_OK while the file has its size and modification time of open;
 * ZP_ERR_FORMAT naming the file otherwise. */
zp_status zp_groth16_source_check(const zp_groth16_source *src, zp_error *err) ZP_WARN_UNUSED;

/* One section's chunks, read ahead (see above). The window is the
 * caller's tracked buffer of two halves of `half` bytes each. */
typedef struct zp_stream_reader {
    const zp_groth16_source *src;
    unsigned section;
    size_t elem, n, chunk; /* bytes per point, points, points per chunk */
    size_t next;           /* the chunk take returns next */
    char *half[2];
    /* the read in flight: chunk `pending` into half[pending % 2] */
    int busy;
    size_t pending;
    void *thread; /* pthread_t, opaque here */
    zp_status read_st;
    char read_msg[200];
} zp_stream_reader;

/* Starts reading section's n points of elem bytes, chunk points at a
 * time, into the two halves of window (each >= chunk·elem bytes). */
zp_status zp_stream_begin(zp_stream_reader *r, const zp_groth16_source *src, unsigned section, size_t elem, size_t n,
                          size_t chunk, void *window, zp_error *err) ZP_WARN_UNUSED;
/* The next chunk: waits for its read, starts the one after, and gives
 * its points (*count of them, from point *first). ZP_ERR_FORMAT / _IO,
 * naming the file and section, when the read failed or came up short. */
zp_status zp_stream_take(zp_stream_reader *r, const void **points, size_t *first, size_t *count,
                         zp_error *err) ZP_WARN_UNUSED;
/* Waits for a read in flight; always call it. */
void zp_stream_end(zp_stream_reader *r);

/* What a streamed proof reads its points through: the source and the
 * window (two halves, each of chunk_g1 G1 or chunk_g2 G2 points). */
typedef struct zp_groth16_stream_cfg {
    const zp_groth16_source *src;
    void *window;
    size_t chunk_g1, chunk_g2, chunk_coefs;
    size_t window_bytes; /* both halves */
    int spill;           /* 1: a, b, c one at a time, the others in a scratch file */
} zp_groth16_stream_cfg;

/* A scratch file of three slots of `slot` bytes for the spilled path:
 * made unlinked (O_TMPFILE, or created and unlinked at once) in
 * $ZKPIPE_SCRATCH_DIR, else $TMPDIR, else /var/tmp, so it is gone on
 * every exit, a crash or SIGKILL included; its pages are the page
 * cache's, not the process's. */
typedef struct zp_stream_spill {
    int fd;
    size_t slot;
    char dir[256];
} zp_stream_spill;
zp_status zp_stream_spill_open(zp_stream_spill *sp, size_t slot, zp_error *err) ZP_WARN_UNUSED;
/* Writes (write 1) or reads bytes at off of slot from / into buf. */
zp_status zp_stream_spill_io(zp_stream_spill *sp, int write, unsigned slot, size_t off, void *buf, size_t bytes,
                             zp_error *err) ZP_WARN_UNUSED;
void zp_stream_spill_close(zp_stream_spill *sp);

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
    int spill;    /* 1: a, b, c one at a time (zp_stream_spill) */
    size_t chunk_g1, chunk_g2, chunk_coefs;
    size_t window_bytes;  /* both halves */
    size_t scratch_bytes; /* the streamed proof's scratch */
    size_t in_memory;     /* what the in-memory proof needs */
    size_t minimum;       /* the smallest budget a streamed proof fits */
    size_t peak;          /* what the chosen plan needs */
    size_t phase[3];      /* synthesis, transforms, MSMs (the chosen plan) */
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
