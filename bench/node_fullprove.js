// zkpipe's npm package against snarkjs in one Node process:
// groth16.fullProve (witness + proof) per circuit, the first call and
// warm (snarkjs: fullProve again; zkpipe: a Prover kept across calls),
// time, the process's peak RSS during each phase, and the event loop's
// delay while the proofs run (perf_hooks.monitorEventLoopDelay, 1 ms
// resolution: the longest stall the loop saw).
//
//   node bench/node_fullprove.js [--runs N] [--threads T] [--zkpipe-only] NAME=WASM:ZKEY:INPUT.json ...
//
// Needs the addon built (bindings/node: npm run build, or ZKPIPE_NODE_ADDON)
// and snarkjs (the repository's node_modules). Prints a table; warm
// times are medians over the runs (each run timed alone), the loop's
// delay the longest of the phase. --threads: the Prover's threads
// (default: the package's, one per CPU but one); --zkpipe-only: no
// snarkjs columns (faster on a loaded machine).
//
// The Semaphore artifacts of bench/results/2026-12-05-node*.txt (wasm,
// zkey and the inputs @semaphore-protocol/proof passed to fullProve,
// made by tests/node/semaphore_check.js): on the lead's machine in
// /work/big/node/art/package, e.g.
//   ZKPIPE_NODE_ADDON=$PWD/build/node-package/zkpipe.node ZKPIPE_CACHE=/work/big/node/cache \
//   node bench/node_fullprove.js --runs 20 \
//     semaphore-1=$A/semaphore-1.wasm:$A/semaphore-1.zkey:$A/semaphore-1.input.json
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { performance, monitorEventLoopDelay } = require("perf_hooks");

const root = path.resolve(__dirname, "..");
const snarkjs = require(path.join(root, "node_modules", "snarkjs"));
const zkpipe = require(path.join(root, "bindings", "node"));

let runs = 5, threads = 0, zkpipeOnly = false;
const circuits = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--runs") runs = Number(argv[++i]);
    else if (argv[i] === "--threads") threads = Number(argv[++i]);
    else if (argv[i] === "--zkpipe-only") zkpipeOnly = true;
    else {
        const [name, rest] = argv[i].split("=");
        const [wasm, zkey, input] = rest.split(":");
        circuits.push({ name, wasm, zkey, input: JSON.parse(fs.readFileSync(input, "utf8")) });
    }
}
if (circuits.length === 0) {
    console.error("usage: node bench/node_fullprove.js [--runs N] NAME=WASM:ZKEY:INPUT.json ...");
    process.exit(2);
}

// Runs fn, sampling RSS every 2 ms and the loop's delay: { s, peakRss, loopMax }
async function phase(fn) {
    const h = monitorEventLoopDelay({ resolution: 1 });
    let peak = process.memoryUsage.rss();
    const t = setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()); }, 2);
    h.enable();
    const t0 = performance.now();
    const out = await fn();
    const s = (performance.now() - t0) / 1000;
    h.disable();
    clearInterval(t);
    peak = Math.max(peak, process.memoryUsage.rss());
    return { s, peakRss: peak, loopMax: h.max / 1e6, out };
}

// Runs fn n times, each timed alone: { s (the median), loopMax, peakRss }
async function warm(n, fn) {
    const times = [];
    const p = await phase(async () => {
        for (let i = 0; i < n; i++) {
            const t0 = performance.now();
            await fn();
            times.push((performance.now() - t0) / 1000);
        }
    });
    times.sort((a, b) => a - b);
    const s = n % 2 ? times[(n - 1) / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
    return { s, loopMax: p.loopMax, peakRss: p.peakRss };
}

const MiB = 1 << 20;
const fmt = (s) => (Number.isNaN(s) ? "-" : s < 1 ? `${(s * 1000).toFixed(1)} ms` : `${s.toFixed(2)} s`);

async function main() {
    const cpu = (fs.readFileSync("/proc/cpuinfo", "utf8").match(/model name\s*:\s*(.*)/) || [])[1] || os.arch();
    console.log(`node_fullprove: ${cpu}, ${os.cpus().length} CPUs, node ${process.version}, zkpipe ${zkpipe.version}, ` +
        `${runs} warm runs each, load average ${os.loadavg()[0].toFixed(1)} at the start`);
    const rows = [];
    for (const c of circuits) {
        const vk = await snarkjs.zKey.exportVerificationKey(c.zkey);
        // zkpipe first (the process is smaller before snarkjs has run)
        const opts = threads ? { threads } : {};
        const z1 = await phase(() => zkpipe.groth16.fullProve(c.input, c.wasm, c.zkey, opts));
        const prover = new zkpipe.Prover({ zkey: c.zkey, wasm: c.wasm, concurrency: 1, ...opts });
        await prover.fullProve(c.input);
        const zw = await warm(runs, () => prover.fullProve(c.input));
        await prover.close();
        const none = { s: NaN, peakRss: 0, loopMax: 0, out: null };
        const s1 = zkpipeOnly ? none : await phase(() => snarkjs.groth16.fullProve(c.input, c.wasm, c.zkey));
        const sw = zkpipeOnly ? none : await warm(runs, () => snarkjs.groth16.fullProve(c.input, c.wasm, c.zkey));
        for (const r of [z1.out, s1.out]) {
            if (r && !(await snarkjs.groth16.verify(vk, r.publicSignals, r.proof))) throw new Error(c.name + ": bad proof");
        }
        const zWarm = zw.s, sWarm = sw.s;
        rows.push([c.name, fmt(s1.s), fmt(z1.s), zkpipeOnly ? "" : (s1.s / z1.s).toFixed(1) + "x", fmt(sWarm), fmt(zWarm),
            zkpipeOnly ? "" : (sWarm / zWarm).toFixed(1) + "x", (s1.peakRss / MiB).toFixed(0), (Math.max(z1.peakRss, zw.peakRss) / MiB).toFixed(0),
            Math.max(s1.loopMax, sw.loopMax).toFixed(1), Math.max(z1.loopMax, zw.loopMax).toFixed(1)]);
    }
    const head = ["circuit", "snarkjs 1st", "zkpipe 1st", "", "snarkjs warm", "zkpipe warm", "",
        "snarkjs RSS MiB", "zkpipe RSS MiB", "snarkjs loop ms", "zkpipe loop ms"];
    const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
    const line = (r) => r.map((x, i) => String(x).padStart(w[i])).join("  ");
    console.log(line(head));
    for (const r of rows) console.log(line(r));
    console.log(`warm: the median of ${runs}, zkpipe through a Prover (key and circuit kept; threads ` +
        `${threads || "the default"}), snarkjs fullProve again; RSS: the process's ` +
        "peak during the phase (zkpipe's phases run first); loop: the longest event-loop delay during the phase.");
    console.log(`load average ${os.loadavg()[0].toFixed(1)} at the end`);
    for (const c of ["curve_bn128", "curve_bls12381"]) if (globalThis[c]) await globalThis[c].terminate();
}
main().catch((e) => { console.error(e); process.exit(1); });
