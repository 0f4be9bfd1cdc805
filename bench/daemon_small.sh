#!/usr/bin/env bash
# The daemon on many small jobs: proofs per second of one `zkpipe serve`
# (its own SQLite store, the key loaded once) on Semaphore-sized proofs,
# against the library's prover context on the same key and witness
# (zkpipe-bench-prover: compute alone), so what the daemon adds shows as
# the difference.
#   JOBS jobs of one partition each (a synthetic circom-like circuit of
#   2^LOG constraints, bench/synth_circuit.c, keyed by zkpipe setup),
#   submitted by CLIENTS concurrent `zkpipe submit` processes, timed from
#   the first submit until every job is awaited done (`zkpipe await`, a
#   process per job); then again from one HTTP client (bench/http_load.js:
#   node, CLIENTS requests at a time on kept-alive connections), which
#   leaves out the processes' start-up; REPS rounds, median.
#   The daemon runs one proof at a time on both cores (prove_workers and
#   finalize_workers 1, threads 2; synth_workers 1 and 2), or two at once
#   on one core each (prove_workers and finalize_workers 2, threads 1), as
#   the library's contexts do with
#   zkpipe-bench-prover --jobs 1 and 2.
# Usage: bench/daemon_small.sh ZKPIPE WORKDIR
#   env: LOG=11 JOBS=200 CLIENTS=8 REPS=3 CURVE=bn128
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../tests/server/lib.sh"
test_setup "$@"
LOG="${LOG:-11}" JOBS="${JOBS:-200}" CLIENTS="${CLIENTS:-8}" REPS="${REPS:-3}" CURVE="${CURVE:-bn128}"
for v in LOG JOBS CLIENTS REPS; do
    case "${!v}" in '' | *[!0-9]* | 0) echo "$v must be a number > 0" >&2; exit 2 ;; esac
done
BIN="$(dirname "$Z")"
[ -x "$BIN/zkpipe-bench-circuit" ] && [ -x "$BIN/zkpipe-bench-prover" ] ||
    { echo "zkpipe-bench-circuit and zkpipe-bench-prover must be beside $Z" >&2; exit 2; }
trap cleanup_daemons EXIT
now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

mkdir -p "$W/keys" "$W/out"
"$BIN/zkpipe-bench-circuit" --curve "$CURVE" --log "$LOG" "$W/c.r1cs" "$W/c.wtns" >"$W/logs/circuit.log" 2>&1 &&
    "$Z" setup --quiet "$W/c.r1cs" "$W/keys/small.zkey" >"$W/logs/setup.log" 2>&1 ||
    { echo "cannot make the circuit and key: see $W/logs" >&2; exit 1; }

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo "# $CURVE synthetic circuit, domain 2^$LOG; $JOBS jobs of one proof, $CLIENTS concurrent clients; median of $REPS"
echo
for j in 1 2; do
    echo "library prover contexts (zkpipe-bench-prover --runs $JOBS --jobs $j), the key loaded once:"
    "$BIN/zkpipe-bench-prover" --runs "$JOBS" --jobs "$j" "$W/keys/small.zkey" "$W/c.wtns" | sed 's/^/  /'
done

run() { # run NAME SYNTH_WORKERS PROVE_WORKERS THREADS CLIENT: prints proofs/s
    local name="$1" sw="$2" pw="$3" th="$4" how="$5"
    {
        echo "listen 127.0.0.1:0"
        echo "data_dir $W/$name"
        echo "keys_dir $W/keys"
        echo "budget 512M"
        echo "threads $th"
        echo "prove_workers $pw"
        echo "finalize_workers $pw"
        echo "synth_workers $sw"
    } >"$W/$name.conf"
    start_daemon "$name" "$W/$name.conf" || { echo "daemon $name does not start: see $W/$name.log" >&2; exit 1; }
    if [ "$how" = http ]; then
        TOKEN="$TOKEN" node "$HTTP_LOAD" "$URL" small "$W/c.wtns" "$JOBS" "$CLIENTS" >"$W/$name.rate" 2>"$W/$name.err" ||
            echo "  $name: $(cat "$W/$name.err")" >&2
        awk '{ print $1 }' "$W/$name.rate"
    else
        run_procs "$name"
    fi
    curl -s -o "$W/$name.status.json" "$URL/v1/status"
    stop_daemon "$DPID"
}
run_procs() { # run_procs NAME: zkpipe submit and await processes; prints proofs/s
    local name="$1" t0 n c id bad=0 clients=()
    t0=$(now)
    for ((c = 0; c < CLIENTS; c++)); do
        (
            for ((n = c; n < JOBS; n += CLIENTS)); do
                "$Z" submit --server "$URL" --key small "$W/c.wtns" >"$W/out/$name-$n.id" 2>"$W/out/$name-$n.err"
            done
        ) &
        clients+=($!)
    done
    wait "${clients[@]}" # not the daemon, a child of this shell too
    for ((n = 0; n < JOBS; n++)); do
        id="$(cat "$W/out/$name-$n.id")"
        [ -n "$id" ] && "$Z" await "$id" --server "$URL" --out "$W/out/$name-j$id" --timeout 300 \
            >"$W/out/$name-j$id.log" 2>&1 || bad=$((bad + 1))
    done
    awk -v a="$t0" -v b="$(now)" -v j="$JOBS" 'BEGIN { printf "%.1f\n", j / (b - a) }'
    [ $bad -eq 0 ] || echo "  $name: $bad jobs NOT done (see $W/out)" >&2
}
HTTP_LOAD="$(dirname "${BASH_SOURCE[0]}")/http_load.js"
for how in procs http; do
    echo
    case "$how" in
    procs) printf "%-46s %s\n" "daemon (SQLite store), zkpipe submit + await" "proofs/s, runs" ;;
    http) printf "%-46s %s\n" "daemon (SQLite store), one HTTP client" "proofs/s, runs" ;;
    esac
    last=
    for cfg in "1 1 2" "2 1 2" "2 2 1"; do
        read -r sw pw th <<<"$cfg"
        rates=()
        for ((r = 1; r <= REPS; r++)); do
            last="d$sw$pw$th-$how-$r"
            rates+=("$(run "$last" "$sw" "$pw" "$th" "$how")")
        done
        printf "%-46s %s  (%s)\n" "synth_workers $sw, prove_workers $pw, threads $th" \
            "$(printf '%s\n' "${rates[@]}" | median)" "${rates[*]}"
    done
done
echo
echo "peak RSS of the last daemon: $(jget 'Math.round(j.peak_rss / 1e6)' "$W/$last.status.json") MB"
