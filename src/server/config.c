#include "server/config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

typedef enum { OPT_STRING, OPT_SIZE, OPT_INT, OPT_KEY, OPT_LEVEL, OPT_TOKEN_FILE } opt_type;

/* The one table: every option, its type, bounds and default. */
typedef struct option {
    const char *name;
    opt_type type;
    size_t offset;
    uint64_t min, max;
    const char *def; /* NULL: none */
    const char *help;
} option;

#define OFF(f) offsetof(zp_server_config, f)
static const option options[] = {
    {"listen", OPT_STRING, OFF(listen), 0, 0, "127.0.0.1:8790", "TCP host:port (port 0: any free one); none: no TCP"},
    {"unix_socket", OPT_STRING, OFF(unix_socket), 0, 0, NULL, "also listen on this unix socket"},
    {"data_dir", OPT_STRING, OFF(data_dir), 0, 0, "./zkpipe-data", "the job store and the witness spool"},
    {"keys_dir", OPT_STRING, OFF(keys_dir), 0, 0, NULL, "every *.zkey in it is a key (id: file name without .zkey)"},
    {"key", OPT_KEY, 0, 0, 0, NULL, "ID=PATH: one more key (repeatable)"},
    {"witness_dir", OPT_STRING, OFF(witness_dir), 0, 0, NULL, "server-side witness paths must lie inside it"},
    {"token", OPT_STRING, OFF(token), 0, 0, NULL, "require Authorization: Bearer <token>"},
    {"token_file", OPT_TOKEN_FILE, OFF(token), 0, 0, NULL, "read the token from this file"},
    {"budget", OPT_SIZE, OFF(budget), 1 << 20, UINT64_MAX, NULL, "memory budget (default: available memory - 10%)"},
    {"synth_workers", OPT_INT, OFF(synth_workers), 1, 256, NULL, "synthesis workers (default: CPUs)"},
    {"prove_workers", OPT_INT, OFF(prove_workers), 1, 64, "1", "prove workers"},
    {"finalize_workers", OPT_INT, OFF(finalize_workers), 1, 64, "1", "finalize workers"},
    {"threads", OPT_INT, OFF(threads), 1, 1024, NULL, "threads per prove/finalize worker (default: CPUs)"},
    {"queue", OPT_INT, OFF(queue), 1, 65536, NULL, "queue capacity between stages (default: synth_workers)"},
    {"max_request", OPT_SIZE, OFF(max_request), 1024, 16ULL << 30, "256M", "largest request body"},
    {"max_partitions", OPT_INT, OFF(max_partitions), 1, 1000000, "1024", "partitions per job"},
    {"max_connections", OPT_INT, OFF(max_connections), 1, 10000, "64", "concurrent HTTP connections"},
    {"result_ttl", OPT_INT, OFF(result_ttl), 60, 315360000, "86400", "seconds finished jobs are kept"},
    {"spool_max", OPT_SIZE, OFF(spool_max), 0, UINT64_MAX, "0", "spool limit in bytes (0: the disk's)"},
    {"shutdown_grace", OPT_INT, OFF(shutdown_grace), 0, 3600, "30", "seconds running partitions may finish on SIGTERM"},
    {"trace", OPT_STRING, OFF(trace), 0, 0, NULL, "the engine's Chrome trace file"},
    {"log_level", OPT_LEVEL, 0, 0, 0, "info", "error, info or debug"},
};
#define N_OPTIONS (sizeof options / sizeof *options)

uint64_t zp_parse_size(const char *s) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || v < 0) return 0;
    double mul = 1;
    switch (*end) {
    case 'k': case 'K': mul = 1024.0; end++; break;
    case 'm': case 'M': mul = 1024.0 * 1024; end++; break;
    case 'g': case 'G': mul = 1024.0 * 1024 * 1024; end++; break;
    case 't': case 'T': mul = 1024.0 * 1024 * 1024 * 1024; end++; break;
    default: break;
    }
    if (*end == 'i') end++;
    if (*end == 'B') end++;
    if (*end != '\0' || v * mul >= 1.8e19) return 0;
    return (uint64_t)(v * mul);
}

static zp_status set_string(char **field, const char *value, zp_error *err) {
    char *copy = strdup(value);
    if (copy == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    free(*field);
    *field = copy;
    return ZP_OK;
}

static zp_status read_token(zp_server_config *cfg, const char *path, const char *where, zp_error *err) {
    FILE *f = fopen(path, "r");
    if (f == NULL) return zp_error_set(err, ZP_ERR_IO, "%s: token_file %s: %s", where, path, strerror(errno));
    char buf[512];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ')) buf[--n] = '\0';
    if (n == 0) return zp_error_set(err, ZP_ERR_ARG, "%s: token_file %s is empty", where, path);
    return set_string(&cfg->token, buf, err);
}

static zp_status add_key(zp_server_config *cfg, const char *value, const char *where, zp_error *err) {
    const char *eq = strchr(value, '=');
    if (eq == NULL || eq == value || eq[1] == '\0') {
        return zp_error_set(err, ZP_ERR_ARG, "%s: key needs ID=PATH, not '%s'", where, value);
    }
    for (const char *c = value; c < eq; c++) {
        if (!(*c == '-' || *c == '_' || *c == '.' || (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') ||
              (*c >= 'A' && *c <= 'Z'))) {
            return zp_error_set(err, ZP_ERR_ARG, "%s: a key id is letters, digits, '-', '_' and '.'", where);
        }
    }
    zp_server_key *grown = realloc(cfg->keys, (cfg->n_keys + 1) * sizeof *grown);
    if (grown == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    cfg->keys = grown;
    zp_server_key *k = &cfg->keys[cfg->n_keys];
    k->id = strndup(value, (size_t)(eq - value));
    k->path = strdup(eq + 1);
    if (k->id == NULL || k->path == NULL) {
        free(k->id);
        free(k->path);
        return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    }
    cfg->n_keys++;
    return ZP_OK;
}

zp_status zp_server_config_set(zp_server_config *cfg, const char *name, const char *value, const char *where,
                               zp_error *err) {
    const option *o = NULL;
    for (size_t i = 0; i < N_OPTIONS; i++) {
        if (strcmp(options[i].name, name) == 0) o = &options[i];
    }
    if (o == NULL) return zp_error_set(err, ZP_ERR_ARG, "%s: unknown option '%s'", where, name);
    char *base = (char *)cfg;
    switch (o->type) {
    case OPT_STRING: return set_string((char **)(base + o->offset), value, err);
    case OPT_TOKEN_FILE: return read_token(cfg, value, where, err);
    case OPT_KEY: return add_key(cfg, value, where, err);
    case OPT_LEVEL:
        if (strcmp(value, "error") == 0) cfg->log_level = 0;
        else if (strcmp(value, "info") == 0) cfg->log_level = 1;
        else if (strcmp(value, "debug") == 0) cfg->log_level = 2;
        else return zp_error_set(err, ZP_ERR_ARG, "%s: log_level is error, info or debug, not '%s'", where, value);
        return ZP_OK;
    case OPT_SIZE:
    case OPT_INT: {
        uint64_t v;
        if (o->type == OPT_SIZE) {
            v = zp_parse_size(value);
            if (v == 0 && strcmp(value, "0") != 0) {
                return zp_error_set(err, ZP_ERR_ARG, "%s: %s needs a size such as 8G or 512M, not '%s'", where, name,
                                    value);
            }
        } else {
            char *end;
            errno = 0;
            unsigned long long x = strtoull(value, &end, 10);
            if (errno || end == value || *end != '\0' || value[0] == '-') {
                return zp_error_set(err, ZP_ERR_ARG, "%s: %s needs a whole number, not '%s'", where, name, value);
            }
            v = x;
        }
        if (v < o->min || v > o->max) {
            return zp_error_set(err, ZP_ERR_ARG, "%s: %s must be between %llu and %llu, not %s", where, name,
                                (unsigned long long)o->min, (unsigned long long)o->max, value);
        }
        *(uint64_t *)(base + o->offset) = v;
        return ZP_OK;
    }
    }
    return ZP_ERR_INTERNAL;
}

void zp_server_config_init(zp_server_config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    cfg->log_level = 1;
    for (size_t i = 0; i < N_OPTIONS; i++) {
        if (options[i].def == NULL) continue;
        zp_error err;
        if (zp_server_config_set(cfg, options[i].name, options[i].def, "default", &err) != ZP_OK) abort();
    }
}

void zp_server_config_free(zp_server_config *cfg) {
    free(cfg->listen);
    free(cfg->unix_socket);
    free(cfg->data_dir);
    free(cfg->keys_dir);
    free(cfg->witness_dir);
    free(cfg->token);
    free(cfg->trace);
    for (size_t i = 0; i < cfg->n_keys; i++) {
        free(cfg->keys[i].id);
        free(cfg->keys[i].path);
    }
    free(cfg->keys);
    memset(cfg, 0, sizeof *cfg);
}

zp_status zp_server_config_load(zp_server_config *cfg, const char *path, zp_error *err) {
    FILE *f = fopen(path, "r");
    if (f == NULL) return zp_error_set(err, ZP_ERR_IO, "%s: cannot open the config: %s", path, strerror(errno));
    char line[4096], where[600];
    unsigned no = 0;
    zp_status st = ZP_OK;
    while (st == ZP_OK && fgets(line, sizeof line, f)) {
        no++;
        snprintf(where, sizeof where, "%s:%u", path, no);
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n') {
            st = zp_error_set(err, ZP_ERR_ARG, "%s: line too long", where);
            break;
        }
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0') continue;
        char *name = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') p++;
        if (*p == '\0' || *p == '\n' || *p == '\r') {
            st = zp_error_set(err, ZP_ERR_ARG, "%s: '%s' has no value", where, name);
            break;
        }
        *p++ = '\0';
        while (*p == ' ' || *p == '\t') p++;
        char *value = p, *end = p + strlen(p);
        while (end > value && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t')) *--end = '\0';
        if (*value == '"') { /* a quoted value: up to the closing quote */
            char *close = strrchr(value + 1, '"');
            if (close == NULL) {
                st = zp_error_set(err, ZP_ERR_ARG, "%s: unterminated quote", where);
                break;
            }
            *close = '\0';
            value++;
        } else {
            char *hash = strstr(value, " #");
            if (hash) *hash = '\0';
            end = value + strlen(value);
            while (end > value && (end[-1] == ' ' || end[-1] == '\t')) *--end = '\0';
        }
        st = zp_server_config_set(cfg, name, value, where, err);
    }
    fclose(f);
    return st;
}

const char *zp_server_config_table(void) {
    static char table[4096];
    if (table[0]) return table;
    size_t n = 0;
    for (size_t i = 0; i < N_OPTIONS && n < sizeof table; i++) {
        const option *o = &options[i];
        n += (size_t)snprintf(table + n, sizeof table - n, "  %-17s %-7s %s%s%s\n", o->name,
                              o->type == OPT_SIZE ? "size" : o->type == OPT_INT ? "int" : "string", o->help,
                              o->def ? "; default " : "", o->def ? o->def : "");
    }
    return table;
}
