/* The eight-lane arithmetic (field/ifma_impl.h) of both base-field sizes,
 * 4-word moduli (BN254: zp_v5_*) and 6-word ones (BLS12-381: zp_v8_*),
 * for the files compiled with -mavx512f -mavx512ifma that need both. */
#ifndef ZP_FIELD_IFMA_FIELDS_H
#define ZP_FIELD_IFMA_FIELDS_H

#define IFMA_NL 5
#define IFMA_NW 4
#include "field/ifma_impl.h"
#define IFMA_NL 8
#define IFMA_NW 6
#include "field/ifma_impl.h"

#endif
