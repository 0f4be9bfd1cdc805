/* A fixed set of worker threads that runs one parallel loop at a time (the
 * shape of FFTW's spawn_loop: the caller's own thread takes part). This is
 * what the engine, and the CLI for a single proof, hand the kernels as a
 * zp_parallel. */
#ifndef ZP_ENGINE_POOL_H
#define ZP_ENGINE_POOL_H

#include "base/parallel.h"
#include "zkpipe.h"

typedef struct zp_pool zp_pool;

/* The CPUs the process may run on (its affinity mask: taskset, a
 * container's cpuset): what threads = 0 means. */
size_t zp_pool_default_threads(void);
/* threads = 0 means one per CPU the process may run on. */
zp_status zp_pool_create(zp_pool **out, size_t threads, zp_error *err);
void zp_pool_destroy(zp_pool *pool);
/* A zp_parallel that runs loops on this pool. */
zp_parallel zp_pool_parallel(zp_pool *pool);
size_t zp_pool_threads(const zp_pool *pool);

#endif
