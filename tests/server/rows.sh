#!/usr/bin/env bash
# Store rows are data, not capabilities, and the spool is the daemon's own
# (issue 31, items 3, 4 and two of 9's). Real daemons on loopback; a real
# SQLite store written behind their back with sqlite3, as anyone who can
# write the database could; a real PostgreSQL when one is installed.
#   - rows that name files outside the spool: an absolute path, the spool's
#     own spelling then "..", a symlink in the spool to outside, a text
#     file like /etc/passwd; inserted while the daemon runs, before it
#     starts, in a job cancelled, in an ended job the expiry deletes: each
#     job fails with the reason, every canary outside keeps its bytes, and
#     no error quotes them;
#   - the rows the daemon writes name files relative to the spool; an old
#     row (an absolute path inside the spool, as earlier versions wrote)
#     still proves;
#   - a spooled witness swapped after its job was accepted (the job's
#     request digest is the daemon's own): the job fails, never done with a
#     proof of the swapped file; jobs of 2 partitions, swapped and not;
#   - a data_dir or spool_dir that others can write, or another user owns:
#     refused at start, naming it;
#   - two daemons whose data_dirs share a long prefix: distinct node ids;
#   - a --budget above the machine's memory: refused by serve and run; one
#     below the daemon's own memory: the message names that bound.
# Usage: tests/server/rows.sh ZKPIPE WORKDIR
# Prints PASS/FAIL lines, then "N passed, M failed"; exits 1 on a failure.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$ROOT/tests/lib/pg.sh"
test_setup "$@"
on_exit() {
    cleanup_daemons
    pg_cleanup
}
trap on_exit EXIT
T0=$(date +%s)
BN="$EX/bn128"
CT=(-H "Content-Type: application/json")
command -v sqlite3 >/dev/null || { echo "rows.sh: skipped: no sqlite3 (apt-get install sqlite3)"; exit 77; }

mkdir -p "$W/keys" "$W/outside/linked"
ln -s "$BN/merkle.zkey" "$W/keys/merkle.zkey"
# the canaries: valid witnesses (a daemon would prove them, then delete
# them) and a text file that a parser would quote
for c in abs dotdot start expired cancel pg; do cp "$BN/w1.wtns" "$W/outside/$c.wtns"; done
cp "$BN/w1.wtns" "$W/outside/linked/w.wtns"
printf 'root:x:0:0:canary-secret-bytes:/root:/bin/bash\n' >"$W/outside/passwd"
canaries() { (cd "$W/outside" && find . -type f | sort | xargs sha256sum); }
canaries >"$W/canaries.before"

conf() { # conf FILE DATA_DIR [more lines...]
    write_conf "$1" "$2" \
        "keys_dir $W/keys" "budget 256M" "synth_workers 1" "threads 1" "shutdown_grace 2" "${@:3}"
}
DATA="$W/data"
SPOOL="$DATA/spool"
DB="$DATA/zkpipe.db"
sq() { sqlite3 -cmd ".timeout 10000" "$DB" "$1"; }

# add_job STATE KEY DIGEST FINISHED PATH...: a job and its partitions
# written straight into the SQLite store; prints its id
add_job() {
    local state="$1" key="$2" dig="$3" fin="$4"; shift 4
    local pstate=queued i=0 p sql
    [ "$state" = done ] && pstate=done
    [ -n "$dig" ] && dig="'$dig'" || dig=NULL
    sql="BEGIN; INSERT INTO jobs(key_id, priority, partitions, state, submitted, finished, request_digest)"
    sql+=" VALUES('$key', 0, $#, '$state', $(date +%s), $fin, $dig);"
    sql+="CREATE TEMP TABLE t AS SELECT last_insert_rowid() AS id;"
    for p in "$@"; do
        sql+="INSERT INTO partitions(job_id, idx, witness, state, priority) SELECT id, $i, '$p', '$pstate', 0 FROM t;"
        i=$((i + 1))
    done
    sql+="COMMIT; SELECT id FROM t;"
    sq "$sql"
}

# wait_end ID [TRIES]: polls the job until it ended (0.2 s a try); prints
# its state; its JSON stays in $W/body
wait_end() {
    local i st=""
    for i in $(seq 1 "${2:-300}"); do
        http GET "/v1/jobs/$1" >/dev/null
        st="$(grep -oE '"state": ?"[a-z]+"' "$W/body" | head -1 | grep -oE '[a-z]+"$' | tr -d '"')"
        case "$st" in done | failed | cancelled) break ;; esac
        sleep 0.1
    done
    echo "$st"
}

# refused NAME ID: the job failed, its error names the confinement, and
# quotes none of the canaries' bytes
REFUSED_RE="beneath the spool|symbolic link"
refused() {
    local st err
    st="$(wait_end "$2")"
    err="$(jget j.error 2>/dev/null)"
    if [ "$st" = failed ] && grep -qiE "$REFUSED_RE" <<<"$err" && ! grep -q "canary-secret\|root:x" <<<"$err"; then
        pass "$1: job $2 failed: $err"
    else
        fail "$1" "job $2 $st: ${err:-no error}"
    fi
}

# ---- the daemon's own rows ---------------------------------------------
conf "$W/d.conf" "$DATA"
start_daemon d1 "$W/d.conf" || { fail "the daemon starts" "see $W/d1.log"; finish; exit 1; }
jobs_body "$W/a.json" merkle "" -- "$BN/w1.wtns"
jobs_body "$W/b.json" merkle "" -- "$BN/w1.wtns" "$BN/w2.wtns"
code_a="$(http POST /v1/jobs "${CT[@]}" --data-binary "@$W/a.json")"; A="$(jget j.id)"
code_b="$(http POST /v1/jobs "${CT[@]}" --data-binary "@$W/b.json")"; B="$(jget j.id)"
expect_eq "two jobs accepted" "$code_a $code_b" "201 201"
rows_a="$(sq "SELECT witness FROM partitions WHERE job_id = $A")"
case "$rows_a" in
/* | ./* | ../* | *"$DATA"*) fail "the daemon's rows name files relative to the spool" "$rows_a" ;;
*) [ -f "$SPOOL/$rows_a" ] || [ "$(wait_end "$A")" = done ] &&
    pass "the daemon's rows name files relative to the spool: $rows_a" ||
    fail "the daemon's rows name files relative to the spool" "$rows_a" ;;
esac
expect_eq "job A (1 partition) done" "$(wait_end "$A")" done
expect_eq "job B (2 partitions) done" "$(wait_end "$B")" done
DA="$(sq "SELECT request_digest FROM jobs WHERE id = $A")"
DB2="$(sq "SELECT request_digest FROM jobs WHERE id = $B")"
[ ${#DA} = 64 ] && [ ${#DB2} = 64 ] && pass "the jobs keep their request digests" ||
    fail "the jobs keep their request digests" "'$DA' '$DB2'"
public_a="$(sq "SELECT public FROM partitions WHERE job_id = $A")"

# ---- rows that point outside, written while the daemon runs ------------
ln -s "$W/outside/linked" "$SPOOL/link"
X1="$(add_job queued merkle "$DA" NULL "$W/outside/abs.wtns")"
X2="$(add_job queued merkle "$DA" NULL "$SPOOL/../../outside/dotdot.wtns")"
X3="$(add_job queued merkle "$DA" NULL "$SPOOL/link/w.wtns")"
X4="$(add_job queued merkle "$DA" NULL "$W/outside/passwd")"
X5="$(add_job queued nokey "" NULL "$W/outside/cancel.wtns")"
refused "a row with an absolute path outside the spool" "$X1"
refused "a row with the spool's spelling then '..'" "$X2"
refused "a row through a symlink in the spool to outside" "$X3"
refused "a row naming a text file outside (never quoted)" "$X4"
code="$(http DELETE "/v1/jobs/$X5")"
expect_eq "a job of such rows cancelled: 200 cancelled" "$code $(jget j.state)" "200 cancelled"

# ---- old rows, swapped files ---------------------------------------------
mkdir -p "$SPOOL/old-1" "$SPOOL/swap-1" "$SPOOL/swap-2" "$SPOOL/good-2"
cp "$BN/w1.wtns" "$SPOOL/old-1/0.wtns"
cp "$BN/w2.wtns" "$SPOOL/swap-1/0.wtns"                                   # accepted as w1, now w2
cp "$BN/w1.wtns" "$SPOOL/swap-2/0.wtns"; cp "$BN/w1.wtns" "$SPOOL/swap-2/1.wtns" # w1, w2 -> w1, w1
cp "$BN/w1.wtns" "$SPOOL/good-2/0.wtns"; cp "$BN/w2.wtns" "$SPOOL/good-2/1.wtns"
O1="$(add_job queued merkle "$DA" NULL "$SPOOL/old-1/0.wtns")"
Y1="$(add_job queued merkle "$DA" NULL "$SPOOL/swap-1/0.wtns")"
Y2="$(add_job queued merkle "$DB2" NULL "$SPOOL/swap-2/0.wtns" "$SPOOL/swap-2/1.wtns")"
Y3="$(add_job queued merkle "$DB2" NULL "good-2/0.wtns" "good-2/1.wtns")"
st="$(wait_end "$O1")"
if [ "$st" = done ] && [ "$(sq "SELECT public FROM partitions WHERE job_id = $O1")" = "$public_a" ] &&
    [ ! -e "$SPOOL/old-1/0.wtns" ]; then
    pass "an old row (absolute, inside the spool) still proves, and its file goes"
else
    fail "an old row (absolute, inside the spool) still proves" "job $O1 $st: $(jget j.error 2>/dev/null)"
fi
for y in "$Y1 one partition swapped" "$Y2 partition 1 of 2 swapped"; do
    id="${y%% *}"
    st="$(wait_end "$id")"
    err="$(jget j.error 2>/dev/null)"
    if [ "$st" = failed ] && grep -qi "digest" <<<"$err"; then
        pass "a spooled witness swapped after acceptance (${y#* }): job $id failed: $err"
    else
        fail "a spooled witness swapped after acceptance (${y#* })" \
            "job $id $st, public $(sq "SELECT group_concat(public) FROM partitions WHERE job_id = $id" | head -c 80)"
    fi
done
expect_eq "the same job of 2 partitions, not swapped: done" "$(wait_end "$Y3")" done

stop_daemon "$DPID" TERM
expect_eq "SIGTERM exits 0" "$STOP_RC" 0

# ---- rows that point outside, there before the start; the expiry -------
S1="$(add_job queued merkle "$DA" NULL "$W/outside/start.wtns")"
E1="$(add_job done merkle "$DA" 1000 "$W/outside/expired.wtns")"
start_daemon d2 "$W/d.conf" || { fail "the daemon starts again" "see $W/d2.log"; finish; exit 1; }
refused "a row outside the spool, there at start" "$S1"
for _ in $(seq 1 50); do [ "$(job_state "$E1" | cut -d' ' -f1)" = 404 ] && break; sleep 0.1; done
expect_eq "an ended job of such rows expires (404)" "$(job_state "$E1" | cut -d' ' -f1)" 404
sleep 0.5
canaries >"$W/canaries.after"
if cmp -s "$W/canaries.before" "$W/canaries.after"; then
    pass "every canary outside the spool is there with its bytes ($(wc -l <"$W/canaries.after") files)"
else
    fail "every canary outside the spool is there with its bytes" "$(diff "$W/canaries.before" "$W/canaries.after" | tr '\n' ' ')"
fi
stop_daemon "$DPID" TERM

# ---- a spool, a data_dir others can write --------------------------------
# refused_start NAME WANT_RE CONFIG [serve args...]: the daemon exits at
# start with a message matching WANT_RE
refused_start() {
    local name="$1" re="$2" cfg="$3"; shift 3
    local log="$W/logs/refused_start.log" pid rc="" i
    "$Z" serve --config "$cfg" "$@" >"$log" 2>&1 &
    pid=$!
    for i in $(seq 1 100); do
        kill -0 "$pid" 2>/dev/null || break
        grep -q 'listening on' "$log" && break # it started
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        fail "$name" "it started: $(head -c 300 "$log" | tr '\n' ' ')"
        return
    fi
    wait "$pid" 2>/dev/null
    rc=$?
    if [ "$rc" != 0 ] && grep -qiE -- "$re" "$log"; then
        pass "$name: $(grep -iE -- "$re" "$log" | head -1)"
    else
        fail "$name" "exit $rc: $(tail -2 "$log" | tr '\n' ' ')"
    fi
}
chmod 0777 "$DATA"
refused_start "a data_dir others can write is refused" "data_dir.*$DATA.*writ" "$W/d.conf"
chmod 0700 "$DATA"
chmod 0770 "$SPOOL"
refused_start "a spool its group can write is refused" "spool.*$SPOOL.*writ" "$W/d.conf"
chmod 0700 "$SPOOL"
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
    chown nobody "$SPOOL"
    refused_start "a spool another user owns is refused" "spool.*$SPOOL.*(own|user)" "$W/d.conf"
    chown root "$SPOOL"
fi
mkdir -p "$W/other-spool" && chmod 0733 "$W/other-spool"
refused_start "a spool_dir others can write is refused" "other-spool.*writ" "$W/d.conf" --spool_dir "$W/other-spool"

# ---- node ids ---------------------------------------------------------------
LONG="$W/a-data-dir-prefix-longer-than-twenty-bytes"
mkdir -p "$LONG"
ids=()
for d in one two; do
    conf "$W/n-$d.conf" "$LONG/$d"
    if start_daemon "n-$d" "$W/n-$d.conf"; then
        http GET /v1/fleet >/dev/null
        ids+=("$(jget j.node)")
        stop_daemon "$DPID" TERM
    fi
done
if [ ${#ids[@]} = 2 ] && [ "${ids[0]}" != "${ids[1]}" ] && [[ "${ids[0]}" == "$(hostname)"* ]]; then
    pass "data_dirs with a long common prefix: distinct node ids (${ids[0]}, ${ids[1]})"
else
    fail "data_dirs with a long common prefix: distinct node ids" "${ids[*]}"
fi

# ---- --budget --------------------------------------------------------------
refused_start "serve --budget 2^64-1 is refused" "budget.*more than.*memory" "$W/d.conf" --budget 18446744073709551615
refused_start "serve --budget 16T is refused" "budget.*more than.*memory" "$W/d.conf" --budget 16T
out="$(timeout 30 "$Z" run --key "$BN/merkle.zkey" --witness "$BN/w1.wtns" --out "$W/run" --budget 18446744073709551615 2>&1)"
rc=$?
[ $rc != 0 ] && grep -qiE "budget.*more than.*memory" <<<"$out" && pass "run --budget 2^64-1 is refused: $(head -1 <<<"$out")" ||
    fail "run --budget 2^64-1 is refused" "exit $rc: $(tail -2 <<<"$out" | tr '\n' ' ')"
refused_start "serve --budget 2M: the message names the bound" "budget.*\(2 MiB\).*own memory.*[0-9]+(\.[0-9])? MiB" \
    "$W/d.conf" --budget 2M

# ---- PostgreSQL: a row outside the spool, a swapped witness -------------------
if ! pg_available; then
    echo "rows.sh: PostgreSQL part skipped: $PG_WHY"
elif ! pg_start "$W/pg" >"$W/logs/pg_start.log" 2>&1; then
    fail "a PostgreSQL cluster starts" "$(tail -3 "$W/logs/pg_start.log" | tr '\n' ' ')"
else
    psq() { "$PG_BIN/psql" -X -q -At -d "$PG_URI" -c "$1"; }
    PSPOOL="$W/pgspool"
    conf "$W/p.conf" "$W/pgdata" "store $PG_URI" "spool_dir $PSPOOL" "node rows-pg"
    if start_daemon p1 "$W/p.conf"; then
        code="$(http POST /v1/jobs "${CT[@]}" --data-binary "@$W/a.json")"
        P="$(jget j.id)"
        expect_eq "PostgreSQL: a job done" "$code $(wait_end "$P")" "201 done"
        PD="$(psq "SELECT request_digest FROM jobs WHERE id = $P")"
        padd() { # padd DIGEST PATH: a queued job of one partition; prints its id
            psq "WITH j AS (INSERT INTO jobs(request_digest, key_id, priority, partitions, state, submitted)
                 VALUES('$1', 'merkle', 0, 1, 0, extract(epoch FROM now())) RETURNING id)
                 INSERT INTO partitions(job_id, idx, path, key_id, priority, state)
                 SELECT id, 0, '$2', 'merkle', 0, 0 FROM j RETURNING job_id"
        }
        refused "PostgreSQL: a row outside the spool" "$(padd "$PD" "$W/outside/pg.wtns")"
        mkdir -p "$PSPOOL/swap" && cp "$BN/w2.wtns" "$PSPOOL/swap/0.wtns"
        id="$(padd "$PD" "$PSPOOL/swap/0.wtns")"
        st="$(wait_end "$id")"
        err="$(jget j.error 2>/dev/null)"
        [ "$st" = failed ] && grep -qi digest <<<"$err" && pass "PostgreSQL: a swapped witness: job $id failed: $err" ||
            fail "PostgreSQL: a swapped witness" "job $id $st: $err"
        stop_daemon "$DPID" TERM
    else
        fail "a daemon starts on PostgreSQL" "see $W/p1.log"
    fi
    canaries >"$W/canaries.after"
    cmp -s "$W/canaries.before" "$W/canaries.after" && pass "PostgreSQL: every canary is untouched" ||
        fail "PostgreSQL: every canary is untouched" "$(diff "$W/canaries.before" "$W/canaries.after" | tr '\n' ' ')"
fi
echo "rows.sh: $(($(date +%s) - T0)) s"
finish
