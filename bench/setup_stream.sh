#!/usr/bin/env bash
# zkpipe setup's time and peak RSS over synthetic circuits, for one or
# more zkpipe binaries (today's and a build without streaming, say) and
# budgets. Each run is timed by GNU time (wall, peak RSS); the key is
# checked to have the size its header promises, then deleted.
#
# Usage: bench/setup_stream.sh WORKDIR ZKPIPE[=LABEL]...
#   LOGS="20 22"  CURVES="bn128 bls12381"  BUDGETS="- 2G"  ("-": none)
#   GEN=path/to/zkpipe-bench-circuit (default: beside the first ZKPIPE)
# Prints one row per run: label, curve, log, budget, wall s, CPU s (user +
# system), peak RSS MiB, key MiB, and the setup's own summary lines.
set -uo pipefail
W="$1"; shift
LOGS="${LOGS:-20 22}"
CURVES="${CURVES:-bn128 bls12381}"
BUDGETS="${BUDGETS:--}"
first="${1%%=*}"
GEN="${GEN:-$(dirname "$first")/zkpipe-bench-circuit}"
mkdir -p "$W"
printf '%-10s %-9s %4s %8s %9s %9s %10s %9s\n' binary curve log budget wall_s cpu_s peak_MiB key_MiB
for k in $LOGS; do
    for curve in $CURVES; do
        r1cs="$W/c_${curve}_$k.r1cs"
        [ -s "$r1cs" ] || "$GEN" --curve "$curve" --log "$k" --public 2 --seed 1 "$r1cs" "$W/c_${curve}_$k.wtns" >/dev/null ||
            { echo "cannot generate $r1cs" >&2; exit 1; }
        for spec in "$@"; do
            z="${spec%%=*}"; label="${spec#*=}"; [ "$label" = "$spec" ] && label="$(basename "$z")"
            for b in $BUDGETS; do
                args=(); [ "$b" = "-" ] || args=(--budget "$b")
                key="$W/k_${curve}_$k.zkey"
                if /usr/bin/time -v -o "$W/time.txt" "$z" setup "${args[@]}" "$r1cs" "$key" >"$W/out.txt" 2>&1; then
                    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,t,":"); s=0; for(i=1;i<=n;i++) s=s*60+t[i]; print s}' "$W/time.txt")
                    cpu=$(awk -F': ' '/(User|System) time/ {s += $2} END {printf "%.1f", s}' "$W/time.txt")
                    rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$W/time.txt")
                    size=$(stat -c %s "$key")
                    printf '%-10s %-9s %4s %8s %9.2f %9s %10s %9.0f\n' "$label" "$curve" "$k" "$b" "$wall" "$cpu" "$rss" \
                        "$((size / 1048576))"
                    grep -E "zkpipe: (wrote|working memory)" "$W/out.txt" | sed 's/^/    /'
                else
                    printf '%-10s %-9s %4s %8s FAILED: %s\n' "$label" "$curve" "$k" "$b" "$(grep -v WARNING "$W/out.txt" | tail -1)"
                fi
                rm -f "$key"
            done
        done
    done
done
