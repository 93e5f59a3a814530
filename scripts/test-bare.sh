#!/usr/bin/env bash
# The README's two commands on a bare machine: a fresh Debian 12 root (debootstrap --variant=minbase: no
# python3, node, compiler or sudo) receives a copy of the repository (the files a clone has) and runs
#   1. scripts/run.sh, until the page is served; this script then fetches the page, its core engine and
#      its worker from it and checks them (and the Content-Security-Policy header serve.py sends);
#   2. in a second fresh root, scripts/build-cli.sh, then the README's CLI example.
# Each step's output goes to build-bare/<step>.log; the first failure prints its log's tail and exits 1.
#
# Usage: scripts/test-bare.sh [--reuse-builds]
#   --reuse-builds  carry this tree's build-wasm/, web/dist and build/ into the roots (at the same absolute
#                   path, so make finds them up to date): the packages, npm ci, CMake's configuration, the
#                   page build and the server all run as on a bare machine, but the compilers are not run
#                   again. CI uses it after scripts/test.sh has built both, to stay within its time; without
#                   it everything is built in the roots too (see README for the time this takes).
# Needs root (debootstrap, chroot, mount) and a Debian mirror. The minbase root is kept in
# $SHARDCALC_BARE_CACHE/minbase.tar (default /var/cache/shardcalc-bare: made once per machine, also across clones;
# SHARDCALC_BARE_FRESH=1 makes it anew); the .deb files the roots download are kept beside it, so the second root
# and later runs download nothing again.
# A network that passes TLS through a proxy of its own (this workplace's does) needs its CA in every machine: the
# roots get this machine's extra CA certificates (/usr/local/share/ca-certificates, which the ca-certificates
# package that run.sh installs adds to the system store) and NODE_EXTRA_CA_CERTS for npm, as any machine there would.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
reuse=false
case "${1:-}" in '') ;; --reuse-builds) reuse=true ;; *) echo "usage: $0 [--reuse-builds]" >&2; exit 2 ;; esac
[ "$(id -u)" -eq 0 ] || { echo "test-bare: needs root (debootstrap, chroot, mount)" >&2; exit 2; }
if $reuse; then
  for d in build-wasm web/dist build/engine/shardcalc; do
    [ -e "$d" ] || { echo "test-bare: --reuse-builds needs $d (scripts/build.sh all && scripts/build-web.sh)" >&2; exit 2; }
  done
fi
mirror=${SHARDCALC_DEBIAN_MIRROR:-http://deb.debian.org/debian}
work=$repo/build-bare
cache=${SHARDCALC_BARE_CACHE:-/var/cache/shardcalc-bare}
mkdir -p "$work" "$cache/apt-archives/partial"
roots=()
mounted=()
server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null || true
  for r in "${roots[@]}"; do
    # Whatever the root still runs (the page's server, a build) holds its mounts.
    for pid in $(ls /proc | grep -E '^[0-9]+$'); do
      [ "$(readlink "/proc/$pid/root" 2>/dev/null)" = "$r" ] && kill -9 "$pid" 2>/dev/null || true
    done
  done
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
  for r in "${roots[@]}"; do rm -rf --one-file-system "$r"; done
}
trap cleanup EXIT
step() {  # name, command...: runs it with its output in build-bare/<name>.log
  local name=$1 start=$SECONDS
  shift
  if "$@" >"$work/$name.log" 2>&1; then
    echo "test-bare: $name: ok ($((SECONDS - start)) s)"
  else
    echo "test-bare: $name: FAILED after $((SECONDS - start)) s; the end of build-bare/$name.log:" >&2
    tail -40 "$work/$name.log" >&2
    exit 1
  fi
}

# The minbase root, once per machine.
if [ ! -s "$cache/minbase.tar" ] || [ -n "${SHARDCALC_BARE_FRESH:-}" ]; then
  command -v debootstrap >/dev/null || step install-debootstrap \
    bash -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap'
  rm -rf "$work/minbase"
  step debootstrap debootstrap --variant=minbase bookworm "$work/minbase" "$mirror"
  step minbase-tar tar -C "$work/minbase" -cf "$cache/minbase.tar" .
  rm -rf "$work/minbase"
fi

# A fresh root from the minbase tarball, with the repository's files at the same absolute path as here.
new_root() {  # name: sets $root to a new root's path
  local r=$work/root-$1
  rm -rf --one-file-system "$r"
  mkdir -p "$r"
  tar -C "$r" -xf "$cache/minbase.tar"
  roots+=("$r")
  for m in proc sys dev dev/pts; do
    case $m in
      proc) mount -t proc proc "$r/proc" ;;
      sys) mount -t sysfs sys "$r/sys" ;;
      dev) mount --bind /dev "$r/dev" ;;
      dev/pts) mount -t devpts devpts "$r/dev/pts" ;;
    esac
    mounted+=("$r/$m")
  done
  mount --bind "$cache/apt-archives" "$r/var/cache/apt/archives"
  mounted+=("$r/var/cache/apt/archives")
  cp /etc/resolv.conf "$r/etc/resolv.conf" 2>/dev/null || true
  mkdir -p "$r/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$r/usr/local/share/ca-certificates/" 2>/dev/null || true
  mkdir -p "$r$repo"
  # The files a clone has: tracked ones and untracked ones git does not ignore.
  git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf - | tar -C "$r$repo" -xf -
  root=$r
  base_kb=$(du -sk --one-file-system "$r" | cut -f1)
}
grown() {  # root, what: how much disk the path took in the root (packages, npm modules, build trees)
  echo "test-bare: $2 took $(( ($(du -sk --one-file-system "$1" | cut -f1) - base_kb) / 1024 )) MiB of disk over the bare root"
}
extra_ca=""
compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null && extra_ca=/etc/ssl/certs/ca-certificates.crt
in_root() {  # root, command: run in the root's repository copy, with none of this machine's environment
  chroot "$1" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 ${extra_ca:+NODE_EXTRA_CA_CERTS=$extra_ca} \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin /bin/bash -c "cd '$repo' && $2"
}
carry() {  # root, paths...: this tree's build outputs into the root, mtimes kept
  local r=$1
  shift
  tar -C "$repo" -cf - "$@" | tar -C "$r$repo" -xf -
}

# 1. scripts/run.sh serves the page.
new_root web
web=$root
for tool in python3 node npm g++ cc em++ cmake; do
  if in_root "$web" "command -v $tool" >/dev/null 2>&1; then echo "test-bare: the bare root has $tool" >&2; exit 1; fi
done
$reuse && carry "$web" build-wasm web/dist
port=${SHARDCALC_BARE_PORT:-18931}
start=$SECONDS
in_root "$web" "PORT=$port setsid scripts/run.sh" >"$work/run.log" 2>&1 &
server=$!
until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
  if ! kill -0 "$server" 2>/dev/null; then
    echo "test-bare: scripts/run.sh ended before serving; the end of build-bare/run.log:" >&2
    tail -40 "$work/run.log" >&2
    exit 1
  fi
  [ $((SECONDS - start)) -lt 1800 ] || { echo "test-bare: no page after 30 minutes" >&2; tail -20 "$work/run.log" >&2; exit 1; }
  sleep 2
done
echo "test-bare: scripts/run.sh: serving after $((SECONDS - start)) s"
step fetch-page node tests/bare-fetch.mjs "http://127.0.0.1:$port/"
grown "$web" "scripts/run.sh"
kill "$server" 2>/dev/null || true
server=""

# 2. The CLI-only path: scripts/build-cli.sh, then the README's example.
new_root cli
cli=$root
$reuse && carry "$cli" build
step build-cli in_root "$cli" 'scripts/build-cli.sh'
step cli-estimate in_root "$cli" 'build/engine/shardcalc estimate examples/llama-3.1-70b-h100.json | grep -q "step:"'
grown "$cli" "scripts/build-cli.sh"
echo "test-bare: 2 passed, 0 failed"
