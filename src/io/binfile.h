/* The iden3 binary container shared by .zkey, .wtns, .r1cs and .ptau:
 *   4-byte magic, u32 version, u32 nSections,
 *   nSections × { u32 id, u64 size, size bytes },
 * all little-endian (see docs/formats.md). The reader maps the file read-only
 * and checks the whole section table against the file size before anyone
 * looks inside a section; the writer makes files for setup and tests.
 * Every reader of these files goes through zp_binfile_read, which owns the
 * open, the validation of the container and the clean-up on failure. */
#ifndef ZP_IO_BINFILE_H
#define ZP_IO_BINFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "zkpipe.h"

typedef struct zp_binfile_entry {
    uint32_t id;
    uint64_t offset; /* of the section's data, from the start of the file */
    uint64_t size;
} zp_binfile_entry;

typedef struct zp_binfile {
    const uint8_t *data; /* the whole file */
    size_t size;
    int mapped;      /* data is our mapping (munmap at close), else borrowed */
    char *name;      /* the path or name given, for messages (owned) */
    const char *ext; /* "zkey", ... the expected magic, for messages */
    uint32_t version;
    uint32_t n_sections;
    zp_binfile_entry *sections; /* in file order (owned) */
} zp_binfile;

/* Maps path and validates the header and the section table: the magic must
 * be `magic` (4 characters), the version `version`. */
zp_status zp_binfile_open(zp_binfile *bf, const char *path, const char *magic, uint32_t version,
                          zp_error *err) ZP_WARN_UNUSED;
/* The same over bytes already in memory (fuzzing, network input); data is
 * borrowed and must outlive bf. name is used in messages. */
zp_status zp_binfile_open_mem(zp_binfile *bf, const void *data, size_t size, const char *name, const char *magic,
                              uint32_t version, zp_error *err) ZP_WARN_UNUSED;
void zp_binfile_close(zp_binfile *bf);

/* The one way a reader opens its file. A format says its container (magic,
 * version), the object it reads into and how to fill it; zp_binfile_read
 * allocates the object, maps the file (or takes the caller's bytes),
 * validates the container, runs parse, and then either closes the file or
 * leaves it to the object (a key whose sections are used in place), and on
 * any failure frees everything, so no reader writes that sequence again. */
#define ZP_BINFILE_CLOSE ((size_t)-1) /* keep_offset: close after parse */

typedef struct zp_binfile_format {
    const char *magic; /* "zkey", ...: 4 characters */
    uint32_t version;
    /* The reader's object, allocated zeroed; 0 for none (parse then writes
     * into arg, and *out stays NULL). */
    size_t object_bytes;
    /* offsetof(object, its zp_binfile) when the object keeps the file open
     * until it is closed, else ZP_BINFILE_CLOSE. */
    size_t keep_offset;
    /* Fills object from the validated container; arg is the caller's. */
    zp_status (*parse)(void *object, const zp_binfile *bf, void *arg, zp_error *err);
    /* Frees an object whose parse failed, what parse left in it, and the
     * file when the object keeps it. */
    void (*destroy)(void *object);
} zp_binfile_format;

/* Where the bytes come from: path, mapped read-only; or, when path is
 * NULL, data/size (borrowed for as long as the object keeps the file),
 * called name in messages. */
typedef struct zp_binfile_input {
    const char *path;
    const void *data;
    size_t size;
    const char *name;
} zp_binfile_input;

zp_status zp_binfile_read(void **out, const zp_binfile_format *fmt, const zp_binfile_input *in, void *arg,
                          zp_error *err) ZP_WARN_UNUSED;

/* Finds the one section with this id. what names it in messages ("B2").
 * A missing section is an error when required, else *data = NULL and
 * *size = 0; a section that appears twice is always an error (which copy
 * would be meant is unknowable). */
zp_status zp_binfile_section(const zp_binfile *bf, uint32_t id, const char *what, int required, const uint8_t **data,
                             uint64_t *size, zp_error *err) ZP_WARN_UNUSED;

/* madvise over the part of the mapping that holds [p, p + len) (rounded
 * out to pages); a no-op for borrowed memory. Advice only: never fails. */
void zp_binfile_advise(const zp_binfile *bf, const void *p, size_t len, int advice);

/* Lets go of the pages wholly inside [p, p + len) of a mapped file
 * (MADV_DONTNEED: they leave the resident set, and a later read maps them
 * again from the page cache, the same bytes); a no-op for borrowed
 * memory, where it would zero the caller's. */
void zp_binfile_release(const zp_binfile *bf, const void *p, size_t len);

/* Writing. Errors are sticky: after the first failure every call does
 * nothing and zp_binwriter_close reports it (and removes the file), so a
 * writer can be driven without checking each call. */
typedef struct zp_binwriter {
    FILE *f;
    char *path;
    long size_pos; /* where the open section's u64 size goes; -1 if none */
    uint64_t section_bytes;
    zp_status status;
    zp_error error;
} zp_binwriter;

zp_status zp_binwriter_open(zp_binwriter *w, const char *path, const char *magic, uint32_t version, uint32_t n_sections,
                            zp_error *err) ZP_WARN_UNUSED;
void zp_binwriter_begin(zp_binwriter *w, uint32_t id);
void zp_binwriter_bytes(zp_binwriter *w, const void *p, size_t n);
void zp_binwriter_u32(zp_binwriter *w, uint32_t v);
void zp_binwriter_u64(zp_binwriter *w, uint64_t v);
void zp_binwriter_end(zp_binwriter *w);
/* Room for n bytes at the writer's position, to be filled by puts in
 * any order; the writer moves past it, and *at is its offset in the file
 * (0 after an error). The room reads as zeros until put. */
void zp_binwriter_reserve(zp_binwriter *w, uint64_t n, uint64_t *at);
/* Writes p[0, n) at offset at of the file (inside reserved room). */
void zp_binwriter_put(zp_binwriter *w, uint64_t at, const void *p, size_t n);
/* Closes the file; returns the first error of the whole write, if any
 * (and then deletes the partial file). */
zp_status zp_binwriter_close(zp_binwriter *w, zp_error *err) ZP_WARN_UNUSED;
/* Closes the file of a write given up (an error elsewhere) and deletes
 * it: nothing partial is left under the output's name. */
void zp_binwriter_abort(zp_binwriter *w);

#endif
