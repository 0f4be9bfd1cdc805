pragma circom 2.1.6;
// zk-email's variable-length SHA-256 of a padded byte array
// (@zk-email/circuits lib/sha.circom), up to 128 bytes.
include "../../../node_modules/@zk-email/circuits/lib/sha.circom";
component main = Sha256Bytes(128);
