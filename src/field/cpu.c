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

#if defined(__x86_64__)
#include <cpuid.h>
#endif

static int zp_field_adx = 0; /* read only through zp_field_adx_on */

/* The CPU's answers, asked once by the constructor below: two CPUID
 * leaves and XGETBV. Under a hypervisor each CPUID traps (about 4.6 µs on
 * this VM), so this replaces __builtin_cpu_supports, whose libgcc
 * constructor asks a dozen leaves in every process. */
static struct {
    /* CPUID 7.0 EBX bit 8 (BMI2: MULX) and bit 19 (ADX: ADCX, ADOX) */
    int adx;
    /* CPUID 7.0 EBX bit 16 (AVX512F) and bit 21 (AVX512IFMA), with the OS
     * saving the opmask and ZMM state (XCR0 bits 1, 2 and 5-7) */
    int ifma;
    /* CPUID 7.0 EBX bit 5 (AVX2) and 1 ECX bit 12 (FMA), with the OS
     * saving the YMM state (XCR0 bits 1 and 2) */
    int fma;
} cpu;

static void cpu_probe(void) {
#if defined(__x86_64__)
    unsigned int eax, ebx, ecx, edx, ebx7;
    if (!__get_cpuid_count(7, 0, &eax, &ebx7, &ecx, &edx)) return;
    cpu.adx = ((ebx7 >> 8) & 1) && ((ebx7 >> 19) & 1);
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !((ecx >> 27) & 1)) return; /* OSXSAVE */
    unsigned int xcr0_lo, xcr0_hi;
    __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
    cpu.fma = ((ebx7 >> 5) & 1) && ((ecx >> 12) & 1) && (xcr0_lo & 0x6) == 0x6;
    cpu.ifma = ((ebx7 >> 16) & 1) && ((ebx7 >> 21) & 1) && (xcr0_lo & 0xe6) == 0xe6;
#endif
}

/* BMI2 and ADX are plain integer instructions: no OS state needed. */
static int cpu_has_adx(void) {
#if defined(ZP_FIELD_ADX)
    return cpu.adx;
#else
    return 0;
#endif
}

int zp_cpu_has_ifma(void) { return cpu.ifma; }

int zp_cpu_has_fma(void) { return cpu.fma; }

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
    cpu_probe();
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
