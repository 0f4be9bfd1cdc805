#!/usr/bin/env bash
# A fleet whose members hold different files under one key id (issue 31,
# item 5; docs/fleet.md "Keys are pinned"): two daemons on one PostgreSQL
# queue, "a" with the example's bn128 key and "b" with another setup of
# the same circuit (same size, other toxic waste), both as key id "bn".
#   1. jobs sent to a, a killed with -9 at once: b never claims them (its
#      key's digest is not the one they were pinned to at submission);
#      b's /v1/fleet and /metrics show the mismatch; a started again
#      finishes them, and every proof verifies under the submitter's key
#      (zkpipe verify for all, snarkjs for a sample); nothing was proved
#      by b;
#   2. jobs sent to b are proved by b, under b's key, and verify under it;
#   3. b's key file replaced by a's (renamed over it) while b has its own loaded:
#      b evicts the stale key before it claims a's jobs, and every proof it
#      records verifies under a's key.
# Usage: tests/server/fleet_trust.sh ZKPIPE WORKDIR
# Prints PASS/FAIL lines, then "N passed, M failed"; exits 1 on a failure.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$HERE/fleet_lib.sh"
test_setup "$@"
LEASE=1
GRACE=1
fleet_pg_start

mkdir -p "$W/keys_a" "$W/keys_b" "$W/spool" "$W/out"
cp "$EX/bn128/merkle.zkey" "$W/keys_a/bn.zkey"
VK_A="$EX/bn128/vk.json"
VK_B="$W/vk_b.json"
if ! "$Z" setup --quiet "$EX/bn128/merkle.r1cs" "$W/keys_b/bn.zkey" >"$W/logs/setup.log" 2>&1 ||
    ! "$Z" export-vk "$W/keys_b/bn.zkey" "$VK_B" >>"$W/logs/setup.log" 2>&1; then
    fail "a second key of the same circuit" "$(tail -2 "$W/logs/setup.log")"
    finish
    exit 1
fi
DIGEST_A="$(sha256sum <"$W/keys_a/bn.zkey" | cut -d' ' -f1)"
DIGEST_B="$(sha256sum <"$W/keys_b/bn.zkey" | cut -d' ' -f1)"
pass "two keys of one circuit under id bn: a ${DIGEST_A:0:12}, b ${DIGEST_B:0:12} ($(stat -c %s "$W/keys_b/bn.zkey") bytes each)"

fleet_start a "$W/keys_a" || { fail "daemon a starts" "see $W/a.log"; finish; exit 1; }
fleet_start b "$W/keys_b" || { fail "daemon b starts" "see $W/b.log"; finish; exit 1; }
pass "daemons a and b start on one store, each with its own bn.zkey"

# ---- 1. a's jobs, a killed at once: b must not take them over
P=8
ids=()
for n in 1 2 3 4 5 6; do ids+=("$(fleet_submit a bn $P "ta-$n")"); done
stop_daemon "${DPID_OF[a]}" KILL
list="$(IFS=,; echo "${ids[*]}")"
left="$(sql "SELECT count(*) FROM partitions WHERE job_id IN ($list) AND state <> 2")"
echo "fleet_trust: a killed with $left of $((6 * P)) partitions of its jobs not done"
sleep $((LEASE + 3)) # a's leases expire; b has had every chance to claim
expect_eq "1: b claimed none of the jobs pinned to a's key (its claims)" "$(metric b zkpipe_claims_total)" "0"
expect_eq "1: no partition of a's jobs is b's" \
    "$(sql "SELECT count(*) FROM partitions WHERE job_id IN ($list) AND owner = 'b'")" "0"
mism=""
for _ in $(seq 1 100); do # b counts them every 5 s
    mism="$(metric b 'zkpipe_key_mismatch_jobs{key="bn"}')"
    [ -n "$mism" ] && break
    sleep 0.1
done
if [ "$left" -gt 0 ]; then
    if [ -n "$mism" ] && [ "$mism" -ge 1 ]; then pass "1: b's /metrics counts the jobs it cannot take ($mism)"
    else fail "1: b's /metrics counts the jobs it cannot take" "zkpipe_key_mismatch_jobs{key=\"bn\"} '$mism'"; fi
    code="$(URL=${URL_OF[b]} http GET /v1/fleet)"
    got="$(jget "(() => { const m = (j.key_mismatch || []).find(x => x.key === 'bn'); \
        const me = (j.daemons || []).find(d => d.id === 'b'); \
        return [m && m.digest, m && m.pinned.includes('$DIGEST_A'), m && m.jobs >= 1, \
                me && me.keys && me.keys.bn && me.keys.bn.zkey].join(); })()")"
    expect_eq "1: b's /v1/fleet names the mismatch (its digest, the pinned one) and its key digest" \
        "$code $got" "200 $DIGEST_B,true,true,$DIGEST_B"
    grep -q "key 'bn'.*pinned" "$W/b.log" && pass "1: b's log says why it leaves them" ||
        fail "1: b's log says why it leaves them" "$(grep -i bn "$W/b.log" | tail -2)"
else
    fail "1: a was killed with work left" "all $((6 * P)) partitions were done before the kill"
fi
fleet_start a "$W/keys_a" || fail "1: a starts again" "see $W/a.log"
bad=0
for id in "${ids[@]}"; do
    fleet_await a "$id" "$W/out/j$id" && verify_dir "$VK_A" "$W/out/j$id" $P || bad=$((bad + 1))
done
expect_eq "1: every job sent to a is done and every proof verifies under a's key" "$bad" "0"
check "1: snarkjs accepts a proof of a's job under a's key" snarkjs_ok "$VK_A" \
    "$W/out/j${ids[5]}/public_7.json" "$W/out/j${ids[5]}/proof_7.json"
expect_eq "1: b proved none of them" \
    "$(sql "SELECT count(*) FROM partitions WHERE job_id IN ($list) AND owner = 'b'")" "0"
expect_eq "1: the jobs carry a's key digest" \
    "$(sql "SELECT DISTINCT key_digest FROM jobs WHERE id IN ($list)")" "$DIGEST_A"

# ---- 2. b's own jobs: proved by b, under b's key
idb=()
for n in 1 2; do idb+=("$(fleet_submit b bn 4 "tb-$n")"); done
bad=0
for id in "${idb[@]}"; do
    fleet_await b "$id" "$W/out/j$id" && verify_dir "$VK_B" "$W/out/j$id" 4 || bad=$((bad + 1))
done
expect_eq "2: the jobs sent to b verify under b's key" "$bad" "0"
check "2: snarkjs accepts b's proof under b's key" snarkjs_ok "$VK_B" "$W/out/j${idb[0]}/public_0.json" \
    "$W/out/j${idb[0]}/proof_0.json"
expect_eq "2: a proved none of b's jobs" \
    "$(sql "SELECT count(*) FROM partitions WHERE job_id IN ($(IFS=,; echo "${idb[*]}")) AND owner <> 'b'")" "0"

# ---- 3. b's key file replaced by a's while b has its own loaded
stop_daemon "${DPID_OF[a]}" KILL
ids3=()
for n in 1 2 3; do ids3+=("$(fleet_submit b bn 2 "tc-$n")"); done # b's own key loaded
for id in "${ids3[@]}"; do fleet_await b "$id" "$W/out/j$id" >/dev/null 2>&1; done
fleet_start a "$W/keys_a" || fail "3: a starts again" "see $W/a.log"
ids4=()
for n in 1 2 3 4; do ids4+=("$(fleet_submit a bn 4 "td-$n")"); done
stop_daemon "${DPID_OF[a]}" KILL
# replaced as an operator does (a new file renamed over the old): b's
# engine still has the old one mapped
cp "$W/keys_a/bn.zkey" "$W/keys_b/bn.zkey.new" && mv "$W/keys_b/bn.zkey.new" "$W/keys_b/bn.zkey"
bad=0
for id in "${ids4[@]}"; do
    fleet_await b "$id" "$W/out/j$id" 60 && verify_dir "$VK_A" "$W/out/j$id" 4 || bad=$((bad + 1))
done
expect_eq "3: with a's bytes in its file, b finishes a's jobs and every proof verifies under a's key" "$bad" "0"

stop_daemon "${DPID_OF[b]}"
expect_eq "b exits 0 on SIGTERM" "$STOP_RC" "0"
finish
