// snarkjs's API, both curves: proofs from fullProve and prove verified by
// snarkjs, results of snarkjs's shape, files as paths, bytes and
// { type: "mem" }, wtns.calculate's bytes and the verification key
// identical to snarkjs's.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const fs = require("fs");
const { fixtures, zkpipe, randomInput, shape, snarkjsVk, snarkjs } = require("./helpers");

for (const name of ["assert.bn128", "assert.bls12381"]) {
    const f = fixtures[name];
    const curve = name.split(".")[1];

    test(`${name}: fullProve verified by snarkjs, shaped as snarkjs's`, async () => {
        const input = randomInput(name);
        const ours = await zkpipe.groth16.fullProve(input, f.wasm, f.zkey);
        const theirs = await snarkjs.groth16.fullProve(input, f.wasm, f.zkey);
        const vk = await snarkjsVk(name);
        assert.strictEqual(await snarkjs.groth16.verify(vk, ours.publicSignals, ours.proof), true);
        assert.deepStrictEqual(ours.publicSignals, theirs.publicSignals);
        assert.deepStrictEqual(shape(ours), shape(theirs));
        assert.deepStrictEqual(Object.keys(ours.proof), Object.keys(theirs.proof));
        assert.strictEqual(ours.proof.curve, curve);
        assert.strictEqual(ours.proof.protocol, "groth16");
        // zkpipe's verify agrees, both ways
        assert.strictEqual(await zkpipe.groth16.verify(vk, ours.publicSignals, ours.proof), true);
        assert.strictEqual(await zkpipe.groth16.verify(vk, theirs.publicSignals, theirs.proof), true);
        const bad = [...ours.publicSignals];
        bad[0] = (BigInt(bad[0]) + 1n).toString();
        assert.strictEqual(await zkpipe.groth16.verify(vk, bad, ours.proof), false);
        assert.strictEqual(await snarkjs.groth16.verify(vk, bad, ours.proof), false);
        // solidity calldata export takes it unchanged
        const calldata = await snarkjs.groth16.exportSolidityCallData(ours.proof, ours.publicSignals);
        assert.match(calldata, /^\["0x/);
    });

    test(`${name}: files as Uint8Array and { type: "mem" }; bigint inputs`, async () => {
        const wasm = new Uint8Array(fs.readFileSync(f.wasm));
        const zkey = { type: "mem", data: new Uint8Array(fs.readFileSync(f.zkey)) };
        const input = randomInput(name);
        const big = Object.fromEntries(Object.entries(input).map(([k, v]) => [k, BigInt(v)]));
        const r = await zkpipe.groth16.fullProve(big, wasm, zkey);
        assert.strictEqual(await snarkjs.groth16.verify(await snarkjsVk(name), r.publicSignals, r.proof), true);
    });

    test(`${name}: wtns.calculate byte for byte snarkjs's; prove of it verified`, async () => {
        const input = randomInput(name);
        const ours = { type: "mem" };
        const theirs = { type: "mem" };
        await zkpipe.wtns.calculate(input, f.wasm, ours);
        await snarkjs.wtns.calculate(input, f.wasm, theirs);
        assert.ok(ours.data instanceof Uint8Array);
        assert.deepStrictEqual(Buffer.from(ours.data), Buffer.from(theirs.data));
        // prove from snarkjs's witness, as bytes and as a path
        const r1 = await zkpipe.groth16.prove(f.zkey, theirs.data);
        const wpath = `${process.env.ZKPIPE_TEST_WORKDIR}/${name}.wtns`;
        fs.writeFileSync(wpath, theirs.data);
        const r2 = await zkpipe.groth16.prove({ type: "mem", data: new Uint8Array(fs.readFileSync(f.zkey)) }, wpath);
        const s = await snarkjs.groth16.prove(f.zkey, theirs.data);
        const vk = await snarkjsVk(name);
        for (const r of [r1, r2]) {
            assert.strictEqual(await snarkjs.groth16.verify(vk, r.publicSignals, r.proof), true);
            assert.deepStrictEqual(shape(r), shape(s));
            assert.deepStrictEqual(r.publicSignals, s.publicSignals);
        }
    });

    test(`${name}: zKey.exportVerificationKey equal to snarkjs's`, async () => {
        const ours = await zkpipe.zKey.exportVerificationKey(f.zkey);
        const theirs = await snarkjsVk(name);
        assert.deepStrictEqual(ours, theirs);
    });
}

test("version", () => {
    assert.match(zkpipe.version, /^\d+\.\d+\.\d+$/);
});
