#!/usr/bin/env bash
# The benchmark: kernels (field mul/sqr, MSM, NTT, with efficiency against a
# lower bound) and whole proofs against snarkjs on the same files, in one
# run. Prints one table and writes it as JSON.
#
# Usage: bash bench/run.sh [quick|full] [WORKDIR]
#   quick (default): kernels up to 2^18, proofs at 2^16 (both circuits) and
#                    2^18 (poseidon_chain), both curves; ~25 min here
#   full:            kernels up to 2^20 (and G1 at 2^20 with circom-like
#                    scalars), proofs at 2^16, 2^18 (both circuits) and 2^20
#                    (the multiplication chain), both curves;
#                    snarkjs runs once at 2^20 (~2 min each); 1.5-2 h here,
#                    most of it compiling the 2^20 circuits and making their
#                    keys the first time (cached in WORKDIR)
#   WORKDIR: default /tmp/zkpipe-bench (compiled circuits, keys, results)
#   env: RUNS (kernel and proof repetitions, default 3), THREADS (default: all)
# Output: WORKDIR/kernels.json, WORKDIR/prove.json, WORKDIR/bench.json (both,
# with the machine), and the tables on stdout.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
MODE="${1:-quick}"
WORK="${2:-/tmp/zkpipe-bench}"
RUNS="${RUNS:-3}"
case "$MODE" in quick | full) ;; *) echo "usage: $0 [quick|full] [WORKDIR]" >&2; exit 2 ;; esac
mkdir -p "$WORK"
WORK="$(cd "$WORK" && pwd)"

bash "$ROOT/scripts/deps.sh" >&2
# shellcheck source=../scripts/common.sh
. "$ROOT/scripts/common.sh"
BUILD="$ROOT/build"
build_release "$ROOT" "$BUILD" zkpipe zkpipe-bench-kernels

threads=()
[ -n "${THREADS:-}" ] && threads=(--threads "$THREADS")
echo "== kernels" >&2
max_log=18
[ "$MODE" = full ] && max_log=20
"$BUILD/zkpipe-bench-kernels" --runs "$RUNS" --max-log "$max_log" "${threads[@]}" --json "$WORK/kernels.json" |
    tee "$WORK/kernels.txt"

echo "== whole proofs" >&2
zkargs=""
[ -n "${THREADS:-}" ] && zkargs="-t $THREADS"
rm -f "$WORK/prove.json"
RUNS="$RUNS" ZKPIPE_ARGS="$zkargs" bash "$HERE/prove_vs_snarkjs.sh" "$BUILD/zkpipe" "$WORK" \
    poseidon_chain mulchain poseidon_chain:2^18
if [ "$MODE" = full ]; then
    RUNS="$RUNS" ZKPIPE_ARGS="$zkargs" MERGE=1 bash "$HERE/prove_vs_snarkjs.sh" "$BUILD/zkpipe" "$WORK" \
        mulchain:2^18
    # 2^20: the multiplication chain only; circom2 needs ~50 min (2 cores)
    # for it, and the Poseidon chain was still compiling after longer
    RUNS="$RUNS" SNARKJS_RUNS=1 ZKPIPE_ARGS="$zkargs" MERGE=1 bash "$HERE/prove_vs_snarkjs.sh" "$BUILD/zkpipe" \
        "$WORK" mulchain:2^20
fi

node -e '
const fs = require("fs");
const [k, p, out] = process.argv.slice(1);
const os = require("os");
const doc = {
  date: new Date().toISOString(),
  machine: { cpu: os.cpus()[0].model, cores: os.cpus().length, memory_gb: Math.round(os.totalmem() / 2 ** 30) },
  kernels: JSON.parse(fs.readFileSync(k, "utf8")),
  prove: JSON.parse(fs.readFileSync(p, "utf8")),
};
fs.writeFileSync(out, JSON.stringify(doc, null, 1) + "\n");
' "$WORK/kernels.json" "$WORK/prove.json" "$WORK/bench.json"
echo
echo "== results (also in $WORK/bench.json)"
cat "$WORK/kernels.txt"
echo
cat "$WORK/results.txt"
