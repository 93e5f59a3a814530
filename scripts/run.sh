#!/usr/bin/env bash
# The main job: install what the page needs, build the engine's WebAssembly modules and the page, and
# serve it on 127.0.0.1. PORT=8000 by default. Works on a bare Debian 12 root (scripts/test-bare.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
port=${PORT:-8000}
# Check the port before minutes of installing and building, not after, with nothing but bash (python3 may
# not be installed yet): a port is a number from 1 to 65535, and it is taken when something answers on it.
case "$port" in '' | *[!0-9]*) port_ok=false ;; *) [ "${#port}" -le 5 ] && [ "$port" -ge 1 ] && [ "$port" -le 65535 ] && port_ok=true || port_ok=false ;; esac
if ! $port_ok; then
  echo "PORT=$port is not a port number (1 to 65535); for example PORT=8001 scripts/run.sh" >&2
  exit 2
fi
if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
  echo "port $port on 127.0.0.1 is in use; choose another: PORT=8001 scripts/run.sh" >&2
  exit 2
fi
scripts/deps.sh web
scripts/build-web.sh
echo
echo "shardcalc is at http://localhost:${port}/   (Ctrl-C to stop)"
echo "single-file build: web/dist/shardcalc-standalone.html (works opened from disk)"
exec python3 scripts/serve.py "$port" web/dist
