#!/usr/bin/env bash
# Daemons whose clocks are wrong (issue 31, item 6; docs/fleet.md "Whose
# clock"): libfaketime gives a daemon a clock three days ahead or behind
# the database's. Leases, job times and expiry are the database's:
#   1. jobs finished by a daemon with a right clock stay available when a
#      daemon three days ahead starts (its expiry pass runs at start);
#   2. that daemon proves jobs under leases like any other, and says how
#      far its clock is from the database's (/v1/status, /metrics, /v1/fleet,
#      a warning in its log);
#   3. jobs finished by a daemon three days behind stay available when a
#      daemon with a right clock starts and expires.
# Usage: tests/server/fleet_clock.sh ZKPIPE WORKDIR
# Prints PASS/FAIL lines, then "N passed, M failed"; exits 1 on a failure.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$HERE/fleet_lib.sh"
test_setup "$@"
LEASE=5 # leases are not what is timed here: room for a loaded machine
SKEW=$((3 * 86400))
GRACE=1
FAKETIME_LIB="$(ls /usr/lib/*/faketime/libfaketime.so.1 2>/dev/null | head -1)"
if [ -z "$FAKETIME_LIB" ]; then
    fail "faketime is installed" "scripts/deps.sh installs the faketime package"
    finish
    exit 1
fi
fleet_pg_start

mkdir -p "$W/keys" "$W/spool" "$W/out"
ln -s "$EX/bn128/merkle.zkey" "$W/keys/bn.zkey"
VK="$EX/bn128/vk.json"
# start NAME [OFFSET]: OFFSET for faketime ("+3d", "-3d")
start() {
    local z="$Z"
    if [ -n "${2:-}" ]; then
        # libfaketime: the process's clocks (wall, monotonic) shifted by
        # OFFSET, preloaded into the daemon itself; the faketime program
        # would fork it and wait, so a kill of the pid the test holds would
        # leave the daemon running
        printf '#!/bin/sh\nexport LD_PRELOAD="%s" FAKETIME="%s"\nexec "%s" "$@"\n' "$FAKETIME_LIB" "$2" "$Z" \
            >"$W/zkpipe-$1"
        chmod +x "$W/zkpipe-$1"
        z="$W/zkpipe-$1"
    fi
    Z="$z" fleet_start "$1" "$W/keys" "result_ttl 86400"
}
# states DAEMON IDS...: "CODE:STATE" of each job as DAEMON answers it
states() {
    local d=$1 id out=()
    shift
    for id in "$@"; do out+=("$(URL=${URL_OF[$d]} http GET "/v1/jobs/$id"):$(jget j.state 2>/dev/null)"); done
    echo "${out[*]}"
}
all_done() { # all_done N: N times "200:done"
    local i out=()
    for ((i = 0; i < $1; i++)); do out+=("200:done"); done
    echo "${out[*]}"
}

# ---- 1. a daemon three days ahead starts after jobs finished
start n || { fail "daemon n starts" "see $W/n.log"; finish; exit 1; }
ids=()
for k in 1 2 3; do ids+=("$(fleet_submit n bn 2 "c1-$k")"); done
bad=0
for id in "${ids[@]}"; do fleet_await n "$id" "$W/out/j$id" && verify_dir "$VK" "$W/out/j$id" 2 || bad=$((bad + 1)); done
expect_eq "1: three jobs done by n (right clock)" "$bad" "0"
start f "+3d" || { fail "daemon f (+3 days) starts" "see $W/f.log"; finish; exit 1; }
sleep 2 # f's sampler has run its expiry pass (at start, then hourly)
expect_eq "1: after f (3 days ahead) started, n still serves the jobs" "$(states n "${ids[@]}")" "$(all_done 3)"
expect_eq "1: and so does f" "$(states f "${ids[@]}")" "$(all_done 3)"

# ---- 2. f works under leases and says its clock is off
idf=()
for k in 1 2 3 4; do idf+=("$(fleet_submit f bn 4 "c2-$k")"); done
bad=0
for id in "${idf[@]}"; do fleet_await f "$id" "$W/out/j$id" && verify_dir "$VK" "$W/out/j$id" 4 || bad=$((bad + 1)); done
expect_eq "2: jobs sent to f are done and verified" "$bad" "0"
expect_eq "2: f's leases are the database's: none lost, none refused" \
    "$(metric f zkpipe_leases_lost_total) $(metric f zkpipe_results_refused_total)" "0 0"
fin="$(sql "SELECT count(*) FROM jobs WHERE abs(finished - extract(epoch FROM now())) < 600 AND id IN ($(IFS=,; echo "${idf[*]}"))")"
expect_eq "2: their finish times are the database's (f ran $SKEW s ahead)" "$fin" "${#idf[@]}"
code="$(URL=${URL_OF[f]} http GET /v1/status)"
expect_eq "2: f's /v1/status gives its clock's offset from the database's and says it is wrong" \
    "$code $(jget "[Math.abs(j.store.clock_skew - $SKEW) < 60, j.status, (j.degraded || []).some(r => /clock/.test(r))].join()")" \
    "200 true,degraded,true"
skew="$(metric f zkpipe_store_clock_skew_seconds)"
expect_eq "2: f's /metrics too (zkpipe_store_clock_skew_seconds $skew)" \
    "$(awk -v s="$skew" -v w=$SKEW 'BEGIN { print (s - w < 60 && w - s < 60) }')" "1"
expect_eq "2: n's is near 0" "$(awk -v s="$(metric n zkpipe_store_clock_skew_seconds)" 'BEGIN { print (s < 5 && s > -5) }')" "1"
code="$(URL=${URL_OF[n]} http GET /v1/fleet)"
expect_eq "2: /v1/fleet shows each daemon's clock offset" \
    "$code $(jget "j.daemons.map(d => d.id + ':' + (Math.abs(d.clock_skew) > 86400)).join()")" "200 f:true,n:false"
grep -q "clock is .* ahead of the store" "$W/f.log" && pass "2: f's log warns about its clock" ||
    fail "2: f's log warns about its clock" "$(tail -3 "$W/f.log")"

# ---- 3. a daemon three days behind finishes jobs; one with a right clock starts
stop_daemon "${DPID_OF[f]}"
stop_daemon "${DPID_OF[n]}"
start p "-3d" || { fail "daemon p (-3 days) starts" "see $W/p.log"; finish; exit 1; }
idp=()
for k in 1 2 3; do idp+=("$(fleet_submit p bn 2 "c3-$k")"); done
bad=0
for id in "${idp[@]}"; do fleet_await p "$id" "$W/out/j$id" && verify_dir "$VK" "$W/out/j$id" 2 || bad=$((bad + 1)); done
expect_eq "3: three jobs done by p (3 days behind)" "$bad" "0"
stop_daemon "${DPID_OF[p]}"
start n || fail "3: n starts again" "see $W/n.log"
sleep 2 # n's expiry pass at start
expect_eq "3: after n started and expired, p's jobs are still there" "$(states n "${idp[@]}")" "$(all_done 3)"
expect_eq "3: and the first ones too" "$(states n "${ids[@]}")" "$(all_done 3)"
stop_daemon "${DPID_OF[n]}"
expect_eq "n exits 0 on SIGTERM" "$STOP_RC" "0"
finish
