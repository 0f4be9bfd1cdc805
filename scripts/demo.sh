#!/usr/bin/env bash
# zkpipe's main job on the bundled example: builds zkpipe (installing what is
# missing), then for each curve proves the example circuit's witness with
# the snarkjs proving key, verifies the proof with the snarkjs verification
# key, and prints what was proved and how long each step took.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/deps.sh
# clang when present: it proves about a third faster than gcc 12 here
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="$(command -v clang || command -v cc)" >/dev/null
cmake --build build -j"$(nproc)" --target zkpipe >/dev/null
Z="$ROOT/build/zkpipe"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
for curve in bn128 bls12381; do
    ex="examples/merkle/$curve"
    echo "== $curve: Poseidon Merkle membership ($ex)"
    "$Z" prove --verbose "$ex/merkle.zkey" "$ex/w1.wtns" "$OUT/proof.json" "$OUT/public.json"
    echo "  public signals (root, nullifier hash, leaf index, external nullifier):"
    tr -d '[]" \n' <"$OUT/public.json" | tr ',' '\n' | sed 's/^/    /'; echo
    t0=$(date +%s%N)
    printf '  zkpipe verify with snarkjs'"'"'s verification key: %s' "$("$Z" verify "$ex/vk.json" "$OUT/public.json" "$OUT/proof.json")"
    echo " ($(( ($(date +%s%N) - t0) / 1000000 )) ms)"
    if [ -x node_modules/.bin/snarkjs ]; then
        node_modules/.bin/snarkjs groth16 verify "$ex/vk.json" "$OUT/public.json" "$OUT/proof.json" |
            sed 's/\x1b\[[0-9;]*m//g; s/^/  snarkjs: /'
    fi
    echo
done
