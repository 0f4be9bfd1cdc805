/* The collector thread: takes each job the engine ended, records its
 * proofs, timings and state in the store in one transaction, then removes
 * its spooled witnesses and counts it in the metrics. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/error.h"
#include "groth16/groth16.h"
#include "io/json.h"
#include "server/internal.h"

/* ---- the collector: how jobs ended, into the store ---------------------- */

static void record(zp_server *s, uint64_t engine_id) {
    pthread_mutex_lock(&s->lock);
    int64_t id = server_store_id(s, engine_id, 0);
    pthread_mutex_unlock(&s->lock);
    if (id == 0) return;
    zp_error err;
    zp_job_info info;
    if (zp_engine_job(&info, s->engine, engine_id, 0, &err) != ZP_OK) return;
    size_t n = info.partitions;
    zp_store_result *results = calloc(n, sizeof *results);
    zp_partition_times *times = calloc(n, sizeof *times);
    char **texts = calloc(2 * n, sizeof *texts);
    const char *state = info.state == ZP_JOB_DONE ? "done" : info.state == ZP_JOB_FAILED ? "failed" : "cancelled";
    zp_status st = results && times && texts ? ZP_OK : zp_error_set(&err, ZP_ERR_NOMEM, "out of memory");
    for (size_t i = 0; st == ZP_OK && i < n; i++) {
        if (zp_engine_partition_times(&times[i], s->engine, engine_id, i, &err) != ZP_OK) continue;
        results[i].times = times[i];
        if (info.state != ZP_JOB_DONE) continue;
        zp_groth16_proof proof;
        uint64_t pub[4 * 64], *pubs = pub;
        size_t np = 0;
        st = zp_engine_proof(&proof, NULL, 0, &np, s->engine, engine_id, i, &err);
        if (st == ZP_OK && np > 64) pubs = malloc(np * ZP_SCALAR_BYTES);
        if (st == ZP_OK && pubs == NULL) st = zp_error_set(&err, ZP_ERR_NOMEM, "out of memory");
        if (st == ZP_OK) st = zp_engine_proof(&proof, pubs, np, &np, s->engine, engine_id, i, &err);
        if (st == ZP_OK) st = zp_json_proof_dump(&texts[2 * i], &proof, &err);
        if (st == ZP_OK) st = zp_json_public_dump(&texts[2 * i + 1], pubs, np, &err);
        if (pubs != pub) free(pubs);
        results[i].proof_json = texts[2 * i];
        results[i].public_json = texts[2 * i + 1];
    }
    if (st == ZP_OK) {
        const char *why = info.state == ZP_JOB_DONE ? "" : info.state == ZP_JOB_FAILED ? info.error.message : "cancelled";
        st = zp_store_finish_job(s->store, id, state, why, zp_clock_wall(), results, (uint32_t)n, &err);
    }
    if (st == ZP_OK) {
        zp_error e2;
        if (zp_store_witness_paths(s->store, id, server_spool_remove, s, &e2) != ZP_OK) server_log(s, 0, "%s", e2.message);
        server_log(s, 1, "job %lld %s%s%s", (long long)id, state, info.state == ZP_JOB_FAILED ? ": " : "",
              info.state == ZP_JOB_FAILED ? info.error.message : "");
    } else {
        /* not recorded: the job stays queued in the store and runs again
         * after a restart; its result here is dropped */
        server_log(s, 0, "job %lld: could not record its end: %s", (long long)id, err.message);
    }
    pthread_mutex_lock(&s->lock);
    server_store_id(s, engine_id, 1);
    if (st == ZP_OK) {
        s->outcomes[info.state == ZP_JOB_DONE ? 0 : info.state == ZP_JOB_FAILED ? 1 : 2]++;
        if (info.state == ZP_JOB_DONE) {
            s->proofs += n;
            server_metrics_job(s, times, n);
        }
    }
    pthread_cond_broadcast(&s->ended);
    pthread_mutex_unlock(&s->lock);
    zp_engine_forget(s->engine, engine_id);
    for (size_t i = 0; texts && i < 2 * n; i++) free(texts[i]);
    free(texts);
    free(times);
    free(results);
}

void *server_collector_main(void *arg) {
    zp_server *s = arg;
    for (;;) {
        pthread_mutex_lock(&s->lock);
        int stop = s->stop_threads;
        pthread_mutex_unlock(&s->lock);
        if (stop) break;
        uint64_t engine_id;
        if (zp_engine_next_ended(&engine_id, s->engine, 0.25)) record(s, engine_id);
    }
    return NULL;
}
