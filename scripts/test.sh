#!/usr/bin/env bash
# Every test: installs what it needs, builds natively and for WebAssembly, runs CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh all
scripts/build.sh wasm
ctest --test-dir build --output-on-failure
