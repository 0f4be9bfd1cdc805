# Shell helpers shared by the test and benchmark scripts (sourced).

# quiet CMD...: run CMD, show its output (colours stripped) only if it fails
quiet() {
    local log
    log="$(mktemp)"
    if ! "$@" >"$log" 2>&1; then
        echo "FAILED: $*" >&2
        sed 's/\x1b\[[0-9;]*m//g' "$log" | tail -30 >&2
        rm -f "$log"
        return 1
    fi
    rm -f "$log"
}

# build_release ROOT BUILD TARGET...: the Release build the benchmarks time
# (clang where there is one), only the targets named
build_release() {
    local root="$1" build="$2" cc=()
    shift 2
    command -v clang >/dev/null && cc=(-DCMAKE_C_COMPILER=clang)
    quiet cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release "${cc[@]}" &&
        quiet cmake --build "$build" -j"$(nproc)" --target "$@"
}
