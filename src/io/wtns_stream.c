/* A .wtns checked as its bytes go by (io/wtns_stream.h): the same checks
 * as zp_wtns_check_mem, in a few hundred bytes of state, so the daemon can
 * stream an upload to its spool and know it is a witness without ever
 * holding it. The file's end is its last section's end. */
#include "io/wtns_stream.h"

#include <string.h>

#include "base/error.h"
#include "io/elements.h"
#include "io/wtns.h"

enum { ST_FILE_HEADER = 0, ST_SECTION_HEADER, ST_SECTION, ST_DONE };
enum { N8 = 32, HEADER_SECTION_BYTES = ZP_WTNS_HEADER_BYTES };

void zp_wtns_stream_init(zp_wtns_stream *s, const char *name) {
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
}

int zp_wtns_stream_done(const zp_wtns_stream *s) { return s->state == ST_DONE; }

/* Section 1's 40 bytes, once all are in. */
static zp_status header_section(zp_wtns_stream *s, zp_error *err) {
    return zp_wtns_header_check(&s->curve, &s->count, s->section_head, s->name, err);
}

/* One value of section 2, in s->value. */
static zp_status one_value(zp_wtns_stream *s, zp_error *err) {
    zp_status st = zp_wtns_value_check(s->curve, s->index, s->value, s->name, err);
    if (st == ZP_OK) s->index++;
    return st;
}

/* The next section starts, or the file ends. */
static void next_section(zp_wtns_stream *s) {
    s->head_len = 0;
    s->state = s->sections_seen == s->n_sections ? ST_DONE : ST_SECTION_HEADER;
}

static zp_status section_begins(zp_wtns_stream *s, zp_error *err) {
    s->section_id = zp_io_u32(s->head);
    s->section_left = zp_io_u64(s->head + 4);
    s->sections_seen++;
    if (s->section_id == 1) {
        if (s->have_header)
            return zp_error_set(err, ZP_ERR_FORMAT, "%s: section 1 (header) appears more than once", s->name);
        if (s->section_left != HEADER_SECTION_BYTES) {
            return zp_error_set(err, ZP_ERR_FORMAT, "%s: section 1 (header) is %llu bytes, expected %d", s->name,
                                (unsigned long long)s->section_left, HEADER_SECTION_BYTES);
        }
        s->have_header = 1;
    } else if (s->section_id == 2) {
        if (s->have_values)
            return zp_error_set(err, ZP_ERR_FORMAT, "%s: section 2 (values) appears more than once", s->name);
        if (!s->have_header) {
            return zp_error_set(err, ZP_ERR_UNSUPPORTED,
                                "%s: section 2 (values) before section 1 (header): a streamed witness needs its header "
                                "first (as snarkjs and circom write it)",
                                s->name);
        }
        if (s->section_left != (uint64_t)s->count * N8) {
            return zp_error_set(err, ZP_ERR_FORMAT, "%s: section 2 (values) is %llu bytes, expected %llu for %u values",
                                s->name, (unsigned long long)s->section_left, (unsigned long long)s->count * N8,
                                s->count);
        }
        s->have_values = 1;
    }
    s->head_len = 0;
    s->state = ST_SECTION;
    if (s->section_left == 0) next_section(s);
    return ZP_OK;
}

zp_status zp_wtns_stream_feed(zp_wtns_stream *s, const uint8_t *data, size_t len, size_t *used, zp_error *err) {
    size_t i = 0;
    zp_status st = ZP_OK;
    while (i < len && s->state != ST_DONE && st == ZP_OK) {
        if (s->state == ST_FILE_HEADER || s->state == ST_SECTION_HEADER) {
            size_t n = 12 - s->head_len < len - i ? 12 - s->head_len : len - i;
            memcpy(s->head + s->head_len, data + i, n);
            s->head_len += n;
            i += n;
            s->offset += n;
            if (s->head_len < 12) break;
            if (s->state == ST_SECTION_HEADER) {
                st = section_begins(s, err);
                continue;
            }
            if (memcmp(s->head, "wtns", 4) != 0) {
                char found[5];
                for (int k = 0; k < 4; k++) {
                    unsigned char c = s->head[k];
                    found[k] = c >= 0x20 && c < 0x7f && c != '\'' ? (char)c : '?';
                }
                found[4] = '\0';
                return zp_error_set(err, ZP_ERR_FORMAT, "%s: not a .wtns file (magic '%s')", s->name, found);
            }
            uint32_t version = zp_io_u32(s->head + 4);
            if (version != 2) {
                return zp_error_set(err, ZP_ERR_UNSUPPORTED, "%s: .wtns version %u is not supported (expected 2)",
                                    s->name, version);
            }
            s->n_sections = zp_io_u32(s->head + 8);
            if (s->n_sections > 64) {
                return zp_error_set(err, ZP_ERR_FORMAT, "%s: %u sections (a .wtns has 2)", s->name, s->n_sections);
            }
            next_section(s);
            continue;
        }
        /* in a section: section 1 is kept, section 2 checked value by
         * value, any other skipped */
        uint64_t n64 = s->section_left < len - i ? s->section_left : len - i;
        size_t n = (size_t)n64;
        if (s->section_id == 1) {
            memcpy(s->section_head + (HEADER_SECTION_BYTES - s->section_left), data + i, n);
        } else if (s->section_id == 2) {
            for (size_t k = 0; k < n && st == ZP_OK; k++) {
                s->value[s->value_len++] = data[i + k];
                if (s->value_len == N8) {
                    s->value_len = 0;
                    st = one_value(s, err);
                }
            }
        }
        i += n;
        s->offset += n;
        s->section_left -= n;
        if (st == ZP_OK && s->section_left == 0) {
            if (s->section_id == 1) st = header_section(s, err);
            next_section(s);
        }
    }
    *used = i;
    return st;
}

zp_status zp_wtns_stream_finish(const zp_wtns_stream *s, zp_curve *curve, size_t *count, zp_error *err) {
    if (s->state != ST_DONE) {
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: truncated: the body ended %llu bytes into the file", s->name,
                            (unsigned long long)s->offset);
    }
    if (!s->have_header) return zp_error_set(err, ZP_ERR_FORMAT, "%s: section 1 (header) is missing", s->name);
    if (!s->have_values) return zp_error_set(err, ZP_ERR_FORMAT, "%s: section 2 (values) is missing", s->name);
    *curve = s->curve;
    *count = s->count;
    return ZP_OK;
}
