/* How much memory this process can ever have: the machine's RAM, or less
 * where its cgroup (v2 memory.max, v1 memory.limit_in_bytes, on its own
 * cgroup or any above it) sets a limit. A memory budget above it is a
 * promise the machine cannot keep: the kernel's OOM killer, not the
 * budget, would end the run. */
#ifndef ZP_BASE_MEMORY_H
#define ZP_BASE_MEMORY_H

#include <stddef.h>
#include <stdint.h>

/* The limit in bytes, 0 when none can be read (no /proc). what (may be
 * NULL) gets where it comes from, for messages: "RAM", or "the cgroup's
 * memory.max" (NUL-terminated, truncated to cap). */
uint64_t zp_memory_limit(char *what, size_t cap);

#endif
