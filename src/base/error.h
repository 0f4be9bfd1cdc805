/* Filling a caller's zp_error: one line naming the input and the problem. */
#ifndef ZP_BASE_ERROR_H
#define ZP_BASE_ERROR_H

#include "zkpipe.h"

/* Sets err (when not NULL) and returns status, so callers can write
 * `return zp_error_set(err, ZP_ERR_FORMAT, "%s: truncated", path);`. */
zp_status zp_error_set(zp_error *err, zp_status status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Prefixes an already set message with more context ("key.zkey: ..."). */
zp_status zp_error_prefix(zp_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes bytes as a size for a message into buf and returns buf: "512
 * bytes", "64 KiB", "12.5 MiB", "3.0 GiB" (binary units; one decimal
 * unless the size is a whole number of its unit). */
const char *zp_size_text(char buf[32], uint64_t bytes);

#endif
