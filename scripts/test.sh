#!/usr/bin/env bash
# The whole test suite: installs what is missing, then, each stage timed:
#   checks    the generated files regenerate unchanged, every path the
#             docs name exists, the C sources match .clang-format
#             (scripts/check_{generated,docs,format}.sh);
#   release   the release build and all of its ctest suite, two tests at a
#             time where they fit (a test that wants both cores has ctest's
#             PROCESSORS 2): unit tests, ffjavascript cross-checks, snarkjs
#             interop on both curves, circom's circuits, bad input, the
#             daemon end to end (API, faults, load with kill -9, dashboard,
#             a fleet on PostgreSQL), the installed library (label
#             "build"), valgrind's constant-time check;
#   portable  the snarkjs interop again with the portable arithmetic (no
#             ADX asm, no IFMA lanes: ZKPIPE_ADX=0 ZKPIPE_SIMD=0);
#   verify    the build without the daemon (ctest's build_noserver), made
#             a ZP_VERIFY build with the asm compiled out, and its field,
#             kernel, NTT, pairing and prover tests;
#   asan      the unit tests and the daemon's edges under ASan+UBSan
#             (ctest labels unit and asan);
#   tsan      the threaded tests and the daemon's threads under TSan
#             (label tsan);
#   fuzz      the libFuzzer targets, each from its seed corpus
#             (fuzz/corpus/), two at a time.
# The TSan and fuzz builds build only the programs their tests run.
# Ends with a table (stage, wall time, CPU time, passed, failed) and the line
# "N passed, M failed" (counting ctest tests, the checks and the fuzz
# targets); exits non-zero if anything failed.
# Environment: ZP_TEST_SEED to replay random inputs, FUZZ_SECONDS (default
# 12), ZP_TEST_JOBS (tests at a time; default: the CPU count),
# ZP_TEST_SLOW=1 for the slow variants of some unit tests (test_api's 193
# proofs), ZP_TEST_STAGES to run only some stages (e.g. "checks release").
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/deps.sh || { echo "0 passed, 1 failed"; exit 1; }
JOBS="$(nproc)"
TEST_JOBS="${ZP_TEST_JOBS:-$JOBS}"
STAGES="${ZP_TEST_STAGES:-checks release portable verify asan tsan fuzz}"
passed=0
failed=0
failed_names=()
summary=()
suite_t0=$(date +%s)

want() { [[ " $STAGES " == *" $1 "* ]]; }

# The CPU seconds (user + system) of every finished child of this shell:
# a stage's CPU time does not depend on what else the machine runs.
# (times must run in this shell, not in a $(...) subshell: it writes to a
# file, which cpu_read reads.)
CPU_FILE="$(mktemp)"
trap 'rm -f "$CPU_FILE"' EXIT
cpu_read() {
    tail -1 "$CPU_FILE" | awk '{ for (i = 1; i <= 2; i++) { split($i, a, "m"); s += a[1] * 60 + a[2] } }
                               END { printf "%d", s }'
}
# stage NAME WHAT: starts a stage; stage_end closes it and records its line
stage() {
    times >"$CPU_FILE"
    stage_name="$1"; stage_t0=$(date +%s); stage_c0=$(cpu_read); stage_p0=$passed; stage_f0=$failed
    echo; echo "== $1: $2"
}
stage_end() {
    times >"$CPU_FILE"
    local t=$(( $(date +%s) - stage_t0 )) c=$(( $(cpu_read) - stage_c0 ))
    echo "-- $stage_name: ${t} s (${c} s of CPU), $((passed - stage_p0)) passed, $((failed - stage_f0)) failed"
    summary+=("$(printf '%-10s %6d s %6d s %7d %7d' "$stage_name" "$t" "$c" $((passed - stage_p0)) \
                $((failed - stage_f0)))")
}

# Runs ctest in a build dir and adds its counts to the totals.
run_ctest() {
    local dir="$1"; shift
    local log="$dir/ctest.log"
    ctest --test-dir "$dir" --output-on-failure -j"$TEST_JOBS" "$@" 2>&1 | tee "$log"
    local line
    line="$(grep -E 'tests passed, [0-9]+ tests failed out of' "$log" | tail -1)"
    if [ -z "$line" ]; then
        if grep -q 'No tests were found' "$log"; then return; fi
        failed=$((failed + 1)); failed_names+=("ctest in $dir did not finish")
        return
    fi
    local total fail
    total="$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$line")"
    fail="$(sed -E 's/.*tests passed, ([0-9]+) tests failed.*/\1/' <<<"$line")"
    passed=$((passed + total - fail)); failed=$((failed + fail))
    [ "$fail" = 0 ] || failed_names+=("$(grep -E '^\s+[0-9]+ - ' "$log" | tr -s ' ' | tr '\n' ';')")
}

# check NAME CMD...: one pass or failure
check() {
    local name="$1"; shift
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); failed_names+=("$name"); fi
}

# configure DIR CMAKE_ARGS...
configure() {
    local dir="$1"; shift
    mkdir -p "$dir"
    cmake -S . -B "$dir" "$@" >"$dir/configure.log" 2>&1 || {
        tail -20 "$dir/configure.log"; failed=$((failed + 1)); failed_names+=("configure $dir"); return 1; }
}
# compile DIR [TARGET...]: builds the targets (all without any)
compile() {
    local dir="$1"; shift
    local t=()
    [ $# -eq 0 ] || t=(--target "$@")
    if ! cmake --build "$dir" -j"$JOBS" "${t[@]}" >"$dir.buildlog" 2>&1; then
        grep -E "error|Error" "$dir.buildlog" | head -40
        failed=$((failed + 1)); failed_names+=("build $dir")
        return 1
    fi
}
# targets_of DIR CTEST_ARGS...: the programs of DIR that the selected tests
# run (their commands in CTestTestfile.cmake name them by path: ctest's
# own listing leaves out a program not built yet), so that a build makes
# only those
targets_of() {
    local dir="$1"; shift
    ctest --test-dir "$dir" --show-only=json-v1 "$@" 2>/dev/null | python3 -c '
import json, os, re, sys
d = os.path.realpath(sys.argv[1])
names = {t["name"] for t in json.load(sys.stdin).get("tests", [])}
out = set()
with open(os.path.join(d, "CTestTestfile.cmake")) as f:
    for line in f:
        m = re.match(r"add_test\((\S+) (.*)\)$", line.strip())
        if not m or m.group(1) not in names:
            continue
        for a in re.findall(r"\"((?:[^\"\\\\]|\\\\.)*)\"", m.group(2)):
            if a.startswith(d + "/") and "/" not in a[len(d) + 1:]:
                out.add(a[len(d) + 1:])
print(" ".join(sorted(out)))' "$dir"
}
# build_for DIR "CTEST_ARGS"...: configures nothing; builds what the
# tests selected by each quoted CTEST_ARGS run
build_for() {
    local dir="$1"; shift
    local all=() sel
    for sel in "$@"; do
        # shellcheck disable=SC2086
        read -r -a t <<<"$(targets_of "$dir" $sel)"
        all+=("${t[@]}")
    done
    mapfile -t all < <(printf '%s\n' "${all[@]}" | sort -u | grep -v '^$')
    # the targets CMake knows (a path that is no target is a work folder)
    mapfile -t all < <(cmake --build "$dir" --target help 2>/dev/null | sed -nE 's/^\.\.\. ([^ ]+).*/\1/p' |
                       grep -xFf <(printf '%s\n' "${all[@]}"))
    compile "$dir" "${all[@]}"
}

if want checks; then
    stage checks "generated files, docs' paths, format"
    check "scripts/check_generated.sh" bash scripts/check_generated.sh
    check "scripts/check_docs.sh" bash scripts/check_docs.sh
    check "scripts/check_format.sh" bash scripts/check_format.sh
    stage_end
fi

# The release build uses clang when present: it proves about a third faster
# than gcc 12 on the same source. The sanitizer builds below use gcc, so
# both compilers build the code with -Werror on every run.
CC_RELEASE="$(command -v clang || command -v cc)"
if want release; then
    stage release "build ($CC_RELEASE) and the full ctest suite"
    if configure build -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="$CC_RELEASE" && compile build; then
        # build_noserver's build is the verify stage's (below)
        if want verify; then run_ctest build -E '^build_noserver$'; else run_ctest build; fi
        # which arithmetic paths this CPU let the tests check (they print
        # them; a machine without ADX, AVX2 or IFMA checks fewer), for the
        # summary: later ctest runs replace this log
        paths_checked="$(grep -ahoE '^test_(field|kernels|ntt): (paths checked|AVX-512 IFMA path).*' \
            build/Testing/Temporary/LastTest.log 2>/dev/null | sort -u)"
    fi
    stage_end
fi

# The portable arithmetic (no MULX/ADX assembly and no AVX-512 IFMA lanes,
# both chosen at run time) must give proofs snarkjs accepts: the interop
# test again with ZKPIPE_ADX=0 ZKPIPE_SIMD=0. The rest of it is covered
# elsewhere, so it is not run twice: test_field checks both paths itself,
# ctest's test_groth16_portable runs whole proofs this way in every build,
# test_kernels and test_ntt check the scalar and IFMA paths themselves and
# run without the asm in the VERIFY build below (-DZP_ADX=OFF).
if want portable && [ -n "$(grep -m1 -wo adx /proc/cpuinfo)" ] && [ -x build/zkpipe ]; then
    stage portable "ZKPIPE_ADX=0 ZKPIPE_SIMD=0: snarkjs interop"
    ZKPIPE_ADX=0 ZKPIPE_SIMD=0 run_ctest build -R '^interop_snarkjs$'
    stage_end
fi

# The VERIFY build (libsecp256k1's): every field operation checks that its
# inputs and outputs are reduced and aborts naming the function if not.
# Built with the asm compiled out (-DZP_ADX=OFF), so this is also the build
# that has no MULX/ADX code at all. It is the build without the daemon
# too (tests/install/noserver.sh, ctest's build_noserver: -DZP_SERVER=OFF
# through a pkg-config that refuses the daemon's libraries, -O1, every
# program, none linking them), so the library is compiled once for both.
if want verify; then
    stage verify "the build without the daemon, -DZP_VERIFY=ON -DZP_ADX=OFF: field, kernels, NTT, pairing, prover"
    verify_tests='^(test_(field|kernels|ntt|pairing|groth16))$'
    NOSERVER_CMAKE_ARGS="-DZP_VERIFY=ON -DZP_ADX=OFF" \
        check "the build without the daemon (tests/install/noserver.sh)" \
        bash tests/install/noserver.sh "$ROOT" "$ROOT/build-verify" "$CC_RELEASE" "$JOBS"
    # its tests when the build made them (a failed build is counted above)
    if [ -f build-verify/build/built ]; then
        ZP_TEST_ITERS="${ZP_TEST_ITERS:-25}" run_ctest build-verify/build -R "$verify_tests"
    fi
    stage_end
fi

# The sanitizer builds run ctest's labels unit and asan (ASan+UBSan), and
# tsan (TSan): CMakeLists.txt says which test is in which, and in one
# ctest run each the daemons' waits overlap the unit tests' work.
# ZP_TEST_ITERS=25 for the unit tests' random cases.
if want asan; then
    stage asan "ASan+UBSan: unit tests, the daemon's edges (labels unit, asan)"
    # all of it: this is the build where gcc compiles every program
    if configure build-asan -DCMAKE_BUILD_TYPE=Debug -DZP_SANITIZE=ON -DCMAKE_C_COMPILER=gcc &&
        compile build-asan; then
        ZP_TEST_ITERS="${ZP_TEST_ITERS:-25}" run_ctest build-asan -L '^(unit|asan)$'
    fi
    stage_end
fi

if want tsan; then
    stage tsan "TSan: the pool, MSM, NTT, prover, engine, daemon, store (label tsan)"
    # a report makes a daemon's exit status 66, which the scripts check at
    # every stop
    if configure build-tsan -DCMAKE_BUILD_TYPE=Debug -DZP_TSAN=ON -DCMAKE_C_COMPILER=gcc &&
        build_for build-tsan "-L ^tsan\$"; then
        ZP_TEST_ITERS="${ZP_TEST_ITERS:-25}" run_ctest build-tsan -L '^tsan$'
    fi
    stage_end
fi

if want fuzz; then
    stage fuzz "libFuzzer targets, ${FUZZ_SECONDS:-12} s each"
    if configure build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DZP_FUZZ=ON; then
        mapfile -t fuzz_targets < <(cmake --build build-fuzz --target help | sed -nE 's/^\.\.\. (fuzz_[a-z0-9_]+).*/\1/p')
        if compile build-fuzz "${fuzz_targets[@]}"; then
            if bash fuzz/run.sh build-fuzz "${FUZZ_SECONDS:-12}" "${fuzz_targets[@]}" >build-fuzz/fuzz.log 2>&1; then
                cat build-fuzz/fuzz.log
                passed=$((passed + ${#fuzz_targets[@]}))
            else
                tail -60 build-fuzz/fuzz.log
                failed=$((failed + 1)); failed_names+=("fuzzers (build-fuzz/fuzz.log)")
            fi
        fi
    fi
    stage_end
fi

echo
[ -z "${paths_checked:-}" ] || printf '%s\n' "$paths_checked"
printf '%-10s %8s %8s %7s %7s\n' stage time cpu passed failed
printf '%s\n' "${summary[@]}"
times >"$CPU_FILE"
printf '%-10s %6d s %6d s %7d %7d\n' total $(( $(date +%s) - suite_t0 )) "$(cpu_read)" "$passed" "$failed"
[ ${#failed_names[@]} -eq 0 ] || printf 'failed: %s\n' "${failed_names[@]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
