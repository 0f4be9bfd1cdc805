/* The engine's side of a streamed proof (groth16/stream.h): the key file
 * opened a second time, its sections read ahead by a thread of the
 * engine's, and the scratch file of a spilled a, b, c.
 *
 * A source is the key file (opened as every user's file is,
 * base/file.c) and the byte offsets of its five point sections and its
 * coefficient list. A reader reads one section in chunks, in order, into
 * one of two halves of a tracked window: while the workers sum chunk i
 * from one half, a reader thread reads chunk i+1 into the other. The
 * window's pages are anonymous memory that every chunk reuses. */
#ifndef ZP_ENGINE_STREAM_IO_H
#define ZP_ENGINE_STREAM_IO_H

#include <stddef.h>
#include <stdint.h>

#include "groth16/stream.h"
#include "io/zkey.h"
#include "zkpipe.h"

typedef struct zp_stream_source {
    int fd;                        /* the key file, read only; -1: closed */
    char *name;                    /* for messages (owned) */
    uint64_t off[ZP_SRC_SECTIONS]; /* byte offsets of A, B1, B2, C, H, the coefficients */
    uint32_t id[ZP_SRC_SECTIONS];  /* their section numbers, for messages */
    uint64_t size;                 /* the file's size when the key was opened */
    int64_t mtime_ns;              /* and its modification time */
} zp_stream_source;

/* Opens path as the source of the key stamped `stamp` when it was opened
 * (zp_zkey_point_sections), sections at off[] (ids id[]). ZP_ERR_IO when
 * it cannot be opened or is no regular file; ZP_ERR_FORMAT when it is
 * another file now (device and inode) or its size or time changed. */
zp_status zp_stream_source_open(zp_stream_source *src, const char *path, const zp_zkey_stamp *stamp,
                                const uint64_t off[ZP_SRC_SECTIONS], const uint32_t id[ZP_SRC_SECTIONS],
                                zp_error *err) ZP_WARN_UNUSED;
void zp_stream_source_close(zp_stream_source *src);
/* ZP_OK while the file has its size and modification time of open;
 * ZP_ERR_FORMAT naming the file otherwise. */
zp_status zp_stream_source_check(const zp_stream_source *src, zp_error *err) ZP_WARN_UNUSED;

/* One section's chunks, read ahead (see above), into the caller's
 * tracked window of two halves. */
typedef struct zp_stream_reader {
    const zp_stream_source *src;
    unsigned section;
    size_t elem, n, chunk; /* bytes per point, points, points per chunk */
    size_t next;           /* the chunk take returns next */
    char *half[2];
    /* the read in flight: chunk `pending` into half[pending % 2] */
    int busy;
    size_t pending;
    void *thread; /* pthread_t, opaque here */
    zp_status read_st;
    char read_msg[200];
} zp_stream_reader;

/* Starts reading section's n points of elem bytes, chunk points at a
 * time, into the two halves of window (each >= chunk·elem bytes). */
zp_status zp_stream_begin(zp_stream_reader *r, const zp_stream_source *src, unsigned section, size_t elem, size_t n,
                          size_t chunk, void *window, zp_error *err) ZP_WARN_UNUSED;
/* The next chunk: waits for its read, starts the one after, and gives
 * its points (*count of them, from point *first). ZP_ERR_FORMAT / _IO,
 * naming the file and section, when the read failed or came up short. */
zp_status zp_stream_take(zp_stream_reader *r, const void **points, size_t *first, size_t *count,
                         zp_error *err) ZP_WARN_UNUSED;
/* Waits for a read in flight; always call it. */
void zp_stream_end(zp_stream_reader *r);

/* A scratch file of three slots of `slot` bytes for the spilled path,
 * made unlinked in dir (O_TMPFILE, or mkstemp's O_EXCL name, mode 0600,
 * unlinked at once), so it is gone on every exit, a crash or SIGKILL
 * included; its pages are the page cache's, not the process's. */
typedef struct zp_stream_spill {
    int fd;
    size_t slot;
    char dir[256];
} zp_stream_spill;
zp_status zp_stream_spill_open(zp_stream_spill *sp, const char *dir, size_t slot, zp_error *err) ZP_WARN_UNUSED;
/* Writes (write 1) or reads bytes at off of slot from / into buf. */
zp_status zp_stream_spill_io(zp_stream_spill *sp, int write, unsigned slot, size_t off, void *buf, size_t bytes,
                             zp_error *err) ZP_WARN_UNUSED;
void zp_stream_spill_close(zp_stream_spill *sp);
/* Where spill files go: $ZKPIPE_SCRATCH_DIR, else $TMPDIR, else /var/tmp. */
const char *zp_stream_scratch_dir(void);

/* zp_groth16_prove_stream with the engine's io: the key's points read
 * from src through window (plan->window_bytes) by the reader thread, a/b/c
 * spilled (when plan->spill) to a file in zp_stream_scratch_dir(); the
 * rest as zp_groth16_prove_stream says. */
zp_status zp_stream_prove(zp_groth16_proof *proof, const zp_groth16_pk *pk, uint64_t *witness, void *abc, void *scratch,
                          void *window, const zp_stream_source *src, const zp_groth16_stream_plan *plan,
                          const zp_parallel *par, zp_error *err) ZP_WARN_UNUSED;

#endif
