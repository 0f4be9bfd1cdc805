#include "io/zkey.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "base/error.h"
#include "curve/desc.h"
#include "io/binfile.h"
#include "io/elements.h"
#include "mem/large.h"

enum {
    S_PROTOCOL = 1,
    S_HEADER = 2,
    S_IC = 3,
    S_COEFS = 4,
    S_A = 5,
    S_B1 = 6,
    S_B2 = 7,
    S_C = 8,
    S_H = 9,
    S_CONTRIB = 10
};
enum { PROTOCOL_GROTH16 = 1, PROTOCOL_PLONK = 2, PROTOCOL_FFLONK = 10 };

struct zp_zkey {
    zp_binfile bf;
    zp_groth16_pk pk;
    const uint8_t *circuit_hash;
    zp_zkey_stamp stamp; /* the file's at open (mtime_ns 0: from memory) */
};

static const char *section_name(uint32_t id) {
    static const char *names[] = {"?",  "protocol", "header", "IC", "coefficients", "A",
                                  "B1", "B2",       "C",      "H",  "contributions"};
    return id <= S_CONTRIB ? names[id] : "?";
}

static zp_status get(zp_zkey *z, uint32_t id, const uint8_t **p, uint64_t *n, zp_error *err) {
    return zp_binfile_section(&z->bf, id, section_name(id), 1, p, n, err);
}

static zp_status read_protocol(zp_zkey *z, zp_error *err) {
    const uint8_t *p;
    uint64_t n;
    zp_status st = get(z, S_PROTOCOL, &p, &n, err);
    if (st != ZP_OK) return st;
    if (n != 4) {
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: section 1 (protocol) is %llu bytes, expected 4", z->bf.name,
                            (unsigned long long)n);
    }
    uint32_t proto = zp_io_u32(p);
    switch (proto) {
    case PROTOCOL_GROTH16: return ZP_OK;
    case PROTOCOL_PLONK:
        return zp_error_set(err, ZP_ERR_UNSUPPORTED, "%s: a PLONK key; zkpipe proves Groth16 only", z->bf.name);
    case PROTOCOL_FFLONK:
        return zp_error_set(err, ZP_ERR_UNSUPPORTED, "%s: an FFLONK key; zkpipe proves Groth16 only", z->bf.name);
    default: return zp_error_set(err, ZP_ERR_FORMAT, "%s: unknown protocol %u in section 1", z->bf.name, proto);
    }
}

static int check_header_point(zp_zkey *z, const char *what, const uint64_t *limbs, int g2, zp_error *err) {
    zp_curve c = z->pk.curve;
    zp_io_point_check r = g2 ? zp_io_g2_check(c, limbs, 1) : zp_io_g1_check(c, limbs, 1);
    if (r == ZP_IO_POINT_OK) return 0;
    zp_error_set(err, ZP_ERR_FORMAT, "%s: header point %s %s", z->bf.name, what, zp_io_point_problem(r));
    return 1;
}

/* A base field of n8q bytes is some curve's: checked before n8q bytes of
 * modulus are read. */
static int some_curve_has_fp_bytes(uint32_t n8q) {
    for (size_t i = 0; i < zp_curve_count(); i++) {
        if (zp_curve_at(i)->fp_bytes == n8q) return 1;
    }
    return 0;
}

static zp_status read_header(zp_zkey *z, zp_error *err) {
    const uint8_t *p;
    uint64_t n;
    zp_status st = get(z, S_HEADER, &p, &n, err);
    if (st != ZP_OK) return st;
    const char *name = z->bf.name;
    if (n < 4) return zp_error_set(err, ZP_ERR_FORMAT, "%s: section 2 (header) is too short", name);
    uint32_t n8q = zp_io_u32(p);
    if (!some_curve_has_fp_bytes(n8q) || n < 4 + (uint64_t)n8q + 4) {
        return zp_error_set(err, ZP_ERR_UNSUPPORTED, "%s: unsupported curve (a %u-byte base field; zkpipe supports %s)",
                            name, n8q, ZP_CURVE_NAMES);
    }
    uint32_t n8r = zp_io_u32(p + 4 + n8q);
    if (n8r != ZP_FR_BYTES || n < 4 + (uint64_t)n8q + 4 + n8r + 12) {
        return zp_error_set(err, ZP_ERR_UNSUPPORTED,
                            "%s: unsupported curve (a %u-byte scalar field; zkpipe supports %s)", name, n8r,
                            ZP_CURVE_NAMES);
    }
    const zp_curve_desc *desc = zp_curve_find_fp(p + 4, n8q);
    if (desc == NULL || zp_curve_find_fr(p + 8 + n8q, n8r) != desc) {
        return zp_error_set(err, ZP_ERR_UNSUPPORTED,
                            "%s: unsupported curve: the header's moduli q and r are not those of any of: %s", name,
                            ZP_CURVE_NAMES);
    }
    zp_curve cq = desc->id;
    zp_groth16_pk *pk = &z->pk;
    pk->curve = cq;
    size_t g1 = zp_g1_bytes(cq), g2 = zp_g2_bytes(cq);
    const uint8_t *q = p + 8 + n8q + n8r;
    uint64_t expected = (uint64_t)(q - p) + 12 + 3 * g1 + 3 * g2;
    if (n != expected) {
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: section 2 (header) is %llu bytes, expected %llu for %s", name,
                            (unsigned long long)n, (unsigned long long)expected, zp_io_curve_title(cq));
    }
    pk->n_vars = zp_io_u32(q);
    pk->n_public = zp_io_u32(q + 4);
    pk->domain_size = zp_io_u32(q + 8);
    if (pk->n_public >= pk->n_vars) {
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: nPublic %u is not below nVars %u (which counts the constant 1)",
                            name, pk->n_public, pk->n_vars);
    }
    uint32_t d = pk->domain_size;
    if (d == 0 || (d & (d - 1)) != 0) {
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: domainSize %u is not a power of two", name, d);
    }
    /* The prover needs a 2·domainSize-th root of unity (docs/formats.md, H). */
    unsigned adicity = desc->fr_two_adicity;
    if ((uint64_t)d * 2 > (1ULL << adicity)) {
        return zp_error_set(err, ZP_ERR_UNSUPPORTED, "%s: domainSize %u is too large for %s (at most 2^%u)", name, d,
                            zp_io_curve_title(cq), adicity - 1);
    }
    q += 12;
    /* Header point order as zkey_new.js writes it (docs/formats.md). */
    memcpy(pk->alpha1, q, g1);
    q += g1;
    memcpy(pk->beta1, q, g1);
    q += g1;
    memcpy(pk->beta2, q, g2);
    q += g2;
    memcpy(pk->gamma2, q, g2);
    q += g2;
    memcpy(pk->delta1, q, g1);
    q += g1;
    memcpy(pk->delta2, q, g2);
    if (check_header_point(z, "alpha1", pk->alpha1, 0, err) || check_header_point(z, "beta1", pk->beta1, 0, err) ||
        check_header_point(z, "beta2", pk->beta2, 1, err) || check_header_point(z, "gamma2", pk->gamma2, 1, err) ||
        check_header_point(z, "delta1", pk->delta1, 0, err) || check_header_point(z, "delta2", pk->delta2, 1, err)) {
        return ZP_ERR_FORMAT;
    }
    return ZP_OK;
}

static zp_status read_coefs(zp_zkey *z, zp_error *err) {
    const uint8_t *p;
    uint64_t n;
    zp_status st = get(z, S_COEFS, &p, &n, err);
    if (st != ZP_OK) return st;
    const char *name = z->bf.name;
    if (n < 4) return zp_error_set(err, ZP_ERR_FORMAT, "%s: section 4 (coefficients) is too short", name);
    uint32_t count = zp_io_u32(p);
    uint64_t expected = 4 + (uint64_t)count * ZP_ZKEY_COEF_BYTES;
    if (n != expected) {
        return zp_error_set(err, ZP_ERR_FORMAT,
                            "%s: section 4 (coefficients) is %llu bytes, expected %llu for %u entries", name,
                            (unsigned long long)n, (unsigned long long)expected, count);
    }
    const zp_groth16_pk *pk = &z->pk;
    const uint8_t *e = p + 4, *kept = p;
    for (uint32_t i = 0; i < count; i++, e += ZP_ZKEY_COEF_BYTES) {
        /* the checked pages leave the resident set as the check goes (they
         * stay in the page cache): opening a 2^20 key otherwise held its
         * 211 MB list resident until a proof released it, which a proof
         * under a memory budget cannot afford (groth16/stream.h) */
        if ((size_t)(e - kept) >= ZP_MEM_RELEASE_STEP) {
            zp_binfile_release(&z->bf, kept, (size_t)(e - kept));
            kept = e;
        }
        uint32_t m = zp_io_u32(e), row = zp_io_u32(e + 4), sig = zp_io_u32(e + 8);
        uint64_t v[4];
        memcpy(v, e + 12, sizeof v);
        if (m > ZP_MATRIX_B) {
            return zp_error_set(err, ZP_ERR_FORMAT, "%s: coefficient %u: matrix %u is neither 0 (A) nor 1 (B)", name, i,
                                m);
        }
        if (row >= pk->domain_size) {
            return zp_error_set(err, ZP_ERR_FORMAT, "%s: coefficient %u: constraint %u is not below domainSize %u",
                                name, i, row, pk->domain_size);
        }
        if (sig >= pk->n_vars) {
            return zp_error_set(err, ZP_ERR_FORMAT, "%s: coefficient %u: signal %u is not below nVars %u", name, i, sig,
                                pk->n_vars);
        }
        if (!zp_io_fr_is_canonical(pk->curve, v)) {
            return zp_error_set(err, ZP_ERR_FORMAT,
                                "%s: coefficient %u: value is not below the %s scalar field modulus", name, i,
                                zp_io_curve_title(pk->curve));
        }
    }
    zp_binfile_release(&z->bf, kept, (size_t)(e - kept));
    z->pk.coefs = p + 4;
    z->pk.n_coefs = count;
    return ZP_OK;
}

/* A bulk point section: its size must be exactly count points. The
 * points are used in place, at whatever alignment the file gives them
 * (snarkjs's 12-byte section headers leave every other section 4 bytes
 * off 8): the MSM and the verifier read them by memcpy and unaligned
 * vector loads. Copying them to aligned memory, as zkpipe did, cost half
 * the key again in fresh memory at every open. */
static zp_status read_points(zp_zkey *z, uint32_t id, uint64_t count, int g2, const void **out, zp_error *err) {
    const uint8_t *p;
    uint64_t n;
    zp_status st = get(z, id, &p, &n, err);
    if (st != ZP_OK) return st;
    uint64_t elem = g2 ? zp_g2_bytes(z->pk.curve) : zp_g1_bytes(z->pk.curve);
    uint64_t expected = count * elem;
    if (n != expected) {
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: section %u (%s) is %llu bytes, expected %llu for %llu %s points",
                            z->bf.name, id, section_name(id), (unsigned long long)n, (unsigned long long)expected,
                            (unsigned long long)count, g2 ? "G2" : "G1");
    }
    zp_binfile_advise(&z->bf, p, (size_t)n, MADV_WILLNEED);
    *out = p;
    return ZP_OK;
}

static zp_status check_ic(zp_zkey *z, zp_error *err) {
    size_t g1 = zp_g1_bytes(z->pk.curve);
    const uint8_t *p = z->pk.ic;
    for (uint32_t i = 0; i <= z->pk.n_public; i++) {
        uint64_t limbs[12];
        memcpy(limbs, p + (size_t)i * g1, g1);
        /* No subgroup check: it is a full scalar multiplication per point
         * on BLS12-381; the proof's self-verification covers IC. */
        zp_io_point_check r = zp_io_g1_check(z->pk.curve, limbs, 0);
        if (r != ZP_IO_POINT_OK) {
            return zp_error_set(err, ZP_ERR_FORMAT, "%s: IC[%u] %s", z->bf.name, i, zp_io_point_problem(r));
        }
    }
    return ZP_OK;
}

static zp_status parse(void *object, const zp_binfile *bf, void *arg, zp_error *err) {
    (void)bf; /* it is z->bf: the key keeps its file */
    (void)arg;
    zp_zkey *z = object;
    zp_status st;
    if ((st = read_protocol(z, err)) != ZP_OK) return st;
    if ((st = read_header(z, err)) != ZP_OK) return st;
    zp_groth16_pk *pk = &z->pk;
    uint64_t nv = pk->n_vars, npub = pk->n_public;
    if ((st = read_coefs(z, err)) != ZP_OK) return st;
    if ((st = read_points(z, S_IC, npub + 1, 0, &pk->ic, err)) != ZP_OK) return st;
    if ((st = check_ic(z, err)) != ZP_OK) return st;
    if ((st = read_points(z, S_A, nv, 0, &pk->a, err)) != ZP_OK) return st;
    if ((st = read_points(z, S_B1, nv, 0, &pk->b1, err)) != ZP_OK) return st;
    if ((st = read_points(z, S_B2, nv, 1, &pk->b2, err)) != ZP_OK) return st;
    if ((st = read_points(z, S_C, nv - npub - 1, 0, &pk->c, err)) != ZP_OK) return st;
    if ((st = read_points(z, S_H, pk->domain_size, 0, &pk->h, err)) != ZP_OK) return st;
    const uint8_t *p;
    uint64_t n;
    if ((st = zp_binfile_section(&z->bf, S_CONTRIB, "contributions", 0, &p, &n, err)) != ZP_OK) return st;
    z->circuit_hash = (p != NULL && n >= 64) ? p : NULL;
    return ZP_OK;
}

static void destroy(void *object) { zp_zkey_close(object); }

/* The key keeps its file: the bulk sections are used in place. */
static const zp_binfile_format zkey_format = {.magic = "zkey",
                                              .version = 1,
                                              .object_bytes = sizeof(zp_zkey),
                                              .keep_offset = offsetof(zp_zkey, bf),
                                              .parse = parse,
                                              .destroy = destroy};

zp_status zp_zkey_open(zp_zkey **out, const char *path, zp_error *err) {
    zp_binfile_input in = {.path = path};
    zp_status st = zp_binfile_read((void **)out, &zkey_format, &in, NULL, err);
    struct stat s;
    /* a streamed proof checks that the file it reads is still this one */
    if (st == ZP_OK && stat(path, &s) == 0) {
        (*out)->stamp = (zp_zkey_stamp){(*out)->bf.size, (uint64_t)s.st_dev, (uint64_t)s.st_ino,
                                        (int64_t)s.st_mtim.tv_sec * 1000000000 + s.st_mtim.tv_nsec};
    }
    return st;
}

zp_status zp_zkey_open_mem(zp_zkey **out, const void *data, size_t size, const char *name, zp_error *err) {
    zp_binfile_input in = {.data = data, .size = size, .name = name};
    return zp_binfile_read((void **)out, &zkey_format, &in, NULL, err);
}

const zp_groth16_pk *zp_zkey_pk(const zp_zkey *zkey) { return &zkey->pk; }

const uint8_t *zp_zkey_circuit_hash(const zp_zkey *zkey) { return zkey->circuit_hash; }

zp_status zp_zkey_point_sections(const zp_zkey *zkey, const char **path, zp_zkey_stamp *stamp, uint64_t off[6],
                                 uint32_t id[6], zp_error *err) {
    if (!zkey->bf.mapped) {
        return zp_error_set(err, ZP_ERR_UNSUPPORTED, "%s: a key read from memory has no file to stream its points from",
                            zkey->bf.name);
    }
    const zp_groth16_pk *pk = &zkey->pk;
    const void *at[6] = {pk->a, pk->b1, pk->b2, pk->c, pk->h, pk->coefs};
    const uint32_t ids[6] = {S_A, S_B1, S_B2, S_C, S_H, S_COEFS};
    for (int k = 0; k < 6; k++) {
        off[k] = (uint64_t)((const uint8_t *)at[k] - zkey->bf.data);
        id[k] = ids[k];
    }
    *path = zkey->bf.name;
    *stamp = zkey->stamp;
    stamp->size = zkey->bf.size;
    return ZP_OK;
}

void zp_zkey_release_span(void *zkey, const uint8_t *p, size_t bytes) {
    const zp_zkey *z = zkey;
    zp_binfile_release(&z->bf, p, bytes);
}

void zp_zkey_release_coefs(const zp_zkey *zkey) {
    zp_binfile_release(&zkey->bf, zkey->pk.coefs, (size_t)zkey->pk.n_coefs * ZP_ZKEY_COEF_BYTES);
}

void zp_zkey_close(zp_zkey *zkey) {
    if (zkey == NULL) return;
    zp_binfile_close(&zkey->bf);
    free(zkey);
}

zp_status zp_zkey_write(const char *path, const zp_groth16_pk *pk, const uint8_t *contributions_hash, zp_error *err) {
    zp_curve c = pk->curve;
    const zp_curve_desc *d = zp_curve_get(c);
    if (d == NULL) return zp_error_set(err, ZP_ERR_ARG, "%s: cannot write a key for unknown curve %d", path, (int)c);
    if (pk->n_public >= pk->n_vars || pk->n_coefs > UINT32_MAX) {
        return zp_error_set(err, ZP_ERR_ARG, "%s: inconsistent key (nVars %u, nPublic %u, %zu coefficients)", path,
                            pk->n_vars, pk->n_public, pk->n_coefs);
    }
    size_t n8q = d->fp_bytes, g1 = d->g1_bytes, g2 = d->g2_bytes;
    size_t nv = pk->n_vars, npub = pk->n_public;
    static const uint8_t zero_hash[64];
    /* The bulk sections in zkey_new.js's order, so files compare byte for
     * byte with snarkjs's: 4 (written separately), 3, 9, 8, 5, 6, 7. */
    const struct {
        uint32_t id;
        const void *p;
        size_t bytes;
    } bulk[] = {{S_IC, pk->ic, (npub + 1) * g1},
                {S_H, pk->h, (size_t)pk->domain_size * g1},
                {S_C, pk->c, (nv - npub - 1) * g1},
                {S_A, pk->a, nv * g1},
                {S_B1, pk->b1, nv * g1},
                {S_B2, pk->b2, nv * g2}};
    enum { N_BULK = sizeof bulk / sizeof bulk[0] };
    for (size_t i = 0; i < N_BULK; i++) {
        if (bulk[i].bytes > 0 && bulk[i].p == NULL) {
            return zp_error_set(err, ZP_ERR_ARG, "%s: the key has no %s points", path, section_name(bulk[i].id));
        }
    }
    if (pk->n_coefs > 0 && pk->coefs == NULL) {
        return zp_error_set(err, ZP_ERR_ARG, "%s: the key has no coefficients", path);
    }
    zp_binwriter w;
    zp_status st = zp_binwriter_open(&w, path, "zkey", 1, 10, err);
    if (st != ZP_OK) return st;
    zp_binwriter_begin(&w, S_PROTOCOL);
    zp_binwriter_u32(&w, PROTOCOL_GROTH16);
    zp_binwriter_end(&w);

    zp_binwriter_begin(&w, S_HEADER);
    zp_binwriter_u32(&w, (uint32_t)n8q);
    zp_binwriter_bytes(&w, d->fp_modulus, n8q); /* limbs are little-endian bytes here */
    zp_binwriter_u32(&w, (uint32_t)d->fr_bytes);
    zp_binwriter_bytes(&w, d->fr_modulus, d->fr_bytes);
    zp_binwriter_u32(&w, pk->n_vars);
    zp_binwriter_u32(&w, pk->n_public);
    zp_binwriter_u32(&w, pk->domain_size);
    zp_binwriter_bytes(&w, pk->alpha1, g1);
    zp_binwriter_bytes(&w, pk->beta1, g1);
    zp_binwriter_bytes(&w, pk->beta2, g2);
    zp_binwriter_bytes(&w, pk->gamma2, g2);
    zp_binwriter_bytes(&w, pk->delta1, g1);
    zp_binwriter_bytes(&w, pk->delta2, g2);
    zp_binwriter_end(&w);

    zp_binwriter_begin(&w, S_COEFS);
    zp_binwriter_u32(&w, (uint32_t)pk->n_coefs);
    zp_binwriter_bytes(&w, pk->coefs, pk->n_coefs * ZP_ZKEY_COEF_BYTES);
    zp_binwriter_end(&w);
    for (size_t i = 0; i < N_BULK; i++) {
        zp_binwriter_begin(&w, bulk[i].id);
        zp_binwriter_bytes(&w, bulk[i].p, bulk[i].bytes);
        zp_binwriter_end(&w);
    }
    zp_binwriter_begin(&w, S_CONTRIB);
    zp_binwriter_bytes(&w, contributions_hash != NULL ? contributions_hash : zero_hash, 64);
    zp_binwriter_u32(&w, 0);
    zp_binwriter_end(&w);
    return zp_binwriter_close(&w, err);
}

zp_status zp_zkey_vk(zp_groth16_vk *vk, const zp_groth16_pk *pk, zp_error *err) {
    memset(vk, 0, sizeof *vk);
    size_t g1 = zp_g1_bytes(pk->curve), g2 = zp_g2_bytes(pk->curve);
    if (g1 == 0) return zp_error_set(err, ZP_ERR_ARG, "verification key of a key with an unknown curve");
    size_t bytes = ((size_t)pk->n_public + 1) * g1;
    vk->ic = malloc(bytes);
    if (vk->ic == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory copying IC");
    memcpy(vk->ic, pk->ic, bytes);
    vk->curve = pk->curve;
    vk->n_public = pk->n_public;
    memcpy(vk->alpha1, pk->alpha1, g1);
    memcpy(vk->beta2, pk->beta2, g2);
    memcpy(vk->gamma2, pk->gamma2, g2);
    memcpy(vk->delta2, pk->delta2, g2);
    return ZP_OK;
}
