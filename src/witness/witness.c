/* Files in, a witness out (witness.h). */
#include "witness/witness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/clock.h"
#include "base/error.h"
#include "witness/input.h"
#include "witness/timer.h"

/* A calculation the timer stopped: its message says so. */
static void at_time_limit(zp_error *err, double limit) {
    size_t n = strlen(err->message);
    snprintf(err->message + n, sizeof err->message - n, ", at its time limit of %g s", limit);
}

zp_status zp_witness_load(zp_witness_module **out, const char *wasm_path, const zp_witness_compile_options *options,
                          double time_limit, zp_witness_run_stats *stats, zp_error *err) {
    *out = NULL;
    zp_witness_compiled c;
    double t0 = zp_clock_now();
    zp_status st = zp_witness_compile(&c, wasm_path, options, err);
    double t1 = zp_clock_now();
    if (st != ZP_OK) return st;
    int stop = 0;
    zp_witness_timer *timer = NULL;
    st = zp_witness_timer_start(&timer, &stop, time_limit, err);
    if (st == ZP_OK) st = zp_witness_module_open_stoppable(out, c.so_path, wasm_path, &stop, err);
    if (zp_witness_timer_end(timer) && st != ZP_OK) at_time_limit(err, time_limit);
    if (stats != NULL) {
        stats->compiled = c.compiled;
        stats->compile_s = t1 - t0;
        stats->load_s = zp_clock_now() - t1;
        memcpy(stats->cache_key, c.key, sizeof c.key);
    }
    zp_witness_compiled_free(&c);
    return st;
}

/* The values array (freed with free()). From 2 MiB up it is aligned to
 * 2 MiB and advised MADV_HUGEPAGE, as the glue does for the linear
 * memory: it is written once, front to back, and each first touch of a
 * 4 KiB page is a fault (sha256_chain(8): 7.5 MB, ~1,800 faults). */
static uint8_t *zp_witness_values_alloc(size_t bytes) {
    enum { HUGE = 2 << 20 };
    if (bytes < HUGE) return malloc(bytes > 0 ? bytes : 1);
    if (bytes > SIZE_MAX - HUGE) return NULL;
    void *p = NULL;
    size_t rounded = (bytes + HUGE - 1) / HUGE * HUGE;
    if (posix_memalign(&p, HUGE, rounded) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, rounded, MADV_HUGEPAGE); /* advice only */
#endif
    return p;
}

zp_status zp_witness_compute_file(uint8_t **values, zp_witness_module *m, const char *input_path, int sanity_check,
                                  double time_limit, void *log_out, zp_witness_run_stats *stats, zp_error *err) {
    *values = NULL;
    zp_witness_inputs in = {0};
    zp_witness_instance *inst = NULL;
    uint8_t *w = NULL;
    double t0 = zp_clock_now();
    zp_status st = zp_witness_inputs_read(&in, input_path, zp_witness_module_prime(m), zp_witness_module_n8(m), err);
    double t1 = zp_clock_now();
    if (st != ZP_OK) goto done;
    size_t count = zp_witness_module_size(m), n8 = zp_witness_module_n8(m);
    w = zp_witness_values_alloc(count * n8);
    if (w == NULL) {
        st = zp_error_set(err, ZP_ERR_NOMEM, "%s: out of memory for a witness of %zu values", input_path, count);
        goto done;
    }
    if ((st = zp_witness_instance_create(&inst, m, err)) != ZP_OK) goto done;
    int stop = 0;
    zp_witness_timer *timer = NULL;
    zp_witness_instance_set_stop(inst, &stop);
    st = zp_witness_timer_start(&timer, &stop, time_limit, err);
    if (st == ZP_OK) st = zp_witness_instance_calculate(inst, &in, w, sanity_check, err);
    if (zp_witness_timer_end(timer) && st != ZP_OK) at_time_limit(err, time_limit);
    if (log_out != NULL) {
        size_t len;
        const char *text = zp_witness_instance_log(inst, &len);
        if (len > 0) fwrite(text, 1, len, (FILE *)log_out);
    }
    if (st != ZP_OK) {
        zp_error_prefix(err, "%s: ", input_path);
        goto done;
    }
    if (stats != NULL) {
        stats->inputs_s = t1 - t0;
        stats->calc_s = zp_clock_now() - t1;
        stats->memory_bytes = zp_witness_instance_memory_bytes(inst);
    }
    *values = w;
    w = NULL;
done:
    zp_witness_instance_destroy(inst);
    zp_witness_inputs_free(&in);
    free(w);
    return st;
}
