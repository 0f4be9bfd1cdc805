#define _GNU_SOURCE /* O_PATH */
#include "base/file.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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

int zp_file_check_regular(int fd, struct stat *sb) {
    if (fstat(fd, sb) != 0) return -1;
    if (!S_ISREG(sb->st_mode)) return 1;
    /* A regular file never blocks, but whoever reads it next expects an
     * ordinary descriptor: give it one. */
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || ((flags & O_NONBLOCK) && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0)) return -1;
    return 0;
}

zp_status zp_file_open_regular(int *fd, uint64_t *size, const char *path, zp_error *err) {
    *fd = -1;
    if (size != NULL) *size = 0;
    /* O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer;
     * O_NOCTTY: a terminal named as input must not become ours. */
    int f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (f < 0) return zp_error_set(err, ZP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    int r = zp_file_check_regular(f, &sb), e = errno;
    if (r != 0) {
        close(f);
        if (r > 0)
            return zp_error_set(err, ZP_ERR_IO, "%s: not a regular file (%s)", path,
                                zp_file_kind((unsigned)sb.st_mode));
        return zp_error_set(err, ZP_ERR_IO, "%s: cannot open: %s", path, strerror(e));
    }
    *fd = f;
    if (size != NULL) *size = (uint64_t)sb.st_size;
    return ZP_OK;
}

zp_status zp_file_read_all(char **text, size_t *len, const char *path, size_t max, const char *what, zp_error *err) {
    *text = NULL;
    *len = 0;
    int fd;
    uint64_t size;
    zp_status st = zp_file_open_regular(&fd, &size, path, err);
    if (st != ZP_OK) return st;
    char cap_text[32];
    if (size > max) {
        close(fd);
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: %llu bytes, more than %s can hold (%s)", path,
                            (unsigned long long)size, what, zp_size_text(cap_text, max));
    }
    /* One byte more than the size: a file that grew since fstat shows as
     * more bytes than expected and is read again up to the cap, never past. */
    size_t cap = (size_t)size + 1, n = 0;
    char *buf = malloc(cap + 1);
    if (buf == NULL) {
        close(fd);
        return zp_error_set(err, ZP_ERR_NOMEM, "%s: out of memory", path);
    }
    for (;;) {
        if (n == cap) {
            if (cap > max) break;
            size_t ncap = cap * 2 > max + 1 ? max + 1 : cap * 2;
            char *nb = realloc(buf, ncap + 1);
            if (nb == NULL) {
                free(buf);
                close(fd);
                return zp_error_set(err, ZP_ERR_NOMEM, "%s: out of memory", path);
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            int e = errno;
            free(buf);
            close(fd);
            return zp_error_set(err, ZP_ERR_IO, "%s: read error: %s", path, strerror(e));
        }
        if (got == 0) break;
        n += (size_t)got;
    }
    close(fd);
    if (n > max) {
        free(buf);
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: more than %s can hold (%s)", path, what,
                            zp_size_text(cap_text, max));
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return ZP_OK;
}

zp_status zp_file_write_all(const char *path, const void *data, size_t len, zp_error *err) {
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY, 0666);
    if (fd < 0) return zp_error_set(err, ZP_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    struct stat sb;
    int regular = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode), e = 0;
    const char *p = data;
    for (size_t done = 0; done < len && e == 0;) {
        ssize_t w = write(fd, p + done, len - done);
        if (w > 0) done += (size_t)w;
        else if (w < 0 && errno != EINTR) e = errno;
        else if (w == 0) e = EIO;
    }
    if (e == 0 && regular && (uint64_t)sb.st_size > len && ftruncate(fd, (off_t)len) != 0) e = errno;
    if (close(fd) != 0 && e == 0 && errno != EINTR) e = errno;
    if (e != 0) {
        if (regular) (void)unlink(path);
        return zp_error_set(err, ZP_ERR_IO, "%s: write error: %s", path, strerror(e));
    }
    return ZP_OK;
}

/* ---- beneath a directory ------------------------------------------------ */

/* The walk for kernels without openat2 (before 5.6) or where a seccomp
 * filter refuses it: one component at a time from dir_fd, each opened
 * O_NOFOLLOW (a symlink fails: ELOOP, or ENOTDIR where a directory was
 * expected, turned into ELOOP), any ".." refused (EXDEV). */
int zp_file_open_beneath_walk(int dir_fd, const char *rel, int flags, unsigned mode) {
    if (rel == NULL || rel[0] == '\0') {
        errno = ENOENT;
        return -1;
    }
    if (rel[0] == '/') {
        errno = EXDEV;
        return -1;
    }
    char *copy = strdup(rel);
    if (copy == NULL) {
        errno = ENOMEM;
        return -1;
    }
    int cur = dir_fd, fd = -1;
    char *save = NULL;
    char *comp = strtok_r(copy, "/", &save);
    while (comp != NULL) {
        char *next = strtok_r(NULL, "/", &save);
        if (strcmp(comp, ".") == 0) {
            comp = next;
            continue;
        }
        if (strcmp(comp, "..") == 0) {
            errno = EXDEV;
            break;
        }
        int nfd = next ? openat(cur, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                       : openat(cur, comp, flags | O_NOFOLLOW, (mode_t)mode);
        if (nfd < 0 && errno == ENOTDIR) { /* a symlink where a directory was expected */
            struct stat sb;
            if (fstatat(cur, comp, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(sb.st_mode)) errno = ELOOP;
            else errno = ENOTDIR;
        }
        if (cur != dir_fd) {
            int e = errno;
            close(cur);
            errno = e;
        }
        cur = dir_fd;
        if (nfd < 0) break;
        if (next == NULL) {
            struct stat sb; /* O_PATH | O_NOFOLLOW opens a symlink itself: refused as openat2 does */
            if ((flags & O_PATH) && fstat(nfd, &sb) == 0 && S_ISLNK(sb.st_mode)) {
                close(nfd);
                errno = ELOOP;
                break;
            }
            fd = nfd;
            break;
        }
        cur = nfd;
        comp = next;
    }
    if (fd < 0 && cur != dir_fd) close(cur);
    if (fd < 0 && comp == NULL) errno = EISDIR; /* nothing but "." and "/": the directory itself */
    int e = errno;
    free(copy);
    errno = e;
    return fd;
}

int zp_file_open_beneath(int dir_fd, const char *rel, int flags, unsigned mode) {
    if (rel == NULL || rel[0] == '\0') {
        errno = ENOENT;
        return -1;
    }
#ifdef SYS_openat2
    struct open_how how = {
        .flags = (uint64_t)(unsigned)flags,
        .mode = (flags & O_CREAT) ? mode : 0,
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
    };
    int fd = (int)syscall(SYS_openat2, dir_fd, rel, &how, sizeof how);
    if (fd >= 0 || (errno != ENOSYS && errno != EPERM)) return fd; /* EPERM: a seccomp filter */
#endif
    return zp_file_open_beneath_walk(dir_fd, rel, flags, mode);
}

DIR *zp_file_opendir_at(int dir_fd, const char *name) {
    int fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (d == NULL && fd >= 0) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return d;
}

int zp_file_untrusted(const struct stat *sb, char *why, size_t cap) {
    if (sb->st_uid != geteuid()) {
        snprintf(why, cap, "owned by uid %u, not by this user (uid %u)", (unsigned)sb->st_uid, (unsigned)geteuid());
        return 1;
    }
    unsigned mode = (unsigned)sb->st_mode;
    if (!(mode & (S_IWGRP | S_IWOTH))) return 0;
    snprintf(why, cap, "writable by %s (mode %04o)",
             (mode & S_IWGRP) && (mode & S_IWOTH) ? "its group and others"
             : (mode & S_IWGRP)                   ? "its group"
                                                  : "others",
             mode & 07777);
    return 2;
}

zp_status zp_file_check_private_dir(int fd, const char *what, const char *path, zp_error *err) {
    struct stat sb;
    if (fstat(fd, &sb) != 0) return zp_error_set(err, ZP_ERR_IO, "%s %s: cannot stat: %s", what, path, strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return zp_error_set(err, ZP_ERR_ARG, "%s %s: not a directory (%s)", what, path,
                            zp_file_kind((unsigned)sb.st_mode));
    char why[96];
    switch (zp_file_untrusted(&sb, why, sizeof why)) {
    case 1:
        return zp_error_set(err, ZP_ERR_ARG,
                            "%s %s: %s: whoever owns it can change what is read from it; chown it, or choose another "
                            "directory",
                            what, path, why);
    case 2:
        return zp_error_set(err, ZP_ERR_ARG,
                            "%s %s: %s: another user could change what is read from it; chmod go-w it (0700), or "
                            "choose another directory",
                            what, path, why);
    }
    return ZP_OK;
}

/* the loop of both: into rbuf, or from wbuf */
static int file_pio(int fd, uint8_t *rbuf, const uint8_t *wbuf, size_t n, uint64_t at) {
    while (n > 0) {
        ssize_t k = wbuf != NULL ? pwrite(fd, wbuf, n, (off_t)at) : pread(fd, rbuf, n, (off_t)at);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) return errno != 0 ? errno : EIO;
        if (k == 0) return -1;
        if (wbuf != NULL) wbuf += k;
        else rbuf += k;
        at += (uint64_t)k, n -= (size_t)k;
    }
    return 0;
}

int zp_file_pread_all(int fd, void *buf, size_t n, uint64_t at) { return file_pio(fd, buf, NULL, n, at); }

int zp_file_pwrite_all(int fd, const void *buf, size_t n, uint64_t at) { return file_pio(fd, NULL, buf, n, at); }
