// The calls run on the addon's own threads, not on libuv's pool: file
// reads and crypto keep going while calls hold every thread zkpipe has;
// a one-shot groth16.prove stops on an abort; a Worker terminated, or a
// process exiting, in the middle of a call that never returns ends at
// once (its threads told to stop and joined before anything is freed).
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const fs = require("fs");
const crypto = require("crypto");
const os = require("os");
const { spawnSync } = require("child_process");
const { Worker } = require("worker_threads");
const { fixtures, zkpipe, randomInput, path } = require("./helpers");

const bn = fixtures["assert.bn128"];
const loop = fixtures["loop.version"];
const pkg = path.resolve(__dirname, "..");

// resolves with what p gives, or rejects after ms
function within(p, ms, what) {
    let t;
    const late = new Promise((_, reject) => { t = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms); });
    return Promise.race([p, late]).finally(() => clearTimeout(t));
}

test("calls holding every zkpipe thread leave libuv's pool to fs and crypto",
    { skip: !loop && "no wat2wasm", timeout: 120000 }, async () => {
        // more calls that never return (a calculator whose getVersion
        // loops) than libuv's pool has threads (4) or the addon (4 or
        // the CPUs)
        const n = Math.max(8, os.availableParallelism() + 2);
        const ac = new AbortController();
        require("events").setMaxListeners(n + 4, ac.signal);
        const hung = Array.from({ length: n }, () => zkpipe.wtns.calculate({ in: "0" }, loop.wasm, { type: "mem" },
            { signal: ac.signal }));
        await new Promise((r) => setTimeout(r, 300));
        const t0 = Date.now();
        await within(fs.promises.readFile(__filename), 10000, "fs.promises.readFile beside the calls");
        await within(new Promise((res, rej) => crypto.pbkdf2("pw", "salt", 1000, 32, "sha256", (e, k) => (e ? rej(e) : res(k)))),
            10000, "crypto.pbkdf2 beside the calls");
        const ms = Date.now() - t0;
        assert.ok(ms < 10000, `${ms} ms`);
        ac.abort();
        const settled = await within(Promise.allSettled(hung), 60000, "the aborted calls");
        for (const s of settled) {
            assert.strictEqual(s.status, "rejected");
            assert.strictEqual(s.reason.name, "AbortError", String(s.reason));
        }
        // and the threads are free again
        const r = await zkpipe.groth16.fullProve(randomInput("assert.bn128"), bn.wasm, bn.zkey);
        assert.ok(r.proof.pi_a);
    });

test("a one-shot groth16.prove aborted in flight rejects with AbortError or ends with its proof", async () => {
    const w = { type: "mem" };
    await zkpipe.wtns.calculate(randomInput("assert.bn128"), bn.wasm, w);
    let aborted = 0;
    for (let i = 0; i < 20; i++) {
        const c = new AbortController();
        const p = zkpipe.groth16.prove(bn.zkey, w.data, { signal: c.signal });
        setTimeout(() => c.abort(), i % 4);
        await p.then((r) => assert.ok(r.proof.pi_a), (e) => { assert.strictEqual(e.name, "AbortError", String(e)); aborted++; });
    }
    const gone = AbortSignal.abort();
    await assert.rejects(zkpipe.groth16.prove(bn.zkey, w.data, { signal: gone }), { name: "AbortError" });
});

test("a Worker terminated in the middle of a call that never returns ends", { skip: !loop && "no wat2wasm", timeout: 120000 },
    async () => {
        const worker = new Worker(`
            const { parentPort, workerData } = require("worker_threads");
            const zkpipe = require(workerData.pkg);
            zkpipe.wtns.calculate({ in: "0" }, workerData.wasm, { type: "mem" }).catch(() => {});
            setTimeout(() => parentPort.postMessage("started"), 200);
        `, { eval: true, workerData: { pkg, wasm: loop.wasm } });
        await new Promise((res, rej) => { worker.once("message", res); worker.once("error", rej); });
        const t0 = Date.now();
        await within(worker.terminate(), 30000, "worker.terminate()");
        assert.ok(Date.now() - t0 < 30000);
        // the process goes on: another call works
        const r = await zkpipe.groth16.fullProve(randomInput("assert.bn128"), bn.wasm, bn.zkey);
        assert.ok(r.proof.pi_a);
    });

test("process.exit() in the middle of a call that never returns exits", { skip: !loop && "no wat2wasm", timeout: 120000 },
    () => {
        const code = `
            const zkpipe = require(${JSON.stringify(pkg)});
            zkpipe.wtns.calculate({ in: "0" }, ${JSON.stringify(loop.wasm)}, { type: "mem" }).catch(() => {});
            setTimeout(() => process.exit(3), 300);
        `;
        const t0 = Date.now();
        const r = spawnSync(process.execPath, ["-e", code], { timeout: 60000, encoding: "utf8" });
        assert.strictEqual(r.status, 3, `status ${r.status}, signal ${r.signal}: ${r.stderr}`);
        assert.ok(Date.now() - t0 < 60000);
    });
