#include "msm/fixed_base.h"

#include <stdlib.h>

#include "base/parallel.h"

/* Products are made in blocks so the conversion to affine shares one
 * inversion per block; the block's buffers live on the worker's stack. */
#define BLOCK 64

#define ZP_FIXED_BASE_IMPL(G, F)                                                                                    \
    size_t G##_fixed_table_size(void) { return (size_t)ZP_FIXED_BASE_WINDOWS * ZP_FIXED_BASE_ENTRIES * sizeof(G); } \
    void G##_fixed_table_var(G *table, const G *base) {                                                             \
        G##j row_base, cur;                                                                                         \
        G##j row[ZP_FIXED_BASE_ENTRIES];                                                                            \
        F scratch[2 * ZP_FIXED_BASE_ENTRIES];                                                                       \
        G##_j_from_affine(&row_base, base);                                                                         \
        for (size_t w = 0; w < ZP_FIXED_BASE_WINDOWS; w++) {                                                        \
            cur = row_base;                                                                                         \
            for (size_t d = 0; d < ZP_FIXED_BASE_ENTRIES; d++) {                                                    \
                row[d] = cur;                                                                                       \
                G##_j_add_var(&cur, &cur, &row_base);                                                               \
            }                                                                                                       \
            G##_j_batch_to_affine_var(table + w * ZP_FIXED_BASE_ENTRIES, row, ZP_FIXED_BASE_ENTRIES, scratch);      \
            row_base = cur; /* 256·row_base */                                                                     \
        }                                                                                                           \
    }                                                                                                               \
    typedef struct {                                                                                                \
        G *out;                                                                                                     \
        const G *table;                                                                                             \
        const uint64_t *scalars;                                                                                    \
        size_t n;                                                                                                   \
    } G##_fixed_job;                                                                                                \
    static void G##_fixed_task(void *arg, size_t blk, size_t worker) {                                              \
        (void)worker;                                                                                               \
        G##_fixed_job *job = arg;                                                                                   \
        G##j acc[BLOCK];                                                                                            \
        F scratch[2 * BLOCK];                                                                                       \
        size_t begin = blk * BLOCK, end = begin + BLOCK < job->n ? begin + BLOCK : job->n;                          \
        for (size_t i = begin; i < end; i++) {                                                                      \
            const uint64_t *k = job->scalars + 4 * i;                                                               \
            G##_j_set_inf(&acc[i - begin]);                                                                         \
            for (size_t w = 0; w < ZP_FIXED_BASE_WINDOWS; w++) {                                                    \
                unsigned d = (unsigned)(k[w / 8] >> (8 * (w % 8))) & 0xff;                                          \
                if (d) {                                                                                            \
                    G##_j_add_affine_var(&acc[i - begin], &acc[i - begin],                                          \
                                         &job->table[w * ZP_FIXED_BASE_ENTRIES + d - 1]);                           \
                }                                                                                                   \
            }                                                                                                       \
        }                                                                                                           \
        G##_j_batch_to_affine_var(job->out + begin, acc, end - begin, scratch);                                     \
    }                                                                                                               \
    void G##_fixed_mul_var(G *out, const G *table, const uint64_t *scalars, size_t n, const zp_parallel *par) {     \
        G##_fixed_job job = {out, table, scalars, n};                                                               \
        zp_parallel_for(par, (n + BLOCK - 1) / BLOCK, G##_fixed_task, &job);                                        \
    }

ZP_FIXED_BASE_IMPL(zp_bn254_g1, zp_bn254_fp)
ZP_FIXED_BASE_IMPL(zp_bn254_g2, zp_bn254_fp2)
ZP_FIXED_BASE_IMPL(zp_bls12_g1, zp_bls12_fp)
ZP_FIXED_BASE_IMPL(zp_bls12_g2, zp_bls12_fp2)
