#!/usr/bin/env bash
# Builds the engine. Usage: scripts/build.sh [native|wasm|all] (default native)
#   native: the CLI, the doctest suite and the benchmark, into build/
#   wasm:   the WebAssembly modules of the same engine sources (what the page loads), into build-wasm/
#   all:    both
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-native}
case "$what" in native|wasm|all) ;; *) echo "usage: $0 [native|wasm|all]" >&2; exit 2 ;; esac
jobs=$(nproc 2>/dev/null || echo 2)
# The compiles, native and WebAssembly, go through ccache where it is installed (scripts/deps.sh): a clone elsewhere
# on the same machine (CI's) reuses them (the WebAssembly links, where -flto generates the code, are not cached). Paths are hashed relative to the repository, not the folder it was cloned to.
launcher=()
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
if [ "$what" != wasm ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
  cmake --build build -j"$jobs"
fi
if [ "$what" != native ]; then
  emcmake cmake -S . -B build-wasm -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" \
    -DCMAKE_CROSSCOMPILING_EMULATOR="$(command -v node)" >/dev/null
  cmake --build build-wasm -j"$jobs"
fi
