#!/usr/bin/env bash
# Phase 1 of a ceremony against snarkjs 0.7.6, at 2^8 on both curves:
# - a zkpipe contribution passes `snarkjs powersoftau verify`, a snarkjs
#   one `zkpipe powersoftau verify`, and a mixed chain zkpipe -> snarkjs
#   -> zkpipe -> snarkjs -> beacon passes both (zkpipe's report names every
#   contribution and the beacon, and prints snarkjs's hashes);
# - zkpipe's beacon is byte-identical to snarkjs's (its partialHash
#   included: libb2's state written in noble's layout, stale buffer bytes
#   and all);
# - a tampered partialHash or next challenge, a moved tauG1 point and a
#   moved Lagrange point make zkpipe's verify exit 1 naming the
#   contribution or the section, with or without --budget (a budget at
#   its least sums 64 points at a time; below it, exit 2); a truncated
#   file and a point off the
#   curve or outside the subgroup (of a power or a Lagrange section) exit
#   3 naming the file and the section; a bad beacon argument exits 2; a
#   contribution to a prepared file warns that it drops the Lagrange
#   sections;
# - prepare phase2 of the zkpipe chain, zkey new, and the key proves a
#   circuit that snarkjs then verifies.
# About 90 s on 2 cores, mostly snarkjs.
# Usage: tests/ceremony/phase1.sh ZKPIPE ZKPIPE-BENCH-CIRCUIT WORKDIR
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
    D="$W/$curve"
    mkdir -p "$D"
    g1=64; [ "$curve" = bls12381 ] && g1=96
    check "$curve: zkpipe powersoftau new" "$Z" powersoftau new "$curve" 8 "$D/p0.ptau"
    status "$curve: an empty accumulator does not verify (exit 1)" 1 "no contribution" "$Z" ptau verify "$D/p0.ptau"

    # the chain: zkpipe -> snarkjs -> zkpipe -> snarkjs -> beacon
    status "$curve: zkpipe contributes" 0 "Next Challenge Hash" "$Z" powersoftau contribute "$D/p0.ptau" "$D/c1.ptau" --name "zk one" -e "e $RANDOM"
    status "$curve: snarkjs verifies zkpipe's contribution" 0 "Powers of Tau Ok" "$SNARKJS" powersoftau verify "$D/c1.ptau"
    check "$curve: snarkjs contributes after zkpipe" "$SNARKJS" powersoftau contribute "$D/c1.ptau" "$D/c2.ptau" --name="snark two" -e="e $RANDOM"
    status "$curve: zkpipe verifies snarkjs's contribution" 0 "Powers of Tau Ok" "$Z" ptau verify "$D/c2.ptau"
    check "$curve: zkpipe contributes after snarkjs" "$Z" ptau contribute -q "$D/c2.ptau" "$D/c3.ptau" -n "zk three" -e="x"
    check "$curve: snarkjs contributes again" "$SNARKJS" powersoftau contribute "$D/c3.ptau" "$D/c4.ptau" --name="snark four" -e="e $RANDOM"
    check "$curve: zkpipe beacon" "$Z" powersoftau beacon -q "$D/c4.ptau" "$D/zb.ptau" $BEACON 10 -n="Final Beacon"
    check "$curve: snarkjs beacon" "$SNARKJS" powersoftau beacon "$D/c4.ptau" "$D/sb.ptau" $BEACON 10 -n="Final Beacon"
    same "$curve: powersoftau beacon byte-identical to snarkjs" "$D/zb.ptau" "$D/sb.ptau"
    check "$curve: zkpipe beacon without the IFMA lanes" env ZKPIPE_SIMD=0 "$Z" powersoftau beacon -q "$D/c4.ptau" "$D/zbs.ptau" $BEACON 10 -n="Final Beacon"
    same "$curve: powersoftau beacon without the lanes byte-identical to snarkjs" "$D/zbs.ptau" "$D/sb.ptau"
    status "$curve: snarkjs verifies the mixed chain" 0 "Powers of Tau Ok" "$SNARKJS" powersoftau verify "$D/zb.ptau"
    grep -P '^\t\t' "$W/out.txt" >"$W/s-hashes.txt"
    status "$curve: zkpipe verifies the mixed chain" 0 "Powers of Tau Ok" "$Z" powersoftau verify "$D/zb.ptau"
    grep -P '^\t\t' "$W/out.txt" >"$W/z-hashes.txt"
    # every hash of the report (next challenge; per contribution the next
    # challenge, the response hash from the partialHash, the challenge)
    same "$curve: the report's hashes are snarkjs's" "$W/s-hashes.txt" "$W/z-hashes.txt"
    [ "$(wc -l <"$W/z-hashes.txt")" = 64 ] && pass "$curve: 16 hashes reported" || fail "$curve: 16 hashes reported" "$(wc -l <"$W/z-hashes.txt") lines"
    if grep -q "Contribution #5: Final Beacon" "$W/out.txt" && grep -q "Contribution #2: snark two" "$W/out.txt" &&
        grep -q "Contribution #1: zk one" "$W/out.txt" && grep -q "Beacon generator: $BEACON" "$W/out.txt"; then
        pass "$curve: the report names every contribution"
    else fail "$curve: the report names every contribution" "$(cat "$W/out.txt")"; fi

    # tampering: the last contribution's partialHash (its first byte, one
    # of the pending ones: 337 bytes from the end, before the next
    # challenge, the type, the parameters' length and the 49 bytes of
    # parameters: the name's 14, the exponent's 2, the beacon's 33), a
    # tauG1 point moved, the first contribution's next challenge
    cp "$D/zb.ptau" "$D/t1.ptau"
    flip "$D/t1.ptau" -337
    status "$curve: a tampered partialHash fails (exit 1)" 1 "contribution #5 (Final Beacon).*next challenge" "$Z" ptau verify "$D/t1.ptau"
    cp "$D/zb.ptau" "$D/t2.ptau"
    o2=$(section_offset "$D/t2.ptau" 2)
    node -e 'const fs=require("fs");const b=fs.readFileSync(process.argv[1]);const o=+process.argv[2],g=+process.argv[3];b.copy(b,o+3*g,o+4*g,o+5*g);fs.writeFileSync(process.argv[1],b)' "$D/t2.ptau" "$o2" "$g1"
    status "$curve: a moved tauG1 point fails (exit 1)" 1 "contribution #5.*tauG1 section" "$Z" ptau verify "$D/t2.ptau"
    cp "$D/c1.ptau" "$D/t3.ptau"
    o7=$(section_offset "$D/t3.ptau" 7)
    flip "$D/t3.ptau" $((o7 + 4 + 3 * g1 + 2 * 2 * g1 + 6 * g1 + 3 * 2 * g1 + 216 + 10)) # contribution #1's next challenge
    status "$curve: a tampered next challenge fails (exit 1)" 1 "contribution #1 (zk one)" "$Z" ptau verify "$D/t3.ptau"

    # malformed files
    head -c 5000 "$D/zb.ptau" >"$D/trunc.ptau"
    status "$curve: a truncated ptau (exit 3)" 3 "trunc.ptau" "$Z" ptau verify "$D/trunc.ptau"
    status "$curve: contribute to a truncated ptau (exit 3)" 3 "trunc.ptau" "$Z" ptau contribute "$D/trunc.ptau" "$D/x.ptau" -e x
    [ -e "$D/x.ptau" ] && fail "$curve: no partial ptau is left" "$D/x.ptau exists" || pass "$curve: no partial ptau is left"
    kind=off; problem="not on the curve"
    [ "$curve" = bls12381 ] && { kind=outside; problem="prime-order subgroup"; }
    cp "$D/zb.ptau" "$D/bad.ptau"
    bad_point "$D/bad.ptau" 4 9 "$curve" "$kind"
    status "$curve: verify of a ptau with a bad point (exit 3)" 3 "section 4.*$problem" "$Z" ptau verify "$D/bad.ptau"
    status "$curve: contribute to a ptau with a bad point (exit 3)" 3 "section 4.*point #9 .*$problem" "$Z" ptau contribute "$D/bad.ptau" "$D/x.ptau" -e x
    [ -e "$D/x.ptau" ] && fail "$curve: no partial ptau is left after a bad point" "$D/x.ptau exists" ||
        pass "$curve: no partial ptau is left after a bad point"
    status "$curve: a beacon of too few iterations (exit 2)" 2 "ITERATIONS" "$Z" ptau beacon "$D/zb.ptau" "$D/x.ptau" $BEACON 9

    # the chain's ptau, prepared, makes a key that proves
    check "$curve: zkpipe prepare phase2" "$Z" ptau prepare phase2 -q "$D/zb.ptau" "$D/final.ptau"
    status "$curve: zkpipe verifies the prepared ptau" 0 "Powers of Tau Ok" "$Z" ptau verify "$D/final.ptau"
    status "$curve: snarkjs verifies the prepared ptau" 0 "Powers of Tau Ok" "$SNARKJS" powersoftau verify "$D/final.ptau"
    cp "$D/final.ptau" "$D/t4.ptau"
    o12=$(section_offset "$D/t4.ptau" 12)
    node -e 'const fs=require("fs");const b=fs.readFileSync(process.argv[1]);const o=+process.argv[2],g=+process.argv[3];b.copy(b,o+8*g,o+9*g,o+10*g);fs.writeFileSync(process.argv[1],b)' "$D/t4.ptau" "$o12" "$g1"
    status "$curve: a moved Lagrange point fails (exit 1)" 1 "section 12" "$Z" ptau verify "$D/t4.ptau"
    cp "$D/final.ptau" "$D/t6.ptau"
    o13=$(section_offset "$D/t6.ptau" 13)
    node -e 'const fs=require("fs");const b=fs.readFileSync(process.argv[1]);const o=+process.argv[2],g=+process.argv[3];b.copy(b,o+300*g,o+301*g,o+302*g);fs.writeFileSync(process.argv[1],b)' "$D/t6.ptau" "$o13" $((2 * g1))
    status "$curve: a moved G2 Lagrange point of the top level fails (exit 1)" 1 "section 13" "$Z" ptau verify "$D/t6.ptau"
    # within a budget: below the least refused (exit 2); at it, every
    # section is summed 64 points at a time, the Lagrange levels above
    # that with k_j = ρ^j, and a moved point still fails
    status "$curve: verify below its budget's minimum (exit 2)" 2 "below the" "$Z" ptau verify "$D/final.ptau" --budget 90M
    least=$(sed -n 's/.*(\([0-9]*\) bytes) it needs$/\1/p' "$W/out.txt")
    status "$curve: verify within a budget of $least bytes" 0 "summed 64 points at a time" "$Z" ptau verify "$D/final.ptau" --budget "$least"
    grep -q "Powers of Tau Ok" "$W/out.txt" && pass "$curve: ... and passes" || fail "$curve: ... and passes" "$(tail -3 "$W/out.txt")"
    status "$curve: a moved Lagrange point fails within the budget (exit 1)" 1 "section 12" "$Z" ptau verify "$D/t4.ptau" --budget "$least"
    cp "$D/final.ptau" "$D/t7.ptau" # a point of the top level, 512 points: in parts
    node -e 'const fs=require("fs");const b=fs.readFileSync(process.argv[1]);const o=+process.argv[2],g=+process.argv[3];b.copy(b,o+700*g,o+701*g,o+702*g);fs.writeFileSync(process.argv[1],b)' "$D/t7.ptau" "$o12" "$g1"
    status "$curve: a moved top-level Lagrange point fails within the budget (exit 1)" 1 "section 12" "$Z" ptau verify "$D/t7.ptau" --budget "$least"
    status "$curve: a moved top-level G2 Lagrange point fails within the budget (exit 1)" 1 "section 13" "$Z" ptau verify "$D/t6.ptau" --budget "$least"
    status "$curve: a moved tauG1 point fails within the budget (exit 1)" 1 "tauG1 section" "$Z" ptau verify "$D/t2.ptau" --budget "$least"
    # the domain's last Lagrange point of the top level of section 15,
    # off the curve (bn128) or outside the subgroup (bls12381)
    cp "$D/final.ptau" "$D/t5.ptau"
    bad_point "$D/t5.ptau" 15 $((2 * 256 - 2)) "$curve" "$kind"
    status "$curve: a bad Lagrange point (exit 3)" 3 "section 15.*$problem" "$Z" ptau verify "$D/t5.ptau"
    status "$curve: contribute to a prepared ptau warns" 0 "WARNING: .*final.ptau is prepared" \
        "$Z" ptau contribute "$D/final.ptau" "$D/unprep.ptau" -e x
    status "$curve: the contribution verifies, not prepared" 0 "does not contain phase2 precalculated" \
        "$Z" ptau verify "$D/unprep.ptau"
    check "$curve: a circuit of 2^8" "$GEN" --curve "$curve" --constraints 200 "$D/c.r1cs" "$D/c.wtns"
    check "$curve: zkey new from the ceremony's ptau" "$Z" zkey new -q "$D/c.r1cs" "$D/final.ptau" "$D/c0.zkey"
    check "$curve: zkey beacon" "$Z" zkey beacon -q "$D/c0.zkey" "$D/c.zkey" $BEACON 10
    check "$curve: zkey export verificationkey" "$Z" zkey export verificationkey "$D/c.zkey" "$D/vk.json"
    check "$curve: zkpipe proves with the key" "$Z" prove "$D/c.zkey" "$D/c.wtns" "$D/proof.json" "$D/public.json"
    status "$curve: snarkjs verifies the proof" 0 "OK" "$SNARKJS" groth16 verify "$D/vk.json" "$D/public.json" "$D/proof.json"
done

# A prepared BN254 ptau of power 28 (the largest published): its top
# Lagrange level, 2^29 points, is past BN254's 2^28-th roots of unity,
# which verify's check needs; refused before any work (under --budget it
# drew roots for ever). Only the header and a section 12 are needed.
node -e '
const fs = require("fs");
const q = 0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47n;
const hdr = Buffer.alloc(44); hdr.writeUInt32LE(32, 0);
for (let i = 0, v = q; i < 32; i++, v >>= 8n) hdr[4 + i] = Number(v & 255n);
hdr.writeUInt32LE(28, 36); hdr.writeUInt32LE(28, 40);
const sec = (id, b) => { const h = Buffer.alloc(12); h.writeUInt32LE(id, 0); h.writeBigUInt64LE(BigInt(b.length), 4); return Buffer.concat([h, b]); };
const head = Buffer.alloc(12); head.write("ptau", 0); head.writeUInt32LE(1, 4); head.writeUInt32LE(2, 8);
fs.writeFileSync(process.argv[1], Buffer.concat([head, sec(1, hdr), sec(12, Buffer.alloc(64))]));' "$W/p28.ptau"
status "bn128: verify of a prepared power-28 ptau is refused (exit 3)" 3 "power 28: its Lagrange bases of 2^29 points are past bn128" \
    "$Z" ptau verify "$W/p28.ptau" --budget 200M

echo "ceremony phase 1: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
