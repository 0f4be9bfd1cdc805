/* tests/server/confine.sh's swapper: exchanges two paths atomically
 * (renameat2 RENAME_EXCHANGE), as fast as it can, COUNT times or for
 * SECONDS, whichever ends first; prints the count. A directory and a
 * symlink exchanged so never leave the name absent, which a pair of
 * renames would, and which makes the race far rarer to win.
 *   cc -O2 -o swap tests/server/swap.c && ./swap A B COUNT SECONDS */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: swap A B COUNT SECONDS\n");
        return 2;
    }
    long count = atol(argv[3]);
    double secs = atof(argv[4]);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long n = 0;
    for (; n < count; n++) {
        if (syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE) != 0) {
            perror("renameat2");
            return 1;
        }
        if (n % 1024 == 0) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            if ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 > secs) break;
        }
    }
    printf("%ld\n", n);
    return 0;
}
