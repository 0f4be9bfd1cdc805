/* Large buffers straight from the kernel (mmap), so that freeing them
 * returns the memory to the OS at once, with transparent huge pages asked
 * for. The engine's tracked allocator (by class and owner) builds on this. */
#ifndef ZP_MEM_LARGE_H
#define ZP_MEM_LARGE_H

#include <stddef.h>

#include "zkpipe.h"

/* Transparent huge pages from this size up (large.c says why). */
#define ZP_MEM_HUGE_MIN ((size_t)16 << 20)

/* Zero-filled, page-aligned; NULL (and err set) when the kernel says no. */
void *zp_mem_map(size_t bytes, const char *what, zp_error *err);
void zp_mem_unmap(void *p, size_t bytes);

/* Maps now, in one call, the pages wholly inside [p, p + bytes) that are
 * not mapped yet, as the first writes to them would one page fault each
 * (MADV_POPULATE_WRITE, Linux 5.14; where the kernel lacks it nothing
 * happens). For memory about to be written through, since every page it
 * maps is resident: a page fault cost the 2-core VM 9-11 µs, and a whole
 * one-shot 2^11 proof took 420-450 of them. Nothing is done from
 * ZP_MEM_HUGE_MIN up: huge pages make those buffers' faults few, and a
 * serial walk would take the work from the threads that write them. */
void zp_mem_prefault(void *p, size_t bytes);

/* Gives the whole pages inside [p, p + bytes) back to the kernel
 * (MADV_DONTNEED: anonymous pages read as zeros afterwards), for a
 * buffer whose part is done with before the whole can go. */
void zp_mem_release(void *p, size_t bytes);
/* How much of a mapped file a walk over it (a copy out, a check, a scan)
 * touches before it lets those pages go: the most of the file such a
 * walk keeps resident (the .wtns reader, the .zkey coefficient list's
 * check and the scans of it, docs/architecture.md "Proofs larger than the
 * budget"). */
#define ZP_MEM_RELEASE_STEP ((size_t)4 << 20)

/* Peak resident set size of this process in bytes (VmHWM), 0 if unknown. */
size_t zp_mem_peak_rss(void);

#endif
