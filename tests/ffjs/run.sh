#!/usr/bin/env bash
# Cross-checks zkpipe's arithmetic against ffjavascript: makes fresh vectors
# for both curves from a random seed (printed, or ZP_TEST_SEED to replay) and
# runs the C checker over them.  Usage: run.sh TEST_FFJS OUTDIR [COUNT]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
checker="$1"; out="$2"; count="${3:-24}"
mkdir -p "$out"
seed="${ZP_TEST_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}"
echo "ffjavascript vectors: seed $seed (replay with ZP_TEST_SEED=$seed)"
for curve in bn128 bls12381; do
    node "$ROOT/tests/ffjs/gen_vectors.js" "$curve" "$count" "$seed" "$out/$curve.json"
done
"$checker" "$out/bn128.json" "$out/bls12381.json"
