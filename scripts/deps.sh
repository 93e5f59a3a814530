#!/usr/bin/env bash
# Installs the Debian packages shardcalc needs, skipping what is already there, then the npm
# tooling for the page (esbuild, playwright-core; marked and github-slugger render docs/ to HTML).
# Usage: scripts/deps.sh [native|web|all|fuzz]
#   native: g++, CMake, nlohmann-json, doctest and ccache (the CLI, the doctest suite, the benchmark)
#   web:    Emscripten, CMake, nlohmann-json, Python (scripts/serve.py), Node and npm: what the page needs
#   all:    both, and Chromium for the browser tests
#   fuzz:   the native packages and clang with its sanitizer and libFuzzer runtimes, for scripts/fuzz.sh
# Works on a bare Debian 12 root: nothing but apt-get and dpkg-query is assumed.
set -euo pipefail
cd "$(dirname "$0")/.."
want=${1:-all}
common=(make cmake python3 ca-certificates nlohmann-json3-dev)
native=(g++ doctest-dev ccache)
web=(emscripten binaryen)
browser=(chromium fonts-dejavu-core)
fuzz=(clang-14 libclang-rt-14-dev ccache)
case "$want" in
  native) pkgs=("${common[@]}" "${native[@]}") ;;
  web) pkgs=("${common[@]}" "${web[@]}") ;;
  all) pkgs=("${common[@]}" "${native[@]}" "${web[@]}" "${browser[@]}") ;;
  fuzz) pkgs=("${common[@]}" "${native[@]}" "${fuzz[@]}") ;;
  *) echo "usage: $0 [native|web|all|fuzz]" >&2; exit 2 ;;
esac
# Node and npm: any on PATH will do (these machines carry Node 20; Debian's is 18).
if [ "$want" != native ] && [ "$want" != fuzz ]; then
  command -v node >/dev/null 2>&1 || pkgs+=(nodejs)
  command -v npm >/dev/null 2>&1 || pkgs+=(npm)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing: ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ "$want" != native ] && [ "$want" != fuzz ]; then
  [ -x node_modules/.bin/esbuild ] && [ -d node_modules/playwright-core ] && [ -d node_modules/marked ] &&
    [ -d node_modules/github-slugger ] && [ -d node_modules/axe-core ] || npm ci --no-audit --no-fund --loglevel=error
fi
