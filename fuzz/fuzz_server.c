/* libFuzzer: the daemon's request handlers (zp_server_handle), without a
 * socket. Input: a method selector byte, the path up to the first '\n',
 * the Authorization header up to the next '\n', then the body. A daemon
 * with a token, the example key and a witness directory is started once;
 * whatever comes in, the answer must be a well-formed JSON error or value,
 * never a crash, a hang or a leak. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/server.h"

static zp_server *server;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    static char dir[] = "/tmp/zp-fuzz-server-XXXXXX";
    if (mkdtemp(dir) == NULL) abort();
    zp_server_config cfg;
    zp_server_config_init(&cfg);
    zp_error err;
    const char *keys = getenv("ZP_FUZZ_KEYS") ? getenv("ZP_FUZZ_KEYS") : "examples/merkle/bn128";
    if (zp_server_config_set(&cfg, "listen", "none", "fuzz", &err) != ZP_OK ||
        zp_server_config_set(&cfg, "data_dir", dir, "fuzz", &err) != ZP_OK ||
        zp_server_config_set(&cfg, "keys_dir", keys, "fuzz", &err) != ZP_OK ||
        zp_server_config_set(&cfg, "witness_dir", keys, "fuzz", &err) != ZP_OK ||
        zp_server_config_set(&cfg, "token", "fuzz-token", "fuzz", &err) != ZP_OK ||
        zp_server_config_set(&cfg, "budget", "256M", "fuzz", &err) != ZP_OK ||
        zp_server_config_set(&cfg, "synth_workers", "1", "fuzz", &err) != ZP_OK ||
        zp_server_config_set(&cfg, "threads", "1", "fuzz", &err) != ZP_OK ||
        zp_server_config_set(&cfg, "log_level", "error", "fuzz", &err) != ZP_OK ||
        zp_server_start(&server, &cfg, &err) != ZP_OK) {
        fprintf(stderr, "fuzz_server: %s\n", err.message);
        abort();
    }
    zp_server_config_free(&cfg);
    return 0;
}

static const char *no_query(void *arg, const char *name) {
    (void)arg;
    (void)name;
    return NULL;
}

static char *take_line(const uint8_t **p, const uint8_t *end) {
    const uint8_t *nl = memchr(*p, '\n', (size_t)(end - *p));
    size_t len = nl ? (size_t)(nl - *p) : (size_t)(end - *p);
    char *s = malloc(len + 1);
    memcpy(s, *p, len);
    s[len] = '\0';
    *p += len + (nl != NULL);
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    static const char *methods[] = {"GET", "POST", "DELETE", "PUT"};
    const char *method = methods[data[0] & 3];
    const uint8_t *p = data + 1, *end = data + size;
    char *path = take_line(&p, end);
    char *auth = take_line(&p, end);
    /* bit 2: the body writable, as the HTTP layer hands it (POST /v1/jobs
     * then decodes witnesses in place: jobbody.c) */
    size_t len = (size_t)(end - p);
    char *writable = (data[0] & 4) ? malloc(len ? len : 1) : NULL;
    if (writable) memcpy(writable, p, len);
    zp_request req = {method, path,    no_query, NULL, auth[0] ? auth : NULL, writable ? writable : (const char *)p,
                      len,    writable};
    zp_response resp;
    zp_server_handle(server, &req, &resp);
    free(writable);
    if (resp.status < 200 || resp.status > 599 || resp.body == NULL) abort();
    if (resp.content_type && strncmp(resp.content_type, "application/json", 16) == 0) {
        json_error_t jerr;
        json_t *j = json_loadb(resp.body, resp.len, 0, &jerr);
        if (j == NULL) abort();
        json_decref(j);
    }
    zp_response_free(&resp);
    free(path);
    free(auth);
    return 0;
}
