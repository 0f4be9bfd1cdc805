/* A circom witness calculator (the circuit.wasm of `circom --wasm`) turned
 * into native code once per circuit: wasm2c writes C, the C compiler
 * builds a shared object of it and of zkpipe's glue (w2c_glue.c.in), and
 * the object is kept in a cache directory under the SHA-256 of the wasm
 * (and of the glue and the compiler flags), so a second run pays nothing.
 *
 * The object is published atomically: it is built in a temporary folder
 * inside the cache and renamed into place, so concurrent compilers of one
 * wasm are safe (the last rename wins, both objects are the same) and an
 * interrupted compile never leaves a half-made object under the final
 * name. The object is flushed to the disk before the rename, carries a
 * trailer with its digest, and is checked before it is used: a damaged
 * one is compiled again. The cache folder and everything in it must be
 * this user's alone (cache.h has the rules). docs/witness.md tells the
 * whole story. */
#ifndef ZP_WITNESS_COMPILE_H
#define ZP_WITNESS_COMPILE_H

#include <stddef.h>

#include "base/digest.h"
#include "zkpipe.h"

typedef struct zp_witness_compile_options {
    const char *cache_dir; /* NULL: $ZKPIPE_CACHE, else $XDG_CACHE_HOME/zkpipe, else ~/.cache/zkpipe */
    const char *cc;        /* NULL: $CC, else "cc" */
    const char *wasm2c;    /* NULL: $ZKPIPE_WASM2C, else "wasm2c" */
    /* Where a line for the operator goes (a damaged object compiled
     * again): note(note_arg, line), without a newline; NULL: stderr,
     * "zkpipe: LINE\n". */
    void (*note)(void *note_arg, const char *line);
    void *note_arg;
    /* NULL, or a flag another thread sets (a relaxed atomic store of
     * nonzero) to stop a compile under way: wasm2c or the compiler is
     * killed (its whole process group) within ~20 ms and the compile fails
     * with "W: the compile was stopped" (ZP_ERR_UNSUPPORTED). */
    const int *stop;
} zp_witness_compile_options;

typedef struct zp_witness_compiled {
    char *so_path;                              /* the cached object (malloc'd) */
    char key[ZP_SHA256_HEX];                    /* its cache key, hex */
    int compiled;                               /* 1: built now; 0: found in the cache */
    double wasm2c_s, patch_s, cc_s;             /* time spent in each step (wall clock), when compiled */
    double wasm2c_cpu_s, patch_cpu_s, cc_cpu_s; /* and its CPU time (user + system) */
} zp_witness_compiled;

/* Finds or builds the object for the wasm at wasm_path (options may be
 * NULL). An object found is checked (zp_witness_object_check): its trust
 * and structure every time, its digest unless its stamps are those of its
 * last digest check (the .fp record keeps them); a damaged one is compiled
 * again, once, with a note. Errors:
 * ZP_ERR_IO for a file or folder that cannot be read or made, a cache
 * that breaks the trust rules (cache.h: "DIR: the cache directory is
 * owned by uid N, not by this user ..."), and a full disk ("DIR: no space
 * left on device (...)", whatever step ran out); ZP_ERR_FORMAT for a file that is not WebAssembly, a truncated or
 * corrupt module (with the first lines of wasm2c's complaint), or one that
 * is not a circom 2 witness calculator (which export or import is wrong);
 * ZP_ERR_IO also when wasm2c, its runtime header or the compiler is
 * missing (not the input's fault: the commands exit 4 there, not 3). */
zp_status zp_witness_compile(zp_witness_compiled *out, const char *wasm_path, const zp_witness_compile_options *options,
                             zp_error *err) ZP_WARN_UNUSED;
void zp_witness_compiled_free(zp_witness_compiled *c);

/* The cache directory that would be used (malloc'd in *out), without
 * creating it. */
zp_status zp_witness_cache_dir(char **out, const char *explicit_dir, zp_error *err) ZP_WARN_UNUSED;

#endif
