#!/usr/bin/env bash
# Only the CLI: the native packages (compiler, CMake, nlohmann-json, doctest) and build/engine/shardcalc.
# No Emscripten, Node or Chromium. About a minute on two cores.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh native
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target shardcalc -j"$jobs"
echo "built build/engine/shardcalc; try: build/engine/shardcalc estimate examples/llama-3.1-70b-h100.json"
