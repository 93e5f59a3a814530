#!/usr/bin/env python3
"""Serving against published measurements: runs the shardcalc engine (`shardcalc serve`) on every run of
validation/measured/h100-vllm-gptoss-120b-serving.json (vLLM 0.15.1 serving gpt-oss-120b on H100s, tensor parallel 2 to
8, prompts of 1k or 8k tokens and responses of 1k or 8k, 4 to 64 requests in flight; SemiAnalysis InferenceX) and
prints, per run, the measured and predicted time per output token (median TPOT), time to first token (mean TTFT) and
output tokens per second per GPU, then the median and worst |error| of each.

    python3 validation/serving.py                                       # the table
    python3 validation/serving.py --check validation/bounds-serving.json   # what CI runs

The predictions are the answer's benchmark run (serving.benchmark_requests: the run's 10 x concurrency requests,
simulated step by step as the benchmark sends them, docs/serving.md); the steady-state estimate's TPOT and throughput
are summarised beside them. The benchmark's TTFT also holds the server's own path (HTTP, tokenization), which the
engine does not price.
"""
import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from compare import add_spread, check_bounds, engine_arguments, run_engine, spread_line

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "validation" / "measured" / "h100-vllm-gptoss-120b-serving.json"


def evaluate(engine, runs):
    def one(run):
        s = run_engine(engine, "serve", run["scenario"])
        t, b = s["time"], s["benchmark"]
        predicted = {"tpot_ms": 1e3 * b["median_tpot_seconds"], "ttft_ms": 1e3 * b["mean_ttft_seconds"],
                     "output_per_gpu": b["output_tokens_per_second_per_gpu"],
                     "estimate_tpot_ms": 1e3 * t["tpot_seconds"], "estimate_output_per_gpu": t["tokens_per_second_per_gpu"]}
        measured = {"tpot_ms": run["median_tpot_ms"], "ttft_ms": run["mean_ttft_ms"],
                    "output_per_gpu": run["output_tokens_per_s_per_gpu"],
                    "estimate_tpot_ms": run["median_tpot_ms"], "estimate_output_per_gpu": run["output_tokens_per_s_per_gpu"]}
        errors = {k: (predicted[k] - measured[k]) / measured[k] for k in predicted}
        return {**run, "predicted": predicted, "measured": measured, "errors": errors,
                "fits": s["memory"]["fits"], "held": s["memory"]["max_concurrency"], "preemptions": b["preemptions"]}
    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(one, runs))


def summary(done):
    out = {"runs": len(done), "does_not_fit": sum(not r["fits"] for r in done)}
    for key in ("tpot_ms", "ttft_ms", "output_per_gpu", "estimate_tpot_ms", "estimate_output_per_gpu"):
        add_spread(out, key, [r["errors"][key] for r in done])
    return out


def main():
    args = engine_arguments(__doc__, "bounds file: fail if a median or worst |error| exceeds its bound")
    runs = json.loads(DATA.read_text())["runs"]
    done = evaluate(args.engine, runs)
    print(f"{'isl/osl':<10} {'tp':>2} {'conc':>4}   {'TPOT ms meas/pred':>18} {'error':>7}   {'TTFT ms meas/pred':>18} "
          f"{'error':>7}   {'out tok/s/GPU meas/pred':>24} {'error':>7}")
    for r in done:
        m, p, e = r["measured"], r["predicted"], r["errors"]
        shape = f"{r['isl'] // 1024}k/{r['osl'] // 1024}k"
        note = "" if r["fits"] else "  (does not fit)"
        print(f"{shape:<10} {r['tp']:>2} {r['concurrency']:>4}   {m['tpot_ms']:>8.2f} / {p['tpot_ms']:>7.2f} {e['tpot_ms']:>+7.1%}   "
              f"{m['ttft_ms']:>8.1f} / {p['ttft_ms']:>7.1f} {e['ttft_ms']:>+7.1%}   "
              f"{m['output_per_gpu']:>11,.1f} / {p['output_per_gpu']:>10,.1f} {e['output_per_gpu']:>+7.1%}{note}")
    s = summary(done)
    print("\nbenchmark run: " + spread_line(s, [("TPOT", "tpot_ms"), ("output tokens/s per GPU", "output_per_gpu"), ("TTFT", "ttft_ms")]) +
          f" (the benchmark's TTFT holds the server's path, which the engine does not price); called \"does not fit\": "
          f"{s['does_not_fit']} (every run ran)")
    print("steady-state estimate: " + spread_line(s, [("TPOT", "estimate_tpot_ms"), ("output tokens/s per GPU", "estimate_output_per_gpu")]))
    return check_bounds(s, args.check) if args.check else 0


if __name__ == "__main__":
    sys.exit(main())
