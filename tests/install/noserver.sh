#!/usr/bin/env bash
# The library without the daemon: configures SOURCE_DIR with -DZP_SERVER=OFF
# through a pkg-config that refuses libmicrohttpd, sqlite3 and libcurl (so a
# lookup of any of them fails the configure, and is logged), builds
# everything (-O1, to keep this short), and checks that no build product
# links them, that the daemon's tests were left out, that the daemon's
# commands say they were built without it, and that the command still
# proves and verifies.
#   usage: noserver.sh SOURCE_DIR WORK_DIR CC [JOBS]
# NOSERVER_CMAKE_ARGS: more CMake options for the build (scripts/test.sh
# makes it its ZP_VERIFY build too, and runs those tests in WORK_DIR/build).
set -euo pipefail
SRC=${1:?usage: noserver.sh SOURCE_DIR WORK_DIR CC [JOBS]}
WORK=${2:?}
CC=${3:?}
JOBS=${4:-2}
read -r -a EXTRA <<<"${NOSERVER_CMAKE_ARGS:-}"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

rm -rf "$WORK"
mkdir -p "$WORK/bin"
REAL_PC="$(command -v pkg-config)"
cat >"$WORK/bin/pkg-config" <<EOF
#!/bin/sh
for a in "\$@"; do
    case "\$a" in libmicrohttpd*|sqlite3*|libcurl*) echo "pkg-config \$*" >>"$WORK/refused.log"; exit 1 ;; esac
done
exec "$REAL_PC" "\$@"
EOF
chmod +x "$WORK/bin/pkg-config"

B="$WORK/build"
t0=$(date +%s)
if ! cmake -S "$SRC" -B "$B" -DZP_SERVER=OFF -DCMAKE_BUILD_TYPE=Check -DCMAKE_C_FLAGS=-O1 \
    -DCMAKE_C_COMPILER="$CC" -DPKG_CONFIG_EXECUTABLE="$WORK/bin/pkg-config" "${EXTRA[@]}" >"$WORK/configure.log" 2>&1; then
    cat "$WORK/configure.log" "$WORK/refused.log" 2>/dev/null >&2
    echo "FAIL: cmake -DZP_SERVER=OFF does not configure" >&2
    exit 1
fi
t1=$(date +%s)
if ! cmake --build "$B" -j"$JOBS" >"$WORK/build.log" 2>&1; then
    grep -E 'error|Error' "$WORK/build.log" | head -30 >&2
    echo "FAIL: the -DZP_SERVER=OFF build" >&2
    exit 1
fi
t2=$(date +%s)
touch "$B/built"
ok "configured in $((t1 - t0)) s, built in $((t2 - t1)) s (-O1, -j$JOBS${EXTRA[*]:+, ${EXTRA[*]}})"

[ ! -s "$WORK/refused.log" ] || fail "configure asked for the daemon's libraries: $(cat "$WORK/refused.log")"
if grep -Eq '^(MHD|SQLITE|CURL)_' "$B/CMakeCache.txt"; then
    fail "the cache holds lookups of the daemon's libraries: $(grep -E '^(MHD|SQLITE|CURL)_' "$B/CMakeCache.txt" | head -3)"
fi
[ ! -e "$B/libzkpipe_server.a" ] || fail "libzkpipe_server.a was built"
[ ! -e "$B/test_server" ] && [ ! -e "$B/test_store" ] || fail "the daemon's unit tests were built"
for t in test_field test_api test_engine zkpipe-bench-kernels zkpipe-bench-pipeline; do
    [ -x "$B/$t" ] || fail "$t was not built"
done

# No build product links the daemon's libraries.
for f in "$B/libzkpipe.so" "$B/zkpipe" "$B"/test_* "$B"/zkpipe-bench-*; do
    [ -x "$f" ] || [ -e "$f" ] || continue
    dyn="$(readelf -d "$f")"
    if grep -Eq 'NEEDED.*(microhttpd|sqlite|curl)' <<<"$dyn"; then fail "$(basename "$f") links the daemon's libraries"; fi
done
ok "nothing links libmicrohttpd, SQLite or libcurl"

Z="$B/zkpipe"
for c in serve submit status await cancel keys; do
    set +e
    msg="$("$Z" "$c" 2>&1 >/dev/null)"
    rc=$?
    set -e
    [ "$rc" -eq 2 ] && grep -q 'built without' <<<"$msg" || fail "zkpipe $c: exit $rc, '$msg'"
done
ok "zkpipe serve: $("$Z" serve 2>&1 || true)"

ex="$SRC/examples/merkle/bn128"
if "$Z" prove "$ex/merkle.zkey" "$ex/w1.wtns" "$WORK/proof.json" "$WORK/public.json" &&
    "$Z" verify "$ex/vk.json" "$WORK/public.json" "$WORK/proof.json" >/dev/null; then
    ok "zkpipe prove and verify without the daemon"
else
    fail "zkpipe prove/verify without the daemon"
fi

[ "$fails" -eq 0 ] || { echo "$fails failed" >&2; exit 1; }
echo "no-server build test passed"
