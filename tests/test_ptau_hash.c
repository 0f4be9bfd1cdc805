/* snarkjs's partialHash through libb2 (src/ceremony/ptau_hash.c): the
 * 216-byte state is @noble/hashes' as snarkjs 0.7.6's toPartialHash writes
 * it (the vectors below: node and snarkjs's misc.js, the bytes i*7+3 fed
 * in the updates listed), stale buffer bytes included; and a state read
 * back (fromPartialHash) goes on to the digest noble gives. Then, with
 * random splits, a state saved and resumed always ends in the digest of
 * the whole input, whether libb2 held one block or two. */
#include <string.h>

#include "ceremony/ptau_hash.h"
#include "testutil.h"

static const struct {
    size_t splits[8];
    size_t n;
    const char *partial, *then_123;
} vectors[] = {
    {{64, 1632, 3000},
     3,
     "030a11181f262d343b424950575e656c737a81888f969da4abb2b9c0c7ced5dce3eaf1f8ff060d141b222930373e454c535a61686f767d848"
     "b9299a0a7aeb5bcc3cad1d8dfe6edf4fb020910171e252c333a41484f565d64ebf2f900070e151c232a31383f464d545b626970777e858c93"
     "9aa1a8afb6bdc4cbd2d9e0e7eef5fc94054756414fabf9519f98b7a92c200228cce3cddc77d627d9f2675b27bb2b9a8d863174a554a497cdb"
     "01fa965b2a8c3bb858376fe8ac9d53c0f8318b41e05d8001200000000000058000000000000000000000000000000",
     "f73d8963c95212da778713f374cf64d76c2585fdda79d8b084256ba9c8ffef318caf71afaa950953fd4a4442b3550688d9aad273c0f826e6c"
     "7ce0abae547779d"},
    {{64, 100, 300, 128, 7},
     5,
     "030a11181f262d343b424950575e656c737a81888f969da4abb2b9c0c7ced5dce3eaf1f8ff060d141b222930373e454c535a61686f767d848"
     "b9299a0a7aeb5bcc3cad1d8dfe6edf4fb020910171e252c333a41484f565de4ebf2f900070e151c232a31383f464d545b626970777e858c93"
     "9aa1a8afb6bdc4cbd2d9e0e7eef5fc4cf421f3747fe8c5b941247a99e613de761534b752508658d448d406d93227ec580a88761549c9c4c99"
     "a86a75daead048db1be908357742fcca320029265844f000200000000000057000000000000000000000000000000",
     "952b2712d69696bef2f400aa555db96adf2762c4fc9615547ba42d6772fa979ac51d8b3b079c757d18bb310898ecc7e1238b02f5a3a777397"
     "e7447f7f27ef7d0"},
    {{64, 192, 256},
     3,
     "838a91989fa6adb4bbc2c9d0d7dee5ecf3fa01080f161d242b323940474e555c636a71787f868d949ba2a9b0b7bec5ccd3dae1e8eff6fd040"
     "b121920272e353c434a51585f666d747b828990979ea5acb3bac1c8cfd6dde4ebf2f900070e151c232a31383f464d545b626970777e858c93"
     "9aa1a8afb6bdc4cbd2d9e0e7eef5fc4e452bff660764f966d5fa7fb6a5d4c4ec38052103e3194c28106d0e124d58a453c6fb99560b6f93ea1"
     "e8f8a5bc273f7cc76c5f5bc18f39e808090e98dab8189800100000000000080000000000000000000000000000000",
     "5e0f901e2017b9ebd3c40e887b19aa780853f1e6749d5eb3b6da191f6648175d659400dff09f9064d4d9cb49d14bae294988e494eb3aa39a7"
     "48a7a31bed8ad42"},
};

static void unhex(uint8_t *out, const char *hex, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

int main(void) {
    zp_test_init("ptau_hash");
    zp_error err = {0};
    if (zp_ptau_hash_load(&err) != ZP_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    uint8_t data[5000];
    for (size_t i = 0; i < sizeof data; i++) data[i] = (uint8_t)(i * 7 + 3);
    for (size_t v = 0; v < sizeof vectors / sizeof *vectors; v++) {
        zp_ptau_hash h;
        zp_ptau_hash_init(&h);
        size_t off = 0;
        for (size_t i = 0; i < vectors[v].n; i++) {
            zp_ptau_hash_update(&h, data + off, vectors[v].splits[i]);
            off += vectors[v].splits[i];
        }
        uint8_t got[ZP_PTAU_PARTIAL_BYTES], want[ZP_PTAU_PARTIAL_BYTES], d[64], dw[64];
        zp_ptau_hash_partial(&h, got);
        unhex(want, vectors[v].partial, sizeof want);
        CHECK_MSG(memcmp(got, want, sizeof got) == 0, "vector %zu: the partialHash is not snarkjs's", v);
        zp_ptau_hash r;
        CHECK(zp_ptau_hash_resume(&r, want));
        zp_ptau_hash_update(&r, (const uint8_t[]){1, 2, 3}, 3);
        zp_ptau_hash_final(&r, d);
        unhex(dw, vectors[v].then_123, sizeof dw);
        CHECK_MSG(memcmp(d, dw, 64) == 0, "vector %zu: the resumed digest is not noble's", v);
        zp_ptau_hash_final(&h, d);
    }
    /* random splits: save, resume, finish == the one-shot digest */
    for (size_t iter = 0; iter < zp_test_iters(200); iter++) {
        size_t total = 1 + (size_t)(zp_test_rand64() % 4000), cut = (size_t)(zp_test_rand64() % total), off = 0;
        zp_ptau_hash h, r;
        zp_ptau_hash_init(&h);
        while (off < cut) {
            size_t n = 4 * (1 + (size_t)(zp_test_rand64() % 100));
            n = n < cut - off ? n : cut - off;
            zp_ptau_hash_update(&h, data + off, n);
            off += n;
        }
        uint8_t p[ZP_PTAU_PARTIAL_BYTES], a[64], b[64];
        zp_ptau_hash_partial(&h, p);
        CHECK(zp_ptau_hash_resume(&r, p));
        zp_ptau_hash_update(&r, data + cut, total - cut);
        zp_ptau_hash_final(&r, a);
        zp_ptau_hash_final(&h, b);
        zp_ptau_hash_bytes(b, data, total);
        CHECK_MSG(memcmp(a, b, 64) == 0, "a state saved after %zu of %zu bytes", cut, total);
    }
    uint8_t bad[ZP_PTAU_PARTIAL_BYTES] = {0};
    bad[200] = 129;
    zp_ptau_hash r;
    CHECK(!zp_ptau_hash_resume(&r, bad)); /* more pending bytes than a block */
    bad[200] = 1;
    bad[192] = 5;
    CHECK(!zp_ptau_hash_resume(&r, bad)); /* a compressed count of no whole blocks */
    return zp_test_done();
}
