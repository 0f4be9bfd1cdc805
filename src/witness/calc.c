/* circom 2's witness-calculator ABI over a compiled module (calc.h). */
#include "witness/calc.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "curve/desc.h"
#include "io/binfile.h"
#include "witness/cache.h"

/* The glue's table (w2c_glue.c.in); the two must agree on ZP_W2C_ABI.
 * Every value the module returns through it is hostile (issue 31): the
 * field's size is read once, bounded, and passed to every call with the
 * size of the buffer, and the glue checks the module's later answers
 * against it. */
#define ZP_W2C_ABI 2
enum {
    OP_VERSION = 1,
    OP_N32,
    OP_PRIME,
    OP_WITNESS_SIZE,
    OP_INPUT_SIZE,
    OP_INIT,
    OP_SIGNAL_SIZE,
    OP_SET_INPUT,
    OP_WITNESS,
};
enum { CALL_OK = 0, CALL_EXCEPTION = 1, CALL_MISSING = 2, CALL_REFUSED = 3, CALL_STOPPED = 4, CALL_TRAP = 0x100 };
#define IO_WORDS (ZP_WITNESS_MAX_N8 / 4)

typedef struct zp_w2c_api {
    uint32_t abi;
    void *(*create)(void);
    void (*destroy)(void *inst);
    int (*call)(void *inst, int op, uint32_t a, uint32_t b, uint32_t c, uint32_t n32, uint32_t *io, size_t io_words);
    uint32_t (*exception)(void *inst);
    const char *(*error_text)(void *inst);
    const char *(*log_text)(void *inst, size_t *len);
    void (*log_clear)(void *inst);
    size_t (*memory_bytes)(void *inst);
    void (*set_memory_limit)(void *inst, uint64_t max_bytes);
    uint64_t (*memory_denied)(void *inst);
    void (*set_stop)(void *inst, const int *flag);
} zp_w2c_api;

struct zp_witness_module {
    void *handle;
    const zp_w2c_api *api;
    char *name;
    uint32_t n32;
    size_t n8, witness_size;
    unsigned version;
    uint8_t prime[ZP_WITNESS_MAX_N8];
    zp_curve curve;
    zp_witness_instance_hook *hook; /* tests and the fuzzer: called on each new glue state */
    void *hook_arg;
};

struct zp_witness_instance {
    zp_witness_module *m;
    void *state;
    int dirty;       /* a calculation failed in it: rebuild before the next */
    uint64_t limit;  /* zp_witness_instance_set_memory_limit's; UINT64_MAX: none */
    uint64_t denied; /* zp_witness_instance_memory_denied's */
    const int *stop; /* zp_witness_instance_set_stop's flag, for a rebuilt state too */
};

/* Messages of witness_calculator.js's exceptionHandler, by code. */
static const char *exception_text(uint32_t code) {
    switch (code) {
    case 1: return "Signal not found. ";
    case 2: return "Too many signals set. ";
    case 3: return "Signal already set. ";
    case 4: return "Assert Failed. ";
    case 5: return "Not enough memory. ";
    case 6: return "Input signal array access exceeds the size. ";
    default: return "Unknown error. ";
    }
}

static const char *trap_text(int code) {
    switch (code) {
    case 1: return "out-of-bounds memory access";
    case 2: return "integer overflow";
    case 3: return "integer division by zero";
    case 4: return "invalid conversion to integer";
    case 5: return "unreachable code reached";
    case 6: return "invalid indirect call";
    case 7: return "uncaught exception";
    case 8: return "call stack exhausted";
    default: return "unknown trap";
    }
}

/* The error of a failed call, as one line: circom's message lines are
 * joined with spaces. */
static zp_status call_error(const zp_witness_module *m, void *state, int rc, const char *during, uint64_t limit,
                            zp_error *err) {
    uint64_t denied = m->api->memory_denied(state);
    if (denied != 0 && rc != CALL_REFUSED) {
        /* circom's answer to a refused growth is "Not enough memory"
         * (exception 5); any failure after one is named by it */
        return zp_error_set(err, ZP_ERR_NOMEM,
                            "%s: the witness calculator's memory would grow to %llu bytes during %s, past its limit "
                            "of %llu bytes",
                            m->name, (unsigned long long)denied, during, (unsigned long long)limit);
    }
    if (rc == CALL_REFUSED) {
        char text[512];
        snprintf(text, sizeof text, "%s", m->api->error_text(state));
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: the witness calculator broke circom's ABI during %s: %s", m->name,
                            during, text);
    }
    if (rc == CALL_EXCEPTION) {
        const char *text = m->api->error_text(state);
        char joined[1024];
        size_t n = 0;
        for (const unsigned char *p = (const unsigned char *)text; *p != 0 && n + 1 < sizeof joined; p++) {
            /* the module's text: one line of printable characters (no
             * terminal escapes), as every error here is */
            joined[n++] = *p == '\n' ? ' ' : (*p < 0x20 || *p >= 0x7f) ? '?' : (char)*p;
        }
        while (n > 0 && joined[n - 1] == ' ') n--;
        joined[n] = 0;
        return zp_error_set(err, ZP_ERR_UNSATISFIED, "%s: %s%s", m->name, exception_text(m->api->exception(state)),
                            joined);
    }
    if (rc == CALL_STOPPED) {
        return zp_error_set(err, ZP_ERR_UNSUPPORTED, "%s: the witness calculator was stopped during %s", m->name,
                            during);
    }
    if (rc == CALL_MISSING) {
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: the witness calculator lacks an export needed for %s", m->name,
                            during);
    }
    return zp_error_set(err, ZP_ERR_FORMAT, "%s: the witness calculator trapped (%s) during %s", m->name,
                        trap_text(rc - CALL_TRAP), during);
}

/* A new glue state, passed to the module's hook (if any) before any call. */
static void *new_state(const zp_witness_module *m) {
    void *state = m->api->create();
    if (state != NULL && m->hook != NULL) m->hook(m->hook_arg, state);
    return state;
}

static zp_status module_open(zp_witness_module **out, const char *so_path, const char *name,
                             zp_witness_instance_hook *hook, void *hook_arg, const int *stop, zp_error *err);

zp_status zp_witness_module_open(zp_witness_module **out, const char *so_path, const char *name, zp_error *err) {
    return module_open(out, so_path, name, NULL, NULL, NULL, err);
}

zp_status zp_witness_module_open_hooked(zp_witness_module **out, const char *so_path, const char *name,
                                        zp_witness_instance_hook *hook, void *hook_arg, zp_error *err) {
    return module_open(out, so_path, name, hook, hook_arg, NULL, err);
}

zp_status zp_witness_module_open_stoppable(zp_witness_module **out, const char *so_path, const char *name,
                                           const int *stop, zp_error *err) {
    return module_open(out, so_path, name, NULL, NULL, stop, err);
}

/* The three opens above: stop (NULL: none) is polled during the first
 * calls, which a hostile module can make loop as well as any other. */
static zp_status module_open(zp_witness_module **out, const char *so_path, const char *name,
                             zp_witness_instance_hook *hook, void *hook_arg, const int *stop, zp_error *err) {
    *out = NULL;
    void *h; /* checked whole and trusted before it is loaded (cache.h) */
    if (zp_witness_object_dlopen(&h, so_path, err) != ZP_OK) return zp_error_prefix(err, "%s: ", name);
    const zp_w2c_api *(*get)(void);
    *(void **)&get = dlsym(h, "zp_w2c_api_get");
    const zp_w2c_api *api = get ? get() : NULL;
    if (api == NULL || api->abi != ZP_W2C_ABI) {
        dlclose(h);
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: %s is not a calculator compiled by this zkpipe (remove it)", name,
                            so_path);
    }
    zp_witness_module *m = calloc(1, sizeof *m);
    if (m == NULL || (m->name = strdup(name)) == NULL) {
        free(m);
        dlclose(h);
        return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    }
    m->handle = h;
    m->api = api;
    m->hook = hook;
    m->hook_arg = hook_arg;
    void *probe = new_state(m);
    zp_status st = ZP_OK;
    if (probe == NULL) {
        st = zp_error_set(err, ZP_ERR_FORMAT, "%s: the witness calculator failed to instantiate", name);
        goto fail;
    }
    api->set_stop(probe, stop);
    uint32_t io[IO_WORDS];
    int rc = api->call(probe, OP_VERSION, 0, 0, 0, 0, io, IO_WORDS);
    if (rc != CALL_OK) {
        st = call_error(m, probe, rc, "getVersion", UINT64_MAX, err);
        goto fail;
    }
    m->version = io[0];
    if (m->version != 2) {
        st = zp_error_set(err, ZP_ERR_UNSUPPORTED, "%s: made by circom %u; zkpipe runs circom 2's calculators", name,
                          m->version);
        goto fail;
    }
    if ((rc = api->call(probe, OP_N32, 0, 0, 0, 0, io, IO_WORDS)) != CALL_OK) {
        st = call_error(m, probe, rc, "getFieldNumLen32", UINT64_MAX, err);
        goto fail;
    }
    /* read once, here; every later answer must equal it (the glue checks) */
    m->n32 = io[0];
    if (m->n32 == 0 || m->n32 > IO_WORDS || m->n32 % 2 != 0) {
        st = zp_error_set(err, ZP_ERR_UNSUPPORTED, "%s: a field of %u 32-bit words, which zkpipe does not support",
                          name, m->n32);
        goto fail;
    }
    m->n8 = (size_t)m->n32 * 4;
    if ((rc = api->call(probe, OP_PRIME, 0, 0, 0, m->n32, io, IO_WORDS)) != CALL_OK) {
        st = call_error(m, probe, rc, "getRawPrime", UINT64_MAX, err);
        goto fail;
    }
    for (uint32_t j = 0; j < m->n32; j++) {
        for (int b = 0; b < 4; b++) m->prime[4 * j + b] = (uint8_t)(io[j] >> (8 * b));
    }
    const zp_curve_desc *d = zp_curve_find_fr(m->prime, m->n8);
    m->curve = d ? d->id : ZP_CURVE_NONE;
    if ((rc = api->call(probe, OP_WITNESS_SIZE, 0, 0, 0, m->n32, io, IO_WORDS)) != CALL_OK) {
        st = call_error(m, probe, rc, "getWitnessSize", UINT64_MAX, err);
        goto fail;
    }
    m->witness_size = io[0];
    api->destroy(probe);
    *out = m;
    return ZP_OK;
fail:
    if (probe != NULL) api->destroy(probe);
    zp_witness_module_close(m);
    return st;
}

void zp_witness_module_close(zp_witness_module *m) {
    if (m == NULL) return;
    /* dlopen counts: other modules of the same object keep it mapped. */
    dlclose(m->handle);
    free(m->name);
    free(m);
}

const char *zp_witness_module_name(const zp_witness_module *m) { return m->name; }
const uint8_t *zp_witness_module_prime(const zp_witness_module *m) { return m->prime; }
size_t zp_witness_module_n8(const zp_witness_module *m) { return m->n8; }
zp_curve zp_witness_module_curve(const zp_witness_module *m) { return m->curve; }
size_t zp_witness_module_size(const zp_witness_module *m) { return m->witness_size; }
unsigned zp_witness_module_version(const zp_witness_module *m) { return m->version; }

zp_status zp_witness_instance_create(zp_witness_instance **out, zp_witness_module *m, zp_error *err) {
    *out = NULL;
    zp_witness_instance *inst = calloc(1, sizeof *inst);
    if (inst == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    inst->m = m;
    inst->limit = UINT64_MAX;
    inst->state = new_state(m);
    if (inst->state == NULL) {
        free(inst);
        return zp_error_set(err, ZP_ERR_NOMEM, "%s: cannot instantiate the witness calculator (out of memory?)",
                            m->name);
    }
    *out = inst;
    return ZP_OK;
}

void zp_witness_instance_destroy(zp_witness_instance *inst) {
    if (inst == NULL) return;
    if (inst->state != NULL) inst->m->api->destroy(inst->state);
    free(inst);
}

void zp_witness_instance_set_memory_limit(zp_witness_instance *inst, uint64_t max_bytes) {
    inst->limit = max_bytes;
    if (inst->state != NULL) inst->m->api->set_memory_limit(inst->state, max_bytes);
}

uint64_t zp_witness_instance_memory_denied(const zp_witness_instance *inst) { return inst->denied; }

void zp_witness_instance_set_stop(zp_witness_instance *inst, const int *flag) {
    inst->stop = flag;
    if (inst->state != NULL) inst->m->api->set_stop(inst->state, flag);
}

size_t zp_witness_instance_memory_bytes(const zp_witness_instance *inst) {
    return inst->state ? inst->m->api->memory_bytes(inst->state) : 0;
}

const char *zp_witness_instance_log(const zp_witness_instance *inst, size_t *len) {
    if (inst->state == NULL) {
        *len = 0;
        return "";
    }
    return inst->m->api->log_text(inst->state, len);
}

static zp_status calculate(zp_witness_instance *inst, const zp_witness_inputs *in, uint8_t *out, int sanity_check,
                           zp_error *err) {
    const zp_witness_module *m = inst->m;
    const zp_w2c_api *api = m->api;
    void *s = inst->state;
    const uint32_t n32 = m->n32;
    const uint64_t limit = inst->limit;
    uint32_t io[IO_WORDS];
    api->log_clear(s);
    int rc = api->call(s, OP_INIT, sanity_check ? 1 : 0, 0, 0, n32, io, IO_WORDS);
    if (rc != CALL_OK) return call_error(m, s, rc, "init", limit, err);
    uint64_t set = 0;
    for (size_t k = 0; k < in->count; k++) {
        const zp_witness_signal *sig = &in->signals[k];
        uint32_t hm = (uint32_t)(sig->hash >> 32), hl = (uint32_t)sig->hash;
        rc = api->call(s, OP_SIGNAL_SIZE, hm, hl, 0, n32, io, IO_WORDS);
        if (rc == CALL_OK) {
            int32_t size = (int32_t)io[0];
            if (size < 0) return zp_error_set(err, ZP_ERR_FORMAT, "%s: Signal %s not found", m->name, sig->name);
            if (sig->count < (size_t)size) {
                return zp_error_set(err, ZP_ERR_FORMAT,
                                    "%s: Not enough values for input signal %s (%zu given, the circuit takes %d)",
                                    m->name, sig->name, sig->count, size);
            }
            if (sig->count > (size_t)size) {
                /* circom's table answers 0, not -1, for some unknown names */
                return zp_error_set(
                    err, ZP_ERR_FORMAT, "%s: Too many values for input signal %s (%zu given, the circuit takes %d%s)",
                    m->name, sig->name, sig->count, size, size == 0 ? ": it is not an input of this circuit" : "");
            }
        } else if (rc != CALL_MISSING) {
            return call_error(m, s, rc, "getInputSignalSize", limit, err);
        }
        for (size_t i = 0; i < sig->count; i++) {
            const uint8_t *v = sig->values + i * in->n8;
            for (uint32_t j = 0; j < n32; j++) {
                io[j] = (uint32_t)v[4 * j] | (uint32_t)v[4 * j + 1] << 8 | (uint32_t)v[4 * j + 2] << 16 |
                        (uint32_t)v[4 * j + 3] << 24;
            }
            rc = api->call(s, OP_SET_INPUT, hm, hl, (uint32_t)i, n32, io, IO_WORDS);
            if (rc == CALL_EXCEPTION && api->exception(s) == 1 && api->memory_denied(s) == 0) {
                /* no getInputSignalSize: the circuit's own "Signal not found" */
                return zp_error_set(err, ZP_ERR_FORMAT, "%s: Signal %s not found", m->name, sig->name);
            }
            if (rc != CALL_OK) {
                zp_status st = call_error(m, s, rc, "setInputSignal", limit, err);
                if (rc == CALL_EXCEPTION && api->exception(s) != 4 && api->memory_denied(s) == 0) {
                    zp_error_prefix(err, "input signal %s[%zu]: ", sig->name, i);
                }
                return st;
            }
            set++;
        }
    }
    rc = api->call(s, OP_INPUT_SIZE, 0, 0, 0, n32, io, IO_WORDS);
    if (rc == CALL_OK && set < io[0]) {
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: Not all inputs have been set. Only %llu out of %u", m->name,
                            (unsigned long long)set, io[0]);
    }
    if (rc != CALL_OK && rc != CALL_MISSING) return call_error(m, s, rc, "getInputSize", limit, err);
    /* The values, a block at a time through the shared memory. */
    enum { BLOCK = 1024 };
    const size_t words_len = (size_t)BLOCK * n32;
    uint32_t *words = malloc(words_len * sizeof *words);
    if (words == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < m->witness_size; i += BLOCK) {
        uint32_t n = (uint32_t)(m->witness_size - i < BLOCK ? m->witness_size - i : BLOCK);
        rc = api->call(s, OP_WITNESS, (uint32_t)i, n, 0, n32, words, words_len);
        if (rc != CALL_OK) {
            free(words);
            return call_error(m, s, rc, "getWitness", limit, err);
        }
        uint8_t *dst = out + i * m->n8;
        for (size_t w = 0; w < (size_t)n * n32; w++) {
            dst[4 * w] = (uint8_t)words[w];
            dst[4 * w + 1] = (uint8_t)(words[w] >> 8);
            dst[4 * w + 2] = (uint8_t)(words[w] >> 16);
            dst[4 * w + 3] = (uint8_t)(words[w] >> 24);
        }
    }
    free(words);
    return ZP_OK;
}

zp_status zp_witness_instance_calculate(zp_witness_instance *inst, const zp_witness_inputs *in, uint8_t *out,
                                        int sanity_check, zp_error *err) {
    zp_witness_module *m = inst->m;
    if (in->n8 != m->n8) {
        return zp_error_set(err, ZP_ERR_ARG, "%s: inputs of %zu bytes for a field of %zu", m->name, in->n8, m->n8);
    }
    if (inst->dirty) {
        /* What a failed run left in the memory is not trusted again. */
        void *fresh = new_state(m);
        if (fresh == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "%s: cannot instantiate the calculator", m->name);
        m->api->destroy(inst->state);
        inst->state = fresh;
        inst->dirty = 0;
        m->api->set_memory_limit(fresh, inst->limit);
        m->api->set_stop(fresh, inst->stop);
    }
    zp_status st = calculate(inst, in, out, sanity_check, err);
    inst->denied = st != ZP_OK ? m->api->memory_denied(inst->state) : 0;
    if (st != ZP_OK) inst->dirty = 1;
    return st;
}

zp_status zp_witness_write_wtns(const char *path, const zp_witness_module *m, const uint8_t *values, zp_error *err) {
    if (m->witness_size > UINT32_MAX) {
        return zp_error_set(err, ZP_ERR_ARG, "%s: %zu values do not fit a .wtns", path, m->witness_size);
    }
    zp_binwriter w;
    zp_status st = zp_binwriter_open(&w, path, "wtns", 2, 2, err);
    if (st != ZP_OK) return st;
    zp_binwriter_begin(&w, 1);
    zp_binwriter_u32(&w, (uint32_t)m->n8);
    zp_binwriter_bytes(&w, m->prime, m->n8);
    zp_binwriter_u32(&w, (uint32_t)m->witness_size);
    zp_binwriter_end(&w);
    zp_binwriter_begin(&w, 2);
    zp_binwriter_bytes(&w, values, m->witness_size * m->n8);
    zp_binwriter_end(&w);
    return zp_binwriter_close(&w, err);
}
