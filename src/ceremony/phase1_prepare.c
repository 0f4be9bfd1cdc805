/* powersoftau prepare phase2 (ceremony.h): the ptau's Lagrange sections
 * 12-15, as snarkjs 0.7.6's powersoftau_preparephase2.js writes them, each
 * level an inverse FFT in the exponent (the curve's lagrange op). A level
 * that fits in memory, or in --budget, is one transform; a larger one is
 * cut in two steps of short transforms (the four-step FFT: columns, a
 * twist, rows) through a temporary file beside the output, so that the
 * memory held is the budget's whatever the power. docs/ceremony.md says
 * how much. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/file.h"
#include "ceremony/ceremony.h"
#include "ceremony/internal.h"
#include "curve/desc.h"
#include "io/binfile.h"
#include "mem/track.h"

int zp_ceremony_ptau_prepared(const char *path) {
    zp_cer_ptau pt;
    zp_error err = {0};
    int count = 0;
    if (zp_cer_ptau_open(&pt, path, &err) == ZP_OK && zp_cer_ptau_lagrange_count(&pt, &count, &err) != ZP_OK) count = 0;
    zp_cer_ptau_close(&pt);
    return count > 0;
}

/* What the rest of the process may hold besides the transform's points:
 * its code and threads, the stdio buffer, the twiddles. */
#define ZP_PREPARE_BASE_BYTES ((uint64_t)96 << 20)
/* Pages of the source a column block may leave resident, per column
 * point (a column's points are a level's stride apart: each its own
 * page). */
#define ZP_PREPARE_PAGE 4096u

/* A level's parts in the four-step transform: 2^rows_log rows of
 * 2^cols_log (the columns, the longer). */
static unsigned cols_log(unsigned p) { return p - p / 2; }

/* Bytes a point held costs: itself, its Jacobian copy and to-affine's
 * scratch (the lagrange op's work), its source page share. */
static uint64_t point_cost(const zp_p2_ops *ops, size_t elem, int g2) {
    return 2 * (uint64_t)elem + ops->lagrange_work_bytes(1, g2);
}

/* The points the budget lets a transform hold at once, a power of two:
 * every level when there is no budget. */
static size_t hold_points(const zp_p2_ops *ops, size_t elem, int g2, unsigned top, const zp_ceremony_opts *o) {
    size_t nmax = (size_t)1 << top;
    if (o == NULL || o->budget == 0) return nmax;
    uint64_t fixed = ZP_PREPARE_BASE_BYTES + ((uint64_t)ZP_PREPARE_PAGE << cols_log(top));
    if (o->budget <= fixed) return 0;
    uint64_t n = (o->budget - fixed) / point_cost(ops, elem, g2);
    size_t h = 1;
    while (h < nmax && ((uint64_t)h << 1) <= n) h <<= 1;
    return (uint64_t)h <= n ? h : 0;
}

/* All of [p, p + n) at offset at of the temporary file, read or written. */
static zp_status temp_io(int fd, void *p, size_t n, uint64_t at, int write, zp_error *err) {
    int e = write ? zp_file_pwrite_all(fd, p, n, at) : zp_file_pread_all(fd, p, n, at);
    if (e == 0) return ZP_OK;
    return zp_error_set(err, ZP_ERR_IO, "cannot %s the temporary file: %s", write ? "write" : "read",
                        e < 0 ? "it ended early" : strerror(e));
}

typedef struct {
    zp_binwriter *w;
    const zp_cer_ptau *t;
    const zp_p2_ops *ops;
    const char *what;
    size_t elem;
    int g2;
    uint8_t *buf, *work; /* hold points; lagrange_work_bytes(hold) */
    size_t hold;
    int tmp_fd; /* -1 until a level needs it */
    const char *dir;
    const zp_ceremony_opts *o;
} level_ctx;

/* Level p (n = 2^p) by the four-step transform, n = R·C, j = j1 + R·j2
 * and k = k2 + C·k1: Y[j1][k2] = n⁻¹·ω^(-j1·k2)·Σ_j2 x[j1 + R·j2]·ω_C^(-j2·k2)
 * (the columns, a block of them at a time from the mapped source, Y
 * written row k2 by row to the temporary file), then X[k2 + C·k1] =
 * Σ_j1 Y[j1][k2]·ω_R^(-j1·k1) (the rows, a block at a time, put into the
 * output's room). The same points as the one transform, so the same
 * bytes. */
static zp_status four_step(level_ctx *c, const uint8_t *pts, size_t avail, unsigned p, zp_error *err) {
    const zp_parallel *par = c->o ? c->o->par : NULL;
    unsigned lc = cols_log(p), lr = p - lc;
    size_t n = (size_t)1 << p, R = (size_t)1 << lr, C = (size_t)1 << lc, e = c->elem;
    size_t have = n <= avail ? n : avail;
    zp_status st = ZP_OK;
    if (c->tmp_fd < 0 && (st = zp_cer_unnamed_file(&c->tmp_fd, NULL, c->dir, err)) != ZP_OK) return st;
    uint64_t out_at;
    zp_binwriter_reserve(c->w, (uint64_t)n * e, &out_at);
    char step[80];
    snprintf(step, sizeof step, "prepare phase2: %s 2^%u", c->what, p);
    size_t blocks = (R + c->hold / C - 1) / (c->hold / C) + (C + c->hold / R - 1) / (c->hold / R), done = 0;
    /* the columns */
    for (size_t j1s = 0, bc = c->hold / C; j1s < R && st == ZP_OK; j1s += bc) {
        size_t nb = R - j1s < bc ? R - j1s : bc;
        zp_cer_progress(c->o, step, done++, blocks);
        for (size_t j2 = 0; j2 < C; j2++) {
            for (size_t i = 0; i < nb; i++) {
                size_t s = j1s + i + R * j2;
                uint8_t *dst = c->buf + (i * C + j2) * e;
                if (s < have) memcpy(dst, pts + s * e, e);
                else memset(dst, 0, e);
            }
        }
        zp_binfile_release(&c->t->bf, pts, have * e);
        if ((st = c->ops->lagrange_rows(c->buf, lc, nb, p, j1s, c->g2, c->work, par, err)) != ZP_OK) break;
        /* row k2 of Y holds j1 = 0 .. R: this block's part of each */
        for (size_t k2 = 0; k2 < C; k2++)
            for (size_t i = 0; i < nb; i++) memcpy(c->work + (k2 * nb + i) * e, c->buf + (i * C + k2) * e, e);
        for (size_t k2 = 0; k2 < C && st == ZP_OK; k2++)
            st = temp_io(c->tmp_fd, c->work + k2 * nb * e, nb * e, ((uint64_t)k2 * R + j1s) * e, 1, err);
    }
    /* the rows */
    for (size_t k2s = 0, br = c->hold / R; k2s < C && st == ZP_OK; k2s += br) {
        size_t nb = C - k2s < br ? C - k2s : br;
        zp_cer_progress(c->o, step, done++, blocks);
        if ((st = temp_io(c->tmp_fd, c->buf, nb * R * e, (uint64_t)k2s * R * e, 0, err)) != ZP_OK) break;
        if ((st = c->ops->lagrange_rows(c->buf, lr, nb, 0, 0, c->g2, c->work, par, err)) != ZP_OK) break;
        for (size_t k1 = 0; k1 < R; k1++) {
            for (size_t i = 0; i < nb; i++) memcpy(c->work + i * e, c->buf + (i * R + k1) * e, e);
            zp_binwriter_put(c->w, out_at + ((uint64_t)k1 * C + k2s) * e, c->work, nb * e);
        }
    }
    zp_cer_progress(c->o, step, blocks, blocks);
    return st;
}

/* One Lagrange section of the prepared file: for p = 0 .. top, the first
 * 2^p points of the source section, turned into the Lagrange basis of the
 * 2^p domain (tauG1 goes one level above the ceremony's power, its last
 * point, τ^(2^(power+1)-1), missing from the file and taken as zero: what
 * snarkjs does). */
static zp_status lagrange_section(zp_binwriter *w, const zp_cer_ptau *t, const zp_p2_ops *ops, uint32_t dst,
                                  const char *what, const uint8_t *pts, size_t avail, unsigned top, int g2,
                                  const char *dir, const zp_ceremony_opts *o, zp_error *err) {
    size_t elem = g2 ? t->d->g2_bytes : t->d->g1_bytes;
    size_t hold = hold_points(ops, elem, g2, top, o);
    level_ctx c = {w, t, ops, what, elem, g2, NULL, NULL, hold, -1, dir, o};
    zp_tracked buf = {0}, work = {0};
    zp_status st = zp_cer_alloc(&buf, hold * elem, what, err);
    if (st == ZP_OK) st = zp_cer_alloc(&work, ops->lagrange_work_bytes(hold, g2), "lagrange work", err);
    if (st != ZP_OK) goto out;
    c.buf = buf.p, c.work = work.p;
    zp_binwriter_begin(w, dst);
    for (unsigned p = 0; p <= top && st == ZP_OK; p++) {
        size_t n = (size_t)1 << p, have = n <= avail ? n : avail;
        if (n > hold) {
            st = four_step(&c, pts, avail, p, err);
            continue;
        }
        memcpy(buf.p, pts, have * elem);
        memset((uint8_t *)buf.p + have * elem, 0, (n - have) * elem);
        zp_binfile_release(&t->bf, pts, have * elem);
        char step[80];
        snprintf(step, sizeof step, "prepare phase2: %s 2^%u", what, p);
        zp_cer_progress(o, step, 0, 1);
        if ((st = ops->lagrange(buf.p, p, g2, work.p, o ? o->par : NULL, err)) != ZP_OK) goto out;
        zp_cer_progress(o, step, 1, 1);
        zp_binwriter_bytes(w, buf.p, n * elem);
    }
    zp_binwriter_end(w);
out:
    if (c.tmp_fd >= 0) close(c.tmp_fd);
    zp_cer_free(&buf);
    zp_cer_free(&work);
    return st;
}

zp_status zp_ceremony_ptau_prepare(const char *in_path, const char *out_path, const zp_ceremony_opts *o,
                                   zp_error *err) {
    zp_cer_ptau pt;
    zp_binwriter w = {0};
    int writing = 0;
    zp_status st = zp_cer_ptau_open(&pt, in_path, err);
    if (st != ZP_OK) goto out;
    const zp_curve_desc *d = pt.d;
    const zp_p2_ops *ops = zp_p2_ops_get(d->id);
    unsigned power = pt.power;
    if (power + 1 > d->fr_two_adicity) {
        st = zp_error_set(err, ZP_ERR_UNSUPPORTED, "%s: power %u is too large for %s (at most %u)", in_path, power,
                          d->title, d->fr_two_adicity - 1);
        goto out;
    }
    uint64_t n = (uint64_t)1 << power;
    /* the budget first: refused before minutes of point checks */
    if (o != NULL && o->budget != 0) {
        static const struct {
            unsigned extra;
            int g2;
        } part[2] = {{1, 0}, {0, 1}};
        for (int i = 0; i < 2; i++) {
            unsigned top = power + part[i].extra;
            size_t elem = part[i].g2 ? d->g2_bytes : d->g1_bytes;
            if (hold_points(ops, elem, part[i].g2, top, o) >= (size_t)1 << cols_log(top)) continue;
            uint64_t least = ZP_PREPARE_BASE_BYTES +
                             (((uint64_t)ZP_PREPARE_PAGE + point_cost(ops, elem, part[i].g2)) << cols_log(top));
            char a[32], b[32];
            st = zp_error_set(err, ZP_ERR_ARG, "prepare phase2: a budget of %s is below the %s a power of %u needs",
                              zp_size_text(a, o->budget), zp_size_text(b, least), power);
            goto out;
        }
    }
    /* the temporary file of a level cut in two goes beside the output */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", out_path);
    char *slash = strrchr(dir, '/');
    if (slash == NULL) snprintf(dir, sizeof dir, ".");
    else if (slash == dir) dir[1] = 0;
    else *slash = 0;
    const uint8_t *tau1, *tau2, *alpha, *beta, *contrib;
    uint64_t ncontrib;
    zp_cer_powers pw;
    if ((st = zp_cer_ptau_powers(&pt, power, &pw, o, err)) != ZP_OK) goto out;
    tau1 = pw.tau_g1, tau2 = pw.tau_g2, alpha = pw.alpha_g1, beta = pw.beta_g1;
    if ((st = zp_binfile_section(&pt.bf, 7, "contributions", 1, &contrib, &ncontrib, err)) != ZP_OK) goto out;
    if ((st = zp_binwriter_open(&w, out_path, "ptau", 1, 11, err)) != ZP_OK) goto out;
    writing = 1;
    zp_binwriter_begin(&w, 1);
    zp_binwriter_u32(&w, (uint32_t)d->fp_bytes);
    zp_binwriter_bytes(&w, d->fp_modulus, d->fp_bytes);
    zp_binwriter_u32(&w, power);
    zp_binwriter_u32(&w, power); /* writePTauHeader's ceremonyPower defaults to power */
    zp_binwriter_end(&w);
    static const char *const names[] = {"tauG1", "tauG2", "alphaTauG1", "betaTauG1", "betaG2", "contributions"};
    for (uint32_t id = 2; id <= 7; id++) {
        if ((st = zp_cer_copy_section(&w, &pt.bf, id, names[id - 2], err)) != ZP_OK) goto out;
    }
    if ((st = lagrange_section(&w, &pt, ops, 12, "tauG1", tau1, 2 * n - 1, power + 1, 0, dir, o, err)) != ZP_OK)
        goto out;
    if ((st = lagrange_section(&w, &pt, ops, 13, "tauG2", tau2, n, power, 1, dir, o, err)) != ZP_OK) goto out;
    if ((st = lagrange_section(&w, &pt, ops, 14, "alphaTauG1", alpha, n, power, 0, dir, o, err)) != ZP_OK) goto out;
    if ((st = lagrange_section(&w, &pt, ops, 15, "betaTauG1", beta, n, power, 0, dir, o, err)) != ZP_OK) goto out;
    writing = 0;
    st = zp_binwriter_close(&w, err);
out:
    if (writing) zp_binwriter_abort(&w);
    zp_cer_ptau_close(&pt);
    return st;
}
