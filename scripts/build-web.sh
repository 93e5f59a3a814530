#!/usr/bin/env bash
# Builds what the page needs, and nothing else: the engine's WebAssembly modules (build-wasm/) and the
# static page (web/dist, plus the single-file web/dist/shardcalc-standalone.html).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh wasm
node web/build.mjs
