#!/usr/bin/env bash
# Builds the wasm engine and the static page into web/dist (plus the single-file build).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh wasm
node web/build.mjs
