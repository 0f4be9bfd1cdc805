#!/usr/bin/env bash
# Benchmark: zkpipe prove vs snarkjs groth16 prove, on the SAME .zkey and .wtns.
#
# Usage: bench/prove_vs_snarkjs.sh ZKPIPE WORKDIR [circuit...]
#   circuit: NAME, NAME:N or NAME:2^K, NAME a circuit under bench/circuits
#            (NAME.circom + NAME_input.json). N replaces the argument of the
#            template in the `component main` line (the chain length); NAME
#            alone keeps the committed N (the 2^16 size); NAME:2^K picks the N
#            that gives a domain of 2^K (K = 16, 18, 20; table below).
#            Default: poseidon_chain mulchain (both at 2^16).
#   env: CURVES="bn128 bls12381" (default both)
#        RUNS=3          timed runs of zkpipe prove (0: none)
#        SNARKJS_RUNS    timed runs of snarkjs groth16 prove (default RUNS; 0: none).
#                        RUNS=0 alone prepares the files (compile, witness, key) only.
#        SETUP_ZKPIPE    the zkpipe binary that makes the keys (default ZKPIPE): keys
#                        are cached, so one fixed binary keeps them from being remade
#        ZKPIPE_ARGS     extra options for `zkpipe prove` (e.g. "-t 2", "--no-verify")
#        JSON=WORKDIR/prove.json, MERGE=0 (1: keep the entries of JSON that this
#                        invocation does not redo, so a matrix can be run in parts)
#        RESULTS=WORKDIR/results.txt (the table)
#        CIRCUITS_DIR=bench/circuits
#
# For each curve and circuit: generate WORKDIR/CURVE/NAME_N/NAME.circom, compile
# it with circom2 (--O2; redone only when the source (comment lines aside), N,
# the input or the versions of circom2, circomlib, snarkjs change), witness with
# snarkjs wtns calculate, key with
# `SETUP_ZKPIPE setup` (a snarkjs setup would need a ptau whose prepare phase2
# takes ~23 min here at 2^16) and the verification key with snarkjs; the time and
# peak RSS of each step go to compile.time, witness.time, setup.time there. Then
# the .zkey and .wtns are read once (page cache) and the two provers run
# alternately, /usr/bin/time -f '%e %M' around each. The last proof of each is
# checked with snarkjs groth16 verify. Reported per prover: runs, median, min and
# max wall time, peak RSS (max over runs); ratio = snarkjs median / zkpipe median.
# Results: WORKDIR/prove.json (an array, one object per curve and circuit) and
# the table, printed and written to WORKDIR/results.txt (made from the JSON, so
# with MERGE=1 it shows the whole merged matrix).
#
# Full matrix (both curves; at 2^20 the multiplication chain only, and one
# snarkjs run: 107 s, 2.6 GB on bn128; 155 s, 3.2 GB on bls12381):
#   B=bench/prove_vs_snarkjs.sh; export SETUP_ZKPIPE=/tmp/bench/zkpipe-setup
#   RUNS=3 bash $B build/zkpipe /tmp/bench poseidon_chain mulchain \
#       poseidon_chain:2^18 mulchain:2^18
#   RUNS=3 SNARKJS_RUNS=1 MERGE=1 bash $B build/zkpipe /tmp/bench mulchain:2^20
#
# Sizes (circom2 0.2.23 = circom 2.2.3, --O2; 240 constraints per Poseidon(2),
# one per multiplication; 2 public signals; domain = next power of two
# >= constraints + public + 1):
#   2^16: poseidon_chain:269  (64,560)     mulchain:65000   (65,000)
#   2^18: poseidon_chain:1090 (261,600)    mulchain:262000  (262,000)
#   2^20: poseidon_chain:4360 (1,046,400)  mulchain:1048000 (1,048,000)
# Measured on the 2-core dev machine (wall s, peak RSS), both curves alike unless
# given; the range is from an idle machine to one busy with other builds:
#   poseidon_chain 2^16: compile 35-72 s, 425 MB; witness 2.3 s (bn128), 3.1 s (bls12381)
#     (at the default --O1 it keeps 73,706 linear constraints: 139k in all, domain 2^18)
#   mulchain 2^16: compile 15-31 s, 250 MB; witness < 1 s
#   2^18 and 2^20 (two compiles at once, nice 10, on a machine busy with builds):
#     poseidon_chain 2^18: compile 313-321 s, 1.2 GB; witness 4.4-4.6 s; setup 34 s (bn128), 54 s (bls12381)
#     mulchain 2^18: compile 215-227 s, 630 MB; witness 1.2-1.5 s; setup 15 s / 31 s
#     mulchain 2^20: compile 3150-3190 s (~30 min of CPU), 2.2 GB; witness 1.5-1.7 s;
#       setup 43 s, 870 MB (bn128) / 83 s, 1.06 GB (bls12381); .zkey 472 MB / 664 MB
#     poseidon_chain 2^20 (4360): not cached; --O2 compile time grows faster than
#       linearly (mulchain: 4x the constraints took 14x the time), so expect over an hour
#   zkpipe setup at 2^16: 3.5-38 s, < 100 MB.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"

if [ $# -lt 2 ]; then
    echo "usage: $0 ZKPIPE WORKDIR [NAME | NAME:N | NAME:2^K ...]" >&2
    exit 2
fi
abspath() { case "$1" in /*) echo "$1" ;; */*) echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" ;; *) command -v "$1" || echo "$1" ;; esac; }
ZKPIPE="$(abspath "$1")"
SETUP_ZKPIPE="$(abspath "${SETUP_ZKPIPE:-$ZKPIPE}")"
mkdir -p "$2"
WORK="$(cd "$2" && pwd)"
# circom2 (WebAssembly, WASI) resolves its paths relative to its working directory
cd "$ROOT"
shift 2
circuits=("$@")
[ ${#circuits[@]} -gt 0 ] || circuits=(poseidon_chain mulchain)
read -r -a curves <<<"${CURVES:-bn128 bls12381}"
RUNS="${RUNS:-3}"
SNARKJS_RUNS="${SNARKJS_RUNS:-$RUNS}"
read -r -a zkargs <<<"${ZKPIPE_ARGS:-}"
JSON="${JSON:-$WORK/prove.json}"
RESULTS="${RESULTS:-$WORK/results.txt}"
MERGE="${MERGE:-0}"
CDIR="$(cd "${CIRCUITS_DIR:-$HERE/circuits}" && pwd)"
case "$RUNS$SNARKJS_RUNS" in *[!0-9]*) echo "RUNS and SNARKJS_RUNS must be numbers" >&2; exit 2 ;; esac

bash "$ROOT/scripts/deps.sh" >&2
# shellcheck source=../scripts/common.sh
. "$ROOT/scripts/common.sh"
SNARKJS="$ROOT/node_modules/.bin/snarkjs"
CIRCOM="$ROOT/node_modules/.bin/circom2"

if [ "$RUNS" -gt 0 ]; then
    [ -x "$ZKPIPE" ] || { echo "ZKPIPE '$ZKPIPE' is not executable" >&2; exit 2; }
fi

# size_for NAME K: the chain length that gives a domain of 2^K
size_for() {
    case "$1:$2" in
    poseidon_chain:16) echo 269 ;; poseidon_chain:18) echo 1090 ;; poseidon_chain:20) echo 4360 ;;
    mulchain:16) echo 65000 ;; mulchain:18) echo 262000 ;; mulchain:20) echo 1048000 ;;
    *) echo "no size for $1 at 2^$2: give NAME:N" >&2; return 1 ;;
    esac
}

# timed OUTFILE CMD...: run CMD under /usr/bin/time, append "seconds maxrss_kb" to OUTFILE
timed() {
    local out="$1"; shift
    local tf log
    tf="$(mktemp)"; log="$(mktemp)"
    if ! /usr/bin/time -f '%e %M' -o "$tf" "$@" >"$log" 2>&1; then
        echo "FAILED: $*" >&2
        sed 's/\x1b\[[0-9;]*m//g' "$log" | tail -30 >&2
        rm -f "$tf" "$log"
        return 1
    fi
    tail -1 "$tf" >>"$out"
    rm -f "$tf" "$log"
}

# stats FILE: "median min max peak_rss_mb" of a times file ("seconds maxrss_kb" lines)
stats() {
    sort -n -k1,1 "$1" | awk '{t[NR]=$1; if ($2>m) m=$2}
        END {med = (NR%2) ? t[(NR+1)/2] : (t[NR/2]+t[NR/2+1])/2
             printf "%.2f %.2f %.2f %.0f\n", med, t[1], t[NR], m/1024}'
}
# step_json FILE: {"s":..,"rss_mb":..} from a one-line times file, or null
step_json() {
    if [ -s "$1" ]; then awk 'END {printf "{\"s\": %.2f, \"rss_mb\": %.0f}", $1, $2/1024}' "$1"; else printf null; fi
}
# prover_json RUNS FILE
prover_json() {
    if [ "$1" -gt 0 ]; then
        read -r med mn mx mb < <(stats "$2")
        printf '{"runs": %d, "median_s": %s, "min_s": %s, "max_s": %s, "peak_rss_mb": %s}' "$1" "$med" "$mn" "$mx" "$mb"
    else
        printf null
    fi
}
# header fields of snarkjs binary files, read with node (only the first bytes)
# r1cs_info FILE: "nConstraints nWires nPubOut nPubIn"
r1cs_info() {
    node -e '
        const fs = require("fs"); const fd = fs.openSync(process.argv[1], "r");
        const rd = (pos, n) => { const b = Buffer.alloc(n); fs.readSync(fd, b, 0, n, pos); return b; };
        const h = rd(0, 12); if (h.toString("latin1", 0, 4) !== "r1cs") throw new Error("not r1cs");
        let pos = 12;
        for (let i = 0; i < h.readUInt32LE(8); i++) {
            const s = rd(pos, 12); const id = s.readUInt32LE(0), size = Number(s.readBigUInt64LE(4));
            if (id === 1) {
                const n8 = rd(pos + 12, 4).readUInt32LE(0); const b = rd(pos + 16 + n8, 28);
                console.log(b.readUInt32LE(24), b.readUInt32LE(0), b.readUInt32LE(4), b.readUInt32LE(8)); process.exit(0);
            }
            pos += 12 + size;
        }
        throw new Error("no header");' "$1"
}
# zkey_domain_log2 FILE
zkey_domain_log2() {
    node -e '
        const fs = require("fs"); const fd = fs.openSync(process.argv[1], "r");
        const rd = (pos, n) => { const b = Buffer.alloc(n); fs.readSync(fd, b, 0, n, pos); return b; };
        const h = rd(0, 12); if (h.toString("latin1", 0, 4) !== "zkey") throw new Error("not zkey");
        let pos = 12;
        for (let i = 0; i < h.readUInt32LE(8); i++) {
            const s = rd(pos, 12); const id = s.readUInt32LE(0), size = Number(s.readBigUInt64LE(4));
            if (id === 2) {
                let p = pos + 12; const n8q = rd(p, 4).readUInt32LE(0); p += 4 + n8q;
                const n8r = rd(p, 4).readUInt32LE(0); p += 4 + n8r;
                const d = rd(p + 8, 4).readUInt32LE(0); console.log(Math.log2(d)); process.exit(0);
            }
            pos += 12 + size;
        }
        throw new Error("no header");' "$1"
}

# what the compiled circuits depend on besides their source: the versions
# of the compiler, the circuit library and snarkjs (not the whole lockfile,
# whose unrelated changes would recompile everything: ~50 min at 2^20)
tool_versions="$(for p in circom2 circomlib snarkjs; do
    printf '%s %s\n' "$p" "$(node -p "require('$ROOT/node_modules/$p/package.json').version")"
done)"

rowfiles=()
for curve in "${curves[@]}"; do
    for spec in "${circuits[@]}"; do
        c="${spec%%:*}"
        src="$CDIR/$c.circom"
        input="$CDIR/${c}_input.json"
        [ -f "$src" ] && [ -f "$input" ] || { echo "no $src / $input" >&2; exit 2; }
        n0="$(sed -nE 's/^component main.*\(([0-9]+)\);.*$/\1/p' "$src")"
        [ -n "$n0" ] || { echo "$src: no 'component main ... = T(N);' line" >&2; exit 2; }
        case "$spec" in
        *:2^*) n="$(size_for "$c" "${spec##*^}")" ;;
        *:*) n="${spec#*:}" ;;
        *) n="$n0" ;;
        esac
        case "$n" in '' | *[!0-9]*) echo "bad size in '$spec'" >&2; exit 2 ;; esac
        d="$WORK/$curve/${c}_$n"
        mkdir -p "$d"
        gen="$(sed -E "/^component main/ s/\\(([0-9]+)\\);/($n);/" "$src")"
        # whole-line comments are left out of the stamp: editing them recompiles nothing
        stamp="$(printf '%s\n' "$gen" | grep -v '^[[:space:]]*//' | cat - "$input" <(printf '%s\n' "$tool_versions") |
            sha256sum | cut -d' ' -f1)"
        if [ ! -f "$d/.stamp" ] || [ "$(cat "$d/.stamp")" != "$stamp" ]; then
            rm -rf "$d/.stamp" "$d/key.zkey" "$d/vk.json" "$d/compile.time" "$d/witness.time" "$d/setup.time" "$d/${c}_js"
            printf '%s\n' "$gen" >"$d/$c.circom"
            echo "$curve/${c}_$n: compiling" >&2
            timed "$d/compile.time" "$CIRCOM" "$d/$c.circom" --O2 --r1cs --wasm --prime "$curve" -l "$ROOT/node_modules" -o "$d"
            timed "$d/witness.time" "$SNARKJS" wtns calculate "$d/${c}_js/$c.wasm" "$input" "$d/w.wtns"
            echo "$curve/${c}_$n: compiled in $(cut -d' ' -f1 "$d/compile.time") s, witness in $(cut -d' ' -f1 "$d/witness.time") s" >&2
            echo "$stamp" >"$d/.stamp"
        fi
        read -r nconstr nwires npubout npubin < <(r1cs_info "$d/$c.r1cs")

        if [ ! -s "$d/key.zkey" ] || [ ! -s "$d/vk.json" ]; then
            rm -f "$d/setup.time" "$d/key.zkey" "$d/vk.json" "$d/key.zkey.tmp"
            [ -x "$SETUP_ZKPIPE" ] || { echo "SETUP_ZKPIPE '$SETUP_ZKPIPE' is not executable" >&2; exit 2; }
            echo "$curve/${c}_$n: setup ($nconstr constraints)" >&2
            timed "$d/setup.time" "$SETUP_ZKPIPE" setup "$d/$c.r1cs" "$d/key.zkey.tmp"
            mv "$d/key.zkey.tmp" "$d/key.zkey"
            echo "$curve/${c}_$n: zkpipe setup $(cut -d' ' -f1 "$d/setup.time") s" >&2
            quiet "$SNARKJS" zkey export verificationkey "$d/key.zkey" "$d/vk.json"
        fi
        dlog="$(zkey_domain_log2 "$d/key.zkey")"
        zbytes="$(stat -c %s "$d/key.zkey")"

        rm -f "$d/zkpipe.times" "$d/snarkjs.times" "$d/zk_proof.json" "$d/zk_public.json" "$d/sj_proof.json" "$d/sj_public.json"
        if [ "$RUNS" -gt 0 ] || [ "$SNARKJS_RUNS" -gt 0 ]; then
            cat "$d/key.zkey" "$d/w.wtns" >/dev/null # both provers start from the page cache
        fi
        nmax=$((RUNS > SNARKJS_RUNS ? RUNS : SNARKJS_RUNS))
        for i in $(seq "$nmax"); do
            echo "$curve/${c}_$n: run $i/$nmax" >&2
            if [ "$i" -le "$RUNS" ]; then
                timed "$d/zkpipe.times" "$ZKPIPE" prove ${zkargs[@]+"${zkargs[@]}"} "$d/key.zkey" "$d/w.wtns" "$d/zk_proof.json" "$d/zk_public.json"
            fi
            if [ "$i" -le "$SNARKJS_RUNS" ]; then
                timed "$d/snarkjs.times" "$SNARKJS" groth16 prove "$d/key.zkey" "$d/w.wtns" "$d/sj_proof.json" "$d/sj_public.json"
            fi
        done
        if [ "$RUNS" -gt 0 ]; then
            quiet "$SNARKJS" groth16 verify "$d/vk.json" "$d/zk_public.json" "$d/zk_proof.json"
        fi
        if [ "$SNARKJS_RUNS" -gt 0 ]; then
            quiet "$SNARKJS" groth16 verify "$d/vk.json" "$d/sj_public.json" "$d/sj_proof.json"
        fi

        zj="$(prover_json "$RUNS" "$d/zkpipe.times")"
        sj="$(prover_json "$SNARKJS_RUNS" "$d/snarkjs.times")"
        ratio=null
        if [ "$RUNS" -gt 0 ] && [ "$SNARKJS_RUNS" -gt 0 ]; then
            ratio="$(awk -v a="$(stats "$d/snarkjs.times" | cut -d' ' -f1)" -v b="$(stats "$d/zkpipe.times" | cut -d' ' -f1)" \
                'BEGIN { if (b > 0) printf "%.2f", a/b; else print "null" }')"
        fi
        {
            printf '{"curve": "%s", "circuit": "%s", "n": %d, "constraints": %d, "wires": %d, "public": %d,' \
                "$curve" "$c" "$n" "$nconstr" "$nwires" $((npubout + npubin))
            printf ' "domain_log2": %d, "zkey_bytes": %d, "runs": %d, "snarkjs_runs": %d,' "$dlog" "$zbytes" "$RUNS" "$SNARKJS_RUNS"
            printf ' "zkpipe": %s, "snarkjs": %s, "ratio": %s,' "$zj" "$sj" "$ratio"
            printf ' "prep": {"compile": %s, "witness": %s, "setup": %s},' \
                "$(step_json "$d/compile.time")" "$(step_json "$d/witness.time")" "$(step_json "$d/setup.time")"
            printf ' "zkpipe_bin": "%s", "zkpipe_args": "%s", "date": "%s"}\n' "$ZKPIPE" "${ZKPIPE_ARGS:-}" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
        } >"$d/result.json"
        rowfiles+=("$d/result.json")
    done
done

# Write JSON (merged with its old entries when MERGE=1) and the table made from it
node - "$JSON" "$MERGE" "$RESULTS" "${rowfiles[@]}" <<'EOF'
const fs = require("fs");
const [json, merge, txt, ...rowfiles] = process.argv.slice(2);
const rows = rowfiles.map((f) => JSON.parse(fs.readFileSync(f, "utf8")));
const key = (r) => `${r.curve}/${r.circuit}/${r.n}`;
let all = rows;
if (merge === "1" && fs.existsSync(json)) {
    const mine = new Set(rows.map(key));
    all = JSON.parse(fs.readFileSync(json, "utf8")).filter((r) => !mine.has(key(r))).concat(rows);
}
const curveOrder = (c) => (c === "bn128" ? 0 : 1);
all.sort((a, b) => curveOrder(a.curve) - curveOrder(b.curve) || a.domain_log2 - b.domain_log2 ||
    (a.circuit < b.circuit ? 1 : a.circuit > b.circuit ? -1 : 0));
fs.writeFileSync(json, JSON.stringify(all, null, 1) + "\n");
const f = (x, d = 2) => (x === null || x === undefined ? "-" : typeof x === "number" ? x.toFixed(d) : String(x));
const p = (s, w) => String(s).padStart(w);
const prov = (o) => o ? [p(o.runs, 2), p(f(o.median_s), 8), p(f(o.min_s), 8), p(f(o.max_s), 8), p(o.peak_rss_mb, 6)].join(" ")
                      : [p("0", 2), p("-", 8), p("-", 8), p("-", 8), p("-", 6)].join(" ");
const lines = [
    "prove: wall s (median, min, max over n runs), peak RSS MB (max over runs); ratio = snarkjs median / zkpipe median",
    ["curve    ", "circuit             ", p("constr", 8), p("dom", 4), p("zkey_MB", 8), " |", p("n", 2), p("zk_med", 8), p("zk_min", 8), p("zk_max", 8), p("zk_MB", 6),
     " |", p("n", 2), p("sj_med", 8), p("sj_min", 8), p("sj_max", 8), p("sj_MB", 6), " |", p("ratio", 6)].join(" "),
];
for (const r of all)
    lines.push([r.curve.padEnd(9), `${r.circuit}:${r.n}`.padEnd(20), p(r.constraints, 8), p("2^" + r.domain_log2, 4),
        p((r.zkey_bytes / 1048576).toFixed(1), 8), " |", prov(r.zkpipe), " |", prov(r.snarkjs), " |", p(f(r.ratio), 6)].join(" "));
const out = lines.join("\n") + "\n";
fs.writeFileSync(txt, out);
process.stdout.write(out);
EOF
