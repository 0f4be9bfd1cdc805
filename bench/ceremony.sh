#!/usr/bin/env bash
# Phase 2 of a ceremony, zkpipe against snarkjs on the same files: zkey new,
# zkey contribute, zkey beacon and zkey verify on a synthetic circuit
# (zkpipe-bench-circuit) of 2^K constraints for each K, each step run 3
# times, whole process; the table gives the median wall time and the
# median peak RSS (/usr/bin/time -v) of each tool and the ratio.
#
# Usage: bench/ceremony.sh [K[:CIRCUIT.r1cs]...]      (default: 12 16)
#   K:CIRCUIT.r1cs takes that circuit (a circom one, of a 2^K domain)
#   instead of the synthetic one; its rows are labelled with its name
#   ZKPIPE=build/zkpipe GEN=build/zkpipe-bench-circuit
#   PTAU_<K>=file: a prepared powers of tau of power >= K (default for 12:
#   tests/ptau/pot12_bn128.ptau; for others: /work/big/ceremony/pot<K>_final.ptau,
#   made with snarkjs powersoftau new / contribute / prepare phase2)
#   RAW_<K>=file: the same ptau before prepare phase2, for the prepare row
#   (default for 12: the prepared file itself, which prepare reads the same
#   way; for others /work/big/ceremony/pot<K>_1.ptau)
#   SNARKJS_PREPARE_MAX=12: snarkjs's prepare phase2 runs up to this K only
#   (23 minutes at 2^16 on this machine): above, its column is "-"
#   CURVE=bn128 or bls12381 (default bn128; the synthetic circuit's, the
#   default 2^12 ptau's: tests/ptau/pot12_CURVE.ptau)
#   WORK=dir (default /work/big/ceremony/bench), RUNS=3, SNARKJS_RUNS=RUNS
#   (1 where snarkjs takes minutes a run)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
Z="${ZKPIPE:-$ROOT/build/zkpipe}"
GEN="${GEN:-$ROOT/build/zkpipe-bench-circuit}"
S="$ROOT/node_modules/.bin/snarkjs"
WORK="${WORK:-/work/big/ceremony/bench}"
RUNS="${RUNS:-3}"
SNARKJS_RUNS="${SNARKJS_RUNS:-$RUNS}"
CURVE="${CURVE:-bn128}"
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(12 16)
mkdir -p "$WORK"
BEACON=0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f

# measure N CMD...: runs CMD N times; prints "median_seconds median_peak_kb"
measure() {
    local t=() m=() n="$1"
    shift
    for _ in $(seq "$n"); do
        /usr/bin/time -f "%e %M" -o "$WORK/time.txt" "$@" >/dev/null 2>"$WORK/err.txt" ||
            { echo "failed: $* ($(tail -2 "$WORK/err.txt"))" >&2; exit 1; }
        read -r e k <"$WORK/time.txt"
        t+=("$e"); m+=("$k")
    done
    local ts ms
    ts=$(printf '%s\n' "${t[@]}" | sort -g | sed -n "$(((n + 1) / 2))p")
    ms=$(printf '%s\n' "${m[@]}" | sort -g | sed -n "$(((n + 1) / 2))p")
    echo "$ts $ms"
}

echo "# CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) threads"
echo "# snarkjs $(node -e 'console.log(require(process.argv[1]).version)' "$ROOT/node_modules/snarkjs/package.json"), node $(node --version), curve $CURVE, runs: zkpipe $RUNS, snarkjs $SNARKJS_RUNS (median)"
printf '%-20s %-11s %12s %12s %9s %12s %12s\n' size step zkpipe_s snarkjs_s speedup zkpipe_MiB snarkjs_MiB
for arg in "${SIZES[@]}"; do
    k="${arg%%:*}" circuit="" label=""
    [ "$CURVE" = bn128 ] || label=" $CURVE"
    [ "$arg" = "$k" ] || { circuit="${arg#*:}"; label="$label $(basename "$circuit" .r1cs)"; }
    var="PTAU_$k"
    ptau="${!var:-}"
    if [ -z "$ptau" ]; then
        if [ "$k" = 12 ]; then ptau="$ROOT/tests/ptau/pot12_$CURVE.ptau"; else ptau="/work/big/ceremony/pot${k}_final.ptau"; fi
    fi
    [ -s "$ptau" ] || { echo "no ptau for 2^$k: $ptau (set PTAU_$k)" >&2; continue; }
    d="$WORK/k$k${label// /-}"
    mkdir -p "$d"
    if [ -n "$circuit" ]; then
        cp "$circuit" "$d/c.r1cs"
    else # a circuit that fills the 2^k domain (constraints + public < 2^k)
        "$GEN" --curve "$CURVE" --constraints $(((1 << k) - 64)) "$d/c.r1cs" "$d/c.wtns" >/dev/null
    fi
    "$Z" zkey new -q "$d/c.r1cs" "$ptau" "$d/base.zkey"
    row() { # row STEP ZKPIPE-CMD -- SNARKJS-CMD (none: zkpipe alone)
        local step="$1"; shift
        local zc=() sc=()
        while [ "$1" != "--" ]; do zc+=("$1"); shift; done
        shift
        sc=("$@")
        read -r zt zm < <(measure "$RUNS" "${zc[@]}")
        if [ ${#sc[@]} -gt 0 ]; then
            read -r st sm < <(measure "$SNARKJS_RUNS" "${sc[@]}")
            printf '%-20s %-11s %12.2f %12.2f %8.1fx %12.0f %12.0f\n' "2^$k$label" "$step" "$zt" "$st" \
                "$(echo "$st / $zt" | bc -l)" "$(echo "$zm / 1024" | bc -l)" "$(echo "$sm / 1024" | bc -l)"
        else
            printf '%-20s %-11s %12.2f %12s %9s %12.0f %12s\n' "2^$k$label" "$step" "$zt" - - "$(echo "$zm / 1024" | bc -l)" -
        fi
    }
    rvar="RAW_$k"
    raw="${!rvar:-}"
    [ -n "$raw" ] || { if [ "$k" = 12 ]; then raw="$ptau"; else raw="/work/big/ceremony/pot${k}_1.ptau"; fi; }
    if [ -s "$raw" ]; then
        if [ "$k" -le "${SNARKJS_PREPARE_MAX:-12}" ]; then
            row prepare "$Z" ptau prepare phase2 -q "$raw" "$d/zp.ptau" -- "$S" powersoftau prepare phase2 "$raw" "$d/sp.ptau"
            cmp -s "$d/zp.ptau" "$d/sp.ptau" || echo "# 2^$k$label: prepare phase2 differs from snarkjs's!"
        else
            row prepare "$Z" ptau prepare phase2 -q "$raw" "$d/zp.ptau" --
        fi
    fi
    row "zkey new" "$Z" zkey new -q "$d/c.r1cs" "$ptau" "$d/z0.zkey" -- "$S" zkey new "$d/c.r1cs" "$ptau" "$d/s0.zkey"
    cmp -s "$d/z0.zkey" "$d/s0.zkey" || echo "# 2^$k$label: zkey new differs from snarkjs's!"
    row contribute "$Z" zkey contribute -q "$d/base.zkey" "$d/z1.zkey" -n bench -e bench -- \
        "$S" zkey contribute "$d/base.zkey" "$d/s1.zkey" -n=bench -e=bench
    row beacon "$Z" zkey beacon -q "$d/base.zkey" "$d/zb.zkey" $BEACON 10 -- \
        "$S" zkey beacon "$d/base.zkey" "$d/sb.zkey" $BEACON 10
    cmp -s "$d/zb.zkey" "$d/sb.zkey" || echo "# 2^$k$label: zkey beacon differs from snarkjs's!"
    row verify "$Z" zkey verify -q "$d/c.r1cs" "$ptau" "$d/s1.zkey" -- "$S" zkey verify "$d/c.r1cs" "$ptau" "$d/z1.zkey"
done
