/* The daemon in-process (no socket): its config table and file, then the
 * handlers of docs/daemon.md through zp_server_handle: a job submitted with
 * base64 and with a confined path, proofs that verify, long polls,
 * idempotent request ids, cancellation, status, history, metrics, keys,
 * authentication, errors (malformed JSON, path escapes, wrong curve, unknown
 * job or key), and a stop with work queued that a restart resumes and
 * finishes exactly once. */
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/options.h"
#include "groth16/groth16.h"
#include "io/json.h"
#include "server/config.h"
#include "server/server.h"
#include "store/store.h"
#include "testutil.h"

static char dir[] = "/tmp/zp-test-server-XXXXXX";
static const char *token = "s3cret";

typedef struct query {
    const char *name[4], *value[4];
} query;

static const char *lookup(void *arg, const char *name) {
    query *q = arg;
    for (int i = 0; q && i < 4 && q->name[i]; i++) {
        if (strcmp(q->name[i], name) == 0) return q->value[i];
    }
    return NULL;
}

/* One request; returns the status and the parsed JSON body (or NULL). */
static int call(json_t **out, zp_server *s, const char *method, const char *path, const char *body, query *q,
                const char *auth) {
    char header[128];
    snprintf(header, sizeof header, "Bearer %s", auth ? auth : token);
    /* as the HTTP layer hands it: a writable copy (POST /v1/jobs decodes
     * witnesses in place there) */
    char *copy = body ? strdup(body) : NULL;
    zp_request req = {method, path, lookup, q, header, copy, copy ? strlen(copy) : 0, copy};
    zp_response resp;
    zp_server_handle(s, &req, &resp);
    free(copy);
    if (out) {
        json_error_t jerr;
        *out =
            resp.content_type && strstr(resp.content_type, "json") ? json_loadb(resp.body, resp.len, 0, &jerr) : NULL;
    }
    int status = resp.status;
    zp_response_free(&resp);
    return status;
}

static char *b64(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)n);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) n = 0;
    fclose(f);
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = malloc((size_t)n / 3 * 4 + 8), *o = out;
    for (long i = 0; i < n; i += 3) {
        uint32_t v =
            (uint32_t)buf[i] << 16 | (i + 1 < n ? (uint32_t)buf[i + 1] << 8 : 0) | (i + 2 < n ? buf[i + 2] : 0);
        *o++ = tab[v >> 18];
        *o++ = tab[(v >> 12) & 63];
        *o++ = i + 1 < n ? tab[(v >> 6) & 63] : '=';
        *o++ = i + 2 < n ? tab[v & 63] : '=';
    }
    *o = '\0';
    free(buf);
    return out;
}

static zp_server *start(zp_error *err) {
    zp_server_config cfg;
    zp_server_config_init(&cfg);
    char data[300], keys[300], wit[300];
    snprintf(data, sizeof data, "%s/data", dir);
    snprintf(keys, sizeof keys, "%s/keys", dir);
    snprintf(wit, sizeof wit, "%s/witnesses", dir);
    zp_server *s = NULL;
    if (zp_server_config_set(&cfg, "listen", "none", "test", err) == ZP_OK &&
        zp_server_config_set(&cfg, "data_dir", data, "test", err) == ZP_OK &&
        zp_server_config_set(&cfg, "keys_dir", keys, "test", err) == ZP_OK &&
        zp_server_config_set(&cfg, "witness_dir", wit, "test", err) == ZP_OK &&
        zp_server_config_set(&cfg, "key", "bls=examples/merkle/bls12381/merkle.zkey", "test", err) == ZP_OK &&
        zp_server_config_set(&cfg, "token", token, "test", err) == ZP_OK &&
        zp_server_config_set(&cfg, "budget", "512M", "test", err) == ZP_OK &&
        zp_server_config_set(&cfg, "synth_workers", "2", "test", err) == ZP_OK &&
        zp_server_config_set(&cfg, "threads", "2", "test", err) == ZP_OK &&
        zp_server_config_set(&cfg, "shutdown_grace", "0", "test", err) == ZP_OK &&
        zp_server_config_set(&cfg, "log_level", "error", "test", err) == ZP_OK) {
        if (zp_server_start(&s, &cfg, err) != ZP_OK) s = NULL;
    }
    zp_server_config_free(&cfg);
    return s;
}

static void test_config(void) {
    zp_server_config cfg;
    zp_error err;
    zp_server_config_init(&cfg);
    CHECK(strcmp(cfg.listen, "127.0.0.1:8790") == 0 && cfg.max_partitions == 1024 && cfg.shutdown_grace == 30);
    CHECK(zp_server_config_set(&cfg, "budget", "1.5G", "t", &err) == ZP_OK && cfg.budget == 3ULL << 29);
    CHECK(zp_server_config_set(&cfg, "budget", "lots", "t", &err) == ZP_ERR_ARG);
    CHECK(zp_server_config_set(&cfg, "synth_workers", "0", "t", &err) == ZP_ERR_ARG);
    CHECK(strstr(err.message, "between 1 and 256") != NULL);
    CHECK(zp_server_config_set(&cfg, "colour", "blue", "t", &err) == ZP_ERR_ARG);
    CHECK(strstr(err.message, "unknown option") != NULL);
    CHECK(zp_server_config_set(&cfg, "key", "no-path", "t", &err) == ZP_ERR_ARG);
    char path[300];
    snprintf(path, sizeof path, "%s/zkpipe.conf", dir);
    FILE *f = fopen(path, "w");
    fputs("# a comment\nlisten 127.0.0.1:0   # trailing\n\nmax_request \"1M\"\nkey a=/x/a.zkey\nlog_level debug\n", f);
    fclose(f);
    CHECK(zp_server_config_load(&cfg, path, &err) == ZP_OK);
    CHECK(strcmp(cfg.listen, "127.0.0.1:0") == 0 && cfg.max_request == 1 << 20 && cfg.n_keys == 1 &&
          strcmp(cfg.keys[0].id, "a") == 0 && cfg.log_level == 2);
    f = fopen(path, "w");
    fputs("listen 1.2.3.4:5\nqueue -3\n", f);
    fclose(f);
    CHECK(zp_server_config_load(&cfg, path, &err) == ZP_ERR_ARG);
    CHECK_MSG(strstr(err.message, "zkpipe.conf:2") != NULL, "names the line: %s", err.message);
    zp_server_config_free(&cfg);
}

/* Tokens: never empty, never truncated, at most ZP_SERVER_TOKEN_MAX. */
static void test_config_token(void) {
    zp_server_config cfg;
    zp_error err;
    zp_server_config_init(&cfg);
    CHECK(cfg.token == NULL && cfg.connection_timeout == 30 && cfg.max_connections_per_ip == 0);
    CHECK(zp_server_config_set(&cfg, "token", "", "--token", &err) == ZP_ERR_ARG && cfg.token == NULL);
    CHECK_MSG(strstr(err.message, "empty") != NULL, "says why: %s", err.message);
    CHECK(zp_server_config_set(&cfg, "token", "a b", "--token", &err) == ZP_ERR_ARG);
    static char big[ZP_SERVER_TOKEN_MAX + 2];
    memset(big, 'k', ZP_SERVER_TOKEN_MAX + 1);
    CHECK(zp_server_config_set(&cfg, "token", big, "--token", &err) == ZP_ERR_ARG && cfg.token == NULL);
    CHECK_MSG(strstr(err.message, "4096") != NULL, "names the limit: %s", err.message);
    big[ZP_SERVER_TOKEN_MAX] = '\0';
    CHECK(zp_server_config_set(&cfg, "token", big, "--token", &err) == ZP_OK &&
          strlen(cfg.token) == ZP_SERVER_TOKEN_MAX);
    char path[300];
    snprintf(path, sizeof path, "%s/token", dir);
    const char *bodies[] = {"", " \n\t\r\n"};
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(path, "w");
        fputs(bodies[i], f);
        fclose(f);
        CHECK(zp_server_config_set(&cfg, "token_file", path, "t", &err) == ZP_ERR_ARG);
        CHECK(cfg.token != NULL && strlen(cfg.token) == ZP_SERVER_TOKEN_MAX); /* unchanged */
    }
    FILE *f = fopen(path, "w");
    for (int i = 0; i < 2000; i++) fputc('a' + i % 26, f);
    fputs("\r\n", f);
    fclose(f);
    CHECK(zp_server_config_set(&cfg, "token_file", path, "t", &err) == ZP_OK && strlen(cfg.token) == 2000);
    f = fopen(path, "w");
    fputs(big, f);
    fputs("z\n", f);
    fclose(f);
    CHECK(zp_server_config_set(&cfg, "token_file", path, "t", &err) == ZP_ERR_ARG && strlen(cfg.token) == 2000);
    /* a token set without the option parser is checked at start too */
    free(cfg.token);
    cfg.token = strdup("");
    zp_server *s = NULL;
    CHECK(zp_server_config_set(&cfg, "listen", "127.0.0.1:0", "t", &err) == ZP_OK);
    char data[300];
    snprintf(data, sizeof data, "%s/data_token", dir);
    CHECK(zp_server_config_set(&cfg, "data_dir", data, "t", &err) == ZP_OK);
    CHECK(zp_server_config_set(&cfg, "shutdown_grace", "0", "t", &err) == ZP_OK);
    CHECK(zp_server_config_set(&cfg, "budget", "64M", "t", &err) == ZP_OK);
    CHECK(zp_server_start(&s, &cfg, &err) != ZP_OK && s == NULL);
    CHECK_MSG(strstr(err.message, "token") != NULL, "names the token: %s", err.message);
    zp_server_config_free(&cfg);
}

/* The option table behind the daemon's config and every command's flags
 * (base/options.h): one argv parse into two tables, positionals kept in
 * order, the errors the commands print, the defaults and the help. */
typedef struct opts {
    size_t threads;
    uint64_t budget;
    long long prio;
    double wait;
    int quiet;
    const char *out;
    zp_option_list list;
} opts;

static const zp_option opt_table[] = {
    {"threads", 't', ZP_OPT_COUNT, offsetof(opts, threads), 0, 1024, NULL, "N", "threads", NULL},
    {"budget", 0, ZP_OPT_BYTES, offsetof(opts, budget), 1, UINT64_MAX, "1G", "SIZE", "memory", NULL},
    {"priority", 0, ZP_OPT_INT, offsetof(opts, prio), 0, 0, NULL, "N", "higher first", NULL},
    {"wait", 0, ZP_OPT_SECONDS, offsetof(opts, wait), 0, 100, NULL, "S", "seconds\nand a second line", NULL},
    {"witness", 0, ZP_OPT_LIST, offsetof(opts, list), 0, 0, NULL, "W", "witnesses", NULL},
};

static int parse_opts(opts *o, int *quiet_in_b, int *n, char **argv, int argc, zp_error *err) {
    static const zp_option b_table[] = {
        {"quiet", 'q', ZP_OPT_FLAG, 0, 0, 0, NULL, NULL, "quiet", NULL},
    };
    zp_option_table t[] = {{"options:", opt_table, sizeof opt_table / sizeof *opt_table, o},
                           {"more:", b_table, 1, quiet_in_b}};
    return zp_options_parse(t, 2, argc, argv, n, err);
}

static void test_options(void) {
    zp_error err = {0};
    const char *items[16];
    opts o = {.list = {items, 0}};
    int quiet = 0, n = -1;
    CHECK(zp_options_defaults(opt_table, 5, &o, &err) == ZP_OK && o.budget == 1ULL << 30);
    char *argv[] = {"cmd", "a",  "-t", "8",          "--budget", "8G",     "-",   "--witness", "w1",
                    "w2",  "-q", "b",  "--priority", "-3",       "--wait", "1.5", "--witness", "w3"};
    int argc = (int)(sizeof argv / sizeof *argv);
    zp_status st = parse_opts(&o, &quiet, &n, argv, argc, &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    CHECK(o.threads == 8 && o.budget == 8ULL << 30 && o.prio == -3 && o.wait == 1.5 && quiet == 1);
    CHECK(n == 3 && !strcmp(argv[1], "a") && !strcmp(argv[2], "-") && !strcmp(argv[3], "b"));
    CHECK(o.list.n == 3 && !strcmp(items[0], "w1") && !strcmp(items[1], "w2") && !strcmp(items[2], "w3"));
    /* --name=VALUE and -n=VALUE (snarkjs's spelling), a value holding '=' */
    {
        char *eq[] = {"cmd", "--threads=4", "-t=5", "--budget=2G", "--witness=a=b", "pos"};
        o.list.n = 0;
        st = parse_opts(&o, &quiet, &n, eq, 6, &err);
        CHECK_MSG(st == ZP_OK, "%s", err.message);
        CHECK(o.threads == 5 && o.budget == 2ULL << 30 && o.list.n == 1 && !strcmp(items[0], "a=b"));
        CHECK(n == 1 && !strcmp(eq[1], "pos"));
    }
    /* the errors name the option as it was spelled, and the value */
    struct {
        const char *args[3];
        const char *want;
    } bad[] = {
        {{"--frob"}, "unknown option '--frob'"},
        {{"--frob=1"}, "unknown option '--frob'"},
        {{"-q=1"}, "-q takes no value"},
        {{"--threads=x"}, "--threads needs a whole number, not 'x'"},
        {{"-x"}, "unknown option '-x'"},
        {{"--"}, "unknown option '--'"},
        {{"--threads"}, "--threads needs a value"},
        {{"-t", "lots"}, "-t (--threads) needs a whole number, not 'lots'"},
        {{"--threads", "-1"}, "--threads needs a whole number"},
        {{"--threads", "1025"}, "--threads must be between 0 and 1024, not 1025"},
        {{"--budget", "lots"}, "--budget needs a size such as 8G or 512M, not 'lots'"},
        {{"--budget", "0"}, "--budget must be between 1 and"},
        {{"--priority", "1x"}, "--priority needs an integer, not '1x'"},
        {{"--wait", "101"}, "--wait needs a number of seconds, not '101'"},
        {{"--wait", "nan"}, "--wait needs a number of seconds"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *args[4] = {"cmd"};
        int k = 1;
        for (int j = 0; j < 3 && bad[i].args[j]; j++) args[k++] = (char *)bad[i].args[j];
        o.list.n = 0;
        st = parse_opts(&o, &quiet, &n, args, k, &err);
        CHECK_MSG(st == ZP_ERR_ARG && strstr(err.message, bad[i].want), "%s: got '%s'", bad[i].want,
                  st == ZP_OK ? "ok" : err.message);
    }
    /* '-' and '_' name the same option; a config's "where" leads the message */
    const zp_option *w = zp_options_find(opt_table, 5, "wait");
    CHECK(zp_options_find(opt_table, 5, "budget") == &opt_table[1] && zp_options_find(opt_table, 5, "bud") == NULL);
    CHECK(zp_options_set(&o, w, "wait", "x", "file:3", &err) == ZP_ERR_ARG &&
          !strcmp(err.message, "file:3: wait needs a number of seconds, not 'x'"));
    /* help: every option, its value's name, continuation lines, defaults */
    char help[1024];
    size_t len = zp_options_help(help, sizeof help, opt_table, 5, ZP_OPT_HELP_FLAGS, 0);
    CHECK(len == strlen(help));
    CHECK_MSG(strstr(help, "  -t, --threads N") && strstr(help, "  --budget SIZE") && strstr(help, "(default 1G)") &&
                  strstr(help, "  --witness W ...") && strstr(help, "\n                   and a second line"),
              "%s", help);
    CHECK(zp_options_help(help, 8, opt_table, 5, ZP_OPT_HELP_FLAGS, 0) == len && strlen(help) == 7);
    len = zp_options_help(help, sizeof help, opt_table, 5, ZP_OPT_HELP_CONFIG, 0);
    CHECK_MSG(strstr(help, "  budget            size    memory; default 1G\n"), "%s", help);
    CHECK(zp_parse_size("1.5G") == 3ULL << 29 && zp_parse_size("512MiB") == 512ULL << 20 && zp_parse_size("8x") == 0 &&
          zp_parse_size("-1") == 0);
}

/* Waits for a job and checks every proof against the key's vk. */
static void check_done(zp_server *s, json_int_t id, const char *vk_path, size_t partitions) {
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%lld/proof", (long long)id);
    query q = {{"wait", NULL}, {"60", NULL}};
    json_t *o;
    CHECK_MSG(call(&o, s, "GET", path, NULL, &q, NULL) == 200, "job %lld done", (long long)id);
    json_t *proofs = json_object_get(o, "proofs");
    CHECK(json_array_size(proofs) == partitions);
    zp_groth16_vk vk;
    zp_error err;
    CHECK(zp_json_vk_read(&vk, vk_path, &err) == ZP_OK);
    for (size_t i = 0; i < json_array_size(proofs); i++) {
        json_t *p = json_array_get(proofs, i);
        char *pt = json_dumps(json_object_get(p, "proof"), 0), *ut = json_dumps(json_object_get(p, "public"), 0);
        zp_groth16_proof proof;
        uint64_t *pub = NULL;
        size_t np = 0;
        CHECK(pt && ut);
        CHECK(zp_json_proof_parse(&proof, pt, strlen(pt), "proof", vk.curve, &err) == ZP_OK);
        CHECK(zp_json_public_parse(&pub, &np, ut, strlen(ut), "public", vk.curve, &err) == ZP_OK);
        CHECK_MSG(np == vk.n_public && zp_groth16_verify(&vk, pub, &proof) == 1, "job %lld partition %zu verifies",
                  (long long)id, i);
        free(pub);
        free(pt);
        free(ut);
    }
    zp_groth16_vk_free(&vk);
    json_decref(o);
}

static json_int_t submit(zp_server *s, const char *body, int want) {
    json_t *o;
    int st = call(&o, s, "POST", "/v1/jobs", body, NULL, NULL);
    CHECK_MSG(st == want, "POST /v1/jobs: %d, wanted %d: %s", st, want,
              o ? json_string_value(json_object_get(json_object_get(o, "error"), "message")) : "");
    json_int_t id = json_integer_value(json_object_get(o, "id"));
    json_decref(o);
    return id;
}

static void test_api(void) {
    zp_error err;
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s/keys %s/witnesses/sub && cp examples/merkle/bn128/merkle.zkey %s/keys/bn.zkey && "
             "cp examples/merkle/bn128/w2.wtns %s/witnesses/sub/ && ln -s /etc/passwd %s/witnesses/escape.wtns",
             dir, dir, dir, dir, dir);
    CHECK(system(cmd) == 0);
    zp_server *s = start(&err);
    CHECK_MSG(s != NULL, "start: %s", err.message);
    if (s == NULL) return;
    char *w1 = b64("examples/merkle/bn128/w1.wtns"), *bls = b64("examples/merkle/bls12381/w1.wtns");
    size_t cap = strlen(w1) * 2 + 512;
    char *body = malloc(cap);

    /* two partitions, uploaded and by path; the same request id twice */
    snprintf(body, cap,
             "{\"key\":\"bn\",\"request_id\":\"one\",\"witnesses\":[{\"data\":\"%s\"},{\"path\":\"sub/w2.wtns\"}]}",
             w1);
    json_int_t id1 = submit(s, body, 201);
    CHECK(submit(s, body, 200) == id1);
    check_done(s, id1, "examples/merkle/bn128/vk.json", 2);
    snprintf(body, cap, "{\"key\":\"bls\",\"priority\":2,\"witnesses\":[{\"data\":\"%s\"}]}", bls);
    json_int_t id2 = submit(s, body, 201);
    check_done(s, id2, "examples/merkle/bls12381/vk.json", 1);
    snprintf(body, cap, "{\"key\":\"bn\",\"request_id\":\"one\",\"witnesses\":[{\"data\":\"%s\"}]}", w1);
    CHECK(submit(s, body, 409) == 0);
    /* same key and count, the witnesses swapped: other proofs, so 409 */
    snprintf(body, cap,
             "{\"key\":\"bn\",\"request_id\":\"one\",\"witnesses\":[{\"path\":\"sub/w2.wtns\"},{\"data\":\"%s\"}]}",
             w1);
    CHECK(submit(s, body, 409) == 0);

    /* the body's witnesses decoded in place (jobbody.c): an escaped '/'
     * ("\/", as some encoders write) is the same witness, so the same job */
    size_t esc_cap = 2 * strlen(w1) + 256, k = 0;
    char *esc = malloc(esc_cap);
    k += (size_t)snprintf(esc, esc_cap, "{\"key\":\"bn\",\"request_id\":\"one\",\"witnesses\":[{\"data\":\"");
    for (const char *c = w1; *c; c++) {
        if (*c == '/') esc[k++] = '\\';
        esc[k++] = *c;
    }
    snprintf(esc + k, esc_cap - k, "\"},{\"path\":\"sub/w2.wtns\"}]}");
    CHECK(submit(s, esc, 200) == id1);
    /* a long string that is not base64, and one that is not a witness's */
    memset(esc, '!', 5000);
    esc[5000] = '\0';
    snprintf(body, cap, "{\"key\":\"bn\",\"witnesses\":[{\"data\":\"%s\"}]}", esc);
    CHECK(submit(s, body, 400) == 0);
    memset(esc, 'A', 70000);
    esc[70000] = '\0';
    snprintf(body, cap, "{\"key\":\"bn\",\"request_id\":\"%s\",\"witnesses\":[{\"data\":\"%s\"}]}", esc, w1);
    CHECK(submit(s, body, 400) == 0);
    free(esc);
    /* a reference string is not a way in: it is a 'data' like any other */
    CHECK(submit(s, "{\"key\":\"bn\",\"witnesses\":[{\"data\":\"zp-intake:0000000000000000:0\"}]}", 400) == 0);

    json_t *o;
    /* the witness read from witness_dir went through an intake buffer:
     * counted at its peak, none left */
    CHECK(call(&o, s, "GET", "/v1/status", NULL, NULL, NULL) == 200);
    json_t *intake = json_object_get(json_object_get(o, "classes"), "intake");
    CHECK(json_integer_value(json_object_get(intake, "count")) == 0 &&
          json_integer_value(json_object_get(intake, "bytes")) == 0 &&
          json_integer_value(json_object_get(intake, "peak")) >= 99532);
    json_decref(o);
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%lld", (long long)id1);
    CHECK(call(&o, s, "GET", path, NULL, NULL, NULL) == 200);
    CHECK(strcmp(json_string_value(json_object_get(o, "state")), "done") == 0);
    CHECK(json_array_size(json_object_get(o, "timings")) == 2);
    CHECK(json_real_value(json_object_get(json_array_get(json_object_get(o, "timings"), 1), "prove")) > 0);
    json_decref(o);
    query lim = {{"limit", NULL}, {"1", NULL}};
    CHECK(call(&o, s, "GET", "/v1/jobs", NULL, &lim, NULL) == 200 && json_array_size(json_object_get(o, "jobs")) == 1);
    json_decref(o);

    /* status, history, metrics, keys */
    CHECK(call(&o, s, "GET", "/v1/status", NULL, NULL, NULL) == 200);
    CHECK(json_integer_value(json_object_get(json_object_get(o, "jobs"), "done")) == 2);
    CHECK(json_integer_value(json_object_get(o, "proofs")) == 3);
    CHECK(json_integer_value(json_object_get(o, "budget")) == 512 << 20);
    CHECK(json_object_get(json_object_get(o, "classes"), "abc") &&
          json_object_get(json_object_get(o, "stages"), "prove"));
    json_decref(o);
    sleep(1);
    CHECK(call(&o, s, "GET", "/v1/status/history", NULL, NULL, NULL) == 200);
    CHECK(json_array_size(json_object_get(o, "samples")) >= 1);
    json_decref(o);
    zp_request req = {"GET", "/metrics", lookup, NULL, "Bearer s3cret", NULL, 0, NULL};
    zp_response resp;
    zp_server_handle(s, &req, &resp);
    CHECK(resp.status == 200 && strstr(resp.body, "zkpipe_jobs_total{outcome=\"done\"} 2") &&
          strstr(resp.body, "zkpipe_stage_seconds_bucket{stage=\"prove\",le=\"+Inf\"} 3") &&
          strstr(resp.body, "zkpipe_buffer_bytes{class=\"key\"}") &&
          strstr(resp.body, "zkpipe_buffer_bytes{class=\"intake\"} 0"));
    zp_response_free(&resp);
    CHECK(call(&o, s, "GET", "/v1/keys", NULL, NULL, NULL) == 200 && json_array_size(json_object_get(o, "keys")) == 2);
    json_decref(o);
    CHECK(call(&o, s, "POST", "/v1/keys/bn", NULL, NULL, NULL) == 200 && json_is_true(json_object_get(o, "loaded")));
    json_decref(o);
    CHECK(call(&o, s, "DELETE", "/v1/keys/bn", NULL, NULL, NULL) == 200);
    json_decref(o);
    CHECK(call(NULL, s, "POST", "/v1/keys/nope", NULL, NULL, NULL) == 404);

    /* errors */
    CHECK(call(NULL, s, "GET", "/v1/status", NULL, NULL, "wrong") == 401);
    CHECK(call(NULL, s, "GET", "/", NULL, NULL, "wrong") == 200); /* the dashboard page itself is public */
    CHECK(call(NULL, s, "POST", "/v1/jobs", "{not json", NULL, NULL) == 400);
    CHECK(call(NULL, s, "POST", "/v1/jobs", "{\"witnesses\":[]}", NULL, NULL) == 400);
    CHECK(submit(s, "{\"key\":\"nope\",\"witnesses\":[{\"path\":\"sub/w2.wtns\"}]}", 404) == 0);
    CHECK(submit(s, "{\"key\":\"bn\",\"witnesses\":[{\"path\":\"../keys/bn.zkey\"}]}", 403) == 0);
    CHECK(submit(s, "{\"key\":\"bn\",\"witnesses\":[{\"path\":\"escape.wtns\"}]}", 403) == 0);
    CHECK(submit(s, "{\"key\":\"bn\",\"witnesses\":[{\"path\":\"missing.wtns\"}]}", 404) == 0);
    CHECK(submit(s, "{\"key\":\"bn\",\"witnesses\":[{\"data\":\"@@@\"}]}", 400) == 0);
    snprintf(body, cap, "{\"key\":\"bn\",\"witnesses\":[{\"data\":\"%s\"}]}", bls);
    CHECK(submit(s, body, 422) == 0); /* the other curve's witness */
    CHECK(call(NULL, s, "GET", "/v1/jobs/999", NULL, NULL, NULL) == 404);
    CHECK(call(NULL, s, "GET", "/v1/jobs/abc", NULL, NULL, NULL) == 404);
    CHECK(call(NULL, s, "PUT", "/v1/jobs", NULL, NULL, NULL) == 405);
    CHECK(call(&o, s, "GET", "/v1/nothing", NULL, NULL, NULL) == 404);
    CHECK(json_string_value(json_object_get(json_object_get(o, "error"), "message")) != NULL);
    json_decref(o);

    /* a queue of jobs, one cancelled, then a stop before they finish: the
     * restart resumes them and each ends exactly once */
    snprintf(body, cap, "{\"key\":\"bn\",\"witnesses\":[{\"data\":\"%s\"},{\"data\":\"%s\"}]}", w1, w1);
    json_int_t ids[6];
    for (int i = 0; i < 6; i++) ids[i] = submit(s, body, 201);
    snprintf(path, sizeof path, "/v1/jobs/%lld", (long long)ids[5]);
    CHECK(call(NULL, s, "DELETE", path, NULL, NULL, NULL) == 200);
    zp_server_stop(s);
    s = start(&err);
    CHECK_MSG(s != NULL, "restart: %s", err.message);
    if (s) {
        for (int i = 0; i < 5; i++) check_done(s, ids[i], "examples/merkle/bn128/vk.json", 2);
        query all = {{"limit", NULL}, {"1000", NULL}};
        CHECK(call(&o, s, "GET", "/v1/jobs", NULL, &all, NULL) == 200);
        size_t n = json_array_size(json_object_get(o, "jobs"));
        CHECK_MSG(n == 8, "8 jobs in the store, not %zu", n);
        json_decref(o);
        snprintf(path, sizeof path, "/v1/jobs/%lld/proof", (long long)ids[5]);
        int st = call(&o, s, "GET", path, NULL, NULL, NULL);
        /* cancelled, or done when it finished before the cancel arrived */
        CHECK_MSG(st == 409 || st == 200, "cancelled job: %d", st);
        json_decref(o);
        CHECK(call(&o, s, "GET", "/v1/status", NULL, NULL, NULL) == 200);
        json_t *jobs = json_object_get(o, "jobs");
        CHECK(json_integer_value(json_object_get(jobs, "queued")) == 0 &&
              json_integer_value(json_object_get(jobs, "running")) == 0);
        json_decref(o);
        zp_server_stop(s);
    }
    free(body);
    free(w1);
    free(bls);
}

/* Unfinished jobs whose rows were damaged by hand: the daemon starts, each
 * damaged job fails alone with a reason naming the damage, the good ones
 * are resumed and proved (issue 14, item 12). */
static void test_damaged_rows(void) {
    zp_error err;
    char db[300], cmd[1200];
    snprintf(db, sizeof db, "%s/data/zkpipe.db", dir);
    /* in the spool: a row naming a file anywhere else is refused (issue 31) */
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s/data/spool/held && for i in 0 1 2 3 4 5 6 7 8; do cp examples/merkle/bn128/w1.wtns "
             "%s/data/spool/held/w$i.wtns; done",
             dir, dir);
    CHECK(system(cmd) == 0);
    zp_store *st = NULL;
    CHECK_MSG(zp_store_open(&st, db, &err) == ZP_OK, "%s", err.message);
    if (st == NULL) return;
    int64_t ids[3];
    for (int j = 0; j < 3; j++) {
        char p[3][320];
        const char *w[3] = {p[0], p[1], p[2]};
        for (int i = 0; i < 3; i++) snprintf(p[i], sizeof p[i], "%s/data/spool/held/w%d.wtns", dir, 3 * j + i);
        int existing;
        CHECK(zp_store_add_job(&ids[j], &existing, st, NULL, NULL, "bn", NULL, NULL, 0, 3, w, &err) == ZP_OK);
    }
    zp_store_close(st);
    sqlite3 *h;
    snprintf(cmd, sizeof cmd,
             "DELETE FROM partitions WHERE job_id = %lld AND idx = 1;"
             "PRAGMA ignore_check_constraints = ON; UPDATE jobs SET state = 'garbage' WHERE id = %lld;",
             (long long)ids[0], (long long)ids[2]);
    CHECK(sqlite3_open(db, &h) == SQLITE_OK && sqlite3_exec(h, cmd, NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(h);

    zp_server *s = start(&err);
    CHECK_MSG(s != NULL, "the daemon starts with damaged rows: %s", err.message);
    if (s == NULL) return;
    check_done(s, ids[1], "examples/merkle/bn128/vk.json", 3);
    for (int j = 0; j < 3; j += 2) {
        json_t *o;
        char path[64];
        snprintf(path, sizeof path, "/v1/jobs/%lld", (long long)ids[j]);
        CHECK(call(&o, s, "GET", path, NULL, NULL, NULL) == 200);
        const char *state = json_string_value(json_object_get(o, "state"));
        const char *e = json_string_value(json_object_get(o, "error"));
        CHECK_MSG(state && !strcmp(state, "failed") && e && strstr(e, "damaged") &&
                      strstr(e, j == 0 ? "partition 2 where partition 1" : "garbage"),
                  "job %lld: %s: %s", (long long)ids[j], state ? state : "?", e ? e : "no error");
        if (e) printf("test_server: (expected) job %lld: %s\n", (long long)ids[j], e);
        json_decref(o);
    }
    zp_server_stop(s);
}

int main(void) {
    zp_test_init("test_server");
    if (mkdtemp(dir) == NULL) return 1;
    test_config();
    test_config_token();
    test_options();
    test_api();
    test_damaged_rows();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return zp_test_done();
}
