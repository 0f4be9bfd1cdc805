/* The fastfr patch (src/witness/patch.h): the native field functions it
 * inserts against the wasm's own, and when it must leave a module alone.
 *
 * For each field (tests/witness/circuits/multidim.wasm is bn128,
 * multidim_bls12381.wasm the same circuit for bls12381) the wasm is turned
 * into C by wasm2c, patched, and tests/witness/fastfr_harness.c appended:
 * the patch keeps each original as <name>__wasm, so the harness runs both
 * on the same linear memory (random reduced and non-reduced values, the
 * edges, aliasing, a trap past the end). Then the patch is refused for a
 * modulus it does not know, a changed -p^-1 constant, a missing function
 * and a changed signature. Without wasm2c or a C compiler those parts say
 * so and pass; the embedded text is checked against fastfr.c.in always. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_io_common.h"
#include "testutil.h"
#include "witness/fastfr_text.h"
#include "witness/patch.h"

static int write_file(const char *path, const char *s, size_t len) {
    FILE *f = fopen(path, "wb");
    if (f == NULL) return -1;
    size_t w = fwrite(s, 1, len, f);
    return (fclose(f) == 0 && w == len) ? 0 : -1;
}

/* the inserted text holds fastfr.c.in and mont_x86_64.h as they are now */
static void check_embedded_text(void) {
    const char *files[] = {"src/witness/fastfr.c.in", "src/field/mont_x86_64.h"};
    for (int i = 0; i < 2; i++) {
        size_t len = 0;
        char *in = (char *)io_slurp(files[i], &len);
        CHECK_MSG(in != NULL, "%s: run from the source folder", files[i]);
        if (in == NULL) continue;
        CHECK_MSG(strstr(zp_fastfr_text, in) != NULL,
                  "src/witness/fastfr_text.h is stale (%s changed): run src/witness/embed_fastfr.sh", files[i]);
        free(in);
    }
}

/* Applies the patch to text with one change (the first from after anchor
 * becomes to); returns whether it was applied. */
static int applied_after(const char *text, const char *anchor, const char *from, const char *to) {
    const char *at = strstr(text, anchor);
    if (at != NULL) at = strstr(at, from);
    CHECK_MSG(at != NULL, "the test's change '%s' is not in wasm2c's output", from);
    if (at == NULL) return -1;
    size_t len = strlen(text), fl = strlen(from), tl = strlen(to);
    char *changed = malloc(len - fl + tl + 1);
    if (changed == NULL) return -1;
    size_t pre = (size_t)(at - text);
    memcpy(changed, text, pre);
    memcpy(changed + pre, to, tl);
    memcpy(changed + pre + tl, at + fl, len - pre - fl + 1);
    char *out = NULL;
    size_t out_len = 0;
    zp_fastfr_outcome oc;
    zp_error err = {0};
    zp_status st = zp_witness_fastfr_patch(&out, &out_len, changed, strlen(changed), &oc, &err);
    CHECK(st == ZP_OK);
    int applied = oc.applied;
    CHECK((out != NULL) == (applied != 0));
    if (!applied) CHECK(oc.why_not != NULL);
    free(out);
    free(changed);
    return applied;
}

static void check_field(const char *wasm, const char *field, const char *dir, unsigned long long seed) {
    char cmd[4096], c_path[1024], exe[1024], cwd[1024];
    if (getcwd(cwd, sizeof cwd) == NULL) return;
    snprintf(c_path, sizeof c_path, "%s/%s.c", dir, field);
    snprintf(exe, sizeof exe, "%s/%s-harness", dir, field);
    snprintf(cmd, sizeof cmd, "wasm2c -n circuit -o '%s' '%s'", c_path, wasm);
    CHECK_MSG(system(cmd) == 0, "%s", cmd);
    size_t len = 0;
    char *text = (char *)io_slurp(c_path, &len);
    CHECK(text != NULL);
    if (text == NULL) return;

    char *out = NULL;
    size_t out_len = 0;
    zp_fastfr_outcome oc;
    zp_error err = {0};
    CHECK(zp_witness_fastfr_patch(&out, &out_len, text, len, &oc, &err) == ZP_OK);
    CHECK_MSG(oc.applied == 1, "%s: not patched: %s", wasm, oc.why_not ? oc.why_not : "?");
    CHECK(oc.field != NULL && strcmp(oc.field, field) == 0);
    printf("%s: %zu Fr_copy calls merged into runs\n", field, oc.copies_merged);
    if (out != NULL) {
        CHECK(strstr(out, "static void w2c_Fr_F1m_mul__wasm(Z_circuit_instance_t* instance") != NULL);
        char tail[1200];
        int tl = snprintf(tail, sizeof tail, "\n#include \"%s/tests/witness/fastfr_harness.c\"\n", cwd);
        char *with = malloc(out_len + (size_t)tl + 1);
        if (with != NULL) {
            memcpy(with, out, out_len);
            memcpy(with + out_len, tail, (size_t)tl + 1);
            CHECK(write_file(c_path, with, out_len + (size_t)tl) == 0);
            free(with);
            const char *cc = getenv("CC") != NULL && getenv("CC")[0] ? getenv("CC") : "cc";
            snprintf(cmd, sizeof cmd,
                     "%s -O1 -w -DWASM_RT_MEMCHECK_SIGNAL_HANDLER=0 -DWASM_RT_USE_STACK_DEPTH_COUNT=0 -I'%s' -o '%s' "
                     "'%s' -lm",
                     cc, dir, exe, c_path);
            CHECK_MSG(system(cmd) == 0, "%s", cmd);
            snprintf(cmd, sizeof cmd, "'%s' %llu %zu", exe, seed, zp_test_iters(20000));
            CHECK_MSG(system(cmd) == 0, "%s: the native functions differ from the wasm's (seed %llu)", field, seed);
        }
        free(out);
    }

    /* refused: a modulus it does not know (one byte of the data segment),
     * another -p^-1 constant, a missing function, another signature */
    char needle[160], bad[160];
    snprintf(needle, sizeof needle, "w2c_j0 = %lluull;\n  w2c_np32 = w2c_j0;",
             strcmp(field, "bn128") == 0 ? 4026531839ull : 4294967295ull);
    snprintf(bad, sizeof bad, "w2c_j0 = %lluull;\n  w2c_np32 = w2c_j0;",
             strcmp(field, "bn128") == 0 ? 4026531838ull : 4294967294ull);
    CHECK(applied_after(text, "static void w2c_Fr_F1m_mul(Z_circuit_instance_t* instance", needle, bad) == 0);
    const char *seg =
        strcmp(field, "bn128") == 0 ? "0x01, 0x00, 0x00, 0xf0, 0x93, 0xf5" : "0x01, 0x00, 0x00, 0x00, 0xff, 0xff";
    const char *seg_bad =
        strcmp(field, "bn128") == 0 ? "0x03, 0x00, 0x00, 0xf0, 0x93, 0xf5" : "0x03, 0x00, 0x00, 0x00, 0xff, 0xff";
    CHECK(applied_after(text, "", seg, seg_bad) == 0);
    CHECK(applied_after(text, "", "static void w2c_Fr_copy(Z_circuit_instance_t* instance, u32 w2c_pr, u32 w2c_px) {",
                        "static void w2c_Fr_copyX(Z_circuit_instance_t* instance, u32 w2c_pr, u32 w2c_px) {") == 0);
    CHECK(applied_after(text, "",
                        "static void w2c_Fr_F1m_square(Z_circuit_instance_t* instance, u32 w2c_x, u32 w2c_r) {",
                        "static void w2c_Fr_F1m_square(Z_circuit_instance_t* instance, u64 w2c_x, u32 w2c_r) {") == 0);
    /* and a harmless change leaves it applied (the checks above are not vacuous) */
    CHECK(applied_after(text, "", "static void w2c_Fr_copyn(", "static void w2c_Fr_copyn(") == 1);
    free(text);
}

int main(void) {
    zp_test_init("test_witness_fastfr");
    check_embedded_text();
    if (system("command -v wasm2c >/dev/null 2>&1") != 0) {
        printf("wasm2c not installed: the comparison with the wasm's functions is skipped\n");
        return zp_test_done();
    }
    char dir[] = "/tmp/zkpipe-fastfr-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    unsigned long long seed = zp_test_rand64() % 1000000007ull;
    check_field("tests/witness/circuits/multidim.wasm", "bn128", dir, seed);
    check_field("tests/witness/circuits/multidim_bls12381.wasm", "bls12381", dir, seed);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (getenv("ZP_TEST_KEEP") == NULL && system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
    return zp_test_done();
}
