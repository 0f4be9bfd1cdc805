#!/usr/bin/env bash
# The whole test suite: installs what is missing, then
#   1. the release build and its ctest suite (unit tests, ffjavascript
#      cross-checks, snarkjs interop on both curves, bad-input tests, the
#      daemon end to end: API, faults, load with kill -9, dashboard);
#   2. the kernels, prover and interop tests again with the portable
#      arithmetic (no ADX asm, no IFMA lanes: ZKPIPE_ADX=0 ZKPIPE_SIMD=0),
#      the field, kernel and prover tests in a ZP_VERIFY build (the asm
#      compiled out), and the unit, bad-input and daemon tests under
#      ASan+UBSan;
#   3. the threaded tests (kernels, prover, engine, daemon, store) under TSan;
#   4. the libFuzzer targets, each run briefly.
# Ends with one line "N passed, M failed" (counting ctest tests and the
# fuzz runs) and exits non-zero if anything failed.
# Environment: ZP_TEST_SEED to replay random inputs, FUZZ_SECONDS (default 20).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/deps.sh || { echo "0 passed, 1 failed"; exit 1; }
JOBS="$(nproc)"
passed=0
failed=0
failed_names=()

# Runs ctest in a build dir and adds its counts to the totals.
run_ctest() {
    local dir="$1"; shift
    local log="$dir/ctest.log"
    ctest --test-dir "$dir" --output-on-failure "$@" 2>&1 | tee "$log"
    local line
    line="$(grep -E 'tests passed, [0-9]+ tests failed out of' "$log" | tail -1)"
    if [ -z "$line" ]; then
        failed=$((failed + 1)); failed_names+=("ctest in $dir did not finish")
        return
    fi
    local total fail
    total="$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$line")"
    fail="$(sed -E 's/.*tests passed, ([0-9]+) tests failed.*/\1/' <<<"$line")"
    passed=$((passed + total - fail)); failed=$((failed + fail))
    [ "$fail" = 0 ] || failed_names+=("$(grep -E '^\s+[0-9]+ - ' "$log" | tr -s ' ' | tr '\n' ';')")
}

build() {  # dir, cmake args...
    local dir="$1"; shift
    if ! { cmake -S . -B "$dir" "$@" >/dev/null && cmake --build "$dir" -j"$JOBS" >"$dir.buildlog" 2>&1; }; then
        cat "$dir.buildlog" 2>/dev/null | grep -E "error|Error" | head -40
        failed=$((failed + 1)); failed_names+=("build $dir")
        return 1
    fi
}

# The release build uses clang when present: it proves about a third faster
# than gcc 12 on the same source. The sanitizer builds below use gcc, so
# both compilers build the code with -Werror on every run.
CC_RELEASE="$(command -v clang || command -v cc)"
echo "== release build ($CC_RELEASE) and full suite"
if build build -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="$CC_RELEASE"; then
    run_ctest build
fi

# The portable arithmetic (no MULX/ADX assembly and no AVX-512 IFMA lanes,
# both chosen at run time) must give the same proofs: the release binaries
# again with ZKPIPE_ADX=0 ZKPIPE_SIMD=0, their unit tests and the snarkjs
# interop. (test_field checks both paths itself, and ctest's
# test_groth16_portable runs whole proofs this way in every build; this
# also puts the portable code through proofs that snarkjs verifies.) The
# asm compiled out (-DZP_ADX=OFF) is built and run by the VERIFY build
# below.
if [ -n "$(grep -m1 -wo adx /proc/cpuinfo)" ] && [ -x build/test_field ]; then
    echo "== portable arithmetic (ZKPIPE_ADX=0 ZKPIPE_SIMD=0): kernels, prover, snarkjs interop"
    ZKPIPE_ADX=0 ZKPIPE_SIMD=0 run_ctest build -R 'test_field|test_kernels|test_ntt|test_groth16$|interop_snarkjs'
fi

# The VERIFY build (libsecp256k1's): every field operation checks that its
# inputs and outputs are reduced and aborts naming the function if not.
# Built with the asm compiled out (-DZP_ADX=OFF), so this is also the build
# that has no MULX/ADX code at all; only the five tests it runs are built.
# Measured here: 3.3 CPU-minutes to build (under 2 min on 2 free cores),
# 21 s of tests with ZP_TEST_ITERS=25.
echo "== VERIFY build (-DZP_VERIFY=ON -DZP_ADX=OFF), field, kernels, NTT, pairing, prover"
verify_tests=(test_field test_kernels test_ntt test_pairing test_groth16)
if cmake -S . -B build-verify -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="$CC_RELEASE" -DZP_VERIFY=ON \
    -DZP_ADX=OFF >/dev/null &&
    cmake --build build-verify -j"$JOBS" --target "${verify_tests[@]}" >build-verify.buildlog 2>&1; then
    ZP_TEST_ITERS="${ZP_TEST_ITERS:-25}" run_ctest build-verify -R "^($(IFS='|'; echo "${verify_tests[*]}"))\$"
else
    grep -E "error|Error" build-verify.buildlog | head -40
    failed=$((failed + 1)); failed_names+=("build build-verify")
fi

echo "== ASan+UBSan build, unit and bad-input tests"
if build build-asan -DCMAKE_BUILD_TYPE=Debug -DZP_SANITIZE=ON -DCMAKE_C_COMPILER=gcc; then
    ZP_TEST_ITERS="${ZP_TEST_ITERS:-25}" run_ctest build-asan -L unit
    # The daemon's edges (hostile clients, confinement races, faults, the
    # API end to end) under ASan+UBSan: a report aborts the daemon, and the
    # scripts check every answer.
    run_ctest build-asan -R '^server_(e2e|faults|hostile|confine)$'
    # three daemons and PostgreSQL: a longer lease and cancel bound, for
    # ASan's slower daemons on two cores
    FLEET_LEASE=3 FLEET_CANCEL_MAX=3 run_ctest build-asan -R '^server_fleet$'
fi

echo "== TSan build, the threaded tests (the pool, MSM, NTT, prover)"
if build build-tsan -DCMAKE_BUILD_TYPE=Debug -DZP_TSAN=ON -DCMAKE_C_COMPILER=gcc; then
    ZP_TEST_ITERS="${ZP_TEST_ITERS:-25}" run_ctest build-tsan -R 'test_kernels|test_ntt|test_pool|test_groth16|test_engine|test_server|test_store|test_witness$'
    # the daemon's threads (HTTP, collector with its commit retries,
    # sampler) against real clients; a report makes the daemon's exit
    # status 66, which the scripts check at every stop
    run_ctest build-tsan -R '^(server_(faults|hostile)|store_pg)$'
fi

echo "== fuzzers"
if build build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DZP_FUZZ=ON; then
    targets=$(ls build-fuzz/fuzz_* 2>/dev/null | grep -vc '\.' || true)
    if bash fuzz/run.sh build-fuzz "${FUZZ_SECONDS:-20}" >build-fuzz/fuzz.log 2>&1; then
        echo "fuzzers: $targets targets, ${FUZZ_SECONDS:-20} s each, no crash"
        passed=$((passed + targets))
    else
        tail -40 build-fuzz/fuzz.log
        failed=$((failed + 1)); failed_names+=("fuzzers (build-fuzz/fuzz.log)")
    fi
fi

echo
[ ${#failed_names[@]} -eq 0 ] || printf 'failed: %s\n' "${failed_names[@]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
