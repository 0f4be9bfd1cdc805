// zkpipe for Node.js: snarkjs's groth16 / wtns / zKey API on zkpipe's
// native prover (bindings/node/README.md). Every call returns a Promise
// whose work runs off the event loop, on the addon's own threads (the
// prover's own threads under them; src/addon.c's runner); an AbortSignal
// stops it.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");

function loadAddon() {
    const tried = [];
    const candidates = [
        process.env.ZKPIPE_NODE_ADDON,
        path.join(__dirname, "build", "Release", "zkpipe.node"),
        path.join(__dirname, "build", "Debug", "zkpipe.node"),
    ].filter(Boolean);
    for (const p of candidates) {
        if (!fs.existsSync(p)) { tried.push(p); continue; }
        return require(p);
    }
    const e = new Error("zkpipe: the native addon is not built (looked at " + tried.join(", ") +
        "): run `npm run build` in " + __dirname);
    e.code = "ZKPIPE_NO_ADDON";
    throw e;
}
const native = loadAddon();

const version = native.version();

// ---- arguments -------------------------------------------------------------

// A proof's threads when the caller names none: one per CPU but one, so
// that the event loop keeps a core. With the prover on every core, the
// loop's thread waited for one (on 2 cores, a Semaphore proof stalled the
// loop up to 7 ms at depth 1, 28 ms at depth 16, against ~1 ms idle).
function defaultThreads() {
    const cpus = typeof os.availableParallelism === "function" ? os.availableParallelism() : os.cpus().length;
    return Math.max(1, cpus - 1);
}

// A file as snarkjs takes one: a path, bytes, or { type: "mem", data }.
function source(file, what) {
    if (typeof file === "string") return file;
    if (file instanceof Uint8Array) return file;
    if (file instanceof ArrayBuffer) return new Uint8Array(file);
    if (file && typeof file === "object" && file.type === "mem" && file.data instanceof Uint8Array) return file.data;
    if (file && typeof file === "object" && file.type === "file" && typeof file.fileName === "string") return file.fileName;
    throw badArgument(`${what}: expected a path, a Uint8Array or { type: "mem", data }`);
}

function badArgument(message) {
    const e = new TypeError(message);
    e.code = "ZKPIPE_BAD_ARGUMENT";
    return e;
}

function inputJson(input) {
    if (input === null || typeof input !== "object" || Array.isArray(input)) {
        throw badArgument("the input: expected an object of signals");
    }
    return JSON.stringify(input, (k, v) => (typeof v === "bigint" ? v.toString() : v));
}

// snarkjs's trailing arguments are a logger and option objects; zkpipe's
// options ({ signal, threads }) may be any of them.
function options(args) {
    const o = {};
    for (const a of args) {
        if (a && typeof a === "object" && !(typeof a.info === "function" && typeof a.error === "function")) {
            if (a.signal !== undefined) o.signal = a.signal;
            if (a.threads !== undefined) o.threads = a.threads;
            if (a.cacheDir !== undefined) o.cacheDir = a.cacheDir;
        }
    }
    return o;
}

function abortError(signal) {
    const e = new Error("The operation was aborted", signal && signal.reason !== undefined ? { cause: signal.reason } : undefined);
    e.name = "AbortError";
    e.code = "ABORT_ERR";
    return e;
}

// Runs start(stop) (a native call taking a stop flag), with signal
// wired to the flag: an abort stops the native work where it polls (the
// witness calculator at once, a proof before its next stage), and the
// call rejects with an AbortError once the native side has freed what it
// made, never before (the prover it used is then free for the next call).
async function withSignal(signal, start) {
    if (!signal) return start(null);
    if (signal.aborted) throw abortError(signal);
    const stop = native.stopCreate();
    const onAbort = () => native.stopSet(stop);
    signal.addEventListener("abort", onAbort, { once: true });
    try {
        return await start(stop);
    } catch (e) {
        if (e && e.code === "ABORT_ERR") throw abortError(signal);
        throw e;
    } finally {
        signal.removeEventListener("abort", onAbort);
    }
}

// Opens both; when one fails the other is closed at once (not at GC).
async function openBoth(keyPromise, circuitPromise) {
    const [k, c] = await Promise.allSettled([keyPromise, circuitPromise]);
    if (k.status === "fulfilled" && c.status === "fulfilled") return [k.value, c.value];
    if (k.status === "fulfilled") native.close(k.value);
    if (c.status === "fulfilled" && c.value) native.close(c.value);
    throw k.status === "rejected" ? k.reason : c.reason;
}

async function openKey(zkeyFile) { return native.keyOpen(source(zkeyFile, "the zkey")); }
// stop (withSignal's) also stops the module's first calls, made as it is
// opened: the circuit is its author's code, and they may never return.
async function openCircuit(wasmFile, opts = {}, stop = null) {
    return native.circuitOpen(source(wasmFile, "the wasm"), opts.cacheDir || null, opts.memoryLimit || 0, stop);
}

function result(r) {
    const out = { proof: JSON.parse(r.proof), publicSignals: JSON.parse(r.publicSignals) };
    return out;
}

// ---- groth16 -----------------------------------------------------------------

async function fullProve(input, wasmFile, zkeyFile, ...rest) {
    const o = options(rest);
    const json = inputJson(input);
    if (o.signal && o.signal.aborted) throw abortError(o.signal);
    return result(await withSignal(o.signal, async (stop) => {
        const [key, circuit] = await openBoth(openKey(zkeyFile), openCircuit(wasmFile, o, stop));
        try {
            return await native.fullProve(null, key, circuit, json, stop, o.threads || defaultThreads(), false);
        } finally {
            native.close(key);
            native.close(circuit);
        }
    }));
}

async function prove(zkeyFile, wtnsFile, ...rest) {
    const o = options(rest);
    const wtns = source(wtnsFile, "the witness");
    if (o.signal && o.signal.aborted) throw abortError(o.signal);
    const key = await openKey(zkeyFile);
    try {
        return result(await withSignal(o.signal, (stop) => native.prove(null, key, wtns, stop, o.threads || defaultThreads())));
    } finally {
        native.close(key);
    }
}

async function verify(vk, publicSignals, proof) {
    const text = (x) => (typeof x === "string" ? x : JSON.stringify(x, (k, v) => (typeof v === "bigint" ? v.toString() : v)));
    try {
        return await native.verify(text(vk), text(publicSignals), text(proof));
    } catch (e) {
        // snarkjs answers false for a malformed proof or signals, too
        if (e.code === "ZKPIPE_BAD_INPUT" || e.code === "ZKPIPE_MISMATCH") return false;
        throw e;
    }
}

// ---- wtns, zKey ------------------------------------------------------------

async function wtnsCalculate(input, wasmFile, wtnsFile, ...rest) {
    const o = options(rest);
    const json = inputJson(input);
    const bytes = await withSignal(o.signal, async (stop) => {
        const circuit = await openCircuit(wasmFile, o, stop);
        try {
            return await native.wtnsCalculate(circuit, json, stop);
        } finally {
            native.close(circuit);
        }
    });
    if (typeof wtnsFile === "string") await fs.promises.writeFile(wtnsFile, bytes);
    else if (wtnsFile && typeof wtnsFile === "object" && wtnsFile.type === "mem") wtnsFile.data = bytes;
    else if (wtnsFile && typeof wtnsFile === "object" && wtnsFile.type === "file") await fs.promises.writeFile(wtnsFile.fileName, bytes);
    else if (wtnsFile !== undefined && wtnsFile !== null) throw badArgument("the witness file: expected a path or { type: \"mem\" }");
    return bytes;
}

async function exportVerificationKey(zkeyFile) {
    const key = await openKey(zkeyFile);
    try {
        return JSON.parse(await native.vkJson(key));
    } finally {
        native.close(key);
    }
}

// ---- Prover: a key and a circuit kept across calls ---------------------------

class Prover {
    // { zkey, wasm, threads, budget, concurrency, cacheDir, prepare }: zkey
    // and wasm as for fullProve; budget (bytes) bounds what the prover holds
    // (the key, each slot's working memory and matrices); concurrency
    // (default 2) the proofs in flight at once, fewer when the budget says
    // so; prepare (default true; false: open at once): each slot makes
    // what it keeps for the key before the first call (zp_prover_prepare:
    // the matrices and, for a key of domain up to 2^13 and no budget, the
    // point tables that make each proof's MSMs about a third cheaper;
    // otherwise a slot builds them after 192 proofs), which takes about 50
    // proofs' time when the Prover opens: a warm Semaphore depth 1 proof
    // went from 42 to 26-32 ms on one thread.
    constructor(opts) {
        if (!opts || opts.zkey === undefined) throw badArgument("new Prover({ zkey, wasm }): zkey is required");
        this._opts = { ...opts };
        this._threads = opts.threads || defaultThreads();
        this._slots = [];
        this._free = [];
        this._waiting = [];
        this._inflight = 0;
        this._closed = false;
        this._drained = null;
        this._ready = this._open();
        this._ready.catch(() => {});
    }

    async _open() {
        const o = this._opts;
        const [key, circuit] = await openBoth(openKey(o.zkey),
            o.wasm !== undefined ? openCircuit(o.wasm, o) : Promise.resolve(null));
        this._key = key;
        this._circuit = circuit;
        const info = native.keyInfo(key, this._threads);
        this._info = info;
        const keyBytes = typeof o.zkey === "string" ? fs.statSync(o.zkey).size : source(o.zkey, "the zkey").length;
        this._keyBytes = keyBytes;
        let n = Math.max(1, Math.floor(o.concurrency || 2));
        if (o.budget !== undefined) {
            const per = info.proverBytes;
            // the witness calculator's memory and the witness itself, per slot
            const witness = info.wires * 32 * 4 + (8 << 20);
            const fit = Math.floor((o.budget - keyBytes) / (per + witness));
            if (fit < 1) {
                this._closeNative();
                const e = new Error(`zkpipe: a budget of ${o.budget} bytes does not hold the key (${keyBytes} bytes) ` +
                    `and one proof's memory (${per + witness} bytes)`);
                e.code = "ZKPIPE_NOMEM";
                throw e;
            }
            n = Math.min(n, fit);
        }
        for (let i = 0; i < n; i++) {
            // point tables only where no budget bounds the prover
            const slot = native.proverCreate(this._threads, o.budget !== undefined ? 1 : 0);
            this._slots.push(slot);
            this._free.push(slot);
        }
        if (o.prepare !== false) {
            try {
                await Promise.all(this._slots.map((s) => native.prepare(s, key)));
            } catch (e) {
                this._closeNative();
                throw e;
            }
        }
        return this;
    }

    _closeNative() {
        for (const s of this._slots) native.close(s);
        this._slots = [];
        this._free = [];
        if (this._key) native.close(this._key);
        if (this._circuit) native.close(this._circuit);
        this._key = this._circuit = null;
    }

    async _run(signal, fn) {
        await this._ready;
        if (this._closed) throw closedError();
        if (signal && signal.aborted) throw abortError(signal);
        let slot = this._free.pop();
        if (!slot) {
            slot = await new Promise((resolve, reject) => {
                const w = { resolve, reject };
                this._waiting.push(w);
                if (signal) {
                    signal.addEventListener("abort", () => {
                        const i = this._waiting.indexOf(w);
                        if (i >= 0) { this._waiting.splice(i, 1); reject(abortError(signal)); }
                    }, { once: true });
                }
            });
        }
        this._inflight++;
        try {
            return result(await withSignal(signal, (stop) => fn(slot, stop)));
        } finally {
            this._inflight--;
            const w = this._waiting.shift();
            if (w) w.resolve(slot);
            else this._free.push(slot);
            if (this._inflight === 0 && this._drained) this._drained();
        }
    }

    async fullProve(input, opts = {}) {
        const json = inputJson(input);
        await this._ready;
        if (this._closed) throw closedError();
        if (!this._circuit) throw badArgument("this Prover was made without a wasm: use prove(wtns)");
        return this._run(opts.signal, (slot, stop) =>
            native.fullProve(slot, this._key, this._circuit, json, stop, 0, false));
    }

    async prove(wtnsFile, opts = {}) {
        const wtns = source(wtnsFile, "the witness");
        return this._run(opts.signal, (slot, stop) => native.prove(slot, this._key, wtns, stop, 0));
    }

    async ready() { return this._ready; }

    // The tracker's figures: bytes the slots hold now and their peak, plus
    // what the trackers do not see: the key (its file's mapping, or the
    // copy the native side keeps of a key given as bytes), the witness
    // calculator's idle memory; and the process's RSS.
    memory() {
        let bytes = 0, peak = 0;
        for (const s of this._slots) {
            const m = native.proverMemory(s);
            bytes += m.bytes;
            peak += m.peak;
        }
        return {
            tracked: bytes,
            trackedPeak: peak,
            key: this._keyBytes || 0,
            witness: this._circuit ? native.circuitInfo(this._circuit).memory : 0,
            slots: this._slots.length,
            threads: this._slots.length ? native.proverMemory(this._slots[0]).threads : 0,
            inFlight: this._inflight,
            rss: process.memoryUsage.rss(),
        };
    }

    // Waits for the calls in flight, then frees everything; later calls reject.
    async close() {
        if (this._closed) return;
        this._closed = true;
        try { await this._ready; } catch { return; }
        for (const w of this._waiting.splice(0)) w.reject(closedError());
        if (this._inflight > 0) await new Promise((r) => { this._drained = r; });
        this._closeNative();
    }
}

function closedError() {
    const e = new Error("zkpipe: the Prover is closed");
    e.code = "ZKPIPE_CLOSED";
    return e;
}

// Named objects, so that ESM's `import { groth16 } from "zkpipe"` (or from
// "snarkjs" overridden by zkpipe) finds them through cjs-module-lexer.
const groth16 = { fullProve, prove, verify };
const wtns = { calculate: wtnsCalculate };
const zKey = { exportVerificationKey };
module.exports = { version, groth16, wtns, zKey, Prover };
