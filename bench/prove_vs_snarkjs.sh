#!/usr/bin/env bash
# Benchmark: zkpipe prove vs snarkjs groth16 prove, on the SAME .zkey and .wtns.
#
# Usage: bench/prove_vs_snarkjs.sh ZKPIPE WORKDIR [circuit...]
#   circuit: a name under bench/circuits (NAME.circom + NAME_input.json);
#            default: poseidon_chain mulchain
#   env: CURVES="bn128 bls12381" (default both), RUNS=3, CIRCUITS_DIR=bench/circuits
#
# For each curve and circuit: compile with circom2 (--O2; cached in WORKDIR,
# redone only when the source changes), witness with snarkjs wtns calculate,
# key with `ZKPIPE setup` (a 2^16 snarkjs setup would need a 2^16 ptau, whose
# prepare phase2 takes ~23 min here), then RUNS timed runs of each prover with
# /usr/bin/time -f '%e %M'. Both provers' proofs are checked with snarkjs
# groth16 verify. Reports median wall time and peak RSS (max over runs) per
# prover and the ratio snarkjs/zkpipe; the table is also written to
# WORKDIR/results.txt.
#
# Measured on the 2-core dev machine (circom2 0.2.23 = circom 2.2.3), both curves alike;
# the range is from an idle machine to one busy with other builds:
#   poseidon_chain (269 x Poseidon(2), 64,560 constraints at --O2): compile 35-72 s, 425 MB;
#     witness 2.3 s (bn128), 3.1 s (bls12381)
#     (at the default --O1 it keeps 73,706 linear constraints: 139k in all, domain 2^18)
#   mulchain (65,000 multiplications, 65,000 constraints): compile 15-31 s, 250 MB; witness < 1 s
# Domain 2^16 for both.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"

if [ $# -lt 2 ]; then
    echo "usage: $0 ZKPIPE WORKDIR [circuit...]" >&2
    exit 2
fi
ZKPIPE="$1"
case "$ZKPIPE" in /*) ;; */*) ZKPIPE="$(cd "$(dirname "$ZKPIPE")" && pwd)/$(basename "$ZKPIPE")" ;; esac
mkdir -p "$2"
WORK="$(cd "$2" && pwd)"
# circom2 (WebAssembly, WASI) only sees files below its working directory
cd "$ROOT"
shift 2
circuits=("$@")
[ ${#circuits[@]} -gt 0 ] || circuits=(poseidon_chain mulchain)
read -r -a curves <<<"${CURVES:-bn128 bls12381}"
RUNS="${RUNS:-3}"
CDIR="$(cd "${CIRCUITS_DIR:-$HERE/circuits}" && pwd)"

bash "$ROOT/scripts/deps.sh" >&2
# shellcheck source=../../scripts/common.sh
. "$ROOT/scripts/common.sh"
SNARKJS="$ROOT/node_modules/.bin/snarkjs"
CIRCOM="$ROOT/node_modules/.bin/circom2"

[ -x "$ZKPIPE" ] || { echo "ZKPIPE '$ZKPIPE' is not executable" >&2; exit 2; }


# timed OUTFILE CMD...: run CMD under /usr/bin/time, append "seconds maxrss_kb" to OUTFILE
timed() {
    local out="$1"; shift
    local tf log
    tf="$(mktemp)"; log="$(mktemp)"
    if ! /usr/bin/time -f '%e %M' -o "$tf" "$@" >"$log" 2>&1; then
        echo "FAILED: $*" >&2
        sed 's/\x1b\[[0-9;]*m//g' "$log" | tail -30 >&2
        rm -f "$tf" "$log"
        return 1
    fi
    tail -1 "$tf" >>"$out"
    rm -f "$tf" "$log"
}

median_s() { sort -n -k1,1 "$1" | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.2f\n", (a[NR/2]+a[NR/2+1])/2}'; }
peak_mb() { awk 'BEGIN{m=0} {if ($2>m) m=$2} END {printf "%.0f\n", m/1024}' "$1"; }

results="$WORK/results.txt"
rows=()
for curve in "${curves[@]}"; do
    for c in "${circuits[@]}"; do
        src="$CDIR/$c.circom"
        input="$CDIR/${c}_input.json"
        [ -f "$src" ] && [ -f "$input" ] || { echo "no $src / $input" >&2; exit 2; }
        d="$WORK/$curve/$c"
        mkdir -p "$d"
        stamp="$(cat "$src" "$input" "$ROOT/package-lock.json" | sha256sum | cut -d' ' -f1)"
        if [ ! -f "$d/.stamp" ] || [ "$(cat "$d/.stamp")" != "$stamp" ]; then
            rm -f "$d/.stamp" "$d/key.zkey"
            t0=$(date +%s)
            quiet "$CIRCOM" "$src" --O2 --r1cs --wasm --prime "$curve" -l "$ROOT/node_modules" -o "$d"
            t1=$(date +%s)
            quiet "$SNARKJS" wtns calculate "$d/${c}_js/$c.wasm" "$input" "$d/w.wtns"
            t2=$(date +%s)
            echo "$curve/$c: compiled in $((t1 - t0)) s, witness in $((t2 - t1)) s" >&2
            echo "$stamp" >"$d/.stamp"
        fi
        nconstr="$("$SNARKJS" r1cs info "$d/$c.r1cs" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' | sed -n 's/.*# of Constraints: *//p')"

        if [ ! -s "$d/key.zkey" ]; then
            rm -f "$d/setup.time"
            timed "$d/setup.time" "$ZKPIPE" setup "$d/$c.r1cs" "$d/key.zkey"
            echo "$curve/$c: zkpipe setup $(cut -d' ' -f1 "$d/setup.time") s" >&2
            quiet "$SNARKJS" zkey export verificationkey "$d/key.zkey" "$d/vk.json"
        fi

        rm -f "$d/zkpipe.times" "$d/snarkjs.times"
        for i in $(seq "$RUNS"); do
            echo "$curve/$c: run $i/$RUNS" >&2
            timed "$d/zkpipe.times" "$ZKPIPE" prove "$d/key.zkey" "$d/w.wtns" "$d/zk_proof.json" "$d/zk_public.json"
            timed "$d/snarkjs.times" "$SNARKJS" groth16 prove "$d/key.zkey" "$d/w.wtns" "$d/sj_proof.json" "$d/sj_public.json"
        done
        quiet "$SNARKJS" groth16 verify "$d/vk.json" "$d/zk_public.json" "$d/zk_proof.json"
        quiet "$SNARKJS" groth16 verify "$d/vk.json" "$d/sj_public.json" "$d/sj_proof.json"

        zt="$(median_s "$d/zkpipe.times")"; zm="$(peak_mb "$d/zkpipe.times")"
        st="$(median_s "$d/snarkjs.times")"; sm="$(peak_mb "$d/snarkjs.times")"
        ratio="$(awk -v a="$st" -v b="$zt" 'BEGIN { if (b > 0) printf "%.2f", a/b; else print "inf" }')"
        rows+=("$(printf '%-9s %-15s %8s  %9s %8s  %9s %8s  %7s' "$curve" "$c" "$nconstr" "$zt" "$zm" "$st" "$sm" "$ratio")")
    done
done

{
    echo "prove: median of $RUNS runs (wall s), peak RSS (MB, max over runs); ratio = snarkjs/zkpipe time"
    printf '%-9s %-15s %8s  %9s %8s  %9s %8s  %7s\n' curve circuit constr "zkpipe_s" "zk_MB" "snarkjs_s" "sj_MB" "ratio"
    printf '%s\n' "${rows[@]}"
} | tee "$results"
