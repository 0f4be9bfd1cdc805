#!/usr/bin/env bash
# zkpipe wtns calculate and zkpipe fullprove against snarkjs, on circom
# circuits of both curves: tests/circuits/merkle.circom and those under
# tests/witness/circuits (Poseidon, SHA-256, multi-dimensional inputs, an
# assert that fails for x = 13). Random inputs each run (the seed is
# printed; SEED=N repeats a run). Witnesses must be byte-identical to
# snarkjs's, fullprove's proofs must pass snarkjs groth16 verify, and bad
# circuits and inputs must give clear errors, exit 3, no output file and
# never a crash.
#
# Usage: calculate.sh ZKPIPE WORKDIR
# The compiled circuits and calculators are kept in WORKDIR.cache (keyed by
# content), so a second run pays for no compile.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=circuits.sh
. "$ROOT/tests/witness/circuits.sh"
witness_dirs "$1" "$2" "$2.cache"
for t in "$SNARKJS" "$CIRCOM"; do
    [ -x "$t" ] || { echo "calculate.sh: skipped: $t missing (copy node_modules)"; exit 77; }
done
command -v wasm2c >/dev/null || { echo "calculate.sh: skipped: no wasm2c (apt-get install wabt)"; exit 77; }
SEED="${SEED:-$(od -An -tu4 -N4 /dev/urandom | tr -d ' ')}"
echo "calculate.sh: seed $SEED (SEED=$SEED repeats this run)"
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

# expect NAME CODE PATTERN -- command...: exit status CODE, stderr (for a
# non-zero CODE) matching PATTERN, no sanitizer report.
expect() {
    local name="$1" code="$2" pattern="$3"; shift 4
    "$@" >"$W/out" 2>"$W/err"
    local rc=$?
    if [ "$rc" -ne "$code" ]; then bad "$name: exit $rc, wanted $code"; sed 's/^/    /' "$W/err" | head -5; return; fi
    if [ "$code" -ne 0 ] && ! grep -qE "$pattern" "$W/err"; then
        bad "$name: stderr does not match /$pattern/"; sed 's/^/    /' "$W/err" | head -5; return
    fi
    if grep -qE "AddressSanitizer|ThreadSanitizer|runtime error|Segmentation" "$W/err"; then
        bad "$name: sanitizer or crash"; head -5 "$W/err"; return
    fi
    ok
}

# The circuits, compiled by circom2 once per content (run from the root:
# circom2 sees only files below its working directory).
cd "$ROOT"

CIRCUITS="merkle poseidon sha256 multidim assert"
declare -A DIR
t0=$(date +%s)
for curve in bn128 bls12381; do
    for c in $CIRCUITS; do
        DIR[$c.$curve]="$(build_circuit "$c" "$curve")" || { bad "circom2 $c $curve"; continue; }
    done
done
# Warm the calculator cache two at a time (this machine has two cores): a
# witness of each, inputs from the generator.
warm() {
    local c="$1" curve="$2" d="${DIR[$1.$2]}"
    node "$ROOT/tests/witness/gen_input.js" "$c" 1 >"$W/warm-$c-$curve.json"
    "$Z" wtns calculate "$d/${c}_js/$c.wasm" "$W/warm-$c-$curve.json" "$W/warm-$c-$curve.wtns" >"$W/warm-$c-$curve.log" 2>&1
}
jobs_running=0
for curve in bn128 bls12381; do
    for c in $CIRCUITS; do
        [ -n "${DIR[$c.$curve]:-}" ] || continue
        warm "$c" "$curve" &
        jobs_running=$((jobs_running + 1))
        if [ $jobs_running -ge 2 ]; then wait -n; jobs_running=$((jobs_running - 1)); fi
    done
done
wait
echo "calculate.sh: circuits and calculators ready in $(( $(date +%s) - t0 )) s"

# 1. Witnesses byte-identical to snarkjs's, three random inputs each.
for curve in bn128 bls12381; do
    for c in $CIRCUITS; do
        d="${DIR[$c.$curve]:-}"; [ -n "$d" ] || continue
        for i in 1 2 3; do
            seed=$((SEED * 10 + i))
            node "$ROOT/tests/witness/gen_input.js" "$c" "$seed" >"$W/in.json"
            if ! "$SNARKJS" wtns calculate "$d/${c}_js/$c.wasm" "$W/in.json" "$W/s.wtns" >"$W/s.log" 2>&1; then
                bad "snarkjs wtns calculate $c $curve (seed $seed)"; head -5 "$W/s.log"; continue
            fi
            expect "wtns calculate $c $curve" 0 "" -- "$Z" wtns calculate "$d/${c}_js/$c.wasm" "$W/in.json" "$W/z.wtns"
            if cmp -s "$W/s.wtns" "$W/z.wtns"; then ok; else bad "$c $curve seed $seed: witness differs from snarkjs's"; fi
        done
    done
done

# 2. fullprove: proofs snarkjs accepts (keys from zkpipe setup).
for curve in bn128 bls12381; do
    for c in merkle multidim; do
        d="${DIR[$c.$curve]:-}"; [ -n "$d" ] || continue
        "$Z" setup --quiet "$d/$c.r1cs" "$W/$c-$curve.zkey" >/dev/null 2>&1 || { bad "setup $c $curve"; continue; }
        "$Z" export-vk "$W/$c-$curve.zkey" "$W/$c-$curve.vk.json" >/dev/null 2>&1 || { bad "export-vk $c $curve"; continue; }
        node "$ROOT/tests/witness/gen_input.js" "$c" "$((SEED + 7))" >"$W/in.json"
        rm -f "$W/proof.json" "$W/public.json"
        expect "fullprove $c $curve" 0 "" -- "$Z" fullprove --verbose "$W/in.json" "$d/${c}_js/$c.wasm" \
            "$W/$c-$curve.zkey" "$W/proof.json" "$W/public.json"
        grep -q "witness" "$W/err" && grep -q "prove" "$W/err" || bad "fullprove --verbose: no step times"
        if "$SNARKJS" groth16 verify "$W/$c-$curve.vk.json" "$W/public.json" "$W/proof.json" 2>&1 | grep -q "OK"; then
            ok
        else
            bad "snarkjs groth16 verify rejects fullprove's proof ($c $curve)"
        fi
    done
done

# 3. The failed assert: the circuit's message, exit 3, nothing written.
d="${DIR[assert.bn128]}"
echo '{"x": "13"}' >"$W/x13.json"
"$SNARKJS" wtns calculate "$d/assert_js/assert.wasm" "$W/x13.json" "$W/s13.wtns" >"$W/s13.log" 2>&1
where="$(grep -oE "Error in template [A-Za-z0-9_]+ line: [0-9]+" "$W/s13.log" | head -1)"
[ -n "$where" ] || { bad "snarkjs gave no template and line for the assert"; where="Error in template"; }
rm -f "$W/a.wtns"
expect "assert wtns" 3 "Assert Failed\. $where" -- "$Z" wtns calculate "$d/assert_js/assert.wasm" "$W/x13.json" "$W/a.wtns"
[ ! -e "$W/a.wtns" ] && ok || bad "a witness was written for a failed assert"
"$Z" setup --quiet "$d/assert.r1cs" "$W/assert.zkey" >/dev/null 2>&1 || bad "setup assert"
rm -f "$W/proof.json" "$W/public.json"
expect "assert fullprove" 3 "Assert Failed\. $where" -- "$Z" fullprove "$W/x13.json" "$d/assert_js/assert.wasm" \
    "$W/assert.zkey" "$W/proof.json" "$W/public.json"
[ ! -e "$W/proof.json" ] && [ ! -e "$W/public.json" ] && ok || bad "a proof was written for a failed assert"
echo '{"x": "12"}' >"$W/x12.json"
expect "assert passes for 12" 0 "" -- "$Z" fullprove "$W/x12.json" "$d/assert_js/assert.wasm" \
    "$W/assert.zkey" "$W/proof.json" "$W/public.json"
# the circuit's log("x =", x), as snarkjs prints it (on stderr here)
"$SNARKJS" wtns calculate "$d/assert_js/assert.wasm" "$W/x12.json" "$W/s12.wtns" 2>&1 | grep -q "^x = 12$" ||
    bad "snarkjs printed no 'x = 12'"
grep -q "^x = 12$" "$W/err" && ok || { bad "the circuit's log() output is missing"; head -3 "$W/err"; }

# 4. Malformed inputs: errors naming the signal, exit 3, no witness.
d="${DIR[multidim.bn128]}"; mw="$d/multidim_js/multidim.wasm"
good="$(node "$ROOT/tests/witness/gen_input.js" multidim 3)"
echo "$good" >"$W/good.json"
bad_input() { # NAME PATTERN JSON
    echo "$3" >"$W/bad.json"; rm -f "$W/bad.wtns"
    expect "input: $1" 3 "$2" -- "$Z" wtns calculate "$mw" "$W/bad.json" "$W/bad.wtns"
    [ ! -e "$W/bad.wtns" ] && ok || bad "input $1: a witness was written"
}
bad_input "unknown signal" "Signal zz not found|input signal zz" "$(echo "$good" | node -e 'const o=JSON.parse(require("fs").readFileSync(0));o.zz=1;console.log(JSON.stringify(o))')"
bad_input "too few" "Not enough values for input signal a" "$(echo "$good" | node -e 'const o=JSON.parse(require("fs").readFileSync(0));o.a=[[1,2,3],[4,5]];console.log(JSON.stringify(o))')"
bad_input "too many" "Too many values for input signal c" "$(echo "$good" | node -e 'const o=JSON.parse(require("fs").readFileSync(0));o.c.push([[1,2],[3,4]]);console.log(JSON.stringify(o))')"
bad_input "not a number" "k" "$(echo "$good" | node -e 'const o=JSON.parse(require("fs").readFileSync(0));o.k="twelve";console.log(JSON.stringify(o))')"
bad_input "missing signal" "Not all inputs have been set|k" "$(echo "$good" | node -e 'const o=JSON.parse(require("fs").readFileSync(0));delete o.k;console.log(JSON.stringify(o))')"
bad_input "not json" "bad.json" '{"a": [[1,2'

# 5. Bad wasm files: clear errors, exit 3, never a crash.
expect "not wasm" 3 "not a WebAssembly module" -- "$Z" wtns calculate "$d/multidim.r1cs" "$W/bad.json" "$W/x.wtns"
head -c 20000 "$mw" >"$W/truncated.wasm"
expect "truncated wasm" 3 "not a valid WebAssembly module.*wasm2c" -- "$Z" wtns calculate "$W/truncated.wasm" \
    "$W/in.json" "$W/x.wtns"
printf '\0asm\1\0\0\0' >"$W/empty.wasm"
expect "wasm without exports" 3 "not a circom 2 witness calculator.*getVersion" -- "$Z" wtns calculate "$W/empty.wasm" \
    "$W/in.json" "$W/x.wtns"
expect "missing wasm" 4 "cannot open" -- "$Z" wtns calculate "$W/nothing.wasm" "$W/in.json" "$W/x.wtns"
[ ! -e "$W/x.wtns" ] && ok || bad "a witness was written for a bad wasm"
# no wasm2c, no compiler: the machine's fault (exit 4), a clear message
expect "no wasm2c" 4 "cannot run /nonexistent/wasm2c.*wabt" -- env ZKPIPE_WASM2C=/nonexistent/wasm2c \
    "$Z" wtns calculate --cache "$W/tool-cache" "$mw" "$W/good.json" "$W/x.wtns"
expect "no cc" 4 "cannot run the C compiler /nonexistent/cc" -- env CC=/nonexistent/cc \
    "$Z" wtns calculate --cache "$W/tool-cache" "$mw" "$W/good.json" "$W/x.wtns"
[ -z "$(ls -A "$W/tool-cache")" ] && ok || bad "a failed compile left $(ls -A "$W/tool-cache")"
# a bls12381 wasm for a bn128 key, and the other way round
node "$ROOT/tests/witness/gen_input.js" merkle 5 >"$W/in.json"
expect "wasm of the other curve" 3 "bls12381 circuit.*bn128 key" -- "$Z" fullprove "$W/in.json" \
    "${DIR[merkle.bls12381]}/merkle_js/merkle.wasm" "$W/merkle-bn128.zkey" "$W/proof2.json" "$W/public2.json"
expect "wasm of the other curve (2)" 3 "bn128 circuit.*bls12381 key" -- "$Z" fullprove "$W/in.json" \
    "${DIR[merkle.bn128]}/merkle_js/merkle.wasm" "$W/merkle-bls12381.zkey" "$W/proof2.json" "$W/public2.json"
[ ! -e "$W/proof2.json" ] && ok || bad "a proof was written for the other curve"

# 6. The cache: a second run compiles nothing; two compilers of one wasm
# at once both succeed and leave one object and no build folder.
expect "cached run" 0 "" -- "$Z" wtns calculate -v "$mw" "$W/good.json" "$W/c.wtns"
grep -q "compiled before" "$W/err" && ok || bad "the second run compiled again"
fresh="$W/fresh-cache"
"$Z" wtns calculate --cache "$fresh" "${DIR[assert.bn128]}/assert_js/assert.wasm" "$W/x12.json" "$W/p1.wtns" >"$W/p1.log" 2>&1 &
p1=$!
"$Z" wtns calculate --cache "$fresh" "${DIR[assert.bn128]}/assert_js/assert.wasm" "$W/x12.json" "$W/p2.wtns" >"$W/p2.log" 2>&1
r2=$?; wait $p1; r1=$?
[ $r1 = 0 ] && [ $r2 = 0 ] && cmp -s "$W/p1.wtns" "$W/p2.wtns" && ok || bad "concurrent compilers: exit $r1 $r2"
[ "$(ls "$fresh" | wc -l)" = 1 ] && [ -z "$(ls -A "$fresh" | grep '^\.build')" ] && ok || { bad "concurrent compilers left: $(ls -A "$fresh")"; }

# the compiler is part of the key: another CC compiles its own object, and
# finds it the next time
if command -v clang >/dev/null 2>&1; then
    expect "another compiler: compiled again" 0 "" -- env CC=clang "$Z" wtns calculate -v --cache "$fresh" \
        "${DIR[assert.bn128]}/assert_js/assert.wasm" "$W/x12.json" "$W/p3.wtns"
    ! grep -q "compiled before" "$W/err" && [ "$(ls "$fresh" | wc -l)" = 2 ] && cmp -s "$W/p1.wtns" "$W/p3.wtns" && ok ||
        bad "CC=clang reused the cc object: $(ls "$fresh")"
    expect "another compiler: its object found again" 0 "" -- env CC=clang "$Z" wtns calculate -v --cache "$fresh" \
        "${DIR[assert.bn128]}/assert_js/assert.wasm" "$W/x12.json" "$W/p3.wtns"
    grep -q "compiled before" "$W/err" && ok || bad "CC=clang compiled again"
fi

# 7. The glue's C string matches its source.
tmpd="$(mktemp -d)"; cp "$ROOT/src/witness/w2c_glue.c.in" "$ROOT/src/witness/embed_glue.sh" "$tmpd/"
sh "$tmpd/embed_glue.sh" && cmp -s "$tmpd/w2c_glue.h" "$ROOT/src/witness/w2c_glue.h" && ok ||
    bad "src/witness/w2c_glue.h is stale: run src/witness/embed_glue.sh"
rm -rf "$tmpd"

echo "calculate.sh: $pass passed, $fail failed (seed $SEED)"
[ "$fail" -eq 0 ]
