#!/usr/bin/env node
// Small JSON helpers for interop.sh (proof tampering and comparisons).
//   jsontool.js swap-pi-a PROOF DONOR OUT      pi_a := DONOR.pi_a (a valid point)
//   jsontool.js pi-c-from-pi-a PROOF OUT       pi_c := pi_a (a valid point)
//   jsontool.js pi-a-off-curve PROOF OUT       pi_a.y += 1 (not on the curve)
//   jsontool.js public-add PUBLIC INDEX DELTA OUT   public[INDEX] += DELTA (decimal; "r" = the curve's r)
//   jsontool.js same-public A B                exit 0 iff same values (as integers)
//   jsontool.js same-vk A B                    exit 0 iff same verification key (affine, as integers)
"use strict";
const fs = require("fs");
const R = {
    bn128: 21888242871839275222246405745257275088548364400416034343698204186575808495617n,
    bls12381: 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n,
};
const rd = (f) => JSON.parse(fs.readFileSync(f, "utf8"));
const wr = (f, o) => fs.writeFileSync(f, JSON.stringify(o, null, 1) + "\n");
function die(msg) { console.error(msg); process.exit(1); }

// normalise numbers to canonical decimal strings, drop the projective z of "1"
function norm(v) {
    if (Array.isArray(v)) {
        if (v.length === 3 && !Array.isArray(v[0]) && String(v[2]) === "1") v = v.slice(0, 2);
        else if (v.length === 3 && Array.isArray(v[2]) && String(v[2][0]) === "1" && String(v[2][1]) === "0") v = v.slice(0, 2);
        return v.map(norm);
    }
    if (typeof v === "string" && /^[0-9]+$/.test(v)) return BigInt(v).toString();
    if (typeof v === "number") return String(v);
    return v;
}

const [cmd, ...a] = process.argv.slice(2);
switch (cmd) {
case "swap-pi-a": { const p = rd(a[0]); p.pi_a = rd(a[1]).pi_a; wr(a[2], p); break; }
case "pi-c-from-pi-a": { const p = rd(a[0]); p.pi_c = p.pi_a.slice(); wr(a[1], p); break; }
case "pi-a-off-curve": { const p = rd(a[0]); p.pi_a[1] = (BigInt(p.pi_a[1]) + 1n).toString(); wr(a[1], p); break; }
case "public-add": {
    const p = rd(a[0]);
    const i = parseInt(a[1], 10);
    let d;
    if (a[2] === "r") d = R[a[4]] || die("public-add ... r OUT CURVE: curve needed");
    else d = BigInt(a[2]);
    if (!(i >= 0 && i < p.length)) die("index out of range");
    p[i] = (BigInt(p[i]) + d).toString();
    wr(a[3], p);
    break;
}
case "same-public": {
    const x = norm(rd(a[0])), y = norm(rd(a[1]));
    if (JSON.stringify(x) !== JSON.stringify(y)) die(`differ:\n${JSON.stringify(x)}\n${JSON.stringify(y)}`);
    break;
}
case "same-vk": {
    const x = rd(a[0]), y = rd(a[1]);
    const keys = ["protocol", "curve", "nPublic", "vk_alpha_1", "vk_beta_2", "vk_gamma_2", "vk_delta_2", "vk_alphabeta_12", "IC"];
    let bad = 0;
    for (const k of keys) {
        const sx = JSON.stringify(norm(x[k])), sy = JSON.stringify(norm(y[k]));
        if (sx !== sy) { console.error(`${k} differs:\n  ${sx}\n  ${sy}`); bad++; }
    }
    if (bad) process.exit(1);
    break;
}
default: die("unknown command " + cmd);
}
