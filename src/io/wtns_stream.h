/* A .wtns checked as its bytes go by, never held whole: the daemon streams
 * an upload (the partitions' .wtns files back to back) into its spool and
 * checks each file on the way. The checks are zp_wtns_check_mem's
 * (io/wtns.h), with one more rule a stream needs: section 1 (the header:
 * the prime, the count) comes before section 2 (the values), as snarkjs
 * and circom write it. A file ends where its last section ends, so files
 * can follow one another in one stream. */
#ifndef ZP_IO_WTNS_STREAM_H
#define ZP_IO_WTNS_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "zkpipe.h"

typedef struct zp_wtns_stream {
    char name[64];
    int state;
    uint8_t head[12]; /* the file header, or a section's (id, size) */
    size_t head_len;
    uint32_t n_sections, sections_seen, section_id;
    uint64_t section_left, offset;
    uint8_t section_head[40]; /* section 1 */
    int have_header, have_values;
    zp_curve curve;
    uint32_t count;
    uint8_t value[32];
    size_t value_len;
    uint64_t index; /* values checked */
} zp_wtns_stream;

void zp_wtns_stream_init(zp_wtns_stream *s, const char *name);
/* Takes up to len bytes, stopping where the file ends: *used says how
 * many (the rest belong to whatever follows). An error names the file. */
zp_status zp_wtns_stream_feed(zp_wtns_stream *s, const uint8_t *data, size_t len, size_t *used,
                              zp_error *err) ZP_WARN_UNUSED;
/* Whether the file has ended (its last section is complete). */
int zp_wtns_stream_done(const zp_wtns_stream *s);
/* After the last byte: the curve and count of a complete, valid file; an
 * error when it is truncated or lacks a section. */
zp_status zp_wtns_stream_finish(const zp_wtns_stream *s, zp_curve *curve, size_t *count, zp_error *err) ZP_WARN_UNUSED;

#endif
