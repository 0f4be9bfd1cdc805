/* libFuzzer: .r1cs reader; a parsed file must be internally consistent. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "io/r1cs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    zp_r1cs *r = NULL;
    zp_error err;
    if (zp_r1cs_open_mem(&r, data, size, "fuzz.r1cs", &err) == ZP_OK) {
        const zp_r1cs_header *h = zp_r1cs_get_header(r);
        for (int k = 0; k < 3; k++) {
            const zp_r1cs_matrix *m = zp_r1cs_get_matrix(r, k);
            if (m->row_start[h->n_constraints] != m->n_terms) abort();
            for (uint32_t c = 0; c < h->n_constraints; c++) {
                if (m->row_start[c] > m->row_start[c + 1]) abort();
            }
            for (size_t t = 0; t < m->n_terms; t++) {
                if (m->wire[t] >= h->n_wires) abort();
            }
        }
        zp_r1cs_close(r);
    }
    return 0;
}
