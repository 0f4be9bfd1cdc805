/* libmicrohttpd glue: judges a request by its headers (Host, Origin,
 * token, method, Content-Length, Content-Type, a job slot, room in the
 * memory budget for a job's body) before reading its body, collects the
 * body within its limit, hands it to zp_server_handle, sends the answer.
 * One thread per connection, so a long poll only holds its own.
 *
 * A POST /v1/jobs body (up to max_request) is read into an intake buffer
 * of the engine (tracked, class intake, reserved from the budget): all of
 * it before a byte is read when Content-Length says its size, in steps as
 * it grows when it is chunked. No room: 503 with Retry-After at once, so
 * a burst of uploads never takes the daemon past its budget and never
 * parks a connection waiting. Other bodies are small (SMALL_BODY). */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/dynlib.h"
#include "base/error.h"
#include "server/internal.h"

/* libmicrohttpd, loaded when the daemon starts (base/dynlib.h: linked, it
 * and GnuTLS would cost every zkpipe process its start-up). Called
 * through these pointers, never by name. */
static struct {
    __typeof__(MHD_lookup_connection_value) *lookup_connection_value;
    __typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
    __typeof__(MHD_add_response_header) *add_response_header;
    __typeof__(MHD_queue_response) *queue_response;
    __typeof__(MHD_destroy_response) *destroy_response;
    __typeof__(MHD_get_connection_info) *get_connection_info;
    __typeof__(MHD_set_connection_option) *set_connection_option;
    __typeof__(MHD_start_daemon) *start_daemon;
    __typeof__(MHD_get_daemon_info) *get_daemon_info;
    __typeof__(MHD_stop_daemon) *stop_daemon;
} mhd;

zp_status server_http_load(zp_error *err) {
    static int once;
    static const char *const sonames[] = {"libmicrohttpd.so.12", "libmicrohttpd.so", NULL};
#define SYM(f) \
    { "MHD_" #f, (void **)&mhd.f }
    const zp_dynsym syms[] = {SYM(lookup_connection_value), SYM(create_response_from_buffer),
                              SYM(add_response_header),     SYM(queue_response),
                              SYM(destroy_response),        SYM(get_connection_info),
                              SYM(set_connection_option),   SYM(start_daemon),
                              SYM(get_daemon_info),         SYM(stop_daemon)};
#undef SYM
    return zp_dynlib_load(&once, sonames, syms, sizeof syms / sizeof *syms, "libmicrohttpd12", err);
}

/* Connections beyond max_connections kept for /v1/status, /metrics and the
 * dashboard, so that a full house of job requests cannot hide the daemon. */
#define HTTP_RESERVE 8
/* The body limit of every request but POST /v1/jobs. */
#define SMALL_BODY 65536
/* A chunked job body's intake buffer: its first size, and the least it
 * grows by (it grows by an eighth of its size when that is more, so the
 * reservation is at most 1/8 above the bytes read). */
#define INTAKE_FIRST 65536
#define INTAKE_STEP (1u << 20)
/* What a client refused for want of memory is told to wait (seconds):
 * bodies in flight are gone within about that. */
#define INTAKE_RETRY_AFTER 1

typedef struct conn {
    char *body;            /* small bodies; or: */
    zp_intake *intake;     /* a job's body, in the engine's budget; or: */
    server_upload *upload; /* witnesses streamed to the spool (upload.c) */
    size_t len, cap;
    uint64_t limit; /* the largest body this request may have */
    int job;        /* holds one of the max_connections job slots */
    int answered;   /* a response was queued before the body ended */
} conn;

static const char *query_arg(void *arg, const char *name) {
    return mhd.lookup_connection_value(arg, MHD_GET_ARGUMENT_KIND, name);
}

static void count_status(zp_server *s, int status) {
    pthread_mutex_lock(&s->lock);
    s->http_codes[status / 100][status % 100]++;
    pthread_mutex_unlock(&s->lock);
}

static enum MHD_Result send_response(struct MHD_Connection *c, zp_response *r) {
    struct MHD_Response *m = mhd.create_response_from_buffer(
        r->len, r->body, r->body_static ? MHD_RESPMEM_PERSISTENT : MHD_RESPMEM_MUST_FREE);
    if (m == NULL) {
        zp_response_free(r);
        return MHD_NO;
    }
    r->body = NULL; /* MHD owns it now */
    mhd.add_response_header(m, MHD_HTTP_HEADER_CONTENT_TYPE, r->content_type ? r->content_type : "application/json");
    if (r->retry_after > 0) {
        char secs[24];
        snprintf(secs, sizeof secs, "%d", r->retry_after);
        mhd.add_response_header(m, MHD_HTTP_HEADER_RETRY_AFTER, secs);
    }
    mhd.add_response_header(m, "Cache-Control", "no-store");
    enum MHD_Result ret = mhd.queue_response(c, (unsigned)r->status, m);
    mhd.destroy_response(m);
    return ret;
}

static const char *header(struct MHD_Connection *c, const char *name) {
    return mhd.lookup_connection_value(c, MHD_HEADER_KIND, name);
}

/* Whether item (len bytes) is one of the comma-separated list's entries
 * (case-insensitive; "*" matches anything). */
static int in_list(const char *list, const char *item, size_t len) {
    for (const char *p = list; p && *p;) {
        while (*p == ' ' || *p == ',') p++;
        const char *e = p;
        while (*e && *e != ',' && *e != ' ') e++;
        if ((e - p == 1 && *p == '*') || ((size_t)(e - p) == len && len > 0 && strncasecmp(p, item, len) == 0))
            return 1;
        p = e;
    }
    return 0;
}

/* DNS rebinding gives a foreign name the daemon's address: a browser then
 * sends that name as Host. An IP literal or localhost cannot be rebound,
 * so those are always allowed; names only when configured. */
static int host_allowed(const zp_server *s, const char *host) {
    char name[256];
    size_t n;
    if (host[0] == '[') {
        const char *close = strchr(host, ']');
        if (close == NULL || (size_t)(close - host - 1) >= sizeof name) return 0;
        n = (size_t)(close - host - 1);
        memcpy(name, host + 1, n);
        name[n] = '\0';
        struct in6_addr a6;
        return inet_pton(AF_INET6, name, &a6) == 1 && (close[1] == '\0' || close[1] == ':');
    }
    const char *colon = strchr(host, ':');
    n = colon ? (size_t)(colon - host) : strlen(host);
    if (n == 0 || n >= sizeof name) return 0;
    memcpy(name, host, n);
    name[n] = '\0';
    struct in_addr a4;
    if (inet_pton(AF_INET, name, &a4) == 1) return 1;
    if (strcasecmp(name, "localhost") == 0 || strcasecmp(name, "localhost.") == 0) return 1;
    return in_list(s->cfg.allowed_hosts, name, n);
}

/* A browser names the page that made a request in Origin: the daemon's own
 * pages (Origin's host:port is the Host asked for) or a configured one. */
static int origin_allowed(const zp_server *s, const char *origin, const char *host) {
    if (in_list(s->cfg.allowed_origins, origin, strlen(origin))) return 1;
    const char *sep = strstr(origin, "://");
    if (sep == NULL || host == NULL) return 0;
    if (strncasecmp(origin, "http://", 7) != 0 && strncasecmp(origin, "https://", 8) != 0) return 0;
    return strcasecmp(sep + 3, host) == 0;
}

static int is_type(const char *type, const char *want) {
    size_t n = strlen(want);
    return type && strncasecmp(type, want, n) == 0 && (type[n] == '\0' || type[n] == ';' || type[n] == ' ');
}

static int is_json(const char *type) { return is_type(type, "application/json"); }

/* The requests that must answer when job requests fill max_connections. */
static int is_reserved_path(const char *p) {
    return strcmp(p, "/v1/status") == 0 || strcmp(p, "/v1/status/history") == 0 || strcmp(p, "/metrics") == 0 ||
           strcmp(p, "/") == 0 || strcmp(p, "/index.html") == 0 || strncmp(p, "/assets/", 8) == 0;
}

/* Everything that can be judged from the headers, before a byte of body
 * is read: returns 0 to go on, or the status of the answer put in r. */
static int judge_headers(zp_server *s, struct MHD_Connection *c, const char *url, const char *method, conn *k,
                         zp_response *r) {
    /* no browser reaches a unix socket; the client's address says which
     * listener took it (s->mhd_unix is set while the TCP one serves) */
    const union MHD_ConnectionInfo *ci = mhd.get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    int on_unix = ci && ci->client_addr && ci->client_addr->sa_family == AF_UNIX;
    const char *host = header(c, MHD_HTTP_HEADER_HOST), *origin = header(c, "Origin");
    if (!on_unix && host && !host_allowed(s, host)) {
        server_respond_error(r, 403, "forbidden_host",
                             "Host '%.200s' is not this daemon's (use an IP address or localhost, or add the name "
                             "to allowed_hosts)",
                             host);
        return 403;
    }
    if (!on_unix && origin && !origin_allowed(s, origin, host)) {
        server_respond_error(r, 403, "forbidden_origin",
                             "requests from the page at Origin '%.200s' are refused (add it to allowed_origins)",
                             origin);
        return 403;
    }
    int public_asset = strcmp(method, "GET") == 0 &&
                       (strcmp(url, "/") == 0 || strcmp(url, "/index.html") == 0 || strncmp(url, "/assets/", 8) == 0);
    if (!public_asset && !server_authorized(s, header(c, MHD_HTTP_HEADER_AUTHORIZATION))) {
        server_respond_error(r, 401, "unauthorized", "a valid 'Authorization: Bearer <token>' header is required");
        return 401;
    }
    int reads = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
    if (!reads && strcmp(method, "POST") != 0 && strcmp(method, "DELETE") != 0) {
        server_respond_error(r, 405, "method_not_allowed", "method %.32s is not used by this API", method);
        return 405;
    }
    int job_post = strcmp(method, "POST") == 0 && strcmp(url, "/v1/jobs") == 0;
    k->limit = job_post ? s->cfg.max_request : SMALL_BODY;
    const char *cl = header(c, MHD_HTTP_HEADER_CONTENT_LENGTH), *te = header(c, MHD_HTTP_HEADER_TRANSFER_ENCODING);
    int has_body = te != NULL;
    uint64_t length = 0;
    if (cl) {
        /* MHD has parsed it already; read it again strictly, as an overflow
         * must be refused rather than wrap */
        errno = 0;
        char *end;
        unsigned long long v = strtoull(cl, &end, 10);
        if (end == cl || *end != '\0' || cl[0] == '-' || errno == ERANGE || v > k->limit) {
            server_respond_error(r, 413, "too_large", "Content-Length %.40s is more than the %llu bytes allowed here",
                                 cl, (unsigned long long)k->limit);
            return 413;
        }
        has_body |= v > 0;
        length = v;
    }
    /* a page can POST text/plain or a form anywhere without asking: only
     * JSON changes state, and a job's witnesses streamed as
     * application/octet-stream (which a page cannot send unasked either) */
    const char *type = header(c, MHD_HTTP_HEADER_CONTENT_TYPE);
    int stream = job_post && has_body && is_type(type, "application/octet-stream");
    if (!reads && has_body && !is_json(type) && !stream) {
        server_respond_error(r, 415, "unsupported_media_type",
                             "a %s with a body needs Content-Type: application/json%s", method,
                             job_post ? " (or application/octet-stream: .wtns files)" : "");
        return 415;
    }
    if (!is_reserved_path(url)) {
        pthread_mutex_lock(&s->lock);
        int full = s->job_conns >= s->cfg.max_connections;
        if (!full) s->job_conns++;
        pthread_mutex_unlock(&s->lock);
        if (full) {
            server_respond_error(r, 503, "busy", "all %llu connections for jobs are in use; try again",
                                 (unsigned long long)s->cfg.max_connections);
            return 503;
        }
        k->job = 1;
    }
    if (stream) { /* witnesses streamed to the spool: no memory to reserve */
        zp_request req = {method, url, query_arg, c, NULL, NULL, 0, NULL};
        k->upload = server_upload_begin(s, &req, r);
        return k->upload ? 0 : r->status;
    }
    if (job_post && has_body) {
        /* a job's body: its memory from the budget before it is read */
        zp_error err;
        size_t first = cl ? (size_t)length : INTAKE_FIRST < k->limit ? INTAKE_FIRST : (size_t)k->limit;
        zp_status st = zp_engine_intake_alloc(&k->intake, s->engine, first, &err);
        if (st == ZP_ERR_ARG) {
            server_respond_error(r, 413, "too_large",
                                 "a body of %llu bytes is more than this daemon's memory budget can hold: %s",
                                 (unsigned long long)length, err.message);
            return 413;
        }
        if (st != ZP_OK) {
            server_respond_error(r, 503, "busy_memory",
                                 "no room in the memory budget for this request's body now (%s); try again",
                                 err.message);
            r->retry_after = INTAKE_RETRY_AFTER;
            return 503;
        }
        k->cap = zp_intake_size(k->intake);
    }
    return 0;
}

static void conn_drop_body(zp_server *s, conn *k) {
    server_upload_abort(k->upload);
    k->upload = NULL;
    free(k->body);
    k->body = NULL;
    zp_engine_intake_free(s->engine, k->intake);
    k->intake = NULL;
    k->len = k->cap = 0;
}

static enum MHD_Result answer_now(zp_server *s, struct MHD_Connection *c, conn *k, zp_response *r) {
    count_status(s, r->status);
    k->answered = 1;
    conn_drop_body(s, k);
    return send_response(c, r);
}

/* Room for more bytes of a job's body in its intake buffer (a chunked
 * body, or one longer than its Content-Length said: MHD stops that). */
static zp_status intake_room(zp_server *s, conn *k, size_t more, zp_error *err) {
    if (k->len + more <= k->cap) return ZP_OK;
    size_t want = k->len + more, step = k->cap / 8 > INTAKE_STEP ? k->cap / 8 : INTAKE_STEP;
    if (want < k->cap + step) want = k->cap + step;
    if (want > k->limit) want = (size_t)k->limit;
    zp_status st = zp_engine_intake_grow(s->engine, k->intake, want, err);
    if (st == ZP_OK) k->cap = zp_intake_size(k->intake);
    return st;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **state) {
    (void)version;
    zp_server *s = cls;
    conn *k = *state;
    zp_response r;
    memset(&r, 0, sizeof r);
    if (k == NULL) { /* the headers, and no body yet */
        k = calloc(1, sizeof *k);
        if (k == NULL) return MHD_NO;
        *state = k;
        if (judge_headers(s, c, url, method, k, &r) != 0) return answer_now(s, c, k, &r);
        return MHD_YES;
    }
    if (k->answered) { /* the rest of a refused body is not read */
        *upload_size = 0;
        return MHD_NO;
    }
    if (*upload_size > 0) {
        if (*upload_size > k->limit - k->len) {
            /* a chunked body past the limit: stop here, never read on.
             * libmicrohttpd 0.9 takes no response in the middle of a body,
             * so the 413 is counted and the connection closed (MHD_NO) */
            server_respond_error(&r, 413, "too_large", "the request body is larger than the %llu bytes allowed here",
                                 (unsigned long long)k->limit);
            *upload_size = 0;
            return answer_now(s, c, k, &r);
        }
        if (k->upload) {
            server_upload_feed(k->upload, upload, *upload_size);
            k->len += *upload_size;
            *upload_size = 0;
            return MHD_YES;
        }
        if (k->intake) {
            zp_error err;
            if (intake_room(s, k, *upload_size, &err) != ZP_OK) {
                /* no room to read on: as above, counted and closed */
                server_respond_error(&r, 503, "busy_memory",
                                     "no room in the memory budget for the rest of this request's body: %s",
                                     err.message);
                r.retry_after = INTAKE_RETRY_AFTER;
                *upload_size = 0;
                return answer_now(s, c, k, &r);
            }
            memcpy((char *)zp_intake_data(k->intake) + k->len, upload, *upload_size);
            k->len += *upload_size;
            *upload_size = 0;
            return MHD_YES;
        }
        if (k->len + *upload_size + 1 > k->cap) {
            size_t cap = k->cap ? k->cap : 65536;
            while (cap < k->len + *upload_size + 1) cap *= 2;
            if (cap > k->limit + 1) cap = (size_t)k->limit + 1;
            char *grown = realloc(k->body, cap);
            if (grown == NULL) {
                server_respond_error(&r, 503, "internal", "out of memory for the request body");
                *upload_size = 0;
                return answer_now(s, c, k, &r);
            }
            k->body = grown;
            k->cap = cap;
        }
        memcpy(k->body + k->len, upload, *upload_size);
        k->len += *upload_size;
        *upload_size = 0;
        return MHD_YES;
    }
    if (k->upload) {
        server_upload_finish(k->upload, &r);
        k->upload = NULL;
        count_status(s, r.status);
        return send_response(c, &r);
    }
    char *body = k->intake ? zp_intake_data(k->intake) : k->body;
    zp_request req = {
        method, url, query_arg, c, header(c, MHD_HTTP_HEADER_AUTHORIZATION), body, k->len, k->intake ? body : NULL};
    zp_server_handle(s, &req, &r);
    conn_drop_body(s, k); /* the budget has it back before the answer goes out */
    /* a long poll may have waited past connection_timeout: the wait was
     * the daemon's, so the clock starts again for sending the answer */
    mhd.set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, 0u); /* from 0, a new value restarts the clock */
    mhd.set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, (unsigned)s->cfg.connection_timeout);
    return send_response(c, &r);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **state, enum MHD_RequestTerminationCode why) {
    (void)c;
    (void)why;
    zp_server *s = cls;
    conn *k = *state;
    if (k) {
        if (k->job) {
            pthread_mutex_lock(&s->lock);
            s->job_conns--;
            pthread_mutex_unlock(&s->lock);
        }
        conn_drop_body(s, k);
        free(k);
    }
    *state = NULL;
}

static zp_status parse_listen(struct sockaddr_in *sa, const char *listen, zp_error *err) {
    char host[256];
    const char *colon = strrchr(listen, ':');
    if (colon == NULL || (size_t)(colon - listen) >= sizeof host) {
        return zp_error_set(err, ZP_ERR_ARG, "listen: expected host:port, not '%s'", listen);
    }
    memcpy(host, listen, (size_t)(colon - listen));
    host[colon - listen] = '\0';
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (*end != '\0' || port < 0 || port > 65535 || end == colon + 1) {
        return zp_error_set(err, ZP_ERR_ARG, "listen: bad port in '%s'", listen);
    }
    memset(sa, 0, sizeof *sa);
    sa->sin_family = AF_INET;
    sa->sin_port = htons((uint16_t)port);
    if (strcmp(host, "localhost") == 0) strcpy(host, "127.0.0.1");
    if (inet_pton(AF_INET, host, &sa->sin_addr) != 1) {
        return zp_error_set(err, ZP_ERR_ARG, "listen: '%s' is not an IPv4 address", host);
    }
    return ZP_OK;
}

static unsigned flags(void) { return MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC; }

static struct MHD_Daemon *start_mhd(zp_server *s, enum MHD_OPTION where, const void *arg) {
    /* job requests are capped at max_connections in judge_headers; the
     * reserve lets status and metrics in beside them; a silent client is
     * dropped after connection_timeout */
    unsigned limit = (unsigned)(s->cfg.max_connections + HTTP_RESERVE);
    if (where == MHD_OPTION_LISTEN_SOCKET) {
        return mhd.start_daemon(flags(), 0, NULL, NULL, on_request, s, MHD_OPTION_LISTEN_SOCKET, *(const int *)arg,
                                MHD_OPTION_CONNECTION_LIMIT, limit, MHD_OPTION_CONNECTION_TIMEOUT,
                                (unsigned)s->cfg.connection_timeout, MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
                                MHD_OPTION_END);
    }
    return mhd.start_daemon(
        flags(), 0, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR, arg, MHD_OPTION_CONNECTION_LIMIT, limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)s->cfg.max_connections_per_ip, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned)s->cfg.connection_timeout, MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_END);
}

/* A socket path may be taken only from nobody: a live socket (another
 * daemon answers on it) or a file that is not a socket is refused; only a
 * stale socket (nobody listens: ECONNREFUSED) is removed. */
static zp_status claim_socket_path(const struct sockaddr_un *su, zp_error *err) {
    const char *path = su->sun_path;
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT) return ZP_OK;
        return zp_error_set(err, ZP_ERR_IO, "unix_socket %s: %s", path, strerror(errno));
    }
    if (!S_ISSOCK(st.st_mode)) {
        return zp_error_set(err, ZP_ERR_IO, "unix_socket %s exists and is not a socket; not replacing it", path);
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return zp_error_set(err, ZP_ERR_IO, "unix_socket %s: socket: %s", path, strerror(errno));
    int rc = connect(fd, (const struct sockaddr *)su, sizeof *su), e = errno;
    close(fd);
    if (rc == 0) {
        return zp_error_set(err, ZP_ERR_IO,
                            "unix_socket %s: another process (another daemon?) is listening on it; not taking it over",
                            path);
    }
    if (e != ECONNREFUSED) return zp_error_set(err, ZP_ERR_IO, "unix_socket %s: %s", path, strerror(e));
    if (unlink(path) != 0 && errno != ENOENT) {
        return zp_error_set(err, ZP_ERR_IO, "unix_socket %s: cannot remove the stale socket: %s", path,
                            strerror(errno));
    }
    return ZP_OK;
}

zp_status server_http_start(zp_server *s, zp_error *err) {
    zp_status loaded = server_http_load(err);
    if (loaded != ZP_OK) return loaded;
    if (s->cfg.token) { /* the API's callers may set it without the option parser */
        zp_status st = zp_server_token_check(s->cfg.token, strlen(s->cfg.token), "token", err);
        if (st != ZP_OK) return st;
    }
    if (s->cfg.connection_timeout == 0) s->cfg.connection_timeout = 30;
    if (s->cfg.listen && strcmp(s->cfg.listen, "none") != 0) {
        struct sockaddr_in sa;
        zp_status st = parse_listen(&sa, s->cfg.listen, err);
        if (st != ZP_OK) return st;
        s->mhd = start_mhd(s, MHD_OPTION_SOCK_ADDR, &sa);
        if (s->mhd == NULL) return zp_error_set(err, ZP_ERR_IO, "cannot listen on %s", s->cfg.listen);
        const union MHD_DaemonInfo *info = mhd.get_daemon_info(s->mhd, MHD_DAEMON_INFO_BIND_PORT);
        s->port = info ? (int)info->port : ntohs(sa.sin_port);
    }
    if (s->cfg.unix_socket) {
        struct sockaddr_un su;
        if (strlen(s->cfg.unix_socket) >= sizeof su.sun_path) {
            return zp_error_set(err, ZP_ERR_ARG, "unix_socket: path too long");
        }
        memset(&su, 0, sizeof su);
        su.sun_family = AF_UNIX;
        strcpy(su.sun_path, s->cfg.unix_socket);
        zp_status st = claim_socket_path(&su, err);
        if (st != ZP_OK) return st;
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || bind(fd, (struct sockaddr *)&su, sizeof su) != 0 || listen(fd, 64) != 0) {
            int e = errno;
            if (fd >= 0) close(fd);
            return zp_error_set(err, ZP_ERR_IO, "unix_socket %s: %s", s->cfg.unix_socket, strerror(e));
        }
        struct stat made;
        if (lstat(s->cfg.unix_socket, &made) == 0) {
            s->unix_dev = (uint64_t)made.st_dev;
            s->unix_ino = (uint64_t)made.st_ino;
        }
        s->unix_fd = fd;
        s->mhd_unix = start_mhd(s, MHD_OPTION_LISTEN_SOCKET, &fd);
        if (s->mhd_unix == NULL) return zp_error_set(err, ZP_ERR_IO, "cannot serve on %s", s->cfg.unix_socket);
    }
    return ZP_OK;
}

void server_http_stop(zp_server *s) {
    if (s->mhd) mhd.stop_daemon(s->mhd);
    if (s->mhd_unix) mhd.stop_daemon(s->mhd_unix);
    s->mhd = s->mhd_unix = NULL;
    if (s->unix_fd >= 0) {
        /* MHD closed the listening socket it was given; remove the file
         * only if it is still the one this daemon made */
        struct stat now;
        if (lstat(s->cfg.unix_socket, &now) == 0 && (uint64_t)now.st_dev == s->unix_dev &&
            (uint64_t)now.st_ino == s->unix_ino) {
            unlink(s->cfg.unix_socket);
        }
        s->unix_fd = -1;
    }
}
