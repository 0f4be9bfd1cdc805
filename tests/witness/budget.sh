#!/usr/bin/env bash
# The circuit's own memory stays in the budget (issue 31, item 8): under
# `zkpipe run --budget`, a witness calculator's linear memory may not grow
# past what its reservation leaves it (the partition fails naming the size
# it asked for), and reading a partition's input.json (its text, jansson's
# tree, the values) is reserved before it is taken. The process's peak RSS
# (as the kernel counts it, /usr/bin/time) stays within the budget.
#
# The circuit is tests/witness/hostile/grower.wat: its witness is that of
# examples/merkle/bn128/w1.wtns (so the merkle key proves it), and each
# input value is a number of MiB by which it grows its memory and writes
# every page of it. Before the fix: 1,000 MiB of growth under --budget 128M
# peaked at ~1 GB, and 4,000,000 input values under --budget 64M at 289 MB;
# the daemon, at 64M, at 512 MB.
# Usage: budget.sh ZKPIPE WORKDIR
set -uo pipefail
# shellcheck source=../server/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../server/lib.sh" # start_daemon, pass, fail
for t in wat2wasm wasm2c; do
    command -v "$t" >/dev/null || { echo "budget.sh: skipped: no $t (apt-get install wabt)"; exit 77; }
done
[ -x /usr/bin/time ] || { echo "budget.sh: skipped: no /usr/bin/time"; exit 77; }
test_setup "$@"
BN="$EX/bn128"

# The grower, its witness the .wtns file's bytes at 65536.
T="$ROOT/tests/witness/hostile/grower.wat"
{
    sed '/;;DATA;;/,$d' "$T"
    printf '  (data (i32.const 65536) "'
    od -An -v -tx1 "$BN/w1.wtns" | tr -d ' \n' | sed 's/../\\&/g'
    printf '")\n'
    sed '1,/;;DATA;;/d' "$T"
} >"$W/grower.wat"
wat2wasm "$W/grower.wat" -o "$W/grower.wasm" || { fail "wat2wasm grower" "failed"; exit 1; }
echo '{"mb": 0}' >"$W/in0.json"
echo '{"mb": 1000}' >"$W/in1000.json"
echo '{"mb": 20}' >"$W/in20.json"
{ printf '{"mb": 0, "x": ['; yes '0,' | head -n 3999999 | tr -d '\n'; printf '0]}'; } >"$W/in4m.json"

# Compiled once, outside the measured runs (the compiler is a child whose
# peak RSS /usr/bin/time would report).
C="$W/cache"
if "$Z" wtns calculate "$W/grower.wasm" "$W/in0.json" "$W/w.wtns" --cache "$C" 2>"$W/err" &&
    cmp -s "$W/w.wtns" "$BN/w1.wtns"; then
    pass "the grower computes merkle's w1.wtns"
else
    fail "the grower computes merkle's w1.wtns" "$(head -3 "$W/err")"
    finish; exit 1
fi

# measure NAME BUDGET INPUT: runs zkpipe run, sets rc, rss (KB), err.
measure() {
    local name="$1" budget="$2" input="$3"
    rm -f "$C"/*.witgen # each run reserves from scratch, not from the last run's figure
    /usr/bin/time -f "%M" -o "$W/rss" "$Z" run --quiet --key "$BN/merkle.zkey" --wasm "$W/grower.wasm" \
        --input "$input" --out "$W/out-$name" --budget "$budget" --cache "$C" >"$W/out" 2>"$W/err"
    rc=$?
    rss="$(tail -1 "$W/rss")"
    err="$(head -3 "$W/err")"
}

# 1,000 MiB of growth under 128M: refused at the limit, the size named.
measure grow1000 128M "$W/in1000.json"
if [ "$rc" != 0 ] && grep -qE "memory would grow to [0-9]+ bytes during setInputSignal, past its limit of [0-9]+ bytes" "$W/err" &&
    [ "$rss" -le $((128 * 1024)) ]; then
    pass "1000 MiB of growth under --budget 128M: refused, peak RSS $rss KB ($err)"
else
    fail "1000 MiB of growth under --budget 128M refused within it" "exit $rc, peak RSS $rss KB, $err"
fi

# 20 MiB under 128M: proved, within the budget.
measure grow20 128M "$W/in20.json"
if [ "$rc" = 0 ] && [ -s "$W/out-grow20/proof_0.json" ] && [ "$rss" -le $((128 * 1024)) ] &&
    grep -qE "witgen 2[0-9]\." "$W/out"; then
    pass "20 MiB of growth under --budget 128M: proved, peak RSS $rss KB"
else
    fail "20 MiB of growth under --budget 128M proved within it" "exit $rc, peak RSS $rss KB, $err $(grep witgen "$W/out")"
fi

# 4,000,000 input values (8 MB of text) under 64M: refused before the
# parse, the figures named.
measure values 64M "$W/in4m.json"
if [ "$rc" != 0 ] && grep -qE "in4m.json: reading it takes [0-9]+ bytes" "$W/err" && [ "$rss" -le $((64 * 1024)) ]; then
    pass "4,000,000 input values under --budget 64M: refused, peak RSS $rss KB ($err)"
else
    fail "4,000,000 input values under --budget 64M refused within it" "exit $rc, peak RSS $rss KB, $err"
fi

# The daemon, at --budget 64M, merkle's key with the grower beside it:
# 1000 MiB of growth fails that job, 20 MiB proves, and the daemon's peak
# RSS (VmHWM) stays within the budget (before: 512 MB).
if "$Z" serve --help >/dev/null 2>&1 && command -v curl >/dev/null; then
    trap cleanup_daemons EXIT
    mkdir -p "$W/keys"
    ln -s "$BN/merkle.zkey" "$W/keys/merkle.zkey"
    cp "$W/grower.wasm" "$W/keys/merkle.wasm"
    TOKEN="budget-$RANDOM"
    write_conf "$W/d.conf" "$W/data" "keys_dir $W/keys" "token \"$TOKEN\"" "budget 64M" "shutdown_grace 2"
    rm -f "$C"/*.witgen
    if ZKPIPE_CACHE="$C" start_daemon d "$W/d.conf"; then
        for _ in $(seq 1 300); do grep -q "key 'merkle': circuit" "$W/d.log" && break; sleep 0.1; done
        export ZKPIPE_SERVER="$URL" ZKPIPE_TOKEN="$TOKEN"
        "$Z" submit --key merkle --inputs "$W/in1000.json" --wait 120 --out "$W/d1000" >"$W/out" 2>"$W/err"
        rc1=$?
        "$Z" submit --key merkle --inputs "$W/in20.json" --wait 120 --out "$W/d20" >>"$W/out" 2>>"$W/err"
        rc2=$?
        hwm="$(awk '/VmHWM/ { print $2 }' "/proc/$DPID/status")"
        if [ "$rc1" = 3 ] && grep -q "memory would grow to [0-9]* bytes" "$W/err" && [ "$rc2" = 0 ] &&
            [ -s "$W/d20/proof_0.json" ] && [ "${hwm:-999999}" -le $((64 * 1024)) ]; then
            pass "the daemon at 64M: 1000 MiB of growth failed its job, 20 MiB proved, peak RSS $hwm KB"
        else
            fail "the daemon at 64M within its budget" "exits $rc1 $rc2, peak RSS $hwm KB, $(head -3 "$W/err")"
        fi
        stop_daemon "$DPID"
    else
        fail "the daemon starts" "$(tail -3 "$W/d.log")"
    fi
fi

finish
