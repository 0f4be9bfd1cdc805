#include "io/json.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigint.h"
#include "base/error.h"
#include "base/file.h"
#include "curve/desc.h"
#include "io/elements.h"

/* What every reader carries: the file name and curve for messages. */
typedef struct ctx {
    const char *name;
    zp_curve curve;
    zp_error *err;
} ctx;

/* ---- reading ---- */

static zp_status load(json_t **root, const char *text, size_t len, const char *name, zp_error *err) {
    json_error_t jerr;
    /* Duplicate keys are rejected: which one counts is ambiguous, and two
     * readers that disagree about it is how forged inputs get through. */
    *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (*root == NULL) {
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: not valid JSON: %s (line %d, column %d)", name, jerr.text,
                            jerr.line, jerr.column);
    }
    return ZP_OK;
}

/* How large each file may be. A proof is three points: under 1.5 KiB as
 * snarkjs writes it, so 64 KiB leaves room for any spacing. A verification
 * key and public.json grow with the public inputs (about 400 and 85 bytes
 * each as snarkjs writes them), which the file itself announces, so they get
 * one documented cap (docs/formats.md): 64 MiB, over 150,000 public inputs.
 * The cap is checked on the descriptor's size before a byte is read, so a
 * huge (or sparse) file is refused without allocating for it. */
#define PROOF_MAX_BYTES (64u << 10)
#define VK_MAX_BYTES (64u << 20)
#define PUBLIC_MAX_BYTES (64u << 20)

/* A decimal string (and nothing else: no numbers, no embedded NULs). */
static int get_dec(uint64_t *out, size_t n, const json_t *j) {
    const char *s = json_string_value(j);
    if (s == NULL || strlen(s) != json_string_length(j)) return 0;
    return zp_bigint_from_dec(out, n, s);
}

static zp_status bad_fp(ctx *c, const char *field) {
    return zp_error_set(c->err, ZP_ERR_FORMAT, "%s: %s is not a decimal number below the %s base field modulus",
                        c->name, field, zp_io_curve_title(c->curve));
}

/* One plain base field element: out gets its limbs. */
static zp_status get_fp(ctx *c, uint64_t *out, const json_t *j, const char *field) {
    if (!get_dec(out, zp_io_fp_limbs(c->curve), j) || !zp_io_fp_is_canonical(c->curve, out)) return bad_fp(c, field);
    return ZP_OK;
}

static int limbs_is(const uint64_t *a, size_t n, uint64_t v) {
    for (size_t i = 0; i < n; i++) {
        if (a[i] != (i == 0 ? v : 0)) return 0;
    }
    return 1;
}

/* A point, G1 (deg 1) or G2 (deg 2): [x, y] or [x, y, z] with z = 1 (an
 * affine point) or z = 0 (infinity, whatever x and y are, as ffjavascript's
 * fromObject reads it). mont gets the coordinates in Montgomery form, all
 * zero for infinity. */
static zp_status get_point(ctx *c, uint64_t *mont, const json_t *j, const char *field, int deg) {
    size_t n = zp_io_fp_limbs(c->curve);
    size_t k = json_array_size(j);
    if (!json_is_array(j) || (k != 2 && k != 3)) {
        return zp_error_set(c->err, ZP_ERR_FORMAT, "%s: %s is not a %s point (an array of 3 %s)", c->name, field,
                            deg == 1 ? "G1" : "G2", deg == 1 ? "decimal strings" : "pairs of decimal strings");
    }
    uint64_t xyz[3][2][ZP_IO_MAX_LIMBS] = {{{0}}};
    xyz[2][0][0] = 1;
    for (size_t i = 0; i < k; i++) {
        const json_t *e = json_array_get(j, i);
        char sub[128];
        if (deg == 1) {
            snprintf(sub, sizeof sub, "%s[%zu]", field, i);
            zp_status st = get_fp(c, xyz[i][0], e, sub);
            if (st != ZP_OK) return st;
            continue;
        }
        if (!json_is_array(e) || json_array_size(e) != 2) {
            return zp_error_set(c->err, ZP_ERR_FORMAT, "%s: %s[%zu] is not a pair of decimal strings", c->name, field,
                                i);
        }
        for (size_t h = 0; h < 2; h++) {
            snprintf(sub, sizeof sub, "%s[%zu][%zu]", field, i, h);
            zp_status st = get_fp(c, xyz[i][h], json_array_get(e, h), sub);
            if (st != ZP_OK) return st;
        }
    }
    memset(mont, 0, (size_t)deg * 2 * n * sizeof *mont);
    int z_zero = limbs_is(xyz[2][0], n, 0) && limbs_is(xyz[2][1], n, 0);
    if (z_zero) return ZP_OK;
    if (!limbs_is(xyz[2][0], n, 1) || !limbs_is(xyz[2][1], n, 0)) {
        return zp_error_set(c->err, ZP_ERR_FORMAT, "%s: %s[2] is neither 1 (an affine point) nor 0 (infinity)", c->name,
                            field);
    }
    int xy_zero = 1;
    for (size_t i = 0; i < 2; i++) {
        for (int h = 0; h < deg; h++) {
            xy_zero &= limbs_is(xyz[i][h], n, 0);
            zp_io_fp_to_mont(c->curve, mont + (i * (size_t)deg + (size_t)h) * n, xyz[i][h]);
        }
    }
    /* (0, 0) is our encoding of infinity but is no point of the curve:
     * written with z = 1, it is an invalid point, not infinity. */
    zp_io_point_check r = xy_zero    ? ZP_IO_POINT_OFF_CURVE
                          : deg == 1 ? zp_io_g1_check(c->curve, mont, 1)
                                     : zp_io_g2_check(c->curve, mont, 1);
    if (r != ZP_IO_POINT_OK) {
        return zp_error_set(c->err, ZP_ERR_FORMAT, "%s: %s %s", c->name, field, zp_io_point_problem(r));
    }
    return ZP_OK;
}

static zp_status get_member(ctx *c, const json_t **out, const json_t *root, const char *key) {
    *out = json_object_get(root, key);
    if (*out == NULL) return zp_error_set(c->err, ZP_ERR_FORMAT, "%s: %s is missing", c->name, key);
    return ZP_OK;
}

/* snarkjs's curves.js spellings (case-insensitive, punctuation ignored):
 * the descriptors' names and aliases. */
static zp_curve curve_from_name(const char *s) {
    const zp_curve_desc *d = zp_curve_find(s);
    return d != NULL ? d->id : ZP_CURVE_NONE;
}

/* protocol must be "groth16"; curve names the curve (or, when absent, the
 * expected one is taken). */
static zp_status get_protocol_curve(ctx *c, const json_t *root, zp_curve expected, const char *other) {
    const json_t *p;
    zp_status st = get_member(c, &p, root, "protocol");
    if (st != ZP_OK) return st;
    const char *proto = json_string_value(p);
    if (proto == NULL) return zp_error_set(c->err, ZP_ERR_FORMAT, "%s: protocol is not a string", c->name);
    if (strcmp(proto, "groth16") != 0) {
        return zp_error_set(c->err, ZP_ERR_UNSUPPORTED, "%s: protocol is \"%.32s\"; zkpipe handles groth16 only",
                            c->name, proto);
    }
    const json_t *cv = json_object_get(root, "curve");
    if (cv == NULL && expected == ZP_CURVE_NONE) {
        return zp_error_set(c->err, ZP_ERR_FORMAT, "%s: curve is missing", c->name);
    }
    c->curve = expected;
    if (cv != NULL) {
        const char *name = json_string_value(cv);
        if (name == NULL) return zp_error_set(c->err, ZP_ERR_FORMAT, "%s: curve is not a string", c->name);
        c->curve = curve_from_name(name);
        if (c->curve == ZP_CURVE_NONE) {
            return zp_error_set(c->err, ZP_ERR_UNSUPPORTED, "%s: unsupported curve \"%.32s\" (expected one of: %s)",
                                c->name, name, ZP_CURVE_NAMES);
        }
    }
    if (expected != ZP_CURVE_NONE && c->curve != expected) {
        return zp_error_set(c->err, ZP_ERR_MISMATCH, "%s: a %s %s, but %s is for %s", c->name,
                            zp_io_curve_title(c->curve), other, "the verification key", zp_io_curve_title(expected));
    }
    return ZP_OK;
}

zp_status zp_json_proof_parse(zp_groth16_proof *proof, const char *text, size_t len, const char *name,
                              zp_curve expected, zp_error *err) {
    memset(proof, 0, sizeof *proof);
    json_t *root;
    zp_status st = load(&root, text, len, name, err);
    if (st != ZP_OK) return st;
    ctx c = {.name = name, .err = err};
    const json_t *a, *b, *cc;
    if (!json_is_object(root)) {
        st = zp_error_set(err, ZP_ERR_FORMAT, "%s: not a JSON object", name);
    } else if ((st = get_protocol_curve(&c, root, expected, "proof")) == ZP_OK &&
               (st = get_member(&c, &a, root, "pi_a")) == ZP_OK && (st = get_member(&c, &b, root, "pi_b")) == ZP_OK &&
               (st = get_member(&c, &cc, root, "pi_c")) == ZP_OK &&
               (st = get_point(&c, proof->a, a, "pi_a", 1)) == ZP_OK &&
               (st = get_point(&c, proof->b, b, "pi_b", 2)) == ZP_OK &&
               (st = get_point(&c, proof->c, cc, "pi_c", 1)) == ZP_OK) {
        proof->curve = c.curve;
    }
    json_decref(root);
    if (st != ZP_OK) memset(proof, 0, sizeof *proof);
    return st;
}

zp_status zp_json_public_parse(uint64_t **values, size_t *count, const char *text, size_t len, const char *name,
                               zp_curve curve, zp_error *err) {
    *values = NULL;
    *count = 0;
    if (zp_curve_get(curve) == NULL) {
        return zp_error_set(err, ZP_ERR_ARG,
                            "%s: public values need a curve to be checked against (curve %d is unknown)", name,
                            (int)curve);
    }
    json_t *root;
    zp_status st = load(&root, text, len, name, err);
    if (st != ZP_OK) return st;
    size_t n = json_array_size(root);
    uint64_t *v = NULL;
    if (!json_is_array(root)) {
        st = zp_error_set(err, ZP_ERR_FORMAT, "%s: not a JSON array of decimal strings", name);
    } else if ((v = malloc((n ? n : 1) * 4 * sizeof *v)) == NULL) {
        st = zp_error_set(err, ZP_ERR_NOMEM, "%s: out of memory", name);
    } else {
        for (size_t i = 0; i < n; i++) {
            if (!get_dec(v + 4 * i, 4, json_array_get(root, i)) || !zp_io_fr_is_canonical(curve, v + 4 * i)) {
                st = zp_error_set(err, ZP_ERR_FORMAT,
                                  "%s: [%zu] is not a decimal number below the %s scalar field modulus", name, i,
                                  zp_io_curve_title(curve));
                break;
            }
        }
    }
    json_decref(root);
    if (st != ZP_OK) {
        free(v);
        return st;
    }
    *values = v;
    *count = n;
    return ZP_OK;
}

static zp_status vk_fill(zp_groth16_vk *vk, ctx *c, const json_t *root) {
    zp_status st;
    if (!json_is_object(root)) return zp_error_set(c->err, ZP_ERR_FORMAT, "%s: not a JSON object", c->name);
    if ((st = get_protocol_curve(c, root, ZP_CURVE_NONE, "key")) != ZP_OK) return st;
    vk->curve = c->curve;
    const json_t *np, *ic, *p;
    if ((st = get_member(c, &np, root, "nPublic")) != ZP_OK) return st;
    json_int_t npub = json_integer_value(np);
    if (!json_is_integer(np) || npub < 0 || npub >= UINT32_MAX) {
        return zp_error_set(c->err, ZP_ERR_FORMAT, "%s: nPublic is not a non-negative integer", c->name);
    }
    vk->n_public = (uint32_t)npub;
    if ((st = get_member(c, &ic, root, "IC")) != ZP_OK) return st;
    if (!json_is_array(ic) || json_array_size(ic) != (size_t)npub + 1) {
        return zp_error_set(c->err, ZP_ERR_FORMAT, "%s: IC is not an array of nPublic + 1 = %lld points", c->name,
                            (long long)npub + 1);
    }
    static const char *const g2_names[3] = {"vk_beta_2", "vk_gamma_2", "vk_delta_2"};
    uint64_t *g2_out[3] = {vk->beta2, vk->gamma2, vk->delta2};
    if ((st = get_member(c, &p, root, "vk_alpha_1")) != ZP_OK) return st;
    if ((st = get_point(c, vk->alpha1, p, "vk_alpha_1", 1)) != ZP_OK) return st;
    for (int i = 0; i < 3; i++) {
        if ((st = get_member(c, &p, root, g2_names[i])) != ZP_OK) return st;
        if ((st = get_point(c, g2_out[i], p, g2_names[i], 2)) != ZP_OK) return st;
    }
    size_t n = zp_io_fp_limbs(c->curve);
    vk->ic = malloc(((size_t)npub + 1) * 2 * n * sizeof *vk->ic);
    if (vk->ic == NULL) return zp_error_set(c->err, ZP_ERR_NOMEM, "%s: out of memory", c->name);
    for (size_t i = 0; i <= (size_t)npub; i++) {
        char field[48];
        snprintf(field, sizeof field, "IC[%zu]", i);
        if ((st = get_point(c, vk->ic + i * 2 * n, json_array_get(ic, i), field, 1)) != ZP_OK) return st;
    }
    return ZP_OK;
}

zp_status zp_json_vk_parse(zp_groth16_vk *vk, const char *text, size_t len, const char *name, zp_error *err) {
    memset(vk, 0, sizeof *vk);
    json_t *root;
    zp_status st = load(&root, text, len, name, err);
    if (st != ZP_OK) return st;
    ctx c = {.name = name, .err = err};
    st = vk_fill(vk, &c, root);
    json_decref(root);
    if (st != ZP_OK) {
        zp_groth16_vk_free(vk);
        memset(vk, 0, sizeof *vk);
    }
    return st;
}

zp_status zp_json_proof_read(zp_groth16_proof *proof, const char *path, zp_curve expected, zp_error *err) {
    char *text;
    size_t len;
    zp_status st = zp_file_read_all(&text, &len, path, PROOF_MAX_BYTES, "a proof", err);
    if (st != ZP_OK) return st;
    st = zp_json_proof_parse(proof, text, len, path, expected, err);
    free(text);
    return st;
}

zp_status zp_json_public_read(uint64_t **values, size_t *count, const char *path, zp_curve curve, zp_error *err) {
    char *text;
    size_t len;
    *values = NULL;
    *count = 0;
    zp_status st = zp_file_read_all(&text, &len, path, PUBLIC_MAX_BYTES, "a list of public signals", err);
    if (st != ZP_OK) return st;
    st = zp_json_public_parse(values, count, text, len, path, curve, err);
    free(text);
    return st;
}

zp_status zp_json_vk_read(zp_groth16_vk *vk, const char *path, zp_error *err) {
    char *text;
    size_t len;
    memset(vk, 0, sizeof *vk);
    zp_status st = zp_file_read_all(&text, &len, path, VK_MAX_BYTES, "a verification key", err);
    if (st != ZP_OK) return st;
    st = zp_json_vk_parse(vk, text, len, path, err);
    free(text);
    return st;
}

/* ---- writing ---- */

/* Builders remember an allocation failure instead of checking each call. */
typedef struct builder {
    int oom;
} builder;

static json_t *keep(builder *b, json_t *j) {
    if (j == NULL) b->oom = 1;
    return j;
}
static void push(builder *b, json_t *arr, json_t *v) {
    if (arr == NULL || v == NULL || json_array_append_new(arr, v) != 0) b->oom = 1;
}
static void put(builder *b, json_t *obj, const char *key, json_t *v) {
    if (obj == NULL || v == NULL || json_object_set_new(obj, key, v) != 0) b->oom = 1;
}

static json_t *dec(builder *b, const uint64_t *plain, size_t n) {
    char buf[128];
    if (!zp_bigint_to_dec(buf, sizeof buf, plain, n)) return keep(b, NULL);
    return keep(b, json_string(buf));
}

static json_t *fp(builder *b, zp_curve c, const uint64_t *mont) {
    uint64_t plain[ZP_IO_MAX_LIMBS];
    zp_io_fp_from_mont(c, plain, mont);
    return dec(b, plain, zp_io_fp_limbs(c));
}

/* ffjavascript's toObject: [x, y, 1], infinity as [0, 1, 0]. */
static json_t *point(builder *b, zp_curve c, const uint64_t *mont, int deg) {
    size_t n = zp_io_fp_limbs(c);
    static const uint64_t zero[1] = {0}, one[1] = {1};
    int inf = limbs_is(mont, (size_t)deg * 2 * n, 0);
    json_t *arr = keep(b, json_array());
    for (int i = 0; i < 3; i++) {
        /* Literal coordinates: z = 1 for a point, y = 1 for infinity. */
        const uint64_t *lit = (inf ? i == 1 : i == 2) ? one : zero;
        json_t *coord = deg == 1 ? NULL : keep(b, json_array());
        for (int h = 0; h < deg; h++) {
            json_t *v = (inf || i == 2) ? dec(b, h == 0 ? lit : zero, 1) : fp(b, c, mont + ((size_t)i * deg + h) * n);
            if (deg == 1) {
                coord = v;
            } else {
                push(b, coord, v);
            }
        }
        push(b, arr, coord);
    }
    return arr;
}

static zp_status finish_dump(char **out, json_t *root, builder *b, zp_error *err) {
    *out = b->oom ? NULL : json_dumps(root, JSON_INDENT(1));
    json_decref(root);
    if (*out == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory writing JSON");
    return ZP_OK;
}

static int known_curve(zp_curve c) { return zp_curve_get(c) != NULL; }

zp_status zp_json_proof_dump(char **out, const zp_groth16_proof *proof, zp_error *err) {
    *out = NULL;
    if (!known_curve(proof->curve)) return zp_error_set(err, ZP_ERR_ARG, "a proof with an unknown curve");
    builder b = {0};
    json_t *root = keep(&b, json_object());
    put(&b, root, "pi_a", point(&b, proof->curve, proof->a, 1));
    put(&b, root, "pi_b", point(&b, proof->curve, proof->b, 2));
    put(&b, root, "pi_c", point(&b, proof->curve, proof->c, 1));
    put(&b, root, "protocol", keep(&b, json_string("groth16")));
    put(&b, root, "curve", keep(&b, json_string(zp_curve_name(proof->curve))));
    return finish_dump(out, root, &b, err);
}

zp_status zp_json_public_dump(char **out, const uint64_t *values, size_t count, zp_error *err) {
    builder b = {0};
    json_t *root = keep(&b, json_array());
    for (size_t i = 0; i < count; i++) push(&b, root, dec(&b, values + 4 * i, 4));
    return finish_dump(out, root, &b, err);
}

zp_status zp_json_vk_dump(char **out, const zp_groth16_vk *vk, const uint64_t *alphabeta, zp_error *err) {
    *out = NULL;
    if (!known_curve(vk->curve)) return zp_error_set(err, ZP_ERR_ARG, "a verification key with an unknown curve");
    zp_curve c = vk->curve;
    size_t n = zp_io_fp_limbs(c);
    builder b = {0};
    json_t *root = keep(&b, json_object());
    put(&b, root, "protocol", keep(&b, json_string("groth16")));
    put(&b, root, "curve", keep(&b, json_string(zp_curve_name(c))));
    put(&b, root, "nPublic", keep(&b, json_integer(vk->n_public)));
    put(&b, root, "vk_alpha_1", point(&b, c, vk->alpha1, 1));
    put(&b, root, "vk_beta_2", point(&b, c, vk->beta2, 2));
    put(&b, root, "vk_gamma_2", point(&b, c, vk->gamma2, 2));
    put(&b, root, "vk_delta_2", point(&b, c, vk->delta2, 2));
    /* Gt.toObject: Fp12 -> [c0, c1] of Fp6 -> [c0, c1, c2] of Fp2 -> [c0, c1]. */
    json_t *ab = keep(&b, json_array());
    for (size_t i = 0; i < 2; i++) {
        json_t *f6 = keep(&b, json_array());
        for (size_t j = 0; j < 3; j++) {
            json_t *f2 = keep(&b, json_array());
            for (size_t k = 0; k < 2; k++) push(&b, f2, fp(&b, c, alphabeta + (i * 6 + j * 2 + k) * n));
            push(&b, f6, f2);
        }
        push(&b, ab, f6);
    }
    put(&b, root, "vk_alphabeta_12", ab);
    json_t *ic = keep(&b, json_array());
    for (size_t i = 0; i <= vk->n_public; i++) push(&b, ic, point(&b, c, vk->ic + i * 2 * n, 1));
    put(&b, root, "IC", ic);
    return finish_dump(out, root, &b, err);
}

static zp_status write_text(const char *path, char *text, zp_status st, zp_error *err) {
    if (st != ZP_OK) return st;
    return zp_json_text_write(path, text, err);
}

zp_status zp_json_text_write(const char *path, char *text, zp_error *err) {
    size_t len = strlen(text);
    char *line = realloc(text, len + 1); /* the text and its newline in one write */
    if (line == NULL) {
        free(text);
        return zp_error_set(err, ZP_ERR_NOMEM, "%s: out of memory", path);
    }
    line[len] = '\n';
    zp_status st = zp_file_write_all(path, line, len + 1, err);
    free(line);
    return st;
}

zp_status zp_json_proof_write(const char *path, const zp_groth16_proof *proof, zp_error *err) {
    char *text;
    zp_status st = zp_json_proof_dump(&text, proof, err);
    return write_text(path, text, st, err);
}

zp_status zp_json_public_write(const char *path, const uint64_t *values, size_t count, zp_error *err) {
    char *text;
    zp_status st = zp_json_public_dump(&text, values, count, err);
    return write_text(path, text, st, err);
}

zp_status zp_json_vk_write(const char *path, const zp_groth16_vk *vk, const uint64_t *alphabeta, zp_error *err) {
    char *text;
    zp_status st = zp_json_vk_dump(&text, vk, alphabeta, err);
    return write_text(path, text, st, err);
}
