// A random input.json of every form snarkjs takes, written as text (so it
// can hold duplicate names and numbers in any spelling):
//   node tests/witness/input_random.js SEED OUT.json
// Values: decimal strings of up to 200 digits (leading zeros, signs, JS
// white space around them), hex with 0x and 0X, 0b and 0o, numbers
// (integers, beyond 2^53, exponents, -0), booleans, in nested arrays with
// empty ones among them; names repeat and some are array indices.
"use strict";
const fs = require("fs");

const [seedText, out] = process.argv.slice(2);
let state = BigInt.asUintN(64, BigInt(seedText || "1") * 0x9e3779b97f4a7c15n + 1n);
function rand(n) { // xorshift64*, an integer in [0, n)
    state ^= state >> 12n; state ^= BigInt.asUintN(64, state << 25n); state ^= state >> 27n;
    return Number(BigInt.asUintN(64, state * 0x2545f4914f6cdd1dn) >> 11n) % n;
}
function digits(n, alphabet) {
    let s = "";
    for (let i = 0; i < n; i++) s += alphabet[rand(alphabet.length)];
    return s;
}
const spaces = [" ", "\\t", "\\n", "\\r", "\\u00a0", "\\ufeff", "\\u2028", "\\u3000", "\\u2005"];
function value() {
    const dec = "0123456789";
    switch (rand(12)) {
    case 0: return `"${digits(1 + rand(200), dec)}"`;
    case 1: return `"-${digits(1 + rand(120), dec)}"`;
    case 2: return `"+${digits(1 + rand(30), dec)}"`;
    case 3: return `"0x${digits(1 + rand(80), "0123456789abcdefABCDEF")}"`;
    case 4: return `"0X${digits(1 + rand(80), "0123456789abcdef")}"`;
    case 5: return `"0b${digits(1 + rand(300), "01")}"`;
    case 6: return `"0o${digits(1 + rand(100), "01234567")}"`;
    case 7: return `"${spaces[rand(spaces.length)]}${digits(1 + rand(40), dec)}${spaces[rand(spaces.length)]}"`;
    case 8: return `${rand(2) ? "-" : ""}${digits(1 + rand(17), "123456789")}`;
    case 9: return `${rand(2) ? "-" : ""}${1 + rand(9)}${digits(rand(60), dec)}`;
    case 10: return `${1 + rand(9)}e${rand(300)}`;
    default: return ["true", "false", "0", "-0", "\"\"", "\"0\""][rand(6)];
    }
}
function nested(depth) {
    if (depth === 0 || rand(3) === 0) return value();
    const n = rand(5);
    const items = [];
    for (let i = 0; i < n; i++) items.push(nested(depth - 1));
    return `[${items.join(", ")}]`;
}
const names = ["in", "a", "b", "x", "main_in", "sig1", "0", "7", "12", "01", "__proto__"];
const members = [];
for (let i = 0, n = 1 + rand(14); i < n; i++) members.push(`"${names[rand(names.length)]}": ${nested(rand(5))}`);
fs.writeFileSync(out, `{${members.join(",\n ")}}\n`);
