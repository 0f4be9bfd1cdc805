#!/usr/bin/env bash
# Bad input through the zkpipe command: truncated, bit-flipped and
# wrong-curve files, witnesses for another circuit or that do not satisfy
# it, malformed JSON, bad usage. Each must end with a clear one-line error
# and the documented exit status, never a crash and never a wrong proof.
# Usage: bad_input.sh ZKPIPE WORKDIR
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
Z="$1"; W="$2"
rm -rf "$W"; mkdir -p "$W"
EX="$ROOT/examples/merkle"
pass=0; fail=0

# expect NAME ALLOWED_CODES PATTERN -- command...: the exit status must be one
# of ALLOWED_CODES and, for a non-zero status, stderr must say "zkpipe: "
# and match PATTERN (an extended regex, case-insensitive).
expect() {
    local name="$1" codes="$2" pattern="$3"; shift 4
    "$@" >"$W/out" 2>"$W/err"
    local rc=$?
    local ok=1
    [[ " $codes " == *" $rc "* ]] || ok=0
    if [ "$rc" -ne 0 ] && ! grep -qiE "zkpipe.*$pattern" "$W/err"; then ok=0; fi
    if grep -qE "AddressSanitizer|UndefinedBehaviorSanitizer|runtime error" "$W/err"; then ok=0; fi
    if [ $ok = 1 ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL $name: exit $rc (wanted $codes)"; sed 's/^/    /' "$W/err" | head -20
    fi
}

# flip FILE OFFSET: xor the byte at OFFSET with 0x10
flip() {
    local b
    b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
    printf "$(printf '\\%03o' $(( b ^ 16 )))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

iters="${ZP_TEST_ITERS:-100}"
[[ "$iters" =~ ^[0-9]+$ ]] && [ "$iters" -gt 0 ] || iters=100
flip_step=$(( 100 / iters )); [ "$flip_step" -ge 1 ] || flip_step=1

for curve in bn128 bls12381; do
    e="$EX/$curve"
    other=$([ $curve = bn128 ] && echo bls12381 || echo bn128)
    # a good proof to tamper with
    "$Z" prove "$e/merkle.zkey" "$e/w1.wtns" "$W/good_proof.json" "$W/good_public.json" || { echo "FAIL baseline prove $curve"; fail=$((fail+1)); continue; }
    expect "$curve baseline verify" "0" "" -- "$Z" verify "$e/vk.json" "$W/good_public.json" "$W/good_proof.json"

    size=$(stat -c %s "$e/merkle.zkey")
    for cut in 0 3 4 11 12 20 40 100 700 1000 5000 $((size / 2)) $((size - 100)) $((size - 1)); do
        head -c "$cut" "$e/merkle.zkey" >"$W/t.zkey"
        expect "$curve zkey truncated at $cut" "3" "truncated|not a .zkey|short|past the end|missing|expected" -- \
            "$Z" prove "$W/t.zkey" "$e/w1.wtns" "$W/p.json" "$W/q.json"
    done
    # bit flips all over the key: a clean error, or a proof that verifies
    # (every one of the 24 places in full runs; every 4th with
    # ZP_TEST_ITERS=25, the sanitizer builds', each a whole proof there)
    for i in $(seq 1 "$flip_step" 24); do
        off=$(( (i * 7919 * 131) % size ))
        [ $i -le 8 ] && off=$(( i * 97 % 800 ))
        cp "$e/merkle.zkey" "$W/f.zkey"
        flip "$W/f.zkey" "$off"
        rm -f "$W/p.json"
        expect "$curve zkey bit flip at $off" "0 3" "" -- "$Z" prove "$W/f.zkey" "$e/w1.wtns" "$W/p.json" "$W/q.json"
        if [ -f "$W/p.json" ]; then
            expect "$curve proof from flipped key at $off verifies" "0" "" -- "$Z" verify "$e/vk.json" "$W/q.json" "$W/p.json"
        fi
    done
    wsize=$(stat -c %s "$e/w1.wtns")
    for cut in 0 4 12 30 63 64 80 $((wsize - 1)); do
        head -c "$cut" "$e/w1.wtns" >"$W/t.wtns"
        expect "$curve wtns truncated at $cut" "3" "truncated|not a .wtns|short|past the end|missing|expected" -- \
            "$Z" prove "$e/merkle.zkey" "$W/t.wtns" "$W/p.json" "$W/q.json"
    done
    # a witness value changed: the circuit is not satisfied
    cp "$e/w1.wtns" "$W/u.wtns"
    flip "$W/u.wtns" $(( wsize - 32 * 50 ))
    expect "$curve unsatisfied witness" "3" "does not satisfy" -- "$Z" prove "$e/merkle.zkey" "$W/u.wtns" "$W/p.json" "$W/q.json"
    [ ! -f "$W/p.json" ] || grep -q . /dev/null
    # the other curve's witness, and a witness of another length
    expect "$curve witness of the other curve" "3" "curve|prime|mismatch" -- "$Z" prove "$e/merkle.zkey" "$EX/$other/w1.wtns" "$W/p.json" "$W/q.json"
    head -c 76 "$e/w1.wtns" >"$W/short.wtns"    # header and §2's header
    # rewrite nWitness (offset 4+4+4+12+4+32 = 60) to 5 and §2's size to 160
    printf '\x05\x00\x00\x00' | dd of="$W/short.wtns" bs=1 seek=60 conv=notrunc status=none
    printf '\xa0\x00\x00\x00\x00\x00\x00\x00' | dd of="$W/short.wtns" bs=1 seek=68 conv=notrunc status=none
    tail -c +77 "$e/w1.wtns" | head -c 160 >>"$W/short.wtns"
    expect "$curve witness for another circuit" "3" "another circuit|wires|values" -- "$Z" prove "$e/merkle.zkey" "$W/short.wtns" "$W/p.json" "$W/q.json"
    # the pipeline (zkpipe run): one bad partition fails the job, naming it
    expect "$curve run with an unsatisfied partition" "3" "partition 1.*does not satisfy" -- \
        "$Z" run --quiet --key "$e/merkle.zkey" --witness "$e/w1.wtns" "$W/u.wtns" --out "$W/run"
    expect "$curve run with the other curve's witness" "3" "partition 0.*curve" -- \
        "$Z" run --quiet --key "$e/merkle.zkey" --witness "$EX/$other/w1.wtns" --out "$W/run"
    expect "$curve run with a missing witness" "4" "cannot open" -- \
        "$Z" run --quiet --key "$e/merkle.zkey" --witness "$e/w1.wtns" "$W/nothing.wtns" --out "$W/run"
    expect "$curve run with a budget too small" "4" "budget.*(too small|not above)" -- \
        "$Z" run --quiet --budget 1M --key "$e/merkle.zkey" --witness "$e/w1.wtns" --out "$W/run"
    expect "$curve run with a truncated key" "3" "truncated|short|past the end|expected" -- \
        "$Z" run --quiet --key "$W/t.zkey" --witness "$e/w1.wtns" --out "$W/run"
    # wrong file kinds
    expect "$curve r1cs given as key" "3" "zkey|magic" -- "$Z" prove "$e/merkle.r1cs" "$e/w1.wtns" "$W/p.json" "$W/q.json"
    expect "$curve missing key" "4" "cannot open|no such" -- "$Z" prove "$W/nothing.zkey" "$e/w1.wtns" "$W/p.json" "$W/q.json"
    rsize=$(stat -c %s "$e/merkle.r1cs")
    for cut in 0 10 40 100 $((rsize / 2)) $((rsize - 1)); do
        head -c "$cut" "$e/merkle.r1cs" >"$W/t.r1cs"
        expect "$curve r1cs truncated at $cut" "3" "truncated|not a .r1cs|short|past the end|missing|expected" -- \
            "$Z" setup -q "$W/t.r1cs" "$W/s.zkey"
    done
    # JSON: tampered, malformed, other curve
    node -e '
        const fs=require("fs"); const [src, dir]=process.argv.slice(1);
        const p=JSON.parse(fs.readFileSync(src));
        const w=(n,o)=>fs.writeFileSync(dir+"/"+n, typeof o==="string"?o:JSON.stringify(o));
        w("trunc.json", JSON.stringify(p).slice(0,40));
        w("notnum.json", {...p, pi_a:["abc", p.pi_a[1], "1"]});
        w("offcurve.json", {...p, pi_a:[p.pi_a[0], (BigInt(p.pi_a[1])+1n).toString(), "1"]});
        w("swapped.json", {...p, pi_a:p.pi_c, pi_c:p.pi_a});
        w("nofield.json", {pi_a:p.pi_a, protocol:"groth16"});
        w("wrongproto.json", {...p, protocol:"plonk"});
    ' "$W/good_proof.json" "$W"
    expect "$curve truncated proof.json" "3" "json|parse|proof" -- "$Z" verify "$e/vk.json" "$W/good_public.json" "$W/trunc.json"
    expect "$curve non-decimal coordinate" "3" "decimal|number|pi_a" -- "$Z" verify "$e/vk.json" "$W/good_public.json" "$W/notnum.json"
    expect "$curve point off the curve" "3" "curve" -- "$Z" verify "$e/vk.json" "$W/good_public.json" "$W/offcurve.json"
    expect "$curve swapped points" "1" "invalid proof" -- "$Z" verify "$e/vk.json" "$W/good_public.json" "$W/swapped.json"
    expect "$curve missing fields" "3" "pi_b|missing" -- "$Z" verify "$e/vk.json" "$W/good_public.json" "$W/nofield.json"
    expect "$curve wrong protocol" "3" "protocol|groth16" -- "$Z" verify "$e/vk.json" "$W/good_public.json" "$W/wrongproto.json"
    expect "$curve proof of the other curve" "3" "curve|BN254|BLS12" -- "$Z" verify "$EX/$other/vk.json" "$W/good_public.json" "$W/good_proof.json"
    echo '["1","2"]' >"$W/fewpub.json"
    expect "$curve too few public signals" "3" "public" -- "$Z" verify "$e/vk.json" "$W/fewpub.json" "$W/good_proof.json"
    head -c 100 "$e/vk.json" >"$W/tvk.json"
    expect "$curve truncated vk" "3" "json|parse|verification" -- "$Z" verify "$W/tvk.json" "$W/good_public.json" "$W/good_proof.json"
done
# usage
expect "no command" "2" "usage|command" -- "$Z"
expect "unknown command" "2" "unknown command" -- "$Z" frobnicate
expect "prove missing arguments" "2" "expected 4 arguments" -- "$Z" prove a b
expect "prove bad option" "2" "unknown option" -- "$Z" prove --frob a b c d
expect "prove bad threads" "2" "thread" -- "$Z" prove --threads lots a b c d
expect "run without a key" "2" "required" -- "$Z" run --witness a.wtns --out x
expect "run bad budget" "2" "budget" -- "$Z" run --budget lots --key a --witness b --out x
expect "run bad worker count" "2" "synth-workers" -- "$Z" run --synth-workers 0 --key a --witness b --out x
expect "run threads out of range" "2" "threads.*1024" -- "$Z" run -t 5000 --key a --witness b --out x
expect "run option without its value" "2" "--key needs a value" -- "$Z" run --witness b --out x --key
expect "verify bad option" "2" "unknown option '-x'" -- "$Z" verify -x a b c
expect "setup bad threads" "2" "thread" -- "$Z" setup -t -3 a b
expect "export-vk takes no option" "2" "unknown option" -- "$Z" export-vk --frob a b
# the daemon and its clients: usage errors before any connection
expect "serve bad budget" "2" "budget.*size" -- "$Z" serve --budget lots --listen none
expect "serve worker count out of range" "2" "synth.workers.*between 1 and 256" -- "$Z" serve --synth-workers 0
expect "serve unknown option" "2" "unknown option" -- "$Z" serve --colour blue
expect "serve bad log level" "2" "log_level" -- "$Z" serve --log-level loud
expect "serve stray argument" "2" "unexpected" -- "$Z" serve stray
expect "submit bad priority" "2" "priority.*integer" -- "$Z" submit --key k --priority high w.wtns
expect "submit bad wait" "2" "wait.*seconds" -- "$Z" submit --key k --wait soon --out d w.wtns
expect "submit --wait without --out" "2" "go together" -- "$Z" submit --key k --wait 1 w.wtns
expect "submit without a witness" "2" "at least one witness" -- "$Z" submit --key k
expect "await bad timeout" "2" "timeout.*seconds" -- "$Z" await 1 --out d --timeout never
expect "await without --out" "2" "JOB and --out" -- "$Z" await 1
expect "status bad job id" "2" "job id" -- "$Z" status abc
expect "status unknown option" "2" "unknown option" -- "$Z" status --frob
expect "cancel without a job" "2" "one JOB" -- "$Z" cancel
expect "keys bad verb" "2" "expected 'list'" -- "$Z" keys drop k
expect "client option without its value" "2" "--server needs a value" -- "$Z" keys --server
for cmd in prove verify setup export-vk info run serve submit status await cancel keys; do
    expect "$cmd --help" "0" "" -- "$Z" "$cmd" --help
done
# --help lists every option of the command's table
for opt in --threads --no-verify --verbose; do
    expect "prove --help lists $opt" "0" "" -- grep -q -- "$opt" <("$Z" prove --help)
done
for opt in --key --witness --out --budget --synth-workers --prove-workers --finalize-workers --threads --queue \
    --trace --log --quiet --no-verify; do
    expect "run --help lists $opt" "0" "" -- grep -q -- "$opt" <("$Z" run --help)
done
for opt in --key --priority --request-id --path --wait --out --server --token --json --timeout; do
    expect "submit --help lists $opt" "0" "" -- grep -q -- "$opt" <("$Z" submit --help)
done
for opt in listen budget synth_workers max_request log_level; do
    expect "serve --help lists $opt" "0" "" -- grep -q -- "  $opt " <("$Z" serve --help)
done
# Files that are no regular file: a FIFO (a plain open() waits for a
# writer forever), a character device (/dev/zero never ends). Every reader
# of a user-named file must refuse them at once, naming the kind; timeout
# turns a hang into a failure (exit 124) instead of blocking the suite.
e="$EX/bn128"
"$Z" prove "$e/merkle.zkey" "$e/w1.wtns" "$W/good_proof.json" "$W/good_public.json" || { echo "FAIL baseline prove"; fail=$((fail+1)); }
mkfifo "$W/fifo"
for kind in fifo zero; do
    if [ $kind = fifo ]; then f="$W/fifo"; what="a FIFO"; else f=/dev/zero; what="a character device"; fi
    pat="$f: not a regular file \($what\)"
    expect "info of $kind" "4" "$pat" -- timeout 10 "$Z" info "$f"
    expect "prove with $kind as key" "4" "$pat" -- timeout 10 "$Z" prove "$f" "$e/w1.wtns" "$W/p.json" "$W/q.json"
    expect "prove with $kind as witness" "4" "$pat" -- timeout 10 "$Z" prove "$e/merkle.zkey" "$f" "$W/p.json" "$W/q.json"
    expect "verify with $kind as vk" "4" "$pat" -- timeout 10 "$Z" verify "$f" "$W/good_public.json" "$W/good_proof.json"
    expect "verify with $kind as public" "4" "$pat" -- timeout 10 "$Z" verify "$e/vk.json" "$f" "$W/good_proof.json"
    expect "verify with $kind as proof" "4" "$pat" -- timeout 10 "$Z" verify "$e/vk.json" "$W/good_public.json" "$f"
    expect "export-vk of $kind" "4" "$pat" -- timeout 10 "$Z" export-vk "$f" "$W/vk_out.json"
    expect "setup from $kind" "4" "$pat" -- timeout 10 "$Z" setup -q "$f" "$W/s.zkey"
    expect "run with $kind as witness" "4" "$pat" -- \
        timeout 10 "$Z" run --quiet --key "$e/merkle.zkey" --witness "$e/w1.wtns" "$f" --out "$W/run"
    expect "run with $kind as key" "4" "$pat" -- \
        timeout 10 "$Z" run --quiet --key "$f" --witness "$e/w1.wtns" --out "$W/run"
done
# A 100 GB (sparse) file where a JSON file is read: refused from its size,
# quickly and without reading it (peak RSS stays that of a small run).
truncate -s 100G "$W/huge.json"
for role in vk public proof; do
    case $role in
        vk) args=("$W/huge.json" "$W/good_public.json" "$W/good_proof.json"); pat="verification key can hold \(64 MiB\)" ;;
        public) args=("$e/vk.json" "$W/huge.json" "$W/good_proof.json"); pat="public signals can hold \(64 MiB\)" ;;
        proof) args=("$e/vk.json" "$W/good_public.json" "$W/huge.json"); pat="107374182400 bytes, more than a proof can hold \(64 KiB\)" ;;
    esac
    expect "verify with a 100 GB $role" "3" "huge.json: .*$pat" -- \
        timeout 10 /usr/bin/time -f %M -o "$W/rss" "$Z" verify "${args[@]}"
    rss=$(tail -1 "$W/rss" 2>/dev/null)
    if [[ "$rss" =~ ^[0-9]+$ ]] && [ "$rss" -lt 65536 ]; then pass=$((pass + 1)); else
        fail=$((fail + 1)); echo "FAIL verify with a 100 GB $role: peak RSS ${rss:-?} KB (wanted < 64 MB)"; fi
done
rm -f "$W/huge.json" "$W/fifo"
# sizes are read strictly: "nan" was once a budget of 8 EiB
for b in nan inf -1 1e3 0x10 " 8G" "8G " 18446744073709551616 16E; do
    expect "run --budget '$b'" "2" "budget needs a size" -- "$Z" run --budget "$b" --key a --witness b --out x
done
expect "run --threads ' 4'" "2" "threads.*whole number" -- "$Z" run --threads " 4" --key a --witness b --out x
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
