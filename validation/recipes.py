#!/usr/bin/env python3
"""Today's published recipes against shardcalc: runs the engine (the CLI) on every row of NVIDIA Megatron-Bridge's
26.04.01 performance summary that it can express (validation/measured/megatron-bridge-26.04.01.json: Llama 3 70B,
Llama 3.1 405B, gpt-oss-120b, Qwen3-30B-A3B and Qwen3-235B-A22B on DGX H100, B200, B300, GB200 and GB300, 8 to 1,024
GPUs, BF16 and FP8) and prints, per row, the published and predicted tokens per second per GPU and the memory
verdict; then the median |error| for dense and MoE models apart, the runs called "does not fit" (every row ran), and
the rows it cannot express, with the reason.

    python3 validation/recipes.py                                     # the table
    python3 validation/recipes.py --check validation/bounds-recipes.json   # what CI runs
"""
import json
import statistics
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from compare import check_bounds, engine_arguments, evaluate as estimate

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "validation" / "measured" / "megatron-bridge-26.04.01.json"


def tokens_per_gpu(scenario, report):
    """Tokens per second per GPU of a step, as the summary reports its throughput."""
    t, p = scenario["training"], scenario["parallel"]
    gpus = p["dp"] * p.get("tp", 1) * p.get("pp", 1) * p.get("cp", 1)
    return t["global_batch"] * t["seq_len"] / report["time"]["step_seconds"] / gpus


def evaluate(engine, runs):
    def one(run):
        report = estimate(engine, run["scenario"])
        predicted = tokens_per_gpu(run["scenario"], report)
        published = run["tokens_per_s_per_gpu"]
        return {**run, "predicted": predicted, "error": (predicted - published) / published,
                "verdict": report["memory"]["verdict"]["verdict"]}
    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(one, runs))


def summary(done):
    out = {"runs": len(done), "does_not_fit": sum(r["verdict"] == "does_not_fit" for r in done)}
    for family in ("dense", "moe"):
        errors = [abs(r["error"]) for r in done if r["family"] == family]
        out[f"{family}_median"] = statistics.median(errors) if errors else 0.0
        out[f"{family}_worst"] = max(errors) if errors else 0.0
    return out


def main():
    args = engine_arguments(__doc__, "bounds file: fail if an error or the count of 'does not fit' exceeds its bound")
    runs = json.loads(DATA.read_text())["runs"]
    done = evaluate(args.engine, [r for r in runs if "scenario" in r])
    print(f"{'model':<16} {'system':<10} {'GPUs':>5} {'precision':<9} {'plan':<26} {'published':>9} {'predicted':>9} "
          f"{'error':>7}  verdict")
    for r in done:
        plan = f"tp{r['tp']} pp{r['pp']} cp{r['cp']} vp{r['vp']} ep{r['ep']} mb{r['micro_batch']}"
        print(f"{r['model']:<16} {r['system']:<10} {r['gpus']:>5} {r['precision']:<9} {plan:<26} "
              f"{r['tokens_per_s_per_gpu']:>9,} {r['predicted']:>9,.0f} {r['error']:>+7.1%}  {r['verdict']}")
        if r.get("not_modelled"):
            print(f"{'':<16} not modelled: {'; '.join(r['not_modelled'])}")
    s = summary(done)
    print(f"\ntokens/s per GPU over {s['runs']} expressible runs: dense median |error| {s['dense_median']:.1%} "
          f"(worst {s['dense_worst']:.1%}), MoE median |error| {s['moe_median']:.1%} (worst {s['moe_worst']:.1%}); "
          f"called \"does not fit\": {s['does_not_fit']} (every row ran)")
    missing = [r for r in runs if "scenario" not in r]
    print(f"not expressible: {len(missing)} of {len(runs)} rows")
    for reason in sorted({r["not_expressible"] for r in missing}):
        which = [f"{r['model']} {r['system']}" for r in missing if r["not_expressible"] == reason]
        print(f"  {len(which)}: {reason} ({', '.join(which)})")
    return check_bounds(s, args.check) if args.check else 0


if __name__ == "__main__":
    sys.exit(main())
