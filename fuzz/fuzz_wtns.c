/* libFuzzer: .wtns reader. */
#include <stddef.h>
#include <stdint.h>

#include "io/wtns.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    zp_wtns *w = NULL;
    zp_error err;
    if (zp_wtns_open_mem(&w, data, size, "fuzz.wtns", &err) == ZP_OK) {
        volatile uint64_t sink = zp_wtns_values(w)[4 * zp_wtns_count(w) - 1];
        (void)sink;
        zp_wtns_close(w);
    }
    return 0;
}
