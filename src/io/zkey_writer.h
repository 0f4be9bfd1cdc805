/* A .zkey written piece by piece, in any order: the file is laid out from
 * the key's sizes before any point exists, each piece goes to its place
 * (pwrite), and the file is published by rename only when every piece is
 * in. For the streaming setup (groth16/setup.h), which makes keys larger
 * than memory a chunk at a time; the bytes are those zp_zkey_write would
 * write for the same key.
 *
 * The file is written as "DIR/.NAME.tmp-R" beside path (R: 16 random hex
 * digits, created with O_EXCL: a name planted in a shared folder neither
 * blocks it nor is written through) and renamed to path by
 * zp_zkey_writer_commit after an fsync; commit's failure and
 * zp_zkey_writer_abort remove it, so path is either the whole new key or
 * untouched. */
#ifndef ZP_IO_ZKEY_WRITER_H
#define ZP_IO_ZKEY_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "groth16/keys.h"
#include "zkpipe.h"

typedef struct zp_zkey_writer zp_zkey_writer;

/* Creates the temporary file for a key of shape's sizes (curve, n_vars,
 * n_public, domain_size, n_coefs; its arrays are not read), reserves its
 * whole size on disk (a full disk fails here, not at the end), and writes
 * what depends on the sizes alone: the file and section headers, §1, §2
 * up to its points, §10 (zeros: no contributions). ZP_ERR_IO naming path,
 * ZP_ERR_ARG for a shape no key has, ZP_ERR_NOMEM. */
zp_status zp_zkey_writer_open(zp_zkey_writer **out, const char *path, const zp_groth16_pk *shape,
                              zp_error *err) ZP_WARN_UNUSED;
/* The temporary file's path (valid until commit or abort): a caller that
 * may be killed by a signal removes it from its handler. */
const char *zp_zkey_writer_temp(const zp_zkey_writer *w);
/* Writes n bytes at pos of section id (groth16/setup.h's zp_setup_put_fn:
 * §2's pos counts from its first point). A piece past its section's end
 * is ZP_ERR_INTERNAL; a failed write ZP_ERR_IO. arg is the writer. */
zp_status zp_zkey_writer_put(void *arg, uint32_t id, uint64_t pos, const void *p, size_t n, zp_error *err);
/* Syncs, closes and renames the file to path; frees w. On failure the
 * temporary file is removed. */
zp_status zp_zkey_writer_commit(zp_zkey_writer *w, zp_error *err) ZP_WARN_UNUSED;
/* Closes and removes the temporary file; frees w. NULL is ignored. */
void zp_zkey_writer_abort(zp_zkey_writer *w);

#endif
