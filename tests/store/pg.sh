#!/usr/bin/env bash
# The PostgreSQL job store (src/store/pg*.c) against a throwaway cluster
# (tests/lib/pg.sh): test_store_claims's checks of claims, leases and
# fences, twice on the same database (made by schema version 1 and
# upgraded by the first; the second run empties what the first left),
# the server restarted in the middle of a run (the store reconnects) and
# stopped for a while (calls fail, then work again), and databases that
# are not this zkpipe's store refused, and the errors when the server is
# down (the URI named without its password).
#
# Usage: tests/store/pg.sh TEST_STORE_CLAIMS WORKDIR
# Exits 77 (skipped) when PostgreSQL is not installed.
set -uo pipefail
BIN=$1
W=$2
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../lib/pg.sh"
if ! pg_available; then
    echo "store_pg: skipped: $PG_WHY"
    exit 77
fi
rm -rf "$W"
mkdir -p "$W"
trap pg_cleanup EXIT
pg_start "$W/pg" >/dev/null || exit 1
echo "cluster: $PG_URI ($PG_BIN)"
fails=0
check() { # name, command...
    local name=$1
    shift
    if "$@" >"$W/$name.log" 2>&1; then
        echo "PASS $name"
    else
        echo "FAIL $name (log: $W/$name.log)"
        tail -n 20 "$W/$name.log"
        fails=$((fails + 1))
    fi
}

# A password in the URI (trust ignores it) must never be printed.
URI="postgresql://$PG_USER:sekrit-pw@127.0.0.1:$PG_PORT/zkpipe"
no_password() { ! grep -q sekrit-pw "$W/$1.log"; }

# The database starts as a store made by schema version 1 (before pins
# and the daemons' clocks), with a job queued and a daemon's row: the
# first run upgrades it in place at open (the old job without pins), then
# makes every check of test_store_claims on it.
V1_SCHEMA="CREATE TABLE zkpipe_meta(version int NOT NULL);
CREATE SEQUENCE zkpipe_fence AS bigint;
CREATE TABLE jobs( id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, request_id text UNIQUE, request_digest text,
 key_id text NOT NULL, priority int NOT NULL, partitions int NOT NULL CHECK (partitions > 0), done int NOT NULL
 DEFAULT 0, state smallint NOT NULL DEFAULT 0 CHECK (state BETWEEN 0 AND 4), error text, submitted double precision
 NOT NULL, finished double precision);
CREATE INDEX jobs_state ON jobs(state, id);
CREATE INDEX jobs_finished ON jobs(finished) WHERE state >= 2;
CREATE TABLE partitions( job_id bigint NOT NULL REFERENCES jobs(id) ON DELETE CASCADE, idx int NOT NULL, path text
 NOT NULL, key_id text NOT NULL, priority int NOT NULL, state smallint NOT NULL DEFAULT 0 CHECK (state BETWEEN 0 AND
 4), owner text, fence bigint NOT NULL DEFAULT 0, lease_until timestamptz, proof text, public text, queued double
 precision, synth double precision, wait_prove double precision, prove double precision, wait_final double precision,
 final double precision, total double precision, PRIMARY KEY (job_id, idx));
CREATE INDEX partitions_queue ON partitions(priority DESC, job_id, idx) WHERE state = 0;
CREATE INDEX partitions_queue_key ON partitions(key_id, priority DESC, job_id, idx) WHERE state = 0;
CREATE INDEX partitions_leases ON partitions(lease_until) WHERE state = 1;
CREATE INDEX partitions_owner ON partitions(owner) WHERE state = 1;
CREATE TABLE nodes( id text PRIMARY KEY, host text NOT NULL, pid bigint NOT NULL, started double precision NOT NULL,
 heartbeat timestamptz NOT NULL, budget bigint NOT NULL DEFAULT 0, tracked bigint NOT NULL DEFAULT 0, claimed int NOT
 NULL DEFAULT 0, proofs bigint NOT NULL DEFAULT 0);
INSERT INTO zkpipe_meta VALUES (1);
INSERT INTO jobs(request_id, key_id, priority, partitions, submitted) VALUES ('v1-job', 'k1', 0, 1, 1);
INSERT INTO partitions(job_id, idx, path, key_id, priority) VALUES (1, 0, '/spool/v1.wtns', 'k1', 0);
INSERT INTO nodes(id, host, pid, started, heartbeat) VALUES ('v1-node', 'h', 1, 1, now());"
pg_psql "$W/pg" -c "$V1_SCHEMA" >/dev/null || exit 1
upgraded() {
    [ "$(pg_psql "$W/pg" -At -c "SELECT max(version) FROM zkpipe_meta")" = 2 ] &&
        [ "$(pg_psql "$W/pg" -At -c "SELECT count(*) FROM pg_indexes WHERE indexname = 'partitions_unproved'
                                     OR (indexname = 'partitions_queue_key' AND indexdef LIKE '%key_digest%')")" = 2 ]
}

check claims "$BIN" "$URI"
check claims_schema_v1_upgraded upgraded
check claims_password_hidden no_password claims
check claims_again "$BIN" "$URI"
# the server restarted between two sections: the next call reconnects
# and later stopped for a while, then started: calls fail, then work
lib="source \"$HERE/../lib/pg.sh\"; pg_available"
export ZP_STORE_RESTART="bash -c '$lib && pg_restart \"$W/pg\"'"
export ZP_STORE_STOP="bash -c '$lib && pg_stop \"$W/pg\"'"
export ZP_STORE_START="bash -c '$lib && pg_resume \"$W/pg\"'"
check claims_restart "$BIN" "$URI"
check claims_restart_seen grep -q "restarted the server" "$W/claims_restart.log"
check claims_outage_seen grep -q "server back" "$W/claims_restart.log"
unset ZP_STORE_RESTART ZP_STORE_STOP ZP_STORE_START

# Databases that are not this zkpipe's store: a stranger's tables named
# like ours (ZP_ERR_FORMAT), a newer schema (ZP_ERR_UNSUPPORTED).
refused() { # database, what the message must say
    pg_psql "$W/pg" -c "CREATE DATABASE $1" >/dev/null &&
        pg_psql "$W/pg" -d "$1" -c "$2" >/dev/null &&
        ! "$BIN" "postgresql://$PG_USER@127.0.0.1:$PG_PORT/$1" >"$W/$1.out" 2>&1 &&
        grep -q "$3" "$W/$1.out"
}
check stranger_refused refused stranger "CREATE TABLE jobs(id int)" "is not a zkpipe store"
check newer_refused refused newer "CREATE TABLE zkpipe_meta(version int); INSERT INTO zkpipe_meta VALUES (99)" \
    "schema version 99 is newer"

# The server down: open fails with the URI (no password) and libpq's word.
pg_stop "$W/pg"
down() {
    ! "$BIN" "$URI" >"$W/down.out" 2>&1 &&
        grep -q "postgresql://$PG_USER@127.0.0.1:$PG_PORT/zkpipe: cannot connect:" "$W/down.out" &&
        ! grep -q sekrit-pw "$W/down.out"
}
check server_down down
cat "$W/down.out" >>"$W/server_down.log" 2>/dev/null
# a password given as a parameter is left out of the name too
down_param() {
    ! "$BIN" "postgresql://$PG_USER@127.0.0.1:$PG_PORT/zkpipe?password=sekrit-pw&connect_timeout=5" \
        >"$W/down_param.out" 2>&1 &&
        grep -q "postgresql://$PG_USER@127.0.0.1:$PG_PORT/zkpipe?connect_timeout=5: cannot connect:" \
            "$W/down_param.out" &&
        ! grep -q sekrit-pw "$W/down_param.out"
}
check server_down_param down_param
cat "$W/down_param.out" >>"$W/server_down_param.log" 2>/dev/null

echo "store_pg: $fails failed"
[ "$fails" = 0 ]
