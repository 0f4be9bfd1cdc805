/* The benchmarks' one statistic: the median of a sample (sorted in place;
 * 0 for an empty one). */
#ifndef ZP_BENCH_STATS_H
#define ZP_BENCH_STATS_H

#include <stdlib.h>

static int bench_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline double bench_median(double *v, size_t n) {
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
