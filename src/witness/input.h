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

typedef struct zp_witness_signal {
    char *name;      /* the member's name, as in the file (NUL-terminated) */
    uint64_t hash;   /* 64-bit FNV-1a of name: circom's signal lookup key */
    size_t count;    /* values after flattening */
    uint8_t *values; /* count × n8 bytes, each little-endian, reduced mod p */
} zp_witness_signal;

typedef struct zp_witness_inputs {
    zp_witness_signal *signals; /* in the file's order */
    size_t count;
    size_t n8; /* bytes per value: the prime's size rounded up to 8 */
} zp_witness_inputs;

/* Parses len bytes of JSON text. prime is p, n8 bytes little-endian (n8 a
 * multiple of 8: 32 for bn128 and bls12381's scalar fields). what names the
 * input in messages ("input.json", "inputs[3]"). On error out is empty and
 * err says what and where: ZP_ERR_FORMAT for bad JSON or a value that is
 * not a number, ZP_ERR_ARG never. */
zp_status zp_witness_inputs_parse(zp_witness_inputs *out, const char *json, size_t len, const uint8_t *prime,
                                  size_t n8, const char *what, zp_error *err) ZP_WARN_UNUSED;

/* Reads a file (through zp_file_open_regular, with a size limit) and
 * parses it. */
zp_status zp_witness_inputs_read(zp_witness_inputs *out, const char *path, const uint8_t *prime, size_t n8,
                                 zp_error *err) ZP_WARN_UNUSED;

void zp_witness_inputs_free(zp_witness_inputs *in);

/* circom's key for a signal name: 64-bit FNV-1a over its bytes. */
uint64_t zp_witness_fnv1a(const char *name, size_t len);

#endif
