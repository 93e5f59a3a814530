#!/bin/sh
# scripts/run.sh checks its port before installing and building: a busy port is a one-line error
# and exit 2 at once, not a Python traceback after the build.
set -eu
root="$1"
python3 - "$root" <<'PY'
import socket, subprocess, sys, time
held = socket.socket(); held.bind(("127.0.0.1", 0)); held.listen(1)
port = held.getsockname()[1]
start = time.time()
run = subprocess.run([sys.argv[1] + "/scripts/run.sh"], env={"PORT": str(port), "PATH": "/usr/bin:/bin:/usr/local/bin"},
                     capture_output=True, text=True, timeout=60)
assert run.returncode == 2, (run.returncode, run.stderr)
assert f"port {port}" in run.stderr and "PORT=" in run.stderr, run.stderr
assert "Traceback" not in run.stderr, run.stderr
assert time.time() - start < 10, "checked only after installing or building"
print("run.sh busy port ok")
PY
