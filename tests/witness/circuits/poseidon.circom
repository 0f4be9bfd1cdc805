pragma circom 2.0.0;

// Poseidon of three inputs (circomlib), its output public.
include "circomlib/circuits/poseidon.circom";

template PoseidonHash() {
    signal input in[3];
    signal output out;
    component h = Poseidon(3);
    for (var i = 0; i < 3; i++) h.inputs[i] <== in[i];
    out <== h.out;
}

component main = PoseidonHash();
