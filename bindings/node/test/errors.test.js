// Bad input rejects with the right code and the CLI's one-line message,
// and never takes the process down: a missing or unknown signal, a wasm
// of the other curve, a truncated or absent zkey, a failed assert, a
// witness that does not satisfy the circuit, wrong argument types.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const fs = require("fs");
const { fixtures, zkpipe, randomInput, workdir } = require("./helpers");

const bn = fixtures["assert.bn128"], bls = fixtures["assert.bls12381"];

async function rejects(promise, code, pattern) {
    await assert.rejects(promise, (e) => {
        assert.ok(e instanceof Error, "an Error");
        assert.strictEqual(e.code, code, `code ${e.code} (${e.message}), wanted ${code}`);
        assert.ok(!e.message.includes("\n"), "one line");
        if (pattern) assert.match(e.message, pattern);
        return true;
    });
}

test("a missing signal: ZKPIPE_BAD_INPUT", async () => {
    await rejects(zkpipe.groth16.fullProve({}, bn.wasm, bn.zkey), "ZKPIPE_BAD_INPUT", /Not all inputs have been set/);
    await rejects(zkpipe.wtns.calculate({}, bn.wasm, { type: "mem" }), "ZKPIPE_BAD_INPUT");
});

test("an unknown signal, a value that is no number: ZKPIPE_BAD_INPUT", async () => {
    await rejects(zkpipe.groth16.fullProve({ x: "3", nope: "1" }, bn.wasm, bn.zkey), "ZKPIPE_BAD_INPUT", /nope/);
    await rejects(zkpipe.groth16.fullProve({ x: "twelve" }, bn.wasm, bn.zkey), "ZKPIPE_BAD_INPUT");
});

test("a wasm of the other curve: ZKPIPE_MISMATCH", async () => {
    await rejects(zkpipe.groth16.fullProve(randomInput("assert.bn128"), bls.wasm, bn.zkey), "ZKPIPE_MISMATCH",
        /bls12381 circuit/);
    await rejects(zkpipe.groth16.fullProve(randomInput("assert.bn128"), bn.wasm, bls.zkey), "ZKPIPE_MISMATCH");
});

test("a truncated zkey (bytes and file): ZKPIPE_BAD_INPUT; an absent one: ZKPIPE_IO", async () => {
    const bytes = fs.readFileSync(bn.zkey);
    for (const cut of [0, 10, 100, bytes.length >> 1, bytes.length - 1]) {
        const part = new Uint8Array(bytes.subarray(0, cut));
        await rejects(zkpipe.groth16.fullProve(randomInput("assert.bn128"), bn.wasm, part), "ZKPIPE_BAD_INPUT");
    }
    const p = `${workdir}/truncated.zkey`;
    fs.writeFileSync(p, bytes.subarray(0, bytes.length >> 1));
    await rejects(zkpipe.groth16.fullProve(randomInput("assert.bn128"), bn.wasm, p), "ZKPIPE_BAD_INPUT",
        /truncated\.zkey/);
    await rejects(zkpipe.zKey.exportVerificationKey(p), "ZKPIPE_BAD_INPUT");
    await rejects(zkpipe.groth16.fullProve(randomInput("assert.bn128"), bn.wasm, `${workdir}/absent.zkey`),
        "ZKPIPE_IO");
});

test("a wasm that is not one: ZKPIPE_BAD_INPUT", async () => {
    await rejects(zkpipe.groth16.fullProve(randomInput("assert.bn128"), new Uint8Array([0, 97, 115, 109, 1, 0, 0]),
        bn.zkey), "ZKPIPE_BAD_INPUT");
});

test("a failed assert of the circuit: ZKPIPE_UNSATISFIED", async () => {
    await rejects(zkpipe.groth16.fullProve({ x: "13" }, bn.wasm, bn.zkey), "ZKPIPE_UNSATISFIED", /Assert Failed/);
    await rejects(zkpipe.groth16.fullProve({ x: "13" }, bls.wasm, bls.zkey), "ZKPIPE_UNSATISFIED", /Assert Failed/);
});

test("a witness that does not satisfy the circuit: ZKPIPE_UNSATISFIED; a bad .wtns: ZKPIPE_BAD_INPUT", async () => {
    for (const f of [bn, bls]) {
        const w = { type: "mem" };
        await zkpipe.wtns.calculate({ x: "5" }, f.wasm, w);
        const bad = new Uint8Array(w.data);
        // y (wire 1) = 26 -> 27: the values start after the 76-byte header
        bad[76 + 32] ^= 1;
        await rejects(zkpipe.groth16.prove(f.zkey, bad), "ZKPIPE_UNSATISFIED");
        await rejects(zkpipe.groth16.prove(f.zkey, w.data.subarray(0, 80)), "ZKPIPE_BAD_INPUT");
    }
    const w = { type: "mem" };
    await zkpipe.wtns.calculate({ x: "5" }, bls.wasm, w);
    await assert.rejects(zkpipe.groth16.prove(bn.zkey, w.data), (e) => e.code === "ZKPIPE_MISMATCH" || e.code === "ZKPIPE_BAD_INPUT");
});

test("wrong argument types: TypeError with ZKPIPE_BAD_ARGUMENT", async () => {
    await rejects(zkpipe.groth16.fullProve(randomInput("assert.bn128"), 42, bn.zkey), "ZKPIPE_BAD_ARGUMENT");
    await rejects(zkpipe.groth16.fullProve("x", bn.wasm, bn.zkey), "ZKPIPE_BAD_ARGUMENT");
    await rejects(zkpipe.groth16.prove(bn.zkey, { type: "mem" }), "ZKPIPE_BAD_ARGUMENT");
    assert.throws(() => new zkpipe.Prover({}), (e) => e.code === "ZKPIPE_BAD_ARGUMENT");
});

test("verify: a malformed proof is false, as snarkjs answers", async () => {
    const vk = await zkpipe.zKey.exportVerificationKey(bn.zkey);
    const r = await zkpipe.groth16.fullProve(randomInput("assert.bn128"), bn.wasm, bn.zkey);
    const p = JSON.parse(JSON.stringify(r.proof));
    p.pi_a[0] = "12345";
    assert.strictEqual(await zkpipe.groth16.verify(vk, r.publicSignals, p), false);
    assert.strictEqual(await zkpipe.groth16.verify(vk, [], r.proof), false);
});

// The circuit is its author's code: a calculator whose getVersion (run as
// the module is opened) never returns is stopped there by an abort, as a
// calculation is, and the call rejects with an AbortError instead of
// holding a thread of the pool for ever.
const loop = fixtures["loop.version"];
test("a calculator that never returns as it is opened: an abort stops it",
    { skip: !loop && "no wat2wasm", timeout: 120000 }, async () => {
        const calls = [
            (signal) => zkpipe.groth16.fullProve({ in: "0" }, loop.wasm, bn.zkey, { signal }),
            (signal) => zkpipe.wtns.calculate({ in: "0" }, loop.wasm, { type: "mem" }, { signal }),
        ];
        for (const call of calls) {
            const ac = new AbortController();
            const p = call(ac.signal);
            setTimeout(() => ac.abort(), 300);
            await assert.rejects(p, { name: "AbortError" });
        }
    });
