#include "io/r1cs.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "curve/desc.h"
#include "io/binfile.h"
#include "io/elements.h"

enum { N8 = 32, TERM_BYTES = 4 + N8, HEADER_BYTES = 4 + N8 + 4 * 4 + 8 + 4 };
#define RELEASE_STEP ((uint64_t)16 << 20) /* bytes of the file read between releases */

struct zp_r1cs {
    zp_r1cs_header h;
    zp_r1cs_matrix m[3];
};

static const char *const MATRIX_NAME[3] = {"A", "B", "C"};

static zp_status read_header(zp_r1cs_header *h, const zp_binfile *bf, zp_error *err) {
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
    const zp_curve_desc *d = zp_curve_find_fr(p + 4, N8);
    if (d == NULL) {
        return zp_error_set(err, ZP_ERR_UNSUPPORTED, "%s: unsupported prime (not the scalar field of any of: %s)",
                            bf->name, ZP_CURVE_NAMES);
    }
    h->curve = d->id;
    p += 4 + N8;
    h->n_wires = zp_io_u32(p);
    h->n_pub_out = zp_io_u32(p + 4);
    h->n_pub_in = zp_io_u32(p + 8);
    h->n_prv_in = zp_io_u32(p + 12);
    h->n_labels = zp_io_u64(p + 16);
    h->n_constraints = zp_io_u32(p + 24);
    uint64_t io = 1 + (uint64_t)h->n_pub_out + h->n_pub_in + h->n_prv_in;
    if (io > h->n_wires) {
        return zp_error_set(err, ZP_ERR_FORMAT,
                            "%s: nWires %u is smaller than 1 + outputs + public inputs + private inputs (%llu)",
                            bf->name, h->n_wires, (unsigned long long)io);
    }
    return ZP_OK;
}

/* A pass over §2 hands each term to a visitor: matrix k (A, B, C), the
 * constraint, the wire, the plain coefficient. */
typedef void (*term_fn)(void *arg, int k, uint32_t c, uint32_t wire, const uint64_t coef[4]);

/* One pass over §2, each term checked (its wire below nWires, its
 * coefficient canonical) before fn sees it, on every pass: a file can
 * change between two passes, and what a pass hands over is always safe
 * to index with. count receives the terms of each matrix. Every read is
 * bounds-checked against the section. */
static zp_status walk(const zp_r1cs_header *h, const zp_binfile *bf, const uint8_t *p, uint64_t n, term_fn fn,
                      void *arg, uint64_t count[3], zp_error *err) {
    uint64_t pos = 0, released = 0;
    count[0] = count[1] = count[2] = 0;
    for (uint32_t c = 0; c < h->n_constraints; c++) {
        /* The file's pages read so far leave the resident set as the walk
         * goes (they stay in the page cache): a large circuit's arrays and
         * its whole mapped file were both resident, twice the circuit
         * (issue 32: the setup's budget must hold the reading's peak). */
        if (pos - released >= RELEASE_STEP) {
            zp_binfile_release(bf, p + released, pos - released);
            released = pos;
        }
        for (int k = 0; k < 3; k++) {
            if (n - pos < 4) {
                return zp_error_set(err, ZP_ERR_FORMAT, "%s: section 2 (constraints) ends inside constraint %u",
                                    bf->name, c);
            }
            uint32_t terms = zp_io_u32(p + pos);
            pos += 4;
            if (terms > (n - pos) / TERM_BYTES) {
                return zp_error_set(err, ZP_ERR_FORMAT,
                                    "%s: section 2 (constraints) ends inside constraint %u (%s has %u terms)", bf->name,
                                    c, MATRIX_NAME[k], terms);
            }
            for (uint32_t t = 0; t < terms; t++, pos += TERM_BYTES) {
                uint32_t wire = zp_io_u32(p + pos);
                uint64_t v[4];
                memcpy(v, p + pos + 4, sizeof v);
                if (wire >= h->n_wires) {
                    return zp_error_set(err, ZP_ERR_FORMAT,
                                        "%s: constraint %u: %s refers to wire %u, not below nWires %u", bf->name, c,
                                        MATRIX_NAME[k], wire, h->n_wires);
                }
                if (!zp_io_fr_is_canonical(h->curve, v)) {
                    return zp_error_set(
                        err, ZP_ERR_FORMAT,
                        "%s: constraint %u: a coefficient of %s is not below the %s scalar field modulus", bf->name, c,
                        MATRIX_NAME[k], zp_io_curve_title(h->curve));
                }
                if (fn != NULL) fn(arg, k, c, wire, v);
                count[k]++;
            }
        }
    }
    zp_binfile_release(bf, p + released, pos - released);
    if (pos != n) {
        return zp_error_set(err, ZP_ERR_FORMAT,
                            "%s: section 2 (constraints) is %llu bytes, but its %u constraints take %llu", bf->name,
                            (unsigned long long)n, h->n_constraints, (unsigned long long)pos);
    }
    return ZP_OK;
}

/* The second pass of the parse: each term into the arrays the first pass
 * sized, and the row starts of the constraints up to the term's. */
typedef struct fill_state {
    zp_r1cs *r;
    uint64_t count[3];
    uint32_t next_row[3]; /* the first constraint whose row start is unset */
    int changed;          /* more terms than the first pass counted */
} fill_state;

static void fill_term(void *arg, int k, uint32_t c, uint32_t wire, const uint64_t coef[4]) {
    fill_state *f = arg;
    zp_r1cs_matrix *m = &f->r->m[k];
    if (f->count[k] >= m->n_terms) {
        f->changed = 1;
        return;
    }
    for (; f->next_row[k] <= c; f->next_row[k]++) m->row_start[f->next_row[k]] = f->count[k];
    m->wire[f->count[k]] = wire;
    memcpy(m->coef + 4 * f->count[k], coef, 4 * sizeof *coef);
    f->count[k]++;
}

/* §2 of bf, checked against the header: *p, *n. */
static zp_status constraints_section(const zp_r1cs_header *h, const zp_binfile *bf, const uint8_t **p, uint64_t *n,
                                     zp_error *err) {
    zp_status st = zp_binfile_section(bf, 2, "constraints", 1, p, n, err);
    if (st != ZP_OK) return st;
    /* Each constraint takes at least three term counts: reject a huge
     * nConstraints before allocating for it. */
    if ((uint64_t)h->n_constraints * 12 > *n) {
        return zp_error_set(err, ZP_ERR_FORMAT,
                            "%s: section 2 (constraints) is %llu bytes, too short for %u constraints", bf->name,
                            (unsigned long long)*n, h->n_constraints);
    }
    return ZP_OK;
}

static zp_status parse(void *object, const zp_binfile *bf, void *arg, zp_error *err) {
    (void)arg;
    zp_r1cs *r = object;
    zp_status st = read_header(&r->h, bf, err);
    if (st != ZP_OK) return st;
    const uint8_t *p;
    uint64_t n, count[3];
    if ((st = constraints_section(&r->h, bf, &p, &n, err)) != ZP_OK) return st;
    if ((st = walk(&r->h, bf, p, n, NULL, NULL, count, err)) != ZP_OK) return st;
    for (int k = 0; k < 3; k++) {
        zp_r1cs_matrix *m = &r->m[k];
        m->n_terms = count[k];
        m->row_start = malloc(((size_t)r->h.n_constraints + 1) * sizeof *m->row_start);
        m->wire = malloc((m->n_terms ? m->n_terms : 1) * sizeof *m->wire);
        m->coef = malloc((m->n_terms ? m->n_terms : 1) * 4 * sizeof *m->coef);
        if (m->row_start == NULL || m->wire == NULL || m->coef == NULL) {
            return zp_error_set(err, ZP_ERR_NOMEM, "%s: out of memory for the constraints", bf->name);
        }
    }
    fill_state f = {.r = r};
    if ((st = walk(&r->h, bf, p, n, fill_term, &f, count, err)) != ZP_OK) return st;
    for (int k = 0; k < 3; k++) {
        /* the file may have changed since the first pass */
        if (f.changed || count[k] != r->m[k].n_terms) {
            return zp_error_set(err, ZP_ERR_FORMAT, "%s: section 2 (constraints) changed while it was read", bf->name);
        }
        for (; f.next_row[k] <= r->h.n_constraints; f.next_row[k]++) r->m[k].row_start[f.next_row[k]] = count[k];
    }
    return ZP_OK;
}

static void destroy(void *object) { zp_r1cs_close(object); }

static const zp_binfile_format r1cs_format = {.magic = "r1cs",
                                              .version = 1,
                                              .object_bytes = sizeof(zp_r1cs),
                                              .keep_offset = ZP_BINFILE_CLOSE,
                                              .parse = parse,
                                              .destroy = destroy};

zp_status zp_r1cs_open(zp_r1cs **out, const char *path, zp_error *err) {
    zp_binfile_input in = {.path = path};
    return zp_binfile_read((void **)out, &r1cs_format, &in, NULL, err);
}

zp_status zp_r1cs_open_mem(zp_r1cs **out, const void *data, size_t size, const char *name, zp_error *err) {
    zp_binfile_input in = {.data = data, .size = size, .name = name};
    return zp_binfile_read((void **)out, &r1cs_format, &in, NULL, err);
}

void zp_r1cs_close(zp_r1cs *r1cs) {
    if (r1cs == NULL) return;
    for (int k = 0; k < 3; k++) {
        free(r1cs->m[k].row_start);
        free(r1cs->m[k].wire);
        free(r1cs->m[k].coef);
    }
    free(r1cs);
}

/* ---- in passes ---- */

struct zp_r1cs_stream {
    zp_binfile bf; /* kept open by zp_binfile_read */
    zp_r1cs_header h;
    const uint8_t *p;
    uint64_t n, count[3];
};

static zp_status stream_parse(void *object, const zp_binfile *bf, void *arg, zp_error *err) {
    (void)arg;
    zp_r1cs_stream *s = object;
    zp_status st = read_header(&s->h, bf, err);
    if (st == ZP_OK) st = constraints_section(&s->h, bf, &s->p, &s->n, err);
    if (st == ZP_OK) st = walk(&s->h, bf, s->p, s->n, NULL, NULL, s->count, err);
    return st;
}

static void stream_destroy(void *object) { zp_r1cs_stream_close(object); }

static const zp_binfile_format r1cs_stream_format = {.magic = "r1cs",
                                                     .version = 1,
                                                     .object_bytes = sizeof(zp_r1cs_stream),
                                                     .keep_offset = offsetof(zp_r1cs_stream, bf),
                                                     .parse = stream_parse,
                                                     .destroy = stream_destroy};

zp_status zp_r1cs_stream_open(zp_r1cs_stream **out, const char *path, zp_error *err) {
    zp_binfile_input in = {.path = path};
    return zp_binfile_read((void **)out, &r1cs_stream_format, &in, NULL, err);
}

void zp_r1cs_stream_close(zp_r1cs_stream *s) {
    if (s == NULL) return;
    zp_binfile_close(&s->bf);
    free(s);
}

const zp_r1cs_header *zp_r1cs_stream_header(const zp_r1cs_stream *s) { return &s->h; }

uint64_t zp_r1cs_stream_terms(const zp_r1cs_stream *s, int matrix) {
    return matrix >= 0 && matrix < 3 ? s->count[matrix] : 0;
}

zp_status zp_r1cs_stream_pass(zp_r1cs_stream *s, zp_r1cs_term_fn fn, void *arg, zp_error *err) {
    uint64_t count[3];
    zp_status st = walk(&s->h, &s->bf, s->p, s->n, fn, arg, count, err);
    if (st != ZP_OK) return st;
    if (memcmp(count, s->count, sizeof count) != 0) {
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: section 2 (constraints) changed while it was read", s->bf.name);
    }
    return ZP_OK;
}

const zp_r1cs_header *zp_r1cs_get_header(const zp_r1cs *r1cs) { return &r1cs->h; }

const zp_r1cs_matrix *zp_r1cs_get_matrix(const zp_r1cs *r1cs, int which) {
    return (which >= 0 && which < 3) ? &r1cs->m[which] : NULL;
}

zp_status zp_r1cs_write(const char *path, const zp_r1cs_header *h, const zp_r1cs_matrix m[3], zp_error *err) {
    const zp_curve_desc *d = zp_curve_get(h->curve);
    if (d == NULL) {
        return zp_error_set(err, ZP_ERR_ARG, "%s: cannot write constraints for unknown curve %d", path, (int)h->curve);
    }
    for (int k = 0; k < 3; k++) {
        for (uint32_t c = 0; c < h->n_constraints; c++) {
            if (m[k].row_start[c + 1] < m[k].row_start[c] || m[k].row_start[c + 1] - m[k].row_start[c] > UINT32_MAX) {
                return zp_error_set(err, ZP_ERR_ARG, "%s: constraint %u of %s has a bad term range", path, c,
                                    MATRIX_NAME[k]);
            }
        }
    }
    zp_binwriter w;
    zp_status st = zp_binwriter_open(&w, path, "r1cs", 1, h->n_labels == h->n_wires ? 3 : 2, err);
    if (st != ZP_OK) return st;
    zp_binwriter_begin(&w, 1);
    zp_binwriter_u32(&w, N8);
    zp_binwriter_bytes(&w, d->fr_modulus, N8);
    zp_binwriter_u32(&w, h->n_wires);
    zp_binwriter_u32(&w, h->n_pub_out);
    zp_binwriter_u32(&w, h->n_pub_in);
    zp_binwriter_u32(&w, h->n_prv_in);
    zp_binwriter_u64(&w, h->n_labels);
    zp_binwriter_u32(&w, h->n_constraints);
    zp_binwriter_end(&w);
    zp_binwriter_begin(&w, 2);
    for (uint32_t c = 0; c < h->n_constraints; c++) {
        for (int k = 0; k < 3; k++) {
            uint64_t lo = m[k].row_start[c], hi = m[k].row_start[c + 1];
            zp_binwriter_u32(&w, (uint32_t)(hi - lo));
            for (uint64_t t = lo; t < hi; t++) {
                zp_binwriter_u32(&w, m[k].wire[t]);
                zp_binwriter_bytes(&w, m[k].coef + 4 * t, N8);
            }
        }
    }
    zp_binwriter_end(&w);
    if (h->n_labels == h->n_wires) {
        zp_binwriter_begin(&w, 3);
        for (uint64_t i = 0; i < h->n_wires; i++) zp_binwriter_u64(&w, i);
        zp_binwriter_end(&w);
    }
    return zp_binwriter_close(&w, err);
}
