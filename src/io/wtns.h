/* circom witnesses (.wtns, version 2; docs/formats.md). Opening copies the
 * values out of the file into an aligned array of plain 4-limb integers,
 * each checked below r, so the file is not held open afterwards. */
#ifndef ZP_IO_WTNS_H
#define ZP_IO_WTNS_H

#include <stddef.h>
#include <stdint.h>

#include "zkpipe.h"

typedef struct zp_wtns zp_wtns;

zp_status zp_wtns_open(zp_wtns **out, const char *path, zp_error *err) ZP_WARN_UNUSED;
/* The same over bytes in memory (copied; data need not outlive the call). */
zp_status zp_wtns_open_mem(zp_wtns **out, const void *data, size_t size, const char *name,
                           zp_error *err) ZP_WARN_UNUSED;
void zp_wtns_close(zp_wtns *wtns);
/* The checks every reader of a .wtns makes (the file, the in-memory check
 * and the stream): section 1's 40 bytes (n8 = 32, a known scalar field,
 * count > 0), and one value (below r; w[0] = 1). */
#define ZP_WTNS_HEADER_BYTES 40
zp_status zp_wtns_header_check(zp_curve *curve, uint32_t *count, const uint8_t header[ZP_WTNS_HEADER_BYTES],
                               const char *name, zp_error *err) ZP_WARN_UNUSED;
zp_status zp_wtns_value_check(zp_curve curve, uint64_t index, const uint8_t bytes[32], const char *name,
                              zp_error *err) ZP_WARN_UNUSED;
/* Checks a .wtns in memory as zp_wtns_open_mem does (its sections, every
 * value below r, w[0] = 1) without copying its values: the daemon checks
 * an upload in the buffer it arrived in. */
zp_status zp_wtns_check_mem(zp_curve *curve, size_t *count, const void *data, size_t size, const char *name,
                            zp_error *err) ZP_WARN_UNUSED;
/* Reads a .wtns straight into the caller's values (count × 4 limbs), with
 * the same checks, failing when the file's curve or count differ: the
 * engine reads witnesses into its tracked buffers this way. The file's
 * pages are given back as they are copied, ZP_WTNS_READ_RESIDENT bytes at
 * a time: the most of the file resident at once beside the values. */
#define ZP_WTNS_READ_RESIDENT ((size_t)1 << 20)
zp_status zp_wtns_read_into(uint64_t *values, size_t count, zp_curve curve, const char *path,
                            zp_error *err) ZP_WARN_UNUSED;

zp_curve zp_wtns_curve(const zp_wtns *wtns);
size_t zp_wtns_count(const zp_wtns *wtns);
/* count × 4 limbs, plain (not Montgomery), each < r, 64-byte aligned;
 * values[0..3] is the constant 1. */
const uint64_t *zp_wtns_values(const zp_wtns *wtns);

/* Writes count values (4 plain limbs each, < r) as a version-2 .wtns. */
zp_status zp_wtns_write(const char *path, zp_curve curve, const uint64_t *values, size_t count,
                        zp_error *err) ZP_WARN_UNUSED;

#endif
