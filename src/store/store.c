/* The job store's one place of choice (store.h): the kinds, looked up by
 * what zp_store_open is given, and the calls, checked for sense once here
 * and handed to the kind's table (store_impl.h). */
#include "store/store.h"

#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "store/store_impl.h"

/* The last accepts everything: a path. */
static const zp_store_ops *const kinds[] = {&zp_store_pg_ops, &zp_store_sqlite_ops};

zp_status zp_store_open(zp_store **out, const char *where, zp_error *err) {
    *out = NULL;
    if (where == NULL || *where == '\0') return zp_error_set(err, ZP_ERR_ARG, "store: no database path or URI");
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (kinds[i]->accepts(where)) return kinds[i]->open(out, where, err);
    return zp_error_set(err, ZP_ERR_ARG, "store '%s': not a path or a postgresql:// URI", where);
}

void zp_store_close(zp_store *s) {
    if (s != NULL) s->ops->close(s);
}

const char *zp_store_kind(const zp_store *s) { return s->ops->kind; }
const char *zp_store_name(const zp_store *s) { return s->name; }
int zp_store_shared(const zp_store *s) { return s->ops->shared; }

zp_status zp_store_check(zp_store *s, zp_error *err) { return s->ops->check(s, err); }

static int bad_string(const char *v, size_t max) { return v == NULL || *v == '\0' || strlen(v) > max; }

/* NULL, "", or 64 lower-case hex digits. */
static int bad_digest(const char *d) {
    if (d == NULL || *d == '\0') return 0;
    size_t n = 0;
    for (; d[n]; n++)
        if (!((d[n] >= '0' && d[n] <= '9') || (d[n] >= 'a' && d[n] <= 'f'))) return 1;
    return n != 64;
}

static const char *or_empty(const char *v) { return v ? v : ""; }

int zp_store_key_matches(const zp_store_key *k, const char *key_id, const char *key_digest, const char *wasm_digest) {
    if (key_id == NULL || strcmp(k->id, key_id) != 0) return 0;
    key_digest = or_empty(key_digest);
    wasm_digest = or_empty(wasm_digest);
    if (*key_digest == '\0' && *wasm_digest == '\0') return 1; /* a job from before pins */
    return strcmp(key_digest, or_empty(k->digest)) == 0 &&
           (*wasm_digest == '\0' || strcmp(wasm_digest, or_empty(k->wasm_digest)) == 0);
}

int zp_store_result_matches(const zp_store_result *r, const char *key_digest, const char *wasm_digest) {
    key_digest = or_empty(key_digest);
    wasm_digest = or_empty(wasm_digest);
    return (*key_digest == '\0' || strcmp(key_digest, or_empty(r->key_digest)) == 0) &&
           (*wasm_digest == '\0' || strcmp(wasm_digest, or_empty(r->wasm_digest)) == 0);
}

zp_status zp_store_add_job(int64_t *id, int *existing, zp_store *s, const char *request_id, const char *request_digest,
                           const char *key_id, const char *key_digest, const char *wasm_digest, int priority,
                           uint32_t partitions, const char *const *witness_paths, zp_error *err) {
    static const char what[] = "adding a job";
    *id = 0;
    *existing = 0;
    if (request_id != NULL && *request_id == '\0') request_id = NULL;
    if (request_id != NULL && strlen(request_id) > 128)
        return zp_error_set(err, ZP_ERR_ARG, "%s: %s: request id longer than 128 bytes", s->name, what);
    if (request_digest != NULL && *request_digest == '\0') request_digest = NULL;
    if (request_digest != NULL && strlen(request_digest) > 64)
        return zp_error_set(err, ZP_ERR_ARG, "%s: %s: request digest longer than 64 bytes", s->name, what);
    if (bad_string(key_id, 127))
        return zp_error_set(err, ZP_ERR_ARG, "%s: %s: key id empty or longer than 127 bytes", s->name, what);
    if (bad_digest(key_digest) || bad_digest(wasm_digest) || (or_empty(wasm_digest)[0] && !or_empty(key_digest)[0]))
        return zp_error_set(err, ZP_ERR_ARG, "%s: %s: a pin that is not a SHA-256 digest (64 lower-case hex digits)",
                            s->name, what);
    if (partitions == 0 || witness_paths == NULL)
        return zp_error_set(err, ZP_ERR_ARG, "%s: %s: no partitions", s->name, what);
    for (uint32_t i = 0; i < partitions; i++)
        if (bad_string(witness_paths[i], 4095))
            return zp_error_set(err, ZP_ERR_ARG, "%s: %s: no witness path (or one over 4095 bytes) for partition %u",
                                s->name, what, i);
    return s->ops->add_job(id, existing, s, request_id, request_digest, key_id, or_empty(key_digest),
                           or_empty(wasm_digest), priority, partitions, witness_paths, err);
}

zp_status zp_store_get_job(zp_store_job *job, zp_store *s, int64_t id, zp_error *err) {
    return s->ops->get_job(job, s, id, err);
}

zp_status zp_store_find_request(int64_t *id, zp_store *s, const char *request_id, zp_error *err) {
    *id = 0;
    if (request_id == NULL || *request_id == '\0') return ZP_OK;
    return s->ops->find_request(id, s, request_id, err);
}

zp_status zp_store_queue_position(uint64_t *position, zp_store *s, int64_t id, zp_error *err) {
    *position = 0;
    return s->ops->queue_position(position, s, id, err);
}

zp_status zp_store_finish_job(zp_store *s, int64_t id, zp_job_state state, const char *error,
                              const zp_store_result *results, uint32_t n, zp_error *err) {
    static const char what[] = "recording a job's end";
    if (state != ZP_JOB_DONE && state != ZP_JOB_FAILED && state != ZP_JOB_CANCELLED)
        return zp_error_set(err, ZP_ERR_ARG, "%s: %s: '%s' is not an end state (done, failed, cancelled)", s->name,
                            what, zp_job_state_name(state));
    if (n != 0 && results == NULL) return zp_error_set(err, ZP_ERR_ARG, "%s: %s: no results", s->name, what);
    if (error != NULL && *error == '\0') error = NULL;
    return s->ops->finish_job(s, id, state, error, results, n, err);
}

zp_status zp_store_results(zp_store *s, int64_t id, zp_store_result_fn fn, void *arg, zp_error *err) {
    return s->ops->results(s, id, fn, arg, err);
}

zp_status zp_store_list(zp_store *s, uint32_t limit, int state, zp_store_job_fn fn, void *arg, zp_error *err) {
    if (state < -1 || state >= ZP_STORE_STATES)
        return zp_error_set(err, ZP_ERR_ARG, "%s: listing jobs: no state %d", s->name, state);
    return s->ops->list(s, limit, state, fn, arg, err);
}

zp_status zp_store_unfinished(zp_store *s, zp_store_unfinished_fn fn, void *arg, zp_error *err) {
    return s->ops->unfinished(s, fn, arg, err);
}

zp_status zp_store_witness_paths(zp_store *s, int64_t id, zp_store_path_fn fn, void *arg, zp_error *err) {
    return s->ops->witness_paths(s, id, fn, arg, err);
}

zp_status zp_store_count(zp_store_counts *counts, zp_store *s, zp_error *err) {
    memset(counts, 0, sizeof *counts);
    return s->ops->count(counts, s, err);
}

zp_status zp_store_expire(uint64_t *deleted, zp_store *s, double ttl_s, zp_store_path_fn fn, void *arg, zp_error *err) {
    *deleted = 0;
    if (!(ttl_s >= 0)) return zp_error_set(err, ZP_ERR_ARG, "%s: expiring jobs: a ttl of %g s", s->name, ttl_s);
    return s->ops->expire(deleted, s, ttl_s, fn, arg, err);
}

zp_status zp_store_clock(double *now, zp_store *s, zp_error *err) {
    *now = 0;
    return s->ops->clock(now, s, err);
}

void zp_store_repair_line(char *line, size_t cap, zp_store_repair_why why, const char *owner) {
    switch (why) {
    case ZP_STORE_REPAIR_NO_LEASE: snprintf(line, cap, "claimed by '%s' without a lease: queued again", owner); break;
    case ZP_STORE_REPAIR_LEASE_FOREVER:
        snprintf(line, cap, "claimed by '%s' with a lease that never ends: queued again", owner);
        break;
    case ZP_STORE_REPAIR_LEASE_LONG:
        snprintf(line, cap, "claimed by '%s' with a lease past any daemon's (a day): queued again", owner);
        break;
    case ZP_STORE_REPAIR_NO_NODE:
        snprintf(line, cap, "claimed by '%s', no daemon of the store: queued again", owner);
        break;
    case ZP_STORE_REPAIR_UNPROVED:
        snprintf(line, cap, "marked done without a proof: queued again, to be proved");
        break;
    }
}

zp_status zp_store_repair(size_t *repaired, zp_store *s, zp_store_repair_fn fn, void *arg, zp_error *err) {
    *repaired = 0;
    return s->ops->repair(repaired, s, fn, arg, err);
}

/* ---- claims ---- */

static zp_status check_node(zp_store *s, const char *node, const char *what, zp_error *err) {
    if (bad_string(node, 127))
        return zp_error_set(err, ZP_ERR_ARG, "%s: %s: the daemon's node id is empty or longer than 127 bytes", s->name,
                            what);
    return ZP_OK;
}

static zp_status check_lease(zp_store *s, double lease_s, const char *what, zp_error *err) {
    if (!(lease_s >= 0.1 && lease_s <= 86400))
        return zp_error_set(err, ZP_ERR_ARG, "%s: %s: a lease of %g s (0.1 to 86400)", s->name, what, lease_s);
    return ZP_OK;
}

/* Every key has an id of 1..127 bytes and digests that are digests. */
static zp_status check_keys(zp_store *s, const zp_store_key *keys, size_t n_keys, const char *what, zp_error *err) {
    for (size_t i = 0; keys != NULL && i < n_keys; i++)
        if (bad_string(keys[i].id, 127) || bad_digest(keys[i].digest) || bad_digest(keys[i].wasm_digest))
            return zp_error_set(err, ZP_ERR_ARG, "%s: %s: key %zu: an id of 1 to 127 bytes and SHA-256 digests",
                                s->name, what, i);
    return ZP_OK;
}

zp_status zp_store_claim_work(zp_store_claim *out, size_t max, size_t *n, zp_store *s, const char *node,
                              const zp_store_key *keys, size_t n_keys, double lease_s, zp_error *err) {
    *n = 0;
    zp_status st = check_node(s, node, "claiming work", err);
    if (st == ZP_OK) st = check_lease(s, lease_s, "claiming work", err);
    if (st == ZP_OK) st = check_keys(s, keys, n_keys, "claiming work", err);
    if (st != ZP_OK || max == 0 || (keys != NULL && n_keys == 0)) return st;
    return s->ops->claim(out, max, n, s, node, keys, n_keys, lease_s, err);
}

zp_status zp_store_mismatches(zp_store *s, const zp_store_key *keys, size_t n_keys, zp_store_mismatch_fn fn, void *arg,
                              zp_error *err) {
    zp_status st = check_keys(s, keys, n_keys, "finding jobs pinned to other keys", err);
    if (st != ZP_OK || keys == NULL || n_keys == 0) return st;
    return s->ops->mismatches(s, keys, n_keys, fn, arg, err);
}

zp_status zp_store_renew(int *lost, zp_store *s, const char *node, const zp_store_held *held, size_t n, double lease_s,
                         zp_error *err) {
    zp_status st = check_node(s, node, "renewing leases", err);
    if (st == ZP_OK) st = check_lease(s, lease_s, "renewing leases", err);
    if (st != ZP_OK || n == 0) return st;
    memset(lost, 0, n * sizeof *lost);
    return s->ops->renew(lost, s, node, held, n, lease_s, err);
}

zp_status zp_store_release(zp_store *s, const char *node, const zp_store_held *held, size_t n, zp_error *err) {
    zp_status st = check_node(s, node, "releasing claims", err);
    if (st != ZP_OK || (held != NULL && n == 0)) return st;
    return s->ops->release(s, node, held, n, err);
}

zp_status zp_store_finish_part(int *job_ended, zp_store *s, const zp_store_held *h, zp_job_state state,
                               const char *error, const zp_store_result *result, zp_error *err) {
    static const char what[] = "recording a partition's end";
    *job_ended = 0;
    if (state == ZP_JOB_DONE && (result == NULL || result->proof_json == NULL || result->public_json == NULL))
        return zp_error_set(err, ZP_ERR_ARG, "%s: %s: done without a proof", s->name, what);
    if (state != ZP_JOB_DONE && state != ZP_JOB_FAILED)
        return zp_error_set(err, ZP_ERR_ARG, "%s: %s: '%s' is not done or failed", s->name, what,
                            zp_job_state_name(state));
    if (error != NULL && *error == '\0') error = NULL;
    return s->ops->finish_part(job_ended, s, h, state, error, result, err);
}

/* ---- daemons ---- */

zp_status zp_store_join(zp_store *s, const zp_store_node *me, double lease_s, zp_error *err) {
    zp_status st = check_node(s, me->id, "joining", err);
    if (st == ZP_OK && lease_s != 0) st = check_lease(s, lease_s, "joining", err);
    return st != ZP_OK ? st : s->ops->join(s, me, lease_s, err);
}

zp_status zp_store_heartbeat(zp_store *s, const zp_store_node *me, zp_error *err) {
    zp_status st = check_node(s, me->id, "heartbeat", err);
    return st != ZP_OK ? st : s->ops->heartbeat(s, me, err);
}

zp_status zp_store_leave(zp_store *s, const char *node, zp_error *err) {
    zp_status st = check_node(s, node, "leaving", err);
    return st != ZP_OK ? st : s->ops->leave(s, node, err);
}

zp_status zp_store_nodes(zp_store *s, zp_store_node_fn fn, void *arg, zp_error *err) {
    return s->ops->nodes(s, fn, arg, err);
}
