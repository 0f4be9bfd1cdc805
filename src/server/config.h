/* The daemon's settings: one table of options (name, type, bounds,
 * default, meaning; docs/daemon.md prints the same table), read from a
 * config file of "name value" lines and overridden by --name value flags. */
#ifndef ZP_SERVER_CONFIG_H
#define ZP_SERVER_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "base/options.h" /* zp_option, and zp_parse_size for the sizes */
#include "zkpipe.h"

typedef struct zp_server_key {
    char *id, *path;
    char *wasm; /* its circuit's witness calculator (circom's circuit.wasm); NULL: none */
} zp_server_key;

typedef struct zp_server_config {
    char *listen;      /* "host:port" or "none" */
    char *unix_socket; /* NULL: none */
    char *data_dir, *keys_dir, *witness_dir;
    char *store;                           /* NULL: data_dir/zkpipe.db */
    char *spool_dir;                       /* NULL: data_dir/spool */
    char *node;                            /* NULL: host name:port */
    uint64_t lease;                        /* seconds */
    char *token;                           /* NULL: no authentication; never empty */
    char *allowed_hosts, *allowed_origins; /* comma-separated; NULL: none */
    char *trace;
    zp_server_key *keys;
    size_t n_keys;
    uint64_t budget; /* 0: the engine's default */
    uint64_t synth_workers, prove_workers, finalize_workers, threads, queue;
    uint64_t max_request, max_partitions, max_queued, max_connections, max_connections_per_ip;
    uint64_t connection_timeout; /* seconds a connection may stay silent */
    uint64_t result_ttl, spool_max, shutdown_grace;
    uint64_t degraded_after;   /* seconds a record may wait, or the store fail, before /v1/status says degraded */
    double witness_time_limit; /* seconds a partition's witness calculation may run; 0: none */
    int log_level;             /* 0 error, 1 info, 2 debug */
} zp_server_config;

void zp_server_config_init(zp_server_config *cfg); /* the defaults */
void zp_server_config_free(zp_server_config *cfg);
/* One option; where says where it came from ("file:12", "--flag"). */
zp_status zp_server_config_set(zp_server_config *cfg, const char *name, const char *value, const char *where,
                               zp_error *err) ZP_WARN_UNUSED;
zp_status zp_server_config_load(zp_server_config *cfg, const char *path, zp_error *err) ZP_WARN_UNUSED;
/* The longest token accepted (bytes). */
#define ZP_SERVER_TOKEN_MAX 4096
/* A token must be 1..ZP_SERVER_TOKEN_MAX bytes of printable ASCII without
 * spaces; where names its source for the message. */
zp_status zp_server_token_check(const char *token, size_t len, const char *where, zp_error *err) ZP_WARN_UNUSED;
/* The options table, for --help. */
const char *zp_server_config_table(void);
/* The table itself (base/options.h), for a command line of --name value
 * flags into a zp_server_config. */
const zp_option *zp_server_config_options(size_t *n);

#endif
