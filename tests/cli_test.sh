#!/bin/sh
# CLI end to end: formats, exit codes and the JSON error on stderr.
set -eu
cli="$1"; root="$2"; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$cli" estimate "$root/examples/llama-3.1-70b-h100.json" > "$tmp/table" || fail "table exit"
grep -q "peak device: stage 0" "$tmp/table" || fail "table headline"
grep -q "^peak device: stage 0, .* GiB of .* GiB: FITS; fits with the worst measured fragmentation" "$tmp/table" || fail "verdict and reason"
grep -q "^peak memory: allocated .* GiB at layer backward, reserved .* GiB" "$tmp/table" || fail "peak memory line"
grep -q "^stage .* allocated  fragmentation  reserved  overhead  total$" "$tmp/table" || fail "stage table columns"
for s in 0 1 2 3; do grep -q "^Memory over the step, stage $s (" "$tmp/table" || fail "timeline table of stage $s"; done
grep -q "^layer backward (peak) " "$tmp/table" || fail "timeline peak row"
grep -q "^loss backward " "$tmp/table" || fail "timeline loss row (last stage)"
grep -q "^step: " "$tmp/table" || fail "step line of a plan that fits"
grep -q "if it fitted" "$tmp/table" && fail "a plan that fits is not hypothetical"
grep -q "query_key_value" "$tmp/table" || fail "module table"
for f in json markdown csv; do
  "$cli" estimate --format "$f" "$root/examples/llama-3.1-70b-h100.json" > "$tmp/$f" || fail "format $f"
done
grep -q '"per_device"' "$tmp/json" || fail "json report"
grep -q '^| stage |' "$tmp/markdown" || fail "markdown table"
grep -q '^\*\*Memory over the step, stage 3\*\* (' "$tmp/markdown" || fail "markdown timeline"
grep -q '^| phase | allocated |' "$tmp/markdown" || fail "markdown timeline table"
head -1 "$tmp/csv" | grep -q '^stage,layers,in-flight,weights,gradients,optimizer,activations,logits,comm buffers,cast weights,transient,overhead,total,' || fail "csv header"
grep -q '^verdict,margin,reason,' "$tmp/csv" || fail "csv verdict section"
grep -q '^fits,' "$tmp/csv" || fail "csv verdict row"
grep -q '^stage,phase,allocated,weights,' "$tmp/csv" || fail "csv timeline section"
[ "$(grep -c '^3,' "$tmp/csv")" -ge 6 ] || fail "csv rows of stage 3 (stage table and 5 timeline moments)"
[ "$(grep -c '^$' "$tmp/csv")" -eq 5 ] || fail "csv: six sections separated by blank lines"

# A plan that does not fit and a tight one: the verdict, its reason, and hypothetical times.
oom='{"framework":"pytorch","model":{"preset":"llama-3.1-8b"},"training":{"seq_len":4096,"micro_batch":8}}'
echo "$oom" | "$cli" estimate - > "$tmp/oom" || fail "oom table"
grep -q "^peak device: stage 0, .*: DOES NOT FIT; the allocated peak plus the CUDA context" "$tmp/oom" || fail "does-not-fit verdict"
grep -q "^if it fitted, step: " "$tmp/oom" || fail "hypothetical step line"
grep -q "^step: " "$tmp/oom" && fail "plain step line for a plan that does not fit"
grep -q "^Step time if it fitted (critical stage 0)" "$tmp/oom" || fail "hypothetical step table"
echo "$oom" | "$cli" estimate --format markdown - | grep -q '^\*\*Step time (if it fitted)\*\*' || fail "markdown hypothetical"
echo "$oom" | "$cli" estimate --format csv - | grep -q '^does_not_fit,-' || fail "csv does_not_fit"
tight='{"framework":"pytorch","model":{"preset":"gpt2-xl"},"training":{"seq_len":1024,"micro_batch":8}}'
echo "$tight" | "$cli" estimate - > "$tmp/tight" || fail "tight table"
grep -q ": TIGHT; fits only if the caching allocator fragments less" "$tmp/tight" || fail "tight verdict"
grep -q "^if it fitted, step: " "$tmp/tight" || fail "tight: hypothetical step line"
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
# A number beyond double range once aborted the CLI (exit 134); deep nesting overflowed its stack.
set +e
echo '{"model":{"preset":"gpt2","hidden":1e400}}' | "$cli" estimate - > /dev/null 2> "$tmp/err"; rc=$?
python3 -c 'print("{\"model\":" + "{\"a\":" * 200000 + "1" + "}" * 200001)' | "$cli" estimate - > /dev/null 2> "$tmp/err2"; rc2=$?
set -e
[ "$rc" -eq 2 ] || fail "1e400 exit code $rc"
grep -q '"path":"/model/hidden"' "$tmp/err" || fail "1e400 error path: $(cat "$tmp/err")"
[ "$rc2" -eq 2 ] || fail "deep nesting exit code $rc2"
grep -q 'nested deeper than' "$tmp/err2" || fail "deep nesting error: $(head -c 300 "$tmp/err2")"
# --check: the exit status says whether the plan fits (0), is tight (3) or does not fit (4).
"$cli" estimate --check "$root/examples/llama-3.1-70b-h100.json" > /dev/null || fail "--check on a plan that fits"
set +e
echo "$oom" | "$cli" estimate --check - > /dev/null; rc=$?
echo "$oom" | "$cli" estimate - > /dev/null; rc2=$?
set -e
[ "$rc" -eq 4 ] || fail "--check on a plan that does not fit: exit $rc"
[ "$rc2" -eq 0 ] || fail "without --check a plan that does not fit still exits 0: $rc2"
set +e
echo "$tight" | "$cli" estimate --check --format json - > /dev/null; rc=$?
set -e
[ "$rc" -eq 3 ] || fail "--check on a tight plan: exit $rc"
# import: a Hugging Face config.json as the engine reads it, or as a scenario for estimate; refusals exit 2.
gpt2='{"model_type":"gpt2","activation_function":"gelu_new","n_embd":768,"n_head":12,"n_inner":null,"n_layer":12,"n_positions":1024,"vocab_size":50257,"some_new_knob":1}'
echo "$gpt2" | "$cli" import - > "$tmp/import" || fail "import exit"
grep -q '"family": "gpt2"' "$tmp/import" || fail "import json: $(cat "$tmp/import")"
echo "$gpt2" | "$cli" import --format scenario - 2> "$tmp/import-err" | "$cli" estimate - > "$tmp/imported" || fail "import | estimate"
echo '{"model":{"preset":"gpt2"}}' | "$cli" estimate - > "$tmp/preset" || fail "gpt2 preset"
[ "$(grep '^parameters: ' "$tmp/imported")" = "$(grep '^parameters: ' "$tmp/preset")" ] || fail "imported GPT-2 parameters"
grep -q 'not understood: some_new_knob' "$tmp/import-err" || fail "import: keys not understood on stderr: $(cat "$tmp/import-err")"
set +e
echo '{"model_type":"t5","d_model":512,"num_layers":6}' | "$cli" import - > "$tmp/out" 2> "$tmp/err"; rc=$?
set -e
[ "$rc" -eq 2 ] || fail "import refusal exit code $rc"
grep -q '"path":"/model_type"' "$tmp/err" || fail "import refusal path: $(cat "$tmp/err")"
[ ! -s "$tmp/out" ] || fail "import: stdout not empty on a refusal"

# kernels: one stage's kernels in four formats; --stage picks another; a rank that does not exist exits 2.
"$cli" kernels "$root/examples/llama-3.1-70b-h100.json" > "$tmp/kernels" || fail "kernels exit"
grep -q "^Kernels of pipeline stage 4 of 4 on " "$tmp/kernels" || fail "kernels heading: the slowest stage"
grep -q "^layer/self_attention/query_key_value .* gemm .* backward_weight" "$tmp/kernels" || fail "kernels: the weight-gradient GEMM"
grep -q "^optimizer .* optimizer update " "$tmp/kernels" || fail "kernels: the optimizer's update"
grep -q "^per step: forward .* ms, backward_data .* all kernels " "$tmp/kernels" || fail "kernels: the totals line"
"$cli" kernels --stage 0 "$root/examples/llama-3.1-70b-h100.json" | grep -q "^embedding/word_embeddings " || fail "kernels --stage 0: the embedding"
"$cli" kernels --format csv "$root/examples/deepflow-lstm-seed001.json" > "$tmp/kcsv" || fail "kernels csv"
head -1 "$tmp/kcsv" | grep -q '^module,kernel,pass,count,m,k,n,gflop,hbm_bytes,l2_bytes,hbm_reloads_acb,l2_reloads_acb,flop_per_byte,bound,us_each,ms_per_step$' || fail "kernels csv header"
grep -q '^lstm/gates,gemm,forward,40,512,39936,79872,.*,25681723392,16112418816,"156,1,1","39,1,1",' "$tmp/kcsv" || fail "kernels csv: seed 001's Cf row: $(grep gates "$tmp/kcsv" | head -1)"
"$cli" kernels --format markdown "$root/examples/deepflow-lstm-seed001.json" | grep -q '^| lstm/cell | elementwise | forward | 40 |' || fail "kernels markdown"
"$cli" kernels --format json "$root/examples/deepflow-lstm-seed001.json" | grep -q '"inflection_point": 4.03' || fail "kernels json"
set +e
"$cli" kernels --stage 4 "$root/examples/llama-3.1-70b-h100.json" > "$tmp/out" 2> "$tmp/err"; rc=$?
set -e
[ "$rc" -eq 2 ] || fail "kernels --stage 4 exit code $rc"
grep -q '"path":"/stage"' "$tmp/err" || fail "kernels --stage 4: the path: $(cat "$tmp/err")"
set +e
"$cli" kernels --stage x1 "$root/examples/llama-3.1-70b-h100.json" 2> "$tmp/err"; rc=$?
"$cli" estimate --stage 1 "$root/examples/llama-3.1-70b-h100.json" 2> "$tmp/err2"; rc2=$?
set -e
[ "$rc" -eq 2 ] && grep -q '"path":"/stage"' "$tmp/err" || fail "kernels --stage x1"
[ "$rc2" -eq 2 ] && grep -q 'stage belongs to kernels' "$tmp/err2" || fail "estimate --stage"
echo "cli ok"
