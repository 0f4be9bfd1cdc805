#!/usr/bin/env bash
# The engine proves partitions larger than its budget (issue 32, item 3):
# for a synthetic bn128 2^16 key and a bls12381 2^14 one
# (zkpipe-bench-circuit, keys from zkpipe setup):
# - zkpipe run with a budget below one partition in memory (key, matrices
#   and buffers, as its refusal of a smaller budget says) and above the
#   streamed minimum proves four witnesses, two prove workers at once: the
#   key's points stream through windows (class stream above 0, no matrices),
#   snarkjs accepts every proof, and the process's peak RSS (GNU time) stays
#   within the budget;
# - at the minimum the refusal names (rounded up to 0.5 MiB) it proves too;
# - a budget below the minimum is refused, naming the minimum and what a
#   streamed partition needs;
# - the daemon with such a budget (bn128 2^16) proves a job of that key:
#   /v1/keys says it is streamed, /metrics has the stream class with a peak
#   above 0, the proofs verify (snarkjs), and the daemon's peak RSS stays
#   within its budget.
# Usage: tests/cli/run_stream.sh ZKPIPE ZKPIPE-BENCH-CIRCUIT WORKDIR
set -uo pipefail
# shellcheck source=../server/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../server/lib.sh" # pass, fail, finish, start_daemon, http, jget
GEN="$(abs_bin "$2")"
test_setup "$1" "$3"
trap cleanup_daemons EXIT
TIME=/usr/bin/time
if [ ! -x "$TIME" ]; then
    echo "GNU time (/usr/bin/time) is missing: skipped"
    exit 77
fi
SEED=$(( (RANDOM << 16) | RANDOM ))
echo "seed $SEED"
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }

# a size as messages write it ("264 KiB", "12.3 MiB", "1.5 GiB") and its
# value in MiB; empty when there is none
SIZE_RE='\([0-9.]* [KMG]iB\)'
in_mib() { [ -n "$1" ] && awk -v v="${1% *}" -v u="${1#* }" 'BEGIN { printf "%.3f", v * (u == "KiB" ? 1 / 1024 : u == "GiB" ? 1024 : 1) }'; }

# figures NAME ERRFILE: sets NEED (the least budget, bytes, rounded up to
# 0.5 MiB) and INMEM (key + matrices + buffers + the process's own: one
# partition in memory) from a refusal's message
figures() {
    local msg need key mat buf own
    msg="$(cat "$2")"
    need="$(in_mib "$(sed -n "s/.*it needs $SIZE_RE.*/\1/p" <<<"$msg")")"
    key="$(in_mib "$(sed -n "s/.*in memory: key $SIZE_RE.*/\1/p" <<<"$msg")")"
    mat="$(in_mib "$(sed -n "s/.*, matrices $SIZE_RE.*/\1/p" <<<"$msg")")"
    buf="$(in_mib "$(sed -n "s/.*witness + a\/b\/c + MSM $SIZE_RE.*/\1/p" <<<"$msg")")"
    own="$(in_mib "$(sed -n "s/.*the process's own $SIZE_RE.*/\1/p" <<<"$msg")")"
    if [ -z "$need" ] || [ -z "$key" ] || [ -z "$mat" ] || [ -z "$buf" ] || [ -z "$own" ] ||
        ! grep -q "streamed from the key file, at the least [0-9.]* [KMG]iB" <<<"$msg"; then
        fail "$1: the refusal names the minimum, in memory and streamed" "$msg"
        return 1
    fi
    pass "$1: refused, naming the minimum: $msg"
    NEED=$(awk -v n="$need" 'BEGIN { printf "%d", (int(n * 2) + 2) * 524288 }')
    INMEM=$(awk -v a="$key" -v b="$mat" -v c="$buf" -v d="$own" 'BEGIN { printf "%d", (a + b + c + d) * 1048576 }')
}

# run_ok NAME D BUDGET: zkpipe run of four witnesses within BUDGET bytes,
# streamed, every proof accepted by snarkjs
run_ok() {
    local name="$1" d="$2" b="$3" i ok=0
    rm -rf "$d/o"
    if ! "$TIME" -f "%M" -o "$d/rss" "$Z" run --key "$d/c.zkey" --witness "$d/c.wtns" "$d/c.wtns" "$d/c.wtns" \
        "$d/c.wtns" --out "$d/o" --budget "$b" --prove-workers 2 --threads 1 --quiet >"$d/out" 2>"$d/err"; then
        fail "$name: proved" "$(head -3 "$d/err")"
        return
    fi
    local rss=$(($(tail -1 "$d/rss") * 1024)) classes
    classes="$(grep 'peak tracked by class' "$d/out" | sed 's/^ *//')"
    if [ "$rss" -le "$b" ]; then
        pass "$name: 4 proofs, peak RSS $(mib "$rss") <= budget $(mib "$b")"
    else
        fail "$name: peak RSS within the budget" "$(mib "$rss") > $(mib "$b")"
    fi
    if grep -qE ' stream [1-9]' <<<"$classes" && grep -qE ' matrices 0\.0 ' <<<"$classes" &&
        grep -q "the key streamed from its file" "$d/out"; then
        pass "$name: streamed ($(grep -o 'a [0-9.]* MB window per proof' "$d/out"); $classes)"
    else
        fail "$name: streamed (class stream above 0, no matrices)" "$classes"
    fi
    for i in 0 1 2 3; do
        snarkjs_ok "$d/vk.json" "$d/o/public_$i.json" "$d/o/proof_$i.json" >"$d/v$i" 2>&1 && ok=$((ok + 1))
    done
    expect_eq "$name: snarkjs accepts every proof" "$ok" 4
}

for spec in bn128:16 bls12381:14; do
    curve="${spec%%:*}"
    k="${spec#*:}"
    d="$W/$curve-$k"
    t="$curve 2^$k"
    mkdir -p "$d"
    "$GEN" --curve "$curve" --log "$k" --public 2 --seed "$SEED" "$d/c.r1cs" "$d/c.wtns" >/dev/null 2>&1 &&
        "$Z" setup --quiet "$d/c.r1cs" "$d/c.zkey" >"$d/out" 2>&1 && "$Z" export-vk "$d/c.zkey" "$d/vk.json" ||
        { fail "$t: circuit and key" "$(tail -2 "$d/out")"; continue; }
    # a budget too small even streamed, above the process's own 8 MiB (a
    # budget below that is refused before any figure): its refusal gives
    # the figures
    if "$Z" run --key "$d/c.zkey" --witness "$d/c.wtns" --out "$d/o" --budget 10M --prove-workers 2 --threads 1 \
        --quiet >"$d/out" 2>"$d/err"; then
        fail "$t: 10 MiB refused" "it proved"
        continue
    fi
    figures "$t: 10 MiB" "$d/err" || continue
    echo "$t: one partition in memory $(mib "$INMEM"), the least $(mib "$NEED")"
    if [ "$((NEED + (4 << 20)))" -ge "$INMEM" ]; then
        fail "$t: streamed needs less than in memory" "least $(mib "$NEED"), in memory $(mib "$INMEM")"
        continue
    fi
    # between the two: two streamed partitions at once, or one
    mid=$(((NEED + INMEM) / 2))
    run_ok "$t, budget between the minimum and in memory" "$d" "$mid"
    run_ok "$t, budget at the minimum" "$d" "$NEED"
    below=$((NEED - (3 << 20)))
    if "$Z" run --key "$d/c.zkey" --witness "$d/c.wtns" --out "$d/o2" --budget "$below" --quiet >"$d/out" \
        2>"$d/err"; then
        fail "$t: a budget below the minimum is refused" "it proved"
    elif grep -q "it needs [0-9.]* MiB" "$d/err" && grep -q "streamed from the key file" "$d/err" && [ ! -e "$d/o2/proof_0.json" ]; then
        pass "$t: $(mib "$below") (below the minimum) refused, naming it"
    else
        fail "$t: a budget below the minimum is refused naming it" "$(head -2 "$d/err")"
    fi
done

# ---- the daemon: a job of a key larger than its budget
d="$W/bn128-16"
if [ -s "$d/c.zkey" ]; then
    mkdir -p "$W/keys"
    ln -sf "$d/c.zkey" "$W/keys/big.zkey"
    # the figures of bn128 2^16 (the first spec): recomputed from a refusal
    "$Z" run --key "$d/c.zkey" --witness "$d/c.wtns" --out "$d/o" --budget 10M --quiet >"$d/out" 2>"$d/err"
    figures "daemon's key" "$d/err"
    # the daemon's own memory is larger than zkpipe run's: a margin
    budget=$(((NEED + INMEM) / 2 + (8 << 20)))
    write_conf "$W/d.conf" "$W/data" "keys_dir $W/keys" "budget $budget" "max_request 64M"
    if start_daemon d "$W/d.conf"; then
        code="$(http GET /v1/keys)"
        expect_eq "daemon (budget $(mib "$budget")): /v1/keys says the key is streamed" \
            "$code $(jget 'j.keys.find(k => k.id == "big").streamed')" "200 true"
        jobs_body "$W/job.json" big "" -- "$d/c.wtns" "$d/c.wtns"
        code="$(http POST /v1/jobs -H "Content-Type: application/json" --data-binary "@$W/job.json")"
        id="$(jget j.id)"
        expect_eq "daemon: a job of the key is accepted" "$code" 201
        if ZKPIPE_SERVER="$URL" "$Z" await "$id" --out "$W/out" --timeout 300 >"$W/logs/await.log" 2>&1; then
            check "daemon: partition 0 verifies (snarkjs)" snarkjs_ok "$d/vk.json" "$W/out/public_0.json" "$W/out/proof_0.json"
            check "daemon: partition 1 verifies (snarkjs)" snarkjs_ok "$d/vk.json" "$W/out/public_1.json" "$W/out/proof_1.json"
        else
            fail "daemon: the job is done" "$(tail -2 "$W/logs/await.log")"
        fi
        http GET /metrics >/dev/null
        peak="$(sed -n 's/^zkpipe_buffer_peak_bytes{class="stream"} \([0-9]*\)$/\1/p' "$W/body")"
        [ -n "$peak" ] && [ "$peak" -gt 0 ] && pass "daemon: /metrics has the stream class (peak $(mib "$peak"))" ||
            fail "daemon: /metrics has the stream class with a peak above 0" "$(grep 'class="stream"' "$W/body")"
        code="$(http GET /v1/status)"
        expect_eq "daemon: /v1/status has the stream class" "$code $(jget 'j.classes.stream.peak > 0')" "200 true"
        rss="$(jget j.peak_rss)"
        [ -n "$rss" ] && [ "$rss" -le "$budget" ] && pass "daemon: peak RSS $(mib "$rss") <= budget $(mib "$budget")" ||
            fail "daemon: peak RSS within the budget" "$rss > $budget"
        stop_daemon "$DPID"
    else
        fail "the daemon starts" "$(tail -3 "$W/d.log")"
    fi
fi
finish
