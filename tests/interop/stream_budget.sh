#!/usr/bin/env bash
# Proofs larger than their memory budget (issue 32), from outside: for
# bn128 at 2^14 and 2^16 and bls12381 at 2^14 (synthetic circuits of
# zkpipe-bench-circuit, keys from zkpipe setup):
# - a budget of 1 MiB is refused with a message naming the key's minimum;
# - at 1/8 of the in-memory proof's peak RSS, the proof streams, or, when
#   that is below the minimum, it is refused naming the minimum;
# - at half the in-memory peak (when not below the minimum) and at the
#   minimum (a, b, c spilled to a scratch file, the witness paged out to
#   it after synthesis) the proof streams; so does it at the minimum
#   without paging (ZKPIPE_STREAM_PAGE=0), which is higher;
# - snarkjs groth16 verify accepts every proof, and the process's peak RSS
#   (GNU time) stays within the budget;
# - zkpipe-test-stream checks the window's tracker class (back to zero
#   after each proof) and a key truncated or changed while streamed (a
#   clear error, no proof), at the minimum;
# - the same proofs with the portable arithmetic (no IFMA lanes, no ADX)
#   verify too;
# - the scratch file of the spilled a, b, c is open (without a name) while
#   a proof at the minimum runs, and nothing is left in its directory after
#   a proof or after SIGTERM (a failed proof closes it the same way).
# Usage: tests/interop/stream_budget.sh ZKPIPE ZKPIPE-BENCH-CIRCUIT ZKPIPE-TEST-STREAM WORKDIR
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
Z="$1"
GEN="$2"
CHECKER="$3"
W="$4"
rm -rf "$W"
mkdir -p "$W"
SNARKJS="$ROOT/node_modules/.bin/snarkjs"
TIME=/usr/bin/time
passed=0
failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
if [ ! -x "$TIME" ]; then
    echo "GNU time (/usr/bin/time) is missing: skipped"
    exit 77
fi
SEED=$(( (RANDOM << 16) | RANDOM ))
echo "seed $SEED"

# prove NAME BUDGET_BYTES DIR [ENV...]: a proof within the budget that snarkjs accepts
prove() {
    local name="$1" budget="$2" d="$3"
    shift 3
    rm -f "$d/proof.json" "$d/public.json"
    if ! env "$@" "$TIME" -f "%M" -o "$d/rss.txt" "$Z" prove -v --threads 2 --budget "$budget" "$d/c.zkey" \
        "$d/c.wtns" "$d/proof.json" "$d/public.json" >"$d/out.txt" 2>&1; then
        fail "$name: proved" "$(tail -2 "$d/out.txt")"
        return
    fi
    local rss=$(( $(tail -1 "$d/rss.txt") * 1024 ))
    grep -q "streamed the key's points" "$d/out.txt" && pass "$name: streamed ($(grep streamed "$d/out.txt" | sed 's/^ *//'))" \
        || fail "$name: streamed" "$(tail -1 "$d/out.txt")"
    if [ "$rss" -le "$budget" ]; then
        pass "$name: peak RSS $((rss >> 10)) KiB <= budget $((budget >> 10)) KiB"
    else
        fail "$name: peak RSS within the budget" "$((rss >> 10)) KiB > $((budget >> 10)) KiB"
    fi
    if "$SNARKJS" groth16 verify "$d/vk.json" "$d/public.json" "$d/proof.json" >"$d/v.txt" 2>&1 && grep -q "OK" "$d/v.txt"; then
        pass "$name: snarkjs accepts the proof"
    else
        fail "$name: snarkjs accepts the proof" "$(tail -2 "$d/v.txt")"
    fi
}

for spec in bn128:14 bn128:16 bls12381:14; do
    curve="${spec%%:*}"
    k="${spec#*:}"
    d="$W/$curve-$k"
    mkdir -p "$d"
    t="$curve 2^$k"
    "$GEN" --curve "$curve" --log "$k" --public 2 --seed "$SEED" "$d/c.r1cs" "$d/c.wtns" >/dev/null 2>&1 \
        && "$Z" setup --quiet "$d/c.r1cs" "$d/c.zkey" >"$d/out.txt" 2>&1 && "$Z" export-vk "$d/c.zkey" "$d/vk.json" \
        || { fail "$t: circuit and key" "$(tail -2 "$d/out.txt")"; continue; }
    # the in-memory proof's peak
    "$TIME" -f "%M" -o "$d/rss.txt" "$Z" prove --threads 2 "$d/c.zkey" "$d/c.wtns" "$d/proof.json" "$d/public.json" \
        || { fail "$t: in-memory proof" "failed"; continue; }
    full=$(( $(tail -1 "$d/rss.txt") * 1024 ))
    # a budget of 1 MiB: refused, naming the minimum
    if "$Z" prove --budget 1M "$d/c.zkey" "$d/c.wtns" "$d/p.json" "$d/q.json" >"$d/out.txt" 2>&1; then
        fail "$t: 1 MiB refused" "it proved"
        continue
    fi
    msg=$(head -1 "$d/out.txt")
    cp "$d/out.txt" "$d/refused.txt"
    min_mib=$(sed -n 's/.*below the minimum for this .* key of domain 2^[0-9]*: \([0-9.]*\) MiB.*/\1/p' "$d/out.txt")
    if [ -z "$min_mib" ] || [ -e "$d/p.json" ]; then
        fail "$t: 1 MiB refused naming the minimum" "$msg"
        continue
    fi
    pass "$t: 1 MiB refused ($msg)"
    min=$(awk -v m="$min_mib" 'BEGIN { printf "%d", (m + 0.1) * 1048576 }') # the message rounds to 0.1 MiB
    eighth=$((full / 8))
    echo "$t: in memory peak $((full >> 10)) KiB, 1/8 $((eighth >> 10)) KiB, minimum $min_mib MiB"
    if [ "$eighth" -ge "$min" ]; then
        prove "$t at 1/8 of in memory" "$eighth" "$d"
    else
        if "$Z" prove --budget "$eighth" "$d/c.zkey" "$d/c.wtns" "$d/p.json" "$d/q.json" >"$d/out.txt" 2>&1; then
            fail "$t: 1/8 refused" "it proved below the minimum"
        elif grep -q "below the minimum" "$d/out.txt" && [ ! -e "$d/p.json" ]; then
            pass "$t: 1/8 of in memory ($((eighth >> 10)) KiB) is below the minimum: refused, naming it"
        else
            fail "$t: 1/8 refused naming the minimum" "$(head -1 "$d/out.txt")"
        fi
    fi
    # just below what the in-memory proof is planned at: streamed, a, b, c
    # resident beside the window
    inmem_mib=$(sed -n 's/.*(in memory it needs \([0-9.]*\) MiB.*/\1/p' "$d/refused.txt")
    below=$(awk -v m="$inmem_mib" 'BEGIN { printf "%d", (m - 0.5) * 1048576 }')
    prove "$t just below the in-memory plan" "$below" "$d"
    grep -q "a, b, c resident" "$d/out.txt" && pass "$t just below the in-memory plan: a, b, c resident" \
        || fail "$t just below the in-memory plan: a, b, c resident" "$(grep streamed "$d/out.txt")"
    prove "$t at the minimum" "$min" "$d"
    grep -q "a, b, c spilled, the witness paged" "$d/out.txt" && pass "$t at the minimum: a, b, c spilled, the witness paged" \
        || fail "$t at the minimum: a, b, c spilled, the witness paged" "$(grep streamed "$d/out.txt")"
    # the spilled path without paging, at its own minimum (named when a
    # budget below it is refused)
    ZKPIPE_STREAM_PAGE=0 "$Z" prove --budget 1M "$d/c.zkey" "$d/c.wtns" "$d/p.json" "$d/q.json" >"$d/out.txt" 2>&1
    spill_mib=$(sed -n 's/.*below the minimum for this .* key of domain 2^[0-9]*: \([0-9.]*\) MiB.*/\1/p' "$d/out.txt")
    spill_min=$(awk -v m="$spill_mib" 'BEGIN { printf "%d", (m + 0.1) * 1048576 }')
    if [ -n "$spill_mib" ] && [ "$spill_min" -gt "$min" ]; then
        pass "$t: paging the witness lowers the minimum ($min_mib MiB against $spill_mib spilled)"
    else
        fail "$t: paging the witness lowers the minimum" "paged $min_mib MiB, spilled '$spill_mib'"
    fi
    prove "$t at the spilled minimum, not paged" "$spill_min" "$d" ZKPIPE_STREAM_PAGE=0
    grep "a, b, c spilled" "$d/out.txt" | grep -vq "paged" && pass "$t at the spilled minimum: spilled, not paged" \
        || fail "$t at the spilled minimum: spilled, not paged" "$(grep streamed "$d/out.txt")"
    prove "$t at the minimum, portable arithmetic" "$min" "$d" ZKPIPE_SIMD=0 ZKPIPE_ADX=0
    # BN254's streamed MSMs (G1, G2) on the AVX2 FMA lanes, even where the CPU
    # has IFMA (src/field/fma.h; without AVX2 the scalar path)
    prove "$t at the minimum, ZKPIPE_SIMD=avx2" "$min" "$d" ZKPIPE_SIMD=avx2
    mkdir -p "$d/scratch"
    prove "$t at the minimum, scratch in ZKPIPE_SCRATCH_DIR" "$min" "$d" ZKPIPE_SCRATCH_DIR="$d/scratch"
    # the scratch file: in use while proving at the minimum (open, no
    # name; watched for on the 2^16 key, one thread, long enough to see
    # it), gone after SIGTERM and after success
    ZKPIPE_SCRATCH_DIR="$d/scratch" "$Z" prove --threads 1 --budget "$min" "$d/c.zkey" "$d/c.wtns" "$d/p.json" \
        "$d/q.json" >/dev/null 2>&1 &
    pid=$!
    seen=0
    for _ in $(seq 1 1000); do
        if ls -l /proc/$pid/fd 2>/dev/null | grep -q "$d/scratch"; then seen=1; break; fi
        kill -0 $pid 2>/dev/null || break
        sleep 0.005
    done
    kill -TERM $pid 2>/dev/null
    wait $pid 2>/dev/null
    if [ -n "$(ls -A "$d/scratch")" ]; then
        fail "$t: no spill file left after SIGTERM" "$(ls -A "$d/scratch" | head -3)"
    elif [ "$seen" = 1 ]; then
        pass "$t: the spill file was open (unnamed) while proving, and is gone after SIGTERM"
    elif [ "$k" -ge 16 ]; then
        fail "$t: the spill file was open while proving" "never seen in /proc/$pid/fd"
    else
        pass "$t: no spill file left after SIGTERM (the proof was too quick to watch)"
    fi
    ZKPIPE_SCRATCH_DIR="$d/scratch" "$Z" prove --threads 2 --budget "$min" "$d/c.zkey" "$d/c.wtns" "$d/p.json" \
        "$d/q.json" >/dev/null 2>&1
    [ -z "$(ls -A "$d/scratch")" ] && pass "$t: no scratch file left after a proof" \
        || fail "$t: no scratch file left after a proof" "$(ls -A "$d/scratch" | head -3)"
    if "$CHECKER" "$d/c.zkey" "$d/c.wtns" "$min" >"$d/check.txt" 2>&1; then
        pass "$t: window class, spoiled keys ($(grep -c . "$d/check.txt") lines)"
    else
        fail "$t: window class, spoiled keys" "$(grep -E 'check failed|FAIL' "$d/check.txt" | head -3)"
    fi
    grep -E "key:|reader" "$d/check.txt" | sed 's/^/    /'
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
