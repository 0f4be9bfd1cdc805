/* One witness from files, start to end: the wasm compiled (or found in the
 * cache) and loaded, the inputs read, the witness computed. What the
 * commands `zkpipe wtns calculate` and `zkpipe fullprove` share. */
#ifndef ZP_WITNESS_WITNESS_H
#define ZP_WITNESS_WITNESS_H

#include <stddef.h>
#include <stdint.h>

#include "witness/calc.h"
#include "witness/compile.h"

typedef struct zp_witness_run_stats {
    int compiled;        /* 1: the wasm was compiled now; 0: from the cache */
    double compile_s;    /* finding or compiling the object */
    double load_s;       /* dlopen and the first instance */
    double inputs_s;     /* reading input.json */
    double calc_s;       /* the witness itself */
    size_t memory_bytes; /* the instance's linear memory after the run */
    char cache_key[ZP_SHA256_HEX];
} zp_witness_run_stats;

/* Compiles (or finds) and opens the calculator of wasm_path. time_limit:
 * seconds its first calls (getVersion, ..., getWitnessSize) may take
 * (timer.h; the compile is not counted); 0: no limit. A module stopped
 * there fails with "W: the witness calculator was stopped during
 * getVersion, at its time limit of 2 s" (ZP_ERR_UNSUPPORTED). */
zp_status zp_witness_load(zp_witness_module **out, const char *wasm_path, const zp_witness_compile_options *options,
                          double time_limit, zp_witness_run_stats *stats, zp_error *err) ZP_WARN_UNUSED;

/* Reads the inputs at input_path for m and computes the witness into a
 * malloc'd array (*values, zp_witness_module_size(m) × n8 bytes). The
 * circuit's log() output goes to log_out when it is not NULL. time_limit:
 * seconds the calculation may take (0: no limit), as for zp_witness_load. */
zp_status zp_witness_compute_file(uint8_t **values, zp_witness_module *m, const char *input_path, int sanity_check,
                                  double time_limit, void *log_out, zp_witness_run_stats *stats,
                                  zp_error *err) ZP_WARN_UNUSED;

#endif
