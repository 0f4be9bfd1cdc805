#!/usr/bin/env bash
# End-to-end test of the proving daemon (docs/daemon.md): one `zkpipe serve`
# with both curves' example keys (ids merkle_bn128, merkle_bls12381), a token
# and a small max_request; jobs submitted through curl (JSON + base64) and
# through `zkpipe submit` (uploaded, --path inside witness_dir, over the unix
# socket); every proof checked by zkpipe and snarkjs and its public signals
# against `zkpipe prove`'s; job timings, /v1/status, /metrics, keys,
# cancellation, idempotent request ids, the documented error answers, SIGTERM
# and the resumption of an unfinished job at the next start.
#
# Usage: tests/server/e2e.sh ZKPIPE WORKDIR
# Prints PASS/FAIL lines, then "N passed, M failed"; exits 1 on a failure.
# Logs: WORKDIR/logs/ (one per check), WORKDIR/d1.log, d2.log (the daemons).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
test_setup "$@"
trap cleanup_daemons EXIT
T0=$(date +%s)
TOKEN="e2e-$RANDOM$RANDOM"
GRACE=10
BN="$EX/bn128"
BLS="$EX/bls12381"

# ---- setup: keys, witness_dir (and a symlink escaping it), expected publics
mkdir -p "$W/keys" "$W/wit/bn128" "$W/wit/bls12381" "$W/outside" "$W/out"
ln -s "$BN/merkle.zkey" "$W/keys/merkle_bn128.zkey"
ln -s "$BLS/merkle.zkey" "$W/keys/merkle_bls12381.zkey"
cp "$BN/w1.wtns" "$BN/w2.wtns" "$W/wit/bn128/"
cp "$BLS/w1.wtns" "$BLS/w2.wtns" "$W/wit/bls12381/"
cp "$BN/w1.wtns" "$W/outside/w1.wtns"
ln -s ../outside/w1.wtns "$W/wit/escape.wtns"
check "expected public signals from zkpipe prove" make_expected bn128 bls12381

cat >"$W/daemon.conf" <<EOF
# e2e.sh's daemon
listen 127.0.0.1:0
unix_socket $W/zk.sock
data_dir $W/data
keys_dir $W/keys
witness_dir $W/wit
token "$TOKEN"
budget 512M
max_request 1M
shutdown_grace $GRACE
EOF
if ! start_daemon d1 "$W/daemon.conf"; then
    fail "daemon starts" "see $W/d1.log"
    finish
    exit 1
fi
pass "daemon starts (port $PORT)"
D1=$DPID
export ZKPIPE_SERVER="$URL" ZKPIPE_TOKEN="$TOKEN"
CT=(-H "Content-Type: application/json")

# ---- the keys before any job (docs/daemon.md: every key with its curve, wires, ...)
code="$(http GET /v1/keys)"
missing="$(jget '[].concat(...j.keys.map(k => ["id","path","curve","wires","public","domain","loaded","partitions_active","key_bytes","matrices_bytes","partition_bytes","streamed","window_bytes"].filter(f => !(f in k)).map(f => k.id + "." + f))).join(" ")')"
expect_eq "GET /v1/keys before any job: 2 keys with every documented field" "$code $(jget 'j.keys.length') $missing" "200 2 "

# ---- authentication
NOAUTH=1 expect_status "401 without a token" 401 GET /v1/status
TOKEN=wrong expect_status "401 with a wrong token" 401 GET /v1/jobs
NOAUTH=1 expect_status "dashboard / needs no token" 200 GET /
rc=0; "$Z" status --token wrong >/dev/null 2>"$W/logs/status_wrong_token.err" || rc=$?
expect_eq "zkpipe status with a wrong token exits 3" "$rc" 3
grep -q "^zkpipe status: " "$W/logs/status_wrong_token.err" && pass "client error is one line 'zkpipe status: ...'" ||
    fail "client error is one line 'zkpipe status: ...'" "$(cat "$W/logs/status_wrong_token.err")"

# ---- submissions: curl (JSON + base64), zkpipe submit (upload, --path, unix socket)
declare -A CURVE WITS   # job id -> curve, witness numbers in partition order
submit_curl() {  # NAME KEY CURVE WITNESS_NUMBERS...: POST /v1/jobs with uploaded witnesses
    local name="$1" key="$2" c="$3"; shift 3
    local files=() n
    for n in "$@"; do files+=("$EX/$c/w$n.wtns"); done
    jobs_body "$W/req_$name.json" "$key" "" -- "${files[@]}"
    local code id
    code="$(http POST /v1/jobs "${CT[@]}" --data-binary "@$W/req_$name.json")"
    id="$(jget j.id 2>/dev/null)"
    if [ "$code" = 201 ] && [[ "$id" =~ ^[0-9]+$ ]] && [ "$(jget j.partitions)" = "$#" ] &&
        [[ "$(jget j.state)" =~ ^(queued|running)$ ]] && [[ "$(jget j.queue_position)" =~ ^[0-9]+$ ]]; then
        pass "curl POST /v1/jobs $name: 201, job $id, $# partitions, $(jget j.state), queue_position $(jget j.queue_position)"
        CURVE[$id]=$c; WITS[$id]="$*"
    else
        fail "curl POST /v1/jobs $name" "HTTP $code $(head -c 300 "$W/body")"
    fi
}
submit_zk() {  # NAME CURVE "WITNESS_NUMBERS" ZKPIPE_SUBMIT_ARGS...
    local name="$1" c="$2" ws="$3"; shift 3
    local id rc=0
    id="$("$Z" submit "$@" 2>"$W/logs/submit_$name.err")" || rc=$?
    if [ $rc = 0 ] && [[ "$id" =~ ^[0-9]+$ ]]; then
        pass "zkpipe submit $name: job $id"
        CURVE[$id]=$c; WITS[$id]="$ws"
    else
        fail "zkpipe submit $name" "exit $rc, stdout '$id', $(head -c 300 "$W/logs/submit_$name.err")"
    fi
}
submit_curl bn128_upload merkle_bn128 bn128 1 2
submit_curl bls12381_upload merkle_bls12381 bls12381 2 1
submit_zk bn128_upload bn128 "2 1" --key merkle_bn128 "$BN/w2.wtns" "$BN/w1.wtns"
submit_zk bls12381_upload bls12381 "1" --key merkle_bls12381 --priority 3 "$BLS/w1.wtns"
submit_zk bn128_path bn128 "1 2" --key merkle_bn128 --path bn128/w1.wtns bn128/w2.wtns
submit_zk bls12381_path bls12381 "2" --key merkle_bls12381 --path bls12381/w2.wtns
submit_zk bn128_unix_socket bn128 "2" --server "unix:$W/zk.sock" --key merkle_bn128 "$BN/w2.wtns"

# ---- await, verify (zkpipe and snarkjs), public signals
verify_job() {  # ID: the proofs in $W/out/ID against the witnesses submitted
    local id="$1" c="${CURVE[$1]}" i=0 n d="$W/out/$1"
    for n in ${WITS[$1]}; do
        check "job $id/$i ($c w$n): zkpipe verify" "$Z" verify "$EX/$c/vk.json" "$d/public_$i.json" "$d/proof_$i.json"
        check "job $id/$i ($c w$n): snarkjs groth16 verify" snarkjs_ok "$EX/$c/vk.json" "$d/public_$i.json" "$d/proof_$i.json"
        check "job $id/$i ($c w$n): public signals = zkpipe prove's" same_json "$d/public_$i.json" "$W/expected/${c}_w$n.json"
        i=$((i + 1))
    done
    expect_eq "job $id: $i proof files" "$(find "$d" -name 'proof_*.json' | wc -l)" "$i"
}
JOBS=("${!CURVE[@]}")
for id in "${JOBS[@]}"; do
    rc=0
    "$Z" await "$id" --out "$W/out/$id" --timeout 300 >"$W/logs/await_$id.out" 2>&1 || rc=$?
    if [ $rc = 0 ]; then pass "zkpipe await $id"; else fail "zkpipe await $id" "exit $rc $(tail -2 "$W/logs/await_$id.out")"; fi
done
for id in "${JOBS[@]}"; do verify_job "$id"; done
# submit --wait --out in one go
id="$("$Z" submit --key merkle_bls12381 --wait 300 --out "$W/out/wait" "$BLS/w2.wtns" 2>"$W/logs/submit_wait.err")"
rc=$?
if [ $rc = 0 ] && [[ "$id" =~ ^[0-9]+$ ]] && [ -s "$W/out/wait/proof_0.json" ]; then
    pass "zkpipe submit --wait --out: job $id, proofs written"
    check "submit --wait proof: snarkjs groth16 verify" snarkjs_ok "$BLS/vk.json" "$W/out/wait/public_0.json" "$W/out/wait/proof_0.json"
else
    fail "zkpipe submit --wait --out" "exit $rc, stdout '$id' $(tail -2 "$W/logs/submit_wait.err")"
fi

# ---- the job and proof answers
J="${JOBS[0]}"
for id in "${JOBS[@]}"; do [ "$(wc -w <<<"${WITS[$id]}")" -ge 2 ] && J=$id && break; done
NP=$(wc -w <<<"${WITS[$J]}")
if [ "$(http GET "/v1/jobs/$J/proof?wait=5")" = 200 ] && [ "$(jget j.state)" = "done" ] &&
    [ "$(jget 'j.proofs.length')" = "$NP" ] && [ "$(jget 'j.proofs.map(p=>p.partition).join()')" = "$(seq -s, 0 $((NP - 1)))" ] &&
    [ "$(jget 'j.proofs[0].proof.protocol')" = groth16 ] && [ "$(jget 'Array.isArray(j.proofs[0].public)')" = true ]; then
    pass "GET /v1/jobs/$J/proof: done, $NP proofs in partition order"
else
    fail "GET /v1/jobs/$J/proof" "$(head -c 300 "$W/body")"
fi
if [ "$(http GET "/v1/jobs/$J")" = 200 ] && [ "$(jget j.state)" = "done" ] && [ "$(jget j.done)" = "$NP" ] &&
    [ "$(jget j.partitions)" = "$NP" ] && [ "$(jget 'j.timings.length')" = "$NP" ] &&
    [ "$(jget 'j.timings.every(t => t.total > 0 && t.prove > 0 && t.synth >= 0 && t.final >= 0 && "wait_prove" in t && "wait_final" in t && "queued" in t)')" = true ] &&
    [ "$(jget 'typeof j.submitted == "number" && typeof j.finished == "number" && j.finished >= j.submitted')" = true ] &&
    [ "$(jget j.key)" = "merkle_${CURVE[$J]}" ]; then
    pass "GET /v1/jobs/$J: done, $NP/$NP, per-partition timings (prove $(jget 'j.timings[0].prove') s, total $(jget 'j.timings[0].total') s)"
else
    fail "GET /v1/jobs/$J" "$(head -c 400 "$W/body")"
fi
check "zkpipe status JOB shows the state and timings" bash -c "'$Z' status $J | tee /dev/stderr | grep -q 'done' && '$Z' status $J | grep -q prove"
check "zkpipe status JOB --json is the daemon's JSON" bash -c "'$Z' status $J --json >'$W/st.json' && node '$JS' get 'j.id == $J && j.timings.length == $NP || undefined' '$W/st.json'"
if [ "$(http GET "/v1/jobs?limit=50")" = 200 ] &&
    [ "$(jget "[$(IFS=,; echo "${JOBS[*]}")].every(id => j.jobs.some(x => x.id == id))")" = true ]; then
    pass "GET /v1/jobs lists the jobs"
else
    fail "GET /v1/jobs lists the jobs" "$(head -c 300 "$W/body")"
fi
code="$(http GET "/v1/jobs?state=done&limit=1000")"
expect_eq "GET /v1/jobs?state=done: only done jobs" "$code $(jget 'j.jobs.length > 0 && j.jobs.every(x => x.state == "done")')" "200 true"
code="$(http GET "/v1/jobs?limit=2")"
expect_eq "GET /v1/jobs?limit=2: two jobs" "$code $(jget 'j.jobs.length')" "200 2"

# ---- /v1/status, history, /metrics
if [ "$(http GET /v1/status)" = 200 ]; then
    missing="$(jget '["version","uptime","budget","buffer_budget","store","reserved","peak_reserved","tracked","peak_tracked","rss","peak_rss","baseline_rss","classes","stages","admission_waiting","workers","keys_loaded","jobs","proofs","partitions_failed"].filter(k => !(k in j)).concat(["key","matrices","witness","abc","msm"].filter(k => !(j.classes && k in j.classes)).map(k => "classes." + k)).concat(["synth","wait_prove","prove","wait_final","final","dealloc"].filter(k => !(j.stages && k in j.stages)).map(k => "stages." + k)).concat(["queued","running","done","failed","cancelled"].filter(k => !(j.jobs && k in j.jobs)).map(k => "jobs." + k)).join(" ")')"
    expect_eq "GET /v1/status has the documented fields" "$missing" ""
    expect_eq "status: budget 512M, tracked <= budget, rss > 0" \
        "$(jget 'j.budget == 512*1024*1024 && j.buffer_budget < j.budget && j.buffer_budget > j.budget - j.baseline_rss - 64*1024*1024 && j.tracked <= j.buffer_budget && j.reserved <= j.buffer_budget && j.rss > 0 && j.peak_rss >= j.rss && j.store.commit_pending == 0')" true
    expect_eq "status: jobs.done and proofs count what was proved" \
        "$(jget "j.jobs.done >= ${#JOBS[@]} && j.proofs >= ${#JOBS[@]} && Number.isInteger(j.classes.witness.bytes) && Number.isInteger(j.stages.prove.partitions)")" true
    STATUS_PROOFS="$(jget j.proofs)"
else
    fail "GET /v1/status" "$(head -c 300 "$W/body")"
fi
code="$(http GET /v1/status/history)"
expect_eq "GET /v1/status/history: samples with rss, tracked, budget, classes" \
    "$code $(jget 'j.samples.length > 0 && ["t","rss","tracked","reserved","budget","classes"].every(k => k in j.samples[j.samples.length - 1])')" "200 true"
check "zkpipe status (human summary)" bash -c "'$Z' status | tee /dev/stderr | grep -qi budget && '$Z' status | grep -qi rss && '$Z' status | grep -qi jobs"
check "zkpipe status --json parses" bash -c "'$Z' status --json >'$W/status.json' && node '$JS' get 'j.budget' '$W/status.json'"
code="$(http GET /metrics)"
expect_eq "GET /metrics: 200 text/plain" "$code $(grep -ic '^content-type: text/plain' "$W/headers")" "200 1"
for re in 'zkpipe_jobs_total\{outcome="done"\} [0-9]' 'zkpipe_jobs\{state="queued"\}' 'zkpipe_proofs_total [0-9]' \
    'zkpipe_stage_seconds_bucket\{[^}]*stage="prove"[^}]*le="0\.5"' 'zkpipe_stage_seconds_bucket\{[^}]*le="\+Inf"' \
    'zkpipe_stage_seconds_sum\{stage="total"\}' 'zkpipe_stage_seconds_count\{stage="synth"\}' \
    'zkpipe_buffer_bytes\{class="witness"\}' 'zkpipe_buffer_peak_bytes\{class="msm"\}' 'zkpipe_stage_partitions\{stage="prove"\}' \
    'zkpipe_budget_bytes 536870912' 'zkpipe_buffer_budget_bytes' 'zkpipe_baseline_rss_bytes' 'zkpipe_store_commit_pending 0' 'zkpipe_reserved_bytes' 'zkpipe_tracked_bytes' 'zkpipe_rss_bytes' 'zkpipe_peak_rss_bytes' \
    'zkpipe_admission_waiting' 'zkpipe_keys_loaded' 'zkpipe_http_requests_total\{code="201"\}' 'zkpipe_uptime_seconds' \
    '^# TYPE zkpipe_proofs_total counter'; do
    if grep -qE "$re" "$W/body"; then pass "/metrics has /$re/"; else fail "/metrics has /$re/"; fi
done
mp="$(grep -E '^zkpipe_proofs_total ' "$W/body" | awk '{print $2}')"
expect_eq "/metrics zkpipe_proofs_total = /v1/status proofs" "${mp%.*}" "${STATUS_PROOFS:-?}"

# ---- keys
code="$(http GET /v1/keys)"
expect_eq "GET /v1/keys: both keys with curve, wires, public" \
    "$code $(jget 'j.keys.find(k => k.id == "merkle_bn128").curve + " " + j.keys.find(k => k.id == "merkle_bls12381").curve + " " + j.keys.every(k => k.wires > 0 && k.public == 4 && k.domain > 0 && typeof k.loaded == "boolean" && "partition_bytes" in k)')" \
    "200 bn128 bls12381 true"
check "zkpipe keys lists both ids" bash -c "'$Z' keys | tee /dev/stderr | grep -q merkle_bn128 && '$Z' keys list | grep -q merkle_bls12381"
check "zkpipe keys evict merkle_bls12381" "$Z" keys evict merkle_bls12381
code="$(http GET /v1/keys/merkle_bls12381)"
expect_eq "after evict: GET /v1/keys/merkle_bls12381 loaded false" "$code $(jget j.loaded)" "200 false"
check "zkpipe keys load merkle_bls12381 (preload)" "$Z" keys load merkle_bls12381
code="$(http GET /v1/keys/merkle_bls12381)"
expect_eq "after load: loaded true, key_bytes > 0" "$code $(jget 'j.loaded && j.key_bytes > 0')" "200 true"
expect_eq "status counts the loaded keys" "$(http GET /v1/status) $(jget 'j.keys_loaded >= 1')" "200 true"
MSG_RE="no_such_key" expect_status "POST /v1/keys/no_such_key: 404 naming it" 404 POST /v1/keys/no_such_key
rc=0; "$Z" keys load no_such_key 2>"$W/logs/keys_unknown.err" || rc=$?
expect_eq "zkpipe keys load no_such_key exits 3" "$rc" 3

# ---- cancellation: a queued job behind a long one; the running one too
# 400 partitions: long enough (seconds) that the cancel lands while it runs
BLOCK_ARGS=(); for i in $(seq 1 400); do BLOCK_ARGS+=(bls12381/w1.wtns); done
BLOCKER="$("$Z" submit --key merkle_bls12381 --priority 10 --path "${BLOCK_ARGS[@]}" 2>"$W/logs/blocker.err")"
VICTIM="$("$Z" submit --key merkle_bls12381 --priority -10 --path bls12381/w2.wtns bls12381/w2.wtns bls12381/w2.wtns 2>"$W/logs/victim.err")"
if [[ "$BLOCKER" =~ ^[0-9]+$ ]] && [[ "$VICTIM" =~ ^[0-9]+$ ]]; then
    out="$("$Z" cancel "$VICTIM" 2>&1)"; rc=$?
    expect_eq "zkpipe cancel of a queued job" "$rc $out" "0 job $VICTIM: cancelled"
    code="$(http GET "/v1/jobs/$VICTIM")"
    expect_eq "cancelled job: state cancelled, not all partitions done" "$code $(jget 'j.state + " " + (j.done < j.partitions)')" "200 cancelled true"
    MSG_RE="cancel" expect_status "GET proof of a cancelled job: 409" 409 GET "/v1/jobs/$VICTIM/proof"
    expect_eq "  its error.code is cancelled" "$(jget j.error.code)" cancelled
    rc=0; "$Z" await "$VICTIM" --out "$W/out/victim" --timeout 30 2>"$W/logs/await_victim.err" || rc=$?
    expect_eq "zkpipe await of a cancelled job exits 4" "$rc" 4
    # the blocker is running: its key cannot be evicted
    for i in $(seq 1 50); do [ "$(job_state "$BLOCKER")" = "200 running" ] && break; sleep 0.1; done
    MSG_RE="merkle_bls12381" expect_status "DELETE /v1/keys of a key in use: 409" 409 DELETE /v1/keys/merkle_bls12381
    code="$(http DELETE "/v1/jobs/$BLOCKER")"
    expect_eq "DELETE /v1/jobs of a running job: 200, not done yet" "$code $(jget 'j.state != "done"')" "200 true"
    st=""
    for i in $(seq 1 300); do
        http GET "/v1/jobs/$BLOCKER" >/dev/null; st="$(jget j.state)"
        [ "$st" = cancelled ] && break; sleep 0.1
    done
    expect_eq "the running job ends cancelled" "$st" cancelled
    idle=""
    for i in $(seq 1 300); do
        http GET /v1/status >/dev/null
        idle="$(jget '["synth","wait_prove","prove","wait_final","final"].every(s => j.stages[s].partitions == 0) && j.jobs.running == 0 && j.classes.witness.bytes == 0 && j.classes.abc.bytes == 0 && j.classes.msm.bytes == 0')"
        [ "$idle" = true ] && break; sleep 0.1
    done
    expect_eq "after the cancel: no partition in flight, witness/abc/msm buffers freed" "$idle" true
else
    fail "submit the jobs to cancel" "$BLOCKER / $VICTIM $(cat "$W/logs/blocker.err" "$W/logs/victim.err")"
fi
code="$(http DELETE "/v1/jobs/$J")"
expect_eq "DELETE of a done job: 200, still done" "$code $(jget j.state)" "200 done"

# ---- idempotent request ids
RID="e2e-idem-$RANDOM"
jobs_body "$W/req_idem.json" merkle_bn128 "$RID" -- "$BN/w1.wtns"
code1="$(http POST /v1/jobs "${CT[@]}" --data-binary "@$W/req_idem.json")"; cp "$W/body" "$W/idem1.json"
code2="$(http POST /v1/jobs "${CT[@]}" --data-binary "@$W/req_idem.json")"; cp "$W/body" "$W/idem2.json"
id1="$(jget j.id "$W/idem1.json")"; id2="$(jget j.id "$W/idem2.json")"
expect_eq "request_id twice: 201 then 200, same job" "$code1 $code2 $id2" "201 200 $id1"
expect_eq "request_id twice: same id, key, partitions, priority, request_id, submitted" \
    "$(jget '[j.id, j.key, j.partitions, j.priority, j.request_id, j.submitted].join()' "$W/idem2.json")" \
    "$(jget '[j.id, j.key, j.partitions, j.priority, j.request_id, j.submitted].join()' "$W/idem1.json")"
"$Z" await "$id1" --out "$W/out/idem" --timeout 120 >/dev/null 2>&1
code3="$(http POST /v1/jobs "${CT[@]}" --data-binary "@$W/req_idem.json")"; cp "$W/body" "$W/idem3.json"
expect_eq "request_id again once the job is done: 200, same job" "$code3 $(jget j.id "$W/idem3.json")" "200 $id1"
# docs/daemon.md: "the same id again returns the job already made for it (200,
# the job as it is now)"
expect_eq "  and the job as it is now (done)" "$(jget j.state "$W/idem3.json")" "done"
jobs_body "$W/req_idem3.json" merkle_bn128 "$RID" -- "$BN/w1.wtns" "$BN/w2.wtns"
MSG_RE="." expect_status "request_id reused with another witness count: 409" 409 POST /v1/jobs "${CT[@]}" --data-binary "@$W/req_idem3.json"
jobs_body "$W/req_idem4.json" merkle_bls12381 "$RID" -- "$BLS/w1.wtns"
expect_status "request_id reused with another key: 409" 409 POST /v1/jobs "${CT[@]}" --data-binary "@$W/req_idem4.json"
# Same key and count, other witness bytes: the old job's proofs are of the
# old witness, so this is another request (issue 14, item 9).
jobs_body "$W/req_idem5.json" merkle_bn128 "$RID" -- "$BN/w2.wtns"
MSG_RE="other witnesses" expect_status "request_id reused with another witness, same count: 409" 409 POST /v1/jobs "${CT[@]}" --data-binary "@$W/req_idem5.json"
sed 's/^{/{"priority":5,/' "$W/req_idem.json" >"$W/req_idem6.json"
MSG_RE="priority" expect_status "request_id reused with another priority: 409" 409 POST /v1/jobs "${CT[@]}" --data-binary "@$W/req_idem6.json"
a="$("$Z" submit --key merkle_bn128 --request-id "$RID-zk" "$BN/w2.wtns" 2>&1)"
b="$("$Z" submit --key merkle_bn128 --request-id "$RID-zk" "$BN/w2.wtns" 2>&1)"
[[ "$a" =~ ^[0-9]+$ ]] && [ "$a" = "$b" ] && pass "zkpipe submit --request-id twice: same job $a" ||
    fail "zkpipe submit --request-id twice" "'$a' / '$b'"
http GET "/v1/jobs?limit=1000" >/dev/null
expect_eq "one job per request id" "$(jget "j.jobs.filter(x => x.request_id == '$RID').length + ' ' + j.jobs.filter(x => x.request_id == '$RID-zk').length")" "1 1"
CURVE[$id1]=bn128; WITS[$id1]="1"
if "$Z" await "$id1" --out "$W/out/$id1" --timeout 120 >/dev/null 2>&1; then
    check "idempotent job $id1: public signals" same_json "$W/out/$id1/public_0.json" "$W/expected/bn128_w1.json"
else
    fail "await idempotent job $id1"
fi

# ---- error answers
MSG_RE="." expect_status "unknown job: 404" 404 GET /v1/jobs/999999
expect_status "unknown job proof: 404" 404 GET "/v1/jobs/999999/proof?wait=1"
expect_status "cancel of an unknown job: 404" 404 DELETE /v1/jobs/999999
expect_status "job id not a number: 400 or 404" "400 404" GET /v1/jobs/abc
expect_status "unknown path: 404" 404 GET /v1/nothing
expect_status "PUT /v1/jobs: 405" 405 PUT /v1/jobs "${CT[@]}" --data-binary '{}'
rc=0; "$Z" status 999999 2>/dev/null || rc=$?; expect_eq "zkpipe status of an unknown job exits 3" "$rc" 3
rc=0; "$Z" await 999999 --out "$W/out/none" 2>/dev/null || rc=$?; expect_eq "zkpipe await of an unknown job exits 3" "$rc" 3
rc=0; "$Z" cancel 999999 2>/dev/null || rc=$?; expect_eq "zkpipe cancel of an unknown job exits 3" "$rc" 3
post() { local name="$1" want="$2" body="$3"; expect_status "$name" "$want" POST /v1/jobs "${CT[@]}" --data-binary "$body"; }
post "malformed JSON: 400" 400 '{"key": "merkle_bn128", "witnesses": ['
post "body not an object: 400" 400 '[1, 2]'
post "empty body: 400" 400 ''
MSG_RE="key" post "missing key field: 400" 400 '{"witnesses": [{"path": "bn128/w1.wtns"}]}'
post "key not a string: 400" 400 '{"key": 7, "witnesses": [{"path": "bn128/w1.wtns"}]}'
MSG_RE="witness" post "missing witnesses: 400" 400 '{"key": "merkle_bn128"}'
post "empty witnesses: 400" 400 '{"key": "merkle_bn128", "witnesses": []}'
post "witness with neither data nor path: 400" 400 '{"key": "merkle_bn128", "witnesses": [{}]}'
post "witness with both data and path: 400" 400 '{"key": "merkle_bn128", "witnesses": [{"path": "bn128/w1.wtns", "data": "AAAA"}]}'
post "data not base64: 400 or 422" "400 422" '{"key": "merkle_bn128", "witnesses": [{"data": "!!not base64!!"}]}'
post "priority not a number: 400" 400 '{"key": "merkle_bn128", "priority": "high", "witnesses": [{"path": "bn128/w1.wtns"}]}'
post "request_id over 128 chars: 400" 400 "{\"key\": \"merkle_bn128\", \"request_id\": \"$(printf 'x%.0s' $(seq 1 200))\", \"witnesses\": [{\"path\": \"bn128/w1.wtns\"}]}"
MSG_RE="no_such_key" post "unknown key: 404 or 400 naming it" "404 400" '{"key": "no_such_key", "witnesses": [{"path": "bn128/w1.wtns"}]}'
jobs_body "$W/req_curve.json" merkle_bn128 "" -- "$BLS/w1.wtns"
MSG_RE="curve|bls|bn128|bn254|field|prime|witness 0" expect_status "witness of the other curve: 422" 422 POST /v1/jobs "${CT[@]}" --data-binary "@$W/req_curve.json"
jobs_body "$W/req_curve2.json" merkle_bls12381 "" -- "$BN/w1.wtns"
expect_status "bn128 witness for the bls12381 key: 422" 422 POST /v1/jobs "${CT[@]}" --data-binary "@$W/req_curve2.json"
rc=0; "$Z" submit --key merkle_bn128 "$BLS/w1.wtns" >/dev/null 2>"$W/logs/submit_curve.err" || rc=$?
expect_eq "zkpipe submit of the other curve's witness exits 3" "$rc" 3
grep -q "^zkpipe submit: .*(HTTP 422)" "$W/logs/submit_curve.err" && pass "  and prints the daemon's message: $(cat "$W/logs/submit_curve.err")" ||
    fail "zkpipe submit prints the daemon's message" "$(cat "$W/logs/submit_curve.err")"
head -c 1000 "$BN/w1.wtns" >"$W/trunc.wtns"
jobs_body "$W/req_trunc.json" merkle_bn128 "" -- "$W/trunc.wtns"
expect_status "truncated witness: 422" 422 POST /v1/jobs "${CT[@]}" --data-binary "@$W/req_trunc.json"
MSG_RE="\.\.|outside|forbidden|escape" post "path with ..: 403" 403 '{"key": "merkle_bn128", "witnesses": [{"path": "../outside/w1.wtns"}]}'
post "path bn128/../../outside: 403" 403 '{"key": "merkle_bn128", "witnesses": [{"path": "bn128/../../outside/w1.wtns"}]}'
post "path with .. staying inside: 403 (no .. at all)" 403 '{"key": "merkle_bn128", "witnesses": [{"path": "bn128/../bn128/w1.wtns"}]}'
MSG_RE="escape|outside|forbidden|symlink|witness_dir" post "symlink escaping witness_dir: 403" 403 '{"key": "merkle_bn128", "witnesses": [{"path": "escape.wtns"}]}'
post "absolute path outside: 403 or 400" "403 400" '{"key": "merkle_bn128", "witnesses": [{"path": "/etc/passwd"}]}'
rc=0; "$Z" submit --key merkle_bn128 --path ../outside/w1.wtns >/dev/null 2>"$W/logs/submit_dotdot.err" || rc=$?
expect_eq "zkpipe submit --path ../x exits 3" "$rc" 3
big=(); for i in $(seq 1 12); do big+=("$BN/w1.wtns"); done
jobs_body "$W/req_big.json" merkle_bn128 "" -- "${big[@]}"
# curl waits for the daemon's answer to its Expect before it sends the
# body (1 s by default: on a loaded machine it would start sending, and
# the 413's close would cut it off, HTTP 000)
# The daemon answers 413 from the Content-Length, before the body; where
# curl is still sending when it closes, the reset can lose the answer
# (HTTP 000, seen under ASan): then the daemon's own count of 413s says
# whether it refused the request
n413() {
    http GET /metrics >/dev/null
    awk '$1 == "zkpipe_http_requests_total{code=\"413\"}" { print $2 }' "$W/body"
}
before_413="$(n413)"
big_name="body over max_request (1M): 413 ($(($(stat -c %s "$W/req_big.json") / 1024)) KB)"
code="$(http POST /v1/jobs "${CT[@]}" -H "Expect: 100-continue" --expect100-timeout 60 --data-binary "@$W/req_big.json")"
if [ "$code" = 413 ] && [ "$(jget j.error.code 2>/dev/null)" = too_large ]; then
    pass "$big_name (HTTP 413 too_large: $(jget j.error.message))"
else
    body="$(head -c 300 "$W/body")"
    after_413="$(n413)"
    if [ "$code" = 000 ] && [ "$after_413" = "$((${before_413:-0} + 1))" ]; then
        pass "$big_name (the daemon answered 413, counted in /metrics; curl lost it to the close while sending)"
    else
        fail "$big_name" "HTTP $code (wanted 413 too_large), 413s counted ${before_413:-0} -> ${after_413:-0}: $body"
    fi
fi
rc=0; "$Z" submit --key merkle_bn128 "${big[@]}" >/dev/null 2>"$W/logs/submit_big.err" || rc=$?
expect_eq "zkpipe submit over max_request exits 3" "$rc" 3
expect_status "the daemon still serves after the errors" 200 GET /v1/status

# ---- SIGTERM: in-flight partitions finish, exit 0 within shutdown_grace; the rest resumes at the next start
# 24 partitions: SIGTERM must find most of them still to prove (each is
# a bls12381 proof: 0.1 s in a release build, 1 s under ASan)
NRES=24
RESUME_ARGS=(); for i in $(seq 1 $NRES); do RESUME_ARGS+=(bls12381/w$((i % 2 + 1)).wtns); done
RESUME="$("$Z" submit --key merkle_bls12381 --path "${RESUME_ARGS[@]}" 2>"$W/logs/resume.err")"
for i in $(seq 1 100); do [ "$(job_state "$RESUME")" = "200 running" ] && break; sleep 0.1; done
res_done="$(http GET "/v1/jobs/$RESUME" >/dev/null; jget j.done)"
t1=$(date +%s.%N)
kill -TERM "$D1"
sleep 0.3
code="$(HTTP_TIMEOUT=3 http POST /v1/jobs "${CT[@]}" --data-binary '{"key": "merkle_bn128", "witnesses": [{"path": "bn128/w1.wtns"}]}')"
if [ "$code" = 503 ] || [ "$code" = 000 ]; then
    pass "POST /v1/jobs during shutdown: $code $( [ "$code" = 503 ] && jget j.error.code)"
else
    fail "POST /v1/jobs during shutdown: 503 (or refused)" "HTTP $code $(head -c 200 "$W/body")"
fi
code="$(HTTP_TIMEOUT=3 http GET /v1/status)"
# docs/daemon.md, Shutdown: "new jobs get 503; reads still answer"
if [ "$code" = 200 ] || [ "$code" = 000 ]; then
    pass "GET /v1/status during shutdown: $code"
else
    fail "GET /v1/status during shutdown: 200 (or refused once stopped), as docs/daemon.md says" "HTTP $code"
fi
rc=0
for i in $(seq 1 $(( (GRACE + 5) * 10 ))); do kill -0 "$D1" 2>/dev/null || break; sleep 0.1; done
wait "$D1" || rc=$?
t2=$(date +%s.%N)
el="$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.1f", b - a }')"
expect_eq "SIGTERM: exit status 0" "$rc" 0
# The grace ends what is admitted; a proving stage under way has no stop
# point and finishes (docs/daemon.md, Shutdown): the bound is the grace,
# one stage of this key as long as the slowest measured below (its proofs'
# timings, taken on this machine under the same load), and 2 s to stop.
sigterm_check() {
    local stage="$1"
    if awk -v e="$el" -v g="$GRACE" -v s="$stage" 'BEGIN { exit !(e <= g + s + 2) }'; then
        pass "SIGTERM: exited in $el s (grace $GRACE s, slowest stage $stage s)"
    else
        fail "SIGTERM: exited within shutdown_grace + one stage + 2 s" "$el s (grace $GRACE s, slowest stage $stage s)"
    fi
}
if start_daemon d2 "$W/daemon.conf"; then
    pass "restart on the same data_dir (port $PORT)"
    export ZKPIPE_SERVER="$URL"
    CURVE[$RESUME]=bls12381; WITS[$RESUME]="$(for i in $(seq 1 $NRES); do printf '%d ' $((i % 2 + 1)); done)"
    rc=0; "$Z" await "$RESUME" --out "$W/out/$RESUME" --timeout 300 >/dev/null 2>"$W/logs/await_resume.err" || rc=$?
    expect_eq "the job cut by SIGTERM ($res_done of $NRES done then) resumes and ends done" "$rc $((res_done < NRES))" "0 1"
    ok=0
    for i in $(seq 0 $((NRES - 1))); do
        n=$(( (i + 1) % 2 + 1 ))
        "$Z" verify "$BLS/vk.json" "$W/out/$RESUME/public_$i.json" "$W/out/$RESUME/proof_$i.json" >/dev/null 2>&1 &&
            same_json "$W/out/$RESUME/public_$i.json" "$W/expected/bls12381_w$n.json" 2>/dev/null && ok=$((ok + 1))
    done
    expect_eq "its $NRES proofs verify, publics in partition order" "$ok" "$NRES"
    check "snarkjs verifies its last proof" snarkjs_ok "$BLS/vk.json" "$W/out/$RESUME/public_$((NRES - 1)).json" "$W/out/$RESUME/proof_$((NRES - 1)).json"
    http GET "/v1/jobs/$RESUME" >/dev/null
    sigterm_check "$(jget 'Math.max(0, ...j.timings.map(t => Math.max(t.synth, t.prove, t.final))).toFixed(2)')"
    code="$(http GET "/v1/jobs/$J/proof")"
    expect_eq "jobs done before the restart keep their proofs" "$code $(jget 'j.proofs.length')" "200 $NP"
    stop_daemon "$DPID" TERM
    expect_eq "idle daemon: SIGTERM exits 0 ($STOP_SECS s)" "$STOP_RC" 0
else
    sigterm_check 0
    fail "restart on the same data_dir" "see $W/d2.log"
fi

echo "e2e.sh: $(( $(date +%s) - T0 )) s"
finish
