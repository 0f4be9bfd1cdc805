pragma circom 2.1.6;
// zk-email's RSA-2048 signature check (@zk-email/circuits lib/rsa.circom)
// with the parameters its EmailVerifier uses: 121-bit limbs, 17 of them.
include "../../../node_modules/@zk-email/circuits/lib/rsa.circom";
component main {public [modulus]} = RSAVerifier65537(121, 17);
