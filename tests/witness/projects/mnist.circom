pragma circom 2.0.0;
// circomlib-ml's MNIST test circuit (a convolution, a dense layer, ReLU, ArgMax), unchanged.
include "../../../node_modules/circomlib-ml/test/circuits/mnist_test.circom";
