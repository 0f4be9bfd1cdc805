pragma circom 2.0.0;

// Benchmark circuit: a chain of N multiplications, one constraint each
// (x[i+1] = x[i] * b + i), N = 65000: 65,000 constraints, domain 2^16.
// Public: out (output), b (input).

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
