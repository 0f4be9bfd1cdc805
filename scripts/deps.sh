#!/usr/bin/env bash
# Installs what zkpipe's build and tests need, when it is missing: Debian
# packages (compilers, cmake, jansson, libssl for SHA-256, libb2 for a
# ptau contribution's BLAKE2b state, libmicrohttpd,
# SQLite, libcurl, libpq and PostgreSQL for the shared job store and its
# tests, faketime for a daemon with a wrong clock, wabt for wasm2c, clang for the fuzzers, clang-format 14 for
# scripts/check_format.sh, node and npm if absent) and the npm packages pinned by package-lock.json (snarkjs, circom2,
# circomlib, ffjavascript). Safe to run again: it only installs what is absent.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

need=()
command -v cc >/dev/null || need+=(build-essential)
command -v cmake >/dev/null || need+=(cmake)
command -v pkg-config >/dev/null || need+=(pkg-config)
[ -f /usr/include/jansson.h ] || need+=(libjansson-dev)
[ -f /usr/include/microhttpd.h ] || need+=(libmicrohttpd-dev)
[ -f /usr/include/sqlite3.h ] || need+=(libsqlite3-dev)
[ -f /usr/include/openssl/evp.h ] || need+=(libssl-dev)
[ -f /usr/include/blake2.h ] || need+=(libb2-dev) # src/ceremony/ptau_hash.c
[ -f /usr/include/postgresql/libpq-fe.h ] || need+=(libpq-dev)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
command -v wasm2c >/dev/null || need+=(wabt)
[ -f /usr/include/x86_64-linux-gnu/curl/curl.h ] || [ -f /usr/include/curl/curl.h ] || need+=(libcurl4-openssl-dev)
command -v curl >/dev/null || need+=(curl)
command -v clang >/dev/null || need+=(clang)
command -v clang-format-14 >/dev/null || need+=(clang-format-14)
ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || need+=(libclang-rt-dev)
command -v node >/dev/null || need+=(nodejs)
command -v npm >/dev/null || need+=(npm)
# Node-API's headers for bindings/node's addon (tests/node/node.sh): with
# node itself from nodesource, under its prefix; Debian's are libnode-dev
node_prefix="$(dirname "$(dirname "$(command -v node || echo /usr/bin/node)")")"
[ -f "$node_prefix/include/node/node_api.h" ] || [ -f /usr/include/node/node_api.h ] || need+=(libnode-dev)
command -v chromium >/dev/null || need+=(chromium)
command -v valgrind >/dev/null && [ -f /usr/include/valgrind/memcheck.h ] || need+=(valgrind)
[ -x /usr/bin/time ] || need+=(time)
command -v faketime >/dev/null || need+=(faketime) # tests/server/fleet_clock.sh: a daemon's clock days off
if [ ${#need[@]} -gt 0 ]; then
    echo "deps: installing ${need[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${need[@]}" >/dev/null
fi
if [ ! -x "$ROOT/node_modules/.bin/snarkjs" ] || [ ! -x "$ROOT/node_modules/.bin/circom2" ] ||
   [ "$ROOT/package-lock.json" -nt "$ROOT/node_modules/.package-lock.json" ]; then
    echo "deps: npm ci" >&2
    (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error)
fi
