pragma circom 2.0.0;

// Poseidon Merkle-path membership proof, for the zkpipe interop tests.
//
// The prover knows a secret and a path of sibling hashes; the circuit computes
//   leaf          = Poseidon(secret)
//   root          = Merkle root of leaf at position leafIndex (Poseidon(2) per level)
//   nullifierHash = Poseidon(secret, leafIndex, externalNullifier)
// Public signals, in the order snarkjs writes them to public.json
// (outputs first, then public inputs):
//   [root, nullifierHash, leafIndex, externalNullifier]
// The root is an output (not an input) so that the same input files work for
// every prime: Poseidon's value depends on the field (bn128 vs bls12381), and
// the verifier compares the root with the one it knows.
//
// Compile: circom2 merkle.circom --r1cs --wasm -l <dir containing circomlib> --prime bn128|bls12381
// Size: ~1.5k constraints at DEPTH 4 (fits a 2^12 powers of tau).

include "circomlib/circuits/poseidon.circom";
include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/mux1.circom";

template MerkleMembership(depth) {
    signal input secret;
    signal input pathElements[depth];
    signal input leafIndex;          // public
    signal input externalNullifier;  // public

    signal output root;
    signal output nullifierHash;

    // leafIndex < 2^depth; its bits select left/right at each level
    component bits = Num2Bits(depth);
    bits.in <== leafIndex;

    component leafHash = Poseidon(1);
    leafHash.inputs[0] <== secret;

    component mux[depth];
    component h[depth];
    signal level[depth + 1];
    level[0] <== leafHash.out;
    for (var i = 0; i < depth; i++) {
        // bit = 0: current node is the left child; bit = 1: the right child
        mux[i] = MultiMux1(2);
        mux[i].c[0][0] <== level[i];
        mux[i].c[0][1] <== pathElements[i];
        mux[i].c[1][0] <== pathElements[i];
        mux[i].c[1][1] <== level[i];
        mux[i].s <== bits.out[i];

        h[i] = Poseidon(2);
        h[i].inputs[0] <== mux[i].out[0];
        h[i].inputs[1] <== mux[i].out[1];
        level[i + 1] <== h[i].out;
    }
    root <== level[depth];

    component nh = Poseidon(3);
    nh.inputs[0] <== secret;
    nh.inputs[1] <== leafIndex;
    nh.inputs[2] <== externalNullifier;
    nullifierHash <== nh.out;
}

component main {public [leafIndex, externalNullifier]} = MerkleMembership(4);
