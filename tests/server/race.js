#!/usr/bin/env node
// Helpers for tests/server/confine.sh's witness_dir race, bounded in count
// and time:
//   race.js swap DIR NAME TARGET COUNT SECONDS
//     makes DIR/NAME alternate, as fast as it can, between a real directory
//     (kept as DIR/NAME.d) and a symlink to TARGET (kept as DIR/NAME.l),
//     by renames; stops after COUNT swaps or SECONDS; prints the count.
//   race.js post URL TOKEN BODYFILE COUNT PARALLEL SECONDS
//     POSTs BODYFILE to URL COUNT times, PARALLEL at once (loopback), and
//     prints {"codes": {status: n}, "ids": [ids of 201 answers]}.
'use strict';
const fs = require('fs');
const http = require('http');
const [mode, ...a] = process.argv.slice(2);

if (mode === 'swap') {
    const [dir, name, target] = a;
    const count = Number(a[3]), secs = Number(a[4]);
    const p = `${dir}/${name}`, d = `${p}.d`, l = `${p}.l`;
    fs.rmSync(l, { force: true });
    fs.symlinkSync(target, l);
    const end = Date.now() + secs * 1000;
    let n = 0;
    for (; n < count && (n % 256 || Date.now() < end); n++) {
        try {
            fs.renameSync(d, p); // a directory
            fs.renameSync(p, d);
            fs.renameSync(l, p); // a symlink to outside
            fs.renameSync(p, l);
        } catch (e) {
            console.error(`swap: ${e.message}`);
            process.exit(1);
        }
    }
    console.log(n);
} else if (mode === 'post') {
    const [url, token, file] = a;
    const count = Number(a[3]), par = Number(a[4]), secs = Number(a[5]);
    const body = fs.readFileSync(file);
    const agent = new http.Agent({ keepAlive: true, maxSockets: par });
    const codes = {}, ids = [];
    const end = Date.now() + secs * 1000;
    let started = 0, finished = 0;
    const one = () => {
        if (started >= count || Date.now() > end) {
            if (finished === started) {
                console.log(JSON.stringify({ codes, ids }));
                agent.destroy();
            }
            return;
        }
        started++;
        const req = http.request(`${url}/v1/jobs`, {
            method: 'POST', agent, timeout: 30000,
            headers: { 'Content-Type': 'application/json', 'Authorization': `Bearer ${token}` },
        }, (res) => {
            const chunks = [];
            res.on('data', (c) => chunks.push(c));
            res.on('end', () => {
                codes[res.statusCode] = (codes[res.statusCode] || 0) + 1;
                if (res.statusCode === 201) {
                    try { ids.push(JSON.parse(Buffer.concat(chunks)).id); } catch (e) { ids.push(-1); }
                }
                finished++;
                one();
            });
        });
        req.on('timeout', () => req.destroy(new Error('timeout')));
        req.on('error', () => { codes.error = (codes.error || 0) + 1; finished++; one(); });
        req.end(body);
    };
    for (let i = 0; i < par; i++) one();
} else {
    console.error('usage: race.js swap DIR NAME TARGET COUNT SECONDS | post URL TOKEN BODY COUNT PARALLEL SECONDS');
    process.exit(2);
}
