#!/usr/bin/env bash
# Jobs given the circuit's inputs (issue 12, part 4): a key with its
# circuit beside it (keys_dir/ID.wasm, and "key ID=PATH wasm=PATH"), the
# daemon compiling it at start, POST /v1/jobs {"inputs": [{...}, ...]}, one
# input.json per partition, random each run: every proof passes snarkjs
# groth16 verify and its public signals are the circuit's (y = x*x + 1).
# A failed assert fails the job with the circuit's message; a key without a
# circuit, a non-object input and both witnesses and inputs are refused; a
# reused request_id with other inputs is 409; kill -9 with input jobs
# accepted and queued, then a restart: every job done, nothing lost. A
# compile never blocks a request (a daemon whose compiler is 6 s slower).
#
# Usage: tests/server/inputs.sh ZKPIPE WORKDIR CACHE
# CACHE: circom's outputs, shared with tests/witness (build/witness-calculate.cache).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
CACHE="${3:?usage: $0 ZKPIPE WORKDIR CACHE}"
test_setup "$1" "$2"
trap cleanup_daemons EXIT
mkdir -p "$CACHE" && CACHE="$(cd "$CACHE" && pwd)"
CIRCOM="$ROOT/node_modules/.bin/circom2"
[ -x "$CIRCOM" ] && [ -x "$SNARKJS" ] || { echo "inputs.sh: skipped: node_modules missing"; exit 77; }
command -v wasm2c >/dev/null || { echo "inputs.sh: skipped: no wasm2c (apt-get install wabt)"; exit 77; }
TOKEN="inputs-$RANDOM"
export ZKPIPE_TOKEN="$TOKEN"
CT=(-H "Content-Type: application/json")
T0=$(date +%s)

# the circuit, as tests/witness/calculate.sh keeps it (circom2 sees only
# files below its working directory: run from the root)
cd "$ROOT"
# shellcheck source=../witness/circuits.sh
. "$ROOT/tests/witness/circuits.sh"
dir="$(build_circuit assert bn128)" || { fail "circom2 of the assert circuit"; finish; exit 1; }
mkdir -p "$W/keys" "$W/other"
"$Z" setup --quiet "$dir/assert.r1cs" "$W/keys/nt.zkey" >/dev/null 2>&1 && "$Z" export-vk "$W/keys/nt.zkey" "$W/vk.json" >/dev/null 2>&1 ||
    { fail "zkpipe setup of the circuit"; finish; exit 1; }
cp "$dir/assert_js/assert.wasm" "$W/keys/nt.wasm"           # keys_dir/ID.wasm beside ID.zkey
cp "$W/keys/nt.zkey" "$W/other/nt2.zkey"                      # the same key by config, with wasm=
ln -s "$EX/bn128/merkle.zkey" "$W/keys/merkle.zkey"         # a key without a circuit
cat >"$W/d.conf" <<CONF
listen 127.0.0.1:0
data_dir $W/data
keys_dir $W/keys
key nt2=$W/other/nt2.zkey wasm=$dir/assert_js/assert.wasm
token "$TOKEN"
budget 256M
shutdown_grace 2
CONF
start_daemon d1 "$W/d.conf" || { fail "the daemon starts" "see $W/d1.log"; finish; exit 1; }
export ZKPIPE_SERVER="$URL"
for _ in $(seq 1 600); do grep -q "key 'nt2': circuit" "$W/d1.log" && grep -q "key 'nt': circuit" "$W/d1.log" && break; sleep 0.2; done
grep -q "key 'nt': circuit .*\(compiled\|ready\)" "$W/d1.log" && grep -q "key 'nt2': circuit" "$W/d1.log" &&
    pass "the daemon compiles its keys' circuits at start: $(grep -m2 "circuit" "$W/d1.log" | tr '\n' ' ')" ||
    fail "the daemon compiles its keys' circuits at start" "$(tail -3 "$W/d1.log")"

# inputs_body FILE KEY [request_id] -- X...: one {"x": X} per partition
inputs_body() {
    local out="$1" key="$2" rid="${3:-}"; shift 3
    [ "${1:-}" = "--" ] && shift
    { printf '{"key":"%s"' "$key"; [ -n "$rid" ] && printf ',"request_id":"%s"' "$rid"
      printf ',"inputs":['; local sep="" x; for x in "$@"; do printf '%s{"x":"%s"}' "$sep" "$x"; sep=","; done; printf ']}'
    } >"$out"
}
# await_check NAME ID X...: the job ends done, each proof verifies (zkpipe
# for all, snarkjs for the first), each public signal is x*x+1
await_check() {
    local name="$1" id="$2" rc=0 i=0 x bad=""; shift 2
    "$Z" await "$id" --out "$W/out/$id" --timeout 180 >/dev/null 2>"$W/logs/await_$id.err" || rc=$?
    [ $rc = 0 ] || { fail "$name: job $id done" "await exit $rc $(cat "$W/logs/await_$id.err")"; return; }
    for x in "$@"; do
        "$Z" verify "$W/vk.json" "$W/out/$id/public_$i.json" "$W/out/$id/proof_$i.json" >/dev/null 2>&1 || bad+=" verify:$i"
        want="[\"$(node -e "console.log((BigInt(process.argv[1]) ** 2n + 1n).toString())" "$x")\"]"
        [ "$(tr -d ' \n' <"$W/out/$id/public_$i.json")" = "$want" ] || bad+=" public:$i"
        i=$((i + 1))
    done
    snarkjs_ok "$W/vk.json" "$W/out/$id/public_0.json" "$W/out/$id/proof_0.json" >/dev/null || bad+=" snarkjs"
    [ -z "$bad" ] && pass "$name: job $id done, $i proofs verify (snarkjs too), public signals x*x+1" || fail "$name" "$bad"
}

X=(); for i in 1 2 3; do X+=("$(( (RANDOM << 15 | RANDOM) % 1000000 + 14 ))"); done
echo "    inputs this run: x = ${X[*]}"
RID="inputs-$RANDOM"
inputs_body "$W/j1.json" nt "$RID" -- "${X[@]}"
code="$(http POST /v1/jobs "${CT[@]}" --data-binary "@$W/j1.json")"
if [ "$code" = 201 ]; then await_check "keys_dir circuit, 3 partitions" "$(jget j.id)" "${X[@]}"; else fail "POST inputs: 201" "HTTP $code $(head -c 300 "$W/body")"; fi
code="$(http POST /v1/jobs "${CT[@]}" --data-binary "@$W/j1.json")"
expect_eq "the same request again: 200" "$code" 200
inputs_body "$W/j1b.json" nt "$RID" -- "${X[0]}" "${X[1]}" 77
MSG_RE="other witnesses" expect_status "request_id reused with other inputs: 409" 409 POST /v1/jobs "${CT[@]}" --data-binary "@$W/j1b.json"
inputs_body "$W/j2.json" nt2 "" -- 20 21
code="$(http POST /v1/jobs "${CT[@]}" --data-binary "@$W/j2.json")"
if [ "$code" = 201 ]; then await_check "config key wasm=, 2 partitions" "$(jget j.id)" 20 21; else fail "POST inputs (nt2): 201" "HTTP $code $(head -c 300 "$W/body")"; fi

# the client: zkpipe submit --inputs FILES, then await
printf '{"x": "%s"}' 41 >"$W/c0.json"; printf '{"x": ["42"]}' >"$W/c1.json"
cid="$("$Z" submit --key nt --inputs "$W/c0.json" "$W/c1.json" 2>"$W/logs/submit_inputs.err")"
if [[ "$cid" =~ ^[0-9]+$ ]]; then await_check "zkpipe submit --inputs" "$cid" 41 42; else fail "zkpipe submit --inputs" "$(cat "$W/logs/submit_inputs.err")"; fi
echo '[1]' >"$W/c2.json"
rc=0; "$Z" submit --key nt --inputs "$W/c2.json" >/dev/null 2>"$W/logs/submit_bad.err" || rc=$?
expect_eq "zkpipe submit --inputs of a non-object: exit 3 ($(cat "$W/logs/submit_bad.err"))" "$rc" 3

# a failed assert: the job fails with the circuit's message
inputs_body "$W/j3.json" nt "" -- 5 13
code="$(http POST /v1/jobs "${CT[@]}" --data-binary "@$W/j3.json")"
if [ "$code" = 201 ]; then
    id="$(jget j.id)"
    "$Z" await "$id" --out "$W/out/$id" --timeout 120 >/dev/null 2>&1
    http GET "/v1/jobs/$id" >/dev/null
    grep -q "Assert Failed" <<<"$(jget j.error)" && [ "$(jget j.state)" = failed ] &&
        pass "an input that fails the circuit's assert: job failed: $(jget j.error)" ||
        fail "a failed assert fails the job with the circuit's message" "$(jget j.state): $(jget j.error)"
else
    fail "POST a failing input: 201" "HTTP $code"
fi
http GET /v1/keys >/dev/null
expect_eq "GET /v1/keys names each key's circuit" \
    "$(jget 'j.keys.filter(k => k.circuit).map(k => k.id).sort().join()')" "nt,nt2"
expect_eq "GET /v1/keys: both circuits ready" \
    "$(jget 'j.keys.filter(k => k.circuit_state === "ready").map(k => k.id).sort().join()')" "nt,nt2"
MSG_RE="no circuit" expect_status "inputs for a key without a circuit: 422" 422 POST /v1/jobs "${CT[@]}" \
    --data-binary '{"key": "merkle", "inputs": [{"x": "1"}]}'
MSG_RE="inputs\[1\]" expect_status "an input that is not an object: 400" 400 POST /v1/jobs "${CT[@]}" \
    --data-binary '{"key": "nt", "inputs": [{"x": "1"}, [1, 2]]}'
MSG_RE="either" expect_status "witnesses and inputs at once: 400" 400 POST /v1/jobs "${CT[@]}" \
    --data-binary '{"key": "nt", "inputs": [{"x": "1"}], "witnesses": [{"path": "a.wtns"}]}'
code="$(http POST /v1/jobs "${CT[@]}" --data-binary '{"key": "nt", "inputs": [{"nope": "1"}]}')"
if [ "$code" = 201 ]; then
    id="$(jget j.id)"; "$Z" await "$id" --out "$W/out/$id" --timeout 60 >/dev/null 2>&1
    http GET "/v1/jobs/$id" >/dev/null
    grep -q "nope" <<<"$(jget j.error)" && pass "an unknown signal: its job fails naming it: $(jget j.error)" ||
        fail "an unknown signal fails its job naming it" "$(jget j.state): $(jget j.error)"
else
    grep -q "nope" <<<"$(jget j.error.message)" && pass "an unknown signal: HTTP $code naming it" ||
        fail "an unknown signal is refused naming it" "HTTP $code $(head -c 300 "$W/body")"
fi

# kill -9 with input jobs accepted and queued: after a restart all are done.
# A 1000-partition blocker goes first (priority 10), so the six queue
# behind it and the kill finds them unproved however fast a proof is (one
# of 200 partitions had ended before the six were posted). Without it all
# six were done at the kill, and the restart tested nothing.
blk=(); for p in $(seq 1 1000); do blk+=("$((p + 7000))"); done
inputs_body "$W/blk.json" nt "" -- "${blk[@]}"
sed -i 's/^{/{"priority":10,/' "$W/blk.json"
code="$(http POST /v1/jobs "${CT[@]}" --data-binary "@$W/blk.json")"
expect_eq "a 1000-partition blocker ahead by priority: 201" "$code" 201
blocker="$(jget j.id)"
ids=(); xs=()
for j in 1 2 3 4 5 6; do
    xj=(); for p in 1 2 3 4; do xj+=("$((j * 100 + p))"); done
    inputs_body "$W/k$j.json" nt "" -- "${xj[@]}"
    code="$(http POST /v1/jobs "${CT[@]}" --data-binary "@$W/k$j.json")"
    [ "$code" = 201 ] && { ids+=("$(jget j.id)"); xs+=("${xj[*]}"); }
done
unproved=0
for id in "${ids[@]}"; do
    http GET "/v1/jobs/$id" >/dev/null
    [ "$(jget j.state)" = done ] || unproved=$((unproved + 1))
done
stop_daemon "$DPID" KILL
expect_eq "6 input jobs accepted, then kill -9" "${#ids[@]}" 6
[ "$unproved" -gt 0 ] && pass "kill -9 with $unproved of the 6 jobs not done" ||
    fail "kill -9 with input jobs unproved" "all 6 were done before the kill: the restart proves nothing"
if start_daemon d2 "$W/d.conf"; then
    export ZKPIPE_SERVER="$URL"
    "$Z" await "$blocker" --out "$W/out/blocker" --timeout 300 >/dev/null 2>"$W/logs/await_blocker.err" &&
        pass "after kill -9 and restart: the blocker done" ||
        fail "after kill -9 and restart: the blocker done" "$(cat "$W/logs/await_blocker.err")"
    for k in "${!ids[@]}"; do
        # shellcheck disable=SC2086
        await_check "after kill -9 and restart" "${ids[$k]}" ${xs[$k]}
    done
    expect_eq "the spool is empty once they are done" "$(find "$W/data/spool" -type f | wc -l)" 0
    stop_daemon "$DPID" TERM
    expect_eq "SIGTERM exits 0" "$STOP_RC" 0
else
    fail "the daemon restarts after kill -9" "see $W/d2.log"
fi

# A compile never blocks a request: a fresh daemon (empty witness-cache)
# whose C compiler takes 6 s longer. An input job posted at once is
# answered at once (201, queued) and waits in the engine; a witness job on
# another key is proved meanwhile; then the circuit is ready and the input
# job's proofs verify.
printf '#!/bin/sh\nsleep 6\nexec %s "$@"\n' "${CC:-cc}" >"$W/slowcc"; chmod +x "$W/slowcc"
sed "s|^data_dir .*|data_dir $W/data3|" "$W/d.conf" >"$W/d3.conf"
if CC="$W/slowcc" start_daemon d3 "$W/d3.conf"; then
    export ZKPIPE_SERVER="$URL"
    inputs_body "$W/j5.json" nt "" -- 31 32
    t1=$(date +%s.%N)
    code="$(http POST /v1/jobs "${CT[@]}" --data-binary "@$W/j5.json")"
    answer_s="$(awk -v a="$t1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')"
    slow_id="$(jget j.id)"
    http GET /v1/keys >/dev/null
    expect_eq "GET /v1/keys during the compile: circuit_state compiling" \
        "$(jget 'j.keys.find(k => k.id === "nt").circuit_state')" compiling
    if [ "$code" = 201 ] && awk -v t="$answer_s" 'BEGIN { exit !(t < 2) }'; then
        pass "an input job during the circuit's compile: 201 in ${answer_s} s, $(jget j.state)"
    else
        fail "an input job during the compile is answered at once" "HTTP $code in ${answer_s} s"
    fi
    wid="$("$Z" submit --key merkle "$EX/bn128/w1.wtns" 2>"$W/logs/submit_w.err")"
    if [[ "$wid" =~ ^[0-9]+$ ]] && "$Z" await "$wid" --out "$W/out/w$wid" --timeout 60 >/dev/null 2>&1; then
        http GET "/v1/jobs/$slow_id" >/dev/null
        st="$(jget j.state)"
        grep -q "key 'nt': circuit .*ready" "$W/d3.log" && compiled=1 || compiled=0
        [ "$st" = queued ] && [ "$compiled" = 0 ] &&
            pass "a witness job is proved while the circuit compiles; the input job waits: $st" ||
            fail "a witness job is proved during the compile" "input job $st, compiled $compiled"
    else
        fail "a witness job during the compile" "$(cat "$W/logs/submit_w.err")"
    fi
    [ -n "$slow_id" ] && await_check "after the compile" "$slow_id" 31 32
    stop_daemon "$DPID" TERM
else
    fail "the daemon starts with a slow compiler" "see $W/d3.log"
fi
echo "inputs.sh: $(( $(date +%s) - T0 )) s"
finish
