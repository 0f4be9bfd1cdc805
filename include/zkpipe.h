/* zkpipe: a Groth16 prover and verifier for BN254 and BLS12-381 that reads
 * and writes the files of the circom/snarkjs ecosystem.
 *
 * Rules of this interface (as in libsecp256k1):
 * - argument order: a context (zp_prover) first, then outputs, then inputs;
 *   a length follows its array;
 * - handles are opaque and owned by the caller, who closes them;
 * - every function that can fail returns a zp_status and, when it fails,
 *   fills the caller's zp_error with one line naming the input and what was
 *   wrong with it; nothing here prints or exits;
 * - there is no global state.
 */
#ifndef ZKPIPE_H
#define ZKPIPE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define ZP_WARN_UNUSED __attribute__((warn_unused_result))
#else
#define ZP_WARN_UNUSED
#endif

typedef enum zp_status {
    ZP_OK = 0,
    ZP_ERR_ARG,         /* a bad argument or option */
    ZP_ERR_IO,          /* a file could not be opened, read or written */
    ZP_ERR_FORMAT,      /* a file is truncated, corrupt or not what it claims */
    ZP_ERR_UNSUPPORTED, /* valid but not supported (another protocol, curve) */
    ZP_ERR_MISMATCH,    /* inputs that do not belong together */
    ZP_ERR_UNSATISFIED, /* the witness does not satisfy the circuit */
    ZP_ERR_INVALID,     /* a proof that does not verify */
    ZP_ERR_NOMEM,       /* out of memory */
    ZP_ERR_INTERNAL
} zp_status;

typedef struct zp_error {
    zp_status status;
    char message[512];
} zp_error;

typedef enum zp_curve { ZP_CURVE_NONE = 0, ZP_CURVE_BN254 = 1, ZP_CURVE_BLS12_381 = 2 } zp_curve;

/* circom's name of a curve ("bn128", "bls12381"), as JSON files carry it. */
const char *zp_curve_name(zp_curve curve);

/* A Groth16 proof in a canonical encoding, the same on every host:
 * each coordinate of the affine points π_A, π_B, π_C is a big-endian
 * integer below p of fp_bytes bytes (32 for BN254, 48 for BLS12-381);
 * a G1 point is x || y, a G2 point x.c1 || x.c0 || y.c1 || y.c0 (of each
 * Fp2 element, the imaginary part first); the point at infinity is all
 * zeros. For BN254 this is the uncompressed encoding of Ethereum's
 * precompiles (EIP-196/EIP-197): a || b || c are the 256 bytes an on-chain
 * verifier takes. BLS12-381 uses the same layout with 48-byte
 * coordinates (zcash's uncompressed form, without its flag bits). Only
 * the first 2·fp_bytes bytes of a and c and 4·fp_bytes of b are used;
 * the rest are zero. */
#define ZP_PROOF_MAX_FP_BYTES 48
typedef struct zp_proof {
    zp_curve curve;
    uint32_t fp_bytes;
    uint8_t a[2 * ZP_PROOF_MAX_FP_BYTES];
    uint8_t b[4 * ZP_PROOF_MAX_FP_BYTES];
    uint8_t c[2 * ZP_PROOF_MAX_FP_BYTES];
} zp_proof;

/* ---- Proving and verifying with snarkjs's files ----------------------- */

/* A proving key (.zkey), mapped and validated; shared read-only by any
 * number of proofs. */
typedef struct zp_key zp_key;
/* A witness (.wtns), validated. */
typedef struct zp_witness zp_witness;

ZP_WARN_UNUSED zp_status zp_key_open(zp_key **out, const char *path, zp_error *err);
void zp_key_close(zp_key *key);
zp_curve zp_key_curve(const zp_key *key);
uint32_t zp_key_wires(const zp_key *key);
uint32_t zp_key_public(const zp_key *key);
uint32_t zp_key_domain_size(const zp_key *key);

ZP_WARN_UNUSED zp_status zp_witness_open(zp_witness **out, const char *path, zp_error *err);
void zp_witness_close(zp_witness *witness);

typedef struct zp_prove_options {
    size_t threads;  /* 0: one per CPU */
    int skip_verify; /* 1: do not verify the proof before returning it */
    /* The most resident memory (bytes, the whole process's) the proof may
     * take: 0, no limit. In memory when the whole proof fits, the key's
     * points streamed through a bounded window when it does not, never
     * over; below the minimum for the key, ZP_ERR_NOMEM naming it
     * (docs/architecture.md, "Proofs larger than the budget"). At the
     * tightest budgets the witness's values are paged out to a scratch
     * file during the proof and read back before it returns: do not use
     * the same zp_witness from another thread meanwhile. */
    size_t budget;
    /* A flag another thread may store nonzero in (a relaxed atomic store)
     * to stop the proof, as zp_prover_set_stop's: checked before each
     * stage, a proof stopped so fails with ZP_ERR_UNSUPPORTED, no proof
     * given. NULL: the proof runs to its end. It must outlive the call. */
    const int *stop;
} zp_prove_options;

/* Where a proof's time went (seconds), for callers that report it. */
typedef struct zp_prove_stats {
    size_t threads;
    double start_s;      /* the NTTs, the G1 MSMs */
    double finish_s;     /* the G2 MSM and assembly */
    double verify_s;     /* the self-check; 0 when skipped */
    double matrices_s;   /* precompiling the key's constraint matrices; 0 when a prover had them */
    double synth_s;      /* synthesis: a = A·w, b = B·w, c = a∘b */
    double tables_s;     /* precomputing the key's point tables (prover); 0 when it had them or makes none */
    size_t tables_bytes; /* the point tables the proof used; 0: none */
    size_t window_bytes; /* the window the key's points streamed through; 0: proved in memory */
    int spilled;         /* 1: streamed with a, b, c one at a time, the others in a scratch file */
    int paged;           /* 1 (spilled too): the witness was in the scratch file after synthesis */
} zp_prove_stats;

/* One proof of the witness for the key's circuit (options and stats may be
 * NULL). By default the proof is verified first: a witness that does not
 * satisfy the circuit gives ZP_ERR_UNSATISFIED, never a proof. */
ZP_WARN_UNUSED zp_status zp_prove(zp_proof *proof, zp_prove_stats *stats, const zp_key *key, const zp_witness *witness,
                                  const zp_prove_options *options, zp_error *err);

/* ---- Many proofs: a prover context --------------------------------------
 *
 * zp_prove starts a thread pool, maps its working memory and builds the
 * key's constraint matrices for every proof. A prover keeps all three:
 * its pool and backend from creation, its working memory (grown to the
 * largest key seen) and the matrices of the last key it proved with, so
 * many proofs of one key pay for them once. One proof at a time per
 * prover (it is not thread-safe: make one per thread); options may be
 * NULL (all zero: the defaults); they are fixed at creation. Fields may
 * be added at the end: zero the struct, or use designated initializers.
 *
 * For a small key (domain up to 2^13) a prover also keeps point tables:
 * about 24 precomputed multiples of each of the key's points, which make
 * its MSMs about a third cheaper (a 2^11 proof ~25% faster on two
 * threads) for memory: 19 MB at 2^11 on BN254, 28 on BLS12-381, about
 * twice as much per doubling of the domain. Building them takes about 50
 * proofs' time (~0.3 s at 2^11), so a prover builds them once it has
 * made 192 proofs of one key in a row, or when zp_prover_prepare asks.
 * A key whose tables need more than table_bytes proves without; proofs
 * in the caller's scratch (zp_prover_prove_scratch) never use them. */
typedef struct zp_prover zp_prover;

typedef struct zp_prover_options {
    size_t threads;      /* 0: one per CPU */
    int skip_verify;     /* 1: do not verify proofs before returning them */
    const char *backend; /* the prover backend by name; NULL: "cpu" (docs/backend.md) */
    size_t table_bytes;  /* the most the point tables may take: 0: 64 MiB; 1: keep none */
    size_t budget;       /* each proof's memory budget, as zp_prove_options.budget (0: none;
                          * proofs in the caller's scratch, zp_prover_prove_scratch, ignore it) */
} zp_prover_options;

ZP_WARN_UNUSED zp_status zp_prover_create(zp_prover **out, const zp_prover_options *options, zp_error *err);
void zp_prover_destroy(zp_prover *prover);
/* The threads its pool really has (options.threads, or the CPU count). */
size_t zp_prover_threads(const zp_prover *prover);

/* Makes what the prover keeps for the key now (its matrices, the
 * prepared verification key, the point tables), so that no later proof
 * pays for them: a service that keeps a key calls it before its first
 * proof. */
ZP_WARN_UNUSED zp_status zp_prover_prepare(zp_prover *prover, const zp_key *key, zp_error *err);

/* As zp_prove, through the prover's pool, memory and matrices. */
ZP_WARN_UNUSED zp_status zp_prover_prove(zp_prover *prover, zp_proof *proof, zp_prove_stats *stats, const zp_key *key,
                                         const zp_witness *witness, zp_error *err);

/* A flag another thread stores nonzero in (a relaxed atomic store) to
 * stop the prover's proofs: checked before each stage (synthesis, the
 * transforms and G1 MSMs, the G2 MSM, the self-check), a proof stopped so
 * fails with ZP_ERR_UNSUPPORTED, no proof given; the prover stays usable
 * for the next. NULL (the default): proofs run to their end. The flag
 * must outlive the proofs that may read it; zp_fullprove sets its own
 * stop here for the proof and puts this one back after. */
void zp_prover_set_stop(zp_prover *prover, const int *stop);

/* Caller-owned working memory, as libsecp256k1's preallocated contexts:
 * zp_prove_scratch_size says how many bytes one proof of this key needs
 * with a pool of threads threads (0: one per CPU, as in the options), and
 * zp_prover_prove_scratch proves in the caller's buffer (any alignment;
 * its contents need not be cleared, and are garbage afterwards) instead
 * of the prover's own. A buffer smaller than zp_prove_scratch_size(key,
 * zp_prover_threads(prover)) is ZP_ERR_ARG. The key's matrices stay in
 * the prover (they belong to the key, not to one proof). */
size_t zp_prove_scratch_size(const zp_key *key, size_t threads);
ZP_WARN_UNUSED zp_status zp_prover_prove_scratch(zp_prover *prover, zp_proof *proof, zp_prove_stats *stats,
                                                 const zp_key *key, const zp_witness *witness, void *scratch,
                                                 size_t scratch_bytes, zp_error *err);

/* Writes proof.json and public.json (the witness's public signals) as
 * snarkjs does; either path may be NULL. */
ZP_WARN_UNUSED zp_status zp_proof_write(const char *proof_path, const char *public_path, const zp_proof *proof,
                                        const zp_key *key, const zp_witness *witness, zp_error *err);

/* Checks snarkjs's files: ZP_OK when the proof is valid, ZP_ERR_INVALID
 * when it is not, another status when a file is unreadable or malformed. */
ZP_WARN_UNUSED zp_status zp_verify_files(const char *vk_path, const char *public_path, const char *proof_path,
                                         zp_error *err);

/* ---- For language bindings: memory, JSON, the witness calculator --------
 *
 * What bindings/node/ (the npm package) calls: keys and witnesses from
 * bytes as well as from paths, snarkjs's JSON texts in memory, circom's
 * witness calculator (a circuit's .wasm, compiled once to native code and
 * cached, docs/witness.md), and fullprove (inputs to a proof in one
 * call). Texts and byte arrays these functions hand out are malloc'd and
 * released with zp_free. */

/* The library's version, "MAJOR.MINOR.PATCH" (CMake's project version):
 * a static string, never NULL. */
#define ZKPIPE_VERSION "0.1.0"
const char *zp_version(void);

/* Releases a text or byte array that a function of this block returned;
 * NULL does nothing. */
void zp_free(void *p);

/* As zp_key_open, over the bytes of a .zkey in memory. The bytes are
 * copied (into a mapping the key owns), so data need not outlive the
 * call. name names the key in messages (NULL: "the key"). On failure
 * *out is NULL. */
ZP_WARN_UNUSED zp_status zp_key_open_mem(zp_key **out, const void *data, size_t size, const char *name, zp_error *err);

/* As zp_witness_open, over the bytes of a .wtns in memory (copied). name
 * as for zp_key_open_mem (NULL: "the witness"). On failure *out is NULL. */
ZP_WARN_UNUSED zp_status zp_witness_open_mem(zp_witness **out, const void *data, size_t size, const char *name,
                                             zp_error *err);

/* The witness as a version-2 .wtns, the bytes `snarkjs wtns calculate`
 * writes: *out (release with zp_free) holds *size bytes. On failure *out
 * is NULL and *size 0. */
ZP_WARN_UNUSED zp_status zp_witness_dump(uint8_t **out, size_t *size, const zp_witness *witness, zp_error *err);

/* snarkjs's JSON texts, NUL-terminated, in *out (release with zp_free;
 * NULL on failure): proof.json of a proof (decimal coordinates with the
 * projective 1s, "protocol": "groth16", "curve"); public.json, the
 * witness's public signals for the key (decimal strings; the witness
 * must be of the key's circuit: ZP_ERR_MISMATCH otherwise); the key's
 * verification_key.json, as `snarkjs zkey export verificationkey`
 * writes it. */
ZP_WARN_UNUSED zp_status zp_proof_json(char **out, const zp_proof *proof, zp_error *err);
ZP_WARN_UNUSED zp_status zp_public_json(char **out, const zp_key *key, const zp_witness *witness, zp_error *err);
ZP_WARN_UNUSED zp_status zp_key_vk_json(char **out, const zp_key *key, zp_error *err);

/* As zp_verify_files, over the three JSON texts (each len bytes, need not
 * be NUL-terminated): ZP_OK when the proof is valid, ZP_ERR_INVALID when
 * it is not, ZP_ERR_FORMAT (or another status) when a text is malformed. */
ZP_WARN_UNUSED zp_status zp_verify_json(const char *vk_json, size_t vk_len, const char *public_json, size_t public_len,
                                        const char *proof_json, size_t proof_len, zp_error *err);

/* A circuit's witness calculator: circom's circuit.wasm compiled with
 * wasm2c and the C compiler into a cache (the first time; seconds to
 * minutes by its size) and loaded. Thread-safe: any number of threads may
 * calculate with one circuit at once, each on its own instance (its
 * linear memory); up to 8 idle instances are kept for the next calls. */
typedef struct zp_circuit zp_circuit;

typedef struct zp_circuit_options {
    const char *cache_dir; /* NULL: $ZKPIPE_CACHE, $XDG_CACHE_HOME/zkpipe, ~/.cache/zkpipe */
    uint64_t memory_limit; /* the most linear memory an instance may grow to, bytes; 0: the module's own maximum */
    /* NULL, or a flag another thread stores nonzero in to stop the
     * module's first calls (getVersion ... getWitnessSize, made when it
     * is opened; not the compile) as for zp_circuit_calculate: the circuit
     * is its author's code, and a module whose getVersion never returns
     * would hold the thread for ever. Read during zp_circuit_open only. */
    const int *stop;
} zp_circuit_options;

/* Compiles (or finds in the cache) and loads the calculator of the .wasm
 * at wasm_path; options may be NULL (all zero). On failure *out is NULL;
 * errors as `zkpipe wtns calculate` reports them (ZP_ERR_FORMAT: not a
 * circom 2 calculator; ZP_ERR_IO: no wasm2c or compiler). */
ZP_WARN_UNUSED zp_status zp_circuit_open(zp_circuit **out, const char *wasm_path, const zp_circuit_options *options,
                                         zp_error *err);
/* The same over the .wasm's bytes (copied); name names it in messages
 * (NULL: "circuit.wasm"). */
ZP_WARN_UNUSED zp_status zp_circuit_open_mem(zp_circuit **out, const void *wasm, size_t size, const char *name,
                                             const zp_circuit_options *options, zp_error *err);
/* Frees the circuit and its idle instances; no calculation may be under
 * way. NULL does nothing. */
void zp_circuit_close(zp_circuit *circuit);
/* The curve whose scalar field the circuit was compiled for
 * (ZP_CURVE_NONE: another prime), and the values in its witness. */
zp_curve zp_circuit_curve(const zp_circuit *circuit);
size_t zp_circuit_wires(const zp_circuit *circuit);
/* The linear memory its idle instances hold, bytes. */
size_t zp_circuit_memory_bytes(const zp_circuit *circuit);

/* Computes the witness of the inputs (input.json's text, len bytes, as
 * snarkjs reads it) into *out (close with zp_witness_close; NULL on
 * failure). stop may be NULL; else another thread stops the calculation
 * by storing nonzero in *stop (a relaxed atomic store): it fails within
 * microseconds of circuit code with ZP_ERR_UNSUPPORTED. Errors: an
 * unknown or missing signal, a bad value (ZP_ERR_FORMAT), a failed assert
 * of the circuit (ZP_ERR_UNSATISFIED), memory past the limit
 * (ZP_ERR_NOMEM). */
ZP_WARN_UNUSED zp_status zp_circuit_calculate(zp_witness **out, zp_circuit *circuit, const char *input_json, size_t len,
                                              const int *stop, zp_error *err);

/* The inputs to a proof, as `zkpipe fullprove` does: the witness
 * calculated (zp_circuit_calculate) and proved with the key through the
 * prover (zp_prover_prove: one proof at a time per prover). witness may be
 * NULL; else *witness receives the witness (the caller closes it; NULL
 * on failure), for zp_public_json. A circuit of another curve or size
 * than the key is ZP_ERR_MISMATCH; *stop as for zp_circuit_calculate,
 * also checked before the proof and between its stages
 * (zp_prover_set_stop). */
ZP_WARN_UNUSED zp_status zp_fullprove(zp_prover *prover, zp_proof *proof, zp_witness **witness, const zp_key *key,
                                      zp_circuit *circuit, const char *input_json, size_t len, const int *stop,
                                      zp_error *err);

/* The prover's tracked memory (its working memory, matrices and point
 * tables): bytes now and the peak since creation. Either may be NULL. */
void zp_prover_memory(const zp_prover *prover, size_t *bytes, size_t *peak);
/* The tracked bytes a prover of threads threads (0: one per CPU) keeps
 * for proofs of this key: its working memory and the key's matrices (not
 * the point tables: a prover with table_bytes 1 makes none). 0 when the
 * sizes cannot be asked (out of memory). */
size_t zp_prover_memory_needed(const zp_key *key, size_t threads);

#ifdef __cplusplus
}
#endif

#endif
