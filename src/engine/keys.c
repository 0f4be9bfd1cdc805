/* The key cache: one entry per proving key file, with its dimensions and
 * per-partition footprint (known from submission on) and, while partitions
 * use it or until memory is needed, its mapping and precompiled matrices.
 * A loaded key's bytes are part of the budget's reservation like any
 * partition's. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/digest.h"
#include "base/error.h"
#include "base/file.h"
#include "engine/internal.h"

/* A streamed key's digest (options.key_digests) is read through a buffer
 * of this many bytes, counted in the key's own bytes, not through the
 * mapping, whose point pages would stay resident. */
#define KEY_DIGEST_CHUNK ((size_t)256 << 10)

/* The budget's rule (docs/architecture.md, "Proofs larger than the
 * budget"), the same as `zkpipe prove --budget`'s: a key one partition of
 * which fits in memory is proved in memory; one that does not is
 * streamed when a streamed partition fits (zp_groth16_stream_plan_make,
 * with the engine's measured own memory in place of ZP_STREAM_SLACK).
 * The window is as large as each prove worker's share of the budget
 * allows, so that they can prove at once, or, where a share is below the
 * minimum, the whole budget. Depends on the key and the budget only. */
static void plan_stream(engine_key *k, const zp_engine *e, const zp_groth16_pk *pk, uint64_t file_size) {
    k->streamed = 0;
    k->stream_need = 0;
    k->inmem_need = k->file_bytes + k->matrices_bytes + k->footprint;
    if (e->budget == ZP_BUDGET_UNLIMITED || k->inmem_need <= e->budget) return;
    uint64_t v = pk->n_vars, n = pk->domain_size, g1 = zp_g1_bytes(pk->curve), g2 = zp_g2_bytes(pk->curve);
    uint64_t points = (2 * v + (v - pk->n_public - 1) + n) * g1 + v * g2;
    /* what the mapping keeps resident: all but the bulk points and the
     * coefficient list (the header, IC, §10), the pages the sections'
     * edges share, and the digest's buffer. Opening the key checks the
     * coefficient list a step at a time, giving each step's pages back:
     * a step (and the pages at its ends) is what the load holds beyond
     * the key's own bytes, in the room of the partition that loads it */
    uint64_t coefs = (uint64_t)pk->n_coefs * ZP_ZKEY_COEF_BYTES;
    uint64_t rest = file_size > points + coefs ? file_size - points - coefs : 1;
    uint64_t key_bytes = zp_track_round(rest) + 4 * zp_track_round(1) + (e->opt.key_digests ? KEY_DIGEST_CHUNK : 0);
    uint64_t load = zp_track_round(coefs < ZP_COEF_PAGE_STEP ? coefs : ZP_COEF_PAGE_STEP) + 2 * zp_track_round(1);
    uint64_t avail = e->budget > key_bytes ? e->budget - key_bytes : 0;
    uint64_t shares[2] = {avail / e->n_prove, avail};
    for (int i = 0; i < 2; i++) {
        zp_groth16_stream_plan plan;
        zp_error err;
        /* below the minimum: ZP_ERR_NOMEM, the minimum still set */
        zp_groth16_stream_need need = {
            e->opt.prove_threads, shares[i] + ZP_STREAM_SLACK, k->witness_bytes, k->witness_bytes, 0, k->in_order};
        zp_status planned = zp_groth16_stream_plan_make(&plan, pk, &need, &err);
        if (planned != ZP_OK && plan.minimum == 0) return; /* no streamed prover for the curve */
        uint64_t least = plan.minimum - ZP_STREAM_SLACK;   /* the witness and a streamed proof */
        if (k->stream_need == 0) k->stream_need = key_bytes + (least > load ? least : load);
        if (plan.window_bytes == 0) continue;
        size_t abc = zp_groth16_abc_size(pk);
        uint64_t vec = zp_track_round(plan.spill ? abc / 3 : abc), wit = k->witness_bytes;
        if (plan.page) { /* one buffer, the witness's, serves as the vector too */
            wit = wit > vec ? wit : vec;
            vec = 0;
        }
        uint64_t footprint = wit + vec + zp_track_round(plan.scratch_bytes) + zp_track_round(plan.window_bytes);
        if (footprint > shares[i] || load > avail) continue;
        k->streamed = 1;
        k->plan = plan;
        k->stream_key_bytes = key_bytes;
        k->stream_load_bytes = load;
        k->footprint = footprint;
        k->witness_alloc = wit;
        return;
    }
}

/* Reads the key once to learn what it and its partitions will need; the
 * mapping is dropped again (loading is the admitted partition's job). */
static zp_status probe(engine_key *k, const zp_engine *e, zp_error *err) {
    zp_zkey *zkey;
    zp_status st = zp_zkey_open(&zkey, k->path, err);
    if (st != ZP_OK) return st;
    const zp_groth16_pk *pk = zp_zkey_pk(zkey);
    struct stat sb;
    if (stat(k->path, &sb) != 0) {
        zp_zkey_close(zkey);
        return zp_error_set(err, ZP_ERR_IO, "%s: cannot open: %s", k->path, strerror(errno));
    }
    k->file_bytes = zp_track_round((size_t)sb.st_size);
    k->curve = pk->curve;
    k->n_vars = pk->n_vars;
    k->n_public = pk->n_public;
    k->domain_size = pk->domain_size;
    /* the list's pages go behind the scan: a key too large for memory
     * is not made resident here, outside any reservation */
    zp_groth16_pager pager = {zp_zkey_release_span, zkey};
    k->matrices_bytes = zp_track_round(zp_groth16_matrices_size_paged(pk, &pager, &k->in_order));
    k->witness_bytes = zp_track_round(zp_groth16_witness_bytes(pk));
    zp_backend_sizes sz; /* the backend's buffers for one partition */
    zp_backend_sizes_get(&sz, e->backend, pk);
    k->abc_bytes = zp_track_round(sz.abc.bytes);
    k->msm_bytes = zp_track_round(sz.scratch.bytes);
    k->footprint = k->witness_bytes + k->abc_bytes + k->msm_bytes;
    k->witness_alloc = k->witness_bytes;
    plan_stream(k, e, pk, (uint64_t)sb.st_size);
    zp_zkey_close(zkey);
    return ZP_OK;
}

static engine_key *find(zp_engine *e, const char *path) {
    for (engine_key *k = e->keys; k; k = k->next) {
        if (strcmp(k->path, path) == 0) return k;
    }
    return NULL;
}

zp_status engine_key_get(engine_key **out, zp_engine *e, const char *path, zp_error *err) {
    char resolved[PATH_MAX];
    if (realpath(path, resolved) == NULL) {
        return zp_error_set(err, ZP_ERR_IO, "%s: cannot open the proving key: %s", path, strerror(errno));
    }
    pthread_mutex_lock(&e->lock);
    engine_key *k = find(e, resolved);
    if (k != NULL) {
        k->jobs++;
        *out = k;
        pthread_mutex_unlock(&e->lock);
        return ZP_OK;
    }
    pthread_mutex_unlock(&e->lock);

    engine_key *fresh = calloc(1, sizeof *fresh);
    if (fresh == NULL || (fresh->path = strdup(resolved)) == NULL) {
        free(fresh);
        return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    }
    zp_status st = probe(fresh, e, err);
    if (st != ZP_OK) {
        free(fresh->path);
        free(fresh);
        return st;
    }
    pthread_mutex_lock(&e->lock);
    k = find(e, resolved); /* someone may have probed it meanwhile */
    if (k == NULL) {
        k = fresh;
        k->next = e->keys;
        e->keys = k;
    } else {
        free(fresh->path);
        free(fresh);
    }
    k->jobs++;
    *out = k;
    pthread_mutex_unlock(&e->lock);
    return ZP_OK;
}

void engine_key_put(zp_engine *e, engine_key *key) {
    (void)e;
    key->jobs--;
}

uint64_t engine_key_bytes(const engine_key *key) {
    return key->streamed ? key->stream_key_bytes : key->file_bytes + key->matrices_bytes;
}

uint64_t engine_key_load_extra(const engine_key *key) {
    return key->streamed && key->stream_load_bytes > key->footprint ? key->stream_load_bytes - key->footprint : 0;
}

uint64_t engine_key_need(const engine_key *key) {
    return key->footprint + (key->state == KEY_UNLOADED ? engine_key_bytes(key) + engine_key_load_extra(key) : 0);
}

static void unload(zp_engine *e, engine_key *k) {
    zp_zkey_close(k->zkey);
    k->zkey = NULL;
    zp_groth16_pvk_free(k->pvk);
    k->pvk = NULL;
    k->digest[0] = '\0';
    engine_dealloc(e, &k->file);
    engine_dealloc(e, &k->matrices);
    k->state = KEY_UNLOADED;
}

uint64_t engine_keys_evict(zp_engine *e, uint64_t bytes, const engine_key *keep) {
    uint64_t freed = 0;
    while (freed < bytes) {
        engine_key *lru = NULL;
        for (engine_key *k = e->keys; k; k = k->next) {
            if (k != keep && k->state == KEY_LOADED && k->active == 0 && (!lru || k->last_use < lru->last_use)) {
                lru = k;
            }
        }
        if (lru == NULL) break;
        freed += engine_key_bytes(lru);
        unload(e, lru);
    }
    /* entries no job refers to and not loaded are forgotten */
    for (engine_key **pp = &e->keys; *pp;) {
        engine_key *k = *pp;
        if (k->jobs == 0 && k->state == KEY_UNLOADED && k->active == 0) {
            *pp = k->next;
            free(k->path);
            free(k);
        } else {
            pp = &k->next;
        }
    }
    return freed;
}

/* The SHA-256 of the key file, read KEY_DIGEST_CHUNK bytes at a time
 * (the mapping is not read: its point pages would stay resident); it
 * must still be size bytes long. */
static zp_status digest_file(char hex[ZP_SHA256_HEX], const char *path, uint64_t size, zp_error *err) {
    int fd;
    uint64_t now;
    zp_status st = zp_file_open_regular(&fd, &now, path, err);
    if (st != ZP_OK) return st;
    unsigned char *buf = malloc(KEY_DIGEST_CHUNK);
    zp_sha256 h;
    if (buf == NULL) st = zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    else if (now != size) st = zp_error_set(err, ZP_ERR_IO, "%s: the key file changed while it was loaded", path);
    if (st == ZP_OK) st = zp_sha256_init(&h, err);
    if (st == ZP_OK) {
        uint64_t off = 0;
        while (st == ZP_OK && off < size) {
            size_t want = size - off < KEY_DIGEST_CHUNK ? (size_t)(size - off) : KEY_DIGEST_CHUNK;
            ssize_t got = pread(fd, buf, want, (off_t)off);
            if (got <= 0) {
                st = zp_error_set(err, ZP_ERR_IO, "%s: cannot read it at byte %llu: %s", path, (unsigned long long)off,
                                  got < 0 ? strerror(errno) : "the file ended");
            } else {
                zp_sha256_update(&h, buf, (size_t)got);
                off += (uint64_t)got;
            }
        }
        if (st == ZP_OK) {
            uint8_t d[ZP_SHA256_BYTES];
            zp_sha256_final(&h, d);
            zp_sha256_hex(hex, d);
        } else {
            zp_sha256_abort(&h);
        }
    }
    free(buf);
    close(fd);
    return st;
}

/* A streamed key's load: the file opened (mapped by the reader, its bulk
 * points never touched: a streamed proof reads them itself), the
 * coefficient list's pages given back once checked, no matrices; its
 * resident pages counted as the key's, stream_key_bytes. */
static zp_status key_load_streamed(zp_engine *e, engine_key *k, zp_error *err) {
    uint64_t transient = k->load_reserved; /* what was reserved for the coefficients' pages beyond the key's */
    zp_zkey *zkey = NULL;
    char digest[ZP_SHA256_HEX] = "";
    zp_status st = zp_zkey_open(&zkey, k->path, err);
    const zp_groth16_pk *pk = zkey ? zp_zkey_pk(zkey) : NULL;
    const char *path;
    zp_zkey_stamp stamp;
    uint64_t off[ZP_SRC_SECTIONS];
    uint32_t id[ZP_SRC_SECTIONS];
    if (st == ZP_OK) st = zp_zkey_point_sections(zkey, &path, &stamp, off, id, err);
    if (st == ZP_OK && (zp_track_round(stamp.size) != k->file_bytes || pk->n_vars != k->n_vars ||
                        pk->domain_size != k->domain_size || pk->curve != k->curve)) {
        st = zp_error_set(err, ZP_ERR_IO,
                          "%s: the key file changed since it was submitted (%llu bytes, %u wires, domain %u; it had "
                          "%llu, %u, %u)",
                          k->path, (unsigned long long)stamp.size, pk->n_vars, pk->domain_size,
                          (unsigned long long)k->file_bytes, k->n_vars, k->domain_size);
    }
    if (zkey != NULL) zp_zkey_release_coefs(zkey);
    if (st == ZP_OK && e->opt.key_digests) st = digest_file(digest, k->path, stamp.size, err);
    zp_groth16_pvk *pvk = NULL;
    if (st == ZP_OK && !e->opt.skip_verify && (pvk = zp_groth16_pvk_of_pk(pk)) == NULL)
        st = zp_error_set(err, ZP_ERR_NOMEM, "%s: out of memory preparing its verification key", k->path);
    pthread_mutex_lock(&e->lock);
    if (st == ZP_OK) {
        zp_track_account(&k->file, &e->tracker, zkey, ZP_BUF_KEY, ZP_STAGE_KEYS, k->stream_key_bytes);
        memset(&k->matrices, 0, sizeof k->matrices);
        k->zkey = zkey;
        k->pvk = pvk;
        memcpy(k->digest, digest, sizeof k->digest);
        k->state = KEY_LOADED;
    } else {
        zp_groth16_pvk_free(pvk);
        zp_zkey_close(zkey);
        e->reserved -= k->stream_key_bytes;
        k->state = KEY_UNLOADED;
    }
    /* the coefficients' pages are given back: so is their room */
    e->reserved -= transient;
    k->load_reserved = 0;
    pthread_cond_broadcast(&e->admit);
    pthread_mutex_unlock(&e->lock);
    return st;
}

zp_status engine_key_load(zp_engine *e, engine_key *k, const zp_parallel *par, zp_error *err) {
    if (k->streamed) return key_load_streamed(e, k, err);
    zp_tracked file, matrices;
    memset(&matrices, 0, sizeof matrices);
    size_t size = 0;
    zp_zkey *zkey = NULL;
    zp_status st = zp_track_map_file(&file, &size, &e->tracker, ZP_BUF_KEY, ZP_STAGE_KEYS, k->path, err);
    if (st == ZP_OK && zp_track_round(size) != k->file_bytes) {
        st = zp_error_set(err, ZP_ERR_IO, "%s: the key file changed since it was submitted (%zu bytes, not %llu)",
                          k->path, size, (unsigned long long)k->file_bytes);
    }
    /* what proofs are made with from now on, by digest: the bytes mapped,
     * not the file as it may be later */
    char digest[ZP_SHA256_HEX] = "";
    if (st == ZP_OK && e->opt.key_digests) {
        uint8_t d[ZP_SHA256_BYTES];
        st = zp_sha256_bytes(d, file.p, size, err);
        if (st == ZP_OK) zp_sha256_hex(digest, d);
    }
    if (st == ZP_OK) st = zp_zkey_open_mem(&zkey, file.p, size, k->path, err);
    const zp_groth16_pk *pk = zkey ? zp_zkey_pk(zkey) : NULL;
    if (st == ZP_OK && (pk->n_vars != k->n_vars || pk->domain_size != k->domain_size || pk->curve != k->curve ||
                        zp_track_round(zp_groth16_matrices_size(pk)) != k->matrices_bytes)) {
        st = zp_error_set(err, ZP_ERR_IO,
                          "%s: the key file changed since it was submitted (%u wires, domain %u, matrices %zu bytes; "
                          "it had %u, %u, %llu)",
                          k->path, pk->n_vars, pk->domain_size, zp_track_round(zp_groth16_matrices_size(pk)), k->n_vars,
                          k->domain_size, (unsigned long long)k->matrices_bytes);
    }
    if (st == ZP_OK) {
        st = zp_track_alloc(&matrices, &e->tracker, ZP_BUF_MATRICES, ZP_STAGE_KEYS, zp_groth16_matrices_size(pk),
                            "the constraint matrices", err);
    }
    if (st == ZP_OK) st = zp_groth16_matrices_build(matrices.p, zp_groth16_matrices_size(pk), pk, par, err);
    zp_groth16_pvk *pvk = NULL;
    if (st == ZP_OK && !e->opt.skip_verify && (pvk = zp_groth16_pvk_of_pk(pk)) == NULL)
        st = zp_error_set(err, ZP_ERR_NOMEM, "%s: out of memory preparing its verification key", k->path);
    pthread_mutex_lock(&e->lock);
    if (st == ZP_OK) {
        k->file = file;
        k->matrices = matrices;
        k->zkey = zkey;
        k->pvk = pvk;
        memcpy(k->digest, digest, sizeof k->digest);
        k->state = KEY_LOADED;
    } else {
        /* what was mapped goes back through the dealloc thread; what was
         * not, is returned now */
        uint64_t unused = engine_key_bytes(k);
        zp_groth16_pvk_free(pvk);
        zp_zkey_close(zkey);
        if (file.p) unused -= file.bytes;
        if (matrices.p) unused -= matrices.bytes;
        engine_dealloc(e, &file);
        engine_dealloc(e, &matrices);
        e->reserved -= unused;
        k->state = KEY_UNLOADED;
    }
    pthread_cond_broadcast(&e->admit);
    pthread_mutex_unlock(&e->lock);
    return st;
}

void engine_keys_free_all(zp_engine *e) {
    while (e->keys) {
        engine_key *k = e->keys;
        e->keys = k->next;
        zp_zkey_close(k->zkey);
        zp_groth16_pvk_free(k->pvk);
        zp_track_free(&e->tracker, &k->file);
        zp_track_free(&e->tracker, &k->matrices);
        free(k->path);
        free(k);
    }
}

zp_status zp_engine_key_preload(zp_engine *e, const char *key_path, zp_error *err) {
    engine_key *k;
    zp_status st = engine_key_get(&k, e, key_path, err);
    if (st != ZP_OK) return st;
    pthread_mutex_lock(&e->lock);
    while (k->state == KEY_LOADING) pthread_cond_wait(&e->admit, &e->lock);
    int load = 0;
    if (k->state == KEY_UNLOADED) {
        /* a streamed key's load needs room for its coefficients' pages
         * a moment (no partition's room to do it in) */
        uint64_t transient = k->streamed ? k->stream_load_bytes : 0, need = engine_key_bytes(k) + transient;
        if (e->reserved + need > e->budget) engine_keys_evict(e, e->reserved + need - e->budget, k);
        if (e->reserved + need > e->budget) {
            st = zp_error_set(err, ZP_ERR_NOMEM, "%s: no room in the memory budget to preload the key now", k->path);
        } else {
            e->reserved += need;
            if (e->reserved > e->peak_reserved) e->peak_reserved = e->reserved;
            k->state = KEY_LOADING;
            k->load_reserved = transient;
            k->active++; /* pinned while loading */
            load = 1;
        }
    }
    k->last_use = ++e->use_clock;
    pthread_mutex_unlock(&e->lock);
    if (load) {
        st = engine_key_load(e, k, NULL, err);
        pthread_mutex_lock(&e->lock);
        k->active--;
        pthread_mutex_unlock(&e->lock);
    }
    pthread_mutex_lock(&e->lock);
    engine_key_put(e, k);
    pthread_mutex_unlock(&e->lock);
    return st;
}

zp_status zp_engine_key_evict(zp_engine *e, const char *key_path, zp_error *err) {
    char resolved[PATH_MAX];
    if (realpath(key_path, resolved) == NULL) {
        return zp_error_set(err, ZP_ERR_IO, "%s: no such key: %s", key_path, strerror(errno));
    }
    zp_status st = ZP_OK;
    pthread_mutex_lock(&e->lock);
    engine_key *k = find(e, resolved);
    if (k == NULL || k->state == KEY_UNLOADED) {
        st = zp_error_set(err, ZP_ERR_ARG, "%s: the key is not loaded", key_path);
    } else if (k->active > 0 || k->state == KEY_LOADING) {
        st = zp_error_set(err, ZP_ERR_ARG, "%s: the key is in use by %zu partitions", key_path, k->active);
    } else {
        unload(e, k);
    }
    pthread_mutex_unlock(&e->lock);
    return st;
}

static void describe(zp_engine_key_info *i, const engine_key *k) {
    memset(i, 0, sizeof *i);
    snprintf(i->path, sizeof i->path, "%s", k->path);
    i->curve = k->curve;
    i->n_vars = k->n_vars;
    i->n_public = k->n_public;
    i->domain_size = k->domain_size;
    i->loaded = k->state == KEY_LOADED;
    i->partitions_active = k->active;
    i->jobs = k->jobs;
    i->key_bytes = k->streamed ? k->stream_key_bytes : k->file_bytes;
    i->matrices_bytes = k->streamed ? 0 : k->matrices_bytes;
    i->partition_bytes = k->footprint;
    i->streamed = k->streamed;
    i->window_bytes = k->streamed ? k->plan.window_bytes : 0;
    i->least_bytes = k->stream_need != 0 && k->stream_need < k->inmem_need ? k->stream_need : k->inmem_need;
    i->admit_bytes = engine_key_need(k);
    if (k->state == KEY_LOADED) memcpy(i->digest, k->digest, sizeof i->digest);
}

size_t zp_engine_keys(zp_engine_key_info *out, size_t max, zp_engine *e) {
    size_t n = 0;
    pthread_mutex_lock(&e->lock);
    for (engine_key *k = e->keys; k; k = k->next, n++) {
        if (n < max) describe(&out[n], k);
    }
    pthread_mutex_unlock(&e->lock);
    return n;
}

zp_status zp_engine_key_describe(zp_engine_key_info *info, zp_engine *e, const char *key_path, zp_error *err) {
    engine_key *k;
    zp_status st = engine_key_get(&k, e, key_path, err);
    if (st != ZP_OK) return st;
    pthread_mutex_lock(&e->lock);
    describe(info, k);
    engine_key_put(e, k);
    pthread_mutex_unlock(&e->lock);
    return ZP_OK;
}
