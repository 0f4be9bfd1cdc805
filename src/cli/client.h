/* The daemon's HTTP client shared by the client commands: a connection
 * (--server, --token, --timeout), one request, answers as exit statuses. */
#ifndef ZP_CLI_CLIENT_H
#define ZP_CLI_CLIENT_H

#include <curl/curl.h>
#include <jansson.h>
#include <stddef.h>

#include "base/options.h"

#define DEFAULT_SERVER "http://127.0.0.1:8790"
/* The largest answer read (a job's proofs are ~1 KB a partition); past it
 * the request fails as a transfer error. */
#define CLIENT_MAX_ANSWER ((size_t)256 << 20)

typedef struct client {
    const char *cmd;    /* for messages: "zkpipe <cmd>: ..." */
    const char *server; /* as given */
    char base[1024];    /* URL prefix without a trailing '/' */
    const char *socket; /* unix socket path, or NULL */
    const char *token;
    double timeout;  /* seconds per request; 0: none */
    int timeout_set; /* --timeout was given */
    int json;        /* --json: print the daemon's answer unchanged */
    CURL *curl;
} client;

typedef struct buffer {
    char *data;
    size_t len, cap;
} buffer;

/* The defaults: $ZKPIPE_SERVER, $ZKPIPE_TOKEN, 300 s per request. */
void client_init(client *c, const char *cmd);
/* The common options (--server, --token, --json and, unless the command
 * has its own, --timeout) as a table into c, listed as "common options". */
zp_option_table client_common_options(client *c, int with_timeout);
/* --timeout S: seconds, at most 1e7; also sets timeout_set. */
zp_status client_set_timeout(void *dst, const zp_option *o, const char *value, const char *where, zp_error *err);
/* After the options were parsed: the URL prefix (or unix socket) from
 * --server; -1 (message printed) when it is unusable. */
int client_resolve(client *c);
/* The help's last part: what the exit statuses mean. */
extern const char client_exit_help[];
int client_open(client *c);
void client_close(client *c);
/* s escaped for a URL path segment (malloc'd; NULL: out of memory). After client_open. */
char *client_escape(client *c, const char *s);
/* One request; 0 with *status and the body, or an exit status. */
int client_request(client *c, const char *method, const char *path, const char *body, size_t body_len, double timeout,
                   long *status, buffer *resp);
/* The exit status for an error answer, with its error.message printed. */
int client_answer_error(client *c, long status, const buffer *resp);
/* Parses a successful answer; NULL (message printed) when it is not JSON. */
json_t *client_answer_json(client *c, const buffer *resp);
/* A request whose 2xx answer is parsed into *root (with --json printed
 * as it came and *root left NULL). */
int client_call(client *c, const char *method, const char *path, json_t **root);
/* A job id: a positive decimal integer; -1 (message printed) otherwise. */
int client_parse_job(client *c, const char *s, unsigned long long *id);
/* o[k] as a string, or dflt. */
const char *client_str(json_t *o, const char *k, const char *dflt);

#endif
