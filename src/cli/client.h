/* The daemon's HTTP client shared by the client commands: a connection
 * (--server, --token, --timeout), one request, answers as exit statuses. */
#ifndef ZP_CLI_CLIENT_H
#define ZP_CLI_CLIENT_H

#include <curl/curl.h>
#include <jansson.h>
#include <stddef.h>

#define DEFAULT_SERVER "http://127.0.0.1:8790"

typedef struct client {
    const char *cmd;    /* for messages: "zkpipe <cmd>: ..." */
    const char *server; /* as given */
    char base[1024];    /* URL prefix without a trailing '/' */
    const char *socket; /* unix socket path, or NULL */
    const char *token;
    double timeout; /* seconds per request; 0: none */
    int timeout_set; /* --timeout was given */
    int json;       /* --json: print the daemon's answer unchanged */
    CURL *curl;
} client;

typedef struct buffer {
    char *data;
    size_t len, cap;
} buffer;

/* The command's own help, then the common options. */
int client_help(const char *own, int request_timeout);
/* Parses the common options out of argv (returns the new argc, or -1 on a
 * bad option, message printed). */
int client_options(client *c, const char *cmd, int argc, char **argv);
int client_open(client *c);
void client_close(client *c);
/* One request; 0 with *status and the body, or an exit status. */
int client_request(client *c, const char *method, const char *path, const char *body, size_t body_len,
                   double timeout, long *status, buffer *resp);
/* The exit status for an error answer, with its error.message printed. */
int client_answer_error(client *c, long status, const buffer *resp);
/* Parses a successful answer; NULL (message printed) when it is not JSON. */
json_t *client_answer_json(client *c, const buffer *resp);
/* A request whose 2xx answer is parsed into *root (with --json printed
 * as it came and *root left NULL). */
int client_call(client *c, const char *method, const char *path, json_t **root);
/* A job id: a positive decimal integer; -1 (message printed) otherwise. */
int client_parse_job(client *c, const char *s, unsigned long long *id);
int client_usage_error(const char *cmd, const char *help, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* o[k] as a string, or dflt. */
const char *client_str(json_t *o, const char *k, const char *dflt);

#endif
