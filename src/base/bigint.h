/* Plain multi-limb integers as decimal text, the form snarkjs's JSON files
 * use for field elements and coordinates. */
#ifndef ZP_BASE_BIGINT_H
#define ZP_BASE_BIGINT_H

#include <stddef.h>
#include <stdint.h>

/* Parses a non-empty string of decimal digits (no sign, no spaces) into n
 * little-endian limbs. Returns 0 on a bad character or overflow. */
int zp_bigint_from_dec(uint64_t *out, size_t n, const char *s);

/* Writes v (n limbs) as decimal into buf (cap bytes, NUL-terminated).
 * Returns 0 when buf is too small; 116 bytes always suffice for 6 limbs. */
int zp_bigint_to_dec(char *buf, size_t cap, const uint64_t *v, size_t n);

#endif
