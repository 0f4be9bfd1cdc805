/* Released host buffers kept mapped for the next allocation of the same
 * size: an allocator hook (track.h) over zp_allocator_mmap for an owner
 * that allocates the same buffers again and again (the engine: every
 * partition of a key takes the same witness, a/b/c and MSM scratch).
 *
 * A fresh page costs a page fault at its first touch, and the munmap of
 * a buffer flushes every core's TLB; on the 2-core test VM a fresh page
 * cost 11 µs, and a 2^11 daemon job took 362 faults (4 ms against a
 * 4.8 ms proof); 55 with the engine's 16 MiB of this. A reused buffer
 * comes back zero-filled, as the hook promises: its resident pages are
 * cleared (mincore says which), its others are still the kernel's zero
 * pages.
 *
 * The cache holds at most `cap` bytes, in at most ZP_REUSE_SLOTS
 * buffers; a buffer that does not fit goes back to the kernel at once.
 * Those bytes are resident but in no tracked buffer: the owner counts
 * `cap` in its own memory (the engine's budget leaves room for it). */
#ifndef ZP_MEM_REUSE_H
#define ZP_MEM_REUSE_H

#include <pthread.h>
#include <stddef.h>

#include "mem/track.h"

#define ZP_REUSE_SLOTS 16

typedef struct zp_reuse {
    zp_allocator allocator; /* install this one: zp_tracker_set_allocator */
    pthread_mutex_t lock;
    size_t cap, bytes, n;
    struct {
        void *p;
        size_t bytes;
    } slot[ZP_REUSE_SLOTS];
} zp_reuse;

/* cap 0: keeps nothing (every call goes straight to zp_allocator_mmap). */
void zp_reuse_init(zp_reuse *r, size_t cap);
/* Unmaps what is kept; the hook must not be in use any more. */
void zp_reuse_destroy(zp_reuse *r);

#endif
