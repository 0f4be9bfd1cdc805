#!/usr/bin/env node
// A stand-in for `zkpipe serve`, for developing and testing the dashboard
// without the engine: serves src/server/assets (index.html at /, every file
// at /assets/<name>) and fake but self-consistent GET /v1/status,
// /v1/status/history, /v1/jobs, /v1/jobs/{id} in docs/daemon.md's shapes,
// from a small simulation of the pipeline (jobs of 1-4 partitions going
// through synth -> wait_prove -> prove -> wait_final -> final -> dealloc under
// a memory budget, with bounded queues between the stages).
//
// Usage: node tests/server/fake_daemon.js [--port N] [--token T]
//        [--prefill SECONDS] [--budget BYTES] [--seed N]
// Prints "listening on http://127.0.0.1:PORT/" once it listens (port 0: any
// free port). No dependencies but Node's own modules.
//
// --hostile MODE: a daemon that lies, to test that the client commands take
// its answers as untrusted input (tests/server/confine.sh): every /v1/status,
// /v1/jobs/N, /v1/jobs/N/proof, /v1/keys[/ID], POST /v1/jobs and
// DELETE /v1/jobs/N gets MODE's answer (see HOSTILE below): times out of
// range, wrong types, missing fields, huge arrays, control characters,
// absurd numbers, a body that is not JSON.
'use strict';
const http = require('http');
const fs = require('fs');
const path = require('path');

const args = { port: 8791, token: null, prefill: 150, budget: 768 * 1024 * 1024, seed: 1, hostile: null };
for (let i = 2; i < process.argv.length; i += 2) {
    const k = process.argv[i].replace(/^--/, '');
    const v = process.argv[i + 1];
    if (!(k in args) || v === undefined) {
        console.error(`usage: fake_daemon.js [--port N] [--token T] [--prefill S] [--budget BYTES] [--seed N] [--hostile MODE]`);
        process.exit(2);
    }
    args[k] = k === 'token' || k === 'hostile' ? v : Number(v);
}
const ASSETS = path.resolve(__dirname, '../../src/server/assets');
const MiB = 1024 * 1024;

// Deterministic pseudo-random numbers (mulberry32), so runs are alike.
let seed = args.seed >>> 0;
function rand() {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const between = (a, b) => a + (b - a) * rand();

const CLASSES = ['key', 'matrices', 'witness', 'abc', 'msm'];
const STAGES = ['synth', 'wait_prove', 'prove', 'wait_final', 'final', 'dealloc'];
const WORKERS = { synth: 2, prove: 1, finalize: 1, queue: 2 };
const KEY = { key: 48 * MiB, matrices: 16 * MiB };
// A partition's buffers: [class, bytes, count], and the stages that hold them.
const PART = { witness: [4 * MiB, 1], abc: [24 * MiB, 3], msm: [32 * MiB, 1] };
const RESERVE = 4 * MiB + 24 * MiB + 32 * MiB;
const BASELINE_RSS = 31 * MiB + 384 * 1024;

// The simulation runs on a virtual clock `vt` (seconds since start); the
// daemon's uptime is vt. Unix time = T0 + vt.
const T0 = Date.now() / 1000 - args.prefill;
let vt = 0;
const sim = {
    jobs: [], // every job, oldest first
    parts: [], // partitions not yet ended
    nextId: 1,
    nextArrival: 0.5,
    keyLoaded: false,
    peaks: { reserved: 0, tracked: 0, rss: 0 },
    classPeak: Object.fromEntries(CLASSES.map((c) => [c, 0])),
    stageMax: Object.fromEntries(STAGES.map((s) => [s, 0])),
    proofs: 0,
    partitionsFailed: 0,
    rssSlack: 0, // freed bytes the allocator has not yet returned
    history: [],
};

function newJob() {
    const n = 1 + Math.floor(rand() * 4);
    const id = sim.nextId++;
    const job = {
        id, key: 'merkle', priority: rand() < 0.2 ? 1 : 0, request_id: `fake-${id}`,
        state: 'queued', partitions: n, done: 0, submitted: T0 + vt, finished: null,
        timings: [], willFail: rand() < 0.06, willCancel: rand() < 0.04,
    };
    for (let p = 0; p < n; p++) {
        job.timings.push({ partition: p, queued: 0, synth: 0, wait_prove: 0, prove: 0, wait_final: 0, final: 0, total: 0 });
        sim.parts.push({ job, p, stage: 'admission', since: vt, left: 0, hold: [] });
    }
    sim.jobs.push(job);
}

// Bytes a partition holds in each stage: [witness, abc, msm] present?
function holds(stage) {
    switch (stage) {
    case 'synth': case 'wait_prove': return ['witness', 'abc'];
    case 'prove': return ['witness', 'abc', 'msm'];
    case 'wait_final': case 'final': return ['witness', 'msm'];
    case 'dealloc': return ['witness', 'msm'];
    default: return [];
    }
}
const inStage = (s) => sim.parts.filter((x) => x.stage === s);
const reservedBytes = () => sim.parts.filter((x) => x.stage !== 'admission').length * RESERVE
    + (sim.keyLoaded ? KEY.key + KEY.matrices : 0);

function enter(part, stage, dur) {
    const t = part.job.timings[part.p];
    const spent = vt - part.since;
    if (part.stage === 'admission') t.queued += spent;
    else if (part.stage in t) t[part.stage] += spent;
    part.stage = stage;
    part.since = vt;
    part.left = dur;
    if (stage !== 'admission' && part.job.state === 'queued') part.job.state = 'running';
}

function endPart(part, ok) {
    const job = part.job;
    const t = job.timings[part.p];
    t.total = t.queued + t.synth + t.wait_prove + t.prove + t.wait_final + t.final;
    sim.parts.splice(sim.parts.indexOf(part), 1);
    if (job.state === 'cancelled') return;
    if (ok) { job.done++; sim.proofs++; } else sim.partitionsFailed++;
    if (job.state === 'failed') return;
    if (!ok) job.state = 'failed', job.error = `partition ${part.p}: the proof did not verify`;
    if (job.done === job.partitions) job.state = 'done';
    if (job.state !== 'running' && job.state !== 'queued') job.finished = T0 + vt;
}

function step(dt) {
    vt += dt;
    // Arrivals, while the backlog is short.
    if (vt >= sim.nextArrival) {
        if (inStage('admission').length < 6) newJob();
        sim.nextArrival = vt + between(1.5, 4);
    }
    if (!sim.keyLoaded && sim.parts.length) sim.keyLoaded = true;
    for (const part of sim.parts.slice()) part.left -= dt;
    // Cancellations: a job marked for it is cancelled once running.
    for (const job of sim.jobs) {
        if (job.willCancel && job.state === 'running' && job.done >= 1) {
            job.state = 'cancelled';
            job.finished = T0 + vt;
            // Its partitions not yet admitted are dropped; admitted ones run out.
            for (const part of sim.parts.filter((x) => x.job === job && x.stage === 'admission'))
                sim.parts.splice(sim.parts.indexOf(part), 1);
        }
    }
    // Later stages first, so a freed slot is taken within the same step.
    for (const part of inStage('dealloc')) if (part.left <= 0) {
        sim.rssSlack += RESERVE * 0.15;
        endPart(part, !part.job.willFail || part.p !== 0);
    }
    for (const part of inStage('final')) if (part.left <= 0) enter(part, 'dealloc', between(0.1, 0.4));
    for (const part of inStage('wait_final')) if (inStage('final').length < WORKERS.finalize) enter(part, 'final', between(0.3, 0.7));
    for (const part of inStage('prove')) if (part.left <= 0 && inStage('wait_final').length < WORKERS.queue) enter(part, 'wait_final', 0);
    for (const part of inStage('wait_prove')) if (inStage('prove').length < WORKERS.prove) enter(part, 'prove', between(1.2, 2.2));
    for (const part of inStage('synth')) if (part.left <= 0 && inStage('wait_prove').length < WORKERS.queue) enter(part, 'wait_prove', 0);
    const waiting = inStage('admission').sort((a, b) => b.job.priority - a.job.priority || a.job.id - b.job.id);
    for (const part of waiting) {
        if (inStage('synth').length >= WORKERS.synth) break;
        if (reservedBytes() + RESERVE > args.budget) break;
        if (part.job.state === 'cancelled') continue;
        enter(part, 'synth', between(0.6, 1.4));
    }
    // Stage highs and peaks.
    for (const s of STAGES) sim.stageMax[s] = Math.max(sim.stageMax[s], inStage(s).length);
    const st = snapshot();
    sim.peaks.reserved = Math.max(sim.peaks.reserved, st.reserved);
    sim.peaks.tracked = Math.max(sim.peaks.tracked, st.tracked);
    sim.peaks.rss = Math.max(sim.peaks.rss, st.rss);
    for (const c of CLASSES) sim.classPeak[c] = Math.max(sim.classPeak[c], st.classes[c].bytes);
    sim.rssSlack *= Math.pow(0.6, dt); // the allocator returns memory over time
    // One history sample per whole second of uptime.
    const sec = Math.floor(T0 + vt);
    const last = sim.history[sim.history.length - 1];
    if (!last || last.t < sec) {
        sim.history.push({
            t: sec, rss: st.rss, tracked: st.tracked, reserved: st.reserved, budget: args.budget,
            classes: Object.fromEntries(CLASSES.map((c) => [c, st.classes[c].bytes])),
        });
        if (sim.history.length > 600) sim.history.shift();
    }
}

// The numbers of the moment (without peaks), all derived from sim.parts.
function snapshot() {
    const classes = Object.fromEntries(CLASSES.map((c) => [c, { count: 0, bytes: 0 }]));
    const stages = {};
    if (sim.keyLoaded) {
        classes.key.count = 1; classes.key.bytes = KEY.key;
        classes.matrices.count = 1; classes.matrices.bytes = KEY.matrices;
    }
    for (const s of STAGES) {
        const ps = inStage(s);
        let count = 0, bytes = 0;
        for (const part of ps) for (const c of holds(s)) {
            const [b, n] = PART[c];
            count += n; bytes += b;
            classes[c].count += n; classes[c].bytes += b;
        }
        stages[s] = { partitions: ps.length, count, bytes };
    }
    const tracked = CLASSES.reduce((a, c) => a + classes[c].bytes, 0);
    const reserved = reservedBytes();
    const rss = BASELINE_RSS + tracked + Math.round(sim.rssSlack / 4096) * 4096;
    return { classes, stages, tracked, reserved, rss };
}

function status() {
    const st = snapshot();
    const count = (s) => sim.jobs.filter((j) => j.state === s).length;
    return {
        version: '0.1.0-fake', uptime: Math.round(vt * 1000) / 1000,
        budget: args.budget, reserved: st.reserved, peak_reserved: sim.peaks.reserved,
        tracked: st.tracked, peak_tracked: sim.peaks.tracked,
        rss: st.rss, peak_rss: sim.peaks.rss, baseline_rss: BASELINE_RSS,
        classes: Object.fromEntries(CLASSES.map((c) => [c, { ...st.classes[c], peak: sim.classPeak[c] }])),
        stages: Object.fromEntries(STAGES.map((s) => [s, { ...st.stages[s], max_partitions: sim.stageMax[s] }])),
        admission_waiting: inStage('admission').length,
        workers: { ...WORKERS },
        keys_loaded: sim.keyLoaded ? 1 : 0,
        jobs: { queued: count('queued'), running: count('running'), done: count('done'), failed: count('failed'), cancelled: count('cancelled') },
        proofs: sim.proofs, partitions_failed: sim.partitionsFailed,
    };
}

function jobJson(job, withTimings) {
    const o = {
        id: job.id, key: job.key, priority: job.priority, request_id: job.request_id, state: job.state,
        partitions: job.partitions, done: job.done, submitted: Math.round(job.submitted * 1000) / 1000,
        finished: job.finished === null ? null : Math.round(job.finished * 1000) / 1000,
    };
    if (job.state === 'failed') o.error = job.error;
    if (withTimings) {
        o.timings = job.timings.map((t) => {
            const r = {};
            for (const [k, v] of Object.entries(t)) r[k] = k === 'partition' ? v : Math.round(v * 1000) / 1000;
            return r;
        });
    }
    return o;
}

// Prefill: run the first `prefill` seconds at once, then follow the clock.
const DT = 0.05;
while (vt < args.prefill) step(DT);
setInterval(() => {
    const now = Date.now() / 1000;
    while (T0 + vt < now - DT / 2) step(DT);
}, 50);

function send(res, code, body, type = 'application/json') {
    const data = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
    res.writeHead(code, { 'Content-Type': type, 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(data) });
    res.end(data);
}
const error = (res, code, word, message) => send(res, code, { error: { code: word, message } });
const TYPES = { '.html': 'text/html; charset=utf-8', '.css': 'text/css; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon' };

function asset(res, name) {
    if (!/^[A-Za-z0-9._-]+$/.test(name) || name.startsWith('.')) return error(res, 404, 'not_found', `no asset ${name}`);
    fs.readFile(path.join(ASSETS, name), (err, data) => {
        if (err) return error(res, 404, 'not_found', `no asset ${name}`);
        send(res, 200, data, TYPES[path.extname(name)] || 'application/octet-stream');
    });
}

// The hostile answers: MODE -> (kind of answer) -> [status, body].
const big = (n, f) => Array.from({ length: n }, (_, i) => f(i));
const HOSTILE = {
    // out of range: times a calendar cannot hold, counts past 2^63
    time: {
        status: { version: 'x', uptime: 1e308, budget: 1.7e308, reserved: -1e308, rss: 1e300, workers: { synth: 1e30 },
            stages: { synth: { partitions: 1e308, bytes: -5 } }, jobs: { done: 1e300 } },
        job: { id: 1e300, state: 'done', partitions: 1e308, done: -1e308, priority: 1e300, key: 'k',
            submitted: 1e300, finished: -1.7e308, timings: [{ partition: 1e300, total: 1e308, synth: -1e308 }] },
        proof: [200, { proofs: [{ partition: 9007199254740991, proof: {}, public: [] }] }],
        keys: { keys: [{ id: 'k', wires: 1e308, key_bytes: 1.7e308, partition_bytes: -1 }] },
        post: { id: -5, state: 'queued' },
    },
    // every field of another type
    types: {
        status: { version: 7, uptime: 'long', budget: [1], workers: 'many', stages: [1, 2], classes: 'x', jobs: [3] },
        job: { id: 'one', state: 5, partitions: {}, done: [], key: null, submitted: 'yesterday', finished: true,
            request_id: 3, error: {}, timings: { partition: 0 } },
        proof: [200, { proofs: { 0: 'x' } }],
        keys: { keys: { id: 'k' } },
        post: { id: '17' },
    },
    // the right shape with nothing in it, or not even an object
    missing: { status: {}, job: {}, proof: [200, {}], keys: {}, post: {} },
    array: { status: [], job: [1, 2, 3], proof: [200, []], keys: [], post: [17] },
    // huge arrays and objects
    huge: {
        status: { stages: Object.fromEntries(big(50000, (i) => [`s${i}`, { partitions: i }])) },
        job: { id: 1, state: 'done', timings: big(200000, (i) => ({ partition: i, total: i })) },
        proof: [200, { proofs: big(200001, () => ({ proof: {}, public: [] })) }],
        keys: { keys: big(200000, (i) => ({ id: `k${i}` })) },
        post: { id: 1, x: big(100000, (i) => i) },
    },
    // control characters meant for the terminal
    ctrl: {
        status: { version: '\u001b[2J\u001b]0;owned\u0007', stages: { '\u001b[31m': {} } },
        job: { id: 1, state: '\u001b[2Jdone\u009b', key: '\r\n\u0000', error: '\u001b]52;c;AAAA\u0007', request_id: '\u007f' },
        proof: [409, { error: { code: 'failed', message: '\u001b[2Jbad' } }],
        keys: { keys: [{ id: '\u001b[1mk', curve: '\b\b' }] },
        post: [500, { error: { code: 'internal', message: '\u001b[2J' } }],
    },
    // not JSON
    text: { status: [200, 'not json\xff'], job: [200, '{"id": 1,'], proof: [200, '\u001b[2J'], keys: [200, ''], post: [201, 'x'] },
};
function hostile(req, res, p) {
    const mode = HOSTILE[args.hostile];
    if (!mode) return error(res, 500, 'internal', `no hostile mode ${args.hostile}`);
    let kind = null;
    if (p === '/v1/status') kind = 'status';
    else if (/^\/v1\/jobs\/\d+\/proof$/.test(p)) kind = 'proof';
    else if (/^\/v1\/jobs\/\d+$/.test(p)) kind = 'job';
    else if (p === '/v1/jobs' && req.method === 'POST') kind = 'post';
    else if (p.startsWith('/v1/keys')) kind = 'keys';
    if (!kind) return error(res, 404, 'not_found', `no route ${p}`);
    let a = mode[kind];
    if (!Array.isArray(a) || a.length !== 2 || typeof a[0] !== 'number') a = [kind === 'post' ? 201 : 200, a];
    req.resume();
    return send(res, a[0], typeof a[1] === 'string' ? Buffer.from(a[1], 'latin1') : a[1]);
}

const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const p = url.pathname;
    if (args.hostile) return hostile(req, res, p);
    if (req.method !== 'GET') return error(res, 405, 'method_not_allowed', `${req.method} ${p} is not allowed here`);
    if (p === '/') return asset(res, 'index.html');
    if (p.startsWith('/assets/')) return asset(res, p.slice(8));
    if (args.token && req.headers.authorization !== `Bearer ${args.token}`)
        return error(res, 401, 'unauthorized', 'missing or wrong bearer token');
    if (p === '/v1/status') return send(res, 200, status());
    if (p === '/v1/status/history') return send(res, 200, { interval: 1, samples: sim.history });
    if (p === '/v1/fleet') {
        const st = status();
        return send(res, 200, {
            store: 'sqlite', node: 'fake:1', shared: false, lease: 30,
            daemons: [{ id: 'fake:1', host: 'fake', pid: process.pid, started: Date.now() / 1000 - st.uptime,
                heartbeat_age: 0.5, budget: st.budget, tracked: st.tracked, claimed: 0, proofs: st.proofs || 0 }],
            queue: { queued_partitions: 0, running_partitions: 0, queued_jobs: 0, running_jobs: 0 },
        });
    }
    if (p === '/v1/jobs') {
        const limit = Math.min(1000, Math.max(1, Number(url.searchParams.get('limit') || 50) | 0));
        const state = url.searchParams.get('state');
        const jobs = sim.jobs.filter((j) => !state || j.state === state).slice(-limit).reverse();
        return send(res, 200, { jobs: jobs.map((j) => jobJson(j, false)) });
    }
    const m = /^\/v1\/jobs\/(\d+)$/.exec(p);
    if (m) {
        const job = sim.jobs.find((j) => j.id === Number(m[1]));
        return job ? send(res, 200, jobJson(job, true)) : error(res, 404, 'not_found', `no job ${m[1]}`);
    }
    return error(res, 404, 'not_found', `no route ${p}`);
});
server.listen(args.port, '127.0.0.1', () => {
    console.log(`listening on http://127.0.0.1:${server.address().port}/`);
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(0));
