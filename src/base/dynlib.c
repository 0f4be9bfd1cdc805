/* dlopen of the libraries only some commands need (dynlib.h). */
#include "base/dynlib.h"

#include <dlfcn.h>
#include <pthread.h>

static pthread_mutex_t dynlib_lock = PTHREAD_MUTEX_INITIALIZER;

static int resolve(void *handle, const zp_dynsym *syms, size_t n, const char **missing) {
    for (size_t i = 0; i < n; i++) {
        void *p = dlsym(handle, syms[i].name);
        if (p == NULL) {
            *missing = syms[i].name;
            return 0;
        }
        *syms[i].slot = p;
    }
    return 1;
}

zp_status zp_dynlib_load(int *once, const char *const *sonames, const zp_dynsym *syms, size_t n, const char *package,
                         zp_error *err) {
    pthread_mutex_lock(&dynlib_lock);
    zp_status st = ZP_OK;
    if (!*once) {
        const char *why = "not found", *missing = NULL;
        st = ZP_ERR_IO;
        for (size_t i = 0; sonames[i] != NULL && st != ZP_OK; i++) {
            void *h = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
            if (h == NULL) {
                why = dlerror();
                continue;
            }
            if (resolve(h, syms, n, &missing)) {
                st = ZP_OK; /* kept open for the process's life */
            } else {
                dlclose(h);
            }
        }
        if (st == ZP_OK) {
            *once = 1;
        } else if (missing != NULL) {
            zp_error_set(err, ZP_ERR_IO, "%s lacks %s: another version than zkpipe was built with (%s)", sonames[0],
                         missing, package);
        } else {
            zp_error_set(err, ZP_ERR_IO, "cannot load %s: %s (Debian: apt-get install %s)", sonames[0],
                         why ? why : "not found", package);
        }
    }
    pthread_mutex_unlock(&dynlib_lock);
    return st;
}
