#!/usr/bin/env bash
# Installs the Debian packages shardcalc needs, skipping what is already there.
# Usage: scripts/deps.sh [native|wasm|all]   (default: all)
set -euo pipefail
want=${1:-all}
native=(g++ make cmake python3 ca-certificates nlohmann-json3-dev doctest-dev)
wasm=(emscripten wabt binaryen nodejs)
case "$want" in
  native) pkgs=("${native[@]}") ;;
  wasm) pkgs=("${wasm[@]}") ;;
  all) pkgs=("${native[@]}" "${wasm[@]}") ;;
  *) echo "usage: $0 [native|wasm|all]" >&2; exit 2 ;;
esac
missing=()
for p in "${pkgs[@]}"; do
  # nodejs: any node on PATH will do (CI machines may carry a newer one than Debian's)
  if [ "$p" = nodejs ] && command -v node >/dev/null 2>&1; then continue; fi
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing: ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
