# A throwaway PostgreSQL cluster for tests (source this file from bash):
#
#   source tests/lib/pg.sh
#   pg_available || { echo "skipped: $PG_WHY"; exit 77; }
#   trap pg_cleanup EXIT          # stops every cluster this shell started
#   pg_start "$W/pg"              # prints and exports PG_URI
#   ... zkpipe serve --store "$PG_URI" ...
#   pg_restart "$W/pg"            # the server goes away and comes back
#   pg_stop "$W/pg"; pg_resume "$W/pg"   # down for a while, then back
#
# pg_start DIR makes a cluster in DIR/data with the newest installed
# PostgreSQL (Debian: /usr/lib/postgresql/*/bin), listening on a free
# loopback TCP port and on a unix socket in DIR (or a short directory under
# /tmp when DIR is too long for a socket path), trust authentication for
# local connections, fsync and synchronous_commit on (durability is what
# the store promises), and a database "zkpipe". PG_URI is
# postgresql://USER@127.0.0.1:PORT/zkpipe; PG_PORT, PG_USER and PG_BIN are
# exported too. Run as root, the server runs as Debian's "postgres" user
# (runuser), which then owns DIR. The server's log: DIR/postgres.log.
# Nothing is installed here: scripts/deps.sh installs the package.

PG_STARTED=()

# The newest PostgreSQL's bin directory, in PG_BIN; PG_WHY says what is
# missing when there is none.
pg_available() {
    local d best=""
    for d in /usr/lib/postgresql/*/bin; do
        [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] || continue
        if [ -z "$best" ] || [ "$(printf '%s\n%s\n' "$best" "$d" | sort -V | tail -n1)" = "$d" ]; then best="$d"; fi
    done
    if [ -z "$best" ] && command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then
        best="$(dirname "$(command -v initdb)")"
    fi
    if [ -z "$best" ]; then
        PG_WHY="PostgreSQL is not installed (no initdb; scripts/deps.sh installs the postgresql package)"
        return 1
    fi
    if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
        PG_WHY="running as root needs the 'postgres' user to run the server (package postgresql)"
        return 1
    fi
    if ! command -v psql >/dev/null && [ ! -x "$best/psql" ]; then
        PG_WHY="psql is missing (package postgresql-client)"
        return 1
    fi
    export PG_BIN="$best"
    return 0
}

# Runs a command as the cluster's owner.
_pg_as() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

_pg_user() {
    if [ "$(id -u)" = 0 ]; then echo postgres; else id -un; fi
}

# A TCP port nobody listens on at 127.0.0.1 (the server's start is retried
# with another when it is taken meanwhile).
_pg_free_port() {
    local port i
    for i in $(seq 1 50); do
        port=$((20000 + RANDOM % 40000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "$port"
            return 0
        fi
    done
    return 1
}

_pg_ctl() {
    local dir=$1
    shift
    _pg_as "$PG_BIN/pg_ctl" -D "$dir/data" "$@"
}

pg_start() {
    local dir=$1 user port sock tries
    [ -n "$dir" ] || { echo "pg_start: no directory" >&2; return 1; }
    [ -n "${PG_BIN:-}" ] || pg_available || { echo "pg_start: $PG_WHY" >&2; return 1; }
    dir="$(mkdir -p "$dir" && cd "$dir" && pwd)" || return 1
    # a cluster an earlier run left behind
    if [ -f "$dir/data/postmaster.pid" ]; then _pg_ctl "$dir" -m immediate -w stop >/dev/null 2>&1 || true; fi
    rm -rf "$dir/data" "$dir/sock" "$dir/postgres.log" "$dir/port" "$dir/sockdir"
    user="$(_pg_user)"
    sock="$dir/sock"
    # sun_path holds 107 bytes: "$sock/.s.PGSQL.PORT" must fit
    if [ ${#sock} -gt 80 ]; then
        sock="$(mktemp -d /tmp/zp-pgsock.XXXXXX)" || return 1
        echo "$sock" >"$dir/sockdir"
    fi
    mkdir -p "$sock"
    if [ "$(id -u)" = 0 ]; then
        chown postgres: "$dir" "$sock"
        if ! runuser -u postgres -- test -w "$dir"; then
            echo "pg_start: the postgres user cannot reach $dir (a parent directory closed to others?)" >&2
            return 1
        fi
    fi
    # -N: initdb itself does not fsync its files (a throwaway cluster); the
    # server runs with fsync on.
    if ! _pg_as "$PG_BIN/initdb" -D "$dir/data" -U "$user" -A trust -E UTF8 --locale=C -N >"$dir/initdb.log" 2>&1; then
        echo "pg_start: initdb failed (see $dir/initdb.log):" >&2
        tail -n 5 "$dir/initdb.log" >&2
        return 1
    fi
    cat >>"$dir/data/postgresql.conf" <<EOF
# tests/lib/pg.sh
listen_addresses = '127.0.0.1'
unix_socket_directories = '$sock'
fsync = on
synchronous_commit = on
full_page_writes = on
max_connections = 100
shared_buffers = 64MB
log_min_messages = warning
EOF
    for tries in 1 2 3 4 5; do
        port="$(_pg_free_port)" || { echo "pg_start: no free port" >&2; return 1; }
        sed -i '/^port = /d' "$dir/data/postgresql.conf"
        echo "port = $port" >>"$dir/data/postgresql.conf"
        if _pg_ctl "$dir" -l "$dir/postgres.log" -w -t 60 start >/dev/null 2>&1; then break; fi
        port=""
    done
    if [ -z "$port" ]; then
        echo "pg_start: the server did not start (see $dir/postgres.log):" >&2
        tail -n 5 "$dir/postgres.log" >&2
        return 1
    fi
    echo "$port" >"$dir/port"
    PG_STARTED+=("$dir")
    if ! _pg_as "$PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U "$user" zkpipe 2>"$dir/createdb.log"; then
        echo "pg_start: createdb failed: $(cat "$dir/createdb.log")" >&2
        return 1
    fi
    export PG_PORT="$port" PG_USER="$user"
    export PG_URI="postgresql://$user@127.0.0.1:$port/zkpipe"
    echo "$PG_URI"
}

# The fast shutdown: clients are disconnected, the server stops cleanly.
pg_stop() {
    local dir=$1
    [ -f "$dir/data/postmaster.pid" ] || return 0
    _pg_ctl "$dir" -m fast -w -t 60 stop >/dev/null
}

# Stops and starts again on the same port: every client loses its
# connection and must make a new one.
pg_restart() {
    local dir=$1
    _pg_ctl "$dir" -m fast -w -t 60 -l "$dir/postgres.log" restart >/dev/null
}

# Starts a cluster that pg_stop stopped, on its port.
pg_resume() {
    local dir=$1
    _pg_ctl "$dir" -w -t 60 -l "$dir/postgres.log" start >/dev/null
}

# psql on a cluster's zkpipe database: pg_psql DIR -c "SELECT ...".
pg_psql() {
    local dir=$1
    shift
    local psql="$PG_BIN/psql"
    [ -x "$psql" ] || psql=psql
    _pg_as "$psql" -X -q -h 127.0.0.1 -p "$(cat "$dir/port")" -U "$(_pg_user)" -d zkpipe "$@"
}

# Stops every cluster this shell started and removes their socket
# directories under /tmp; for `trap pg_cleanup EXIT`, so it runs when a
# test fails too. Keeps the data directories and logs for a look.
pg_cleanup() {
    local dir
    for dir in "${PG_STARTED[@]}"; do
        if [ -f "$dir/data/postmaster.pid" ]; then
            _pg_ctl "$dir" -m fast -w -t 30 stop >/dev/null 2>&1 ||
                _pg_ctl "$dir" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
        fi
        if [ -f "$dir/sockdir" ]; then rm -rf "$(cat "$dir/sockdir")"; fi
    done
    PG_STARTED=()
}
