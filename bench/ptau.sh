#!/usr/bin/env bash
# bench/ptau.sh: phase 1's `powersoftau contribute`, zkpipe against
# snarkjs on the same fresh accumulator (CURVE: bn128, the default, or
# bls12381), whole process, wall time
# and peak RSS (/usr/bin/time -v), the median of RUNS runs (default 3;
# SNARKJS_RUNS for snarkjs, default RUNS).
#   bench/ptau.sh ZKPIPE WORKDIR K...
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
Z="$1"
W="$2"
shift 2
RUNS="${RUNS:-3}"
CURVE="${CURVE:-bn128}"
SRUNS="${SNARKJS_RUNS:-$RUNS}"
SNARKJS="$ROOT/node_modules/.bin/snarkjs"
mkdir -p "$W"
# run OUT_PREFIX N COMMAND...: N runs; prints "median_s max_rss_MiB"
run() {
    local out="$1" n="$2"
    shift 2
    local ts=() rs=()
    for i in $(seq "$n"); do
        /usr/bin/time -v "$@" >/dev/null 2>"$W/time.txt"
        ts+=("$(awk -F': ' '/Elapsed/ { n = split($2, a, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + a[i]; print s }' "$W/time.txt")")
        rs+=("$(awk -F': ' '/Maximum resident/ { printf "%d", $2 / 1024 }' "$W/time.txt")")
        rm -f "$out"
    done
    printf '%s\n' "${ts[@]}" | sort -g | awk '{ a[NR] = $1 } END { printf "%.2f ", a[int((NR + 1) / 2)] }'
    printf '%s\n' "${rs[@]}" | sort -g | tail -1
}
echo "# curve $CURVE, runs: zkpipe $RUNS, snarkjs $SRUNS (median)"
printf '%-6s %-12s %10s %10s %8s %11s %12s\n' size step zkpipe_s snarkjs_s speedup zkpipe_MiB snarkjs_MiB
for k in "$@"; do
    "$Z" powersoftau new "$CURVE" "$k" "$W/p$k.ptau" -q
    read -r zt zr < <(run "$W/z$k.ptau" "$RUNS" "$Z" powersoftau contribute "$W/p$k.ptau" "$W/z$k.ptau" -e bench -q)
    read -r st sr < <(run "$W/s$k.ptau" "$SRUNS" "$SNARKJS" powersoftau contribute "$W/p$k.ptau" "$W/s$k.ptau" -e=bench)
    printf '%-6s %-12s %10s %10s %7.1fx %11s %12s\n' "2^$k" contribute "$zt" "$st" "$(echo "$st / $zt" | bc -l)" "$zr" "$sr"
done
