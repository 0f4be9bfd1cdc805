/* Stop polls in wasm2c's output of a circom witness calculator.
 *
 * A hostile (or merely broken) circuit can run for ever, and the code it
 * runs is native: nothing outside the thread can interrupt it safely
 * except the code itself. So before wasm2c's C is compiled, a poll is
 * written at the head of every wasm `loop` (every backward jump of
 * wasm2c's output goes to such a head) and after the prologue of every
 * function that calls or is long (a recursion without loops, f calling
 * f twice 500 deep, never ends either; a short leaf needs none): a load
 * of the calling thread's stop flag pointer
 * (thread-local, initial-exec: one %fs-relative load), a load of the
 * flag, and a branch that is never taken until the flag is set. Then
 * the glue's zp_stop_trap longjmps to the call's trap target with its
 * own code, as any trap does: the instance is dirty and is rebuilt
 * before it is used again (calc.c), and no lock is held there (the
 * generated code takes none). The glue (w2c_glue.c.in) defines the flag
 * pointer and the trap; calc.h says how a caller sets the flag.
 *
 * A module with a start function is refused here: that function runs
 * while the instance is made, before any caller could stop it, and
 * circom never writes one. */
#ifndef ZP_WITNESS_POLL_H
#define ZP_WITNESS_POLL_H

#include <stddef.h>

#include "base/error.h"
#include "zkpipe.h"

/* Bump when the polls change: compile.c hashes it into the cache key. */
#define ZP_POLL_VERSION "stop polls 2"

/* Writes the polls into the C text (len bytes, NUL-terminated): *out is a
 * new malloc'd text, *out_len its length, *polls how many loop heads got
 * one. name (the wasm, for messages) prefixes the errors: ZP_ERR_FORMAT
 * for a module with a start function, ZP_ERR_UNSUPPORTED for a text that
 * is not wasm2c 1.0.32's (a label or prologue it does not know: nothing
 * is compiled without its polls), ZP_ERR_NOMEM. On error *out is NULL. */
zp_status zp_witness_poll_patch(char **out, size_t *out_len, size_t *polls, const char *text, size_t len,
                                const char *name, zp_error *err) ZP_WARN_UNUSED;

#endif
