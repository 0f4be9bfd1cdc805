#!/usr/bin/env node
// Draws bench/scale.sh's results: proving time against constraints on
// log-log axes, one line per prover and curve (zkpipe, rapidsnark,
// snarkjs; BN254 solid, BLS12-381 dashed), and with --table prints one
// table per curve: time and peak RSS of each prover, the ratios to zkpipe
// and zkpipe's CPU time over wall time.
//
// Usage: node bench/plot_scale.js SCALE.json OUT.svg [--table]
// No npm packages: plain node.
"use strict";
const fs = require("fs");

const args = process.argv.slice(2);
const table = args.includes("--table");
const [jsonPath, svgPath] = args.filter((a) => a !== "--table");
if (!jsonPath || !svgPath) {
    process.stderr.write("usage: node bench/plot_scale.js SCALE.json OUT.svg [--table]\n");
    process.exit(2);
}
const doc = JSON.parse(fs.readFileSync(jsonPath, "utf8"));
const PROVERS = [
    ["zkpipe", "#1f77b4"],
    ["rapidsnark", "#d62728"],
    ["snarkjs", "#2ca02c"],
];
const CURVE_DASH = { bn128: "", bls12381: "6 4" };

function fmtTime(s) {
    return s >= 10 ? s.toFixed(1) + " s" : s >= 1 ? s.toFixed(2) + " s" : (s * 1000).toFixed(s < 0.1 ? 1 : 0) + " ms";
}

if (table) {
    for (const curve of [...new Set(doc.rows.map((r) => r.curve))]) {
        const rows = doc.rows.filter((r) => r.curve === curve);
        const has = (p) => rows.some((r) => r[p]);
        const head = ["size", "constraints", "zkpipe (peak RSS)", "CPU/wall"];
        for (const p of ["rapidsnark", "snarkjs"]) if (has(p)) head.push(`${p} (peak RSS)`, `${p}/zkpipe`);
        const lines = [head];
        for (const r of rows) {
            const z = r.zkpipe;
            const line = [`2^${r.log}`, String(r.constraints), `${fmtTime(z.median_s)} (${z.peak_rss_mb} MiB)`,
                z.cpu_per_wall.toFixed(2)];
            for (const p of ["rapidsnark", "snarkjs"]) {
                if (!has(p)) continue;
                const o = r[p];
                line.push(o ? `${fmtTime(o.median_s)} (${o.peak_rss_mb} MiB)` : "-",
                    o ? (o.median_s / z.median_s).toFixed(2) + "×" : "-");
            }
            lines.push(line);
        }
        const widths = head.map((_, i) => Math.max(...lines.map((l) => l[i].length)));
        console.log(`\n${curve}: medians of whole processes (${doc.machine}, ${doc.date}, ${doc.commit})`);
        for (const l of lines) console.log(l.map((c, i) => c.padEnd(widths[i])).join("  "));
    }
}

// the plot
const W = 760, H = 520, L = 70, R = 170, T = 40, B = 55;
const pts = [];
for (const r of doc.rows) {
    for (const [p] of PROVERS) if (r[p]) pts.push({ x: r.constraints, y: r[p].median_s });
}
const lx = pts.map((p) => Math.log10(p.x)), ly = pts.map((p) => Math.log10(p.y));
const x0 = Math.floor(Math.min(...lx)), x1 = Math.ceil(Math.max(...lx));
const y0 = Math.floor(Math.min(...ly)), y1 = Math.ceil(Math.max(...ly));
const sx = (v) => L + ((Math.log10(v) - x0) / (x1 - x0)) * (W - L - R);
const sy = (v) => H - B - ((Math.log10(v) - y0) / (y1 - y0)) * (H - T - B);
const out = [];
out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`);
out.push(`<rect width="${W}" height="${H}" fill="white"/>`);
out.push(`<text x="${L}" y="22" font-size="14">Groth16 proof, whole process: time against constraints (log-log)</text>`);
for (let e = x0; e <= x1; e++) {
    const x = sx(10 ** e);
    out.push(`<line x1="${x}" y1="${T}" x2="${x}" y2="${H - B}" stroke="#ddd"/>`);
    out.push(`<text x="${x}" y="${H - B + 18}" text-anchor="middle">10^${e}</text>`);
}
for (let e = y0; e <= y1; e++) {
    const y = sy(10 ** e);
    out.push(`<line x1="${L}" y1="${y}" x2="${W - R}" y2="${y}" stroke="#ddd"/>`);
    out.push(`<text x="${L - 6}" y="${y + 4}" text-anchor="end">${fmtTime(10 ** e)}</text>`);
}
out.push(`<text x="${(L + W - R) / 2}" y="${H - B + 34}" text-anchor="middle">constraints</text>`);
let legendY = T + 10;
for (const curve of [...new Set(doc.rows.map((r) => r.curve))]) {
    for (const [p, color] of PROVERS) {
        const rows = doc.rows.filter((r) => r.curve === curve && r[p]);
        if (rows.length === 0) continue;
        const path = rows.map((r, i) => `${i ? "L" : "M"}${sx(r.constraints).toFixed(1)},${sy(r[p].median_s).toFixed(1)}`);
        out.push(`<path d="${path.join(" ")}" fill="none" stroke="${color}" stroke-width="2" stroke-dasharray="${CURVE_DASH[curve] || ""}"/>`);
        for (const r of rows) out.push(`<circle cx="${sx(r.constraints).toFixed(1)}" cy="${sy(r[p].median_s).toFixed(1)}" r="3" fill="${color}"/>`);
        out.push(`<line x1="${W - R + 15}" y1="${legendY}" x2="${W - R + 45}" y2="${legendY}" stroke="${color}" stroke-width="2" stroke-dasharray="${CURVE_DASH[curve] || ""}"/>`);
        out.push(`<text x="${W - R + 50}" y="${legendY + 4}">${p}, ${curve}</text>`);
        legendY += 18;
    }
}
out.push(`<text x="${L}" y="${H - 4}" font-size="10" fill="#666">${doc.machine}; ${doc.date}; zkpipe ${doc.commit}</text>`);
out.push("</svg>");
fs.writeFileSync(svgPath, out.join("\n") + "\n");
