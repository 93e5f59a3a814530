#!/usr/bin/env bash
# Every test: installs what it needs, builds natively, for WebAssembly and the page, then runs
# the doctest suite and CLI test (CTest), the wasm-vs-CLI tests (node:test) and the browser
# tests (Debian chromium via playwright-core), then a minute of fuzzing the JSON API under
# ASan + UBSan (scripts/fuzz.sh; SHARDCALC_FUZZ_SECONDS changes the minute). Screenshots: artifacts/screenshots/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh all
scripts/build.sh native
scripts/build-web.sh
ctest --test-dir build --output-on-failure
node --test tests/web/wasm.test.mjs
node --test tests/web/adapt.test.mjs
node --test tests/web/number-text.test.mjs
node --test tests/web/docs-links.test.mjs
node --test tests/web/page.test.mjs
node --test tests/web/page-help.test.mjs
node --test tests/web/page-guide.test.mjs
node --test tests/web/page-embed.test.mjs
node --test tests/web/page-compare.test.mjs
node --test tests/web/page-readable.test.mjs
node --test tests/web/page-moe.test.mjs
node --test tests/web/page-kernels.test.mjs
node --test tests/web/page-tpu.test.mjs
node --test tests/web/page-start.test.mjs
node --test tests/web/page-search.test.mjs
node --test tests/web/page-first-try.test.mjs
node --test tests/web/page-a11y.test.mjs
# The JSON API under libFuzzer + ASan + UBSan for a bounded minute (clang; scripts/fuzz.sh).
scripts/fuzz.sh "${SHARDCALC_FUZZ_SECONDS:-60}"
