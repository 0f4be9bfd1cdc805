#!/usr/bin/env bash
# The npm package bindings/node (zkpipe for JavaScript) under node's test
# runner: its addon built against this build's libzkpipe.a and the Node
# headers of the machine (a few seconds; the package's own install builds
# it from the sources with node-gyp), circuits of both curves compiled by
# circom2 once per content (tests/witness/circuits.sh's cache), keys made
# by zkpipe setup, then bindings/node/test/*.test.js: proofs checked by
# snarkjs, shapes against snarkjs's, bad inputs, aborts, a Prover under a
# budget, memory flat over many calls, a calculator that never returns
# stopped by an abort as it is opened; the addon's own threads, which
# leave libuv's pool to fs and crypto, stopped and joined when a Worker
# or the process ends in the middle of a call.
#
# Usage: node.sh ZKPIPE LIBZKPIPE_A WORKDIR CACHE
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
LIB="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
# shellcheck source=../witness/circuits.sh
. "$ROOT/tests/witness/circuits.sh"
witness_dirs "$1" "$3" "$4"
for t in "$SNARKJS" "$CIRCOM"; do
    [ -x "$t" ] || { echo "node.sh: skipped: $t missing (copy node_modules)"; exit 77; }
done
command -v wasm2c >/dev/null || { echo "node.sh: skipped: no wasm2c (apt-get install wabt)"; exit 77; }
NODE_INC="$(dirname "$(dirname "$(command -v node)")")/include/node"
[ -f "$NODE_INC/node_api.h" ] || NODE_INC=/usr/include/node
[ -f "$NODE_INC/node_api.h" ] || { echo "node.sh: skipped: no node_api.h"; exit 77; }
cd "$ROOT"

t0=$(date +%s)
CC="${CC:-cc}"
# shellcheck disable=SC2046
"$CC" -O2 -fPIC -shared -Wall -Wextra -Werror -Wno-unused-parameter -I include -I "$NODE_INC" \
    bindings/node/src/addon.c "$LIB" -Wl,--exclude-libs,ALL $(pkg-config --libs jansson) -lpthread -ldl \
    -o "$W/zkpipe.node" || { echo "FAIL: the addon does not build"; exit 1; }
export ZKPIPE_NODE_ADDON="$W/zkpipe.node"

FIX="$W/fixtures.json"
echo "{" >"$FIX"
sep=""
for cc in assert.bn128 assert.bls12381; do
    c="${cc%.*}"; curve="${cc#*.}"
    d="$(build_circuit "$c" "$curve")" || { echo "FAIL: circom2 $c $curve"; exit 1; }
    key="$W/$c-$curve.zkey"
    "$Z" setup --quiet "$d/$c.r1cs" "$key" >/dev/null 2>&1 || { echo "FAIL: setup $c $curve"; exit 1; }
    printf '%s"%s": {"wasm": "%s", "zkey": "%s", "r1cs": "%s"}\n' "$sep" "$cc" "$d/${c}_js/$c.wasm" "$key" \
        "$d/$c.r1cs" >>"$FIX"
    sep=","
done
# a calculator whose getVersion, run as it is opened, never returns
# (tests/witness/stop.sh's): an abort stops it there
if command -v wat2wasm >/dev/null; then
    sed 's/(func (export "getVersion") (result i32) (i32.const 2))/(func (export "getVersion") (result i32) (loop $l (br $l)) (i32.const 2))/' \
        tests/witness/circuits/loop.wat >"$W/version.wat"
    wat2wasm "$W/version.wat" -o "$W/version.wasm" || { echo "FAIL: wat2wasm version.wat"; exit 1; }
    printf ',"loop.version": {"wasm": "%s"}\n' "$W/version.wasm" >>"$FIX"
fi
echo "}" >>"$FIX"
echo "node.sh: addon, circuits and keys ready in $(( $(date +%s) - t0 )) s"
export ZKPIPE_TEST_FIXTURES="$FIX" ZKPIPE_TEST_WORKDIR="$W"
export NODE_PATH="$ROOT/node_modules"
node --test --test-concurrency=1 bindings/node/test/*.test.js
