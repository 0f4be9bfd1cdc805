/* Resume after a stop or a crash: the daemon joins the store, which
 * queues again whatever an earlier run of it had claimed; the dispatcher
 * then claims the work as any other. Only the partitions that were in
 * flight are proved again: those finished were recorded one by one. A job
 * whose rows are damaged is recorded as failed with the reason, and the
 * daemon starts all the same. Then the spool is swept: a file no
 * unfinished job holds is an orphan. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/error.h"
#include "server/internal.h"

typedef struct resume_ctx {
    zp_server *s;
    size_t resumed, failed;
    spool_file_id *keep; /* the resumed jobs' witnesses */
    size_t n_keep, cap_keep;
    int keep_failed; /* out of memory: sweep nothing */
} resume_ctx;

/* Each of a job's files, by device and inode, beneath the spool (a path
 * a row names is never stat'ed as given). */
static void keep_files(resume_ctx *r, const char *const *paths, size_t n) {
    for (size_t i = 0; i < n && !r->keep_failed; i++) {
        struct stat sb;
        zp_error ignored;
        if (paths[i] == NULL || server_spool_stat(&sb, r->s, paths[i], &ignored) != ZP_OK) continue;
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

/* Each unfinished job: its files are live (kept by the sweep); one whose
 * rows are damaged is failed with the reason, the rest of the store is
 * served all the same. */
static void resume_job(void *arg, const zp_store_job *job, const char *const *paths, const char *damage) {
    resume_ctx *r = arg;
    zp_server *s = r->s;
    /* a row naming a file that is not beneath the spool (or is reached
     * through a symlink) fails its job now, and nothing of it is touched */
    zp_error refused;
    char why[600];
    for (size_t i = 0; damage == NULL && paths != NULL && i < job->partitions; i++) {
        struct stat sb;
        if (server_spool_stat(&sb, s, paths[i], &refused) == ZP_ERR_ARG) {
            snprintf(why, sizeof why, "partition %zu: %s", i, refused.message);
            damage = why;
        }
    }
    if (damage == NULL) {
        r->resumed++;
        keep_files(r, paths, job->partitions);
        return;
    }
    r->failed++;
    zp_error err, e2;
    zp_error_set(&err, ZP_ERR_FORMAT, "cannot be resumed: its rows in the store are damaged: %s", damage);
    server_log(s, 0, "job %lld: %s", (long long)job->id, err.message);
    if (zp_store_finish_job(s->store, job->id, ZP_JOB_FAILED, err.message, NULL, 0, &e2) != ZP_OK)
        server_log(s, 0, "job %lld: %s", (long long)job->id, e2.message);
}

/* A daemon of this node id that is alive: on this host, its process; on
 * another, a heartbeat younger than the lease. */
typedef struct twin_ctx {
    const zp_server *s;
    char why[512];
} twin_ctx;

static void find_twin(void *arg, const zp_store_node *n) {
    twin_ctx *t = arg;
    const zp_server *s = t->s;
    if (strcmp(n->id, s->node) != 0 || n->heartbeat_age >= (double)s->cfg.lease) return;
    if (strcmp(n->host, s->host) == 0) {
        if (n->pid == (int64_t)getpid() || n->pid <= 0 || (kill((pid_t)n->pid, 0) != 0 && errno == ESRCH)) return;
        snprintf(t->why, sizeof t->why, "process %lld on this host", (long long)n->pid);
    } else {
        snprintf(t->why, sizeof t->why, "a daemon at %.200s (heartbeat %.1f s ago)", n->host, n->heartbeat_age);
    }
}

/* Joins the store as s->node; an earlier run's claims go back to the
 * queue. Another live daemon with the same node id is refused: the two
 * would give each other's work away. */
static zp_status join(zp_server *s, zp_error *err) {
    twin_ctx t = {s, ""};
    zp_status st = zp_store_nodes(s->store, find_twin, &t, err);
    if (st != ZP_OK) return st;
    if (t.why[0])
        return zp_error_set(err, ZP_ERR_ARG,
                            "node id '%s' is in use by %s: give each daemon of the store its own node option", s->node,
                            t.why);
    zp_store_node me = {0};
    snprintf(me.id, sizeof me.id, "%s", s->node);
    snprintf(me.host, sizeof me.host, "%s", s->host);
    me.pid = (int64_t)getpid();
    me.started = s->started;
    return zp_store_join(s->store, &me, 0, err);
}

zp_status server_resume(zp_server *s, zp_error *err) {
    zp_status st = join(s, err);
    if (st != ZP_OK) return st;
    resume_ctx r = {s, 0, 0, NULL, 0, 0, 0};
    st = zp_store_unfinished(s->store, resume_job, &r, err);
    if (r.resumed || r.failed)
        server_log(s, 1, "%zu unfinished jobs in the store (%zu could not be resumed)", r.resumed, r.failed);
    /* Only after a complete listing: a partial one would sweep live files.
     * A shared spool is the fleet's: files of jobs another daemon is
     * accepting right now are in it, not yet in the store. */
    if (st == ZP_OK && !r.keep_failed && !zp_store_shared(s->store)) {
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
