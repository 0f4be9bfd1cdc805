/* The development setup for one curve, instantiated by setup.c with ZP_G
 * set to the curve prefix. With toxic waste τ, α, β, γ, δ and the Lagrange
 * basis L_i of the N-domain, for each wire j:
 *   u_j = Σ_i A_ij L_i(τ) (+ L_{m+j}(τ) for public j: snarkjs's extra rows),
 *   v_j = Σ_i B_ij L_i(τ),  w_j = Σ_i C_ij L_i(τ),
 *   A_j = u_j·G1, B1_j = v_j·G1, B2_j = v_j·G2,
 *   IC_j = (β u_j + α v_j + w_j)/γ·G1 (public), C_j = (…)/δ·G1 (private),
 *   H_i = L'_{2i+1}(τ)/δ·G1, L' the basis of the 2N-domain: the points
 * snarkjs's prover pairs with h at the odd points (docs/formats.md). */
#define ZP_CAT_(a, b) a##b
#define ZP_CAT(a, b) ZP_CAT_(a, b)
#define X_(name) ZP_CAT(ZP_G, _##name)
#define G1 ZP_CAT(ZP_G, _g1)
#define G2 ZP_CAT(ZP_G, _g2)
#define FR ZP_CAT(ZP_G, _fr)
#define G1_(name) ZP_CAT(G1, _##name)
#define G2_(name) ZP_CAT(G2, _##name)
#define FR_(name) ZP_CAT(FR, _##name)

/* One scalar of the toxic waste, nonzero and below r: from the OS, or
 * from the seed (zp_setup_seeded_scalar: the i-th draw of the seed). */
static void X_(random_fr)(FR *out, const uint8_t *seed, uint64_t *draw, zp_error *err, zp_status *st) {
    uint64_t k[4];
    if (*st != ZP_OK) return;
    *st = seed != NULL ? zp_setup_seeded_scalar(k, X_(curve_id), seed, draw, err)
                       : zp_groth16_random_scalar(k, X_(curve_id), err);
    memcpy(out->v, k, 32);
    FR_(to_mont)(out, out);
    explicit_bzero(k, sizeof k);
}

/* The toxic waste and the inverses made from it. */
typedef struct {
    FR tau, alpha, beta, gamma, delta, gamma_inv, delta_inv;
} X_(waste);

static zp_status X_(draw_waste)(X_(waste) *x, size_t n, const uint8_t *seed, zp_error *err) {
    zp_status st = ZP_OK;
    uint64_t draw = 0;
    FR t;
    do { /* τ must not be a root of unity of the 2N-domain */
        X_(random_fr)(&x->tau, seed, &draw, err, &st);
        uint64_t e[1] = {2 * n};
        FR_(pow_var)(&t, &x->tau, e, 1);
    } while (st == ZP_OK && FR_(is_one_var)(&t));
    X_(random_fr)(&x->alpha, seed, &draw, err, &st);
    X_(random_fr)(&x->beta, seed, &draw, err, &st);
    X_(random_fr)(&x->gamma, seed, &draw, err, &st);
    X_(random_fr)(&x->delta, seed, &draw, err, &st);
    if (st != ZP_OK) return st;
    FR_(inv)(&x->gamma_inv, &x->gamma);
    FR_(inv)(&x->delta_inv, &x->delta);
    explicit_bzero(&t, sizeof t);
    return ZP_OK;
}

/* out[k] = L_{first + k·step}(τ) over the domain of size m = 2^log_m, for
 * k < count: (τ^m - 1)/m · ω^i / (τ - ω^i), with one batch inversion.
 * Variable time in τ (the inversion), as the fixed-base multiplications
 * of values made from it are: this setup is for tests and benchmarks
 * (`zkpipe setup` says so), not for keys whose waste must stay secret. */
static void X_(lagrange)(FR *out, size_t count, size_t first, size_t step, unsigned log_m, const FR *tau, FR *scratch) {
    FR w, wi, wstep, zt, minv, t;
    size_t m = (size_t)1 << log_m;
    FR_(root_of_unity)(&w, log_m);
    uint64_t e[1] = {first};
    FR_(pow_var)(&wi, &w, e, 1);
    e[0] = step;
    FR_(pow_var)(&wstep, &w, e, 1);
    e[0] = m;
    FR_(pow_var)(&zt, tau, e, 1);
    FR one;
    FR_(set_one)(&one);
    FR_(sub)(&zt, &zt, &one); /* τ^m - 1 */
    FR_(from_u64)(&minv, m);
    FR_(inv)(&minv, &minv);
    FR_(mul)(&zt, &zt, &minv);
    for (size_t k = 0; k < count; k++) {
        FR_(sub)(&out[k], tau, &wi);
        scratch[k] = wi; /* keep ω^i for the numerator */
        FR_(mul)(&wi, &wi, &wstep);
    }
    FR_(batch_inv_var)(out, out, count, scratch + count);
    for (size_t k = 0; k < count; k++) {
        FR_(mul)(&t, &scratch[k], &out[k]);
        FR_(mul)(&out[k], &t, &zt);
    }
    explicit_bzero(&zt, sizeof zt); /* τ^m - 1, and τ - ω^i below */
    explicit_bzero(scratch + count, count * sizeof(FR));
}

/* X_(lagrange) over count values in pieces, one batch inversion per piece,
 * on the pool's workers; scratch holds 2·count. The values are the same
 * as one call's (each is a field element, whatever the pieces). */
typedef struct {
    FR *out, *scratch;
    size_t count, first, step, piece;
    unsigned log_m;
    const FR *tau;
} X_(lagrange_job);

static void X_(lagrange_task)(void *arg, size_t i, size_t worker) {
    (void)worker;
    const X_(lagrange_job) *j = arg;
    size_t b = i * j->piece, c = j->count - b < j->piece ? j->count - b : j->piece;
    X_(lagrange)(j->out + b, c, j->first + b * j->step, j->step, j->log_m, j->tau, j->scratch + 2 * b);
}

static void X_(lagrange_par)(FR *out, size_t count, size_t first, size_t step, unsigned log_m, const FR *tau,
                             FR *scratch, const zp_parallel *par) {
    size_t pieces = 2 * zp_parallel_threads(par), piece = (count + pieces - 1) / pieces;
    if (piece < 512) piece = 512; /* an inversion per piece: not too many */
    X_(lagrange_job) job = {out, scratch, count, first, step, piece, log_m, tau};
    zp_parallel_for(par, (count + piece - 1) / piece, X_(lagrange_task), &job);
}

static void X_(to_plain)(uint64_t *out, const FR *in, size_t n) {
    for (size_t i = 0; i < n; i++) {
        FR t;
        FR_(from_mont)(&t, &in[i]);
        memcpy(out + 4 * i, t.v, 32);
    }
}

static void X_(g1_times)(uint64_t *dst, const G1 *table, const FR *k) {
    uint64_t plain[4];
    X_(to_plain)(plain, k, 1);
    G1_(fixed_mul_var)((G1 *)dst, table, plain, 1, NULL);
}
static void X_(g2_times)(uint64_t *dst, const G2 *table, const FR *k) {
    uint64_t plain[4];
    X_(to_plain)(plain, k, 1);
    G2_(fixed_mul_var)((G2 *)dst, table, plain, 1, NULL);
}

/* §4's entries: A's and B's, values stored as Montgomery(Montgomery(v)),
 * then the public rows (A, row m+s, signal s, 1), gathered in buf and
 * put to the sink when it holds cap (the in-memory setup: buf is the
 * key's list, no sink, cap never reached). */
typedef struct {
    zp_setup_sink *sink;
    uint8_t *buf;
    size_t cap, fill;
    uint64_t at;
} X_(coef_out);

static void X_(coef_put)(X_(coef_out) *o, uint32_t matrix, uint32_t row, uint32_t wire, const FR *val) {
    uint8_t *ent = o->buf + o->fill * ZP_ZKEY_COEF_BYTES;
    memcpy(ent, &matrix, 4);
    memcpy(ent + 4, &row, 4);
    memcpy(ent + 8, &wire, 4);
    memcpy(ent + 12, val->v, 32);
    if (++o->fill == o->cap) {
        zp_setup_put(o->sink, ZP_SETUP_S_COEFS, o->at, o->buf, o->fill * ZP_ZKEY_COEF_BYTES);
        o->at += o->fill * ZP_ZKEY_COEF_BYTES;
        o->fill = 0;
    }
}

static void X_(coefs)(X_(coef_out) *o, const zp_constraint_system *cs) {
    uint32_t m = cs->n_constraints;
    for (uint32_t k = 0; k < 2; k++) {
        const zp_constraint_matrix *mat = &cs->m[k];
        for (uint32_t i = 0; i < m; i++) {
            for (size_t j = mat->row_start[i]; j < mat->row_start[i + 1]; j++) {
                FR val;
                memcpy(val.v, mat->coef + 4 * j, 32);
                FR_(to_mont)(&val, &val);
                FR_(to_mont)(&val, &val);
                X_(coef_put)(o, k, i, mat->wire[j], &val);
            }
        }
    }
    FR one;
    FR_(set_one)(&one);
    FR_(to_mont)(&one, &one);
    for (uint32_t s = 0; s <= cs->n_public; s++) X_(coef_put)(o, ZP_MATRIX_A, m + s, s, &one);
}

static zp_status X_(setup)(zp_groth16_setup_key *key, const zp_constraint_system *cs, unsigned log_n,
                           const uint8_t *seed, const zp_parallel *par, zp_error *err) {
    zp_groth16_pk *pk = &key->pk;
    X_(waste) x;
    FR t;
    size_t n = (size_t)1 << log_n, nw = cs->n_wires, npub = cs->n_public, m = cs->n_constraints;
    size_t nnz_a = cs->m[0].row_start[m], nnz_b = cs->m[1].row_start[m];
    size_t n_coefs = nnz_a + nnz_b + npub + 1;
    size_t n_priv = nw - npub - 1;

    /* The key's arrays, one allocation: IC, A, B1, C, H (G1), B2 (G2), §4. */
    size_t g1_count = (npub + 1) + 2 * nw + n_priv + n;
    size_t bytes = g1_count * sizeof(G1) + nw * sizeof(G2) + n_coefs * ZP_ZKEY_COEF_BYTES;
    key->memory = malloc(bytes);
    /* Working arrays: u, v, w, lagrange (n), scratch (2n), scalars. */
    size_t big = nw > n ? nw : n;
    FR *u = malloc(nw * sizeof(FR)), *v = malloc(nw * sizeof(FR)), *w = malloc(nw * sizeof(FR));
    FR *lag = malloc(n * sizeof(FR)), *scratch = malloc(2 * n * sizeof(FR));
    uint64_t *plain = malloc(big * 32);
    G1 *t1 = malloc(G1_(fixed_table_size)());
    G2 *t2 = malloc(G2_(fixed_table_size)());
    zp_status st = ZP_OK;
    if (!key->memory || !u || !v || !w || !lag || !scratch || !plain || !t1 || !t2) {
        st = zp_error_set(err, ZP_ERR_NOMEM, "out of memory for the setup of a 2^%u domain", log_n);
        goto done;
    }

    st = X_(draw_waste)(&x, n, seed, err);
    if (st != ZP_OK) goto done;
    const FR *tau = &x.tau, *alpha = &x.alpha, *beta = &x.beta, *gamma = &x.gamma, *delta = &x.delta;
    const FR *gamma_inv = &x.gamma_inv, *delta_inv = &x.delta_inv;

    /* u, v, w at τ */
    X_(lagrange)(lag, n, 0, 1, log_n, tau, scratch);
    FR *uvw[3] = {u, v, w};
    for (int k = 0; k < 3; k++) {
        memset(uvw[k], 0, nw * sizeof(FR));
        const zp_constraint_matrix *mat = &cs->m[k];
        for (size_t i = 0; i < m; i++) {
            for (size_t j = mat->row_start[i]; j < mat->row_start[i + 1]; j++) {
                FR c;
                memcpy(c.v, mat->coef + 4 * j, 32);
                FR_(to_mont)(&c, &c);
                FR_(mul)(&c, &c, &lag[i]);
                FR_(add)(&uvw[k][mat->wire[j]], &uvw[k][mat->wire[j]], &c);
            }
        }
    }
    for (size_t s = 0; s <= npub; s++) FR_(add)(&u[s], &u[s], &lag[m + s]);

    /* the key's layout */
    G1 *ic = key->memory, *a = ic + npub + 1, *b1 = a + nw, *c = b1 + nw, *h = c + n_priv;
    G2 *b2 = (G2 *)(h + n);
    uint8_t *coefs = (uint8_t *)(b2 + nw);

    G1_(fixed_table_var)(t1, &G1_(generator));
    G2_(fixed_table_var)(t2, &G2_(generator));
    X_(to_plain)(plain, u, nw);
    G1_(fixed_mul_var)(a, t1, plain, nw, par);
    X_(to_plain)(plain, v, nw);
    G1_(fixed_mul_var)(b1, t1, plain, nw, par);
    G2_(fixed_mul_var)(b2, t2, plain, nw, par);
    /* (β u + α v + w)/γ for public wires, /δ for private ones, in place in w */
    for (size_t j = 0; j < nw; j++) {
        FR_(mul)(&t, beta, &u[j]);
        FR_(add)(&w[j], &w[j], &t);
        FR_(mul)(&t, alpha, &v[j]);
        FR_(add)(&w[j], &w[j], &t);
        FR_(mul)(&w[j], &w[j], j <= npub ? gamma_inv : delta_inv);
    }
    X_(to_plain)(plain, w, nw);
    G1_(fixed_mul_var)(ic, t1, plain, npub + 1, par);
    G1_(fixed_mul_var)(c, t1, plain + 4 * (npub + 1), n_priv, par);
    /* H: odd points of the 2N-domain, over δ */
    X_(lagrange)(lag, n, 1, 2, log_n + 1, tau, scratch);
    for (size_t i = 0; i < n; i++) FR_(mul)(&lag[i], &lag[i], delta_inv);
    X_(to_plain)(plain, lag, n);
    G1_(fixed_mul_var)(h, t1, plain, n, par);

    pk->curve = X_(curve_id);
    pk->n_vars = (uint32_t)nw;
    pk->n_public = (uint32_t)npub;
    pk->domain_size = (uint32_t)n;
    X_(g1_times)(pk->alpha1, t1, alpha);
    X_(g1_times)(pk->beta1, t1, beta);
    X_(g1_times)(pk->delta1, t1, delta);
    X_(g2_times)(pk->beta2, t2, beta);
    X_(g2_times)(pk->gamma2, t2, gamma);
    X_(g2_times)(pk->delta2, t2, delta);
    pk->ic = ic;
    pk->a = a;
    pk->b1 = b1;
    pk->b2 = b2;
    pk->c = c;
    pk->h = h;

    /* §4 */
    X_(coef_out) co = {NULL, coefs, SIZE_MAX, 0, 0};
    X_(coefs)(&co, cs);
    pk->coefs = coefs;
    pk->n_coefs = n_coefs;

done:
    /* forget the toxic waste and every value made from it but the points
     * (the Lagrange values at τ give τ back, as do their scalars) */
    explicit_bzero(&x, sizeof x);
    explicit_bzero(&t, sizeof t);
    if (u) explicit_bzero(u, nw * sizeof(FR));
    if (v) explicit_bzero(v, nw * sizeof(FR));
    if (w) explicit_bzero(w, nw * sizeof(FR));
    if (lag) explicit_bzero(lag, n * sizeof(FR));
    if (scratch) explicit_bzero(scratch, 2 * n * sizeof(FR));
    if (plain) explicit_bzero(plain, big * 32);
    free(u);
    free(v);
    free(w);
    free(lag);
    free(scratch);
    free(plain);
    free(t1);
    free(t2);
    if (st != ZP_OK) {
        free(key->memory);
        key->memory = NULL;
    }
    return st;
}

/* u, v, w of the wires [j0, j0 + cnt) from the rows [r0, r0 + rc), whose
 * Lagrange values lag holds: each task owns a range of those wires and
 * reads every term of the rows, so no two write one value and each value
 * sums its terms in the rows' order, as X_(setup) does. */
typedef struct {
    const zp_constraint_system *cs;
    const FR *lag;
    FR *uvw[3];
    size_t r0, rc, rend, j0, cnt, part;
} X_(gather_job);

static void X_(gather_task)(void *arg, size_t t, size_t worker) {
    (void)worker;
    const X_(gather_job) *j = arg;
    size_t lo = t * j->part, m = j->cs->n_constraints;
    if (lo >= j->cnt) return;
    size_t len = j->cnt - lo < j->part ? j->cnt - lo : j->part, base = j->j0 + lo;
    for (int k = 0; k < 3; k++) {
        const zp_constraint_matrix *mat = &j->cs->m[k];
        FR *acc = j->uvw[k] + lo;
        for (size_t i = j->r0; i < j->rend; i++) {
            for (size_t e = mat->row_start[i]; e < mat->row_start[i + 1]; e++) {
                size_t at = (size_t)mat->wire[e] - base; /* wraps when below base */
                if (at >= len) continue;
                FR c;
                memcpy(c.v, mat->coef + 4 * e, 32);
                FR_(to_mont)(&c, &c);
                FR_(mul)(&c, &c, &j->lag[i - j->r0]);
                FR_(add)(&acc[at], &acc[at], &c);
            }
        }
    }
    /* the public rows: u_s += L_{m+s} */
    for (size_t i = j->r0 > m ? j->r0 : m; i < j->r0 + j->rc; i++) {
        size_t at = (i - m) - base;
        if (at < len) FR_(add)(&j->uvw[0][lo + at], &j->uvw[0][lo + at], &j->lag[i - j->r0]);
    }
}

/* The streaming setup (setup.h): the same values as X_(setup), made in
 * chunks of plan->row_chunk points and plan->wire_chunk wires and written
 * to the sink's sections at their offsets as they are made. */
static zp_status X_(setup_stream)(zp_setup_sink *sink, const zp_constraint_system *cs,
                                  const zp_groth16_setup_plan *plan, const uint8_t *seed, zp_tracker *tr,
                                  const zp_parallel *par, zp_error *err) {
    const zp_curve_desc *d = zp_curve_get(X_(curve_id));
    if (d == NULL || sizeof(G1) != d->g1_bytes || sizeof(G2) != d->g2_bytes) {
        return zp_error_set(err, ZP_ERR_INTERNAL, "setup: the point layout is not the file's");
    }
    unsigned log_n = plan->log_n;
    size_t n = (size_t)1 << log_n, nw = cs->n_wires, npub = cs->n_public, m = cs->n_constraints;
    size_t R = plan->row_chunk, K = plan->wire_chunk, rows = m + npub + 1;
    X_(waste) x;
    FR t;
    zp_tracked b_t1 = {0}, b_t2 = {0}, b_lag = {0}, b_scr = {0}, b_plain = {0}, b_pts = {0}, b_uvw[3] = {{0}};
    zp_status st = zp_track_alloc(&b_t1, tr, 0, 0, G1_(fixed_table_size)(), "setup: G1 table", err);
    if (st == ZP_OK) st = zp_track_alloc(&b_t2, tr, 0, 0, G2_(fixed_table_size)(), "setup: G2 table", err);
    if (st == ZP_OK) st = zp_track_alloc(&b_lag, tr, 0, 0, R * sizeof(FR), "setup: Lagrange values", err);
    if (st == ZP_OK) st = zp_track_alloc(&b_scr, tr, 0, 0, 2 * R * sizeof(FR), "setup: Lagrange scratch", err);
    if (st == ZP_OK) st = zp_track_alloc(&b_plain, tr, 0, 0, R * 32, "setup: scalars", err);
    if (st == ZP_OK) st = zp_track_alloc(&b_pts, tr, 0, 0, R * sizeof(G2), "setup: points", err);
    for (int k = 0; k < 3 && st == ZP_OK; k++) {
        st = zp_track_alloc(&b_uvw[k], tr, 0, 0, K * sizeof(FR), "setup: u, v, w", err);
    }
    if (st != ZP_OK) goto done;
    G1 *t1 = b_t1.p, *p1 = b_pts.p;
    G2 *t2 = b_t2.p, *p2 = b_pts.p;
    FR *lag = b_lag.p, *scr = b_scr.p, *u = b_uvw[0].p, *v = b_uvw[1].p, *w = b_uvw[2].p;
    uint64_t *plain = b_plain.p;
    st = X_(draw_waste)(&x, n, seed, err);
    if (st != ZP_OK) goto done;
    G1_(fixed_table_var)(t1, &G1_(generator));
    G2_(fixed_table_var)(t2, &G2_(generator));

    /* §2's points: α, β (G1), β, γ (G2), δ (G1), δ (G2) */
    {
        G1 a1, b1, d1;
        G2 b2, g2, d2;
        X_(g1_times)((uint64_t *)&a1, t1, &x.alpha);
        X_(g1_times)((uint64_t *)&b1, t1, &x.beta);
        X_(g2_times)((uint64_t *)&b2, t2, &x.beta);
        X_(g2_times)((uint64_t *)&g2, t2, &x.gamma);
        X_(g1_times)((uint64_t *)&d1, t1, &x.delta);
        X_(g2_times)((uint64_t *)&d2, t2, &x.delta);
        uint64_t at = 0;
        zp_setup_put(sink, ZP_SETUP_S_HEADER, at, &a1, sizeof a1);
        zp_setup_put(sink, ZP_SETUP_S_HEADER, at += sizeof a1, &b1, sizeof b1);
        zp_setup_put(sink, ZP_SETUP_S_HEADER, at += sizeof b1, &b2, sizeof b2);
        zp_setup_put(sink, ZP_SETUP_S_HEADER, at += sizeof b2, &g2, sizeof g2);
        zp_setup_put(sink, ZP_SETUP_S_HEADER, at += sizeof g2, &d1, sizeof d1);
        zp_setup_put(sink, ZP_SETUP_S_HEADER, at += sizeof d1, &d2, sizeof d2);
    }

    /* §4: a buffer of entries at a time (the points' room) */
    {
        X_(coef_out) co = {sink, b_pts.p, b_pts.bytes / ZP_ZKEY_COEF_BYTES, 0, 4};
        uint32_t n_coefs = (uint32_t)(cs->m[0].row_start[m] + cs->m[1].row_start[m] + npub + 1);
        zp_setup_put(sink, ZP_SETUP_S_COEFS, 0, &n_coefs, 4);
        X_(coefs)(&co, cs);
        zp_setup_put(sink, ZP_SETUP_S_COEFS, co.at, co.buf, co.fill * ZP_ZKEY_COEF_BYTES);
    }

    /* IC, C, A, B1, B2: a pass over the rows per chunk of wires */
    for (size_t j0 = 0; j0 < nw && sink->st == ZP_OK; j0 += K) {
        size_t cnt = nw - j0 < K ? nw - j0 : K;
        FR *uvw[3] = {u, v, w};
        for (int k = 0; k < 3; k++) memset(uvw[k], 0, cnt * sizeof(FR));
        size_t parts = cnt < 512 ? 1 : zp_parallel_threads(par);
        for (size_t r0 = 0; r0 < rows; r0 += R) {
            size_t rc = rows - r0 < R ? rows - r0 : R, rend = r0 + rc < m ? r0 + rc : m;
            X_(lagrange_par)(lag, rc, r0, 1, log_n, &x.tau, scr, par);
            X_(gather_job) job = {cs, lag, {u, v, w}, r0, rc, rend, j0, cnt, (cnt + parts - 1) / parts};
            zp_parallel_for(par, parts, X_(gather_task), &job);
        }
        for (size_t q0 = 0; q0 < cnt && sink->st == ZP_OK; q0 += R) {
            size_t qc = cnt - q0 < R ? cnt - q0 : R, g0 = j0 + q0;
            X_(to_plain)(plain, u + q0, qc);
            G1_(fixed_mul_var)(p1, t1, plain, qc, par);
            zp_setup_put(sink, ZP_SETUP_S_A, g0 * sizeof(G1), p1, qc * sizeof(G1));
            X_(to_plain)(plain, v + q0, qc);
            G1_(fixed_mul_var)(p1, t1, plain, qc, par);
            zp_setup_put(sink, ZP_SETUP_S_B1, g0 * sizeof(G1), p1, qc * sizeof(G1));
            G2_(fixed_mul_var)(p2, t2, plain, qc, par);
            zp_setup_put(sink, ZP_SETUP_S_B2, g0 * sizeof(G2), p2, qc * sizeof(G2));
            /* (β u + α v + w)/γ for public wires, /δ for private ones */
            for (size_t j = q0; j < q0 + qc; j++) {
                FR_(mul)(&t, &x.beta, &u[j]);
                FR_(add)(&w[j], &w[j], &t);
                FR_(mul)(&t, &x.alpha, &v[j]);
                FR_(add)(&w[j], &w[j], &t);
                FR_(mul)(&w[j], &w[j], j0 + j <= npub ? &x.gamma_inv : &x.delta_inv);
            }
            X_(to_plain)(plain, w + q0, qc);
            G1_(fixed_mul_var)(p1, t1, plain, qc, par);
            size_t nic = g0 <= npub ? (qc < npub + 1 - g0 ? qc : npub + 1 - g0) : 0;
            zp_setup_put(sink, ZP_SETUP_S_IC, g0 * sizeof(G1), p1, nic * sizeof(G1));
            if (qc > nic) {
                zp_setup_put(sink, ZP_SETUP_S_C, (g0 + nic - npub - 1) * sizeof(G1), p1 + nic, (qc - nic) * sizeof(G1));
            }
            zp_setup_progress(sink, 6 * qc);
        }
    }

    /* H: odd points of the 2N-domain, over δ */
    for (size_t i0 = 0; i0 < n && sink->st == ZP_OK; i0 += R) {
        size_t c = n - i0 < R ? n - i0 : R;
        X_(lagrange_par)(lag, c, 1 + 2 * i0, 2, log_n + 1, &x.tau, scr, par);
        for (size_t i = 0; i < c; i++) FR_(mul)(&lag[i], &lag[i], &x.delta_inv);
        X_(to_plain)(plain, lag, c);
        G1_(fixed_mul_var)(p1, t1, plain, c, par);
        zp_setup_put(sink, ZP_SETUP_S_H, i0 * sizeof(G1), p1, c * sizeof(G1));
        zp_setup_progress(sink, c);
    }
    st = sink->st;

done:
    /* forget the toxic waste and every value made from it but the points */
    explicit_bzero(&x, sizeof x);
    explicit_bzero(&t, sizeof t);
    zp_tracked *secret[] = {&b_lag, &b_scr, &b_plain, &b_uvw[0], &b_uvw[1], &b_uvw[2]};
    for (size_t i = 0; i < sizeof secret / sizeof *secret; i++) {
        if (secret[i]->p != NULL) explicit_bzero(secret[i]->p, secret[i]->bytes);
    }
    zp_tracked *all[] = {&b_t1, &b_t2, &b_lag, &b_scr, &b_plain, &b_pts, &b_uvw[0], &b_uvw[1], &b_uvw[2]};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) zp_track_free(tr, all[i]);
    return st;
}

#undef X_
#undef G1
#undef G2
#undef FR
#undef G1_
#undef G2_
#undef FR_
#undef ZP_G
