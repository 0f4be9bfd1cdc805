/* BN254 pairing checks against Ethereum's EIP-197 precompile test vectors
 * (tests/vectors/eip197_pairing.txt): an independent reference for the
 * pairing, the G2 twist and the encoding of Fp2 (imaginary part first). */
#include <stdlib.h>
#include <string.h>

#include "curve/subgroup.h"
#include "pairing/pairing.h"
#include "testutil.h"

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* 64 hex digits, big-endian, to a Montgomery-form Fp element. */
static int read_fp(zp_bn254_fp *out, const char *hex) {
    zp_bn254_fp plain = {{0}};
    for (int i = 0; i < 64; i++) {
        int v = hexval(hex[i]);
        if (v < 0) return 0;
        int nibble = 63 - i; /* from the least significant */
        plain.v[nibble / 16] |= (uint64_t)v << (4 * (nibble % 16));
    }
    if (!zp_bn254_fp_is_canonical_var(&plain)) return 0;
    zp_bn254_fp_to_mont(out, &plain);
    return 1;
}

int main(void) {
    zp_test_init("test_eip197");
    FILE *f = fopen("tests/vectors/eip197_pairing.txt", "r");
    if (f == NULL) {
        fprintf(stderr, "cannot open tests/vectors/eip197_pairing.txt (run from the repository root)\n");
        return 1;
    }
    static char line[8192];
    int vectors = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        char name[64], hex[8000] = "";
        int expected;
        if (sscanf(line, "%63s %d %7999s", name, &expected, hex) < 2) continue;
        size_t len = strlen(hex), pairs = len / 384;
        CHECK_MSG(len % 384 == 0, "%s: input length", name);
        zp_bn254_g1 *p = calloc(pairs + 1, sizeof *p);
        zp_bn254_g2 *q = calloc(pairs + 1, sizeof *q);
        int ok = 1;
        for (size_t i = 0; i < pairs; i++) {
            const char *h = hex + 384 * i;
            ok &= read_fp(&p[i].x, h) & read_fp(&p[i].y, h + 64);
            ok &= read_fp(&q[i].x.c1, h + 128) & read_fp(&q[i].x.c0, h + 192);
            ok &= read_fp(&q[i].y.c1, h + 256) & read_fp(&q[i].y.c0, h + 320);
            ok &= zp_bn254_g1_is_on_curve_var(&p[i]) & zp_bn254_g2_is_on_curve_var(&q[i]);
            ok &= zp_bn254_g2_is_in_subgroup_var(&q[i]);
        }
        CHECK_MSG(ok, "%s: points decode, on the curve and in G2", name);
        int got = zp_bn254_pairing_product_is_one_var(p, q, pairs);
        CHECK_MSG(got == expected, "%s: pairing product is one: got %d, want %d", name, got, expected);
        free(p);
        free(q);
        vectors++;
    }
    fclose(f);
    CHECK_MSG(vectors >= 9, "read %d vectors", vectors);
    return zp_test_done();
}
