# shellcheck shell=bash disable=SC2034
# Helpers shared by the fleet tests (fleet.sh, fleet_trust.sh,
# fleet_clock.sh, fleet_repair.sh): daemons on one throwaway PostgreSQL
# queue (tests/lib/pg.sh); sourced, not run, after lib.sh, then
# test_setup "$@" and fleet_pg_start. LEASE (seconds) and GRACE
# (shutdown_grace) go into each daemon's config; AWAIT_SECS is how long
# fleet_await waits by default (60).

source "$ROOT/tests/lib/pg.sh"
declare -A DPID_OF URL_OF

# fleet_pg_start: a PostgreSQL cluster in $W/pg (PG_URI), stopped with the
# daemons on exit; without one the test fails and ends here
fleet_pg_start() {
    trap 'cleanup_daemons; pg_cleanup' EXIT
    if ! pg_available; then
        fail "PostgreSQL is available" "$PG_WHY"
        finish
        exit 1
    fi
    if ! pg_start "$W/pg" >"$W/logs/pg_start.log" 2>&1; then
        fail "a PostgreSQL cluster starts" "$(tail -3 "$W/logs/pg_start.log" | tr '\n' ' ')"
        finish
        exit 1
    fi
    pass "a PostgreSQL cluster starts ($PG_URI)"
}

# sql QUERY: its rows, unaligned, fields split by '|'
sql() { "$PG_BIN/psql" -X -q -At -d "$PG_URI" -c "$1"; }

# fleet_conf NAME [KEYS_DIR [LINE...]]: $W/NAME.conf, daemon NAME (data in
# $W/NAME) on the shared store and spool, with the keys in KEYS_DIR
# ($W/keys) and each further LINE
fleet_conf() {
    local name="$1" keys="${2:-$W/keys}"
    shift $(($# < 2 ? $# : 2))
    write_conf "$W/$name.conf" "$W/$name" "store $PG_URI" "spool_dir $W/spool" "node $name" "lease $LEASE" \
        "keys_dir $keys" "budget 512M" "synth_workers 1" "threads 1" "queue 1" "shutdown_grace $GRACE" "$@"
}

# fleet_start NAME [KEYS_DIR [LINE...]]: writes NAME's config (fleet_conf)
# and starts it; sets DPID_OF[NAME] and URL_OF[NAME] (and DPID, URL)
fleet_start() {
    fleet_conf "$@"
    start_daemon "$1" "$W/$1.conf" || return 1
    DPID_OF[$1]=$DPID
    URL_OF[$1]=$URL
}

# fleet_submit NAME KEY PARTS RID: a job of PARTS partitions (the example's
# w1, w2, w1, ...) for key bn or bls sent to daemon NAME; prints its id
fleet_submit() {
    local curve=bn128 w=() i
    [ "$2" = bls ] && curve=bls12381
    for ((i = 0; i < $3; i++)); do w+=("$EX/$curve/w$((i % 2 + 1)).wtns"); done
    "$Z" submit --server "${URL_OF[$1]}" --key "$2" --request-id "$4" "${w[@]}"
}

# fleet_await NAME ID DIR [TIMEOUT]: waits on daemon NAME for job ID
# (AWAIT_SECS by default), writes its proofs into DIR
fleet_await() {
    "$Z" await "$2" --server "${URL_OF[$1]}" --out "$3" --timeout "${4:-${AWAIT_SECS:-60}}" >"$3.log" 2>&1
}

# verify_dir VK DIR PARTS: every partition's proof in DIR verifies under VK
verify_dir() {
    local i
    for ((i = 0; i < $3; i++)); do
        "$Z" verify "$1" "$2/public_$i.json" "$2/proof_$i.json" >/dev/null 2>&1 || return 1
    done
}

# metric NAME METRIC: the value daemon NAME's /metrics gives METRIC
metric() { curl -s "${URL_OF[$1]}/metrics" | awk -v m="$2" '$1 == m { print $2 }'; }
