/* The proving daemon (docs/daemon.md): the engine, the job store, the
 * HTTP API, metrics and the dashboard, glued together.
 *
 * Requests reach zp_server_handle as plain values (method, path, query,
 * headers, body): the HTTP layer (http.c) only moves bytes, so the
 * handlers can be fuzzed and tested without a socket. */
#ifndef ZP_SERVER_SERVER_H
#define ZP_SERVER_SERVER_H

#include <stddef.h>

#include "server/config.h"
#include "zkpipe.h"

typedef struct zp_server zp_server;

/* Opens the store, starts the engine, resumes unfinished jobs and, unless
 * cfg->listen is "none" and there is no unix socket, starts listening.
 * The config is copied. */
zp_status zp_server_start(zp_server **out, const zp_server_config *cfg, zp_error *err) ZP_WARN_UNUSED;
/* The TCP port listened on (the chosen one when the config said 0), 0 when
 * none. */
int zp_server_port(const zp_server *server);
/* Graceful stop: refuses new work, lets running partitions finish for up
 * to the config's shutdown_grace, records what finished, frees all.
 * Unfinished jobs stay queued in the store. */
void zp_server_stop(zp_server *server);

typedef struct zp_request {
    const char *method, *path;
    /* A query argument by name, or NULL. */
    const char *(*query)(void *arg, const char *name);
    void *query_arg;
    const char *authorization; /* the header, or NULL */
    const char *body;
    size_t body_len;
    /* The same bytes when the handler may rewrite them in place (the HTTP
     * layer's tracked buffer: POST /v1/jobs decodes base64 there); NULL:
     * read-only. */
    char *body_writable;
} zp_request;

typedef struct zp_response {
    int status;
    const char *content_type;
    char *body; /* malloc'd, or static when body_static */
    size_t len;
    int body_static;
    int retry_after; /* > 0: a Retry-After header, in seconds */
} zp_response;

/* Answers one request (any thread; long polls block this one). */
void zp_server_handle(zp_server *server, const zp_request *req, zp_response *resp);
void zp_response_free(zp_response *resp);

#endif
