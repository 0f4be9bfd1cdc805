#include "io/wtns.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "io/binfile.h"
#include "io/elements.h"

struct zp_wtns {
    zp_curve curve;
    size_t count;
    uint64_t *values;
};

enum { N8 = 32, HEADER_BYTES = 4 + N8 + 4 };

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
    *curve = zp_io_curve_from_r(p + 4, N8);
    if (*curve == ZP_CURVE_NONE) {
        return zp_error_set(err, ZP_ERR_UNSUPPORTED,
                            "%s: unsupported prime (not the scalar field of BN254 or BLS12-381)", bf->name);
    }
    *count = zp_io_u32(p + 4 + N8);
    if (*count == 0) return zp_error_set(err, ZP_ERR_FORMAT, "%s: no witness values (w[0] = 1 is missing)", bf->name);
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
    memcpy(dst, src, count * N8);
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

static zp_status parse(zp_wtns *w, const zp_binfile *bf, zp_error *err) {
    const uint8_t *p;
    uint32_t count;
    zp_status st = parse_sections(&w->curve, &count, &p, bf, err);
    if (st != ZP_OK) return st;
    /* Allocation is bounded by the section size, hence by the input. */
    void *mem = NULL;
    if (posix_memalign(&mem, 64, (size_t)count * N8) != 0) {
        return zp_error_set(err, ZP_ERR_NOMEM, "%s: out of memory for %u witness values", bf->name, count);
    }
    w->values = mem;
    w->count = count;
    return copy_values(w->values, p, count, w->curve, bf->name, err);
}

static zp_status finish(zp_wtns **out, zp_binfile *bf, zp_error *err) {
    zp_wtns *w = calloc(1, sizeof *w);
    if (w == NULL) {
        zp_binfile_close(bf);
        return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    }
    zp_status st = parse(w, bf, err);
    zp_binfile_close(bf);
    if (st != ZP_OK) {
        zp_wtns_close(w);
        return st;
    }
    *out = w;
    return ZP_OK;
}

zp_status zp_wtns_open(zp_wtns **out, const char *path, zp_error *err) {
    *out = NULL;
    zp_binfile bf;
    zp_status st = zp_binfile_open(&bf, path, "wtns", 2, err);
    if (st != ZP_OK) return st;
    return finish(out, &bf, err);
}

zp_status zp_wtns_open_mem(zp_wtns **out, const void *data, size_t size, const char *name, zp_error *err) {
    *out = NULL;
    zp_binfile bf;
    zp_status st = zp_binfile_open_mem(&bf, data, size, name, "wtns", 2, err);
    if (st != ZP_OK) return st;
    return finish(out, &bf, err);
}

zp_status zp_wtns_read_into(uint64_t *values, size_t count, zp_curve curve, const char *path, zp_error *err) {
    zp_binfile bf;
    zp_status st = zp_binfile_open(&bf, path, "wtns", 2, err);
    if (st != ZP_OK) return st;
    zp_curve file_curve;
    uint32_t file_count;
    const uint8_t *p;
    st = parse_sections(&file_curve, &file_count, &p, &bf, err);
    if (st == ZP_OK && file_curve != curve) {
        st = zp_error_set(err, ZP_ERR_MISMATCH, "%s: the witness is for curve %s but the key is for %s", path,
                          zp_curve_name(file_curve), zp_curve_name(curve));
    }
    if (st == ZP_OK && file_count != count) {
        st = zp_error_set(err, ZP_ERR_MISMATCH,
                          "%s: the witness has %u values but the key's circuit has %zu wires: "
                          "the witness is for another circuit",
                          path, file_count, count);
    }
    if (st == ZP_OK) st = copy_values(values, p, count, curve, path, err);
    zp_binfile_close(&bf);
    return st;
}

void zp_wtns_close(zp_wtns *wtns) {
    if (wtns == NULL) return;
    free(wtns->values);
    free(wtns);
}

zp_curve zp_wtns_curve(const zp_wtns *wtns) { return wtns->curve; }
size_t zp_wtns_count(const zp_wtns *wtns) { return wtns->count; }
const uint64_t *zp_wtns_values(const zp_wtns *wtns) { return wtns->values; }

zp_status zp_wtns_write(const char *path, zp_curve curve, const uint64_t *values, size_t count, zp_error *err) {
    if (curve != ZP_CURVE_BN254 && curve != ZP_CURVE_BLS12_381) {
        return zp_error_set(err, ZP_ERR_ARG, "%s: cannot write a witness for an unknown curve", path);
    }
    if (count > UINT32_MAX) return zp_error_set(err, ZP_ERR_ARG, "%s: %zu values do not fit a .wtns", path, count);
    zp_binwriter w;
    zp_status st = zp_binwriter_open(&w, path, "wtns", 2, 2, err);
    if (st != ZP_OK) return st;
    zp_binwriter_begin(&w, 1);
    zp_binwriter_u32(&w, N8);
    zp_binwriter_bytes(&w, zp_io_fr_modulus(curve), N8);
    zp_binwriter_u32(&w, (uint32_t)count);
    zp_binwriter_end(&w);
    zp_binwriter_begin(&w, 2);
    zp_binwriter_bytes(&w, values, count * N8);
    zp_binwriter_end(&w);
    return zp_binwriter_close(&w, err);
}
