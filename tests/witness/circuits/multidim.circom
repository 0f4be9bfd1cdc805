pragma circom 2.0.0;

// Inputs of two and three dimensions, flattened row-major as snarkjs does:
// out[i][j] = sum over k of a[i][k] * b[k][j] (a matrix product), plus a
// public scalar and a value of c[1][0][1], so the order of every
// dimension shows in the witness.
template MultiDim() {
    signal input a[2][3];
    signal input b[3][2];
    signal input c[2][2][2];
    signal input k;
    signal output out[2][2];
    signal output pick;
    signal prod[2][2][3];
    for (var i = 0; i < 2; i++) {
        for (var j = 0; j < 2; j++) {
            var acc = 0;
            for (var t = 0; t < 3; t++) {
                prod[i][j][t] <== a[i][t] * b[t][j];
                acc += prod[i][j][t];
            }
            out[i][j] <== acc + c[i][j][0] * k;
        }
    }
    pick <== c[1][0][1] * k + c[0][1][0];
}

component main {public [k]} = MultiDim();
