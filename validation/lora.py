#!/usr/bin/env python3
"""LoRA and Q-LoRA fine-tuning against published measurements: runs the shardcalc engine on every run of
validation/measured/a100-qwen-lora.json (LoRA r 64 on every linear of Qwen-1.8B, 7B and 14B, with and without the
embedding and output layer trained too, and over the GPTQ 4-bit Int4 chat models of 1.8B to 72B (Q-LoRA); one A100
80GB, sequences of 256 to 8,192 tokens, batch 1, gradient accumulation 8; the Qwen README's profile) and prints, per
run, the published GPU memory against the device memory the engine says the run holds (its peak stage's total:
reserved plus what the CUDA context keeps), and the published seconds per iteration against the step time; then the
median and worst |error| of the LoRA runs and of the Q-LoRA runs (bounds prefixed qlora_).

The README writes memory in "G" without saying whether 10^9 or 2^30 bytes: both readings are printed; the CI bounds are
on the decimal one (the closer, not a claim about the unit).

    python3 validation/lora.py                                     # the table
    python3 validation/lora.py --check validation/bounds-lora.json    # what CI runs
"""
import json
import statistics
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from compare import add_spread, check_bounds, engine_arguments, evaluate as estimate, spread_line

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "validation" / "measured" / "a100-qwen-lora.json"


def evaluate(engine, runs):
    def one(run):
        report = estimate(engine, run["scenario"])
        total = report["memory"]["per_device"]["total"]
        step = report["time"]["step_seconds"]
        return {**run, "total": total, "step": step, "verdict": report["memory"]["verdict"]["verdict"],
                "memory_error_gb": (total / 1e9 - run["memory_g"]) / run["memory_g"],
                "memory_error_gib": (total / 2**30 - run["memory_g"]) / run["memory_g"],
                "time_error": (step - run["seconds_per_iteration"]) / run["seconds_per_iteration"]}
    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(one, runs))


def summary(done):
    """One group's figures: the median and worst |error| of memory (both readings) and step time, and the step time's
    median from 2,048 tokens up, where the device rather than the host paces the step."""
    out = {"runs": len(done), "does_not_fit": sum(r["verdict"] == "does_not_fit" for r in done)}
    for key in ("memory_error_gb", "memory_error_gib", "time_error"):
        add_spread(out, key, [r[key] for r in done])
    long = [abs(r["time_error"]) for r in done if r["seq_len"] >= 2048]
    out["time_error_long_median"] = statistics.median(long)
    return out


def main():
    args = engine_arguments(__doc__, "bounds file: fail if a median or worst |error| exceeds its bound")
    done = evaluate(args.engine, json.loads(DATA.read_text())["runs"])
    print(f"{'model':<16} {'method':<11} {'seq':>5}   {'memory G':>8} {'as GB':>7} {'as GiB':>7}   {'s/iter':>6} {'predicted':>9} {'error':>7}")
    for r in done:
        print(f"{r['model']:<16} {r['method']:<11} {r['seq_len']:>5}   {r['memory_g']:>8.1f} {r['memory_error_gb']:>+7.1%} "
              f"{r['memory_error_gib']:>+7.1%}   {r['seconds_per_iteration']:>6.1f} {r['step']:>9.2f} {r['time_error']:>+7.1%}")
    figures = {}
    for label, prefix, group in (("LoRA", "", [r for r in done if r["method"] != "Q-LoRA"]),
                                 ("Q-LoRA (GPTQ base)", "qlora_", [r for r in done if r["method"] == "Q-LoRA"])):
        s = summary(group)
        print(f"\n{label} " + spread_line(s, [("memory read as GB", "memory_error_gb"), ("memory read as GiB", "memory_error_gib"),
                                             ("step time", "time_error")]) +
              f"; step time from 2,048 tokens up: median |error| {s['time_error_long_median']:.1%}; called \"does not fit\": "
              f"{s['does_not_fit']} (every run ran)")
        figures.update({prefix + k: v for k, v in s.items()})
    return check_bounds(figures, args.check) if args.check else 0


if __name__ == "__main__":
    sys.exit(main())
