/* The dashboard's files, built into the binary from src/server/assets by
 * cmake/embed_assets.cmake. */
#ifndef ZP_SERVER_ASSETS_H
#define ZP_SERVER_ASSETS_H

#include <stddef.h>

typedef struct zp_asset {
    const char *name; /* file name, e.g. "index.html" */
    const unsigned char *bytes;
    size_t size;
} zp_asset;

/* Ends with an entry whose name is NULL. */
extern const zp_asset zp_assets[];

#endif
