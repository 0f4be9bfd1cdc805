/* Synthesis for one curve, instantiated by synth.c with ZP_G set to the
 * curve prefix (zp_bn254, zp_bls12). The matrices' layout is described at
 * the top of synth.c.
 *
 * Each coefficient is stored as v·R² mod r (docs/formats.md §4): a Montgomery
 * product with the plain witness value w, (v·R²)·w/R = v·w·R, is the
 * Montgomery form of v·w, so a row's terms sum straight into Montgomery
 * a and b without converting the witness. */
#define ZP_CAT_(a, b) a##b
#define ZP_CAT(a, b) ZP_CAT_(a, b)
#define X_(name) ZP_CAT(ZP_G, _##name)
#define FR ZP_CAT(ZP_G, _fr)
#define FR_(name) ZP_CAT(FR, _##name)

typedef struct {
    const uint8_t *coefs;
    const uint64_t *witness;
    const void *rows, *perm; /* perm NULL when the rows index the list in place */
    const uint32_t *chunk_row;
    unsigned ib;
    size_t n_perm;
    size_t tasks;
    FR *a, *b, *c;
} X_(synth_job);

static inline void X_(add_term)(FR *acc, const uint8_t *e, const uint64_t *witness) {
    uint32_t signal;
    FR v, w, t;
    memcpy(&signal, e + 8, 4);
    memcpy(v.v, e + 12, sizeof v.v);
    memcpy(w.v, witness + 4 * (size_t)signal, sizeof w.v);
    FR_(mul)(&t, &v, &w);
    FR_(add)(acc, acc, &t);
}

/* Σ of the terms [begin, end) of one row of one matrix */
static inline void X_(row_sum)(FR *out, const X_(synth_job) *job, size_t begin, size_t end) {
    FR acc;
    FR_(set_zero)(&acc);
    if (job->perm == NULL) {
        const uint8_t *e = job->coefs + begin * ZP_ZKEY_COEF_BYTES;
        for (size_t k = begin; k < end; k++, e += ZP_ZKEY_COEF_BYTES) X_(add_term)(&acc, e, job->witness);
    } else {
        /* the entries are scattered over the list: ask for them ahead (a
         * shuffled 2^20 list synthesises 4.5x faster for it) */
        for (size_t k = begin; k < end; k++) {
            if (k + ZP_SYNTH_PREFETCH < job->n_perm) {
                const uint8_t *ahead =
                    job->coefs + idx_get(job->perm, job->ib, k + ZP_SYNTH_PREFETCH) * ZP_ZKEY_COEF_BYTES;
                __builtin_prefetch(ahead);
                __builtin_prefetch(ahead + ZP_ZKEY_COEF_BYTES - 1);
            }
            X_(add_term)(&acc, job->coefs + idx_get(job->perm, job->ib, k) * ZP_ZKEY_COEF_BYTES, job->witness);
        }
    }
    *out = acc;
}

/* Task t: the chunks [t·C/T, (t+1)·C/T) of rows; a, b and c = a∘b, each
 * row written once (rows with no terms, past the circuit's, come out 0). */
static void X_(synth_task)(void *arg, size_t t, size_t worker) {
    (void)worker;
    const X_(synth_job) *job = arg;
    size_t first = job->chunk_row[t * ZP_SYNTH_CHUNKS / job->tasks];
    size_t last = job->chunk_row[(t + 1) * ZP_SYNTH_CHUNKS / job->tasks];
    for (size_t r = first; r < last; r++) {
        size_t b[4];
        zp_synth_row(job->rows, job->ib, r, b);
        X_(row_sum)(&job->a[r], job, b[0], b[1]);
        X_(row_sum)(&job->b[r], job, b[2], b[3]);
        FR_(mul)(&job->c[r], &job->a[r], &job->b[r]);
    }
}

void X_(groth16_synthesize)(void *abc, const zp_groth16_pk *pk, const void *matrices, const uint64_t *witness,
                            const zp_parallel *par) {
    const zp_synth_header *h = matrices;
    const uint8_t *base = matrices;
    size_t n = h->domain_size, tasks = 4 * zp_parallel_threads(par);
    X_(synth_job) job;
    job.coefs = pk->coefs;
    job.witness = witness;
    job.rows = base + h->rows_off;
    job.perm = h->permuted ? base + h->perm_off : NULL;
    job.chunk_row = (const uint32_t *)(const void *)(base + h->chunk_off);
    job.ib = h->index_bytes;
    job.n_perm = h->n_coefs;
    job.tasks = tasks < ZP_SYNTH_CHUNKS ? tasks : ZP_SYNTH_CHUNKS;
    job.a = abc;
    job.b = job.a + n;
    job.c = job.b + n;
    zp_parallel_for(par, job.tasks, X_(synth_task), &job);
}

#undef X_
#undef FR
#undef FR_
#undef ZP_G
