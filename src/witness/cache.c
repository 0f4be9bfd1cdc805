/* The compiled-object cache's trust rules and objects (cache.h). */
#define _GNU_SOURCE /* asprintf */
#include "witness/cache.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h> /* ElfW: this machine's ELF class */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/file.h"

static const char trailer_magic[16] = {'z', 'k', 'p', 'i', 'p', 'e', '-', 'o', 'b', 'j', 'e', 'c', 't', ' ', '1', '\n'};
#define KEY_BYTES 32
#define CHUNK (32u << 10)

/* This machine's ELF e_machine, when known; 0: not checked. */
#if defined(__x86_64__)
#define HOST_EM EM_X86_64
#elif defined(__aarch64__)
#define HOST_EM EM_AARCH64
#elif defined(__i386__)
#define HOST_EM EM_386
#elif defined(__riscv)
#define HOST_EM EM_RISCV
#elif defined(__powerpc64__)
#define HOST_EM EM_PPC64
#elif defined(__s390x__)
#define HOST_EM EM_S390
#else
#define HOST_EM 0
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_ELFDATA ELFDATA2MSB
#else
#define HOST_ELFDATA ELFDATA2LSB
#endif
#if defined(__LP64__)
#define HOST_ELFCLASS ELFCLASS64
#else
#define HOST_ELFCLASS ELFCLASS32
#endif

#define STR_(x) #x
#define STR(x) STR_(x)
const char *zp_witness_cache_machine(void) {
    return "elf class " STR(HOST_ELFCLASS) " data " STR(HOST_ELFDATA) " machine " STR(HOST_EM);
}

/* ---- XXH64 (Yann Collet's xxHash, 64-bit, seed 0), streaming ---------- */

#define XP1 0x9E3779B185EBCA87ULL
#define XP2 0xC2B2AE3D27D4EB4FULL
#define XP3 0x165667B19E3779F9ULL
#define XP4 0x85EBCA77C2B2AE63ULL
#define XP5 0x27D4EB2F165667C5ULL

typedef struct xxh64_state {
    uint64_t v[4], total;
    uint8_t buf[32];
    size_t buffered;
} xxh64_state;

static uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
static uint64_t get_le64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}
static void put_le64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint64_t get_le32(const uint8_t *p) {
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
}
static uint64_t xxh_round(uint64_t acc, uint64_t in) { return rotl64(acc + in * XP2, 31) * XP1; }

static void xxh64_init(xxh64_state *s) { *s = (xxh64_state){.v = {XP1 + XP2, XP2, 0, 0 - XP1}}; }

static void xxh64_stripe(uint64_t v[4], const uint8_t *p) {
    v[0] = xxh_round(v[0], get_le64(p));
    v[1] = xxh_round(v[1], get_le64(p + 8));
    v[2] = xxh_round(v[2], get_le64(p + 16));
    v[3] = xxh_round(v[3], get_le64(p + 24));
}

static void xxh64_update(xxh64_state *s, const void *data, size_t len) {
    const uint8_t *p = data;
    s->total += len;
    if (s->buffered > 0) {
        size_t take = 32 - s->buffered < len ? 32 - s->buffered : len;
        memcpy(s->buf + s->buffered, p, take);
        s->buffered += take, p += take, len -= take;
        if (s->buffered < 32) return;
        xxh64_stripe(s->v, s->buf);
        s->buffered = 0;
    }
    for (; len >= 32; p += 32, len -= 32) xxh64_stripe(s->v, p);
    memcpy(s->buf, p, len);
    s->buffered = len;
}

static uint64_t xxh64_final(const xxh64_state *s) {
    uint64_t h;
    if (s->total >= 32) {
        h = rotl64(s->v[0], 1) + rotl64(s->v[1], 7) + rotl64(s->v[2], 12) + rotl64(s->v[3], 18);
        for (int i = 0; i < 4; i++) h = (h ^ xxh_round(0, s->v[i])) * XP1 + XP4;
    } else {
        h = XP5; /* seed 0 */
    }
    h += s->total;
    const uint8_t *p = s->buf;
    size_t n = s->buffered;
    for (; n >= 8; p += 8, n -= 8) h = rotl64(h ^ xxh_round(0, get_le64(p)), 27) * XP1 + XP4;
    if (n >= 4) h = rotl64(h ^ get_le32(p) * XP1, 23) * XP2 + XP3, p += 4, n -= 4;
    for (; n > 0; p++, n--) h = rotl64(h ^ *p * XP5, 11) * XP1;
    h ^= h >> 33;
    h *= XP2;
    h ^= h >> 29;
    h *= XP3;
    return h ^ (h >> 32);
}

uint64_t zp_witness_xxh64(const void *data, size_t len) {
    xxh64_state s;
    xxh64_init(&s);
    xxh64_update(&s, data, len);
    return xxh64_final(&s);
}

/* ---- the trust rules ---------------------------------------------------- */

zp_status zp_witness_cache_trusted(const struct stat *sb, unsigned kind, const char *path, const char *what,
                                   zp_error *err) {
    if ((sb->st_mode & S_IFMT) != kind) {
        return zp_error_set(err, ZP_ERR_IO, "%s: %s is %s, not %s: refusing to use it", path, what,
                            zp_file_kind((unsigned)sb->st_mode), kind == S_IFDIR ? "a directory" : "a regular file");
    }
    char why[96];
    switch (zp_file_untrusted(sb, why, sizeof why)) {
    case 1:
        return zp_error_set(err, ZP_ERR_IO,
                            "%s: %s is %s: refusing to trust it (its owner could give zkpipe code to run; use a cache "
                            "of your own: --cache DIR or ZKPIPE_CACHE)",
                            path, what, why);
    case 2:
        return zp_error_set(err, ZP_ERR_IO,
                            "%s: %s is %s: refusing to trust it (others could give zkpipe code to run; chmod go-w it)",
                            path, what, why);
    }
    return ZP_OK;
}

/* Every folder above the cache (as realpath resolves it): owned by this
 * user or root, and sticky where others may write it, so nobody else can
 * move the cache away and put theirs, or a link, in its place. */
static zp_status check_ancestors(const char *dir, zp_error *err) {
    char *real = realpath(dir, NULL);
    if (real == NULL) {
        return zp_error_set(err, ZP_ERR_IO, "%s: cannot resolve the cache directory: %s", dir, strerror(errno));
    }
    zp_status st = ZP_OK;
    for (char *slash; st == ZP_OK && (slash = strrchr(real, '/')) != NULL;) {
        int top = slash == real;
        slash[top] = 0; /* the parent; "/" stays "/" */
        struct stat sb;
        if (stat(real, &sb) != 0) {
            st = zp_error_set(err, ZP_ERR_IO, "%s: cannot check the folder %s above the cache: %s", dir, real,
                              strerror(errno));
        } else if (sb.st_uid != geteuid() && sb.st_uid != 0) {
            st = zp_error_set(err, ZP_ERR_IO,
                              "%s: the cache directory is inside %s, owned by uid %u: refusing to trust it (that "
                              "user could replace the cache; use a cache of your own: --cache DIR or ZKPIPE_CACHE)",
                              dir, real, (unsigned)sb.st_uid);
        } else if ((sb.st_mode & (S_IWGRP | S_IWOTH)) && !(sb.st_mode & S_ISVTX)) {
            st = zp_error_set(err, ZP_ERR_IO,
                              "%s: the cache directory is inside %s, which others may write (mode %04o) and is not "
                              "sticky: refusing to trust it (another user could replace the cache)",
                              dir, real, (unsigned)sb.st_mode & 07777);
        }
        if (top) break;
    }
    free(real);
    return st;
}

zp_status zp_witness_cache_io_error(zp_error *err, const char *cache_dir, const char *path, const char *what, int e) {
    if (e == ENOSPC || e == EDQUOT) {
        return zp_error_set(err, ZP_ERR_IO,
                            "%s: no space left on device%s (cannot %s %s): free some, or give another cache "
                            "(--cache DIR or ZKPIPE_CACHE)",
                            cache_dir, e == EDQUOT ? " (disk quota exceeded)" : "", what, path);
    }
    return zp_error_set(err, ZP_ERR_IO, "%s: cannot %s: %s", path, what, strerror(e));
}

/* mkdir -p, each folder made 0700 */
static zp_status make_dirs(const char *path, zp_error *err) {
    char *p = strdup(path);
    if (p == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    zp_status st = ZP_OK;
    for (char *s = p + 1; st == ZP_OK; s++) {
        if (*s != '/' && *s != 0) continue;
        char c = *s;
        *s = 0;
        if (mkdir(p, 0700) != 0 && errno != EEXIST) {
            st = zp_witness_cache_io_error(err, path, p, "create the cache directory", errno);
        }
        *s = c;
        if (c == 0) break;
    }
    free(p);
    return st;
}

zp_status zp_witness_cache_open(int *dirfd, const char *dir, int create, zp_error *err) {
    *dirfd = -1;
    zp_status st;
    if (create && (st = make_dirs(dir, err)) != ZP_OK) return st;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT && !create) return ZP_OK;
        if (errno == ENOTDIR) return zp_error_set(err, ZP_ERR_IO, "%s: the cache directory is not a directory", dir);
        return zp_error_set(err, ZP_ERR_IO, "%s: cannot open the cache directory: %s", dir, strerror(errno));
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        st = zp_error_set(err, ZP_ERR_IO, "%s: cannot stat the cache directory: %s", dir, strerror(errno));
    } else if ((st = zp_witness_cache_trusted(&sb, S_IFDIR, dir, "the cache directory", err)) == ZP_OK) {
        st = check_ancestors(dir, err);
    }
    if (st != ZP_OK) {
        close(fd);
        return st;
    }
    *dirfd = fd;
    return ZP_OK;
}

/* ---- objects ------------------------------------------------------------ */

static int key_bytes(uint8_t out[KEY_BYTES], const char *hex) {
    for (int i = 0; i < 2 * KEY_BYTES; i++) {
        char c = hex[i];
        int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (v < 0) return 0;
        out[i / 2] = (uint8_t)(i % 2 ? out[i / 2] | v : v << 4);
    }
    return hex[2 * KEY_BYTES] == 0;
}

static int read_at(int fd, void *buf, size_t len, uint64_t off) {
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(fd, (uint8_t *)buf + got, len - got, (off_t)(off + got));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return 0;
        got += (size_t)n;
    }
    return 1;
}

/* XXH64 of the first len bytes of fd; 0 in *ok when it cannot be read.
 * Through a mapping, populated at once: a 256 KiB read buffer cost more
 * in first-touch page faults than the hash itself (1.4 ms a check on this
 * VM, for 1.7 MB), small reads as much in system calls. The size was just
 * checked through the descriptor; only a process of this user could cut
 * the file now, and the calculator's own mapping has that exposure for
 * the process's life anyway. */
static uint64_t digest_fd(int fd, uint64_t len, int *ok) {
    xxh64_state s;
    xxh64_init(&s);
    *ok = 1;
    if (len == 0) return xxh64_final(&s);
    void *map = len <= SIZE_MAX ? mmap(NULL, (size_t)len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0) : MAP_FAILED;
    if (map == MAP_FAILED) {
        *ok = 0;
        return 0;
    }
    xxh64_update(&s, map, (size_t)len);
    munmap(map, (size_t)len);
    return xxh64_final(&s);
}

/* The ELF image (elf bytes): this machine's shared object, its program
 * headers and loaded segments within it, so that mapping it never
 * reaches past the file's end (SIGBUS). NULL when whole; else why. */
static const char *elf_problem(int fd, uint64_t elf) {
    ElfW(Ehdr) eh;
    if (elf < sizeof eh || !read_at(fd, &eh, sizeof eh, 0)) return "too short for an ELF object";
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) return "not an ELF object";
    if (eh.e_ident[EI_CLASS] != HOST_ELFCLASS || eh.e_ident[EI_DATA] != HOST_ELFDATA || eh.e_type != ET_DYN ||
        (HOST_EM != 0 && eh.e_machine != HOST_EM)) {
        return "not a shared object for this machine";
    }
    if (eh.e_phentsize != sizeof(ElfW(Phdr)) || eh.e_phnum == 0 || eh.e_phnum > 64 || eh.e_phoff > elf ||
        (uint64_t)eh.e_phnum * sizeof(ElfW(Phdr)) > elf - eh.e_phoff) {
        return "its program headers lie past its end";
    }
    ElfW(Phdr) ph[64]; /* a shared object from cc has about a dozen */
    if (!read_at(fd, ph, eh.e_phnum * sizeof *ph, eh.e_phoff)) return "its program headers cannot be read";
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        if (ph[i].p_type == PT_LOAD && (ph[i].p_offset > elf || ph[i].p_filesz > elf - ph[i].p_offset)) {
            return "a segment lies past its end";
        }
    }
    return NULL;
}

/* Whether the object (size bytes on fd) is whole: 1, or 0 with why. */
static int object_whole(int fd, uint64_t size, const uint8_t key[KEY_BYTES], int digest, char *why, size_t cap) {
    uint8_t t[ZP_OBJECT_TRAILER_BYTES];
    if (size <= ZP_OBJECT_TRAILER_BYTES || !read_at(fd, t, sizeof t, size - sizeof t) ||
        memcmp(t, trailer_magic, sizeof trailer_magic) != 0) {
        snprintf(why, cap, "%s: %llu bytes with no zkpipe trailer at the end",
                 size == 0 ? "empty" : "truncated or garbage", (unsigned long long)size);
        return 0;
    }
    if (memcmp(t + 16, key, KEY_BYTES) != 0) {
        snprintf(why, cap, "its trailer is another circuit's");
        return 0;
    }
    uint64_t elf = get_le64(t + 48);
    if (elf != size - sizeof t) {
        snprintf(why, cap, "%llu bytes where its trailer says %llu", (unsigned long long)size,
                 (unsigned long long)elf + sizeof t);
        return 0;
    }
    const char *p = elf_problem(fd, elf);
    if (p != NULL) {
        snprintf(why, cap, "%s", p);
        return 0;
    }
    if (digest) {
        int ok;
        uint64_t d = digest_fd(fd, size - 8, &ok);
        if (!ok) {
            snprintf(why, cap, "cannot be read: %s", strerror(errno));
            return 0;
        }
        if (d != get_le64(t + 56)) {
            snprintf(why, cap, "its digest is not the one recorded: damaged on disk");
            return 0;
        }
    }
    return 1;
}

zp_status zp_witness_object_check(int *fd, zp_object_state *state, char *why, size_t why_cap, int dirfd,
                                  const char *dir, const char *key_hex, int digest, zp_error *err) {
    *fd = -1;
    *state = ZP_OBJECT_MISSING;
    if (why_cap > 0) why[0] = 0;
    uint8_t key[KEY_BYTES];
    if (!key_bytes(key, key_hex)) return zp_error_set(err, ZP_ERR_ARG, "%s: not a cache key", key_hex);
    char name[2 * KEY_BYTES + 4];
    snprintf(name, sizeof name, "%s.so", key_hex);
    char *path = NULL;
    if (asprintf(&path, "%s/%s", dir, name) < 0) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    zp_status st = ZP_OK;
    /* O_NONBLOCK: a FIFO put under the name must not hang the open */
    int f = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat sb;
    if (f < 0) {
        if (errno == ELOOP) {
            st = zp_error_set(err, ZP_ERR_IO, "%s: the compiled calculator is a symbolic link: refusing to use it",
                              path);
        } else if (errno != ENOENT) {
            st = zp_error_set(err, ZP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        }
    } else if (fstat(f, &sb) != 0) {
        st = zp_error_set(err, ZP_ERR_IO, "%s: cannot stat: %s", path, strerror(errno));
    } else if ((st = zp_witness_cache_trusted(&sb, S_IFREG, path, "the compiled calculator", err)) == ZP_OK) {
        *state = object_whole(f, (uint64_t)sb.st_size, key, digest, why, why_cap) ? ZP_OBJECT_GOOD : ZP_OBJECT_DAMAGED;
    }
    if (st == ZP_OK && *state == ZP_OBJECT_GOOD) {
        *fd = f;
    } else if (f >= 0) {
        close(f);
    }
    free(path);
    return st;
}

zp_status zp_witness_object_seal(const char *path, const char *key_hex, const char *cache_dir, zp_error *err) {
    uint8_t t[ZP_OBJECT_TRAILER_BYTES];
    if (!key_bytes(t + 16, key_hex)) return zp_error_set(err, ZP_ERR_ARG, "%s: not a cache key", key_hex);
    int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return zp_witness_cache_io_error(err, cache_dir, path, "open the compiled object", errno);
    struct stat sb;
    int ok = 0;
    zp_status st = ZP_OK;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        st = zp_error_set(err, ZP_ERR_IO, "%s: cannot stat the compiled object", path);
        goto done;
    }
    uint64_t elf = (uint64_t)sb.st_size;
    xxh64_state s;
    xxh64_init(&s);
    {
        /* the digest of the image as on disk, read back, then of the
         * trailer's first 56 bytes */
        uint8_t *buf = malloc(CHUNK);
        ok = buf != NULL;
        for (uint64_t off = 0; ok && off < elf; off += CHUNK) {
            size_t n = elf - off < CHUNK ? (size_t)(elf - off) : CHUNK;
            ok = read_at(fd, buf, n, off);
            xxh64_update(&s, buf, n);
        }
        free(buf);
        if (!ok) {
            st = zp_witness_cache_io_error(err, cache_dir, path, "read the compiled object", errno);
            goto done;
        }
    }
    memcpy(t, trailer_magic, sizeof trailer_magic);
    put_le64(t + 48, elf);
    xxh64_update(&s, t, 56);
    put_le64(t + 56, xxh64_final(&s));
    size_t put = 0;
    while (put < sizeof t) {
        ssize_t n = pwrite(fd, t + put, sizeof t - put, (off_t)(elf + put));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            st = zp_witness_cache_io_error(err, cache_dir, path, "write", n < 0 ? errno : ENOSPC);
            goto done;
        }
        put += (size_t)n;
    }
    if (fchmod(fd, 0644) != 0) {
        st = zp_witness_cache_io_error(err, cache_dir, path, "set the mode of", errno);
    } else if (fsync(fd) != 0) {
        st = zp_witness_cache_io_error(err, cache_dir, path, "flush", errno);
    }
done:
    if (close(fd) != 0 && st == ZP_OK) st = zp_witness_cache_io_error(err, cache_dir, path, "write", errno);
    return st;
}

zp_status zp_witness_object_dlopen(void **handle, const char *so_path, zp_error *err) {
    *handle = NULL;
    const char *slash = strrchr(so_path, '/');
    const char *base = slash ? slash + 1 : so_path;
    size_t bl = strlen(base);
    char key[2 * KEY_BYTES + 1];
    if (bl != 2 * KEY_BYTES + 3 || strcmp(base + 2 * KEY_BYTES, ".so") != 0) {
        return zp_error_set(err, ZP_ERR_ARG, "%s: not a compiled calculator of the cache (<key>.so)", so_path);
    }
    memcpy(key, base, 2 * KEY_BYTES);
    key[2 * KEY_BYTES] = 0;
    char *dir = slash == NULL ? strdup(".") : strndup(so_path, slash == so_path ? 1 : (size_t)(slash - so_path));
    char *load = slash == NULL ? NULL : strdup(so_path);
    if (slash == NULL && asprintf(&load, "./%s", so_path) < 0) load = NULL; /* no search of the library path */
    int dfd = -1, fd = -1;
    zp_status st = ZP_OK;
    struct stat sb, now;
    if (dir == NULL || load == NULL) {
        st = zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
        goto done;
    }
    if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 || fstat(dfd, &sb) != 0) {
        st = zp_error_set(err, ZP_ERR_IO, "%s: cannot open the cache directory: %s", dir, strerror(errno));
        goto done;
    }
    if ((st = zp_witness_cache_trusted(&sb, S_IFDIR, dir, "the cache directory", err)) != ZP_OK) goto done;
    /* A process that compiled the same wasm may rename its object over
     * this one between the check and the load (both are good): check
     * again then, a few times, before calling it a failure. */
    void *h = NULL;
    for (int attempt = 0; h == NULL; attempt++) {
        zp_object_state state;
        char why[160];
        if (fd >= 0) close(fd);
        if ((st = zp_witness_object_check(&fd, &state, why, sizeof why, dfd, dir, key, 0, err)) != ZP_OK) goto done;
        if (state == ZP_OBJECT_MISSING) {
            st = zp_error_set(err, ZP_ERR_IO, "%s: cannot open the compiled calculator: %s", so_path, strerror(ENOENT));
            goto done;
        }
        if (state == ZP_OBJECT_DAMAGED) {
            st = zp_error_set(err, ZP_ERR_FORMAT,
                              "%s: the compiled calculator is damaged (%s): run again to rebuild it", so_path, why);
            goto done;
        }
        if ((h = dlopen(load, RTLD_NOW | RTLD_LOCAL)) == NULL) {
            const char *e = dlerror();
            st = zp_error_set(err, ZP_ERR_IO, "cannot load the compiled calculator %s: %s", so_path,
                              e ? e : "dlopen failed");
            goto done;
        }
        /* the name still holds the file checked (objects are replaced by
         * rename, never rewritten, so a file checked is never changed) */
        if (fstat(fd, &sb) == 0 && stat(load, &now) == 0 && sb.st_dev == now.st_dev && sb.st_ino == now.st_ino) break;
        dlclose(h);
        h = NULL;
        if (attempt == 2) {
            st = zp_error_set(err, ZP_ERR_IO, "%s: the compiled calculator keeps being replaced while it is loaded",
                              so_path);
            goto done;
        }
    }
    *handle = h;
done:
    if (fd >= 0) close(fd);
    if (dfd >= 0) close(dfd);
    free(dir);
    free(load);
    return st;
}

int zp_witness_cache_full(const char *dir, int *e) {
    *e = 0;
    char *p = NULL;
    if (asprintf(&p, "%s/.space-probe-XXXXXX", dir) < 0) return 0;
    int fd = mkstemp(p);
    if (fd < 0) {
        int x = errno;
        free(p);
        if (x == ENOSPC || x == EDQUOT) *e = x;
        return *e != 0;
    }
    enum { PROBE = 256 << 10 };
    char *zeros = calloc(1, PROBE);
    size_t done = 0;
    while (zeros != NULL && done < PROBE) {
        ssize_t n = write(fd, zeros + done, PROBE - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            if (errno == ENOSPC || errno == EDQUOT) *e = errno;
            break;
        }
        done += (size_t)n;
    }
    if (zeros != NULL && *e == 0 && done == PROBE && fsync(fd) != 0 && (errno == ENOSPC || errno == EDQUOT)) {
        *e = errno;
    }
    free(zeros);
    close(fd);
    unlink(p);
    free(p);
    return *e != 0;
}
