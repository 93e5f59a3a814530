#!/usr/bin/env bash
# Prints evaluations per second (a measurement, not a test).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh native
scripts/build.sh
./build/engine/shardcalc_bench
