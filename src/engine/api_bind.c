/* The public API's block for language bindings (include/zkpipe.h, "For
 * language bindings"): keys and witnesses from bytes, snarkjs's JSON
 * texts in memory, the witness calculator behind a thread-safe handle,
 * fullprove. bindings/node/ is its first user. */
#define _GNU_SOURCE /* memfd_create */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/error.h"
#include "curve/desc.h"
#include "engine/api_internal.h"
#include "groth16/curves.h"
#include "io/json.h"
#include "io/wtns.h"
#include "io/zkey.h"
#include "mem/large.h"
#include "witness/calc.h"
#include "witness/compile.h"
#include "witness/input.h"
#include "zkpipe.h"

const char *zp_version(void) { return ZKPIPE_VERSION; }

void zp_free(void *p) { free(p); }

zp_status zp_key_open_mem(zp_key **out, const void *data, size_t size, const char *name, zp_error *err) {
    *out = NULL;
    if (name == NULL) name = "the key";
    if (data == NULL && size > 0) return zp_error_set(err, ZP_ERR_ARG, "%s: no bytes given", name);
    /* a copy the key owns: the caller's buffer (a JavaScript
     * Uint8Array) may be moved, changed or collected while the key lives */
    size_t bytes = size > 0 ? size : 1;
    void *copy = zp_mem_map(bytes, "a proving key's bytes", err);
    if (copy == NULL) return err != NULL ? err->status : ZP_ERR_NOMEM;
    if (size > 0) memcpy(copy, data, size);
    zp_zkey *zkey = NULL;
    zp_status st = zp_zkey_open_mem(&zkey, copy, size, name, err);
    if (st == ZP_OK) st = zp_api_key_wrap(out, zkey, copy, bytes, err);
    if (st != ZP_OK) {
        zp_zkey_close(zkey);
        zp_mem_unmap(copy, bytes);
    }
    return st;
}

zp_status zp_witness_open_mem(zp_witness **out, const void *data, size_t size, const char *name, zp_error *err) {
    *out = NULL;
    if (name == NULL) name = "the witness";
    if (data == NULL && size > 0) return zp_error_set(err, ZP_ERR_ARG, "%s: no bytes given", name);
    static const uint8_t none[1] = {0};
    zp_wtns *wtns = NULL;
    zp_status st = zp_wtns_open_mem(&wtns, data != NULL ? data : none, size, name, err);
    if (st == ZP_OK) st = zp_api_witness_wrap(out, wtns, err);
    if (st != ZP_OK) zp_wtns_close(wtns);
    return st;
}

/* ---- .wtns bytes -------------------------------------------------------- */

static uint8_t *put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) *p++ = (uint8_t)(v >> (8 * i));
    return p;
}

static uint8_t *put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) *p++ = (uint8_t)(v >> (8 * i));
    return p;
}

/* A version-2 .wtns (docs/formats.md) of count values of n8 bytes each,
 * little-endian, the bytes `snarkjs wtns calculate` writes: its header
 * written, *values where the caller puts the values (count × n8 bytes),
 * so that they are written once, in place. */
static zp_status wtns_bytes(uint8_t **out, size_t *size, uint8_t **values, const uint8_t *prime, size_t n8,
                            size_t count, zp_error *err) {
    *out = *values = NULL;
    *size = 0;
    if (count > UINT32_MAX || n8 > 64)
        return zp_error_set(err, ZP_ERR_ARG, "a witness of %zu values does not fit a .wtns", count);
    size_t head = 4 + 4 + 4, s1 = 4 + n8 + 4, s2 = count * n8;
    size_t total = head + 12 + s1 + 12 + s2;
    uint8_t *b = malloc(total), *p = b;
    if (b == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory for a witness of %zu values", count);
    memcpy(p, "wtns", 4);
    p = put32(p + 4, 2); /* version */
    p = put32(p, 2);     /* sections */
    p = put32(p, 1);
    p = put64(p, s1);
    p = put32(p, (uint32_t)n8);
    memcpy(p, prime, n8);
    p = put32(p + n8, (uint32_t)count);
    p = put32(p, 2);
    p = put64(p, s2);
    *values = p;
    *out = b;
    *size = total;
    return ZP_OK;
}

zp_status zp_witness_dump(uint8_t **out, size_t *size, const zp_witness *witness, zp_error *err) {
    const zp_wtns *w = zp_api_witness_wtns(witness);
    const zp_curve_desc *d = zp_curve_get(zp_wtns_curve(w));
    *out = NULL;
    *size = 0;
    if (d == NULL) return zp_error_set(err, ZP_ERR_INTERNAL, "the witness has no known curve");
    /* the values are held as 4 plain 64-bit limbs, the prime as the curve's
     * r: both written little-endian, 32 bytes each */
    size_t count = zp_wtns_count(w);
    uint8_t prime[32], *values;
    for (size_t i = 0; i < 4; i++) put64(prime + 8 * i, d->fr_modulus[i]);
    zp_status st = wtns_bytes(out, size, &values, prime, 32, count, err);
    const uint64_t *v = zp_wtns_values(w);
    for (size_t i = 0; st == ZP_OK && i < 4 * count; i++) put64(values + 8 * i, v[i]);
    return st;
}

/* ---- JSON ---------------------------------------------------------------- */

zp_status zp_proof_json(char **out, const zp_proof *proof, zp_error *err) {
    *out = NULL;
    zp_groth16_proof p;
    zp_status st = zp_api_proof_decode(&p, proof, err);
    return st == ZP_OK ? zp_json_proof_dump(out, &p, err) : st;
}

zp_status zp_public_json(char **out, const zp_key *key, const zp_witness *witness, zp_error *err) {
    *out = NULL;
    const zp_wtns *w = zp_api_witness_wtns(witness);
    if (zp_wtns_curve(w) != zp_key_curve(key) || zp_wtns_count(w) != zp_key_wires(key)) {
        return zp_error_set(err, ZP_ERR_MISMATCH,
                            "the witness (%zu %s values) is not of the key's circuit (%u %s wires)", zp_wtns_count(w),
                            zp_curve_name(zp_wtns_curve(w)), zp_key_wires(key), zp_curve_name(zp_key_curve(key)));
    }
    return zp_json_public_dump(out, zp_groth16_witness_public(zp_wtns_values(w)), zp_key_public(key), err);
}

zp_status zp_key_vk_json(char **out, const zp_key *key, zp_error *err) {
    *out = NULL;
    const zp_groth16_pk *pk = zp_zkey_pk(zp_api_key_zkey(key));
    zp_groth16_vk vk = {0};
    const zp_groth16_curve *gc;
    zp_status st = zp_zkey_vk(&vk, pk, err);
    if (st == ZP_OK) st = zp_groth16_curve_lookup(&gc, pk->curve, err);
    if (st == ZP_OK) {
        uint64_t alphabeta[ZP_GROTH16_ALPHABETA_LIMBS];
        gc->vk_alphabeta(alphabeta, pk->alpha1, pk->beta2);
        st = zp_json_vk_dump(out, &vk, alphabeta, err);
    }
    zp_groth16_vk_free(&vk);
    return st;
}

zp_status zp_verify_json(const char *vk_json, size_t vk_len, const char *public_json, size_t public_len,
                         const char *proof_json, size_t proof_len, zp_error *err) {
    zp_groth16_vk vk = {0};
    uint64_t *pub = NULL;
    size_t n_pub = 0;
    zp_groth16_proof proof;
    zp_status st = zp_json_vk_parse(&vk, vk_json, vk_len, "the verification key", err);
    if (st == ZP_OK) st = zp_json_proof_parse(&proof, proof_json, proof_len, "the proof", vk.curve, err);
    if (st == ZP_OK)
        st = zp_json_public_parse(&pub, &n_pub, public_json, public_len, "the public signals", vk.curve, err);
    if (st == ZP_OK && n_pub != vk.n_public) {
        st = zp_error_set(err, ZP_ERR_MISMATCH, "%zu public signals given but the verification key expects %u", n_pub,
                          vk.n_public);
    }
    if (st == ZP_OK) {
        int ok = zp_groth16_verify(&vk, pub, &proof);
        if (ok < 0) st = zp_error_set(err, ZP_ERR_NOMEM, "out of memory verifying the proof");
        if (ok == 0)
            st = zp_error_set(err, ZP_ERR_INVALID, "invalid proof: it does not verify for these public signals");
    }
    free(pub);
    zp_groth16_vk_free(&vk);
    return st;
}

/* ---- the witness calculator -------------------------------------------- */

#define CIRCUIT_IDLE_MAX 8

struct zp_circuit {
    zp_witness_module *module;
    uint64_t memory_limit;
    pthread_mutex_t lock; /* guards idle and n_idle */
    zp_witness_instance *idle[CIRCUIT_IDLE_MAX];
    size_t n_idle;
};

zp_status zp_circuit_open(zp_circuit **out, const char *wasm_path, const zp_circuit_options *options, zp_error *err) {
    *out = NULL;
    zp_circuit_options opt = {0};
    if (options != NULL) opt = *options;
    if (wasm_path == NULL) return zp_error_set(err, ZP_ERR_ARG, "no circuit .wasm given");
    zp_circuit *c = calloc(1, sizeof *c);
    if (c == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    pthread_mutex_init(&c->lock, NULL);
    c->memory_limit = opt.memory_limit;
    zp_witness_compile_options copt = {.cache_dir = opt.cache_dir};
    zp_witness_compiled cc;
    /* a note (a damaged cached object compiled again) goes to stderr, as
     * the command's does; the module's first calls poll opt.stop (where
     * zp_witness_load's poll its time limit's flag) */
    zp_status st = zp_witness_compile(&cc, wasm_path, &copt, err);
    if (st == ZP_OK) {
        st = zp_witness_module_open_stoppable(&c->module, cc.so_path, wasm_path, opt.stop, err);
        zp_witness_compiled_free(&cc);
    }
    if (st != ZP_OK) {
        zp_circuit_close(c);
        return st;
    }
    *out = c;
    return ZP_OK;
}

zp_status zp_circuit_open_mem(zp_circuit **out, const void *wasm, size_t size, const char *name,
                              const zp_circuit_options *options, zp_error *err) {
    *out = NULL;
    if (name == NULL) name = "circuit.wasm";
    if (wasm == NULL && size > 0) return zp_error_set(err, ZP_ERR_ARG, "%s: no bytes given", name);
    /* the compiler reads a file: an anonymous memory file, nothing left
     * on disk (the cache is keyed by the bytes, not the name) */
    int fd = memfd_create("zkpipe-wasm", MFD_CLOEXEC);
    if (fd < 0) return zp_error_set(err, ZP_ERR_IO, "%s: cannot make a memory file for it", name);
    const uint8_t *p = wasm;
    size_t left = size;
    while (left > 0) {
        ssize_t n = write(fd, p, left);
        if (n <= 0) {
            close(fd);
            return zp_error_set(err, ZP_ERR_IO, "%s: cannot write it to a memory file", name);
        }
        p += n;
        left -= (size_t)n;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    zp_status st = zp_circuit_open(out, path, options, err);
    close(fd);
    return st;
}

void zp_circuit_close(zp_circuit *c) {
    if (c == NULL) return;
    for (size_t i = 0; i < c->n_idle; i++) zp_witness_instance_destroy(c->idle[i]);
    zp_witness_module_close(c->module);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

zp_curve zp_circuit_curve(const zp_circuit *c) { return zp_witness_module_curve(c->module); }
size_t zp_circuit_wires(const zp_circuit *c) { return zp_witness_module_size(c->module); }

size_t zp_circuit_memory_bytes(const zp_circuit *c) {
    zp_circuit *m = (zp_circuit *)c; /* the lock only */
    size_t bytes = 0;
    pthread_mutex_lock(&m->lock);
    for (size_t i = 0; i < m->n_idle; i++) bytes += zp_witness_instance_memory_bytes(m->idle[i]);
    pthread_mutex_unlock(&m->lock);
    return bytes;
}

zp_status zp_circuit_calculate(zp_witness **out, zp_circuit *c, const char *input_json, size_t len, const int *stop,
                               zp_error *err) {
    *out = NULL;
    zp_witness_module *m = c->module;
    const char *name = zp_witness_module_name(m);
    if (input_json == NULL) return zp_error_set(err, ZP_ERR_ARG, "no inputs given");
    zp_witness_inputs in = {0};
    zp_witness_instance *inst = NULL;
    uint8_t *bytes = NULL, *values;
    size_t size = 0;
    zp_status st = zp_witness_inputs_parse(&in, input_json, len, zp_witness_module_prime(m), zp_witness_module_n8(m),
                                           "the inputs", err);
    /* the .wtns's bytes, the values calculated into them */
    if (st == ZP_OK)
        st = wtns_bytes(&bytes, &size, &values, zp_witness_module_prime(m), zp_witness_module_n8(m),
                        zp_witness_module_size(m), err);
    if (st != ZP_OK) goto done;
    pthread_mutex_lock(&c->lock);
    if (c->n_idle > 0) inst = c->idle[--c->n_idle];
    pthread_mutex_unlock(&c->lock);
    if (inst == NULL) {
        if ((st = zp_witness_instance_create(&inst, m, err)) != ZP_OK) goto done;
        if (c->memory_limit > 0) zp_witness_instance_set_memory_limit(inst, c->memory_limit);
    }
    zp_witness_instance_set_stop(inst, stop);
    st = zp_witness_instance_calculate(inst, &in, values, 0, err);
    zp_witness_instance_set_stop(inst, NULL);
    if (st != ZP_OK) goto done;
    zp_wtns *wtns = NULL;
    st = zp_wtns_open_mem(&wtns, bytes, size, name, err);
    if (st == ZP_OK && (st = zp_api_witness_wrap(out, wtns, err)) != ZP_OK) zp_wtns_close(wtns);
done:
    if (inst != NULL) { /* kept for the next call (a failed one is rebuilt there) */
        pthread_mutex_lock(&c->lock);
        if (c->n_idle < CIRCUIT_IDLE_MAX) {
            c->idle[c->n_idle++] = inst;
            inst = NULL;
        }
        pthread_mutex_unlock(&c->lock);
        zp_witness_instance_destroy(inst);
    }
    zp_witness_inputs_free(&in);
    free(bytes);
    return st;
}

zp_status zp_fullprove(zp_prover *prover, zp_proof *proof, zp_witness **witness, const zp_key *key, zp_circuit *circuit,
                       const char *input_json, size_t len, const int *stop, zp_error *err) {
    memset(proof, 0, sizeof *proof);
    if (witness != NULL) *witness = NULL;
    zp_curve wc = zp_circuit_curve(circuit), kc = zp_key_curve(key);
    const char *name = zp_witness_module_name(circuit->module);
    if (wc != kc) {
        return zp_error_set(err, ZP_ERR_MISMATCH,
                            "%s is a %s circuit and the key is for %s: compile the circuit with circom --prime %s, "
                            "or use its key",
                            name, wc == ZP_CURVE_NONE ? "non-Groth16-curve" : zp_curve_name(wc), zp_curve_name(kc),
                            zp_curve_name(kc));
    }
    if (zp_circuit_wires(circuit) != zp_key_wires(key)) {
        return zp_error_set(err, ZP_ERR_MISMATCH,
                            "%s computes %zu wires and the key has %u: they are not of one circuit", name,
                            zp_circuit_wires(circuit), zp_key_wires(key));
    }
    zp_witness *w = NULL;
    zp_status st = zp_circuit_calculate(&w, circuit, input_json, len, stop, err);
    if (st == ZP_OK && stop != NULL && __atomic_load_n(stop, __ATOMIC_RELAXED)) {
        st = zp_error_set(err, ZP_ERR_UNSUPPORTED, "%s: stopped before the proof", name);
    }
    if (st == ZP_OK) {
        /* the proof polls the same flag between its stages */
        const int *prover_stop = zp_api_prover_stop(prover);
        if (stop != NULL) zp_prover_set_stop(prover, stop);
        st = zp_prover_prove(prover, proof, NULL, key, w, err);
        zp_prover_set_stop(prover, prover_stop);
        /* the calculator's own failures (a failed assert) keep their words */
        if (st == ZP_ERR_UNSATISFIED) {
            zp_error_set(err, ZP_ERR_UNSATISFIED,
                         "the witness of the inputs does not satisfy the key's circuit (its proof "
                         "does not verify)");
        }
    }
    if (st == ZP_OK && witness != NULL) {
        *witness = w;
        w = NULL;
    }
    zp_witness_close(w);
    return st;
}

void zp_prover_memory(const zp_prover *prover, size_t *bytes, size_t *peak) {
    const zp_tracker *t = zp_api_prover_tracker(prover);
    if (bytes != NULL) *bytes = (size_t)atomic_load(&t->total);
    if (peak != NULL) *peak = (size_t)atomic_load(&t->total_peak);
}

size_t zp_prover_memory_needed(const zp_key *key, size_t threads) {
    size_t scratch = zp_prove_scratch_size(key, threads);
    if (scratch == 0) return 0;
    return scratch + zp_groth16_matrices_size(zp_zkey_pk(zp_api_key_zkey(key)));
}
