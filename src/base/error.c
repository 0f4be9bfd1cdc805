#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

zp_status zp_error_set(zp_error *err, zp_status status, const char *fmt, ...) {
    if (err != NULL) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        err->status = status;
    }
    return status;
}

zp_status zp_error_prefix(zp_error *err, const char *fmt, ...) {
    if (err == NULL) return ZP_ERR_INTERNAL;
    char prefix[256], old[sizeof err->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, err->message, sizeof old);
    size_t len = strlen(prefix);
    if (len >= sizeof err->message) len = sizeof err->message - 1;
    memcpy(err->message, prefix, len);
    size_t room = sizeof err->message - 1 - len, rest = strlen(old);
    if (rest > room) rest = room;
    memcpy(err->message + len, old, rest);
    err->message[len + rest] = '\0';
    return err->status;
}

const char *zp_size_text(char buf[32], uint64_t bytes) {
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 6) {
        v /= 1024;
        u++;
    }
    if (bytes % (1ULL << (10 * u)) == 0)
        snprintf(buf, 32, "%llu %s", (unsigned long long)(bytes >> (10 * u)), units[u]);
    else snprintf(buf, 32, "%.1f %s", v, units[u]);
    return buf;
}
