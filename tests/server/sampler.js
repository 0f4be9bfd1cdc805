#!/usr/bin/env node
// Samples a daemon's GET /v1/status every INTERVAL seconds for load_crash.sh.
//   sampler.js run URLFILE TOKEN OUT STOPFILE [INTERVAL=0.2]
//       reads the daemon's base URL from URLFILE before each sample (it
//       changes when the daemon restarts), appends one JSON line per sample
//       to OUT ({t, tracked, reserved, budget, rss, peak_rss, jobs} or {t,
//       error}), and stops when STOPFILE exists.
//   sampler.js summary OUT
//       prints one JSON object: samples, errors, maxima of tracked, reserved,
//       rss, peak_rss, admission_waiting, the budget(s) seen, and the samples where tracked or
//       reserved exceeded the budget.
"use strict";
const fs = require("fs");
const http = require("http");

function sample(url, token) {
    return new Promise((resolve) => {
        const headers = token ? { Authorization: "Bearer " + token } : {};
        const req = http.get(url + "/v1/status", { headers, timeout: 1000 }, (res) => {
            let body = "";
            res.setEncoding("utf8");
            res.on("data", (d) => (body += d));
            res.on("end", () => {
                if (res.statusCode !== 200) return resolve({ error: "HTTP " + res.statusCode });
                try {
                    resolve({ status: JSON.parse(body) });
                } catch (e) {
                    resolve({ error: "not JSON: " + e.message });
                }
            });
        });
        req.on("timeout", () => req.destroy(new Error("timeout")));
        req.on("error", (e) => resolve({ error: e.code || e.message }));
    });
}

async function run(urlFile, token, out, stopFile, interval) {
    const fd = fs.openSync(out, "a");
    const period = 1000 * interval;
    let next = Date.now();
    while (!fs.existsSync(stopFile)) {
        let url = "";
        try {
            url = fs.readFileSync(urlFile, "utf8").trim();
        } catch (e) {}
        const t = Date.now() / 1000;
        const r = url ? await sample(url, token) : { error: "no URL yet" };
        let line;
        if (r.status) {
            const s = r.status;
            line = { t, tracked: s.tracked, reserved: s.reserved, budget: s.budget, buffer_budget: s.buffer_budget, rss: s.rss, peak_rss: s.peak_rss,
                     peak_tracked: s.peak_tracked, admission_waiting: s.admission_waiting, jobs: s.jobs,
                     proofs: s.proofs };
        } else {
            line = { t, error: r.error };
        }
        fs.writeSync(fd, JSON.stringify(line) + "\n");
        next += period;
        const wait = next - Date.now();
        if (wait > 0) await new Promise((res) => setTimeout(res, wait));
        else next = Date.now();
    }
    fs.closeSync(fd);
}

function summary(out) {
    const lines = fs.readFileSync(out, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    const ok = lines.filter((l) => !l.error);
    const max = (k) => ok.reduce((m, l) => Math.max(m, l[k] || 0), 0);
    // buffers within what the budget leaves them (the budget less the
    // daemon's own memory), and so within the budget
    const over = ok.filter((l) => l.tracked > (l.buffer_budget ?? l.budget) || l.reserved > (l.buffer_budget ?? l.budget));
    console.log(JSON.stringify({
        samples: lines.length, answered: ok.length, errors: lines.length - ok.length,
        first: lines.length ? lines[0].t : 0, last: lines.length ? lines[lines.length - 1].t : 0,
        max_tracked: max("tracked"), max_reserved: max("reserved"), max_rss: max("rss"),
        max_peak_rss: max("peak_rss"), max_peak_tracked: max("peak_tracked"),
        max_admission_waiting: max("admission_waiting"),
        budgets: [...new Set(ok.map((l) => l.budget))],
        over_budget: over.length, over_examples: over.slice(0, 3),
    }));
}

const [cmd, ...a] = process.argv.slice(2);
if (cmd === "run") {
    run(a[0], a[1], a[2], a[3], parseFloat(a[4] || "0.2"));
} else if (cmd === "summary") {
    summary(a[0]);
} else {
    console.error("usage: sampler.js run URLFILE TOKEN OUT STOPFILE [INTERVAL] | summary OUT");
    process.exit(2);
}
