/* Batch-affine bucket accumulation for one (window, point range) tile,
 * included by msm_impl.h inside its template (M_, MA, MX, FT, K_ defined).
 *
 * An affine addition needs one inversion; Montgomery's trick shares it
 * among a batch of independent additions, so each costs 6 multiplications
 * (3 for the trick, slope, slope², y) against 10 for XYZZ + affine.
 * Points stream in order; a point whose bucket is empty is stored, one
 * whose bucket already has an addition pending in the batch (rare: the
 * batch is small against the bucket count) waits in a short queue for the
 * next flush, or, when that is full, goes to the bucket's XYZZ side sum,
 * and the rest join the batch (as gnark-crypto does). Equal x
 * in a pair means a doubling (slope 3x²/2y, in the same batch) or a
 * cancellation.
 *
 * Scalars equal to 1, common in circom witnesses, would all hit bucket 1 of
 * window 0 and conflict with each other; they are set aside in that window
 * and summed by a tree of batched affine additions (neighbours paired round
 * by round), as supraseal's split MSM does. */

#ifndef ZP_MSM_AFFINE_ONCE
#define ZP_MSM_AFFINE_ONCE
#define MSM_TREE_CAP 4096 /* affine points in the tree buffer */
#define MSM_BATCH 2048    /* additions sharing one inversion, at most */
#define MSM_DEFER 128     /* points waiting for their bucket's pending addition */
#define MSM_PREFETCH 48   /* points ahead that the bucket pass prefetches */
#define MSM_BLOCK 64      /* points whose digits the bucket pass takes at once */
enum { MSM_ADD, MSM_DBL, MSM_COPY_P, MSM_COPY_Q, MSM_INF };
enum { MSM_PENDING = 1, MSM_FULL = 2, MSM_SIDE = 4, MSM_WAITING = 8 }; /* bucket flags */
/* Carves count elements of type for ws->field at p (a uintptr_t). */
#define MSM_CARVE(field, type, count) \
    ws->field = (type *)p;            \
    p += (count) * sizeof(type)
#endif

typedef zp_msm_pair M_(pair); /* msm_simd.h */

typedef struct {
    uint32_t entry; /* point index | sign bit */
    uint32_t bucket;
} M_(waiting);

typedef struct {
    MA *bucket;                                    /* nb */
    MX *side;                                      /* nb */
    uint8_t *flags;                                /* nb */
    uint32_t *ones;                                /* chunk_len */
    MA *tree;                                      /* MSM_TREE_CAP */
    M_(pair) *batch;                               /* batch_max */
    FT *den, *pre;                                 /* denominators; batch_inv_var's scratch */
    uint8_t *kind;                                 /* batch_max */
    M_(waiting) *defer, *retry;                    /* MSM_DEFER each */
    size_t n_batch, batch_max, batch_cap, n_defer; /* pending; room; the streaming path's flush target */
    /* the pairs' operands, copied out by classify (the scalar path; the
     * lanes read the points and use px, py for their doublings); and the
     * lanes' work (msm_simd.h), laid out whether or not the CPU has IFMA,
     * so that the size does not depend on the machine */
    FT *num, *px, *py, *qx; /* batch_max + ZP_MSM_SIMD_ALIGN each */
    uint64_t **dst;         /* batch_max + ZP_MSM_SIMD_ALIGN */
    uint32_t *dbl;          /* batch_max: the pairs the lanes left to double */
    void *lanes;            /* ZP_MSM_SIMD_WORK_BYTES(batch_max + ZP_MSM_SIMD_ALIGN), 64-byte aligned */
    int simd;
    zp_ifma_field fld;
    /* the sorted path's (msm_sorted_impl.h) */
    MA *node, *value, *run; /* tree nodes; each bucket's sum; the reduction's segments */
    size_t node_cap;        /* the nodes: the slots' trees are summed in batches that fit */
    uint32_t *entry, *start, *count, *active;
} M_(affine_ws);

/* Lays out, from p (64-byte aligned, or 0 to measure), what a flush of up
 * to cap pairs needs (the pairs, their operands, the lanes' work) and
 * returns the end. The lanes' work shares its memory with the scalar
 * path's den, pre, num and qx: the lanes never use those, and the
 * doublings they leave run the scalar sums after they are done with
 * their work. init: set the lanes' field up (a real layout, not a
 * measurement). */
static uintptr_t M_(batch_layout)(M_(affine_ws) *ws, uintptr_t p, size_t cap, int simd, int init) {
    p = (p + 63) & ~(uintptr_t)63;
    uintptr_t shared = p + ZP_MSM_SIMD_WORK_BYTES(cap + ZP_MSM_SIMD_ALIGN);
    ws->lanes = (void *)p;
    MSM_CARVE(den, FT, cap + ZP_MSM_SIMD_ALIGN);
    MSM_CARVE(pre, FT, cap);
    MSM_CARVE(num, FT, cap + ZP_MSM_SIMD_ALIGN);
    MSM_CARVE(qx, FT, cap + ZP_MSM_SIMD_ALIGN);
    if (p < shared) p = shared;
    /* what every flush touches first, px and py (the lanes' doublings)
     * last: then a G1 and a G2 MSM that share a worker's scratch touch
     * the same pages for these (a fresh page costs this VM 10-35 µs) */
    MSM_CARVE(dst, uint64_t *, cap + ZP_MSM_SIMD_ALIGN);
    MSM_CARVE(dbl, uint32_t, cap);
    ws->simd = simd; /* M_(tile_lanes)'s choice */
    if (ws->simd && init) zp_ifma_field_init(&ws->fld, ZP_CAT(ZP_M_IFMA_BASE, _modulus).v, ZP_M_IFMA_NW);
    MSM_CARVE(batch, M_(pair), cap);
    MSM_CARVE(kind, uint8_t, cap);
    p = (p + 63) & ~(uintptr_t)63;
    MSM_CARVE(px, FT, cap + ZP_MSM_SIMD_ALIGN);
    MSM_CARVE(py, FT, cap + ZP_MSM_SIMD_ALIGN);
    ws->n_batch = 0;
    ws->batch_max = cap;
    return (p + 63) & ~(uintptr_t)63;
}

/* Lays the streaming path's workspace out from base and returns its size;
 * with base 0 it only measures. */
static size_t M_(affine_ws_layout)(M_(affine_ws) *ws, uintptr_t base, size_t chunk_len, unsigned c, int simd) {
    size_t nb = (size_t)1 << (c - 1);
    uintptr_t p = base;
    p = M_(batch_layout)(ws, p, MSM_BATCH, simd, base != 0);
    MSM_CARVE(bucket, MA, nb);
    MSM_CARVE(side, MX, nb);
    MSM_CARVE(tree, MA, MSM_TREE_CAP);
    MSM_CARVE(defer, M_(waiting), MSM_DEFER);
    MSM_CARVE(retry, M_(waiting), MSM_DEFER);
    MSM_CARVE(ones, uint32_t, chunk_len);
    MSM_CARVE(flags, uint8_t, nb);
    ws->n_defer = 0;
    /* conflicts are likely when the batch is a sizeable part of the buckets */
    ws->batch_cap = nb / 2 < MSM_BATCH ? (nb / 2 > 2 * MSM_DEFER ? nb / 2 : 2 * MSM_DEFER) : MSM_BATCH;
    return (size_t)(p - base);
}

static size_t M_(affine_ws_size)(size_t chunk_len, unsigned c) {
    M_(affine_ws) ws;
    return M_(affine_ws_layout)(&ws, 0, chunk_len, c, 0);
}

/* The input points may lie at any address (a key's sections are used in
 * place in the file, where snarkjs's 12-byte section headers leave every
 * other one 4 bytes off 8): they are read by memcpy, never through a
 * member access. */
ZP_INLINE void M_(load)(MA *r, const MA *p, int neg) {
    memcpy(r, p, sizeof *r);
    if (neg) {
        FT y = r->y;
        K_(neg)(&r->y, &y);
    }
}

ZP_INLINE int M_(is_inf_at)(const MA *p) {
    MA t;
    memcpy(&t, p, sizeof t);
    return M_(is_inf)(&t);
}

/* A doubling's slope 3x²/2y as num and den. */
ZP_INLINE void M_(dbl_slope)(FT *num, FT *den, const FT *x, const FT *y) {
    FT t;
    K_(dbl)(den, y);
    K_(sqr)(&t, x);
    K_(dbl)(num, &t);
    K_(add)(num, num, &t);
}

/* Classifies the pending pairs and copies out what their results need:
 * for a sum (add or double) the slope's numerator and denominator and the
 * coordinates x1, y1, x2 (each point negated as asked), for a copy the
 * point; the denominator is 1 where there is no sum. Reading every input
 * before any result is written keeps the tree's in-place rounds right
 * (pair j reads slots 2j and 2j+1 and writes slot j). */
static void M_(classify)(M_(affine_ws) *ws) {
    for (size_t i = 0; i < ws->n_batch; i++) {
        const M_(pair) *e = &ws->batch[i];
        uint8_t k;
        MA p, q;
        M_(load)(&p, e->p, e->neg_p);
        if (e->q != NULL) M_(load)(&q, e->q, e->neg_q);
        if (e->q == NULL || M_(is_inf)(&q)) {
            k = MSM_COPY_P;
        } else if (M_(is_inf)(&p)) {
            k = MSM_COPY_Q;
            p = q;
        } else {
            if (!K_(eq_var)(&p.x, &q.x)) {
                k = MSM_ADD;
                K_(sub)(&ws->den[i], &q.x, &p.x);
                K_(sub)(&ws->num[i], &q.y, &p.y);
            } else if (K_(eq_var)(&p.y, &q.y) && !K_(is_zero)(&p.y)) {
                k = MSM_DBL;
                M_(dbl_slope)(&ws->num[i], &ws->den[i], &p.x, &p.y);
            } else {
                k = MSM_INF; /* opposite points */
            }
        }
        ws->kind[i] = k;
        if (k == MSM_ADD || k == MSM_DBL) {
            ws->px[i] = p.x;
            ws->py[i] = p.y;
            ws->qx[i] = q.x;
            ws->dst[i] = (uint64_t *)e->dst; /* x first */
        } else {
            if (k != MSM_INF) {
                ws->px[i] = p.x;
                ws->py[i] = p.y;
            }
            K_(set_one)(&ws->den[i]);
            ws->dst[i] = NULL;
        }
    }
}

/* The first m sums, one inversion for all: λ = num/den, x3 = λ² - x1 -
 * x2, y3 = λ(x1 - x3) - y1, into dst (none where NULL). */
static void M_(sums)(M_(affine_ws) *ws, size_t m) {
    K_(batch_inv_var)(ws->den, ws->den, m, ws->pre);
    for (size_t i = 0; i < m; i++) {
        if (ws->dst[i] == NULL) continue;
        MA *r = (MA *)ws->dst[i];
        FT lambda, t;
        K_(mul)(&lambda, &ws->num[i], &ws->den[i]);
        K_(sqr)(&t, &lambda);
        K_(sub)(&t, &t, &ws->px[i]);
        K_(sub)(&r->x, &t, &ws->qx[i]);
        K_(sub)(&t, &ws->px[i], &r->x);
        K_(mul)(&t, &lambda, &t);
        K_(sub)(&r->y, &t, &ws->py[i]);
    }
}

/* The doublings the lanes left (equal points, rare but for degenerate
 * inputs): 2P for P = (px[j], py[j]) into pair dbl[j]'s dst, as the
 * scalar path's sums with x1 = x2 and the doubling's slope. */
static void M_(doublings)(M_(affine_ws) *ws, size_t m) {
    for (size_t j = 0; j < m; j++) {
        M_(dbl_slope)(&ws->num[j], &ws->den[j], &ws->px[j], &ws->py[j]);
        ws->qx[j] = ws->px[j];
        ws->dst[j] = (uint64_t *)ws->batch[ws->dbl[j]].dst;
    }
    M_(sums)(ws, m);
}

/* The pending pairs on eight lanes (msm_simd.h), which read the points
 * themselves; the product of their denominators inverted here. */
static void M_(sums_lanes)(M_(affine_ws) *ws) {
    if (ws->n_batch == 0) return;
    zp_msm_simd_batch b = {&ws->fld, ws->n_batch,        ws->batch,          ws->lanes,
                           ws->dbl,  (uint64_t *)ws->px, (uint64_t *)ws->py, 0};
    FT prod;
    _Static_assert(sizeof(FT) == 8 * ZP_M_IFMA, "a coordinate is ZP_M_IFMA words");
#if ZP_M_IFMA == 4 || ZP_M_IFMA == 8
    if (ws->simd == ZP_MSM_LANES_FMA) {
        ZP_CAT(ZP_CAT(zp_msm_fma, ZP_M_IFMA), _prefix)(&b, (uint64_t *)&prod);
        K_(inv_var)(&prod, &prod);
        ZP_CAT(ZP_CAT(zp_msm_fma, ZP_M_IFMA), _finish)(&b, (const uint64_t *)&prod);
        if (b.n_dbl > 0) M_(doublings)(ws, b.n_dbl);
        return;
    }
#endif
    ZP_CAT(ZP_CAT(zp_msm_simd, ZP_M_IFMA), _prefix)(&b, (uint64_t *)&prod);
    K_(inv_var)(&prod, &prod);
    ZP_CAT(ZP_CAT(zp_msm_simd, ZP_M_IFMA), _finish)(&b, (const uint64_t *)&prod);
    if (b.n_dbl > 0) M_(doublings)(ws, b.n_dbl);
}

/* Runs the pending pairs: on the lanes, or classify, the sums, then the
 * copies and cancellations. */
static void M_(flush)(M_(affine_ws) *ws) {
    if (ws->simd) {
        M_(sums_lanes)(ws);
        ws->n_batch = 0;
        return;
    }
    M_(classify)(ws);
    M_(sums)(ws, ws->n_batch);
    for (size_t i = 0; i < ws->n_batch; i++) {
        MA *r = ws->batch[i].dst;
        if (ws->kind[i] == MSM_INF) {
            M_(set_inf)(r);
        } else if (ws->dst[i] == NULL) {
            r->x = ws->px[i];
            r->y = ws->py[i];
        }
    }
    ws->n_batch = 0;
}

ZP_INLINE void M_(push)(M_(affine_ws) *ws, const MA *p, int neg_p, const MA *q, int neg_q, MA *dst, uint32_t bucket) {
    M_(pair) *e = &ws->batch[ws->n_batch++];
    e->p = p;
    e->q = q;
    e->neg_p = (uint8_t)neg_p;
    e->neg_q = (uint8_t)neg_q;
    e->dst = dst;
    e->bucket = bucket;
}

/* push for a pair that no bucket flag follows (trees, reductions): a full
 * batch is flushed first. Safe inside a round that works in place (pair j
 * reads slots 2j, 2j+1 and writes slot j): a flushed pair j' < j has
 * written only slots below those. */
ZP_INLINE void M_(push_flush)(M_(affine_ws) *ws, const MA *p, int neg_p, const MA *q, int neg_q, MA *dst) {
    if (ws->n_batch == ws->batch_max) M_(flush)(ws);
    M_(push)(ws, p, neg_p, q, neg_q, dst, 0);
}

/* Sum of the points listed in ws->ones (all in [0, 2^31)), by a tree of
 * batched affine additions, in groups of 2·MSM_TREE_CAP; added into acc. */
static void M_(sum_ones)(M_(affine_ws) *ws, MX *acc, const MA *points, size_t count) {
    for (size_t g = 0; g < count; g += 2 * MSM_TREE_CAP) {
        size_t len = count - g < 2 * MSM_TREE_CAP ? count - g : 2 * MSM_TREE_CAP;
        const uint32_t *l = ws->ones + g;
        for (size_t j = 0; j < len; j += 2) {
            const MA *q = j + 1 < len ? &points[l[j + 1]] : NULL;
            M_(push_flush)(ws, &points[l[j]], 0, q, 0, &ws->tree[j / 2]);
        }
        M_(flush)(ws);
        for (len = (len + 1) / 2; len > 1; len = (len + 1) / 2) {
            for (size_t j = 0; j < len; j += 2) {
                const MA *q = j + 1 < len ? &ws->tree[j + 1] : NULL;
                M_(push_flush)(ws, &ws->tree[j], 0, q, 0, &ws->tree[j / 2]);
            }
            M_(flush)(ws);
        }
        M_(xyzz_add_affine_var)(acc, acc, &ws->tree[0]);
    }
}

ZP_INLINE void M_(stream_point)(M_(affine_ws) *ws, const MA *points, uint32_t entry, uint32_t b);

/* The pending additions are done: their buckets take new ones again, and
 * the points that waited for them go in (fewer than a batch, so this does
 * not flush again). */
static void M_(flush_stream)(M_(affine_ws) *ws, const MA *points) {
    for (size_t i = 0; i < ws->n_batch; i++) ws->flags[ws->batch[i].bucket] &= (uint8_t)~MSM_PENDING;
    M_(flush)(ws);
    size_t n = ws->n_defer;
    M_(waiting) *t = ws->retry;
    ws->retry = ws->defer;
    ws->defer = t;
    ws->n_defer = 0;
    for (size_t i = 0; i < n; i++) ws->flags[ws->retry[i].bucket] &= (uint8_t)~MSM_WAITING;
    for (size_t i = 0; i < n; i++) {
        __builtin_prefetch(&ws->bucket[ws->retry[i].bucket], 1, 3); /* for the lanes, as affine_tile's */
        M_(stream_point)(ws, points, ws->retry[i].entry, ws->retry[i].bucket);
    }
}

/* One point into bucket b: stored if the bucket is empty, added to the
 * batch if it has no addition pending, else deferred to the next batch.
 * A bucket has one point waiting at most: further ones (a digit repeated
 * by many scalars, as circom's constants repeat in a witness), and any
 * when the queue is full, go to the bucket's XYZZ side sum, so the queue
 * fills only with distinct buckets and batches stay large. */
ZP_INLINE void M_(stream_point)(M_(affine_ws) *ws, const MA *points, uint32_t entry, uint32_t b) {
    const MA *pt = &points[entry & 0x7fffffffu];
    int neg = (int)(entry >> 31);
    uint8_t f = ws->flags[b];
    if (!(f & MSM_FULL)) {
        M_(load)(&ws->bucket[b], pt, neg);
        ws->flags[b] = f | MSM_FULL;
    } else if (f & MSM_PENDING) {
        if (!(f & MSM_WAITING) && ws->n_defer < MSM_DEFER) {
            ws->defer[ws->n_defer].entry = entry;
            ws->defer[ws->n_defer++].bucket = b;
            ws->flags[b] = f | MSM_WAITING;
            return;
        }
        if (!(f & MSM_SIDE)) {
            M_(xyzz_set_inf)(&ws->side[b]);
            ws->flags[b] = f | MSM_SIDE;
        }
        MA p;
        M_(load)(&p, pt, neg);
        M_(xyzz_add_affine_var)(&ws->side[b], &ws->side[b], &p);
    } else {
        M_(push)(ws, &ws->bucket[b], 0, pt, neg, &ws->bucket[b], b);
        ws->flags[b] = f | MSM_PENDING;
    }
}

/* Folds the XYZZ side sums into their buckets: each converted to affine
 * (x = X/ZZ, y = Y/ZZZ, the inverses shared by a batch; an infinite one
 * gives 0, the affine infinity) and added by batched affine pairs. Every
 * bucket holds a point (infinity where empty) on entry. */
static void M_(fold_sides)(M_(affine_ws) *ws, size_t nb) {
    size_t m = 0;
    uint32_t which[MSM_BATCH / 2];
    for (size_t b = 0; b <= nb; b++) {
        if (b < nb && (ws->flags[b] & MSM_SIDE)) which[m++] = (uint32_t)b;
        if (m == 0 || (m < MSM_BATCH / 2 && b < nb)) continue;
        for (size_t i = 0; i < m; i++) {
            ws->den[2 * i] = ws->side[which[i]].zz;
            ws->den[2 * i + 1] = ws->side[which[i]].zzz;
        }
        K_(batch_inv_var)(ws->den, ws->den, 2 * m, ws->pre);
        for (size_t i = 0; i < m; i++) {
            const MX *sd = &ws->side[which[i]];
            K_(mul)(&ws->tree[i].x, &sd->x, &ws->den[2 * i]);
            K_(mul)(&ws->tree[i].y, &sd->y, &ws->den[2 * i + 1]);
        }
        for (size_t i = 0; i < m; i++)
            M_(push)(ws, &ws->bucket[which[i]], 0, &ws->tree[i], 0, &ws->bucket[which[i]], 0);
        M_(flush)(ws);
        m = 0;
    }
}

/* Makes bucket[b] (b < nb_used) the whole of what went to it: every
 * bucket a point (infinity where empty), the side sums folded in, and the
 * replicas (nb / nb_used of each bucket, at b + k·nb_used) added up by
 * halving rounds of batched pairs. */
static void M_(gather)(M_(affine_ws) *ws, size_t nb, size_t nb_used) {
    for (size_t b = 0; b < nb; b++) {
        if (!(ws->flags[b] & MSM_FULL)) M_(set_inf)(&ws->bucket[b]);
    }
    M_(fold_sides)(ws, nb);
    for (size_t half = nb / 2; half >= nb_used; half /= 2) {
        for (size_t b = 0; b < half; b++) {
            M_(push_flush)(ws, &ws->bucket[b], 0, &ws->bucket[b + half], 0, &ws->bucket[b]);
        }
        M_(flush)(ws);
    }
}

/* results[g] = sum_b (b+1)·buckets[g·nb + b] for each of nw windows of nb
 * buckets, each a point. The usual running sums from the top are one
 * chain of dependent additions, 2 per bucket, in XYZZ for want of
 * independent ones to batch. Cut into S segments of L buckets, the
 * segments' chains are independent: step by step, each segment's total
 * takes its running sum and its running sum takes its next bucket, all
 * windows' 2S pairs in batch-affine flushes (the lanes). With r_s, t_s
 * the running sum and total of segment s (local weights 1..L),
 *   sum_b (b+1)·B_b = sum_s t_s + L·sum_s s·r_s,
 * which takes 3S XYZZ additions and log2 L doublings per window. The
 * caller picks S (a power of 2 dividing nb) to balance the L + 1 flushes
 * against those, and gives 2·nw·S points of scratch in run. */
static void M_(reduce_segments)(M_(affine_ws) *ws, MJ *results, const MA *buckets, size_t nw, size_t nb, size_t segs,
                                MA *run) {
    size_t len = nb / segs, lanes = nw * segs;
    MA *tot = run + lanes;
    memset(run, 0, 2 * lanes * sizeof(MA));
    /* step k (bucket j = len-1-k of each segment): tot += run (before this
     * step's bucket), run += bucket; a last step adds the full run */
    for (size_t k = 0; k <= len; k++) {
        for (size_t q = 0; q < lanes; q++) {
            if (k > 0) M_(push_flush)(ws, &tot[q], 0, &run[q], 0, &tot[q]);
            if (k < len) M_(push_flush)(ws, &run[q], 0, &buckets[q * len + len - 1 - k], 0, &run[q]);
        }
        M_(flush)(ws);
    }
    for (size_t g = 0; g < nw; g++) {
        const MA *rg = run + g * segs, *tg = tot + g * segs;
        MX out, r, rs;
        M_(xyzz_set_inf)(&out);
        M_(xyzz_set_inf)(&r);
        M_(xyzz_set_inf)(&rs);
        for (size_t s = segs; s-- > 0;) {
            M_(xyzz_add_affine_var)(&out, &out, &tg[s]);
            if (s == 0) break;
            M_(xyzz_add_affine_var)(&r, &r, &rg[s]);
            M_(xyzz_add_var)(&rs, &rs, &r); /* rs = sum_s s·r_s */
        }
        for (size_t l = len; l > 1; l /= 2) M_(xyzz_dbl)(&rs, &rs);
        M_(xyzz_add_var)(&out, &out, &rs);
        M_(xyzz_to_j)(&results[g], &out);
    }
}

/* *result = sum_b (b+1)·bucket[b] over the tile's nb buckets: segmented
 * (S about sqrt(16·nb), the tile's one window alone in its flushes), or
 * for fewer than 8 segments the plain XYZZ chain. */
static void M_(reduce)(M_(affine_ws) *ws, MJ *result, size_t nb) {
    size_t segs = 1;
    while (segs * segs < 16 * nb && segs < MSM_BATCH / 2 && segs * 4 <= nb) segs *= 2;
    if (segs >= 8) {
        M_(reduce_segments)(ws, result, ws->bucket, 1, nb, segs, ws->tree);
        return;
    }
    MX running, out;
    M_(xyzz_set_inf)(&running);
    M_(xyzz_set_inf)(&out);
    for (size_t b = nb; b-- > 0;) {
        M_(xyzz_add_affine_var)(&running, &running, &ws->bucket[b]);
        M_(xyzz_add_var)(&out, &out, &running);
    }
    M_(xyzz_to_j)(result, &out);
}

/* result = sum over the tile's points of digit_w(k_i)·P_i; bits: the
 * largest scalar's.
 *
 * The top window is short: with 254-bit scalars and c = 13 its digits
 * have 8 bits, so all the points crowd into 128 of the 4096 buckets, and
 * a batch fills with points for buckets that already have an addition
 * pending. Where a window's digits reach only nb_used buckets, each bucket
 * has nb / nb_used replicas (point i goes to replica i mod that), which
 * spreads the points over all nb slots; gather adds the replicas up. */
static void M_(affine_tile)(M_(affine_ws) *ws, MJ *result, const MA *points, const uint64_t *scalars, size_t begin,
                            size_t end, unsigned w, unsigned c, unsigned bits) {
    size_t nb = (size_t)1 << (c - 1), n_ones = 0;
    /* window w's digits: |d| ≤ 2^(bits - wc) when the window's top bit is
     * above the scalars' */
    unsigned room = bits > w * c ? bits - w * c : 0;
    size_t nb_used = room < c - 1 ? (size_t)1 << room : nb;
    size_t replica_mask = nb / nb_used - 1;
    memset(ws->flags, 0, nb);
    /* in blocks: the digits first, with their buckets' flags and points
     * prefetched, then the points into the buckets (a flag's load
     * stalled the pass otherwise: the flags of c = 16 do not fit in L1) */
    uint32_t entry[MSM_BLOCK], bucket[MSM_BLOCK];
    for (size_t i0 = begin; i0 < end; i0 += MSM_BLOCK) {
        size_t i1 = end - i0 < MSM_BLOCK ? end : i0 + MSM_BLOCK, m = 0;
        for (size_t i = i0; i < i1; i++) {
            const uint64_t *k = scalars + 4 * i;
            /* the points and scalars stream through once per window; the
             * loads below stalled on them too */
            __builtin_prefetch(&points[i + MSM_PREFETCH]);
            __builtin_prefetch(k + 4 * MSM_PREFETCH);
            int64_t d = zp_msm_booth_digit(k, w, c);
            if (d == 0 || M_(is_inf_at)(&points[i])) continue;
            if (w == 0 && k[0] == 1 && (k[1] | k[2] | k[3]) == 0) {
                ws->ones[n_ones++] = (uint32_t)i;
                continue;
            }
            uint32_t b = (uint32_t)(d < 0 ? -d : d) - 1 + (uint32_t)(nb_used * (i & replica_mask));
            __builtin_prefetch(&ws->flags[b]);
            __builtin_prefetch(&ws->bucket[b], 1, 3);
            entry[m] = (uint32_t)i | (d < 0 ? 0x80000000u : 0);
            bucket[m++] = b;
        }
        for (size_t j = 0; j < m; j++) {
            M_(stream_point)(ws, points, entry[j], bucket[j]);
            /* a full queue (one point per bucket: as many pending pairs
             * at least) flushes too once the batch is worth an
             * inversion; until then further conflicts go to the side
             * sums */
            if (ws->n_batch >= ws->batch_cap - MSM_DEFER ||
                (ws->n_defer == MSM_DEFER && ws->n_batch >= ws->batch_cap / 4))
                M_(flush_stream)(ws, points);
        }
    }
    while (ws->n_batch > 0 || ws->n_defer > 0) M_(flush_stream)(ws, points);

    if (n_ones > 0) {
        if (!(ws->flags[0] & MSM_SIDE)) {
            M_(xyzz_set_inf)(&ws->side[0]);
            ws->flags[0] |= MSM_SIDE;
        }
        M_(sum_ones)(ws, &ws->side[0], points, n_ones);
    }
    M_(gather)(ws, nb, nb_used);
    M_(reduce)(ws, result, nb_used);
}
