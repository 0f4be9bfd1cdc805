#include "base/random.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "base/error.h"

zp_status zp_random_bytes(void *out, size_t len, zp_error *err) {
    unsigned char *p = out;
    while (len > 0) {
        ssize_t got = getrandom(p, len, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            return zp_error_set(err, ZP_ERR_INTERNAL, "getrandom failed: %s", strerror(errno));
        }
        p += got;
        len -= (size_t)got;
    }
    return ZP_OK;
}
