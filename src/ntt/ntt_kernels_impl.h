/* The in-cache pieces of the NTT over one scalar field: butterflies and the
 * radix-4 transforms of one block. Included by ntt_impl.h with ZP_N set to
 * the field prefix; N_ and FT come from there.
 *
 * A block transform runs over M = 2^m elements x[i·stride + k], i < M, for
 * each k < width at once (width columns side by side share every twiddle;
 * a contiguous row is stride 1, width 1). Both take tw[j·ts] = W^j for
 * j < M, W a primitive M-th root; the inverse transforms are the same code
 * given the table of W^-1 (unscaled).
 *
 *   dif: natural order in, bit-reversed out (Gentleman-Sande, decimation in
 *        frequency).
 *   dit: bit-reversed in, natural out (Cooley-Tukey, decimation in time).
 *
 * Stages go in pairs as radix-4 butterflies, each the composition of two
 * radix-2 stages (so the result is exactly the radix-2 one). For a block of
 * 4q with w = W_4q, j < q, x0..x3 at j, j+q, j+2q, j+3q and W4 = W^(M/4):
 *   dif: a = x0 + x2, b = x0 - x2, c = x1 + x3, d = (x1 - x3)·W4
 *        x0 = a + c, x1 = (a - c)·w^2j, x2 = (b + d)·w^j, x3 = (b - d)·w^3j
 *   dit: t1 = x1·w^2j, t2 = x2·w^j, t3 = x3·w^3j, s = (t2 - t3)·W4
 *        x0 = (x0 + t1) + (t2 + t3), x2 = (x0 + t1) - (t2 + t3),
 *        x1 = (x0 - t1) + s,         x3 = (x0 - t1) - s
 * Four multiplications per four elements and two stages, as radix-2; the
 * gain is half the passes over the data. At j = 0 the twiddles are 1 and
 * only the W4 product is left. An odd m adds one radix-2 stage (the first
 * of dif, the last of dit). */

/* The field's add/sub (ADC/SBB chains through the carry intrinsics on
 * x86-64, see field/mont.h). */
ZP_INLINE void N_(fadd)(FT *r, const FT *a, const FT *b) { ZP_CAT(FT, _add)(r, a, b); }
ZP_INLINE void N_(fsub)(FT *r, const FT *a, const FT *b) { ZP_CAT(FT, _sub)(r, a, b); }
#define FMUL_ ZP_CAT(FT, _mul)

/* radix-4 butterflies, as in the header comment; w1..w3 = w^j, w^2j, w^3j */
ZP_INLINE void N_(dif4)(FT *x0, FT *x1, FT *x2, FT *x3, const FT *w1, const FT *w2, const FT *w3, const FT *w4) {
    FT a, b, c, d;
    N_(fadd)(&a, x0, x2);
    N_(fsub)(&b, x0, x2);
    N_(fadd)(&c, x1, x3);
    N_(fsub)(&d, x1, x3);
    FMUL_(&d, &d, w4);
    N_(fadd)(x0, &a, &c);
    N_(fsub)(x1, &a, &c);
    FMUL_(x1, x1, w2);
    N_(fadd)(x2, &b, &d);
    FMUL_(x2, x2, w1);
    N_(fsub)(x3, &b, &d);
    FMUL_(x3, x3, w3);
}
ZP_INLINE void N_(dif4_0)(FT *x0, FT *x1, FT *x2, FT *x3, const FT *w4) {
    FT a, b, c, d;
    N_(fadd)(&a, x0, x2);
    N_(fsub)(&b, x0, x2);
    N_(fadd)(&c, x1, x3);
    N_(fsub)(&d, x1, x3);
    FMUL_(&d, &d, w4);
    N_(fadd)(x0, &a, &c);
    N_(fsub)(x1, &a, &c);
    N_(fadd)(x2, &b, &d);
    N_(fsub)(x3, &b, &d);
}
ZP_INLINE void N_(dit4)(FT *x0, FT *x1, FT *x2, FT *x3, const FT *w1, const FT *w2, const FT *w3, const FT *w4) {
    FT t1, t2, t3, s0, s1, s2, s3;
    FMUL_(&t1, x1, w2);
    FMUL_(&t2, x2, w1);
    FMUL_(&t3, x3, w3);
    N_(fadd)(&s0, x0, &t1);
    N_(fsub)(&s1, x0, &t1);
    N_(fadd)(&s2, &t2, &t3);
    N_(fsub)(&s3, &t2, &t3);
    FMUL_(&s3, &s3, w4);
    N_(fadd)(x0, &s0, &s2);
    N_(fsub)(x2, &s0, &s2);
    N_(fadd)(x1, &s1, &s3);
    N_(fsub)(x3, &s1, &s3);
}
ZP_INLINE void N_(dit4_0)(FT *x0, FT *x1, FT *x2, FT *x3, const FT *w4) {
    FT s0, s1, s2, s3;
    N_(fadd)(&s0, x0, x1);
    N_(fsub)(&s1, x0, x1);
    N_(fadd)(&s2, x2, x3);
    N_(fsub)(&s3, x2, x3);
    FMUL_(&s3, &s3, w4);
    N_(fadd)(x0, &s0, &s2);
    N_(fsub)(x2, &s0, &s2);
    N_(fadd)(x1, &s1, &s3);
    N_(fsub)(x3, &s1, &s3);
}

/* radix-2: dif (u, v) -> (u + v, (u - v)·w), dit (u, v) -> (u + v·w, u - v·w) */
ZP_INLINE void N_(dif2)(FT *x0, FT *x1, const FT *w) {
    FT d;
    N_(fsub)(&d, x0, x1);
    N_(fadd)(x0, x0, x1);
    if (w != NULL) {
        FMUL_(x1, &d, w);
    } else {
        *x1 = d;
    }
}
ZP_INLINE void N_(dit2)(FT *x0, FT *x1, const FT *w) {
    FT t;
    if (w != NULL) {
        FMUL_(&t, x1, w);
    } else {
        t = *x1;
    }
    N_(fsub)(x1, x0, &t);
    N_(fadd)(x0, x0, &t);
}

/* The radix-2 stage of an odd-sized block: half h = M/2, twiddle W^j. */
static void N_(stage2)(FT *x, size_t h, size_t stride, size_t width, const FT *tw, size_t ts, int dit) {
    for (size_t j = 0; j < h; j++) {
        FT *p0 = x + j * stride, *p1 = p0 + h * stride;
        const FT *w = j == 0 ? NULL : &tw[j * ts];
        for (size_t k = 0; k < width; k++) {
            if (dit) {
                N_(dit2)(p0 + k, p1 + k, w);
            } else {
                N_(dif2)(p0 + k, p1 + k, w);
            }
        }
    }
}

/* One radix-4 stage over blocks of len = 4q: w = W_len = W^(M/len). */
static void N_(stage4)(FT *x, size_t M, size_t len, size_t stride, size_t width, const FT *tw, size_t ts, int dit) {
    size_t q = len / 4, s = (M / len) * ts;
    const FT *w4 = &tw[(M / 4) * ts];
    for (size_t blk = 0; blk < M; blk += len) {
        FT *base = x + blk * stride;
        for (size_t j = 0; j < q; j++) {
            FT *p0 = base + j * stride, *p1 = p0 + q * stride, *p2 = p1 + q * stride, *p3 = p2 + q * stride;
            if (j == 0) {
                for (size_t k = 0; k < width; k++) {
                    if (dit) {
                        N_(dit4_0)(p0 + k, p1 + k, p2 + k, p3 + k, w4);
                    } else {
                        N_(dif4_0)(p0 + k, p1 + k, p2 + k, p3 + k, w4);
                    }
                }
                continue;
            }
            const FT *w1 = &tw[j * s], *w2 = &tw[2 * j * s], *w3 = &tw[3 * j * s];
            for (size_t k = 0; k < width; k++) {
                if (dit) {
                    N_(dit4)(p0 + k, p1 + k, p2 + k, p3 + k, w1, w2, w3, w4);
                } else {
                    N_(dif4)(p0 + k, p1 + k, p2 + k, p3 + k, w1, w2, w3, w4);
                }
            }
        }
    }
}

/* natural in, bit-reversed out */
static void N_(dif)(FT *x, unsigned m, size_t stride, size_t width, const FT *tw, size_t ts) {
    size_t M = (size_t)1 << m, len = M;
    if (m & 1) {
        N_(stage2)(x, M / 2, stride, width, tw, ts, 0);
        len = M / 2;
    }
    for (; len >= 4; len /= 4) N_(stage4)(x, M, len, stride, width, tw, ts, 0);
}

/* bit-reversed in, natural out */
static void N_(dit)(FT *x, unsigned m, size_t stride, size_t width, const FT *tw, size_t ts) {
    size_t M = (size_t)1 << m, top = (m & 1) ? M / 2 : M;
    for (size_t len = 4; len <= top; len *= 4) N_(stage4)(x, M, len, stride, width, tw, ts, 1);
    if (m & 1) N_(stage2)(x, M / 2, stride, width, tw, ts, 1);
}

#undef FMUL_
