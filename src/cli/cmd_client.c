/* zkpipe submit, status, await, cancel, keys: clients of a running daemon
 * (docs/daemon.md), over HTTP with libcurl, JSON with jansson.
 *
 * Exit statuses follow the rest of the command: 0 success, 2 bad usage,
 * 3 the daemon refused the request as bad input (a 4xx answer) or the job
 * failed, 4 anything else: the daemon cannot be reached, answered 5xx, the
 * job was cancelled, or the wait timed out. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/file.h"
#include "cli/answer.h"
#include "cli/cli.h"
#include "cli/client.h"
#include "io/json.h"
#include "witness/input.h"

/* ---- await (also submit --wait) ---- */

static int write_json(client *c, const char *path, json_t *value) {
    char *text = json_dumps(value, JSON_INDENT(1) | JSON_ENCODE_ANY);
    zp_error err;
    if (text == NULL) {
        fprintf(stderr, "zkpipe %s: %s: out of memory\n", c->cmd, path);
        return ZP_EXIT_FAILURE;
    }
    if (zp_json_text_write(path, text, &err) != ZP_OK) {
        fprintf(stderr, "zkpipe %s: %s\n", c->cmd, err.message);
        return ZP_EXIT_FAILURE;
    }
    return 0;
}

/* Writes DIR/proof_<i>.json and DIR/public_<i>.json for each partition of a
 * done job's answer, as zkpipe run does. */
static int write_proofs(client *c, json_t *root, const char *out, FILE *report) {
    json_t *proofs = json_object_get(root, "proofs");
    const char *why;
    if (answer_check_proofs(root, &why) != 0) {
        fprintf(stderr, "zkpipe %s: %s\n", c->cmd, why);
        return ZP_EXIT_FAILURE;
    }
    size_t len = strlen(out) + 48, n = json_array_size(proofs);
    char *path = malloc(len);
    if (path == NULL) return ZP_EXIT_FAILURE;
    /* mkdir -p: every prefix that ends before a '/', then the whole. */
    strcpy(path, out);
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != '\0') continue;
        char end = *p;
        *p = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "zkpipe %s: cannot create %s: %s\n", c->cmd, path, strerror(errno));
            free(path);
            return ZP_EXIT_FAILURE;
        }
        *p = end;
        if (end == '\0') break;
    }
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++) {
        json_t *p = json_array_get(proofs, k);
        json_t *proof = json_object_get(p, "proof"), *pub = json_object_get(p, "public");
        size_t i = answer_proof_partition(p, k);
        snprintf(path, len, "%s/proof_%zu.json", out, i);
        rc = write_json(c, path, proof);
        snprintf(path, len, "%s/public_%zu.json", out, i);
        if (rc == 0) rc = write_json(c, path, pub);
    }
    free(path);
    if (rc == 0) fprintf(report, "wrote %zu proofs to %s\n", n, out);
    return rc;
}

/* Long-polls the job's proof until it ends or `limit` seconds pass (0:
 * forever), then writes the proofs. */
static int await_job(client *c, unsigned long long id, const char *out, double limit, FILE *report) {
    double t0 = zp_clock_now();
    char path[128];
    buffer resp = {0};
    int rc = ZP_EXIT_FAILURE, tty = isatty(2);
    for (;;) {
        double left = limit > 0 ? limit - (zp_clock_now() - t0) : 600;
        if (left < 0) left = 0;
        int wait = left < 600 ? (int)left : 600;
        if (wait < left && wait < 600) wait++; /* round up: never poll with wait=0 too early */
        snprintf(path, sizeof path, "/v1/jobs/%llu/proof?wait=%d", id, wait);
        long status = 0;
        /* The request may take the whole wait, plus the transfer of the proofs. */
        double req_timeout = c->timeout > 0 ? wait + c->timeout : 0;
        rc = client_request(c, "GET", path, NULL, 0, req_timeout, &status, &resp);
        if (rc != 0) break;
        json_t *root = json_loadb(resp.data, resp.len, 0, NULL);
        if (status == 200) {
            rc = root ? write_proofs(c, root, out, report) : client_answer_error(c, status, &resp);
            json_decref(root);
            break;
        }
        if (status == 202) {
            if (tty) {
                fprintf(stderr, "\rjob %llu: ", id);
                answer_put(stderr, answer_str(root, "state", "running"), 0);
                fprintf(stderr, ", %lld/%lld partitions done\033[K",
                        (long long)json_integer_value(json_object_get(root, "done")),
                        (long long)json_integer_value(json_object_get(root, "partitions")));
            }
            json_decref(root);
            if (limit > 0 && zp_clock_now() - t0 >= limit) {
                if (tty) fputc('\n', stderr);
                fprintf(stderr, "zkpipe %s: job %llu did not end within %g s\n", c->cmd, id, limit);
                rc = ZP_EXIT_FAILURE;
                break;
            }
            continue;
        }
        if (tty) fputc('\n', stderr);
        const char *code = json_string_value(json_object_get(json_object_get(root, "error"), "code"));
        const char *msg = json_string_value(json_object_get(json_object_get(root, "error"), "message"));
        if (status == 409 && code && (strcmp(code, "failed") == 0 || strcmp(code, "cancelled") == 0)) {
            fprintf(stderr, "zkpipe %s: job %llu %s: ", c->cmd, id, code);
            answer_put(stderr, msg ? msg : "(no reason given)", 0);
            fputc('\n', stderr);
            rc = code[0] == 'f' ? ZP_EXIT_INPUT : ZP_EXIT_FAILURE;
        } else {
            rc = client_answer_error(c, status, &resp);
        }
        json_decref(root);
        break;
    }
    free(resp.data);
    return rc;
}

static const char await_help[] =
    "usage: zkpipe await JOB --out DIR [--timeout S] [common options]\n"
    "\n"
    "Waits for job JOB to end (long-polling GET /v1/jobs/JOB/proof), then\n"
    "writes DIR/proof_<i>.json and DIR/public_<i>.json for each partition i,\n"
    "as 'zkpipe run' does: snarkjs's proof.json and public.json, ready for\n"
    "'snarkjs groth16 verify' or 'zkpipe verify'.\n"
    "\n"
    "Exits 0 when the job is done and its proofs are written, 3 when the job\n"
    "failed (the reason is printed), 4 when it was cancelled or the wait\n"
    "timed out (the job goes on) or the daemon cannot be reached.\n"
    "\n";

typedef struct await_args {
    const char *out;
} await_args;

static const zp_option await_options[] = {
    {"out", 0, ZP_OPT_ARG, offsetof(await_args, out), 0, 0, NULL, "DIR",
     "where the proofs go (created with its parents if missing)", NULL},
};
/* --timeout here is the whole wait (into the client, as the common one) */
static const zp_option await_timeout[] = {
    {"timeout", 0, ZP_OPT_CUSTOM, 0, 0, 0, NULL, "S", "give up after S seconds (default: wait forever)",
     client_set_timeout},
};

int zp_cmd_await(int argc, char **argv) {
    client c;
    await_args args = {0};
    client_init(&c, "await");
    zp_option_table tables[] = {
        {"options:", await_options, 1, &args}, {"", await_timeout, 1, &c}, client_common_options(&c, 0)};
    zp_cli_command cmd = {"await", await_help, tables, 3, client_exit_help};
    if (zp_cli_wants_help(argc, argv)) return zp_cli_help(&cmd);
    int n = zp_cli_parse(&cmd, argc, argv);
    if (n < 0 || client_resolve(&c)) return ZP_EXIT_USAGE;
    /* each request gets the wait plus 300 s */
    double limit = c.timeout_set ? c.timeout : 0;
    c.timeout = 300;
    if (n > 1) return zp_cli_usage_error(&cmd, "unexpected argument '%s'", argv[2]);
    const char *job = n == 1 ? argv[1] : NULL, *out = args.out;
    if (job == NULL || out == NULL) return zp_cli_usage_error(&cmd, "a JOB and --out DIR are needed");
    unsigned long long id;
    if (client_parse_job(&c, job, &id)) return ZP_EXIT_USAGE;
    if (client_open(&c)) return ZP_EXIT_FAILURE;
    int rc = await_job(&c, id, out, limit, stdout);
    client_close(&c);
    return rc;
}

/* ---- submit ---- */

static const char submit_help[] =
    "usage: zkpipe submit --key ID [options] W1.wtns [W2.wtns ...]\n"
    "       zkpipe submit --key ID --inputs [options] input1.json [input2.json ...]\n"
    "\n"
    "Submits one job to the daemon: key ID (the daemon's key id, see 'zkpipe\n"
    "keys') and one partition per witness. Prints the job id alone on stdout,\n"
    "so scripts can capture it: id=$(zkpipe submit --key k w.wtns).\n"
    "\n"
    "Witnesses are uploaded as base64 in the request's JSON body. The daemon\n"
    "checks each (curve, wire count) and stores it durably before it answers:\n"
    "once an id is printed, the job survives a crash of the daemon.\n"
    "With --inputs the files are the circuit's inputs instead (input.json, one\n"
    "per partition, as snarkjs reads them) for a key that has its circuit:\n"
    "the daemon computes the witnesses.\n"
    "With --wait, exits as 'zkpipe await' does (3 failed, 4 cancelled or timed out).\n"
    "\n";

typedef struct submit_args {
    const char *key, *request_id, *out;
    long long priority;
    double wait; /* -1: not given */
    int by_path, inputs;
} submit_args;

static const zp_option submit_options[] = {
    {"key", 0, ZP_OPT_ARG, offsetof(submit_args, key), 0, 0, NULL, "ID", "the key to prove with (required)", NULL},
    {"priority", 0, ZP_OPT_INT, offsetof(submit_args, priority), 0, 0, NULL, "N", "higher runs first (default 0)",
     NULL},
    {"request-id", 0, ZP_OPT_ARG, offsetof(submit_args, request_id), 0, 0, NULL, "X",
     "an idempotency id: submitting again with the same X\nreturns the job already made for it (safe to retry)", NULL},
    {"path", 0, ZP_OPT_FLAG, offsetof(submit_args, by_path), 0, 0, NULL, NULL,
     "send the witnesses as paths on the daemon's machine,\nrelative to its witness_dir, instead of uploading them",
     NULL},
    {"inputs", 0, ZP_OPT_FLAG, offsetof(submit_args, inputs), 0, 0, NULL, NULL,
     "the files are the circuit's input.json, one per partition\n(the key needs its circuit: ID.wasm in keys_dir)",
     NULL},
    {"wait", 0, ZP_OPT_SECONDS, offsetof(submit_args, wait), 0, 0, NULL, "S",
     "with --out: then wait up to S seconds for the job\n(0: forever) and write its proofs as 'zkpipe await' does",
     NULL},
    {"out", 0, ZP_OPT_ARG, offsetof(submit_args, out), 0, 0, NULL, "DIR", "with --wait: where the proofs go", NULL},
};

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* The base64 (with padding) of a whole file; NULL with a message on error. */
static char *file_base64(client *c, const char *path, size_t *out_len) {
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (f == NULL || fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fprintf(stderr, "zkpipe %s: %s: cannot open: %s\n", c->cmd, path, f ? "not a regular file" : strerror(errno));
        if (f) fclose(f);
        return NULL;
    }
    size_t n = (size_t)st.st_size;
    unsigned char *raw = malloc(n ? n : 1);
    char *enc = malloc(4 * ((n + 2) / 3) + 1);
    if (raw == NULL || enc == NULL || fread(raw, 1, n, f) != n) {
        fprintf(stderr, "zkpipe %s: %s: %s\n", c->cmd, path, raw && enc ? "read error" : "out of memory");
        fclose(f);
        free(raw);
        free(enc);
        return NULL;
    }
    fclose(f);
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v =
            (unsigned)raw[i] << 16 | (i + 1 < n ? (unsigned)raw[i + 1] << 8 : 0) | (i + 2 < n ? raw[i + 2] : 0);
        enc[o++] = b64[v >> 18 & 63];
        enc[o++] = b64[v >> 12 & 63];
        enc[o++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
        enc[o++] = i + 2 < n ? b64[v & 63] : '=';
    }
    enc[o] = '\0';
    free(raw);
    *out_len = o;
    return enc;
}

int zp_cmd_submit(int argc, char **argv) {
    client c;
    submit_args args = {.wait = -1};
    client_init(&c, "submit");
    zp_option_table tables[] = {{"options:", submit_options, sizeof submit_options / sizeof *submit_options, &args},
                                client_common_options(&c, 1)};
    zp_cli_command cmd = {"submit", submit_help, tables, 2, client_exit_help};
    if (zp_cli_wants_help(argc, argv)) return zp_cli_help(&cmd);
    int n = zp_cli_parse(&cmd, argc, argv);
    if (n < 0 || client_resolve(&c)) return ZP_EXIT_USAGE;
    const char *key = args.key, *request_id = args.request_id, *out = args.out;
    long long priority = args.priority;
    double wait = args.wait;
    int by_path = args.by_path, inputs = args.inputs;
    const char *const *witnesses = (const char *const *)argv + 1;
    size_t count = (size_t)n;
    int rc = ZP_EXIT_USAGE;
    if (key == NULL || count == 0) {
        rc = zp_cli_usage_error(&cmd, "--key and at least one witness are needed");
        goto done;
    }
    if (by_path && inputs) {
        rc = zp_cli_usage_error(&cmd, "--path and --inputs do not go together");
        goto done;
    }
    if ((wait >= 0) != (out != NULL)) {
        rc = zp_cli_usage_error(&cmd, "--wait and --out go together");
        goto done;
    }
    /* json_pack fails (NULL) on strings that are not UTF-8. */
    json_t *body = json_pack("{s:s, s:I}", "key", key, "priority", (json_int_t)priority);
    json_t *list = json_array();
    rc = body == NULL || list == NULL || json_object_set_new(body, inputs ? "inputs" : "witnesses", list) != 0 ||
                 (request_id && json_object_set_new(body, "request_id", json_string(request_id)) != 0)
             ? ZP_EXIT_USAGE
             : 0;
    if (rc) fprintf(stderr, "zkpipe submit: --key and --request-id must be UTF-8 text\n");
    if (body == NULL) json_decref(list);
    for (size_t i = 0; i < count && rc == 0 && inputs; i++) {
        json_error_t jerr;
        zp_error ferr;
        int fd = -1;
        uint64_t size = 0;
        if (zp_file_open_regular(&fd, &size, witnesses[i], &ferr) != ZP_OK || size > ZP_WITNESS_INPUT_MAX_BYTES) {
            fprintf(stderr, "zkpipe submit: %s\n", fd < 0 ? ferr.message : "an input.json larger than 64 MiB");
            if (fd >= 0) close(fd);
            rc = fd < 0 ? ZP_EXIT_FAILURE : ZP_EXIT_INPUT;
            break;
        }
        json_t *in = json_loadfd(fd, 0, &jerr);
        close(fd);
        if (in == NULL || !json_is_object(in)) {
            fprintf(stderr, "zkpipe submit: %s: not an input.json (a JSON object of input signals): %s\n", witnesses[i],
                    in ? "not an object" : jerr.text);
            json_decref(in);
            rc = ZP_EXIT_INPUT;
        } else {
            json_array_append_new(list, in);
        }
    }
    for (size_t i = 0; i < count && rc == 0 && !inputs; i++) {
        size_t len = 0;
        char *enc = by_path ? NULL : file_base64(&c, witnesses[i], &len);
        if (!by_path && enc == NULL) {
            rc = ZP_EXIT_FAILURE;
            break;
        }
        json_t *w = by_path ? json_pack("{s:s}", "path", witnesses[i]) : json_pack("{s:s%}", "data", enc, len);
        free(enc);
        if (json_array_append_new(list, w) != 0) {
            fprintf(stderr, "zkpipe submit: %s: a witness path must be UTF-8 text\n", witnesses[i]);
            rc = ZP_EXIT_USAGE;
        }
    }
    char *text = rc == 0 ? json_dumps(body, JSON_COMPACT) : NULL;
    json_decref(body);
    if (rc == 0 && text == NULL) {
        fprintf(stderr, "zkpipe submit: out of memory\n");
        rc = ZP_EXIT_FAILURE;
    }
    if (rc != 0 || client_open(&c)) {
        free(text);
        rc = rc ? rc : ZP_EXIT_FAILURE;
        goto done;
    }
    buffer resp = {0};
    long status = 0;
    rc = client_request(&c, "POST", "/v1/jobs", text, strlen(text), 0, &status, &resp);
    free(text);
    if (rc == 0 && status != 200 && status != 201) rc = client_answer_error(&c, status, &resp);
    json_t *root = rc == 0 ? client_answer_json(&c, &resp) : NULL;
    unsigned long long id = answer_job_id(root);
    if (rc == 0 && root == NULL) {
        rc = ZP_EXIT_FAILURE;
    } else if (rc == 0 && id == 0) {
        fprintf(stderr, "zkpipe submit: the daemon's answer has no job id (a positive integer): ");
        answer_put(stderr, resp.len > 200 ? "(long answer)" : resp.data, 0);
        fputc('\n', stderr);
        rc = ZP_EXIT_FAILURE;
    }
    if (rc == 0) {
        printf("%llu\n", id);
        fflush(stdout);
        if (out) rc = await_job(&c, id, out, wait, stderr);
    }
    json_decref(root);
    free(resp.data);
    client_close(&c);
done:
    return rc;
}

/* ---- status ---- */

static const char status_help[] =
    "usage: zkpipe status [JOB] [--json] [common options]\n"
    "\n"
    "Without JOB: the daemon's state (GET /v1/status): memory budget,\n"
    "reserved and tracked bytes, RSS, partitions and bytes in each pipeline\n"
    "stage, buffers per class, workers, and jobs by state.\n"
    "With JOB: that job's state, progress and per-partition stage timings\n"
    "(GET /v1/jobs/JOB).\n"
    "\n";

int zp_cmd_status(int argc, char **argv) {
    client c;
    client_init(&c, "status");
    zp_option_table tables[] = {client_common_options(&c, 1)};
    zp_cli_command cmd = {"status", status_help, tables, 1, client_exit_help};
    if (zp_cli_wants_help(argc, argv)) return zp_cli_help(&cmd);
    int n = zp_cli_parse(&cmd, argc, argv);
    if (n < 0 || client_resolve(&c)) return ZP_EXIT_USAGE;
    if (n > 1) return zp_cli_usage_error(&cmd, "unexpected argument '%s'", argv[n]);
    unsigned long long id = 0;
    if (n == 1 && client_parse_job(&c, argv[1], &id)) return ZP_EXIT_USAGE;
    char path[64];
    if (id) {
        snprintf(path, sizeof path, "/v1/jobs/%llu", id);
    } else {
        snprintf(path, sizeof path, "/v1/status");
    }
    if (client_open(&c)) return ZP_EXIT_FAILURE;
    json_t *root;
    int rc = client_call(&c, "GET", path, &root);
    if (rc == 0 && root) {
        if (id) {
            answer_print_job(stdout, root);
        } else {
            answer_print_status(stdout, root);
        }
    }
    json_decref(root);
    client_close(&c);
    return rc;
}

/* ---- cancel ---- */

static const char cancel_help[] =
    "usage: zkpipe cancel JOB [--json] [common options]\n"
    "\n"
    "Cancels a queued or running job (DELETE /v1/jobs/JOB): partitions not\n"
    "started are dropped, running ones are stopped as their stages return.\n"
    "A job that already ended is left as it is. Prints the job's state.\n"
    "\n";

int zp_cmd_cancel(int argc, char **argv) {
    client c;
    client_init(&c, "cancel");
    zp_option_table tables[] = {client_common_options(&c, 1)};
    zp_cli_command cmd = {"cancel", cancel_help, tables, 1, client_exit_help};
    if (zp_cli_wants_help(argc, argv)) return zp_cli_help(&cmd);
    int n = zp_cli_parse(&cmd, argc, argv);
    if (n < 0 || client_resolve(&c)) return ZP_EXIT_USAGE;
    if (n != 1) return zp_cli_usage_error(&cmd, "one JOB is needed");
    unsigned long long id;
    if (client_parse_job(&c, argv[1], &id)) return ZP_EXIT_USAGE;
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%llu", id);
    if (client_open(&c)) return ZP_EXIT_FAILURE;
    json_t *root;
    int rc = client_call(&c, "DELETE", path, &root);
    if (rc == 0 && root) {
        printf("job %llu: ", id);
        answer_put(stdout, answer_str(root, "state", "?"), 0);
        putchar('\n');
    }
    json_decref(root);
    client_close(&c);
    return rc;
}

/* ---- keys ---- */

static const char keys_help[] =
    "usage: zkpipe keys [list | load ID | evict ID] [--json] [common options]\n"
    "\n"
    "  list       (the default) every key the daemon knows: id, curve, wires,\n"
    "             public signals, domain, whether it is loaded, partitions\n"
    "             using it and its memory footprint\n"
    "  load ID    load key ID into memory now (fails with 507, exit 4, when it\n"
    "             does not fit the budget now)\n"
    "  evict ID   drop key ID from memory (fails with 409, exit 3, while\n"
    "             partitions use it)\n"
    "\n";

int zp_cmd_keys(int argc, char **argv) {
    client c;
    client_init(&c, "keys");
    zp_option_table tables[] = {client_common_options(&c, 1)};
    zp_cli_command cmd = {"keys", keys_help, tables, 1, client_exit_help};
    if (zp_cli_wants_help(argc, argv)) return zp_cli_help(&cmd);
    int n = zp_cli_parse(&cmd, argc, argv);
    if (n < 0 || client_resolve(&c)) return ZP_EXIT_USAGE;
    n++; /* as argc: argv[0] is the command */
    const char *verb = n > 1 ? argv[1] : "list";
    const char *method;
    if (strcmp(verb, "list") == 0 && n <= 2) {
        method = "GET";
    } else if (strcmp(verb, "load") == 0 && n == 3) {
        method = "POST";
    } else if (strcmp(verb, "evict") == 0 && n == 3) {
        method = "DELETE";
    } else {
        return zp_cli_usage_error(&cmd, "expected 'list', 'load ID' or 'evict ID', not '%s ...'", verb);
    }
    if (client_open(&c)) return ZP_EXIT_FAILURE;
    char path[1024];
    if (n == 3) {
        char *esc = client_escape(&c, argv[2]);
        snprintf(path, sizeof path, "/v1/keys/%s", esc ? esc : "");
        free(esc);
    } else {
        snprintf(path, sizeof path, "/v1/keys");
    }
    json_t *root;
    int rc = client_call(&c, method, path, &root);
    if (rc == 0 && root) {
        if (n == 3) {
            answer_print_key(stdout, root, 1);
        } else {
            answer_print_keys(stdout, root);
        }
    }
    json_decref(root);
    client_close(&c);
    return rc;
}
