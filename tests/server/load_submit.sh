#!/usr/bin/env bash
# One client of load_crash.sh: submits job N with request id req-N, and
# retries with the same request id while the daemon cannot be reached or
# answers 5xx (zkpipe submit exits 4), e.g. while it is killed and restarted.
# Usage: load_submit.sh ZKPIPE WORKDIR N [OUT]   (the daemon's URL in
# WORKDIR/url, the token in $ZKPIPE_TOKEN). Writes WORKDIR/OUT/N ("ID
# ATTEMPTS"; OUT defaults to accepted) on success, WORKDIR/rejected/N on a
# 4xx; the attempts' stderr goes to clients/N.log. Without OUT, the client
# first sleeps up to 2 s, so that the submissions overlap the proving.
Z="$1"; W="$2"; N="$3"; OUT="${4:-}"
EX="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../examples/merkle" && pwd)"
# job N: bls12381 for one job in four, 1 to 3 partitions, w1/w2 alternating
curve=bn128; [ $((N % 4)) = 3 ] && curve=bls12381
parts=$((1 + N % 3))
ws=()
for ((p = 0; p < parts; p++)); do ws+=("$EX/$curve/w$(( (N + p) % 2 + 1 )).wtns"); done
echo "$curve $(for ((p = 0; p < parts; p++)); do printf '%d ' $(( (N + p) % 2 + 1 )); done)" >"$W/plan/$N"
[ -n "$OUT" ] || sleep "$(( RANDOM % 2 )).$(( RANDOM % 10 ))"
deadline=$(( $(date +%s) + 240 ))
attempt=0
while :; do
    attempt=$((attempt + 1))
    rc=0
    t1=$(date +%s.%N)
    id="$("$Z" submit --server "$(cat "$W/url")" --timeout 60 --request-id "req-$N" --key "merkle_$curve" "${ws[@]}" \
        2>>"$W/clients/$N.log")" || rc=$?
    echo "attempt $attempt from $t1 to $(date +%s.%N): exit $rc, id '$id'" >>"$W/clients/$N.log"
    if [ $rc = 0 ]; then
        echo "$id $attempt" >"$W/${OUT:-accepted}/$N"
        exit 0
    fi
    if [ $rc != 4 ] || [ "$(date +%s)" -ge $deadline ]; then
        echo "exit $rc after $attempt attempts" >"$W/rejected/$N"
        exit 1
    fi
    sleep 0.3
done
