#!/usr/bin/env bash
# Fuzzes the JSON API (evaluate_scenario_text) under ASan + UBSan for SECONDS (default 60):
# fuzz_api (byte-level mutations, guided by a dictionary of the scenario's keys and spellings: tests/fuzz/make_dict.py),
# fuzz_scenario (structure-aware JSON mutator) and fuzz_logs (the log readers, a log against fixed scenarios),
# side by side on two cores or more, one after the other (half the time each) otherwise.
# Installs clang if missing, builds build-fuzz/ (clang, -DSHARDCALC_FUZZ=ON), seeds from
# tests/fuzz/corpus (never written: new inputs go to build-fuzz/corpus/<target>), prints executions/s,
# total executions, corpus size and whether anything was found; exits non-zero on a crash, leak,
# timeout or sanitizer report, with the input in build-fuzz/findings/.
# Usage: scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
case "$seconds" in '' | *[!0-9]*) echo "usage: $0 [seconds]" >&2; exit 2 ;; esac

scripts/deps.sh fuzz

jobs=$(nproc 2>/dev/null || echo 2)
start=$(date +%s)
# Through ccache where installed, as scripts/build.sh does.
launcher=()
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
CXX=clang++-14 cmake -S . -B build-fuzz -DSHARDCALC_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug "${launcher[@]}" >/dev/null
# The dictionary is asked of the CLI: the native build's where scripts/test.sh made it, else one built here.
cli=build/engine/shardcalc
[ -x "$cli" ] || cli=build-fuzz/engine/shardcalc
targets_to_build=(fuzz_api fuzz_scenario fuzz_logs)
[ "$cli" = build/engine/shardcalc ] || targets_to_build+=(shardcalc)
cmake --build build-fuzz --target "${targets_to_build[@]}" -j"$jobs" >build-fuzz/build.log 2>&1 ||
  { tail -50 build-fuzz/build.log; exit 1; }
echo "fuzz: built build-fuzz/tests/fuzz/{fuzz_api,fuzz_scenario,fuzz_logs} in $(($(date +%s) - start)) s"
python3 tests/fuzz/make_dict.py "$cli" . build-fuzz/scenario.dict

[ "$seconds" -gt 0 ] || { echo "fuzz: 0 s: built only"; exit 0; }  # libFuzzer reads 0 as "forever"
targets=(fuzz_api fuzz_scenario fuzz_logs)
if [ "$jobs" -ge 2 ]; then each=$seconds; else each=$(((seconds + 1) / 2)); fi
mkdir -p build-fuzz/findings build-fuzz/logs
touch build-fuzz/findings/.start  # what this run finds is newer
run() {  # target
  mkdir -p "build-fuzz/corpus/$1"
  # The logs target starts from the real log samples; the others from the scenarios.
  local seeds=tests/fuzz/corpus
  [ "$1" = fuzz_logs ] && seeds=tests/data/logs
  # -timeout: one input evaluating for longer is a finding (the page would hang on it). The slowest
  # legal input known, 4096 pipeline stages of 16 chunks, takes ~3 s natively and ~20 s here.
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
    "build-fuzz/tests/fuzz/$1" "build-fuzz/corpus/$1" "$seeds" \
    -dict=build-fuzz/scenario.dict -max_len=65536 -rss_limit_mb=2048 -timeout=60 \
    -max_total_time="$each" -print_final_stats=1 -artifact_prefix="build-fuzz/findings/$1-" \
    >"build-fuzz/logs/$1.log" 2>&1
}
declare -A status
if [ "$jobs" -ge 2 ]; then
  pids=()
  for t in "${targets[@]}"; do run "$t" & pids+=($!); done
  for i in "${!targets[@]}"; do
    if wait "${pids[$i]}"; then status[${targets[$i]}]=0; else status[${targets[$i]}]=$?; fi
  done
else
  for t in "${targets[@]}"; do
    if run "$t"; then status[$t]=0; else status[$t]=$?; fi
  done
fi

failed=0
failed_count=0
for t in "${targets[@]}"; do
  log="build-fuzz/logs/$t.log"
  stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -1; }
  execs=$(stat number_of_executed_units)
  rate=$(stat average_exec_per_sec)
  new=$(stat new_units_added)
  corp=$(grep -oE 'corp: [0-9]+/[0-9]+[a-zA-Z]*' "$log" | tail -1 | cut -d' ' -f2 || true)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2 || true)
  slowest=$(stat slowest_unit_time_sec)
  if [ "${status[$t]}" -eq 0 ]; then
    found="nothing found"
  else
    found="FOUND A PROBLEM (exit ${status[$t]}): $(find build-fuzz/findings -name "$t-*" -newer build-fuzz/findings/.start | head -1 || true)"
    failed=1
    failed_count=$((failed_count + 1))
  fi
  echo "fuzz: $t: ${each} s, ${execs:-?} executions, ${rate:-?} exec/s, corpus ${corp:-?} (inputs/bytes, ${new:-0} new), coverage ${cov:-?} edges, slowest input ${slowest:-?} s: $found"
  if [ "${status[$t]}" -ne 0 ]; then
    echo "---- $log (last 60 lines) ----"
    tail -60 "$log"
    echo "---- reproduce: build-fuzz/tests/fuzz/$t FILE ----"
  fi
done
echo "fuzz: $((${#targets[@]} - failed_count)) passed, $failed_count failed"
exit $failed
