#!/usr/bin/env bash
# The daemon's confinement and the client's distrust (issue 14, items 1, 7,
# 11, 13):
# - witness_dir race: a background loop swaps a directory inside witness_dir
#   (holding an invalid witness deep below it) for a symlink to a directory
#   outside (holding a valid, "secret" one at the same path) while a bounded
#   number of requests name it through race/: no request may succeed
#   (201), since only the outside file would make a job;
# - a FIFO inside witness_dir named in a request: an error, promptly;
# - kill -9 with jobs spooled, orphans planted in the spool, restart:
#   orphans gone, live jobs' files kept, every job done, the spool empty;
# - zkpipe status/await/keys/submit/cancel against a fake daemon that lies
#   (tests/server/fake_daemon.js --hostile): never killed by a signal.
# Every loop is bounded in count and time; loopback only.
#
# Usage: tests/server/confine.sh ZKPIPE WORKDIR
# Prints PASS/FAIL lines, then "N passed, M failed"; exits 1 on a failure.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
test_setup "$@"
FAKE_PID=""
SWAP_PID=""
on_exit() {
    cleanup_daemons
    [ -n "$SWAP_PID" ] && kill "$SWAP_PID" 2>/dev/null
    [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null
}
trap on_exit EXIT
TOKEN="confine-$RANDOM"
export ZKPIPE_TOKEN="$TOKEN"
BN="$EX/bn128"

# The race's path is deep, race/d/d/.../x.wtns, the same inside and outside:
# a check that resolves it one component at a time (realpath) and opens it
# after leaves the whole walk below race as the window.
DEEP="$(printf 'd/%.0s' $(seq 1 24))x.wtns"
mkdir -p "$W/keys" "$(dirname "$W/wit/race.d/$DEEP")" "$(dirname "$W/outside/$DEEP")"
ln -s "$BN/merkle.zkey" "$W/keys/merkle.zkey"
cp "$BN/w1.wtns" "$W/wit/ok.wtns"
cp "$BN/w1.wtns" "$W/outside/$DEEP"                 # the secret: valid for the key
head -c 64 "$BN/w1.wtns" >"$W/wit/race.d/$DEEP"     # inside: not a witness (422)
cp "$BN/w1.wtns" "$W/outside/x.wtns"
ln -s ../outside "$W/wit/link"
mkfifo "$W/wit/fifo.wtns"

conf() { # conf FILE DATA_DIR [more lines...]
    write_conf "$1" "$2" \
        "keys_dir $W/keys" "witness_dir $W/wit" "token \"$TOKEN\"" "budget 256M" "shutdown_grace 5" "${@:3}"
}
CT=(-H "Content-Type: application/json")
conf "$W/d1.conf" "$W/data1"
if ! start_daemon d1 "$W/d1.conf"; then
    fail "the daemon starts" "see $W/d1.log"
    finish
    exit 1
fi
export ZKPIPE_SERVER="$URL"

# ---- a path inside works, and is read through the descriptor
id="$("$Z" submit --key merkle --path ok.wtns 2>"$W/logs/ok.err")"
rc=0; [[ "$id" =~ ^[0-9]+$ ]] && "$Z" await "$id" --out "$W/out/ok" --timeout 120 >/dev/null 2>>"$W/logs/ok.err" || rc=$?
if [[ "$id" =~ ^[0-9]+$ ]] && [ $rc = 0 ] &&
    "$Z" verify "$BN/vk.json" "$W/out/ok/public_0.json" "$W/out/ok/proof_0.json" >/dev/null 2>&1; then
    pass "a witness path inside witness_dir proves (job $id)"
else
    fail "a witness path inside witness_dir proves" "$(cat "$W/logs/ok.err")"
fi
MSG_RE="symlink|outside|witness_dir" expect_status "a path through a symlink to outside: 403" 403 \
    POST /v1/jobs "${CT[@]}" --data-binary '{"key": "merkle", "witnesses": [{"path": "link/x.wtns"}]}'
expect_status "an absolute path spelt with witness_dir's prefix is taken" 201 \
    POST /v1/jobs "${CT[@]}" --data-binary "{\"key\": \"merkle\", \"witnesses\": [{\"path\": \"$W/wit/ok.wtns\"}]}"
MSG_RE="relative|\.\." expect_status "an absolute path with '..' out of witness_dir: 403" 403 \
    POST /v1/jobs "${CT[@]}" --data-binary "{\"key\": \"merkle\", \"witnesses\": [{\"path\": \"$W/wit/../outside/x.wtns\"}]}"
MSG_RE="relative" expect_status "an absolute path elsewhere: 403" 403 \
    POST /v1/jobs "${CT[@]}" --data-binary "{\"key\": \"merkle\", \"witnesses\": [{\"path\": \"$W/outside/x.wtns\"}]}"
expect_status "the inside decoy is refused as a witness: 422" 422 \
    POST /v1/jobs "${CT[@]}" --data-binary "{\"key\": \"merkle\", \"witnesses\": [{\"path\": \"race.d/$DEEP\"}]}"

# ---- the race: race/ swaps between race.d (inside) and a symlink out
printf '{"key": "merkle", "witnesses": [{"path": "race/%s"}]}' "$DEEP" >"$W/race.json"
# race/ is exchanged atomically with race.l (a symlink to outside) by a
# small C helper; without a C compiler, by pairs of renames (rarer wins).
mv "$W/wit/race.d" "$W/wit/race"
ln -s ../outside "$W/wit/race.l"
if "${CC:-cc}" -O2 -o "$W/swap" "$HERE/swap.c" 2>"$W/logs/swap_cc.log"; then
    "$W/swap" "$W/wit/race" "$W/wit/race.l" 200000000 40 >"$W/logs/swap.out" 2>&1 &
else
    echo "    (no C compiler: the race swaps by renames)"
    mv "$W/wit/race" "$W/wit/race.d"; rm "$W/wit/race.l"
    node "$HERE/race.js" swap "$W/wit" race ../outside 20000000 40 >"$W/logs/swap.out" 2>&1 &
fi
SWAP_PID=$!
sleep 0.2
node "$HERE/race.js" post "$URL" "$TOKEN" "$W/race.json" "${RACE_REQUESTS:-1500}" 8 30 >"$W/race.out" 2>"$W/logs/race.err"
kill "$SWAP_PID" 2>/dev/null; wait "$SWAP_PID" 2>/dev/null; SWAP_PID=""
codes="$(jget 'JSON.stringify(j.codes)' "$W/race.out" 2>/dev/null)"
escaped="$(jget 'j.ids.length' "$W/race.out" 2>/dev/null)"
echo "    race: answers $codes"
if [ -z "$escaped" ]; then
    fail "witness_dir race" "no result: $(cat "$W/logs/race.err")"
elif [ "$escaped" != 0 ]; then
    fail "witness_dir race" "$escaped requests made a job from the file outside witness_dir (jobs $(jget 'j.ids.join(" ")' "$W/race.out"))"
else
    pass "witness_dir race: no request read the file outside ($codes)"
fi
# the race was really run: both sides of the swap were seen
if [ "$(jget 'j.codes["403"] || 0' "$W/race.out")" -gt 0 ] && [ "$(jget 'j.codes["422"] || 0' "$W/race.out")" -gt 0 ]; then
    pass "the race saw both the directory (422) and the symlink (403)"
else
    fail "the race saw both the directory and the symlink" "$codes"
fi

# ---- a FIFO inside witness_dir: an error within seconds, not a hang
t1=$(date +%s.%N)
code="$(HTTP_TIMEOUT=10 http POST /v1/jobs "${CT[@]}" --data-binary '{"key": "merkle", "witnesses": [{"path": "fifo.wtns"}]}')"
secs="$(awk -v a="$t1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')"
if [[ "$code" =~ ^4[0-9][0-9]$ ]] && [ -n "$(jget j.error.message 2>/dev/null)" ]; then
    pass "a FIFO in witness_dir: HTTP $code in $secs s: $(jget j.error.message)"
else
    fail "a FIFO in witness_dir" "HTTP $code after $secs s"
fi
stop_daemon "$DPID" KILL

# ---- orphans in the spool: kill -9 with jobs spooled, plant, restart
conf "$W/d2.conf" "$W/data2" "synth_workers 1" "threads 1"
if ! start_daemon d2 "$W/d2.conf"; then
    fail "the daemon starts (spool)" "see $W/d2.log"
    finish
    exit 1
fi
export ZKPIPE_SERVER="$URL"
# a blocker first, from witness_dir (nothing spooled) and ahead by
# priority: the uploads queue behind it, so the kill finds them unproved
# however fast a proof is (12 uploads of two partitions each could all
# end before the kill)
block="$(for i in $(seq 1 200); do printf '%s{"path":"ok.wtns"}' "$([ "$i" = 1 ] || echo ,)"; done)"
code="$(http POST /v1/jobs "${CT[@]}" --data-binary "{\"key\": \"merkle\", \"priority\": 10, \"witnesses\": [$block]}")"
expect_eq "a 200-partition blocker from witness_dir: 201" "$code" 201
blocker="$(jget j.id)"
jobs_body "$W/two.json" merkle "" -- "$BN/w1.wtns" "$BN/w1.wtns"
ids=()
for i in $(seq 1 12); do
    code="$(http POST /v1/jobs "${CT[@]}" --data-binary "@$W/two.json")"
    [ "$code" = 201 ] && ids+=("$(jget j.id)")
done
stop_daemon "$DPID" KILL
SP="$W/data2/spool"
live="$(find "$SP" -type f | wc -l)"
expect_eq "12 jobs accepted before kill -9" "${#ids[@]}" 12
if [ "$live" -gt 0 ]; then pass "kill -9 left $live spooled witnesses of unfinished jobs"; else
    fail "kill -9 with jobs spooled" "every job had ended before the kill: nothing to keep"; fi
mkdir -p "$SP/100-999999-deadbeef"
cp "$BN/w1.wtns" "$SP/100-999999-deadbeef/0.wtns"
cp "$BN/w1.wtns" "$SP/stray.wtns"
if ! start_daemon d2b "$W/d2.conf"; then
    fail "the daemon restarts" "see $W/d2b.log"
    finish
    exit 1
fi
export ZKPIPE_SERVER="$URL"
if [ ! -e "$SP/stray.wtns" ] && [ ! -e "$SP/100-999999-deadbeef" ]; then
    pass "the planted orphans are gone at start"
else
    fail "the planted orphans are gone at start" "$(cd "$SP" && ls -d stray.wtns 100-999999-deadbeef 2>/dev/null | tr '\n' ' ')"
fi
if grep -qE "removed [0-9]+ orphaned spool files" "$W/d2b.log"; then
    pass "the sweep is logged: $(grep -oE "removed [0-9]+ orphaned spool files \([0-9]+ bytes\)" "$W/d2b.log")"
else
    fail "the sweep is logged" "$(tail -3 "$W/d2b.log")"
fi
# the blocker has done its part; proving its 200 partitions again would
# only cost minutes under the sanitizers (its spooled files go with it)
out="$("$Z" cancel "$blocker" 2>&1)"
expect_eq "the blocker, restored from the store, is cancelled" "$out" "job $blocker: cancelled"
bad=0
for id in "${ids[@]}"; do
    rc=0; "$Z" await "$id" --out "$W/out/j$id" --timeout 300 >/dev/null 2>"$W/logs/await_$id.err" || rc=$?
    [ $rc = 0 ] || { bad=$((bad + 1)); echo "    job $id: await exit $rc: $(cat "$W/logs/await_$id.err")"; }
done
expect_eq "every job spooled before kill -9 finishes done (its files were kept)" "$bad" 0
left="$(find "$SP" -type f | wc -l)"
expect_eq "the spool is empty once every job is done" "$left" 0
stop_daemon "$DPID"

# ---- the client against a daemon that lies
unset ZKPIPE_TOKEN
for mode in time types missing array huge ctrl text; do
    : >"$W/fake_$mode.log"
    node "$HERE/fake_daemon.js" --port 0 --prefill 1 --hostile "$mode" >"$W/fake_$mode.log" 2>&1 &
    FAKE_PID=$!
    FURL=""
    for _ in $(seq 1 100); do
        FURL="$(grep -oE 'http://127\.0\.0\.1:[0-9]+' "$W/fake_$mode.log" | head -1)"
        [ -n "$FURL" ] && break
        sleep 0.1
    done
    if [ -z "$FURL" ]; then
        fail "fake daemon --hostile $mode starts" "$(cat "$W/fake_$mode.log")"
        kill "$FAKE_PID" 2>/dev/null; wait "$FAKE_PID" 2>/dev/null; FAKE_PID=""
        continue
    fi
    worst=0; what=""
    for cmd in "status" "status 1" "await 1 --out $W/out/fake_$mode --timeout 5" "keys" "keys load k" \
        "submit --key k $BN/w1.wtns" "cancel 1"; do
        rc=0
        # shellcheck disable=SC2086
        timeout 60 "$Z" $cmd --server "$FURL" >"$W/logs/fake_${mode}.out" 2>&1 || rc=$?
        if grep -q $'\e' "$W/logs/fake_${mode}.out"; then rc=200; fi
        if [ $rc -ge 128 ]; then worst=$rc; what="$what [zkpipe $cmd: exit $rc]"; fi
    done
    if [ "$worst" = 0 ]; then
        pass "client commands against a lying daemon ($mode): no signal, no escape sequence printed"
    else
        fail "client commands against a lying daemon ($mode)" "$what (200: an ESC byte was printed)"
    fi
    kill "$FAKE_PID" 2>/dev/null; wait "$FAKE_PID" 2>/dev/null; FAKE_PID=""
done
finish
