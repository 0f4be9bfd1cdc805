/* libmicrohttpd glue: collects a request (refusing bodies over
 * max_request), hands it to zp_server_handle, sends the answer. One thread
 * per connection, so a long poll only holds its own. */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/error.h"
#include "server/internal.h"

typedef struct conn {
    char *body;
    size_t len, cap;
    int too_large;
} conn;

static const char *query_arg(void *arg, const char *name) {
    return MHD_lookup_connection_value(arg, MHD_GET_ARGUMENT_KIND, name);
}

static enum MHD_Result send_response(struct MHD_Connection *c, zp_response *r) {
    struct MHD_Response *m = MHD_create_response_from_buffer(
        r->len, r->body, r->body_static ? MHD_RESPMEM_PERSISTENT : MHD_RESPMEM_MUST_FREE);
    if (m == NULL) {
        zp_response_free(r);
        return MHD_NO;
    }
    r->body = NULL; /* MHD owns it now */
    MHD_add_response_header(m, MHD_HTTP_HEADER_CONTENT_TYPE, r->content_type ? r->content_type : "application/json");
    MHD_add_response_header(m, "Cache-Control", "no-store");
    enum MHD_Result ret = MHD_queue_response(c, (unsigned)r->status, m);
    MHD_destroy_response(m);
    return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **state) {
    (void)version;
    zp_server *s = cls;
    conn *k = *state;
    if (k == NULL) { /* the headers: refuse an announced oversized body at once */
        k = calloc(1, sizeof *k);
        if (k == NULL) return MHD_NO;
        *state = k;
        const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl && strtoull(cl, NULL, 10) > s->cfg.max_request) k->too_large = 1;
        return MHD_YES;
    }
    if (*upload_size > 0) {
        if (!k->too_large && k->len + *upload_size > s->cfg.max_request) k->too_large = 1;
        if (!k->too_large) {
            if (k->len + *upload_size + 1 > k->cap) {
                size_t cap = k->cap ? k->cap : 65536;
                while (cap < k->len + *upload_size + 1) cap *= 2;
                char *grown = realloc(k->body, cap);
                if (grown == NULL) {
                    k->too_large = 1;
                } else {
                    k->body = grown;
                    k->cap = cap;
                }
            }
            if (!k->too_large) {
                memcpy(k->body + k->len, upload, *upload_size);
                k->len += *upload_size;
            }
        }
        *upload_size = 0;
        return MHD_YES;
    }
    zp_response r;
    if (k->too_large) {
        memset(&r, 0, sizeof r);
        server_respond_error(&r, 413, "too_large", "the request body is larger than max_request (%llu bytes)",
                             (unsigned long long)s->cfg.max_request);
        pthread_mutex_lock(&s->lock);
        s->http_codes[4][13]++;
        pthread_mutex_unlock(&s->lock);
    } else {
        zp_request req = {method, url, query_arg, c,
                          MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION),
                          k->body, k->len};
        zp_server_handle(s, &req, &r);
    }
    return send_response(c, &r);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **state, enum MHD_RequestTerminationCode why) {
    (void)cls;
    (void)c;
    (void)why;
    conn *k = *state;
    if (k) {
        free(k->body);
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

static unsigned flags(void) {
    return MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC;
}

zp_status server_http_start(zp_server *s, zp_error *err) {
    unsigned limit = (unsigned)s->cfg.max_connections;
    if (s->cfg.listen && strcmp(s->cfg.listen, "none") != 0) {
        struct sockaddr_in sa;
        zp_status st = parse_listen(&sa, s->cfg.listen, err);
        if (st != ZP_OK) return st;
        s->mhd = MHD_start_daemon(flags(), 0, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR, &sa,
                                  MHD_OPTION_CONNECTION_LIMIT, limit, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)900,
                                  MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_END);
        if (s->mhd == NULL) return zp_error_set(err, ZP_ERR_IO, "cannot listen on %s", s->cfg.listen);
        const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->mhd, MHD_DAEMON_INFO_BIND_PORT);
        s->port = info ? (int)info->port : ntohs(sa.sin_port);
    }
    if (s->cfg.unix_socket) {
        struct sockaddr_un su;
        if (strlen(s->cfg.unix_socket) >= sizeof su.sun_path) {
            return zp_error_set(err, ZP_ERR_ARG, "unix_socket: path too long");
        }
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        memset(&su, 0, sizeof su);
        su.sun_family = AF_UNIX;
        strcpy(su.sun_path, s->cfg.unix_socket);
        unlink(s->cfg.unix_socket);
        if (fd < 0 || bind(fd, (struct sockaddr *)&su, sizeof su) != 0 || listen(fd, 64) != 0) {
            int e = errno;
            if (fd >= 0) close(fd);
            return zp_error_set(err, ZP_ERR_IO, "unix_socket %s: %s", s->cfg.unix_socket, strerror(e));
        }
        s->unix_fd = fd;
        s->mhd_unix = MHD_start_daemon(flags(), 0, NULL, NULL, on_request, s, MHD_OPTION_LISTEN_SOCKET, fd,
                                       MHD_OPTION_CONNECTION_LIMIT, limit, MHD_OPTION_CONNECTION_TIMEOUT,
                                       (unsigned)900, MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_END);
        if (s->mhd_unix == NULL) return zp_error_set(err, ZP_ERR_IO, "cannot serve on %s", s->cfg.unix_socket);
    }
    return ZP_OK;
}

void server_http_stop(zp_server *s) {
    if (s->mhd) MHD_stop_daemon(s->mhd);
    if (s->mhd_unix) MHD_stop_daemon(s->mhd_unix);
    s->mhd = s->mhd_unix = NULL;
    if (s->unix_fd >= 0) {
        /* MHD closed the listening socket it was given */
        unlink(s->cfg.unix_socket);
        s->unix_fd = -1;
    }
}
