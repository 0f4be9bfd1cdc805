/* The worker pool (src/engine/pool.c): every loop runs each index once,
 * on any thread count; a worker starts on a CPU other than its creator's
 * when the process may use more than one (Linux left a new worker behind
 * its busy creator for milliseconds: a small proof's first loops ran on
 * one core), and is not left pinned there. threads = 0 means one per CPU
 * the process may run on (taskset, a cpuset), not per CPU online. */
#define _GNU_SOURCE /* sched_getcpu, pthread_getaffinity_np */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "engine/pool.h"
#include "testutil.h"

static void count_task(void *arg, size_t i, size_t worker) {
    (void)worker;
    atomic_uint *hits = arg;
    atomic_fetch_add(&hits[i], 1);
}

static void test_every_index_once(void) {
    static atomic_uint hits[1000];
    for (size_t threads = 1; threads <= 3; threads++) {
        zp_pool *pool;
        zp_error err = {0};
        CHECK(zp_pool_create(&pool, threads, &err) == ZP_OK);
        zp_parallel par = zp_pool_parallel(pool);
        CHECK(zp_pool_threads(pool) == threads);
        for (size_t n = 0; n <= 1000; n += 333) {
            memset(hits, 0, sizeof hits);
            par.run(par.pool, n, count_task, hits);
            size_t wrong = 0;
            for (size_t i = 0; i < n; i++) wrong += atomic_load(&hits[i]) != 1;
            CHECK_MSG(wrong == 0, "%zu threads, %zu tasks: %zu run other than once", threads, n, wrong);
        }
        zp_pool_destroy(pool);
    }
}

/* Two tasks that wait for each other: worker 1 must take one. */
typedef struct meet {
    atomic_int started;
    int worker_cpu;
    int worker_pinned; /* its affinity narrower than the process's */
    cpu_set_t allowed;
} meet;

static void meet_task(void *arg, size_t i, size_t worker) {
    (void)i;
    meet *m = arg;
    if (worker == 1) {
        m->worker_cpu = sched_getcpu();
        cpu_set_t mine;
        if (pthread_getaffinity_np(pthread_self(), sizeof mine, &mine) == 0)
            m->worker_pinned = !CPU_EQUAL(&mine, &m->allowed);
    }
    atomic_fetch_add(&m->started, 1);
    double deadline = zp_clock_now() + 5;
    while (atomic_load(&m->started) < 2 && zp_clock_now() < deadline) sched_yield();
}

static void test_worker_placement(void) {
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) < 2) {
        printf("  placement: one CPU allowed, skipped\n");
        return;
    }
    /* a worker moved back to its creator's CPU in the microseconds before
     * its first task, or a creator moved, would read as a miss: three
     * tries, one hit enough (without the placement all three miss) */
    int hits = 0, pinned = 0;
    for (int attempt = 0; attempt < 3; attempt++) {
        zp_pool *pool;
        zp_error err = {0};
        int creator_cpu = sched_getcpu();
        CHECK(zp_pool_create(&pool, 2, &err) == ZP_OK);
        zp_parallel par = zp_pool_parallel(pool);
        meet m = {0};
        m.worker_cpu = -1;
        m.allowed = allowed;
        par.run(par.pool, 2, meet_task, &m);
        CHECK_MSG(atomic_load(&m.started) == 2, "worker 1 never took a task");
        hits += m.worker_cpu >= 0 && m.worker_cpu != creator_cpu;
        pinned += m.worker_pinned;
        zp_pool_destroy(pool);
    }
    CHECK_MSG(hits > 0, "in 3 pools the worker's first task ran on its creator's CPU");
    CHECK_MSG(pinned == 0, "a worker kept the one-CPU affinity it started with");
}

static void test_default_threads(void) {
    cpu_set_t allowed, one;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
    CHECK(zp_pool_default_threads() == (size_t)CPU_COUNT(&allowed));
    if (CPU_COUNT(&allowed) < 2) return;
    int cpu = 0;
    while (!CPU_ISSET(cpu, &allowed)) cpu++;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) return;
    CHECK(zp_pool_default_threads() == 1);
    /* two threads on one allowed CPU: no placement, every index still once */
    zp_pool *pool;
    zp_error err = {0};
    CHECK(zp_pool_create(&pool, 2, &err) == ZP_OK);
    static atomic_uint hits[64];
    zp_parallel par = zp_pool_parallel(pool);
    par.run(par.pool, 64, count_task, hits);
    size_t wrong = 0;
    for (size_t i = 0; i < 64; i++) wrong += atomic_load(&hits[i]) != 1;
    CHECK_MSG(wrong == 0, "one allowed CPU: %zu tasks run other than once", wrong);
    zp_pool_destroy(pool);
    sched_setaffinity(0, sizeof allowed, &allowed);
}

int main(void) {
    zp_test_init("test_pool");
    test_every_index_once();
    test_worker_placement();
    test_default_threads();
    return zp_test_done();
}
