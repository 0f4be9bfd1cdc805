#!/usr/bin/env bash
# Proofs under a memory budget (issue 32): whole-process time and peak RSS
# (GNU time -v) of `zkpipe prove` at budgets unlimited, 1/2, 1/4 and 1/8
# of the in-memory proof's peak RSS and at the key's minimum, then
# the unlimited and 1/4 runs again with the page cache dropped first
# (when this user may: root). snarkjs verifies every proof. Each warm row
# is the best of REPS runs (default 2: the machine is shared), its RSS
# the largest.
# Usage: bench/stream.sh ZKPIPE DIR NAME...   (DIR/NAME.zkey, NAME.wtns,
#        NAME.vk.json for each NAME, e.g. bn128-20)
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
Z="$1"
D="$2"
shift 2
SNARKJS="$ROOT/node_modules/.bin/snarkjs"
THREADS=${THREADS:-2}
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo); threads $THREADS"
can_drop=0
if sync && echo 3 2>/dev/null >/proc/sys/vm/drop_caches; then can_drop=1; else echo "(cannot drop the page cache: cold runs skipped)"; fi
printf "%-14s %-22s %10s %10s %10s %8s %8s %s\n" key budget "budget MiB" "time s" "RSS MiB" "x mem" "RSS ok" "window / note"

REPS=${REPS:-2}
# run NAME LABEL BUDGET [ENV...]: REPS proofs; prints a row; sets T and R
run() {
    local best_t="" best_r=0 i
    for i in $(seq 1 "${RUNS:-$REPS}"); do
        run1 "$@" >"$D/.stream-bench-row"
        [ "$T" = 0 ] && break
        if [ -z "$best_t" ] || awk -v a="$T" -v b="$best_t" 'BEGIN {exit !(a < b)}'; then best_t=$T; cp "$D/.stream-bench-row" "$D/.stream-bench-best"; fi
        [ "$R" -gt "$best_r" ] && best_r=$R
    done
    if [ "$T" = 0 ]; then cat "$D/.stream-bench-row"; else T=$best_t; R=$best_r; cat "$D/.stream-bench-best"; fi
    rm -f "$D/.stream-bench-row" "$D/.stream-bench-best"
}
run1() {
    local name="$1" label="$2" budget="$3"
    shift 3
    local out="$D/$name.bench.txt" b=()
    [ "$budget" != 0 ] && b=(--budget "$budget")
    rm -f "$D/$name.proof.json"
    if ! env "$@" /usr/bin/time -v "$Z" prove -v --threads "$THREADS" "${b[@]}" "$D/$name.zkey" "$D/$name.wtns" \
        "$D/$name.proof.json" "$D/$name.public.json" >"$out" 2>&1; then
        printf "%-14s %-22s %10s %10s %10s %8s %8s %s\n" "$name" "$label" "$((budget >> 20))" - - - - "$(grep zkpipe: "$out" | head -1 | cut -c1-140)"
        T=0; R=0
        return
    fi
    T=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$out")
    R=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 * 1024}' "$out")
    local ok=yes
    [ "$budget" != 0 ] && [ "$R" -gt "$budget" ] && ok=NO
    local v=ok
    "$SNARKJS" groth16 verify "$D/$name.vk.json" "$D/$name.public.json" "$D/$name.proof.json" 2>&1 | grep -q OK || v="SNARKJS REJECTS"
    local w
    w=$(grep -E "streamed the key|proved in memory" "$out" | sed 's/^ *//; s/streamed the key.s points through a/window/')
    printf "%-14s %-22s %10s %10.2f %10.1f %8s %8s %s; %s\n" "$name" "$label" "$([ "$budget" = 0 ] && echo - || echo $((budget >> 20)))" \
        "$T" "$(echo "$R" | awk '{print $1 / 1048576}')" "$(awk -v t="$T" -v m="${TMEM:-$T}" 'BEGIN {printf "%.2f", t / m}')" "$ok" "$w" "$v"
}

for name in "$@"; do
    TMEM=""
    run "$name" unlimited 0
    TMEM=$T
    full=$R
    "$Z" prove --budget 1M "$D/$name.zkey" "$D/$name.wtns" /dev/null /dev/null >"$D/$name.min.txt" 2>&1
    min_mib=$(sed -n 's/.*below the minimum for this .* key of domain 2^[0-9]*: \([0-9.]*\) MiB.*/\1/p' "$D/$name.min.txt")
    min=$(awk -v m="$min_mib" 'BEGIN { printf "%d", (m + 0.1) * 1048576 }')
    for f in 2 4 8; do run "$name" "1/$f of in-memory peak" $((full / f)); done
    run "$name" "minimum ($min_mib MiB)" "$min"
    if [ "$can_drop" = 1 ]; then
        sync; echo 3 >/proc/sys/vm/drop_caches; RUNS=1 run "$name" "unlimited, cold cache" 0
        sync; echo 3 >/proc/sys/vm/drop_caches; RUNS=1 run "$name" "1/4, cold cache" $((full / 4))
    fi
    rm -f "$D/$name.proof.json" "$D/$name.public.json"
done
