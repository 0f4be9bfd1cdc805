#define _GNU_SOURCE /* sched_getcpu, pthread_attr_setaffinity_np */
#include "engine/pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"

struct zp_pool {
    size_t threads; /* workers + the calling thread */
    pthread_t *workers;
    cpu_set_t allowed; /* the CPUs the creator may run on */
    int placed;        /* workers started on a CPU of their own, then given allowed back */
    pthread_mutex_t lock;
    pthread_cond_t start, done;
    pthread_mutex_t run_lock; /* one loop at a time */
    /* the loop in progress */
    zp_task_fn fn;
    void *arg;
    size_t n;
    atomic_size_t next;
    atomic_size_t active;    /* workers still inside the current loop */
    atomic_ulong generation; /* loops started; set under lock */
    atomic_int stopping;
};

/* Waking a sleeping thread through a condition variable takes tens of
 * microseconds here (a loop of two 20 µs tasks took 57-60 µs on the 2-core
 * VM, against 20 µs of work), and a proof runs its loops a few hundred
 * microseconds apart: on a small key that was most of what the loops
 * saved. So both sides poll a while before they sleep, as OpenMP runtimes
 * do: a worker for the next loop, the caller for the workers' end. */
#define ZP_POOL_SPIN_US 200

static double pool_now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Polls until done(pool, v) or ZP_POOL_SPIN_US pass; 1 when done. */
static int spin_until(zp_pool *pool, int (*done)(zp_pool *, unsigned long), unsigned long v) {
    double deadline = 0;
    for (unsigned i = 0;; i++) {
        if (done(pool, v)) return 1;
        if ((i & 63) == 0) {
            double t = pool_now_us();
            if (deadline == 0) deadline = t + ZP_POOL_SPIN_US;
            else if (t > deadline) return 0;
            /* let a thread that has work (the daemon's other stages) have
             * the core: back at once when there is none */
            if (i > 0) sched_yield();
        }
        cpu_relax();
    }
}

static int loop_started(zp_pool *pool, unsigned long seen) {
    return atomic_load_explicit(&pool->generation, memory_order_acquire) != seen ||
           atomic_load_explicit(&pool->stopping, memory_order_relaxed);
}

static int workers_done(zp_pool *pool, unsigned long unused) {
    (void)unused;
    return atomic_load_explicit(&pool->active, memory_order_acquire) == 0;
}

static void run_tasks(zp_pool *pool, size_t worker) {
    for (;;) {
        size_t i = atomic_fetch_add(&pool->next, 1);
        if (i >= pool->n) break;
        pool->fn(pool->arg, i, worker);
    }
}

struct worker_arg {
    zp_pool *pool;
    size_t index;
};

static void *worker_main(void *p) {
    struct worker_arg wa = *(struct worker_arg *)p;
    free(p);
    zp_pool *pool = wa.pool;
    /* started where it was placed: from here the scheduler may move it */
    if (pool->placed) pthread_setaffinity_np(pthread_self(), sizeof pool->allowed, &pool->allowed);
    unsigned long seen = 0;
    for (;;) {
        spin_until(pool, loop_started, seen);
        pthread_mutex_lock(&pool->lock);
        while (!pool->stopping && pool->generation == seen) pthread_cond_wait(&pool->start, &pool->lock);
        if (pool->stopping) break;
        seen = pool->generation;
        pthread_mutex_unlock(&pool->lock);
        run_tasks(pool, wa.index);
        /* the caller may be asleep on done: signal under the lock, after
         * the count, so its check-then-wait cannot miss it */
        if (atomic_fetch_sub_explicit(&pool->active, 1, memory_order_acq_rel) == 1) {
            pthread_mutex_lock(&pool->lock);
            pthread_cond_signal(&pool->done);
            pthread_mutex_unlock(&pool->lock);
        }
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

static void pool_run(void *p, size_t n, zp_task_fn fn, void *arg) {
    zp_pool *pool = p;
    pthread_mutex_lock(&pool->run_lock);
    pthread_mutex_lock(&pool->lock);
    pool->fn = fn;
    pool->arg = arg;
    pool->n = n;
    atomic_store(&pool->next, 0);
    atomic_store(&pool->active, pool->threads - 1);
    atomic_fetch_add_explicit(&pool->generation, 1, memory_order_release);
    pthread_cond_broadcast(&pool->start);
    pthread_mutex_unlock(&pool->lock);

    run_tasks(pool, 0);

    if (!spin_until(pool, workers_done, 0)) {
        pthread_mutex_lock(&pool->lock);
        while (atomic_load(&pool->active) > 0) pthread_cond_wait(&pool->done, &pool->lock);
        pthread_mutex_unlock(&pool->lock);
    }
    pthread_mutex_unlock(&pool->run_lock);
}

/* The CPUs the calling thread may run on (taskset, a container's
 * cpuset), not all the machine's, into set; their count, 0 when unknown. */
static int allowed_cpus(cpu_set_t *set) { return sched_getaffinity(0, sizeof *set, set) == 0 ? CPU_COUNT(set) : 0; }

size_t zp_pool_default_threads(void) {
    cpu_set_t allowed;
    int n_allowed = allowed_cpus(&allowed);
    if (n_allowed > 0) return (size_t)n_allowed;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (size_t)n : 1;
}

/* Starts worker index, on CPU cpu when cpu >= 0 (or anywhere, when
 * that is refused); 1 when it runs. */
static int start_worker(zp_pool *pool, size_t index, int cpu) {
    struct worker_arg *wa = malloc(sizeof *wa);
    if (wa == NULL) return 0;
    wa->pool = pool;
    wa->index = index;
    pthread_attr_t attr;
    int placed = cpu >= 0 && pthread_attr_init(&attr) == 0;
    if (placed) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        pthread_attr_setaffinity_np(&attr, sizeof one, &one);
    }
    int rc = pthread_create(&pool->workers[index], placed ? &attr : NULL, worker_main, wa);
    if (rc != 0 && placed) rc = pthread_create(&pool->workers[index], NULL, worker_main, wa);
    if (placed) pthread_attr_destroy(&attr);
    if (rc != 0) free(wa);
    return rc == 0;
}

zp_status zp_pool_create(zp_pool **out, size_t threads, zp_error *err) {
    if (threads == 0) threads = zp_pool_default_threads();
    zp_pool *pool = calloc(1, sizeof *pool);
    if (pool == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory creating a thread pool");
    pool->threads = threads;
    pthread_mutex_init(&pool->lock, NULL);
    pthread_mutex_init(&pool->run_lock, NULL);
    pthread_cond_init(&pool->start, NULL);
    pthread_cond_init(&pool->done, NULL);
    pool->workers = calloc(threads, sizeof *pool->workers);
    if (pool->workers == NULL) {
        zp_pool_destroy(pool);
        return zp_error_set(err, ZP_ERR_NOMEM, "out of memory creating a thread pool");
    }
    /* A new thread starts on its creator's CPU, and Linux (6.18 on the
     * 2-core VM) left it there behind the busy creator for 2-5 ms, while
     * the other core idled: a one-shot 2^11 proof's first loops ran on one
     * core. So each worker starts on the next allowed CPU after the
     * creator's, and takes the whole set back once it runs. */
    int cpu = sched_getcpu();
    pool->placed = cpu >= 0 && allowed_cpus(&pool->allowed) > 1 && CPU_ISSET(cpu, &pool->allowed);
    for (size_t i = 1; i < threads; i++) {
        if (pool->placed) {
            do cpu = (cpu + 1) % CPU_SETSIZE;
            while (!CPU_ISSET(cpu, &pool->allowed));
        }
        if (!start_worker(pool, i, pool->placed ? cpu : -1)) {
            pool->threads = i;
            zp_pool_destroy(pool);
            return zp_error_set(err, ZP_ERR_INTERNAL, "could not start worker thread %zu", i);
        }
    }
    *out = pool;
    return ZP_OK;
}

void zp_pool_destroy(zp_pool *pool) {
    if (pool == NULL) return;
    pthread_mutex_lock(&pool->lock);
    pool->stopping = 1;
    pthread_cond_broadcast(&pool->start);
    pthread_mutex_unlock(&pool->lock);
    for (size_t i = 1; i < pool->threads; i++) pthread_join(pool->workers[i], NULL);
    pthread_cond_destroy(&pool->start);
    pthread_cond_destroy(&pool->done);
    pthread_mutex_destroy(&pool->lock);
    pthread_mutex_destroy(&pool->run_lock);
    free(pool->workers);
    free(pool);
}

zp_parallel zp_pool_parallel(zp_pool *pool) {
    zp_parallel par = {pool_run, pool, pool->threads, ZP_SIMD_AUTO};
    return par;
}

size_t zp_pool_threads(const zp_pool *pool) { return pool->threads; }
