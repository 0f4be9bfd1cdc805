#!/usr/bin/env bash
# The pipeline benchmark (bench/pipeline.c): cuzk's out-of-memory experiment
# on zkpipe's engine. Several jobs of several partitions on a ~2^18 key,
# the synthesis workers swept in three modes (a: slot released at the end of
# synthesis, unbounded hand-off; b: slot held, queue = workers; c: zkpipe's
# budget); prints one table and draws one SVG per mode.
#
# Usage: bash bench/pipeline.sh [WORKDIR] [zkpipe-bench-pipeline options...]
#   WORKDIR: default /tmp/zkpipe-bench, shared with bench/run.sh (compiled
#            circuits and keys are cached there; the first run compiles the
#            2^18 circuit with circom2, ~4 min here, and makes its key)
#   options: passed on, e.g. --workers 1,4 --jobs 2 --partitions 3 (a quick
#            look), --budget 600M, --witness-ms 3000, --runs 3; see
#            zkpipe-bench-pipeline --help
#   env: CIRCUIT=mulchain:2^18 (NAME, NAME:N or NAME:2^K, as
#        bench/prove_vs_snarkjs.sh takes them), CURVE=bn128,
#        BUILD=ROOT/build (the release build directory)
# Output: the table on stdout and in WORKDIR/pipeline.txt, WORKDIR/pipeline.json,
# and in WORKDIR/pipeline/: pipeline-mode-{a,b,c}.svg, the samples of each run
# (samples-MODE-wWORKERS-rRUN.csv), its result (result-*.json) and its
# Perfetto trace (trace-*.json). Default sweep: 12 configurations of 24
# proofs each, ~10 min on 2 cores (and ~4 min to compile the circuit the
# first time).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
WORK=/tmp/zkpipe-bench
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
    WORK="$1"
    shift
fi
CIRCUIT="${CIRCUIT:-mulchain:2^18}"
CURVE="${CURVE:-bn128}"
BUILD="${BUILD:-$ROOT/build}"
mkdir -p "$WORK/pipeline"
WORK="$(cd "$WORK" && pwd)"

bash "$ROOT/scripts/deps.sh" >&2
# shellcheck source=../scripts/common.sh
. "$ROOT/scripts/common.sh"
build_release "$ROOT" "$BUILD" zkpipe zkpipe-bench-pipeline

# The workload: bench/prove_vs_snarkjs.sh compiles the circuit, computes its
# witness and makes the key (each only when missing or out of date); with
# RUNS=0 it times nothing. Its JSON says where the files are.
echo "== workload: $CURVE $CIRCUIT" >&2
CURVES="$CURVE" RUNS=0 SNARKJS_RUNS=0 JSON="$WORK/pipeline-prep.json" RESULTS="$WORK/pipeline-prep.txt" \
    bash "$HERE/prove_vs_snarkjs.sh" "$BUILD/zkpipe" "$WORK" "$CIRCUIT" >&2
dir="$(node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))[0];
    console.log(process.argv[2] + "/" + r.curve + "/" + r.circuit + "_" + r.n)' "$WORK/pipeline-prep.json" "$WORK")"
if [ ! -s "$dir/key.zkey" ] || [ ! -s "$dir/w.wtns" ]; then
    echo "no key.zkey / w.wtns in $dir" >&2
    exit 2
fi

echo "== pipeline sweep" >&2
rc=0
rm -f "$WORK/pipeline.json"
"$BUILD/zkpipe-bench-pipeline" --key "$dir/key.zkey" --witness "$dir/w.wtns" --out "$WORK/pipeline" \
    --json "$WORK/pipeline.json" "$@" | tee "$WORK/pipeline.txt" || rc=$?
if [ -s "$WORK/pipeline.json" ]; then
    node "$HERE/plot_pipeline.js" "$WORK/pipeline.json" "$WORK/pipeline/pipeline"
fi
[ "$rc" -eq 0 ] || echo "zkpipe-bench-pipeline exited $rc (see the lines under the table)" >&2
exit "$rc"
