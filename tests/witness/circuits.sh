# shellcheck shell=bash
# circom2's outputs for the test circuits, compiled once per content and
# kept under $CACHE/circom (shared by tests/witness/calculate.sh, run.sh and
# tests/server/inputs.sh); sourced, not run. The caller sets CIRCOM (the
# circom2 binary) and CACHE, and runs from the repository root: circom2
# sees only files below its working directory.

circuit_src() { case "$1" in merkle) echo tests/circuits/merkle.circom ;; *) echo "tests/witness/circuits/$1.circom" ;; esac; }

# build_circuit NAME CURVE: prints the folder holding NAME.r1cs and
# NAME_js/NAME.wasm (circom's log on stderr when it fails)
build_circuit() {
    local name="$1" curve="$2" src stamp dir
    src="$(circuit_src "$name")"
    stamp="$(cat "$src" package-lock.json | sha256sum | cut -c1-16)"
    dir="$CACHE/circom/$name-$curve-$stamp"
    if [ ! -f "$dir/done" ]; then
        rm -rf "$dir.tmp"; mkdir -p "$dir.tmp"
        "$CIRCOM" "$src" --r1cs --wasm --prime "$curve" -l node_modules -o "$dir.tmp" >"$dir.tmp/log" 2>&1 ||
            { cat "$dir.tmp/log" >&2; return 1; }
        touch "$dir.tmp/done"; rm -rf "$dir"; mv "$dir.tmp" "$dir"
    fi
    echo "$dir"
}
