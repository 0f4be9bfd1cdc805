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
 * zp_track_round matches the counters to the byte. */
#ifndef ZP_MEM_TRACK_H
#define ZP_MEM_TRACK_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "zkpipe.h"

#define ZP_TRACK_CLASSES 8
#define ZP_TRACK_STAGES 8

typedef struct zp_tracker {
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
    int file; /* 1: a read-only file mapping */
} zp_tracked;

void zp_tracker_init(zp_tracker *t);
/* Bytes as counted: rounded up to the page size (at least one page). */
size_t zp_track_round(size_t bytes);

/* Zero-filled anonymous memory (huge pages asked for when large). */
zp_status zp_track_alloc(zp_tracked *buf, zp_tracker *t, unsigned cls, unsigned stage, size_t bytes,
                         const char *what, zp_error *err) ZP_WARN_UNUSED;
/* A whole file mapped read-only, counted at its size; *size is the file's
 * exact length. */
zp_status zp_track_map_file(zp_tracked *buf, size_t *size, zp_tracker *t, unsigned cls, unsigned stage,
                            const char *path, zp_error *err) ZP_WARN_UNUSED;
/* Unmaps and uncounts; buf->p becomes NULL. A NULL buffer is ignored. */
void zp_track_free(zp_tracker *t, zp_tracked *buf);
/* Moves the buffer's bytes to another stage's counters. */
void zp_track_move(zp_tracker *t, zp_tracked *buf, unsigned stage);

/* The process's resident set size now, in bytes (0 if unknown). */
size_t zp_mem_rss(void);

#endif
