/* zkpipe-bench-proc OUT CMD [ARG...]: runs CMD, waits for it and appends
 * one line to OUT: "wall_s maxrss_kb cpu_s", then exits with CMD's status
 * (127 when it could not start, 128+N when killed by signal N).
 *
 * The benchmarks' timer (bench/timing.sh). /usr/bin/time -v reports wall
 * and CPU time in 10 ms steps, coarse for a 2^11 proof of ~15 ms, and
 * timing it from the shell adds /usr/bin/time's own start and exit (~1-2
 * ms here) to every prover alike, which narrows the ratios between them.
 * Here the wall time runs from just before the spawn to wait4's return
 * (CLOCK_MONOTONIC); the CPU time is the child's user + system time and
 * the peak RSS its ru_maxrss, both from wait4's rusage. CMD's stdin,
 * stdout and stderr are this program's. */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

static double seconds(const struct timespec *t) { return (double)t->tv_sec + (double)t->tv_nsec * 1e-9; }

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr,
                "usage: zkpipe-bench-proc OUT CMD [ARG...]\n"
                "Runs CMD and appends \"wall_s maxrss_kb cpu_s\" to OUT.\n");
        return 2;
    }
    struct timespec t0, t1;
    pid_t pid;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int err = posix_spawnp(&pid, argv[2], NULL, NULL, argv + 2, environ);
    if (err != 0) {
        fprintf(stderr, "zkpipe-bench-proc: cannot run %s: %s\n", argv[2], strerror(err));
        return 127;
    }
    int status;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0) {
        if (errno != EINTR) {
            perror("zkpipe-bench-proc: wait4");
            return 127;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
                 (double)ru.ru_stime.tv_usec * 1e-6;
    FILE *out = fopen(argv[1], "a");
    if (out == NULL || fprintf(out, "%.6f %ld %.6f\n", seconds(&t1) - seconds(&t0), ru.ru_maxrss, cpu) < 0 ||
        fclose(out) != 0) {
        fprintf(stderr, "zkpipe-bench-proc: cannot write %s\n", argv[1]);
        return 127;
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
