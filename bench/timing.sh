# Timing helpers for the benchmark scripts (sourced): whole processes,
# timed by zkpipe-bench-proc (bench/proc_time.c) when PROC_TIME names it,
# else under /usr/bin/time -v with the wall time from the clock in ns.

# timed OUTFILE CMD...: runs CMD; appends "seconds maxrss_kb cpu_seconds"
# (cpu: user + system). zkpipe-bench-proc measures from the spawn to
# wait4 with microsecond CPU times; the fallback's wall time includes
# /usr/bin/time's own start and exit (~1-2 ms) and its CPU time comes in
# 10 ms steps, coarse for runs of a few tens of ms. On failure prints
# CMD's last lines, returns 1.
timed() {
    local out="$1"; shift
    local tf log t0 t1 ok=1
    tf="$(mktemp)"; log="$(mktemp)"
    if [ -n "${PROC_TIME:-}" ] && [ -x "$PROC_TIME" ]; then
        "$PROC_TIME" "$tf" "$@" >"$log" 2>&1 && cat "$tf" >>"$out" || ok=0
    else
        t0="$(date +%s%N)"
        /usr/bin/time -v -o "$tf" "$@" >"$log" 2>&1 || ok=0
        t1="$(date +%s%N)"
        [ "$ok" = 0 ] || awk -F': ' -v ns=$((t1 - t0)) '/Maximum resident set size/ {m = $2}
                /User time|System time/ {c += $2}
                END {printf "%.3f %d %.2f\n", ns / 1e9, m, c}' "$tf" >>"$out"
    fi
    if [ "$ok" = 0 ]; then
        echo "FAILED: $*" >&2
        sed 's/\x1b\[[0-9;]*m//g' "$log" | tail -30 >&2
    fi
    rm -f "$tf" "$log"
    [ "$ok" = 1 ]
}

# stats FILE: "median min max peak_rss_mb" of a "seconds maxrss_kb" file
stats() {
    sort -n -k1,1 "$1" | awk '{t[NR]=$1; if ($2>m) m=$2}
        END {med = (NR%2) ? t[(NR+1)/2] : (t[NR/2]+t[NR/2+1])/2
             printf "%.4f %.4f %.4f %.0f\n", med, t[1], t[NR], m/1024}'
}

# cpu_per_wall FILE: the median over the runs of CPU time / wall time
cpu_per_wall() {
    awk '$1 > 0 {print $3 / $1}' "$1" | sort -n | awk '{v[NR]=$1}
        END {if (NR == 0) print "-"; else printf "%.2f\n", (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'
}
