/* The clocks: one place for the monotonic seconds every timer reads, the
 * wall-clock seconds shown, and the absolute deadlines that
 * pthread_cond_timedwait takes. Those count on the monotonic clock, with
 * every condition variable waited on with a deadline made by
 * zp_clock_cond_init: a wall clock set back three days would otherwise
 * make a 0.1 s wait last three days (leases unrenewed, timers stopped). */
#ifndef ZP_BASE_CLOCK_H
#define ZP_BASE_CLOCK_H

#include <pthread.h>
#include <time.h>

/* Seconds on the monotonic clock: for durations, never for dates. */
static inline double zp_clock_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Seconds since the epoch (wall clock): for times shown or stored. */
static inline double zp_clock_wall(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A condition variable whose timed waits count on the monotonic clock
 * (zp_clock_deadline); 0 on success, as pthread_cond_init. */
static inline int zp_clock_cond_init(pthread_cond_t *cond) {
    pthread_condattr_t attr;
    int rc = pthread_condattr_init(&attr);
    if (rc != 0) return rc;
    rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    if (rc == 0) rc = pthread_cond_init(cond, &attr);
    pthread_condattr_destroy(&attr);
    return rc;
}

/* The absolute monotonic time `seconds` from now, as
 * pthread_cond_timedwait wants it for a condition variable made by
 * zp_clock_cond_init. */
static inline struct timespec zp_clock_deadline(double seconds) {
    double t = zp_clock_now() + seconds;
    struct timespec ts;
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    if (ts.tv_nsec < 0) ts.tv_nsec = 0;
    return ts;
}

#endif
