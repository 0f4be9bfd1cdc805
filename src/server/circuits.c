/* The keys' circuits, compiled when the daemon starts: every key with a
 * witness calculator (config "key ID=PATH wasm=WASM", keys_dir/ID.wasm
 * beside ID.zkey) is handed to the engine to preload (its circuits thread
 * compiles into data_dir/witness-cache and loads it, in the background),
 * so that a job given inputs finds its circuit ready. Nothing here or in
 * a request waits for a compile: a job that comes first is accepted and
 * waits in the engine, queued. This thread only watches the compiles to
 * log how each ended. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/error.h"
#include "server/internal.h"

typedef struct watched {
    char *id, *key, *wasm;
} watched;

static int stopping(zp_server *s) {
    pthread_mutex_lock(&s->lock);
    int stop = s->stop_threads || s->shutting_down;
    pthread_mutex_unlock(&s->lock);
    return stop;
}

/* Hands one key's circuit to the engine; 1 if it is to be watched. */
static int preload(zp_server *s, const char *id, const char *wasm, watched *w) {
    zp_error err;
    char *key = server_key_path(s, id, &err);
    if (key == NULL || zp_engine_circuit_preload(s->engine, wasm, &err) != ZP_OK) {
        server_log(s, 0, "key '%s': its circuit %s cannot be used: %s", id, wasm, err.message);
        free(key);
        return 0;
    }
    w->id = strdup(id);
    w->key = key;
    w->wasm = strdup(wasm);
    return w->id != NULL && w->wasm != NULL;
}

static void watched_free(watched *w) {
    free(w->id);
    free(w->key);
    free(w->wasm);
    w->id = w->key = w->wasm = NULL;
}

void *server_circuits_main(void *arg) {
    zp_server *s = arg;
    size_t n = 0, cap = s->cfg.n_keys + 16;
    watched *list = calloc(cap, sizeof *list);
    for (size_t i = 0; list && i < s->cfg.n_keys; i++) {
        if (s->cfg.keys[i].wasm && preload(s, s->cfg.keys[i].id, s->cfg.keys[i].wasm, &list[n])) n++;
        else watched_free(&list[n]);
    }
    DIR *d = list && s->cfg.keys_dir ? opendir(s->cfg.keys_dir) : NULL;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len <= 5 || strcmp(e->d_name + len - 5, ".zkey") != 0 || e->d_name[0] == '.') continue;
        if (n == cap) {
            watched *grown = realloc(list, 2 * cap * sizeof *grown);
            if (grown == NULL) break;
            list = grown;
            cap *= 2;
        }
        char id[256];
        snprintf(id, sizeof id, "%.*s", (int)(len - 5), e->d_name);
        char *wasm = server_key_wasm(s, id);
        memset(&list[n], 0, sizeof list[n]);
        if (wasm && preload(s, id, wasm, &list[n])) n++;
        else watched_free(&list[n]);
        free(wasm);
    }
    if (d) closedir(d);
    double t0 = zp_clock_now();
    size_t left = n;
    while (left > 0 && !stopping(s)) {
        for (size_t i = 0; i < n; i++) {
            if (list[i].id == NULL) continue;
            zp_error err;
            zp_circuit_state state;
            zp_status st = zp_engine_circuit_check(s->engine, list[i].key, list[i].wasm, &state, &err);
            if (st == ZP_OK && state != ZP_CIRCUIT_READY) continue;
            if (st == ZP_OK)
                server_log(s, 1, "key '%s': circuit %s ready (%.1f s)", list[i].id, list[i].wasm, zp_clock_now() - t0);
            else server_log(s, 0, "key '%s': its circuit %s cannot be used: %s", list[i].id, list[i].wasm, err.message);
            watched_free(&list[i]);
            left--;
        }
        if (left > 0) usleep(200000);
    }
    for (size_t i = 0; i < n; i++) watched_free(&list[i]);
    free(list);
    return NULL;
}
