#!/bin/sh
# CLI end to end: formats, exit codes and the JSON error on stderr.
set -eu
cli="$1"; root="$2"; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$cli" estimate "$root/examples/llama-3.1-70b-h100.json" > "$tmp/table" || fail "table exit"
grep -q "peak device: stage 0" "$tmp/table" || fail "table headline"
grep -q "query_key_value" "$tmp/table" || fail "module table"
for f in json markdown csv; do
  "$cli" estimate --format "$f" "$root/examples/llama-3.1-70b-h100.json" > "$tmp/$f" || fail "format $f"
done
grep -q '"per_device"' "$tmp/json" || fail "json report"
grep -q '^| stage |' "$tmp/markdown" || fail "markdown table"
head -1 "$tmp/csv" | grep -q '^stage,layers' || fail "csv header"
"$cli" estimate - < "$root/examples/llama-3.1-70b-h100.json" > /dev/null || fail "stdin"
"$cli" presets | grep -q "llama-3.1-70b" || fail "presets"

set +e
echo '{"model":{"preset":"llama-2-7b"},"parallel":{"tp":3}}' | "$cli" estimate - > "$tmp/out" 2> "$tmp/err"; rc=$?
set -e
[ "$rc" -eq 2 ] || fail "invalid input exit code $rc"
grep -q '"path":"/parallel/tp"' "$tmp/err" || fail "error path on stderr: $(cat "$tmp/err")"
[ ! -s "$tmp/out" ] || fail "stdout not empty on error"
set +e
"$cli" estimate /nonexistent.json 2> "$tmp/err"; rc=$?
"$cli" estimate --format yaml "$root/examples/llama-3.1-70b-h100.json" 2> /dev/null; rc2=$?
set -e
[ "$rc" -eq 2 ] && [ "$rc2" -eq 2 ] || fail "missing file / bad format exit codes $rc $rc2"
echo "cli ok"
