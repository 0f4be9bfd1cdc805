/* snarkjs Groth16 proving keys (.zkey, version 1; docs/formats.md).
 *
 * Opening maps the file and validates all of it that can be checked
 * cheaply: the section table, every section's size against the header,
 * every §4 coefficient entry, the header points (on the curve and in the
 * subgroup) and the IC points (canonical, on the curve). The bulk point
 * sections (A, B1, B2, C, H) are not checked point by point: that would cost
 * more than a proof on big keys, and the prover verifies each proof it makes,
 * which catches a corrupt key. */
#ifndef ZP_IO_ZKEY_H
#define ZP_IO_ZKEY_H

#include <stddef.h>
#include <stdint.h>

#include "groth16/keys.h"
#include "zkpipe.h"

typedef struct zp_zkey zp_zkey;

zp_status zp_zkey_open(zp_zkey **out, const char *path, zp_error *err) ZP_WARN_UNUSED;
/* The same over a file already in memory; data is borrowed and must outlive
 * the handle (the point sections are used in place, at any alignment).
 * name is for messages. */
zp_status zp_zkey_open_mem(zp_zkey **out, const void *data, size_t size, const char *name,
                           zp_error *err) ZP_WARN_UNUSED;
/* The proving key view; valid until zp_zkey_close. */
const zp_groth16_pk *zp_zkey_pk(const zp_zkey *zkey);
/* Lets the coefficient list's pages (§4) leave the resident set, for a
 * caller done with them (a one-shot proof after synthesis): 380 KB of a
 * 2^11 key, 92 MB at 2^20. A later read maps them again, unchanged. */
void zp_zkey_release_coefs(const zp_zkey *zkey);
/* The same for bytes of the list from p (inside it), with a signature
 * fit for zp_groth16_pager.done: zkey is the const zp_zkey * the list
 * belongs to. */
void zp_zkey_release_span(void *zkey, const uint8_t *p, size_t bytes);
/* What identifies the key's file as zp_zkey_open found it: a file with
 * another device and inode (a copy renamed over it), size or
 * modification time is not the key that was validated. mtime_ns 0: not
 * known (nothing is). */
typedef struct zp_zkey_stamp {
    uint64_t size, dev, ino;
    int64_t mtime_ns;
} zp_zkey_stamp;
/* The key's file and where its bulk sections start in it, in the order
 * A, B1, B2, C, H, then the coefficient list's first entry (off: byte
 * offsets, id: section numbers), and the file's stamp, for a prover that
 * reads them itself (engine/stream_io.h). *path is the key's;
 * ZP_ERR_UNSUPPORTED for a key opened from memory. */
zp_status zp_zkey_point_sections(const zp_zkey *zkey, const char **path, zp_zkey_stamp *stamp, uint64_t off[6],
                                 uint32_t id[6], zp_error *err) ZP_WARN_UNUSED;
/* The 64-byte circuit hash of §10, or NULL when the key has no §10. */
const uint8_t *zp_zkey_circuit_hash(const zp_zkey *zkey);
void zp_zkey_close(zp_zkey *zkey);

/* Writes pk as a .zkey that snarkjs reads, sections in the order snarkjs's
 * zkey_new.js writes them (1, 2, 4, 3, 9, 8, 5, 6, 7, 10). §10 holds
 * contributions_hash (64 bytes; zeros when NULL) and no contributions. */
zp_status zp_zkey_write(const char *path, const zp_groth16_pk *pk, const uint8_t *contributions_hash,
                        zp_error *err) ZP_WARN_UNUSED;

/* The verification key part of pk: alpha1, beta2, gamma2, delta2 and a
 * malloc'd copy of IC (free with zp_groth16_vk_free). */
zp_status zp_zkey_vk(zp_groth16_vk *vk, const zp_groth16_pk *pk, zp_error *err) ZP_WARN_UNUSED;

#endif
