/* zkpipe's Node-API addon: the public C API of include/zkpipe.h (and
 * nothing else) behind promises. Every call that can take long (opening a
 * key, compiling or loading a circuit, a witness, a proof, a verification)
 * runs on the addon's own pool of threads (the runner below), the
 * prover's own threads under it, never on the event loop nor on libuv's
 * pool. index.js builds snarkjs's API on these functions. */
#define NAPI_VERSION 8
#include <node_api.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zkpipe.h"

#define CHECK(env, call)                               \
    do {                                               \
        if ((call) != napi_ok) return throw_last(env); \
    } while (0)

static napi_value throw_last(napi_env env) {
    const napi_extended_error_info *info = NULL;
    napi_get_last_error_info(env, &info);
    bool pending = false;
    napi_is_exception_pending(env, &pending);
    if (!pending) napi_throw_error(env, "ZKPIPE_INTERNAL", info && info->error_message ? info->error_message : "napi");
    return NULL;
}

static const char *status_code(zp_status st) {
    switch (st) {
    case ZP_OK: return "ZKPIPE_OK";
    case ZP_ERR_ARG: return "ZKPIPE_BAD_ARGUMENT";
    case ZP_ERR_IO: return "ZKPIPE_IO";
    case ZP_ERR_FORMAT: return "ZKPIPE_BAD_INPUT";
    case ZP_ERR_UNSUPPORTED: return "ZKPIPE_UNSUPPORTED";
    case ZP_ERR_MISMATCH: return "ZKPIPE_MISMATCH";
    case ZP_ERR_UNSATISFIED: return "ZKPIPE_UNSATISFIED";
    case ZP_ERR_INVALID: return "ZKPIPE_INVALID_PROOF";
    case ZP_ERR_NOMEM: return "ZKPIPE_NOMEM";
    default: return "ZKPIPE_INTERNAL";
    }
}

static napi_value make_error(napi_env env, const char *code, const char *message) {
    napi_value c, m, e;
    napi_create_string_utf8(env, code, NAPI_AUTO_LENGTH, &c);
    napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &m);
    napi_create_error(env, c, m, &e);
    return e;
}

/* ---- handles --------------------------------------------------------------
 * A key, a circuit, a prover or a stop flag is a JS external around one of
 * these; close() frees the C object at once, the finalizer when JS never
 * closed it. index.js never closes a handle a call is using (a call
 * holds a reference to it, so the finalizer cannot run before its end). */
enum { H_KEY = 1, H_CIRCUIT, H_PROVER, H_STOP };

typedef struct handle {
    int type;
    void *p;
    int flag; /* H_STOP: the flag the C calls poll */
} handle;

static void handle_free(handle *h) {
    if (h->p == NULL) return;
    switch (h->type) {
    case H_KEY: zp_key_close(h->p); break;
    case H_CIRCUIT: zp_circuit_close(h->p); break;
    case H_PROVER: zp_prover_destroy(h->p); break;
    default: break;
    }
    h->p = NULL;
}

static void handle_finalize(napi_env env, void *data, void *hint) {
    (void)env;
    (void)hint;
    handle_free(data);
    free(data);
}

static napi_value handle_new(napi_env env, int type, void *p) {
    handle *h = calloc(1, sizeof *h);
    napi_value v;
    if (h == NULL) {
        napi_throw_error(env, "ZKPIPE_NOMEM", "out of memory");
        return NULL;
    }
    h->type = type;
    h->p = p;
    if (napi_create_external(env, h, handle_finalize, NULL, &v) != napi_ok) {
        handle_free(h);
        free(h);
        return throw_last(env);
    }
    return v;
}

/* The handle of v, of that type and open; NULL (and an error thrown)
 * otherwise. */
static handle *handle_get(napi_env env, napi_value v, int type) {
    napi_valuetype t;
    if (napi_typeof(env, v, &t) != napi_ok) return NULL;
    handle *h = NULL;
    if (t != napi_external || napi_get_value_external(env, v, (void **)&h) != napi_ok || h == NULL || h->type != type) {
        napi_throw_type_error(env, "ZKPIPE_BAD_ARGUMENT", "not a zkpipe handle of the right kind");
        return NULL;
    }
    if (h->p == NULL && type != H_STOP) {
        napi_throw_error(env, "ZKPIPE_CLOSED", "the handle was closed");
        return NULL;
    }
    return h;
}

/* ---- arguments ------------------------------------------------------------ */

static int is_nullish(napi_env env, napi_value v) {
    napi_valuetype t;
    return napi_typeof(env, v, &t) == napi_ok && (t == napi_null || t == napi_undefined);
}

/* A string (UTF-8) or a Uint8Array/Buffer, copied (NUL-terminated): 0 with
 * an error thrown, or pending, when it is neither. *is_path (is_path not
 * NULL) says which: 1 for a string. */
static int get_source(napi_env env, napi_value v, char **data, size_t *len, int *is_path) {
    napi_valuetype t;
    *data = NULL;
    *len = 0;
    if (napi_typeof(env, v, &t) != napi_ok) return 0;
    size_t n = 0;
    void *p = NULL;
    bool ta = false;
    if (t == napi_string) {
        if (napi_get_value_string_utf8(env, v, NULL, 0, &n) != napi_ok) return 0;
    } else if (napi_is_typedarray(env, v, &ta) == napi_ok && ta) {
        napi_typedarray_type tt;
        size_t off;
        napi_value ab;
        if (napi_get_typedarray_info(env, v, &tt, &n, &p, &ab, &off) != napi_ok) return 0;
        if (tt != napi_uint8_array) {
            napi_throw_type_error(env, "ZKPIPE_BAD_ARGUMENT", "expected a Uint8Array");
            return 0;
        }
    } else {
        napi_throw_type_error(env, "ZKPIPE_BAD_ARGUMENT", "expected a path (string) or bytes (Uint8Array)");
        return 0;
    }
    if ((*data = malloc(n + 1)) == NULL) {
        napi_throw_error(env, "ZKPIPE_NOMEM", "out of memory copying an argument");
        return 0;
    }
    if (t == napi_string) {
        napi_get_value_string_utf8(env, v, *data, n + 1, &n);
    } else {
        if (n > 0) memcpy(*data, p, n);
        (*data)[n] = 0;
    }
    *len = n;
    if (is_path) *is_path = t == napi_string;
    return 1;
}

static size_t get_size(napi_env env, napi_value v) {
    double d = 0;
    if (napi_get_value_double(env, v, &d) != napi_ok || !(d > 0)) return 0;
    return d > 1e18 ? (size_t)1e18 : (size_t)d;
}

/* The callback's arguments, want of them (undefined past those given),
 * and the function's data when data is not NULL. */
static int get_args(napi_env env, napi_callback_info info, size_t want, napi_value *argv, void **data) {
    size_t argc = want;
    for (size_t i = 0; i < want; i++) argv[i] = NULL;
    if (napi_get_cb_info(env, info, &argc, argv, NULL, data) != napi_ok) return 0;
    napi_value undef;
    napi_get_undefined(env, &undef);
    for (size_t i = argc; i < want; i++) argv[i] = undef;
    return 1;
}

/* ---- async jobs ----------------------------------------------------------- */

enum { J_KEY_OPEN, J_CIRCUIT_OPEN, J_FULLPROVE, J_PROVE, J_WTNS, J_VK, J_VERIFY, J_PREPARE };

#define MAX_REFS 4  /* the handles a job holds: prover, key, circuit, stop */
#define MAX_TEXTS 3 /* its sources and texts */

typedef struct job {
    struct job *next; /* the runner's queue */
    int kind;
    int out_type; /* H_KEY, H_CIRCUIT: the handle it makes; 0: none */
    napi_deferred deferred;
    napi_ref refs[MAX_REFS];
    int nrefs;
    /* inputs */
    char *text[MAX_TEXTS]; /* sources (paths or bytes) and texts, copied, in argument order */
    size_t ntext[MAX_TEXTS];
    int ntexts;
    int text0_is_path; /* text[0] is a path, not bytes */
    zp_key *key;
    zp_circuit *circuit;
    zp_prover *prover; /* NULL: a prover for this call only */
    const int *stop;   /* the stop handle's flag, or halt: never NULL once queued */
    int halt;          /* the flag of a job given no stop handle */
    size_t threads;
    uint64_t memory_limit;
    int want_wtns;
    /* outputs */
    zp_status st;
    zp_error err;
    void *out_handle;
    char *json1, *json2;
    uint8_t *bytes;
    size_t nbytes;
} job;

/* Frees what the job holds but its references (env NULL: an environment
 * torn down, which drops them itself), and the job. */
static void job_free(napi_env env, job *j) {
    if (env != NULL)
        for (int i = 0; i < j->nrefs; i++) napi_delete_reference(env, j->refs[i]);
    for (int i = 0; i < j->ntexts; i++) free(j->text[i]);
    zp_free(j->json1);
    zp_free(j->json2);
    zp_free(j->bytes);
    free(j);
}

static int stopped(const job *j) { return j->stop != NULL && __atomic_load_n(j->stop, __ATOMIC_RELAXED); }

static void run_prove(job *j, zp_proof *proof, zp_witness *w) {
    if (j->prover != NULL) {
        /* an abort stops the proof between its stages */
        zp_prover_set_stop(j->prover, j->stop);
        j->st = zp_prover_prove(j->prover, proof, NULL, j->key, w, &j->err);
        zp_prover_set_stop(j->prover, NULL);
    } else {
        zp_prove_options opt = {.threads = j->threads, .stop = j->stop};
        j->st = zp_prove(proof, NULL, j->key, w, &opt, &j->err);
    }
}

static void execute(napi_env env, job *j) {
    (void)env;
    zp_error *err = &j->err;
    char *const *t = j->text;
    const size_t *n = j->ntext;
    zp_proof proof;
    zp_witness *w = NULL;
    if (stopped(j)) {
        j->st = ZP_ERR_UNSUPPORTED;
        return;
    }
    switch (j->kind) {
    case J_KEY_OPEN: {
        zp_key *k = NULL;
        j->st = j->text0_is_path ? zp_key_open(&k, t[0], err) : zp_key_open_mem(&k, t[0], n[0], "the zkey", err);
        j->out_handle = k;
        break;
    }
    case J_CIRCUIT_OPEN: {
        zp_circuit *c = NULL;
        zp_circuit_options opt = {t[1], j->memory_limit, j->stop};
        j->st = j->text0_is_path ? zp_circuit_open(&c, t[0], &opt, err)
                                 : zp_circuit_open_mem(&c, t[0], n[0], "the circuit's wasm", &opt, err);
        j->out_handle = c;
        break;
    }
    case J_FULLPROVE: {
        zp_prover *pr = j->prover;
        j->st = ZP_OK;
        if (pr == NULL) {
            zp_prover_options opt = {.threads = j->threads, .table_bytes = 1};
            j->st = zp_prover_create(&pr, &opt, err);
        }
        if (j->st == ZP_OK) j->st = zp_fullprove(pr, &proof, &w, j->key, j->circuit, t[0], n[0], j->stop, err);
        if (j->prover == NULL) zp_prover_destroy(pr);
        if (j->st == ZP_OK) j->st = zp_proof_json(&j->json1, &proof, err);
        if (j->st == ZP_OK) j->st = zp_public_json(&j->json2, j->key, w, err);
        if (j->st == ZP_OK && j->want_wtns) j->st = zp_witness_dump(&j->bytes, &j->nbytes, w, err);
        break;
    }
    case J_PROVE:
        j->st =
            j->text0_is_path ? zp_witness_open(&w, t[0], err) : zp_witness_open_mem(&w, t[0], n[0], "the witness", err);
        if (j->st == ZP_OK) run_prove(j, &proof, w);
        if (j->st == ZP_OK) j->st = zp_proof_json(&j->json1, &proof, err);
        if (j->st == ZP_OK) j->st = zp_public_json(&j->json2, j->key, w, err);
        break;
    case J_WTNS:
        j->st = zp_circuit_calculate(&w, j->circuit, t[0], n[0], j->stop, err);
        if (j->st == ZP_OK) j->st = zp_witness_dump(&j->bytes, &j->nbytes, w, err);
        break;
    case J_VK: j->st = zp_key_vk_json(&j->json1, j->key, err); break;
    case J_PREPARE: j->st = zp_prover_prepare(j->prover, j->key, err); break;
    case J_VERIFY: j->st = zp_verify_json(t[0], n[0], t[1], n[1], t[2], n[2], err); break;
    default: j->st = ZP_ERR_INTERNAL; break;
    }
    zp_witness_close(w);
}

static napi_value str(napi_env env, const char *s) {
    napi_value v = NULL;
    napi_create_string_utf8(env, s, NAPI_AUTO_LENGTH, &v);
    return v;
}

static napi_value bytes_value(napi_env env, const uint8_t *p, size_t n) {
    void *data;
    napi_value ab, arr = NULL;
    if (napi_create_arraybuffer(env, n, &data, &ab) != napi_ok) return NULL;
    if (n > 0) memcpy(data, p, n);
    napi_create_typedarray(env, napi_uint8_array, n, ab, 0, &arr);
    return arr;
}

/* Settles the job's promise on the loop and frees it. */
static void complete(napi_env env, job *j) {
    napi_value result = NULL;
    if (stopped(j) && (j->st != ZP_OK || j->kind != J_VERIFY)) {
        /* an aborted call: what it made is freed here, never handed out */
        handle made = {j->out_type, j->out_handle, 0};
        handle_free(&made);
        napi_value e = make_error(env, "ABORT_ERR", "The operation was aborted");
        napi_value name;
        napi_create_string_utf8(env, "AbortError", NAPI_AUTO_LENGTH, &name);
        napi_set_named_property(env, e, "name", name);
        napi_reject_deferred(env, j->deferred, e);
    } else if (j->kind == J_VERIFY && (j->st == ZP_OK || j->st == ZP_ERR_INVALID)) {
        napi_get_boolean(env, j->st == ZP_OK, &result);
        napi_resolve_deferred(env, j->deferred, result);
    } else if (j->st != ZP_OK) {
        napi_value e = make_error(env, status_code(j->st), j->err.message[0] ? j->err.message : "failed");
        napi_value num;
        napi_create_int32(env, (int32_t)j->st, &num);
        napi_set_named_property(env, e, "status", num);
        napi_reject_deferred(env, j->deferred, e);
    } else {
        switch (j->kind) {
        case J_KEY_OPEN:
        case J_CIRCUIT_OPEN: result = handle_new(env, j->out_type, j->out_handle); break;
        case J_FULLPROVE:
        case J_PROVE:
            napi_create_object(env, &result);
            napi_set_named_property(env, result, "proof", str(env, j->json1));
            napi_set_named_property(env, result, "publicSignals", str(env, j->json2));
            if (j->bytes != NULL) napi_set_named_property(env, result, "wtns", bytes_value(env, j->bytes, j->nbytes));
            break;
        case J_WTNS: result = bytes_value(env, j->bytes, j->nbytes); break;
        case J_VK: result = str(env, j->json1); break;
        default: napi_get_undefined(env, &result); break;
        }
        if (result == NULL) {
            bool pending = false;
            napi_is_exception_pending(env, &pending);
            napi_value e = make_error(env, "ZKPIPE_NOMEM", "out of memory handing back the result");
            if (pending) napi_get_and_clear_last_exception(env, &e);
            napi_reject_deferred(env, j->deferred, e);
        } else {
            napi_resolve_deferred(env, j->deferred, result);
        }
    }
    job_free(env, j);
}

/* ---- the runner: the addon's own pool ----------------------------------------
 * One per Node environment (the main thread, each Worker). libuv's pool
 * has four threads by default and serves fs, dns and crypto as well: four
 * long proofs there would hold up every file read of the process, so the
 * jobs run here instead. A thread takes the oldest queued job, runs
 * execute(), and hands the job back to the loop through a thread-safe
 * function whose callback settles its promise (complete()). Threads are
 * started as jobs wait, up to max (the CPUs, at least 4), and kept; the
 * thread-safe function is referenced only while jobs are outstanding, so
 * an idle runner never keeps the process alive. At the environment's
 * teardown (process.exit(), a Worker terminated) the running jobs are told
 * to stop (their flags, which the C calls poll), the threads joined before
 * any handle is finalized (this cleanup hook was added after the
 * environment's own, so it runs first), and the queued jobs dropped. */
#define RUNNER_MAX 64

typedef struct runner runner;

typedef struct runner_thread {
    runner *r;
    pthread_t tid;
    job *running; /* under the lock */
} runner_thread;

struct runner {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    job *head, *tail; /* queued, oldest first */
    size_t queued, idle, threads, max;
    int closing;
    runner_thread thread[RUNNER_MAX];
    napi_threadsafe_function done;
    size_t outstanding; /* queued or running: the loop's thread only */
};

/* Frees a job the loop will never see: what it made, then the job. */
static void job_drop(job *j) {
    handle made = {j->out_type, j->out_handle, 0};
    handle_free(&made);
    job_free(NULL, j);
}

static void *runner_main(void *arg) {
    runner_thread *t = arg;
    runner *r = t->r;
    pthread_mutex_lock(&r->lock);
    for (;;) {
        while (r->head == NULL && !r->closing) {
            r->idle++;
            pthread_cond_wait(&r->wake, &r->lock);
            r->idle--;
        }
        if (r->closing) break;
        job *j = r->head;
        r->head = j->next;
        if (r->head == NULL) r->tail = NULL;
        r->queued--;
        t->running = j;
        pthread_mutex_unlock(&r->lock);
        execute(NULL, j);
        pthread_mutex_lock(&r->lock);
        t->running = NULL;
        /* a queue without a limit: never blocks; closing only once the
         * threads are joined, so this call precedes it */
        if (napi_call_threadsafe_function(r->done, j, napi_tsfn_nonblocking) != napi_ok) job_drop(j);
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

/* The thread-safe function's callback, on the loop: env NULL when it is
 * torn down with jobs still in its queue. */
static void runner_done(napi_env env, napi_value js_cb, void *context, void *data) {
    (void)js_cb;
    runner *r = context;
    if (env == NULL) {
        job_drop(data);
        return;
    }
    complete(env, data);
    if (--r->outstanding == 0) napi_unref_threadsafe_function(env, r->done);
}

/* Queues j (the loop's thread): 0 when no thread could be started. */
static int runner_submit(napi_env env, runner *r, job *j) {
    pthread_mutex_lock(&r->lock);
    if (r->queued + 1 > r->idle && r->threads < r->max) {
        runner_thread *t = &r->thread[r->threads];
        t->r = r;
        if (pthread_create(&t->tid, NULL, runner_main, t) == 0) r->threads++;
    }
    if (r->threads == 0) {
        pthread_mutex_unlock(&r->lock);
        return 0;
    }
    j->next = NULL;
    if (r->tail != NULL) r->tail->next = j;
    else r->head = j;
    r->tail = j;
    r->queued++;
    pthread_cond_signal(&r->wake);
    pthread_mutex_unlock(&r->lock);
    if (r->outstanding++ == 0) napi_ref_threadsafe_function(env, r->done);
    return 1;
}

static void runner_teardown(void *arg) {
    runner *r = arg;
    pthread_mutex_lock(&r->lock);
    r->closing = 1;
    for (size_t i = 0; i < r->threads; i++)
        if (r->thread[i].running != NULL) __atomic_store_n((int *)r->thread[i].running->stop, 1, __ATOMIC_RELAXED);
    pthread_cond_broadcast(&r->wake);
    pthread_mutex_unlock(&r->lock);
    for (size_t i = 0; i < r->threads; i++) pthread_join(r->thread[i].tid, NULL);
    while (r->head != NULL) {
        job *j = r->head;
        r->head = j->next;
        job_drop(j);
    }
    r->tail = NULL;
    napi_release_threadsafe_function(r->done, napi_tsfn_abort);
}

static void runner_free(napi_env env, void *data, void *hint) {
    (void)env;
    (void)hint;
    runner *r = data;
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->wake);
    free(r);
}

/* The environment's runner, made and hooked to its teardown: 0 with an
 * error thrown when it cannot be. */
static int runner_init(napi_env env) {
    runner *r = calloc(1, sizeof *r);
    if (r == NULL) return 0;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    r->max = cpus > 4 ? (size_t)cpus : 4;
    if (r->max > RUNNER_MAX) r->max = RUNNER_MAX;
    napi_value name;
    if (pthread_mutex_init(&r->lock, NULL) != 0 || pthread_cond_init(&r->wake, NULL) != 0 ||
        napi_create_string_utf8(env, "zkpipe", NAPI_AUTO_LENGTH, &name) != napi_ok) {
        free(r);
        return 0;
    }
    if (napi_create_threadsafe_function(env, NULL, NULL, name, 0, 1, r, runner_free, r, runner_done, &r->done) !=
        napi_ok) {
        runner_free(env, r, NULL);
        return 0;
    }
    /* added after the environment's own hook (and the thread-safe
     * function's): runs before either */
    return napi_unref_threadsafe_function(env, r->done) == napi_ok &&
           napi_add_env_cleanup_hook(env, runner_teardown, r) == napi_ok &&
           napi_set_instance_data(env, r, NULL, NULL) == napi_ok;
}

/* ---- the async functions: one table ---------------------------------------
 * Each is a job kind and its arguments, one letter each, in order:
 *   P  a prover handle or null (null: a prover for this call only)
 *   K  a key handle                 C  a circuit handle
 *   X  a stop handle or null        (each handle held until the job ends)
 *   S  a source: a path (string) or bytes (Uint8Array), copied
 *   T  a text (string or Uint8Array), copied
 *   D  a folder (string) or null
 *   N  the threads of a proof       M  the witness calculator's memory limit
 *   W  a boolean: hand back the witness's bytes as well */
typedef struct async_fn {
    const char *name;
    int kind, out_type;
    const char *args;
} async_fn;

static const async_fn async_fns[] = {
    {"keyOpen", J_KEY_OPEN, H_KEY, "S"},                /* (source) -> Promise<key> */
    {"circuitOpen", J_CIRCUIT_OPEN, H_CIRCUIT, "SDMX"}, /* (source, cacheDir, memoryLimit, stop) -> Promise<circuit> */
    {"fullProve", J_FULLPROVE, 0, "PKCTXNW"},           /* (prover, key, circuit, inputJson, stop, threads, wantWtns) */
    {"prove", J_PROVE, 0, "PKSXN"},                     /* (prover, key, wtnsSource, stop, threads) */
    {"wtnsCalculate", J_WTNS, 0, "CTX"},                /* (circuit, inputJson, stop) -> Promise<Uint8Array> */
    {"vkJson", J_VK, 0, "K"},                           /* (key) -> Promise<string> */
    {"verify", J_VERIFY, 0, "TTT"},                     /* (vkJson, publicJson, proofJson) -> Promise<boolean> */
    {"prepare", J_PREPARE, 0, "PK"},                    /* (prover, key) -> Promise<undefined> */
};

#define MAX_ARGS 8

/* Reads argument v of kind a (a letter of the table) into j: 0 with an
 * error thrown, or pending, when it is not one. */
static int job_arg(napi_env env, job *j, char a, napi_value v) {
    switch (a) {
    case 'S':
    case 'T':
    case 'D': {
        int i = j->ntexts++;
        napi_valuetype t = napi_undefined;
        napi_typeof(env, v, &t);
        if (a == 'D' && (t == napi_null || t == napi_undefined)) return 1;
        if (a == 'D' && t != napi_string) {
            napi_throw_type_error(env, "ZKPIPE_BAD_ARGUMENT", "expected a folder (string) or null");
            return 0;
        }
        return get_source(env, v, &j->text[i], &j->ntext[i], i == 0 && a == 'S' ? &j->text0_is_path : NULL);
    }
    case 'N': j->threads = get_size(env, v); return 1;
    case 'M': j->memory_limit = get_size(env, v); return 1;
    case 'W': {
        bool b = false;
        napi_get_value_bool(env, v, &b);
        j->want_wtns = b;
        return 1;
    }
    default: break;
    }
    if ((a == 'P' || a == 'X') && is_nullish(env, v)) return 1;
    int type = a == 'P' ? H_PROVER : a == 'K' ? H_KEY : a == 'C' ? H_CIRCUIT : H_STOP;
    handle *h = handle_get(env, v, type);
    if (h == NULL || j->nrefs == MAX_REFS || napi_create_reference(env, v, 1, &j->refs[j->nrefs]) != napi_ok) return 0;
    j->nrefs++;
    switch (a) {
    case 'P': j->prover = h->p; break;
    case 'K': j->key = h->p; break;
    case 'C': j->circuit = h->p; break;
    default: j->stop = &h->flag; break;
    }
    return 1;
}

/* An async function of the table (its row the function's data): the
 * arguments read into a job, the job queued, its promise returned. */
static napi_value call_async(napi_env env, napi_callback_info info) {
    napi_value argv[MAX_ARGS], promise;
    const async_fn *fn = NULL;
    runner *r = NULL;
    if (!get_args(env, info, MAX_ARGS, argv, (void **)&fn) || napi_get_instance_data(env, (void **)&r) != napi_ok ||
        r == NULL)
        return throw_last(env);
    job *j = calloc(1, sizeof *j);
    if (j == NULL) {
        napi_throw_error(env, "ZKPIPE_NOMEM", "out of memory");
        return NULL;
    }
    j->kind = fn->kind;
    j->out_type = fn->out_type;
    for (const char *a = fn->args; *a; a++) {
        if (!job_arg(env, j, *a, argv[a - fn->args])) {
            job_free(env, j);
            return throw_last(env);
        }
    }
    if (j->stop == NULL) j->stop = &j->halt;
    if (napi_create_promise(env, &j->deferred, &promise) != napi_ok) {
        job_free(env, j);
        return throw_last(env);
    }
    if (!runner_submit(env, r, j)) {
        napi_reject_deferred(env, j->deferred, make_error(env, "ZKPIPE_NOMEM", "no thread could be started"));
        job_free(env, j);
    }
    return promise;
}

/* ---- synchronous ------------------------------------------------------------ */

/* proverCreate(threads, tableBytes) -> prover */
static napi_value prover_create(napi_env env, napi_callback_info info) {
    napi_value argv[2];
    if (!get_args(env, info, 2, argv, NULL)) return throw_last(env);
    zp_prover_options opt = {.threads = get_size(env, argv[0]), .table_bytes = get_size(env, argv[1])};
    zp_prover *pr = NULL;
    zp_error err = {0};
    if (zp_prover_create(&pr, &opt, &err) != ZP_OK) {
        napi_throw(env, make_error(env, status_code(err.status), err.message));
        return NULL;
    }
    return handle_new(env, H_PROVER, pr);
}

/* close(handle): frees the C object now (a second close does nothing). */
static napi_value close_handle(napi_env env, napi_callback_info info) {
    napi_value argv[1], undef;
    if (!get_args(env, info, 1, argv, NULL)) return throw_last(env);
    handle *h = NULL;
    napi_get_undefined(env, &undef);
    if (napi_get_value_external(env, argv[0], (void **)&h) == napi_ok && h != NULL) handle_free(h);
    return undef;
}

/* stopCreate() -> stop: a flag an abort sets (stopSet) and the calls poll. */
static napi_value stop_create(napi_env env, napi_callback_info info) {
    (void)info;
    return handle_new(env, H_STOP, NULL);
}

static napi_value stop_set(napi_env env, napi_callback_info info) {
    napi_value argv[1], undef;
    if (!get_args(env, info, 1, argv, NULL)) return throw_last(env);
    handle *h = handle_get(env, argv[0], H_STOP);
    if (h == NULL) return NULL;
    __atomic_store_n(&h->flag, 1, __ATOMIC_RELAXED);
    napi_get_undefined(env, &undef);
    return undef;
}

static napi_value set_num(napi_env env, napi_value obj, const char *name, double v) {
    napi_value n;
    napi_create_double(env, v, &n);
    napi_set_named_property(env, obj, name, n);
    return obj;
}

/* keyInfo(key) -> { curve, wires, nPublic, domainSize } */
static napi_value key_info(napi_env env, napi_callback_info info) {
    napi_value argv[2], o;
    if (!get_args(env, info, 2, argv, NULL)) return throw_last(env);
    handle *h = handle_get(env, argv[0], H_KEY);
    if (h == NULL) return NULL;
    CHECK(env, napi_create_object(env, &o));
    napi_set_named_property(env, o, "curve", str(env, zp_curve_name(zp_key_curve(h->p))));
    set_num(env, o, "wires", zp_key_wires(h->p));
    set_num(env, o, "nPublic", zp_key_public(h->p));
    set_num(env, o, "domainSize", zp_key_domain_size(h->p));
    set_num(env, o, "proverBytes", (double)zp_prover_memory_needed(h->p, get_size(env, argv[1])));
    return o;
}

/* circuitInfo(circuit) -> { curve, wires, memory } */
static napi_value circuit_info(napi_env env, napi_callback_info info) {
    napi_value argv[1], o;
    if (!get_args(env, info, 1, argv, NULL)) return throw_last(env);
    handle *h = handle_get(env, argv[0], H_CIRCUIT);
    if (h == NULL) return NULL;
    CHECK(env, napi_create_object(env, &o));
    zp_curve c = zp_circuit_curve(h->p);
    napi_set_named_property(env, o, "curve", str(env, c == ZP_CURVE_NONE ? "none" : zp_curve_name(c)));
    set_num(env, o, "wires", (double)zp_circuit_wires(h->p));
    set_num(env, o, "memory", (double)zp_circuit_memory_bytes(h->p));
    return o;
}

/* proverMemory(prover) -> { bytes, peak, threads } */
static napi_value prover_memory(napi_env env, napi_callback_info info) {
    napi_value argv[1], o;
    if (!get_args(env, info, 1, argv, NULL)) return throw_last(env);
    handle *h = handle_get(env, argv[0], H_PROVER);
    if (h == NULL) return NULL;
    size_t bytes, peak;
    zp_prover_memory(h->p, &bytes, &peak);
    CHECK(env, napi_create_object(env, &o));
    set_num(env, o, "bytes", (double)bytes);
    set_num(env, o, "peak", (double)peak);
    set_num(env, o, "threads", (double)zp_prover_threads(h->p));
    return o;
}

static napi_value version(napi_env env, napi_callback_info info) {
    (void)info;
    return str(env, zp_version());
}

NAPI_MODULE_INIT() {
    static const struct {
        const char *name;
        napi_callback fn;
    } fns[] = {
        {"proverCreate", prover_create}, {"close", close_handle}, {"stopCreate", stop_create},
        {"stopSet", stop_set},           {"keyInfo", key_info},   {"circuitInfo", circuit_info},
        {"proverMemory", prover_memory}, {"version", version},
    };
    size_t n_sync = sizeof fns / sizeof *fns, n_async = sizeof async_fns / sizeof *async_fns;
    if (!runner_init(env)) {
        napi_throw_error(env, "ZKPIPE_NOMEM", "zkpipe: the addon's threads could not be set up");
        return NULL;
    }
    for (size_t i = 0; i < n_sync + n_async; i++) {
        const async_fn *a = i >= n_sync ? &async_fns[i - n_sync] : NULL;
        const char *name = a != NULL ? a->name : fns[i].name;
        napi_value f;
        if (napi_create_function(env, name, NAPI_AUTO_LENGTH, a != NULL ? call_async : fns[i].fn, (void *)a, &f) !=
                napi_ok ||
            napi_set_named_property(env, exports, name, f) != napi_ok)
            return NULL;
    }
    return exports;
}
