/* Randomness from the operating system (getrandom), for the prover's r and
 * s and the development setup's toxic waste. */
#ifndef ZP_BASE_RANDOM_H
#define ZP_BASE_RANDOM_H

#include <stddef.h>

#include "zkpipe.h"

zp_status zp_random_bytes(void *out, size_t len, zp_error *err);

#endif
