pragma circom 2.0.0;
// circomlib-ml's strided Conv2D test circuit, unchanged.
include "../../../node_modules/circomlib-ml/test/circuits/Conv2D_stride_test.circom";
