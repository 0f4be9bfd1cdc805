/* The HTTP API (docs/daemon.md): routing a request to its handler
 * (routes_jobs.c, routes_status.c), authentication, the dashboard's
 * assets, reading ids and query arguments, and the JSON responses. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/error.h"
#include "server/assets.h"
#include "server/internal.h"

/* ---- responses --------------------------------------------------------- */

void zp_response_free(zp_response *resp) {
    if (!resp->body_static) free(resp->body);
    resp->body = NULL;
}

void server_respond_json(zp_response *resp, int status, json_t *body) {
    resp->status = status;
    resp->content_type = "application/json";
    resp->body = json_dumps(body, JSON_COMPACT);
    resp->body_static = 0;
    if (resp->body == NULL) {
        resp->status = 500;
        resp->body = (char *)"{\"error\":{\"code\":\"internal\",\"message\":\"out of memory\"}}";
        resp->body_static = 1;
    }
    resp->len = strlen(resp->body);
    json_decref(body);
}

void server_respond_error(zp_response *resp, int status, const char *code, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    server_respond_json(resp, status, json_pack("{s:{s:s,s:s}}", "error", "code", code, "message", msg));
}

const char *server_error_code(int status) {
    switch (status) {
    case 400: return "bad_request";
    case 401: return "unauthorized";
    case 403: return "forbidden_path";
    case 404: return "not_found";
    case 405: return "method_not_allowed";
    case 409: return "conflict";
    case 413: return "too_large";
    case 429: return "queue_full";
    case 422: return "invalid_input";
    case 503: return "shutting_down";
    case 507: return "spool_full";
    default: return "internal";
    }
}

/* ---- reading requests -------------------------------------------------- */

static int parse_id(int64_t *id, const char *text) {
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end != '\0' || v <= 0) return 0;
    *id = v;
    return 1;
}

double server_query_double(const zp_request *req, const char *name, double def, double max) {
    const char *v = req->query ? req->query(req->query_arg, name) : NULL;
    if (v == NULL) return def;
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end != '\0' || !(d >= 0)) return -1;
    return d > max ? max : d;
}

/* ---- the dashboard ----------------------------------------------------- */

static void serve_asset(const char *name, zp_response *resp) {
    for (const zp_asset *a = zp_assets; a->name; a++) {
        if (strcmp(a->name, name) != 0) continue;
        const char *dot = strrchr(name, '.');
        resp->status = 200;
        resp->content_type = !dot                        ? "application/octet-stream"
                             : strcmp(dot, ".html") == 0 ? "text/html; charset=utf-8"
                             : strcmp(dot, ".js") == 0   ? "text/javascript; charset=utf-8"
                             : strcmp(dot, ".css") == 0  ? "text/css; charset=utf-8"
                             : strcmp(dot, ".svg") == 0  ? "image/svg+xml"
                             : strcmp(dot, ".png") == 0  ? "image/png"
                                                         : "application/octet-stream";
        resp->body = (char *)a->bytes;
        resp->len = a->size;
        resp->body_static = 1;
        return;
    }
    server_respond_error(resp, 404, "not_found", "no asset '%s'", name);
}

/* ---- routing ----------------------------------------------------------- */

int server_authorized(const zp_server *s, const char *h) {
    if (s->cfg.token == NULL) return 1;
    if (h == NULL || strncmp(h, "Bearer ", 7) != 0) return 0;
    /* time depends on the lengths only, never on where the bytes differ */
    const char *given = h + 7, *want = s->cfg.token;
    size_t lg = strlen(given), lw = strlen(want);
    unsigned char diff = (unsigned char)(lg != lw);
    for (size_t i = 0; i < lw; i++) diff |= (unsigned char)(want[i] ^ (i < lg ? given[i] : 0));
    return lw > 0 && diff == 0;
}

static void route(zp_server *s, const zp_request *req, zp_response *resp) {
    const char *m = req->method, *p = req->path;
    if (strcmp(m, "GET") == 0 && (strcmp(p, "/") == 0 || strcmp(p, "/index.html") == 0)) {
        serve_asset("index.html", resp);
        return;
    }
    if (strcmp(m, "GET") == 0 && strncmp(p, "/assets/", 8) == 0) {
        serve_asset(p + 8, resp);
        return;
    }
    if (!server_authorized(s, req->authorization)) {
        server_respond_error(resp, 401, "unauthorized", "a valid 'Authorization: Bearer <token>' header is required");
        return;
    }
    if (strcmp(p, "/metrics") == 0) {
        if (strcmp(m, "GET") != 0) server_respond_error(resp, 405, "method_not_allowed", "use GET");
        else server_metrics(s, resp);
        return;
    }
    if (strcmp(p, "/v1/status") == 0 || strcmp(p, "/v1/status/history") == 0) {
        if (strcmp(m, "GET") != 0) server_respond_error(resp, 405, "method_not_allowed", "use GET");
        else if (p[10] == '\0') route_get_status(s, resp);
        else route_get_history(s, resp);
        return;
    }
    if (strcmp(p, "/v1/jobs") == 0) {
        if (strcmp(m, "POST") == 0) {
            pthread_mutex_lock(&s->lock);
            int down = s->shutting_down;
            pthread_mutex_unlock(&s->lock);
            if (down) server_respond_error(resp, 503, "shutting_down", "the daemon is shutting down");
            else route_post_job(s, req, resp);
        } else if (strcmp(m, "GET") == 0) {
            route_get_jobs(s, req, resp);
        } else {
            server_respond_error(resp, 405, "method_not_allowed", "use GET or POST on /v1/jobs");
        }
        return;
    }
    if (strncmp(p, "/v1/jobs/", 9) == 0) {
        char idtext[32];
        const char *rest = p + 9, *slash = strchr(rest, '/');
        size_t len = slash ? (size_t)(slash - rest) : strlen(rest);
        int64_t id;
        if (len == 0 || len >= sizeof idtext) {
            server_respond_error(resp, 404, "not_found", "no such job");
            return;
        }
        memcpy(idtext, rest, len);
        idtext[len] = '\0';
        if (!parse_id(&id, idtext)) {
            server_respond_error(resp, 404, "not_found", "'%s' is not a job id", idtext);
            return;
        }
        if (slash == NULL) {
            if (strcmp(m, "GET") == 0) route_get_job(s, id, resp);
            else if (strcmp(m, "DELETE") == 0) route_delete_job(s, id, resp);
            else server_respond_error(resp, 405, "method_not_allowed", "use GET or DELETE on a job");
        } else if (strcmp(slash, "/proof") == 0) {
            if (strcmp(m, "GET") == 0) route_get_proof(s, id, req, resp);
            else server_respond_error(resp, 405, "method_not_allowed", "use GET on a job's proof");
        } else {
            server_respond_error(resp, 404, "not_found", "no such resource");
        }
        return;
    }
    if (strcmp(p, "/v1/fleet") == 0) {
        if (strcmp(m, "GET") == 0) route_get_fleet(s, resp);
        else server_respond_error(resp, 405, "method_not_allowed", "use GET on /v1/fleet");
        return;
    }
    if (strcmp(p, "/v1/keys") == 0) {
        if (strcmp(m, "GET") == 0) route_list_keys(s, resp);
        else server_respond_error(resp, 405, "method_not_allowed", "use GET on /v1/keys");
        return;
    }
    if (strncmp(p, "/v1/keys/", 9) == 0) {
        route_key_action(s, m, p + 9, resp);
        return;
    }
    server_respond_error(resp, 404, "not_found", "no such resource: %s", p);
}

void zp_server_handle(zp_server *s, const zp_request *req, zp_response *resp) {
    memset(resp, 0, sizeof *resp);
    route(s, req, resp);
    int st = resp->status;
    if (st >= 100 && st < 600) {
        pthread_mutex_lock(&s->lock);
        s->http_codes[st / 100][st % 100]++;
        pthread_mutex_unlock(&s->lock);
    }
}
