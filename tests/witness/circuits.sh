# shellcheck shell=bash
# circom2's outputs for the test circuits, compiled once per content and
# kept under $CACHE/circom (shared by tests/witness/calculate.sh, run.sh and
# tests/server/inputs.sh); sourced, not run. The caller sets CIRCOM (the
# circom2 binary) and CACHE, and runs from the repository root: circom2
# sees only files below its working directory.

# witness_dirs ZKPIPE WORKDIR CACHEDIR: the tests' common set-up. Z is
# ZKPIPE as an absolute path, W a fresh WORKDIR, CACHE the kept CACHEDIR
# (circom's outputs, and the compiled calculators in ZKPIPE_CACHE);
# SNARKJS and CIRCOM the npm tools. ROOT is the repository root.
witness_dirs() {
    Z="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
    rm -rf "$2"; mkdir -p "$2" "$3"
    W="$(cd "$2" && pwd)"; CACHE="$(cd "$3" && pwd)"
    export ZKPIPE_CACHE="$CACHE/objects"
    SNARKJS="$ROOT/node_modules/.bin/snarkjs"
    CIRCOM="$ROOT/node_modules/.bin/circom2"
}

circuit_src() {
    case "$1" in
        merkle) echo tests/circuits/merkle.circom ;;
        *) if [ -f "tests/witness/projects/$1.circom" ]; then echo "tests/witness/projects/$1.circom"
           else echo "tests/witness/circuits/$1.circom"; fi ;;
    esac
}
# circom's library folders for a circuit: the projects' circuits (under
# tests/witness/projects, from npm packages) include files by the names
# their own builds use, from circomlib and zk-kit's folders.
circuit_libs() {
    echo -l node_modules
    if [ -f "tests/witness/projects/$1.circom" ]; then
        echo -l node_modules/circomlib/circuits -l node_modules/@zk-kit/binary-merkle-root.circom/src
    fi
}

# build_circuit NAME CURVE: prints the folder holding NAME.r1cs and
# NAME_js/NAME.wasm (circom's log on stderr when it fails)
build_circuit() {
    local name="$1" curve="$2" src stamp dir
    src="$(circuit_src "$name")"
    stamp="$(cat "$src" package-lock.json | sha256sum | cut -c1-16)"
    dir="$CACHE/circom/$name-$curve-$stamp"
    if [ ! -f "$dir/done" ]; then
        rm -rf "$dir.tmp"; mkdir -p "$dir.tmp"
        # shellcheck disable=SC2046
        "$CIRCOM" "$src" --r1cs --wasm --prime "$curve" $(circuit_libs "$name") -o "$dir.tmp" >"$dir.tmp/log" 2>&1 ||
            { cat "$dir.tmp/log" >&2; return 1; }
        touch "$dir.tmp/done"; rm -rf "$dir"; mv "$dir.tmp" "$dir"
    fi
    echo "$dir"
}
