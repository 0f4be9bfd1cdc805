#include "server/config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/options.h"

static zp_status set_token(void *dst, const zp_option *o, const char *value, const char *where, zp_error *err);
static zp_status set_token_file(void *dst, const zp_option *o, const char *path, const char *where, zp_error *err);
static zp_status add_key(void *dst, const zp_option *o, const char *value, const char *where, zp_error *err);
static zp_status set_level(void *dst, const zp_option *o, const char *value, const char *where, zp_error *err);

/* The one table: every option, its type, bounds and default. */
#define OFF(f) offsetof(zp_server_config, f)
#define STR ZP_OPT_STRDUP
static const zp_option options[] = {
    {"listen", 0, STR, OFF(listen), 0, 0, "127.0.0.1:8790", "HOST:PORT",
     "TCP host:port (port 0: any free one); none: no TCP", NULL},
    {"unix_socket", 0, STR, OFF(unix_socket), 0, 0, NULL, "PATH", "also listen on this unix socket", NULL},
    {"data_dir", 0, STR, OFF(data_dir), 0, 0, "./zkpipe-data", "DIR", "the job store and the witness spool", NULL},
    {"store", 0, STR, OFF(store), 0, 0, NULL, "PATH|URI",
     "the job store: an SQLite file (default: data_dir/zkpipe.db) or postgresql://... shared by a fleet", NULL},
    {"spool_dir", 0, STR, OFF(spool_dir), 0, 0, NULL, "DIR",
     "where accepted witnesses and inputs wait (default: data_dir/spool); with a PostgreSQL store, a directory every "
     "daemon of the fleet mounts",
     NULL},
    {"node", 0, STR, OFF(node), 0, 0, NULL, "ID",
     "this daemon's id in the store (default: host name:port); unique in a fleet", NULL},
    {"lease", 0, ZP_OPT_UINT, OFF(lease), 1, 86400, "30", "S",
     "seconds a claimed partition stays this daemon's without a heartbeat; then others take it over", NULL},
    {"keys_dir", 0, STR, OFF(keys_dir), 0, 0, NULL, "DIR",
     "every *.zkey in it is a key (id: file name without .zkey); ID.wasm beside it, its circuit", NULL},
    {"key", 0, ZP_OPT_CUSTOM, 0, 0, 0, NULL, "ID=PATH",
     "ID=PATH [wasm=PATH]: one more key, with its circuit's wasm for jobs given inputs (repeatable)", add_key},
    {"witness_dir", 0, STR, OFF(witness_dir), 0, 0, NULL, "DIR", "server-side witness paths must lie inside it", NULL},
    {"token", 0, ZP_OPT_CUSTOM, OFF(token), 0, 0, NULL, "TOKEN",
     "require Authorization: Bearer <token> (1-4096 printable bytes)", set_token},
    {"token_file", 0, ZP_OPT_CUSTOM, OFF(token), 0, 0, NULL, "FILE", "read the token from this file", set_token_file},
    {"allowed_hosts", 0, STR, OFF(allowed_hosts), 0, 0, NULL, "NAMES",
     "more Host names than localhost and IP literals (comma-separated)", NULL},
    {"allowed_origins", 0, STR, OFF(allowed_origins), 0, 0, NULL, "ORIGINS",
     "more Origins than the daemon's own (comma-separated)", NULL},
    {"budget", 0, ZP_OPT_MEMORY, OFF(budget), 1 << 20, UINT64_MAX, NULL, "SIZE",
     "memory budget of the whole daemon: its own memory at start, then every tracked buffer (default: available memory "
     "- 10%)",
     NULL},
    {"synth_workers", 0, ZP_OPT_UINT, OFF(synth_workers), 1, 256, NULL, "N", "synthesis workers (default: CPUs)", NULL},
    {"prove_workers", 0, ZP_OPT_UINT, OFF(prove_workers), 1, 64, "1", "N", "prove workers", NULL},
    {"finalize_workers", 0, ZP_OPT_UINT, OFF(finalize_workers), 1, 64, "1", "N", "finalize workers", NULL},
    {"threads", 0, ZP_OPT_UINT, OFF(threads), 1, 1024, NULL, "N", "threads per prove/finalize worker (default: CPUs)",
     NULL},
    {"queue", 0, ZP_OPT_UINT, OFF(queue), 1, 65536, NULL, "N", "queue capacity between stages (default: synth_workers)",
     NULL},
    {"max_request", 0, ZP_OPT_BYTES, OFF(max_request), 1024, 16ULL << 30, "256M", "SIZE", "largest request body", NULL},
    {"max_partitions", 0, ZP_OPT_UINT, OFF(max_partitions), 1, 1000000, "1024", "N", "partitions per job", NULL},
    {"max_queued", 0, ZP_OPT_UINT, OFF(max_queued), 1, 100000000, "100000", "N",
     "partitions waiting for admission, all jobs together (429 past it)", NULL},
    {"max_connections", 0, ZP_OPT_UINT, OFF(max_connections), 1, 10000, "64", "N",
     "concurrent HTTP requests (status and metrics have 8 more)", NULL},
    {"max_connections_per_ip", 0, ZP_OPT_UINT, OFF(max_connections_per_ip), 0, 10000, "0", "N",
     "connections from one address (0: no limit)", NULL},
    {"connection_timeout", 0, ZP_OPT_UINT, OFF(connection_timeout), 1, 3600, "30", "S",
     "seconds a connection may stay silent (headers or body)", NULL},
    {"result_ttl", 0, ZP_OPT_UINT, OFF(result_ttl), 60, 315360000, "86400", "S", "seconds finished jobs are kept",
     NULL},
    {"spool_max", 0, ZP_OPT_BYTES, OFF(spool_max), 0, UINT64_MAX, "0", "SIZE", "spool limit in bytes (0: the disk's)",
     NULL},
    {"shutdown_grace", 0, ZP_OPT_UINT, OFF(shutdown_grace), 0, 3600, "30", "S",
     "seconds running partitions may finish on SIGTERM", NULL},
    {"degraded_after", 0, ZP_OPT_UINT, OFF(degraded_after), 1, 86400, "60", "S",
     "seconds a result may wait to be recorded, or the store fail, before /v1/status says degraded", NULL},
    {"witness_time_limit", 0, ZP_OPT_SECONDS, OFF(witness_time_limit), 0, 86400, "600", "S",
     "how long a partition's witness calculation (and a circuit's first calls) may run; past it the partition fails "
     "(0: no limit)",
     NULL},
    {"trace", 0, STR, OFF(trace), 0, 0, NULL, "FILE", "the engine's Chrome trace file", NULL},
    {"log_level", 0, ZP_OPT_CUSTOM, OFF(log_level), 0, 0, "info", "LEVEL", "error, info or debug", set_level},
};
#undef STR
#define N_OPTIONS (sizeof options / sizeof *options)

const zp_option *zp_server_config_options(size_t *n) {
    *n = N_OPTIONS;
    return options;
}

zp_status zp_server_token_check(const char *token, size_t len, const char *where, zp_error *err) {
    if (len == 0) return zp_error_set(err, ZP_ERR_ARG, "%s: the token is empty (it would let anyone in)", where);
    if (len > ZP_SERVER_TOKEN_MAX) {
        return zp_error_set(err, ZP_ERR_ARG, "%s: the token is %zu bytes, more than the %d allowed", where, len,
                            ZP_SERVER_TOKEN_MAX);
    }
    /* what a Bearer header can carry as is: no spaces, no control bytes */
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)token[i];
        if (c <= 0x20 || c >= 0x7f) {
            return zp_error_set(err, ZP_ERR_ARG, "%s: the token has a space, control or non-ASCII byte at %zu", where,
                                i);
        }
    }
    return ZP_OK;
}

static zp_status replace_token(zp_server_config *cfg, const char *token, size_t len, const char *where, zp_error *err) {
    zp_status st = zp_server_token_check(token, len, where, err);
    if (st != ZP_OK) return st;
    char *copy = strndup(token, len);
    if (copy == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    free(cfg->token);
    cfg->token = copy;
    return ZP_OK;
}

static zp_status set_token(void *dst, const zp_option *o, const char *value, const char *where, zp_error *err) {
    (void)o;
    return replace_token(dst, value, strlen(value), where, err);
}

static zp_status set_token_file(void *dst, const zp_option *o, const char *path, const char *where, zp_error *err) {
    (void)o;
    FILE *f = fopen(path, "r");
    if (f == NULL) return zp_error_set(err, ZP_ERR_IO, "%s: token_file %s: %s", where, path, strerror(errno));
    /* one more than the limit and its line end, to tell a long token from a
     * token that fits: never truncated */
    char buf[ZP_SERVER_TOKEN_MAX + 4];
    size_t n = fread(buf, 1, sizeof buf, f);
    int bad = ferror(f);
    fclose(f);
    if (bad) return zp_error_set(err, ZP_ERR_IO, "%s: token_file %s: cannot read it", where, path);
    if (n == sizeof buf) {
        return zp_error_set(err, ZP_ERR_ARG, "%s: token_file %s: the token is longer than the %d bytes allowed", where,
                            path, ZP_SERVER_TOKEN_MAX);
    }
    size_t start = 0;
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ' || buf[n - 1] == '\t')) n--;
    while (start < n && (buf[start] == ' ' || buf[start] == '\t' || buf[start] == '\n' || buf[start] == '\r')) start++;
    char w[700];
    snprintf(w, sizeof w, "%s: token_file %s", where, path);
    return replace_token(dst, buf + start, n - start, w, err);
}

static zp_status set_level(void *dst, const zp_option *o, const char *value, const char *where, zp_error *err) {
    (void)o;
    zp_server_config *cfg = dst;
    if (strcmp(value, "error") == 0) cfg->log_level = 0;
    else if (strcmp(value, "info") == 0) cfg->log_level = 1;
    else if (strcmp(value, "debug") == 0) cfg->log_level = 2;
    else return zp_error_set(err, ZP_ERR_ARG, "%s: log_level is error, info or debug, not '%s'", where, value);
    return ZP_OK;
}

static zp_status add_key(void *dst, const zp_option *o, const char *value, const char *where, zp_error *err) {
    (void)o;
    zp_server_config *cfg = dst;
    /* "ID=PATH wasm=WASM": the circuit's calculator after the key's path */
    const char *wasm = strstr(value, " wasm=");
    size_t len = wasm ? (size_t)(wasm - value) : strlen(value);
    if (wasm) {
        wasm += 6;
        if (*wasm == '\0') return zp_error_set(err, ZP_ERR_ARG, "%s: key's wasm= needs a path", where);
    }
    const char *eq = memchr(value, '=', len);
    if (eq == NULL || eq == value || eq + 1 == value + len) {
        return zp_error_set(err, ZP_ERR_ARG, "%s: key needs ID=PATH [wasm=PATH], not '%s'", where, value);
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
    k->path = strndup(eq + 1, (size_t)(value + len - (eq + 1)));
    k->wasm = wasm ? strdup(wasm) : NULL;
    if (k->id == NULL || k->path == NULL || (wasm && k->wasm == NULL)) {
        free(k->id);
        free(k->path);
        free(k->wasm);
        return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    }
    cfg->n_keys++;
    return ZP_OK;
}

zp_status zp_server_config_set(zp_server_config *cfg, const char *name, const char *value, const char *where,
                               zp_error *err) {
    const zp_option *o = zp_options_find(options, N_OPTIONS, name);
    if (o == NULL) return zp_error_set(err, ZP_ERR_ARG, "%s: unknown option '%s'", where, name);
    return zp_options_set(cfg, o, o->name, value, where, err);
}

void zp_server_config_init(zp_server_config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    zp_error err;
    if (zp_options_defaults(options, N_OPTIONS, cfg, &err) != ZP_OK) abort();
}

void zp_server_config_free(zp_server_config *cfg) {
    free(cfg->listen);
    free(cfg->unix_socket);
    free(cfg->data_dir);
    free(cfg->keys_dir);
    free(cfg->witness_dir);
    free(cfg->store);
    free(cfg->spool_dir);
    free(cfg->node);
    free(cfg->token);
    free(cfg->allowed_hosts);
    free(cfg->allowed_origins);
    free(cfg->trace);
    for (size_t i = 0; i < cfg->n_keys; i++) {
        free(cfg->keys[i].id);
        free(cfg->keys[i].path);
        free(cfg->keys[i].wasm);
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
    static char table[8192];
    if (table[0] == '\0') zp_options_help(table, sizeof table, options, N_OPTIONS, ZP_OPT_HELP_CONFIG, 0);
    return table;
}
