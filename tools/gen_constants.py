#!/usr/bin/env python3
"""Derives every numeric constant of zkpipe's math core and writes it as C.

Run from the repository root:  python3 tools/gen_constants.py
It writes src/field/params.h, src/curve/params.h and src/pairing/params.h.
Every constant is derived here from the curve's defining numbers (p, r, the
curve parameter x, the generators), and each is checked (generators on the
curve and of order r, roots of unity of the right order) before it is
written, so nothing in those headers is pasted from elsewhere.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def limbs(v, n):
    assert 0 <= v < (1 << (64 * n))
    return [(v >> (64 * i)) & ((1 << 64) - 1) for i in range(n)]


def c_limbs(v, n):
    return "{" + ", ".join("0x%016xULL" % x for x in limbs(v, n)) + "}"


# ---------------------------------------------------------------- curves
CURVES = {
    "bn254": dict(
        p=21888242871839275222246405745257275088696311157297823662689037894645226208583,
        r=21888242871839275222246405745257275088548364400416034343698204186575808495617,
        x=4965661367192848881,
        b=3,
        xi=9,  # Fp6 non-residue xi = 9 + u
        twist="D",  # b' = b / xi
        g1=(1, 2),
        g2=((10857046999023057135944570762232829481370756359578518086990519993285655852781,
             11559732032986387107991004021392285783925812861821192530917403151452391805634),
            (8495653923123431417604973247489272438418190587263600148770280649306958101930,
             4082367875863433681332203403145435568316851327593401208105741076214120093531)),
        nlimbs_p=4,
    ),
    "bls12": dict(
        p=0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab,
        r=0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001,
        x=-0xd201000000010000,
        b=4,
        xi=1,  # xi = 1 + u
        twist="M",  # b' = b * xi
        g1=(0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb,
            0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1),
        g2=((0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8,
             0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e),
            (0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801,
             0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be)),
        nlimbs_p=6,
    ),
}


# ------------------------------------------------------- tiny Fp2 model
class Fp2:
    """a + b*u with u^2 = -1 (both curves use this quadratic extension)."""

    def __init__(self, p, a, b=0):
        self.p, self.a, self.b = p, a % p, b % p

    def __add__(s, o): return Fp2(s.p, s.a + o.a, s.b + o.b)
    def __sub__(s, o): return Fp2(s.p, s.a - o.a, s.b - o.b)
    def __mul__(s, o):
        if isinstance(o, int):
            return Fp2(s.p, s.a * o, s.b * o)
        return Fp2(s.p, s.a * o.a - s.b * o.b, s.a * o.b + s.b * o.a)
    def __eq__(s, o): return s.a == o.a and s.b == o.b
    def inv(s):
        d = pow(s.a * s.a + s.b * s.b, s.p - 2, s.p)
        return Fp2(s.p, s.a * d, -s.b * d)
    def pow(s, e):
        r, b = Fp2(s.p, 1), s
        while e:
            if e & 1:
                r = r * b
            b = b * b
            e >>= 1
        return r
    def is_zero(s): return s.a == 0 and s.b == 0


def ec_add(P, Q, zero):
    """Affine addition on y^2 = x^3 + b over a field with +,-,*,inv."""
    if P is None:
        return Q
    if Q is None:
        return P
    (x1, y1), (x2, y2) = P, Q
    if x1 == x2:
        if (y1 + y2) == zero:
            return None
        lam = (x1 * x1 * 3) * (y1 * 2).inv()
    else:
        lam = (y2 - y1) * (x2 - x1).inv()
    x3 = lam * lam - x1 - x2
    return (x3, lam * (x1 - x3) - y1)


class Fp:
    def __init__(self, p, a): self.p, self.a = p, a % p
    def __add__(s, o): return Fp(s.p, s.a + o.a)
    def __sub__(s, o): return Fp(s.p, s.a - o.a)
    def __mul__(s, o):
        return Fp(s.p, s.a * (o if isinstance(o, int) else o.a))
    def __eq__(s, o): return s.a == o.a
    def inv(s): return Fp(s.p, pow(s.a, s.p - 2, s.p))


def ec_mul(P, k, zero):
    R = None
    while k:
        if k & 1:
            R = ec_add(R, P, zero)
        P = ec_add(P, P, zero)
        k >>= 1
    return R


# ------------------------------------------------------------- emitters
def field_block(name, m, n):
    R = 1 << (64 * n)
    n0 = (-pow(m, -1, 1 << 64)) % (1 << 64)
    out = []
    out.append("/* %s: modulus %d */" % (name, m))
    out.append("#define %s_P_INIT %s" % (name.upper(), c_limbs(m, n)))
    out.append("#define %s_R1_INIT %s /* R mod p: one, in Montgomery form */" % (name.upper(), c_limbs(R % m, n)))
    out.append("#define %s_R2_INIT %s /* R^2 mod p: converts into Montgomery form */" % (name.upper(), c_limbs(R * R % m, n)))
    out.append("#define %s_N0 0x%016xULL /* -p^-1 mod 2^64 */" % (name.upper(), n0))
    out.append("#define %s_BITS %d" % (name.upper(), m.bit_length()))
    return out


def mont(v, m, n):
    return (v << (64 * n)) % m


def smallest_qnr(m):
    g = 2
    while pow(g, (m - 1) // 2, m) != m - 1:
        g += 1
    return g


def main():
    fld, crv, par = [], [], []
    for cname, c in CURVES.items():
        p, r, n = c["p"], c["r"], c["nlimbs_p"]
        pre = "ZP_" + cname.upper()
        fld += field_block("zp_%s_fp" % cname, p, n)
        fld += field_block("zp_%s_fr" % cname, r, 4)
        # Roots of unity of Fr as ffjavascript (and so snarkjs) derives them:
        # w = qnr^t with p - 1 = t * 2^s, qnr the smallest quadratic
        # non-residue. The prover must use the very same roots as the
        # setup that made the H points, so this derivation is part of the
        # format.
        s, t = 0, r - 1
        while t % 2 == 0:
            s, t = s + 1, t // 2
        qnr = smallest_qnr(r)
        w = pow(qnr, t, r)
        assert pow(w, 1 << s, r) == 1 and pow(w, 1 << (s - 1), r) != 1
        fld.append("#define %s_FR_TWO_ADICITY %d" % (pre, s))
        fld.append("#define %s_FR_ROOT_INIT %s /* qnr^t = %d^t, a primitive 2^%d-th root, Montgomery form */"
                   % (pre, c_limbs(mont(w, r, 4), 4), qnr, s))
        fld.append("#define %s_FP_XI %d /* Fp6 non-residue xi = %d + u */" % (pre, c["xi"], c["xi"]))
        fld.append("")

        # Curves: check generators, emit b, b' and generators.
        F = lambda v: Fp(p, v)
        G1 = (F(c["g1"][0]), F(c["g1"][1]))
        assert G1[1] * G1[1] == G1[0] * G1[0] * G1[0] + F(c["b"])
        assert ec_mul(G1, r, F(0)) is None
        xi = Fp2(p, c["xi"], 1)
        bt = Fp2(p, c["b"]) * xi.inv() if c["twist"] == "D" else Fp2(p, c["b"]) * xi
        (x0, x1), (y0, y1) = c["g2"]
        G2 = (Fp2(p, x0, x1), Fp2(p, y0, y1))
        assert G2[1] * G2[1] == G2[0] * G2[0] * G2[0] + bt
        assert ec_mul(G2, r, Fp2(p, 0)) is None
        crv.append("/* %s: y^2 = x^3 + %d over Fp; G2 on the %s-type twist y^2 = x^3 + b' */" % (cname, c["b"], c["twist"]))
        crv.append("#define %s_G1_B_INIT {%s}" % (pre, c_limbs(mont(c["b"], p, n), n)))
        crv.append("#define %s_G2_B_INIT {{%s}, {%s}}" % (pre, c_limbs(mont(bt.a, p, n), n), c_limbs(mont(bt.b, p, n), n)))
        crv.append("#define %s_G1_GEN_INIT {{%s}, {%s}}" % (pre, c_limbs(mont(c["g1"][0], p, n), n), c_limbs(mont(c["g1"][1], p, n), n)))
        crv.append("#define %s_G2_GEN_INIT {{{%s}, {%s}}, {{%s}, {%s}}}" % (
            pre, c_limbs(mont(x0, p, n), n), c_limbs(mont(x1, p, n), n),
            c_limbs(mont(y0, p, n), n), c_limbs(mont(y1, p, n), n)))
        # The subgroup tests (curve/subgroup.h) multiply by the curve
        # parameter x and map points by endomorphisms whose eigenvalue on
        # the group is a power of x; check each eigenvalue here.
        xv = c["x"]
        crv.append("#define %s_X_ABS 0x%xULL /* |x|, the curve parameter */" % (pre, abs(xv)))
        crv.append("#define %s_X_IS_NEG %d" % (pre, 1 if xv < 0 else 0))
        # psi, untwist-Frobenius-twist on G2: (conj(x)·cx, conj(y)·cy),
        # which acts on G2 as [p mod r].
        cx, cy = xi.pow((p - 1) // 3), xi.pow((p - 1) // 2)
        if c["twist"] == "M":
            cx, cy = cx.inv(), cy.inv()
        conj = lambda e: Fp2(p, e.a, -e.b)
        psi = lambda P: (conj(P[0]) * cx, conj(P[1]) * cy)
        pg = psi(G2)
        assert pg[1] * pg[1] == pg[0] * pg[0] * pg[0] + bt
        assert pg == ec_mul(G2, p % r, Fp2(p, 0))
        crv.append("#define %s_G2_PSI_X_INIT {{%s}, {%s}} /* psi(x, y) = (conj(x)·this, conj(y)·PSI_Y) */"
                   % (pre, c_limbs(mont(cx.a, p, n), n), c_limbs(mont(cx.b, p, n), n)))
        crv.append("#define %s_G2_PSI_Y_INIT {{%s}, {%s}}" % (pre, c_limbs(mont(cy.a, p, n), n), c_limbs(mont(cy.b, p, n), n)))
        if cname == "bls12":
            # phi(x, y) = (beta·x, y), beta the cube root of unity for
            # which phi acts on G1 as [-x^2] (Scott 2021/1130's test).
            g = 2
            while pow(g, (p - 1) // 3, p) == 1:
                g += 1
            w = pow(g, (p - 1) // 3, p)
            want = ec_mul(G1, (-xv * xv) % r, F(0))
            beta = [b_ for b_ in (w, w * w % p) if (F(b_) * G1[0], G1[1]) == want]
            assert len(beta) == 1
            crv.append("#define %s_G1_BETA_INIT {%s} /* phi(x, y) = (beta·x, y) is [-x^2] on G1 */"
                       % (pre, c_limbs(mont(beta[0], p, n), n)))
        else:
            # El Housni, Guillevic, Piellard 2022/348: for BN curves with
            # x != 4 mod 13 and x != 92 mod 97, P is in G2 exactly when
            # [x+1]P + psi([x]P) + psi^2([x]P) = psi^3([2x]P).
            assert xv > 0 and xv % 13 != 4 and xv % 97 != 92
        crv.append("")

        # Pairing: the Frobenius coefficients gamma_{k,j} = xi^(j*(p^k-1)/6)
        # for k = 1..3, j = 1..5, and the Miller loop parameter.
        par.append("/* %s: Frobenius coefficients xi^(j(p^k-1)/6), Montgomery form */" % cname)
        for k in (1, 2, 3):
            for j in range(1, 6):
                g = xi.pow(j * (p ** k - 1) // 6)
                par.append("#define %s_FROB%d_%d_INIT {{%s}, {%s}}" % (pre, k, j, c_limbs(mont(g.a, p, n), n), c_limbs(mont(g.b, p, n), n)))
        xv = c["x"]
        loop = 6 * xv + 2 if cname == "bn254" else -xv
        if loop >= 1 << 64:
            par.append("#define %s_ATE_LOOP_HI 0x%xULL" % (pre, loop >> 64))
            par.append("#define %s_ATE_LOOP_LO 0x%016xULL /* 6x+2 */" % (pre, loop & ((1 << 64) - 1)))
        else:
            par.append("#define %s_ATE_LOOP 0x%xULL /* |x| */" % (pre, loop))
        par.append("#define %s_ATE_LOOP_BITS %d" % (pre, loop.bit_length()))
        # Hard part of the final exponentiation, (p^4 - p^2 + 1) / r, as
        # limbs: a plain square-and-multiply exponent for the verifier.
        hard = (p ** 4 - p ** 2 + 1)
        assert hard % r == 0
        hard //= r
        hn = (hard.bit_length() + 63) // 64
        par.append("#define %s_FINAL_EXP_HARD_LIMBS %d" % (pre, hn))
        par.append("#define %s_FINAL_EXP_HARD_INIT %s /* (p^4 - p^2 + 1) / r */" % (pre, c_limbs(hard, hn)))
        # The addition chains of pairing.c compute exactly this exponent;
        # check here the decompositions they rely on.
        if cname == "bn254":
            # Scott et al. 2009: hard = l0 + l1 p + l2 p^2 + l3 p^3
            assert xv > 0
            l3, l2 = 1, 6 * xv ** 2 + 1
            l1 = -36 * xv ** 3 - 18 * xv ** 2 - 12 * xv + 1
            l0 = -36 * xv ** 3 - 30 * xv ** 2 - 18 * xv - 2
            assert hard == l0 + l1 * p + l2 * p ** 2 + l3 * p ** 3
        else:
            # Hayashida-Hayasaka-Teruya 2020: 3 hard = (x-1)^2 (x+p)(x^2+p^2-1) + 3,
            # and x = 1 mod 3, so hard = ((x-1)/3)(x-1)(x+p)(x^2+p^2-1) + 1.
            assert xv < 0 and (xv - 1) % 3 == 0
            assert hard == ((xv - 1) // 3) * (xv - 1) * (xv + p) * (xv ** 2 + p ** 2 - 1) + 1
            par.append("#define %s_HARD_C 0x%xULL /* (1 - x)/3 = (|x| + 1)/3 */" % (pre, (1 - xv) // 3))
        # ffjavascript (wasmcurves), and so snarkjs's vk_alphabeta_12, uses
        # final-exponentiation chains that compute a fixed power m of the
        # reduced pairing: Fuentes-Castaneda, Knapp, Rodriguez-Henriquez
        # (2011) for BN, m = 2x(6x^2 + 3x + 1); Hayashida-Hayasaka-Teruya
        # without the division by 3 for BLS12, m = 3. Checked against
        # ffjavascript's output by tests/test_ffjs.c; m is prime to r, so
        # the map e -> e^m on GT is a bijection with inverse e -> e^(m^-1).
        m = 2 * xv * (6 * xv ** 2 + 3 * xv + 1) if cname == "bn254" else 3
        assert m > 0 and m % r != 0
        minv = pow(m, -1, r)
        mn = (m.bit_length() + 63) // 64
        par.append("#define %s_FFJS_GT_EXP_LIMBS %d" % (pre, mn))
        par.append("#define %s_FFJS_GT_EXP_INIT %s /* m: ffjavascript's pairing = e^m */" % (pre, c_limbs(m, mn)))
        par.append("#define %s_FFJS_GT_EXP_INV_INIT %s /* m^-1 mod r */" % (pre, c_limbs(minv, 4)))
        par.append("")

    head = ["/* Generated by tools/gen_constants.py: do not edit. */", ""]
    for path, lines, guard in (("src/field/params.h", fld, "ZP_FIELD_PARAMS_H"),
                               ("src/curve/params.h", crv, "ZP_CURVE_PARAMS_H"),
                               ("src/pairing/params.h", par, "ZP_PAIRING_PARAMS_H")):
        with open(os.path.join(ROOT, path), "w") as f:
            f.write("\n".join(head + ["#ifndef " + guard, "#define " + guard, ""] + lines + ["#endif", ""]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
