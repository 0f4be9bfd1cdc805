/* The streaming setup (groth16/setup.h, io/zkey_writer.h) against the
 * in-memory one: with the same seed, random constraint systems on both
 * curves (2^10 to 2^14 domains) give the same .zkey byte for byte whatever
 * the chunks (the plan without a budget, the plan at the minimum budget,
 * and odd chunk sizes that split every section and need many passes); the
 * tracked memory stays within the plan; a budget below the minimum is
 * refused naming it; a failure mid-way and a failed publish leave no file
 * behind. snarkjs checks the keys in tests/cli/setup_stream.sh. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "engine/pool.h"
#include "groth16/setup.h"
#include "io/zkey.h"
#include "io/zkey_writer.h"
#include "mem/track.h"
#include "test_io_common.h"
#include "testutil.h"

typedef struct sys {
    zp_constraint_system cs;
    uint64_t *row_start[3];
    uint32_t *wire[3];
    uint64_t *coef[3];
} sys;

/* m constraints over nw wires, each matrix 0 to 3 terms a row, random
 * wires and coefficients below both curves' r (the top limb below 2^60). */
static void sys_build(sys *s, zp_curve curve, uint32_t m, uint32_t nw, uint32_t npub) {
    memset(s, 0, sizeof *s);
    s->cs.curve = curve;
    s->cs.n_wires = nw;
    s->cs.n_public = npub;
    s->cs.n_constraints = m;
    for (int k = 0; k < 3; k++) {
        s->row_start[k] = calloc((size_t)m + 1, sizeof(uint64_t));
        s->wire[k] = malloc((size_t)m * 3 * sizeof(uint32_t) + 4);
        s->coef[k] = malloc((size_t)m * 3 * 32 + 32);
        uint64_t e = 0;
        for (uint32_t i = 0; i < m; i++) {
            unsigned terms = (unsigned)(zp_test_rand64() % 4);
            for (unsigned t = 0; t < terms; t++, e++) {
                s->wire[k][e] = (uint32_t)(zp_test_rand64() % nw);
                zp_test_rand_bytes(s->coef[k] + 4 * e, 32);
                s->coef[k][4 * e + 3] >>= 4;
                if (zp_test_rand64() % 8 == 0) memset(s->coef[k] + 4 * e, 0, 32), s->coef[k][4 * e] = 1;
            }
            s->row_start[k][i + 1] = e;
        }
        s->cs.m[k].row_start = s->row_start[k];
        s->cs.m[k].wire = s->wire[k];
        s->cs.m[k].coef = s->coef[k];
    }
}

static void sys_free(sys *s) {
    for (int k = 0; k < 3; k++) {
        free(s->row_start[k]);
        free(s->wire[k]);
        free(s->coef[k]);
    }
}

/* The files in dir (. and .. aside). */
static int files_in(const char *dir) {
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) n++;
    }
    if (d != NULL) closedir(d);
    return n;
}

/* A put that fails at its n-th call. */
typedef struct failing {
    zp_zkey_writer *w;
    int left;
} failing;

static zp_status failing_put(void *arg, uint32_t id, uint64_t pos, const void *p, size_t n, zp_error *err) {
    failing *f = arg;
    if (--f->left == 0) return zp_error_set(err, ZP_ERR_IO, "a disk that fills up");
    return zp_zkey_writer_put(f->w, id, pos, p, n, err);
}

/* Streams a key of plan into path; the tracker's peak must stay within
 * the plan and its buffers all come back. */
static zp_status stream_to(const char *path, const sys *s, const zp_groth16_setup_plan *plan, const uint8_t *seed,
                           const zp_parallel *par, zp_error *err) {
    zp_groth16_pk shape;
    zp_groth16_setup_shape(&shape, &s->cs, plan);
    zp_zkey_writer *w;
    zp_status st = zp_zkey_writer_open(&w, path, &shape, err);
    if (st != ZP_OK) return st;
    zp_tracker tr;
    zp_tracker_init(&tr);
    zp_groth16_setup_opts opts = {.seed = seed, .tracker = &tr};
    st = zp_groth16_setup_stream(&s->cs, plan, &opts, zp_zkey_writer_put, w, par, err);
    st = st == ZP_OK ? zp_zkey_writer_commit(w, err) : (zp_zkey_writer_abort(w), st);
    CHECK_MSG(atomic_load(&tr.total_peak) <= plan->bytes, "tracked peak %llu within the plan's %llu",
              (unsigned long long)atomic_load(&tr.total_peak), (unsigned long long)plan->bytes);
    CHECK(atomic_load(&tr.total) == 0);
    return st;
}

static void one(const char *dir, zp_curve curve, uint32_t m, uint32_t nw, uint32_t npub, const zp_parallel *par,
                int shapes) {
    sys s;
    sys_build(&s, curve, m, nw, npub);
    uint8_t seed[32];
    zp_test_rand_bytes(seed, sizeof seed);
    zp_error err = {0};
    char ref[512], got[512];
    snprintf(ref, sizeof ref, "%s/ref.zkey", dir);
    snprintf(got, sizeof got, "%s/got.zkey", dir);
    zp_groth16_setup_key key;
    CHECK(zp_groth16_setup_seeded(&key, &s.cs, seed, par, &err) == ZP_OK);
    CHECK(zp_zkey_write(ref, &key.pk, NULL, &err) == ZP_OK);
    zp_groth16_setup_free(&key);
    size_t ref_n = 0, got_n = 0;
    uint8_t *want = io_slurp(ref, &ref_n);
    CHECK(want != NULL);

    zp_groth16_setup_plan least, plans[4];
    int n_plans = 0;
    CHECK(zp_groth16_setup_plan_for(&least, &s.cs, 0, &err) == ZP_OK);
    plans[n_plans++] = least; /* no budget */
    if (shapes > 1) {
        CHECK(zp_groth16_setup_plan_for(&plans[n_plans++], &s.cs, least.min_bytes, &err) == ZP_OK);
        /* odd sizes: every section in pieces, many passes, an IC / C split */
        CHECK(zp_groth16_setup_plan_chunks(&plans[n_plans++], &s.cs, 67, 3 + npub / 2, &err) == ZP_OK);
        CHECK(zp_groth16_setup_plan_chunks(&plans[n_plans++], &s.cs, 1000, nw / 3 + 1, &err) == ZP_OK);
    }
    for (int i = 0; i < n_plans; i++) {
        const zp_groth16_setup_plan *p = &plans[i];
        zp_status st = stream_to(got, &s, p, seed, par, &err);
        CHECK_MSG(st == ZP_OK, "%s", err.message);
        uint8_t *have = io_slurp(got, &got_n);
        CHECK_MSG(have != NULL && got_n == ref_n && memcmp(have, want, ref_n) == 0,
                  "%s 2^%u, %u wires: the key of chunks %zu / %zu (%zu passes) is the in-memory key",
                  zp_curve_name(curve), p->log_n, nw, p->row_chunk, p->wire_chunk, p->passes);
        free(have);
        if (i == 1) CHECK(p->bytes <= least.min_bytes);
    }
    /* the streamed key opens as a key */
    zp_zkey *z = NULL;
    CHECK(zp_zkey_open(&z, got, &err) == ZP_OK);
    zp_zkey_close(z);
    free(want);
    remove(ref);
    remove(got);

    /* a budget below the minimum, named in the message */
    zp_groth16_setup_plan p;
    CHECK(zp_groth16_setup_plan_for(&p, &s.cs, least.min_bytes - 1, &err) == ZP_ERR_ARG);
    CHECK_MSG(strstr(err.message, "minimum") != NULL, "%s", err.message);
    CHECK(p.min_bytes == least.min_bytes);

    /* a write that fails mid-way, and a publish that fails (the
     * destination is a directory): no file left */
    CHECK(zp_groth16_setup_plan_chunks(&p, &s.cs, 128, nw / 2 + 1, &err) == ZP_OK);
    zp_groth16_pk shape;
    zp_groth16_setup_shape(&shape, &s.cs, &p);
    failing f = {NULL, 5};
    CHECK(zp_zkey_writer_open(&f.w, got, &shape, &err) == ZP_OK);
    zp_groth16_setup_opts opts = {.seed = seed};
    CHECK(zp_groth16_setup_stream(&s.cs, &p, &opts, failing_put, &f, par, &err) == ZP_ERR_IO);
    CHECK_MSG(strstr(err.message, "fills up") != NULL, "%s", err.message);
    zp_zkey_writer_abort(f.w);
    CHECK(files_in(dir) == 0);
    CHECK(mkdir(got, 0700) == 0);
    CHECK(stream_to(got, &s, &p, seed, par, &err) == ZP_ERR_IO);
    CHECK_MSG(strstr(err.message, "rename") != NULL, "%s", err.message);
    CHECK(files_in(dir) == 1); /* the directory only */
    rmdir(got);
    sys_free(&s);
}

/* A folder others can write (/tmp): names planted where the temporary
 * file could go, symlinks to a file of the victim's, neither block the
 * writer nor are written through. (The name was once PID and a counter.) */
static void planted(const char *dir) {
    sys s;
    sys_build(&s, ZP_CURVE_BN254, 40, 50, 2);
    zp_groth16_setup_plan p;
    zp_error err = {0};
    CHECK(zp_groth16_setup_plan_for(&p, &s.cs, 0, &err) == ZP_OK);
    zp_groth16_pk shape;
    zp_groth16_setup_shape(&shape, &s.cs, &p);
    char victim[512], dest[512], trap[600];
    snprintf(victim, sizeof victim, "%s/victim", dir);
    snprintf(dest, sizeof dest, "%s/k.zkey", dir);
    FILE *f = fopen(victim, "w");
    CHECK(f != NULL && fputs("mine", f) >= 0 && fclose(f) == 0);
    enum { TRAPS = 16 };
    for (int i = 0; i < TRAPS; i++) {
        snprintf(trap, sizeof trap, "%s/.k.zkey.tmp-%ld-%d", dir, (long)getpid(), i);
        CHECK(symlink(victim, trap) == 0);
    }
    zp_zkey_writer *w = NULL;
    CHECK_MSG(zp_zkey_writer_open(&w, dest, &shape, &err) == ZP_OK, "%s", err.message);
    if (w != NULL) {
        struct stat st;
        CHECK(lstat(zp_zkey_writer_temp(w), &st) == 0 && S_ISREG(st.st_mode));
    }
    zp_zkey_writer_abort(w);
    size_t n = 0;
    uint8_t *b = io_slurp(victim, &n);
    CHECK(b != NULL && n == 4 && memcmp(b, "mine", 4) == 0);
    free(b);
    for (int i = 0; i < TRAPS; i++) {
        snprintf(trap, sizeof trap, "%s/.k.zkey.tmp-%ld-%d", dir, (long)getpid(), i);
        unlink(trap);
    }
    remove(victim);
    sys_free(&s);
}

int main(void) {
    zp_test_init("test_setup_stream");
    io_tmp_init();
    const char *dir = io_tmpdir;
    zp_pool *pool = NULL;
    zp_error err;
    CHECK(zp_pool_create(&pool, 2, &err) == ZP_OK);
    zp_parallel par = zp_pool_parallel(pool);
    planted(dir); /* first: the writer's first name, had it a counter */
    zp_curve curves[] = {ZP_CURVE_BN254, ZP_CURVE_BLS12_381};
    /* ZP_TEST_ITERS below 100 (the sanitizer builds): fewer shapes at
     * 2^12 and no 2^14 */
    int full = zp_test_iters(100) >= 100;
    for (int c = 0; c < 2; c++) {
        /* 2^10 and 2^12 domains, several shapes; then 2^14 by its plans */
        one(dir, curves[c], 700 + (uint32_t)(zp_test_rand64() % 300), 900 + (uint32_t)(zp_test_rand64() % 200),
            1 + (uint32_t)(zp_test_rand64() % 5), NULL, 4);
        one(dir, curves[c], 3000 + (uint32_t)(zp_test_rand64() % 1000), 2500 + (uint32_t)(zp_test_rand64() % 3000),
            (uint32_t)(zp_test_rand64() % 40), &par, full ? 4 : 2);
        if (c == 0 && full) one(dir, curves[c], 9000, 12000, 3, &par, 2); /* 2^14 */
    }
    zp_pool_destroy(pool);
    CHECK(files_in(dir) == 0);
    rmdir(dir);
    return zp_test_done();
}
