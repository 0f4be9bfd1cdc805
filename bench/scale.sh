#!/usr/bin/env bash
# How proving cost grows with the circuit: zkpipe prove, iden3's rapidsnark
# prover and snarkjs groth16 prove on the SAME synthetic circom-like
# circuits (zkpipe-bench-circuit: an .r1cs and a satisfying .wtns of any
# size) and the same keys (zkpipe setup), whole processes, interleaved runs,
# medians. One table per curve with time, peak RSS, the ratios and
# zkpipe's CPU time over wall time; JSON; and an SVG of time against
# constraints on log-log axes (bench/plot_scale.js).
#
# Usage: bash bench/scale.sh [WORKDIR]
#   WORKDIR: default /tmp/zkpipe-scale (circuits and keys are kept there
#            and reused: a 2^22 key takes minutes to make)
#   env: LOGS="11 12 13 14 16 18 20"   sizes, log2 of the domain (a size-K
#                                      circuit has 2^K - 63 constraints)
#        CURVES="bn128 bls12381"
#        RUNS=5                        runs of each prover per size
#        BIG_RUNS=3                    runs per size from 2^21 up
#        RAPIDSNARK=/path/to/prover    rapidsnark's prover binary (BN254
#                                      only); its column is left out when
#                                      unset. This project does not build or
#                                      ship it.
#        SNARKJS_MAX_LOG=16, SNARKJS_RUNS=3   snarkjs up to that size
# Every prover's first proof at each size is checked with
# `snarkjs groth16 verify`. A benchmark, not a test.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
WORK="${1:-/tmp/zkpipe-scale}"
mkdir -p "$WORK"
WORK="$(cd "$WORK" && pwd)"
read -r -a logs <<<"${LOGS:-11 12 13 14 16 18 20}"
read -r -a curves <<<"${CURVES:-bn128 bls12381}"
RUNS="${RUNS:-5}" BIG_RUNS="${BIG_RUNS:-3}"
SNARKJS_MAX_LOG="${SNARKJS_MAX_LOG:-16}" SNARKJS_RUNS="${SNARKJS_RUNS:-3}"
RAPIDSNARK="${RAPIDSNARK:-}"
for v in RUNS BIG_RUNS SNARKJS_MAX_LOG SNARKJS_RUNS; do
    case "${!v}" in '' | *[!0-9]*) echo "$v must be a number" >&2; exit 2 ;; esac
done
for k in "${logs[@]}"; do
    case "$k" in '' | *[!0-9]*) echo "LOGS: '$k' is not a number" >&2; exit 2 ;; esac
    [ "$k" -ge 7 ] && [ "$k" -le 26 ] || { echo "LOGS: 2^$k is out of 2^7..2^26" >&2; exit 2; }
done
if [ -n "$RAPIDSNARK" ] && [ ! -x "$RAPIDSNARK" ]; then
    echo "RAPIDSNARK=$RAPIDSNARK is not an executable" >&2
    exit 2
fi

bash "$ROOT/scripts/deps.sh" >&2
# shellcheck source=../scripts/common.sh
. "$ROOT/scripts/common.sh"
# shellcheck source=timing.sh
. "$HERE/timing.sh"
BUILD="$ROOT/build"
build_release "$ROOT" "$BUILD" zkpipe zkpipe-bench-circuit zkpipe-bench-proc
ZKPIPE="$BUILD/zkpipe"
PROC_TIME="$BUILD/zkpipe-bench-proc" # timing.sh's timer
SNARKJS="$ROOT/node_modules/.bin/snarkjs"

# check NAME DIR PROOF PUBLIC: snarkjs groth16 verify, or stop
check() {
    if ! "$SNARKJS" groth16 verify "$2/vk.json" "$4" "$3" >"$2/verify-$1.log" 2>&1; then
        echo "$1's proof in $2 does not verify:" >&2
        tail -5 "$2/verify-$1.log" >&2
        exit 1
    fi
}

json="$WORK/scale.json"
{
    printf '{"machine": "%s, %s cores, %s GiB", "date": "%s", "commit": "%s", "rapidsnark": %s, "rows": [' \
        "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" "$(nproc)" \
        "$(awk '/MemTotal/ {printf "%.0f", $2 / 1048576}' /proc/meminfo)" "$(date -u +%FT%TZ)" \
        "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
        "$([ -n "$RAPIDSNARK" ] && echo "\"$RAPIDSNARK\"" || echo null)"
} >"$json"
first_row=1
for curve in "${curves[@]}"; do
    for k in "${logs[@]}"; do
        d="$WORK/$curve-$k"
        mkdir -p "$d"
        if [ ! -s "$d/c.zkey" ]; then
            echo "$curve 2^$k: circuit and key" >&2
            "$BUILD/zkpipe-bench-circuit" --curve "$curve" --log "$k" "$d/c.r1cs" "$d/c.wtns" >&2
            rm -f "$d/setup.time"
            timed "$d/setup.time" "$ZKPIPE" setup --quiet "$d/c.r1cs" "$d/c.zkey.tmp"
            mv "$d/c.zkey.tmp" "$d/c.zkey"
            "$ZKPIPE" export-vk "$d/c.zkey" "$d/vk.json"
        fi
        constraints="$("$ZKPIPE" info "$d/c.r1cs" | awk '$1 == "constraints" {print $2; exit}')"
        runs="$RUNS"
        [ "$k" -gt 20 ] && runs="$BIG_RUNS"
        provers=(zkpipe)
        [ -n "$RAPIDSNARK" ] && [ "$curve" = bn128 ] && provers+=(rapidsnark)
        [ "$k" -le "$SNARKJS_MAX_LOG" ] && provers+=(snarkjs)
        for p in "${provers[@]}"; do rm -f "$d/$p.times"; done
        echo "$curve 2^$k: ${provers[*]}, $runs runs" >&2
        for ((r = 1; r <= runs; r++)); do
            for p in "${provers[@]}"; do
                out=("$d/$p-proof.json" "$d/$p-public.json")
                case "$p" in
                zkpipe) timed "$d/$p.times" "$ZKPIPE" prove "$d/c.zkey" "$d/c.wtns" "${out[@]}" ;;
                rapidsnark) timed "$d/$p.times" "$RAPIDSNARK" "$d/c.zkey" "$d/c.wtns" "${out[@]}" ;;
                snarkjs)
                    [ "$r" -le "$SNARKJS_RUNS" ] || continue
                    timed "$d/$p.times" "$SNARKJS" groth16 prove "$d/c.zkey" "$d/c.wtns" "${out[@]}"
                    ;;
                esac
                [ "$r" -eq 1 ] && check "$p" "$d" "${out[@]}"
            done
        done
        row="{\"curve\": \"$curve\", \"log\": $k, \"constraints\": ${constraints:-null}"
        if [ -s "$d/setup.time" ]; then
            read -r st sm _ <"$d/setup.time"
            row+=", \"setup_s\": $st, \"setup_rss_mb\": $((sm / 1024))"
        fi
        for p in "${provers[@]}"; do
            read -r med mn mx mb < <(stats "$d/$p.times")
            row+=", \"$p\": {\"median_s\": $med, \"min_s\": $mn, \"max_s\": $mx, \"peak_rss_mb\": $mb, \"runs\": $(wc -l <"$d/$p.times"), \"cpu_per_wall\": $(cpu_per_wall "$d/$p.times")}"
        done
        row+="}"
        [ $first_row -eq 1 ] || printf ',' >>"$json"
        printf '\n  %s' "$row" >>"$json"
        first_row=0
    done
done
printf '\n]}\n' >>"$json"

node "$HERE/plot_scale.js" "$json" "$WORK/scale.svg" --table
echo "JSON: $json; plot: $WORK/scale.svg" >&2
