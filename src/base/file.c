#include "base/file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"

const char *zp_file_kind(unsigned mode) {
    switch (mode & S_IFMT) {
    case S_IFREG: return "a regular file";
    case S_IFDIR: return "a directory";
    case S_IFIFO: return "a FIFO";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFSOCK: return "a socket";
    case S_IFLNK: return "a symbolic link";
    default: return "of an unknown kind";
    }
}

zp_status zp_file_open_regular(int *fd, uint64_t *size, const char *path, zp_error *err) {
    *fd = -1;
    if (size != NULL) *size = 0;
    /* O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer;
     * O_NOCTTY: a terminal named as input must not become ours. */
    int f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (f < 0) return zp_error_set(err, ZP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(f, &sb) != 0) {
        int e = errno;
        close(f);
        return zp_error_set(err, ZP_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(f);
        return zp_error_set(err, ZP_ERR_IO, "%s: not a regular file (%s)", path, zp_file_kind((unsigned)sb.st_mode));
    }
    /* A regular file never blocks, but whoever reads it next expects an
     * ordinary descriptor: give it one. */
    int flags = fcntl(f, F_GETFL);
    if (flags < 0 || ((flags & O_NONBLOCK) && fcntl(f, F_SETFL, flags & ~O_NONBLOCK) != 0)) {
        int e = errno;
        close(f);
        return zp_error_set(err, ZP_ERR_IO, "%s: cannot set up the descriptor: %s", path, strerror(e));
    }
    *fd = f;
    if (size != NULL) *size = (uint64_t)sb.st_size;
    return ZP_OK;
}
