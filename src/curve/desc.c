/* The curve descriptors (curve/desc.h), one per line of ZP_CURVE_LIST. */
#include "curve/desc.h"

#include <ctype.h>
#include <string.h>

#include "base/error.h"
#include "curve/curve.h"
#include "curve/subgroup.h"
#include "field/params.h"

/* The functions of one curve's descriptor, on bare limbs: the field and
 * point types are exactly their limbs (field_impl.h, point_impl.h), so a
 * memcpy moves between the two without depending on the caller's
 * alignment. */
#define ZP_CURVE_FUNCS_(id, g, G)                                              \
    static void g##_desc_fp_to_mont(uint64_t *mont, const uint64_t *plain) {   \
        g##_fp a, r;                                                           \
        memcpy(&a, plain, sizeof a);                                           \
        g##_fp_to_mont(&r, &a);                                                \
        memcpy(mont, &r, sizeof r);                                            \
    }                                                                          \
    static void g##_desc_fp_from_mont(uint64_t *plain, const uint64_t *mont) { \
        g##_fp a, r;                                                           \
        memcpy(&a, mont, sizeof a);                                            \
        g##_fp_from_mont(&r, &a);                                              \
        memcpy(plain, &r, sizeof r);                                           \
    }                                                                          \
    static int g##_desc_g1_is_on_curve_var(const uint64_t *limbs) {            \
        g##_g1 p;                                                              \
        memcpy(&p, limbs, sizeof p);                                           \
        return g##_g1_is_on_curve_var(&p);                                     \
    }                                                                          \
    static int g##_desc_g1_is_in_subgroup_var(const uint64_t *limbs) {         \
        g##_g1 p;                                                              \
        if (G##_G1_COFACTOR_ONE) return 1; /* on the curve is in the group */  \
        memcpy(&p, limbs, sizeof p);                                           \
        return g##_g1_is_in_subgroup_var(&p);                                  \
    }                                                                          \
    static int g##_desc_g2_is_on_curve_var(const uint64_t *limbs) {            \
        g##_g2 p;                                                              \
        memcpy(&p, limbs, sizeof p);                                           \
        return g##_g2_is_on_curve_var(&p);                                     \
    }                                                                          \
    static int g##_desc_g2_is_in_subgroup_var(const uint64_t *limbs) {         \
        g##_g2 p;                                                              \
        memcpy(&p, limbs, sizeof p);                                           \
        return g##_g2_is_in_subgroup_var(&p);                                  \
    }                                                                          \
    static const char *const g##_desc_aliases[] = {G##_ALIASES, NULL};
ZP_CURVE_LIST(ZP_CURVE_FUNCS_)

#define ZP_CURVE_LIMBS_(g, f) (sizeof(g##_##f) / sizeof(uint64_t))

#define ZP_CURVE_DESC_(cid, g, G)                                \
    const zp_curve_desc g##_curve_desc = {                       \
        .id = cid,                                               \
        .name = G##_NAME,                                        \
        .title = G##_TITLE,                                      \
        .aliases = g##_desc_aliases,                             \
        .fp_modulus = g##_fp_modulus.v,                          \
        .fp_limbs = ZP_CURVE_LIMBS_(g, fp),                      \
        .fp_bytes = sizeof(g##_fp),                              \
        .fp_bits = G##_FP_BITS,                                  \
        .fr_modulus = g##_fr_modulus.v,                          \
        .fr_limbs = ZP_CURVE_LIMBS_(g, fr),                      \
        .fr_bytes = sizeof(g##_fr),                              \
        .fr_bits = G##_FR_BITS,                                  \
        .fr_two_adicity = G##_FR_TWO_ADICITY,                    \
        .g1_bytes = sizeof(g##_g1),                              \
        .g2_bytes = sizeof(g##_g2),                              \
        .g1_cofactor_one = G##_G1_COFACTOR_ONE,                  \
        .fp_to_mont = g##_desc_fp_to_mont,                       \
        .fp_from_mont = g##_desc_fp_from_mont,                   \
        .g1_is_on_curve_var = g##_desc_g1_is_on_curve_var,       \
        .g1_is_in_subgroup_var = g##_desc_g1_is_in_subgroup_var, \
        .g2_is_on_curve_var = g##_desc_g2_is_on_curve_var,       \
        .g2_is_in_subgroup_var = g##_desc_g2_is_in_subgroup_var, \
    };
ZP_CURVE_LIST(ZP_CURVE_DESC_)

#define ZP_CURVE_ENTRY_(cid, g, G) &g##_curve_desc,
static const zp_curve_desc *const curves[] = {ZP_CURVE_LIST(ZP_CURVE_ENTRY_)};
enum { N_CURVES = sizeof curves / sizeof curves[0] };

/* The formats and the prover move points as limb arrays of these sizes. */
#define ZP_CURVE_CHECK_(id, g, G)                                                              \
    _Static_assert(sizeof(g##_fp) <= 8 * ZP_CURVE_MAX_FP_LIMBS, #g ": Fp wider than the max"); \
    _Static_assert(sizeof(g##_fr) == 32, #g ": Fr is not 4 limbs");                            \
    _Static_assert(sizeof(g##_g1) == 2 * sizeof(g##_fp), #g ": G1 is not x, y");               \
    _Static_assert(sizeof(g##_g2) == 4 * sizeof(g##_fp), #g ": G2 is not two Fp2");
ZP_CURVE_LIST(ZP_CURVE_CHECK_)

size_t zp_curve_count(void) { return N_CURVES; }

const zp_curve_desc *zp_curve_at(size_t i) { return i < N_CURVES ? curves[i] : NULL; }

const zp_curve_desc *zp_curve_get(zp_curve id) {
    for (size_t i = 0; i < N_CURVES; i++) {
        if (curves[i]->id == id) return curves[i];
    }
    return NULL;
}

zp_status zp_curve_lookup(const zp_curve_desc **out, zp_curve id, zp_error *err) {
    *out = zp_curve_get(id);
    if (*out != NULL) return ZP_OK;
    return zp_error_set(err, ZP_ERR_ARG, "unknown curve %d (zkpipe supports %s)", (int)id, ZP_CURVE_NAMES);
}

/* snarkjs's curves.js: upper case, everything but letters and digits
 * dropped. 0 when the name is too long to be any curve's. */
static int normalise(char *out, size_t cap, const char *s) {
    size_t n = 0;
    for (; *s; s++) {
        if (!isalnum((unsigned char)*s)) continue;
        if (n + 1 >= cap) return 0;
        out[n++] = (char)toupper((unsigned char)*s);
    }
    out[n] = '\0';
    return 1;
}

const zp_curve_desc *zp_curve_find(const char *name) {
    char want[32], have[32];
    if (name == NULL || !normalise(want, sizeof want, name) || want[0] == '\0') return NULL;
    for (size_t i = 0; i < N_CURVES; i++) {
        const zp_curve_desc *d = curves[i];
        if ((normalise(have, sizeof have, d->name) && !strcmp(want, have)) ||
            (normalise(have, sizeof have, d->title) && !strcmp(want, have))) {
            return d;
        }
        for (const char *const *a = d->aliases; *a != NULL; a++) {
            if (!strcmp(want, *a)) return d;
        }
    }
    return NULL;
}

/* An n8-byte little-endian integer equals the n limbs m exactly. */
static int le_equals(const uint8_t *le, size_t n8, const uint64_t *m, size_t n) {
    if (le == NULL || n8 != 8 * n) return 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t w;
        memcpy(&w, le + 8 * i, 8); /* the formats are little-endian, as is the host (io/elements.h) */
        if (w != m[i]) return 0;
    }
    return 1;
}

const zp_curve_desc *zp_curve_find_fp(const uint8_t *le, size_t n8) {
    for (size_t i = 0; i < N_CURVES; i++) {
        if (le_equals(le, n8, curves[i]->fp_modulus, curves[i]->fp_limbs)) return curves[i];
    }
    return NULL;
}

const zp_curve_desc *zp_curve_find_fr(const uint8_t *le, size_t n8) {
    for (size_t i = 0; i < N_CURVES; i++) {
        if (le_equals(le, n8, curves[i]->fr_modulus, curves[i]->fr_limbs)) return curves[i];
    }
    return NULL;
}

/* The public API's name of a curve (zkpipe.h); it lives here, not in
 * base/, because the names are the descriptors'. */
const char *zp_curve_name(zp_curve curve) {
    const zp_curve_desc *d = zp_curve_get(curve);
    return d != NULL ? d->name : "unknown";
}
