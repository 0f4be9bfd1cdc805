// Checks a witness against the public signals a project's own JavaScript
// expects (gen_input.js's OUT.public.json): witness[1..n] are the circuit's
// outputs, then its public inputs, as in snarkjs's public.json.
//   node check_public.js WITNESS.wtns EXPECTED.public.json
// Exit 0 when they match; else the first difference on stderr, exit 1.
"use strict";
const fs = require("fs");
const [wtnsPath, expectedPath] = process.argv.slice(2);
const b = fs.readFileSync(wtnsPath);
if (b.toString("latin1", 0, 4) !== "wtns") { console.error(`${wtnsPath}: not a .wtns file`); process.exit(1); }
const sections = {};
for (let off = 12, i = 0; i < b.readUInt32LE(8); i++) {
    const size = Number(b.readBigUInt64LE(off + 4));
    sections[b.readUInt32LE(off)] = b.subarray(off + 12, off + 12 + size);
    off += 12 + size;
}
const n8 = sections[1].readUInt32LE(0);
const value = (i) => {
    let v = 0n;
    for (let j = n8 - 1; j >= 0; j--) v = (v << 8n) | BigInt(sections[2][i * n8 + j]);
    return v;
};
const expected = JSON.parse(fs.readFileSync(expectedPath, "utf8"));
for (let i = 0; i < expected.length; i++) {
    if (value(i + 1).toString() !== expected[i]) {
        console.error(`${wtnsPath}: public signal ${i} is ${value(i + 1)}, the project's JavaScript says ${expected[i]}`);
        process.exit(1);
    }
}
