#!/usr/bin/env bash
# The library as its users get it. Installs the built tree into a fresh
# prefix (cmake --install), checks what was installed and that nothing
# internal was, compiles each public header on its own, builds
# prove_example.c with `pkg-config --cflags --libs zkpipe` (shared) and
# `pkg-config --static` (static), and proves and verifies the merkle example
# on both curves with each; the installed command checks the proofs too.
# The shared library must link none of the daemon's libraries and export
# nothing but what the public headers declare.
#   usage: install.sh BUILD_DIR WORK_DIR CC [EXTRA_CFLAGS]
# EXTRA_CFLAGS: the build's sanitizer flags, which its runtime needs.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD=${1:?usage: install.sh BUILD_DIR WORK_DIR CC [EXTRA_CFLAGS]}
WORK=${2:?}
CC=${3:?}
read -r -a EXTRA <<<"${4:-}"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

rm -rf "$WORK"
mkdir -p "$WORK"
PREFIX="$WORK/prefix"
cmake --install "$BUILD" --prefix "$PREFIX" >"$WORK/install.log"

pc="$(find "$PREFIX" -name zkpipe.pc)"
[ -n "$pc" ] || { echo "FAIL: no zkpipe.pc under $PREFIX" >&2; cat "$WORK/install.log"; exit 1; }
LIBDIR="$(dirname "$(dirname "$pc")")"
export PKG_CONFIG_PATH="$(dirname "$pc")"
unset PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR

# What was installed: the libraries (with the SONAME link), every header of
# include/ and no other, the command, the .pc file.
for f in "$LIBDIR/libzkpipe.a" "$LIBDIR/libzkpipe.so" "$PREFIX/bin/zkpipe" "$pc"; do
    [ -e "$f" ] || fail "not installed: ${f#"$PREFIX"/}"
done
soname="$(readelf -d "$LIBDIR/libzkpipe.so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')"
[ -n "$soname" ] && [ -e "$LIBDIR/$soname" ] || fail "libzkpipe.so has no SONAME, or $soname is not installed"
want="$(cd "$ROOT/include" && ls ./*.h | sed 's|^\./||' | sort)"
got="$(cd "$PREFIX/include" && find . -type f | sed 's|^\./||' | sort)"
[ "$want" = "$got" ] || fail "installed headers are '$(echo $got)', the public ones are '$(echo $want)'"
v="$("$PREFIX/bin/zkpipe" --version)"
[ "$v" = "zkpipe $(pkg-config --modversion zkpipe)" ] || fail "zkpipe --version says '$v', zkpipe.pc $(pkg-config --modversion zkpipe)"
ok "installed: $(cd "$PREFIX" && find . -type f -o -type l | sed 's|^\./||' | sort | tr '\n' ' ')"

# The library stands alone: nothing of the daemon's in what it links.
needed="$(readelf -d "$LIBDIR/libzkpipe.so" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')"
if grep -Eq 'microhttpd|sqlite|curl' <<<"$needed"; then fail "libzkpipe.so links $needed"; fi
ok "libzkpipe.so ($soname) needs: $needed"

# It exports the functions of the public headers and nothing internal.
exported="$(nm -D --defined-only "$LIBDIR/libzkpipe.so" | awk '{print $NF}' | sed 's/@.*//' | sort -u)"
leaked=()
for s in $exported; do
    grep -qw -- "$s" "$PREFIX"/include/*.h || leaked+=("$s")
done
[ -n "$exported" ] || fail "libzkpipe.so exports nothing"
[ ${#leaked[@]} -eq 0 ] || fail "libzkpipe.so exports ${#leaked[@]} symbols no public header declares: ${leaked[*]:0:8} ..."
ok "libzkpipe.so exports $(wc -w <<<"$exported") symbols, all declared in include/"

CFLAGS=(-std=c11 -Wall -Wextra -Werror -pedantic)
read -r -a PC_CFLAGS <<<"$(pkg-config --cflags zkpipe)"
read -r -a PC_LIBS <<<"$(pkg-config --libs zkpipe)"
read -r -a PC_STATIC <<<"$(pkg-config --static --libs zkpipe)"

# Each installed header compiles on its own with only the installed include
# path (an include of an internal header would not be found), as C and C++.
for h in $want; do
    printf '#include <%s>\n' "$h" | "$CC" "${CFLAGS[@]}" "${PC_CFLAGS[@]}" -fsyntax-only -x c - ||
        fail "$h does not compile on its own"
    if command -v c++ >/dev/null; then
        printf '#include <%s>\n' "$h" | c++ -std=c++11 -Wall -Wextra -Werror "${PC_CFLAGS[@]}" -fsyntax-only -x c++ - ||
            fail "$h does not compile as C++"
    fi
done

# Shared: found through an rpath to the prefix. Static: the archive by name
# (the linker would take the .so otherwise) and pkg-config's private
# libraries; nothing of libzkpipe.so may remain in it.
"$CC" "${EXTRA[@]}" "${CFLAGS[@]}" -o "$WORK/prove_shared" "$ROOT/tests/install/prove_example.c" \
    "${PC_CFLAGS[@]}" "${PC_LIBS[@]}" -Wl,-rpath,"$LIBDIR" || fail "the shared build of prove_example"
static_libs=()
for l in "${PC_STATIC[@]}"; do
    [ "$l" = -lzkpipe ] && l=-l:libzkpipe.a
    static_libs+=("$l")
done
"$CC" "${EXTRA[@]}" "${CFLAGS[@]}" -o "$WORK/prove_static" "$ROOT/tests/install/prove_example.c" \
    "${PC_CFLAGS[@]}" "${static_libs[@]}" || fail "the static build of prove_example (${PC_STATIC[*]})"
# (Outputs go through variables: with pipefail, "readelf | grep -q" fails
# when grep stops reading first.)
dyn_shared="$(readelf -d "$WORK/prove_shared" 2>/dev/null || true)"
dyn_static="$(readelf -d "$WORK/prove_static" 2>/dev/null || true)"
grep -q "\[$soname\]" <<<"$dyn_shared" || fail "prove_shared does not need $soname"
if grep -q 'libzkpipe' <<<"$dyn_static"; then fail "prove_static needs libzkpipe.so"; fi
ok "built with: pkg-config --cflags --libs: ${PC_CFLAGS[*]} ${PC_LIBS[*]}; --static: ${PC_STATIC[*]}"

for curve in bn128 bls12381; do
    ex="$ROOT/examples/merkle/$curve"
    for kind in shared static; do
        [ -x "$WORK/prove_$kind" ] || continue
        out="$WORK/$kind-$curve"
        mkdir -p "$out"
        if "$WORK/prove_$kind" "$ex/merkle.zkey" "$ex/w1.wtns" "$ex/vk.json" "$out/proof.json" "$out/public.json" \
            >"$out/log" 2>&1 && grep -q "^proved on $curve" "$out/log" && grep -q '^verified$' "$out/log"; then
            if "$PREFIX/bin/zkpipe" verify "$ex/vk.json" "$out/public.json" "$out/proof.json" >/dev/null; then
                ok "$kind, $curve: proved, verified by the library and by the installed zkpipe"
            else
                fail "$kind, $curve: the installed zkpipe rejects the proof"
            fi
        else
            fail "$kind, $curve: $(tr '\n' ' ' <"$out/log")"
        fi
    done
done

[ "$fails" -eq 0 ] || { echo "$fails failed" >&2; exit 1; }
echo "install test passed"
