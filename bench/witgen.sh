#!/usr/bin/env bash
# Benchmark: witness generation alone, input.json + circuit -> witness.wtns,
# by each tool that does it, on the same files:
#   snarkjs   `snarkjs wtns calculate circuit.wasm input.json w.wtns` (node)
#   circom-c  circom's C++ generator (`circom --c`), built with g++ -O3 and
#             nasm (its Makefile), GMP and nlohmann-json from Debian
#   zkpipe    `zkpipe wtns calculate circuit.wasm input.json w.wtns`: the
#             wasm compiled to native code once (wasm2c + cc), then cached
#
# Usage: bench/witgen.sh ZKPIPE WORKDIR [NAME:N ...]
#   NAME:N  a circuit under bench/circuits (NAME.circom, NAME_input.json),
#           N replacing the argument of the `component main` line. Default:
#           poseidon_chain:269 poseidon_chain:1090 (64,560 and 261,600
#           constraints: ~2^16 and ~2^18) sha256_chain:2 sha256_chain:8
#           (~59k and ~235k).
#   env: CURVES="bn128 bls12381" (default both), RUNS=5 (timed runs of each
#        tool; the tools alternate run by run; 0: only compile, no table),
#        RESULTS=WORKDIR/witgen.txt
#
# Compiling is outside the medians and reported on its own: circom2 (--O2
# --r1cs --wasm --c, cached in WORKDIR by a stamp of the source, the input
# and the tools' versions), the C++ generator's make, and zkpipe's first run
# with an empty cache (its compile of the wasm plus one run). Every run is
# a whole process under /usr/bin/time -v (startup included): median, min,
# max wall seconds and the peak RSS (max over runs). Every tool's witness is
# compared with snarkjs's (cmp): "same" in the table, or the run fails.
# A ZKPIPE without the `wtns calculate` command (or not given: "-") leaves
# its column out with a note. This is a benchmark, not a test: it is not
# registered with ctest. It takes ~30 min here on a first run (the circom
# compiles at 2^18), ~5 min once they are cached.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
if [ $# -lt 2 ]; then
    echo "usage: $0 ZKPIPE|- WORKDIR [NAME:N ...]" >&2
    exit 2
fi
abspath() { case "$1" in /*) echo "$1" ;; */*) echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" ;; *) command -v "$1" || echo "$1" ;; esac; }
ZKPIPE="$1"
[ "$ZKPIPE" = - ] || ZKPIPE="$(abspath "$ZKPIPE")"
mkdir -p "$2"
WORK="$(cd "$2" && pwd)"
shift 2
circuits=("$@")
[ ${#circuits[@]} -gt 0 ] || circuits=(poseidon_chain:269 poseidon_chain:1090 sha256_chain:2 sha256_chain:8)
read -r -a curves <<<"${CURVES:-bn128 bls12381}"
RUNS="${RUNS:-5}"
RESULTS="${RESULTS:-$WORK/witgen.txt}"
case "$RUNS" in '' | *[!0-9]*) echo "RUNS must be a number" >&2; exit 2 ;; esac
# circom2 (WebAssembly, WASI) resolves its paths relative to its working directory
cd "$ROOT"

# scripts/deps.sh installs the rest (node_modules among it), when missing
if [ ! -x "$ROOT/node_modules/.bin/snarkjs" ] || [ ! -x "$ROOT/node_modules/.bin/circom2" ] || ! command -v wasm2c >/dev/null; then
    bash "$ROOT/scripts/deps.sh" >&2
fi
# circom's C++ generator: g++, nasm (fr.asm), GMP, nlohmann-json
need=()
command -v g++ >/dev/null || need+=(g++)
command -v nasm >/dev/null || need+=(nasm)
[ -f /usr/include/gmp.h ] || [ -f /usr/include/x86_64-linux-gnu/gmp.h ] || need+=(libgmp-dev)
[ -f /usr/include/nlohmann/json.hpp ] || need+=(nlohmann-json3-dev)
if [ ${#need[@]} -gt 0 ]; then
    echo "witgen: installing ${need[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
fi
SNARKJS="$ROOT/node_modules/.bin/snarkjs"
CIRCOM="$ROOT/node_modules/.bin/circom2"

have_zkpipe=0
zk_note="zkpipe: not given"
if [ "$ZKPIPE" != - ]; then
    if [ -x "$ZKPIPE" ] && "$ZKPIPE" wtns --help >/dev/null 2>&1; then
        have_zkpipe=1
    else
        zk_note="zkpipe: $ZKPIPE has no 'wtns calculate' command: its column is left out"
    fi
fi
[ $have_zkpipe = 1 ] || echo "witgen: $zk_note" >&2

# timed OUTFILE CMD... and stats FILE (whole processes, wall time and peak RSS)
# shellcheck source=timing.sh
. "$HERE/timing.sh"
[ "$ZKPIPE" = - ] || PROC_TIME="$(dirname "$ZKPIPE")/zkpipe-bench-proc" # timing.sh's timer, when built beside zkpipe
# r1cs_constraints FILE: the header's constraint count
r1cs_constraints() {
    node -e '
        const fs = require("fs"); const fd = fs.openSync(process.argv[1], "r");
        const rd = (pos, n) => { const b = Buffer.alloc(n); fs.readSync(fd, b, 0, n, pos); return b; };
        let pos = 12;
        for (let i = 0; i < rd(0, 12).readUInt32LE(8); i++) {
            const s = rd(pos, 12); const id = s.readUInt32LE(0), size = Number(s.readBigUInt64LE(4));
            if (id === 1) { const n8 = rd(pos + 12, 4).readUInt32LE(0); console.log(rd(pos + 16 + n8 + 24, 4).readUInt32LE(0)); process.exit(0); }
            pos += 12 + size;
        }
        throw new Error("no header");' "$1"
}
tool_versions="$(for p in circom2 circomlib snarkjs; do
    printf '%s %s\n' "$p" "$(node -p "require('$ROOT/node_modules/$p/package.json').version")"
done; g++ --version | head -1)"

rows="$WORK/rows.txt"
: >"$rows"
for curve in "${curves[@]}"; do
    for spec in "${circuits[@]}"; do
        c="${spec%%:*}"; n="${spec#*:}"
        src="$HERE/circuits/$c.circom"; input="$HERE/circuits/${c}_input.json"
        [ -f "$src" ] && [ -f "$input" ] || { echo "no $src / $input" >&2; exit 2; }
        case "$n" in '' | *[!0-9]*) echo "bad size in '$spec' (NAME:N)" >&2; exit 2 ;; esac
        d="$WORK/$curve/${c}_$n"
        mkdir -p "$d"
        gen="$(sed -E "/^component main/ s/\\(([0-9]+)\\);/($n);/" "$src")"
        stamp="$(printf '%s\n' "$gen" | grep -v '^[[:space:]]*//' | cat - "$input" <(printf '%s\n' "$tool_versions") |
            sha256sum | cut -d' ' -f1)"
        if [ ! -f "$d/.stamp" ] || [ "$(cat "$d/.stamp")" != "$stamp" ]; then
            rm -rf "$d/.stamp" "$d"/*.time "$d/${c}_js" "$d/${c}_cpp"
            printf '%s\n' "$gen" >"$d/$c.circom"
            echo "$curve/${c}_$n: compiling (circom2 --O2 --r1cs --wasm --c)" >&2
            timed "$d/circom.time" "$CIRCOM" "$d/$c.circom" --O2 --r1cs --wasm --c --prime "$curve" \
                -l "$ROOT/node_modules" -o "$d"
            echo "$curve/${c}_$n: building the C++ generator" >&2
            timed "$d/cpp_build.time" make -C "$d/${c}_cpp" -j2
            echo "$stamp" >"$d/.stamp"
        fi
        constraints="$(r1cs_constraints "$d/$c.r1cs")"
        wasm="$d/${c}_js/$c.wasm"; cpp="$d/${c}_cpp/$c"
        [ "$RUNS" -gt 0 ] || continue
        tools=(snarkjs circom-c)
        if [ $have_zkpipe = 1 ]; then
            tools+=(zkpipe)
            rm -rf "$d/zkpipe-cache" "$d/zkpipe_first.time"
            echo "$curve/${c}_$n: zkpipe's first run (compiling the wasm)" >&2
            ZKPIPE_CACHE="$d/zkpipe-cache" timed "$d/zkpipe_first.time" "$ZKPIPE" wtns calculate "$wasm" "$input" "$d/zkpipe.wtns"
        fi
        for t in "${tools[@]}"; do rm -f "$d/$t.times"; done
        cat "$wasm" "$cpp" "$d/${c}_cpp/$c.dat" "$input" >/dev/null # all from the page cache
        for i in $(seq "$RUNS"); do
            echo "$curve/${c}_$n: run $i/$RUNS" >&2
            timed "$d/snarkjs.times" "$SNARKJS" wtns calculate "$wasm" "$input" "$d/snarkjs.wtns"
            timed "$d/circom-c.times" "$cpp" "$input" "$d/circom-c.wtns"
            if [ $have_zkpipe = 1 ]; then
                ZKPIPE_CACHE="$d/zkpipe-cache" timed "$d/zkpipe.times" "$ZKPIPE" wtns calculate "$wasm" "$input" "$d/zkpipe.wtns"
            fi
        done
        sj_med="$(stats "$d/snarkjs.times" | cut -d' ' -f1)"
        for t in "${tools[@]}"; do
            same=same
            cmp -s "$d/snarkjs.wtns" "$d/$t.wtns" || same=DIFFERENT
            read -r med mn mx mb < <(stats "$d/$t.times")
            case "$t" in
            snarkjs) comp="circom2 $(cut -d' ' -f1 "$d/circom.time") s" ;;
            circom-c) comp="make $(cut -d' ' -f1 "$d/cpp_build.time") s" ;;
            zkpipe) comp="1st run $(cut -d' ' -f1 "$d/zkpipe_first.time") s" ;;
            esac
            ratio="$(awk -v a="$sj_med" -v b="$med" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')"
            printf '%-9s %-20s %8s  %-9s %3d %8s %8s %8s %7s %8s  %-18s %s\n' "$curve" "${c}:$n" "$constraints" "$t" \
                "$RUNS" "$med" "$mn" "$mx" "$mb" "$ratio" "$comp" "$same" >>"$rows"
            if [ $same != same ]; then echo "$curve/${c}_$n: $t's witness differs from snarkjs's" >&2; fi
        done
    done
done

[ "$RUNS" -gt 0 ] || exit 0
{
    echo "witness generation: wall s (median, min, max over n runs, startup included), peak RSS MB (max over runs);"
    echo "x = snarkjs median / this tool's median; compile: circom2's compile of the circuit (for all tools), the"
    echo "C++ generator's make, zkpipe's first run with an empty cache (wasm -> native, plus one run); not in the medians."
    echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'))"
    [ $have_zkpipe = 1 ] || echo "$zk_note"
    printf '%-9s %-20s %8s  %-9s %3s %8s %8s %8s %7s %8s  %-18s %s\n' curve circuit constr tool n median min max RSS_MB x \
        compile witness
    cat "$rows"
} | tee "$RESULTS"
! grep -q DIFFERENT "$rows"
