#!/usr/bin/env bash
# A fleet of daemons on one PostgreSQL queue (issue 13, docs/fleet.md):
# a real PostgreSQL cluster made here (tests/lib/pg.sh), three `zkpipe
# serve` on loopback sharing it and one spool directory, and the faults:
#   1. jobs of both curves from concurrent clients, each sent to one daemon
#      and awaited on another: every job done exactly once (one claim per
#      partition), every proof accepted by zkpipe verify (a sample by
#      snarkjs), the work spread over all three daemons;
#   2. kill -9 of a daemon mid-run: its partitions are taken over once its
#      lease expires (the time is printed), no job lost, the partitions it
#      had finished are not proved again (their fences unchanged);
#   3. SIGSTOP of a daemon past its lease, then SIGCONT: its claims were
#      taken over, its late results refused (fencing), every proof in the
#      store is another daemon's, nothing duplicated;
#   3b. a daemon stopped inside a transaction: the server ends its session,
#      the others take its claims over and end its jobs while it is stopped;
#   4. PostgreSQL restarted under load: the daemons carry on, nothing lost;
#   5. a job cancelled on one daemon while a partition runs on another
#      (held there by SIGSTOP for the cancel): it stops within a second;
#   6. PostgreSQL down when a daemon starts: a clear error naming the store.
# Usage: tests/server/fleet.sh ZKPIPE WORKDIR
# Prints PASS/FAIL lines, then "N passed, M failed"; exits 1 on a failure.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$HERE/fleet_lib.sh"
test_setup "$@"
LEASE="${FLEET_LEASE:-2}"
GRACE=2
AWAIT_SECS=180
CANCEL_MAX="${FLEET_CANCEL_MAX:-1.5}" # seconds: "within about a second"
fleet_pg_start

mkdir -p "$W/keys" "$W/spool" "$W/out"
ln -s "$EX/bn128/merkle.zkey" "$W/keys/bn.zkey"
ln -s "$EX/bls12381/merkle.zkey" "$W/keys/bls.zkey"
declare -A VK=([bn]="$EX/bn128/vk.json" [bls]="$EX/bls12381/vk.json")

for d in d1 d2 d3; do
    if ! fleet_start "$d"; then
        fail "daemon $d starts on the shared store" "see $W/$d.log"
        finish
        exit 1
    fi
done
pass "three daemons start on one store"

# six_jobs DAEMON TAG: six bn jobs of P3 partitions sent to DAEMON; prints their ids, comma-separated.
# Sections 3 and 3b stop a daemon while it holds claims, so the fleet must
# still be busy when they look: at 8 partitions a job the 48 were all
# proved before d2 was caught holding one in 2 of 5 runs once the MSMs
# got faster (2026-12-04).
P3=32
six_jobs() {
    local ids=() n
    for n in 1 2 3 4 5 6; do ids+=("$(fleet_submit "$1" bn "$P3" "$2-$n")"); done
    (IFS=,; echo "${ids[*]}")
}
# await_running OWNER JOB_IDS: waits (60 s at most) until OWNER runs a partition of one of the jobs
await_running() {
    local deadline=$(($(date +%s) + 60))
    while [ "$(sql "SELECT count(*) FROM partitions WHERE owner = '$1' AND state = 1 AND job_id IN ($2)")" = 0 ] &&
        [ "$(date +%s)" -lt $deadline ]; do sleep 0.01; done
}

# ---- 1. jobs from concurrent clients, awaited on other daemons
NAMES=(d1 d2 d3)
declare -A JKEY JPARTS
ids=()
clients=()
for n in $(seq 1 18); do
    k=bn; [ $((n % 3)) = 0 ] && k=bls
    parts=$((2 + n % 3))
    d=${NAMES[$((n % 3))]}
    (id="$(fleet_submit "$d" "$k" "$parts" "r1-$n")" && echo "$n $id $k $parts" >"$W/out/sub1-$n") &
    clients+=($!)
done
wait "${clients[@]}"
bad=0
for n in $(seq 1 18); do
    if [ -s "$W/out/sub1-$n" ]; then read -r _ id k parts <"$W/out/sub1-$n"; ids+=("$id"); JKEY[$id]=$k; JPARTS[$id]=$parts
    else bad=$((bad + 1)); fi
done
expect_eq "1: 18 jobs accepted by three daemons at once" "$bad" "0"
bad=0
for i in "${!ids[@]}"; do
    id=${ids[$i]}
    fleet_await "${NAMES[$(((i + 1) % 3))]}" "$id" "$W/out/j$id" || { bad=$((bad + 1)); continue; }
    verify_dir "${VK[${JKEY[$id]}]}" "$W/out/j$id" "${JPARTS[$id]}" || bad=$((bad + 1))
done
expect_eq "1: every job done, awaited on another daemon than its own, every proof verified" "$bad" "0"
check "1: snarkjs accepts a bn128 proof from the fleet" "$SNARKJS" groth16 verify "${VK[${JKEY[${ids[0]}]}]}" \
    "$W/out/j${ids[0]}/public_0.json" "$W/out/j${ids[0]}/proof_0.json"
check "1: snarkjs accepts a bls12381 proof from the fleet" "$SNARKJS" groth16 verify "${VK[${JKEY[${ids[2]}]}]}" \
    "$W/out/j${ids[2]}/public_0.json" "$W/out/j${ids[2]}/proof_0.json"
total=0
for id in "${ids[@]}"; do total=$((total + JPARTS[$id])); done
claims=0
for d in d1 d2 d3; do claims=$((claims + $(metric "$d" zkpipe_claims_total))); done
expect_eq "1: exactly one claim per partition ($total partitions)" "$claims" "$total"
expect_eq "1: every partition done once in the store" "$(sql "SELECT count(*) FROM partitions WHERE state = 2")" "$total"
spread="$(sql "SELECT string_agg(owner || ':' || n, ' ' ORDER BY owner) FROM (SELECT owner, count(*) n FROM partitions GROUP BY owner) x")"
owners="$(sql "SELECT count(DISTINCT owner) FROM partitions")"
expect_eq "1: the work spread over all three daemons ($spread)" "$owners" "3"
code="$(URL=${URL_OF[d2]} http GET /v1/fleet)"
expect_eq "1: GET /v1/fleet lists the three daemons with their heartbeats" \
    "$code $(jget '[j.store, j.daemons.length, j.daemons.every(d => d.heartbeat_age < 5 && d.budget > 0)].join()')" \
    "200 postgresql,3,true"

# ---- 2. kill -9 of a daemon mid-run
ids2=()
for n in 1 2 3 4 5 6; do ids2+=("$(fleet_submit d2 bn 8 "r2-$n")"); done
list2="$(IFS=,; echo "${ids2[*]}")"
deadline=$(($(date +%s) + 60))
while [ "$(date +%s)" -lt $deadline ]; do
    r="$(sql "SELECT count(*) FILTER (WHERE owner = 'd1' AND state = 1), count(*) FILTER (WHERE state = 2) FROM partitions WHERE job_id IN ($list2)")"
    [ "${r%%|*}" -ge 1 ] && [ "${r##*|}" -ge 4 ] && break
    sleep 0.05
done
sql "SELECT job_id, idx, fence FROM partitions WHERE job_id IN ($list2) AND state = 2 ORDER BY 1, 2" >"$W/out/done_before_kill"
held="$(sql "SELECT count(*) FROM partitions WHERE owner = 'd1' AND state = 1 AND job_id IN ($list2)")"
T_KILL=$(date +%s.%N)
stop_daemon "${DPID_OF[d1]}" KILL
while [ "$(sql "SELECT count(*) FROM partitions WHERE owner = 'd1' AND state = 1")" != 0 ]; do
    [ "$(awk -v a="$T_KILL" -v b="$(date +%s.%N)" 'BEGIN { print (b - a > 60) }')" = 1 ] && break
    sleep 0.05
done
TAKEOVER="$(awk -v a="$T_KILL" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')"
echo "fleet: kill -9 of d1 holding $held partitions: taken over after ${TAKEOVER} s (lease ${LEASE} s)"
bad=0
for id in "${ids2[@]}"; do
    fleet_await d3 "$id" "$W/out/j$id" && verify_dir "${VK[bn]}" "$W/out/j$id" 8 || bad=$((bad + 1))
done
expect_eq "2: kill -9 of d1 holding $held partitions: its work taken over after ${TAKEOVER} s (lease $LEASE s), every job done and verified" "$bad" "0"
sql "SELECT job_id, idx, fence FROM partitions WHERE (job_id, idx) IN (SELECT job_id, idx FROM partitions WHERE job_id IN ($list2) AND state = 2) ORDER BY 1, 2" |
    grep -Fxf "$W/out/done_before_kill" | wc -l >"$W/out/kept"
expect_eq "2: the $(wc -l <"$W/out/done_before_kill") partitions finished before the kill were not proved again" \
    "$(cat "$W/out/kept")" "$(wc -l <"$W/out/done_before_kill")"
if fleet_start d1; then pass "2: d1 starts again on its node id"; else fail "2: d1 starts again on its node id" "see $W/d1.log"; fi

# ---- 3. SIGSTOP past the lease, then SIGCONT
list3="$(six_jobs d3 r3)"
IFS=, read -r -a ids3 <<<"$list3"
# Stop d2 while it holds a claim. A small partition's claim lives a few
# ms, less than a look at the store takes, so d2 seen running may hold
# nothing by the time it is stopped: stop it first, then look, and let it
# go on and try again while it holds nothing (the jobs hold 6·P3 partitions).
await_running d2 "$list3"
for try in $(seq 1 200); do
    kill -STOP "${DPID_OF[d2]}"
    sql "SELECT job_id, idx, fence FROM partitions WHERE owner = 'd2' AND state = 1 AND job_id IN ($list3)" >"$W/out/stalled"
    [ -s "$W/out/stalled" ] && break
    kill -CONT "${DPID_OF[d2]}"
    sleep 0.01
done
sleep $((LEASE + 2))
bad=0
for id in "${ids3[@]}"; do
    fleet_await d1 "$id" "$W/out/j$id" && verify_dir "${VK[bn]}" "$W/out/j$id" "$P3" || bad=$((bad + 1))
done
expect_eq "3: d2 stopped holding $(wc -l <"$W/out/stalled") claims: the others finished every job" "$bad" "0"
kill -CONT "${DPID_OF[d2]}"
sleep 3
lost="$(metric d2 zkpipe_leases_lost_total)"
refused="$(metric d2 zkpipe_results_refused_total)"
if [ "$((lost + refused))" -ge 1 ]; then pass "3: d2 woke up: its claims were gone (leases lost $lost, results refused $refused)"
else fail "3: d2 woke up: its claims were gone" "leases lost $lost, results refused $refused"; fi
mine=0
while IFS='|' read -r j i f; do
    [ -z "$j" ] && continue
    r="$(sql "SELECT owner || ':' || state || ':' || (fence > $f)::int FROM partitions WHERE job_id = $j AND idx = $i")"
    [ "$r" = "d2:2:0" ] && mine=$((mine + 1))
done <"$W/out/stalled"
expect_eq "3: no stalled claim's result is d2's: every one was proved under a newer fence" "$mine" "0"
expect_eq "3: nothing duplicated (each of the $((6 * P3)) partitions done once)" \
    "$(sql "SELECT count(*) FROM partitions WHERE job_id IN ($list3) AND state = 2")" "$((6 * P3))"

# ---- 3b. a daemon stalled inside a transaction
# Every write waits on a table lock taken here; d2 is stopped while its
# write waits, so when the lock goes its transaction stays open with the
# server waiting for d2's next statement, holding its rows. The server
# must end that session (idle_in_transaction_session_timeout) so that the
# others take d2's claims over and end its jobs while it is stopped.
list3b="$(six_jobs d2 r3b)"
IFS=, read -r -a ids3b <<<"$list3b"
await_running d2 "$list3b"
sql "BEGIN; LOCK TABLE partitions IN EXCLUSIVE MODE; SELECT pg_sleep(1.5); COMMIT" >/dev/null &
locker=$!
sleep 1 # d2 renews its claims every 0.3 s (lease / 3 at most): its renewal now waits
kill -STOP "${DPID_OF[d2]}"
wait $locker
sleep 0.3
caught="$(sql "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'zkpipe' AND state = 'idle in transaction'")"
bad=0
for id in "${ids3b[@]}"; do
    fleet_await d3 "$id" "$W/out/j$id" $((LEASE + 8)) &&
        verify_dir "${VK[bn]}" "$W/out/j$id" "$P3" || bad=$((bad + 1))
done
left="$(sql "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'zkpipe' AND state = 'idle in transaction' AND now() - state_change > interval '2 s'")"
kill -CONT "${DPID_OF[d2]}"
expect_eq "3b: d2 stopped inside a transaction ($caught session idle in it)" "$([ "$caught" -ge 1 ] && echo yes)" "yes"
expect_eq "3b: its session ended by the server, no transaction left open" "$left" "0"
expect_eq "3b: the others ended its jobs within the lease and a few seconds" "$bad" "0"
sleep 1
code="$(URL=${URL_OF[d2]} http GET /v1/status)"
expect_eq "3b: d2 answers again after SIGCONT" "$code" "200"

# ---- 4. PostgreSQL restarted under load
ids4=()
for n in 1 2 3 4 5 6; do ids4+=("$(fleet_submit "${NAMES[$((n % 3))]}" bls 4 "r4-$n")"); done
sleep 0.5
if pg_restart "$W/pg" >"$W/logs/pg_restart.log" 2>&1; then pass "4: PostgreSQL restarted under load"
else fail "4: PostgreSQL restarted under load" "$(tail -3 "$W/logs/pg_restart.log")"; fi
for n in 7 8; do ids4+=("$(fleet_submit "${NAMES[$((n % 3))]}" bls 4 "r4-$n")"); done
bad=0
for id in "${ids4[@]}"; do
    if [ -z "$id" ]; then bad=$((bad + 1)); continue; fi
    fleet_await d2 "$id" "$W/out/j$id" && verify_dir "${VK[bls]}" "$W/out/j$id" 4 || bad=$((bad + 1))
done
expect_eq "4: every job accepted before and after the restart is done and verified" "$bad" "0"

# ---- 5. cancel on one daemon of a job running on another
# A small key proves in milliseconds, faster than psql and curl start, so
# d3 is stopped (SIGSTOP) as soon as it is seen running a partition, the
# cancel is sent, and d3 is let go again: from then it must either stop
# the partition or have its late result refused, both the cancel honoured.
# If the partition was recorded done before d3 stopped, there was nothing
# to cancel: the case is tried again with a new job.
seconds_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }
outcome=none
for try in 1 2 3 4 5; do
    big="$(fleet_submit d1 bn 40 "r5-$try")"
    await_running d3 "$big"
    kill -STOP "${DPID_OF[d3]}"
    # a transaction d3 left open may hold the partition's row: the cancel
    # then waits for d3, so it is sent in the background
    (URL=${URL_OF[d1]} http DELETE "/v1/jobs/$big" >"$W/out/cancel5") &
    cancel_pid=$!
    sleep 0.3
    sql "SELECT idx || ':' || fence FROM partitions WHERE job_id = $big AND owner = 'd3' AND state IN (1, 4)" \
        >"$W/out/running5"
    running3="$(wc -l <"$W/out/running5")"
    T_CANCEL=$(date +%s.%N)
    kill -CONT "${DPID_OF[d3]}"
    wait $cancel_pid
    cancel_answer="$(cat "$W/out/cancel5") $(jget j.state)"
    [ "$cancel_answer" = "200 cancelled" ] || { outcome=refused; break; }
    if [ "$running3" = 0 ]; then
        echo "fleet: try $try: d3's partitions were recorded done before it stopped; trying again"
        continue
    fi
    while ! grep -Eq "job $big partition .*(no longer this daemon's|result refused: its claim)" "$W/d3.log"; do
        [ "$(awk -v t="$(seconds_since "$T_CANCEL")" 'BEGIN { print (t > 10) }')" = 1 ] && break
        sleep 0.02
    done
    STOPPED="$(seconds_since "$T_CANCEL")"
    outcome=tried
    break
done
expect_eq "5: DELETE on d1 of job $big, $running3 of its partitions running on d3" "$cancel_answer" "200 cancelled"
if [ "$outcome" = none ]; then
    fail "5: a partition still running on d3 when the cancel reached the store" "5 tries, every one ended first"
elif [ "$outcome" = tried ]; then
    if awk -v t="$STOPPED" -v m="$CANCEL_MAX" 'BEGIN { exit !(t < m) }'; then
        pass "5: d3 stopped the job's partitions ${STOPPED} s after the cancel (and SIGCONT)"
    else fail "5: d3 stopped the job's partitions within $CANCEL_MAX s" "${STOPPED} s"; fi
fi
code="$(URL=${URL_OF[d3]} http GET "/v1/jobs/$big")"
expect_eq "5: d3 answers the job cancelled" "$code $(jget j.state)" "200 cancelled"
expect_eq "5: none of its partitions runs anywhere" "$(sql "SELECT count(*) FROM partitions WHERE job_id = $big AND state = 1")" "0"

# ---- 6. PostgreSQL down at a daemon's start
pg_stop "$W/pg" >/dev/null 2>&1
fleet_conf d4
"$Z" serve --config "$W/d4.conf" >"$W/d4.log" 2>&1 &
p4=$!
DAEMON_PIDS+=("$p4")
rc=0
for _ in $(seq 1 300); do kill -0 $p4 2>/dev/null || break; sleep 0.1; done
if kill -0 $p4 2>/dev/null; then rc=running; else wait $p4; rc=$?; fi
msg="$(grep -m1 -i "postgresql://" "$W/d4.log")"
if [ "$rc" != running ] && [ "$rc" != 0 ] && [ -n "$msg" ]; then pass "6: PostgreSQL down at start: exit $rc, '$msg'"
else fail "6: PostgreSQL down at start: a clear error" "exit $rc: $(tail -2 "$W/d4.log")"; fi
pg_resume "$W/pg" >/dev/null 2>&1

for d in d1 d2 d3; do
    stop_daemon "${DPID_OF[$d]}"
    expect_eq "$d exits 0 on SIGTERM (a sanitizer's report would make it 66)" "$STOP_RC" "0"
done
finish
