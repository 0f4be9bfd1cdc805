/* Number-theoretic transform over one scalar field, instantiated per field
 * by ntt.c with ZP_N set to the field prefix (e.g. zp_bn254_fr).
 *
 * Forward: a[i] <- sum_j a[j]·ω^(ij), ω the primitive n-th root derived as
 * ffjavascript derives it (so values sit at the same points as snarkjs's).
 * Inverse: with ω^-1, then scaled by 1/n. Field arithmetic is exact, so
 * every factorisation below gives the same elements as the textbook
 * radix-2 transform.
 *
 * Shape (the "four-step" FFT, Bailey, "FFTs in external or hierarchical
 * memory", 1990): n = R·B, the array read as R rows of B contiguous
 * elements, position p = r·B + c. With ω_R = ω^B, ω_B = ω^R, and a
 * decimation-in-frequency (dif) transform leaving its output in
 * bit-reversed order:
 *   1. columns: a dif of size R down each column (stride B);
 *   2. twist:   position (r, c) times ω^(c·k), k = rev_R(r);
 *   3. rows:    a dif of size B along each row.
 * Position p then holds X[rev_n(p)], since rev_n(r·B + c) = rev_B(c)·R +
 * rev_R(r): the whole is a dif, natural in and bit-reversed out, with each
 * step touching a block at a time (a row, 32 KiB at n = 2^20; a group of
 * G adjacent columns, up to 2 MiB, whose long contiguous runs per row
 * measured faster than blocks small enough for L2). Run backwards
 * (rows by dit, twist, columns by dit) it is a dit: bit-reversed in,
 * natural out. The block transforms are in ntt_kernels_impl.h.
 *
 * ntt_to_coset (the prover's step) is inverse dif, coefficient scaling,
 * forward dit with no permutation in between: after the inverse dif,
 * position p holds n times coefficient i = rev_n(p) = k + R·rev_B(c), whose
 * factor shift^i / n splits into a per-row shift^k / n (folded into the
 * twist, whose first factor it becomes) and a per-column
 * (shift^R)^rev_B(c) (one table). The inverse rows, the scaling, the
 * forward rows and both twists run in one pass over each row, so the
 * whole is three passes over memory: columns, rows, columns.
 *
 * ntt with natural order in and out is the dif (the 1/n of the inverse
 * folded into the twist) followed by a bit-reversal permutation, done in
 * 16x16 tiles so that each cache line is used whole.
 *
 * Twiddles come from tables in the caller's scratch (O(sqrt n) elements):
 * ω_B^j and ω_B^-j for j < B, which also serve the columns (ω_R = ω_B^(B/R)
 * as B >= R), and ω^±k for the twists, whose powers ω^(c·k) are a running
 * product along the row. The twist so costs two multiplications per
 * element, which brings a transform to about (n/2)·log n of them, some n
 * (10% at 2^20) above radix-2 with its trivial twiddles skipped; blocks
 * using the radix-2 twiddles directly would need an n/2-element table
 * (16 MiB at 2^20) built on every call and read back from memory. Columns
 * go out in groups, rows in runs, to zp_parallel_for; tasks write disjoint
 * elements and read shared tables. */
#define ZP_CAT_(a, b) a##b
#define ZP_CAT(a, b) ZP_CAT_(a, b)
#define N_(name) ZP_CAT(ZP_N, _##name)
#define FT ZP_N
#define NC_(name) ZP_CAT(ZP_N_UP, _##name)
#define F_(name) ZP_CAT(FT, _##name)

#include "ntt/ntt_kernels_impl.h"

static const FT N_(max_root) = {NC_(FR_ROOT_INIT)};

int N_(root_of_unity)(FT *w, unsigned log_n) {
    if (log_n > NC_(FR_TWO_ADICITY)) return 0;
    *w = N_(max_root);
    for (unsigned i = log_n; i < NC_(FR_TWO_ADICITY); i++) F_(sqr)(w, w);
    return 1;
}

typedef struct {
    FT *a;
    unsigned log_n, log_r, log_b;
    size_t R, B;       /* rows, row length: n = R·B, B >= R */
    size_t G;          /* columns per column task */
    size_t rows;       /* rows per row task */
    const FT *tab_f;   /* ω_B^j, j < B */
    const FT *tab_i;   /* ω_B^-j */
    const FT *mid_f;   /* ω^k, k < R: the twist along row rev_R(k) */
    const FT *mid_i;   /* ω^-k */
    const FT *coset_c; /* (shift^R)^rev_B(c), c < B */
    const FT *coset_r; /* shift^k / n, k < R */
    FT n_inv;
    int inverse;
    /* the IFMA lanes (ntt_simd.h), when simd is set: the tables above in
     * twiddle form, and one work block of max(R, B) elements per worker */
    int simd;
    zp_ifma_field fld;
    const zp_ifma_limbs *tab_f52, *tab_i52, *coset_c52;
    unsigned char *work;
    size_t work_stride; /* from one worker's block to the next */
} N_(plan);

static size_t N_(bitrev)(size_t x, unsigned bits) {
    size_t r = 0;
    for (unsigned i = 0; i < bits; i++) r |= ((x >> i) & 1) << (bits - 1 - i);
    return r;
}

/* Up to 2^10 elements (32 KiB) the transform is one row: no columns, no
 * twist, serial. Above, rows of 2^ceil(L/2) and columns of 2^floor(L/2). */
#define ZP_NTT_ONE_ROW_LOG 10

static void N_(split)(unsigned log_n, unsigned *log_r, unsigned *log_b) {
    *log_r = log_n <= ZP_NTT_ONE_ROW_LOG ? 0 : log_n / 2;
    *log_b = log_n - *log_r;
}

/* Scratch: tab_f, tab_i, coset_c (B each), mid_f, mid_i, coset_r (R each);
 * then, for transforms with rows and columns, the IFMA path's tables
 * (tab_f, tab_i, coset_c in twiddle form) and its work blocks, 64-byte
 * aligned. These are counted whether or not the CPU has IFMA, so that the
 * size does not depend on the machine (about 8 % of the vector at 2^16,
 * 2 % at 2^20, with two threads, before the spread below). */
static size_t N_(table_elems)(unsigned log_n) {
    unsigned log_r, log_b;
    N_(split)(log_n, &log_r, &log_b);
    return 3 * ((size_t)1 << log_b) + 3 * ((size_t)1 << log_r);
}

static size_t N_(work_bytes)(unsigned log_n) {
    unsigned log_r, log_b;
    N_(split)(log_n, &log_r, &log_b);
    return ZP_IFMA_ELEM_BYTES << (log_b > log_r ? log_b : log_r);
}

/* The workers' blocks lie ZP_NTT_WORK_SPREAD block lengths apart. Two
 * workers whose blocks were adjacent ran the passes a fifth slower than
 * alone, on the 2-core EPYC (Zen 5) VM this was measured on, although two
 * one-thread processes ran side by side at full speed: to_coset, bn254,
 * two threads, medians, by the distance from one block's start to the
 * next (a block is 80 KiB at 2^16, 320 KiB at 2^20, 1.3 MB at 2^24):
 *   2^16: 1 block 2.62 ms, 2 blocks 2.24, 4 blocks 2.22
 *   2^20: 1 block 52.4 ms, 2 blocks 47.6, 3.2 blocks 42.4, 4.8 blocks 42.3
 *   2^22: 1 block 224 ms, 2.4 blocks 202, 4.8 blocks 192, 9.6 blocks 192
 *   2^24: 1 block 1051 ms, 2 blocks 942, 4 blocks 848, 8 blocks 849
 * Why nearness costs is not known (the blocks share no cache line); the
 * spread costs address space and budget, not resident memory, as the
 * gaps are never touched. */
#define ZP_NTT_WORK_SPREAD 4

static size_t N_(work_stride)(unsigned log_n) { return ZP_NTT_WORK_SPREAD * N_(work_bytes)(log_n); }

size_t N_(ntt_scratch_size)(unsigned log_n, size_t threads) {
    if (log_n > NC_(FR_TWO_ADICITY)) return 0;
    size_t bytes = N_(table_elems)(log_n) * sizeof(FT);
    if (log_n > ZP_NTT_ONE_ROW_LOG) {
        unsigned log_r, log_b;
        N_(split)(log_n, &log_r, &log_b);
        if (threads == 0) threads = 1;
        bytes += 3 * ((size_t)1 << log_b) * sizeof(zp_ifma_limbs) + 64 + (threads - 1) * N_(work_stride)(log_n) +
                 N_(work_bytes)(log_n);
    }
    return bytes;
}

/* out[j] = first·base^j for j < len */
static void N_(powers)(FT *out, size_t len, const FT *first, const FT *base) {
    if (len == 0) return;
    out[0] = *first;
    for (size_t j = 1; j < len; j++) F_(mul)(&out[j], &out[j - 1], base);
}

/* x·2^260 mod p (x·R in, R = 2^256: four doublings) in 52-bit limbs:
 * the twiddle form of ntt_simd.h */
static void N_(to_tw)(zp_ifma_limbs *t, const FT *x) {
    FT y;
    F_(dbl)(&y, x);
    for (int i = 0; i < 3; i++) F_(dbl)(&y, &y);
    zp_ifma_from_limbs(t, y.v);
}

/* The IFMA path's part of the plan: the field, the tables in twiddle form
 * (after the scalar ones at mem), the work blocks, and its task shapes:
 * eight columns, or eight rows, per task (one work block). */
static void N_(plan_simd)(N_(plan) *pl, void *mem, int coset) {
    zp_ifma_field_init(&pl->fld, F_(modulus).v, 4);
    zp_ifma_limbs *tf = mem, *ti = tf + pl->B, *cc = ti + pl->B;
    for (size_t j = 0; j < pl->B; j++) {
        N_(to_tw)(&tf[j], &pl->tab_f[j]);
        N_(to_tw)(&ti[j], &pl->tab_i[j]);
        if (coset) N_(to_tw)(&cc[j], &pl->coset_c[j]);
    }
    pl->tab_f52 = tf;
    pl->tab_i52 = ti;
    pl->coset_c52 = cc;
    uintptr_t w = (uintptr_t)(cc + pl->B);
    pl->work = (unsigned char *)((w + 63) & ~(uintptr_t)63);
    pl->work_stride = N_(work_stride)(pl->log_n);
    pl->G = 8;
    pl->rows = 8;
}

/* The tables for a transform of size 2^log_n; shift NULL leaves out the
 * coset ones. Returns 0 when log_n exceeds the field's two-adicity. */
static int N_(plan_init)(N_(plan) *pl, FT *a, unsigned log_n, const FT *shift, void *scratch, int simd) {
    FT w, wi, wb, one;
    if (!N_(root_of_unity)(&w, log_n)) return 0;
    pl->a = a;
    pl->log_n = log_n;
    N_(split)(log_n, &pl->log_r, &pl->log_b);
    pl->R = (size_t)1 << pl->log_r;
    pl->B = (size_t)1 << pl->log_b;
    /* A column task: G columns, R·G elements within 2 MiB, 2 to 64 wide:
     * the column passes read R runs of G elements 8·B bytes apart, and
     * longer runs are what made them fast (2^20 forward, 2 threads: 146 ms with
     * 256 KiB blocks of 8 columns, 115 ms with 2 MiB of 64), at least 16
     * tasks. A row task: up to 2^13 elements, at least 8 tasks. */
    pl->G = ((size_t)1 << 21) / (pl->R * sizeof(FT));
    if (pl->G > 64) pl->G = 64;
    if (pl->G < 2) pl->G = 2;
    if (pl->G > pl->B / 16) pl->G = pl->B / 16;
    if (pl->G == 0) pl->G = 1;
    pl->rows = ((size_t)1 << 13) / pl->B;
    if (pl->rows > pl->R / 8) pl->rows = pl->R / 8;
    if (pl->rows == 0) pl->rows = 1;

    FT *t = scratch;
    FT *tab_f = t, *tab_i = t + pl->B, *coset_c = t + 2 * pl->B;
    FT *mid_f = t + 3 * pl->B, *mid_i = mid_f + pl->R, *coset_r = mid_i + pl->R;
    F_(set_one)(&one);
    wb = w;
    for (unsigned i = 0; i < pl->log_r; i++) F_(sqr)(&wb, &wb); /* ω_B = ω^R */
    N_(powers)(tab_f, pl->B, &one, &wb);
    for (size_t j = 0; j < pl->B; j++) tab_i[j] = tab_f[(pl->B - j) & (pl->B - 1)];
    F_(inv)(&wi, &w);
    N_(powers)(mid_f, pl->R, &one, &w);
    N_(powers)(mid_i, pl->R, &one, &wi);
    F_(from_u64)(&pl->n_inv, (uint64_t)1 << log_n);
    F_(inv)(&pl->n_inv, &pl->n_inv);
    if (shift != NULL) {
        FT g = *shift, cur = one;
        for (unsigned i = 0; i < pl->log_r; i++) F_(sqr)(&g, &g); /* shift^R */
        for (size_t j = 0; j < pl->B; j++) {
            coset_c[N_(bitrev)(j, pl->log_b)] = cur;
            F_(mul)(&cur, &cur, &g);
        }
        N_(powers)(coset_r, pl->R, &pl->n_inv, shift);
    }
    pl->tab_f = tab_f;
    pl->tab_i = tab_i;
    pl->mid_f = mid_f;
    pl->mid_i = mid_i;
    pl->coset_c = coset_c;
    pl->coset_r = coset_r;
    pl->simd = pl->log_r > 0 && simd;
    if (pl->simd) N_(plan_simd)(pl, t + N_(table_elems)(log_n), shift != NULL);
    return 1;
}

/* x[c] *= first·h^c for c < len; NULL stands for 1. The powers run as
 * four interleaved chains (stepping by h^4) so that consecutive
 * multiplications do not wait on each other. */
static void N_(twist)(FT *x, size_t len, const FT *h, const FT *first) {
    FT cur[4], h4;
    if (h == NULL) {
        if (first != NULL) {
            for (size_t c = 0; c < len; c++) F_(mul)(&x[c], &x[c], first);
        }
        return;
    }
    if (first != NULL) {
        cur[0] = *first;
    } else {
        F_(set_one)(&cur[0]);
    }
    for (int i = 1; i < 4; i++) F_(mul)(&cur[i], &cur[i - 1], h);
    F_(sqr)(&h4, h);
    F_(sqr)(&h4, &h4);
    size_t c = 0;
    for (; c + 4 <= len; c += 4) {
        for (int i = 0; i < 4; i++) {
            F_(mul)(&x[c + i], &x[c + i], &cur[i]);
            F_(mul)(&cur[i], &cur[i], &h4);
        }
    }
    for (int i = 0; c < len; c++, i++) F_(mul)(&x[c], &x[c], &cur[i]);
}

/* The IFMA path's tasks work on eight columns or eight rows at a time in
 * the worker's work block: gather, transform, scatter. */
static void *N_(work)(const N_(plan) *pl, size_t worker) { return pl->work + worker * pl->work_stride; }

/* columns [t·G, t·G + G) */
static void N_(col_dif_task)(void *arg, size_t t, size_t worker) {
    const N_(plan) *pl = arg;
    if (pl->simd) {
        void *w = N_(work)(pl, worker);
        uint64_t *x = pl->a[t * pl->G].v;
        zp_ntt_simd_gather(w, x, pl->R, pl->B, 1);
        zp_ntt_simd_dif(&pl->fld, w, pl->log_r, pl->inverse ? pl->tab_i52 : pl->tab_f52, pl->B / pl->R);
        zp_ntt_simd_scatter(&pl->fld, x, w, pl->R, pl->B, 1);
        return;
    }
    N_(dif)(pl->a + t * pl->G, pl->log_r, pl->B, pl->G, pl->inverse ? pl->tab_i : pl->tab_f, pl->B / pl->R);
}
static void N_(col_dit_task)(void *arg, size_t t, size_t worker) {
    const N_(plan) *pl = arg;
    if (pl->simd) {
        void *w = N_(work)(pl, worker);
        uint64_t *x = pl->a[t * pl->G].v;
        zp_ntt_simd_gather(w, x, pl->R, pl->B, 1);
        zp_ntt_simd_dit(&pl->fld, w, pl->log_r, pl->tab_f52, pl->B / pl->R);
        zp_ntt_simd_scatter(&pl->fld, x, w, pl->R, pl->B, 1);
        return;
    }
    N_(dit)(pl->a + t * pl->G, pl->log_r, pl->B, pl->G, pl->tab_f, pl->B / pl->R);
}

/* per-lane twist constants for rows r0..r0+7: h = mid[rev_R(r)], first =
 * firsts[rev_R(r)] (NULL: 1) times *scale (NULL: 1) */
static void N_(lane_twist)(const N_(plan) *pl, size_t r0, const FT *mid, const FT *firsts, const FT *scale,
                           zp_ifma_limbs h[8], zp_ifma_limbs first[8]) {
    for (size_t i = 0; i < 8; i++) {
        size_t k = N_(bitrev)(r0 + i, pl->log_r);
        FT f;
        if (firsts != NULL) {
            f = firsts[k];
        } else {
            F_(set_one)(&f);
        }
        if (scale != NULL) F_(mul)(&f, &f, scale);
        N_(to_tw)(&h[i], &mid[k]);
        N_(to_tw)(&first[i], &f);
    }
}

static void N_(row_simd)(const N_(plan) *pl, size_t t, size_t worker, int coset) {
    void *w = N_(work)(pl, worker);
    size_t r0 = t * 8;
    uint64_t *x = pl->a[r0 * pl->B].v;
    zp_ifma_limbs h[8], first[8];
    zp_ntt_simd_gather(w, x, pl->B, 1, pl->B);
    if (coset) {
        N_(lane_twist)(pl, r0, pl->mid_i, pl->coset_r, NULL, h, first);
        zp_ntt_simd_twist(&pl->fld, w, pl->B, h, first);
        zp_ntt_simd_dif(&pl->fld, w, pl->log_b, pl->tab_i52, 1);
        zp_ntt_simd_scale(&pl->fld, w, pl->B, pl->coset_c52);
        zp_ntt_simd_dit(&pl->fld, w, pl->log_b, pl->tab_f52, 1);
        N_(lane_twist)(pl, r0, pl->mid_f, NULL, NULL, h, first);
        zp_ntt_simd_twist(&pl->fld, w, pl->B, h, first);
    } else {
        N_(lane_twist)(pl, r0, pl->inverse ? pl->mid_i : pl->mid_f, NULL, pl->inverse ? &pl->n_inv : NULL, h, first);
        zp_ntt_simd_twist(&pl->fld, w, pl->B, h, first);
        zp_ntt_simd_dif(&pl->fld, w, pl->log_b, pl->inverse ? pl->tab_i52 : pl->tab_f52, 1);
    }
    zp_ntt_simd_scatter(&pl->fld, x, w, pl->B, 1, pl->B);
}

/* rows [t·rows, t·rows + rows): twist (with 1/n for the inverse), dif */
static void N_(row_dif_task)(void *arg, size_t t, size_t worker) {
    const N_(plan) *pl = arg;
    if (pl->simd) {
        N_(row_simd)(pl, t, worker, 0);
        return;
    }
    const FT *mid = pl->inverse ? pl->mid_i : pl->mid_f, *tab = pl->inverse ? pl->tab_i : pl->tab_f;
    for (size_t r = t * pl->rows; r < (t + 1) * pl->rows; r++) {
        size_t k = N_(bitrev)(r, pl->log_r);
        FT *x = pl->a + r * pl->B;
        N_(twist)(x, pl->B, k != 0 ? &mid[k] : NULL, pl->inverse ? &pl->n_inv : NULL);
        N_(dif)(x, pl->log_b, 1, 1, tab, 1);
    }
}

/* The middle of ntt_to_coset, one row at a time: inverse twist with the
 * row's share of the coset factor, inverse row dif, the column share of
 * the coset factor, forward row dit, forward twist. */
static void N_(row_coset_task)(void *arg, size_t t, size_t worker) {
    const N_(plan) *pl = arg;
    if (pl->simd) {
        N_(row_simd)(pl, t, worker, 1);
        return;
    }
    for (size_t r = t * pl->rows; r < (t + 1) * pl->rows; r++) {
        size_t k = N_(bitrev)(r, pl->log_r);
        FT *x = pl->a + r * pl->B;
        N_(twist)(x, pl->B, k != 0 ? &pl->mid_i[k] : NULL, &pl->coset_r[k]);
        N_(dif)(x, pl->log_b, 1, 1, pl->tab_i, 1);
        for (size_t c = 1; c < pl->B; c++) F_(mul)(&x[c], &x[c], &pl->coset_c[c]);
        N_(dit)(x, pl->log_b, 1, 1, pl->tab_f, 1);
        N_(twist)(x, pl->B, k != 0 ? &pl->mid_f[k] : NULL, NULL);
    }
}

/* Bit-reversal permutation in tiles: p = (hi, m, lo) with 4-bit hi and lo
 * goes to (rev(lo), rev(m), rev(hi)), so the 16x16 tile of one m swaps
 * with the tile of rev(m), 16 contiguous elements (eight cache lines) at a
 * time. Task t takes the tiles m in [t·per, t·per + per) with m <= rev(m). */
#define ZP_NTT_TILE_LOG 4
typedef struct {
    FT *a;
    unsigned log_n;
    size_t per;
} N_(perm_job);

static void N_(perm_task)(void *arg, size_t t, size_t worker) {
    (void)worker;
    const N_(perm_job) *job = arg;
    const unsigned tb = ZP_NTT_TILE_LOG, mb = job->log_n - 2 * tb, hs = job->log_n - tb;
    const size_t T = (size_t)1 << tb;
    for (size_t m = t * job->per; m < (t + 1) * job->per; m++) {
        size_t mr = N_(bitrev)(m, mb);
        if (mr < m) continue;
        for (size_t hi = 0; hi < T; hi++) {
            for (size_t lo = 0; lo < T; lo++) {
                size_t i = (hi << hs) | (m << tb) | lo;
                size_t j = (N_(bitrev)(lo, tb) << hs) | (mr << tb) | N_(bitrev)(hi, tb);
                if (mr == m && j <= i) continue;
                FT tmp = job->a[i];
                job->a[i] = job->a[j];
                job->a[j] = tmp;
            }
        }
    }
}

static void N_(bitrev_permute)(FT *a, unsigned log_n, const zp_parallel *par) {
    size_t n = (size_t)1 << log_n;
    if (log_n < 2 * ZP_NTT_TILE_LOG + 2) {
        for (size_t i = 0; i < n; i++) {
            size_t j = N_(bitrev)(i, log_n);
            if (i < j) {
                FT tmp = a[i];
                a[i] = a[j];
                a[j] = tmp;
            }
        }
        return;
    }
    size_t mids = n >> (2 * ZP_NTT_TILE_LOG), tasks = mids < 64 ? mids : 64;
    N_(perm_job) job = {a, log_n, mids / tasks};
    zp_parallel_for(par, tasks, N_(perm_task), &job);
}

/* Below 2^12 elements a transform takes well under a millisecond and
 * waking the workers costs more than it gains (ntt.h). */
static const zp_parallel *N_(par_for)(unsigned log_n, const zp_parallel *par) {
    return log_n < ZP_NTT_PARALLEL_MIN_LOG ? NULL : par;
}

int N_(ntt)(FT *a, unsigned log_n, int inverse, void *scratch, const zp_parallel *par) {
    N_(plan) pl;
    if (!N_(plan_init)(&pl, a, log_n, NULL, scratch, zp_ifma_enabled(par))) return 0;
    pl.inverse = inverse != 0;
    par = N_(par_for)(log_n, par);
    if (pl.log_r > 0) zp_parallel_for(par, pl.B / pl.G, N_(col_dif_task), &pl);
    zp_parallel_for(par, pl.R / pl.rows, N_(row_dif_task), &pl);
    N_(bitrev_permute)(a, log_n, par);
    return 1;
}

int N_(ntt_to_coset)(FT *a, unsigned log_n, const FT *shift, void *scratch, const zp_parallel *par) {
    N_(plan) pl;
    if (!N_(plan_init)(&pl, a, log_n, shift, scratch, zp_ifma_enabled(par))) return 0;
    par = N_(par_for)(log_n, par);
    pl.inverse = 1;
    if (pl.log_r > 0) zp_parallel_for(par, pl.B / pl.G, N_(col_dif_task), &pl);
    zp_parallel_for(par, pl.R / pl.rows, N_(row_coset_task), &pl);
    if (pl.log_r > 0) zp_parallel_for(par, pl.B / pl.G, N_(col_dit_task), &pl);
    return 1;
}

#undef N_
#undef NC_
#undef F_
#undef FT
#undef ZP_N
#undef ZP_N_UP
