#!/usr/bin/env bash
# The real-project check of bindings/node (not a ctest: it installs from
# the npm registry): @semaphore-protocol/proof 4.14.3 installed into DIR
# (outside the repository) with its snarkjs dependency overridden by
# zkpipe's packed tarball, Semaphore's published artifacts
# (@zk-kit/semaphore-artifacts, depths 1, 16, 32), then
# semaphore_check.js: the project's generateProof and verifyProof.
#
# Usage: tests/node/semaphore.sh DIR     (a fresh folder, a few hundred MB)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
D="$(mkdir -p "$1" && cd "$1" && pwd)"
case "$D/" in "$ROOT"/*) echo "semaphore.sh: DIR must be outside the repository"; exit 2 ;; esac
(cd "$ROOT/bindings/node" && npm pack --silent --pack-destination "$D" >/dev/null)
mkdir -p "$D/zkpipe" "$D/art" "$D/project"
tar xzf "$D/zkpipe-0.1.0.tgz" -C "$D/zkpipe" --strip-components=1
(cd "$D/zkpipe" && npm run build >"$D/build.log" 2>&1)
(cd "$D/art" && npm pack --silent @zk-kit/semaphore-artifacts@4.13.0 >/dev/null &&
    tar xzf zk-kit-semaphore-artifacts-4.13.0.tgz --strip-components=1 --wildcards \
        'package/semaphore-1.*' 'package/semaphore-16.*' 'package/semaphore-32.*' &&
    rm zk-kit-semaphore-artifacts-4.13.0.tgz)
cat >"$D/project/package.json" <<JSON
{ "name": "semaphore-on-zkpipe", "version": "1.0.0", "private": true,
  "dependencies": { "@semaphore-protocol/proof": "4.14.3", "@semaphore-protocol/identity": "4.14.3",
                    "@semaphore-protocol/group": "4.14.3" },
  "overrides": { "snarkjs": "file:$D/zkpipe" } }
JSON
# --legacy-peer-deps: circomkit's peer snarkjs@^0.7 would refuse zkpipe's version
(cd "$D/project" && ZKPIPE_SKIP_BUILD=1 npm install --no-audit --no-fund --legacy-peer-deps >"$D/install.log" 2>&1)
node "$ROOT/tests/node/semaphore_check.js" "$D/project" "$D/art" "$ROOT/node_modules/snarkjs" 1 16 32
