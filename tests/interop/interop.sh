#!/usr/bin/env bash
# Interop test: zkpipe against snarkjs, on tests/circuits/merkle.circom, for
# bn128 and bls12381. Fixtures are built (or reused) by build_fixtures.sh.
#
# Usage: tests/interop/interop.sh ZKPIPE OUTDIR [curve...]
#   ZKPIPE  path of the zkpipe binary:
#             zkpipe prove <zkey> <wtns> <proof.json> <public.json>
#             zkpipe verify <vk.json> <public.json> <proof.json>   (exit 0 valid, non-zero invalid)
#             zkpipe setup <r1cs> <out.zkey>
#             zkpipe export-vk <zkey> <vk.json>
#   OUTDIR  fixtures and work files (OUTDIR/<curve>/...; zkpipe's outputs in OUTDIR/<curve>/run/)
#
# Prints "PASS name" / "FAIL name" per check, then "N passed, M failed";
# exits non-zero if any check failed. Logs of every command: OUTDIR/<curve>/run/*.log
# "snarkjs accepts" means exit 0 and "OK!" printed; "rejects" means non-zero
# exit (snarkjs 0.7.6 exits 1 on "Invalid proof", on public inputs >= r and on
# points not on the curve).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"

if [ $# -lt 2 ]; then
    echo "usage: $0 ZKPIPE OUTDIR [bn128|bls12381...]" >&2
    exit 2
fi
ZKPIPE="$1"
case "$ZKPIPE" in /*) ;; */*) ZKPIPE="$(cd "$(dirname "$ZKPIPE")" && pwd)/$(basename "$ZKPIPE")" ;; esac
mkdir -p "$2"
OUTDIR="$(cd "$2" && pwd)"
shift 2
curves=("$@")
[ ${#curves[@]} -gt 0 ] || curves=(bn128 bls12381)

"$HERE/build_fixtures.sh" "$OUTDIR" "${curves[@]}"
SNARKJS="$ROOT/node_modules/.bin/snarkjs"
JT=(node "$HERE/jsontool.js")

passed=0
failed=0
LOGDIR=""
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() {
    echo "FAIL $1"
    failed=$((failed + 1))
    if [ -n "${2:-}" ] && [ -f "$2" ]; then
        sed 's/\x1b\[[0-9;]*m//g' "$2" | tail -8 | sed 's/^/    | /'
    fi
}

# check NAME CMD...: passes iff CMD exits 0
check() {
    local name="$1"; shift
    local log="$LOGDIR/${name//\//_}.log"
    if "$@" >"$log" 2>&1; then pass "$name"; else fail "$name" "$log"; fi
}
# check_not NAME CMD...: passes iff CMD exits non-zero (and did not crash on a signal)
check_not() {
    local name="$1"; shift
    local log="$LOGDIR/${name//\//_}.log" rc=0
    "$@" >"$log" 2>&1 || rc=$?
    if [ "$rc" -eq 0 ]; then
        echo "(exit 0: accepted)" >>"$log"; fail "$name" "$log"
    elif [ "$rc" -ge 124 ]; then
        echo "(exit $rc: crashed or killed)" >>"$log"; fail "$name" "$log"
    else
        pass "$name"
    fi
}
snarkjs_accepts() {
    local out
    out="$("$SNARKJS" groth16 verify "$@" 2>&1)" || { echo "$out"; return 1; }
    echo "$out"
    grep -q "OK!" <<<"$out"
}
snarkjs_rejects() {  # succeeds iff snarkjs says the proof is invalid
    local out rc=0
    out="$("$SNARKJS" groth16 verify "$@" 2>&1)" || rc=$?
    echo "$out"
    [ "$rc" -ne 0 ] && ! grep -q "OK!" <<<"$out"
}
zk() { timeout 300 "$ZKPIPE" "$@"; }
need() { for f in "$@"; do [ -s "$f" ] || { echo "missing $f (an earlier step failed)"; return 1; }; done; }

for curve in "${curves[@]}"; do
    F="$OUTDIR/$curve"
    W="$F/run"
    rm -rf "$W"
    mkdir -p "$W"
    LOGDIR="$W"
    echo "== $curve"

    # 1. zkpipe proves with the snarkjs key; snarkjs and zkpipe verify it
    check "$curve/zk_prove_w1" zk prove "$F/merkle.zkey" "$F/w1.wtns" "$W/zk_proof1.json" "$W/zk_public1.json"
    check "$curve/zk_prove_w2" zk prove "$F/merkle.zkey" "$F/w2.wtns" "$W/zk_proof2.json" "$W/zk_public2.json"
    check "$curve/zk_public_matches_snarkjs" "${JT[@]}" same-public "$W/zk_public1.json" "$F/public1.json"
    check "$curve/snarkjs_verifies_zk_proof1" snarkjs_accepts "$F/vk.json" "$W/zk_public1.json" "$W/zk_proof1.json"
    check "$curve/snarkjs_verifies_zk_proof2" snarkjs_accepts "$F/vk.json" "$W/zk_public2.json" "$W/zk_proof2.json"
    check "$curve/zk_verifies_zk_proof1" zk verify "$F/vk.json" "$W/zk_public1.json" "$W/zk_proof1.json"

    # 1b. the pipeline engine (zkpipe run): three partitions, in order, each
    #     accepted by snarkjs
    check "$curve/zk_run_3_partitions" zk run --quiet --budget 512M --key "$F/merkle.zkey" \
        --witness "$F/w1.wtns" "$F/w2.wtns" "$F/w1.wtns" --out "$W/run"
    for i in 0 1 2; do
        check "$curve/snarkjs_verifies_zk_run_proof$i" snarkjs_accepts "$F/vk.json" "$W/run/public_$i.json" "$W/run/proof_$i.json"
    done
    check "$curve/zk_run_public_in_partition_order" "${JT[@]}" same-public "$W/run/public_1.json" "$F/public2.json"

    # 2. zkpipe verifies snarkjs's proofs
    check "$curve/zk_verifies_snarkjs_proof1" zk verify "$F/vk.json" "$F/public1.json" "$F/proof1.json"
    check "$curve/zk_verifies_snarkjs_proof2" zk verify "$F/vk.json" "$F/public2.json" "$F/proof2.json"

    # 3. zkpipe export-vk
    check "$curve/zk_export_vk" zk export-vk "$F/merkle.zkey" "$W/vkz.json"
    check "$curve/zk_export_vk_matches_snarkjs" "${JT[@]}" same-vk "$W/vkz.json" "$F/vk.json"
    check "$curve/snarkjs_accepts_with_zk_vk" snarkjs_accepts "$W/vkz.json" "$W/zk_public1.json" "$W/zk_proof1.json"
    check "$curve/zk_accepts_with_zk_vk" zk verify "$W/vkz.json" "$W/zk_public1.json" "$W/zk_proof1.json"

    # 4. zkpipe setup (random toxic waste): snarkjs reads the key, both verify
    check "$curve/zk_setup" zk setup "$F/merkle.r1cs" "$W/key.zkey"
    check "$curve/snarkjs_exports_vk_of_zk_key" "$SNARKJS" zkey export verificationkey "$W/key.zkey" "$W/vk2.json"
    check "$curve/zk_prove_with_zk_key" zk prove "$W/key.zkey" "$F/w1.wtns" "$W/zk_proof_k.json" "$W/zk_public_k.json"
    check "$curve/snarkjs_verifies_zk_key_proof" snarkjs_accepts "$W/vk2.json" "$W/zk_public_k.json" "$W/zk_proof_k.json"
    check "$curve/zk_verifies_zk_key_proof" zk verify "$W/vk2.json" "$W/zk_public_k.json" "$W/zk_proof_k.json"
    check "$curve/snarkjs_proves_with_zk_key" "$SNARKJS" groth16 prove "$W/key.zkey" "$F/w1.wtns" "$W/sj_proof_k.json" "$W/sj_public_k.json"
    check "$curve/snarkjs_verifies_own_proof_zk_key" snarkjs_accepts "$W/vk2.json" "$W/sj_public_k.json" "$W/sj_proof_k.json"
    check "$curve/zk_verifies_snarkjs_proof_zk_key" zk verify "$W/vk2.json" "$W/sj_public_k.json" "$W/sj_proof_k.json"
    check "$curve/zk_key_rejected_with_fixture_vk" snarkjs_rejects "$F/vk.json" "$W/zk_public_k.json" "$W/zk_proof_k.json"

    # 5. bad proofs and inputs: both must reject. Made from zkpipe's proof when
    #    there is one, else from snarkjs's (so these checks run without zkpipe prove).
    P1="$W/zk_proof1.json"; U1="$W/zk_public1.json"; P2="$W/zk_proof2.json"
    [ -s "$P1" ] && [ -s "$U1" ] || { P1="$F/proof1.json"; U1="$F/public1.json"; }
    [ -s "$P2" ] || P2="$F/proof2.json"
    "${JT[@]}" swap-pi-a "$P1" "$F/proof2.json" "$W/bad_pi_a.json"
    "${JT[@]}" pi-c-from-pi-a "$P1" "$W/bad_pi_c.json"
    "${JT[@]}" pi-a-off-curve "$P1" "$W/bad_off_curve.json"
    "${JT[@]}" public-add "$U1" 0 1 "$W/bad_public_root.json"
    "${JT[@]}" public-add "$U1" 3 1 "$W/bad_public_last.json"
    "${JT[@]}" public-add "$U1" 2 r "$W/bad_public_unreduced.json" "$curve"
    negatives=(
        "tampered_pi_a:$W/bad_pi_a.json:$U1"
        "pi_c_replaced_by_pi_a:$W/bad_pi_c.json:$U1"
        "pi_a_not_on_curve:$W/bad_off_curve.json:$U1"
        "public_root_plus_1:$P1:$W/bad_public_root.json"
        "public_last_plus_1:$P1:$W/bad_public_last.json"
        "public_plus_r_unreduced:$P1:$W/bad_public_unreduced.json"
        "proof_w2_with_public_w1:$P2:$U1"
    )
    for n in "${negatives[@]}"; do
        IFS=: read -r name proof pub <<<"$n"
        check "$curve/snarkjs_rejects_$name" snarkjs_rejects "$F/vk.json" "$pub" "$proof"
        check_not "$curve/zk_rejects_$name" zk verify "$F/vk.json" "$pub" "$proof"
    done
    # a proof made under zkpipe's own key must not verify under the fixture key
    if [ -s "$W/sj_proof_k.json" ]; then
        check_not "$curve/zk_rejects_proof_under_other_key" zk verify "$F/vk.json" "$W/sj_public_k.json" "$W/sj_proof_k.json"
    else
        fail "$curve/zk_rejects_proof_under_other_key (no proof under zkpipe's key)"
    fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
