/* The keys' circuits, compiled when the daemon starts: every key with a
 * witness calculator (config "key ID=PATH wasm=WASM", keys_dir/ID.wasm
 * beside ID.zkey) is compiled into data_dir/witness-cache by a thread of
 * its own, so that a job given inputs finds its circuit ready instead of
 * compiling it (seconds to minutes) inside its request. A request that
 * comes first compiles it itself; the cache's atomic publish makes the
 * two safe together. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/error.h"
#include "server/internal.h"
#include "witness/compile.h"

static int stopping(zp_server *s) {
    pthread_mutex_lock(&s->lock);
    int stop = s->stop_threads || s->shutting_down;
    pthread_mutex_unlock(&s->lock);
    return stop;
}

static void compile_one(zp_server *s, const char *id, const char *wasm) {
    zp_witness_compile_options copt = {.cache_dir = s->witness_cache};
    zp_witness_compiled c;
    zp_error err;
    double t0 = zp_clock_now();
    if (zp_witness_compile(&c, wasm, &copt, &err) != ZP_OK) {
        server_log(s, 0, "key '%s': its circuit %s cannot be compiled: %s", id, wasm, err.message);
        return;
    }
    server_log(s, 1, "key '%s': circuit %s %s (%.1f s)", id, wasm, c.compiled ? "compiled" : "ready in the cache",
               zp_clock_now() - t0);
    zp_witness_compiled_free(&c);
}

void *server_circuits_main(void *arg) {
    zp_server *s = arg;
    for (size_t i = 0; i < s->cfg.n_keys && !stopping(s); i++) {
        if (s->cfg.keys[i].wasm) compile_one(s, s->cfg.keys[i].id, s->cfg.keys[i].wasm);
    }
    DIR *d = s->cfg.keys_dir ? opendir(s->cfg.keys_dir) : NULL;
    struct dirent *e;
    while (d && !stopping(s) && (e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len <= 5 || strcmp(e->d_name + len - 5, ".zkey") != 0 || e->d_name[0] == '.') continue;
        char id[256];
        snprintf(id, sizeof id, "%.*s", (int)(len - 5), e->d_name);
        char *wasm = server_key_wasm(s, id);
        if (wasm) compile_one(s, id, wasm);
        free(wasm);
    }
    if (d) closedir(d);
    return NULL;
}
