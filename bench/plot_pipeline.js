#!/usr/bin/env node
// Draws bench/pipeline.c's results: one SVG per mode, one panel per number
// of synthesis workers, sharing their axes across all modes so the pictures
// compare at a glance. In each panel, over time: the tracked bytes in flight
// per buffer class (stacked areas), the RSS above the idle baseline (what
// the tracked bytes should explain; black), the whole RSS (grey), the
// partitions waiting for the prover (purple, right axis), and in mode c the
// budget (red dashes) and the reserved bytes (red dots).
//
// Usage: node bench/plot_pipeline.js PIPELINE.json [PREFIX]
//   PIPELINE.json: what zkpipe-bench-pipeline --json wrote; the samples are
//   read from its out_dir (or, failing that, from beside the JSON file).
//   Writes PREFIX-mode-a.svg, ... (default PREFIX: OUT_DIR/pipeline).
// No npm packages: plain node.
"use strict";
const fs = require("fs");
const path = require("path");

const [jsonPath, prefixArg] = process.argv.slice(2);
if (!jsonPath) {
    process.stderr.write("usage: node bench/plot_pipeline.js PIPELINE.json [PREFIX]\n");
    process.exit(2);
}
const doc = JSON.parse(fs.readFileSync(jsonPath, "utf8"));
const prefix = prefixArg || path.join(doc.out_dir, "pipeline");

const MODE_TITLE = {
    a: "a: slot released at the end of synthesis, unbounded hand-off (cuzk's out-of-memory configuration)",
    b: "b: slot held until a prover takes the partition, queue = synthesis workers (cuzk's fix)",
    c: "c: zkpipe's memory budget, queues at their default capacity",
};
const CLASS_COLOR = { key: "#9d9d9d", matrices: "#c9b18c", witness: "#4e79a7", abc: "#f28e2b", msm: "#59a14f" };
const COLORS = ["#76b7b2", "#edc948", "#b07aa1", "#ff9da7"];

function readCsv(file) {
    const lines = fs.readFileSync(file, "utf8").trim().split("\n");
    const head = lines[0].split(",");
    return lines.slice(1).map((l) => {
        const v = l.split(",").map(Number);
        const o = {};
        head.forEach((h, i) => (o[h] = v[i]));
        return o;
    });
}
function findCsv(name) {
    for (const dir of [doc.out_dir, path.dirname(jsonPath)]) {
        const p = path.join(dir || ".", name);
        if (fs.existsSync(p)) return p;
    }
    throw new Error(`${name}: not in ${doc.out_dir} nor beside ${jsonPath}`);
}
const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const fmt = (x, d = 0) => (x === null || x === undefined || Number.isNaN(x) ? "-" : x.toFixed(d));
function niceStep(max, n) {
    const raw = max / n, p = 10 ** Math.floor(Math.log10(raw));
    for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= raw) return m * p;
    return 10 * p;
}

// At most one sample per pixel column (the one with the most bytes tracked,
// so peaks survive): the samples come every 50 ms, finer than the picture.
function thin(samples, dt) {
    const out = [];
    for (const s of samples) {
        const last = out[out.length - 1];
        if (last && Math.floor(s.t / dt) === Math.floor(last.t / dt)) {
            if (s.tracked > last.tracked || s.rss > last.rss) out[out.length - 1] = s;
        } else out.push(s);
    }
    return out;
}

const runs = doc.results.filter((r) => r.csv);
for (const r of runs) r.samples = readCsv(findCsv(r.csv));
if (runs.length === 0) throw new Error(`${jsonPath}: no results with samples`);
const classes = Object.keys(runs[0].samples[0]).filter((k) => k.startsWith("bytes_")).map((k) => k.slice(6));

// shared axes
let tMax = 0, yMax = 0, wMax = 4;
for (const r of runs) {
    for (const s of r.samples) {
        tMax = Math.max(tMax, s.t);
        const stack = classes.reduce((a, c) => a + s["bytes_" + c], 0);
        yMax = Math.max(yMax, s.rss, stack, s.reserved || 0);
        wMax = Math.max(wMax, s.parts_wait_prove);
    }
    if (r.budget) yMax = Math.max(yMax, r.budget);
}
const yStep = niceStep(yMax / 1e6, 5) * 1e6, tStep = niceStep(tMax, 10);
yMax = Math.ceil(yMax / yStep) * yStep;
tMax = Math.ceil(tMax / tStep) * tStep;
const wStep = Math.max(1, Math.ceil(wMax / 5));
wMax = Math.ceil(wMax / wStep) * wStep;

const W = 1060, L = 78, R = 64, PH = 200, PT = 34, PB = 34, HEAD = 112;
const pw = W - L - R;

// Then drop the samples on flat stretches (every curve on the same pixel
// as on both neighbours): the shapes stay exact, the files small.
function flat(samples, baseline) {
    const px = (b) => Math.round((b / yMax) * PH * 2);
    const key = (s) => {
        let acc = 0;
        const k = classes.map((c) => px((acc += s["bytes_" + c])));
        return k.concat([px(s.rss), px(s.rss - baseline), px(s.reserved), s.parts_wait_prove]).join(",");
    };
    const keys = samples.map(key);
    return samples.filter((s, i) => i === 0 || i === samples.length - 1 || keys[i] !== keys[i - 1] ||
        keys[i] !== keys[i + 1]);
}
for (const r of runs) r.samples = flat(thin(r.samples, tMax / pw), (r.memory || {}).baseline_rss || 0);

function panel(r, top) {
    const x = (t) => L + (t / tMax) * pw;
    const y = (b) => top + PT + PH - (b / yMax) * PH;
    const yw = (n) => top + PT + PH - (n / wMax) * PH;
    const out = [];
    const m = r.memory || {};
    out.push(`<text x="${L}" y="${top + 22}" class="ty"><tspan class="pt">${esc(
        `${r.workers} synthesis worker${r.workers > 1 ? "s" : ""}:`)}</tspan> ${esc(
        `${fmt(r.proofs_per_min, 1)} proofs/min, peak RSS ${fmt(m.peak_rss / 1e6)} MB, ` +
        `peak tracked ${fmt(m.peak_tracked / 1e6)} MB, up to ${r.max_waiting.prove} waiting for the prover; ` +
        `tracked = ${fmt(r.explained_pct)}% of RSS above baseline at its peak`)}</text>`);
    // grid and axes
    for (let b = 0; b <= yMax + 1; b += yStep)
        out.push(`<line x1="${L}" x2="${L + pw}" y1="${y(b)}" y2="${y(b)}" class="grid"/>` +
            `<text x="${L - 6}" y="${y(b) + 4}" class="ty" text-anchor="end">${fmt(b / 1e6)}</text>`);
    for (let t = 0; t <= tMax + 1e-9; t += tStep)
        out.push(`<line x1="${x(t)}" x2="${x(t)}" y1="${y(0)}" y2="${y(0) + 4}" class="axis"/>` +
            `<text x="${x(t)}" y="${y(0) + 16}" class="ty" text-anchor="middle">${fmt(t, tStep < 1 ? 1 : 0)}</text>`);
    for (let n = 0; n <= wMax; n += wStep)
        out.push(`<text x="${L + pw + 6}" y="${yw(n) + 4}" class="ty" fill="#7b3294">${n}</text>`);
    out.push(`<text x="${L + pw / 2}" y="${y(0) + 30}" class="ty" text-anchor="middle">seconds since submission</text>`);
    out.push(`<text transform="translate(${L - 52},${top + PT + PH / 2}) rotate(-90)" class="ty" text-anchor="middle">MB</text>`);
    out.push(`<text transform="translate(${L + pw + 40},${top + PT + PH / 2}) rotate(-90)" class="ty" ` +
        `text-anchor="middle" fill="#7b3294">partitions waiting</text>`);
    // stacked classes
    const s = r.samples;
    const base = s.map(() => 0);
    for (const c of classes) {
        const upper = s.map((p, i) => base[i] + p["bytes_" + c]);
        const pts = s.map((p, i) => `${x(p.t).toFixed(1)},${y(upper[i]).toFixed(1)}`)
            .concat(s.map((p, i) => `${x(p.t).toFixed(1)},${y(base[i]).toFixed(1)}`).reverse());
        out.push(`<polygon points="${pts.join(" ")}" fill="${CLASS_COLOR[c] || COLORS[classes.indexOf(c) % 4]}" ` +
            `fill-opacity="0.85" stroke="none"/>`);
        upper.forEach((u, i) => (base[i] = u));
    }
    const line = (f, cls) =>
        `<polyline class="${cls}" points="${s.map((p) => `${x(p.t).toFixed(1)},${f(p).toFixed(1)}`).join(" ")}"/>`;
    const baseline = m.baseline_rss || 0;
    out.push(line((p) => y(p.rss), "rss"));
    out.push(line((p) => y(Math.max(0, p.rss - baseline)), "rssb"));
    if (r.budget) {
        out.push(line((p) => y(p.reserved), "resv"));
        out.push(`<line x1="${L}" x2="${L + pw}" y1="${y(r.budget)}" y2="${y(r.budget)}" class="budget"/>` +
            `<text x="${L + pw - 4}" y="${y(r.budget) - 4}" class="ty" text-anchor="end" fill="#d62728">` +
            `budget ${fmt(r.budget / 1e6)} MB</text>`);
    }
    // waiting partitions, as steps
    const steps = [];
    s.forEach((p, i) => {
        if (i > 0) steps.push(`${x(p.t).toFixed(1)},${yw(s[i - 1].parts_wait_prove).toFixed(1)}`);
        steps.push(`${x(p.t).toFixed(1)},${yw(p.parts_wait_prove).toFixed(1)}`);
    });
    out.push(`<polyline class="wait" points="${steps.join(" ")}"/>`);
    out.push(`<rect x="${L}" y="${top + PT}" width="${pw}" height="${PH}" class="frame"/>`);
    return out.join("\n");
}

function legend(top, mode) {
    const items = classes.map((c) => ["area", CLASS_COLOR[c], `tracked: ${c}`])
        .concat([["line", "#000", "RSS above baseline"], ["line", "#999", "RSS"],
            ["line", "#7b3294", "partitions waiting for the prover"]]);
    if (mode === "c") items.push(["dash", "#d62728", "budget"], ["dot", "#d62728", "reserved"]);
    const out = [];
    let x = L;
    for (const [kind, color, label] of items) {
        if (x + 18 + label.length * 6.2 > W - R) {
            x = L;
            top += 16;
        }
        if (kind === "area") out.push(`<rect x="${x}" y="${top - 9}" width="14" height="10" fill="${color}"/>`);
        else out.push(`<line x1="${x}" x2="${x + 14}" y1="${top - 4}" y2="${top - 4}" stroke="${color}" ` +
            `stroke-width="2"${kind === "dash" ? ' stroke-dasharray="6,3"' : kind === "dot" ? ' stroke-dasharray="2,2"' : ""}/>`);
        out.push(`<text x="${x + 18}" y="${top}" class="ty">${esc(label)}</text>`);
        x += 26 + label.length * 6.2;
    }
    return out.join("\n");
}

const written = [];
for (const mode of doc.modes.split("")) {
    const mine = runs.filter((r) => r.mode === mode).sort((a, b) => a.workers - b.workers);
    if (mine.length === 0) continue;
    const H = HEAD + mine.length * (PT + PH + PB + 12) + 10;
    const cal = doc.calibration || {};
    const parts = [
        `<?xml version="1.0" encoding="UTF-8"?>`,
        `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" ` +
        `font-family="DejaVu Sans, Helvetica, Arial, sans-serif">`,
        `<style>.pt{font-size:12px;font-weight:bold}.ty{font-size:11px}.grid{stroke:#e4e4e4}.axis{stroke:#444}` +
        `.frame{fill:none;stroke:#444}.rss{fill:none;stroke:#999;stroke-width:1.2}` +
        `.rssb{fill:none;stroke:#000;stroke-width:1.6}.wait{fill:none;stroke:#7b3294;stroke-width:1.4}` +
        `.budget{stroke:#d62728;stroke-width:1.6;stroke-dasharray:6,3}` +
        `.resv{fill:none;stroke:#d62728;stroke-width:1.2;stroke-dasharray:2,2}</style>`,
        `<rect width="${W}" height="${H}" fill="#fff"/>`,
        `<text x="${L}" y="24" font-size="15" font-weight="bold">Mode ${esc(MODE_TITLE[mode])}</text>`,
        `<text x="${L}" y="44" class="ty">${esc(
            `${path.basename(path.dirname(doc.key))}/${path.basename(doc.key)} (${cal.curve}, domain ${cal.domain}), ` +
            `${doc.jobs} jobs x ${doc.partitions} partitions submitted at once, ${doc.cpus} CPUs; ` +
            `one proof: prove ${fmt(cal.prove_s, 2)} s + finalize ${fmt(cal.final_s, 2)} s`)}</text>`,
        `<text x="${L}" y="60" class="ty">${esc(
            `witness generation modelled as a ${fmt(doc.witness_ms)} ms sleep per partition (no CPU); ` +
            `baseline = RSS at engine creation; MB = 10^6 bytes; axes shared by all modes`)}</text>`,
        legend(84, mode),
    ];
    mine.forEach((r, i) => parts.push(panel(r, HEAD + i * (PT + PH + PB + 12))));
    parts.push("</svg>");
    const file = `${prefix}-mode-${mode}.svg`;
    fs.writeFileSync(file, parts.join("\n") + "\n");
    written.push(file);
}
process.stdout.write(written.map((f) => `wrote ${f}\n`).join(""));
