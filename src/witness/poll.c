/* Stop polls in wasm2c's output (poll.h). */
#define _GNU_SOURCE /* memmem */
#include "witness/poll.h"

#include <stdlib.h>
#include <string.h>

/* wasm2c 1.0.32's prologue and epilogue, exactly; the polls' definitions
 * go right after them, so that every function below sees them. */
static const char prologue_defs[] =
    "#if WASM_RT_USE_STACK_DEPTH_COUNT\n"
    "#define FUNC_PROLOGUE                                            \\\n"
    "  if (++wasm_rt_call_stack_depth > WASM_RT_MAX_CALL_STACK_DEPTH) \\\n"
    "    TRAP(EXHAUSTION);\n"
    "\n"
    "#define FUNC_EPILOGUE --wasm_rt_call_stack_depth\n"
    "#else\n"
    "#define FUNC_PROLOGUE\n"
    "\n"
    "#define FUNC_EPILOGUE\n"
    "#endif\n";

/* The flag is read with a relaxed atomic load (a plain mov on x86-64 and
 * arm64; what TSan expects of a word another thread sets). The glue
 * defines both names. */
static const char poll_defs[] =
    "\n/* zkpipe: stop polls (src/witness/poll.c) */\n"
    "extern _Thread_local const int *zp_stop_flag;\n"
    "void zp_stop_trap(void) __attribute__((noreturn, cold));\n"
    "#define ZP_POLL() do { if (__builtin_expect(__atomic_load_n(zp_stop_flag, __ATOMIC_RELAXED) != 0, 0)) "
    "zp_stop_trap(); } while (0)\n";

/* A poll after a loop head's label, and after the prologue of every
 * function but a short leaf. A leaf calls nothing and runs straight
 * through between its loop heads; one of at most LEAF_LINES lines needs
 * no poll (readSharedRWMemory and the like, called a million times, cost
 * nothing more), since between two polls of its callers it can run only
 * as often as a caller's straight-line body calls it: a module-sized
 * body times LEAF_LINES statements, a fraction of a second, where a
 * leaf of any size would allow (module size)^2. Calls, as wasm2c writes
 * them, pass the instance first: w2c_f(instance, ...), an import's
 * Z_runtimeZ_f(instance->Z_runtime_instance, ...), CALL_INDIRECT(
 * instance->w2c_T0, ...); any "(instance" in a body counts as a call,
 * which errs only towards a poll too many. */
#define LEAF_LINES 64
static const char loop_poll[] = " ZP_POLL();";
static const char prologue_line[] = "  FUNC_PROLOGUE;\n";
static const char prologue_poll[] = "  FUNC_PROLOGUE; ZP_POLL();\n";

/* Whether the function whose prologue line is at p needs a poll there:
 * it calls (an "(instance" before its end, the first "\n}\n": wasm2c
 * indents every line of a body) or is longer than LEAF_LINES. */
static int needs_prologue_poll(const char *p, const char *text_end) {
    const char *end = strstr(p, "\n}\n");
    if (end == NULL) end = text_end;
    size_t lines = 0;
    for (const char *q = p; (q = memchr(q, '\n', (size_t)(end - q))) != NULL && lines <= LEAF_LINES; q++) lines++;
    if (lines > LEAF_LINES) return 1;
    for (const char *q = p; (q = memchr(q, '(', (size_t)(end - q))) != NULL; q++) {
        if ((size_t)(end - q) > 9 && memcmp(q, "(instance", 9) == 0) return 1;
    }
    return 0;
}

/* The body of the definition starting at def: up to the first "\n}\n". */
static const char *body_end(const char *def) {
    const char *end = strstr(def, "\n}\n");
    return end == NULL ? NULL : end + 1;
}

/* Whether Z_circuit_instantiate runs module code: its body must be
 * wasm2c's asserts and init_* calls only (a start function is called
 * there, after them). 1: it does, or it is not the expected shape. */
static int runs_start(const char *text) {
    const char *def = strstr(text, "\nvoid Z_circuit_instantiate(");
    if (def == NULL) return 1;
    const char *open = strstr(def, ") {\n"), *end = body_end(def + 1);
    if (open == NULL || end == NULL || open > end) return 1;
    for (const char *line = open + 4; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        if (nl == NULL) break;
        size_t ind = strspn(line, " ");
        if (line + ind < nl && strncmp(line + ind, "assert(", 7) != 0 && strncmp(line + ind, "init_", 5) != 0) {
            return 1;
        }
        line = nl + 1;
    }
    return 0;
}

/* A label definition at p (a line start), as wasm2c writes them:
 * "<indent>w2c_NAME: \n" heads a loop (the target of the loop's
 * backward jumps), "<indent>w2c_NAME:;" ends a block (forward jumps
 * only). Returns 1 for a loop head (*colon: its ':'), 0 for anything
 * that is not a loop head, -1 for a label of another shape or name (any
 * identifier then ':' at a line's start but br_table's "default:"), so
 * that no loop can hide under a name this pass does not look for. */
static int loop_head(const char *p, const char *line_end, const char **colon) {
    static const char ident[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
    p += strspn(p, " ");
    if (p >= line_end || strchr(ident, *p) == NULL || (*p >= '0' && *p <= '9')) return 0;
    const char *q = p + strspn(p, ident);
    if (q >= line_end || *q != ':' || (q - p == 7 && strncmp(p, "default", 7) == 0)) return 0;
    if (q - p < 5 || strncmp(p, "w2c_", 4) != 0) return -1;
    if (q + 1 < line_end && q[1] == ';') return 0;
    if (q + 2 == line_end && q[1] == ' ') {
        *colon = q;
        return 1;
    }
    return -1;
}

zp_status zp_witness_poll_patch(char **out, size_t *out_len, size_t *polls, const char *text, size_t len,
                                const char *name, zp_error *err) {
    *out = NULL;
    *out_len = 0;
    *polls = 0;
    const char *defs = strstr(text, prologue_defs);
    if (defs == NULL || strstr(defs + 1, prologue_defs) != NULL) {
        return zp_error_set(err, ZP_ERR_UNSUPPORTED,
                            "%s: wasm2c's output has not the prologue of wasm2c 1.0.32: cannot write the stop polls "
                            "into it",
                            name);
    }
    if (runs_start(text)) {
        return zp_error_set(err, ZP_ERR_FORMAT,
                            "%s: not a circom 2 witness calculator zkpipe can run (it has a start function, which "
                            "would run before it could be stopped; circom writes none)",
                            name);
    }
    size_t heads = 0;
    for (const char *p = text; p < text + len;) {
        const char *nl = memchr(p, '\n', (size_t)(text + len - p));
        const char *end = nl ? nl : text + len, *colon;
        int kind = loop_head(p, end, &colon);
        const char *pro = memmem(p, (size_t)(end - p), "FUNC_PROLOGUE", 13);
        if (pro != NULL && p > defs + sizeof prologue_defs &&
            ((size_t)(end + 1 - p) != sizeof prologue_line - 1 || memcmp(p, prologue_line, sizeof prologue_line - 1))) {
            return zp_error_set(err, ZP_ERR_UNSUPPORTED,
                                "%s: wasm2c's output has a prologue zkpipe does not know (%.*s): cannot write the "
                                "stop polls into it",
                                name, (int)(end - p > 80 ? 80 : end - p), p);
        }
        if (kind < 0) {
            return zp_error_set(err, ZP_ERR_UNSUPPORTED,
                                "%s: wasm2c's output has a label zkpipe does not know (%.*s): cannot write the stop "
                                "polls into it",
                                name, (int)(end - p > 80 ? 80 : end - p), p);
        }
        heads += (size_t)kind;
        p = end + 1;
    }
    size_t prologues = 0;
    for (const char *p = defs; (p = strstr(p + 1, prologue_line)) != NULL;) prologues++;
    size_t cap = len + sizeof poll_defs + heads * (sizeof loop_poll - 1) +
                 prologues * (sizeof prologue_poll - sizeof prologue_line) + 1;
    char *o = malloc(cap);
    if (o == NULL) return zp_error_set(err, ZP_ERR_NOMEM, "%s: out of memory for the stop polls", name);
    size_t used = 0;
    size_t head_len = (size_t)(defs - text) + sizeof prologue_defs - 1;
    memcpy(o, text, head_len), used = head_len;
    memcpy(o + used, poll_defs, sizeof poll_defs - 1), used += sizeof poll_defs - 1;
    for (const char *p = text + head_len; p < text + len;) {
        const char *nl = memchr(p, '\n', (size_t)(text + len - p));
        const char *end = nl ? nl + 1 : text + len, *colon;
        if (nl != NULL && loop_head(p, nl, &colon) == 1) {
            size_t upto = (size_t)(colon + 1 - p); /* "<indent>w2c_L3:" then the poll, then " \n" */
            memcpy(o + used, p, upto), used += upto;
            memcpy(o + used, loop_poll, sizeof loop_poll - 1), used += sizeof loop_poll - 1;
            memcpy(o + used, colon + 1, (size_t)(end - colon - 1)), used += (size_t)(end - colon - 1);
            (*polls)++;
        } else if ((size_t)(end - p) == sizeof prologue_line - 1 && memcmp(p, prologue_line, (size_t)(end - p)) == 0 &&
                   needs_prologue_poll(p, text + len)) {
            memcpy(o + used, prologue_poll, sizeof prologue_poll - 1), used += sizeof prologue_poll - 1;
            (*polls)++;
        } else {
            memcpy(o + used, p, (size_t)(end - p)), used += (size_t)(end - p);
        }
        p = end;
    }
    o[used] = 0;
    *out = o;
    *out_len = used;
    return ZP_OK;
}
