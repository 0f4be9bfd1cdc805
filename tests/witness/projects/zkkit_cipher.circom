pragma circom 2.1.5;
// zk-kit's Poseidon decryption with its checks (@zk-kit/circuits).
include "../../../node_modules/@zk-kit/circuits/circom/poseidon-cipher.circom";
component main = PoseidonDecrypt(7);
