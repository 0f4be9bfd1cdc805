// Two builds of zkpipe's npm package in one Node process, their warm
// Prover.fullProve calls alternated one by one, so that a shared, loaded
// machine's noise falls on both alike: per configuration the median wall
// time, the median process CPU time (all threads: the work, whatever the
// load), and the event loop's longest delay per call (median and max;
// perf_hooks.monitorEventLoopDelay, 1 ms resolution).
//
//   node bench/node_ab.js [--runs N] NAME=ADDON[:THREADS[:prepare]] ... -- WASM ZKEY INPUT.json
//
// ADDON is a built zkpipe.node (bindings/node/index.js is loaded once
// per name, with ZKPIPE_NODE_ADDON set to it); THREADS the Prover's
// threads (0 or none: the package's default); prepare: the Prover made
// with { prepare: true } (the key's point tables), else { prepare: false }. For example, the build before a
// change against this one:
//   node bench/node_ab.js --runs 20 before=/tmp/base.node:2 \
//     after=$PWD/build/node-package/zkpipe.node -- $A/semaphore-1.wasm $A/semaphore-1.zkey $A/semaphore-1.input.json
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { performance, monitorEventLoopDelay } = require("perf_hooks");

const index = path.resolve(__dirname, "..", "bindings", "node");
let runs = 20;
const configs = [];
const argv = process.argv.slice(2);
let i = 0;
for (; i < argv.length && argv[i] !== "--"; i++) {
    if (argv[i] === "--runs") runs = Number(argv[++i]);
    else {
        const [name, rest] = argv[i].split("=");
        const [addon, threads, prepare] = rest.split(":");
        configs.push({ name, addon: path.resolve(addon), threads: Number(threads || 0), prepare: prepare === "prepare" });
    }
}
const [wasm, zkey, inputPath] = argv.slice(i + 1);
if (configs.length === 0 || !inputPath) {
    console.error("usage: node bench/node_ab.js [--runs N] NAME=ADDON[:THREADS] ... -- WASM ZKEY INPUT.json");
    process.exit(2);
}
const input = JSON.parse(fs.readFileSync(inputPath, "utf8"));

const median = (v) => {
    const s = [...v].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main() {
    for (const c of configs) {
        process.env.ZKPIPE_NODE_ADDON = c.addon;
        delete require.cache[require.resolve(index)];
        c.zkpipe = require(index);
        const opts = { zkey, wasm, concurrency: 1, ...(c.threads ? { threads: c.threads } : {}) };
        c.prover = new c.zkpipe.Prover({ ...opts, prepare: c.prepare });
        await c.prover.fullProve(input); // the first call's one-time costs
        c.wall = [];
        c.cpu = [];
        c.loop = [];
    }
    const cpu = (fs.readFileSync("/proc/cpuinfo", "utf8").match(/model name\s*:\s*(.*)/) || [])[1] || os.arch();
    console.log(`node_ab: ${cpu}, ${os.cpus().length} CPUs, node ${process.version}, ${runs} runs alternated, ` +
        `load average ${os.loadavg()[0].toFixed(1)} at the start; ${path.basename(wasm)}`);
    for (let r = 0; r < runs; r++) {
        for (const c of configs) {
            const h = monitorEventLoopDelay({ resolution: 1 });
            h.enable();
            const u0 = process.cpuUsage(), t0 = performance.now();
            await c.prover.fullProve(input);
            const t1 = performance.now(), u = process.cpuUsage(u0);
            h.disable();
            c.wall.push(t1 - t0);
            c.cpu.push((u.user + u.system) / 1000);
            c.loop.push(h.max / 1e6);
        }
    }
    for (const c of configs) {
        const m = c.prover.memory();
        console.log(`${c.name.padStart(10)}: threads ${m.threads}, wall ${median(c.wall).toFixed(1)} ms (min ` +
            `${Math.min(...c.wall).toFixed(1)}), CPU ${median(c.cpu).toFixed(1)} ms, loop delay per call: median ` +
            `${median(c.loop).toFixed(1)} ms, max ${Math.max(...c.loop).toFixed(1)} ms`);
        await c.prover.close();
    }
    console.log(`load average ${os.loadavg()[0].toFixed(1)} at the end`);
}
main().catch((e) => { console.error(e); process.exit(1); });
