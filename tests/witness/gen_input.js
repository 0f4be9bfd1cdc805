// Random inputs for the witness tests' circuits, from a seed:
//   node gen_input.js CIRCUIT SEED > input.json
// Values are decimal strings below 2^250, some negative, some hex, some
// plain JSON numbers, so every way snarkjs reads a value is exercised.
"use strict";
const [name, seedText] = process.argv.slice(2);
let s = BigInt.asUintN(64, BigInt(seedText) * 0x9E3779B97F4A7C15n + 1n);
function next() { // xorshift64*
    s ^= s >> 12n; s ^= BigInt.asUintN(64, s << 25n); s ^= s >> 27n;
    return BigInt.asUintN(64, s * 0x2545F4914F6CDD1Dn);
}
function big(bits) {
    let v = 0n;
    for (let i = 0; i < bits; i += 64) v = (v << 64n) | next();
    return v & ((1n << BigInt(bits)) - 1n);
}
function value() {
    const kind = Number(next() % 8n);
    if (kind === 0) return Number(next() % 1000n);          // a JSON number
    if (kind === 1) return "0x" + big(200).toString(16);     // hex
    if (kind === 2) return "-" + big(100).toString();        // negative
    return big(250).toString();
}
function arr(n, f) { return Array.from({length: n}, f); }
const inputs = {
    merkle: () => ({secret: value(), pathElements: arr(4, value), leafIndex: String(next() % 16n),
                    externalNullifier: value()}),
    poseidon: () => ({in: arr(3, value)}),
    sha256: () => ({in: arr(64, () => Number(next() & 1n))}),
    multidim: () => ({a: arr(2, () => arr(3, value)), b: arr(3, () => arr(2, value)),
                      c: arr(2, () => arr(2, () => arr(2, value))), k: value()}),
    assert: () => { let x; do { x = value(); } while (String(x) === "13"); return {x}; },
};
if (!inputs[name]) { console.error("unknown circuit " + name); process.exit(2); }
process.stdout.write(JSON.stringify(inputs[name]()) + "\n");
