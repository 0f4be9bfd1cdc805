#!/usr/bin/env bash
# Benchmark: the whole job, input.json + circuit.wasm + circuit.zkey ->
# proof.json + public.json, on the same files:
#   snarkjs  `snarkjs groth16 fullprove input.json circuit.wasm circuit.zkey proof.json public.json`
#   zkpipe   `zkpipe fullprove` with the same arguments (the wasm compiled to
#            native code once, then cached: the first run is reported apart)
#
# Usage: bench/fullprove.sh ZKPIPE WORKDIR [NAME:N ...]
#   NAME:N  a circuit under bench/circuits, as bench/witgen.sh takes them
#           (default: poseidon_chain:269 sha256_chain:2, ~2^16 constraints).
#           The circuits are compiled by bench/witgen.sh (RUNS=0) into the
#           same WORKDIR, so the two benchmarks share their compiles.
#   env: CURVES="bn128 bls12381" (default both), RUNS=5 (timed runs of each
#        tool, alternated), RESULTS=WORKDIR/fullprove.txt
#
# The key is `zkpipe setup`'s (a development key; snarkjs reads it as its
# own). Every run is a whole process (startup, reading the key, the witness,
# the proof, writing the files): median, min, max wall seconds and the peak
# RSS. Both tools' proofs are checked with `snarkjs groth16 verify`, and
# their public signals must be equal (as JSON values). A benchmark, not a test.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
if [ $# -lt 2 ]; then
    echo "usage: $0 ZKPIPE WORKDIR [NAME:N ...]" >&2
    exit 2
fi
ZKPIPE="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
mkdir -p "$2"
WORK="$(cd "$2" && pwd)"
shift 2
circuits=("$@")
[ ${#circuits[@]} -gt 0 ] || circuits=(poseidon_chain:269 sha256_chain:2)
read -r -a curves <<<"${CURVES:-bn128 bls12381}"
RUNS="${RUNS:-5}"
RESULTS="${RESULTS:-$WORK/fullprove.txt}"
case "$RUNS" in '' | *[!0-9]* | 0) echo "RUNS must be a number > 0" >&2; exit 2 ;; esac
"$ZKPIPE" fullprove --help >/dev/null 2>&1 || { echo "$ZKPIPE has no fullprove command" >&2; exit 2; }
# shellcheck source=timing.sh
. "$HERE/timing.sh"
PROC_TIME="$(dirname "$ZKPIPE")/zkpipe-bench-proc" # timing.sh's timer, when built beside zkpipe

# the circuits (and circom's compiles), as bench/witgen.sh makes them
CURVES="${curves[*]}" RUNS=0 bash "$HERE/witgen.sh" - "$WORK" "${circuits[@]}" >&2
SNARKJS="$ROOT/node_modules/.bin/snarkjs"

rows="$WORK/fullprove-rows.txt"
: >"$rows"
for curve in "${curves[@]}"; do
    for spec in "${circuits[@]}"; do
        c="${spec%%:*}"; n="${spec#*:}"
        d="$WORK/$curve/${c}_$n"
        wasm="$d/${c}_js/$c.wasm"; input="$HERE/circuits/${c}_input.json"; key="$d/fullprove.zkey"
        if [ ! -s "$key" ] || [ "$d/$c.r1cs" -nt "$key" ]; then
            echo "$curve/${c}_$n: zkpipe setup" >&2
            "$ZKPIPE" setup --quiet "$d/$c.r1cs" "$key" >&2
            "$ZKPIPE" export-vk "$key" "$d/fullprove.vk.json" >&2
        fi
        rm -f "$d/fp-zkpipe_first.time"
        echo "$curve/${c}_$n: zkpipe's first run (finds or compiles the wasm)" >&2
        ZKPIPE_CACHE="$d/zkpipe-cache" timed "$d/fp-zkpipe_first.time" "$ZKPIPE" fullprove "$input" "$wasm" "$key" \
            "$d/fp-zkpipe.proof.json" "$d/fp-zkpipe.public.json"
        for t in snarkjs zkpipe; do rm -f "$d/fp-$t.times"; done
        cat "$wasm" "$key" >/dev/null # from the page cache
        for i in $(seq "$RUNS"); do
            echo "$curve/${c}_$n: run $i/$RUNS" >&2
            timed "$d/fp-snarkjs.times" "$SNARKJS" groth16 fullprove "$input" "$wasm" "$key" \
                "$d/fp-snarkjs.proof.json" "$d/fp-snarkjs.public.json"
            ZKPIPE_CACHE="$d/zkpipe-cache" timed "$d/fp-zkpipe.times" "$ZKPIPE" fullprove "$input" "$wasm" "$key" \
                "$d/fp-zkpipe.proof.json" "$d/fp-zkpipe.public.json"
        done
        constraints="$("$ZKPIPE" info "$d/$c.r1cs" | awk '$1 == "constraints" {print $2; exit}')"
        sj_med="$(stats "$d/fp-snarkjs.times" | cut -d' ' -f1)"
        for t in snarkjs zkpipe; do
            check=verified
            "$SNARKJS" groth16 verify "$d/fullprove.vk.json" "$d/fp-$t.public.json" "$d/fp-$t.proof.json" 2>&1 |
                grep -q OK || check=REJECTED
            node -e 'const r = f => JSON.stringify(JSON.parse(require("fs").readFileSync(f, "utf8")));
                process.exit(r(process.argv[1]) === r(process.argv[2]) ? 0 : 1)' \
                "$d/fp-snarkjs.public.json" "$d/fp-$t.public.json" || check="$check,PUBLIC-DIFFERS"
            read -r med mn mx mb < <(stats "$d/fp-$t.times")
            ratio="$(awk -v a="$sj_med" -v b="$med" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')"
            first="-"
            [ "$t" = zkpipe ] && first="$(cut -d' ' -f1 "$d/fp-zkpipe_first.time") s"
            printf '%-9s %-20s %8s  %-8s %3d %8s %8s %8s %7s %8s  %-10s %s\n' "$curve" "${c}:$n" "${constraints:--}" "$t" \
                "$RUNS" "$med" "$mn" "$mx" "$mb" "$ratio" "$first" "$check" >>"$rows"
        done
    done
done
{
    echo "fullprove (input.json -> proof.json, public.json): wall s (median, min, max over n runs, startup included),"
    echo "peak RSS MB (max over runs); x = snarkjs median / this tool's median; 1st run: zkpipe's first run (its"
    echo "compile of the wasm when the cache lacks it), not in the medians. $(date -u +%Y-%m-%dT%H:%MZ),"
    echo "$(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), load $(cut -d' ' -f1-3 /proc/loadavg)"
    printf '%-9s %-20s %8s  %-8s %3s %8s %8s %8s %7s %8s  %-10s %s\n' curve circuit constr tool n median min max RSS_MB x \
        "1st run" proof
    cat "$rows"
} | tee "$RESULTS"
! grep -qE "REJECTED|DIFFERS" "$rows"
