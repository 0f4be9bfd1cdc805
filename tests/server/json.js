#!/usr/bin/env node
// JSON helpers for the daemon's tests (lib.sh):
//   json.js get EXPR FILE     evaluates the JavaScript expression EXPR with j =
//                             the file's JSON; strings print raw, other values
//                             as JSON; undefined prints nothing and exits 1
//   json.js same A B          exit 0 iff the files hold the same JSON value
//                             (decimal strings compared as integers)
//   json.js same-many LIST    LIST has lines "A B": prints the pairs that
//                             differ (or cannot be read); exit 1 if any
"use strict";
const fs = require("fs");
const rd = (f) => JSON.parse(fs.readFileSync(f, "utf8"));
function norm(v) {
    if (Array.isArray(v)) return v.map(norm);
    if (v && typeof v === "object") {
        const o = {};
        for (const k of Object.keys(v).sort()) o[k] = norm(v[k]);
        return o;
    }
    if (typeof v === "string" && /^[0-9]+$/.test(v)) return BigInt(v).toString();
    return v;
}
const [cmd, ...a] = process.argv.slice(2);
try {
    if (cmd === "get") {
        const j = rd(a[1]);
        const v = new Function("j", "return (" + a[0] + ");")(j);
        if (v === undefined) process.exit(1);
        console.log(typeof v === "string" ? v : JSON.stringify(v));
    } else if (cmd === "same") {
        const x = JSON.stringify(norm(rd(a[0]))), y = JSON.stringify(norm(rd(a[1])));
        if (x !== y) {
            console.error(`${a[0]} and ${a[1]} differ:\n  ${x.slice(0, 300)}\n  ${y.slice(0, 300)}`);
            process.exit(1);
        }
    } else if (cmd === "same-many") {
        let bad = 0;
        for (const line of fs.readFileSync(a[0], "utf8").split("\n").filter(Boolean)) {
            const [x, y] = line.split(" ");
            try {
                if (JSON.stringify(norm(rd(x))) !== JSON.stringify(norm(rd(y)))) throw new Error("differ");
            } catch (e) {
                console.log(`${x} ${y}: ${e.message}`);
                bad++;
            }
        }
        if (bad) process.exit(1);
    } else {
        console.error("usage: json.js get EXPR FILE | same A B | same-many LIST");
        process.exit(2);
    }
} catch (e) {
    console.error(String(e.message || e));
    process.exit(1);
}
