pragma circom 2.0.0;

// Benchmark circuit: a chain of N Poseidon(2) hashes, h[i+1] = Poseidon(h[i], key),
// 240 constraints each (circom --O2). Public: out (output), key (input).
// N = 269 here (64,560 constraints, domain 2^16); bench/prove_vs_snarkjs.sh
// substitutes the N of `poseidon_chain:N` in the `component main` line:
// 1090 (261,600, 2^18), 4360 (1,046,400, 2^20).

include "circomlib/circuits/poseidon.circom";

template PoseidonChain(n) {
    signal input in;
    signal input key;
    signal output out;
    component h[n];
    signal x[n + 1];
    x[0] <== in;
    for (var i = 0; i < n; i++) {
        h[i] = Poseidon(2);
        h[i].inputs[0] <== x[i];
        h[i].inputs[1] <== key;
        x[i + 1] <== h[i].out;
    }
    out <== x[n];
}

component main {public [key]} = PoseidonChain(269);
