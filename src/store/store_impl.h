/* What an implementation of the job store provides (store.h): one table of
 * operations per kind, looked up by zp_store_open (store.c) from the
 * string it is given. Each implementation's handle starts with a
 * zp_store, so the table and the name are found from any handle. The
 * operations have store.h's meanings and arguments, checked for sense by
 * store.c before the call (non-NULL outputs, lengths, states). */
#ifndef ZP_STORE_STORE_IMPL_H
#define ZP_STORE_STORE_IMPL_H

#include "store/store.h"

typedef struct zp_store_ops {
    const char *kind; /* "sqlite", "postgresql" */
    int shared;       /* many daemons may use one store */
    /* whether `where` names a store of this kind */
    int (*accepts)(const char *where);
    zp_status (*open)(zp_store **out, const char *where, zp_error *err);
    void (*close)(zp_store *s);
    zp_status (*check)(zp_store *s, zp_error *err);

    zp_status (*add_job)(int64_t *id, int *existing, zp_store *s, const char *request_id, const char *request_digest,
                         const char *key_id, const char *key_digest, const char *wasm_digest, int priority,
                         uint32_t partitions, const char *const *witness_paths, zp_error *err);
    zp_status (*get_job)(zp_store_job *job, zp_store *s, int64_t id, zp_error *err);
    zp_status (*find_request)(int64_t *id, zp_store *s, const char *request_id, zp_error *err);
    zp_status (*queue_position)(uint64_t *position, zp_store *s, int64_t id, zp_error *err);
    zp_status (*finish_job)(zp_store *s, int64_t id, zp_job_state state, const char *error,
                            const zp_store_result *results, uint32_t n, zp_error *err);
    zp_status (*results)(zp_store *s, int64_t id, zp_store_result_fn fn, void *arg, zp_error *err);
    zp_status (*list)(zp_store *s, uint32_t limit, int state, zp_store_job_fn fn, void *arg, zp_error *err);
    zp_status (*unfinished)(zp_store *s, zp_store_unfinished_fn fn, void *arg, zp_error *err);
    zp_status (*witness_paths)(zp_store *s, int64_t id, zp_store_path_fn fn, void *arg, zp_error *err);
    zp_status (*count)(zp_store_counts *counts, zp_store *s, zp_error *err);
    zp_status (*expire)(uint64_t *deleted, zp_store *s, double ttl_s, zp_store_path_fn fn, void *arg, zp_error *err);
    zp_status (*clock)(double *now, zp_store *s, zp_error *err);
    zp_status (*repair)(size_t *repaired, zp_store *s, zp_store_repair_fn fn, void *arg, zp_error *err);

    zp_status (*claim)(zp_store_claim *out, size_t max, size_t *n, zp_store *s, const char *node,
                       const zp_store_key *keys, size_t n_keys, double lease_s, zp_error *err);
    zp_status (*mismatches)(zp_store *s, const zp_store_key *keys, size_t n_keys, zp_store_mismatch_fn fn, void *arg,
                            zp_error *err);
    zp_status (*renew)(int *lost, zp_store *s, const char *node, const zp_store_held *held, size_t n, double lease_s,
                       zp_error *err);
    zp_status (*release)(zp_store *s, const char *node, const zp_store_held *held, size_t n, zp_error *err);
    zp_status (*finish_part)(int *job_ended, zp_store *s, const zp_store_held *h, zp_job_state state, const char *error,
                             const zp_store_result *result, zp_error *err);

    zp_status (*join)(zp_store *s, const zp_store_node *me, double lease_s, zp_error *err);
    zp_status (*heartbeat)(zp_store *s, const zp_store_node *me, zp_error *err);
    zp_status (*leave)(zp_store *s, const char *node, zp_error *err);
    zp_status (*nodes)(zp_store *s, zp_store_node_fn fn, void *arg, zp_error *err);
} zp_store_ops;

struct zp_store {
    const zp_store_ops *ops;
    const char *name; /* for messages: the path, or the URI without its password */
};

extern const zp_store_ops zp_store_sqlite_ops;
extern const zp_store_ops zp_store_pg_ops;

/* The state names as the stores keep them (the engine's names). */
#define ZP_STORE_STATES 5

/* The longest lease a daemon takes (the lease option's bound), and the
 * slack past it after which a claim's lease is absurd (zp_store_repair). */
#define ZP_STORE_MAX_LEASE_S 86400.0
#define ZP_STORE_LEASE_SLACK_S 60.0

/* Why zp_store_repair queued a partition again. */
typedef enum zp_store_repair_why {
    ZP_STORE_REPAIR_NO_LEASE,      /* claimed without a lease */
    ZP_STORE_REPAIR_LEASE_FOREVER, /* claimed with a lease that never ends */
    ZP_STORE_REPAIR_LEASE_LONG,    /* claimed with a lease past any daemon's */
    ZP_STORE_REPAIR_NO_NODE,       /* claimed by no daemon of the store */
    ZP_STORE_REPAIR_UNPROVED,      /* marked done without a proof */
} zp_store_repair_why;

/* The line zp_store_repair's fn gets for a partition repaired for why,
 * the same from every kind; owner is the claim's (unused for UNPROVED). */
void zp_store_repair_line(char *line, size_t cap, zp_store_repair_why why, const char *owner);

/* Whether a claim of key k may take a partition of a job with these pins
 * ("" for none): the same digests, or a job without pins. */
int zp_store_key_matches(const zp_store_key *k, const char *key_id, const char *key_digest, const char *wasm_digest);
/* Whether a proof with these digests may be recorded for a job with these
 * pins (store.h zp_store_finish_part). */
int zp_store_result_matches(const zp_store_result *r, const char *key_digest, const char *wasm_digest);

#endif
