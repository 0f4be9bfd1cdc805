// zkpipe for Node.js: snarkjs's API on zkpipe's native Groth16 prover.

/** A file as snarkjs takes one: a path, its bytes, or { type: "mem", data }. */
export type FileSource = string | Uint8Array | ArrayBuffer | { type: "mem"; data: Uint8Array } | { type: "file"; fileName: string };

/** A circuit's inputs: each signal a number, bigint, decimal or hex string, or nested arrays of them. */
export type CircuitSignals = { [signal: string]: SignalValue };
export type SignalValue = number | bigint | string | SignalValue[];

/** snarkjs's Groth16 proof: decimal strings, the projective coordinates with their 1s. */
export interface Groth16Proof {
    pi_a: [string, string, string];
    pi_b: [[string, string], [string, string], [string, string]];
    pi_c: [string, string, string];
    protocol: "groth16";
    curve: "bn128" | "bls12381";
}
export type PublicSignals = string[];

export interface ProofResult {
    proof: Groth16Proof;
    publicSignals: PublicSignals;
}

/** snarkjs's verification_key.json. */
export interface VerificationKey {
    protocol: "groth16";
    curve: "bn128" | "bls12381";
    nPublic: number;
    vk_alpha_1: string[];
    vk_beta_2: string[][];
    vk_gamma_2: string[][];
    vk_delta_2: string[][];
    vk_alphabeta_12: string[][][];
    IC: string[][];
}

/** zkpipe's options; snarkjs's logger argument may stand before them (ignored). */
export interface CallOptions {
    /** Stops the call: it rejects with an AbortError once the native side has freed what it held. */
    signal?: AbortSignal;
    /** Prover threads for this call (default: one per CPU but one, which the event loop keeps). */
    threads?: number;
    /** The folder of compiled witness calculators ($ZKPIPE_CACHE, ~/.cache/zkpipe). */
    cacheDir?: string;
}

/**
 * Errors are Errors with a code: ZKPIPE_BAD_INPUT (a malformed file or input: a missing signal, a truncated
 * zkey), ZKPIPE_MISMATCH (files of different circuits or curves), ZKPIPE_UNSATISFIED (a failed assert, a
 * witness that does not satisfy the circuit), ZKPIPE_NOMEM, ZKPIPE_IO, ZKPIPE_UNSUPPORTED,
 * ZKPIPE_BAD_ARGUMENT (a TypeError), ZKPIPE_CLOSED, ZKPIPE_INTERNAL; ABORT_ERR (name "AbortError").
 */
export interface ZkpipeError extends Error {
    code: string;
    status?: number;
}

export const version: string;

export namespace groth16 {
    function fullProve(input: CircuitSignals, wasmFile: FileSource, zkeyFile: FileSource, ...options: unknown[]): Promise<ProofResult>;
    function prove(zkeyFile: FileSource, witnessFile: FileSource, ...options: unknown[]): Promise<ProofResult>;
    function verify(vk: VerificationKey | object, publicSignals: PublicSignals, proof: Groth16Proof, logger?: unknown): Promise<boolean>;
}

export namespace wtns {
    /** Writes the .wtns (a path, or { type: "mem" } whose data it sets) and returns its bytes. */
    function calculate(input: CircuitSignals, wasmFile: FileSource, wtnsFile?: string | { type: "mem"; data?: Uint8Array }, ...options: unknown[]): Promise<Uint8Array>;
}

export namespace zKey {
    function exportVerificationKey(zkeyFile: FileSource, logger?: unknown): Promise<VerificationKey>;
}

export interface ProverOptions {
    zkey: FileSource;
    /** The circuit's witness calculator; without it only prove(wtns) works. */
    wasm?: FileSource;
    /** Threads of each proof (default: one per CPU but one, which the event loop keeps). */
    threads?: number;
    /** Bytes the prover may hold: the key, each slot's working memory, matrices and witness. */
    budget?: number;
    /** Proofs in flight at once (default 2), fewer when the budget says so. */
    concurrency?: number;
    /**
     * Make what each slot keeps for the key before the first call (default true): the matrices and, for a
     * key of domain up to 2^13 without a budget, point tables that make each proof's MSMs about a third cheaper
     * (built otherwise after 192 proofs); opening then takes about 50 proofs' time. false: open at once.
     */
    prepare?: boolean;
    cacheDir?: string;
    /** The most linear memory one witness calculation may grow to, bytes. */
    memoryLimit?: number;
}

export interface ProverMemory {
    /** Bytes the slots' trackers hold now, and their peak. */
    tracked: number;
    trackedPeak: number;
    /** The key's bytes: its file's mapping, or the native copy of a key given as bytes (outside the trackers). */
    key: number;
    /** The witness calculator's idle instances' linear memory. */
    witness: number;
    slots: number;
    /** Threads of each slot's proofs. */
    threads: number;
    inFlight: number;
    /** The process's resident set now. */
    rss: number;
}

/** A key and a circuit kept across calls: the server's way. */
export class Prover {
    constructor(options: ProverOptions);
    /** Resolves when the key and the circuit are open (rejects as the first call would). */
    ready(): Promise<this>;
    fullProve(input: CircuitSignals, options?: { signal?: AbortSignal }): Promise<ProofResult>;
    prove(wtnsFile: FileSource, options?: { signal?: AbortSignal }): Promise<ProofResult>;
    memory(): ProverMemory;
    /** Waits for the calls in flight, then frees everything; later calls reject with ZKPIPE_CLOSED. */
    close(): Promise<void>;
}
