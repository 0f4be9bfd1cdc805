#!/usr/bin/env bash
# Rows that would keep a job running for ever, and records that cannot be
# written (issue 31, item 9; docs/fleet.md "Damaged rows"), on a real
# PostgreSQL store:
#   1. with the daemon stopped, a queued partition of a job is given a
#      claim by a daemon that does not exist with an infinite lease, and
#      another is marked done without a proof: at its start the daemon
#      repairs both and the job is done, every proof verified;
#   2. the same while the daemon runs (and a claim of its own node with a
#      lease of ten years): its repair pass finds them within seconds;
#   3. a job whose records the database refuses (a trigger): after
#      degraded_after seconds /v1/status says "degraded", naming the job;
#      once the records go through, "ok" again and the job is done.
# Usage: tests/server/fleet_repair.sh ZKPIPE WORKDIR
# Prints PASS/FAIL lines, then "N passed, M failed"; exits 1 on a failure.
# FLEET_WAIT: seconds a job may take once its rows are repaired (120).
# A row left unrepaired holds its job for ever (an infinite lease, a ten-year
# one, a done row that never gets a proof), so any finite wait tells; the
# wait itself is mostly proving: job 2's 24 proofs took 16.6 s under ASan on
# an idle 2-core machine and more than 20 s beside another ASan test in CI.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$HERE/fleet_lib.sh"
test_setup "$@"
WAIT="${FLEET_WAIT:-120}"
LEASE=1
GRACE=0
fleet_pg_start

mkdir -p "$W/keys" "$W/spool" "$W/out"
ln -s "$EX/bn128/merkle.zkey" "$W/keys/bn.zkey"
VK="$EX/bn128/vk.json"
start() { # start [LINE...]: daemon d, its config's further LINEs
    if fleet_start d "$W/keys" "$@"; then return 0; fi
    fail "the daemon starts" "see $W/d.log"
    finish
    exit 1
}
submit() { fleet_submit d bn "$1" "$2"; } # submit PARTS RID

# damage JOB WHAT: one queued partition of JOB (the last) becomes WHAT:
#   ghost: claimed by node 'ghost' (no such daemon), lease infinite
#   unproved: done without a proof
#   decade: claimed by node d (this daemon, which does not hold it) for ten years
# prints its index, or nothing when none was queued
damage() {
    local set
    case $2 in
    ghost) set="state = 1, owner = 'ghost', lease_until = 'infinity', fence = nextval('zkpipe_fence')" ;;
    unproved) set="state = 2, proof = NULL, public = NULL" ;;
    decade) set="state = 1, owner = 'd', lease_until = now() + interval '10 years', fence = nextval('zkpipe_fence')" ;;
    esac
    sql "UPDATE partitions SET $set WHERE (job_id, idx) = (SELECT job_id, idx FROM partitions WHERE job_id = $1
         AND state = 0 ORDER BY idx DESC LIMIT 1 FOR UPDATE) RETURNING idx"
}

# ---- 1. damaged while the daemon is stopped: repaired at its start
start
P=12
j1="$(submit $P r1)"
stop_daemon "$DPID" # shutdown_grace 0: what it held goes back to the queue
g1="$(damage "$j1" ghost)"
u1="$(damage "$j1" unproved)"
if [ -z "$g1" ] || [ -z "$u1" ]; then
    fail "1: two queued partitions of job $j1 to damage" "the daemon finished $P partitions before it stopped"
else
    pass "1: job $j1: partition $g1 claimed by a ghost with an infinite lease, $u1 done without a proof"
fi
T0=$(date +%s.%N)
start
if fleet_await d "$j1" "$W/out/j1" "$WAIT" && verify_dir "$VK" "$W/out/j1" $P; then
    pass "1: the daemon started repairs the rows; the job is done in $(awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s, every proof verified"
else
    fail "1: the job is done within $WAIT s of the daemon's start" "$(URL=$URL http GET "/v1/jobs/$j1") $(head -c 300 "$W/body")"
fi
[ -n "$g1" ] && check "1: snarkjs accepts the proof of the partition the ghost held" snarkjs_ok "$VK" \
    "$W/out/j1/public_$g1.json" "$W/out/j1/proof_$g1.json"
grep -q "ghost" "$W/d.log" && pass "1: the log names the repaired claim's node" ||
    fail "1: the log names the repaired claim's node" "$(tail -3 "$W/d.log")"

# ---- 2. damaged while it runs: its repair pass
j2="$(submit 24 r2)" # damaged at once: the last ones are claimed last
g2="$(damage "$j2" ghost)"
u2="$(damage "$j2" unproved)"
y2="$(damage "$j2" decade)"
expect_eq "2: three queued partitions of job $j2 damaged while the daemon runs" \
    "$([ -n "$g2" ] && [ -n "$u2" ] && [ -n "$y2" ] && echo yes)" "yes"
T0=$(date +%s.%N)
if fleet_await d "$j2" "$W/out/j2" "$WAIT" && verify_dir "$VK" "$W/out/j2" 24; then
    pass "2: rows damaged under a running daemon (ghost $g2, unproved $u2, ten-year lease $y2) repaired: done in $(awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s, verified"
else
    fail "2: the job is done within $WAIT s" "$(URL=$URL http GET "/v1/jobs/$j2") $(head -c 300 "$W/body")"
fi
expect_eq "2: no claim left with a lease past a day" \
    "$(sql "SELECT count(*) FROM partitions WHERE state = 1 AND lease_until > now() + interval '1 day'")" "0"
stop_daemon "$DPID"

# ---- 3. records refused for longer than degraded_after
start "degraded_after 2"
code="$(http GET /v1/status)"
expect_eq "3: /v1/status says ok" "$code $(jget j.status)" "200 ok"
sql "CREATE FUNCTION refuse_proofs() RETURNS trigger LANGUAGE plpgsql AS \$\$ BEGIN
     IF NEW.proof IS NOT NULL THEN RAISE EXCEPTION 'injected: the disk is full'; END IF; RETURN NEW; END \$\$;
     CREATE TRIGGER refuse_proofs BEFORE UPDATE ON partitions FOR EACH ROW EXECUTE FUNCTION refuse_proofs()"
j3="$(submit 2 r3)"
# degraded 2 s after the first refused record, which waits on a proof
# (seconds under a sanitizer on a loaded machine): polled, not slept
deadline=$(($(date +%s) + 60))
until [ "$(http GET /v1/status) $(jget j.status)" = "200 degraded" ] || [ "$(date +%s)" -ge $deadline ]; do
    sleep 0.2
done
code="$(http GET /v1/status)"
expect_eq "3: records refused for 2 s and more: /v1/status says degraded, naming job $j3" \
    "$code $(jget "[j.status, (j.degraded || []).some(r => r.includes('job $j3') && /injected/.test(r))].join()")" \
    "200 degraded,true"
sql "DROP TRIGGER refuse_proofs ON partitions"
if fleet_await d "$j3" "$W/out/j3" 40 && verify_dir "$VK" "$W/out/j3" 2; then pass "3: the records go through: job done"
else fail "3: the records go through: job done" "$(http GET "/v1/jobs/$j3")"; fi
deadline=$(($(date +%s) + 40))
while [ "$(http GET /v1/status) $(jget j.status)" != "200 ok" ] && [ "$(date +%s)" -lt $deadline ]; do sleep 0.2; done
expect_eq "3: /v1/status says ok again" "$(http GET /v1/status) $(jget j.status)" "200 ok"
expect_eq "3: the job is recorded done in the store" "$(sql "SELECT state, done FROM jobs WHERE id = $j3")" "2|2"
stop_daemon "$DPID"
expect_eq "the daemon exits 0 on SIGTERM" "$STOP_RC" "0"
finish
