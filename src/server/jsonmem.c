/* jansson's memory while a request body is parsed (docs/daemon.md,
 * "Intake"). A JSON tree takes many times its text: an "inputs" array of
 * one-character strings or small numbers parses into 20 to 30 bytes of
 * jansson's nodes per byte of body. Left to malloc, a body the intake
 * limits allowed would grow an untracked tree far past the memory budget.
 *
 * So jansson allocates through these functions. Normally they are malloc
 * and free. While a thread has an arena open, its allocations come from
 * the arena instead: a tracked intake buffer, reserved from the budget
 * like the body itself, filled by bumping a pointer and given back whole.
 * When it is full an allocation fails, jansson's parse fails, and the
 * request is refused with the arena's size in the message. Frees of the
 * arena's blocks do nothing (the thread that opened the arena keeps its
 * range until it releases it, and the whole tree must be freed before
 * that). Blocks from malloc stay plain malloc blocks, so a string from
 * json_dumps is freed with free() as before, whether or not an arena was
 * ever used. */
#include <pthread.h>
#include <stdlib.h>

#include "server/internal.h"

static _Thread_local json_arena *alloc_to; /* where this thread's jansson allocations go; NULL: malloc */
static _Thread_local json_arena *owned;    /* whose blocks this thread's frees skip */

static void *json_mem_alloc(size_t size) {
    json_arena *a = alloc_to;
    if (a == NULL) return malloc(size);
    size_t need = (size + 15) & ~(size_t)15;
    if (need < size || need > a->size - a->used) {
        a->full = 1;
        return NULL;
    }
    void *p = a->base + a->used;
    a->used += need;
    return p;
}

void json_mem_free(void *p) {
    json_arena *a = owned;
    if (a != NULL && (unsigned char *)p >= a->base && (unsigned char *)p < a->base + a->size) return;
    free(p);
}

static void install(void) { json_set_alloc_funcs(json_mem_alloc, json_mem_free); }

void json_mem_install(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install);
}

void json_arena_open(json_arena *a, unsigned char *base, size_t size) {
    *a = (json_arena){.base = base, .size = size};
    alloc_to = a;
    owned = a;
}

void json_arena_stop(json_arena *a) {
    if (alloc_to == a) alloc_to = NULL;
}

void json_arena_resume(json_arena *a) {
    if (owned == a) alloc_to = a;
}

void json_arena_release(json_arena *a) {
    json_arena_stop(a);
    if (owned == a) owned = NULL;
}
