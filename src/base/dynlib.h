/* Libraries that only some commands need, loaded by those commands
 * (dlopen) instead of linked into every process: libcurl for the client
 * commands and libmicrohttpd for the daemon pull in GnuTLS, Kerberos,
 * LDAP and two dozen more libraries whose loading and constructors cost
 * every zkpipe process about 19 ms of CPU at start (perf stat, this
 * machine: 25 ms for `zkpipe --version` linked, 6 ms loaded lazily) --
 * most of a small proof's or a witness's time. */
#ifndef ZP_BASE_DYNLIB_H
#define ZP_BASE_DYNLIB_H

#include <stddef.h>

#include "base/error.h"

typedef struct zp_dynsym {
    const char *name;
    void **slot; /* where the address goes: a function pointer, as void * */
} zp_dynsym;

/* Opens the first of sonames (NULL-terminated) that loads and resolves
 * every symbol, once per process (later calls return at once; thread
 * safe through *once, which starts at 0). The error names the library and
 * the Debian package that has it. */
zp_status zp_dynlib_load(int *once, const char *const *sonames, const zp_dynsym *syms, size_t n, const char *package,
                         zp_error *err);

#endif
