#!/usr/bin/env bash
# The synthetic circuits of bench/synth_circuit.c, checked from outside:
# - for both curves at 2^12, `snarkjs wtns check` says the witness satisfies
#   the .r1cs, and a witness with one value changed does not;
# - at 2^16 (bn128) and 2^13 (bls12381), a key from `zkpipe setup` proves
#   the witness and `snarkjs groth16 verify` accepts the proof;
# - the same arguments give the same files; bad arguments are refused.
# Usage: tests/interop/synth_circuit.sh ZKPIPE ZKPIPE-BENCH-CIRCUIT WORKDIR
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
Z="$1"
GEN="$2"
W="$3"
rm -rf "$W"
mkdir -p "$W"
SNARKJS="$ROOT/node_modules/.bin/snarkjs"
passed=0
failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
check() { # check NAME COMMAND...: passes when the command succeeds
    local name="$1"; shift
    if "$@" >"$W/out.txt" 2>&1; then pass "$name"; else fail "$name" "$(tail -3 "$W/out.txt")"; fi
}
refuse() { # refuse NAME COMMAND...: passes when the command fails with a message
    local name="$1"; shift
    if "$@" >"$W/out.txt" 2>&1; then fail "$name" "it succeeded"
    elif [ -s "$W/out.txt" ]; then pass "$name ($(head -1 "$W/out.txt"))"
    else fail "$name" "failed without a message"; fi
}
SEED=$(( (RANDOM << 16) | RANDOM ))
echo "seed $SEED"

for curve in bn128 bls12381; do
    d="$W/$curve"
    mkdir -p "$d"
    check "$curve 2^12: generated" "$GEN" --curve "$curve" --log 12 --public 3 --seed "$SEED" "$d/c12.r1cs" "$d/c12.wtns"
    cat "$W/out.txt"
    check "$curve 2^12: snarkjs wtns check accepts the witness" "$SNARKJS" wtns check "$d/c12.r1cs" "$d/c12.wtns"
    grep -q "WITNESS IS CORRECT" "$W/out.txt" || fail "$curve 2^12: snarkjs says WITNESS IS CORRECT" "$(tail -2 "$W/out.txt")"
    # one value of the last block changed: some constraint must fail
    cp "$d/c12.wtns" "$d/bad.wtns"
    size=$(stat -c %s "$d/bad.wtns")
    printf '\x07' | dd of="$d/bad.wtns" bs=1 seek=$((size - 32 * 20)) conv=notrunc status=none
    if "$SNARKJS" wtns check "$d/c12.r1cs" "$d/bad.wtns" >"$W/out.txt" 2>&1 && grep -q "WITNESS IS CORRECT" "$W/out.txt"; then
        fail "$curve 2^12: a changed value breaks the witness" "snarkjs still accepts it"
    else
        pass "$curve 2^12: a changed value breaks the witness"
    fi
    check "$curve 2^12: the same seed gives the same files" "$GEN" --curve "$curve" --log 12 --public 3 --seed "$SEED" \
        "$d/again.r1cs" "$d/again.wtns"
    if cmp -s "$d/c12.r1cs" "$d/again.r1cs" && cmp -s "$d/c12.wtns" "$d/again.wtns"; then
        pass "$curve 2^12: byte-identical"
    else
        fail "$curve 2^12: byte-identical" "the files differ"
    fi
done

for spec in bn128:16 bls12381:13; do
    curve="${spec%%:*}"
    k="${spec#*:}"
    d="$W/$curve"
    check "$curve 2^$k: generated" "$GEN" --curve "$curve" --log "$k" --public 2 --seed "$SEED" "$d/c.r1cs" "$d/c.wtns"
    cat "$W/out.txt"
    check "$curve 2^$k: zkpipe setup" "$Z" setup --quiet "$d/c.r1cs" "$d/c.zkey"
    check "$curve 2^$k: zkpipe export-vk" "$Z" export-vk "$d/c.zkey" "$d/vk.json"
    check "$curve 2^$k: zkpipe prove" "$Z" prove "$d/c.zkey" "$d/c.wtns" "$d/proof.json" "$d/public.json"
    check "$curve 2^$k: snarkjs groth16 verify accepts the proof" "$SNARKJS" groth16 verify "$d/vk.json" \
        "$d/public.json" "$d/proof.json"
done

refuse "no size: refused" "$GEN" "$W/x.r1cs" "$W/x.wtns"
refuse "an unknown curve: refused" "$GEN" --curve secp256k1 --log 12 "$W/x.r1cs" "$W/x.wtns"
refuse "too small: refused" "$GEN" --log 5 "$W/x.r1cs" "$W/x.wtns"
refuse "an unwritable path: refused" "$GEN" --log 10 "$W/no/such/dir/x.r1cs" "$W/x.wtns"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
