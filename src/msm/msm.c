#include "msm/msm.h"

#include "base/parallel.h"

unsigned zp_msm_window_bits(size_t n) {
    unsigned best = 1;
    double best_cost = 0;
    for (unsigned c = 1; c <= 20; c++) {
        double cost = (double)zp_msm_windows(c) * ((double)n + (double)((size_t)1 << c));
        if (c == 1 || cost < best_cost) {
            best = c;
            best_cost = cost;
        }
    }
    return best;
}

unsigned zp_msm_windows(unsigned c) { return (ZP_MSM_SCALAR_BITS + 1 + c - 1) / c; }

size_t zp_msm_chunks(size_t n, unsigned windows, size_t threads) {
    size_t chunks = 1;
    while ((size_t)windows * chunks < 2 * threads && n / (chunks * 2) >= 1024) chunks *= 2;
    return chunks;
}

#define ZP_M zp_bn254_g1
#include "msm/msm_impl.h"
#define ZP_M zp_bn254_g2
#include "msm/msm_impl.h"
#define ZP_M zp_bls12_g1
#include "msm/msm_impl.h"
#define ZP_M zp_bls12_g2
#include "msm/msm_impl.h"
