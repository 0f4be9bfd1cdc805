#!/usr/bin/env node
// Many one-proof jobs through one HTTP client: the daemon's own rate,
// without a `zkpipe submit` and a `zkpipe await` process per job (each
// loads libcurl and its TLS stack: on a VM where a fresh page costs
// 10-35 µs, those processes set the rate of bench/daemon_small.sh).
// CLIENTS concurrent loops POST the jobs (the witness uploaded, as
// `zkpipe submit` does) over kept-alive connections, then the same loops
// fetch every proof (GET /v1/jobs/ID/proof?wait=...). Prints
// "proofs_per_s jobs seconds" on one line; exits 1 when a job fails.
// Usage: node bench/http_load.js URL KEY WITNESS JOBS CLIENTS
//   env: TOKEN (a bearer token, when the daemon asks for one)
'use strict';
const fs = require('fs');

const [url, key, wtnsPath, jobsArg, clientsArg] = process.argv.slice(2);
const jobs = Number(jobsArg), clients = Number(clientsArg);
if (!url || !key || !wtnsPath || !(jobs > 0) || !(clients > 0)) {
    console.error('usage: node bench/http_load.js URL KEY WITNESS JOBS CLIENTS');
    process.exit(2);
}
const headers = {'Content-Type': 'application/json'};
if (process.env.TOKEN) headers.Authorization = `Bearer ${process.env.TOKEN}`;
const body = JSON.stringify({key, witnesses: [{data: fs.readFileSync(wtnsPath).toString('base64')}]});

async function request(method, path, payload) {
    const res = await fetch(url + path, {method, headers, body: payload});
    const text = await res.text();
    let json = null;
    try { json = JSON.parse(text); } catch (e) { /* reported below */ }
    if (json === null) throw new Error(`${method} ${path}: HTTP ${res.status}, not JSON: ${text.slice(0, 200)}`);
    return {status: res.status, json};
}

// n jobs' worth of fn(i), `clients` at a time
async function inLoops(n, fn) {
    let next = 0;
    const loop = async () => { for (let i = next++; i < n; i = next++) await fn(i); };
    await Promise.all(Array.from({length: Math.min(clients, n)}, loop));
}

(async () => {
    const ids = new Array(jobs);
    const t0 = process.hrtime.bigint();
    await inLoops(jobs, async (i) => {
        const r = await request('POST', '/v1/jobs', body);
        if (r.status !== 201 && r.status !== 200) {
            throw new Error(`POST /v1/jobs (job ${i}): HTTP ${r.status} ${JSON.stringify(r.json)}`);
        }
        ids[i] = r.json.id;
    });
    await inLoops(jobs, async (i) => {
        for (;;) {
            const r = await request('GET', `/v1/jobs/${ids[i]}/proof?wait=60`);
            if (r.status === 200 && r.json.state === 'done' && r.json.proofs.length === 1) return;
            if (r.status === 202 || (r.json.state !== undefined && ['queued', 'running'].includes(r.json.state))) {
                continue;
            }
            throw new Error(`job ${ids[i]}: HTTP ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`);
        }
    });
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    console.log(`${(jobs / s).toFixed(1)} ${jobs} ${s.toFixed(3)}`);
})().catch((e) => {
    console.error(`http_load: ${e.message}`);
    process.exit(1);
});
