# Timing helpers for the benchmark scripts (sourced): whole processes
# under /usr/bin/time -v, wall time from the clock in ns.

# timed OUTFILE CMD...: CMD under /usr/bin/time -v; appends "seconds maxrss_kb
# cpu_seconds" (the wall time from the clock in ns: time -v's has 10 ms
# steps, coarse for runs of a few tens of ms; the CPU time is user + system,
# in those steps). On failure prints CMD's last lines, returns 1.
timed() {
    local out="$1"; shift
    local tf log t0 t1
    tf="$(mktemp)"; log="$(mktemp)"
    t0="$(date +%s%N)"
    if ! /usr/bin/time -v -o "$tf" "$@" >"$log" 2>&1; then
        echo "FAILED: $*" >&2
        sed 's/\x1b\[[0-9;]*m//g' "$log" | tail -30 >&2
        rm -f "$tf" "$log"
        return 1
    fi
    t1="$(date +%s%N)"
    awk -F': ' -v ns=$((t1 - t0)) '/Maximum resident set size/ {m = $2}
                /User time|System time/ {c += $2}
                END {printf "%.3f %d %.2f\n", ns / 1e9, m, c}' "$tf" >>"$out"
    rm -f "$tf" "$log"
}

# stats FILE: "median min max peak_rss_mb" of a "seconds maxrss_kb" file
stats() {
    sort -n -k1,1 "$1" | awk '{t[NR]=$1; if ($2>m) m=$2}
        END {med = (NR%2) ? t[(NR+1)/2] : (t[NR/2]+t[NR/2+1])/2
             printf "%.3f %.3f %.3f %.0f\n", med, t[1], t[NR], m/1024}'
}

# cpu_per_wall FILE: the median over the runs of CPU time / wall time
cpu_per_wall() {
    awk '$1 > 0 {print $3 / $1}' "$1" | sort -n | awk '{v[NR]=$1}
        END {if (NR == 0) print "-"; else printf "%.2f\n", (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'
}
