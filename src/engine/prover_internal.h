/* What tests may see of a prover (include/zkpipe.h, zp_prover) beyond
 * the API: its tracker's counts for one buffer class. */
#ifndef ZP_ENGINE_PROVER_INTERNAL_H
#define ZP_ENGINE_PROVER_INTERNAL_H

#include <stddef.h>

#include "zkpipe.h"

/* The prover's buffer classes (its own tracker's). */
enum {
    ZP_PROVER_BUF_MATRICES = 0,
    ZP_PROVER_BUF_ABC,
    ZP_PROVER_BUF_SCRATCH,
    ZP_PROVER_BUF_TABLES,
    ZP_PROVER_BUF_WINDOW
};

/* Bytes the prover holds in class cls now; *peak (when not NULL) its
 * most so far. */
size_t zp_prover_class_bytes(const zp_prover *pr, unsigned cls, size_t *peak);

#endif
