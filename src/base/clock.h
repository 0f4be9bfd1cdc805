/* The clocks: one place for the monotonic seconds every timer reads, the
 * wall-clock seconds stored with jobs, and the absolute deadlines that
 * pthread_cond_timedwait takes (which count on CLOCK_REALTIME). */
#ifndef ZP_BASE_CLOCK_H
#define ZP_BASE_CLOCK_H

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

/* The absolute CLOCK_REALTIME time `seconds` from now, as
 * pthread_cond_timedwait wants it. */
static inline struct timespec zp_clock_deadline(double seconds) {
    double t = zp_clock_wall() + seconds;
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
