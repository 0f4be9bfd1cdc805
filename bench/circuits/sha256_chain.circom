pragma circom 2.0.0;

// Benchmark circuit for witness generation: a chain of N SHA-256 hashes of
// 256 bits, x[i+1] = SHA-256(x[i]) (circomlib's Sha256(256): one block,
// ~29,400 constraints each at --O2). Bit operations: the other kind of
// witness work than Poseidon's field arithmetic. Input: in, 256 bits as an
// array; output: the last hash's bits. bench/witgen.sh substitutes the N of
// the `component main` line: 2 (~2^16 constraints), 8 (~2^18).

include "circomlib/circuits/sha256/sha256.circom";

template Sha256Chain(n) {
    signal input in[256];
    signal output out[256];
    component h[n];
    for (var i = 0; i < n; i++) {
        h[i] = Sha256(256);
        for (var j = 0; j < 256; j++) {
            if (i == 0) {
                h[i].in[j] <== in[j];
            } else {
                h[i].in[j] <== h[i - 1].out[j];
            }
        }
    }
    for (var j = 0; j < 256; j++) out[j] <== h[n - 1].out[j];
}

component main = Sha256Chain(2);
