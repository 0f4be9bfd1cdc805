/* zkpipe-bench-circuit: a synthetic circuit of any size, written directly
 * as an .r1cs and a satisfying .wtns (circom takes most of an hour to
 * compile 2^20 constraints here, and a 2^24 circuit is out of its reach on
 * this machine).
 *
 * The shape is circom's for hash-heavy circuits: blocks of 64 constraints,
 * each
 *   32 bits b_j, each with its boolean constraint b_j·(b_j - 1) = 0,
 *    1 packing row x = sum_j 2^j b_j (32 terms, Num2Bits's),
 *   16 ANDs t_k = b_2k·b_2k+1,
 *    1 XOR packing row y = sum_k 2^k (b_2k + b_2k+1 - 2 t_k) (48 terms),
 *   14 products z = (c1 u1 + c2 u2 + c3 u3 + c4 u4)·(v1 + v2) of field
 *      values made in the last blocks (random coefficients: Poseidon's
 *      rounds), which are random field elements.
 * So three quarters of the witness is 0 or 1, a few values are below
 * 2^32, a fifth are full-size, and the rows have 1 to 48 terms (3 on
 * average in A). The public outputs (wires 1..P) copy the last products.
 * Values come from a seeded generator: the same arguments give the same
 * files.
 *
 * Usage: zkpipe-bench-circuit [--curve bn128|bls12381] [--public P] [--seed S]
 *                             (--log K | --constraints N) OUT.r1cs OUT.wtns
 *   --log K: as many blocks as fit a domain of 2^K (snarkjs's rule: the
 *            constraints plus the public inputs plus 1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "curve/desc.h"
#include "field/field.h"
#include "io/r1cs.h"
#include "io/wtns.h"

/* ---- the scalar field of either curve (both 4 limbs) ---- */

typedef struct {
    uint64_t v[4];
} elem;

static zp_curve curve = ZP_CURVE_BN254;
static const zp_curve_desc *desc; /* curve's */

static void f_mul(elem *r, const elem *a, const elem *b) {
    if (curve == ZP_CURVE_BN254) zp_bn254_fr_mul((zp_bn254_fr *)r, (const zp_bn254_fr *)a, (const zp_bn254_fr *)b);
    else zp_bls12_fr_mul((zp_bls12_fr *)r, (const zp_bls12_fr *)a, (const zp_bls12_fr *)b);
}
static void f_add(elem *r, const elem *a, const elem *b) {
    if (curve == ZP_CURVE_BN254) zp_bn254_fr_add((zp_bn254_fr *)r, (const zp_bn254_fr *)a, (const zp_bn254_fr *)b);
    else zp_bls12_fr_add((zp_bls12_fr *)r, (const zp_bls12_fr *)a, (const zp_bls12_fr *)b);
}
static void f_to_mont(elem *r, const elem *plain) {
    if (curve == ZP_CURVE_BN254) zp_bn254_fr_to_mont((zp_bn254_fr *)r, (const zp_bn254_fr *)plain);
    else zp_bls12_fr_to_mont((zp_bls12_fr *)r, (const zp_bls12_fr *)plain);
}
static void f_from_mont(elem *plain, const elem *a) {
    if (curve == ZP_CURVE_BN254) zp_bn254_fr_from_mont((zp_bn254_fr *)plain, (const zp_bn254_fr *)a);
    else zp_bls12_fr_from_mont((zp_bls12_fr *)plain, (const zp_bls12_fr *)a);
}
/* r - plain, for plain in [1, r) */
static void neg_plain(elem *r, const elem *plain) { zp_limbs_sub(r->v, desc->fr_modulus, plain->v, 4); }

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rand64(void) { /* splitmix64 */
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
/* a plain value below r: 4 random limbs with the top one cut below r's */
static void rand_plain(elem *r) {
    const uint64_t *m = desc->fr_modulus;
    r->v[0] = rand64();
    r->v[1] = rand64();
    r->v[2] = rand64();
    r->v[3] = rand64() % m[3];
}
static void from_u64(elem *r, uint64_t x) {
    elem p = {{x, 0, 0, 0}};
    f_to_mont(r, &p);
}

/* ---- the system being written: three matrices of rows, the values ---- */

typedef struct {
    uint64_t *row_start;
    uint32_t *wire;
    uint64_t *coef; /* plain */
    size_t n, cap;
} matrix;

static matrix mat[3];
static size_t n_rows;
static elem *val; /* Montgomery */
static uint32_t n_wires;

static void *grow(void *p, size_t n, size_t size) {
    void *q = realloc(p, n * size);
    if (q == NULL) {
        fprintf(stderr, "zkpipe-bench-circuit: out of memory\n");
        exit(3);
    }
    return q;
}

static void term(int k, uint32_t wire, const elem *plain_coef) {
    matrix *m = &mat[k];
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 1024;
        m->wire = grow(m->wire, m->cap, sizeof *m->wire);
        m->coef = grow(m->coef, m->cap, 4 * sizeof *m->coef);
    }
    m->wire[m->n] = wire;
    memcpy(m->coef + 4 * m->n, plain_coef->v, 32);
    m->n++;
}
/* n terms into combination k, the coefficients of a repeated wire added
 * (snarkjs reads a row as a map from wire to coefficient, as circom writes
 * it: each wire once) */
static void terms_merged(int k, const uint32_t *wire, const elem *plain_coef, int n) {
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < i; j++) seen |= wire[j] == wire[i];
        if (seen) continue;
        elem sum = {{0}};
        for (int j = i; j < n; j++) {
            if (wire[j] != wire[i]) continue;
            elem c;
            f_to_mont(&c, &plain_coef[j]);
            f_add(&sum, &sum, &c);
        }
        f_from_mont(&sum, &sum);
        term(k, wire[i], &sum);
    }
}
static void term_u64(int k, uint32_t wire, uint64_t c) {
    elem e = {{c, 0, 0, 0}};
    term(k, wire, &e);
}
static void end_row(void) {
    n_rows++;
    for (int k = 0; k < 3; k++) mat[k].row_start[n_rows] = mat[k].n;
}

/* the value of row `row`'s linear combination k */
static void eval(elem *r, int k, size_t row) {
    elem acc = {{0}};
    for (uint64_t t = mat[k].row_start[row]; t < mat[k].row_start[row + 1]; t++) {
        elem c, p;
        memcpy(c.v, mat[k].coef + 4 * t, 32);
        f_to_mont(&c, &c);
        f_mul(&p, &c, &val[mat[k].wire[t]]);
        f_add(&acc, &acc, &p);
    }
    *r = acc;
}

/* the row just ended defines wire w through C = [w:1]: w = A·B */
static void define(uint32_t w) {
    elem a, b;
    eval(&a, 0, n_rows - 1);
    eval(&b, 1, n_rows - 1);
    f_mul(&val[w], &a, &b);
}

#define RING 64 /* field values the products draw from: the last ones made */

int main(int argc, char **argv) {
    unsigned log_k = 0, n_pub = 1;
    size_t want = 0;
    const char *out_r1cs = NULL, *out_wtns = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--curve") && i + 1 < argc) {
            const zp_curve_desc *d = zp_curve_find(argv[++i]);
            if (d == NULL) {
                fprintf(stderr, "zkpipe-bench-circuit: unknown curve '%s' (%s)\n", argv[i], ZP_CURVE_NAMES);
                return 2;
            }
            curve = d->id;
        } else if (!strcmp(argv[i], "--log") && i + 1 < argc) {
            log_k = (unsigned)strtoul(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--constraints") && i + 1 < argc) {
            want = strtoull(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--public") && i + 1 < argc) {
            n_pub = (unsigned)strtoul(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            rng = strtoull(argv[++i], NULL, 0);
        } else if (argv[i][0] != '-' && out_r1cs == NULL) {
            out_r1cs = argv[i];
        } else if (argv[i][0] != '-' && out_wtns == NULL) {
            out_wtns = argv[i];
        } else {
            fprintf(stderr,
                    "usage: zkpipe-bench-circuit [--curve bn128|bls12381] [--public P] [--seed S]\n"
                    "                            (--log K | --constraints N) OUT.r1cs OUT.wtns\n"
                    "Writes a synthetic circom-like circuit (blocks of 64 constraints: bits, their\n"
                    "packing rows, ANDs, and products of field values) and a witness that satisfies it.\n");
            return 2;
        }
    }
    if (out_wtns == NULL || (log_k == 0) == (want == 0) || log_k > 28 || n_pub < 1 || n_pub > 1024) {
        fprintf(stderr,
                "zkpipe-bench-circuit: give --log K (1..28) or --constraints N, 1..1024 public outputs, "
                "and OUT.r1cs OUT.wtns (--help)\n");
        return 2;
    }
    if (log_k) want = ((size_t)1 << log_k) - n_pub - 1; /* snarkjs: constraints + public inputs + 1 fit the domain */
    if (want < 64 + n_pub) {
        fprintf(stderr, "zkpipe-bench-circuit: %zu constraints are fewer than one block and the outputs\n", want);
        return 2;
    }
    size_t blocks = (want - n_pub) / 64, rows = 64 * blocks + n_pub;
    if (1 + n_pub + 64 * blocks > UINT32_MAX) {
        fprintf(stderr, "zkpipe-bench-circuit: too many wires\n");
        return 2;
    }
    desc = zp_curve_get(curve);
    double t0 = zp_clock_now();
    n_wires = (uint32_t)(1 + n_pub + 64 * blocks);
    val = calloc(n_wires, sizeof *val);
    for (int k = 0; k < 3; k++) mat[k].row_start = calloc(rows + 1, sizeof(uint64_t));
    if (val == NULL || !mat[0].row_start || !mat[1].row_start || !mat[2].row_start) {
        fprintf(stderr, "zkpipe-bench-circuit: out of memory for %zu constraints\n", rows);
        return 3;
    }
    elem one = {{1, 0, 0, 0}}, minus_one, two_pow[48];
    neg_plain(&minus_one, &one);
    for (unsigned j = 0; j < 48; j++) {
        memset(&two_pow[j], 0, sizeof two_pow[j]);
        two_pow[j].v[j / 64] = (uint64_t)1 << (j % 64);
    }
    from_u64(&val[0], 1);
    uint32_t ring[RING], w = 1 + n_pub;
    for (int i = 0; i < RING; i++) ring[i] = 0; /* the constant, until products exist */
    unsigned ring_pos = 0;
    for (size_t blk = 0; blk < blocks; blk++) {
        uint32_t bits = w, ands = w + 32, x = w + 48, y = w + 49, prod = w + 50;
        w += 64;
        for (unsigned j = 0; j < 32; j++) { /* b·(b - 1) = 0 */
            from_u64(&val[bits + j], rand64() & 1);
            term_u64(0, bits + j, 1);
            term_u64(1, bits + j, 1);
            term(1, 0, &minus_one);
            end_row();
        }
        for (unsigned j = 0; j < 32; j++) term(0, bits + j, &two_pow[j]); /* x = sum 2^j b_j */
        term_u64(1, 0, 1);
        term_u64(2, x, 1);
        end_row();
        define(x);
        for (unsigned k = 0; k < 16; k++) { /* t = b·b' */
            term_u64(0, bits + 2 * k, 1);
            term_u64(1, bits + 2 * k + 1, 1);
            term_u64(2, ands + k, 1);
            end_row();
            define(ands + k);
        }
        for (unsigned k = 0; k < 16; k++) { /* y = sum 2^k (b + b' - 2t) */
            elem neg;
            term(0, bits + 2 * k, &two_pow[k]);
            term(0, bits + 2 * k + 1, &two_pow[k]);
            neg_plain(&neg, &two_pow[k + 1]);
            term(0, ands + k, &neg);
        }
        term_u64(1, 0, 1);
        term_u64(2, y, 1);
        end_row();
        define(y);
        ring[ring_pos++ % RING] = x;
        ring[ring_pos++ % RING] = y;
        for (unsigned k = 0; k < 14; k++) { /* z = (sum c u)·(v + v') */
            uint32_t u[4], v[2];
            elem cu[4], one[2] = {{{1, 0, 0, 0}}, {{1, 0, 0, 0}}};
            for (int t = 0; t < 4; t++) {
                u[t] = ring[rand64() % RING];
                rand_plain(&cu[t]);
            }
            v[0] = ring[rand64() % RING];
            v[1] = ring[rand64() % RING];
            terms_merged(0, u, cu, 4);
            terms_merged(1, v, one, 2);
            term_u64(2, prod + k, 1);
            end_row();
            define(prod + k);
            ring[ring_pos++ % RING] = prod + k;
        }
    }
    for (unsigned j = 0; j < n_pub; j++) { /* out_j = the j-th last product */
        term_u64(0, w - 1 - j % 14, 1);
        term_u64(1, 0, 1);
        term_u64(2, 1 + j, 1);
        end_row();
        define(1 + j);
    }
    double t_build = zp_clock_now() - t0;

    /* the files: values plain */
    uint64_t *plain = malloc((size_t)n_wires * 32);
    if (plain == NULL) {
        fprintf(stderr, "zkpipe-bench-circuit: out of memory for the witness\n");
        return 3;
    }
    size_t zero_one = 0;
    for (uint32_t i = 0; i < n_wires; i++) {
        f_from_mont((elem *)(plain + 4 * (size_t)i), &val[i]);
        const uint64_t *p = plain + 4 * (size_t)i;
        zero_one += p[0] <= 1 && (p[1] | p[2] | p[3]) == 0;
    }
    zp_r1cs_header h = {
        .curve = curve, .n_wires = n_wires, .n_pub_out = n_pub, .n_labels = n_wires, .n_constraints = (uint32_t)n_rows};
    zp_r1cs_matrix m[3];
    for (int k = 0; k < 3; k++) {
        m[k] = (zp_r1cs_matrix){
            .row_start = mat[k].row_start, .wire = mat[k].wire, .coef = mat[k].coef, .n_terms = mat[k].n};
    }
    zp_error err;
    if (zp_r1cs_write(out_r1cs, &h, m, &err) != ZP_OK ||
        zp_wtns_write(out_wtns, curve, plain, n_wires, &err) != ZP_OK) {
        fprintf(stderr, "zkpipe-bench-circuit: %s\n", err.message);
        return 1;
    }
    printf(
        "%s: %s, %zu constraints (%zu blocks of 64 + %u outputs), %u wires (%.0f%% of the values 0 or 1), "
        "terms A/B/C %zu/%zu/%zu; built in %.2f s, written in %.2f s\n",
        out_r1cs, desc->name, n_rows, blocks, n_pub, n_wires, 100.0 * (double)zero_one / n_wires, mat[0].n, mat[1].n,
        mat[2].n, t_build, zp_clock_now() - t0 - t_build);
    for (int k = 0; k < 3; k++) {
        free(mat[k].row_start);
        free(mat[k].wire);
        free(mat[k].coef);
    }
    free(val);
    free(plain);
    return 0;
}
