#!/usr/bin/env bash
# The compiled-object cache as an operator meets it (docs/witness.md, "The
# cache"): real folders and files, the committed multidim.wasm compiled at
# -O0 (a second or two a compile).
#   - a new cache is made 0700 (parents too), two processes compiling
#     into it at once both succeed; objects carry a trailer whose digest is
#     XXH64 (checked against zstd's frame checksum when zstd is there);
#   - a truncated, emptied, garbage or bit-flipped object is compiled again,
#     once, with a one-line note, and the witness is the same (never a
#     SIGBUS, never "invalid ELF header" for ever);
#   - a cache, object, .fp folder or record another user owns or others may
#     write, a link in place of an object, a non-sticky world-writable
#     folder above the cache: refused, exit 4, the message naming the path
#     and what is wrong, nothing loaded and nothing replaced;
#   - a full disk (a small tmpfs) at each step of the compile: exit 4,
#     "CACHE: no space left on device", not "not a circom 2 witness
#     calculator".
# The ownership cases need root (chown to nobody), the full disk a tmpfs
# mount: without them those cases say "skipped" and the rest still run.
#
# Usage: cache.sh ZKPIPE WORKDIR
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
Z="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
W="$2"
umount "$W/full" 2>/dev/null # a tmpfs an interrupted run left
rm -rf "$W"; mkdir -p "$W"; W="$(cd "$W" && pwd)"
command -v wasm2c >/dev/null || { echo "cache.sh: skipped: no wasm2c (apt-get install wabt)"; exit 77; }
WASM="$ROOT/tests/witness/circuits/multidim.wasm"
export ZKPIPE_WITNESS_OPT=-O0
unset ZKPIPE_CACHE XDG_CACHE_HOME
pass=0; fail=0; skipped=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
skip() { skipped=$((skipped + 1)); echo "cache.sh: skipped: $*"; }
cat >"$W/in.json" <<'EOF'
{"a": [[1, 2, 3], [4, 5, 6]], "b": [[7, 8], [9, 10], [11, 12]], "c": [[[1, 2], [3, 4]], [[5, 6], [7, 8]]], "k": "3"}
EOF

# run CACHE: zkpipe wtns calculate into $W/out.wtns, stderr in $W/err; $rc
run() {
    rm -f "$W/out.wtns"
    "$Z" wtns calculate --cache "$1" "$WASM" "$W/in.json" "$W/out.wtns" >"$W/stdout" 2>"$W/err"
    rc=$?
}
mode() { stat -c %a "$1"; }
owner() { stat -c %u "$1"; }
# expect_ok NAME NOTES: exit 0, the reference witness, NOTES "damaged" lines
expect_ok() {
    if [ "$rc" -ne 0 ]; then bad "$1: exit $rc, wanted 0"; sed 's/^/    /' "$W/err" | head -3; return 1; fi
    if ! cmp -s "$W/out.wtns" "$W/ref.wtns"; then bad "$1: another witness"; return 1; fi
    local n
    n=$(grep -c "is damaged" "$W/err")
    if [ "$n" -ne "$2" ]; then bad "$1: $n notes of damage, wanted $2"; sed 's/^/    /' "$W/err" | head -3; return 1; fi
    ok
}
# expect_refused NAME PATTERN: exit 4, one line matching PATTERN, no witness
expect_refused() {
    if [ "$rc" -ne 4 ]; then bad "$1: exit $rc, wanted 4"; sed 's/^/    /' "$W/err" | head -3; return 1; fi
    if ! grep -qE "^zkpipe: .*$2" "$W/err" || [ "$(wc -l <"$W/err")" -ne 1 ]; then
        bad "$1: stderr is not one line matching /$2/"; sed 's/^/    /' "$W/err" | head -3; return 1
    fi
    if [ -e "$W/out.wtns" ]; then bad "$1: a witness was written"; return 1; fi
    ok
}

# ---- a new cache: made 0700 with its parents; the object and its trailer.
# Two processes compile into it at once: both succeed (the last rename
# wins, and each load checks the object it maps).
C="$W/new/deep/cache"
"$Z" wtns calculate --cache "$C" "$WASM" "$W/in.json" "$W/twin.wtns" 2>"$W/twin.err" &
twin=$!
run "$C"
wait "$twin"; twin_rc=$?
if [ "$rc" -ne 0 ] || [ "$twin_rc" -ne 0 ]; then
    bad "first compiles, two at once: exit $rc and $twin_rc"; cat "$W/err" "$W/twin.err"
    echo "cache.sh: $pass passed, $fail failed"; exit 1
fi
cp "$W/out.wtns" "$W/ref.wtns"; ok
cmp -s "$W/twin.wtns" "$W/ref.wtns" && ok || bad "two compiles at once: different witnesses"
for d in "$W/new" "$W/new/deep" "$C" "$C/.fp"; do
    [ -d "$d" ] || { [ "$d" = "$C/.fp" ] && continue; }
    [ "$(mode "$d")" = 700 ] && ok || bad "$d: mode $(mode "$d"), wanted 700"
done
SO="$(ls "$C"/*.so)"
[ "$(mode "$SO")" = 644 ] && ok || bad "object: mode $(mode "$SO"), wanted 644"
[ "$(tail -c 64 "$SO" | head -c 16 | tr -d "\0")" = "zkpipe-object 1" ] && ok || bad "object: no trailer"
if command -v zstd >/dev/null; then
    # the digest's low 32 bits are XXH64's, as zstd's frame checksum
    size=$(stat -c %s "$SO")
    want=$(head -c $((size - 8)) "$SO" | zstd -q -c --check | tail -c 4 | od -An -tx1 | tr -d ' \n')
    got=$(tail -c 8 "$SO" | head -c 4 | od -An -tx1 | tr -d ' \n')
    [ "$want" = "$got" ] && ok || bad "object digest $got, zstd's XXH64 $want"
fi
ino=$(stat -c %i "$SO")
run "$C"; expect_ok "cached" 0 && { [ "$(stat -c %i "$SO")" = "$ino" ] || bad "cached: compiled again"; }
GOOD="$W/good.so"; cp -p "$SO" "$GOOD"

# ---- damaged objects: compiled again, once, with a note
size=$(stat -c %s "$SO")
truncate -s $((size / 2)) "$SO"
run "$C"; expect_ok "truncated object" 1
run "$C"; expect_ok "after the rebuild" 0
: >"$SO"
run "$C"; expect_ok "empty object" 1
head -c "$size" /dev/urandom >"$SO"
run "$C"; expect_ok "garbage object" 1
printf 'zkpipe' | dd of="$SO" bs=1 seek=$((size / 3)) conv=notrunc status=none
run "$C"; expect_ok "a changed byte (its digest)" 1
cp "$GOOD" "$SO"; chmod 644 "$SO"
run "$C"; expect_ok "restored" 0

# ---- what others may write: refused, not repaired, not loaded
ln -sf "$GOOD" "$SO.link"; rm -f "$SO"; mv "$SO.link" "$SO"
run "$C"; expect_refused "a link in place of the object" "$SO: the compiled calculator is a symbolic link"
rm -f "$SO"; cp "$GOOD" "$SO"; chmod 664 "$SO"
run "$C"; expect_refused "a group-writable object" "$SO: the compiled calculator is writable by its group \(mode 0664\)"
chmod 644 "$SO"
chmod 770 "$C"
run "$C"; expect_refused "a group-writable cache" "$C: the cache directory is writable by its group \(mode 0770\)"
chmod 707 "$C"
run "$C"; expect_refused "a world-writable cache" "$C: the cache directory is writable by others \(mode 0707\)"
chmod 700 "$C"
chmod 777 "$W/new"
run "$C"; expect_refused "a world-writable folder above" "the cache directory is inside $W/new, which others may write \(mode 0777\) and is not sticky"
chmod 1777 "$W/new"
run "$C"; expect_ok "a sticky folder above (as /tmp)" 0
chmod 700 "$W/new"
# (the records are written for a wasm whose stamps are over 2 s old)
if [ -d "$C/.fp" ]; then
    chmod 757 "$C/.fp"
    run "$C"; expect_refused "a world-writable .fp" "$C/.fp: the cache's fingerprint folder is writable by others"
    chmod 700 "$C/.fp"
else
    skip "no .fp record (the wasm changed in the last 2 s)"
fi
if [ "$(id -u)" = 0 ] && getent passwd nobody >/dev/null; then
    NOBODY=$(id -u nobody)
    chown nobody "$SO"
    run "$C"; expect_refused "another user's object" "$SO: the compiled calculator is owned by uid $NOBODY, not by this user \(uid 0\)"
    [ "$(owner "$SO")" = "$NOBODY" ] && ok || bad "another user's object was replaced"
    chown 0 "$SO"
    chown nobody "$C"
    run "$C"; expect_refused "another user's cache" "$C: the cache directory is owned by uid $NOBODY"
    chown 0 "$C"
    rec="$(ls "$C"/.fp/* 2>/dev/null | head -1)"
    if [ -n "$rec" ]; then
        chown nobody "$rec"
        run "$C"; expect_refused "another user's fingerprint record" "$rec: a fingerprint record is owned by uid $NOBODY"
        chown 0 "$rec"
    fi
    # a cache made by another user, for this one to use: the attack itself
    O="$W/theirs"
    mkdir -p "$O"; cp "$GOOD" "$O/$(basename "$SO")"; chown -R nobody "$O"; chmod 755 "$O"
    run "$O"; expect_refused "a cache another user made" "$O: the cache directory is owned by uid $NOBODY"
    # and that user's own run: root's cache is not theirs
    NOGROUP=$(id -g nobody)
    if command -v setpriv >/dev/null && setpriv --reuid="$NOBODY" --regid="$NOGROUP" --clear-groups true 2>/dev/null &&
        setpriv --reuid="$NOBODY" --regid="$NOGROUP" --clear-groups test -r "$WASM" -a -x "$Z"; then
        chmod 755 "$W/new" "$W/new/deep" "$C"  # readable, so the refusal is the owner rule's
        setpriv --reuid="$NOBODY" --regid="$NOGROUP" --clear-groups "$Z" wtns calculate --cache "$C" "$WASM" "$W/in.json" \
            /dev/null >"$W/stdout" 2>"$W/err"
        rc=$?; rm -f "$W/out.wtns"
        expect_refused "root's cache, for nobody" "$C: the cache directory is owned by uid 0, not by this user \(uid $NOBODY\)"
        chmod 700 "$W/new" "$W/new/deep" "$C"
    else
        skip "cannot run zkpipe as nobody (setpriv, or the paths' modes)"
    fi
else
    skip "not root: the cases of another user's files"
fi
run "$C"; expect_ok "all restored" 0

# ---- a settled object (stamps over 2 s old): the .fp record keeps its
# stamps and later runs skip its digest; a change moves them, and the
# digest is checked again
if [ -d "$C/.fp" ]; then
    age=$(( $(date +%s) - $(stat -c %Z "$SO") ))
    [ "$age" -gt 2 ] || sleep $((3 - age))
    run "$C"; expect_ok "a settled object" 0
    if grep -q "^object [0-9]" "$C"/.fp/*; then ok; else bad "no record keeps the object's stamps"; fi
    printf 'zkpipe' | dd of="$SO" bs=1 seek=$((size / 3)) conv=notrunc status=none
    run "$C"; expect_ok "a changed byte in a settled object" 1
fi

# ---- a full disk, at each step of the compile
F="$W/full"
mkdir -p "$F"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=64k,mode=0700 tmpfs "$F" 2>/dev/null; then
    umount "$F"
    trap 'umount "$F" 2>/dev/null' EXIT
    # from the wasm's copy, through wasm2c's C and the patch, to cc and
    # its temporary files (2 MiB: it fits)
    for size in 24k 100k 300k 600k 900k; do
        mount -t tmpfs -o size=$size,mode=0700 tmpfs "$F" || { bad "mount $size"; continue; }
        run "$F/cache"
        expect_refused "a full disk ($size)" "$F/cache: no space left on device \(cannot .*\): free some"
        if [ -n "$(find "$F/cache" -mindepth 1 -name '.build-*' 2>/dev/null)" ]; then bad "full disk ($size): a build folder is left"; fi
        umount "$F"
    done
else
    skip "cannot mount a tmpfs: the full-disk cases"
fi

echo "cache.sh: $pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ]
