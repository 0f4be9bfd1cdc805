/* The daemon's HTTP client for the client commands (cmd_client.c): options,
 * one request over libcurl, error answers as exit statuses. */
#include <curl/curl.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/dynlib.h"
#include "base/error.h"
#include "cli/answer.h"
#include "cli/cli.h"
#include "cli/client.h"

/* libcurl, loaded by the client commands alone (base/dynlib.h: linked, it
 * and its TLS, Kerberos and LDAP libraries cost every zkpipe process its
 * start-up). Called through these pointers, never by name. */
static struct {
    CURLcode (*global_init)(long flags);
    void (*global_cleanup)(void);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *h);
    void (*easy_reset)(CURL *h);
    CURLcode (*easy_setopt)(CURL *h, CURLoption option, ...);
    CURLcode (*easy_perform)(CURL *h);
    CURLcode (*easy_getinfo)(CURL *h, CURLINFO info, ...);
    const char *(*easy_strerror)(CURLcode rc);
    char *(*easy_escape)(CURL *h, const char *s, int len);
    void (*free)(void *p);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *s);
    void (*slist_free_all)(struct curl_slist *list);
} lib;

static int curl_load(const char *cmd) {
    static int once;
    static const char *const sonames[] = {"libcurl.so.4", "libcurl.so", NULL};
#define SYM(f) \
    { "curl_" #f, (void **)&lib.f }
    const zp_dynsym syms[] = {SYM(global_init),   SYM(global_cleanup), SYM(easy_init),    SYM(easy_cleanup),
                              SYM(easy_reset),    SYM(easy_setopt),    SYM(easy_perform), SYM(easy_getinfo),
                              SYM(easy_strerror), SYM(easy_escape),    SYM(free),         SYM(slist_append),
                              SYM(slist_free_all)};
#undef SYM
    zp_error err;
    if (zp_dynlib_load(&once, sonames, syms, sizeof syms / sizeof *syms, "libcurl4", &err) != ZP_OK) {
        fprintf(stderr, "zkpipe %s: %s\n", cmd, err.message);
        return -1;
    }
    return 0;
}

const char client_exit_help[] =
    "\n"
    "exit status: 0 success, 2 bad usage, 3 the daemon refused the request\n"
    "(a 4xx answer: malformed, unknown job or key, forbidden path, too large,\n"
    "invalid witness) or the job failed, 4 the daemon cannot be reached or\n"
    "answered 5xx, the job was cancelled, or a wait timed out.\n";

zp_status client_set_timeout(void *dst, const zp_option *o, const char *value, const char *where, zp_error *err) {
    (void)o;
    client *c = dst;
    char *end;
    errno = 0;
    double v = strtod(value, &end);
    if (errno || *end != '\0' || end == value || !(v >= 0) || v > 1e7) {
        return zp_error_set(err, ZP_ERR_ARG, "%s needs a number of seconds, not '%s'", where, value);
    }
    c->timeout = v;
    c->timeout_set = 1;
    return ZP_OK;
}

/* --timeout last: await leaves it out (its own --timeout is the whole wait) */
static const zp_option common_options[] = {
    {"server", 0, ZP_OPT_ARG, offsetof(client, server), 0, 0, NULL, "URL",
     "the daemon (default: $ZKPIPE_SERVER, else\n" DEFAULT_SERVER "); unix:/path/to.sock\nfor a unix socket", NULL},
    {"token", 0, ZP_OPT_ARG, offsetof(client, token), 0, 0, NULL, "T", "bearer token (default: $ZKPIPE_TOKEN)", NULL},
    {"json", 0, ZP_OPT_FLAG, offsetof(client, json), 0, 0, NULL, NULL, "print the daemon's JSON answer unchanged",
     NULL},
    {"timeout", 0, ZP_OPT_CUSTOM, 0, 0, 0, NULL, "S", "seconds one request may take (default 300)", client_set_timeout},
};

zp_option_table client_common_options(client *c, int with_timeout) {
    size_t n = sizeof common_options / sizeof *common_options;
    return (zp_option_table){"common options:", common_options, with_timeout ? n : n - 1, c};
}

void client_init(client *c, const char *cmd) {
    memset(c, 0, sizeof *c);
    c->cmd = cmd;
    c->server = getenv("ZKPIPE_SERVER");
    if (c->server == NULL || *c->server == '\0') c->server = DEFAULT_SERVER;
    c->token = getenv("ZKPIPE_TOKEN");
    if (c->token != NULL && *c->token == '\0') c->token = NULL;
    c->timeout = 300;
}

/* ---- the connection ---- */

static size_t on_body(char *p, size_t size, size_t n, void *arg) {
    buffer *b = arg;
    size_t len = size * n;
    if (len > CLIENT_MAX_ANSWER - b->len) return 0; /* curl reports a write error */
    if (b->len + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + len + 1) cap *= 2;
        char *d = realloc(b->data, cap);
        if (d == NULL) return 0; /* curl reports a write error */
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, len);
    b->len += len;
    b->data[b->len] = '\0';
    return len;
}

int client_resolve(client *c) {
    const char *cmd = c->cmd;
    const char *s = c->server;
    if (strncmp(s, "unix:", 5) == 0) {
        c->socket = s + 5;
        if (*c->socket == '\0') {
            fprintf(stderr, "zkpipe %s: --server unix: needs a socket path\n", cmd);
            return -1;
        }
        snprintf(c->base, sizeof c->base, "http://localhost");
    } else {
        int scheme = strstr(s, "://") != NULL;
        if (snprintf(c->base, sizeof c->base, "%s%s", scheme ? "" : "http://", s) >= (int)sizeof c->base) {
            fprintf(stderr, "zkpipe %s: --server URL too long\n", cmd);
            return -1;
        }
        size_t n = strlen(c->base);
        while (n > 0 && c->base[n - 1] == '/') c->base[--n] = '\0';
    }
    return 0;
}

int client_open(client *c) {
    if (curl_load(c->cmd) != 0) return -1;
    if (lib.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || (c->curl = lib.easy_init()) == NULL) {
        fprintf(stderr, "zkpipe %s: cannot initialise libcurl\n", c->cmd);
        return -1;
    }
    return 0;
}

char *client_escape(client *c, const char *s) {
    char *esc = lib.easy_escape(c->curl, s, 0);
    char *copy = esc ? strdup(esc) : NULL;
    lib.free(esc);
    return copy;
}

void client_close(client *c) {
    if (lib.global_cleanup == NULL) return; /* never opened */
    if (c->curl) lib.easy_cleanup(c->curl);
    c->curl = NULL;
    lib.global_cleanup();
}

/* One request: METHOD base+PATH with an optional JSON body. Fills *status and
 * *resp (NUL-terminated). Returns 0, or ZP_EXIT_FAILURE when no answer came
 * (message printed). timeout overrides c->timeout when > 0. */
int client_request(client *c, const char *method, const char *path, const char *body, size_t body_len, double timeout,
                   long *status, buffer *resp) {
    CURL *h = c->curl;
    char url[2048], auth[4200], errbuf[CURL_ERROR_SIZE] = "";
    if (snprintf(url, sizeof url, "%s%s", c->base, path) >= (int)sizeof url) {
        fprintf(stderr, "zkpipe %s: URL too long\n", c->cmd);
        return ZP_EXIT_USAGE;
    }
    lib.easy_reset(h);
    struct curl_slist *headers = lib.slist_append(NULL, "Accept: application/json");
    if (body) headers = lib.slist_append(headers, "Content-Type: application/json");
    headers = lib.slist_append(headers, "Expect:"); /* no 100-continue round trip */
    if (c->token) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", c->token);
        headers = lib.slist_append(headers, auth);
    }
    resp->len = 0;
    if (resp->data) resp->data[0] = '\0';
    lib.easy_setopt(h, CURLOPT_URL, url);
    lib.easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
    lib.easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    lib.easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    lib.easy_setopt(h, CURLOPT_WRITEDATA, resp);
    lib.easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    lib.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    lib.easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 10L);
    if (timeout <= 0) timeout = c->timeout;
    if (timeout > 0) lib.easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(timeout * 1000));
    if (c->socket) lib.easy_setopt(h, CURLOPT_UNIX_SOCKET_PATH, c->socket);
    if (body) {
        lib.easy_setopt(h, CURLOPT_POSTFIELDS, body);
        lib.easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
    } else if (strcmp(method, "GET") != 0) {
        lib.easy_setopt(h, CURLOPT_POSTFIELDSIZE, 0L);
    }
    CURLcode rc = lib.easy_perform(h);
    lib.slist_free_all(headers);
    if (rc != CURLE_OK) {
        fprintf(stderr, "zkpipe %s: no answer from the daemon at %s (%s %s): %s\n", c->cmd, c->server, method, path,
                *errbuf ? errbuf : lib.easy_strerror(rc));
        return ZP_EXIT_FAILURE;
    }
    lib.easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
    if (resp->data == NULL) on_body("", 1, 0, resp);
    return resp->data ? 0 : ZP_EXIT_FAILURE;
}

/* The exit status for an error answer, with its error.message printed. */
int client_answer_error(client *c, long status, const buffer *resp) {
    json_t *root = json_loadb(resp->data, resp->len, 0, NULL);
    const char *msg = json_string_value(json_object_get(json_object_get(root, "error"), "message"));
    fprintf(stderr, "zkpipe %s: ", c->cmd);
    if (msg) {
        answer_put(stderr, msg, 0);
        fprintf(stderr, " (HTTP %ld)\n", status);
    } else {
        char head[201];
        snprintf(head, sizeof head, "%s", resp->len ? resp->data : "(empty)");
        fprintf(stderr, "the daemon answered HTTP %ld: ", status);
        answer_put(stderr, head, 0);
        fputc('\n', stderr);
    }
    json_decref(root);
    return status >= 400 && status < 500 ? ZP_EXIT_INPUT : ZP_EXIT_FAILURE;
}

/* Parses a successful answer; NULL (message printed) when it is not JSON. */
json_t *client_answer_json(client *c, const buffer *resp) {
    json_error_t jerr;
    json_t *root = json_loadb(resp->data, resp->len, 0, &jerr);
    if (root == NULL) fprintf(stderr, "zkpipe %s: the daemon's answer is not JSON: %s\n", c->cmd, jerr.text);
    return root;
}

/* A simple request whose 2xx answer is parsed into *root (or, with --json,
 * printed as it came and *root left NULL). */
int client_call(client *c, const char *method, const char *path, json_t **root) {
    buffer resp = {0};
    long status = 0;
    *root = NULL;
    int rc = client_request(c, method, path, NULL, 0, 0, &status, &resp);
    if (rc == 0 && (status < 200 || status >= 300)) rc = client_answer_error(c, status, &resp);
    if (rc == 0 && c->json) {
        fwrite(resp.data, 1, resp.len, stdout);
        if (resp.len == 0 || resp.data[resp.len - 1] != '\n') putchar('\n');
    } else if (rc == 0 && (*root = client_answer_json(c, &resp)) == NULL) {
        rc = ZP_EXIT_FAILURE;
    }
    free(resp.data);
    return rc;
}

/* A job id: a positive decimal integer. */
int client_parse_job(client *c, const char *s, unsigned long long *id) {
    char *end;
    errno = 0;
    *id = s && *s != '-' ? strtoull(s, &end, 10) : 0;
    if (s == NULL || errno || end == s || *end != '\0' || *id == 0) {
        fprintf(stderr, "zkpipe %s: a job id is a positive number, not '%s'\n", c->cmd, s ? s : "");
        return -1;
    }
    return 0;
}

/* o[k] as a string, or `dflt` when it is missing or not a string. */
const char *client_str(json_t *o, const char *k, const char *dflt) { return answer_str(o, k, dflt); }
