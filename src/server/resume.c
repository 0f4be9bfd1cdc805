/* Resume after a stop or a crash: every job the store still holds as
 * unfinished is submitted to the engine again (its witnesses are in the
 * spool); one that cannot be (its key is gone, its rows are damaged) is
 * recorded as failed with the reason, and the daemon starts all the same.
 * Then the spool is swept: a file no resumed job holds is an orphan. */
#include <stdlib.h>
#include <sys/stat.h>

#include "base/clock.h"
#include "base/error.h"
#include "server/internal.h"

typedef struct resume_ctx {
    zp_server *s;
    size_t resumed, failed;
    spool_file_id *keep; /* the resumed jobs' witnesses */
    size_t n_keep, cap_keep;
    int keep_failed;     /* out of memory: sweep nothing */
} resume_ctx;

static void keep_files(resume_ctx *r, const char *const *paths, size_t n) {
    for (size_t i = 0; i < n && !r->keep_failed; i++) {
        struct stat sb;
        if (paths[i] == NULL || stat(paths[i], &sb) != 0) continue;
        if (r->n_keep == r->cap_keep) {
            size_t cap = r->cap_keep ? 2 * r->cap_keep : 64;
            spool_file_id *grown = realloc(r->keep, cap * sizeof *grown);
            if (grown == NULL) {
                r->keep_failed = 1;
                return;
            }
            r->keep = grown;
            r->cap_keep = cap;
        }
        r->keep[r->n_keep++] = (spool_file_id){(uint64_t)sb.st_dev, (uint64_t)sb.st_ino};
    }
}

static void resume_job(void *arg, const zp_store_job *job, const char *const *paths, const char *damage) {
    resume_ctx *r = arg;
    zp_server *s = r->s;
    zp_error err;
    uint64_t engine_id;
    char *key_path = NULL, *wasm = NULL;
    zp_status st = ZP_OK;
    if (damage != NULL) {
        st = zp_error_set(&err, ZP_ERR_FORMAT, "cannot be resumed: its rows in the store are damaged: %s", damage);
    } else {
        key_path = server_key_path(s, job->key_id, &err);
        if (key_path == NULL) st = ZP_ERR_ARG;
    }
    /* a job given inputs: its spooled files are input.json (N.json), and
     * the key's circuit computes the witnesses again */
    int inputs = st == ZP_OK && job->partitions > 0 && server_spooled_inputs(paths[0]);
    for (uint32_t i = 0; st == ZP_OK && i < job->partitions; i++) {
        if (server_spooled_inputs(paths[i]) != inputs)
            st = zp_error_set(&err, ZP_ERR_FORMAT, "cannot be resumed: its partitions mix inputs and witnesses");
    }
    if (st == ZP_OK && inputs && (wasm = server_key_wasm(s, job->key_id)) == NULL)
        st = zp_error_set(&err, ZP_ERR_ARG, "cannot be resumed: its inputs need key '%s''s circuit, and it has none now",
                          job->key_id);
    if (st == ZP_OK)
        st = server_engine_submit(&engine_id, s, key_path, wasm, job->priority, paths, job->partitions, &err);
    free(key_path);
    free(wasm);
    if (st == ZP_OK) {
        pthread_mutex_lock(&s->lock);
        if (!server_add_active(s, job->id, engine_id)) st = zp_error_set(&err, ZP_ERR_NOMEM, "out of memory");
        pthread_mutex_unlock(&s->lock);
    }
    if (st == ZP_OK) {
        r->resumed++;
        keep_files(r, paths, job->partitions);
        return;
    }
    r->failed++;
    server_log(s, 0, "job %lld: %s", (long long)job->id, err.message);
    zp_error e2;
    if (zp_store_finish_job(s->store, job->id, "failed", err.message, zp_clock_wall(), NULL, 0, &e2) != ZP_OK) {
        server_log(s, 0, "job %lld: %s", (long long)job->id, e2.message);
    }
}

zp_status server_resume(zp_server *s, zp_error *err) {
    resume_ctx r = {s, 0, 0, NULL, 0, 0, 0};
    zp_status st = zp_store_unfinished(s->store, resume_job, &r, err);
    if (r.resumed || r.failed) server_log(s, 1, "resumed %zu unfinished jobs (%zu could not be)", r.resumed, r.failed);
    /* Only after a complete listing: a partial one would sweep live files. */
    if (st == ZP_OK && !r.keep_failed) {
        size_t removed;
        uint64_t bytes;
        server_spool_sweep(s, r.keep, r.n_keep, &removed, &bytes);
        if (removed) {
            server_log(s, 1, "removed %zu orphaned spool files (%llu bytes) no unfinished job holds", removed,
                       (unsigned long long)bytes);
        }
    } else if (r.keep_failed) {
        server_log(s, 0, "out of memory listing the spool's live files: the spool is not swept");
    }
    free(r.keep);
    return st;
}
