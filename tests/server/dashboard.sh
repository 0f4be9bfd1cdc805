#!/usr/bin/env bash
# The dashboard in headless Chromium against a real daemon: starts
# `zkpipe serve` with a token and the example key, keeps jobs flowing while
# tests/server/dashboard.js loads the page and compares every figure with
# /v1/status, and saves a screenshot.
# Usage: dashboard.sh ZKPIPE WORKDIR
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
Z="$1"; W="$2"
rm -rf "$W"; mkdir -p "$W/keys"
if ! command -v chromium >/dev/null || [ ! -d "$ROOT/node_modules/playwright-core" ]; then
    echo "dashboard: chromium or playwright-core missing (bash scripts/deps.sh installs both)"
    echo "0 passed, 1 failed"; exit 1
fi
cp "$ROOT/examples/merkle/bn128/merkle.zkey" "$W/keys/merkle.zkey"
TOKEN=dash-token
"$Z" serve --listen 127.0.0.1:0 --data-dir "$W/data" --keys-dir "$W/keys" --token "$TOKEN" --budget 512M \
    --synth-workers 2 >"$W/serve.log" 2>&1 &
DPID=$!
feeder=""
cleanup() { [ -n "$feeder" ] && kill "$feeder" 2>/dev/null; kill "$DPID" 2>/dev/null; wait 2>/dev/null; }
trap cleanup EXIT
PORT=""
for _ in $(seq 1 100); do
    PORT=$(grep -o '127.0.0.1:[0-9]*' "$W/serve.log" | head -1 | cut -d: -f2)
    [ -n "$PORT" ] && break
    sleep 0.1
done
[ -n "$PORT" ] || { cat "$W/serve.log"; echo "0 passed, 1 failed"; exit 1; }
URL="http://127.0.0.1:$PORT"
B64=$(base64 -w0 "$ROOT/examples/merkle/bn128/w1.wtns")
body="{\"key\":\"merkle\",\"witnesses\":[$(for i in $(seq 1 24); do printf '{"data":"%s"}%s' "$B64" "$([ $i -lt 24 ] && echo ,)"; done)]}"
printf '%s' "$body" >"$W/job.json"
# a steady stream of jobs so the page has partitions in every stage: the
# feeder keeps three jobs of 24 partitions queued or running, whatever the
# machine's speed (a fixed rate of posts left the daemon idle for most of the
# test once proofs of this key took a few milliseconds)
in_flight() {
    curl -s -H "Authorization: Bearer $TOKEN" "$URL/v1/status" |
        grep -o '"jobs": *{[^}]*}' | grep -oE '"(queued|running)": *[0-9]+' | grep -oE '[0-9]+$' |
        awk '{ n += $1 } END { print n + 0 }'
}
( while true; do
      if [ "$(in_flight)" -lt 3 ]; then
          curl -s -o /dev/null -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" -X POST --data-binary @"$W/job.json" "$URL/v1/jobs"
      else
          sleep 0.1
      fi
  done ) &
feeder=$!
sleep 3
timeout 300 node "$ROOT/tests/server/dashboard.js" "$URL" "$W/dashboard.png" "$TOKEN"
