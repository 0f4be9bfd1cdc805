/* Running a loop through a zp_parallel, or serially when there is none. */
#ifndef ZP_BASE_PARALLEL_H
#define ZP_BASE_PARALLEL_H

#include "zkpipe.h"

static inline size_t zp_parallel_threads(const zp_parallel *par) {
    return (par != NULL && par->threads > 0) ? par->threads : 1;
}

static inline void zp_parallel_for(const zp_parallel *par, size_t n, zp_task_fn fn, void *arg) {
    if (par == NULL || par->run == NULL || par->threads <= 1 || n <= 1) {
        for (size_t i = 0; i < n; i++) fn(arg, i, 0);
        return;
    }
    par->run(par->pool, n, fn, arg);
}

#endif
