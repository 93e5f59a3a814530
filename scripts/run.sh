#!/usr/bin/env bash
# The main job: install, build, and estimate an example scenario (LLaMA-3.1-70B on H100s).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh native
scripts/build.sh
./build/engine/shardcalc estimate "${1:-examples/llama-3.1-70b-h100.json}"
