#!/bin/sh
# Runs each libFuzzer target for SECONDS (default 20) from a seed corpus
# made by the io tests (ZP_IO_CORPUS_DIR) or committed (fuzz/corpus), and
# fails on the first crash.
#   cmake -S . -B build-fuzz -DZP_FUZZ=ON -DCMAKE_C_COMPILER=clang
#   cmake --build build-fuzz && fuzz/run.sh build-fuzz 20
set -eu
BUILD=${1:?usage: fuzz/run.sh BUILD_DIR [SECONDS]}
SECONDS_EACH=${2:-20}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# Seeds: the files the round-trip tests write, both curves.
mkdir -p "$WORK/seeds"
for t in test_io test_io_json; do
  if [ -x "$BUILD/$t" ]; then
    ZP_IO_CORPUS_DIR="$WORK/seeds" ZP_TEST_ITERS=1 "$BUILD/$t" >/dev/null
  fi
done
# The JSON target reads a selector byte first (0 proof, 1 public, 2 key;
# +4 for BLS12-381 public values).
mkdir -p "$WORK/seeds/json_sel"
for f in "$WORK"/seeds/json/*; do
  [ -e "$f" ] || continue
  case $(basename "$f") in
    proof_*) sel='\000' ;;
    public_bls) sel='\005' ;;
    public_*) sel='\001' ;;
    *) sel='\002' ;;
  esac
  { printf "$sel"; cat "$f"; } > "$WORK/seeds/json_sel/$(basename "$f")"
done

# The server target: method byte, path, authorization, body.
mkdir -p "$WORK/seeds/server"
printf '\000/v1/status\nBearer fuzz-token\n' > "$WORK/seeds/server/status"
printf '\001/v1/jobs\nBearer fuzz-token\n{"key":"merkle","witnesses":[{"path":"w1.wtns"}],"request_id":"a"}' > "$WORK/seeds/server/post_path"
printf '\001/v1/jobs\nBearer fuzz-token\n{"key":"merkle","priority":3,"witnesses":[{"data":"d3RucwIAAAA="}]}' > "$WORK/seeds/server/post_data"
printf '\000/v1/jobs/1\nBearer fuzz-token\n' > "$WORK/seeds/server/job"
printf '\002/v1/jobs/1\nBearer fuzz-token\n' > "$WORK/seeds/server/cancel"
printf '\000/v1/keys\nBearer fuzz-token\n' > "$WORK/seeds/server/keys"
printf '\001/v1/keys/merkle\nBearer fuzz-token\n' > "$WORK/seeds/server/preload"
printf '\000/metrics\nBearer x\n' > "$WORK/seeds/server/metrics"

# The client target: a selector byte (0 status, 1 job, 2 keys, 3 one key,
# 4 proofs, 5 submit's id, 6 an error or cancel answer), then the answer.
mkdir -p "$WORK/seeds/client"
printf '\000{"version":"0.1","uptime":12.5,"budget":268435456,"workers":{"synth":2,"prove":1},"stages":{"synth":{"partitions":1,"count":2,"bytes":4096}},"classes":{"key":{"count":1,"bytes":5,"peak":5}},"jobs":{"queued":1,"done":3}}' > "$WORK/seeds/client/status"
printf '\001{"id":7,"key":"merkle","priority":0,"state":"done","partitions":2,"done":2,"submitted":1764600000.5,"finished":1764600003.25,"request_id":"r","timings":[{"partition":0,"queued":0.1,"synth":0.2,"total":1.5}]}' > "$WORK/seeds/client/job"
printf '\001{"id":7,"state":"failed","submitted":1e300,"finished":-1e19,"error":"x"}' > "$WORK/seeds/client/job_time"
printf '\002{"keys":[{"id":"merkle","curve":"bn128","wires":100,"public":1,"domain":128,"loaded":true,"key_bytes":1048576}]}' > "$WORK/seeds/client/keys"
printf '\003{"id":"merkle","curve":"bn128","loaded":false}' > "$WORK/seeds/client/key"
printf '\004{"proofs":[{"partition":0,"proof":{"pi_a":["1","2","1"]},"public":["3"]},{"partition":1,"proof":{},"public":[]}]}' > "$WORK/seeds/client/proofs"
printf '\005{"id":17,"state":"queued","partitions":2,"queue_position":3}' > "$WORK/seeds/client/submit"
printf '\006{"error":{"code":"failed","message":"bad witness"},"state":"cancelled"}' > "$WORK/seeds/client/error"

# The input.json target: a selector byte (the prime), then the text.
mkdir -p "$WORK/seeds/witness_input"
for f in "$(dirname "$0")"/../tests/witness/input_cases/*.json; do
  { printf '\000'; cat "$f"; } > "$WORK/seeds/witness_input/$(basename "$f")"
done

# The glue target: its committed seeds (fuzz/fuzz_glue.c gives the
# format); it compiles its puppet module once into this cache.
mkdir -p "$WORK/seeds/glue"
cp "$(dirname "$0")"/corpus/glue/* "$WORK/seeds/glue/"
export ZKPIPE_CACHE="$BUILD/fuzz-glue-cache"

status=0
for target in zkey wtns r1cs json server client witness_input glue; do
  bin="$BUILD/fuzz_$target"
  if [ ! -x "$bin" ]; then
    echo "missing $bin (configure with -DZP_FUZZ=ON -DCMAKE_C_COMPILER=clang)" >&2
    exit 2
  fi
  seed="$WORK/seeds/$target"
  [ "$target" = json ] && seed="$WORK/seeds/json_sel"
  mkdir -p "$WORK/corpus_$target" "$seed"
  echo "== fuzz_$target: ${SECONDS_EACH}s"
  if ! "$bin" -max_total_time="$SECONDS_EACH" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
      -artifact_prefix="$BUILD/crash_${target}_" -print_final_stats=1 \
      "$WORK/corpus_$target" "$seed" 2>"$WORK/log_$target"; then
    tail -n 60 "$WORK/log_$target" >&2
    echo "fuzz_$target FAILED (artifact under $BUILD/crash_${target}_*)" >&2
    status=1
  else
    grep -E "stat::number_of_executed_units|cov:" "$WORK/log_$target" | tail -n 2
  fi
done
exit $status
