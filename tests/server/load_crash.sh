#!/usr/bin/env bash
# Load and crash test of the proving daemon: NJOBS (200) small jobs (the
# merkle example, 1 to 3 partitions, one in four on bls12381) from 16
# concurrent `zkpipe submit --request-id req-N` clients under a memory budget,
# while /v1/status is sampled every 0.2 s. When a third of the jobs are
# accepted the daemon is killed (kill -9) and restarted on the same data_dir;
# the clients that failed meanwhile retry with the same request ids. Then:
# every request id maps to exactly one job, every job is done exactly once,
# every proof verifies (all with zkpipe verify, ten with snarkjs), tracked
# and reserved bytes stayed within the budget at every sample; and the
# figures: jobs, wall time, proofs per minute, peak RSS against the budget.
#
# Usage: tests/server/load_crash.sh ZKPIPE WORKDIR
#   (environment: LOAD_JOBS, default 200; LOAD_BUDGET, default 32M: the
#   daemon's own 14 MB or so (the budget covers the whole process), then
#   room for the two keys and a few partitions of 2.5-3.5 MB, so that
#   admission waits)
# Prints PASS/FAIL lines and the figures, then "N passed, M failed"; exits 1
# on a failure. Logs: WORKDIR/d1.log and d2.log (the daemon before and after
# the kill), WORKDIR/clients/N.log, WORKDIR/samples.jsonl.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
test_setup "$@"
NJOBS="${LOAD_JOBS:-200}"
BUDGET="${LOAD_BUDGET:-32M}"
CLIENTS=16
TOKEN="load-$RANDOM$RANDOM"
export ZKPIPE_TOKEN="$TOKEN"
SAMPLER=""
XARGS=""
on_exit() {
    touch "$W/stop"
    [ -n "$XARGS" ] && kill "$XARGS" 2>/dev/null
    [ -n "$SAMPLER" ] && wait "$SAMPLER" 2>/dev/null
    cleanup_daemons
}
trap on_exit EXIT
T0=$(date +%s.%N)
secs_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

mkdir -p "$W/keys" "$W/accepted" "$W/resubmit" "$W/rejected" "$W/clients" "$W/plan" "$W/proofs"
ln -s "$EX/bn128/merkle.zkey" "$W/keys/merkle_bn128.zkey"
ln -s "$EX/bls12381/merkle.zkey" "$W/keys/merkle_bls12381.zkey"
check "expected public signals from zkpipe prove" make_expected bn128 bls12381
conf() {  # conf FILE LISTEN
    cat >"$1" <<EOF
listen $2
data_dir $W/data
keys_dir $W/keys
token "$TOKEN"
budget $BUDGET
shutdown_grace 5
EOF
}
conf "$W/d1.conf" 127.0.0.1:0
if ! start_daemon d1 "$W/d1.conf"; then
    fail "daemon starts" "see $W/d1.log"
    finish
    exit 1
fi
D1=$DPID
pass "daemon starts (port $PORT, budget $BUDGET)"
echo "$URL" >"$W/url"
export ZKPIPE_SERVER="$URL"
node "$HERE/sampler.js" run "$W/url" "$TOKEN" "$W/samples.jsonl" "$W/stop" 0.2 &
SAMPLER=$!

# ---- the load, and the crash after a third of the jobs are accepted
T_START=$(date +%s.%N)
seq 1 "$NJOBS" | xargs -P "$CLIENTS" -I{} bash "$HERE/load_submit.sh" "$Z" "$W" {} >"$W/xargs.log" 2>&1 &
XARGS=$!
third=$((NJOBS / 3))
deadline=$(( $(date +%s) + 120 ))
while [ "$(ls "$W/accepted" | wc -l)" -lt "$third" ] && [ "$(date +%s)" -lt $deadline ] && kill -0 "$D1" 2>/dev/null; do
    sleep 0.05
done
ACC_SEEN=$(ls "$W/accepted" | wc -l)
T_KILL=$(date +%s.%N)
kill -KILL "$D1"
wait "$D1" 2>/dev/null
echo "killed the daemon (kill -9) $(secs_since "$T_START") s into the load, after $ACC_SEEN of $NJOBS clients had their job id"
[ "$ACC_SEEN" -ge "$third" ] && pass "a third of the jobs accepted before the kill ($ACC_SEEN)" ||
    fail "a third of the jobs accepted before the kill" "$ACC_SEEN (the daemon died or stalled?)"
# the same port again (clients read the URL from $W/url before each attempt)
conf "$W/d2.conf" "127.0.0.1:$PORT"
if start_daemon d2 "$W/d2.conf" || { conf "$W/d2.conf" 127.0.0.1:0 && start_daemon d2 "$W/d2.conf"; }; then
    echo "$URL" >"$W/url"
    export ZKPIPE_SERVER="$URL"
    T_BACK=$(date +%s.%N)
    D2=$DPID
    pass "restarted on the same data_dir (port $PORT), answering $START_SECS s after its start: $(grep -m1 -i resum "$W/d2.log")"
else
    fail "restart on the same data_dir" "see $W/d2.log"
    finish
    exit 1
fi
wait "$XARGS"
XARGS=""
expect_eq "no client was refused (4xx)" "$(ls "$W/rejected" | wc -l)" 0
for f in "$W"/rejected/*; do [ -e "$f" ] && echo "    req-$(basename "$f"): $(cat "$f"): $(tail -2 "$W/clients/$(basename "$f").log" | head -1)"; done | head -5
echo "all clients answered $(secs_since "$T_START") s into the load"

# ---- wait for every job to end
ended=""
deadline=$(( $(date +%s) + 360 ))
while [ "$(date +%s)" -lt $deadline ]; do
    if [ "$(http GET /v1/status)" = 200 ] && [ "$(jget 'j.jobs.queued + j.jobs.running')" = 0 ]; then ended=1; break; fi
    sleep 0.5
done
T_END=$(date +%s.%N)
[ -n "$ended" ] && pass "every job ended ($(secs_since "$T_START") s after the first submission)" ||
    fail "every job ended within 6 minutes" "$(head -c 300 "$W/body")"
cp "$W/body" "$W/status_end.json"
expect_eq "no job or partition failed" "$(jget 'j.jobs.failed + " " + j.partitions_failed' "$W/status_end.json")" "0 0"
touch "$W/stop"
wait "$SAMPLER"
SAMPLER=""

# ---- idempotency after the crash: every request id again, same job
seq 1 "$NJOBS" | xargs -P "$CLIENTS" -I{} bash "$HERE/load_submit.sh" "$Z" "$W" {} resubmit >>"$W/xargs.log" 2>&1
code="$(http GET "/v1/jobs?limit=1000")"
cp "$W/body" "$W/jobs.json"
expect_eq "GET /v1/jobs?limit=1000" "$code" 200
T_KILL_EPOCH="$T_KILL"
while read -r kind rest; do
    case "$kind" in
    PASS) pass "$rest" ;;
    FAIL) fail "${rest%%: *}" "${rest#*: }" ;;
    FIG) declare "FIG_${rest%% *}=${rest#* }" ;;
    esac
done < <(node "$HERE/load_check.js" "$W" "$NJOBS" "$T_KILL_EPOCH")

# ---- the proofs: await them all, zkpipe verify all, snarkjs a sample of 10
T_A=$(date +%s.%N)
awaited=0
if [ -s "$W/await.list" ]; then
    awaited="$(xargs -P 8 -L 1 sh -c '"$0" await "$3" --out "$1/proofs/$2" --timeout 60 >/dev/null 2>>"$1/logs/await.err" && echo ok' \
        "$Z" "$W" <"$W/await.list" | grep -c ok)"
fi
expect_eq "zkpipe await of every job" "$awaited" "$NJOBS"
: >"$W/verify.list"; : >"$W/public.list"
for f in "$W"/plan/*; do
    n=$(basename "$f"); read -r curve ws <"$f"; p=0
    for w in $ws; do
        echo "$EX/$curve/vk.json $W/proofs/$n/public_$p.json $W/proofs/$n/proof_$p.json" >>"$W/verify.list"
        echo "$W/proofs/$n/public_$p.json $W/expected/${curve}_w$w.json" >>"$W/public.list"
        p=$((p + 1))
    done
done
total=$(wc -l <"$W/verify.list")
verified="$(xargs -P 2 -L 1 "$Z" verify <"$W/verify.list" 2>>"$W/logs/verify.err" | grep -c '^OK')"
expect_eq "zkpipe verify: every proof valid" "$verified/$total" "$total/$total"
check "every proof's public signals are its witness's" node "$JS" same-many "$W/public.list"
sample_ok=0
while read -r vk pub proof; do
    snarkjs_ok "$vk" "$pub" "$proof" >>"$W/logs/snarkjs_sample.log" 2>&1 && sample_ok=$((sample_ok + 1))
done < <(shuf -n 10 "$W/verify.list")
expect_eq "snarkjs verifies a random sample of 10 proofs" "$sample_ok" 10
echo "fetched and verified the proofs in $(secs_since "$T_A") s"

# ---- memory: tracked and reserved never above the budget
S="$(node "$HERE/sampler.js" summary "$W/samples.jsonl")"
echo "$S" >"$W/samples_summary.json"
sj() { node "$JS" get "$1" "$W/samples_summary.json"; }
expect_eq "status sampled every 0.2 s ($(sj j.answered) answers, $(sj j.errors) while the daemon was down)" "$(sj 'j.answered > 50')" true
expect_eq "tracked and reserved <= buffer_budget (< budget) at every sample" "$(sj j.over_budget)" 0
[ "$(sj j.over_budget)" = 0 ] || echo "    e.g. $(sj 'JSON.stringify(j.over_examples)')"
expect_eq "the budget is $BUDGET" "$(sj 'j.budgets.join()')" "$(jget j.budget "$W/status_end.json")"

stop_daemon "$D2" TERM
expect_eq "SIGTERM: exit status 0 ($STOP_SECS s)" "$STOP_RC" 0

# ---- the figures
mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
wall="$(awk -v a="$T_START" -v b="$T_END" 'BEGIN { printf "%.1f", b - a }')"
echo "figures:"
echo "  jobs: ${FIG_jobs:-?} (${FIG_partitions:-?} partitions, 1-3 per job, a quarter on bls12381) from $CLIENTS clients"
echo "  wall time: $wall s from the first submission to the last job done (kill -9 and restart included);" \
    "$(awk -v p="${FIG_partitions:-0}" -v w="$wall" 'BEGIN { printf "%.0f", (w > 0 ? 60 * p / w : 0) }') proofs/min"
echo "  memory: budget $(mb "$(jget j.budget "$W/status_end.json")") MB; peak tracked $(mb "$(sj j.max_peak_tracked)") MB," \
    "peak reserved (sampled) $(mb "$(sj j.max_reserved)") MB; peak RSS $(mb "$(sj j.max_peak_rss)") MB" \
    "(sampled max $(mb "$(sj j.max_rss)") MB); up to $(sj j.max_admission_waiting) partitions waited for admission"
echo "  crash: kill -9 after ${FIG_accepted_before_kill:-?} jobs were committed (${FIG_done_before_kill:-?} done);" \
    "back in $(awk -v a="$T_KILL" -v b="$T_BACK" 'BEGIN { printf "%.1f", b - a }') s;" \
    "${FIG_clients_retried:-?} clients retried, ${FIG_retries_answered_with_a_job_committed_before_the_kill:-?} of them" \
    "answered with the job their lost request had made"
echo "load_crash.sh: $(secs_since "$T0") s"
finish
