/* circom constraint systems (.r1cs, version 1; docs/formats.md), parsed into
 * compressed rows: for each of A, B, C, the terms of constraint i are
 * [row_start[i], row_start[i+1]). Coefficients are plain 4-limb integers
 * below r. Used by the development setup, which needs A, B, C per row. */
#ifndef ZP_IO_R1CS_H
#define ZP_IO_R1CS_H

#include <stddef.h>
#include <stdint.h>

#include "zkpipe.h"

typedef struct zp_r1cs zp_r1cs;

typedef struct zp_r1cs_header {
    zp_curve curve;
    uint32_t n_wires; /* including the constant 1 */
    uint32_t n_pub_out;
    uint32_t n_pub_in;
    uint32_t n_prv_in;
    uint64_t n_labels;
    uint32_t n_constraints;
} zp_r1cs_header;

enum { ZP_R1CS_A = 0, ZP_R1CS_B = 1, ZP_R1CS_C = 2 };

typedef struct zp_r1cs_matrix {
    uint64_t *row_start; /* n_constraints + 1 */
    uint32_t *wire;      /* n_terms */
    uint64_t *coef;      /* n_terms × 4 limbs, plain */
    size_t n_terms;
} zp_r1cs_matrix;

zp_status zp_r1cs_open(zp_r1cs **out, const char *path, zp_error *err) ZP_WARN_UNUSED;
/* The same over bytes in memory (copied; data need not outlive the call). */
zp_status zp_r1cs_open_mem(zp_r1cs **out, const void *data, size_t size, const char *name,
                           zp_error *err) ZP_WARN_UNUSED;
void zp_r1cs_close(zp_r1cs *r1cs);

const zp_r1cs_header *zp_r1cs_get_header(const zp_r1cs *r1cs);
/* which: ZP_R1CS_A, _B or _C. */
const zp_r1cs_matrix *zp_r1cs_get_matrix(const zp_r1cs *r1cs, int which);

/* A constraint system read in passes over its mapped file instead of into
 * memory, for the steps whose memory must not grow with the circuit (the
 * ceremony's zkey new within a budget). Opening reads the header and
 * makes one pass that checks every term and counts them. Each later pass
 * checks the terms again (a file can change between passes: what fn is
 * handed is always checked, but may differ from the first pass's) and
 * hands them to fn in file order: per constraint its A, B then C terms,
 * matrix ZP_R1CS_A.._C, coef plain (4 limbs). The file's pages leave the
 * resident set as a pass goes. A pass whose terms no longer number what
 * the opening counted is ZP_ERR_FORMAT. */
typedef struct zp_r1cs_stream zp_r1cs_stream;
typedef void (*zp_r1cs_term_fn)(void *arg, int matrix, uint32_t constraint, uint32_t wire, const uint64_t coef[4]);
zp_status zp_r1cs_stream_open(zp_r1cs_stream **out, const char *path, zp_error *err) ZP_WARN_UNUSED;
void zp_r1cs_stream_close(zp_r1cs_stream *s); /* NULL is ignored */
const zp_r1cs_header *zp_r1cs_stream_header(const zp_r1cs_stream *s);
/* The terms of a matrix as the opening counted them. */
uint64_t zp_r1cs_stream_terms(const zp_r1cs_stream *s, int matrix);
zp_status zp_r1cs_stream_pass(zp_r1cs_stream *s, zp_r1cs_term_fn fn, void *arg, zp_error *err) ZP_WARN_UNUSED;

/* Writes a version-1 .r1cs with sections 1, 2 and 3 (labels 0..nWires-1,
 * when h->n_labels == n_wires; else §3 is left out). */
zp_status zp_r1cs_write(const char *path, const zp_r1cs_header *h, const zp_r1cs_matrix m[3],
                        zp_error *err) ZP_WARN_UNUSED;

#endif
