/* A small test harness: checks that count failures, a seeded RNG whose seed
 * is printed (and can be given back through ZP_TEST_SEED to replay a run),
 * and an iteration count scaled by ZP_TEST_ITERS. */
#ifndef ZP_TESTUTIL_H
#define ZP_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

extern int zp_test_failures;
extern int zp_test_checks;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        zp_test_checks++;                                                            \
        if (!(cond)) {                                                               \
            zp_test_failures++;                                                      \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                            \
    } while (0)

#define CHECK_MSG(cond, ...)                                                         \
    do {                                                                             \
        zp_test_checks++;                                                            \
        if (!(cond)) {                                                               \
            zp_test_failures++;                                                      \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                            \
            fprintf(stderr, "\n");                                                   \
        }                                                                            \
    } while (0)

/* Seeds the RNG (from ZP_TEST_SEED or the clock) and prints the seed. */
void zp_test_init(const char *name);
/* Prints the summary; returns the process exit code. */
int zp_test_done(void);
uint64_t zp_test_rand64(void);
void zp_test_rand_bytes(void *out, size_t n);
/* base * ZP_TEST_ITERS/100 (ZP_TEST_ITERS defaults to 100), at least 1. */
size_t zp_test_iters(size_t base);

#endif
