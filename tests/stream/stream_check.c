/* zkpipe-test-stream KEY WTNS BUDGET: the streamed prover from inside,
 * for tests/interop/stream_budget.sh (which checks the proofs with
 * snarkjs and the process's peak RSS from outside):
 * - two proofs in a row through one prover with the budget: both stream
 *   (a window was used), and the window's tracker class is back to zero
 *   after each, its peak the plan's window;
 * - the key truncated after it was opened: a clear error, no proof;
 * - the key changed in place after it was opened: a clear error, no proof;
 * - a changed copy renamed over the key after it was opened, with the
 *   key's size and times: a clear error, no proof;
 * - the reader alone over a section of a file truncated under it: the
 *   error names the file, the section and the truncation;
 * - the budget's bound on a key's matrices is at least their size. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/options.h"
#include "engine/prover_internal.h"
#include "engine/stream_io.h"
#include "groth16/groth16.h"
#include "groth16/synth.h"
#include "io/zkey.h"
#include "testutil.h"
#include "zkpipe.h"

static int copy_file(const char *from, const char *to) {
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char buf[1 << 16];
    size_t n;
    int ok = in != NULL && out != NULL;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0) ok = fwrite(buf, 1, n, out) == n;
    if (in) fclose(in);
    if (out && fclose(out) != 0) ok = 0;
    return ok;
}

static int proof_is_zero(const zp_proof *p) {
    static const zp_proof zero;
    return memcmp(p->a, zero.a, sizeof p->a) == 0 && memcmp(p->c, zero.c, sizeof p->c) == 0;
}

/* One proof of a copy of the key, spoiled by spoil() after the key was
 * opened: it must fail with a message holding want. */
static void spoiled(const char *key_path, const zp_witness *w, size_t budget, const char *tmp, int how,
                    const char *want) {
    CHECK(copy_file(key_path, tmp));
    zp_key *key = NULL;
    zp_error err = {0};
    CHECK(zp_key_open(&key, tmp, &err) == ZP_OK);
    if (key == NULL) return;
    struct stat s;
    CHECK(stat(tmp, &s) == 0);
    if (how == 0) {
        CHECK(truncate(tmp, s.st_size - 4096) == 0);
    } else if (how == 2) {
        /* a copy with a byte of the points changed, its times set to the
         * key's, renamed over it: the same size and time, another inode */
        char other[4200];
        snprintf(other, sizeof other, "%s.new", tmp);
        CHECK(copy_file(tmp, other));
        int fd = open(other, O_WRONLY);
        CHECK(fd >= 0);
        unsigned char x = 0x5a;
        CHECK(pwrite(fd, &x, 1, s.st_size - s.st_size / 4) == 1);
        struct timespec t[2] = {s.st_atim, s.st_mtim};
        CHECK(futimens(fd, t) == 0);
        close(fd);
        CHECK(rename(other, tmp) == 0);
    } else {
        /* a byte of the last quarter (points) changed in place, and the
         * file's time with it, as any writer's would be */
        int fd = open(tmp, O_WRONLY);
        CHECK(fd >= 0);
        unsigned char x = 0x5a;
        CHECK(pwrite(fd, &x, 1, s.st_size - s.st_size / 4) == 1);
        struct timespec t[2] = {{0, UTIME_OMIT}, {s.st_mtim.tv_sec + 5, 0}};
        CHECK(futimens(fd, t) == 0);
        close(fd);
    }
    zp_proof proof;
    zp_prove_options opt = {.threads = 2, .budget = budget};
    zp_status st = zp_prove(&proof, NULL, key, w, &opt, &err);
    static const char *const what[3] = {"truncated", "changed", "replaced"};
    CHECK_MSG(st != ZP_OK, "a proof from a key %s while streamed", what[how]);
    CHECK_MSG(strstr(err.message, want) != NULL, "message: %s", err.message);
    CHECK(proof_is_zero(&proof));
    printf("%s key: %s\n", what[how], err.message);
    zp_key_close(key);
    unlink(tmp);
}

int main(int argc, char **argv) {
    zp_test_init("stream_check");
    if (argc != 4) {
        fprintf(stderr, "usage: %s KEY WTNS BUDGET\n", argv[0]);
        return 2;
    }
    const char *key_path = argv[1], *wtns_path = argv[2];
    uint64_t budget;
    if (!zp_size_parse(&budget, argv[3])) {
        fprintf(stderr, "bad budget %s\n", argv[3]);
        return 2;
    }
    zp_error err = {0};
    zp_key *key = NULL;
    zp_witness *w = NULL;
    CHECK(zp_key_open(&key, key_path, &err) == ZP_OK);
    CHECK(zp_witness_open(&w, wtns_path, &err) == ZP_OK);
    if (key == NULL || w == NULL) return zp_test_done();

    zp_prover *pr = NULL;
    zp_prover_options po = {.threads = 2, .budget = (size_t)budget};
    CHECK(zp_prover_create(&pr, &po, &err) == ZP_OK);
    for (int i = 0; pr != NULL && i < 2; i++) {
        zp_proof proof;
        zp_prove_stats stats;
        zp_status st = zp_prover_prove(pr, &proof, &stats, key, w, &err);
        CHECK_MSG(st == ZP_OK, "proof %d: %s", i, err.message);
        CHECK_MSG(stats.window_bytes > 0, "proof %d streamed", i);
        size_t peak, now = zp_prover_class_bytes(pr, ZP_PROVER_BUF_WINDOW, &peak);
        CHECK_MSG(now == 0, "the window class holds %zu bytes after proof %d", now, i);
        CHECK_MSG(peak == stats.window_bytes, "the window class peaked at %zu, the window is %zu", peak,
                  stats.window_bytes);
        printf("proof %d: window %zu bytes%s, class now %zu, peak %zu\n", i, stats.window_bytes,
               stats.paged ? ", the witness paged" : "", now, peak);
    }
    zp_prover_destroy(pr);
    /* a paged proof lets the witness's pages go and reads them back: the
     * same witness, whole, proves again in memory */
    {
        zp_proof proof;
        zp_prove_options o = {.threads = 2};
        zp_status st = zp_prove(&proof, NULL, key, w, &o, &err);
        CHECK_MSG(st == ZP_OK, "the witness after the streamed proofs: %s", err.message);
    }

    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.spoiled.zkey", key_path);
    spoiled(key_path, w, (size_t)budget, tmp, 0, "changed");
    spoiled(key_path, w, (size_t)budget, tmp, 1, "changed");
    spoiled(key_path, w, (size_t)budget, tmp, 2, "changed");

    /* the reader alone: the file shrinks between the source's open and
     * the read of the H section */
    {
        CHECK(copy_file(key_path, tmp));
        zp_zkey *z = NULL;
        CHECK(zp_zkey_open(&z, tmp, &err) == ZP_OK);
        const char *path;
        zp_zkey_stamp stamp;
        uint64_t off[ZP_SRC_SECTIONS];
        uint32_t id[ZP_SRC_SECTIONS];
        zp_stream_source src;
        CHECK(zp_zkey_point_sections(z, &path, &stamp, off, id, &err) == ZP_OK);
        CHECK(zp_stream_source_open(&src, path, &stamp, off, id, &err) == ZP_OK);
        const zp_groth16_pk *pk = zp_zkey_pk(z);
        /* the plan's bound on the matrices it would build (no scan) */
        CHECK(zp_groth16_matrices_bound(pk) >= zp_groth16_matrices_size(pk));
        size_t elem = zp_g1_bytes(pk->curve), n = pk->domain_size;
        CHECK(truncate(tmp, (off_t)(off[ZP_SRC_H] + elem * n / 2)) == 0);
        char *window = malloc(2 * 256 * elem);
        zp_stream_reader rd;
        zp_status st = zp_stream_begin(&rd, &src, ZP_SRC_H, elem, n, 256, window, &err);
        while (st == ZP_OK && rd.next * rd.chunk < n) {
            const void *pts;
            size_t first, count;
            st = zp_stream_take(&rd, &pts, &first, &count, &err);
        }
        zp_stream_end(&rd);
        CHECK(st == ZP_ERR_FORMAT);
        CHECK_MSG(strstr(err.message, "section 9 (H)") != NULL && strstr(err.message, "truncated") != NULL &&
                      strstr(err.message, tmp) != NULL,
                  "message: %s", err.message);
        printf("reader over a truncated file: %s\n", err.message);
        free(window);
        zp_stream_source_close(&src);
        zp_zkey_close(z);
        unlink(tmp);
    }
    zp_witness_close(w);
    zp_key_close(key);
    return zp_test_done();
}
