/* The time limit thread (timer.h). */
#include "witness/timer.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "base/error.h"

struct zp_witness_timer {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake; /* on CLOCK_MONOTONIC: a clock set back does not stretch the limit */
    struct timespec at;
    int *flag;
    int ended, fired;
};

static void *timer_main(void *arg) {
    zp_witness_timer *t = arg;
    pthread_mutex_lock(&t->lock);
    while (!t->ended) {
        if (pthread_cond_timedwait(&t->wake, &t->lock, &t->at) == ETIMEDOUT) {
            __atomic_store_n(t->flag, 1, __ATOMIC_RELAXED);
            t->fired = 1;
            break;
        }
    }
    pthread_mutex_unlock(&t->lock);
    return NULL;
}

zp_status zp_witness_timer_start(zp_witness_timer **out, int *flag, double seconds, zp_error *err) {
    *out = NULL;
    if (!(seconds > 0)) return ZP_OK;
    zp_witness_timer *t = calloc(1, sizeof *t);
    if (t == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    t->flag = flag;
    clock_gettime(CLOCK_MONOTONIC, &t->at);
    if (seconds > 1e9) seconds = 1e9; /* 30 years: none, in effect */
    time_t whole = (time_t)seconds;
    long ns = (long)((seconds - (double)whole) * 1e9);
    t->at.tv_sec += whole;
    t->at.tv_nsec += ns;
    if (t->at.tv_nsec >= 1000000000L) {
        t->at.tv_sec++;
        t->at.tv_nsec -= 1000000000L;
    }
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->wake, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&t->thread, NULL, timer_main, t) != 0) {
        pthread_cond_destroy(&t->wake);
        pthread_mutex_destroy(&t->lock);
        free(t);
        return zp_error_set(err, ZP_ERR_INTERNAL, "could not start the time limit's thread");
    }
    *out = t;
    return ZP_OK;
}

int zp_witness_timer_end(zp_witness_timer *t) {
    if (t == NULL) return 0;
    pthread_mutex_lock(&t->lock);
    t->ended = 1;
    pthread_cond_signal(&t->wake);
    pthread_mutex_unlock(&t->lock);
    pthread_join(t->thread, NULL);
    int fired = t->fired;
    pthread_cond_destroy(&t->wake);
    pthread_mutex_destroy(&t->lock);
    free(t);
    return fired;
}
