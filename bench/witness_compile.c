/* The first compile of circuit wasms, step by step: wasm2c, zkpipe's own
 * patch (patch.c) and the C compiler, each as wall clock and CPU time,
 * into a fresh cache folder each (issue 31, item 10: the patch step was
 * quadratic in wasm2c's output). ZKPIPE_WITNESS_OPT and CC apply as for
 * zkpipe itself.
 *
 * Usage: zkpipe-bench-compile CACHE_DIR WASM...
 * CACHE_DIR is made and emptied of the objects it compiles (their keys). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "witness/compile.h"

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s CACHE_DIR WASM...\n", argv[0]);
        return 2;
    }
    zp_witness_compile_options o = {.cache_dir = argv[1]};
    printf("%-40s %9s  %15s  %15s  %15s\n", "wasm", "bytes", "wasm2c s (cpu)", "patch s (cpu)", "cc s (cpu)");
    for (int i = 2; i < argc; i++) {
        zp_witness_compiled c;
        zp_error err = {0};
        struct stat sb;
        if (stat(argv[i], &sb) != 0 || zp_witness_compile(&c, argv[i], &o, &err) != ZP_OK) {
            fprintf(stderr, "%s: %s\n", argv[i], err.message[0] ? err.message : "cannot stat");
            return 1;
        }
        const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
        printf("%-40s %9lld  %6.2f (%6.2f)  %6.2f (%6.2f)  %6.2f (%6.2f)%s\n", name, (long long)sb.st_size, c.wasm2c_s,
               c.wasm2c_cpu_s, c.patch_s, c.patch_cpu_s, c.cc_s, c.cc_cpu_s, c.compiled ? "" : "  (was cached)");
        fflush(stdout);
        unlink(c.so_path); /* the next run compiles again */
        zp_witness_compiled_free(&c);
    }
    return 0;
}
