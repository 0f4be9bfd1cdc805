/* libFuzzer: .wtns reader, and the two checks the daemon uses on uploads
 * (in place, and as a stream in pieces): all three must agree on whether
 * the input is a valid witness, and on its curve and count. A stream needs
 * the header section before the values one, which the reader does not:
 * only that case may differ. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "io/wtns.h"
#include "io/wtns_stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    zp_wtns *w = NULL;
    zp_error err, e1, e2;
    zp_status st = zp_wtns_open_mem(&w, data, size, "fuzz.wtns", &err);
    zp_curve c1 = ZP_CURVE_NONE, c2 = ZP_CURVE_NONE;
    size_t n1 = 0, n2 = 0;
    zp_status st1 = zp_wtns_check_mem(&c1, &n1, data, size, "fuzz.wtns", &e1);
    /* the stream, in pieces whose sizes come from the input's length */
    zp_wtns_stream s;
    zp_wtns_stream_init(&s, "fuzz.wtns");
    zp_status st2 = ZP_OK;
    size_t pos = 0, step = 1 + size % 61;
    while (st2 == ZP_OK && pos < size && !zp_wtns_stream_done(&s)) {
        size_t piece = step < size - pos ? step : size - pos, used = 0;
        st2 = zp_wtns_stream_feed(&s, data + pos, piece, &used, &e2);
        pos += used;
    }
    if (st2 == ZP_OK) st2 = zp_wtns_stream_finish(&s, &c2, &n2, &e2);
    if ((st == ZP_OK) != (st1 == ZP_OK)) abort();
    if (st == ZP_OK) {
        volatile uint64_t sink = zp_wtns_values(w)[4 * zp_wtns_count(w) - 1];
        (void)sink;
        if (c1 != zp_wtns_curve(w) || n1 != zp_wtns_count(w)) abort();
        if (st2 == ZP_OK && (c2 != c1 || n2 != n1)) abort();
        zp_wtns_close(w);
    }
    if (st2 == ZP_OK && st != ZP_OK) abort(); /* the stream is never the laxer */
    return 0;
}
