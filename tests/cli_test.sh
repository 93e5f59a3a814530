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
head -1 "$tmp/markdown" | grep -q '^\*\*shardcalc\*\*: Llama 3\.1 70B · megatron · dp 8 × tp 8 × pp 4 · ' || fail "markdown summary line"
grep -q '^Per-device peak \*\*[0-9.]* GiB\*\* of [0-9.]* GiB: \*\*Fits\*\*\. ' "$tmp/markdown" || fail "markdown verdict"
grep -q '^Step time \*\*[0-9.]* s\*\*, [0-9,]* tokens/s, MFU [0-9.]* %' "$tmp/markdown" || fail "markdown step time"
grep -q '^| Stage |' "$tmp/markdown" || fail "markdown table"
"$cli" estimate --format markdown --unit GB "$root/examples/llama-3.1-70b-h100.json" > "$tmp/markdown-gb" || fail "markdown in GB"
grep -q '^Per-device peak \*\*[0-9.]* GB\*\* of ' "$tmp/markdown-gb" && ! grep -q 'GiB' "$tmp/markdown-gb" || fail "markdown in GB: no GiB"
"$cli" estimate --unit GB "$root/examples/llama-3.1-70b-h100.json" > /dev/null 2>&1 && fail "--unit with the table"
grep -q '^\*\*Memory over the step, stage 0\*\* (' "$tmp/markdown" || fail "markdown timeline: the peak stage's"
[ "$(grep -c '^\*\*Memory over the step, stage' "$tmp/markdown")" -eq 1 ] || fail "markdown timeline: one stage's"
grep -q '^| Phase | Allocated |' "$tmp/markdown" || fail "markdown timeline table"
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
echo "$oom" | "$cli" estimate --format markdown - > "$tmp/oom.md" || fail "oom markdown"
grep -q '^_Hypothetical, if it fitted (the plan does not fit)_: step time ' "$tmp/oom.md" || fail "markdown hypothetical"
grep -q '^\*\*Step time, if it fitted\*\* (critical stage 0)' "$tmp/oom.md" || fail "markdown hypothetical table"
echo "$oom" | "$cli" estimate --format csv - | grep -q '^does_not_fit,-' || fail "csv does_not_fit"
tight='{"framework":"pytorch","model":{"preset":"gpt2-xl"},"training":{"seq_len":1024,"micro_batch":8}}'
echo "$tight" | "$cli" estimate - > "$tmp/tight" || fail "tight table"
grep -q ": TIGHT; fits only if the caching allocator fragments less" "$tmp/tight" || fail "tight verdict"
grep -q "^if it fitted, step: " "$tmp/tight" || fail "tight: hypothetical step line"
"$cli" estimate - < "$root/examples/llama-3.1-70b-h100.json" > /dev/null || fail "stdin"
"$cli" presets | grep -q "llama-3.1-70b" || fail "presets"
"$cli" schema | python3 -c 'import json, sys; o = json.load(sys.stdin)["objects"]; assert [x["path"] for x in o][:2] == ["", "/model"]' ||
  fail "schema: not the scenario's objects as JSON"
set +e
"$cli" schema --format table > /dev/null 2> "$tmp/err"; rc=$?
set -e
[ "$rc" -eq 2 ] && grep -q 'allowed: json' "$tmp/err" || fail "schema --format table: exit $rc"

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
# Stages are pipeline ranks from 0, as --stage and estimate number them (the slowest of pp 4 is the last, 3).
grep -q "^Kernels of pipeline stage 3 (stages 0 to 3) on " "$tmp/kernels" || fail "kernels heading: the slowest stage: $(head -1 "$tmp/kernels")"
"$cli" kernels --stage 0 --format markdown "$root/examples/llama-3.1-70b-h100.json" | grep -q '^\*\*Kernels of pipeline stage 0 (stages 0 to 3) on ' || fail "kernels markdown heading: stage 0"
"$cli" kernels --stage 3 --format json "$root/examples/llama-3.1-70b-h100.json" | grep -q '"stage": 3,' || fail "kernels json: stage 3 is rank 3"
grep -q "^layer/self_attention/query_key_value .* gemm .* backward_weight" "$tmp/kernels" || fail "kernels: the weight-gradient GEMM"
grep -q "^optimizer .* optimizer update " "$tmp/kernels" || fail "kernels: the optimizer's update"
grep -q "^per step: forward .* ms, backward_data .* all kernels " "$tmp/kernels" || fail "kernels: the totals line"
"$cli" kernels --stage 0 "$root/examples/llama-3.1-70b-h100.json" | grep -q "^embedding/word_embeddings " || fail "kernels --stage 0: the embedding"
"$cli" kernels --format csv "$root/examples/deepflow-lstm-38b.json" > "$tmp/kcsv" || fail "kernels csv"
head -1 "$tmp/kcsv" | grep -q '^module,kernel,pass,count,m,k,n,gflop,hbm_bytes,l2_bytes,hbm_reloads_acb,l2_reloads_acb,flop_per_byte,bound,us_each,ms_per_step$' || fail "kernels csv header"
grep -q '^lstm/gates,gemm,forward,40,512,39936,79872,.*,25681723392,16112418816,"156,1,1","39,1,1",' "$tmp/kcsv" || fail "kernels csv: DeepFlow's Cf row: $(grep gates "$tmp/kcsv" | head -1)"
"$cli" kernels --format markdown "$root/examples/deepflow-lstm-38b.json" | grep -q '^| lstm/cell | elementwise | forward | 40 |' || fail "kernels markdown"
"$cli" kernels --format json "$root/examples/deepflow-lstm-38b.json" | grep -q '"inflection_point": 4.03' || fail "kernels json"
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

# Help: the general usage and each command's (every option, the exit codes, the docs), exit 0 on stdout.
for h in "--help" "-h" "help"; do
  "$cli" $h > "$tmp/help" 2> "$tmp/err" || fail "$h exit code"
  [ ! -s "$tmp/err" ] || fail "$h: stderr not empty"
  for c in estimate kernels search export reconcile import presets schema; do grep -q "^  shardcalc $c " "$tmp/help" || fail "$h: no $c line"; done
  grep -q "exit status: 0 ok; 2 invalid input or usage" "$tmp/help" && grep -q "3 the plan is tight, 4 it does not fit" "$tmp/help" || fail "$h: exit codes"
  grep -q "docs/scenario.md" "$tmp/help" || fail "$h: docs link"
done
for c in estimate kernels search export reconcile import presets schema; do
  "$cli" help "$c" > "$tmp/help-$c" || fail "help $c exit code"
  "$cli" "$c" --help > "$tmp/help2" || fail "$c --help exit code"
  "$cli" "$c" -h > "$tmp/help3" || fail "$c -h exit code"
  cmp -s "$tmp/help-$c" "$tmp/help2" && cmp -s "$tmp/help-$c" "$tmp/help3" || fail "help $c and $c --help differ"
  head -1 "$tmp/help-$c" | grep -q "^usage: shardcalc $c " || fail "help $c: usage line: $(head -1 "$tmp/help-$c")"
  grep -q "^  --format FORMAT " "$tmp/help-$c" && grep -q "^  --help, -h " "$tmp/help-$c" || fail "help $c: options"
  grep -q "^exit status: 0 ok" "$tmp/help-$c" || fail "help $c: exit codes"
  grep -q "^docs: docs/[a-z]*\.md" "$tmp/help-$c" || fail "help $c: docs link"
done
grep -q "^  --check " "$tmp/help-estimate" && grep -q "3 the plan is tight" "$tmp/help-estimate" && grep -q "4 it does not fit" "$tmp/help-estimate" || fail "help estimate: --check and its exit codes"
grep -q "^  --stage N " "$tmp/help-kernels" || fail "help kernels: --stage"
grep -q "^  --tool TOOL " "$tmp/help-export" && grep -q "torchtitan" "$tmp/help-export" || fail "help export: --tool"
"$cli" estimate --format json --help | cmp -s - "$tmp/help-estimate" || fail "--help after other options"
set +e
"$cli" > "$tmp/out" 2> "$tmp/err"; rc=$?
set -e
[ "$rc" -eq 2 ] || fail "bare shardcalc: exit code $rc"
[ ! -s "$tmp/out" ] || fail "bare shardcalc: stdout not empty"
grep -q "^  shardcalc estimate " "$tmp/err" && ! head -1 "$tmp/err" | grep -q '^{' || fail "bare shardcalc: the usage, not a JSON error: $(cat "$tmp/err")"
cmp -s "$tmp/err" "$tmp/help" || fail "bare shardcalc: the usage --help prints"
set +e
"$cli" estmate x > "$tmp/out" 2> "$tmp/err"; rc=$?
"$cli" help frobnicate > "$tmp/out2" 2> "$tmp/err2"; rc2=$?
set -e
[ "$rc" -eq 2 ] && grep -q '"ok":false' "$tmp/err" && grep -q 'unknown command: estmate; did you mean estimate? commands: estimate, ' "$tmp/err" || fail "unknown command: $rc $(cat "$tmp/err")"
[ "$rc2" -eq 2 ] && grep -q 'unknown command: frobnicate; commands: ' "$tmp/err2" && [ ! -s "$tmp/out2" ] || fail "help of an unknown command: $rc2 $(cat "$tmp/err2")"

# A key repeated in one object is an error at the repeated member (it was silently its last value).
set +e
echo '{"model":{"preset":"llama-2-7b"},"parallel":{"tp":8,"tp":3}}' | "$cli" estimate - > "$tmp/out" 2> "$tmp/err"; rc=$?
printf '{"model_type":"gpt2","n_layer":12,\n "n_layer":24}' | "$cli" import - > "$tmp/out2" 2> "$tmp/err2"; rc2=$?
set -e
[ "$rc" -eq 2 ] && grep -q '"path":"/parallel/tp"' "$tmp/err" && grep -q '"message":"duplicate key \\"tp\\" at line 1, column ' "$tmp/err" || fail "duplicate key: $rc $(cat "$tmp/err")"
[ ! -s "$tmp/out" ] || fail "duplicate key: stdout not empty"
[ "$rc2" -eq 2 ] && grep -q '"path":"/n_layer"' "$tmp/err2" && grep -q '"message":"duplicate key \\"n_layer\\" at line 2, column 2 (byte 36): ' "$tmp/err2" || fail "duplicate key in a config.json: $rc2 $(cat "$tmp/err2")"

# A directory or a file that cannot be read: said so, with the path.
set +e
"$cli" estimate "$root/examples" > "$tmp/out" 2> "$tmp/err"; rc=$?
"$cli" import "$root/examples/hf" > /dev/null 2> "$tmp/err2"; rc2=$?
"$cli" kernels /nonexistent.json 2> "$tmp/err3"; rc3=$?
"$cli" estimate - < "$root/examples" > /dev/null 2> "$tmp/err4"; rc4=$?
set -e
[ "$rc" -eq 2 ] && grep -q "\"message\":\"$root/examples is a directory, not a scenario file\"" "$tmp/err" || fail "directory: $rc $(cat "$tmp/err")"
[ "$rc2" -eq 2 ] && grep -q "examples/hf is a directory, not a config.json file" "$tmp/err2" || fail "import of a directory: $(cat "$tmp/err2")"
[ "$rc3" -eq 2 ] && grep -q '"message":"cannot read /nonexistent.json: No such file or directory"' "$tmp/err3" || fail "missing file: $(cat "$tmp/err3")"
[ "$rc4" -eq 2 ] && grep -q 'standard input is a directory, not a scenario file' "$tmp/err4" || fail "directory on stdin: $(cat "$tmp/err4")"

# export: the launch lines of the scenario's own plan, as search prints them for a ranked plan.
"$cli" export "$root/examples/llama-3.1-70b-h100.json" > "$tmp/export" || fail "export exit"
[ "$(head -2 "$tmp/export")" = "torchrun:
  torchrun --nnodes 32 --nproc-per-node 8 pretrain_gpt.py ..." ] || fail "export: torchrun: $(head -2 "$tmp/export")"
grep -q '^Megatron-LM arguments (pretrain_gpt.py):$' "$tmp/export" || fail "export: Megatron-LM's arguments"
for flag in "--tensor-model-parallel-size 8" "--pipeline-model-parallel-size 4" "--sequence-parallel" "--use-distributed-optimizer"; do
  grep -q -- "^  $flag\$" "$tmp/export" || fail "export: $flag"
done
# transformers' Llama under DeepSpeed launches through the Trainer (--deepspeed), with its ds_config.json.
"$cli" export --tool hf-trainer "$root/examples/llama-2-13b-deepspeed-offload.json" > "$tmp/export-ds" || fail "export deepspeed"
grep -q '^  --deepspeed ds_config.json$' "$tmp/export-ds" && grep -q '^DeepSpeed config (ds_config.json):$' "$tmp/export-ds" || fail "export: deepspeed lines"
"$cli" export --tool=hf-trainer --format json "$root/examples/llama-3.1-8b-fsdp.json" > "$tmp/export.json" || fail "export json"
python3 - "$tmp/export.json" <<'PY' || fail "export json shape: $(cat "$tmp/export.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert sorted(j) == ["framework", "generator", "launch"], j
assert j["framework"] == "fsdp" and j["generator"] == "hf-trainer", j
assert [l["tool"] for l in j["launch"]] == ["torchrun", "Hugging Face Trainer arguments"], j
assert '--fsdp "full_shard auto_wrap"' in j["launch"][1]["lines"], j
PY
# The first plan a search ranks exports to the launch the search prints for it.
"$cli" search --format json "$root/examples/search/llama-3.1-8b-fewest-gpus.json" > "$tmp/search.json" || fail "search json"
python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["plans"][0]["scenario"]))' "$tmp/search.json" |
  "$cli" export - > "$tmp/export-row" || fail "export of a search row"
"$cli" search "$root/examples/search/llama-3.1-8b-fewest-gpus.json" | sed -n '/^launch #1$/,$p' | tail -n +2 > "$tmp/search-launch"
cmp -s "$tmp/export-row" "$tmp/search-launch" || fail "export of the first plan differs from search's launch #1: $(diff "$tmp/export-row" "$tmp/search-launch")"
set +e
"$cli" export --tool megatron-lm "$root/examples/llama-3.1-8b-fsdp.json" > "$tmp/out" 2> "$tmp/err"; rc=$?
"$cli" export --tool torchtitan "$root/examples/llama-3.1-8b-fsdp.json" > /dev/null 2> "$tmp/err2"; rc2=$?
"$cli" export --tool fsdp2 "$root/examples/llama-3.1-8b-fsdp.json" > /dev/null 2> "$tmp/err3"; rc3=$?
"$cli" estimate --tool all "$root/examples/llama-3.1-8b-fsdp.json" > /dev/null 2> "$tmp/err4"; rc4=$?
"$cli" export --format csv "$root/examples/llama-3.1-8b-fsdp.json" > /dev/null 2> "$tmp/err5"; rc5=$?
set -e
[ "$rc" -eq 2 ] && grep -q '"path":"/framework"' "$tmp/err" && grep -q 'megatron-lm launches a megatron plan; this plan.s framework is fsdp' "$tmp/err" || fail "export --tool of another framework: $(cat "$tmp/err")"
[ ! -s "$tmp/out" ] || fail "export: stdout not empty on an error"
[ "$rc2" -eq 2 ] && grep -q '"message":"no torchtitan launch generator' "$tmp/err2" && grep -q '"path":"/framework"' "$tmp/err2" || fail "export torchtitan: $(cat "$tmp/err2")"
[ "$rc3" -eq 2 ] && grep -q '"path":"/tool"' "$tmp/err3" || fail "export unknown tool: $(cat "$tmp/err3")"
[ "$rc4" -eq 2 ] && grep -q -- '--tool belongs to export' "$tmp/err4" || fail "estimate --tool: $(cat "$tmp/err4")"
[ "$rc5" -eq 2 ] && grep -q -- '--format for export: allowed: text|json' "$tmp/err5" || fail "export --format csv: $(cat "$tmp/err5")"

# docs/cli.md's import: a real Hugging Face config.json (Llama 3.1 8B), read as the preset's model.
"$cli" import "$root/examples/hf/llama-3.1-8b-config.json" > "$tmp/import-llama" || fail "import llama config"
grep -q '"family": "llama"' "$tmp/import-llama" && grep -q '"unknown": \[\]' "$tmp/import-llama" || fail "import llama: $(cat "$tmp/import-llama")"
"$cli" import --format scenario "$root/examples/hf/llama-3.1-8b-config.json" | "$cli" estimate - > "$tmp/imported-llama" || fail "import llama | estimate"
grep -q '^parameters: 8,030,261,248$' "$tmp/imported-llama" || fail "imported Llama 3.1 8B parameters: $(grep '^parameters' "$tmp/imported-llama")"
# reconcile: a real Megatron-LM log (tests/data/logs) against a scenario; its usage errors exit 2.
"$cli" reconcile "$root/examples/llama-3.1-70b-h100.json" "$root/tests/data/logs/megatron-lm-pr5662.log" > "$tmp/rec" || fail "reconcile exit"
grep -q '^Megatron-LM log against the estimate' "$tmp/rec" && grep -q '^step time: log 0.744 s' "$tmp/rec" || fail "reconcile table: $(cat "$tmp/rec")"
"$cli" reconcile --format json "$root/examples/llama-3.1-70b-h100.json" "$root/tests/data/logs/megatron-lm-issue60.log" > "$tmp/rec.json" || fail "reconcile json exit"
grep -q '"log_reports": 1' "$tmp/rec.json" || fail "reconcile json: $(cat "$tmp/rec.json")"
set +e
"$cli" reconcile "$root/examples/llama-3.1-70b-h100.json" > /dev/null 2> "$tmp/err"; rc=$?
"$cli" reconcile "$root/examples/llama-3.1-70b-h100.json" "$root/README.md" > /dev/null 2> "$tmp/err2"; rc2=$?
"$cli" reconcile "$root/examples/llama-3.1-70b-h100.json" "$tmp/no-such.log" > /dev/null 2> "$tmp/err3"; rc3=$?
set -e
[ "$rc" -eq 2 ] && grep -q 'reconcile needs the run' "$tmp/err" || fail "reconcile without a log: $(cat "$tmp/err")"
[ "$rc2" -eq 2 ] && grep -q '"path":"/log"' "$tmp/err2" || fail "reconcile of a file with no log line: $(cat "$tmp/err2")"
[ "$rc3" -eq 2 ] && grep -q '"path":"/log"' "$tmp/err3" || fail "reconcile of a missing log: $(cat "$tmp/err3")"
# serve with a vLLM log (tests/data/logs): the log's memory terms beside the estimate; a log with no vLLM line exits 2.
printf '%s\n' '{"model":{"preset":"llama-3.1-8b"},"hardware":{"preset":"h100-sxm-80gb"},"serving":{"max_num_batched_tokens":8192}}' > "$tmp/serve8b.json"
"$cli" serve "$tmp/serve8b.json" "$root/tests/data/logs/vllm-0.6.5-pr10511.log" > "$tmp/srec" || fail "serve with a log exit"
grep -q "^vLLM's start-up log against the serving estimate" "$tmp/srec" && grep -q '^weights  *14.96 GiB' "$tmp/srec" || fail "serve log table: $(cat "$tmp/srec")"
set +e
"$cli" serve "$tmp/serve8b.json" "$root/README.md" > /dev/null 2> "$tmp/err4"; rc4=$?
set -e
[ "$rc4" -eq 2 ] && grep -q '"path":"/log"' "$tmp/err4" || fail "serve with a file that is no vLLM log: $(cat "$tmp/err4")"
# serve with transformers' generate over tp 4: the table names the replica's tp and its GPUs, not one GPU.
printf '%s\n' '{"framework":"pytorch","model":{"preset":"llama-3.1-70b"},"hardware":{"preset":"h100-sxm-80gb"},"parallel":{"tp":4},"serving":{"engine":"transformers","concurrency":4,"prompt_tokens":128,"output_tokens":256}}' > "$tmp/gen70b.json"
"$cli" serve "$tmp/gen70b.json" > "$tmp/gen" || fail "serve generate over tp exit"
grep -q ', tp 4 per replica, ' "$tmp/gen" && grep -q '^FITS: its GPUs hold a batch of ' "$tmp/gen" || fail "generate over tp table: $(cat "$tmp/gen")"
# rl: the example's phases, step and launch; a given training.seq_len is refused at its path (exit 2).
"$cli" rl "$root/examples/rl/grpo-qwen3-8b-8xh100.json" > "$tmp/rl" || fail "rl exit"
grep -q "^grpo on 8 x NVIDIA H100" "$tmp/rl" && grep -q "^rollout  " "$tmp/rl" && grep -q "^training  " "$tmp/rl" &&
  grep -q "actor_rollout_ref.rollout.n=8" "$tmp/rl" || fail "rl table: $(cat "$tmp/rl")"
"$cli" rl "$root/examples/rl/grpo-qwen3-8b-8xh100.json" --format json | grep -q '"peak_phase"' || fail "rl json"
printf '%s\n' '{"framework":"fsdp","model":{"preset":"qwen3-8b"},"training":{"seq_len":4096},"parallel":{"dp":8},"rl":{}}' > "$tmp/rlbad.json"
set +e
"$cli" rl "$tmp/rlbad.json" > /dev/null 2> "$tmp/err5"; rc5=$?
set -e
[ "$rc5" -eq 2 ] && grep -q '"path":"/training/seq_len"' "$tmp/err5" || fail "rl with seq_len: $(cat "$tmp/err5")"
# search --threads: a best-plan search in parts side by side; the same plans and figures on any number, only the
# count of timed plans (and "parts") depends on it. A count that is not 1 to 64, or --threads elsewhere, exits 2.
printf '%s\n' '{"framework":"megatron","model":{"preset":"llama-3.1-8b"},"training":{"seq_len":4096,"global_batch":64},"hardware":{"preset":"a100-sxm-80gb"},"search":{"devices":{"min":8,"max":32},"frameworks":["megatron","deepspeed"],"top":8}}' > "$tmp/s8b.json"
"$cli" search --threads 1 --format json "$tmp/s8b.json" > "$tmp/t1.json" || fail "search --threads 1"
"$cli" search --threads 3 --format json "$tmp/s8b.json" > "$tmp/t3.json" || fail "search --threads 3"
python3 - "$tmp/t1.json" "$tmp/t3.json" <<'PY' || fail "search --threads 1 and 3 differ beyond the plans timed"
import json, sys
one, three = (json.load(open(p)) for p in sys.argv[1:])
assert one["parts"] == 1 and three["parts"] == 3, (one["parts"], three["parts"])
for r in (one, three):
    r["counts"].pop("time_evaluated")
    r.pop("parts")
assert one == three
PY
set +e
"$cli" search --threads 0 "$tmp/s8b.json" > /dev/null 2> "$tmp/err6"; rc6=$?
"$cli" estimate --threads 2 "$tmp/s8b.json" > /dev/null 2> "$tmp/err7"; rc7=$?
set -e
[ "$rc6" -eq 2 ] && grep -q '"path":"/threads"' "$tmp/err6" || fail "search --threads 0: $(cat "$tmp/err6")"
[ "$rc7" -eq 2 ] && grep -q 'threads belongs to search' "$tmp/err7" || fail "estimate --threads: $(cat "$tmp/err7")"
echo "cli ok"
