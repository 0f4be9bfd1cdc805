#!/usr/bin/env bash
# Witness calculations that never end are stopped (issue 31, item 7), from
# the commands: tests/witness/circuits/loop.wat (circom 2's ABI, built here
# with wat2wasm) loops with no call in it (input 1), recurses with no loop
# in it (2) or loops in getWitness (3); a copy loops in getVersion, which
# runs when the module is opened. With a time limit of 1 s, each of
# `zkpipe wtns calculate --time-limit`, `fullprove --time-limit` and
# `run --witness-time-limit` exits 3 within 2.5 s, naming the limit (and,
# for run, the job and the partition). A module with a start function is
# refused when it is compiled. Before the fix, every one of them ran for
# ever.
#
# Usage: tests/witness/stop.sh ZKPIPE WORKDIR
# Prints PASS/FAIL lines, then "N passed, M failed"; exits 1 on a failure.
set -uo pipefail
# shellcheck source=../server/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../server/lib.sh" # pass, fail, finish
test_setup "$@"
command -v wat2wasm >/dev/null && command -v wasm2c >/dev/null ||
    { echo "stop.sh: skipped: no wat2wasm or wasm2c (apt-get install wabt)"; exit 77; }
export ZKPIPE_CACHE="$W/cache"
KEY="$ROOT/examples/merkle/bn128/merkle.zkey"
T0=$(date +%s)

# stops NAME RE CMD...: CMD exits 3 within 2.5 s, its message matching RE
stops() {
    local name="$1" re="$2" t1 rc=0 took; shift 2
    t1=$(date +%s.%N)
    timeout 20 "$@" >"$W/out.log" 2>"$W/err.log" || rc=$?
    took="$(awk -v a="$t1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')"
    if [ "$rc" = 3 ] && awk -v s="$took" 'BEGIN { exit !(s < 2.5) }' && grep -qE -- "$re" "$W/err.log"; then
        pass "$name: exit 3 in $took s: $(tail -1 "$W/err.log")"
    else
        fail "$name" "exit $rc after $took s: $(tail -1 "$W/err.log")"
    fi
}

wat2wasm "$ROOT/tests/witness/circuits/loop.wat" -o "$W/loop.wasm" || { fail "wat2wasm loop.wat"; exit 1; }
for m in 0 1 2 3; do printf '{"mode": "%s"}\n' "$m" >"$W/in$m.json"; done
# the module works: input 0 gives 1, 0, 0, ... (3108 values: the key's wires)
if "$Z" wtns calculate --time-limit 10 "$W/loop.wasm" "$W/in0.json" "$W/w0.wtns" 2>"$W/err.log" &&
    [ "$(stat -c %s "$W/w0.wtns")" = $((12 + 12 + 40 + 12 + 3108 * 32)) ]; then
    pass "the module computes a witness (input 0)"
else
    fail "the module computes a witness (input 0)" "$(tail -1 "$W/err.log")"
fi

stops "wtns calculate, a loop without calls" "during setInputSignal, at its time limit of 1 s" \
    "$Z" wtns calculate --time-limit 1 "$W/loop.wasm" "$W/in1.json" "$W/w.wtns"
stops "wtns calculate, a recursion without loops" "during setInputSignal, at its time limit of 1 s" \
    "$Z" wtns calculate --time-limit 1 "$W/loop.wasm" "$W/in2.json" "$W/w.wtns"
stops "wtns calculate, a loop in getWitness" "during getWitness, at its time limit of 1 s" \
    "$Z" wtns calculate --time-limit 1 "$W/loop.wasm" "$W/in3.json" "$W/w.wtns"
[ -e "$W/w.wtns" ] && fail "a stopped calculation writes no witness" || pass "a stopped calculation writes no witness"
stops "fullprove" "in2.json: .*stopped during setInputSignal, at its time limit of 1 s" \
    "$Z" fullprove --time-limit 1 "$W/in2.json" "$W/loop.wasm" "$KEY" "$W/proof.json" "$W/public.json"
stops "run, the engine's time limit" "job 1, partition 0: .*in1.json: .*stopped during setInputSignal, at the witness time limit of 1 s" \
    "$Z" run --quiet --key "$KEY" --wasm "$W/loop.wasm" --input "$W/in1.json" --out "$W/run" --witness-time-limit 1

# getVersion never returns: stopped where the module is opened
sed 's/(func (export "getVersion") (result i32) (i32.const 2))/(func (export "getVersion") (result i32) (loop $l (br $l)) (i32.const 2))/' \
    "$ROOT/tests/witness/circuits/loop.wat" >"$W/version.wat"
wat2wasm "$W/version.wat" -o "$W/version.wasm" || fail "wat2wasm version.wat"
"$Z" wtns calculate --time-limit 0.1 "$W/version.wasm" "$W/in0.json" "$W/w.wtns" 2>/dev/null # compiled: not timed
stops "wtns calculate, getVersion loops" "during getVersion, at its time limit of 1 s" \
    "$Z" wtns calculate --time-limit 1 "$W/version.wasm" "$W/in0.json" "$W/w.wtns"
stops "run, getVersion loops (the circuits thread)" "version.wasm: the witness calculator was stopped during getVersion, at the witness time limit of 1 s" \
    "$Z" run --quiet --key "$KEY" --wasm "$W/version.wasm" --input "$W/in0.json" --out "$W/run" --witness-time-limit 1

# a start function runs while the instance is made: refused at compile
sed 's/(func \$recurse /(start $start) (func $start (loop $l (br $l))) (func $recurse /' \
    "$ROOT/tests/witness/circuits/loop.wat" >"$W/start.wat"
wat2wasm "$W/start.wat" -o "$W/start.wasm" || fail "wat2wasm start.wat"
stops "a module with a start function is refused" "start function" \
    "$Z" wtns calculate --time-limit 1 "$W/start.wasm" "$W/in0.json" "$W/w.wtns"

echo "    ($(($(date +%s) - T0)) s)"
finish
