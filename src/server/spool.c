/* The spool (data_dir/spool, or spool_dir): each accepted witness or
 * input is written and fsynced there before its job is stored, and
 * removed once the job's end is recorded; the bytes in it are counted
 * against spool_max.
 *
 * A path read back from the store is data, not a capability: anyone who
 * can write the database (in a fleet, anyone with its credentials) writes
 * it. So the store names files relative to the spool, and every file a
 * row names is opened, read, stat'ed and unlinked beneath the spool's
 * descriptor (zp_file_open_beneath: no symlink followed, no ".." out,
 * nothing absolute), never by the name as given. A row that names
 * anything else is refused with the reason and nothing is touched. Rows
 * written before this rule held their absolute path, spelt with the spool
 * as configured (or its real path): that prefix is taken off, and what
 * remains must lie beneath the spool like any other.
 *
 * The spool and the data_dir are this daemon's own: refused at start when
 * another user owns them or may write them (zp_file_check_private_dir),
 * so nobody else can swap a file between its acceptance and its proof;
 * the request digest is checked against the proved bytes all the same
 * (verify.c). */
#define _GNU_SOURCE /* O_PATH */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/file.h"
#include "base/random.h"
#include "server/internal.h"

/* ---- the directories, at start ------------------------------------------- */

/* Makes dir (0700) when it is missing, opens it and checks that it is
 * this daemon's own; *fd is then an O_RDONLY descriptor of it. */
static zp_status private_dir(int *fd, const char *what, const char *dir, zp_error *err) {
    *fd = -1;
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return zp_error_set(err, ZP_ERR_IO, "%s %s: cannot create: %s", what, dir, strerror(errno));
    int f = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (f < 0) return zp_error_set(err, ZP_ERR_IO, "%s %s: %s", what, dir, strerror(errno));
    zp_status st = zp_file_check_private_dir(f, what, dir, err);
    if (st != ZP_OK) {
        close(f);
        return st;
    }
    *fd = f;
    return ZP_OK;
}

zp_status server_spool_open_dirs(zp_server *s, zp_error *err) {
    int data_fd;
    zp_status st = private_dir(&data_fd, "data_dir", s->cfg.data_dir, err);
    if (st != ZP_OK) return st;
    close(data_fd);
    st = private_dir(&s->spool_fd, s->cfg.spool_dir ? "spool_dir" : "the spool", s->spool_dir, err);
    if (st != ZP_OK) return st;
    /* the prefix of the rows earlier versions wrote, spelt canonically */
    s->spool_real = realpath(s->spool_dir, NULL);
    /* The engine opens what it is given by name: it gets the descriptor's
     * own name in /proc (the very file opened beneath the spool, whatever
     * happens to names after), or, where /proc is missing, the path the
     * check resolved. */
    char link[64], target[16];
    snprintf(link, sizeof link, "/proc/self/fd/%d", s->spool_fd);
    s->spool_proc = readlink(link, target, sizeof target) > 0;
    if (!s->spool_proc)
        server_log(s, 0,
                   "no /proc/self/fd: spooled files are handed to the engine by their path, resolved beneath "
                   "the spool just before");
    s->spool_bytes = server_spool_bytes(s);
    return ZP_OK;
}

/* ---- a row's path ----------------------------------------------------------- */

/* path starts with prefix (trailing '/'s of the prefix aside), then '/':
 * what follows it, else NULL. */
static const char *after_prefix(const char *path, const char *prefix) {
    if (prefix == NULL) return NULL;
    size_t n = strlen(prefix);
    while (n > 1 && prefix[n - 1] == '/') n--;
    if (n == 0 || strncmp(path, prefix, n) != 0 || path[n] != '/') return NULL;
    return path + n + 1;
}

zp_status server_spool_rel(char rel[SPOOL_PATH_MAX], const zp_server *s, const char *path, zp_error *err) {
    rel[0] = '\0';
    if (path == NULL || path[0] == '\0') return zp_error_set(err, ZP_ERR_ARG, "a store row names no spooled file");
    const char *r = after_prefix(path, s->spool_dir);
    if (r == NULL) r = after_prefix(path, s->spool_real);
    if (r == NULL && path[0] == '/')
        return zp_error_set(err, ZP_ERR_ARG, "'%.1024s' is not beneath the spool %s: a store row names it; refused",
                            path, s->spool_dir);
    if (r == NULL) r = path;
    while (*r == '/') r++;
    for (const char *c = r; *c;) { /* no ".." component, even one that would stay inside */
        size_t len = strcspn(c, "/");
        if (len == 2 && c[0] == '.' && c[1] == '.')
            return zp_error_set(err, ZP_ERR_ARG,
                                "'%.1024s' is not beneath the spool %s (it has a '..'): a store row names it; refused",
                                path, s->spool_dir);
        c += len;
        while (*c == '/') c++;
    }
    if (*r == '\0' || strlen(r) >= SPOOL_PATH_MAX)
        return zp_error_set(err, ZP_ERR_ARG, "'%.1024s' names no file beneath the spool %s: refused", path,
                            s->spool_dir);
    memcpy(rel, r, strlen(r) + 1);
    return ZP_OK;
}

/* The message for an open beneath the spool that failed with errno e. */
static zp_status beneath_error(zp_error *err, const zp_server *s, const char *path, int e) {
    if (e == ELOOP)
        return zp_error_set(err, ZP_ERR_ARG,
                            "'%.1024s' goes through a symbolic link in the spool %s: a store row names it; refused",
                            path, s->spool_dir);
    if (e == EXDEV)
        return zp_error_set(err, ZP_ERR_ARG, "'%.1024s' is not beneath the spool %s: a store row names it; refused",
                            path, s->spool_dir);
    return zp_error_set(err, e == ENOENT || e == ENOTDIR || e == EISDIR ? ZP_ERR_FORMAT : ZP_ERR_IO,
                        "spooled file '%.1024s': %s", path, strerror(e));
}

zp_status server_spool_open(int *fd, char rel[SPOOL_PATH_MAX], const zp_server *s, const char *path, zp_error *err) {
    *fd = -1;
    zp_status st = server_spool_rel(rel, s, path, err);
    if (st != ZP_OK) return st;
    /* O_NONBLOCK: a FIFO planted in the spool must not block the open */
    int f = zp_file_open_beneath(s->spool_fd, rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0);
    if (f < 0) return beneath_error(err, s, path, errno);
    struct stat sb;
    int r = zp_file_check_regular(f, &sb), e = errno;
    if (r != 0) {
        close(f);
        if (r > 0)
            return zp_error_set(err, ZP_ERR_FORMAT, "spooled file '%.1024s': not a regular file (%s): refused", path,
                                zp_file_kind((unsigned)sb.st_mode));
        return zp_error_set(err, ZP_ERR_IO, "spooled file '%.1024s': %s", path, strerror(e));
    }
    *fd = f;
    return ZP_OK;
}

zp_status server_spool_stat(struct stat *sb, const zp_server *s, const char *path, zp_error *err) {
    char rel[SPOOL_PATH_MAX];
    zp_status st = server_spool_rel(rel, s, path, err);
    if (st != ZP_OK) return st;
    int f = zp_file_open_beneath(s->spool_fd, rel, O_PATH | O_CLOEXEC, 0);
    if (f < 0) return beneath_error(err, s, path, errno);
    st = fstat(f, sb) == 0 ? ZP_OK : zp_error_set(err, ZP_ERR_IO, "spooled file '%.1024s': %s", path, strerror(errno));
    close(f);
    return st;
}

int server_spool_engine_name(char *name, size_t cap, const zp_server *s, int fd, const char *rel) {
    int n = s->spool_proc ? snprintf(name, cap, "/proc/self/fd/%d", fd)
                          : snprintf(name, cap, "%s/%s", s->spool_real ? s->spool_real : s->spool_dir, rel);
    return n > 0 && (size_t)n < cap;
}

/* ---- writing -------------------------------------------------------------- */

/* The directory that holds rel (rel itself for a directory: dir = 1),
 * beneath the spool; the spool's own descriptor for a file directly in
 * it (*owned = 0). */
static int parent_fd(const zp_server *s, const char *rel, const char **base, int *owned) {
    const char *slash = strrchr(rel, '/');
    *owned = 0;
    *base = slash ? slash + 1 : rel;
    if (slash == NULL) return s->spool_fd;
    char dir[SPOOL_PATH_MAX];
    size_t len = (size_t)(slash - rel);
    memcpy(dir, rel, len);
    dir[len] = '\0';
    int f = zp_file_open_beneath(s->spool_fd, dir, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
    *owned = f >= 0;
    return f;
}

/* Syncs a directory beneath the spool ("": the spool). */
static void sync_dir(const zp_server *s, const char *rel) {
    if (rel[0] == '\0') {
        fsync(s->spool_fd);
        return;
    }
    int fd = zp_file_open_beneath(s->spool_fd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

void server_spool_sync(const zp_server *s, const char *dir) {
    sync_dir(s, dir);
    sync_dir(s, "");
}

zp_status server_spool_create(int *fd, const zp_server *s, const char *rel, zp_error *err) {
    *fd = zp_file_open_beneath(s->spool_fd, rel, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0600);
    if (*fd < 0) return zp_error_set(err, ZP_ERR_IO, "%s/%s: %s", s->spool_dir, rel, strerror(errno));
    return ZP_OK;
}

void server_spool_discard(const zp_server *s, const char *dir, char *const *paths, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const char *base;
        int owned, pfd = paths[i] ? parent_fd(s, paths[i], &base, &owned) : -1;
        if (pfd < 0) continue;
        unlinkat(pfd, base, 0);
        if (owned) close(pfd);
    }
    if (dir != NULL && dir[0] != '\0' && strchr(dir, '/') == NULL) unlinkat(s->spool_fd, dir, AT_REMOVEDIR);
}

static zp_status write_synced(const zp_server *s, const char *rel, const void *data, size_t size, zp_error *err) {
    int fd;
    zp_status st = server_spool_create(&fd, s, rel, err);
    if (st != ZP_OK) return st;
    const unsigned char *p = data;
    size_t left = size;
    int e = 0;
    while (left > 0 && e == 0) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            e = n < 0 ? errno : EIO;
            break;
        }
        p += n;
        left -= (size_t)n;
    }
    if (e == 0 && fsync(fd) != 0) e = errno;
    close(fd);
    if (e == 0) return ZP_OK;
    char *one = (char *)rel;
    server_spool_discard(s, NULL, &one, 1);
    return zp_error_set(err, e == ENOSPC || e == EDQUOT ? ZP_ERR_NOMEM : ZP_ERR_IO, "%s/%s: %s", s->spool_dir, rel,
                        strerror(e));
}

zp_status server_spool_mkdir(char *dir, zp_server *s, zp_error *err) {
    uint32_t rnd = 0;
    zp_error ignored;
    if (zp_random_bytes(&rnd, sizeof rnd, &ignored) != ZP_OK) rnd = (uint32_t)time(NULL);
    pthread_mutex_lock(&s->lock);
    uint64_t seq = ++s->spool_seq;
    pthread_mutex_unlock(&s->lock);
    snprintf(dir, SPOOL_DIR_MAX, "%lld-%llu-%08x", (long long)time(NULL), (unsigned long long)seq, rnd);
    if (mkdirat(s->spool_fd, dir, 0700) != 0)
        return zp_error_set(err, ZP_ERR_IO, "%s/%s: %s", s->spool_dir, dir, strerror(errno));
    return ZP_OK;
}

/* Writes the witnesses (or inputs) to a fresh spool directory, synced, as
 * N.<suffix>; paths[i] are malloc'd, relative to the spool. */
zp_status server_spool(char **paths, zp_server *s, const job_witness *w, size_t n, const char *suffix, int *http_status,
                       zp_error *err) {
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) total += w[i].size;
    pthread_mutex_lock(&s->lock);
    if (s->cfg.spool_max && s->spool_bytes + total > s->cfg.spool_max) {
        pthread_mutex_unlock(&s->lock);
        *http_status = 507;
        return zp_error_set(err, ZP_ERR_NOMEM, "the witness spool is full (%llu of %llu bytes used, %llu more needed)",
                            (unsigned long long)s->spool_bytes, (unsigned long long)s->cfg.spool_max,
                            (unsigned long long)total);
    }
    s->spool_bytes += total;
    pthread_mutex_unlock(&s->lock);

    char dir[SPOOL_DIR_MAX];
    zp_status st = server_spool_mkdir(dir, s, err);
    size_t written = 0;
    for (; st == ZP_OK && written < n; written++) {
        size_t len = strlen(dir) + 32;
        paths[written] = malloc(len);
        if (paths[written] == NULL) {
            st = zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
            break;
        }
        snprintf(paths[written], len, "%s/%zu.%.8s", dir, written, suffix);
        st = write_synced(s, paths[written], w[written].bytes, w[written].size, err);
        if (st != ZP_OK) {
            free(paths[written]);
            paths[written] = NULL;
            break;
        }
    }
    if (st == ZP_OK) {
        server_spool_sync(s, dir);
        return ZP_OK;
    }
    if (st == ZP_ERR_NOMEM) *http_status = 507;
    server_spool_discard(s, dir, paths, written);
    for (size_t i = 0; i < written; i++) {
        free(paths[i]);
        paths[i] = NULL;
    }
    pthread_mutex_lock(&s->lock);
    s->spool_bytes -= total;
    pthread_mutex_unlock(&s->lock);
    if (*http_status == 507) zp_error_prefix(err, "the witness spool is full: ");
    return st;
}

/* ---- removing what a row names ---------------------------------------------- */

void server_spool_remove(void *arg, const char *path) {
    zp_server *s = arg;
    char rel[SPOOL_PATH_MAX];
    zp_error err;
    if (server_spool_rel(rel, s, path, &err) != ZP_OK) {
        server_log(s, 0, "not removing a spooled file: %s", err.message);
        return;
    }
    const char *base;
    int owned, pfd = parent_fd(s, rel, &base, &owned);
    if (pfd < 0) {
        if (errno != ENOENT) { /* gone already: no error (the expiry passes them all again) */
            beneath_error(&err, s, path, errno);
            server_log(s, 0, "not removing a spooled file: %s", err.message);
        }
        return;
    }
    struct stat sb;
    if (fstatat(pfd, base, &sb, AT_SYMLINK_NOFOLLOW) == 0) {
        if (S_ISREG(sb.st_mode)) {
            pthread_mutex_lock(&s->lock);
            s->spool_bytes -= (uint64_t)sb.st_size < s->spool_bytes ? (uint64_t)sb.st_size : s->spool_bytes;
            pthread_mutex_unlock(&s->lock);
            unlinkat(pfd, base, 0);
        } else {
            server_log(s, 0, "not removing spooled file '%.1024s': %s, not a regular file", path,
                       zp_file_kind((unsigned)sb.st_mode));
        }
    }
    if (owned) close(pfd);
    /* its job's directory, once its last file is gone (a directory of the
     * spool's own: one component) */
    const char *slash = strchr(rel, '/');
    if (slash != NULL && strchr(slash + 1, '/') == NULL) {
        rel[slash - rel] = '\0';
        unlinkat(s->spool_fd, rel, AT_REMOVEDIR);
    }
}

/* ---- the whole spool: its size, the sweep at start ---------------------------- */

/* The directory name beneath dfd, opened for reading without following a
 * symlink; -1 when it is not one. */
static int open_subdir(int dfd, const char *name) {
    return openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

static uint64_t dir_bytes(int dfd, int depth) {
    DIR *d = zp_file_opendir_at(dfd, "."); /* not dup: its own read position */
    if (d == NULL) return 0;
    uint64_t total = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        struct stat sb;
        if (fstatat(dfd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0) continue;
        if (S_ISDIR(sb.st_mode) && depth < 4) {
            int sub = open_subdir(dfd, e->d_name);
            if (sub >= 0) {
                total += dir_bytes(sub, depth + 1);
                close(sub);
            }
        } else if (S_ISREG(sb.st_mode)) {
            total += (uint64_t)sb.st_size;
        }
    }
    closedir(d);
    return total;
}

uint64_t server_spool_bytes(const zp_server *s) { return s->spool_fd >= 0 ? dir_bytes(s->spool_fd, 0) : 0; }

static int cmp_file_id(const void *a, const void *b) {
    const spool_file_id *x = a, *y = b;
    if (x->dev != y->dev) return x->dev < y->dev ? -1 : 1;
    return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* Everything beneath dfd that keep does not hold, by descriptor: a
 * directory swapped for a symlink while the sweep runs is not followed. */
static void sweep_dir(int dfd, const spool_file_id *keep, size_t n_keep, size_t *removed, uint64_t *bytes, int depth) {
    DIR *d = zp_file_opendir_at(dfd, "."); /* not dup: its own read position */
    if (d == NULL) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        struct stat sb;
        if (fstatat(dfd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0) continue;
        if (S_ISDIR(sb.st_mode)) {
            int sub = depth < 4 ? open_subdir(dfd, e->d_name) : -1;
            if (sub >= 0) {
                sweep_dir(sub, keep, n_keep, removed, bytes, depth + 1);
                close(sub);
            }
            unlinkat(dfd, e->d_name, AT_REMOVEDIR); /* fails, as it should, while a live job's file is in it */
            continue;
        }
        spool_file_id id = {(uint64_t)sb.st_dev, (uint64_t)sb.st_ino};
        if (n_keep && bsearch(&id, keep, n_keep, sizeof *keep, cmp_file_id) != NULL) continue;
        if (unlinkat(dfd, e->d_name, 0) == 0) {
            (*removed)++;
            if (S_ISREG(sb.st_mode)) *bytes += (uint64_t)sb.st_size;
        }
    }
    closedir(d);
}

/* Files are compared by device and inode, not by name: the store's paths
 * may be spelt with the data_dir of the run that wrote them, which may be
 * spelt otherwise now. */
void server_spool_sweep(zp_server *s, spool_file_id *keep, size_t n_keep, size_t *removed, uint64_t *bytes) {
    *removed = 0;
    *bytes = 0;
    if (n_keep) qsort(keep, n_keep, sizeof *keep, cmp_file_id);
    sweep_dir(s->spool_fd, keep, n_keep, removed, bytes, 0);
    fsync(s->spool_fd);
    uint64_t now = server_spool_bytes(s);
    pthread_mutex_lock(&s->lock);
    s->spool_bytes = now;
    pthread_mutex_unlock(&s->lock);
}
