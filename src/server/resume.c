/* Resume after a stop or a crash: every job the store still holds as
 * unfinished is submitted to the engine again (its witnesses are in the
 * spool); one that cannot be (its key is gone) is recorded as failed. */
#include <stdlib.h>

#include "base/clock.h"
#include "base/error.h"
#include "server/internal.h"

typedef struct resume_ctx {
    zp_server *s;
    size_t resumed, failed;
} resume_ctx;

static void resume_job(void *arg, const zp_store_job *job, const char *const *paths) {
    resume_ctx *r = arg;
    zp_server *s = r->s;
    zp_error err;
    uint64_t engine_id;
    char *key_path = server_key_path(s, job->key_id, &err);
    zp_status st = key_path ? ZP_OK : ZP_ERR_ARG;
    if (st == ZP_OK) st = server_engine_submit(&engine_id, s, key_path, job->priority, paths, job->partitions, &err);
    free(key_path);
    if (st == ZP_OK) {
        pthread_mutex_lock(&s->lock);
        if (!server_add_active(s, job->id, engine_id)) st = zp_error_set(&err, ZP_ERR_NOMEM, "out of memory");
        pthread_mutex_unlock(&s->lock);
    }
    if (st == ZP_OK) {
        r->resumed++;
        return;
    }
    r->failed++;
    zp_error e2;
    if (zp_store_finish_job(s->store, job->id, "failed", err.message, zp_clock_wall(), NULL, 0, &e2) != ZP_OK) {
        server_log(s, 0, "job %lld: %s", (long long)job->id, e2.message);
    }
}

zp_status server_resume(zp_server *s, zp_error *err) {
    resume_ctx r = {s, 0, 0};
    zp_status st = zp_store_unfinished(s->store, resume_job, &r, err);
    if (r.resumed || r.failed) server_log(s, 1, "resumed %zu unfinished jobs (%zu could not be)", r.resumed, r.failed);
    return st;
}
