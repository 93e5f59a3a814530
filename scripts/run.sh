#!/usr/bin/env bash
# The main job: install, build the engine (native CLI and WebAssembly) and the page, and serve
# the page on localhost. PORT=8000 by default.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh web
scripts/build-web.sh
port=${PORT:-8000}
echo
echo "shardcalc is at http://localhost:${port}/   (Ctrl-C to stop)"
echo "single-file build: web/dist/shardcalc-standalone.html; CLI: build/engine/shardcalc"
exec python3 -m http.server --bind 127.0.0.1 --directory web/dist "$port"
