#!/usr/bin/env bash
# Benchmark: zkpipe against snarkjs on the real projects' circuits of
# tests/witness/projects.sh, whole processes (startup included), the median
# of RUNS runs each, the tools alternating run by run:
#   wtns       `snarkjs wtns calculate` vs `zkpipe wtns calculate`
#   fullprove  `snarkjs groth16 fullprove` vs `zkpipe fullprove`
# on one input per circuit (seed 1), with the keys that test made. Run the
# test first: it compiles the circuits and calculators (kept in
# TESTDIR.cache) and leaves the keys in TESTDIR.
#
# Usage: bench/projects.sh ZKPIPE TESTDIR [RUNS]
#   e.g. bench/projects.sh build/zkpipe build/witness-projects 5
# Not a test: not registered with ctest.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
Z="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
T="$(cd "$2" && pwd)"; RUNS="${3:-5}"
export ZKPIPE_CACHE="$T.cache/objects"
SNARKJS="$ROOT/node_modules/.bin/snarkjs"
W="$(mktemp -d)"; trap 'rm -rf "$W"' EXIT
now() { date +%s.%N; }
# time_run OUTVAR command...: appends the wall seconds of one run
time_run() { local t; t=$(now); "${@:2}" >/dev/null 2>&1 || { echo "failed: ${*:2}" >&2; exit 1; }
    eval "$1+=\" $(echo "$(now) $t" | awk '{printf "%.3f", $1 - $2}')\""; }
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

printf '%-13s %-9s %11s | %9s %9s %6s | %9s %9s %6s\n' circuit curve constraints \
    "wtns sjs" "zkpipe" "x" "fullp sjs" "zkpipe" "x"
for d in "$T.cache"/circom/*/; do
    b="$(basename "$d")"; c="${b%%-*}"; rest="${b#*-}"; curve="${rest%%-*}"
    wasm="$d/${c}_js/$c.wasm"; key="$T/$c-$curve.zkey"
    node "$ROOT/tests/witness/projects/gen_input.js" "$c" 1 "$curve" "$W/in"
    ws=""; wz=""; fs=""; fz=""
    for _ in $(seq "$RUNS"); do
        time_run ws "$SNARKJS" wtns calculate "$wasm" "$W/in.json" "$W/s.wtns"
        time_run wz "$Z" wtns calculate "$wasm" "$W/in.json" "$W/z.wtns"
        cmp -s "$W/s.wtns" "$W/z.wtns" || { echo "$c $curve: witnesses differ" >&2; exit 1; }
        if [ -f "$key" ]; then
            time_run fs "$SNARKJS" groth16 fullprove "$W/in.json" "$wasm" "$key" "$W/p.json" "$W/pub.json"
            time_run fz "$Z" fullprove "$W/in.json" "$wasm" "$key" "$W/p.json" "$W/pub.json"
        fi
    done
    n="$(grep -oE '(non-linear|linear) constraints: [0-9]+' "$d/log" | awk '{s += $NF} END {print s}')"
    mws="$(median "$ws")"; mwz="$(median "$wz")"
    if [ -n "$fs" ]; then
        mfs="$(median "$fs")"; mfz="$(median "$fz")"
        fx="$(echo "$mfs $mfz" | awk '{printf "%.1f", $1 / $2}')"
    else
        mfs="-"; mfz="-"; fx="-"
    fi
    printf '%-13s %-9s %11s | %9s %9s %6s | %9s %9s %6s\n' "$c" "$curve" "$n" "$mws" "$mwz" \
        "$(echo "$mws $mwz" | awk '{printf "%.1f", $1 / $2}')" "$mfs" "$mfz" "$fx"
done
