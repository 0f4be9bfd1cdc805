#!/usr/bin/env bash
# Builds the snarkjs fixtures the interop test uses, for bn128 and bls12381:
#
#   OUTDIR/<curve>/merkle.r1cs          circom2 --r1cs (tests/circuits/merkle.circom)
#   OUTDIR/<curve>/merkle_js/merkle.wasm witness generator
#   OUTDIR/<curve>/merkle.zkey          groth16 setup (committed ptau) + 1 beacon contribution (fixed)
#   OUTDIR/<curve>/vk.json              zkey export verificationkey
#   OUTDIR/<curve>/w1.wtns, w2.wtns     wtns calculate, tests/circuits/input{1,2}.json
#   OUTDIR/<curve>/proof1.json, public1.json, proof2.json, public2.json
#                                       snarkjs groth16 prove of w1 / w2 (checked with snarkjs verify)
#
# Usage: tests/interop/build_fixtures.sh OUTDIR [curve...]   (default curves: bn128 bls12381)
# Idempotent: a curve is rebuilt only when its inputs (circuit, inputs, ptau,
# package-lock.json, this script) changed; curves are built into a temporary
# folder and moved into place, so an interrupted build leaves nothing half-made.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"

if [ $# -lt 1 ]; then
    echo "usage: $0 OUTDIR [bn128|bls12381...]" >&2
    exit 2
fi
mkdir -p "$1"
OUTDIR="$(cd "$1" && pwd)"
# circom2 (WebAssembly, WASI) only sees files below its working directory:
# run from the repository root, where the circuits and node_modules are.
cd "$ROOT"
shift
curves=("$@")
[ ${#curves[@]} -gt 0 ] || curves=(bn128 bls12381)

bash "$ROOT/scripts/deps.sh" >&2
# shellcheck source=../../scripts/common.sh
. "$ROOT/scripts/common.sh"
SNARKJS="$ROOT/node_modules/.bin/snarkjs"
CIRCOM="$ROOT/node_modules/.bin/circom2"
CIRCUITS="$ROOT/tests/circuits"
BEACON=0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20

ptau_for() {
    local f
    for f in "$ROOT/tests/ptau/pot12_$1.ptau" "$ROOT/tests/ptau/pot11_$1.ptau"; do
        [ -s "$f" ] && { echo "$f"; return; }
    done
    echo "no ptau for $1 in tests/ptau (run tests/ptau/make_ptau.sh)" >&2
    exit 1
}


for curve in "${curves[@]}"; do
    case "$curve" in bn128|bls12381) ;; *) echo "unknown curve $curve" >&2; exit 2 ;; esac
    ptau="$(ptau_for "$curve")"
    dest="$OUTDIR/$curve"
    stamp="$(cat "$CIRCUITS/merkle.circom" "$CIRCUITS/input1.json" "$CIRCUITS/input2.json" \
                 "$ptau" "$ROOT/package-lock.json" "$HERE/build_fixtures.sh" | sha256sum | cut -d' ' -f1)"
    if [ -f "$dest/.stamp" ] && [ "$(cat "$dest/.stamp")" = "$stamp" ]; then
        echo "fixtures $curve: up to date ($dest)"
        continue
    fi
    start=$(date +%s)
    tmp="$OUTDIR/.$curve.tmp"
    rm -rf "$tmp"
    mkdir -p "$tmp"
    quiet "$CIRCOM" "$CIRCUITS/merkle.circom" --r1cs --wasm --prime "$curve" \
        -l "$ROOT/node_modules" -o "$tmp"
    quiet "$SNARKJS" groth16 setup "$tmp/merkle.r1cs" "$ptau" "$tmp/merkle_0.zkey"
    # One contribution. `zkey contribute -e=...` mixes the entropy with OS
    # randomness (snarkjs misc.getRandomRng), so it is never reproducible; a
    # beacon contribution is deterministic, which makes every fixture file the
    # same on every machine.
    quiet "$SNARKJS" zkey beacon "$tmp/merkle_0.zkey" "$tmp/merkle.zkey" \
        "$BEACON" 10 --name="zkpipe fixture beacon"
    rm -f "$tmp/merkle_0.zkey"
    quiet "$SNARKJS" zkey export verificationkey "$tmp/merkle.zkey" "$tmp/vk.json"
    for i in 1 2; do
        quiet "$SNARKJS" wtns calculate "$tmp/merkle_js/merkle.wasm" "$CIRCUITS/input$i.json" "$tmp/w$i.wtns"
        quiet "$SNARKJS" groth16 prove "$tmp/merkle.zkey" "$tmp/w$i.wtns" "$tmp/proof$i.json" "$tmp/public$i.json"
        quiet "$SNARKJS" groth16 verify "$tmp/vk.json" "$tmp/public$i.json" "$tmp/proof$i.json"
    done
    echo "$stamp" > "$tmp/.stamp"
    rm -rf "$dest"
    mv "$tmp" "$dest"
    echo "fixtures $curve: built in $(( $(date +%s) - start )) s ($dest)"
done
