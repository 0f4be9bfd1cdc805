/* Small MSMs, sorted: batch-affine bucket sums for a group of windows at
 * once, included by msm_impl.h after msm_affine_impl.h (M_, MA, MX, MJ,
 * FT, K_ defined; the pairs, flush and the workspace are that file's).
 *
 * The streaming path (msm_affine_impl.h) needs many more buckets than
 * pending additions, or points conflict with their bucket's pending
 * addition and fall back to XYZZ side sums; a 2^11-point MSM has a few
 * hundred buckets per window and spends most of its time there and in
 * batches too small to pay for their inversion.
 *
 * Here a tile is a group of windows over all the points. The points'
 * digits are counting-sorted by (window, bucket); then every bucket's
 * list is summed by a tree, all buckets of all the group's windows in the
 * same rounds: round one adds neighbours of each list into tree nodes,
 * each later round halves the lists in place, so every round is one large
 * batch of independent additions, and no addition ever waits for another.
 * Repeated digits (circom's ones and repeated constants) are long lists,
 * which cost rounds, not conflicts. The windows' running-sum reductions
 * run segmented (as reduce does) with all the group's segments in one
 * batch per step. */

/* The reduction's segments per window for nw windows of nb buckets: S
 * segments cost len + 1 = nb/S + 1 flushes (an inversion and the lanes'
 * set-up, ~2 µs) for the group and 3S XYZZ additions (~0.15 µs) per
 * window to combine; S ≈ 2·sqrt(nb/nw) balances them (at 2^11 points, 8
 * windows of 64 buckets: 4 segments, not 16). */
static size_t M_(sorted_segments)(size_t nw, size_t nb) {
    size_t segs = 1;
    while (2 * segs <= nb / 2 && 4 * segs * segs * nw <= 4 * nb) segs *= 2;
    return segs;
}

/* The sorted path's flushes hold at most n/4 pairs, but at least
 * MSM_SORTED_BATCH_MIN and at most MSM_BATCH. The batch's coordinate
 * arrays are a large part of the memory a small proof touches (six of
 * MSM_BATCH elements: 768 KiB per worker for BN254 G2), and a fresh page
 * costs about 2 µs at its first touch on this VM; a flush costs an
 * inversion and the lanes' set-up, a few µs, which n/4 pairs repay while
 * a 2^13-point G1 MSM ran about 10% slower with 512. At 2^11 a one-shot
 * proof takes 590-820 page faults instead of 920-990, and the library
 * loop 7.6 instead of 8.3 MiB of peak RSS, in the same time. */
#define MSM_SORTED_BATCH_MIN 512
/* G2 (coordinates in Fp2: ZP_M_IFMA is twice ZP_M_IFMA_NW) keeps the
 * minimum at every n: its pair costs about three G1 pairs, so 512 carry a
 * 1536-pair G1 flush's work, and its arrays are twice as wide. One-shot
 * peak RSS: 2^12 8.7 -> 8.3 MB, 2^14 18.4 -> 17.7 MB; time within noise
 * (-0.1 +- 0.3 ms at 2^12, -0.6 +- 0.7 ms at 2^14, interleaved spawns). */
#define MSM_SORTED_IS_G2 (ZP_M_IFMA == 2 * ZP_M_IFMA_NW)

/* The tree nodes of a tile: the slots' trees are summed in batches whose
 * round-one nodes fit this many bytes; a longer list, in pieces that do
 * (until then n/2 + 1 nodes were kept for the longest list, as many as
 * one point each). All the slots at once took group·n/2 nodes: 4.2 MB per
 * worker for a 2^13-point BN254 G2 MSM, most of a small proof's memory.
 * A batch that fits in L2 is also faster: against 1 MiB, 256 KiB gave
 * 2^13 proofs 5-15% faster in zkpipe-bench-prover, 2^11 within noise.
 * 128 KiB took the same time again (one-shot 2^11-2^14 and the library
 * at 2^11 and 2^13, alternating, within 1-3%) and fewer pages: one-shot
 * peak RSS 2^11 5.6-5.7 -> 5.5 MB, 2^12 7.6-7.7 -> 7.3-7.5 MB, 2^14
 * 17.1 -> 17.0 MB; a fresh page cost this VM 10-15 µs that day. 64 KiB
 * (with the lists in pieces) faulted 30-130 pages fewer at 2^11-2^14
 * but took the library 2-5% longer a proof (2^11, 2^13, 2^14). */
#define MSM_SORTED_NODE_BYTES ((size_t)128 << 10)

/* Lays out the workspace of a tile of `group` windows over n points with
 * 2^(c-1) buckets per window and returns its size; with base 0 it only
 * measures. Tabled (msm.h, zp_msm_table), the group's windows share one
 * window's buckets, and a bucket's list may hold group·n entries. A flush
 * holds at most a round of the tree sums (no more pairs than nodes) or a
 * step of the reduction (two per segment and window), so a small MSM (the
 * verifier's, over the public inputs) gets room for far fewer pairs than
 * MSM_BATCH; more pairs would only cost another flush. */
static size_t M_(sorted_ws_layout)(M_(affine_ws) *ws, uintptr_t base, size_t n, unsigned c, size_t group, int tabled,
                                   int simd) {
    size_t nb = (size_t)1 << (c - 1), slot_windows = tabled ? 1 : group, slots = slot_windows * nb;
    size_t entries = group * n;
    size_t nodes = (entries + slots) / 2 + 1; /* a list of m ≥ 2 entries takes ceil(m/2) nodes in round one */
    size_t target = MSM_SORTED_NODE_BYTES / sizeof(MA); /* longer lists are summed in pieces (sorted_sums) */
    if (nodes > target) nodes = target;
    size_t steps = 0; /* a last group may be shorter, with more segments */
    for (size_t nw = 1; nw <= slot_windows; nw++) {
        size_t pairs = 2 * nw * M_(sorted_segments)(nw, nb);
        if (pairs > steps) steps = pairs;
    }
    size_t cap = nodes > steps ? nodes : steps;
    size_t basis = tabled ? entries : n; /* a tabled tile's lists hold all its windows' entries */
    size_t most = basis / 4 > MSM_BATCH ? MSM_BATCH : basis / 4;
    if (MSM_SORTED_IS_G2 || most < MSM_SORTED_BATCH_MIN) most = MSM_SORTED_BATCH_MIN;
    most = most / ZP_MSM_SIMD_ALIGN * ZP_MSM_SIMD_ALIGN;
    cap = cap < most ? (cap + ZP_MSM_SIMD_ALIGN - 1) / ZP_MSM_SIMD_ALIGN * ZP_MSM_SIMD_ALIGN : most;
    /* In the order of the size's dependence on the group: a G1 and a G2
     * MSM of one proof share a worker's scratch, and with the same n and
     * c the lists, the nodes (MSM_SORTED_NODE_BYTES) and the batch's
     * pairs then lie at the same offsets, so their pages are touched once
     * (with the long lists in pieces: one-shot 2^11 about 510 -> 470
     * page faults, 2^13 1180 -> 1030, 2^14 1830 -> 1440). */
    uintptr_t p = base;
    MSM_CARVE(entry, uint32_t, entries);
    MSM_CARVE(start, uint32_t, slots + 1);
    MSM_CARVE(count, uint32_t, slots);
    MSM_CARVE(active, uint32_t, slots);
    p = (p + 63) & ~(uintptr_t)63;
    MSM_CARVE(node, MA, nodes);
    ws->node_cap = nodes;
    p = M_(batch_layout)(ws, p, cap, simd, base != 0);
    MSM_CARVE(value, MA, slots);
    MSM_CARVE(run, MA, steps); /* the reduction's running sums: two per segment and window */
    return (size_t)(p - base);
}

static size_t M_(sorted_ws_size)(size_t n, unsigned c, size_t group, int tabled) {
    M_(affine_ws) ws;
    return M_(sorted_ws_layout)(&ws, 0, n, c, group, tabled, 0);
}

/* The entries (point index | sign bit) of windows w0 .. w0+nw-1 sorted by
 * slot (window-in-group · nb + bucket): start[s] .. start[s+1]. Tabled,
 * the slot is the bucket and the point is window w's copy of point i,
 * index w·n + i. */
static void M_(sorted_sort)(M_(affine_ws) *ws, const MA *points, const uint64_t *scalars, size_t n, unsigned w0,
                            size_t nw, unsigned c, int tabled) {
    size_t nb = (size_t)1 << (c - 1), slots = (tabled ? 1 : nw) * nb, window_slots = tabled ? 0 : nb;
    uint32_t *start = ws->start, *cursor = ws->count;
    memset(cursor, 0, slots * sizeof *cursor);
    for (size_t i = 0; i < n; i++) {
        const uint64_t *k = scalars + 4 * i;
        if ((k[0] | k[1] | k[2] | k[3]) == 0 || M_(is_inf_at)(&points[i])) continue;
        for (size_t g = 0; g < nw; g++) {
            int64_t d = zp_msm_booth_digit(k, w0 + (unsigned)g, c);
            if (d != 0) cursor[g * window_slots + (size_t)(d < 0 ? -d : d) - 1]++;
        }
    }
    uint32_t sum = 0;
    for (size_t s = 0; s < slots; s++) {
        start[s] = sum;
        sum += cursor[s];
        cursor[s] = start[s];
    }
    start[slots] = sum;
    for (size_t i = 0; i < n; i++) {
        const uint64_t *k = scalars + 4 * i;
        if ((k[0] | k[1] | k[2] | k[3]) == 0 || M_(is_inf_at)(&points[i])) continue;
        for (size_t g = 0; g < nw; g++) {
            int64_t d = zp_msm_booth_digit(k, w0 + (unsigned)g, c);
            if (d == 0) continue;
            size_t s = g * window_slots + (size_t)(d < 0 ? -d : d) - 1;
            size_t point = tabled ? (w0 + g) * n + i : i;
            ws->entry[cursor[s]++] = (uint32_t)point | (d < 0 ? 0x80000000u : 0);
        }
    }
}

/* value[s] = the sum of slot s's list, for every slot, in batches of
 * slots whose round-one nodes fit node_cap. Round one pairs the points of
 * each list into nodes (start[s] becomes the list's first node, count[s]
 * its length); each later round adds node 2j and 2j+1 into node j
 * (push_flush: safe in place); every round is one batch of additions.
 * A list longer than the nodes (circom's ones in window 0 hold most of
 * the points) is summed in pieces of 2·node_cap entries, one batch each,
 * the sum so far riding along as one more node of the next piece: so the
 * nodes need not hold n/2 of them, which was 512 KiB per worker for a
 * 2^13-point BN254 G2 MSM.
 * prefetch: the points are a table, several MB that the buckets' lists
 * read at random: each pair's points are asked for as it joins the
 * batch, which the flush runs after up to MSM_BATCH more (at most 256
 * KiB of points, in L2 by then). Library proofs with tables, two
 * alternating pairs: bn128 2^11 5.07/4.94 -> 4.70/4.70 ms, 2^12
 * 8.68/8.65 -> 7.98/8.02, 2^13 15.8/15.8 -> 14.4/14.2, bls12-381 2^11
 * 10.2/10.5 -> 9.3/9.1; without tables (the points fit L2) it made no
 * difference. */
static void M_(sorted_sums)(M_(affine_ws) *ws, const MA *points, size_t slots, int prefetch) {
    size_t s = 0, resume = 0; /* resume: where slot s goes on, when carry */
    int carry = 0;            /* slot s was cut: its sum so far is in value[s] */
    while (s < slots) {
        size_t first = s, used = 0, n_active = 0;
        int cut = 0;
        for (; s < slots; s++) {
            size_t e0 = carry ? resume : ws->start[s];
            const uint32_t *e = ws->entry + e0;
            size_t m = ws->start[s + 1] - e0, need = (m + 1) / 2 + (size_t)carry;
            if (m + (size_t)carry >= 2 && used > 0 && used + need > ws->node_cap) break; /* the next batch's */
            if (m == 0) {
                M_(set_inf)(&ws->value[s]);
                ws->count[s] = 0;
                continue;
            }
            if (m == 1 && !carry) {
                M_(load)(&ws->value[s], &points[e[0] & 0x7fffffffu], (int)(e[0] >> 31));
                ws->count[s] = 0;
                continue;
            }
            if (need > ws->node_cap) { /* alone in the batch, and still too long */
                m = 2 * (ws->node_cap - (size_t)carry);
                cut = 1;
            }
            MA *nd = ws->node + used;
            for (size_t j = 0; j + 1 < m; j += 2) {
                const MA *p = &points[e[j] & 0x7fffffffu], *q = &points[e[j + 1] & 0x7fffffffu];
                for (size_t b = 0; prefetch && b < sizeof(MA); b += 64) {
                    __builtin_prefetch((const char *)p + b, 0, 2);
                    __builtin_prefetch((const char *)q + b, 0, 2);
                }
                M_(push_flush)(ws, p, (int)(e[j] >> 31), q, (int)(e[j + 1] >> 31), &nd[j / 2]);
            }
            if (m & 1) M_(load)(&nd[m / 2], &points[e[m - 1] & 0x7fffffffu], (int)(e[m - 1] >> 31));
            if (carry) nd[(m + 1) / 2] = ws->value[s];
            ws->start[s] = (uint32_t)used;
            ws->count[s] = (uint32_t)((m + 1) / 2 + (size_t)carry);
            used += ws->count[s];
            if (ws->count[s] > 1) ws->active[n_active++] = (uint32_t)s;
            if (cut) {
                resume = e0 + m;
                break;
            }
            carry = 0;
        }
        M_(flush)(ws);
        while (n_active > 0) {
            size_t still = 0;
            for (size_t a = 0; a < n_active; a++) {
                uint32_t t = ws->active[a];
                size_t m = ws->count[t];
                MA *nd = ws->node + ws->start[t];
                for (size_t j = 0; j + 1 < m; j += 2) M_(push_flush)(ws, &nd[j], 0, &nd[j + 1], 0, &nd[j / 2]);
                /* the odd one out moves by a copy in the batch, after the
                 * pairs that read the slot it goes to */
                if (m & 1) M_(push_flush)(ws, &nd[m - 1], 0, NULL, 0, &nd[m / 2]);
                ws->count[t] = (uint32_t)((m + 1) / 2);
                if (ws->count[t] > 1) ws->active[still++] = t;
            }
            M_(flush)(ws);
            n_active = still;
        }
        size_t last = s + (size_t)cut; /* a cut slot's sum so far, too (a cut leaves s < slots) */
        for (size_t t = first; t < last; t++) {
            if (ws->count[t] > 0) ws->value[t] = ws->node[ws->start[t]];
        }
        carry = cut;
    }
}

/* results[g] = sum_b (b+1)·value[g·nb + b] for each of the nw windows:
 * reduce_segments with every window's segments in the same flushes. */
static void M_(sorted_reduce)(M_(affine_ws) *ws, MJ *results, size_t nw, size_t nb) {
    M_(reduce_segments)(ws, results, ws->value, nw, nb, M_(sorted_segments)(nw, nb), ws->run);
}

/* results[g] = sum_i digit_{w0+g}(k_i)·P_i for g < nw, over all n points;
 * tabled (points: the table), results[0] = the sum of those over g of
 * digit_{w0+g}(k_i)·(copy w0+g of P_i). */
static void M_(sorted_tile)(M_(affine_ws) *ws, MJ *results, const MA *points, const uint64_t *scalars, size_t n,
                            unsigned w0, size_t nw, unsigned c, int tabled) {
    size_t nb = (size_t)1 << (c - 1), slot_windows = tabled ? 1 : nw;
    M_(sorted_sort)(ws, points, scalars, n, w0, nw, c, tabled);
    M_(sorted_sums)(ws, points, slot_windows * nb, tabled);
    M_(sorted_reduce)(ws, results, slot_windows, nb);
}
