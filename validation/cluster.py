#!/usr/bin/env python3
"""Multi-GPU step time against published measurements: runs the shardcalc engine (the CLI) on every row of two
sets published with vTrain (validation/measured/README.md): 720 Megatron-DeepSpeed iterations on one node of 8
A100s (a100-megatron-deepspeed-8gpu.csv) and 109 on 64 to 512 A100s (a100-megatron-deepspeed-multinode.csv,
GPT-3 shapes from 3.6B to 175B). For each set it prints the step-time error, the error by work granularity and by
tensor parallelism, and how good a plan the engine would pick: for each group of measured plans with the same
model, device count and global batch, the plan the engine ranks fastest against the plan that measured fastest
(regret).

    python3 validation/cluster.py                                   # the tables
    python3 validation/cluster.py --check validation/bounds-cluster.json   # what CI runs
    python3 validation/cluster.py --rows                            # every run
"""
import argparse
import csv
import json
import statistics
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from compare import check_result, evaluate as estimate

ROOT = Path(__file__).resolve().parents[1]
MEASURED = ROOT / "validation" / "measured"
# Each set: its file and the cluster it ran on, as scenario hardware fields over the a100-sxm-80gb preset. The
# multi-node runs' cluster has 800 Gb/s of network per 8-GPU node (vTrain's validation configurations,
# config/validation/multi/*.json: "inter_node_bandwidth": 800, "node_size": 8), 12.5 GB/s per GPU, where the
# preset is a DGX A100 with one 200 Gb/s NIC per GPU; the 8-GPU set never leaves its node.
SETS = {
    "8gpu": {"file": MEASURED / "a100-megatron-deepspeed-8gpu.csv", "hardware": {}},
    "multinode": {"file": MEASURED / "a100-megatron-deepspeed-multinode.csv", "hardware": {"inter_node_gbps": 12.5}},
}


def scenario_of(row, hardware=None):
    """The run as vTrain's configurations describe it (validation/measured/README.md): a GPT of the CSV's shape
    with the GPT-2 vocabulary, fp16, every layer's activations recomputed, 1F1B, on 8-GPU A100 SXM 80 GB nodes
    (`hardware`: the set's cluster, scenario fields over the preset)."""
    n = lambda k: int(row[k])
    return {
        "framework": "deepspeed",
        "model": {"arch": "decoder", "layers": n("# layers"), "hidden": n("hidden size"), "heads": n("attention heads"),
                  "ffn_hidden": 4 * n("hidden size"), "mlp": "gelu", "vocab": 50257, "max_positions": n("sequence length"),
                  "position_embedding": "learned", "norm": "layernorm", "bias": True, "tied_embeddings": True},
        "training": {"seq_len": n("sequence length"), "micro_batch": n("micro batch"), "global_batch": n("global batch"),
                     "dtype": "fp16", "recompute": "full", "optimizer": "adamw",
                     "attention": "eager", "dropout": 0.1},
        "parallel": {"dp": n("data parallelism"), "tp": n("tensor parallelism"), "pp": n("pipeline parallelism"), "zero": 0},
        "hardware": {"preset": "a100-sxm-80gb", **(hardware or {})},
    }


def evaluate(engine, rows, hardware=None):
    """Per row: the measured and predicted step (ms), the predicted time per layer and microbatch (ms), the group."""
    def one(row):
        s = scenario_of(row, hardware)
        r = estimate(engine, s)
        p = s["parallel"]
        micro = s["training"]["global_batch"] / (p["dp"] * s["training"]["micro_batch"])
        pred = r["time"]["step_seconds"] * 1e3
        return {
            "plan": f"L{s['model']['layers']} gpus {row['# GPUs']} gb {row['global batch']} tp{p['tp']} dp{p['dp']} "
                    f"pp{p['pp']} mb{s['training']['micro_batch']}",
            "group": (s["model"]["layers"], int(row["# GPUs"]), s["training"]["global_batch"]),
            "measured": float(row["iteration time (ms)"]), "predicted": pred,
            # Work granularity: the predicted step over layers x microbatches.
            "per_layer_mb": pred / (s["model"]["layers"] * micro),
        }
    with ThreadPoolExecutor(max_workers=4) as pool:
        out = list(pool.map(one, rows))
    for o in out:
        o["error"] = (o["predicted"] - o["measured"]) / o["measured"]
    return out


def quantile(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]


def regret(runs):
    """Per group of plans (same layers, devices, global batch): measured time of the plan the engine ranks first
    over the measured best, minus one."""
    groups = {}
    for r in runs:
        groups.setdefault(r["group"], []).append(r)
    out = []
    for key, g in sorted(groups.items()):
        if len(g) < 2:
            continue
        pick = min(g, key=lambda r: r["predicted"])
        best = min(g, key=lambda r: r["measured"])
        out.append({"group": key, "plans": len(g), "regret": pick["measured"] / best["measured"] - 1,
                    "pick": pick["plan"], "best": best["plan"]})
    return out


def summary(runs, regrets):
    errs = [abs(r["error"]) for r in runs]
    signed = [r["error"] for r in runs]
    return {"runs": len(runs), "median": statistics.median(errs), "p90": quantile(errs, 0.9), "worst": max(errs),
            "median_signed": statistics.median(signed), "groups": len(regrets),
            "mean_regret": statistics.mean(r["regret"] for r in regrets),
            "worst_regret": max(r["regret"] for r in regrets)}


def report(name, runs, regrets, rows):
    """Prints one set's tables; returns its summary."""
    print(f"== {name}: {SETS[name]['file'].name}")
    if rows:
        for r in sorted(runs, key=lambda r: r["error"]):
            print(f"{r['plan']:<44} measured {r['measured']:8.1f} ms  predicted {r['predicted']:8.1f} ms  {r['error']:+6.1%}")
    # The error by work granularity: predicted time per layer and microbatch.
    print("predicted ms per layer-microbatch   runs  median error  median |error|")
    edges = [0, 1, 2, 4, 8, 16, 32, 64, 1e9]
    for lo, hi in zip(edges, edges[1:]):
        b = [r for r in runs if lo <= r["per_layer_mb"] < hi]
        if b:
            print(f"  {lo:>4g} to {hi if hi < 1e9 else 'more':>4}                        {len(b):>4}  "
                  f"{statistics.median(r['error'] for r in b):>+12.1%}  {statistics.median(abs(r['error']) for r in b):>13.1%}")
    print("by tensor parallelism")
    for tp in sorted({int(r["plan"].split(" tp")[1].split()[0]) for r in runs}):
        b = [r for r in runs if f" tp{tp} " in r["plan"]]
        print(f"  tp {tp}: {len(b):>4} runs, median error {statistics.median(r['error'] for r in b):+.1%}, "
              f"median |error| {statistics.median(abs(r['error']) for r in b):.1%}")
    s = summary(runs, regrets)
    print(f"\nstep time over {s['runs']} runs: median |error| {s['median']:.1%}, p90 {s['p90']:.1%}, worst {s['worst']:.1%} "
          f"(median signed {s['median_signed']:+.1%}; + is predicted slower than measured)")
    print(f"plan choice over {s['groups']} groups (same layers, GPUs, global batch): mean regret {s['mean_regret']:.1%}, "
          f"worst {s['worst_regret']:.1%}")
    worst = max(regrets, key=lambda r: r["regret"])
    print(f"  worst group {worst['group']}: picked {worst['pick']}, measured best {worst['best']}\n")
    return s


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", default=str(ROOT / "build/engine/shardcalc"))
    ap.add_argument("--set", choices=sorted(SETS), action="append", help="only this set (repeatable; default: all)")
    ap.add_argument("--check", help="bounds file: fail if an error or the regret of a set exceeds its bound")
    ap.add_argument("--rows", action="store_true", help="print every run")
    args = ap.parse_args()
    failures = []
    bounds = json.loads(Path(args.check).read_text())["bounds"] if args.check else {}
    for name in args.set or SETS:
        with open(SETS[name]["file"], newline="", encoding="utf-8-sig") as f:
            rows = list(csv.DictReader(f))
        runs = evaluate(args.engine, rows, SETS[name]["hardware"])
        s = report(name, runs, regret(runs), args.rows)
        failures += [f"{name} {k}: {s[k]:.1%} > bound {b:.1%}" for k, b in bounds.get(name, {}).items() if s[k] > b]
    return check_result(failures, args.check) if args.check else 0


if __name__ == "__main__":
    sys.exit(main())
