# shellcheck shell=bash disable=SC2034
# Helpers shared by the daemon's end-to-end tests (e2e.sh, load_crash.sh,
# faults.sh, hostile.sh, confine.sh, rows.sh, the fleet's through
# fleet_lib.sh) and tests/witness/{budget,hostile,stop}.sh; sourced, not run. Each test then calls
# test_setup "$@", which sets Z (the zkpipe binary) and W (its work dir).
#
# Checks print "PASS name" / "FAIL name: why"; finish prints
# "N passed, M failed" and returns non-zero when a check failed.

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
EX="$ROOT/examples/merkle"
SNARKJS="$ROOT/node_modules/.bin/snarkjs"
JS="$HERE/json.js"
TOKEN="${TOKEN:-}"
passed=0
failed=0
DAEMON_PIDS=()

# The arguments every test takes, ZKPIPE WORKDIR: Z is the binary's
# absolute path, W a fresh work dir (with logs/).
test_setup() {
    if [ $# -ne 2 ]; then
        echo "usage: $0 ZKPIPE WORKDIR" >&2
        exit 2
    fi
    Z="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
    rm -rf "$2"
    mkdir -p "$2/logs"
    W="$(cd "$2" && pwd)"
}

pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() {
    echo "FAIL $1${2:+: $2}"
    failed=$((failed + 1))
}
# check NAME CMD...: passes iff CMD exits 0 (its output goes to $W/logs/NAME.log)
check() {
    local name="$1"; shift
    local log="$W/logs/${name//[^A-Za-z0-9_.-]/_}.log"
    if "$@" >"$log" 2>&1; then pass "$name"; else fail "$name" "$(tail -3 "$log" | tr '\n' ' ')"; fi
}
# expect_eq NAME GOT WANT
expect_eq() {
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got '$2', wanted '$3'"; fi
}
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}

# jget EXPR [FILE]: evaluates the JavaScript expression EXPR on the JSON in
# FILE (default $W/body) bound to j; strings print raw, others as JSON,
# undefined as nothing (exit 1).
jget() { node "$JS" get "$1" "${2:-$W/body}"; }

# absolute path of the binary under test
abs_bin() {
    case "$1" in /*) echo "$1" ;; */*) echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" ;; *) command -v "$1" ;; esac
}

# write_conf FILE DATA_DIR [LINE...]: a daemon config listening on a free
# loopback port with its data in DATA_DIR, then each LINE ("budget 256M")
write_conf() {
    local f="$1" d="$2" l
    shift 2
    {
        echo "listen 127.0.0.1:0"
        echo "data_dir $d"
        for l in "$@"; do echo "$l"; done
    } >"$f"
}

# start_daemon NAME CONFIG [extra serve args...]: starts `zkpipe serve` in the
# background (log: $W/NAME.log), waits until it prints its port and answers;
# sets DPID, PORT, URL and START_SECS (seconds until it answered). Returns non-zero (log tail printed) on failure.
start_daemon() {
    local name="$1" config="$2"; shift 2
    local log="$W/$name.log" t0
    t0=$(date +%s.%N)
    : >"$log"
    "$Z" serve --config "$config" "$@" >>"$log" 2>&1 &
    DPID=$!
    DAEMON_PIDS+=("$DPID")
    PORT=""
    local i
    for i in $(seq 1 300); do
        if ! kill -0 "$DPID" 2>/dev/null; then
            echo "daemon $name exited at start:" >&2
            tail -5 "$log" >&2
            return 1
        fi
        # "listening on http://127.0.0.1:41234/" first: an earlier line may
        # name another address (a fleet's store URL in the clock warning)
        PORT="$(grep -oE 'listening on (http://)?(127\.0\.0\.1|localhost|0\.0\.0\.0|\[::1?\]):[0-9]+' "$log" |
            sed 's/.*://' | grep -v '^0$' | head -1)"
        # "127.0.0.1:41234", "port 41234"
        [ -n "$PORT" ] || PORT="$(grep -oE '(127\.0\.0\.1|localhost|0\.0\.0\.0|\[::1?\]):[0-9]+' "$log" | sed 's/.*://' | grep -v '^0$' | head -1)"
        [ -n "$PORT" ] || PORT="$(grep -ioE 'port[ =:]+[0-9]+' "$log" | grep -oE '[0-9]+$' | grep -v '^0$' | head -1)"
        if [ -n "$PORT" ] && [ "$PORT" != 0 ]; then
            URL="http://127.0.0.1:$PORT"
            if curl -s -o /dev/null --max-time 2 "$URL/"; then
                START_SECS="$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')"
                return 0
            fi
        fi
        sleep 0.1
    done
    echo "daemon $name did not print a port or answer within 30 s:" >&2
    tail -5 "$log" >&2
    return 1
}

# stop_daemon PID [SIGNAL]: signal it (default TERM) and wait for it; sets
# STOP_RC (its exit status) and STOP_SECS (how long it took to exit).
# Not in a $(...): only this shell can wait for its children.
stop_daemon() {
    local pid="$1" sig="${2:-TERM}" t1
    t1=$(date +%s.%N)
    STOP_RC=0
    kill -"$sig" "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || STOP_RC=$?
    STOP_SECS="$(awk -v a="$t1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')"
}

# kill every daemon this test started that still runs (trap EXIT)
cleanup_daemons() {
    local p
    for p in "${DAEMON_PIDS[@]}"; do
        if kill -0 "$p" 2>/dev/null; then kill -KILL "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; fi
    done
}

# http METHOD PATH [curl args...]: the answer's body goes to $W/body, its
# headers to $W/headers; prints the status code ("000": no answer).
# Sends the token when TOKEN is set and NOAUTH is not.
http() {
    local method="$1" path="$2"; shift 2
    local auth=()
    [ -n "$TOKEN" ] && [ -z "${NOAUTH:-}" ] && auth=(-H "Authorization: Bearer $TOKEN")
    curl -s -o "$W/body" -D "$W/headers" -w '%{http_code}' --max-time "${HTTP_TIMEOUT:-120}" -H 'Expect:' \
        -X "$method" "${auth[@]}" "$@" "$URL$path" || true
}

# job_state ID: prints "HTTP_CODE STATE" of GET /v1/jobs/ID
job_state() {
    local code
    code="$(http GET "/v1/jobs/$1")"
    echo "$code $(jget j.state 2>/dev/null)"
}

# expect_status NAME WANT_CODES METHOD PATH [curl args...]: the status must be
# one of WANT_CODES ("400" or "404 400") and a 4xx/5xx body must carry
# error.code and a non-empty error.message. With MSG_RE set, the message must
# match it (extended regex, case-insensitive).
expect_status() {
    local name="$1" want="$2"; shift 2
    local code
    code="$(http "$@")"
    if [[ " $want " != *" $code "* ]]; then
        fail "$name" "HTTP $code (wanted $want): $(head -c 300 "$W/body")"
        return 1
    fi
    if [ "$code" -ge 400 ]; then
        local msg ecode
        msg="$(jget 'j.error.message' 2>/dev/null)"
        ecode="$(jget 'j.error.code' 2>/dev/null)"
        if [ -z "$msg" ] || [ -z "$ecode" ]; then
            fail "$name" "HTTP $code without error.code/error.message: $(head -c 300 "$W/body")"
            return 1
        fi
        if [ -n "${MSG_RE:-}" ] && ! grep -qiE -- "$MSG_RE" <<<"$msg"; then
            fail "$name" "HTTP $code, message '$msg' does not name /$MSG_RE/"
            return 1
        fi
        pass "$name (HTTP $code $ecode: $msg)"
        return 0
    fi
    pass "$name (HTTP $code)"
}

# jobs_body FILE KEY [request_id] -- WITNESS...: writes a POST /v1/jobs body
# uploading each witness file (base64); "path:REL" sends a server-side path.
jobs_body() {
    local out="$1" key="$2" rid="${3:-}"; shift 3
    [ "${1:-}" = "--" ] && shift
    {
        printf '{"key":"%s"' "$key"
        [ -n "$rid" ] && printf ',"request_id":"%s"' "$rid"
        printf ',"witnesses":['
        local sep="" w
        for w in "$@"; do
            case "$w" in
            path:*) printf '%s{"path":"%s"}' "$sep" "${w#path:}" ;;
            *) printf '%s{"data":"' "$sep"; base64 -w0 "$w"; printf '"}' ;;
            esac
            sep=","
        done
        printf ']}'
    } >"$out"
}

# snarkjs_ok VK PUBLIC PROOF: snarkjs groth16 verify says OK (2 min at most)
snarkjs_ok() {
    local out
    out="$(timeout 120 "$SNARKJS" groth16 verify "$1" "$2" "$3" 2>&1)" || { echo "$out"; return 1; }
    echo "$out"
    grep -q "OK!" <<<"$out"
}

# same_json A B: the two files hold the same JSON value
same_json() { node "$JS" same "$1" "$2"; }

# expected public signals of each example witness, from `zkpipe prove`:
# $W/expected/<curve>_w<n>.json
make_expected() {
    mkdir -p "$W/expected"
    local c n
    for c in "$@"; do
        for n in 1 2; do
            [ -s "$W/expected/${c}_w$n.json" ] && continue
            "$Z" prove "$EX/$c/merkle.zkey" "$EX/$c/w$n.wtns" "$W/expected/${c}_w${n}_proof.json" \
                "$W/expected/${c}_w$n.json" || return 1
        done
    done
}
