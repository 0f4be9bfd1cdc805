#!/usr/bin/env bash
# Faults around the proving daemon: keys that cannot be read (a dangling
# symlink, a directory; chmod 000 stops nobody when running as root) or are
# corrupt (garbled header, truncated, random bytes): clear 4xx/5xx answers
# naming the key, while the daemon keeps serving the good key. A witness
# path that does not exist (400/404 naming it), a directory, an empty file.
# A full spool: on a 2 MiB tmpfs mounted over data_dir/spool when mount is
# permitted (root), filled up: 507 spool_full, and jobs are accepted again
# once space returns; and always through the daemon's spool_max option.
#
# Usage: tests/server/faults.sh ZKPIPE WORKDIR
# Prints PASS/FAIL lines, then "N passed, M failed"; exits 1 on a failure.
# Logs: WORKDIR/*.log (the daemons), WORKDIR/logs/.
set -uo pipefail
if [ $# -ne 2 ]; then
    echo "usage: $0 ZKPIPE WORKDIR" >&2
    exit 2
fi
Z="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
[ -d "$2/spool_mnt/spool" ] && mountpoint -q "$2/spool_mnt/spool" && umount "$2/spool_mnt/spool"
[ -d "$2/full_mnt" ] && mountpoint -q "$2/full_mnt" && umount "$2/full_mnt"
rm -rf "$2"
mkdir -p "$2/logs"
W="$(cd "$2" && pwd)"
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
MNT="$W/spool_mnt/spool"
MOUNTED=""
MOUNTED_FULL=""
on_exit() {
    cleanup_daemons
    if [ -n "$MOUNTED" ]; then umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null; fi
    if [ -n "$MOUNTED_FULL" ]; then umount "$W/full_mnt" 2>/dev/null || umount -l "$W/full_mnt" 2>/dev/null; fi
}
trap on_exit EXIT
T0=$(date +%s)
TOKEN="faults-$RANDOM"
export ZKPIPE_TOKEN="$TOKEN"
BN="$EX/bn128"
CT=(-H "Content-Type: application/json")
check "expected public signals from zkpipe prove" make_expected bn128

# ---- keys: one good, the others unreadable or corrupt
mkdir -p "$W/keys" "$W/wit/bn128" "$W/wit/adir"
ln -s "$BN/merkle.zkey" "$W/keys/good.zkey"
ln -s "$W/no/such/file.zkey" "$W/keys/dangling.zkey"
mkdir "$W/keys/adir.zkey"
cp "$BN/merkle.zkey" "$W/keys/garbled.zkey"
printf 'XXXX' | dd of="$W/keys/garbled.zkey" bs=1 seek=0 conv=notrunc status=none        # the magic
head -c 300000 "$BN/merkle.zkey" >"$W/keys/truncated.zkey"
cp "$BN/merkle.zkey" "$W/keys/badpoints.zkey"                                              # points off the curve
size=$(stat -c %s "$BN/merkle.zkey")
for off in $((size / 3)) $((size / 2)) $((size * 2 / 3)) $((size - 200)); do
    printf '\377\377\377\377\377\377\377\377' | dd of="$W/keys/badpoints.zkey" bs=1 seek=$off conv=notrunc status=none
done
head -c 65536 /dev/urandom >"$W/keys/random.zkey"
cp "$BN/w1.wtns" "$BN/w2.wtns" "$W/wit/bn128/"
: >"$W/wit/bn128/empty.wtns"

conf() { # conf FILE DATA_DIR [more lines...]
    write_conf "$1" "$2" \
        "keys_dir $W/keys" "witness_dir $W/wit" "token \"$TOKEN\"" "budget 256M" "shutdown_grace 5" "${@:3}"
}
conf "$W/d1.conf" "$W/data1"
if ! start_daemon d1 "$W/d1.conf"; then
    fail "the daemon starts with bad keys in keys_dir" "see $W/d1.log"
    finish
    exit 1
fi
pass "the daemon starts with bad keys in keys_dir (port $PORT)"
export ZKPIPE_SERVER="$URL"
http GET /v1/keys >/dev/null
echo "    GET /v1/keys lists: $(jget 'j.keys.map(k => k.id + (k.error ? " (" + k.error + ")" : "")).join(", ")')"

# await_ok NAME ID: the job ends done and its proof verifies
await_ok() {
    local rc=0
    "$Z" await "$2" --out "$W/out/$2" --timeout 120 >/dev/null 2>"$W/logs/await_$2.err" || rc=$?
    if [ $rc = 0 ] && "$Z" verify "$BN/vk.json" "$W/out/$2/public_0.json" "$W/out/$2/proof_0.json" >/dev/null 2>&1 &&
        same_json "$W/out/$2/public_0.json" "$W/expected/bn128_w1.json" 2>/dev/null; then
        pass "$1: job $2 done, its proof verifies"
    else
        fail "$1" "await exit $rc $(cat "$W/logs/await_$2.err")"
    fi
}
good_job() {  # good_job NAME: the good key still proves
    local id
    id="$("$Z" submit --key good --path bn128/w1.wtns 2>"$W/logs/good.err")"
    if [[ "$id" =~ ^[0-9]+$ ]]; then await_ok "$1" "$id"; else fail "$1" "submit: $(cat "$W/logs/good.err")"; fi
}
good_job "the good key proves"

# a job on a bad key: refused with a 4xx/5xx naming the key; or, if the
# daemon accepts it (it opens keys lazily), the job must fail naming the key
for k in dangling adir garbled truncated random; do
    code="$(http POST /v1/jobs "${CT[@]}" --data-binary "{\"key\": \"$k\", \"witnesses\": [{\"path\": \"bn128/w1.wtns\"}]}")"
    msg="$(jget j.error.message 2>/dev/null)"
    if [[ "$code" =~ ^[45][0-9][0-9]$ ]] && grep -q "$k" <<<"$msg"; then
        pass "job on key $k: HTTP $code $(jget j.error.code): $msg"
    elif [ "$code" = 201 ]; then
        id="$(jget j.id)"
        rc=0; "$Z" await "$id" --out "$W/out/$id" --timeout 120 >/dev/null 2>"$W/logs/await_$k.err" || rc=$?
        http GET "/v1/jobs/$id" >/dev/null
        if [ $rc = 3 ] && [ "$(jget j.state)" = failed ] && grep -q "$k" <<<"$(jget j.error)"; then
            pass "job on key $k: accepted (201), then failed naming it: $(jget j.error)"
        else
            fail "job on key $k" "201, then await exit $rc, state $(jget j.state), error '$(jget j.error 2>/dev/null)'"
        fi
    else
        fail "job on key $k: 4xx/5xx naming the key" "HTTP $code $(head -c 300 "$W/body")"
    fi
    code="$(http POST "/v1/keys/$k")"
    msg="$(jget j.error.message 2>/dev/null)"
    if [[ "$code" =~ ^[45][0-9][0-9]$ ]] && grep -q "$k" <<<"$msg"; then
        pass "preload key $k: HTTP $code $(jget j.error.code): $msg"
    else
        fail "preload key $k: 4xx/5xx naming the key" "HTTP $code $(head -c 300 "$W/body")"
    fi
    expect_status "  the daemon still answers after key $k" 200 GET /v1/status
done
# points off the curve deep inside the key: the daemon may load the key (it
# does not check every point), but no proof may come out of it, and the
# failed job must name the key, not blame the witness
code="$(http POST /v1/jobs "${CT[@]}" --data-binary '{"key": "badpoints", "witnesses": [{"path": "bn128/w1.wtns"}]}')"
if [ "$code" = 201 ]; then
    id="$(jget j.id)"
    rc=0; "$Z" await "$id" --out "$W/out/$id" --timeout 120 >/dev/null 2>"$W/logs/await_badpoints.err" || rc=$?
    http GET "/v1/jobs/$id" >/dev/null
    err="$(jget j.error 2>/dev/null)"
    expect_eq "job on key badpoints (corrupt points): fails, no proof written (await exit 3)" \
        "$rc $(jget j.state) $(ls "$W/out/$id" 2>/dev/null | wc -l)" "3 failed 0"
    if grep -q badpoints <<<"$err"; then pass "  its error names the key: $err"; else fail "  its error names the key" "'$err'"; fi
elif [[ "$code" =~ ^[45][0-9][0-9]$ ]] && grep -q badpoints <<<"$(jget j.error.message)"; then
    pass "job on key badpoints (corrupt points): HTTP $code: $(jget j.error.message)"
else
    fail "job on key badpoints (corrupt points)" "HTTP $code $(head -c 300 "$W/body")"
fi
code="$(http POST /v1/keys/badpoints)"
echo "    preload of key badpoints: HTTP $code $(jget 'j.error ? j.error.message : "loaded " + j.loaded' 2>/dev/null)"
expect_status "  the daemon still answers after key badpoints" 200 GET /v1/status
rc=0; "$Z" keys load garbled 2>"$W/logs/keys_garbled.err" || rc=$?
[ $rc = 3 ] || [ $rc = 4 ] && grep -q "^zkpipe keys: .*garbled" "$W/logs/keys_garbled.err" &&
    pass "zkpipe keys load garbled: exit $rc, $(cat "$W/logs/keys_garbled.err")" ||
    fail "zkpipe keys load garbled: exit 3/4 naming the key" "exit $rc $(cat "$W/logs/keys_garbled.err")"
good_job "the good key still proves after the bad keys"

# ---- witnesses that are not there or not witnesses
MSG_RE="missing\.wtns" expect_status "missing witness path: 400/404 naming it" "400 404" POST /v1/jobs "${CT[@]}" \
    --data-binary '{"key": "good", "witnesses": [{"path": "bn128/w1.wtns"}, {"path": "bn128/missing.wtns"}]}'
MSG_RE="adir" expect_status "a directory as witness path: 4xx naming it" "400 404 422" POST /v1/jobs "${CT[@]}" \
    --data-binary '{"key": "good", "witnesses": [{"path": "adir"}]}'
MSG_RE="empty|witness 0|short|truncated" expect_status "an empty witness file: 422" "422 400" POST /v1/jobs "${CT[@]}" \
    --data-binary '{"key": "good", "witnesses": [{"path": "bn128/empty.wtns"}]}'
rc=0; "$Z" submit --key good --path bn128/missing.wtns >/dev/null 2>"$W/logs/submit_missing.err" || rc=$?
expect_eq "zkpipe submit --path of a missing witness exits 3" "$rc" 3
expect_eq "no job was made by the refused requests" "$(http GET "/v1/jobs?limit=1000") $(jget 'j.jobs.filter(x => x.key == "good").length')" \
    "200 2"
stop_daemon "$DPID" TERM
expect_eq "daemon 1: SIGTERM exits 0" "$STOP_RC" 0

# ---- a full spool
# spool_full_case NAME CONF FILL_CMD FREE_CMD: with the spool filled by
# FILL_CMD (eval'd), a 2-witness upload gets 507 and the daemon keeps
# serving; after FREE_CMD, the same job is accepted and proved.
two_body() { jobs_body "$W/req_two.json" good "" -- "$BN/w1.wtns" "$BN/w1.wtns"; }
spool_full_case() {
    local name="$1" conf="$2" fill="$3" free="$4" data
    data="$(sed -n 's/^data_dir //p' "$conf")"
    if ! start_daemon "$name" "$conf"; then fail "$name: daemon starts" "see $W/$name.log"; return; fi
    export ZKPIPE_SERVER="$URL"
    eval "$fill"
    two_body
    MSG_RE="spool|space|full" expect_status "$name: a job that does not fit the spool: 507" 507 POST /v1/jobs "${CT[@]}" --data-binary "@$W/req_two.json"
    expect_eq "$name:   its error.code is spool_full" "$(jget j.error.code 2>/dev/null)" spool_full
    rc=0; "$Z" submit --key good "$BN/w1.wtns" "$BN/w1.wtns" >/dev/null 2>"$W/logs/${name}_submit.err" || rc=$?
    expect_eq "$name: zkpipe submit gets the 507: exit 4 ($(cat "$W/logs/${name}_submit.err"))" "$rc" 4
    expect_status "$name: the daemon keeps serving while the spool is full" 200 GET /v1/status
    expect_status "$name: ... and still refuses with 507" 507 POST /v1/jobs "${CT[@]}" --data-binary "@$W/req_two.json"
    left="$(find "$data/spool" -type f ! -name 'filler*' | wc -l)"
    expect_eq "$name: the refused jobs left no witness in the spool" "$left" 0
    eval "$free"
    code="$(http POST /v1/jobs "${CT[@]}" --data-binary "@$W/req_two.json")"
    if [ "$code" = 201 ]; then
        local id rc=0
        id="$(jget j.id)"
        "$Z" await "$id" --out "$W/out/$id" --timeout 120 >/dev/null 2>"$W/logs/await_$id.err" || rc=$?
        if [ $rc = 0 ] && "$Z" verify "$BN/vk.json" "$W/out/$id/public_1.json" "$W/out/$id/proof_1.json" >/dev/null 2>&1; then
            pass "$name: once space returns the job is accepted (job $id) and proved"
        else
            fail "$name: the job accepted once space returns is proved" "await exit $rc $(cat "$W/logs/await_$id.err")"
        fi
    else
        fail "$name: once space returns the job is accepted" "HTTP $code $(head -c 300 "$W/body")"
    fi
    stop_daemon "$DPID" TERM
    expect_eq "$name: SIGTERM exits 0" "$STOP_RC" 0
}

mkdir -p "$MNT"
if mount -t tmpfs -o size=2m,mode=0700 tmpfs "$MNT" 2>"$W/logs/mount.err"; then
    MOUNTED=1
    pass "tmpfs of 2 MiB mounted over data_dir/spool"
    conf "$W/d2.conf" "$W/spool_mnt"
    # leave about 120 KB: one witness (97 KB) fits, two do not
    spool_full_case tmpfs "$W/d2.conf" \
        'avail=$(df -k --output=avail "$MNT" | tail -1); dd if=/dev/zero of="$MNT/filler" bs=1k count=$((avail - 120)) status=none; echo "    spool filled: $(df -k --output=avail "$MNT" | tail -1) KB free"' \
        'rm -f "$MNT/filler"'
else
    echo "SKIP the tmpfs spool case: mount -t tmpfs is not permitted here ($(tr '\n' ' ' <"$W/logs/mount.err")); spool_max only"
fi
# spool_max 150K: two witnesses (199 KB) never fit, one (97 KB) does
conf "$W/d3.conf" "$W/data3" "spool_max 150K"
if start_daemon spool_max "$W/d3.conf"; then
    export ZKPIPE_SERVER="$URL"
    two_body
    MSG_RE="spool|space|full" expect_status "spool_max: a job over spool_max: 507" 507 POST /v1/jobs "${CT[@]}" --data-binary "@$W/req_two.json"
    expect_eq "spool_max:   its error.code is spool_full" "$(jget j.error.code 2>/dev/null)" spool_full
    rc=0; "$Z" submit --key good "$BN/w1.wtns" "$BN/w1.wtns" >/dev/null 2>"$W/logs/spool_max_submit.err" || rc=$?
    expect_eq "spool_max: zkpipe submit gets the 507: exit 4 ($(cat "$W/logs/spool_max_submit.err"))" "$rc" 4
    left="$(find "$W/data3/spool" -type f | wc -l)"
    expect_eq "spool_max: the refused jobs left no witness in the spool" "$left" 0
    for i in 1 2; do
        id="$("$Z" submit --key good "$BN/w1.wtns" 2>"$W/logs/spool_max_one.err")"
        if [[ "$id" =~ ^[0-9]+$ ]]; then await_ok "spool_max: a one-witness job fits (round $i)" "$id"
        else fail "spool_max: a one-witness job fits (round $i)" "$(cat "$W/logs/spool_max_one.err")"; fi
    done
    expect_eq "spool_max: the spool is empty once the jobs are done" "$(find "$W/data3/spool" -type f | wc -l)" 0
    stop_daemon "$DPID" TERM
    expect_eq "spool_max: SIGTERM exits 0" "$STOP_RC" 0
else
    fail "spool_max: daemon starts" "see $W/spool_max.log"
fi

# ---- a full disk while a job runs (issue 14, item 10; issue 13: records
# per partition): the partitions in flight are proved but their records
# cannot be written, and no more work is claimed (a claim is a write).
# The records wait, shown in /v1/status and /metrics and counted in the
# job's progress, never lost; once space returns they go in by themselves,
# the job is claimed again and ends, and a restart proves nothing again.
FULL="$W/full_mnt"
mkdir -p "$FULL"
if mount -t tmpfs -o size=32m,mode=0700 tmpfs "$FULL" 2>"$W/logs/mount_full.err"; then
    MOUNTED_FULL=1
    conf "$W/d4.conf" "$FULL"
    if start_daemon diskfull "$W/d4.conf"; then
        export ZKPIPE_SERVER="$URL"
        caught=""
        for parts in 40 80 160; do  # a job long enough to fill the disk while it runs
            wits=(); for ((i = 0; i < parts; i++)); do wits+=(path:bn128/w1.wtns); done
            jobs_body "$W/req_full.json" good "" -- "${wits[@]}"
            code="$(http POST /v1/jobs "${CT[@]}" --data-binary "@$W/req_full.json")"
            [ "$code" = 201 ] || { fail "diskfull: a $parts-partition job is accepted" "HTTP $code $(head -c 300 "$W/body")"; break; }
            FID="$(jget j.id)"
            dd if=/dev/zero of="$FULL/filler" bs=64k status=none 2>/dev/null
            for _ in $(seq 1 300); do
                http GET /v1/status >/dev/null
                [ "$(jget 'j.store.commit_pending > 0')" = true ] && break
                http GET "/v1/jobs/$FID" >/dev/null
                [ "$(jget j.state)" = done ] && break
                sleep 0.1
            done
            http GET /v1/status >/dev/null
            if [ "$(jget 'j.store.commit_pending > 0')" = true ]; then caught=$parts; break; fi
            echo "    a $parts-partition job ended before the disk was full; again, longer"
            rm -f "$FULL/filler"
        done
        if [ -n "$caught" ]; then
            pass "diskfull: job $FID ($caught partitions) running when the disk filled: a record waits"
            expect_eq "diskfull: /v1/status: store.commit_pending 1, jobs.queued 0, commit failures counted" \
                "$(jget '[j.store.commit_pending, j.jobs.queued, j.store.commit_failures > 0].join()')" "1,0,true"
            echo "    last_error: $(jget j.store.last_error)"
            http GET "/v1/jobs?state=queued" >/dev/null
            expect_eq "diskfull: not listed as queued" "$(jget "j.jobs.filter(x => x.id == $FID).length")" 0
            expect_eq "diskfull: /metrics zkpipe_store_commit_pending" \
                "$(http GET /metrics >/dev/null; grep '^zkpipe_store_commit_pending ' "$W/body")" "zkpipe_store_commit_pending 1"
            # what the pipeline held when the disk filled still ends (a
            # proof takes seconds under TSan); then nothing more is claimed:
            # done settles within the pipeline's capacity, and stays
            http GET /v1/status >/dev/null
            cap="$(jget 'j.workers.synth + j.workers.prove + j.workers.queue')"
            http GET "/v1/jobs/$FID" >/dev/null
            # settled: every partition the pipeline could hold has ended,
            # or done stayed for 8 s running (one quiet second was not
            # enough under TSan: a partition in flight ended after it and
            # done moved 2 -> 3)
            d0="$(jget j.done)" d1="" still=0
            for _ in $(seq 1 90); do
                sleep 1
                http GET "/v1/jobs/$FID" >/dev/null
                if [ "$(jget j.done)" = "$d1" ]; then
                    still=$((still + 1))
                    [ "$still" -ge 8 ] || [ $((d1 - d0)) -ge "$cap" ] && break
                else
                    d1="$(jget j.done)" still=0
                fi
            done
            expect_eq "diskfull: what was in the pipeline ended, no more ($d0 -> $d1 done, at most $cap more)" \
                "$((d1 - d0 <= cap))" 1
            sleep 2
            http GET "/v1/jobs/$FID" >/dev/null
            expect_eq "diskfull: no more work claimed while the disk is full (done stays at $d1)" "$(jget j.done)" "$d1"
            rm -f "$FULL/filler"
            t0=$(date +%s)
            for _ in $(seq 1 450); do
                http GET /v1/status >/dev/null
                [ "$(jget j.store.commit_pending)" = 0 ] && break
                sleep 0.1
            done
            expect_eq "diskfull: space back: the records go in by themselves ($(( $(date +%s) - t0 )) s)" \
                "$(jget j.store.commit_pending)" "0"
            rc=0; "$Z" await "$FID" --out "$W/out/full" --timeout 120 >/dev/null 2>"$W/logs/await_full.err" || rc=$?
            if [ $rc = 0 ] && "$Z" verify "$BN/vk.json" "$W/out/full/public_0.json" "$W/out/full/proof_0.json" >/dev/null 2>&1 &&
                "$Z" verify "$BN/vk.json" "$W/out/full/public_$((caught - 1)).json" "$W/out/full/proof_$((caught - 1)).json" >/dev/null 2>&1; then
                pass "diskfull: the job goes on and ends, its proofs verify"
            else
                fail "diskfull: the job goes on and ends" "await exit $rc $(cat "$W/logs/await_full.err")"
            fi
            http GET "/v1/jobs/$FID" >/dev/null
            expect_eq "diskfull:   job $FID done and recorded" "$(jget '[j.state, j.recorded, j.done].join()')" "done,,$caught"
            expect_eq "diskfull:   its spooled witnesses removed" "$(find "$FULL/spool" -type f | wc -l)" 0
            stop_daemon "$DPID" TERM
            expect_eq "diskfull: SIGTERM exits 0" "$STOP_RC" 0
            if start_daemon diskfull2 "$W/d4.conf"; then
                export ZKPIPE_SERVER="$URL"
                http GET "/v1/jobs/$FID" >/dev/null
                s1="$(jget j.state)"
                http GET /v1/status >/dev/null
                expect_eq "diskfull: after a restart job $FID is done and not proved again" "$s1 $(jget j.proofs)" "done 0"
                stop_daemon "$DPID" TERM
            else
                fail "diskfull: the daemon restarts" "see $W/diskfull2.log"
            fi
        else
            fail "diskfull: a job runs when the disk fills" "every job ended before the disk filled"
            stop_daemon "$DPID" TERM
        fi
    else
        fail "diskfull: daemon starts on a 32 MiB tmpfs" "see $W/diskfull.log"
    fi
else
    echo "SKIP the full disk at a job's end: mount -t tmpfs is not permitted here ($(tr '\n' ' ' <"$W/logs/mount_full.err"))"
fi

# ---- a budget that holds one key at a time (issue 13): the dispatcher
# claims only partitions that fit, and must count an idle key's bytes as
# the engine's to evict, or the second key's job would wait for ever
mkdir -p "$W/keys2"
ln -s "$BN/merkle.zkey" "$W/keys2/bn.zkey"
ln -s "$EX/bls12381/merkle.zkey" "$W/keys2/bls.zkey"
conf "$W/d5.conf" "$W/data5" "keys_dir $W/keys2"
if start_daemon onekey "$W/d5.conf"; then
    http GET /v1/status >/dev/null
    own=$(jget 'j.budget - j.buffer_budget')
    http GET /v1/keys >/dev/null
    sizes="$(jget 'Object.fromEntries(j.keys.map(k => [k.id, [k.key_bytes + k.matrices_bytes, k.partition_bytes]]))')"
    stop_daemon "$DPID" TERM
    # room for the larger key and its partition, not for both keys
    one_key=$(node -e "const s = $sizes; const b = s.bls[0] + s.bls[1], a = s.bn[0];
        console.log(Math.round($own + b + a / 2))")
    conf "$W/d5.conf" "$W/data5" "keys_dir $W/keys2" "budget $one_key"
    sed -i '/^budget 256M$/d' "$W/d5.conf"
    if start_daemon onekey2 "$W/d5.conf"; then
        export ZKPIPE_SERVER="$URL"
        rc1=0; rc2=0
        id=$("$Z" submit --key bn "$BN/w1.wtns") && "$Z" await "$id" --out "$W/out/onekey_bn" --timeout 60 >/dev/null 2>&1 || rc1=$?
        id=$("$Z" submit --key bls "$EX/bls12381/w1.wtns") && "$Z" await "$id" --out "$W/out/onekey_bls" --timeout 60 >/dev/null 2>&1 || rc2=$?
        if [ $rc1 = 0 ] && [ $rc2 = 0 ] &&
            "$Z" verify "$EX/bls12381/vk.json" "$W/out/onekey_bls/public_0.json" "$W/out/onekey_bls/proof_0.json" >/dev/null 2>&1; then
            pass "a budget ($one_key bytes) that holds one key: a bn128 job, then a bls12381 job (the first key evicted)"
        else
            fail "a budget that holds one key: both jobs done" "await exits $rc1 $rc2; see $W/onekey2.log"
        fi
        stop_daemon "$DPID" TERM
    else
        fail "a budget that holds one key: the daemon starts" "see $W/onekey2.log"
    fi
else
    fail "the daemon starts on keys2" "see $W/onekey.log"
fi

echo "faults.sh: $(( $(date +%s) - T0 )) s"
finish
