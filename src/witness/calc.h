/* Running a compiled circom witness calculator (compile.h made the shared
 * object): circom 2's wasm ABI exactly as witness_calculator.js (in
 * circom_runtime) uses it.
 *
 * A module is the loaded object: shared, read-only, any number of threads
 * may hold it. An instance is one copy of the calculator's state, its own
 * linear memory included: one per thread, never shared (the JS calculator
 * keeps one memory, and concurrent proofs that shared it have come back
 * with each other's witnesses elsewhere). An instance is reused for many
 * witnesses; after a failed one it is rebuilt before the next.
 *
 * The linear memory is the glue's (w2c_glue.c.in): the module's maximum
 * (at most 4 GiB) is reserved as address space with mmap (PROT_NONE,
 * MAP_NORESERVE), and pages become readable and writable as the module
 * grows it, up to the limit the host sets; it is not counted by the
 * tracked allocator, but its size is reported
 * (zp_witness_instance_memory_bytes) for the engine to account.
 *
 * The module is the circuit author's code, and nothing it returns is
 * trusted: the field's size is read once (at most 512 bits) and every
 * later answer must equal it, no copy is sized by an answer, an import
 * may not be re-entered from the module, and a module that breaks these
 * fails the call with ZP_ERR_FORMAT: "X: the witness calculator broke
 * circom's ABI during getWitness: getFieldNumLen32 answered 64 after 8". */
#ifndef ZP_WITNESS_CALC_H
#define ZP_WITNESS_CALC_H

#include <stddef.h>
#include <stdint.h>

#include "witness/input.h"
#include "zkpipe.h"

typedef struct zp_witness_module zp_witness_module;
typedef struct zp_witness_instance zp_witness_instance;

#define ZP_WITNESS_MAX_N8 64

/* Loads so_path (a zp_witness_compile output); name is the wasm's name for
 * messages. Checks that it is a circom 2 calculator and reads its prime,
 * field size and witness size through a first instance. */
zp_status zp_witness_module_open(zp_witness_module **out, const char *so_path, const char *name,
                                 zp_error *err) ZP_WARN_UNUSED;
/* The same, with a stop flag (zp_witness_instance_set_stop) for the first
 * instance's calls: a module whose getVersion never returns is stopped
 * there too. stop may be NULL (never). */
zp_status zp_witness_module_open_stoppable(zp_witness_module **out, const char *so_path, const char *name,
                                           const int *stop, zp_error *err) ZP_WARN_UNUSED;
void zp_witness_module_close(zp_witness_module *m);

/* zp_witness_module_open, and hook(hook_arg, state) called with the
 * glue's state of every instance the module makes (the probe that open
 * uses included) as soon as it is made, before any call into it: for
 * tests/test_witness_hostile.c and fuzz/fuzz_glue.c, which write a script
 * into a puppet module's linear memory there. hook may be NULL. */
typedef void zp_witness_instance_hook(void *hook_arg, void *state);
zp_status zp_witness_module_open_hooked(zp_witness_module **out, const char *so_path, const char *name,
                                        zp_witness_instance_hook *hook, void *hook_arg, zp_error *err) ZP_WARN_UNUSED;

const char *zp_witness_module_name(const zp_witness_module *m);
/* The prime p, n8 bytes little-endian (n8 = 4 · getFieldNumLen32). */
const uint8_t *zp_witness_module_prime(const zp_witness_module *m);
size_t zp_witness_module_n8(const zp_witness_module *m);
/* The curve whose scalar field p is; ZP_CURVE_NONE for another prime. */
zp_curve zp_witness_module_curve(const zp_witness_module *m);
/* Values in a witness (getWitnessSize). */
size_t zp_witness_module_size(const zp_witness_module *m);
/* The major version of the circom that made the wasm (getVersion): 2. */
unsigned zp_witness_module_version(const zp_witness_module *m);

zp_status zp_witness_instance_create(zp_witness_instance **out, zp_witness_module *m, zp_error *err) ZP_WARN_UNUSED;
void zp_witness_instance_destroy(zp_witness_instance *inst);

/* Computes the witness of the inputs into out: zp_witness_module_size(m)
 * values of n8 bytes each, little-endian, plain (as .wtns holds them).
 * sanity_check is init's flag, as snarkjs's --sanity-check passes it.
 * Errors, as witness_calculator.js words them, with the wasm's name:
 * "Signal X not found", "Not enough values for input signal X", "Too many
 * values for input signal X", "Not all inputs have been set. Only N out of
 * M" (ZP_ERR_FORMAT); a failed circuit assert or another exception of the
 * circuit, with circom's text ("Assert Failed. Error in template T_1 line:
 * 12") (ZP_ERR_UNSATISFIED); a trap of the wasm, or an answer that breaks
 * the ABI (ZP_ERR_FORMAT); its memory past the limit (ZP_ERR_NOMEM, below). */
zp_status zp_witness_instance_calculate(zp_witness_instance *inst, const zp_witness_inputs *in, uint8_t *out,
                                        int sanity_check, zp_error *err) ZP_WARN_UNUSED;

/* The most linear memory the instance may grow to, in bytes (kept when a
 * failed calculation rebuilds it); UINT64_MAX (the default): the
 * module's own maximum, at most 4 GiB. A growth past it fails in the
 * module as wasm's memory.grow fails (circom raises "Not enough memory"),
 * and the calculation with ZP_ERR_NOMEM: "X: the witness calculator's
 * memory would grow to N bytes during init, past its limit of L bytes".
 * Memory already past it stays (linear memory never shrinks). */
void zp_witness_instance_set_memory_limit(zp_witness_instance *inst, uint64_t max_bytes);
/* The largest size (bytes) a growth refused by that limit asked for in
 * the last calculation that failed; 0: none. */
uint64_t zp_witness_instance_memory_denied(const zp_witness_instance *inst);
/* The flag the instance's calculations poll (src/witness/poll.h): at every
 * loop head and function entry of the circuit's code, and before each call
 * into it. Another thread stops a calculation by setting *flag to nonzero
 * with a relaxed (or stronger) atomic store, __atomic_store_n(flag, 1,
 * __ATOMIC_RELAXED): the calculation then returns within microseconds of
 * circuit code, with "W: the witness calculator was stopped during
 * setInputSignal" (ZP_ERR_UNSUPPORTED), and the instance is rebuilt before
 * its next calculation, as after any failure. While the flag is set every
 * calculation stops at once; clear it (a store of 0) before the next one.
 * flag is the caller's, read (never written) by this instance until the
 * next call here or its destruction; NULL: never stop (the default). */
void zp_witness_instance_set_stop(zp_witness_instance *inst, const int *flag);

/* The instance's linear memory now, in bytes. */
size_t zp_witness_instance_memory_bytes(const zp_witness_instance *inst);
/* What the circuit's log() calls printed during the last calculation
 * (lines ending with '\n'; at most 8 KiB kept). */
const char *zp_witness_instance_log(const zp_witness_instance *inst, size_t *len);

/* Writes a version-2 .wtns exactly as `snarkjs wtns calculate` does:
 * n8, the prime, the count, then the values. */
zp_status zp_witness_write_wtns(const char *path, const zp_witness_module *m, const uint8_t *values,
                                zp_error *err) ZP_WARN_UNUSED;

#endif
