#!/usr/bin/env bash
# Every test: installs what it needs, builds natively, for WebAssembly and the page, then runs
# the doctest suite and CLI test (CTest), then every tests/web/*.test.mjs (scripts/test-web.mjs): the wasm-vs-CLI
# tests (node:test) and the browser tests (Debian chromium via playwright-core), then a minute of fuzzing the JSON API under
# ASan + UBSan (scripts/fuzz.sh; SHARDCALC_FUZZ_SECONDS changes the minute). Screenshots: artifacts/screenshots/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh all
scripts/build.sh native
scripts/build-web.sh
ctest --test-dir build --output-on-failure
node scripts/test-web.mjs  # every tests/web/*.test.mjs, two files at a time
# The JSON API under libFuzzer + ASan + UBSan for a bounded minute (clang; scripts/fuzz.sh).
scripts/fuzz.sh "${SHARDCALC_FUZZ_SECONDS:-60}"
