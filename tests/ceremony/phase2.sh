#!/usr/bin/env bash
# Phase 2 of a ceremony against snarkjs 0.7.6, on both curves, with the
# merkle example and the committed 2^12 powers of tau:
# - zkey new and zkey beacon give files byte-identical to snarkjs's, with
#   the IFMA lanes where the CPU has them and without (ZKPIPE_SIMD=0);
# - a mixed chain snarkjs -> zkpipe -> snarkjs -> zkpipe -> beacon passes
#   `snarkjs zkey verify` and `zkpipe zkey verify` (which prints every
#   contribution's hash and name);
# - a tampered contribution, a moved L point and a key of another circuit
#   make zkpipe's verify exit 1 naming the check; a truncated key or ptau,
#   a ptau too small for the circuit, and a point off the curve or outside
#   the subgroup in a ptau or a key, exit 3 naming the file and section;
# - a ptau point zkey new only copies or hashes (H's, tauG1's) may be
#   outside the subgroup: the key is snarkjs's, and contribute refuses it;
# - the final key proves with zkpipe and snarkjs verifies the proof;
# - powersoftau new and prepare phase2 at 2^8 are byte-identical to snarkjs's
#   (prepare with the lanes and without, in one transform a level and, under
#   --budget, in parts);
# - zkey verify accepts a key on a tau = 1 ptau, as snarkjs does.
# About 2 minutes on 2 cores, mostly snarkjs.
# Usage: tests/ceremony/phase2.sh ZKPIPE ZKPIPE-BENCH-CIRCUIT WORKDIR
# (zkpipe-bench-ptau is taken from beside ZKPIPE-BENCH-CIRCUIT)
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
Z="$1"
GEN="$2"
W="$3"
rm -rf "$W"
mkdir -p "$W"
SNARKJS="$ROOT/node_modules/.bin/snarkjs"
[ -x "$SNARKJS" ] || { echo "skipped: snarkjs is not installed (npm ci)"; exit 77; }
. "$HERE/lib.sh"
BEACON=0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f

for curve in bn128 bls12381; do
    R="$ROOT/examples/merkle/$curve/merkle.r1cs"
    P="$ROOT/tests/ptau/pot12_$curve.ptau"
    D="$W/$curve"
    mkdir -p "$D"
    g1=64; [ "$curve" = bls12381 ] && g1=96

    check "$curve: zkpipe zkey new" "$Z" zkey new -q "$R" "$P" "$D/z0.zkey"
    check "$curve: snarkjs zkey new" "$SNARKJS" zkey new "$R" "$P" "$D/s0.zkey"
    same "$curve: zkey new byte-identical to snarkjs" "$D/z0.zkey" "$D/s0.zkey"
    check "$curve: zkpipe zkey beacon" "$Z" zkey beacon -q "$D/z0.zkey" "$D/zb.zkey" $BEACON 10 -n="Final Beacon"
    check "$curve: snarkjs zkey beacon" "$SNARKJS" zkey beacon "$D/z0.zkey" "$D/sb.zkey" $BEACON 10 -n="Final Beacon"
    same "$curve: zkey beacon byte-identical to snarkjs" "$D/zb.zkey" "$D/sb.zkey"
    # the scalar paths too, where this CPU would take the IFMA lanes
    check "$curve: zkey new without the lanes" env ZKPIPE_SIMD=0 "$Z" zkey new -q "$R" "$P" "$D/z0s.zkey"
    same "$curve: zkey new without the lanes byte-identical to snarkjs" "$D/z0s.zkey" "$D/s0.zkey"
    check "$curve: zkey beacon without the lanes" env ZKPIPE_SIMD=0 "$Z" zkey beacon -q "$D/z0.zkey" "$D/zbs.zkey" $BEACON 10 -n="Final Beacon"
    same "$curve: zkey beacon without the lanes byte-identical to snarkjs" "$D/zbs.zkey" "$D/sb.zkey"

    # the mixed chain: snarkjs -> zkpipe -> snarkjs -> zkpipe -> beacon
    check "$curve: snarkjs contributes first" "$SNARKJS" zkey contribute "$D/z0.zkey" "$D/c1.zkey" --name="snark one" -e="e $RANDOM"
    check "$curve: zkpipe contributes after snarkjs" "$Z" zkey contribute -q "$D/c1.zkey" "$D/c2.zkey" --name "zk two" -e "entropy $RANDOM"
    check "$curve: snarkjs contributes after zkpipe" "$SNARKJS" zkey contribute "$D/c2.zkey" "$D/c3.zkey" --name="snark three" -e="e $RANDOM"
    check "$curve: zkpipe contributes again" "$Z" zkey contribute -q "$D/c3.zkey" "$D/c4.zkey" -n "zk four" -e "x"
    check "$curve: zkpipe beacon ends the chain" "$Z" zkey beacon -q "$D/c4.zkey" "$D/final.zkey" $BEACON 10 -n="Final Beacon"
    # each verifier checks every contribution of the chain: snarkjs's
    # zkpipe's and zkpipe's snarkjs's (run once each, the reports kept)
    status "$curve: snarkjs zkey verify accepts the chain" 0 "ZKey Ok" "$SNARKJS" zkey verify "$R" "$P" "$D/final.zkey"
    cp "$W/out.txt" "$W/s-report.txt"
    status "$curve: zkpipe zkey verify accepts the chain" 0 "ZKey Ok" "$Z" zkey verify "$R" "$P" "$D/final.zkey"
    if grep -q "contribution #5 Final Beacon" "$W/out.txt" && grep -q "contribution #2 zk two" "$W/out.txt" &&
        grep -q "Beacon generator: $BEACON" "$W/out.txt"; then pass "$curve: the report names every contribution"
    else fail "$curve: the report names every contribution" "$(cat "$W/out.txt")"; fi
    # the contribution hashes zkpipe prints are snarkjs's
    hashes() { awk '/contribution #/ { on = 1; sub(/.*contribution #/, "contribution #") } on && (/contribution #/ || /^\t\t/)'; }
    hashes <"$W/s-report.txt" >"$W/s.txt"
    hashes <"$W/out.txt" >"$W/z.txt"
    [ "$(grep -c contribution "$W/z.txt")" = 5 ] || fail "$curve: five contributions reported" "$(cat "$W/z.txt")"
    same "$curve: contribution hashes as snarkjs prints them" "$W/s.txt" "$W/z.txt"

    # tampering
    cp "$D/final.zkey" "$D/t1.zkey"
    flip "$D/t1.zkey" -100 # inside the last contribution's transcript
    status "$curve: a tampered transcript fails (exit 1)" 1 "contribution #5" "$Z" zkey verify "$R" "$P" "$D/t1.zkey"
    cp "$D/final.zkey" "$D/t2.zkey"
    o8=$(section_offset "$D/t2.zkey" 8)
    node -e 'const fs=require("fs");const b=fs.readFileSync(process.argv[1]);const o=+process.argv[2],g=+process.argv[3];b.copy(b,o,o+g,o+2*g);fs.writeFileSync(process.argv[1],b)' "$D/t2.zkey" "$o8" "$g1"
    status "$curve: a moved L point fails (exit 1)" 1 "section 8" "$Z" zkey verify "$R" "$P" "$D/t2.zkey"
    check "$curve: another circuit" "$GEN" --curve "$curve" --constraints 200 "$D/other.r1cs" "$D/other.wtns"
    status "$curve: a key of another circuit fails (exit 1)" 1 "INVALID" "$Z" zkey verify "$D/other.r1cs" "$P" "$D/final.zkey"
    check "$curve: zkey new, a 2^8 circuit from a 2^12 ptau" "$Z" zkey new -q "$D/other.r1cs" "$P" "$D/oz.zkey"
    check "$curve: snarkjs zkey new of it" "$SNARKJS" zkey new "$D/other.r1cs" "$P" "$D/os.zkey"
    same "$curve: zkey new byte-identical for a smaller domain" "$D/oz.zkey" "$D/os.zkey"

    # within a budget: below the minimum is refused, naming it; at the
    # minimum the key is composed a few signals at a time (many passes
    # over the circuit) and is still snarkjs's, byte for byte
    status "$curve: zkey new below its budget's minimum (exit 2)" 2 "below the minimum" "$Z" zkey new "$R" "$P" "$D/x.zkey" --budget 1M
    least=$(sed -n 's/.*below the minimum for .*: \([0-9.]*\) MiB$/\1/p' "$W/out.txt")
    budget=$(awk -v m="$least" 'BEGIN { printf "%.1fM", m + 0.2 }')
    check "$curve: zkey new within a budget of $budget" "$Z" zkey new -q "$R" "$P" "$D/zbud.zkey" --budget "$budget"
    same "$curve: zkey new within a budget byte-identical to snarkjs" "$D/zbud.zkey" "$D/s0.zkey"
    status "$curve: zkey verify within the budget" 0 "ZKey Ok" "$Z" zkey verify "$R" "$P" "$D/final.zkey" --budget "$budget"

    # malformed files
    head -c 100000 "$D/final.zkey" >"$D/trunc.zkey"
    status "$curve: a truncated key (exit 3)" 3 "trunc.zkey" "$Z" zkey verify "$R" "$P" "$D/trunc.zkey"
    head -c 200000 "$P" >"$D/trunc.ptau"
    status "$curve: a truncated ptau (exit 3)" 3 "trunc.ptau" "$Z" zkey new "$R" "$D/trunc.ptau" "$D/x.zkey"
    status "$curve: a truncated ptau in verify (exit 3)" 3 "trunc.ptau" "$Z" zkey verify "$R" "$D/trunc.ptau" "$D/final.zkey"
    cp "$D/final.zkey" "$D/t3.zkey"
    o10=$(section_offset "$D/t3.zkey" 10)
    node -e 'const fs=require("fs");const b=fs.readFileSync(process.argv[1]);b.writeUInt32LE(1000,+process.argv[2]+64);fs.writeFileSync(process.argv[1],b)' "$D/t3.zkey" "$o10"
    status "$curve: a bad contribution count (exit 3)" 3 "section 10" "$Z" zkey verify "$R" "$P" "$D/t3.zkey"
    # points off the curve, or (BLS12-381's G1 has a cofactor) outside the
    # subgroup, where the endomorphism splits would not give snarkjs's bytes
    kind=off; problem="not on the curve"
    [ "$curve" = bls12381 ] && { kind=outside; problem="prime-order subgroup"; }
    dom=$(domain "$D/z0.zkey")
    cp "$P" "$D/bad.ptau"
    bad_point "$D/bad.ptau" 12 $((dom - 1)) "$curve" "$kind" # the domain's first Lagrange point
    status "$curve: zkey new of a ptau with a bad point (exit 3)" 3 "section 12 (lagrange tauG1): point #$((dom - 1)) .*$problem" "$Z" zkey new "$R" "$D/bad.ptau" "$D/x.zkey"
    status "$curve: zkey new of it without the lanes (exit 3)" 3 "section 12.*$problem" env ZKPIPE_SIMD=0 "$Z" zkey new "$R" "$D/bad.ptau" "$D/x.zkey"
    # zkey new copies the odd points of the 2·domain basis into H, reads
    # no other of them, and hashes tauG1's: those need only be on the
    # curve (the group law holds there). Outside the subgroup, the key is
    # still snarkjs's byte for byte, and contribute, which multiplies H,
    # refuses it.
    cp "$P" "$D/h.ptau"
    bad_point "$D/h.ptau" 12 $((2 * dom - 1 + 2)) "$curve" outside # unread
    bad_point "$D/h.ptau" 12 $((2 * dom - 1 + 3)) "$curve" outside # H[1]
    bad_point "$D/h.ptau" 2 5 "$curve" outside                     # hashed
    check "$curve: zkey new, points outside the subgroup only copied or hashed" "$Z" zkey new -q "$R" "$D/h.ptau" "$D/h.zkey"
    check "$curve: snarkjs zkey new of that ptau" "$SNARKJS" zkey new "$R" "$D/h.ptau" "$D/hs.zkey"
    same "$curve: zkey new of that ptau byte-identical to snarkjs" "$D/h.zkey" "$D/hs.zkey"
    if [ "$curve" = bls12381 ]; then
        status "$curve: zkey contribute to that key (exit 3)" 3 "section 9.*prime-order subgroup" "$Z" zkey contribute "$D/h.zkey" "$D/x.zkey" -n x -e x
    fi
    cp "$P" "$D/off.ptau"
    bad_point "$D/off.ptau" 12 $((2 * dom - 1 + 2)) "$curve" off
    status "$curve: zkey new, a 2·domain Lagrange point off the curve (exit 3)" 3 "section 12 (lagrange tauG1): point #$((2 * dom + 1)) is not on the curve" "$Z" zkey new "$R" "$D/off.ptau" "$D/x.zkey"
    cp "$D/final.zkey" "$D/bad.zkey"
    bad_point "$D/bad.zkey" 8 3 "$curve" "$kind"
    status "$curve: zkey beacon on a key with a bad point (exit 3)" 3 "section 8.*$problem" "$Z" zkey beacon "$D/bad.zkey" "$D/x.zkey" $BEACON 10
    status "$curve: zkey verify of a key with a bad point (exit 3)" 3 "section 8.*$problem" "$Z" zkey verify "$R" "$P" "$D/bad.zkey"
    check "$curve: a circuit of 2^13" "$GEN" --curve "$curve" --log 13 "$D/big.r1cs" "$D/big.wtns"
    status "$curve: a ptau too small (exit 3)" 3 "too small" "$Z" zkey new "$D/big.r1cs" "$P" "$D/x.zkey"
    [ -e "$D/x.zkey" ] && fail "$curve: no partial key is left" "$D/x.zkey exists" || pass "$curve: no partial key is left"

    # the key proves, snarkjs verifies
    check "$curve: zkey export verificationkey" "$Z" zkey export verificationkey "$D/final.zkey" "$D/vk.json"
    check "$curve: zkpipe proves with the ceremony's key" "$Z" prove "$D/final.zkey" "$ROOT/examples/merkle/$curve/w1.wtns" "$D/proof.json" "$D/public.json"
    status "$curve: snarkjs verifies the proof" 0 "OK" "$SNARKJS" groth16 verify "$D/vk.json" "$D/public.json" "$D/proof.json"
done

# A domain of the ptau's own power above 2^14 (a 2^15 circuit on a power
# 15 ptau, as people pick them): zkey_new.js's circuit hash then reads one
# point past tauG1, the next section's header and first bytes, through
# ffjavascript's arithmetic on unreduced values. BN254 only (BLS12-381 was
# checked by hand: 25 s more of snarkjs); the ptau is zkpipe-bench-ptau's,
# laid out as prepare phase2 lays it out, made in 3 s where powersoftau new
# and prepare phase2 took 25.
D="$W/own-power"
mkdir -p "$D"
check "bn128: a prepared ptau of power 15 (zkpipe-bench-ptau)" "$(dirname "$GEN")/zkpipe-bench-ptau" 15 "$D/p15.ptau"
check "bn128: a circuit of 2^15 (16385 constraints)" "$GEN" --curve bn128 --constraints 16400 "$D/c.r1cs" "$D/c.wtns"
check "bn128: zkpipe zkey new, the domain the ptau's power" "$Z" zkey new -q "$D/c.r1cs" "$D/p15.ptau" "$D/z.zkey"
check "bn128: snarkjs zkey new of it" "$SNARKJS" zkey new "$D/c.r1cs" "$D/p15.ptau" "$D/s.zkey"
same "bn128: zkey new byte-identical, the hash reading past tauG1" "$D/z.zkey" "$D/s.zkey"
# the same ptau with tauG1 moved to the end of the file: nothing to read
# past it, so zkey new refuses.
node -e '
const fs = require("fs"), b = fs.readFileSync(process.argv[1]);
const n = b.readUInt32LE(8), secs = [];
for (let i = 0, o = 12; i < n; i++) { const l = Number(b.readBigUInt64LE(o + 4)); secs.push(b.subarray(o, o + 12 + l)); o += 12 + l; }
const two = secs.filter(x => x.readUInt32LE(0) === 2), rest = secs.filter(x => x.readUInt32LE(0) !== 2);
fs.writeFileSync(process.argv[2], Buffer.concat([b.subarray(0, 12), ...rest, ...two]));' "$D/p15.ptau" "$D/last.ptau"
status "bn128: zkey new on a ptau that ends after tauG1 (exit 3)" 3 "ends there" "$Z" zkey new "$D/c.r1cs" "$D/last.ptau" "$D/x.zkey"

# phase 1's new and prepare phase2 at 2^8, against snarkjs's
for curve in bn128 bls12381; do
    D="$W/ptau-$curve"
    mkdir -p "$D"
    check "$curve: snarkjs powersoftau new 2^8" "$SNARKJS" powersoftau new "$curve" 8 "$D/p0.ptau"
    check "$curve: zkpipe powersoftau new 2^8" "$Z" powersoftau new "$curve" 8 "$D/z0.ptau"
    same "$curve: powersoftau new byte-identical to snarkjs" "$D/z0.ptau" "$D/p0.ptau"
    check "$curve: snarkjs powersoftau contribute" "$SNARKJS" powersoftau contribute "$D/p0.ptau" "$D/p1.ptau" --name=t -e="e $RANDOM"
    check "$curve: snarkjs prepare phase2" "$SNARKJS" powersoftau prepare phase2 "$D/p1.ptau" "$D/s.ptau"
    check "$curve: zkpipe ptau prepare phase2" "$Z" ptau prepare phase2 -q "$D/p1.ptau" "$D/z.ptau"
    same "$curve: prepare phase2 byte-identical to snarkjs" "$D/z.ptau" "$D/s.ptau"
    check "$curve: zkpipe ptau prepare phase2 without the lanes" env ZKPIPE_SIMD=0 "$Z" ptau prepare phase2 -q "$D/p1.ptau" "$D/zs.ptau"
    same "$curve: prepare phase2 without the lanes byte-identical to snarkjs" "$D/zs.ptau" "$D/s.ptau"
    # a budget just over the least: the levels past 64 points (G1; 128 in
    # G2 on bn128) are cut in parts through a temporary file, the same bytes
    budget=100835328; [ "$curve" = bls12381 ] && budget=101000000
    mkdir -p "$D/cut"
    check "$curve: ptau prepare phase2 --budget $budget (levels cut in parts)" "$Z" ptau prepare phase2 -q "$D/p1.ptau" "$D/cut/z.ptau" --budget $budget
    same "$curve: prepare phase2 in parts byte-identical to snarkjs" "$D/cut/z.ptau" "$D/s.ptau"
    [ "$(ls "$D/cut")" = z.ptau ] && pass "$curve: prepare phase2 in parts leaves no temporary file" ||
        fail "$curve: prepare phase2 in parts leaves no temporary file" "$(ls "$D/cut")"
    check "$curve: the same without the lanes" env ZKPIPE_SIMD=0 "$Z" ptau prepare phase2 -q "$D/p1.ptau" "$D/cut/zs.ptau" --budget $budget
    same "$curve: prepare phase2 in parts without the lanes byte-identical" "$D/cut/zs.ptau" "$D/s.ptau"
    status "$curve: prepare phase2 under the power's least budget (exit 2)" 2 "below the .* a power of 8 needs" "$Z" ptau prepare phase2 "$D/p1.ptau" "$D/x.ptau" --budget 90M
    cp "$D/p1.ptau" "$D/bad.ptau"
    kind=off; problem="not on the curve"
    [ "$curve" = bls12381 ] && { kind=outside; problem="prime-order subgroup"; }
    bad_point "$D/bad.ptau" 5 7 "$curve" "$kind"
    status "$curve: prepare phase2 of a ptau with a bad point (exit 3)" 3 "section 5.*$problem" "$Z" powersoftau prepare phase2 "$D/bad.ptau" "$D/x.ptau"
    head -c 5000 "$D/p1.ptau" >"$D/trunc.ptau"
    status "$curve: prepare phase2 of a truncated ptau (exit 3)" 3 "trunc.ptau" "$Z" powersoftau prepare phase2 "$D/trunc.ptau" "$D/x.ptau"
done

# A key on a ptau of tau = 1 (powersoftau new, prepared, no contribution),
# as toy setups make: its H is all infinity, which snarkjs's verify
# accepts, and so must zkpipe's, before and after a contribution; an H
# point made the generator fails.
D="$W/tau-one"
mkdir -p "$D"
check "bn128: prepare phase2 of tau = 1 at 2^8" "$Z" ptau prepare phase2 -q "$W/ptau-bn128/z0.ptau" "$D/p.ptau"
check "bn128: a circuit of 2^7" "$GEN" --curve bn128 --constraints 100 "$D/c.r1cs" "$D/c.wtns"
check "bn128: zkey new on tau = 1" "$Z" zkey new -q "$D/c.r1cs" "$D/p.ptau" "$D/k0.zkey"
check "bn128: zkey contribute on tau = 1" "$Z" zkey contribute -q "$D/k0.zkey" "$D/k1.zkey" -n one -e "e $RANDOM"
status "bn128: zkpipe zkey verify, tau = 1, H all infinity" 0 "ZKey Ok" "$Z" zkey verify "$D/c.r1cs" "$D/p.ptau" "$D/k1.zkey"
status "bn128: snarkjs zkey verify of the same" 0 "ZKey Ok" "$SNARKJS" zkey verify "$D/c.r1cs" "$D/p.ptau" "$D/k1.zkey"
cp "$D/k1.zkey" "$D/bad.zkey"
bad_point "$D/bad.zkey" 9 3 bn128 on
status "bn128: zkpipe zkey verify, tau = 1, an H point not infinity (exit 1)" 1 "section 9 (H)" "$Z" zkey verify "$D/c.r1cs" "$D/p.ptau" "$D/bad.zkey"

echo "ceremony phase 2: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
