/* Large buffers straight from the kernel (mmap), so that freeing them
 * returns the memory to the OS at once, with transparent huge pages asked
 * for. The engine's tracked allocator (by class and owner) builds on this. */
#ifndef ZP_MEM_LARGE_H
#define ZP_MEM_LARGE_H

#include <stddef.h>

#include "zkpipe.h"

/* Zero-filled, page-aligned; NULL (and err set) when the kernel says no. */
void *zp_mem_map(size_t bytes, const char *what, zp_error *err);
void zp_mem_unmap(void *p, size_t bytes);

/* Peak resident set size of this process in bytes (VmHWM), 0 if unknown. */
size_t zp_mem_peak_rss(void);

#endif
