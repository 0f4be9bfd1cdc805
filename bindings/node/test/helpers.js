// Shared by the tests: the fixtures tests/node/node.sh made, snarkjs.
"use strict";
const fs = require("fs");
const path = require("path");

const fixtures = JSON.parse(fs.readFileSync(process.env.ZKPIPE_TEST_FIXTURES, "utf8"));
const workdir = process.env.ZKPIPE_TEST_WORKDIR;
const snarkjs = require("snarkjs");
const zkpipe = require("..");
const { after } = require("node:test");

// snarkjs keeps its curves (and their worker threads) in globals: ended
// after each file's tests, or the process never exits.
after(async () => {
    for (const c of ["curve_bn128", "curve_bls12381"]) {
        if (globalThis[c]) {
            await globalThis[c].terminate();
            delete globalThis[c];
        }
    }
});

// A random input for a fixture's circuit: x below 2^64, never 13 (the
// assert circuit's forbidden value).
function randomInput(name) {
    const r = () => BigInt.asUintN(64, BigInt(Math.floor(Math.random() * 2 ** 52)) * 4099n + 17n);
    if (name.startsWith("assert")) return { x: r().toString() };
    if (name.startsWith("poseidon")) return { in: [r().toString(), r().toString(), r().toString()] };
    throw new Error("no inputs for " + name);
}

// The shape of a value: its keys, types and array lengths, recursively.
function shape(v) {
    if (Array.isArray(v)) return v.map(shape);
    if (v && typeof v === "object") return Object.fromEntries(Object.keys(v).sort().map((k) => [k, shape(v[k])]));
    if (typeof v === "string") return /^[0-9]+$/.test(v) ? "decimal" : v;
    return typeof v;
}

const vkCache = new Map();
async function snarkjsVk(name) {
    if (!vkCache.has(name)) vkCache.set(name, await snarkjs.zKey.exportVerificationKey(fixtures[name].zkey));
    return vkCache.get(name);
}

module.exports = { fixtures, workdir, snarkjs, zkpipe, randomInput, shape, snarkjsVk, path };
