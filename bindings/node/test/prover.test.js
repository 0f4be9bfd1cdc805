// new zkpipe.Prover: 200 proofs in flight on one Prover with the peak RSS
// inside its budget, aborted calls that free what they held, RSS flat
// over 1,000 calls, close().
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const { fixtures, zkpipe, randomInput, snarkjsVk, snarkjs } = require("./helpers");

const bn = fixtures["assert.bn128"], bls = fixtures["assert.bls12381"];
const MiB = 1 << 20;

// Samples RSS every 2 ms until stopped: the peak over the baseline.
function rssSampler() {
    const base = process.memoryUsage.rss();
    let peak = base;
    const t = setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()); }, 2);
    return { stop() { clearInterval(t); peak = Math.max(peak, process.memoryUsage.rss()); return peak - base; } };
}

for (const [name, f] of [["assert.bn128", bn], ["assert.bls12381", bls]]) {
    test(`${name}: 200 proofs in flight on one Prover, peak RSS inside its budget`, async () => {
        const budget = 64 * MiB;
        const prover = new zkpipe.Prover({ zkey: f.zkey, wasm: f.wasm, budget, concurrency: 3 });
        await prover.ready();
        await prover.fullProve(randomInput(name)); // the first call's one-time costs
        if (global.gc) global.gc();
        const sampler = rssSampler();
        const inputs = Array.from({ length: 200 }, () => randomInput(name));
        const results = await Promise.all(inputs.map((i) => prover.fullProve(i)));
        const grew = sampler.stop();
        const m = prover.memory();
        assert.ok(grew < budget, `RSS grew ${(grew / MiB).toFixed(1)} MiB, budget ${budget / MiB} MiB`);
        assert.ok(m.trackedPeak <= budget, `tracked peak ${m.trackedPeak}`);
        assert.ok(m.slots >= 1 && m.slots <= 3);
        assert.strictEqual(m.inFlight, 0);
        const vk = await snarkjsVk(name);
        for (let i = 0; i < results.length; i++) {
            assert.strictEqual(await zkpipe.groth16.verify(vk, results[i].publicSignals, results[i].proof), true);
        }
        for (const i of [0, 57, 199]) { // snarkjs checks a sample
            assert.strictEqual(await snarkjs.groth16.verify(vk, results[i].publicSignals, results[i].proof), true);
        }
        // prove(wtns) on the same Prover
        const w = { type: "mem" };
        await zkpipe.wtns.calculate(randomInput(name), f.wasm, w);
        const r = await prover.prove(w.data);
        assert.strictEqual(await snarkjs.groth16.verify(vk, r.publicSignals, r.proof), true);
        await prover.close();
        await assert.rejects(prover.fullProve(randomInput(name)), (e) => e.code === "ZKPIPE_CLOSED");
        console.log(`# ${name}: 200 in flight, RSS +${(grew / MiB).toFixed(1)} MiB, ` +
            `tracked peak ${(m.trackedPeak / MiB).toFixed(2)} MiB over ${m.slots} slots`);
    });
}

test("a budget that cannot hold one proof: ZKPIPE_NOMEM", async () => {
    const prover = new zkpipe.Prover({ zkey: bn.zkey, wasm: bn.wasm, budget: 1000 });
    await assert.rejects(prover.ready(), (e) => e.code === "ZKPIPE_NOMEM");
    await assert.rejects(prover.fullProve(randomInput("assert.bn128")), (e) => e.code === "ZKPIPE_NOMEM");
});

test("aborted calls reject with AbortError and free what they held", async () => {
    const prover = new zkpipe.Prover({ zkey: bn.zkey, wasm: bn.wasm, concurrency: 1 });
    await prover.fullProve(randomInput("assert.bn128"));
    const before = prover.memory();
    // aborted before the call: rejects at once
    const gone = AbortSignal.abort();
    await assert.rejects(prover.fullProve(randomInput("assert.bn128"), { signal: gone }), { name: "AbortError" });
    await assert.rejects(zkpipe.groth16.fullProve(randomInput("assert.bn128"), bn.wasm, bn.zkey, { signal: gone }),
        { name: "AbortError" });
    // aborted while 50 are queued or running: each settles, none crashes
    const ac = new AbortController();
    require("events").setMaxListeners(100, ac.signal); // one listener per queued call
    const calls = Array.from({ length: 50 }, () => prover.fullProve(randomInput("assert.bn128"), { signal: ac.signal }));
    setImmediate(() => ac.abort());
    const settled = await Promise.allSettled(calls);
    const aborted = settled.filter((s) => s.status === "rejected");
    for (const s of aborted) assert.strictEqual(s.reason.name, "AbortError", String(s.reason));
    assert.ok(aborted.length > 0, "some calls were aborted");
    // one-shot calls aborted in flight (the key's opening, the witness)
    for (let i = 0; i < 20; i++) {
        const c = new AbortController();
        const p = zkpipe.groth16.fullProve(randomInput("assert.bn128"), bn.wasm, bn.zkey, { signal: c.signal });
        setTimeout(() => c.abort(), i % 3);
        await p.then((r) => assert.ok(r.proof), (e) => assert.strictEqual(e.name, "AbortError"));
    }
    // the prover is whole: the same memory, and it proves
    const after = prover.memory();
    assert.strictEqual(after.tracked, before.tracked);
    assert.strictEqual(after.inFlight, 0);
    const r = await prover.fullProve(randomInput("assert.bn128"));
    assert.strictEqual(await zkpipe.groth16.verify(await snarkjsVk("assert.bn128"), r.publicSignals, r.proof), true);
    await prover.close();
});

test("no leak over 1,000 calls: RSS flat", async () => {
    const prover = new zkpipe.Prover({ zkey: bn.zkey, wasm: bn.wasm });
    const batch = async (n) => {
        for (let i = 0; i < n; i += 10) {
            await Promise.all(Array.from({ length: 10 }, () => prover.fullProve(randomInput("assert.bn128"))));
        }
    };
    await batch(200); // warm: every arena and cache at its size
    if (global.gc) global.gc();
    const mid = process.memoryUsage.rss();
    await batch(800);
    // one-shot calls too (a key and a circuit opened and closed each time)
    for (let i = 0; i < 100; i++) await zkpipe.groth16.fullProve(randomInput("assert.bn128"), bn.wasm, bn.zkey);
    if (global.gc) global.gc();
    const end = process.memoryUsage.rss();
    console.log(`# RSS after 200 calls ${(mid / MiB).toFixed(1)} MiB, after 1,100 ${(end / MiB).toFixed(1)} MiB`);
    assert.ok(end - mid < 16 * MiB, `RSS grew ${((end - mid) / MiB).toFixed(1)} MiB over 900 calls`);
    await prover.close();
});

test("a proof's threads: one per CPU but one unless given, so the event loop keeps a core", async () => {
    const os = require("os");
    const cpus = typeof os.availableParallelism === "function" ? os.availableParallelism() : os.cpus().length;
    const byDefault = new zkpipe.Prover({ zkey: bn.zkey, wasm: bn.wasm, concurrency: 1 });
    const given = new zkpipe.Prover({ zkey: bn.zkey, wasm: bn.wasm, concurrency: 1, threads: 3 });
    await Promise.all([byDefault.ready(), given.ready()]);
    assert.strictEqual(byDefault.memory().threads, Math.max(1, cpus - 1));
    assert.strictEqual(byDefault.memory().key, require("fs").statSync(bn.zkey).size);
    assert.strictEqual(given.memory().threads, 3);
    const r = await byDefault.fullProve(randomInput("assert.bn128"));
    assert.strictEqual(await snarkjs.groth16.verify(await snarkjsVk("assert.bn128"), r.publicSignals, r.proof), true);
    await Promise.all([byDefault.close(), given.close()]);
});

test("prepare (the default): the slots make their point tables as the Prover opens", async () => {
    const plain = new zkpipe.Prover({ zkey: bn.zkey, wasm: bn.wasm, concurrency: 1, prepare: false });
    const prepared = new zkpipe.Prover({ zkey: bn.zkey, wasm: bn.wasm, concurrency: 1 });
    await Promise.all([plain.ready(), prepared.ready()]);
    assert.strictEqual(plain.memory().tracked, 0);
    assert.ok(prepared.memory().tracked > 0, "prepared before the first call");
    const input = randomInput("assert.bn128");
    const [a, b] = await Promise.all([plain.fullProve(input), prepared.fullProve(input)]);
    // the tables are what the prepared slot holds beyond the plain one's working memory and matrices
    assert.ok(prepared.memory().tracked > plain.memory().tracked,
        `prepared ${prepared.memory().tracked} bytes, plain ${plain.memory().tracked}`);
    const vk = await snarkjsVk("assert.bn128");
    for (const r of [a, b]) assert.strictEqual(await snarkjs.groth16.verify(vk, r.publicSignals, r.proof), true);
    await Promise.all([plain.close(), prepared.close()]);
    // under a budget the slots keep no tables: prepare makes the matrices only
    const budgeted = new zkpipe.Prover({ zkey: bn.zkey, wasm: bn.wasm, concurrency: 1, prepare: true, budget: 64 << 20 });
    await budgeted.ready();
    const r = await budgeted.fullProve(input);
    assert.strictEqual(await snarkjs.groth16.verify(vk, r.publicSignals, r.proof), true);
    await budgeted.close();
});
