/* The tracked allocator: the narrow waist every large buffer goes through.
 *
 * A tracked buffer is mmap'd memory (anonymous, or a read-only file
 * mapping) tagged with a class and a stage; atomic counters give, for each
 * class × stage, the buffers in flight and their bytes, with peaks per
 * class, per stage and in total. The engine decides the classes and stages
 * (small integers below the limits here) and moves buffers between stages
 * as their owner advances; this layer has no policy.
 *
 * Sizes are counted rounded up to whole pages (zp_track_round), which is
 * what the kernel really gives, so a reservation computed with
 * zp_track_round matches the counters to the byte.
 *
 * Where the memory comes from is a hook (zp_allocator), one per kind of
 * memory: host (anonymous mmap by default), pinned (page-locked host
 * memory a device can copy from at full speed; plain mmap by default,
 * which is what the CPU backend needs), device (no default: a GPU
 * backend installs its own, e.g. over cudaMalloc). Every kind is counted
 * the same way and also per kind, so device buffers show up next to the
 * host ones. */
#ifndef ZP_MEM_TRACK_H
#define ZP_MEM_TRACK_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "zkpipe.h"

#define ZP_TRACK_CLASSES 8
#define ZP_TRACK_STAGES 8

/* What memory a buffer is: where it lives and who can touch it. */
typedef enum zp_mem_kind {
    ZP_MEM_HOST = 0, /* ordinary host memory */
    ZP_MEM_PINNED,   /* host memory locked for device transfers */
    ZP_MEM_DEVICE,   /* accelerator memory: not addressable by the CPU */
    ZP_MEM_KINDS
} zp_mem_kind;

const char *zp_mem_kind_name(zp_mem_kind kind); /* "host", "pinned", "device" */

/* An allocator hook (the shape of FFTW's and SQLite's: a small struct of
 * function pointers and its own argument). bytes is already page-rounded.
 * alloc returns memory the caller may use as that kind (host kinds
 * zero-filled), or NULL with err set; free gets back exactly what alloc
 * gave. Both may be called from any thread. */
typedef struct zp_allocator {
    const char *name;
    void *(*alloc)(void *arg, size_t bytes, zp_mem_kind kind, const char *what, zp_error *err);
    void (*free)(void *arg, void *p, size_t bytes, zp_mem_kind kind);
    void *arg;
} zp_allocator;

/* The default: anonymous mmap (huge pages asked for), for host and
 * pinned; device memory it refuses with ZP_ERR_UNSUPPORTED. */
extern const zp_allocator zp_allocator_mmap;

typedef struct zp_tracker {
    /* NULL: zp_allocator_mmap. Set with zp_tracker_set_allocator. */
    const zp_allocator *allocator[ZP_MEM_KINDS];
    _Atomic uint64_t kind_count[ZP_MEM_KINDS], kind_bytes[ZP_MEM_KINDS], kind_peak[ZP_MEM_KINDS];
    _Atomic uint64_t count[ZP_TRACK_CLASSES][ZP_TRACK_STAGES];
    _Atomic uint64_t bytes[ZP_TRACK_CLASSES][ZP_TRACK_STAGES];
    _Atomic uint64_t class_count[ZP_TRACK_CLASSES], class_bytes[ZP_TRACK_CLASSES], class_peak[ZP_TRACK_CLASSES];
    _Atomic uint64_t stage_count[ZP_TRACK_STAGES], stage_bytes[ZP_TRACK_STAGES], stage_peak[ZP_TRACK_STAGES];
    _Atomic uint64_t total, total_peak;
} zp_tracker;

/* One tracked buffer: the handle its owner keeps and passes back. */
typedef struct zp_tracked {
    void *p;      /* NULL when not allocated */
    size_t bytes; /* counted size: rounded to pages */
    unsigned cls, stage;
    int file;     /* 1: a read-only file mapping */
    int external; /* 1: memory mapped by someone else, only counted here (zp_track_account) */
    zp_mem_kind kind;
    const zp_allocator *allocator; /* the one that gave it, to give it back */
} zp_tracked;

void zp_tracker_init(zp_tracker *t);
/* Uses a for memory of that kind from now on (NULL: the default). Set it
 * before allocating: buffers already out go back to the allocator that
 * gave them. */
void zp_tracker_set_allocator(zp_tracker *t, zp_mem_kind kind, const zp_allocator *a);
/* Bytes as counted: rounded up to the page size (at least one page). */
size_t zp_track_round(size_t bytes);

/* Zero-filled host memory (huge pages asked for when large). */
zp_status zp_track_alloc(zp_tracked *buf, zp_tracker *t, unsigned cls, unsigned stage, size_t bytes, const char *what,
                         zp_error *err) ZP_WARN_UNUSED;
/* The same for memory of any kind, through that kind's allocator. */
zp_status zp_track_alloc_kind(zp_tracked *buf, zp_tracker *t, zp_mem_kind kind, unsigned cls, unsigned stage,
                              size_t bytes, const char *what, zp_error *err) ZP_WARN_UNUSED;
/* A whole file mapped read-only, counted at its size; *size is the file's
 * exact length. */
zp_status zp_track_map_file(zp_tracked *buf, size_t *size, zp_tracker *t, unsigned cls, unsigned stage,
                            const char *path, zp_error *err) ZP_WARN_UNUSED;
/* Frees (through its allocator) and uncounts; buf->p becomes NULL. A
 * NULL buffer is ignored. */
void zp_track_free(zp_tracker *t, zp_tracked *buf);
/* Counts memory this layer did not map: a wasm instance's linear memory,
 * which the witness glue compiled into each calculator maps and grows
 * itself (src/witness/w2c_glue.c.in), so it cannot come from an allocator
 * hook. buf becomes a handle like any other (p is the owner's pointer,
 * never dereferenced here; bytes rounded to pages); zp_track_free and
 * zp_track_move work on it, and free only uncounts: the owner unmaps. */
void zp_track_account(zp_tracked *buf, zp_tracker *t, void *p, unsigned cls, unsigned stage, size_t bytes);
/* The accounted memory's size changed (the wasm memory grew, or was made
 * anew): the counters follow, peaks included. */
void zp_track_account_resize(zp_tracker *t, zp_tracked *buf, size_t bytes);
/* Moves the buffer's bytes to another stage's counters. */
void zp_track_move(zp_tracker *t, zp_tracked *buf, unsigned stage);

/* The process's resident set size now, in bytes (0 if unknown). */
size_t zp_mem_rss(void);

/* The bytes of zkpipe's own code that are mapped but not resident yet:
 * the executable's (or libzkpipe.so's) file mappings, whose pages come in
 * as code first runs (the prover, the pairing), after any baseline taken
 * before. 0 if unknown. Reads /proc/self/smaps: not for hot paths. */
size_t zp_mem_image_unloaded(void);

#endif
