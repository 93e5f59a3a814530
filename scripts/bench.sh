#!/usr/bin/env bash
# Prints evaluations per second natively and in WebAssembly, the page's engine on the generator's inputs, and the page
# budget (bytes, time to first result).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh all
scripts/build.sh native
scripts/build-web.sh
./build/engine/shardcalc_bench
node scripts/bench-wasm.mjs
node scripts/bench-generated.mjs 2000
node scripts/budget.mjs
