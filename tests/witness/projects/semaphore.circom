pragma circom 2.1.5;
// Semaphore v4 (@semaphore-protocol/circuits), as the project builds it:
// a group of up to 2^10 members.
include "../../../node_modules/@semaphore-protocol/circuits/src/semaphore.circom";
component main {public [message, scope]} = Semaphore(10);
