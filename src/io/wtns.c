#include "io/wtns.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "curve/desc.h"
#include "io/binfile.h"
#include "io/elements.h"
#include "mem/large.h"

struct zp_wtns {
    zp_curve curve;
    size_t count;
    uint64_t *values;
};

enum { N8 = 32, HEADER_BYTES = ZP_WTNS_HEADER_BYTES };

zp_status zp_wtns_header_check(zp_curve *curve, uint32_t *count, const uint8_t header[ZP_WTNS_HEADER_BYTES],
                               const char *name, zp_error *err) {
    uint32_t n8 = zp_io_u32(header);
    if (n8 != N8) {
        return zp_error_set(err, ZP_ERR_UNSUPPORTED, "%s: unsupported prime: field elements of %u bytes (expected %d)",
                            name, n8, N8);
    }
    const zp_curve_desc *d = zp_curve_find_fr(header + 4, N8);
    if (d == NULL) {
        return zp_error_set(err, ZP_ERR_UNSUPPORTED, "%s: unsupported prime (not the scalar field of any of: %s)", name,
                            ZP_CURVE_NAMES);
    }
    *curve = d->id;
    *count = zp_io_u32(header + 4 + N8);
    if (*count == 0) return zp_error_set(err, ZP_ERR_FORMAT, "%s: no witness values (w[0] = 1 is missing)", name);
    return ZP_OK;
}

zp_status zp_wtns_value_check(zp_curve curve, uint64_t index, const uint8_t bytes[32], const char *name,
                              zp_error *err) {
    uint64_t v[4];
    memcpy(v, bytes, N8); /* the file's bytes need not be aligned */
    if (!zp_io_fr_is_canonical(curve, v)) {
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: w[%llu] is not below the %s scalar field modulus", name,
                            (unsigned long long)index, zp_io_curve_title(curve));
    }
    if (index == 0 && (v[0] != 1 || v[1] != 0 || v[2] != 0 || v[3] != 0)) {
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: w[0] is not 1 (every circom witness starts with the constant 1)",
                            name);
    }
    return ZP_OK;
}

/* The header and the values section: curve, count and where the values
 * are in the file. */
static zp_status parse_sections(zp_curve *curve, uint32_t *count, const uint8_t **values, const zp_binfile *bf,
                                zp_error *err) {
    const uint8_t *p;
    uint64_t n;
    zp_status st = zp_binfile_section(bf, 1, "header", 1, &p, &n, err);
    if (st != ZP_OK) return st;
    if (n < 4) return zp_error_set(err, ZP_ERR_FORMAT, "%s: section 1 (header) is too short", bf->name);
    uint32_t n8 = zp_io_u32(p);
    if (n8 != N8) {
        return zp_error_set(err, ZP_ERR_UNSUPPORTED, "%s: unsupported prime: field elements of %u bytes (expected %d)",
                            bf->name, n8, N8);
    }
    if (n != HEADER_BYTES) {
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: section 1 (header) is %llu bytes, expected %d", bf->name,
                            (unsigned long long)n, HEADER_BYTES);
    }
    if ((st = zp_wtns_header_check(curve, count, p, bf->name, err)) != ZP_OK) return st;
    if ((st = zp_binfile_section(bf, 2, "values", 1, values, &n, err)) != ZP_OK) return st;
    if (n != (uint64_t)*count * N8) {
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: section 2 (values) is %llu bytes, expected %llu for %u values",
                            bf->name, (unsigned long long)n, (unsigned long long)*count * N8, *count);
    }
    return ZP_OK;
}

/* Copies the values out and checks each is canonical and w[0] = 1. */
static zp_status copy_values(uint64_t *dst, const uint8_t *src, size_t count, zp_curve curve, const char *name,
                             zp_error *err) {
    if ((const void *)dst != (const void *)src) memcpy(dst, src, count * N8);
    for (size_t i = 0; i < count; i++) {
        if (!zp_io_fr_is_canonical(curve, dst + 4 * i)) {
            return zp_error_set(err, ZP_ERR_FORMAT, "%s: w[%zu] is not below the %s scalar field modulus", name, i,
                                zp_io_curve_title(curve));
        }
    }
    if (dst[0] != 1 || dst[1] != 0 || dst[2] != 0 || dst[3] != 0) {
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: w[0] is not 1 (every circom witness starts with the constant 1)",
                            name);
    }
    return ZP_OK;
}

static zp_status parse(void *object, const zp_binfile *bf, void *arg, zp_error *err) {
    (void)arg;
    zp_wtns *w = object;
    const uint8_t *p;
    uint32_t count;
    zp_status st = parse_sections(&w->curve, &count, &p, bf, err);
    if (st != ZP_OK) return st;
    /* Allocation is bounded by the section size, hence by the input. A
     * large buffer's pages (huge ones from 16 MiB) are cheaper to fault in
     * than malloc's 4 KiB ones: at 2^20 wires (32 MiB) 8192 faults took
     * most of the read. */
    void *mem = zp_mem_map((size_t)count * N8, "the witness values", err);
    if (mem == NULL) return zp_error_prefix(err, "%s: ", bf->name);
    zp_mem_prefault(mem, (size_t)count * N8); /* written whole next */
    w->values = mem;
    w->count = count;
    /* the file's pages leave the resident set as the copy passes them
     * (they stay in the page cache): with both resident a 2^24 witness
     * took 1 GiB to read, more than a proof paging it may hold */
    size_t bytes = (size_t)count * N8;
    for (size_t at = 0; at < bytes; at += ZP_MEM_RELEASE_STEP) {
        size_t part = bytes - at < ZP_MEM_RELEASE_STEP ? bytes - at : ZP_MEM_RELEASE_STEP;
        memcpy((uint8_t *)mem + at, p + at, part);
        zp_binfile_release(bf, p + at, part);
    }
    return copy_values(w->values, (const uint8_t *)w->values, count, w->curve, bf->name, err);
}

static void destroy(void *object) { zp_wtns_close(object); }

static const zp_binfile_format wtns_format = {.magic = "wtns",
                                              .version = 2,
                                              .object_bytes = sizeof(zp_wtns),
                                              .keep_offset = ZP_BINFILE_CLOSE,
                                              .parse = parse,
                                              .destroy = destroy};

zp_status zp_wtns_open(zp_wtns **out, const char *path, zp_error *err) {
    zp_binfile_input in = {.path = path};
    return zp_binfile_read((void **)out, &wtns_format, &in, NULL, err);
}

zp_status zp_wtns_open_mem(zp_wtns **out, const void *data, size_t size, const char *name, zp_error *err) {
    zp_binfile_input in = {.data = data, .size = size, .name = name};
    return zp_binfile_read((void **)out, &wtns_format, &in, NULL, err);
}

/* zp_wtns_check_mem: the checks of copy_values, one value at a time. */
typedef struct {
    zp_curve curve;
    uint32_t count;
} check_args;

static zp_status parse_check(void *object, const zp_binfile *bf, void *arg, zp_error *err) {
    (void)object;
    check_args *a = arg;
    const uint8_t *p;
    zp_status st = parse_sections(&a->curve, &a->count, &p, bf, err);
    if (st != ZP_OK) return st;
    for (size_t i = 0; i < a->count; i++) {
        if ((st = zp_wtns_value_check(a->curve, i, p + i * N8, bf->name, err)) != ZP_OK) return st;
    }
    return ZP_OK;
}

static const zp_binfile_format wtns_check_format = {.magic = "wtns",
                                                    .version = 2,
                                                    .object_bytes = 0,
                                                    .keep_offset = ZP_BINFILE_CLOSE,
                                                    .parse = parse_check,
                                                    .destroy = NULL};

zp_status zp_wtns_check_mem(zp_curve *curve, size_t *count, const void *data, size_t size, const char *name,
                            zp_error *err) {
    zp_binfile_input in = {.data = data, .size = size, .name = name};
    check_args a = {ZP_CURVE_NONE, 0};
    zp_status st = zp_binfile_read(NULL, &wtns_check_format, &in, &a, err);
    if (st != ZP_OK) return st;
    *curve = a.curve;
    *count = a.count;
    return ZP_OK;
}

/* zp_wtns_read_into: the same file, read into the caller's buffer. */
typedef struct {
    uint64_t *values;
    size_t count;
    zp_curve curve;
} read_into_args;

static zp_status parse_into(void *object, const zp_binfile *bf, void *arg, zp_error *err) {
    (void)object;
    const read_into_args *a = arg;
    zp_curve file_curve;
    uint32_t file_count;
    const uint8_t *p;
    zp_status st = parse_sections(&file_curve, &file_count, &p, bf, err);
    if (st != ZP_OK) return st;
    if (file_curve != a->curve) {
        return zp_error_set(err, ZP_ERR_MISMATCH, "%s: the witness is for curve %s but the key is for %s", bf->name,
                            zp_curve_name(file_curve), zp_curve_name(a->curve));
    }
    if (file_count != a->count) {
        return zp_error_set(err, ZP_ERR_MISMATCH,
                            "%s: the witness has %u values but the key's circuit has %zu wires: "
                            "the witness is for another circuit",
                            bf->name, file_count, a->count);
    }
    /* a slice at a time, each slice's file pages given back once copied
     * (they stay in the page cache): a 2^20 witness's 32 MiB would
     * otherwise be resident twice while the engine reads it */
    size_t slice = ZP_WTNS_READ_RESIDENT / N8;
    for (size_t at = 0; at < a->count; at += slice) {
        size_t n = a->count - at < slice ? a->count - at : slice;
        memcpy(a->values + 4 * at, p + at * N8, n * N8);
        zp_binfile_release(bf, p + at * N8, n * N8);
    }
    return copy_values(a->values, (const uint8_t *)a->values, a->count, a->curve, bf->name, err);
}

static const zp_binfile_format wtns_into_format = {
    .magic = "wtns", .version = 2, .object_bytes = 0, .keep_offset = ZP_BINFILE_CLOSE, .parse = parse_into};

zp_status zp_wtns_read_into(uint64_t *values, size_t count, zp_curve curve, const char *path, zp_error *err) {
    read_into_args a = {values, count, curve};
    zp_binfile_input in = {.path = path};
    return zp_binfile_read(NULL, &wtns_into_format, &in, &a, err);
}

void zp_wtns_close(zp_wtns *wtns) {
    if (wtns == NULL) return;
    if (wtns->values != NULL) zp_mem_unmap(wtns->values, wtns->count * N8);
    free(wtns);
}

zp_curve zp_wtns_curve(const zp_wtns *wtns) { return wtns->curve; }
size_t zp_wtns_count(const zp_wtns *wtns) { return wtns->count; }
const uint64_t *zp_wtns_values(const zp_wtns *wtns) { return wtns->values; }

zp_status zp_wtns_write(const char *path, zp_curve curve, const uint64_t *values, size_t count, zp_error *err) {
    const zp_curve_desc *d = zp_curve_get(curve);
    if (d == NULL) {
        return zp_error_set(err, ZP_ERR_ARG, "%s: cannot write a witness for unknown curve %d", path, (int)curve);
    }
    if (count > UINT32_MAX) return zp_error_set(err, ZP_ERR_ARG, "%s: %zu values do not fit a .wtns", path, count);
    zp_binwriter w;
    zp_status st = zp_binwriter_open(&w, path, "wtns", 2, 2, err);
    if (st != ZP_OK) return st;
    zp_binwriter_begin(&w, 1);
    zp_binwriter_u32(&w, N8);
    zp_binwriter_bytes(&w, d->fr_modulus, N8);
    zp_binwriter_u32(&w, (uint32_t)count);
    zp_binwriter_end(&w);
    zp_binwriter_begin(&w, 2);
    zp_binwriter_bytes(&w, values, count * N8);
    zp_binwriter_end(&w);
    return zp_binwriter_close(&w, err);
}
