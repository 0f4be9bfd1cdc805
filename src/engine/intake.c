/* Memory beside the pipeline (include/zkpipe_engine.h, "Memory beside
 * the pipeline"): buffers a caller holds next to the engine's work, the
 * daemon's request bodies in flight, reserved from the same budget as the
 * partitions and counted as class intake.
 *
 * The memory is an anonymous mapping of this file's own, counted with
 * zp_track_account, so that a body whose size is not known up front (a
 * chunked upload) can grow with mremap instead of a copy. A reservation
 * never waits: a request that finds no room is answered at once (the
 * daemon says 503 and when to retry), never parked holding a connection.
 * When no job is queued or running, idle keys are evicted for the
 * shortfall, as admission does, so that a loaded key nobody uses cannot
 * keep uploads out for good. */
#define _GNU_SOURCE /* mremap */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/error.h"
#include "engine/internal.h"
#include "mem/large.h"

struct zp_intake {
    zp_tracked mem; /* p: the mapping (moved by a grow); bytes: counted, page-rounded */
    size_t size;    /* as asked for */
};

/* Takes bytes from the budget now, or says why not. */
static zp_status intake_reserve(zp_engine *e, uint64_t bytes, zp_error *err) {
    pthread_mutex_lock(&e->lock);
    if (e->budget != ZP_BUDGET_UNLIMITED) {
        if (bytes > e->budget) {
            uint64_t budget = e->budget;
            pthread_mutex_unlock(&e->lock);
            return zp_error_set(err, ZP_ERR_ARG,
                                "%llu bytes are more than the memory budget can ever hold for buffers (%llu)",
                                (unsigned long long)bytes, (unsigned long long)budget);
        }
        if (e->reserved + bytes > e->budget) {
            uint64_t reserved = e->reserved, budget = e->budget;
            /* keys nobody will use soon make room for the retry; while
             * jobs are queued or running their keys stay (evicting them
             * for uploads would only make the partitions load them again) */
            int busy = 0;
            for (engine_job *j = e->jobs; j && !busy; j = j->next)
                busy = j->state == ZP_JOB_QUEUED || j->state == ZP_JOB_RUNNING;
            if (!busy) engine_keys_evict(e, e->reserved + bytes - e->budget, NULL);
            pthread_mutex_unlock(&e->lock);
            return zp_error_set(err, ZP_ERR_NOMEM,
                                "no room in the memory budget now for %llu bytes (%llu of %llu reserved)",
                                (unsigned long long)bytes, (unsigned long long)reserved, (unsigned long long)budget);
        }
    }
    e->reserved += bytes;
    if (e->reserved > e->peak_reserved) e->peak_reserved = e->reserved;
    pthread_mutex_unlock(&e->lock);
    return ZP_OK;
}

static void intake_release(zp_engine *e, uint64_t bytes) {
    pthread_mutex_lock(&e->lock);
    e->reserved -= bytes;
    pthread_cond_broadcast(&e->admit);
    pthread_mutex_unlock(&e->lock);
}

zp_status zp_engine_intake_alloc(zp_intake **out, zp_engine *e, size_t bytes, zp_error *err) {
    *out = NULL;
    zp_intake *b = calloc(1, sizeof *b);
    if (b == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    size_t rounded = zp_track_round(bytes);
    zp_status st = intake_reserve(e, rounded, err);
    if (st != ZP_OK) {
        free(b);
        return st;
    }
    void *p = zp_mem_map(rounded, "a request body", err);
    if (p == NULL) {
        intake_release(e, rounded);
        free(b);
        return ZP_ERR_NOMEM;
    }
    zp_track_account(&b->mem, &e->tracker, p, ZP_BUF_INTAKE, ZP_STAGE_KEYS, rounded);
    b->size = bytes;
    *out = b;
    return ZP_OK;
}

zp_status zp_engine_intake_grow(zp_engine *e, zp_intake *b, size_t bytes, zp_error *err) {
    if (bytes <= b->size) return ZP_OK;
    size_t rounded = zp_track_round(bytes);
    if (rounded > b->mem.bytes) {
        uint64_t more = rounded - b->mem.bytes;
        zp_status st = intake_reserve(e, more, err);
        if (st != ZP_OK) return st;
        void *p = mremap(b->mem.p, b->mem.bytes, rounded, MREMAP_MAYMOVE);
        if (p == MAP_FAILED) {
            int en = errno;
            intake_release(e, more);
            return zp_error_set(err, ZP_ERR_NOMEM, "out of memory growing a request body to %zu bytes: %s", bytes,
                                strerror(en));
        }
        b->mem.p = p; /* the tracker never dereferences it */
        zp_track_account_resize(&e->tracker, &b->mem, rounded);
    }
    b->size = bytes;
    return ZP_OK;
}

void *zp_intake_data(const zp_intake *b) { return b ? b->mem.p : NULL; }
size_t zp_intake_size(const zp_intake *b) { return b ? b->size : 0; }

void zp_engine_intake_free(zp_engine *e, zp_intake *b) {
    if (b == NULL) return;
    uint64_t bytes = b->mem.bytes;
    void *p = b->mem.p;
    /* unmapped before it is uncounted, so that RSS never holds a body the
     * tracker no longer counts (the daemon's status sets one against the
     * other) */
    zp_mem_unmap(p, bytes);
    zp_track_free(&e->tracker, &b->mem); /* uncounts: the mapping is ours */
    free(b);
    intake_release(e, bytes);
}
