// What `snarkjs wtns calculate` makes of input.json files, for comparing
// zkpipe's reader (src/witness/input.c) with it:
//   node tests/witness/input_reference.js CURVE FILE...
// For each file: "== FILE", then either "ERROR <message>" or, for each
// signal in the order snarkjs sets them, "NAME_HEX HASH COUNT" and one line
// per value, n8 bytes big-endian in hex. This is snarkjs's own code path:
// JSON.parse of the file read as UTF-8 (snarkjs's cli.cjs wtnsCalculate),
// ffjavascript's utils.unstringifyBigInts (wtnsCalculate$1), Object.keys,
// and circom_runtime's own flatArray, normalize and fnvHash (imported from
// its js/utils.js, not copied), with the prime from ffjavascript's curve.
"use strict";
const fs = require("fs");
const path = require("path");
const ffjavascript = require("ffjavascript");

async function main() {
    const [curveName, ...files] = process.argv.slice(2);
    if (!curveName || files.length === 0) {
        console.error("usage: input_reference.js bn128|bls12381 FILE...");
        process.exit(2);
    }
    const root = path.resolve(__dirname, "../..");
    const utils = await import(path.join(root, "node_modules/circom_runtime/js/utils.js"));
    const curve = curveName === "bn128" ? await ffjavascript.buildBn128(true)
        : curveName === "bls12381" ? await ffjavascript.buildBls12381(true) : null;
    if (curve === null) throw new Error(`unknown curve ${curveName}`);
    const prime = curve.r;
    await curve.terminate();
    // circom_runtime: n32 = getFieldNumLen32(); values are n32 32-bit words.
    const n8 = Math.ceil(prime.toString(16).length / 16) * 8;
    const out = [];
    for (const file of files) {
        out.push(`== ${path.basename(file)}`);
        try {
            const input = ffjavascript.utils.unstringifyBigInts(JSON.parse(fs.readFileSync(file, "utf8")));
            const lines = [];
            for (const k of Object.keys(input)) {
                const fArr = utils.flatArray(input[k]);
                lines.push(`${Buffer.from(k, "utf8").toString("hex")} ${utils.fnvHash(k)} ${fArr.length}`);
                for (let i = 0; i < fArr.length; i++) {
                    lines.push(utils.normalize(fArr[i], prime).toString(16).padStart(2 * n8, "0"));
                }
            }
            out.push(...lines);
        } catch (e) {
            out.push(`ERROR ${String(e.message).split("\n")[0]}`);
        }
    }
    process.stdout.write(out.join("\n") + "\n");
}

main().catch((e) => {
    console.error(e);
    process.exit(1);
});
