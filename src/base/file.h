/* Opening a file a user named, for reading, without trusting what it is.
 *
 * A plain open() of a FIFO blocks until a writer comes (forever, for a
 * prover waiting on nobody), a character device such as /dev/zero never
 * ends, and a directory or socket is no input at all. Every reader of a
 * user-named file (the binary formats, the JSON files, the witnesses the
 * engine reads into its buffers, `zkpipe info`) opens it here, so the rule
 * is in one place: O_NONBLOCK for the open itself (a FIFO then opens at
 * once), fstat on the descriptor (not the name, which could be swapped
 * between a check and the use), anything but a regular file refused. */
#ifndef ZP_BASE_FILE_H
#define ZP_BASE_FILE_H

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>

#include "zkpipe.h"

/* Opens path read-only (close-on-exec, never as a controlling terminal)
 * and checks through the descriptor that it is a regular file; *fd is
 * then blocking again and *size (when not NULL) its size. Otherwise *fd
 * is -1 and err says "PATH: cannot open: ..." (ZP_ERR_IO) or "PATH: not
 * a regular file (a FIFO)" (ZP_ERR_IO, with the kind of file). */
zp_status zp_file_open_regular(int *fd, uint64_t *size, const char *path, zp_error *err) ZP_WARN_UNUSED;

/* zp_file_open_regular's check, for a descriptor opened another way
 * (zp_file_open_beneath, openat), read-only and O_NONBLOCK as it opens:
 * through fd, that it is a regular file, then blocking again. Returns 0
 * with *sb filled; 1 when it is no regular file (zp_file_kind of
 * sb->st_mode says what it is); -1 with errno when fstat or fcntl failed.
 * fd stays open either way. */
struct stat;
int zp_file_check_regular(int fd, struct stat *sb);

/* The whole of a regular file (zp_file_open_regular) of at most max bytes,
 * malloc'd and NUL-terminated in *text, its length in *len. The cap is
 * checked on the descriptor's size before a byte is read (a huge or sparse
 * file is refused without allocating for it), and a file that grows while
 * being read is refused at the cap, never read past it. what names the
 * kind of file in the message: "PATH: N bytes, more than a proof can hold
 * (64 KiB)" (ZP_ERR_FORMAT). */
zp_status zp_file_read_all(char **text, size_t *len, const char *path, size_t max, const char *what,
                           zp_error *err) ZP_WARN_UNUSED;

/* Writes the len bytes at data as the whole of path, creating it (mode
 * 0666 less the umask) if need be. An existing regular file is written
 * over in place and then cut to len, not truncated first: ext4 (its
 * auto_da_alloc) flushes a file that was truncated to zero when it is
 * closed, which made writing a proof and its public signals over the
 * last run's cost 1.1-2.0 ms instead of 0.4 (2^11, 2-core VM). Either
 * way a reader may see a half-written file. On a write error a regular
 * file is removed and err says "PATH: write error: ..." (ZP_ERR_IO);
 * "PATH: cannot create: ..." when it cannot be opened. */
zp_status zp_file_write_all(const char *path, const void *data, size_t len, zp_error *err) ZP_WARN_UNUSED;

/* All n bytes of buf read from (pread_all) or written to (pwrite_all) fd
 * at offset at, pread/pwrite repeated past short transfers and EINTR.
 * Returns 0 when done, else the errno of the failed call, or -1 when the
 * file ended (a read) or took no more (a write) first. Callers name the
 * file in their messages. */
int zp_file_pread_all(int fd, void *buf, size_t n, uint64_t at);
int zp_file_pwrite_all(int fd, const void *buf, size_t n, uint64_t at);

/* Opens rel beneath the directory dir_fd, the kernel keeping it there:
 * openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS),
 * or on kernels without it an O_NOFOLLOW walk one component at a time.
 * No symlink is followed (the last component's neither), no ".." leads
 * out, an absolute rel is refused: a path resolved first and opened after
 * could be redirected in between by a directory swapped for a symlink.
 * flags and mode are open(2)'s (mode only with O_CREAT). Returns the
 * descriptor, or -1 with errno: ELOOP (a symlink on the way), EXDEV (it
 * leads outside, or is absolute), ENOENT (rel NULL or empty too), EISDIR
 * (rel names dir_fd itself), or open(2)'s. */
int zp_file_open_beneath(int dir_fd, const char *rel, int flags, unsigned mode);
/* The fallback alone, whatever the kernel (for the tests): the same
 * answers, but any ".." is refused, even one that would stay beneath. */
int zp_file_open_beneath_walk(int dir_fd, const char *rel, int flags, unsigned mode);

/* A directory stream of name beneath dir_fd, opened without following a
 * symlink (O_NOFOLLOW); name "." is dir_fd itself, with a read position
 * of its own (a dup would share dir_fd's). closedir closes it. NULL with
 * errno when it cannot be opened or is no directory. */
DIR *zp_file_opendir_at(int dir_fd, const char *name);

/* Whether a file may be trusted with what is read from it, as sshd's
 * StrictModes and PostgreSQL judge theirs: owned by this process's
 * effective user, writable by nobody else (group and others' write bits
 * clear). 0 when it may; else 1 (another owner) or 2 (others may write
 * it), and why says so for a message: "owned by uid 1000, not by this
 * user (uid 0)", "writable by its group (mode 0770)". */
int zp_file_untrusted(const struct stat *sb, char *why, size_t cap);

/* The directory open at fd, judged by zp_file_untrusted. what and path
 * name it in the message: "spool_dir /x: writable by others (mode
 * 0777): ..." (ZP_ERR_ARG); "... owned by uid 1000, not by this user
 * (uid 0): ..." (ZP_ERR_ARG); not a directory (ZP_ERR_ARG); fstat
 * failing (ZP_ERR_IO). */
zp_status zp_file_check_private_dir(int fd, const char *what, const char *path, zp_error *err) ZP_WARN_UNUSED;

/* What kind of file a stat mode is, for messages: "a FIFO", "a directory",
 * "a character device", ... */
const char *zp_file_kind(unsigned mode);

#endif
