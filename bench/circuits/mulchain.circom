pragma circom 2.0.0;

// Benchmark circuit: a chain of N multiplications, one constraint each
// (x[i+1] = x[i] * b + i): N constraints. Public: out (output), b (input).
// N = 65000 here (domain 2^16); bench/prove_vs_snarkjs.sh substitutes the N of
// `mulchain:N` in the `component main` line: 262000 (2^18), 1048000 (2^20).

template MulChain(n) {
    signal input a;
    signal input b;
    signal output out;
    signal x[n + 1];
    x[0] <== a;
    for (var i = 0; i < n; i++) {
        x[i + 1] <== x[i] * b + i;
    }
    out <== x[n];
}

component main {public [b]} = MulChain(65000);
