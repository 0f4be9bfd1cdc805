/* A circuit's inputs, read as `snarkjs wtns calculate` reads input.json.
 *
 * The file is one JSON object; each member names an input signal and holds
 * a value or a (nested) array of values. Arrays are flattened in snarkjs's
 * order (row-major, depth first). A value is a JSON number, a decimal or
 * hex ("0x...") string, possibly negative, reduced into [0, p) as snarkjs
 * reduces it (x mod p, plus p when negative). Which signals exist and how
 * many values each takes is the circuit's to say (witness/calc.c asks the
 * wasm); this reader only parses and reduces, naming the signal and the
 * position on every error. */
#ifndef ZP_WITNESS_INPUT_H
#define ZP_WITNESS_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "zkpipe.h"

/* The largest input file zp_witness_inputs_read takes. Memory while it is
 * read goes with the number of values, not the bytes: jansson's tree costs
 * ~40 bytes a value, the values n8 = 32 each. Measured: 700,000 field
 * elements as 77-digit strings (55 MB) peak at 180 MB; the worst case, a
 * file at the cap of one-digit values ("0,": 33.5 million), at 2.4 GB (its
 * witness alone would be over 1 GiB). A caller that budgets memory asks
 * zp_witness_inputs_parse_bytes first (one pass over the text) or reads
 * through zp_witness_inputs_read_reserved. Real inputs (thousands of field
 * elements, a million bits) are far under the cap. */
#define ZP_WITNESS_INPUT_MAX_BYTES ((size_t)64 << 20)
/* The widest prime the reader reduces by: 512 bits. */
#define ZP_WITNESS_INPUT_MAX_N8 64

typedef struct zp_witness_signal {
    char *name;      /* the member's name, as in the file (NUL-terminated) */
    uint64_t hash;   /* 64-bit FNV-1a of name: circom's signal lookup key
                        (as snarkjs computes it: over UTF-16 code units,
                        the same as zp_witness_fnv1a for ASCII names) */
    size_t count;    /* values after flattening */
    uint8_t *values; /* count × n8 bytes, each little-endian, reduced mod p */
} zp_witness_signal;

typedef struct zp_witness_inputs {
    zp_witness_signal *signals; /* in snarkjs's order: the file's, except
                                   that names which are JS array indices
                                   ("0", "12") come first, ascending; a
                                   duplicate name keeps its first place and
                                   its last value; "__proto__" is dropped */
    size_t count;
    size_t n8;    /* bytes per value: the prime's size rounded up to 8 */
    size_t bytes; /* the heap the signals, names and values hold, as malloc rounds it */
} zp_witness_inputs;

/* Parses len bytes of JSON text. prime is p, n8 bytes little-endian (n8 a
 * multiple of 8: 32 for bn128 and bls12381's scalar fields). what names the
 * input in messages ("input.json", "inputs[3]"). On error out is empty and
 * err says what and where: ZP_ERR_FORMAT for bad JSON or a value that is
 * not a number, ZP_ERR_NOMEM, and ZP_ERR_ARG only for a caller's bad
 * prime (n8 not a multiple of 8, over ZP_WITNESS_INPUT_MAX_N8, p < 2). */
zp_status zp_witness_inputs_parse(zp_witness_inputs *out, const char *json, size_t len, const uint8_t *prime, size_t n8,
                                  const char *what, zp_error *err) ZP_WARN_UNUSED;

/* Reads a file (through zp_file_open_regular, at most
 * ZP_WITNESS_INPUT_MAX_BYTES) and parses it; messages name the path. */
zp_status zp_witness_inputs_read(zp_witness_inputs *out, const char *path, const uint8_t *prime, size_t n8,
                                 zp_error *err) ZP_WARN_UNUSED;

/* A bound on the heap zp_witness_inputs_parse takes while it parses this
 * text, beyond the text itself: jansson's tree (jansson 2.14's nodes as
 * glibc's malloc rounds them: 40 bytes a small number, 90 a short string,
 * 130 to 250 an array or object), the lexer's buffer, and the signals
 * with their values (n8 bytes each). One pass over the text, nothing
 * allocated; tests/test_witness_input.c checks it against the heap a
 * parse really takes. Text that is not JSON gets a bound too (the parse
 * then fails before it is reached). */
uint64_t zp_witness_inputs_parse_bytes(const char *json, size_t len, size_t n8);

/* Asked before memory is taken: total is what the read holds at most from
 * now on (the text, then the text and the parse). ZP_OK to go on;
 * anything else ends the read with that status and err. */
typedef zp_status zp_witness_reserve_fn(void *arg, uint64_t total, zp_error *err);

/* zp_witness_inputs_read within a memory budget: reserve is asked for the
 * file's size (from its descriptor, before a byte is read), then for the
 * size and zp_witness_inputs_parse_bytes before the text is parsed. On
 * success out->bytes is what the result holds (less than the last total;
 * the caller settles its reservation to it). */
zp_status zp_witness_inputs_read_reserved(zp_witness_inputs *out, const char *path, const uint8_t *prime, size_t n8,
                                          zp_witness_reserve_fn *reserve, void *reserve_arg,
                                          zp_error *err) ZP_WARN_UNUSED;

void zp_witness_inputs_free(zp_witness_inputs *in);

/* circom's key for a signal name: 64-bit FNV-1a over its bytes. */
uint64_t zp_witness_fnv1a(const char *name, size_t len);

#endif
