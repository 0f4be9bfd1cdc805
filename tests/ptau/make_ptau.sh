#!/usr/bin/env bash
# Makes the small powers-of-tau files the interop fixtures use, one per curve:
#   tests/ptau/pot12_bn128.ptau, tests/ptau/pot12_bls12381.ptau
# (2^12: circuits with nConstraints + nPublic < 4096). One contribution with a
# fixed, public entropy string (-e): test use only, NOT a secure ceremony. Note
# that snarkjs mixes -e with OS randomness (misc.getRandomRng), so a rerun gives
# different, equally valid files. The outputs are committed; rerun only to
# regenerate them (existing files are kept unless FORCE=1).
# Time on the 2-core dev machine: bn128 78 s, bls12381 168 s (mostly prepare
# phase2); sizes 4.7 MB and 7.1 MB.
#
# Usage: tests/ptau/make_ptau.sh [curve...]    (default: bn128 bls12381)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
POWER="${POWER:-12}"

if [ ! -x "$ROOT/node_modules/.bin/snarkjs" ]; then
    (cd "$ROOT" && npm ci --no-audit --no-fund)
fi
SNARKJS="$ROOT/node_modules/.bin/snarkjs"

curves=("$@")
[ ${#curves[@]} -gt 0 ] || curves=(bn128 bls12381)

for curve in "${curves[@]}"; do
    out="$HERE/pot${POWER}_${curve}.ptau"
    if [ -s "$out" ] && [ "${FORCE:-0}" != 1 ]; then
        echo "keep $out (FORCE=1 to regenerate)"
        continue
    fi
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    start=$(date +%s)
    "$SNARKJS" powersoftau new "$curve" "$POWER" "$tmp/pot_0.ptau"
    "$SNARKJS" powersoftau contribute "$tmp/pot_0.ptau" "$tmp/pot_1.ptau" \
        --name="zkpipe test contribution" -e="zkpipe fixed test entropy $curve"
    "$SNARKJS" powersoftau prepare phase2 "$tmp/pot_1.ptau" "$tmp/pot_final.ptau"
    "$SNARKJS" powersoftau verify "$tmp/pot_final.ptau" >/dev/null
    mv "$tmp/pot_final.ptau" "$out"
    rm -rf "$tmp"
    trap - EXIT
    echo "wrote $out ($(stat -c %s "$out") bytes) in $(( $(date +%s) - start )) s"
done
