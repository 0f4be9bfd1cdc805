// Inputs for the real projects' circuits in this folder, made the way each
// project makes them, from a seed:
//   node gen_input.js CIRCUIT SEED CURVE OUT_PREFIX
// writes OUT_PREFIX.json (the input) and OUT_PREFIX.public.json: the public
// signals (outputs first, then public inputs, as snarkjs writes
// public.json) that the project's own JavaScript says the circuit must
// give, or nothing where it cannot say (mnist on bls12381).
"use strict";
const fs = require("fs");
const path = require("path");
const crypto = require("crypto");
const ROOT = path.resolve(__dirname, "../../..");
const req = (m) => require(require.resolve(m, {paths: [ROOT]}));

const [name, seedText, curve, out] = process.argv.slice(2);
if (!out) { console.error("usage: gen_input.js CIRCUIT SEED CURVE OUT_PREFIX"); process.exit(2); }
const P = {
    bn128: 21888242871839275222246405745257275088548364400416034343698204186575808495617n,
    bls12381: 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n,
}[curve];
// A deterministic byte stream from the seed (SHA-256 in counter mode).
let ctr = 0;
function bytes(n) {
    const parts = [];
    for (let got = 0; got < n; got += 32)
        parts.push(crypto.createHash("sha256").update(`${seedText}/${ctr++}`).digest());
    return Buffer.concat(parts).subarray(0, n);
}
const big = (nbytes) => BigInt("0x" + bytes(nbytes).toString("hex"));
const below = (n) => big(40) % n;
const str = (v) => (Array.isArray(v) ? v.map(str)
    : typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, str(x)])) : v.toString());
function write(input, pub) {
    fs.writeFileSync(out + ".json", JSON.stringify(str(input)) + "\n");
    if (pub) fs.writeFileSync(out + ".public.json", JSON.stringify(str(pub)) + "\n");
}
// n-bit limbs, least significant first (zk-email's toCircomBigIntBytes)
function limbs(x, n, k) {
    const r = [];
    for (let i = 0; i < k; i++) { r.push(x & ((1n << BigInt(n)) - 1n)); x >>= BigInt(n); }
    return r;
}

const gens = {
    // Semaphore v4: a real group and identity, the inputs as
    // @semaphore-protocol/proof's generateProof builds them.
    semaphore() {
        const {Identity} = req("@semaphore-protocol/identity");
        const {Group} = req("@semaphore-protocol/group");
        const {poseidon2} = req("poseidon-lite");
        const MAX_DEPTH = 10;
        // a group of 2..1000 members (the others' commitments random)
        const members = 2 + Number(below(999n));
        const me = Number(below(BigInt(members)));
        const id = new Identity(`${seedText}-member`);
        const group = new Group(Array.from({length: members}, (_, i) => (i === me ? id.commitment : below(P))));
        const proof = group.generateMerkleProof(me);
        const siblings = proof.siblings.slice();
        while (siblings.length < MAX_DEPTH) siblings.push(0n);
        const message = below(P), scope = below(P);
        const secret = id.secretScalar;
        write({secret, merkleProofLength: proof.siblings.length, merkleProofIndex: proof.index,
               merkleProofSiblings: siblings, message, scope},
              curve === "bn128" ? [group.root, poseidon2([scope, secret]), message, scope] : null);
    },
    // zk-kit's ECDH: one identity's secret scalar and another's public key;
    // the shared key must be the same from both sides.
    zkkit_ecdh() {
        const {Identity} = req("@semaphore-protocol/identity");
        const {mulPointEscalar} = req("@zk-kit/baby-jubjub");
        const a = new Identity(`${seedText}-a`), b = new Identity(`${seedText}-b`);
        const shared = mulPointEscalar(b.publicKey, a.secretScalar);
        const other = mulPointEscalar(a.publicKey, b.secretScalar);
        if (shared[0] !== other[0] || shared[1] !== other[1]) throw new Error("ECDH: the two sides differ");
        write({privateKey: a.secretScalar, publicKey: b.publicKey}, shared);
    },
    // zk-kit's Poseidon cipher: a message of 7 field elements encrypted by
    // @zk-kit/poseidon-cipher under an ECDH key; the circuit decrypts it.
    zkkit_cipher() {
        const {Identity} = req("@semaphore-protocol/identity");
        const {mulPointEscalar} = req("@zk-kit/baby-jubjub");
        const {poseidonEncrypt} = req("@zk-kit/poseidon-cipher");
        const a = new Identity(`${seedText}-a`), b = new Identity(`${seedText}-b`);
        const key = mulPointEscalar(b.publicKey, a.secretScalar);
        const msg = Array.from({length: 7}, () => below(P));
        const nonce = below(1n << 128n);
        const ciphertext = poseidonEncrypt(msg, key, nonce);
        // the circuit's outputs: the message padded with zeros to a
        // multiple of 3 (which it checks)
        write({ciphertext, nonce, key}, msg.concat([0n, 0n]));
    },
    // zk-email's RSA check: a fresh 2048-bit key signs SHA-256 of a random
    // message (PKCS#1 v1.5, as DKIM does); message, signature and modulus
    // in 121-bit limbs as @zk-email/helpers passes them.
    zkemail_rsa() {
        const {privateKey, publicKey} = crypto.generateKeyPairSync("rsa", {modulusLength: 2048, publicExponent: 65537});
        const body = bytes(64 + Number(below(200n)));
        const sig = crypto.sign("sha256", body, privateKey);
        const n = BigInt("0x" + Buffer.from(publicKey.export({format: "jwk"}).n, "base64url").toString("hex"));
        const hash = BigInt("0x" + crypto.createHash("sha256").update(body).digest("hex"));
        const modulus = limbs(n, 121, 17);
        write({message: limbs(hash, 121, 17), signature: limbs(BigInt("0x" + sig.toString("hex")), 121, 17), modulus},
              modulus);
    },
    // zk-email's variable-length SHA-256: a random message of 1..119 bytes,
    // SHA-padded and zero-filled to 128 bytes (zk-email's sha256Pad).
    zkemail_sha() {
        const msg = bytes(1 + Number(below(119n)));
        const padded = Buffer.alloc(128);
        msg.copy(padded);
        padded[msg.length] = 0x80;
        const len = Math.ceil((msg.length + 9) / 64) * 64;
        padded.writeBigUInt64BE(BigInt(msg.length * 8), len - 8);
        const digest = crypto.createHash("sha256").update(msg).digest();
        const bits = [];
        for (const byte of digest) for (let i = 7; i >= 0; i--) bits.push((byte >> i) & 1);
        write({paddedIn: Array.from(padded), paddedInLength: len}, bits);
    },
    // circomlib-ml's MNIST circuit with the model and image the package
    // ships (negative JSON numbers, flat arrays for 3-d and 4-d signals);
    // seed 0 is the shipped image, others a random image in its range.
    mnist() {
        const input = JSON.parse(fs.readFileSync(path.join(ROOT, "node_modules/circomlib-ml/models/mnist_input.json")));
        if (seedText !== "0") input.in = input.in.map(() => Number(below(256n)));
        fs.writeFileSync(out + ".json", JSON.stringify(input) + "\n");
    },
    // circomlib-ml's strided Conv2D: the shipped layer for seed 0, else
    // random pixels and signed weights (negative JSON numbers, as the
    // project's models are written).
    conv2d() {
        const input = JSON.parse(fs.readFileSync(path.join(ROOT, "node_modules/circomlib-ml/models/conv2D_stride_input.json")));
        if (seedText !== "0") {
            input.in = input.in.map(() => Number(below(1000n)));
            input.weights = input.weights.map(() => Number(below(801n)) - 400);
            input.bias = input.bias.map(() => Number(below(2001n)) - 1000);
        }
        fs.writeFileSync(out + ".json", JSON.stringify(input) + "\n");
    },
};
if (!gens[name]) { console.error("unknown circuit " + name); process.exit(2); }
gens[name]();
