pragma circom 2.1.5;
// zk-kit's Baby Jubjub ECDH (@zk-kit/circuits).
include "../../../node_modules/@zk-kit/circuits/circom/ecdh.circom";
component main = Ecdh();
