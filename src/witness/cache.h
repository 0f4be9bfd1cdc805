/* The compiled-object cache's trust rules and its objects' integrity
 * (docs/witness.md, "The cache").
 *
 * A cached object is native code that zkpipe loads into itself, so the
 * cache is held to sshd's StrictModes and PostgreSQL's data-directory
 * rule: the cache folder, its .fp records and every object must be owned
 * by the effective user (root included: root trusts only root's files)
 * and writable by nobody else, and every folder above it must be owned by
 * that user or root and, when others may write it, sticky (/tmp), so no
 * other user can put a file there or move the folder away. Folders zkpipe
 * makes are mode 0700. Anything else is refused with a message naming the
 * path and what is wrong, never repaired or used.
 *
 * Every object carries a trailer of 64 bytes after its ELF image, written
 * when it is built (zp_witness_object_seal) and checked before it is
 * loaded: "zkpipe-object 1\n", the cache key (32 bytes), the ELF image's
 * size (8 bytes, little-endian) and a 64-bit digest (XXH64, seed 0) of
 * everything before it. The digest is against damage (a torn write, a
 * disk error, a truncation), not against a forger: who can rewrite the
 * file is excluded by the rules above, and a cryptographic hash would
 * cost libcrypto's start-up on every cached run. */
#ifndef ZP_WITNESS_CACHE_H
#define ZP_WITNESS_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "zkpipe.h"

#define ZP_OBJECT_TRAILER_BYTES 64

/* Checks a member of the cache (sb from fstat on its descriptor) against
 * the rules: owned by geteuid(), not writable by group or others, of the
 * kind expected (S_IFDIR or S_IFREG in kind). what names it in the message
 * ("the cache directory", "the compiled calculator"). ZP_OK, or ZP_ERR_IO
 * with "PATH: WHAT is owned by uid 65534, not by this user (uid 0): ..."
 * or "PATH: WHAT is writable by its group (mode 0775): ...". */
zp_status zp_witness_cache_trusted(const struct stat *sb, unsigned kind, const char *path, const char *what,
                                   zp_error *err) ZP_WARN_UNUSED;

/* Opens the cache folder dir for the *at() calls (*dirfd, close-on-exec)
 * after checking it and every folder above it (the rules above). With
 * create set, missing folders are made first, mode 0700. When dir does
 * not exist and create is 0: ZP_OK with *dirfd = -1. Errors (ZP_ERR_IO):
 * a refusal, a folder that cannot be made (a full disk as "DIR: no space
 * left on device ..."); *dirfd is -1 then. */
zp_status zp_witness_cache_open(int *dirfd, const char *dir, int create, zp_error *err) ZP_WARN_UNUSED;

typedef enum zp_object_state {
    ZP_OBJECT_GOOD = 0, /* whole, checked: *fd is open on it */
    ZP_OBJECT_MISSING,  /* no file of that name */
    ZP_OBJECT_DAMAGED   /* empty, truncated, not an ELF object of this machine, or its digest differs: rebuild it */
} zp_object_state;

/* Checks the object <key_hex>.so in the cache folder dirfd (named dir in
 * messages), read through one descriptor: a regular file (not a link),
 * trusted (the rules above), its trailer whole and for this key, an ELF
 * shared object of this machine whose program headers and loaded segments
 * lie within the file, and, when digest is set, its digest. ZP_OK with
 * *state; when it is ZP_OBJECT_GOOD *fd is open on the object (the
 * caller closes it), otherwise -1, and for ZP_OBJECT_DAMAGED why (cap
 * bytes) says what is wrong ("truncated: 30000 bytes, 57424 expected").
 * Errors (ZP_ERR_IO): a refusal (another owner, writable by others, a
 * link or not a regular file) or an I/O error. */
zp_status zp_witness_object_check(int *fd, zp_object_state *state, char *why, size_t why_cap, int dirfd,
                                  const char *dir, const char *key_hex, int digest, zp_error *err) ZP_WARN_UNUSED;

/* Makes the object just built at path (in a build folder inside the
 * cache) ready to publish under key_hex: appends the trailer, sets mode
 * 0644 whatever the umask, and flushes it to the disk (fsync), so that a
 * rename then publishes either nothing or a whole object. Errors
 * (ZP_ERR_IO): "PATH: cannot ...", a full disk as zp_witness_cache_io_error
 * words it (cache_dir). */
zp_status zp_witness_object_seal(const char *path, const char *key_hex, const char *cache_dir,
                                 zp_error *err) ZP_WARN_UNUSED;

/* dlopen (RTLD_NOW | RTLD_LOCAL) of the cached object so_path (a
 * zp_witness_compile output, DIR/<key>.so) after zp_witness_object_check
 * of it and of its folder, and a check after the load that the name still
 * holds the file checked: *handle for dlclose. The check is of trust and
 * structure (what makes an object a door or a SIGBUS), not the digest:
 * zp_witness_compile checked that, or found the object's stamps unchanged
 * since it last did, just before.
 * Errors: ZP_ERR_IO for a refusal or a file that cannot be read or
 * loaded; ZP_ERR_FORMAT for a damaged object ("run again to rebuild it").
 * (Not dlopen("/proc/self/fd/N"): glibc finds an object already loaded by
 * its name first, so a later object opened on a reused descriptor number
 * would get the earlier one's code.) */
zp_status zp_witness_object_dlopen(void **handle, const char *so_path, zp_error *err) ZP_WARN_UNUSED;

/* The error for errno e from doing what (e.g. "writing the build folder")
 * on path inside the cache folder cache_dir: for ENOSPC and EDQUOT
 * "CACHE_DIR: no space left on device (Disk quota exceeded) while WHAT:
 * free some, or give another cache (--cache DIR, ZKPIPE_CACHE)", for
 * others "PATH: cannot WHAT: strerror(e)". Always ZP_ERR_IO (the
 * commands exit 4: the machine's fault, not the input's). */
zp_status zp_witness_cache_io_error(zp_error *err, const char *cache_dir, const char *path, const char *what, int e);

/* 1 when the file system holding the folder dir cannot take more of this
 * user's bytes: a probe file there fails to take 256 KiB with ENOSPC or
 * EDQUOT (*e then says which); 0 otherwise. The probe is removed. */
int zp_witness_cache_full(const char *dir, int *e);

/* This machine's ELF identity as text (class, byte order, e_machine):
 * part of every cache key, as the objects' check requires it. */
const char *zp_witness_cache_machine(void);

/* XXH64 (seed 0) of len bytes, the objects' digest; exposed for the tests. */
uint64_t zp_witness_xxh64(const void *data, size_t len);

#endif
