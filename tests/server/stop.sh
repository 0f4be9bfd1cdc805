#!/usr/bin/env bash
# A circuit that never ends does not stall the daemon (issue 31, item 7).
# The circuit is tests/witness/circuits/loop.wat (circom 2's ABI, built
# here with wat2wasm), beside examples/merkle/bn128/merkle.zkey in
# keys_dir: its input picks a loop with no call in it (1) or a recursion
# with no loop in it (2). One synthesis worker, and first no time limit:
# - a job that loops is cancelled: its worker is free at once, and a job
#   given a witness, submitted after it, is proved;
# - shutdown_grace 3, a job that loops: SIGTERM, and the daemon has
#   exited within the grace and a second (it gives the job back);
# - restarted with witness_time_limit 2: a job that recurses for ever
#   fails in about 2 s, its error naming the partition and the limit (and
#   the daemon's log line the job); the next job is proved;
# - SIGTERM while the circuit compiles (a compiler 60 s slow): the daemon
#   exits within the grace and a second, the compiler killed.
# Before the fix the cancelled job kept its worker for ever (the next job
# never ran) and SIGTERM left the daemon running.
#
# Usage: tests/server/stop.sh ZKPIPE WORKDIR
# Prints PASS/FAIL lines, then "N passed, M failed"; exits 1 on a failure.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
test_setup "$@"
trap cleanup_daemons EXIT
command -v wat2wasm >/dev/null && command -v wasm2c >/dev/null ||
    { echo "stop.sh: skipped: no wat2wasm or wasm2c (apt-get install wabt)"; exit 77; }
T0=$(date +%s)
TOKEN="stop-$RANDOM"
export ZKPIPE_TOKEN="$TOKEN"
CT=(-H "Content-Type: application/json")
mkdir -p "$W/keys"
wat2wasm "$ROOT/tests/witness/circuits/loop.wat" -o "$W/keys/spin.wasm" || { fail "wat2wasm loop.wat"; finish; exit 1; }
ln -s "$EX/bn128/merkle.zkey" "$W/keys/spin.zkey"
conf() { # conf FILE LIMIT GRACE
    cat >"$1" <<CONF
listen 127.0.0.1:0
data_dir $W/data
keys_dir $W/keys
token "$TOKEN"
budget 256M
synth_workers 1
witness_time_limit $2
shutdown_grace $3
CONF
}
secs_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
# submit_mode MODE: a job of one partition computed from {"mode": MODE}; prints its id
submit_mode() {
    printf '{"key":"spin","inputs":[{"mode":"%s"}]}' "$1" >"$W/in.json"
    [ "$(http POST /v1/jobs "${CT[@]}" --data-binary "@$W/in.json")" = 201 ] && jget j.id
}
# state ID: the job's state (no node: this is polled)
state() {
    http GET "/v1/jobs/$1" >/dev/null
    grep -oE '"state": *"[a-z]+"' "$W/body" | head -1 | sed -E 's/.*"([a-z]+)"$/\1/'
}
# await_state ID STATE: waits (10 s at most) until job ID is in STATE
await_state() {
    local i
    for i in $(seq 1 200); do [ "$(state "$1")" = "$2" ] && return 0; sleep 0.05; done
    return 1
}
# proves NAME: a job given a witness is proved within 30 s
proves() {
    local t1 id rc=0
    t1=$(date +%s.%N)
    jobs_body "$W/w.json" spin "" -- "$EX/bn128/w1.wtns"
    [ "$(http POST /v1/jobs "${CT[@]}" --data-binary "@$W/w.json")" = 201 ] || { fail "$1" "POST: $(head -c 200 "$W/body")"; return; }
    id="$(jget j.id)"
    "$Z" await "$id" --out "$W/out/$id" --timeout 30 >/dev/null 2>"$W/logs/await_$id.err" || rc=$?
    [ $rc = 0 ] && pass "$1: job $id proved in $(secs_since "$t1") s" ||
        fail "$1" "job $id: await exit $rc ($(tail -1 "$W/logs/await_$id.err")), $(state "$id")"
}

conf "$W/d1.conf" 0 3
start_daemon d1 "$W/d1.conf" || { fail "the daemon starts" "see $W/d1.log"; finish; exit 1; }
export ZKPIPE_SERVER="$URL"
for _ in $(seq 1 300); do grep -q "key 'spin': circuit" "$W/d1.log" && break; sleep 0.1; done
grep -q "key 'spin': circuit .*ready" "$W/d1.log" && pass "the looping circuit is compiled and loaded" ||
    fail "the looping circuit is compiled and loaded" "$(grep "spin" "$W/d1.log" | tail -2)"

# ---- cancel: the worker comes back
id="$(submit_mode 1)"
if [ -n "$id" ] && await_state "$id" running; then
    sleep 0.3
    t1=$(date +%s.%N)
    [ "$(http DELETE "/v1/jobs/$id")" = 200 ] && pass "job $id (a loop) cancelled while it runs" || fail "cancel job $id" "$(head -c 200 "$W/body")"
    proves "after the cancel, the only worker proves the next job"
    expect_eq "the cancelled job stays cancelled" "$(state "$id")" cancelled
else
    fail "a looping job runs" "$(state "${id:-?}")"
fi

# ---- SIGTERM with a job that loops and no time limit
id="$(submit_mode 1)"
left="$id" # given back to the queue: the next start runs it again
if [ -n "$id" ] && await_state "$id" running; then
    pid="$DPID"
    kill -TERM "$pid"
    t1=$(date +%s.%N)
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done # 10 s at most
    took="$(secs_since "$t1")"
    if kill -0 "$pid" 2>/dev/null; then
        fail "SIGTERM, shutdown_grace 3, a job that loops: the daemon exits" "still running after $took s"
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    else
        rc=0; wait "$pid" 2>/dev/null || rc=$?
        awk -v s="$took" 'BEGIN { exit !(s <= 4.5) }' && [ "$rc" = 0 ] &&
            pass "SIGTERM, shutdown_grace 3, a job that loops: the daemon exited 0 in $took s" ||
            fail "SIGTERM, shutdown_grace 3: the daemon exits 0 within the grace" "exit $rc after $took s"
    fi
else
    fail "a looping job runs (d2)" "$(state "${id:-?}")"
fi

conf "$W/d2.conf" 2 5
start_daemon d2 "$W/d2.conf" || { fail "the daemon restarts" "see $W/d2.log"; finish; exit 1; }
export ZKPIPE_SERVER="$URL"
for _ in $(seq 1 300); do grep -q "key 'spin': circuit" "$W/d2.log" && break; sleep 0.1; done
[ -n "$left" ] && http DELETE "/v1/jobs/$left" >/dev/null

# ---- the time limit: a recursion without loops fails in ~2 s
t1=$(date +%s.%N)
id="$(submit_mode 2)"
if [ -n "$id" ]; then
    await_state "$id" failed
    took="$(secs_since "$t1")"
    http GET "/v1/jobs/$id" >/dev/null
    msg="$(jget j.error)"
    if [ "$(jget j.state)" = failed ] && grep -q "^partition 0: .*time limit of 2 s" <<<"$msg" &&
        grep -q "job $id failed: partition 0: .*time limit of 2 s" "$W/d2.log" &&
        awk -v s="$took" 'BEGIN { exit !(s >= 1.9 && s < 4.5) }'; then
        pass "witness_time_limit 2: job $id failed after $took s: $msg"
    else
        fail "witness_time_limit 2: job $id fails naming the limit" "after $took s: $(jget j.state): $msg"
    fi
    proves "after the time limit, the worker proves the next job"
else
    fail "a job that recurses is accepted" "$(head -c 200 "$W/body")"
fi
stop_daemon "$DPID"
expect_eq "the daemon exits 0 on SIGTERM (idle)" "$STOP_RC" 0

# ---- SIGTERM during a compile: the compiler is killed, not waited for
printf '#!/bin/sh\nsleep 60\nexec %s "$@"\n' "${CC:-cc}" >"$W/slowcc"
chmod +x "$W/slowcc"
sed -e "s|^data_dir .*|data_dir $W/data3|" "$W/d1.conf" >"$W/d3.conf"
if CC="$W/slowcc" start_daemon d3 "$W/d3.conf"; then
    for _ in $(seq 1 100); do pgrep -f "$W/slowcc" >/dev/null && break; sleep 0.1; done
    pgrep -f "$W/slowcc" >/dev/null || fail "the compiler runs" "no $W/slowcc process"
    stop_daemon "$DPID"
    sleep 0.2
    left="$(pgrep -f "$W/slowcc" | tr '\n' ' ')"
    awk -v s="$STOP_SECS" 'BEGIN { exit !(s <= 4.5) }' && [ "$STOP_RC" = 0 ] && [ -z "$left" ] &&
        pass "SIGTERM during a 60 s compile: the daemon exited 0 in $STOP_SECS s, the compiler killed" ||
        fail "SIGTERM during a compile" "exit $STOP_RC after $STOP_SECS s; compiler processes left: ${left:-none}"
    [ -n "$left" ] && kill -KILL $left 2>/dev/null
else
    fail "the daemon starts with a slow compiler" "see $W/d3.log"
fi

echo "    ($(($(date +%s) - T0)) s)"
finish
