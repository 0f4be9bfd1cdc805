#include "testutil.h"

#include <stdlib.h>
#include <time.h>

int zp_test_failures;
int zp_test_checks;
static uint64_t rng_state;
static const char *test_name;

void zp_test_init(const char *name) {
    const char *s = getenv("ZP_TEST_SEED");
    test_name = name;
    if (s != NULL && *s) {
        rng_state = strtoull(s, NULL, 0);
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        rng_state = (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec;
    }
    printf("%s: seed %llu (replay with ZP_TEST_SEED=%llu)\n", name, (unsigned long long)rng_state,
           (unsigned long long)rng_state);
    fflush(stdout);
}

int zp_test_done(void) {
    printf("%s: %d checks, %d failed\n", test_name, zp_test_checks, zp_test_failures);
    return zp_test_failures == 0 ? 0 : 1;
}

/* splitmix64 */
uint64_t zp_test_rand64(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void zp_test_rand_bytes(void *out, size_t n) {
    unsigned char *p = out;
    for (size_t i = 0; i < n; i++) {
        if (i % 8 == 0) {
            uint64_t r = zp_test_rand64();
            for (size_t j = 0; j < 8 && i + j < n; j++) p[i + j] = (unsigned char)(r >> (8 * j));
        }
    }
}

size_t zp_test_iters(size_t base) {
    const char *s = getenv("ZP_TEST_ITERS");
    size_t pct = (s != NULL && *s) ? (size_t)strtoull(s, NULL, 10) : 100;
    size_t n = base * pct / 100;
    return n ? n : 1;
}
