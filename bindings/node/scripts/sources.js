// What binding.gyp builds: `node scripts/sources.js WHAT` prints
//   root     the folder holding zkpipe's include/ and src/: native/ in a
//            packed tarball (scripts/pack.js copies them there), else the
//            repository this package sits in (../..)
//   lib      the library's C files (every src/ layer but the daemon's
//            server/ and store/ and the command's cli/), IFMA ones apart
//   ifma     the AVX-512 IFMA kernels, built with their own flags
//   defines  the build's defines for this CPU architecture
//   cflags   the compiler flags for the IFMA kernels
"use strict";
const fs = require("fs");
const path = require("path");

const here = path.resolve(__dirname, "..");
const packed = path.join(here, "native");
const root = fs.existsSync(path.join(packed, "include", "zkpipe.h")) ? packed : path.resolve(here, "..", "..");
const x64 = process.arch === "x64";
// the one list of them, which CMakeLists.txt reads too
const IFMA = fs.readFileSync(path.join(root, "src", "ifma_sources.txt"), "utf8")
    .split("\n").map((l) => l.trim()).filter((l) => l.endsWith(".c") && !l.startsWith("#"));

function walk(dir) {
    const out = [];
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) out.push(...walk(p));
        else if (e.name.endsWith(".c")) out.push(p);
    }
    return out;
}

function lib() {
    const src = path.join(root, "src");
    return walk(src)
        .map((p) => path.relative(src, p).split(path.sep).join("/"))
        .filter((p) => !/^(server|store|cli)\//.test(p))
        .sort();
}

// gyp takes the paths relative to binding.gyp's folder
const rel = (p) => path.relative(here, path.join(root, "src", p)).split(path.sep).join("/");

const what = process.argv[2];
if (what === "root") console.log(path.relative(here, root).split(path.sep).join("/") || ".");
else if (what === "lib") console.log(lib().filter((p) => !IFMA.includes(p)).map(rel).join(" "));
else if (what === "ifma") console.log(IFMA.map(rel).join(" "));
else if (what === "defines") console.log(x64 ? "ZP_IFMA ZP_FIELD_ADX" : "");
else if (what === "cflags") console.log(x64 ? "-mavx512f -mavx512ifma" : "");
else {
    console.error("usage: node scripts/sources.js root|lib|ifma|defines|cflags");
    process.exit(2);
}
