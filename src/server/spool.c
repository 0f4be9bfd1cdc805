/* The witness spool (data_dir/spool): each accepted witness is written
 * and fsynced there before its job is stored, and removed once the job's
 * end is recorded; the bytes in it are counted against spool_max. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/random.h"
#include "server/internal.h"

static zp_status write_synced(const char *path, const void *data, size_t size, zp_error *err) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return zp_error_set(err, ZP_ERR_IO, "%s: %s", path, strerror(errno));
    const unsigned char *p = data;
    size_t left = size;
    while (left > 0) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int e = errno;
            close(fd);
            unlink(path);
            return zp_error_set(err, e == ENOSPC || e == EDQUOT ? ZP_ERR_NOMEM : ZP_ERR_IO, "%s: %s", path,
                                strerror(e));
        }
        p += n;
        left -= (size_t)n;
    }
    if (fsync(fd) != 0) {
        int e = errno;
        close(fd);
        unlink(path);
        return zp_error_set(err, e == ENOSPC ? ZP_ERR_NOMEM : ZP_ERR_IO, "%s: %s", path, strerror(e));
    }
    close(fd);
    return ZP_OK;
}

static void sync_dir(const char *path) {
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

void server_spool_remove(void *arg, const char *path) {
    zp_server *s = arg;
    struct stat sb;
    if (stat(path, &sb) == 0) {
        pthread_mutex_lock(&s->lock);
        s->spool_bytes -= (uint64_t)sb.st_size < s->spool_bytes ? (uint64_t)sb.st_size : s->spool_bytes;
        pthread_mutex_unlock(&s->lock);
    }
    unlink(path);
    char *dir = strdup(path), *slash = dir ? strrchr(dir, '/') : NULL;
    if (slash) {
        *slash = '\0';
        rmdir(dir); /* once its last file is gone */
    }
    free(dir);
}

uint64_t server_spool_bytes(const char *path) {
    DIR *d = opendir(path);
    if (d == NULL) return 0;
    uint64_t total = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        struct stat sb;
        if (lstat(sub, &sb) != 0) continue;
        total += S_ISDIR(sb.st_mode) ? server_spool_bytes(sub) : (uint64_t)sb.st_size;
    }
    closedir(d);
    return total;
}

zp_status server_spool_mkdir(char *dir, zp_server *s, zp_error *err) {
    uint32_t rnd = 0;
    zp_error ignored;
    if (zp_random_bytes(&rnd, sizeof rnd, &ignored) != ZP_OK) rnd = (uint32_t)time(NULL);
    pthread_mutex_lock(&s->lock);
    uint64_t seq = ++s->spool_seq;
    pthread_mutex_unlock(&s->lock);
    snprintf(dir, 4096, "%s/%lld-%llu-%08x", s->spool_dir, (long long)time(NULL), (unsigned long long)seq, rnd);
    if (mkdir(dir, 0700) != 0) return zp_error_set(err, ZP_ERR_IO, "%s: %s", dir, strerror(errno));
    return ZP_OK;
}

/* Writes the witnesses (or inputs) to a fresh spool directory, synced, as
 * N.<suffix>; paths[i] are malloc'd. */
zp_status server_spool(char **paths, zp_server *s, const job_witness *w, size_t n, const char *suffix,
                       int *http_status, zp_error *err) {
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

    char dir[4096];
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
        st = write_synced(paths[written], w[written].bytes, w[written].size, err);
        if (st != ZP_OK) {
            free(paths[written]);
            paths[written] = NULL;
            break;
        }
    }
    if (st == ZP_OK) {
        sync_dir(dir);
        sync_dir(s->spool_dir);
        return ZP_OK;
    }
    if (st == ZP_ERR_NOMEM) *http_status = 507;
    for (size_t i = 0; i < written; i++) {
        unlink(paths[i]);
        free(paths[i]);
        paths[i] = NULL;
    }
    rmdir(dir);
    pthread_mutex_lock(&s->lock);
    s->spool_bytes -= total;
    pthread_mutex_unlock(&s->lock);
    if (*http_status == 507) zp_error_prefix(err, "the witness spool is full: ");
    return st;
}


/* ---- the sweep at start ------------------------------------------------- */

static int cmp_file_id(const void *a, const void *b) {
    const spool_file_id *x = a, *y = b;
    if (x->dev != y->dev) return x->dev < y->dev ? -1 : 1;
    return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static void sweep_dir(const char *path, const spool_file_id *keep, size_t n_keep, size_t *removed, uint64_t *bytes,
                      int depth) {
    DIR *d = opendir(path);
    if (d == NULL) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char sub[4096];
        if ((size_t)snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) >= sizeof sub) continue;
        struct stat sb;
        if (lstat(sub, &sb) != 0) continue;
        if (S_ISDIR(sb.st_mode)) {
            if (depth < 4) sweep_dir(sub, keep, n_keep, removed, bytes, depth + 1);
            rmdir(sub); /* fails, as it should, while a live job's file is in it */
            continue;
        }
        spool_file_id id = {(uint64_t)sb.st_dev, (uint64_t)sb.st_ino};
        if (n_keep && bsearch(&id, keep, n_keep, sizeof *keep, cmp_file_id) != NULL) continue;
        if (unlink(sub) == 0) {
            (*removed)++;
            *bytes += (uint64_t)sb.st_size;
        }
    }
    closedir(d);
}

/* Files are compared by device and inode, not by name: the store's paths
 * are spelt with the data_dir of the run that wrote them, which may be
 * spelt otherwise now. */
void server_spool_sweep(zp_server *s, spool_file_id *keep, size_t n_keep, size_t *removed, uint64_t *bytes) {
    *removed = 0;
    *bytes = 0;
    if (n_keep) qsort(keep, n_keep, sizeof *keep, cmp_file_id);
    sweep_dir(s->spool_dir, keep, n_keep, removed, bytes, 0);
    sync_dir(s->spool_dir);
    uint64_t now = server_spool_bytes(s->spool_dir);
    pthread_mutex_lock(&s->lock);
    s->spool_bytes = now;
    pthread_mutex_unlock(&s->lock);
}
