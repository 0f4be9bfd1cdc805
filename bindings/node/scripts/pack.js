// npm pack / publish: copies zkpipe's C sources (include/, the library's
// src/ layers) into native/ so the tarball builds far from any checkout;
// `node scripts/pack.js clean` (postpack) removes them again.
"use strict";
const fs = require("fs");
const path = require("path");

const here = path.resolve(__dirname, "..");
const root = path.resolve(here, "..", "..");
const out = path.join(here, "native");

fs.rmSync(out, { recursive: true, force: true });
if (process.argv[2] === "clean") process.exit(0);
if (!fs.existsSync(path.join(root, "include", "zkpipe.h"))) {
    console.error("zkpipe: pack from bindings/node inside a zkpipe checkout");
    process.exit(1);
}
fs.mkdirSync(out);
fs.cpSync(path.join(root, "include"), path.join(out, "include"), { recursive: true });
fs.cpSync(path.join(root, "src"), path.join(out, "src"), {
    recursive: true,
    filter: (p) => !/[\\/]src[\\/](server|store|cli)([\\/]|$)/.test(p),
});
for (const f of ["LICENSE", "COPYING"]) {
    if (fs.existsSync(path.join(root, f))) fs.copyFileSync(path.join(root, f), path.join(out, f));
}
