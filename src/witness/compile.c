/* circuit.wasm -> wasm2c -> cc -> a cached shared object (compile.h). */
#define _GNU_SOURCE /* vasprintf */
#include "witness/compile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/error.h"
#include "base/file.h"
#include "witness/cache.h"
#include "witness/patch.h"
#include "witness/poll.h"
#include "witness/w2c_glue.h"

extern char **environ;

/* Bump when the glue's ABI or the way objects are built changes: it is
 * part of every cache key, so old objects are simply not found again.
 * 2: objects carry a trailer (cache.h). */
#define ZP_WITGEN_BUILD_TAG "zkpipe-witgen 3"
/* A circom wasm of a few million constraints is tens of MB; past this it
 * is not a witness calculator we can compile anyway. */
#define ZP_WASM_MAX_BYTES ((uint64_t)1 << 30)

/* The compiler's fixed flags (hashed into the key as they are written):
 * bounds checked in the code, no signal handler; the call depth counted
 * (thread-local: see write_runtime_header) and limited to 1000 frames,
 * which a thread's 8 MiB stack holds even at 8 KiB a frame. The counter
 * is touched twice per wasm call: initial-exec TLS makes that one
 * %fs-relative access instead of a __tls_get_addr call (SHA-256 test
 * circuit: 0.115 s -> 0.070 s a witness). */
#define CC_FLAGS                                                                                             \
    "-fPIC", "-shared", "-pthread", "-w", "-ftls-model=initial-exec", "-DWASM_RT_MEMCHECK_SIGNAL_HANDLER=0", \
        "-DWASM_RT_USE_STACK_DEPTH_COUNT=1", "-DWASM_RT_MAX_CALL_STACK_DEPTH=1000"
#define STR_(...) #__VA_ARGS__
#define STR(...) STR_(__VA_ARGS__)

/* The exports witness_calculator.js calls on a circom 2 module, and those
 * it looks for before calling (older circom 2 releases lack them). */
static const char *const required_exports[] = {
    "getVersion", "getFieldNumLen32", "getRawPrime",    "readSharedRWMemory", "writeSharedRWMemory",
    "init",       "setInputSignal",   "getWitnessSize", "getWitness",         "getMessageChar",
};
static const char *const optional_exports[] = {"getInputSignalSize", "getInputSize"};
/* The imports the glue provides (module "runtime"). */
static const char *const known_imports[] = {"exceptionHandler", "printErrorMessage", "writeBufferMessage",
                                            "showSharedRWMemory"};

static char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *str_printf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) s = NULL;
    va_end(ap);
    return s;
}

zp_status zp_witness_cache_dir(char **out, const char *explicit_dir, zp_error *err) {
    const char *e;
    char *dir = NULL;
    if (explicit_dir != NULL && explicit_dir[0] != 0) {
        dir = strdup(explicit_dir);
    } else if ((e = getenv("ZKPIPE_CACHE")) != NULL && e[0] != 0) {
        dir = strdup(e);
    } else if ((e = getenv("XDG_CACHE_HOME")) != NULL && e[0] != 0) {
        dir = str_printf("%s/zkpipe", e);
    } else if ((e = getenv("HOME")) != NULL && e[0] != 0) {
        dir = str_printf("%s/.cache/zkpipe", e);
    } else {
        return zp_error_set(err, ZP_ERR_ARG,
                            "no cache directory for compiled witness calculators: set ZKPIPE_CACHE or HOME, "
                            "or give --cache DIR");
    }
    if (dir == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
    *out = dir;
    return ZP_OK;
}

/* Reads the rest of fd (size bytes, at most limit), closing it. */
static zp_status read_fd(uint8_t **data, size_t *len, int fd, uint64_t size, const char *path, uint64_t limit,
                         zp_error *err) {
    if (size > limit) {
        close(fd);
        return zp_error_set(err, ZP_ERR_FORMAT, "%s: %llu bytes, more than the %llu a witness calculator may have",
                            path, (unsigned long long)size, (unsigned long long)limit);
    }
    uint8_t *buf = malloc(size + 1);
    if (buf == NULL) {
        close(fd);
        return zp_error_set(err, ZP_ERR_NOMEM, "%s: out of memory for %llu bytes", path, (unsigned long long)size);
    }
    size_t got = 0;
    while (got < size) {
        ssize_t n = read(fd, buf + got, size - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(fd);
    if (got != size) {
        free(buf);
        return zp_error_set(err, ZP_ERR_IO, "%s: cannot read: %s", path, got < size ? "short read" : strerror(errno));
    }
    buf[size] = 0;
    *data = buf;
    *len = size;
    return ZP_OK;
}

static zp_status read_whole(uint8_t **data, size_t *len, const char *path, uint64_t limit, zp_error *err) {
    int fd;
    uint64_t size;
    zp_status st = zp_file_open_regular(&fd, &size, path, err);
    if (st != ZP_OK) return st;
    return read_fd(data, len, fd, size, path, limit, err);
}

/* Writes path (in a build folder of the cache folder dir): a full disk is
 * named as such (zp_witness_cache_io_error). */
static zp_status write_whole(const char *path, const void *data, size_t len, const char *dir, zp_error *err) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return zp_witness_cache_io_error(err, dir, path, "create", errno);
    const uint8_t *p = data;
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, p + done, len - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int e = n < 0 ? errno : ENOSPC;
            close(fd);
            return zp_witness_cache_io_error(err, dir, path, "write", e);
        }
        done += (size_t)n;
    }
    if (close(fd) != 0) return zp_witness_cache_io_error(err, dir, path, "write", errno);
    return ZP_OK;
}

/* What a tool printed (stdout and stderr): its first bytes, for messages.
 * Read through a pipe, not a file in the build folder, so that a full
 * disk cannot swallow the tool's own account of it. */
typedef struct tool_log {
    char text[8192];
    size_t len;
} tool_log;

/* A tool stopped by the caller's flag (zp_witness_compile_options.stop). */
#define TOOL_STOPPED (-2)

/* Runs argv (no shell, environment env) in its own process group with
 * stdout and stderr into log; returns its exit status, TOOL_STOPPED when
 * *stop (NULL: never) was set while it ran (the whole group is killed:
 * cc's cc1 and as too), or -1 when it could not be started (errno in
 * *spawn_errno); *cpu_s: the CPU time it took. */
static int run_tool(char *const argv[], char *const env[], const int *stop, tool_log *log, double *cpu_s,
                    int *spawn_errno) {
    log->len = 0;
    log->text[0] = 0;
    *cpu_s = 0;
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        *spawn_errno = errno;
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
    posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&at, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, &at, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(pipefd[1]);
    if (rc != 0) {
        close(pipefd[0]);
        *spawn_errno = rc;
        return -1;
    }
    /* to the end, keeping the start: a tool blocked on a full pipe never
     * ends; the flag is looked at every 20 ms (a compile takes seconds) */
    char sink[4096];
    int stopped = 0;
    for (;;) {
        if (stop != NULL && !stopped && __atomic_load_n(stop, __ATOMIC_RELAXED) != 0) {
            kill(-pid, SIGKILL);
            stopped = 1;
        }
        struct pollfd pfd = {pipefd[0], POLLIN, 0};
        int ready = poll(&pfd, 1, stop != NULL && !stopped ? 20 : -1);
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0) continue;
        size_t room = sizeof log->text - 1 - log->len;
        ssize_t n = room > 0 ? read(pipefd[0], log->text + log->len, room) : read(pipefd[0], sink, sizeof sink);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        if (room > 0) log->len += (size_t)n;
    }
    log->text[log->len] = 0;
    close(pipefd[0]);
    int status;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0) {
        if (errno != EINTR) {
            *spawn_errno = errno;
            return -1;
        }
    }
    *cpu_s = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
    if (stopped) return TOOL_STOPPED;
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* The first lines of a tool's output, on one line, for a message. */
static void log_head(char *out, size_t cap, const tool_log *log, int lines) {
    out[0] = 0;
    size_t used = 0;
    const char *p = log->text;
    for (int i = 0; i < lines && *p != 0; i++) {
        size_t l = strcspn(p, "\r\n");
        int n = snprintf(out + used, cap - used, "%s%.*s", used ? " | " : "", (int)(l < 512 ? l : 512), p);
        if (n < 0 || (size_t)n >= cap - used) break;
        used += (size_t)n;
        p += l;
        p += strspn(p, "\r\n");
    }
}

static void remove_tree_flat(const char *dir) {
    DIR *d = opendir(dir);
    if (d != NULL) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            unlinkat(dirfd(d), e->d_name, 0);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* Build folders an interrupted compile left (a kill, a crash, a full
 * disk) older than a day are removed: no compile takes that long, so none
 * of them is in use. Through the cache folder's descriptor, links not
 * followed. */
static void sweep_stale_builds(int cache_fd) {
    DIR *d = zp_file_opendir_at(cache_fd, "."); /* its own offset */
    if (d == NULL) return;
    time_t now = time(NULL);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        struct stat sb;
        if (strncmp(e->d_name, ".build-", 7) != 0 || fstatat(cache_fd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISDIR(sb.st_mode) || now - sb.st_mtime <= 24 * 3600) {
            continue;
        }
        DIR *b = zp_file_opendir_at(cache_fd, e->d_name);
        if (b == NULL) continue;
        struct dirent *f;
        while ((f = readdir(b)) != NULL) {
            if (strcmp(f->d_name, ".") != 0 && strcmp(f->d_name, "..") != 0) unlinkat(dirfd(b), f->d_name, 0);
        }
        closedir(b);
        unlinkat(cache_fd, e->d_name, AT_REMOVEDIR);
    }
    closedir(d);
}

/* Copies the text at *q up to the next ' (not past the line) into out,
 * cut to cap - 1 bytes (a cut name matches no known one, all shorter),
 * and moves *q past the quote: 1, or 0 when the line ends first. */
static int quoted_word(const char **q, char *out, size_t cap) {
    size_t n = 0;
    const char *p = *q;
    while (*p != 0 && *p != '\'' && *p != '\n') {
        if (n + 1 < cap) out[n++] = *p;
        p++;
    }
    out[n] = 0;
    if (*p != '\'') return 0;
    *q = p + 1;
    return 1;
}

/* Checks wasm2c's header for circom's ABI: every export the calculator
 * needs, no import the glue does not give. Writes the ZP_HAS_* lines. */
static zp_status check_header(const char *header, const char *wasm_path, char *defines, size_t cap, zp_error *err) {
    char needle[160];
    for (size_t i = 0; i < sizeof required_exports / sizeof *required_exports; i++) {
        snprintf(needle, sizeof needle, "/* export: '%s' */", required_exports[i]);
        if (strstr(header, needle) == NULL) {
            return zp_error_set(err, ZP_ERR_FORMAT,
                                "%s: not a circom 2 witness calculator (it has no export '%s'; compile the circuit "
                                "with circom 2 --wasm)",
                                wasm_path, required_exports[i]);
        }
    }
    if (strstr(header, "/* export: 'memory' */") == NULL) {
        return zp_error_set(err, ZP_ERR_FORMAT,
                            "%s: not a circom 2 witness calculator (it exports no memory; circom 1's calculators "
                            "import theirs and are not supported)",
                            wasm_path);
    }
    size_t used = 0;
    for (size_t i = 0; i < sizeof optional_exports / sizeof *optional_exports; i++) {
        snprintf(needle, sizeof needle, "/* export: '%s' */", optional_exports[i]);
        int n = snprintf(defines + used, cap - used, "#define ZP_HAS_%s %d\n", optional_exports[i],
                         strstr(header, needle) != NULL);
        if (n > 0) used += (size_t)n;
    }
    /* each import's module and name, read within its line (not sscanf on
     * the rest of the header: that measures the rest at every import); a
     * name too long for the buffers is unknown, not skipped */
    for (const char *p = header; (p = strstr(p, "/* import: '")) != NULL; p++) {
        char module[64] = "", name[64] = "";
        const char *q = p + 12;
        if (!quoted_word(&q, module, sizeof module) || strncmp(q, " '", 2) != 0) continue;
        q += 2;
        if (!quoted_word(&q, name, sizeof name)) continue;
        int known = strcmp(module, "runtime") == 0 ? 0 : -1;
        for (size_t i = 0; known == 0 && i < sizeof known_imports / sizeof *known_imports; i++) {
            if (strcmp(name, known_imports[i]) == 0) known = 1;
        }
        if (known != 1) {
            return zp_error_set(err, ZP_ERR_FORMAT,
                                "%s: not a circom 2 witness calculator zkpipe can run (it imports %s.%s)", wasm_path,
                                module, name);
        }
    }
    return ZP_OK;
}

/* wasm2c's runtime header, with the call-depth counter made thread-local
 * (the glue defines it so): each thread runs its own instance. */
static zp_status write_runtime_header(const char *dir, zp_error *err) {
    const char *candidates[] = {getenv("ZKPIPE_WASM_RT_H"), "/usr/include/wasm-rt.h", "/usr/local/include/wasm-rt.h"};
    uint8_t *text = NULL;
    size_t len = 0;
    const char *found = NULL;
    for (size_t i = 0; i < 3 && found == NULL; i++) {
        if (candidates[i] == NULL || access(candidates[i], R_OK) != 0) continue;
        zp_error e2 = {0};
        if (read_whole(&text, &len, candidates[i], 1 << 20, &e2) == ZP_OK) found = candidates[i];
    }
    if (found == NULL) {
        return zp_error_set(err, ZP_ERR_IO,
                            "wasm2c's runtime header wasm-rt.h is not installed (Debian: apt-get install wabt)");
    }
    static const char decl[] = "extern uint32_t wasm_rt_call_stack_depth;";
    char *at = strstr((char *)text, decl);
    if (at == NULL) {
        free(text);
        return zp_error_set(err, ZP_ERR_UNSUPPORTED,
                            "%s: not the wasm-rt.h of wabt 1.0.32 (no call-depth counter to make thread-local)", found);
    }
    char *path = str_printf("%s/wasm-rt.h", dir);
    FILE *f = path ? fopen(path, "w") : NULL;
    zp_status st = ZP_OK;
    if (f == NULL) {
        st = zp_error_set(err, ZP_ERR_IO, "%s: cannot create: %s", path ? path : dir, strerror(errno));
    } else {
        fwrite(text, 1, (size_t)(at - (char *)text), f);
        fputs("extern _Thread_local uint32_t wasm_rt_call_stack_depth;", f);
        fputs(at + strlen(decl), f);
        if (fclose(f) != 0) st = zp_error_set(err, ZP_ERR_IO, "%s: cannot write", path);
    }
    free(path);
    free(text);
    return st;
}

static const char *tool_name(const char *given, const char *env, const char *def) {
    if (given != NULL && given[0] != 0) return given;
    const char *e = getenv(env);
    return e != NULL && e[0] != 0 ? e : def;
}

/* The optimisation flag: -O2 unless ZKPIPE_WITNESS_OPT says otherwise
 * (one word such as -O1, for quick test builds); part of the key. */
static const char *opt_flag(void) {
    const char *e = getenv("ZKPIPE_WITNESS_OPT");
    if (e != NULL && e[0] == '-' && e[1] == 'O' && strlen(e) <= 6 && strchr(e, ' ') == NULL) return e;
    return "-O2";
}

/* -fsanitize=X when ZKPIPE_WITNESS_SANITIZE=X (letters and commas: the
 * sanitizer builds instrument the calculator too, so TSan sees its
 * memory); "" otherwise. Part of the key. */
static const char *sanitize_flag(void) {
    static _Thread_local char flag[64];
    const char *e = getenv("ZKPIPE_WITNESS_SANITIZE");
    flag[0] = 0;
    if (e == NULL || e[0] == 0 || strlen(e) > 40 || strspn(e, "abcdefghijklmnopqrstuvwxyz,") != strlen(e)) return flag;
    snprintf(flag, sizeof flag, "-fsanitize=%s", e);
    return flag;
}

/* The tools' environment: the caller's, with TMPDIR the build folder, so
 * the compiler's temporary files (the assembly of tens of MB of C) are on
 * the cache's disk, which a full-disk error then names, and not in a
 * /tmp that may be RAM. NULL: out of memory. */
static char **tool_env(const char *tmp) {
    size_t n = 0;
    while (environ[n] != NULL) n++;
    char **env = calloc(n + 2, sizeof *env);
    char *tmpdir = str_printf("TMPDIR=%s", tmp);
    if (env == NULL || tmpdir == NULL) {
        free(env), free(tmpdir);
        return NULL;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (strncmp(environ[i], "TMPDIR=", 7) != 0) env[k++] = environ[i];
    }
    env[k++] = tmpdir; /* the last entry: tool_env_free frees it */
    env[k] = NULL;
    return env;
}

static void tool_env_free(char **env) {
    if (env == NULL) return;
    size_t k = 0;
    while (env[k] != NULL) k++;
    if (k > 0) free(env[k - 1]);
    free(env);
}

/* ENOSPC or EDQUOT when a tool's output says it ran out of disk space
 * (it may have removed what it wrote before the disk is probed); 0. */
static int log_says_full(const tool_log *log) {
    if (strstr(log->text, "Disk quota exceeded") != NULL) return EDQUOT;
    return strstr(log->text, "No space left on device") != NULL ? ENOSPC : 0;
}

static double thread_cpu_s(void) {
    struct timespec t;
    return clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) == 0 ? (double)t.tv_sec + (double)t.tv_nsec * 1e-9 : 0;
}

/* wasm2c, the header check, the patch, cc, then the object sealed and
 * renamed into place (dir: the cache folder, cache_fd its descriptor);
 * *stop (NULL: never) set while a tool runs kills it. */
/* wasm2c's C at c_path patched in memory and written back once (through
 * write_whole: a full disk is named as such): fastfr (patch.h: circom's
 * field code as native code, when the field is known), then the stop polls
 * (poll.h; after fastfr, which matches wasm2c's own text). */
static zp_status patch_c(const char *c_path, const char *wasm_path, const char *dir, zp_error *err) {
    char *text = NULL, *fast = NULL, *polled = NULL;
    size_t len = 0, fast_len = 0, polled_len = 0, polls = 0;
    /* wasm2c writes ~10 C bytes per wasm byte, and compile.c takes wasms up to 1 GiB */
    zp_status st = zp_file_read_all(&text, &len, c_path, (size_t)16 << 30, "wasm2c's output", err);
    if (st == ZP_OK && zp_witness_fastfr_enabled()) {
        zp_fastfr_outcome fastfr;
        st = zp_witness_fastfr_patch(&fast, &fast_len, text, len, &fastfr, err);
    }
    const char *from = fast != NULL ? fast : text;
    if (st == ZP_OK)
        st = zp_witness_poll_patch(&polled, &polled_len, &polls, from, fast ? fast_len : len, wasm_path, err);
    free(text);
    free(fast);
    if (st == ZP_OK) st = write_whole(c_path, polled, polled_len, dir, err);
    free(polled);
    return st;
}

static zp_status build(const char *dir, int cache_fd, const char *tmp, const char *wasm_path, const char *wasm2c,
                       const char *cc, const int *stop, zp_witness_compiled *out, zp_error *err) {
    char *wasm = str_printf("%s/circuit.wasm", tmp), *c_path = str_printf("%s/circuit.c", tmp);
    char *h_path = str_printf("%s/circuit.h", tmp), *glue = str_printf("%s/glue.c", tmp);
    char *so = str_printf("%s/circuit.so", tmp);
    tool_log *log = malloc(sizeof *log);
    char *inc = str_printf("-I%s", tmp);
    char **env = tool_env(tmp);
    zp_status st = ZP_OK;
    uint8_t *header = NULL;
    size_t header_len = 0;
    int tool_failed = 0;
    if (!wasm || !c_path || !h_path || !glue || !so || !log || !inc || !env) {
        st = zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
        goto done;
    }
    int serr = 0;
    double t0 = zp_clock_now();
    char *w2c_argv[] = {(char *)wasm2c, "-n", "circuit", "-o", c_path, wasm, NULL};
    int rc = run_tool(w2c_argv, env, stop, log, &out->wasm2c_cpu_s, &serr);
    out->wasm2c_s = zp_clock_now() - t0;
    if (rc == TOOL_STOPPED) {
        st = zp_error_set(err, ZP_ERR_UNSUPPORTED, "%s: the compile was stopped", wasm_path);
        goto done;
    }
    if (rc < 0) {
        st = zp_error_set(err, ZP_ERR_IO, "cannot run %s: %s (Debian: apt-get install wabt)", wasm2c, strerror(serr));
        goto done;
    }
    if (rc != 0) {
        char head[600];
        log_head(head, sizeof head, log, 3);
        st = zp_error_set(err, ZP_ERR_FORMAT, "%s: not a valid WebAssembly module (truncated or corrupt): wasm2c: %s",
                          wasm_path, head[0] ? head : "failed without a message");
        tool_failed = 1;
        goto done;
    }
    if ((st = read_whole(&header, &header_len, h_path, 64 << 20, err)) != ZP_OK) goto done;
    char defines[256];
    if ((st = check_header((const char *)header, wasm_path, defines, sizeof defines, err)) != ZP_OK) goto done;
    if ((st = write_runtime_header(tmp, err)) != ZP_OK) goto done;
    /* fastfr (patch.h): circom's field code as native code, when the field is known */
    t0 = zp_clock_now();
    double c0 = thread_cpu_s();
    if ((st = patch_c(c_path, wasm_path, dir, err)) != ZP_OK) goto done;
    out->patch_s = zp_clock_now() - t0;
    out->patch_cpu_s = thread_cpu_s() - c0;
    {
        size_t dl = strlen(defines), gl = strlen(zp_w2c_glue_text);
        char *text = malloc(dl + gl + 1);
        if (text == NULL) {
            st = zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
            goto done;
        }
        memcpy(text, defines, dl);
        memcpy(text + dl, zp_w2c_glue_text, gl + 1);
        st = write_whole(glue, text, dl + gl, dir, err);
        free(text);
        if (st != ZP_OK) goto done;
    }
    t0 = zp_clock_now();
    char *cc_argv[] = {(char *)cc, (char *)opt_flag(), CC_FLAGS, inc, "-o", so, c_path, glue, "-lm", NULL, NULL};
    if (sanitize_flag()[0] != 0) { /* in place of the final NULL */
        size_t n = sizeof cc_argv / sizeof *cc_argv;
        cc_argv[n - 2] = (char *)sanitize_flag();
    }
    rc = run_tool(cc_argv, env, stop, log, &out->cc_cpu_s, &serr);
    out->cc_s = zp_clock_now() - t0;
    if (rc == TOOL_STOPPED) {
        st = zp_error_set(err, ZP_ERR_UNSUPPORTED, "%s: the compile was stopped", wasm_path);
        goto done;
    }
    if (rc < 0) {
        st = zp_error_set(err, ZP_ERR_IO, "cannot run the C compiler %s: %s (set CC, or install gcc)", cc,
                          strerror(serr));
        goto done;
    }
    if (rc != 0) {
        char head[600];
        log_head(head, sizeof head, log, 3);
        st = zp_error_set(err, ZP_ERR_INTERNAL, "%s: the C compiler %s failed on wasm2c's output (exit %d): %s",
                          wasm_path, cc, rc, head);
        tool_failed = 1;
        goto done;
    }
    /* whole on the disk before it has its name (a crash then leaves no
     * object or a whole one), and the name on the disk after */
    if ((st = zp_witness_object_seal(so, out->key, dir, err)) != ZP_OK) goto done;
    if (rename(so, out->so_path) != 0) {
        st = zp_witness_cache_io_error(err, dir, out->so_path, "publish the compiled calculator as", errno);
        goto done;
    }
    (void)fsync(cache_fd); /* without it a crash may lose the name: the next run compiles again */
    out->compiled = 1;
done:
    /* A full disk makes the tools fail in their own words, or write short
     * files that then look like a wrong module ("not a circom 2 witness
     * calculator"): any failure here is checked against the disk first. */
    if (st != ZP_OK && st != ZP_ERR_NOMEM && tmp != NULL) {
        int e = 0;
        if (zp_witness_cache_full(tmp, &e) || (tool_failed && log != NULL && (e = log_says_full(log)) != 0)) {
            char what[64 + 4096];
            snprintf(what, sizeof what, "compile %s in", wasm_path);
            st = zp_witness_cache_io_error(err, dir, tmp, what, e);
        }
    }
    tool_env_free(env);
    free(header);
    free(wasm), free(c_path), free(h_path), free(glue), free(so), free(log), free(inc);
    return st;
}

/* FNV-1a, 64 bits, from basis h. */
static uint64_t fnv1a(uint64_t h, const void *data, size_t len) {
    const uint8_t *p = data;
    for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

/* Everything in a cache key but the wasm, item by item into a hash: the
 * build tag, the compiler (as CC names it: an object gcc built is not one
 * clang would), the machine (a cache shared over NFS by an x86-64 and
 * an arm64 host keeps an object for each), the flags, the glue and the
 * fastfr text. The key (SHA-256)
 * and the fingerprint (FNV-1a) both take this one list, so neither can
 * miss an item the other has. */
typedef void config_sink(void *hash, const void *data, size_t len);
static void config_items(const char *cc, config_sink *sink, void *hash) {
    sink(hash, ZP_WITGEN_BUILD_TAG "\n", sizeof ZP_WITGEN_BUILD_TAG);
    sink(hash, cc, strlen(cc) + 1);
    sink(hash, zp_witness_cache_machine(), strlen(zp_witness_cache_machine()) + 1);
    sink(hash, STR(CC_FLAGS), sizeof STR(CC_FLAGS));
    sink(hash, opt_flag(), strlen(opt_flag()) + 1);
    sink(hash, sanitize_flag(), strlen(sanitize_flag()) + 1);
    sink(hash, zp_w2c_glue_text, strlen(zp_w2c_glue_text));
    sink(hash, ZP_FASTFR_PATCH_VERSION, sizeof ZP_FASTFR_PATCH_VERSION); /* fastfr: patch.h */
    sink(hash, zp_witness_fastfr_key_text(), strlen(zp_witness_fastfr_key_text()));
    sink(hash, ZP_POLL_VERSION, sizeof ZP_POLL_VERSION); /* poll.h */
}
static void sha256_sink(void *hash, const void *data, size_t len) { zp_sha256_update(hash, data, len); }
static void fnv1a_sink(void *hash, const void *data, size_t len) {
    uint64_t *h = hash;
    *h = fnv1a(*h, data, len);
}

/* The fingerprint shortcut. Hashing the whole wasm on every run costs
 * ~3 ms a MB (6 ms of a 68 ms poseidon_chain(269) witness), so the cache
 * also keeps records .fp/<F> (hidden: the folder lists objects), each
 * the key with the file's identity and change stamps (device, inode,
 * size, mtime and ctime to the nanosecond), F a hash of those and of the
 * configuration; a record is used only when its stamps are the file's,
 * compared in full. Any write to the file moves its ctime, which no user
 * can set back; a new file at the path is another inode or newer stamps.
 * The kernel stamps at the resolution of its coarse clock (a few ms), so
 * a file changed twice in one tick with the same size would look
 * unchanged: as git does with a "racily clean" index, a record is only
 * written for a file whose stamps are more than two seconds old.
 *
 * The record also holds the object's stamps as they were when its digest
 * was last checked (cache.h), under the same age rule: a run that finds
 * them unchanged checks the object's trust and structure (every time:
 * what makes an object a door or a SIGBUS) but not its digest, which
 * would cost more than the rest of a cached run (a cold pass over merkle's
 * 1.7 MB object: about 4 ms of a 16 ms run on this VM). Any write, cut,
 * chmod or replacement moves them, and the digest is checked again. */
#define FP_MIN_AGE_S 2

/* The record's name: two FNV-1a hashes (different bases) of the
 * configuration and the file's stamps. It is only an index (the record
 * holds the stamps, compared in full), so no cryptographic hash is
 * needed, and the lookup stays free of libcrypto's start-up (5 M
 * instructions, more than the rest of it). */
typedef struct fp_stamps {
    uint64_t v[7];
} fp_stamps;

static void stamps_of(fp_stamps *st, const struct stat *sb) {
    *st = (fp_stamps){{(uint64_t)sb->st_dev, (uint64_t)sb->st_ino, (uint64_t)sb->st_size, (uint64_t)sb->st_mtim.tv_sec,
                       (uint64_t)sb->st_mtim.tv_nsec, (uint64_t)sb->st_ctim.tv_sec, (uint64_t)sb->st_ctim.tv_nsec}};
}

/* Whether a file's stamps are old enough to be trusted to move on the
 * next change (the racily-clean rule above). */
static int stamps_settled(const struct stat *sb) {
    struct timespec now;
    if (clock_gettime(CLOCK_REALTIME, &now) != 0) return 0;
    time_t newest = sb->st_mtim.tv_sec > sb->st_ctim.tv_sec ? sb->st_mtim.tv_sec : sb->st_ctim.tv_sec;
    return now.tv_sec - newest > FP_MIN_AGE_S;
}

static void fingerprint(char name[33], fp_stamps *st, const struct stat *sb, const char *cc) {
    stamps_of(st, sb);
    uint64_t h[2] = {0xcbf29ce484222325ULL, 0x84222325cbf29ce4ULL};
    for (int i = 0; i < 2; i++) {
        h[i] = fnv1a(h[i], "wasm fingerprint 1\n", 19);
        config_items(cc, fnv1a_sink, &h[i]);
        h[i] = fnv1a(h[i], st->v, sizeof st->v);
    }
    snprintf(name, 33, "%016llx%016llx", (unsigned long long)h[0], (unsigned long long)h[1]);
}

/* The stamps as one line of a record (FP_LINE_MAX bytes at most). */
#define FP_LINE_MAX 128
static int stamps_line(char *out, const char *head, const fp_stamps *st) {
    return snprintf(out, FP_LINE_MAX, "%s%llu %llu %llu %llu.%09llu %llu.%09llu\n", head, (unsigned long long)st->v[0],
                    (unsigned long long)st->v[1], (unsigned long long)st->v[2], (unsigned long long)st->v[3],
                    (unsigned long long)st->v[4], (unsigned long long)st->v[5], (unsigned long long)st->v[6]);
}

/* The record's text: the key, the wasm's stamps, then "object " and the
 * object's stamps when its digest was checked ("object -" when unknown or
 * too new). *head_len: the length of the first two lines. */
#define FP_RECORD_MAX 512
static int fp_record_text(char *out, int *head_len, const char *key, const fp_stamps *st, const fp_stamps *obj) {
    char wasm_line[FP_LINE_MAX], obj_line[FP_LINE_MAX];
    stamps_line(wasm_line, "", st);
    if (obj != NULL) stamps_line(obj_line, "object ", obj);
    int n = snprintf(out, FP_RECORD_MAX, "%s\n%s", key, wasm_line);
    *head_len = n;
    return n + snprintf(out + n, FP_RECORD_MAX - (size_t)n, "%s", obj != NULL ? obj_line : "object -\n");
}

/* The key .fp/<name> names, when it holds these stamps (*found 1), and
 * its object line in obj_line (FP_LINE_MAX bytes). The records are the
 * cache's too: the .fp folder and the record must pass the trust rules
 * (cache.h), or it is an error; a record that is missing, unreadable or
 * for other stamps is only no shortcut. */
static zp_status fingerprint_lookup(int *found, char *obj_line, int cache_fd, const char *dir, const char *name,
                                    const fp_stamps *st, char key[ZP_SHA256_HEX], zp_error *err) {
    *found = 0;
    obj_line[0] = 0;
    char *fpdir = str_printf("%s/.fp", dir), *path = str_printf("%s/.fp/%s", dir, name);
    zp_status s = ZP_OK;
    int dfd = -1, fd = -1;
    struct stat sb;
    if (fpdir == NULL || path == NULL) {
        s = zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
        goto done;
    }
    if ((dfd = openat(cache_fd, ".fp", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
        if (errno == ELOOP || errno == ENOTDIR) {
            s = zp_error_set(err, ZP_ERR_IO,
                             "%s: the cache's fingerprint folder is not a directory (a link?): "
                             "refusing to use it",
                             fpdir);
        }
        goto done;
    }
    if (fstat(dfd, &sb) != 0 ||
        (s = zp_witness_cache_trusted(&sb, S_IFDIR, fpdir, "the cache's fingerprint folder", err)) != ZP_OK) {
        goto done;
    }
    if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0) {
        if (errno == ELOOP) {
            s = zp_error_set(err, ZP_ERR_IO, "%s: the fingerprint record is a symbolic link: refusing to use it", path);
        }
        goto done;
    }
    if (fstat(fd, &sb) != 0 ||
        (s = zp_witness_cache_trusted(&sb, S_IFREG, path, "a fingerprint record", err)) != ZP_OK) {
        goto done;
    }
    char buf[FP_RECORD_MAX + 1], expect[FP_RECORD_MAX];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= ZP_SHA256_HEX || n > FP_RECORD_MAX || buf[ZP_SHA256_HEX - 1] != '\n') goto done;
    for (int i = 0; i < ZP_SHA256_HEX - 1; i++) {
        if (!((buf[i] >= '0' && buf[i] <= '9') || (buf[i] >= 'a' && buf[i] <= 'f'))) goto done;
    }
    memcpy(key, buf, ZP_SHA256_HEX - 1);
    key[ZP_SHA256_HEX - 1] = 0;
    int head = 0;
    fp_record_text(expect, &head, key, st, NULL);
    size_t rest = (size_t)n - (size_t)head;
    if (head > 0 && head < n && memcmp(expect, buf, (size_t)head) == 0 && rest < FP_LINE_MAX &&
        strncmp(buf + head, "object ", 7) == 0 && buf[n - 1] == '\n') {
        memcpy(obj_line, buf + head, rest);
        obj_line[rest] = 0;
        *found = 1;
    }
done:
    if (fd >= 0) close(fd);
    if (dfd >= 0) close(dfd);
    free(fpdir), free(path);
    return s;
}

/* Records fp -> key (atomically: a temporary file, flushed, renamed into
 * place), for a file whose stamps are old enough; failures only cost the
 * shortcut. */
static void fingerprint_record(int cache_fd, const char *dir, const char *fp, const char *key, const struct stat *sb,
                               const fp_stamps *st, const struct stat *obj_sb) {
    if (!stamps_settled(sb)) return;
    fp_stamps obj;
    int obj_known = obj_sb != NULL && stamps_settled(obj_sb);
    if (obj_known) stamps_of(&obj, obj_sb);
    if (mkdirat(cache_fd, ".fp", 0700) != 0 && errno != EEXIST) return;
    int dfd = openat(cache_fd, ".fp", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat dsb;
    if (dfd < 0) return;
    if (fstat(dfd, &dsb) != 0 || zp_witness_cache_trusted(&dsb, S_IFDIR, ".fp", "", NULL) != ZP_OK) {
        close(dfd); /* the next lookup names what is wrong */
        return;
    }
    char *tmp = str_printf("%s/.fp/.%s-XXXXXX", dir, fp);
    char *path = str_printf("%s/.fp/%s", dir, fp);
    if (tmp != NULL && path != NULL) {
        int fd = mkstemp(tmp);
        if (fd >= 0) {
            char line[FP_RECORD_MAX];
            int head, ll = fp_record_text(line, &head, key, st, obj_known ? &obj : NULL);
            int good = ll > 0 && ll < FP_RECORD_MAX && write(fd, line, (size_t)ll) == (ssize_t)ll;
            good &= fchmod(fd, 0644) == 0;
            good &= fsync(fd) == 0;
            good &= close(fd) == 0;
            if (!good || rename(tmp, path) != 0) unlink(tmp);
            else (void)fsync(dfd);
        }
    }
    close(dfd);
    free(tmp), free(path);
}

/* zp_witness_object_check (digest: with it), the descriptor not kept;
 * why has 160 bytes; *osb the object's stat when it is good. */
static zp_status object_state(zp_object_state *state, char *why, struct stat *osb, int cache_fd, const char *dir,
                              const char *key, int digest, zp_error *err) {
    int fd;
    zp_status st = zp_witness_object_check(&fd, state, why, 160, cache_fd, dir, key, digest, err);
    if (fd >= 0 && fstat(fd, osb) != 0) *state = ZP_OBJECT_DAMAGED, snprintf(why, 160, "cannot stat it");
    if (fd >= 0) close(fd);
    return st;
}

/* A line for the operator: through options->note, else on stderr. */
static void note(const zp_witness_compile_options *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(const zp_witness_compile_options *o, const char *fmt, ...) {
    char line[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (o->note != NULL) {
        o->note(o->note_arg, line);
    } else {
        fprintf(stderr, "zkpipe: %s\n", line);
    }
}

zp_status zp_witness_compile(zp_witness_compiled *out, const char *wasm_path, const zp_witness_compile_options *options,
                             zp_error *err) {
    memset(out, 0, sizeof *out);
    zp_witness_compile_options none = {0};
    if (options == NULL) options = &none;
    uint8_t *wasm = NULL;
    size_t wasm_len = 0;
    char *dir = NULL, *tmp = NULL;
    int fd, cache_fd = -1;
    uint64_t size;
    struct stat sb, osb; /* the wasm's, the object's */
    char fp[33], why[160], damaged_key[ZP_SHA256_HEX] = "";
    fp_stamps stamps;
    zp_object_state state;
    zp_status st = zp_file_open_regular(&fd, &size, wasm_path, err);
    if (st != ZP_OK) return st;
    if (fstat(fd, &sb) != 0) {
        close(fd);
        return zp_error_set(err, ZP_ERR_IO, "%s: cannot stat: %s", wasm_path, strerror(errno));
    }
    if ((st = zp_witness_cache_dir(&dir, options->cache_dir, err)) != ZP_OK) {
        close(fd);
        return st;
    }
    const char *cc = tool_name(options->cc, "CC", "cc");
    fingerprint(fp, &stamps, &sb, cc);
    /* an existing cache is checked before anything in it is read */
    if ((st = zp_witness_cache_open(&cache_fd, dir, 0, err)) != ZP_OK) {
        close(fd);
        goto done;
    }
    if (cache_fd >= 0) {
        int found = 0;
        char obj_line[FP_LINE_MAX];
        st = fingerprint_lookup(&found, obj_line, cache_fd, dir, fp, &stamps, out->key, err);
        /* trust and structure every time; the digest when the object's
         * stamps are not those of its last check (above, FP_MIN_AGE_S) */
        if (st == ZP_OK && found) st = object_state(&state, why, &osb, cache_fd, dir, out->key, 0, err);
        int checked = 0;
        if (st == ZP_OK && found && state == ZP_OBJECT_GOOD) {
            fp_stamps os;
            char line[FP_LINE_MAX];
            stamps_of(&os, &osb);
            stamps_line(line, "object ", &os);
            if (strcmp(line, obj_line) != 0) {
                st = object_state(&state, why, &osb, cache_fd, dir, out->key, 1, err);
                checked = 1;
            }
        }
        if (st != ZP_OK) {
            close(fd);
            goto done;
        }
        if (found && state == ZP_OBJECT_GOOD) { /* compiled before, file unchanged */
            close(fd);
            if ((out->so_path = str_printf("%s/%s.so", dir, out->key)) == NULL) {
                st = zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
            }
            if (checked) fingerprint_record(cache_fd, dir, fp, out->key, &sb, &stamps, &osb);
            goto done;
        }
        if (found && state == ZP_OBJECT_DAMAGED) {
            note(options, "%s/%s.so: the compiled calculator of %s is damaged (%s): compiling it again", dir, out->key,
                 wasm_path, why);
            memcpy(damaged_key, out->key, sizeof damaged_key);
        }
    }
    st = read_fd(&wasm, &wasm_len, fd, size, wasm_path, ZP_WASM_MAX_BYTES, err);
    if (st != ZP_OK) goto done;
    static const uint8_t magic[8] = {0, 'a', 's', 'm', 1, 0, 0, 0};
    if (wasm_len < 8 || memcmp(wasm, magic, 8) != 0) {
        st = zp_error_set(err, ZP_ERR_FORMAT,
                          "%s: not a WebAssembly module (no \\0asm version 1 header): give the circuit.wasm that "
                          "circom --wasm writes",
                          wasm_path);
        goto done;
    }
    const char *wasm2c = tool_name(options->wasm2c, "ZKPIPE_WASM2C", "wasm2c");
    zp_sha256 h;
    if ((st = zp_sha256_init(&h, err)) != ZP_OK) goto done;
    config_items(cc, sha256_sink, &h);
    zp_sha256_update(&h, wasm, wasm_len);
    uint8_t digest[ZP_SHA256_BYTES];
    zp_sha256_final(&h, digest);
    zp_sha256_hex(out->key, digest);

    /* made (0700) and checked now if it was not there */
    if (cache_fd < 0 && (st = zp_witness_cache_open(&cache_fd, dir, 1, err)) != ZP_OK) goto done;
    out->so_path = str_printf("%s/%s.so", dir, out->key);
    tmp = str_printf("%s/.build-%.16s-XXXXXX", dir, out->key);
    if (out->so_path == NULL || tmp == NULL) {
        st = zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (strcmp(damaged_key, out->key) == 0) {
        state = ZP_OBJECT_DAMAGED; /* just checked, and said so */
    } else {
        st = object_state(&state, why, &osb, cache_fd, dir, out->key, 1, err);
        if (st != ZP_OK) goto done;
        if (state == ZP_OBJECT_DAMAGED) {
            note(options, "%s: the compiled calculator of %s is damaged (%s): compiling it again", out->so_path,
                 wasm_path, why);
        }
    }
    if (state != ZP_OBJECT_GOOD) {
        sweep_stale_builds(cache_fd);
        if (mkdtemp(tmp) == NULL) {
            st = zp_witness_cache_io_error(err, dir, tmp, "make a build folder", errno);
            goto done;
        }
        char *copy = str_printf("%s/circuit.wasm", tmp);
        /* wasm2c reads the bytes that were hashed, not the file again */
        st = copy ? write_whole(copy, wasm, wasm_len, dir, err) : zp_error_set(err, ZP_ERR_NOMEM, "out of memory");
        free(copy);
        if (st == ZP_OK) st = build(dir, cache_fd, tmp, wasm_path, wasm2c, cc, options->stop, out, err);
        remove_tree_flat(tmp);
        /* what was published is checked as a later run will check it: a
         * failure here is the machine's (a disk that does not keep what
         * it was given), and is not retried */
        if (st == ZP_OK) st = object_state(&state, why, &osb, cache_fd, dir, out->key, 1, err);
        if (st == ZP_OK && state != ZP_OBJECT_GOOD) {
            st = zp_error_set(err, ZP_ERR_IO, "%s: the calculator just compiled fails its check (%s)", out->so_path,
                              state == ZP_OBJECT_MISSING ? "it is gone" : why);
        }
    }
    /* the bytes hashed are the file's as the stamps describe it: read
     * through the descriptor fstat'd before */
    if (st == ZP_OK) fingerprint_record(cache_fd, dir, fp, out->key, &sb, &stamps, &osb);
done:
    if (cache_fd >= 0) close(cache_fd);
    free(tmp);
    free(dir);
    free(wasm);
    if (st != ZP_OK) zp_witness_compiled_free(out);
    return st;
}

void zp_witness_compiled_free(zp_witness_compiled *c) {
    free(c->so_path);
    c->so_path = NULL;
}
