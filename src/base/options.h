/* Options described by one table (redis config.c's habit): each entry
 * names an option (long name, short letter), its type and bounds, its
 * default and its help, and where in a struct its value goes. Parsing a
 * command line, setting one "name value" pair from a config file,
 * applying the defaults and the help text all come from that table, so
 * an option cannot be parsed one way and documented another.
 *
 * Used by the zkpipe command (src/cli) and the daemon's settings
 * (src/server/config.c); nothing here prints: errors go into a zp_error
 * and help into a caller's buffer. */
#ifndef ZP_BASE_OPTIONS_H
#define ZP_BASE_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "zkpipe.h"

typedef enum zp_option_type {
    ZP_OPT_FLAG,    /* int, set to 1; takes no value */
    ZP_OPT_ARG,     /* const char *, pointing at the value (argv outlives it) */
    ZP_OPT_STRDUP,  /* char *, a malloc'd copy replacing (and freeing) the old one */
    ZP_OPT_UINT,    /* uint64_t, a whole number within [min, max] */
    ZP_OPT_COUNT,   /* size_t, a whole number within [min, max] */
    ZP_OPT_BYTES,   /* uint64_t, a size as zp_size_parse reads it, within [min, max] */
    ZP_OPT_MEMORY,  /* uint64_t, a size as ZP_OPT_BYTES, and at most the memory this machine (its RAM, or its
                       cgroup's limit: base/memory.h) can give the process: a memory budget */
    ZP_OPT_INT,     /* long long, a decimal integer: digits with an optional '-' */
    ZP_OPT_SECONDS, /* double, digits with an optional fraction, >= min and, unless max is 0, <= max */
    ZP_OPT_LIST,    /* zp_option_list: every following argument up to one that starts with '-' */
    ZP_OPT_CUSTOM,  /* the entry's set function parses the value */
} zp_option_type;

/* Where ZP_OPT_LIST puts its values: items is the caller's array, with
 * room for argc entries. */
typedef struct zp_option_list {
    const char **items;
    size_t n;
} zp_option_list;

typedef struct zp_option zp_option;
/* A ZP_OPT_CUSTOM parser: field is dst + offset, where names the source
 * of the value for messages ("file:12", "--key"). */
typedef zp_status (*zp_option_set_fn)(void *dst, const zp_option *o, const char *value, const char *where,
                                      zp_error *err);

struct zp_option {
    const char *name; /* "threads": --threads on a command line, threads in a config file */
    char short_name;  /* 't' for -t; 0 for none */
    zp_option_type type;
    size_t offset;        /* of the value in the destination struct */
    uint64_t min, max;    /* whole numbers and sizes: the bounds (both 0: any) */
    const char *def;      /* the default as text (applied by zp_options_defaults, shown in help); NULL: none */
    const char *metavar;  /* the value's name in help: "N", "SIZE", "FILE" */
    const char *help;     /* may hold '\n' for more lines */
    zp_option_set_fn set; /* ZP_OPT_CUSTOM only */
};

/* One table and the struct its offsets point into. title heads its part
 * of the help ("options:"; NULL: no heading). */
typedef struct zp_option_table {
    const char *title;
    const zp_option *options;
    size_t n;
    void *dst;
} zp_option_table;

/* The entry named name, or NULL. '-' and '_' are the same letter, so
 * --synth-workers and synth_workers name one option. */
const zp_option *zp_options_find(const zp_option *options, size_t n, const char *name);

/* Sets one option from text. where (NULL: none) prefixes the message; the
 * option is named as spelled, e.g. "file:3: budget needs a size ...",
 * "--budget needs a size ...". ZP_ERR_ARG for a bad value, ZP_ERR_NOMEM. */
ZP_WARN_UNUSED zp_status zp_options_set(void *dst, const zp_option *o, const char *spelled, const char *value,
                                        const char *where, zp_error *err);

/* Sets every option that has a default to it. */
ZP_WARN_UNUSED zp_status zp_options_defaults(const zp_option *options, size_t n, void *dst, zp_error *err);

/* Parses argv[1..argc-1] against the tables: "--name value", "-x value"
 * and "--flag", "-x" for flags, anywhere among the other arguments. The
 * arguments that are no option ("-" alone is none) are moved, in order,
 * to argv[1..] and *n_args is their count. An argument that starts with
 * '-' and names no option, or an option without its value, is ZP_ERR_ARG
 * with a message naming it. */
ZP_WARN_UNUSED zp_status zp_options_parse(const zp_option_table *tables, size_t n_tables, int argc, char **argv,
                                          int *n_args, zp_error *err);

typedef enum zp_options_style {
    ZP_OPT_HELP_FLAGS,  /* "  -t, --threads N   help" for a command's --help */
    ZP_OPT_HELP_CONFIG, /* "  name   type   help; default X" for a config file's options */
} zp_options_style;

/* The help lines of one table into buf (NUL-terminated, truncated to
 * cap); returns the length the whole text needs, as snprintf does. In
 * ZP_OPT_HELP_FLAGS the help starts at column (0: the one
 * zp_options_help_column gives this table), so that tables listed one
 * after the other line up. */
size_t zp_options_help(char *buf, size_t cap, const zp_option *options, size_t n, zp_options_style style, int column);
/* The column after the table's longest "  -t, --threads N" (those over 26
 * characters put their help on the next line instead). */
int zp_options_help_column(const zp_option *options, size_t n);

/* Parses a size: decimal digits with an optional fraction, then an
 * optional unit K, M, G or T (powers of 1024, either case, "Gi" and "GiB"
 * too) and an optional "B": "8G", "512M", "100K", "1.5G", "2TiB", "4096".
 * Nothing else: no sign, spaces, exponent, hex, "nan" or "inf", nothing
 * over 2^64-1 bytes (a fraction of a byte is dropped). 1 and *out, or 0. */
ZP_WARN_UNUSED int zp_size_parse(uint64_t *out, const char *s);
/* The same, 0 on error (so "0" and a bad size read alike). */
uint64_t zp_parse_size(const char *s);

#endif
