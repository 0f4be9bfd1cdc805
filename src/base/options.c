#include "base/options.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/memory.h"

/* Numbers are read by hand, not with strtod/strtoul: those take "nan",
 * "inf", hex, exponents, leading spaces and signs ("-1" wraps to 2^64-1),
 * and a budget of "nan" once became 8 EiB. What is accepted here is what a
 * person writes: decimal digits, for sizes and seconds with a fraction. */

/* The number of leading decimal digits of s. */
static size_t digits(const char *s) {
    size_t n = 0;
    while (s[n] >= '0' && s[n] <= '9') n++;
    return n;
}

int zp_size_parse(uint64_t *out, const char *s) {
    *out = 0;
    size_t n_int = digits(s);
    if (n_int == 0) return 0;
    unsigned __int128 whole = 0;
    for (size_t i = 0; i < n_int; i++) {
        whole = whole * 10 + (unsigned)(s[i] - '0');
        if (whole > UINT64_MAX) return 0;
    }
    const char *p = s + n_int;
    /* The fraction, to 18 digits (more cannot change a byte count even in
     * TiB, so they are checked and dropped). */
    uint64_t frac = 0, frac_scale = 1;
    if (*p == '.') {
        size_t n_frac = digits(++p);
        if (n_frac == 0) return 0;
        for (size_t i = 0; i < n_frac && i < 18; i++) {
            frac = frac * 10 + (uint64_t)(p[i] - '0');
            frac_scale *= 10;
        }
        p += n_frac;
    }
    unsigned shift = 0;
    switch (*p) {
    case 'k':
    case 'K': shift = 10; break;
    case 'm':
    case 'M': shift = 20; break;
    case 'g':
    case 'G': shift = 30; break;
    case 't':
    case 'T': shift = 40; break;
    default: break;
    }
    if (shift) {
        p++;
        if (*p == 'i') p++; /* "8Gi", "8GiB": the same 2^30 as "8G" */
    }
    if (*p == 'B') p++;
    if (*p != '\0') return 0;
    unsigned __int128 v = (whole << shift) + (((unsigned __int128)frac << shift) / frac_scale);
    if (v > UINT64_MAX) return 0;
    *out = (uint64_t)v;
    return 1;
}

uint64_t zp_parse_size(const char *s) {
    uint64_t v;
    return zp_size_parse(&v, s) ? v : 0;
}

/* A whole number: decimal digits only, within 64 bits. */
static int parse_whole(uint64_t *out, const char *s) {
    size_t n = digits(s);
    if (n == 0 || s[n] != '\0') return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return 0;
        v = v * 10 + d;
    }
    *out = v;
    return 1;
}

/* Seconds: digits with an optional fraction ("30", "0.25"). The text is
 * checked first, so strtod only ever sees a plain decimal number. */
static int parse_seconds(double *out, const char *s) {
    size_t n = digits(s);
    if (n == 0) return 0;
    if (s[n] == '.') {
        size_t f = digits(s + n + 1);
        if (f == 0) return 0;
        n += 1 + f;
    }
    if (s[n] != '\0') return 0;
    double v = strtod(s, NULL);
    if (!isfinite(v)) return 0;
    *out = v;
    return 1;
}

/* name against a table's name, '-' and '_' alike */
static int same_name(const char *a, const char *b) {
    for (; *a && *b; a++, b++) {
        char x = *a == '-' ? '_' : *a, y = *b == '-' ? '_' : *b;
        if (x != y) return 0;
    }
    return *a == *b;
}

const zp_option *zp_options_find(const zp_option *options, size_t n, const char *name) {
    for (size_t i = 0; i < n; i++) {
        if (same_name(options[i].name, name)) return &options[i];
    }
    return NULL;
}

/* The message's head: "where: spelled" or "spelled". */
#define ZP_OPT_ERROR(err, where, spelled, fmt, ...) \
    zp_error_set(err, ZP_ERR_ARG, "%s%s%s " fmt, where ? where : "", where ? ": " : "", spelled, __VA_ARGS__)

static int in_bounds(const zp_option *o, uint64_t v) {
    return (o->min == 0 && o->max == 0) || (v >= o->min && v <= o->max);
}

zp_status zp_options_set(void *dst, const zp_option *o, const char *spelled, const char *value, const char *where,
                         zp_error *err) {
    char *field = (char *)dst + o->offset;
    switch (o->type) {
    case ZP_OPT_FLAG: *(int *)field = 1; return ZP_OK;
    case ZP_OPT_ARG: *(const char **)field = value; return ZP_OK;
    case ZP_OPT_STRDUP: {
        char *copy = strdup(value);
        if (copy == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
        free(*(char **)field);
        *(char **)field = copy;
        return ZP_OK;
    }
    case ZP_OPT_LIST: {
        zp_option_list *l = (zp_option_list *)field;
        l->items[l->n++] = value;
        return ZP_OK;
    }
    case ZP_OPT_CUSTOM: return o->set(dst, o, value, where ? where : spelled, err);
    case ZP_OPT_INT: {
        uint64_t mag;
        int neg = value[0] == '-';
        if (!parse_whole(&mag, value + neg) || mag > (uint64_t)LLONG_MAX + (uint64_t)neg) {
            return ZP_OPT_ERROR(err, where, spelled, "needs an integer, not '%s'", value);
        }
        /* -(LLONG_MAX) - 1 without overflowing on the way */
        *(long long *)field = neg ? (mag ? -(long long)(mag - 1) - 1 : 0) : (long long)mag;
        return ZP_OK;
    }
    case ZP_OPT_SECONDS: {
        double v;
        if (!parse_seconds(&v, value) || !(v >= (double)o->min) || (o->max && v > (double)o->max)) {
            return ZP_OPT_ERROR(err, where, spelled, "needs a number of seconds, not '%s'", value);
        }
        *(double *)field = v;
        return ZP_OK;
    }
    case ZP_OPT_UINT:
    case ZP_OPT_COUNT:
    case ZP_OPT_BYTES:
    case ZP_OPT_MEMORY: {
        uint64_t v;
        if (o->type == ZP_OPT_BYTES || o->type == ZP_OPT_MEMORY) {
            if (!zp_size_parse(&v, value)) {
                return ZP_OPT_ERROR(err, where, spelled, "needs a size such as 8G or 512M, not '%s'", value);
            }
        } else if (!parse_whole(&v, value)) {
            return ZP_OPT_ERROR(err, where, spelled, "needs a whole number, not '%s'", value);
        }
        if (!in_bounds(o, v)) {
            return ZP_OPT_ERROR(err, where, spelled, "must be between %llu and %llu, not %s",
                                (unsigned long long)o->min, (unsigned long long)o->max, value);
        }
        if (o->type == ZP_OPT_MEMORY) {
            /* 2^64 - 1 would be taken for "unlimited", 16 EiB on a 24 GiB
             * machine: a budget the kernel's OOM killer, not the engine,
             * would end */
            char what[1300], b1[32], b2[32];
            uint64_t have = zp_memory_limit(what, sizeof what);
            if (have != 0 && v > have) {
                return ZP_OPT_ERROR(err, where, spelled,
                                    "%s (%s) is more than this machine's memory: %s (%s); give at most that", value,
                                    zp_size_text(b1, v), zp_size_text(b2, have), what);
            }
        }
        if (o->type == ZP_OPT_COUNT) {
            *(size_t *)field = (size_t)v;
        } else {
            *(uint64_t *)field = v;
        }
        return ZP_OK;
    }
    }
    return zp_error_set(err, ZP_ERR_INTERNAL, "option %s: unknown type %d", o->name, (int)o->type);
}

zp_status zp_options_defaults(const zp_option *options, size_t n, void *dst, zp_error *err) {
    for (size_t i = 0; i < n; i++) {
        if (options[i].def == NULL) continue;
        zp_status st = zp_options_set(dst, &options[i], options[i].name, options[i].def, "default", err);
        if (st != ZP_OK) return st;
    }
    return ZP_OK;
}

/* The option an argument names, with its table; NULL when none. */
static const zp_option *lookup(const zp_option_table *tables, size_t n_tables, const char *arg, void **dst) {
    for (size_t t = 0; t < n_tables; t++) {
        const zp_option *o = NULL;
        if (arg[1] == '-') {
            o = zp_options_find(tables[t].options, tables[t].n, arg + 2);
        } else if (arg[2] == '\0') {
            for (size_t i = 0; i < tables[t].n && o == NULL; i++) {
                if (tables[t].options[i].short_name == arg[1]) o = &tables[t].options[i];
            }
        }
        if (o != NULL) {
            *dst = tables[t].dst;
            return o;
        }
    }
    return NULL;
}

zp_status zp_options_parse(const zp_option_table *tables, size_t n_tables, int argc, char **argv, int *n_args,
                           zp_error *err) {
    int out = 1;
    *n_args = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == '\0') {
            argv[out++] = argv[i];
            continue;
        }
        /* --name=VALUE and -n=VALUE (snarkjs's spelling) as two words */
        char name[128];
        const char *eq = strchr(a, '='), *inline_value = NULL;
        if (eq != NULL) {
            if ((size_t)(eq - a) >= sizeof name) return zp_error_set(err, ZP_ERR_ARG, "unknown option '%s'", a);
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = '\0';
            a = name;
            inline_value = eq + 1;
        }
        void *dst = NULL;
        const zp_option *o = lookup(tables, n_tables, a, &dst);
        if (o == NULL) return zp_error_set(err, ZP_ERR_ARG, "unknown option '%s'", a);
        if (o->type == ZP_OPT_FLAG) {
            if (inline_value != NULL) return zp_error_set(err, ZP_ERR_ARG, "%s takes no value", a);
            *(int *)((char *)dst + o->offset) = 1;
            continue;
        }
        if (inline_value != NULL) {
            zp_status st = zp_options_set(dst, o, a, inline_value, NULL, err);
            if (st != ZP_OK) return st;
            continue;
        }
        if (o->type == ZP_OPT_LIST) {
            while (i + 1 < argc && argv[i + 1][0] != '-') {
                zp_status st = zp_options_set(dst, o, a, argv[++i], NULL, err);
                if (st != ZP_OK) return st;
            }
            continue;
        }
        /* a short option is named with its long name: "-t (--threads)" */
        char spelled[128];
        snprintf(spelled, sizeof spelled, a[1] == '-' ? "%s" : "%s (--%s)", a, o->name);
        if (i + 1 >= argc) return zp_error_set(err, ZP_ERR_ARG, "%s needs a value", spelled);
        zp_status st = zp_options_set(dst, o, spelled, argv[i + 1], NULL, err);
        if (st != ZP_OK) return st;
        i++;
    }
    *n_args = out - 1;
    return ZP_OK;
}

static const char *type_word(zp_option_type t) {
    switch (t) {
    case ZP_OPT_BYTES:
    case ZP_OPT_MEMORY: return "size";
    case ZP_OPT_UINT:
    case ZP_OPT_COUNT:
    case ZP_OPT_INT: return "int";
    case ZP_OPT_SECONDS: return "seconds";
    case ZP_OPT_FLAG: return "flag";
    default: return "string";
    }
}

/* snprintf into buf at *len, counting what did not fit */
#define APPEND(...)                                                                                  \
    do {                                                                                             \
        int k_ = snprintf(*len < cap ? buf + *len : NULL, *len < cap ? cap - *len : 0, __VA_ARGS__); \
        if (k_ > 0) *len += (size_t)k_;                                                              \
    } while (0)

/* The left column of a flag's line: "  -t, --threads N". */
static int flag_column(char *col, size_t cap, const zp_option *o) {
    char s[8] = "";
    if (o->short_name) snprintf(s, sizeof s, "-%c, ", o->short_name);
    const char *meta = o->type == ZP_OPT_FLAG ? NULL : o->metavar ? o->metavar : "VALUE";
    return snprintf(col, cap, "  %s--%s%s%s%s", s, o->name, meta ? " " : "", meta ? meta : "",
                    o->type == ZP_OPT_LIST ? " ..." : "");
}

/* The help text, its continuation lines indented to the column. */
static void help_text(char *buf, size_t cap, size_t *len, const char *help, int indent) {
    for (const char *p = help; *p;) {
        const char *nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);
        APPEND("%.*s", n, p);
        if (nl == NULL) break;
        p = nl + 1;
        APPEND("\n%*s", indent, "");
    }
}

int zp_options_help_column(const zp_option *options, size_t n) {
    int width = 0;
    char col[128];
    for (size_t i = 0; i < n; i++) {
        int w = flag_column(col, sizeof col, &options[i]);
        if (w <= 26 && w > width) width = w;
    }
    return width + 2;
}

size_t zp_options_help(char *buf, size_t cap, const zp_option *options, size_t n, zp_options_style style, int column) {
    size_t zero = 0, *len = &zero;
    if (cap) buf[0] = '\0';
    if (style == ZP_OPT_HELP_CONFIG) {
        for (size_t i = 0; i < n; i++) {
            const zp_option *o = &options[i];
            APPEND("  %-17s %-7s %s%s%s\n", o->name, type_word(o->type), o->help, o->def ? "; default " : "",
                   o->def ? o->def : "");
        }
        return *len;
    }
    int width = column > 0 ? column : zp_options_help_column(options, n);
    char col[128];
    for (size_t i = 0; i < n; i++) {
        const zp_option *o = &options[i];
        int w = flag_column(col, sizeof col, o);
        if (w + 2 > width) {
            APPEND("%s\n%*s", col, width, "");
        } else {
            APPEND("%-*s", width, col);
        }
        help_text(buf, cap, len, o->help, width);
        if (o->def) APPEND(" (default %s)", o->def);
        APPEND("\n");
    }
    return *len;
}
