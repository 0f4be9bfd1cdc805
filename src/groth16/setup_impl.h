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

static void X_(random_fr)(FR *out, zp_error *err, zp_status *st) {
    uint64_t k[4];
    if (*st != ZP_OK) return;
    *st = zp_groth16_random_scalar(k, X_(curve_id), err);
    memcpy(out->v, k, 32);
    FR_(to_mont)(out, out);
    memset(k, 0, sizeof k);
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

static zp_status X_(setup)(zp_groth16_setup_key *key, const zp_constraint_system *cs, unsigned log_n,
                           const zp_parallel *par, zp_error *err) {
    zp_groth16_pk *pk = &key->pk;
    FR tau, alpha, beta, gamma, delta, gamma_inv, delta_inv, t;
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

    do { /* τ must not be a root of unity of the 2N-domain */
        X_(random_fr)(&tau, err, &st);
        uint64_t e[1] = {2 * n};
        FR_(pow_var)(&t, &tau, e, 1);
    } while (st == ZP_OK && FR_(is_one_var)(&t));
    X_(random_fr)(&alpha, err, &st);
    X_(random_fr)(&beta, err, &st);
    X_(random_fr)(&gamma, err, &st);
    X_(random_fr)(&delta, err, &st);
    if (st != ZP_OK) goto done;
    FR_(inv)(&gamma_inv, &gamma);
    FR_(inv)(&delta_inv, &delta);

    /* u, v, w at τ */
    X_(lagrange)(lag, n, 0, 1, log_n, &tau, scratch);
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
        FR_(mul)(&t, &beta, &u[j]);
        FR_(add)(&w[j], &w[j], &t);
        FR_(mul)(&t, &alpha, &v[j]);
        FR_(add)(&w[j], &w[j], &t);
        FR_(mul)(&w[j], &w[j], j <= npub ? &gamma_inv : &delta_inv);
    }
    X_(to_plain)(plain, w, nw);
    G1_(fixed_mul_var)(ic, t1, plain, npub + 1, par);
    G1_(fixed_mul_var)(c, t1, plain + 4 * (npub + 1), n_priv, par);
    /* H: odd points of the 2N-domain, over δ */
    X_(lagrange)(lag, n, 1, 2, log_n + 1, &tau, scratch);
    for (size_t i = 0; i < n; i++) FR_(mul)(&lag[i], &lag[i], &delta_inv);
    X_(to_plain)(plain, lag, n);
    G1_(fixed_mul_var)(h, t1, plain, n, par);

    pk->curve = X_(curve_id);
    pk->n_vars = (uint32_t)nw;
    pk->n_public = (uint32_t)npub;
    pk->domain_size = (uint32_t)n;
    X_(g1_times)(pk->alpha1, t1, &alpha);
    X_(g1_times)(pk->beta1, t1, &beta);
    X_(g1_times)(pk->delta1, t1, &delta);
    X_(g2_times)(pk->beta2, t2, &beta);
    X_(g2_times)(pk->gamma2, t2, &gamma);
    X_(g2_times)(pk->delta2, t2, &delta);
    pk->ic = ic;
    pk->a = a;
    pk->b1 = b1;
    pk->b2 = b2;
    pk->c = c;
    pk->h = h;

    /* §4: A and B entries, values stored as Montgomery(Montgomery(v)), then
     * the public rows (A, row m+s, signal s, 1) */
    size_t e_at = 0;
    for (uint32_t k = 0; k < 2; k++) {
        const zp_constraint_matrix *mat = &cs->m[k];
        for (uint32_t i = 0; i < m; i++) {
            for (size_t j = mat->row_start[i]; j < mat->row_start[i + 1]; j++) {
                FR val;
                memcpy(val.v, mat->coef + 4 * j, 32);
                FR_(to_mont)(&val, &val);
                FR_(to_mont)(&val, &val);
                uint8_t *ent = coefs + e_at++ * ZP_ZKEY_COEF_BYTES;
                memcpy(ent, &k, 4);
                memcpy(ent + 4, &i, 4);
                memcpy(ent + 8, &mat->wire[j], 4);
                memcpy(ent + 12, val.v, 32);
            }
        }
    }
    for (uint32_t s = 0; s <= npub; s++) {
        FR one;
        FR_(set_one)(&one);
        FR_(to_mont)(&one, &one);
        uint8_t *ent = coefs + e_at++ * ZP_ZKEY_COEF_BYTES;
        uint32_t matrix = ZP_MATRIX_A, row = (uint32_t)(m + s);
        memcpy(ent, &matrix, 4);
        memcpy(ent + 4, &row, 4);
        memcpy(ent + 8, &s, 4);
        memcpy(ent + 12, one.v, 32);
    }
    pk->coefs = coefs;
    pk->n_coefs = n_coefs;

done:
    /* forget the toxic waste */
    memset(&tau, 0, sizeof tau);
    memset(&alpha, 0, sizeof alpha);
    memset(&beta, 0, sizeof beta);
    memset(&gamma, 0, sizeof gamma);
    memset(&delta, 0, sizeof delta);
    if (u) memset(u, 0, nw * sizeof(FR));
    if (v) memset(v, 0, nw * sizeof(FR));
    if (w) memset(w, 0, nw * sizeof(FR));
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

#undef X_
#undef G1
#undef G2
#undef FR
#undef G1_
#undef G2_
#undef FR_
#undef ZP_G
