/* The stop-poll pass over wasm2c's output (src/witness/poll.h), on texts
 * shaped as wasm2c 1.0.32 writes them: a poll after every loop head and
 * after the prologue of a function that calls or is long, none in a short
 * leaf; a label of
 * another shape or name, a prologue of another shape, a text without
 * wasm2c's prologue macros and a module with a start function are
 * refused. tests/witness/stop.sh runs the polls themselves. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "witness/poll.h"

static const char head[] =
    "#include \"circuit.h\"\n"
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

static const char leaf[] =
    "static u32 w2c_leaf(Z_circuit_instance_t* instance, u32 w2c_p0) {\n"
    "  FUNC_PROLOGUE;\n"
    "  u32 w2c_i0;\n"
    "  w2c_i0 = i32_load(&instance->w2c_memory, (u64)(w2c_p0));\n"
    "  FUNC_EPILOGUE;\n"
    "  return w2c_i0;\n"
    "}\n";

static const char caller[] =
    "static void w2c_caller(Z_circuit_instance_t* instance, u32 w2c_p0) {\n"
    "  u32 w2c_l1 = 0;\n"
    "  FUNC_PROLOGUE;\n"
    "  u32 w2c_i0;\n"
    "  if (w2c_p0) {\n"
    "    w2c_L1: \n"
    "      w2c_i0 = w2c_leaf(instance, w2c_l1);\n"
    "      if (w2c_i0) goto w2c_L1;\n"
    "  }\n"
    "  w2c_B0:;\n"
    "  FUNC_EPILOGUE;\n"
    "}\n";

static const char instantiate[] =
    "\nvoid Z_circuit_instantiate(Z_circuit_instance_t* instance) {\n"
    "  assert(wasm_rt_is_initialized());\n"
    "  init_memories(instance);\n"
    "%s"
    "}\n";

/* head + the bodies + instantiate (with extra inside it), patched */
static zp_status run(char **out, size_t *polls, const char *bodies, const char *extra, zp_error *err) {
    static char text[16384];
    char inst[512];
    snprintf(inst, sizeof inst, instantiate, extra);
    snprintf(text, sizeof text, "%s%s%s", head, bodies, inst);
    size_t len = 0;
    return zp_witness_poll_patch(out, &len, polls, text, strlen(text), "t.wasm", err);
}

static size_t count(const char *s, const char *needle) {
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, needle)) != NULL; p++) n++;
    return n;
}

int main(void) {
    zp_test_init("test_witness_poll");
    zp_error err = {0};
    char *out = NULL;
    size_t polls = 0;
    char bodies[8192];
    snprintf(bodies, sizeof bodies, "%s%s", leaf, caller);

    zp_status st = run(&out, &polls, bodies, "", &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    if (out != NULL) {
        CHECK(polls == 2); /* the loop head and the caller's prologue */
        CHECK(strstr(out, "#define ZP_POLL()") != NULL);
        CHECK(strstr(out, "    w2c_L1: ZP_POLL(); \n") != NULL);
        CHECK(count(out, "  FUNC_PROLOGUE; ZP_POLL();\n") == 1);
        const char *l = strstr(out, "w2c_leaf(Z_circuit");
        CHECK(l != NULL && strncmp(strstr(l, "FUNC_PROLOGUE"), "FUNC_PROLOGUE;\n", 15) == 0); /* none in the leaf */
        CHECK(strstr(out, "  w2c_B0:;\n") != NULL); /* a block's end stays as it was */
        free(out);
    }

    /* a long leaf (more than 64 lines) polls too: a caller's straight-line
     * body could call it a million times between two polls */
    char longleaf[2048];
    int n = snprintf(longleaf, sizeof longleaf,
                     "static void w2c_long(Z_circuit_instance_t* instance) {\n  FUNC_PROLOGUE;\n");
    for (int i = 0; i < 70; i++) n += snprintf(longleaf + n, sizeof longleaf - (size_t)n, "  w2c_i0 += w2c_i1;\n");
    snprintf(longleaf + n, sizeof longleaf - (size_t)n, "  FUNC_EPILOGUE;\n}\n");
    snprintf(bodies, sizeof bodies, "%s%s", leaf, longleaf);
    st = run(&out, &polls, bodies, "", &err);
    CHECK_MSG(st == ZP_OK, "%s", err.message);
    if (out != NULL) {
        const char *l = strstr(out, "w2c_long(Z_circuit");
        CHECK(polls == 1 && l != NULL && strncmp(strstr(l, "FUNC_PROLOGUE"), "FUNC_PROLOGUE; ZP_POLL();", 25) == 0);
        free(out);
    }
    snprintf(bodies, sizeof bodies, "%s%s", leaf, caller);

    /* refused: a start function, labels and prologues of other shapes, no prologue macros */
    st = run(&out, &polls, bodies, "  w2c_f0(instance);\n", &err);
    CHECK_MSG(st == ZP_ERR_FORMAT && out == NULL && strstr(err.message, "t.wasm: ") == err.message &&
                  strstr(err.message, "start function") != NULL,
              "%d %s", (int)st, err.message);
    static const char *const bad[] = {
        "static void w2c_g(Z_circuit_instance_t* instance) {\n  FUNC_PROLOGUE;\n  w2c_L1:\n  goto w2c_L1;\n}\n",
        "static void w2c_g(Z_circuit_instance_t* instance) {\n  FUNC_PROLOGUE;\n  var_L1: \n  goto var_L1;\n}\n",
        "static void w2c_g(Z_circuit_instance_t* instance) {\n  FUNC_PROLOGUE; w2c_g(instance);\n}\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        st = run(&out, &polls, bad[i], "", &err);
        CHECK_MSG(st == ZP_ERR_UNSUPPORTED && out == NULL, "case %zu: %d %s", i, (int)st, err.message);
    }
    size_t len;
    st = zp_witness_poll_patch(&out, &len, &polls, caller, strlen(caller), "t.wasm", &err);
    CHECK_MSG(st == ZP_ERR_UNSUPPORTED && out == NULL, "no prologue macros: %d %s", (int)st, err.message);
    return zp_test_done();
}
