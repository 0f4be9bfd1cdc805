// npm install: builds the addon from zkpipe's C sources with node-gyp
// against the Node headers already on this machine (nothing is
// downloaded): those beside the running node (<prefix>/include/node, as
// Debian's and the official builds install them), $npm_config_nodedir,
// or the node-api-headers package when it is installed. ZKPIPE_SKIP_BUILD=1
// skips the build (a build made another way, ZKPIPE_NODE_ADDON).
"use strict";
const fs = require("fs");
const path = require("path");
const { spawnSync } = require("child_process");

if (process.env.ZKPIPE_SKIP_BUILD === "1") process.exit(0);
const here = path.resolve(__dirname, "..");

function nodeGyp() {
    const c = [
        process.env.npm_config_node_gyp,
        path.resolve(path.dirname(process.execPath), "..", "lib", "node_modules", "npm", "node_modules", "node-gyp",
            "bin", "node-gyp.js"),
    ];
    try { c.push(require.resolve("node-gyp/bin/node-gyp.js")); } catch { /* not installed */ }
    return c.find((p) => p && fs.existsSync(p));
}

function nodeDir() {
    const c = [process.env.npm_config_nodedir, path.resolve(path.dirname(process.execPath), ".."), "/usr", "/usr/local"];
    for (const d of c) {
        if (d && fs.existsSync(path.join(d, "include", "node", "node_api.h")) &&
            fs.existsSync(path.join(d, "include", "node", "common.gypi"))) return d;
    }
    return null;
}

const gyp = nodeGyp();
const dir = nodeDir();
if (!gyp) fail("node-gyp was not found (it comes with npm; or npm install -g node-gyp)");
if (!dir) fail("no Node headers (include/node/node_api.h) beside " + process.execPath + ": install your " +
    "distribution's nodejs headers (Debian: libnode-dev) or set npm_config_nodedir");
const jobs = String(Math.max(1, require("os").availableParallelism ? require("os").availableParallelism() : 2));
const r = spawnSync(process.execPath, [gyp, "rebuild", "--nodedir=" + dir, "--jobs=" + jobs], { cwd: here, stdio: "inherit" });
if (r.status !== 0) fail("node-gyp rebuild failed (needs a C compiler, make, python3 and libjansson-dev)");

function fail(msg) {
    console.error("zkpipe: " + msg);
    process.exit(1);
}
