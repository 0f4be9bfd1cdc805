#!/usr/bin/env bash
# zkpipe's input.json reader against snarkjs's own code path, value for
# value, on both curves' scalar primes: every file of tests/witness/
# input_cases/ and a few fresh random ones (seed printed; ZP_TEST_SEED to
# replay). tests/witness/input_reference.js prints what snarkjs makes of a
# file; `test_witness_input --dump` what zkpipe does. They must agree on
# every signal, hash and value, and both refuse the same files (the
# messages differ). The files named diverge_* are where zkpipe refuses on
# purpose what snarkjs takes (a top level that is not an object, see
# src/witness/input.c): there zkpipe must refuse.
#   Usage: input_cases.sh TEST_WITNESS_INPUT WORKDIR [RANDOM_FILES]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="$1"; work="$2"; nrandom="${3:-20}"
if ! command -v node >/dev/null || [ ! -d "$ROOT/node_modules/ffjavascript" ]; then
    echo "input_cases: skipped: needs node and node_modules (npm ci)"; exit 77
fi
rm -rf "$work"; mkdir -p "$work/random"
seed="${ZP_TEST_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}"
echo "input_cases: random inputs from seed $seed (replay with ZP_TEST_SEED=$seed)"
for i in $(seq 1 "$nrandom"); do
    node "$ROOT/tests/witness/input_random.js" "$((seed + i))" "$work/random/random_$i.json"
done
files=("$ROOT"/tests/witness/input_cases/*.json "$work"/random/*.json)
status=0
for curve in bn128 bls12381; do
    node "$ROOT/tests/witness/input_reference.js" "$curve" "${files[@]}" > "$work/snarkjs_$curve.txt"
    "$bin" --dump "$curve" "${files[@]}" > "$work/zkpipe_$curve.txt"
    # Compare per file: the diverge_* files only on zkpipe's side.
    awk -v out="$work/$curve" '/^== /{f=out "." substr($0, 4); next} {sub(/^ERROR.*/, "ERROR"); print > f}' \
        "$work/snarkjs_$curve.txt"
    awk -v out="$work/$curve" '/^== /{f=out "." substr($0, 4) ".zkpipe"; printf "" > f; next}
        {sub(/^ERROR.*/, "ERROR"); print > f}' "$work/zkpipe_$curve.txt"
    same=0; refused=0
    for f in "${files[@]}"; do
        name=$(basename "$f")
        ref="$work/$curve.$name"; ours="$work/$curve.$name.zkpipe"
        [ -e "$ref" ] || : > "$ref"
        case "$name" in
        diverge_*)
            if [ "$(cat "$ours")" != ERROR ]; then
                echo "FAIL $curve $name: zkpipe should refuse it" >&2; status=1
            fi
            continue ;;
        esac
        if cmp -s "$ref" "$ours"; then
            same=$((same + 1))
            [ "$(cat "$ours")" = ERROR ] && refused=$((refused + 1))
        else
            echo "FAIL $curve $name: zkpipe and snarkjs differ:" >&2
            diff "$ref" "$ours" | head -20 >&2
            status=1
        fi
    done
    values=$(grep -c '^[0-9a-f]\{64\}$' "$work/zkpipe_$curve.txt" || true)
    echo "input_cases: $curve: ${#files[@]} files, $same agree ($refused refused by both), $values values"
done
exit $status
