/* What phase 1 and phase 2 share (internal.h): the tracked buffers, the
 * progress line, the checks of points read from a file, the ptau header,
 * the pages that hold a contribution's secrets, beacons, names. */
#define _GNU_SOURCE /* O_TMPFILE, mkostemp */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/digest.h"
#include "base/error.h"
#include "base/random.h"
#include "ceremony/ceremony.h"
#include "ceremony/ct_lanes.h"
#include "ceremony/internal.h"
#include "curve/desc.h"
#include "curve/subgroup.h"
#include "io/elements.h"
#include "mem/track.h"

/* The large buffers of a ceremony step, counted like every other. */
static zp_tracker tracker;
static int tracker_ready;
zp_status zp_cer_alloc(zp_tracked *b, size_t bytes, const char *what, zp_error *err) {
    if (!tracker_ready) {
        zp_tracker_init(&tracker);
        tracker_ready = 1;
    }
    return zp_track_alloc(b, &tracker, 0, 0, bytes ? bytes : 1, what, err);
}
void zp_cer_free(zp_tracked *b) {
    if (b->p != NULL) zp_track_free(&tracker, b);
}

void zp_cer_progress(const zp_ceremony_opts *o, const char *step, size_t done, size_t total) {
    if (o == NULL || !o->progress) return;
    fprintf(stderr, "\rzkpipe: %s %zu/%zu   ", step, done, total);
    if (done == total) fputc('\n', stderr);
    fflush(stderr);
}

void zp_ceremony_print_hash(FILE *f, const char *title, const uint8_t h[ZP_CEREMONY_HASH_BYTES]) {
    fprintf(f, "%s\n", title);
    for (int i = 0; i < 4; i++) {
        fputs("\t\t", f);
        for (int j = 0; j < 4; j++) {
            const uint8_t *w = h + 16 * i + 4 * j;
            fprintf(f, "%s%02x%02x%02x%02x", j ? " " : "", w[0], w[1], w[2], w[3]);
        }
        fputc('\n', f);
    }
}

/* ---- points read from a file ---- */

/* Every point of pts[0, n) (affine LEM, any alignment) is canonical, on
 * its curve and, where asked, in the prime-order subgroup: snarkjs checks
 * none of it, but the endomorphism splits of phase2_impl.h (GLV, ψ, x²)
 * are k·P only in the subgroup, so a point outside it would give bytes
 * other than snarkjs's, and a verifier's pairings would be meaningless.
 * A point only copied, hashed or added needs no more than its curve
 * (zp_cer_check). One task per
 * block of points; the first bad one is reported, naming the file and the
 * section. BN254's G2 points, most of a circuit's zkey new once its
 * products were in the lanes (54% at 2^15), are tested for the subgroup
 * in batches (curve/subgroup.h: five random combinations of up to
 * CHECK_BATCH points, each an MSM of 64-bit scalars and one test); a
 * batch that fails is tested point by point to name the bad one. */
#define CHECK_BLOCK 1024
#define CHECK_BATCH 32768
#define CHECK_BATCH_MIN 4096 /* below, point by point costs about the same */
typedef struct check_job {
    const uint8_t *pts;
    size_t n, elem;
    zp_curve curve;
    int g2;
    int subgroup;       /* 0: on the curve only (the caller batches the subgroup test) */
    _Atomic size_t bad; /* the lowest bad index seen; n when none */
    /* the subgroup tests eight at a time in the IFMA lanes, or NULL */
    const zp_p2_ops *ops;
    const zp_ct_lanes_curve *lanes;
} check_job;

static void check_task(void *arg, size_t t, size_t worker) {
    (void)worker;
    check_job *j = arg;
    size_t lo = t * CHECK_BLOCK, hi = lo + CHECK_BLOCK < j->n ? lo + CHECK_BLOCK : j->n;
    /* with the lanes, the subgroup after the block's curve checks */
    int whole = j->subgroup && j->lanes == NULL;
    size_t i = lo;
    for (; i < hi && i < atomic_load_explicit(&j->bad, memory_order_relaxed); i++) {
        uint64_t limbs[24];
        memcpy(limbs, j->pts + i * j->elem, j->elem);
        zp_io_point_check r = j->g2 ? zp_io_g2_check(j->curve, limbs, whole) : zp_io_g1_check(j->curve, limbs, whole);
        if (r != ZP_IO_POINT_OK) break;
    }
    if (j->subgroup && !whole && i > lo) {
        size_t out = j->ops->lanes_first_outside(j->pts + lo * j->elem, i - lo, j->g2, j->lanes);
        if (out < i - lo) i = lo + out;
    }
    if (i < hi) zp_cer_note_first(&j->bad, i);
}

/* The points of pts[0, k) on their curve, the subgroup tested in
 * batches: the index of a point outside it (the first of the first
 * batch that fails, found by check_task), k when none, or SIZE_MAX with
 * *st set. */
static size_t check_batched(const uint8_t *pts, size_t k, size_t elem, const zp_curve_desc *d, int g2,
                            const zp_p2_ops *ops, unsigned rounds, const zp_ct_lanes_curve *lanes,
                            const zp_parallel *par, zp_status *st, zp_error *err) {
    zp_tracked sc = {0};
    size_t most = k < CHECK_BATCH ? k : CHECK_BATCH, bad = k;
    if ((*st = zp_cer_alloc(&sc, most * 32, "subgroup test scalars", err)) != ZP_OK) return SIZE_MAX;
    uint64_t *c = sc.p;
    for (size_t lo = 0; lo < k && bad == k; lo += CHECK_BATCH) {
        size_t m = k - lo < CHECK_BATCH ? k - lo : CHECK_BATCH;
        int fails = 0;
        for (unsigned r = 0; r < rounds && !fails; r++) {
            /* m 64-bit scalars from the OS, spread to four limbs from the top down */
            if ((*st = zp_random_bytes(c, m * 8, err)) != ZP_OK) break;
            for (size_t i = m; i-- > 0;) {
                uint64_t v = c[i];
                c[4 * i] = v, c[4 * i + 1] = c[4 * i + 2] = c[4 * i + 3] = 0;
            }
            uint64_t s[24] = {0};
            if ((*st = (g2 ? ops->g2_lincomb : ops->g1_lincomb)((uint8_t *)s, pts + lo * elem, c, m, par, err)) !=
                ZP_OK)
                break;
            fails = (g2 ? zp_io_g2_check(d->id, s, 1) : zp_io_g1_check(d->id, s, 1)) != ZP_IO_POINT_OK;
        }
        if (*st != ZP_OK) break;
        if (fails) { /* which one: the batch point by point */
            check_job j = {pts + lo * elem, m, elem, d->id, g2, 1, m, ops, lanes};
            zp_parallel_for(par, (m + CHECK_BLOCK - 1) / CHECK_BLOCK, check_task, &j);
            size_t at = atomic_load(&j.bad);
            if (at < m) bad = lo + at;
        }
    }
    zp_cer_free(&sc);
    return *st != ZP_OK ? SIZE_MAX : bad;
}

zp_status zp_cer_random_scalars128(uint64_t *k, size_t n, zp_error *err) {
    /* 16 random bytes a scalar, drawn at once, then spread to 32 */
    zp_status st = zp_random_bytes(k, n * 16, err);
    if (st != ZP_OK) return st;
    for (size_t i = n; i-- > 0;) {
        memmove(k + 4 * i, (uint8_t *)k + 16 * i, 16);
        k[4 * i + 2] = k[4 * i + 3] = 0;
    }
    return ZP_OK;
}

zp_status zp_cer_bad_point(zp_error *err, const zp_binfile *bf, uint32_t id, const char *what, size_t index,
                           const char *problem) {
    return zp_error_set(err, ZP_ERR_FORMAT, "%s: section %u (%s): point #%zu %s", bf->name, id, what, index, problem);
}

/* zp_cer_check_points for the points of a section from its point #first
 * on, which the report names */
static zp_status check_from(const zp_binfile *bf, uint32_t id, const char *what, const zp_curve_desc *d,
                            const uint8_t *pts, size_t first, size_t n, int g2, zp_cer_check check,
                            const zp_ceremony_opts *o, zp_error *err) {
    size_t elem = g2 ? d->g2_bytes : d->g1_bytes, slice = ZP_CER_SLICE_BYTES / elem;
    const zp_p2_ops *ops = zp_p2_ops_get(d->id);
    zp_ct_lanes_curve lc;
    int subgroup = check == ZP_CER_IN_SUBGROUP;
    int lanes = subgroup && ops != NULL && ops->lanes_check_init(&lc, g2, o ? o->par : NULL);
    unsigned rounds = subgroup && ops != NULL && g2 && d->id == ZP_CURVE_BN254 ? ZP_SUBGROUP_BN254_G2_BATCH_ROUNDS : 0;
    /* a slice at a time, its pages let go once checked: a step's budget
     * holds one slice of a file, not the file */
    for (size_t at = 0; at < n; at += slice) {
        size_t k = n - at < slice ? n - at : slice;
        const uint8_t *p = pts + at * elem;
        int batched = rounds > 0 && k >= CHECK_BATCH_MIN;
        check_job j = {p, k, elem, d->id, g2, subgroup && !batched, k, ops, lanes ? &lc : NULL};
        zp_parallel_for(o ? o->par : NULL, (k + CHECK_BLOCK - 1) / CHECK_BLOCK, check_task, &j);
        size_t bad = atomic_load(&j.bad);
        if (batched) {
            zp_status st = ZP_OK;
            size_t out =
                check_batched(p, bad, elem, d, g2, ops, rounds, lanes ? &lc : NULL, o ? o->par : NULL, &st, err);
            if (st != ZP_OK) return st;
            if (out < bad) bad = out;
        }
        if (bad != k) {
            uint64_t limbs[24];
            memcpy(limbs, p + bad * elem, elem);
            zp_io_point_check r = g2 ? zp_io_g2_check(d->id, limbs, subgroup) : zp_io_g1_check(d->id, limbs, subgroup);
            return zp_cer_bad_point(err, bf, id, what, first + at + bad, zp_io_point_problem(r));
        }
        zp_binfile_release(bf, p, k * elem);
        if (n > slice) { /* minutes on big files */
            char step[96];
            snprintf(step, sizeof step, "checking section %u (%s)", id, what);
            zp_cer_progress(o, step, at + k, n);
        }
    }
    return ZP_OK;
}

zp_status zp_cer_check_points(const zp_binfile *bf, uint32_t id, const char *what, const zp_curve_desc *d,
                              const uint8_t *pts, size_t n, int g2, zp_cer_check check, const zp_ceremony_opts *o,
                              zp_error *err) {
    return check_from(bf, id, what, d, pts, 0, n, g2, check, o, err);
}

/* ---- the powers of tau ---- */

zp_status zp_cer_ptau_open(zp_cer_ptau *t, const char *path, zp_error *err) {
    memset(t, 0, sizeof *t);
    zp_status st = zp_binfile_open(&t->bf, path, "ptau", 1, err);
    if (st != ZP_OK) return st;
    t->open = 1;
    const uint8_t *p;
    uint64_t n;
    if ((st = zp_binfile_section(&t->bf, 1, "header", 1, &p, &n, err)) != ZP_OK) return st;
    uint32_t n8 = n >= 4 ? zp_cer_rd32(p) : 0;
    if (n < 4 || n != 4 + (uint64_t)n8 + 8) {
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: section 1 (header) is %llu bytes, not a ptau header", path,
                            (unsigned long long)n);
    }
    t->d = zp_curve_find_fp(p + 4, n8);
    if (t->d == NULL) {
        return zp_error_set(err, ZP_ERR_UNSUPPORTED, "%s: section 1 (header): the curve is none of %s", path,
                            ZP_CURVE_NAMES);
    }
    t->power = zp_cer_rd32(p + 4 + n8);
    t->ceremony_power = zp_cer_rd32(p + 8 + n8);
    if (t->power < 1 || t->power > 30) {
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: section 1 (header): power %u out of range", path, t->power);
    }
    return ZP_OK;
}

void zp_cer_ptau_close(zp_cer_ptau *t) {
    if (t->open) zp_binfile_close(&t->bf);
    t->open = 0;
}

zp_status zp_cer_ptau_lagrange_count(const zp_cer_ptau *t, int *count, zp_error *err) {
    *count = 0;
    for (uint32_t id = 12; id <= 15; id++) {
        const uint8_t *p;
        uint64_t size;
        zp_status st = zp_binfile_section(&t->bf, id, "lagrange", 0, &p, &size, err);
        if (st != ZP_OK) return st;
        *count += p != NULL;
    }
    return ZP_OK;
}

zp_status zp_cer_ptau_points(const zp_cer_ptau *t, uint32_t id, const char *what, uint64_t count, int g2, uint64_t from,
                             uint64_t used, zp_cer_check check, const uint8_t **out, const zp_ceremony_opts *o,
                             zp_error *err) {
    uint64_t n;
    size_t elem = g2 ? t->d->g2_bytes : t->d->g1_bytes;
    zp_status st = zp_binfile_section(&t->bf, id, what, 1, out, &n, err);
    if (st != ZP_OK) return st;
    if (n != count * elem) {
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: section %u (%s) is %llu bytes, expected %llu (%llu points)",
                            t->bf.name, id, what, (unsigned long long)n, (unsigned long long)(count * elem),
                            (unsigned long long)count);
    }
    return check_from(&t->bf, id, what, t->d, *out + from * elem, (size_t)from, (size_t)used, g2, check, o, err);
}

zp_status zp_cer_ptau_powers(const zp_cer_ptau *t, unsigned power, zp_cer_powers *p, const zp_ceremony_opts *o,
                             zp_error *err) {
    uint64_t n = (uint64_t)1 << power;
    const struct {
        uint32_t id;
        const char *what;
        uint64_t count;
        int g2;
        const uint8_t **out;
    } sec[5] = {{2, "tauG1", 2 * n - 1, 0, &p->tau_g1},
                {3, "tauG2", n, 1, &p->tau_g2},
                {4, "alphaTauG1", n, 0, &p->alpha_g1},
                {5, "betaTauG1", n, 0, &p->beta_g1},
                {6, "betaG2", 1, 1, &p->beta_g2}};
    for (int i = 0; i < 5; i++) {
        zp_status st = zp_cer_ptau_points(t, sec[i].id, sec[i].what, sec[i].count, sec[i].g2, 0, sec[i].count,
                                          ZP_CER_IN_SUBGROUP, sec[i].out, o, err);
        if (st != ZP_OK) return st;
    }
    return ZP_OK;
}

void *zp_cer_secret_alloc(size_t size, zp_error *err) {
    size_t bytes = (size + 4095) & ~(size_t)4095;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        zp_error_set(err, ZP_ERR_NOMEM, "cannot map memory for the contribution's secret");
        return NULL;
    }
    (void)madvise(p, bytes, MADV_DONTDUMP);
    (void)mlock(p, bytes); /* best effort: RLIMIT_MEMLOCK may refuse */
    return p;
}

void zp_cer_secret_free(void *s, size_t size) {
    if (s == NULL) return;
    size_t bytes = (size + 4095) & ~(size_t)4095;
    explicit_bzero(s, bytes);
    (void)munlock(s, bytes);
    munmap(s, bytes);
}

static int hex_nibble(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

zp_status zp_cer_beacon_seed(uint8_t seed[32], const uint8_t *beacon, size_t len, unsigned iter_exp, zp_error *err) {
    uint8_t cur[32];
    zp_status st = zp_sha256_bytes(cur, beacon, len, err);
    if (st != ZP_OK) return st;
    uint64_t n = iter_exp >= 64 ? 0 : ((uint64_t)1 << iter_exp);
    for (uint64_t i = 1; i < n; i++) {
        if ((st = zp_sha256_bytes(cur, cur, 32, err)) != ZP_OK) return st;
    }
    memcpy(seed, cur, 32);
    return ZP_OK;
}

zp_status zp_cer_beacon_parse(uint8_t beacon[255], size_t *len_out, const char *beacon_hex, unsigned iter_exp,
                              zp_error *err) {
    size_t len = strlen(beacon_hex);
    const char *hx = beacon_hex;
    if (len >= 2 && hx[0] == '0' && hx[1] == 'x') hx += 2, len -= 2;
    if (len == 0 || len % 2 != 0 || len / 2 > 255) {
        return zp_error_set(err, ZP_ERR_ARG, "the beacon hash must be 1 to 255 bytes in hex");
    }
    for (size_t i = 0; i < len / 2; i++) {
        int a = hex_nibble(hx[2 * i]), b = hex_nibble(hx[2 * i + 1]);
        if (a < 0 || b < 0) return zp_error_set(err, ZP_ERR_ARG, "the beacon hash is not hexadecimal");
        beacon[i] = (uint8_t)(a << 4 | b);
    }
    if (iter_exp < 10 || iter_exp > 63) {
        return zp_error_set(err, ZP_ERR_ARG, "the beacon's iterations exponent must be from 10 to 63");
    }
    *len_out = len / 2;
    return ZP_OK;
}

zp_status zp_cer_copy_section(zp_binwriter *w, const zp_binfile *bf, uint32_t id, const char *what, zp_error *err) {
    const uint8_t *p;
    uint64_t n;
    zp_status st = zp_binfile_section(bf, id, what, 1, &p, &n, err);
    if (st != ZP_OK) return st;
    zp_binwriter_begin(w, id);
    for (uint64_t at = 0; at < n; at += ZP_CER_SLICE_BYTES) {
        size_t k = n - at < ZP_CER_SLICE_BYTES ? (size_t)(n - at) : ZP_CER_SLICE_BYTES;
        zp_binwriter_bytes(w, p + at, k);
        zp_binfile_release(bf, p + at, k);
    }
    zp_binwriter_end(w);
    return ZP_OK;
}

int zp_cer_same_bytes(const zp_binfile *fa, const uint8_t *a, const zp_binfile *fb, const uint8_t *b, uint64_t n) {
    int same = 1;
    for (uint64_t at = 0; at < n && same; at += ZP_CER_SLICE_BYTES) {
        size_t k = n - at < ZP_CER_SLICE_BYTES ? (size_t)(n - at) : ZP_CER_SLICE_BYTES;
        same = memcmp(a + at, b + at, k) == 0;
        zp_binfile_release(fa, a + at, k);
        zp_binfile_release(fb, b + at, k);
    }
    return same;
}

void zp_cer_js_name(char out[256], const char *name) {
    size_t units = 0, o = 0;
    const unsigned char *s = (const unsigned char *)name;
    while (*s && units < 64) {
        size_t len = *s < 0x80 ? 1 : (*s >> 5) == 6 ? 2 : (*s >> 4) == 14 ? 3 : 4;
        if (len == 4 && units == 63) {
            memcpy(out + o, "\xef\xbf\xbd", 3);
            o += 3;
            break;
        }
        memcpy(out + o, s, len);
        o += len, s += len;
        units += len == 4 ? 2 : 1;
    }
    out[o] = 0;
}

int zp_cer_utf8_valid(const char *str) {
    const unsigned char *s = (const unsigned char *)str;
    while (*s) {
        size_t len = *s < 0x80 ? 1 : (*s >> 5) == 6 ? 2 : (*s >> 4) == 14 ? 3 : (*s >> 3) == 30 ? 4 : 0;
        if (len == 0) return 0;
        for (size_t i = 1; i < len; i++) {
            if ((s[i] & 0xc0) != 0x80) return 0;
        }
        s += len;
    }
    return 1;
}

size_t zp_cer_params_encode(uint8_t out[ZP_CER_PARAMS_MAX], const char *name, uint32_t type, unsigned iter_exp,
                            const uint8_t *beacon, size_t beacon_len) {
    size_t n = 0;
    if (name != NULL) {
        size_t len = strlen(name);
        out[n++] = 1;
        out[n++] = (uint8_t)len;
        memcpy(out + n, name, len);
        n += len;
    }
    if (type == 1) {
        out[n++] = 2;
        out[n++] = (uint8_t)iter_exp;
        out[n++] = 3;
        out[n++] = (uint8_t)beacon_len;
        memcpy(out + n, beacon, beacon_len);
        n += beacon_len;
    }
    return n;
}

int zp_cer_params_decode(const uint8_t *q, size_t len, uint32_t type, char name[256], int *has_name, unsigned *iter_exp,
                         uint8_t beacon[255], size_t *beacon_len) {
    const uint8_t *end = q + len;
    unsigned last = 0;
    while (q < end) {
        unsigned ty = *q++;
        if (ty <= last || q >= end) return 0;
        last = ty;
        unsigned n = *q++;
        if (ty == 2) {
            *iter_exp = n;
            continue;
        }
        if ((ty != 1 && ty != 3) || (size_t)(end - q) < n) return 0;
        if (ty == 1) {
            memcpy(name, q, n);
            name[n] = 0;
            *has_name = 1;
        } else {
            memcpy(beacon, q, n);
            *beacon_len = n;
        }
        q += n;
    }
    return type != 1 || (*beacon_len != 0 && *iter_exp >= 10 && *iter_exp <= 63);
}

zp_status zp_cer_unnamed_file(int *fd, char path[32], const char *dir, zp_error *err) {
    if (dir == NULL) dir = getenv("TMPDIR");
    if (dir == NULL || dir[0] == 0) dir = "/tmp";
    *fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (*fd < 0) {
        char tmpl[4096];
        snprintf(tmpl, sizeof tmpl, "%s/zkpipe-tmp-XXXXXX", dir);
        *fd = mkostemp(tmpl, O_CLOEXEC);
        if (*fd >= 0) unlink(tmpl);
    }
    if (*fd < 0) return zp_error_set(err, ZP_ERR_IO, "cannot create a temporary file in %s: %s", dir, strerror(errno));
    if (path != NULL) snprintf(path, 32, "/proc/self/fd/%d", *fd);
    return ZP_OK;
}
