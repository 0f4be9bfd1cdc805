#!/usr/bin/env bash
# Runs the libFuzzer targets, each from its committed seed corpus, and
# fails on the first crash, leak or timeout.
#
#   fuzz/run.sh BUILD_DIR [SECONDS] [TARGET...]          (default: 20 s, all)
#   fuzz/run.sh --grow BUILD_DIR [SECONDS] [TARGET...]   grow the corpora
#
#   cmake -S . -B build-fuzz -DZP_FUZZ=ON -DCMAKE_C_COMPILER=clang
#   cmake --build build-fuzz && fuzz/run.sh build-fuzz 20
#
# A target is every BUILD_DIR/fuzz_NAME program (or those named, with or
# without the fuzz_ prefix); its seeds are fuzz/corpus/NAME/ (a target
# without one starts from nothing, and says so). What a run finds is kept
# in a temporary folder: the committed corpus does not change. Targets
# run FUZZ_JOBS at a time (default: the CPU count; each is one thread).
#
# --grow: after the run, the inputs that reached new code are merged into
# fuzz/corpus/NAME/ (libFuzzer's -merge=1: only what adds coverage), at
# most 8 KiB each (-max_len) so the corpus stays small; the sizes before
# and after are printed. Commit what it adds. Run it for minutes, e.g.
# fuzz/run.sh --grow build-fuzz 300 json.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
grow=0
if [ "${1:-}" = "--grow" ]; then grow=1; shift; fi
BUILD=${1:?usage: fuzz/run.sh [--grow] BUILD_DIR [SECONDS] [TARGET...]}
SECONDS_EACH=${2:-20}
shift $(( $# >= 2 ? 2 : 1 ))
JOBS=${FUZZ_JOBS:-$(nproc)}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

targets=()
if [ $# -gt 0 ]; then
    for t in "$@"; do targets+=("${t#fuzz_}"); done
else
    for bin in "$BUILD"/fuzz_*; do
        [ -x "$bin" ] && [ -f "$bin" ] && [[ "$(basename "$bin")" != *.* ]] && targets+=("$(basename "$bin" | sed 's/^fuzz_//')")
    done
fi
if [ ${#targets[@]} -eq 0 ]; then
    echo "no fuzz_* programs in $BUILD (configure with -DZP_FUZZ=ON -DCMAKE_C_COMPILER=clang)" >&2
    exit 2
fi
for t in "${targets[@]}"; do
    if [ ! -x "$BUILD/fuzz_$t" ]; then echo "missing $BUILD/fuzz_$t" >&2; exit 2; fi
done

# fuzz_glue compiles its puppet module once, into a cache of its own
export ZKPIPE_CACHE="$BUILD/fuzz-glue-cache"

max_len=65536
[ "$grow" = 1 ] && max_len=8192

# one TARGET: runs it; 0 if it found nothing wrong
one() {
    local t="$1" seeds="$HERE/corpus/$1" bin="$BUILD/fuzz_$1"
    mkdir -p "$WORK/found_$t"
    [ -d "$seeds" ] || { echo "fuzz_$t: no seed corpus $seeds: starting from nothing" >"$WORK/note_$t"; seeds=""; }
    # the first folder is where libFuzzer writes what it finds
    "$bin" -max_total_time="$SECONDS_EACH" -max_len="$max_len" -rss_limit_mb=2048 -timeout=10 \
        -artifact_prefix="$BUILD/crash_${t}_" -print_final_stats=1 \
        "$WORK/found_$t" ${seeds:+"$seeds"} >"$WORK/log_$t" 2>&1
}

status=0
running=0
declare -A pid_of
report() {  # TARGET RC
    local t="$1" rc="$2"
    [ -f "$WORK/note_$t" ] && cat "$WORK/note_$t"
    if [ "$rc" -ne 0 ]; then
        tail -n 60 "$WORK/log_$t" >&2
        echo "fuzz_$t FAILED (exit $rc; artifact under $BUILD/crash_${t}_*)" >&2
        status=1
    else
        local execs cov
        execs="$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$WORK/log_$t" | tail -1)"
        cov="$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$WORK/log_$t" | tail -1)"
        echo "fuzz_$t: ${SECONDS_EACH} s, ${execs:-?} runs, ${cov:-no coverage line}, seeds $(ls "$HERE/corpus/$t" 2>/dev/null | wc -l)"
    fi
}
for t in "${targets[@]}"; do
    one "$t" &
    pid_of[$!]="$t"
    running=$((running + 1))
    if [ "$running" -ge "$JOBS" ]; then
        wait -n -p done_pid; rc=$?
        report "${pid_of[$done_pid]}" "$rc"
        running=$((running - 1))
    fi
done
while [ "$running" -gt 0 ]; do
    wait -n -p done_pid; rc=$?
    report "${pid_of[$done_pid]}" "$rc"
    running=$((running - 1))
done

if [ "$grow" = 1 ] && [ "$status" = 0 ]; then
    for t in "${targets[@]}"; do
        dest="$HERE/corpus/$t"
        mkdir -p "$dest"
        before="$(ls "$dest" | wc -l) files, $(du -sb "$dest" | cut -f1) bytes"
        if ! "$BUILD/fuzz_$t" -merge=1 -max_len="$max_len" -rss_limit_mb=2048 -timeout=10 "$dest" \
            "$WORK/found_$t" >"$WORK/merge_$t" 2>&1; then
            tail -n 20 "$WORK/merge_$t" >&2
            echo "fuzz_$t: merge FAILED" >&2
            status=1
            continue
        fi
        echo "corpus/$t: $before -> $(ls "$dest" | wc -l) files, $(du -sb "$dest" | cut -f1) bytes"
    done
    echo "corpus: $(du -sb "$HERE/corpus" | cut -f1) bytes in all (keep it under 1 MB)"
fi
exit $status
