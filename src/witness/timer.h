/* A time limit for a witness calculation: a thread that sets a stop flag
 * (calc.h, zp_witness_instance_set_stop) once the time is up, for the
 * commands that run one calculation (`zkpipe wtns calculate`,
 * `fullprove`). The engine does not start one per partition: its sampler
 * thread checks the deadlines of the calculations it runs
 * (src/engine/witgen.c). */
#ifndef ZP_WITNESS_TIMER_H
#define ZP_WITNESS_TIMER_H

#include "zkpipe.h"

typedef struct zp_witness_timer zp_witness_timer;

/* Starts a timer that sets *flag to 1 (a relaxed atomic store) seconds
 * from now, unless it is ended first. flag is the caller's and must live
 * until zp_witness_timer_end. seconds <= 0: no timer (*out NULL, no
 * thread). ZP_ERR_NOMEM or ZP_ERR_INTERNAL (no thread) on failure. */
zp_status zp_witness_timer_start(zp_witness_timer **out, int *flag, double seconds, zp_error *err) ZP_WARN_UNUSED;

/* Ends the timer (its thread is joined, it is freed). Returns 1 if it had
 * set the flag, 0 if not or t is NULL. */
int zp_witness_timer_end(zp_witness_timer *t);

#endif
