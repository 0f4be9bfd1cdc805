/* The compiled-object cache's checks from C (src/witness/cache.h), on
 * what a shell cannot make: objects whose trailer and digest are right
 * (zp_witness_object_seal wrote them) around an ELF image that is not,
 * so only the structural checks stand between them and a SIGBUS or a
 * foreign machine's code. Also XXH64 against its published values, and
 * the full-disk wording.
 *
 * The object is tests/witness/circuits/multidim.wasm's, compiled into
 * $ZKPIPE_CACHE (CMake points it at the build folder, as for test_witness);
 * copies of it are made in a fresh folder. Without wasm2c the test says so
 * and passes. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_io_common.h"
#include "testutil.h"
#include "witness/cache.h"
#include "witness/compile.h"

#define WASM "tests/witness/circuits/multidim.wasm"

static int spill(const char *path, const uint8_t *data, size_t len) {
    FILE *f = fopen(path, "wb");
    if (f == NULL) return 0;
    int ok = fwrite(data, 1, len, f) == len;
    return fclose(f) == 0 && ok;
}

/* Writes elf (len bytes) as dir/<key>.so, sealed for seal_key; then the
 * check of dir/<key>.so: its state, why in why. */
static zp_object_state sealed_state(const char *dir, int dfd, const char *key, const char *seal_key, const uint8_t *elf,
                                    size_t len, char *why) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.so", dir, key);
    unlink(path);
    zp_error err = {0};
    CHECK(spill(path, elf, len));
    zp_status st = zp_witness_object_seal(path, seal_key, dir, &err);
    CHECK_MSG(st == ZP_OK, "seal: %s", err.message);
    int fd;
    zp_object_state state = ZP_OBJECT_MISSING;
    st = zp_witness_object_check(&fd, &state, why, 160, dfd, dir, key, 1, &err);
    CHECK_MSG(st == ZP_OK, "check: %s", err.message);
    if (fd >= 0) close(fd);
    return state;
}

int main(void) {
    zp_test_init("test_witness_cache");

    /* XXH64, seed 0: xxHash's own values; one-shot and through a seal
     * (streamed in chunks) agree below. */
    CHECK(zp_witness_xxh64("", 0) == 0xEF46DB3751D8E999ULL);
    CHECK(zp_witness_xxh64("a", 1) == 0xD24EC4F1A98C6E5BULL);
    CHECK(zp_witness_xxh64("abc", 3) == 0x44BC2CF5AD770999ULL);

    zp_error err = {0};
    zp_witness_cache_io_error(&err, "/c", "/c/x", "write", ENOSPC);
    CHECK_MSG(strstr(err.message, "/c: no space left on device (cannot write /c/x)") == err.message, "%s", err.message);
    zp_witness_cache_io_error(&err, "/c", "/c/x", "write", EDQUOT);
    CHECK_MSG(strstr(err.message, "/c: no space left on device (disk quota exceeded)") == err.message, "%s",
              err.message);
    CHECK(err.status == ZP_ERR_IO);

    if (system("wasm2c --version >/dev/null 2>&1") != 0) {
        printf("test_witness_cache: skipped the object cases: no wasm2c (apt-get install wabt)\n");
        return zp_test_done();
    }
    zp_witness_compiled c;
    zp_status st = zp_witness_compile(&c, WASM, NULL, &err);
    CHECK_MSG(st == ZP_OK, "compile: %s", err.message);
    if (st != ZP_OK) return zp_test_done();
    size_t len = 0;
    uint8_t *obj = io_slurp(c.so_path, &len);
    CHECK(obj != NULL && len > ZP_OBJECT_TRAILER_BYTES);
    if (obj == NULL) return zp_test_done();
    size_t elf = len - ZP_OBJECT_TRAILER_BYTES; /* the image, without its trailer */
    CHECK(memcmp(obj + elf, "zkpipe-object 1\n", 16) == 0);
    uint64_t digest = 0;
    for (int i = 0; i < 8; i++) digest |= (uint64_t)obj[len - 8 + i] << (8 * i);
    CHECK(digest == zp_witness_xxh64(obj, len - 8));

    char dir[] = "/tmp/zkpipe-test-cache-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    CHECK(dfd >= 0);
    char other[ZP_SHA256_HEX];
    memcpy(other, c.key, sizeof other);
    other[0] = other[0] == '0' ? '1' : '0';
    char why[160];

    /* resealed whole: good, and it loads */
    CHECK(sealed_state(dir, dfd, c.key, c.key, obj, elf, why) == ZP_OBJECT_GOOD);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.so", dir, c.key);
    size_t again_len = 0;
    uint8_t *again = io_slurp(path, &again_len);
    CHECK(again != NULL && again_len == len && memcmp(again, obj, len) == 0); /* the seal is deterministic */
    free(again);
    void *h = NULL;
    st = zp_witness_object_dlopen(&h, path, &err);
    CHECK_MSG(st == ZP_OK && h != NULL && dlsym(h, "zp_w2c_api_get") != NULL, "dlopen: %s", err.message);
    if (h != NULL) dlclose(h);

    /* the image cut in half, sealed with a right digest: its segments lie
     * past its end; never mapped (that was the SIGBUS) */
    CHECK(sealed_state(dir, dfd, c.key, c.key, obj, elf / 2, why) == ZP_OBJECT_DAMAGED);
    CHECK_MSG(strstr(why, "past its end") != NULL, "%s", why);
    h = NULL;
    st = zp_witness_object_dlopen(&h, path, &err);
    CHECK_MSG(st == ZP_ERR_FORMAT && h == NULL && strstr(err.message, "damaged") != NULL, "%s", err.message);

    /* another machine's object */
    uint8_t *copy = malloc(elf);
    CHECK(copy != NULL);
    if (copy != NULL) {
        memcpy(copy, obj, elf);
        ElfW(Ehdr) eh;
        memcpy(&eh, copy, sizeof eh);
        eh.e_machine = (ElfW(Half))(eh.e_machine == EM_AARCH64 ? EM_X86_64 : EM_AARCH64);
        memcpy(copy, &eh, sizeof eh);
        CHECK(sealed_state(dir, dfd, c.key, c.key, copy, elf, why) == ZP_OBJECT_DAMAGED);
        CHECK_MSG(strstr(why, "not a shared object for this machine") != NULL, "%s", why);
        free(copy);
    }

    /* another circuit's object under this name */
    CHECK(sealed_state(dir, dfd, c.key, other, obj, elf, why) == ZP_OBJECT_DAMAGED);
    CHECK_MSG(strstr(why, "another circuit's") != NULL, "%s", why);

    /* the image grown by a byte after sealing: the size disagrees */
    CHECK(sealed_state(dir, dfd, c.key, c.key, obj, elf, why) == ZP_OBJECT_GOOD);
    FILE *f = fopen(path, "ab");
    CHECK(f != NULL && fputc(0, f) == 0 && fclose(f) == 0);
    int fd;
    zp_object_state state;
    CHECK(zp_witness_object_check(&fd, &state, why, sizeof why, dfd, dir, c.key, 1, &err) == ZP_OK);
    CHECK_MSG(state == ZP_OBJECT_DAMAGED, "%s", why);

    /* a FIFO under the name: refused at once, never waited on */
    unlink(path);
    CHECK(mkfifo(path, 0600) == 0);
    st = zp_witness_object_check(&fd, &state, why, sizeof why, dfd, dir, c.key, 1, &err);
    CHECK_MSG(st == ZP_ERR_IO && strstr(err.message, "not a regular file") != NULL, "%s", err.message);

    unlink(path);
    close(dfd);
    rmdir(dir);
    free(obj);
    zp_witness_compiled_free(&c);
    return zp_test_done();
}
