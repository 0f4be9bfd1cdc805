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
