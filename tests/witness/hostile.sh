#!/usr/bin/env bash
# A hostile circuit's wasm at the edges a user sees (issue 31, item 1):
# tests/witness/hostile/liar.wat answers getFieldNumLen32 with 8 and then
# 64. `zkpipe wtns calculate` on it fails with one line, exit 3 (before:
# SIGSEGV, a return to address 0), and a daemon with it beside a key in
# keys_dir starts, says why that circuit cannot be used, and proves
# another key's job (before: it died at start). The rest of the hostile
# answers are tests/test_witness_hostile.c's and fuzz/fuzz_glue.c's.
# Usage: hostile.sh ZKPIPE WORKDIR
set -uo pipefail
# shellcheck source=../server/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../server/lib.sh" # start_daemon, pass, fail
for t in wat2wasm wasm2c; do
    command -v "$t" >/dev/null || { echo "hostile.sh: skipped: no $t (apt-get install wabt)"; exit 77; }
done
test_setup "$@"
MK="$EX/bn128"
export ZKPIPE_CACHE="$W/cache"

wat2wasm "$ROOT/tests/witness/hostile/liar.wat" -o "$W/liar.wasm" || { fail "wat2wasm liar" "failed"; exit 1; }
echo '{}' >"$W/in.json"
"$Z" wtns calculate "$W/liar.wasm" "$W/in.json" "$W/out.wtns" >"$W/out" 2>"$W/err"
rc=$?
if [ "$rc" = 3 ] && [ "$(wc -l <"$W/err")" = 1 ] && grep -q "broke circom's ABI during getRawPrime: getFieldNumLen32 answered 64 after 8" "$W/err" &&
    [ ! -e "$W/out.wtns" ]; then
    pass "wtns calculate: exit 3, $(cat "$W/err")"
else
    fail "wtns calculate refuses the liar in one line" "exit $rc, $(head -3 "$W/err")"
fi

if "$Z" serve --help >/dev/null 2>&1 && command -v curl >/dev/null; then
    trap cleanup_daemons EXIT
    mkdir -p "$W/keys"
    ln -s "$MK/merkle.zkey" "$W/keys/merkle.zkey"
    ln -s "$MK/merkle.zkey" "$W/keys/liar.zkey"
    cp "$W/liar.wasm" "$W/keys/liar.wasm"
    TOKEN="hostile-$RANDOM"
    write_conf "$W/d.conf" "$W/data" "keys_dir $W/keys" "token \"$TOKEN\"" "budget 256M" "shutdown_grace 2"
    if start_daemon d "$W/d.conf"; then
        for _ in $(seq 1 300); do grep -q "key 'liar': " "$W/d.log" && break; sleep 0.1; done
        export ZKPIPE_SERVER="$URL" ZKPIPE_TOKEN="$TOKEN"
        "$Z" submit --key merkle --wait 120 --out "$W/proofs" "$MK/w1.wtns" >"$W/out" 2>"$W/err"
        rc=$?
        if kill -0 "$DPID" 2>/dev/null && grep -q "key 'liar': its circuit .* cannot be used: .*broke circom's ABI" "$W/d.log" &&
            [ "$rc" = 0 ] && [ -s "$W/proofs/proof_0.json" ]; then
            pass "the daemon with the liar in keys_dir: up, $(grep -o "key 'liar': its circuit.*" "$W/d.log" | head -1 | cut -c1-160), merkle proved"
        else
            fail "the daemon with the liar in keys_dir serves" "alive $(kill -0 "$DPID" 2>/dev/null && echo yes || echo no), submit exit $rc, $(tail -3 "$W/d.log")"
        fi
        stop_daemon "$DPID"
        [ "$STOP_RC" = 0 ] && pass "the daemon stops cleanly" || fail "the daemon stops cleanly" "exit $STOP_RC"
    else
        fail "the daemon with the liar in keys_dir starts" "$(tail -3 "$W/d.log")"
    fi
fi

finish
