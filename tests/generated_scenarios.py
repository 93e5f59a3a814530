#!/usr/bin/env python3
"""Scenarios drawn from the engine's own schema (`shardcalc schema`), run through the CLI with a time and memory
limit per input: the generator-based fuzzer beside the byte fuzzers (scripts/fuzz.sh). Each scenario starts from a
model preset or a small custom model and sets a few fields to values drawn from their schema entry (an enum's
spellings, a range's ends and small values inside it, both booleans, preset ids). Every run must end within its
limits with exit 0 or 2 (invalid input, as one JSON error naming its path); an accepted scenario must give a JSON
report whose echoed scenario evaluates to the same peak memory and step time (docs/scenario.md: the echo reproduces
the report); every fourth also goes through the text format and the kernel table; each is also served (`shardcalc
serve` with a drawn serving object, every eighth a serving plan search), every fourth also searched for plans (the first
plan's scenario must estimate to the plan's figures) and a drawn config.json imported: exit 0 or 2, no negative or
non-finite figure. Failing inputs are written to
--out. CTest runs 200 (`generated_scenarios`); more on demand, with other seeds. With --draw N it only prints N drawn
inputs (estimate, serve, kernels, rl, import) as JSON lines, which tests/web/wasm.test.mjs runs through the wasm engine and the
CLI alike; with --searches too every fourth scenario's plan search, which scripts/bench-generated.mjs times in the
page's engine.
Usage: generated_scenarios.py SHARDCALC [--count N] [--seed S] [--out DIR] [--draw N [--searches]]"""
import argparse
import json
import random
import resource
import subprocess
import sys
from pathlib import Path

CPU_SECONDS = 2  # per run (the bound is 1 s natively; CI machines are shared)
MEMORY_BYTES = 1 << 30
WALL_SECONDS = 10

parser = argparse.ArgumentParser()
parser.add_argument("cli")
parser.add_argument("--count", type=int, default=300)
parser.add_argument("--seed", type=int, default=20261127)
parser.add_argument("--out", default="build/generated-scenarios")
parser.add_argument("--draw", type=int, default=0, metavar="N",
                    help="print N drawn inputs as JSON lines ({command, input}) without running them: what the wasm engine "
                         "is checked on against the CLI (tests/web/wasm.test.mjs)")
parser.add_argument("--searches", action="store_true",
                    help="with --draw: every fourth scenario's plan search too (command 'search'), as "
                         "scripts/bench-generated.mjs times the page's engine on them")
args = parser.parse_args()
rng = random.Random(args.seed)


def limits():
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))


slowest = [0.0, "", ""]  # the most CPU one run took, and its command: printed, the bound being the limit above


def run(cmd, stdin):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        p = subprocess.run([args.cli, *cmd, "-"], input=stdin, capture_output=True, text=True, preexec_fn=limits,
                           timeout=WALL_SECONDS)
    except subprocess.TimeoutExpired:
        return None, "", f"took more than {WALL_SECONDS} s"
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if cpu > slowest[0]:
        slowest[:] = [cpu, " ".join(cmd), stdin]
    return p.returncode, p.stdout, p.stderr


schema = json.loads(subprocess.run([args.cli, "schema"], capture_output=True, text=True, check=True).stdout)
presets = json.loads(subprocess.run([args.cli, "presets", "--format", "json"], capture_output=True, text=True,
                                    check=True).stdout)
model_ids = [p["id"] for p in presets["models"]]
hardware_ids = [p["id"] for p in presets["hardware"]]
fields = [(o["path"], f) for o in schema["objects"] for f in o["fields"] if o["path"] and f["key"] != "preset"]
fields.append(("", next(f for f in schema["objects"][0]["fields"] if f["key"] == "framework")))


def draw(field):
    """A value for one field, drawn from its schema entry."""
    kind = field["type"]
    if kind == "enum":
        return rng.choice(field["choices"])
    if kind == "enum list":
        return rng.sample(field["choices"], rng.randint(1, min(3, len(field["choices"]))))
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "string":
        return rng.choice(["a", "plan", "x" * 40])
    lo, hi = field["min"], field["max"]
    if kind == "integer list":
        return [rng.randint(lo, min(hi, 8)) for _ in range(rng.randint(1, 4))]
    if kind == "integer":
        small = [v for v in (0, 1, 2, 3, 4, 8, 16, 64, 1024) if lo <= v <= hi]
        return rng.choice([lo, hi, *small, rng.randint(lo, min(hi, 4096))])
    return rng.choice([lo, hi, (lo + hi) / 2, lo + (min(hi, 10) - lo) * rng.random()])  # number


def scenario():
    s = {"model": {"preset": rng.choice(model_ids)}}
    if rng.random() < 0.2:
        s["model"] = {"layers": rng.choice([1, 2, 4]), "hidden": rng.choice([64, 256]), "heads": rng.choice([1, 4]),
                      "vocab": rng.choice([100, 1000]), "max_positions": 512}
    if rng.random() < 0.5:
        s["hardware"] = {"preset": rng.choice(hardware_ids)}
    s.setdefault("training", {})["seq_len"] = rng.choice([16, 128, 512])
    for path, field in rng.sample(fields, rng.randint(0, 5)):
        target = s
        for part in filter(None, path.split("/")):
            target = target.setdefault(part, {})
        target[field["key"]] = draw(field)
    return s


# The serving object's fields (docs/serving.md) with their ranges' ends and values inside them.
SERVING = {
    "prompt_tokens": [1, 100, 4096, 1 << 26], "output_tokens": [1, 64, 1 << 20], "concurrency": [1, 7, 256, 1 << 20],
    "weights": ["model", "fp8", "int8", "int4"], "group_size": [1, 128, 65536], "kv_cache_dtype": ["auto", "fp8"],
    "gpu_memory_utilization": [0.01, 0.5, 0.9, 1], "cuda_graph_gib": [0, 0.36, 118.65, 1e6], "block_size": [1, 16, 65536], "max_num_batched_tokens": [1, 8192, 1 << 26],
    "max_num_seqs": [1, 256, 1 << 20], "shared_prefix_tokens": [0, 1, 100, 4096, 1 << 26],
    "speculative": [{"method": "ngram", "tokens": 1, "acceptance": 0}, {"method": "ngram", "tokens": 16, "acceptance": 0.999},
                    {"method": "mtp", "tokens": 3, "acceptance": 0.8}, {"method": "eagle", "tokens": 4, "acceptance": 0.7},
                    {"method": "none"}],
    "dp_attention": [True, False], "request_rate": [0, 0.001, 5, 1e6],
    "max_prompt_tokens": [1, 4096, 1 << 26], "max_output_tokens": [1, 4096, 1 << 26],
    "engine": ["vllm", "transformers"], "cache": ["dynamic", "static"], "benchmark_requests": [0, 1, 24, 1 << 20],
}


def serving(i):
    """A serving object: a few drawn fields, and every eighth a plan search over small lists."""
    s = {k: rng.choice(v) for k, v in rng.sample(sorted(SERVING.items()), rng.randint(0, 4))}
    if i % 8 == 0:
        s["search"] = {"weights": rng.sample(SERVING["weights"], rng.randint(1, 2)), "tpot_ms": rng.choice([0, 5, 50]),
                       "ttft_ms": rng.choice([0, 100, 2000])}
    return s


# The rl object's fields (docs/rl.md) with their ranges' ends and values inside them.
RL = {
    "algorithm": ["grpo", "ppo", "dpo"], "prompts": [1, 16, 256, 1 << 24], "n": [1, 2, 8, 1 << 16],
    "prompt_tokens": [1, 512, 1 << 20], "response_tokens": [1, 1024, 1 << 20], "mean_response_tokens": [0, 1, 300], "mean_prompt_tokens": [0, 1, 100],
    "mini_batches": [1, 2, 4, 1 << 24], "epochs": [1, 2], "reference": [True, False], "log_prob_micro_batch": [0, 1, 64],
    "max_token_len_per_gpu": [0, 1, 2048, 24000, 1 << 26],
    "rollout_tp": [1, 2, 8, 65536], "gpu_memory_utilization": [0.01, 0.5, 1], "sleep": [True, False],
    "param_offload": [True, False], "reference_offload": [True, False], "optimizer_offload": [True, False],
}


def rl_scenario(s):
    """The scenario as an RL actor (its sequence and batch left to the rl object), with a few drawn rl fields."""
    actor = {k: v for k, v in s.items() if k != "search"}
    training = dict(actor.get("training") or {}) if isinstance(actor.get("training"), dict) else {}
    training.pop("seq_len", None)
    training.pop("global_batch", None)
    actor["training"] = training
    actor["rl"] = {k: rng.choice(v) for k, v in rng.sample(sorted(RL.items()), rng.randint(0, 5))}
    return actor


# A plan search over a few small device counts and dimensions (docs/search.md), kept small enough for the limits.
SEARCH_DIMENSIONS = ["tp", "pp", "vpp", "sp", "cp", "ulysses", "zero", "micro_batch", "recompute", "offload"]


def plan_search(s):
    """The scenario with a drawn search object (its plan's parallel object left to the search)."""
    q = {k: v for k, v in s.items() if k != "parallel"}
    # Device counts from one GPU to a range up to 2^30 (the search's own cap refuses what would not be bounded).
    q["search"] = {"devices": rng.choice([1, 2, 8, 16, 64, 1024, 65536, {"min": 8, "max": 1 << 20}, {"min": 1, "max": 1 << 30}]),
                   "global_batch": rng.choice([8, 64, 512, 4096])}
    if rng.random() < 0.5:
        q["search"]["frameworks"] = rng.sample(["megatron", "deepspeed", "fsdp", "pytorch"], rng.randint(1, 2))
    if rng.random() < 0.7:
        q["search"]["dimensions"] = rng.sample(SEARCH_DIMENSIONS, rng.randint(1, 4))
    return q


# A Hugging Face config.json as transformers writes one (docs/scenario.md, import), from a family's keys with drawn
# sizes, sometimes a key left out, a wrong type or an unknown key.
HF_TYPES = ["llama", "mistral", "qwen2", "qwen3", "gemma2", "gemma3_text", "gpt2", "bert", "mixtral", "qwen3_moe", "gpt_oss",
            "deepseek_v3", "falcon", "gpt_neox", "olmo2", "phi3", "no_such_model"]


def hf_config():
    c = {"model_type": rng.choice(HF_TYPES), "hidden_size": rng.choice([64, 4096, 1 << 20]),
         "num_hidden_layers": rng.choice([1, 2, 32, 1 << 17]), "num_attention_heads": rng.choice([1, 8, 32]),
         "num_key_value_heads": rng.choice([1, 8]), "intermediate_size": rng.choice([128, 14336]),
         "vocab_size": rng.choice([100, 32000, 1 << 27]), "max_position_embeddings": rng.choice([512, 131072]),
         "sliding_window": rng.choice([None, 4096]), "tie_word_embeddings": rng.choice([True, False])}
    if c["model_type"] in ("mixtral", "qwen3_moe", "gpt_oss", "deepseek_v3"):
        c.update({"num_local_experts": rng.choice([4, 8]), "num_experts": rng.choice([8, 128]),
                  "n_routed_experts": rng.choice([8, 256]), "num_experts_per_tok": rng.choice([1, 2, 8]),
                  "moe_intermediate_size": rng.choice([128, 768])})
    if rng.random() < 0.3:
        del c[rng.choice(sorted(c))]
    if rng.random() < 0.15:
        c[rng.choice(sorted(c) or ["hidden_size"])] = rng.choice(["x", -1, 1.5, [], None])
    if rng.random() < 0.2:
        c["some_new_knob"] = 3
    return c


def served_of(s, i):
    """The scenario's model and device served (`shardcalc serve`), with a drawn serving object."""
    served = {k: v for k, v in s.items() if k in ("model", "hardware", "framework")}
    par = s.get("parallel") if isinstance(s.get("parallel"), dict) else {}
    served["parallel"] = {k: par[k] for k in ("tp", "dp", "pp") if k in par}
    served["serving"] = serving(i)
    return served


if args.draw:
    # Each scenario estimated and served; every fourth also its kernel table, as an RL actor and as a config.json.
    for i in range(args.draw):
        s = scenario()
        drawn = [("estimate", s), ("serve", served_of(s, i))]
        if i % 4 == 0:
            drawn.append(("kernels", s))
        if i % 4 == 1:
            drawn.append(("rl", rl_scenario(s)))
        if i % 4 == 3:
            drawn.append(("import", hf_config()))
        if args.searches and i % 4 == 2:
            drawn.append(("search", plan_search(s)))
        for name, value in drawn:
            print(json.dumps({"command": name, "input": json.dumps(value)}))
    sys.exit(0)


def negative_or_not_finite(value):
    # A memory margin is signed by design (negative: the plan does not fit by that much); it must still be finite.
    if isinstance(value, dict):
        return any(negative_or_not_finite(v) if k != "margin" else not_finite(v) for k, v in value.items())
    if isinstance(value, list):
        return any(negative_or_not_finite(v) for v in value)
    return isinstance(value, (int, float)) and not isinstance(value, bool) and (value != value or value < 0 or
                                                                                   value in (float("inf"), float("-inf")))


def not_finite(value):
    return isinstance(value, float) and (value != value or value in (float("inf"), float("-inf")))


def command(name, cmd, text, counts=None, figures_checked=True):
    """Runs `cmd` on `text` within the limits: (the problem, or None; its JSON answer when it answered). Exit 0 or 2 is
    required, 2 with a JSON error naming its path, and (figures_checked) no negative or non-finite figure in an answer;
    `counts` tallies the exits."""
    code, stdout, stderr = run(cmd, text)
    if counts is not None and code in counts:
        counts[code] += 1
    if code not in (0, 2):
        return f"{name}: {'exit ' + str(code) if code is not None else stderr} {stderr[-300:]}", None
    if code == 2:
        try:
            path = json.loads(stderr).get("error", {}).get("path")
        except json.JSONDecodeError:
            return f"{name}: an error that is not JSON: {stderr[:200]}", None
        return (None if isinstance(path, str) else f"{name}: an error without a path: {stderr[:200]}"), None
    answer = json.loads(stdout)
    if figures_checked and negative_or_not_finite(answer):
        return f"{name}: a negative or non-finite figure: {stdout[:300]}", answer
    return None, answer


def figures(report):
    return (report["memory"]["per_device"]["total"], report.get("time", {}).get("step_seconds"))


out = Path(args.out)
failures = []
accepted = 0
served_counts = {0: 0, 2: 0}
rl_counts = {0: 0, 2: 0}
search_counts = {0: 0, 2: 0}
import_counts = {0: 0, 2: 0}
for i in range(args.count):
    s = scenario()
    text = json.dumps(s)
    problem, report = command("estimate --format json", ["estimate", "--format", "json"], text, figures_checked=False)
    if report is not None:
        accepted += 1
        echo = json.dumps(report["scenario"])
        code2, stdout2, stderr2 = run(["estimate", "--format", "json"], echo)
        if code2 != 0:
            problem = f"the echo is refused (exit {code2}): {stderr2[:300]}"
        elif figures(json.loads(stdout2)) != figures(report):
            problem = f"the echo evaluates to {figures(json.loads(stdout2))}, the scenario to {figures(report)}"
        elif i % 4 == 0:
            for cmd in (["estimate", "--format", "table"], ["kernels", "--format", "json"]):
                code3, _, stderr3 = run(cmd, text)
                if code3 != 0:
                    problem = f"{' '.join(cmd)}: exit {code3}: {stderr3[:300]}"
                    break
    # The same model and device served (`shardcalc serve`): within its limits, exit 0 or 2, no negative or
    # non-finite figure, and a plan that fits holds its requests.
    if not problem:
        served = served_of(s, i)
        problem, answer = command("serve", ["serve", "--format", "json"], json.dumps(served), served_counts)
        if not problem and answer and "memory" in answer and answer["memory"]["fits"] and \
                answer["memory"]["max_concurrency"] < answer["request"]["concurrency"]:
            problem = "serve: fits, yet holds fewer requests than asked for"
        if problem:
            text = json.dumps(served)
    # Every fourth scenario as the actor of an RL step (`shardcalc rl`): within the limits, exit 0 or 2 with a path,
    # no negative or non-finite figure.
    if not problem and i % 4 == 1:
        actor = rl_scenario(s)
        problem, _ = command("rl", ["rl", "--format", "json"], json.dumps(actor), rl_counts)
        if problem:
            text = json.dumps(actor)
    # Every fourth scenario's plan search (`shardcalc search`): within the limits, exit 0 or 2 with a path, no negative or
    # non-finite figure, and the first plan's scenario estimates to the plan's own figures (the reproducer).
    if not problem and i % 4 == 2:
        q = plan_search(s)
        problem, found = command("search", ["search", "--format", "json"], json.dumps(q), search_counts)
        if not problem and found and found.get("plans"):
            plan = found["plans"][0]
            code7, stdout7, stderr7 = run(["estimate", "--format", "json"], json.dumps(plan["scenario"]))
            again = json.loads(stdout7) if code7 == 0 else None
            if again is None:
                problem = f"search: its first plan's scenario is refused (exit {code7}): {stderr7[:300]}"
            elif (again["memory"]["per_device"]["total"], again["time"]["step_seconds"]) != \
                    (plan["memory"]["peak_bytes"], plan["time"]["step_seconds"]):
                problem = "search: its first plan's scenario does not reproduce the plan's figures"
        if problem:
            text = json.dumps(q)
    # Every fourth, a config.json imported (`shardcalc import`): exit 0 or 2 with a path; an imported scenario is
    # evaluated (exit 0 or 2 with a path).
    if not problem and i % 4 == 3:
        config = json.dumps(hf_config())
        problem, imported = command("import", ["import", "--format", "scenario"], config, import_counts)
        if not problem and imported is not None:
            problem, _ = command("import: the imported scenario", ["estimate", "--format", "json"], json.dumps(imported),
                                 figures_checked=False)
        if problem:
            text = config
    if problem:
        out.mkdir(parents=True, exist_ok=True)
        (out / f"failure-{i}.json").write_text(text)
        failures.append(f"case {i} ({out / f'failure-{i}.json'}): {problem}")

print(f"generated scenarios: {args.count} drawn from the engine's schema (seed {args.seed}), {accepted} accepted, "
      f"each run within {CPU_SECONDS} s of CPU and {MEMORY_BYTES >> 20} MiB; served: {served_counts[0]} answered, "
      f"{served_counts[2]} refused with a path; as RL actors: {rl_counts[0]} answered, {rl_counts[2]} refused with a path; "
      f"searched: {search_counts[0]} answered, {search_counts[2]} refused; config.json imports: {import_counts[0]} read, "
      f"{import_counts[2]} refused with a path; the slowest run took {slowest[0]:.2f} s of CPU ({slowest[1]})")
if slowest[0] > 0.5:
    out.mkdir(parents=True, exist_ok=True)
    (out / "slowest.json").write_text(slowest[2])
    print(f"  its input: {out / 'slowest.json'}")
if failures:
    print("FAILED:\n  " + "\n  ".join(failures[:20]) + (f"\n  ... and {len(failures) - 20} more" if len(failures) > 20 else ""))
    sys.exit(1)
