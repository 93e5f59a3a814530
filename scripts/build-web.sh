#!/usr/bin/env bash
# Builds the wasm engine and the static page into web/dist (plus the single-file build).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh wasm
[ -x node_modules/.bin/esbuild ] || npm install --no-audit --no-fund --loglevel=error
node web/build.mjs
