#!/usr/bin/env node
// The upload storm of intake.sh: CLIENTS connections at once, each sending
// ROUNDS bodies of exactly MAX_REQUEST bytes to POST /v1/jobs, while
// GET /v1/status is sampled every 50 ms and the daemon's VmRSS is read from
// /proc every 10 ms.
//   intake_storm.js URL TOKEN PID WTNS MAX_REQUEST CLIENTS ROUNDS OUT
// Bodies, in turn per client:
//   valid: one witness (WTNS, base64) padded with JSON whitespace to
//          MAX_REQUEST bytes: must end 201, its job id kept;
//   bogus: one 'data' string of random bytes, base64, the whole body
//          MAX_REQUEST bytes: a witness that is no .wtns, must end 422
//          (decoded and checked, then refused);
//   stream: WTNS back to back up to MAX_REQUEST bytes, the last one's w[0]
//          broken, as application/octet-stream: must end 422;
//   inputs: one input object of MAX_REQUEST / 24 bytes, an array of small
//          numbers (the shape whose JSON tree is largest against its text,
//          ~24x): parsed in an arena reserved from the budget, then refused
//          with 422 (key merkle has no circuit);
// every fourth upload is chunked (no Content-Length). A 503 must carry
// Retry-After and error.code "busy_memory"; the client waits that long and
// sends the same body again (at most 60 tries). A chunked body refused in
// its middle is a closed connection: counted, and sent again.
// Writes OUT: {uploads: [{kind, chunked, code, tries, id}], codes, samples:
// [{t, tracked, reserved, rss, tracked_at_rss, budget, buffer_budget, intake}], rss_max,
// rss_samples, errors}.
"use strict";
const fs = require("fs");
const http = require("http");
const crypto = require("crypto");

const [url, token, pid, wtnsPath, maxRequestS, clientsS, roundsS, out] = process.argv.slice(2);
const MAX = Number(maxRequestS), CLIENTS = Number(clientsS), ROUNDS = Number(roundsS);
const u = new URL(url);
const auth = { Authorization: "Bearer " + token };
const agent = new http.Agent({ keepAlive: false, maxSockets: CLIENTS + 4 });

function validBody() {
    const head = '{"key":"merkle","witnesses":[{"data":"' + fs.readFileSync(wtnsPath).toString("base64") + '"}]';
    const body = Buffer.alloc(MAX, 0x20); // spaces: JSON whitespace
    body.write(head, 0, "latin1");
    body.write("}", MAX - 1, "latin1");
    return body;
}
function bogusBody() {
    const head = '{"key":"merkle","witnesses":[{"data":"', tail = '"}]}';
    const chars = Math.floor((MAX - head.length - tail.length) / 4) * 4;
    const b64 = crypto.randomBytes((chars / 4) * 3).toString("base64");
    const body = Buffer.alloc(MAX, 0x20);
    body.write(head, 0, "latin1");
    body.write(b64, head.length, "latin1");
    body.write(tail, head.length + chars, "latin1");
    return body;
}
// stream: the witness's .wtns back to back as application/octet-stream
// (POST /v1/jobs?key=merkle), as many as fit in MAX_REQUEST, the last one's
// w[0] broken: streamed to the spool and checked all the way, then 422
function streamBody() {
    const w = fs.readFileSync(wtnsPath), n = Math.floor(MAX / w.length);
    const body = Buffer.concat(Array.from({ length: n }, () => w));
    // w[0]'s first byte in the last file: its values section starts after
    // the 12-byte file header, section 1 (12 + 40) and section 2's header (12)
    body[(n - 1) * w.length + 12 + 52 + 12] = 2;
    return body;
}
function inputsBody() {
    const head = '{"key":"merkle","inputs":[{"a":[0', tail = "]}]}", n = Math.floor(MAX / 24);
    return Buffer.from(head + ",0".repeat(Math.floor((n - head.length - tail.length) / 2)) + tail, "latin1");
}
const BODIES = { valid: validBody(), bogus: bogusBody(), stream: streamBody(), inputs: inputsBody() };

function post(body, chunked) {
    return new Promise((resolve) => {
        // Expect: 100-continue, as curl and libcurl send it for big bodies:
        // a refusal comes before the body is sent
        const stream = body === BODIES.stream;
        const headers = Object.assign({ "Content-Type": stream ? "application/octet-stream" : "application/json",
            Expect: "100-continue" }, auth);
        if (!chunked) headers["Content-Length"] = body.length;
        const path = stream ? "/v1/jobs?key=merkle" : "/v1/jobs";
        const req = http.request(
            { host: u.hostname, port: u.port, path, method: "POST", headers, agent, timeout: 60000 },
            (res) => {
                let text = "";
                res.setEncoding("utf8");
                res.on("data", (d) => (text += d));
                res.on("end", () => {
                    let j = null;
                    try { j = JSON.parse(text); } catch (e) { /* reported below */ }
                    resolve({ code: res.statusCode, retry: res.headers["retry-after"], json: j, text });
                });
            });
        req.on("timeout", () => req.destroy(new Error("timeout")));
        req.on("error", (e) => resolve({ code: 0, error: e.code || e.message }));
        req.on("continue", () => send(req, body, chunked));
    });
}

function send(req, body, chunked) {
    {
        if (chunked) { // in 256 KiB writes, as a streaming client would
            let off = 0;
            const next = () => {
                while (off < body.length) {
                    const part = body.subarray(off, Math.min(off + 262144, body.length));
                    off += part.length;
                    if (!req.write(part)) return req.once("drain", next);
                }
                req.end();
            };
            next();
        } else {
            req.end(body);
        }
    }
}

const uploads = [], codes = {}, errors = [];
async function upload(kind, chunked) {
    const rec = { kind, chunked, code: 0, tries: 0 };
    uploads.push(rec);
    for (let t = 0; t < 60; t++) {
        rec.tries++;
        const r = await post(BODIES[kind], chunked);
        const key = r.code ? String(r.code) : "closed";
        codes[key] = (codes[key] || 0) + 1;
        rec.code = r.code;
        if (r.code === 503) {
            const ecode = r.json && r.json.error && r.json.error.code;
            if (!r.retry || ecode !== "busy_memory") errors.push("503 without Retry-After or busy_memory: " + r.text.slice(0, 200));
            await new Promise((ok) => setTimeout(ok, 1000 * Number(r.retry || 1) * (0.5 + Math.random())));
            continue;
        }
        if (r.code === 0) { // refused mid-body (chunked) or dropped
            if (!chunked) errors.push("connection error on a Content-Length upload: " + r.error);
            await new Promise((ok) => setTimeout(ok, 500 + 500 * Math.random()));
            continue;
        }
        if (r.code === 201 && r.json) rec.id = r.json.id;
        if (r.code >= 400) rec.message = r.json && r.json.error ? r.json.error.code + ": " + r.json.error.message : r.text.slice(0, 200);
        break;
    }
    return rec;
}

const samples = [];
let rssMax = 0, rssSamples = 0, stop = false;
function readRss() {
    try {
        const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync("/proc/" + pid + "/status", "utf8"));
        if (m) { rssSamples++; rssMax = Math.max(rssMax, Number(m[1]) * 1024); }
    } catch (e) { /* gone */ }
}
function status() {
    return new Promise((resolve) => {
        const req = http.get(url + "/v1/status", { headers: auth, timeout: 2000 }, (res) => {
            let text = "";
            res.on("data", (d) => (text += d));
            res.on("end", () => { try { resolve(JSON.parse(text)); } catch (e) { resolve(null); } });
        });
        req.on("timeout", () => req.destroy(new Error("timeout")));
        req.on("error", () => resolve(null));
    });
}
async function sampler() {
    const t0 = Date.now();
    while (!stop) {
        const s = await status();
        if (s) {
            samples.push({ t: (Date.now() - t0) / 1000, tracked: s.tracked, reserved: s.reserved, rss: s.rss,
                tracked_at_rss: s.tracked_at_rss,
                budget: s.budget, buffer_budget: s.buffer_budget,
                intake: s.classes && s.classes.intake ? s.classes.intake.bytes : null,
                intake_peak: s.classes && s.classes.intake ? s.classes.intake.peak : null });
        }
        await new Promise((ok) => setTimeout(ok, 50));
    }
}

async function client(c) {
    for (let r = 0; r < ROUNDS; r++) {
        const n = c * ROUNDS + r;
        await upload(["valid", "bogus", "stream", "inputs"][(c + r) % 4], n % 4 === 3);
    }
}

(async () => {
    const rssTimer = setInterval(readRss, 10);
    const sampling = sampler();
    const t0 = Date.now();
    await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
    const secs = (Date.now() - t0) / 1000;
    stop = true;
    await sampling;
    clearInterval(rssTimer);
    readRss();
    fs.writeFileSync(out, JSON.stringify({ secs, uploads, codes, samples, rss_max: rssMax, rss_samples: rssSamples, errors }));
})();
