#pragma once
// The CLI's commands: each one's usage line, what it does, its options, exit codes and docs (cli/main.cpp prints
// them for `shardcalc help [COMMAND]` and `COMMAND --help`).
namespace shardcalc::cli {

// One command's help: its usage line, what it does, every option, its exit codes and where its docs are.
struct Command {
    const char* name;
    const char* summary;  // one line of the general usage
    const char* help;     // the rest of `shardcalc help NAME`
};

inline constexpr const char* kExitCodes =
    "exit status: 0 ok; 2 invalid input or usage (the error as one line of JSON on stderr,\n"
    "  {\"ok\":false,\"error\":{\"path\":\"/parallel/tp\",\"message\":\"...\"}}, path a JSON pointer or \"\")\n";

inline constexpr Command kCommands[] = {
    {"estimate", "estimate FILE|- [--format table|json|markdown|csv] [--unit GiB|GB] [--check]",
     "Evaluates a scenario (a JSON object: framework, model, training, parallel, hardware) and prints its\n"
     "report: memory per device by pipeline stage and the verdict (FITS, TIGHT, DOES NOT FIT), memory over\n"
     "the step, the module tree, the step time (MFU, tokens/s) and every collective.\n"
     "\n"
     "  FILE|-           the scenario file, or - to read it from standard input\n"
     "  --format FORMAT  table (default): for a terminal; json: the report (the public contract);\n"
     "                   markdown: a summary, then the tables (the page's Copy Markdown);\n"
     "                   csv: the tables with raw byte and second counts\n"
     "  --unit UNIT      GiB (default) or GB: the Markdown's amounts\n"
     "  --check          exit 3 when the plan is tight, 4 when it does not fit (the report is printed)\n"
     "  --help, -h       this text\n"
     "\n"
     "exit status: 0 ok (with --check: the plan fits); 2 invalid input or usage (the error as one line of\n"
     "  JSON on stderr, {\"ok\":false,\"error\":{\"path\":\"/parallel/tp\",\"message\":\"...\"}}); with --check:\n"
     "  3 the plan is tight (fits only with less fragmentation than the worst measured), 4 it does not fit\n"
     "\n"
     "docs: docs/scenario.md (fields: section 2, errors: 4, report: 5, CLI: 6)\n"},
    {"kernels", "kernels FILE|- [--stage N] [--format table|json|markdown|csv]",
     "Prints the per-kernel table of one pipeline stage of the scenario's plan: each kernel's pass, count,\n"
     "GEMM shape, FLOPs, HBM and L2 traffic, intensity, bound and time, then the step's time per pass.\n"
     "\n"
     "  FILE|-           the scenario file, or - to read it from standard input\n"
     "  --stage N        the pipeline stage (rank), 0 to pp - 1, numbered as estimate numbers them;\n"
     "                   default: the stage whose kernels take longest\n"
     "  --format FORMAT  table (default); json; markdown; csv (raw byte counts)\n"
     "  --help, -h       this text\n"
     "\n"
     "%EXIT%"
     "\n"
     "docs: docs/scenario.md (section 6, kernels), docs/time.md (the per-kernel table)\n"},
    {"search", "search FILE|- [--format table|json|markdown|csv] [--threads N]",
     "Searches the plans of a scenario with a \"search\" object (devices, frameworks, the dimensions to\n"
     "vary) and ranks those that fit, with the launch flags of the best.\n"
     "\n"
     "  FILE|-           the scenario file, or - to read it from standard input\n"
     "  --format FORMAT  table (default); json; markdown; csv (the ranked plans)\n"
     "  --threads N      split the search over N threads (default: the machine's cores, at most 8); the\n"
     "                   plans and figures are the same, only counts.time_evaluated depends on it\n"
     "  --help, -h       this text\n"
     "\n"
     "%EXIT%"
     "\n"
     "docs: docs/search.md\n"},
    {"serve", "serve FILE|- [VLLM_LOG] [--format table|json]",
     "Estimates serving the scenario's model with vLLM-style continuous batching, from its \"serving\" object\n"
     "(prompt and output tokens, concurrency or request rate, weight and KV cache formats, gpu_memory_utilization,\n"
     "a shared prefix, speculative decoding): one GPU's memory (weights, the profile run's activations, the KV\n"
     "cache), how many requests fit at once and the longest one, time to first token, time per output token and\n"
     "tokens/s at that concurrency; with a \"search\" object, the ranked serving plans. With VLLM_LOG, a vLLM\n"
     "server's start-up log instead set beside the estimate: each memory term vLLM reports (\"model weights take\",\n"
     "\"Available KV cache memory\", \"GPU KV cache size\", \"Maximum concurrency for\" ...), the gap and what the\n"
     "log implies for the scenario.\n"
     "\n"
     "  FILE|-           the scenario file, or - to read it from standard input\n"
     "  VLLM_LOG         a vLLM server's log (its start-up lines), or - for standard input\n"
     "  --format FORMAT  table (default); json (the \"serving\" object, or \"serving_reconciliation\" with a log)\n"
     "  --help, -h       this text\n"
     "\n"
     "%EXIT%"
     "\n"
     "docs: docs/serving.md\n"},
    {"rl", "rl FILE|- [VERL_LOG] [--format table|json]",
     "Estimates RL post-training (GRPO, PPO) or DPO of the scenario's model, from its \"rl\" object (prompts per\n"
     "step, responses per prompt, prompt and response tokens, mini-batches, the reference policy, the rollout's\n"
     "tensor parallelism and gpu_memory_utilization, sleep and offload), the actor's rollout engine colocated on\n"
     "its training GPUs as verl's hybrid engine and TRL run it: each phase's memory on a GPU (rollout, log-probs,\n"
     "training), the step's time (resharding, rollout, log-probability passes, updates), the largest micro-batch,\n"
     "n and response length that fit, each rollout tensor-parallel size, and verl's and TRL's flags. With\n"
     "VERL_LOG, verl's per-step metrics lines (\"step:N - ... - timing_s/gen:... - timing_s/step:...\") instead\n"
     "set beside the estimate: each phase's seconds, the actor process's allocator peaks and the sequences'\n"
     "lengths, the gap and what the log implies for the scenario (rl.mean_response_tokens).\n"
     "\n"
     "  FILE|-           the scenario file, or - to read it from standard input\n"
     "  VERL_LOG         verl's training log (its \"step:N - ...\" lines), or - for standard input\n"
     "  --format FORMAT  table (default); json (the \"rl\" object, or \"rl_reconciliation\" with a log)\n"
     "  --help, -h       this text\n"
     "\n"
     "%EXIT%"
     "\n"
     "docs: docs/rl.md\n"},
    {"export", "export FILE|- [--tool megatron-lm|megatron-deepspeed|hf-trainer|torchtitan|xla-mesh|all] [--format text|json]",
     "Prints how to launch the scenario's own plan (not a search row) with its framework's tools, the\n"
     "lines `shardcalc search` prints for a ranked plan: torchrun and Megatron-LM's arguments (framework\n"
     "megatron), Megatron-DeepSpeed's arguments and ds_config.json (deepspeed), the Hugging Face Trainer's\n"
     "arguments (fsdp, pytorch), the device mesh (xla). A \"search\" object in the scenario is ignored.\n"
     "\n"
     "  FILE|-           the scenario file, or - to read it from standard input\n"
     "  --tool TOOL      all (default): the plan framework's own generator; megatron-lm, megatron-deepspeed,\n"
     "                   hf-trainer or xla-mesh: that one, an error at /framework when it does not launch the\n"
     "                   plan's framework; torchtitan: no generator yet, always that error\n"
     "  --format FORMAT  text (default): each tool's lines; json: {\"framework\", \"generator\",\n"
     "                   \"launch\": [{\"tool\", \"lines\"}]}\n"
     "  --help, -h       this text\n"
     "\n"
     "%EXIT%"
     "\n"
     "docs: docs/scenario.md (section 6.2, export)\n"},
    {"import", "import FILE|- [--format json|scenario]",
     "Reads a Hugging Face config.json as the scenario's model fields. A config the engine would count\n"
     "as a different model is refused at the key that says why.\n"
     "\n"
     "  FILE|-           the config.json file, or - to read it from standard input\n"
     "  --format FORMAT  json (default): {\"ok\", \"family\", \"label\", \"model\", \"unknown\", \"notes\"};\n"
     "                   scenario: {\"model\": {...}} for `shardcalc estimate -`, the notes and the keys\n"
     "                   not understood on stderr\n"
     "  --help, -h       this text\n"
     "\n"
     "%EXIT%"
     "\n"
     "docs: docs/scenario.md (section 6.1, importing a Hugging Face config.json)\n"},
    {"reconcile", "reconcile FILE|- LOG [--format table|json]",
     "Sets a run's log against the estimate of its scenario: per rank that printed memory, the peak allocated,\n"
     "the caching allocator's reserve and the peak reserved, the log's beside the estimate of that rank's\n"
     "pipeline stage, with the gap; the device's memory in use; the step time; findings (out-of-memory errors);\n"
     "what the log cannot tell; and the calibration it implies (scenario fields by path). Reads Megatron-LM's\n"
     "memory lines (\"memory (MB) | allocated: ... | max allocated: ... | reserved: ... | max reserved: ...\", with\n"
     "or without \"[Rank N]\"), iteration lines (\"elapsed time per iteration (ms): ...\") and theoretical memory\n"
     "line, DeepSpeed's see_memory_usage lines (\"MA ... GB Max_MA ... GB CA ... GB Max_CA ... GB\"), PyTorch's\n"
     "torch.cuda.memory_summary() tables, PyTorch's out-of-memory errors (\"CUDA out of memory. Tried to allocate\n"
     "...\": each rank's last, its cause and what it needed against the estimate), nvidia-smi's GPU table,\n"
     "DeepSpeed's throughput timer (\"CurrSamplesPerSec=...\"), Hugging Face's Trainer's final metrics\n"
     "('train_samples_per_second': ...), a step being the plan's global batch over their samples per second,\n"
     "torchtitan's metrics lines (\"memory: ...GiB(...%)  tps: ...\": the reserved peak, tokens per second\n"
     "per device) and NeMo's progress lines (\"train_step_timing in s: ...\"); other lines are skipped. A step time\n"
     "implies the figures of the term bounding the estimate's step (the GEMM efficiency, or the host's time per\n"
     "launch) at which the estimate's step is the log's.\n"
     "\n"
     "  FILE|-           the run's scenario, or - to read it from standard input\n"
     "  LOG              the run's log file\n"
     "  --format FORMAT  table (default); json: {\"source\", \"ranks\", \"step_seconds\", \"findings\", \"unknowns\",\n"
     "                   \"calibration\"} in bytes and s\n"
     "  --help, -h       this text\n"
     "\n"
     "%EXIT%"
     "\n"
     "docs: docs/cli.md (Reconciling with a run's log)\n"},
    {"schema", "schema [--format json]",
     "Prints the scenario's schema as JSON: per object (\"\" for the top level, \"/model\", ...), each field's\n"
     "key, type, range, choices, default (\"derived\": from the framework or other fields), where it applies and\n"
     "whether it is required; and the report's terms (the parts of the step's time, the memory timeline's moments\n"
     "and lines: each key with its words, in display order). Every field's meaning: docs/scenario.md section 2.\n"
     "\n"
     "  --format FORMAT  json (default, the only one)\n"
     "  --help, -h       this text\n"
     "\n"
     "%EXIT%"
     "\n"
     "docs: docs/scenario.md (section 2)\n"},
    {"presets", "presets [--format table|json]",
     "Lists the model and hardware presets a scenario can name (model.preset, hardware.preset).\n"
     "\n"
     "  --format FORMAT  table (default); json: every preset file in full\n"
     "  --help, -h       this text\n"
     "\n"
     "%EXIT%"
     "\n"
     "docs: docs/presets.md\n"},
};

}  // namespace shardcalc::cli
