// A real project's code unchanged on zkpipe: @semaphore-protocol/proof's
// generateProof (groth16.fullProve) and verifyProof (groth16.verify, with
// Semaphore's own verification keys), its `snarkjs` dependency pointed at
// zkpipe's package by npm overrides (tests/node/semaphore.sh sets the
// folder up). Each proof is also checked by the real snarkjs against the
// artifacts' verification key; the circuits' inputs are written beside
// the artifacts for bench/node_fullprove.js.
//
//   node semaphore_check.js PROJECT_DIR ARTIFACTS_DIR SNARKJS_DIR DEPTH...
"use strict";
const fs = require("fs");
const path = require("path");
const [project, artifacts, realSnarkjs, ...depths] = process.argv.slice(2);
const req = (m) => require(require.resolve(m, { paths: [project] }));
const { Identity } = req("@semaphore-protocol/identity");
const { Group } = req("@semaphore-protocol/group");
const { generateProof, verifyProof } = req("@semaphore-protocol/proof");
const overridden = req("snarkjs");
const snarkjs = require(realSnarkjs);

async function main() {
    if (typeof overridden.version !== "string" || typeof overridden.Prover !== "function") {
        throw new Error("the project's snarkjs is not zkpipe");
    }
    console.log(`semaphore_check: the project's snarkjs is zkpipe ${overridden.version}`);
    // record what the project hands to fullProve (the bench's inputs)
    const fullProve = overridden.groth16.fullProve;
    let last;
    overridden.groth16.fullProve = async (input, wasm, zkey, ...rest) => {
        last = await fullProve(input, wasm, zkey, ...rest);
        last.input = input;
        return last;
    };
    let failures = 0;
    for (const d of depths.map(Number)) {
        const members = Array.from({ length: 2 }, (_, i) => new Identity(`member ${i} ${Math.random()}`));
        const group = new Group(members.map((m) => m.commitment));
        const art = { wasm: path.join(artifacts, `semaphore-${d}.wasm`), zkey: path.join(artifacts, `semaphore-${d}.zkey`) };
        const t0 = Date.now();
        const proof = await generateProof(members[1], group, "hello", `scope ${d}`, d, art);
        const ms = Date.now() - t0;
        const ok = await verifyProof(proof);
        const vk = JSON.parse(fs.readFileSync(path.join(artifacts, `semaphore-${d}.json`), "utf8"));
        const real = await snarkjs.groth16.verify(vk, last.publicSignals, last.proof);
        // a wrong message must not verify through the project either
        const forged = await verifyProof({ ...proof, message: "12345" });
        console.log(`depth ${d}: generateProof ${ms} ms, verifyProof ${ok}, snarkjs verify ${real}, forged ${forged}`);
        if (!ok || !real || forged) failures++;
        const input = JSON.stringify(last.input, (k, v) => (typeof v === "bigint" ? v.toString() : v));
        fs.writeFileSync(path.join(artifacts, `semaphore-${d}.input.json`), input);
    }
    await globalThis.curve_bn128?.terminate();
    if (failures) throw new Error(`${failures} depths failed`);
    console.log("semaphore_check: ok");
}
main().catch((e) => { console.error(e); process.exit(1); });
