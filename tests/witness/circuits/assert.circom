pragma circom 2.0.0;

// A circuit whose assert fails for some inputs: x must not be 13.
// y = x * x + 1, and x == 13 stops the calculator with circom's
// "Assert Failed" and the template and line.
template NotThirteen() {
    signal input x;
    signal output y;
    log("x =", x);
    assert(x != 13);
    y <== x * x + 1;
}

component main = NotThirteen();
