#!/usr/bin/env node
// Cross-check vectors for zkpipe's field / curve / pairing code, computed with
// ffjavascript (the library snarkjs itself uses), deterministic from a seed.
//
//   node tests/ffjs/gen_vectors.js CURVE COUNT SEED OUT.json
//     CURVE: bn128 | bls12381     COUNT: entries per list     SEED: integer
//
// Every number is a decimal string in plain form (NOT Montgomery).
// Points are affine: G1 [x, y]; G2 [[x.c0, x.c1], [y.c0, y.c1]] (an Fp2 element
// c0 + c1*u is [c0, c1]); the point at infinity is null.
//
// Fp12 layout (ffjavascript's own, = wasmcurves' memory order; "fp12_layout"
// in the JSON says the same):
//   Fp2  = Fp[u]  / (u^2 + 1)                    [c0, c1]        = c0 + c1*u
//   Fp6  = Fp2[v] / (v^3 - xi)                   [c0, c1, c2]    = c0 + c1*v + c2*v^2
//          xi = 9 + u (bn128), 1 + u (bls12381)
//   Fp12 = Fp6[w] / (w^2 - v)                    [c0, c1]        = c0 + c1*w
// so "e" is [[[a000,a001],[a010,a011],[a020,a021]], [[a100,a101],[a110,a111],[a120,a121]]]
// with e = sum_{i,j,k} a_ijk * w^i * v^j * u^k. This is also the nesting of
// vk_alphabeta_12 in snarkjs's verification_key.json (2 x 3 x 2).
// e = curve.pairing(P, Q): Miller loop + final exponentiation, as snarkjs uses.
//
// Schema (see README.md beside this file):
//   { curve, seed, fp12_layout, r, q,
//     fr: [{a, b, add, sub, mul, sqr_a, inv_a}], fp: [same],
//     g1: [{k, kG, P, Q, "P+Q", "2P"}], g2: [same],
//     pairing: [{a, b, P = a*G1, Q = b*G2, e}] }
// The first few entries of each list are edge cases (p-1, 1, P == Q, Q == -P,
// k = 0, k = r-1, ...); the rest are uniform random.
"use strict";

const fs = require("fs");
const assert = require("assert");
const { buildBn128, buildBls12381 } = require("ffjavascript");

function usage() {
    console.error("usage: gen_vectors.js bn128|bls12381 COUNT SEED OUT.json");
    process.exit(2);
}

// ---------- deterministic PRNG: splitmix64 on BigInt ----------
const M64 = (1n << 64n) - 1n;
class SplitMix64 {
    constructor(seed) { this.s = BigInt.asUintN(64, BigInt(seed)); }
    next() {
        this.s = (this.s + 0x9E3779B97F4A7C15n) & M64;
        let z = this.s;
        z = ((z ^ (z >> 30n)) * 0xBF58476D1CE4E5B9n) & M64;
        z = ((z ^ (z >> 27n)) * 0x94D049BB133111EBn) & M64;
        return z ^ (z >> 31n);
    }
    // uniform in [0, m): rejection sampling on bitLength(m) random bits
    below(m) {
        const bits = m.toString(2).length;
        const words = Math.ceil(bits / 64);
        const mask = (1n << BigInt(bits)) - 1n;
        for (;;) {
            let v = 0n;
            for (let i = 0; i < words; i++) v |= this.next() << BigInt(64 * i);
            v &= mask;
            if (v < m) return v;
        }
    }
    nonzeroBelow(m) {
        for (;;) { const v = this.below(m); if (v !== 0n) return v; }
    }
}

// ---------- BigInt reference arithmetic (independent of ffjavascript) ----------
const mod = (a, m) => ((a % m) + m) % m;
function powmod(b, e, m) {
    let r = 1n; b = mod(b, m);
    while (e > 0n) { if (e & 1n) r = (r * b) % m; b = (b * b) % m; e >>= 1n; }
    return r;
}
function invmod(a, m) { return powmod(a, m - 2n, m); } // m prime

// Fp2 = Fp[u]/(u^2+1), elements [c0, c1]
const f2 = (q) => ({
    add: (a, b) => [mod(a[0] + b[0], q), mod(a[1] + b[1], q)],
    mul: (a, b) => [mod(a[0] * b[0] - a[1] * b[1], q), mod(a[0] * b[1] + a[1] * b[0], q)],
    inv: (a) => { const n = invmod(mod(a[0] * a[0] + a[1] * a[1], q), q); return [mod(a[0] * n, q), mod(-a[1] * n, q)]; },
});

// ---------- conversions to plain decimal JSON ----------
function str(x) {
    if (typeof x === "bigint") return x.toString(10);
    if (Array.isArray(x)) return x.map(str);
    throw new Error("unexpected value " + x);
}

async function main() {
    const argv = process.argv.slice(2);
    if (argv.length !== 4) usage();
    const [curveName, countS, seedS, out] = argv;
    const count = parseInt(countS, 10);
    if (!(count > 0)) usage();
    let curve;
    if (curveName === "bn128") curve = await buildBn128(true);
    else if (curveName === "bls12381") curve = await buildBls12381(true);
    else usage();

    const rng = new SplitMix64(BigInt(seedS));
    const { Fr, F1, F2, G1, G2, F12 } = curve;
    const r = Fr.p, q = F1.p;
    const bG1 = curveName === "bn128" ? 3n : 4n;
    const F2r = f2(q);
    // twist coefficient b' : bn128 3/(9+u) (D-type), bls12381 4(1+u) (M-type)
    const bG2 = curveName === "bn128" ? F2r.mul([3n, 0n], F2r.inv([9n, 1n])) : [4n, 4n];

    // ---- field vectors ----
    function fieldVectors(F, p) {
        const edge = [[p - 1n, p - 1n], [1n, p - 1n], [p - 1n, 1n], [2n, (p - 1n) / 2n], [(p + 1n) / 2n, 0n], [1n, 1n]];
        const res = [];
        for (let i = 0; i < count; i++) {
            const [a, b] = i < edge.length && i < count - 1 ? edge[i] : [rng.nonzeroBelow(p), rng.below(p)];
            const ea = F.e(a), eb = F.e(b);
            const v = {
                a, b,
                add: F.toObject(F.add(ea, eb)),
                sub: F.toObject(F.sub(ea, eb)),
                mul: F.toObject(F.mul(ea, eb)),
                sqr_a: F.toObject(F.square(ea)),
                inv_a: F.toObject(F.inv(ea)),
            };
            // hand check with BigInt
            assert.strictEqual(F.toObject(ea), a, "round trip");
            assert.strictEqual(v.add, mod(a + b, p), "add");
            assert.strictEqual(v.sub, mod(a - b, p), "sub");
            assert.strictEqual(v.mul, (a * b) % p, "mul");
            assert.strictEqual(v.sqr_a, (a * a) % p, "sqr");
            assert.strictEqual((v.inv_a * a) % p, 1n, "inv");
            res.push(v);
        }
        return res;
    }

    // ---- points ----
    function affine(G, P) {
        if (G.isZero(P)) return null;
        const o = G.toObject(G.toAffine(P));
        return [o[0], o[1]];
    }
    function checkG1(P) {
        if (P === null) return;
        const [x, y] = P;
        assert(x < q && y < q);
        assert.strictEqual(mod(y * y - x * x * x - bG1, q), 0n, "G1 point not on curve");
    }
    function checkG2(P) {
        if (P === null) return;
        const [x, y] = P;
        const lhs = F2r.mul(y, y);
        const rhs = F2r.add(F2r.mul(F2r.mul(x, x), x), bG2);
        assert.deepStrictEqual(lhs, rhs, "G2 point not on curve");
    }
    const mul = (G, k) => (k === 0n ? G.zero : G.timesScalar(G.g, k));

    function groupVectors(G, check) {
        const res = [];
        for (let i = 0; i < count; i++) {
            let k = rng.below(r);
            const s = rng.nonzeroBelow(r);
            let t = rng.nonzeroBelow(r);
            if (i === 0 && count > 1) k = 0n;             // kG = infinity
            if (i === 1 && count > 2) { k = r - 1n; t = s; }   // kG = -G; Q == P (P+Q = 2P)
            if (i === 2 && count > 3) { k = 1n; t = r - s; }   // kG = G; Q == -P (P+Q = inf)
            const P = mul(G, s), Q = mul(G, t);
            const v = {
                k,
                kG: affine(G, mul(G, k)),
                P: affine(G, P),
                Q: affine(G, Q),
                "P+Q": affine(G, G.add(P, Q)),
                "2P": affine(G, G.double(P)),
            };
            // consistency checks through independent routes
            for (const key of ["kG", "P", "Q", "P+Q", "2P"]) check(v[key]);
            assert.deepStrictEqual(v["P+Q"], affine(G, mul(G, (s + t) % r)), "P+Q");
            assert.deepStrictEqual(v["2P"], affine(G, mul(G, (2n * s) % r)), "2P");
            res.push(v);
        }
        return res;
    }

    // ---- pairing ----
    function pairingVectors(n) {
        const res = [];
        const eGG = curve.pairing(G1.g, G2.g);
        assert(!F12.eq(eGG, F12.one), "e(G1,G2) == 1");
        assert(F12.eq(F12.exp(eGG, r), F12.one), "e(G1,G2)^r != 1");
        for (let i = 0; i < n; i++) {
            const a = i === 0 ? 1n : rng.nonzeroBelow(r);
            const b = i === 0 ? 1n : rng.nonzeroBelow(r);
            const P = mul(G1, a), Q = mul(G2, b);
            const e = curve.pairing(P, Q);
            // bilinearity: e(aG1, bG2) == e(G1, G2)^(ab) == e(ab*G1, G2)
            assert(F12.eq(e, F12.exp(eGG, (a * b) % r)), "bilinearity");
            assert(F12.eq(e, curve.pairing(mul(G1, (a * b) % r), G2.g)), "bilinearity 2");
            res.push({ a, b, P: affine(G1, P), Q: affine(G2, Q), e: F12.toObject(e) });
        }
        return res;
    }

    const t0 = Date.now();
    const doc = {
        curve: curveName,
        seed: seedS,
        fp12_layout: "[[[c000,c001],[c010,c011],[c020,c021]],[[c100,c101],[c110,c111],[c120,c121]]] = " +
            "sum c_ijk w^i v^j u^k; Fp2=Fp[u]/(u^2+1), Fp6=Fp2[v]/(v^3-xi), Fp12=Fp6[w]/(w^2-v), " +
            "xi = " + (curveName === "bn128" ? "9+u" : "1+u") + " (ffjavascript F12.toObject order)",
        r, q,
        fr: fieldVectors(Fr, r),
        fp: fieldVectors(F1, q),
        g1: groupVectors(G1, checkG1),
        g2: groupVectors(G2, checkG2),
        pairing: pairingVectors(Math.max(1, Math.floor(count / 4))),
    };
    const json = JSON.stringify(doc, (k, v) => (typeof v === "bigint" ? v.toString(10) : v), 1);
    fs.writeFileSync(out, json + "\n");
    console.error(`wrote ${out}: ${curveName}, ${count} per list, seed ${seedS}, ${Date.now() - t0} ms`);
    if (curve.terminate) await curve.terminate();
}

main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
