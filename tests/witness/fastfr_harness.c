/* Appended to a patched wasm2c output by tests/test_witness_fastfr.c (one
 * translation unit, so the static functions are in reach): each fastfr
 * replacement against the wasm's own function (kept as <name>__wasm by the
 * patch) on the same linear memory, for random reduced and non-reduced
 * values and the edges 0, 1, p - 1, p, p + 1, 2^256 - 1; aliased outputs;
 * and an out-of-range address, which must trap. Prints "fastfr ok N" and
 * exits 0, or names the first difference and exits 1. argv[1]: a seed. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf harness_trap;
void wasm_rt_trap(wasm_rt_trap_t why) { longjmp(harness_trap, 1 + (int)why); }

/* the rest of the runtime and circom's imports: linked, never called */
bool wasm_rt_is_initialized(void) { return true; }
uint32_t wasm_rt_register_func_type(uint32_t params, uint32_t results, ...) { return params + results; }
/* init_memories allocates the memory: 64 MiB, whatever the module asks */
#define HARNESS_MEM (64u << 20)
void wasm_rt_allocate_memory(wasm_rt_memory_t *m, uint32_t initial, uint32_t max) {
    m->data = calloc(1, HARNESS_MEM);
    if (m->data == NULL) abort();
    m->size = HARNESS_MEM, m->pages = initial, m->max_pages = max;
}
uint32_t wasm_rt_grow_memory(wasm_rt_memory_t *m, uint32_t pages) {
    (void)m, (void)pages;
    abort();
}
void wasm_rt_free_memory(wasm_rt_memory_t *m) { (void)m; }
void wasm_rt_allocate_funcref_table(wasm_rt_funcref_table_t *t, uint32_t initial, uint32_t max) {
    (void)t, (void)initial, (void)max;
    abort();
}
void wasm_rt_free_funcref_table(wasm_rt_funcref_table_t *t) { (void)t; }
void Z_runtimeZ_exceptionHandler(struct Z_runtime_instance_t *r, u32 code) {
    (void)r, (void)code;
    abort();
}
void Z_runtimeZ_printErrorMessage(struct Z_runtime_instance_t *r) {
    (void)r;
    abort();
}
void Z_runtimeZ_showSharedRWMemory(struct Z_runtime_instance_t *r) {
    (void)r;
    abort();
}
void Z_runtimeZ_writeBufferMessage(struct Z_runtime_instance_t *r) {
    (void)r;
    abort();
}

static uint64_t harness_state;
static uint64_t harness_rand(void) { /* splitmix64 */
    uint64_t z = (harness_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* far above circom's data and stack: x, y, and the two outputs */
#define AX (HARNESS_MEM - 4096)
#define AY (HARNESS_MEM - 3072)
#define AR1 (HARNESS_MEM - 2048)
#define AR2 (HARNESS_MEM - 1024)

static Z_circuit_instance_t inst;
static u64 p4[4];

static void value(u64 v[4], int kind) {
    static const u64 ones[4] = {~0ULL, ~0ULL, ~0ULL, ~0ULL};
    switch (kind) {
    case 0: memset(v, 0, 32); break;
    case 1: memset(v, 0, 32), v[0] = 1; break;
    case 2: memcpy(v, p4, 32), v[0] -= 1; break;
    case 3: memcpy(v, p4, 32); break;
    case 4: memcpy(v, p4, 32), v[0] += 1; break;
    case 5: memcpy(v, ones, 32); break;
    case 6: /* random below p */
        do {
            for (int i = 0; i < 4; i++) v[i] = harness_rand();
            v[3] %= p4[3] + 1;
        } while (v[3] > p4[3] || (v[3] == p4[3] && v[2] >= p4[2]));
        break;
    default: /* any 256-bit value */
        for (int i = 0; i < 4; i++) v[i] = harness_rand();
    }
}

static u8 *at(u32 a) { return inst.w2c_memory.data + a; }

static int fails, checks;
static void same(const char *what, u32 a1, u32 a2, u32 len, u32 ret1, u32 ret2) {
    checks++;
    if (memcmp(at(a1), at(a2), len) != 0 || ret1 != ret2) {
        if (fails++ < 5) {
            fprintf(stderr, "fastfr differs from the wasm: %s (returned %u / %u)\n  x", what, ret1, ret2);
            for (int i = 31; i >= 0; i--) fprintf(stderr, "%02x", at(AX)[i]);
            fprintf(stderr, "\n  y");
            for (int i = 31; i >= 0; i--) fprintf(stderr, "%02x", at(AY)[i]);
            fprintf(stderr, "\n");
        }
    }
}

/* runs both versions of each function on the inputs at AX, AY */
static void compare_all(void) {
    u32 r1, r2;
    r1 = w2c_Fr_int_add__wasm(&inst, AX, AY, AR1), r2 = w2c_Fr_int_add(&inst, AX, AY, AR2);
    same("Fr_int_add", AR1, AR2, 32, r1, r2);
    r1 = w2c_Fr_int_sub__wasm(&inst, AX, AY, AR1), r2 = w2c_Fr_int_sub(&inst, AX, AY, AR2);
    same("Fr_int_sub", AR1, AR2, 32, r1, r2);
    r1 = w2c_Fr_int_gte__wasm(&inst, AX, AY), r2 = w2c_Fr_int_gte(&inst, AX, AY);
    same("Fr_int_gte", AR1, AR1, 0, r1, r2);
    w2c_Fr_F1m_add__wasm(&inst, AX, AY, AR1), w2c_Fr_F1m_add(&inst, AX, AY, AR2);
    same("Fr_F1m_add", AR1, AR2, 32, 0, 0);
    w2c_Fr_F1m_sub__wasm(&inst, AX, AY, AR1), w2c_Fr_F1m_sub(&inst, AX, AY, AR2);
    same("Fr_F1m_sub", AR1, AR2, 32, 0, 0);
    w2c_Fr_F1m_mul__wasm(&inst, AX, AY, AR1), w2c_Fr_F1m_mul(&inst, AX, AY, AR2);
    same("Fr_F1m_mul", AR1, AR2, 32, 0, 0);
    w2c_Fr_F1m_square__wasm(&inst, AX, AR1), w2c_Fr_F1m_square(&inst, AX, AR2);
    same("Fr_F1m_square", AR1, AR2, 32, 0, 0);
    w2c_Fr_F1m_fromMontgomery__wasm(&inst, AX, AR1), w2c_Fr_F1m_fromMontgomery(&inst, AX, AR2);
    same("Fr_F1m_fromMontgomery", AR1, AR2, 32, 0, 0);
    /* Fr_copy: a whole element, header included */
    memset(at(AR1), 0x5a, 40), memset(at(AR2), 0x5a, 40);
    w2c_Fr_copy__wasm(&inst, AR1, AX), w2c_Fr_copy(&inst, AR2, AX);
    same("Fr_copy", AR1, AR2, 40, 0, 0);
    r1 = w2c_Fr_int_gt__wasm(&inst, AX, AY), r2 = w2c_Fr_int_gt(&inst, AX, AY);
    same("Fr_int_gt", AR1, AR1, 0, r1, r2);
    r1 = w2c_Fr_int_eq__wasm(&inst, AX, AY), r2 = w2c_Fr_int_eq(&inst, AX, AY);
    same("Fr_int_eq", AR1, AR1, 0, r1, r2);
    r1 = w2c_Fr_int_eq__wasm(&inst, AX, AX), r2 = w2c_Fr_int_eq(&inst, AX, AX);
    same("Fr_int_eq, x = x", AR1, AR1, 0, r1, r2);
    /* an element (header: short value, type word) of each type, and of
     * random flags, into toNormal and getLsb32, which convert in place */
    for (int kind = 0; kind < 5; kind++) {
        static const u32 types[4] = {0x00000000u, 0x80000000u, 0xc0000000u, 0x40000000u};
        u32 type = kind < 4 ? types[kind] : (u32)harness_rand();
        u32 shortv = (u32)harness_rand();
        memcpy(at(AR1), &shortv, 4), memcpy(at(AR1) + 4, &type, 4), memcpy(at(AR1) + 8, at(AX), 32);
        memcpy(at(AR2), at(AR1), 40);
        w2c_Fr_toNormal__wasm(&inst, AR1), w2c_Fr_toNormal(&inst, AR2);
        same("Fr_toNormal", AR1, AR2, 40, 0, 0);
        memcpy(at(AR1), &shortv, 4), memcpy(at(AR1) + 4, &type, 4), memcpy(at(AR1) + 8, at(AX), 32);
        memcpy(at(AR2), at(AR1), 40);
        r1 = w2c_Fr_getLsb32__wasm(&inst, AR1), r2 = w2c_Fr_getLsb32(&inst, AR2);
        same("Fr_getLsb32", AR1, AR2, 40, r1, r2);
        memcpy(at(AR1), &shortv, 4), memcpy(at(AR1) + 4, &type, 4), memcpy(at(AR1) + 8, at(AX), 32);
        memcpy(at(AR2), at(AR1), 40);
        r1 = w2c_Fr_isNegative__wasm(&inst, AR1), r2 = w2c_Fr_isNegative(&inst, AR2);
        same("Fr_isNegative", AR1, AR2, 40, r1, r2);
    }
    /* the output aliasing an input (r = x), as circom's code does */
    memcpy(at(AR1), at(AX), 32), memcpy(at(AR2), at(AX), 32);
    w2c_Fr_F1m_mul__wasm(&inst, AR1, AY, AR1), w2c_Fr_F1m_mul(&inst, AR2, AY, AR2);
    same("Fr_F1m_mul, r = x", AR1, AR2, 32, 0, 0);
    memcpy(at(AR1), at(AX), 32), memcpy(at(AR2), at(AX), 32);
    w2c_Fr_F1m_add__wasm(&inst, AR1, AY, AR1), w2c_Fr_F1m_add(&inst, AR2, AY, AR2);
    same("Fr_F1m_add, r = x", AR1, AR2, 32, 0, 0);
    memcpy(at(AR1), at(AY), 32), memcpy(at(AR2), at(AY), 32);
    w2c_Fr_F1m_sub__wasm(&inst, AX, AR1, AR1), w2c_Fr_F1m_sub(&inst, AX, AR2, AR2);
    same("Fr_F1m_sub, r = y", AR1, AR2, 32, 0, 0);
}

/* The type-level functions (isTrue, toInt, eqR, gtR, lt, add, sub, mul,
 * toMontgomery, isNegative) on two
 * elements of random kinds: short values at the 32-bit edges and random,
 * long and long Montgomery limbs (reduced or not), in two copies; each
 * may convert its inputs in place, so all three elements are compared. */
static const u32 kinds[5] = {0x00000000u, 0x80000000u, 0xc0000000u, 0x40000000u, 0};
static void element(u8 *e) {
    static const s32 edges[8] = {0, 1, -1, 2147483647, (s32)0x80000000u, 2147483646, -2147483647, 1000};
    u32 type = kinds[harness_rand() % 5];
    if (type == 0 && (harness_rand() & 7) == 0) type = (u32)harness_rand();
    s32 v = (harness_rand() & 1) ? edges[harness_rand() % 8] : (s32)(u32)harness_rand();
    if ((harness_rand() & 3) == 0) v = (s32)(harness_rand() % 64) - 32;
    u64 limbs[4];
    value(limbs, 2 + (int)(harness_rand() % 6));
    switch (harness_rand() % 8) { /* the values circom's bit decompositions see */
    case 0:                       /* small: 0 to 2^32 */
        memset(limbs, 0, 32), limbs[0] = harness_rand() % 3 == 0 ? harness_rand() % 3 : (harness_rand() & 0xffffffffu);
        break;
    case 1: /* (p - 1) / 2 + {-1, 0, 1}: the sign boundary */
        for (int i = 0; i < 4; i++) limbs[i] = (p4[i] >> 1) | (i < 3 ? p4[i + 1] << 63 : 0);
        limbs[0] += (u64)(harness_rand() % 3) - 1;
        break;
    case 2: /* p - small: a negative integer */ memcpy(limbs, p4, 32), limbs[0] -= 1 + harness_rand() % 1000; break;
    default: break;
    }
    memcpy(e, &v, 4), memcpy(e + 4, &type, 4), memcpy(e + 8, limbs, 32);
}
static void compare_types(void) {
#define TA1 (AR1) /* a, b, r in each copy */
#define TB1 (AR1 + 40)
#define TR1 (AR1 + 80)
#define TA2 (AR2)
#define TB2 (AR2 + 40)
#define TR2 (AR2 + 80)
    u8 a[40], b[40];
    element(a), element(b);
    if ((harness_rand() & 7) == 0) memcpy(b, a, 40);
    u32 r1, r2;
#define SETUP()                                                                                         \
    (memcpy(at(TA1), a, 40), memcpy(at(TB1), b, 40), memset(at(TR1), 0x5a, 40), memcpy(at(TA2), a, 40), \
     memcpy(at(TB2), b, 40), memset(at(TR2), 0x5a, 40))
#ifdef ZP_FF_HAVE_IS_TRUE
    SETUP();
    r1 = w2c_Fr_isTrue__wasm(&inst, TA1), r2 = w2c_Fr_isTrue(&inst, TA2);
    same("Fr_isTrue", AR1, AR2, 120, r1, r2);
#endif
#ifdef ZP_FF_HAVE_TO_INT
    SETUP();
    r1 = w2c_Fr_toInt__wasm(&inst, TA1), r2 = w2c_Fr_toInt(&inst, TA2);
    same("Fr_toInt", AR1, AR2, 120, r1, r2);
#endif
#ifdef ZP_FF_HAVE_EQR
    SETUP();
    r1 = w2c_Fr_eqR__wasm(&inst, TA1, TB1), r2 = w2c_Fr_eqR(&inst, TA2, TB2);
    same("Fr_eqR", AR1, AR2, 120, r1, r2);
#endif
#ifdef ZP_FF_HAVE_GTR
    SETUP();
    r1 = w2c_Fr_gtR__wasm(&inst, TA1, TB1), r2 = w2c_Fr_gtR(&inst, TA2, TB2);
    same("Fr_gtR", AR1, AR2, 120, r1, r2);
#endif
#ifdef ZP_FF_HAVE_LT
    SETUP();
    w2c_Fr_lt__wasm(&inst, TR1, TA1, TB1), w2c_Fr_lt(&inst, TR2, TA2, TB2);
    same("Fr_lt", AR1, AR2, 120, 0, 0);
#endif
/* a binary function: r apart, r = a, r = b, and a = b (r apart) */
#define BINARY(name)                                                                \
    do {                                                                            \
        SETUP();                                                                    \
        w2c_##name##__wasm(&inst, TR1, TA1, TB1), w2c_##name(&inst, TR2, TA2, TB2); \
        same(#name, AR1, AR2, 120, 0, 0);                                           \
        SETUP();                                                                    \
        w2c_##name##__wasm(&inst, TA1, TA1, TB1), w2c_##name(&inst, TA2, TA2, TB2); \
        same(#name ", r = a", AR1, AR2, 120, 0, 0);                                 \
        SETUP();                                                                    \
        w2c_##name##__wasm(&inst, TB1, TA1, TB1), w2c_##name(&inst, TB2, TA2, TB2); \
        same(#name ", r = b", AR1, AR2, 120, 0, 0);                                 \
        SETUP();                                                                    \
        w2c_##name##__wasm(&inst, TR1, TA1, TA1), w2c_##name(&inst, TR2, TA2, TA2); \
        same(#name ", a = b", AR1, AR2, 120, 0, 0);                                 \
    } while (0)
#ifdef ZP_FF_HAVE_ADD
    BINARY(Fr_add);
#endif
#ifdef ZP_FF_HAVE_SUB
    BINARY(Fr_sub);
#endif
#ifdef ZP_FF_HAVE_MUL
    BINARY(Fr_mul);
#endif
#ifdef ZP_FF_HAVE_LT
    SETUP(); /* a = b */
    w2c_Fr_lt__wasm(&inst, TR1, TA1, TA1), w2c_Fr_lt(&inst, TR2, TA2, TA2);
    same("Fr_lt, a = b", AR1, AR2, 120, 0, 0);
#endif
#ifdef ZP_FF_HAVE_TO_MONT
    SETUP();
    w2c_Fr_toMontgomery__wasm(&inst, TA1), w2c_Fr_toMontgomery(&inst, TA2);
    same("Fr_toMontgomery", AR1, AR2, 120, 0, 0);
#endif
#ifdef ZP_FF_HALF_ADDR
    SETUP();
    r1 = w2c_Fr_isNegative__wasm(&inst, TA1), r2 = w2c_Fr_isNegative(&inst, TA2);
    same("Fr_isNegative (element)", AR1, AR2, 120, r1, r2);
#endif
}

/* zp_ff_copy_list against the Fr_copy calls it stands for, in two copies
 * of one random region: sources anywhere in it (overlapping the
 * destination too), and a destination that runs past the end of memory
 * (both trap, after copying the same elements). */
#define CL_REGION 4096u
#define CL_B1 (HARNESS_MEM - 6 * 4096u)
#define CL_B2 (HARNESS_MEM - 8 * 4096u)
static void compare_copy_list(void) {
    u32 src1[64], src2[64], n = 1 + (u32)(harness_rand() % 64), max1 = 0, min1 = ~0u;
    int apart = (int)(harness_rand() & 1); /* sources away from the destination */
    for (u32 i = 0; i < CL_REGION; i += 8) {
        u64 w = harness_rand();
        memcpy(at(CL_B1 + i), &w, 8), memcpy(at(CL_B2 + i), &w, 8);
    }
    u32 dst = (u32)(harness_rand() % (CL_REGION - 40u * n + 1));
    for (u32 j = 0; j < n; j++) {
        u32 off = (u32)(harness_rand() % (CL_REGION - 40 + 1));
        if (apart && off + 40 > dst && off < dst + 40u * n) off = dst + 40u * n <= CL_REGION - 40 ? dst + 40u * n : 0;
        src1[j] = CL_B1 + off, src2[j] = CL_B2 + off;
        if (src1[j] > max1) max1 = src1[j];
        if (src1[j] < min1) min1 = src1[j];
    }
    zp_ff_copy_list(&inst, CL_B1 + dst, src1, n, min1, max1);
    for (u32 j = 0; j < n; j++) w2c_Fr_copy__wasm(&inst, CL_B2 + dst + 40u * j, src2[j]);
    checks++;
    if (memcmp(at(CL_B1), at(CL_B2), CL_REGION) != 0 && fails++ < 5) {
        fprintf(stderr, "fastfr differs from the wasm: zp_ff_copy_list (n %u, dst %u)\n", n, dst);
    }
}

#ifdef ZP_FF_HAVE_INT_DIV
/* Fr_int_div against the wasm's: x and y (mostly below 2^32, sometimes
 * wider), c and r apart, the defaults (0: its scratch) or aliased; both
 * start from the same memory, and the low 1 KiB (its scratch) and the
 * operands' region must end the same. y = 0 traps in both. */
static u8 low_pre[1024], low_wasm[1024], ops_pre[160], ops_wasm[160];
static void compare_int_div(void) {
    u32 base = AR1, x = base, y = base + 32, c = base + 64, r = base + 96;
    u64 xv[4] = {0, 0, 0, 0}, yv[4] = {0, 0, 0, 0};
    switch (harness_rand() % 4) {
    case 0: xv[0] = harness_rand() % 64, yv[0] = 1 + harness_rand() % 40; break;
    case 1: xv[0] = harness_rand() & 0xffffffffu, yv[0] = 1 + (harness_rand() % 0xffffffffu); break;
    case 2:
        xv[0] = harness_rand() & 0xffffffffu, yv[0] = (harness_rand() % 3 == 0) ? 0xffffffffu : 1 + harness_rand() % 7;
        break;
    default:
        value(xv, 2 + (int)(harness_rand() % 6)), value(yv, 2 + (int)(harness_rand() % 6));
        if (harness_rand() & 1) memset(yv + 1, 0, 24);
        if (yv[0] == 0 && yv[1] == 0 && yv[2] == 0 && yv[3] == 0) yv[0] = 3;
    }
    switch (harness_rand() % 6) {
    case 0: c = 0; break;
    case 1: r = 0; break;
    case 2: c = 0, r = 0; break;
    case 3: r = x; break;
    case 4: r = y; break;
    default: break;
    }
    for (int i = 0; i < 160; i++) at(base)[i] = (u8)harness_rand();
    memcpy(at(x), xv, 32), memcpy(at(y), yv, 32);
    memcpy(low_pre, at(0), sizeof low_pre), memcpy(ops_pre, at(base), sizeof ops_pre);
    /* r = y with x = 0 divides by 0 (x's copy is the divisor): both trap */
    jmp_buf saved;
    memcpy(saved, harness_trap, sizeof saved);
    volatile int trap1 = 0, trap2 = 0;
    if (setjmp(harness_trap) == 0) w2c_Fr_int_div__wasm(&inst, x, y, c, r);
    else trap1 = 1;
    memcpy(low_wasm, at(0), sizeof low_wasm), memcpy(ops_wasm, at(base), sizeof ops_wasm);
    memcpy(at(0), low_pre, sizeof low_pre), memcpy(at(base), ops_pre, sizeof ops_pre);
    if (setjmp(harness_trap) == 0) w2c_Fr_int_div(&inst, x, y, c, r);
    else trap2 = 1;
    memcpy(harness_trap, saved, sizeof saved);
    checks++;
    if (trap1 != trap2 && fails++ < 5) fprintf(stderr, "fastfr: Fr_int_div trapped %d, the wasm's %d\n", trap2, trap1);
    if (!trap1 && (memcmp(low_wasm, at(0), sizeof low_wasm) != 0 || memcmp(ops_wasm, at(base), sizeof ops_wasm) != 0) &&
        fails++ < 5) {
        fprintf(stderr, "fastfr differs from the wasm: Fr_int_div (x %llu, y %llu, c %u, r %u)\n",
                (unsigned long long)xv[0], (unsigned long long)yv[0], c, r);
    }
    memcpy(at(0), low_pre, sizeof low_pre);
}

static void int_div_by_zero(void) {
    u64 xv[4] = {5, 0, 0, 0}, zero[4] = {0, 0, 0, 0};
    memcpy(at(AR1), xv, 32), memcpy(at(AR1 + 32), zero, 32);
    memcpy(low_pre, at(0), sizeof low_pre);
    volatile int trapped = 0;
    if (setjmp(harness_trap) == 0) {
        w2c_Fr_int_div(&inst, AR1, AR1 + 32, 0, 0);
    } else {
        trapped = 1;
    }
    memcpy(at(0), low_pre, sizeof low_pre);
    checks++;
    if (!trapped) fails++, fprintf(stderr, "fastfr: Fr_int_div by 0 did not trap\n");
}
#endif

#ifdef ZP_FF_HAVE_INVERSE_MOD
/* Fr_int_inverseMod against the wasm's: x of every kind (0, 1, p - 1, p,
 * p + 1, 2^256 - 1, random below p and any), m the modulus (sometimes
 * another odd number: the wasm's path), r apart from x or the same place;
 * the bytes at r, x and m must end the same. (Fermat's path leaves the
 * wasm's private scratch words unwritten: they are not compared.) */
static u8 inv_pre[160], inv_wasm[160];
static void compare_inverse_mod(int kind) {
    u32 x = AR1, m = AR1 + 64, r = harness_rand() & 1 ? x : AR1 + 128;
    u64 xv[4], mv[4];
    value(xv, kind);
    memcpy(mv, p4, 32);
    if (harness_rand() % 16 == 0) mv[0] = harness_rand() | 1, mv[1] = harness_rand() % 7;
    memcpy(at(x), xv, 32), memcpy(at(m), mv, 32);
    if (r != x) memset(at(r), 0xa5, 32);
    memcpy(inv_pre, at(AR1), sizeof inv_pre);
    w2c_Fr_int_inverseMod__wasm(&inst, x, m, r);
    memcpy(inv_wasm, at(AR1), sizeof inv_wasm);
    memcpy(at(AR1), inv_pre, sizeof inv_pre);
    w2c_Fr_int_inverseMod(&inst, x, m, r);
    checks++;
    if (memcmp(inv_wasm, at(AR1), sizeof inv_wasm) != 0 && fails++ < 5) {
        fprintf(stderr, "fastfr differs from the wasm: Fr_int_inverseMod (kind %d, r %s x)\n  x ", kind,
                r == x ? "=" : "!=");
        for (int i = 31; i >= 0; i--) fprintf(stderr, "%02x", ((u8 *)xv)[i]);
        fprintf(stderr, "\n");
    }
}
#endif

static void copy_list_past_the_end(void) {
    /* 10 elements from 3 before the end: 7 copied, then a trap */
    static u32 src[10];
    for (int j = 0; j < 10; j++) src[j] = AX;
    u32 dst = HARNESS_MEM - 7 * 40 - 8;
    memset(at(dst), 0, 7 * 40 + 8);
    volatile int trapped = 0;
    if (setjmp(harness_trap) == 0) {
        zp_ff_copy_list(&inst, dst, src, 10, AX, AX);
    } else {
        trapped = 1;
    }
    checks++;
    int copied = 1;
    for (int j = 0; j < 7; j++) copied &= memcmp(at(dst + 40u * (u32)j), at(AX), 40) == 0;
    if (!trapped || !copied)
        fails++, fprintf(stderr, "fastfr: zp_ff_copy_list past the end: trapped %d, copied %d\n", trapped, copied);
}

int main(int argc, char **argv) {
    harness_state = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
    int rounds = argc > 2 ? atoi(argv[2]) : 20000;
    if (setjmp(harness_trap) != 0) {
        fprintf(stderr, "fastfr harness: unexpected trap\n");
        return 1;
    }
    init_memories(&inst);
    p4[0] = ZP_FF_P0, p4[1] = ZP_FF_P1, p4[2] = ZP_FF_P2, p4[3] = ZP_FF_P3;
    for (int kx = 0; kx < 8; kx++) {
        for (int ky = 0; ky < 8; ky++) {
            u64 x[4], y[4];
            value(x, kx), value(y, ky);
            memcpy(at(AX), x, 32), memcpy(at(AY), y, 32);
            memset(at(AX) + 32, 0, 8);
            compare_all();
        }
    }
    for (int i = 0; i < rounds; i++) {
        u64 x[4], y[4];
        value(x, 6 + (int)(harness_rand() & 1)), value(y, 6 + (int)(harness_rand() & 1));
        memcpy(at(AX), x, 32), memcpy(at(AY), y, 32);
        u64 w = harness_rand();
        memcpy(at(AX) + 32, &w, 8);
        compare_all();
    }
    for (int i = 0; i < rounds / 10 + 100; i++) compare_copy_list();
    for (int i = 0; i < rounds; i++) compare_types();
#ifdef ZP_FF_HAVE_INT_DIV
    for (int i = 0; i < rounds; i++) compare_int_div();
    int_div_by_zero();
#endif
#ifdef ZP_FF_HAVE_INVERSE_MOD
    for (int k = 0; k < 8; k++) compare_inverse_mod(k);
    for (int i = 0; i < rounds / 10; i++) compare_inverse_mod(6 + (int)(harness_rand() & 1));
#endif
    int have = 0;
#if defined(ZP_FF_HAVE_IS_TRUE) && defined(ZP_FF_HAVE_TO_INT) && defined(ZP_FF_HAVE_EQR) && defined(ZP_FF_HAVE_GTR) && \
    defined(ZP_FF_HAVE_LT) && defined(ZP_FF_HAVE_ADD) && defined(ZP_FF_HAVE_SUB) && defined(ZP_FF_HAVE_MUL) &&         \
    defined(ZP_FF_HAVE_TO_MONT) && defined(ZP_FF_HALF_ADDR) && defined(ZP_FF_HAVE_INT_DIV) &&                          \
    defined(ZP_FF_HAVE_INVERSE_MOD)
    have = 1;
#endif
    checks++;
    if (!have) fails++, fprintf(stderr, "fastfr: a type-level function was not replaced\n");
    copy_list_past_the_end();
    /* an element that runs past the end of memory traps, as the wasm's load does */
    volatile int trapped = 0;
    if (setjmp(harness_trap) == 0) {
        w2c_Fr_F1m_mul(&inst, HARNESS_MEM - 16, AY, AR2);
    } else {
        trapped = 1;
    }
    checks++;
    if (!trapped) fails++, fprintf(stderr, "fastfr: no trap past the end of memory\n");
    trapped = 0;
    if (setjmp(harness_trap) == 0) {
        w2c_Fr_copy(&inst, AR2, HARNESS_MEM - 39);
    } else {
        trapped = 1;
    }
    checks++;
    if (!trapped) fails++, fprintf(stderr, "fastfr: Fr_copy did not trap past the end of memory\n");
    if (fails != 0) {
        fprintf(stderr, "fastfr: %d of %d comparisons differ\n", fails, checks);
        return 1;
    }
    printf("fastfr ok %d\n", checks);
    return 0;
}
