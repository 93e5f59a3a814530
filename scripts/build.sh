#!/usr/bin/env bash
# Native build (CLI, tests, benchmark) into build/; with "wasm", also the WebAssembly build
# of the same engine sources into build-wasm/.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs"
if [ "${1:-}" = wasm ]; then
  emcmake cmake -S . -B build-wasm -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CROSSCOMPILING_EMULATOR="$(command -v node)" >/dev/null
  cmake --build build-wasm -j"$jobs"
fi
