#!/usr/bin/env bash
# Daemons sharing one PostgreSQL queue (issue 13, docs/fleet.md): what the
# shared store costs real `zkpipe serve` daemons, and how fast a dead
# daemon's work is taken over. The store's own cost per call, with no
# proving, is zkpipe-bench-store's (bench/store_claims.c).
#   (a) throughput: JOBS jobs x PARTS partitions of the merkle bn128 example,
#       submitted at once round-robin to 1, 2, 3 daemons on one PostgreSQL
#       (one spool_dir, lease 2 s), timed from the first submit until every
#       job is awaited done: partitions/s; and 1 daemon on its own SQLite
#       store (the default when `store` is not set) as the baseline, so the
#       claim overhead shows as the difference. TPUT_REPS rounds, each
#       running every configuration once (interleaved, so that a slow spell
#       of this shared machine does not fall on one configuration); the
#       median per configuration. Each daemon has threads 2:
#       on a 2-core machine 2 or 3 daemons add no compute, only contention.
#   (b) takeover: for each lease in LEASES, two daemons busy on a queue,
#       kill -9 of the one holding claims; the time from the kill until none
#       of its partitions is running under its owner in the store (psql:
#       state = 1 AND owner = it), REPS repetitions, median. It is the lease
#       left at the kill (renewed every min(lease/3, 0.3 s)) plus the time
#       until the survivor has room to claim each of them (one at a time, as
#       its pipeline frees a place).
# Peak RSS of each daemon from GET /v1/status (peak_rss).
# Usage: bench/fleet.sh ZKPIPE WORKDIR
#   env: JOBS=20 PARTS=4 TPUT_REPS=3 LEASES="1 2 5" REPS=3 (LEASES="": no (b),
#   TPUT_REPS=0: no (a))
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../tests/server/lib.sh"
source "$ROOT/tests/lib/pg.sh"
test_setup "$@"
JOBS="${JOBS:-20}"
TPUT_REPS="${TPUT_REPS:-3}"
PARTS="${PARTS:-4}"
LEASES="${LEASES:-1 2 5}"
REPS="${REPS:-3}"
on_exit() {
    cleanup_daemons
    pg_cleanup
}
trap on_exit EXIT
pg_available || { echo "PostgreSQL is not available: $PG_WHY" >&2; exit 1; }
pg_start "$W/pg" >"$W/logs/pg_start.log" 2>&1 || { echo "PostgreSQL does not start: see $W/logs/pg_start.log" >&2; exit 1; }
sql() { "$PG_BIN/psql" -X -q -At -d "$PG_URI" -c "$1"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

mkdir -p "$W/keys" "$W/spool" "$W/out"
chmod 777 "$W/spool"
ln -s "$EX/bn128/merkle.zkey" "$W/keys/bn.zkey"
WIT=("$EX/bn128/w1.wtns" "$EX/bn128/w2.wtns")

conf() { # conf NAME LEASE [sqlite]: a daemon on the shared store, or on its own SQLite one
    {
        echo "listen 127.0.0.1:0"
        echo "data_dir $W/$1"
        if [ "${3:-}" != sqlite ]; then
            echo "store $PG_URI"
            echo "spool_dir $W/spool"
            echo "node $1"
            echo "lease $2"
        fi
        echo "keys_dir $W/keys"
        echo "budget 512M"
        echo "threads 2"
        echo "synth_workers 1"
        echo "shutdown_grace 2"
    } >"$W/$1.conf"
}
declare -A DPID_OF URL_OF
start() { # start NAME LEASE [sqlite]
    conf "$@"
    start_daemon "$1" "$W/$1.conf" || { echo "daemon $1 does not start: see $W/$1.log" >&2; exit 1; }
    DPID_OF[$1]=$DPID
    URL_OF[$1]=$URL
}
peak_rss_mb() { curl -s -o "$W/status.json" "${URL_OF[$1]}/v1/status" && jget 'Math.round(j.peak_rss / 1e6)' "$W/status.json"; }
submit() { # submit NAME PARTS: prints the job id
    local w=() i
    for ((i = 0; i < $2; i++)); do w+=("${WIT[$((i % 2))]}"); done
    "$Z" submit --server "${URL_OF[$1]}" --key bn "${w[@]}"
}

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo "# PostgreSQL $("$PG_BIN/postgres" --version | awk '{ print $3 }') (tests/lib/pg.sh: fsync and synchronous_commit on)"

# ---- (a) throughput
cat "$EX/bn128/merkle.zkey" "${WIT[@]}" >/dev/null # the first configuration is not the one to read them cold
echo
echo "(a) throughput: $JOBS jobs x $PARTS partitions (merkle bn128), submitted at once round-robin, lease 2 s"
printf "%-22s %8s %8s %9s  %s\n" "store" "daemons" "wall_s" "parts/s" "peak RSS MB per daemon"
run_tput() { # run_tput LABEL sqlite|pg NAMES...: one row, its parts/s also in $W/out/tput-LABEL-N
    local label="$1" kind="$2"; shift 2
    local names=("$@") d n t0 wall rss="" clients=()
    for d in "${names[@]}"; do
        if [ "$kind" = sqlite ]; then start "$d" 2 sqlite; else start "$d" 2; fi
    done
    t0=$(now)
    for ((n = 0; n < JOBS; n++)); do
        d=${names[$((n % ${#names[@]}))]}
        (submit "$d" "$PARTS" >"$W/out/${names[0]}-$n.id") &
        clients+=($!)
    done
    wait "${clients[@]}"
    local bad=0
    for ((n = 0; n < JOBS; n++)); do
        id="$(cat "$W/out/${names[0]}-$n.id")"
        d=${names[$((n % ${#names[@]}))]}
        [ -n "$id" ] && "$Z" await "$id" --server "${URL_OF[$d]}" --out "$W/out/${names[0]}-j$id" --timeout 300 \
            >"$W/out/${names[0]}-j$id.log" 2>&1 || bad=$((bad + 1))
    done
    wall=$(since "$t0")
    for d in "${names[@]}"; do rss="$rss $(peak_rss_mb "$d")"; done
    printf "%-22s %8s %8s %9.1f  %s%s\n" "$label" "${#names[@]}" "$wall" \
        "$(awk -v w="$wall" -v p=$((JOBS * PARTS)) 'BEGIN { print p / w }')" "${rss# }" \
        "$([ $bad = 0 ] || echo "  ($bad jobs NOT done)")"
    awk -v w="$wall" -v p=$((JOBS * PARTS)) 'BEGIN { print p / w }' >>"$W/out/tput-$label-${#names[@]}"
    for d in "${names[@]}"; do stop_daemon "${DPID_OF[$d]}"; done
}
for ((r = 1; r <= TPUT_REPS; r++)); do
    run_tput "sqlite (own store)" sqlite "s1-$r"
    run_tput "postgresql" pg "a1-$r"
    run_tput "postgresql" pg "b1-$r" "b2-$r"
    run_tput "postgresql" pg "c1-$r" "c2-$r" "c3-$r"
done
if [ "$TPUT_REPS" -gt 0 ]; then
    echo "median of $TPUT_REPS:"
    for c in "sqlite (own store)-1" postgresql-1 postgresql-2 postgresql-3; do
        printf "%-22s %8s %8s %9.1f  (runs: %s)\n" "${c%-*}" "${c##*-}" "" "$(median <"$W/out/tput-$c")" \
            "$(awk '{ printf "%s%.2f", (NR > 1 ? " " : ""), $1 }' "$W/out/tput-$c")"
    done
fi
[ "$(nproc)" -le 2 ] && echo "note: $(nproc) cores: 2 or 3 daemons add no compute here, only the claims' contention"

# ---- (b) takeover
echo
echo "(b) takeover after kill -9: two daemons busy on 4 jobs x 8 partitions, the one holding claims killed;"
echo "    seconds from the kill until none of its partitions is running under it in the store; $REPS reps"
printf "%6s %8s %-24s %s\n" "lease" "median" "runs (s)" "claims held at the kill"
for L in $LEASES; do
    times=() held_all=()
    for ((r = 1; r <= REPS; r++)); do
        x="x$L-$r" y="y$L-$r"
        start "$x" "$L"
        start "$y" "$L"
        ids=()
        for n in 1 2 3 4; do ids+=("$(submit "$y" 8)"); done
        list="$(IFS=,; echo "${ids[*]}")"
        deadline=$(($(date +%s) + 60))
        while [ "$(sql "SELECT count(*) FROM partitions WHERE owner = '$x' AND state = 1")" = 0 ] &&
            [ "$(date +%s)" -lt $deadline ]; do sleep 0.02; done
        held="$(sql "SELECT count(*) FROM partitions WHERE owner = '$x' AND state = 1")"
        t_kill=$(now)
        stop_daemon "${DPID_OF[$x]}" KILL
        while [ "$(sql "SELECT count(*) FROM partitions WHERE owner = '$x' AND state = 1")" != 0 ]; do
            [ "$(awk -v a="$t_kill" -v b="$(now)" 'BEGIN { print (b - a > 60) }')" = 1 ] && break
            sleep 0.05
        done
        times+=("$(since "$t_kill")")
        held_all+=("$held")
        # the rest is not measured: cancel it, stop the survivor
        for id in "${ids[@]}"; do curl -s -o /dev/null -X DELETE "${URL_OF[$y]}/v1/jobs/$id"; done
        stop_daemon "${DPID_OF[$y]}"
    done
    printf "%5ss %8s %-24s %s\n" "$L" "$(printf '%s\n' "${times[@]}" | median)" "${times[*]}" "${held_all[*]}"
done
