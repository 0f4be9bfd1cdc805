#!/usr/bin/env bash
# Regenerates every generated file the repository commits, in a temporary
# copy, and compares it with the committed one: a generator or its input
# edited without regenerating (or a generated file edited by hand) fails
# here, naming the file and the command that remakes it.
#
#   src/{field,curve,pairing}/params.h   python3 tools/gen_constants.py
#   tests/subgroup_vectors.h             python3 tools/gen_subgroup_vectors.py
#   src/witness/fastfr_text.h            sh src/witness/embed_fastfr.sh
#   src/witness/w2c_glue.h               sh src/witness/embed_glue.sh
#   the asm bodies of src/field/mont_x86_64.h and mont_sqr_x86_64.h
#                                        python3 tools/gen_mont_adx.py ...
#   tests/witness/circuits/multidim*.wasm  circom2 (when node_modules has it)
#
# Usage: scripts/check_generated.sh     (from anywhere; about 10 s of CPU,
# most of it the subgroup vectors). Exits 1 if any file is stale.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
stale=0
checked=0

# same COMMITTED REGENERATED HOW: compares, and names the file if it differs
same() {
    checked=$((checked + 1))
    if [ ! -f "$2" ]; then
        echo "check_generated: $1: the generator wrote nothing (run: $3)"
        stale=$((stale + 1))
    elif ! cmp -s "$1" "$2"; then
        echo "check_generated: $1 is stale: regenerating it changes $(diff "$1" "$2" | grep -c '^>') lines (run: $3)"
        diff -u "$1" "$2" | sed -n '3,14p' | sed 's/^/    /'
        stale=$((stale + 1))
    fi
}

# The Python generators write beneath the folder above their own: a copy
# of tools/ in T writes into T.
mkdir -p "$T/tools" "$T/src/field" "$T/src/curve" "$T/src/pairing" "$T/tests" "$T/src/witness"
cp tools/*.py "$T/tools/"
# the subgroup vectors take most of the time: made alongside the rest
python3 "$T/tools/gen_subgroup_vectors.py" >"$T/subgroup.log" 2>&1 &
sub_pid=$!
if python3 "$T/tools/gen_constants.py" >"$T/constants.log" 2>&1; then
    for f in src/field/params.h src/curve/params.h src/pairing/params.h; do
        same "$f" "$T/$f" "python3 tools/gen_constants.py"
    done
else
    cat "$T/constants.log"
    echo "check_generated: tools/gen_constants.py failed"
    stale=$((stale + 1))
fi

# The embedded texts: each script writes next to itself.
cp src/witness/embed_fastfr.sh src/witness/embed_glue.sh src/witness/fastfr.c.in src/witness/w2c_glue.c.in \
    "$T/src/witness/"
cp src/field/mont_x86_64.h src/field/modinv.h "$T/src/field/"
sh "$T/src/witness/embed_fastfr.sh" && same src/witness/fastfr_text.h "$T/src/witness/fastfr_text.h" \
    "sh src/witness/embed_fastfr.sh"
sh "$T/src/witness/embed_glue.sh" && same src/witness/w2c_glue.h "$T/src/witness/w2c_glue.h" \
    "sh src/witness/embed_glue.sh"

# The MULX/ADX bodies: the lines between a function's "__asm__(" and its
# first operand line (" : ...") are what the generator prints.
asm_body() {  # FILE FUNCTION
    awk -v fn="$2" '$0 ~ fn "\\(" { f = 1 } f && /__asm__\(/ { a = 1; next } a && /^ *:/ { exit } a' "$1"
}
while read -r file fn args; do
    asm_body "$file" "$fn" >"$T/$fn.committed"
    # shellcheck disable=SC2086
    python3 tools/gen_mont_adx.py $args >"$T/$fn.generated"
    if [ ! -s "$T/$fn.committed" ]; then
        echo "check_generated: $file: no asm body found for $fn"
        stale=$((stale + 1)); checked=$((checked + 1))
    elif ! cmp -s "$T/$fn.committed" "$T/$fn.generated"; then
        checked=$((checked + 1))
        echo "check_generated: $file: the asm body of $fn is stale (python3 tools/gen_mont_adx.py $args prints it)"
        diff -u "$T/$fn.committed" "$T/$fn.generated" | sed -n '3,14p' | sed 's/^/    /'
        stale=$((stale + 1))
    else
        checked=$((checked + 1))
    fi
done <<'EOF'
src/field/mont_x86_64.h zp_mont_mul_4_adx 4
src/field/mont_x86_64.h zp_mont_mul_6_adx 6 lean
src/field/mont_sqr_x86_64.h zp_mont_sqr_4_adx sqr 4
src/field/mont_sqr_x86_64.h zp_mont_sqr_6_adx sqr 6
EOF

# The witness tests' compiled circuit (circom2 is deterministic). circom2
# sees only files below its working directory: its output goes to a
# build-generated.* folder there, removed on exit.
CIRCOM="$ROOT/node_modules/.bin/circom2"
if [ -x "$CIRCOM" ]; then
    out="$(mktemp -d "$ROOT/build-generated.XXXXXX")"  # build*/ is ignored by git
    trap 'rm -rf "$T" "$out"' EXIT
    for prime in bn128 bls12381; do
        suffix=""; [ "$prime" = bn128 ] || suffix="_$prime"
        mkdir -p "$out/$prime"
        if "$CIRCOM" tests/witness/circuits/multidim.circom --wasm --prime "$prime" -o "$out/$prime" \
            >"$T/circom.log" 2>&1; then
            same "tests/witness/circuits/multidim$suffix.wasm" "$out/$prime/multidim_js/multidim.wasm" \
                "circom2 tests/witness/circuits/multidim.circom --wasm --prime $prime"
        else
            cat "$T/circom.log"
            echo "check_generated: circom2 failed on tests/witness/circuits/multidim.circom"
            stale=$((stale + 1))
        fi
    done
else
    echo "check_generated: no node_modules/.bin/circom2: multidim*.wasm not checked (scripts/deps.sh)"
fi

if wait "$sub_pid"; then
    same tests/subgroup_vectors.h "$T/tests/subgroup_vectors.h" "python3 tools/gen_subgroup_vectors.py"
else
    cat "$T/subgroup.log"
    echo "check_generated: tools/gen_subgroup_vectors.py failed"
    stale=$((stale + 1))
fi

echo "generated: $checked files checked, $stale stale"
[ "$stale" -eq 0 ]
