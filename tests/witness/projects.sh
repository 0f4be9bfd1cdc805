#!/usr/bin/env bash
# zkpipe wtns calculate and zkpipe fullprove on real projects' circom
# circuits, as their npm packages ship them (tests/witness/projects: the
# main components and the input generator; the packages pinned in
# package.json):
#   semaphore     Semaphore v4, depth 10 (@semaphore-protocol/circuits)
#   zkkit_ecdh    Baby Jubjub ECDH (@zk-kit/circuits)
#   zkkit_cipher  Poseidon decryption with its checks (@zk-kit/circuits)
#   zkemail_rsa   RSA-2048 / SHA-256 PKCS#1 check (@zk-email/circuits)
#   zkemail_sha   variable-length SHA-256 of 128 bytes (@zk-email/circuits)
#   conv2d        a strided convolution layer (circomlib-ml)
# Inputs are made as each project makes them (a real Semaphore group and
# identity, zk-kit's encryption, node's RSA signatures, circomlib-ml's
# shipped layer and random ones), from a random seed each run (printed;
# SEED=N repeats a run). Each witness must be byte-identical to snarkjs
# wtns calculate's and hold the public signals that the project's own
# JavaScript computes; fullprove's proofs must pass snarkjs groth16 verify
# with those public signals.
#
# Usage: projects.sh ZKPIPE WORKDIR
# circom's outputs and the compiled calculators are kept in WORKDIR.cache
# (keyed by content), so a second run compiles nothing.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=circuits.sh
. "$ROOT/tests/witness/circuits.sh"
witness_dirs "$1" "$2" "$2.cache"
for t in "$SNARKJS" "$CIRCOM" "$ROOT/node_modules/@semaphore-protocol/circuits" "$ROOT/node_modules/@zk-email/circuits" \
         "$ROOT/node_modules/@zk-kit/circuits" "$ROOT/node_modules/circomlib-ml"; do
    [ -e "$t" ] || { echo "projects.sh: skipped: $t missing (npm ci)"; exit 77; }
done
command -v wasm2c >/dev/null || { echo "projects.sh: skipped: no wasm2c (apt-get install wabt)"; exit 77; }
SEED="${SEED:-$(od -An -tu4 -N4 /dev/urandom | tr -d ' ')}"
echo "projects.sh: seed $SEED (SEED=$SEED repeats this run)"
GEN="$ROOT/tests/witness/projects/gen_input.js"
CHECK="$ROOT/tests/witness/projects/check_public.js"
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
now() { date +%s.%N; }
since() { echo "$(now) $1" | awk '{printf "%.2f", $1 - $2}'; }

# The circuits of each curve: the Baby Jubjub and Poseidon ones are bn128
# constructions; the SHA-256, RSA and convolution circuits run on both.
# (zk-email's SHA-256 on bls12381 is left to witness_calculate's circomlib
# SHA-256, which it is built from; it would add a minute of compiling.)
CASES="semaphore:bn128 zkkit_ecdh:bn128 zkkit_cipher:bn128 zkemail_rsa:bn128 zkemail_rsa:bls12381
       zkemail_sha:bn128 conv2d:bn128 conv2d:bls12381"
# Proved: all but RSA on bls12381, whose development key alone takes a
# minute on two cores (bls12381 proofs are checked on conv2d).
NOPROVE="zkemail_rsa:bls12381"

cd "$ROOT" || exit 1
declare -A DIR
t0=$(now)
# circom2 and the calculator's compile, two circuits at a time (this
# machine has two cores); the warm-up witness is checked below.
prepare() {
    local c="$1" curve="$2" d
    d="$(build_circuit "$c" "$curve" 2>"$W/circom-$c-$curve.log")" || return 1
    node "$GEN" "$c" warm "$curve" "$W/warm-$c-$curve" &&
        "$Z" wtns calculate "$d/${c}_js/$c.wasm" "$W/warm-$c-$curve.json" "$W/warm-$c-$curve.wtns" \
            >"$W/warm-$c-$curve.log" 2>&1
    echo "$d" >"$W/dir-$c-$curve"
}
running=0
for cc in $CASES; do
    prepare "${cc%:*}" "${cc#*:}" &
    running=$((running + 1))
    if [ $running -ge 2 ]; then wait -n; running=$((running - 1)); fi
done
wait
for cc in $CASES; do
    if [ -s "$W/dir-${cc%:*}-${cc#*:}" ]; then
        DIR[$cc]="$(cat "$W/dir-${cc%:*}-${cc#*:}")"
    else
        bad "circom2 ${cc%:*} ${cc#*:}"; head -5 "$W/circom-${cc%:*}-${cc#*:}.log"
    fi
done
echo "projects.sh: circuits and calculators ready in $(since "$t0") s"

# 1. Witnesses: byte-identical to snarkjs's, and the public signals the
# project's JavaScript expects. Three inputs each (conv2d's first is the
# layer circomlib-ml ships).
printf '%-14s %-9s %12s %9s %11s %11s\n' circuit curve constraints inputs "snarkjs s" "zkpipe s"
for cc in $CASES; do
    c="${cc%:*}"; curve="${cc#*:}"; d="${DIR[$cc]:-}"; [ -n "$d" ] || continue
    wasm="$d/${c}_js/$c.wasm"
    for i in 1 2 3; do
        seed="$SEED-$i"; [ "$c" = conv2d ] && [ $i = 1 ] && seed=0
        rm -f "$W/in.public.json"
        node "$GEN" "$c" "$seed" "$curve" "$W/in" || { bad "gen_input $c $seed"; continue; }
        ts=$(now)
        if ! "$SNARKJS" wtns calculate "$wasm" "$W/in.json" "$W/s.wtns" >"$W/s.log" 2>&1; then
            bad "snarkjs wtns calculate $c $curve (seed $seed)"; head -5 "$W/s.log"; continue
        fi
        ts=$(since "$ts"); tz=$(now)
        if ! "$Z" wtns calculate "$wasm" "$W/in.json" "$W/z.wtns" >"$W/z.log" 2>&1; then
            bad "zkpipe wtns calculate $c $curve (seed $seed)"; head -5 "$W/z.log"; continue
        fi
        tz=$(since "$tz")
        if cmp -s "$W/s.wtns" "$W/z.wtns"; then ok; else bad "$c $curve seed $seed: witness differs from snarkjs's"; fi
        if [ -f "$W/in.public.json" ]; then
            node "$CHECK" "$W/z.wtns" "$W/in.public.json" && ok || bad "$c $curve seed $seed: public signals"
        fi
        if [ $i = 1 ]; then
            n="$(grep -oE '(non-linear|linear) constraints: [0-9]+' "$d/log" | awk '{s += $NF} END {print s}')"
            printf '%-14s %-9s %12s %9s %11s %11s\n' "$c" "$curve" "$n" \
                "$(node -e 'const f=(v)=>Array.isArray(v)?v.reduce((s,x)=>s+f(x),0):1;
                    console.log(f(Object.values(JSON.parse(require("fs").readFileSync(process.argv[1])))))' "$W/in.json")" \
                "$ts" "$tz"
        fi
    done
done

# 2. fullprove: keys from zkpipe setup, and for the small ECDH circuit from
# snarkjs groth16 setup on the repository's 2^12 powers of tau (a key as
# the projects make them); snarkjs verifies each proof, whose public
# signals must be the project's.
for cc in $CASES; do
    c="${cc%:*}"; curve="${cc#*:}"; d="${DIR[$cc]:-}"; [ -n "$d" ] || continue
    [[ " $NOPROVE " == *" $cc "* ]] && continue
    key="$W/$c-$curve.zkey"; tp=$(now)
    if [ "$c" = zkkit_ecdh ]; then
        "$SNARKJS" groth16 setup "$d/$c.r1cs" "$ROOT/tests/ptau/pot12_$curve.ptau" "$key" >"$W/setup.log" 2>&1 ||
            { bad "snarkjs groth16 setup $c $curve"; head -5 "$W/setup.log"; continue; }
    else
        "$Z" setup --quiet "$d/$c.r1cs" "$key" >"$W/setup.log" 2>&1 || { bad "zkpipe setup $c $curve"; continue; }
    fi
    "$Z" export-vk "$key" "$W/vk.json" >/dev/null 2>&1 || { bad "export-vk $c $curve"; continue; }
    rm -f "$W/in.public.json" "$W/proof.json" "$W/public.json"
    node "$GEN" "$c" "$SEED-prove" "$curve" "$W/in" || { bad "gen_input $c prove"; continue; }
    if ! "$Z" fullprove "$W/in.json" "$d/${c}_js/$c.wasm" "$key" "$W/proof.json" "$W/public.json" >"$W/fp.log" 2>&1; then
        bad "zkpipe fullprove $c $curve"; head -5 "$W/fp.log"; continue
    fi
    echo "projects.sh: $c $curve: setup and fullprove in $(since "$tp") s"
    if "$SNARKJS" groth16 verify "$W/vk.json" "$W/public.json" "$W/proof.json" 2>&1 | grep -q "OK"; then
        ok
    else
        bad "snarkjs groth16 verify rejects fullprove's proof ($c $curve)"
    fi
    if [ -f "$W/in.public.json" ]; then
        node -e 'const [a, b] = process.argv.slice(1).map((f) => JSON.parse(require("fs").readFileSync(f)));
                 process.exit(JSON.stringify(a) === JSON.stringify(b) ? 0 : 1)' "$W/public.json" "$W/in.public.json" &&
            ok || bad "fullprove $c $curve: public.json is not the project's public signals"
    fi
done

echo "projects.sh: $pass passed, $fail failed (seed $SEED), $(since "$t0") s"
[ "$fail" -eq 0 ]
