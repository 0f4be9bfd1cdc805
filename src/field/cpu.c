/* The field layer's one run-time choice: whether zp_mont_mul and
 * zp_mont_sqr take the MULX/ADCX/ADOX asm (mont_x86_64.h) or the portable
 * code. blst does the same with __blst_platform_cap: the CPU is asked once,
 * before main, and every call reads the answer from one global, because a
 * per-call CPUID or a once-init check would cost more than the branch.
 * (The IFMA lanes can decide lazily, in ifma.c: the kernels ask once
 * per call, not once per multiplication.) */
#include "field/mont.h"

#include <stdlib.h>
#include <string.h>

#if defined(ZP_FIELD_ADX) && defined(__x86_64__)
#include <cpuid.h>
#endif

static int zp_field_adx = 0; /* read only through zp_field_adx_on */

/* CPUID leaf 7, subleaf 0, EBX bit 8 is BMI2 (MULX), bit 19 is ADX (ADCX,
 * ADOX); both are plain integer instructions, so no OS support (XSAVE
 * state) is needed beyond the CPU's. */
static int cpu_has_adx(void) {
#if defined(ZP_FIELD_ADX) && defined(__x86_64__)
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    return ((ebx >> 8) & 1) && ((ebx >> 19) & 1);
#else
    return 0;
#endif
}

int zp_field_adx_on(void) { return zp_field_adx; }

int zp_field_adx_use(int mode) {
    if (mode >= 0) zp_field_adx = mode != 0 && cpu_has_adx();
    return zp_field_adx;
}

/* Before main and before any thread: ZKPIPE_ADX=0 keeps the portable path
 * (to test it, or to compare), anything else lets the CPU decide, except
 * ZKPIPE_ADX=force, which takes the asm without asking: valgrind runs
 * MULX/ADCX/ADOX but its CPUID hides ADX, so callgrind counts and
 * valgrind's checks would otherwise only see the portable code. (On a CPU
 * without them, force ends in SIGILL: it is for valgrind only.) */
__attribute__((constructor)) static void field_adx_init(void) {
    const char *env = getenv("ZKPIPE_ADX");
    if (env != NULL && strcmp(env, "force") == 0) {
        zp_field_adx = ZP_MONT_MUL_ADX;
        return;
    }
    zp_field_adx_use(!(env != NULL && strcmp(env, "0") == 0));
}

#if ZP_MONT_MUL_ADX
/* The portable fallbacks zp_mont_mul and zp_mont_sqr call when the asm is
 * off (mont.h says why out of line), unrolled for their limb count. The
 * 4-limb squaring is the multiplication, as in mont.h. */
void zp_mont_mul_4_portable(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p, uint64_t n0) {
    zp_mont_mul_portable(r, a, b, p, n0, 4);
}
void zp_mont_mul_6_portable(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p, uint64_t n0) {
    zp_mont_mul_portable(r, a, b, p, n0, 6);
}
void zp_mont_sqr_6_portable(uint64_t *r, const uint64_t *a, const uint64_t *p, uint64_t n0) {
    zp_mont_sqr_portable(r, a, p, n0, 6);
}
#endif
