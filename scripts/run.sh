#!/usr/bin/env bash
# The main job: install, build the engine (native CLI and WebAssembly) and the page, and serve
# the page on localhost. PORT=8000 by default.
set -euo pipefail
cd "$(dirname "$0")/.."
port=${PORT:-8000}
# Check the port before minutes of installing and building, not after.
if ! python3 -c 'import socket,sys; s=socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1])))' "$port" 2>/dev/null; then
  echo "port $port on 127.0.0.1 is in use (or not a valid port); choose another: PORT=8001 scripts/run.sh" >&2
  exit 2
fi
scripts/deps.sh web
scripts/build-web.sh
echo
echo "shardcalc is at http://localhost:${port}/   (Ctrl-C to stop)"
echo "single-file build: web/dist/shardcalc-standalone.html; CLI: build/engine/shardcalc"
exec python3 scripts/serve.py "$port" web/dist
