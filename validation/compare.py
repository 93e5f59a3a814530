#!/usr/bin/env python3
"""Prediction against measurement: runs the shardcalc engine (the CLI) on every measured training
run and prints, per run and per quantity, what shardcalc predicts, what was measured and the
error. With --check it fails (exit 1) when an error grows past the bounds in validation/bounds.json.

    python3 validation/compare.py                                   # the repo's measured set
    python3 validation/compare.py --measured my-runs.jsonl           # runs from validation/measure/
    python3 validation/compare.py --check validation/bounds.json     # what CI runs
    python3 validation/compare.py --markdown                         # the table in docs/validation.md

A run is either a record written by validation/measure/measure.py (it carries the scenario it
ran, `case.scenario`) or a record of the reference set validation/measured/h100-pytorch.jsonl (its `case`
and `model_cfg` describe the run; `scenario_of` below turns them into the scenario that run executed).
"""
import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GIB = 1024 ** 3

# The quantities compared: name -> (unit, what it is).
QUANTITIES = {
    "weights": ("GiB", "parameters on the device"),
    "gradients": ("GiB", "gradients after backward"),
    "optimizer": ("GiB", "optimizer states"),
    "saved_by_forward": ("GiB", "what forward leaves alive for backward (activations, loss tensors, autocast casts)"),
    "peak_forward": ("GiB", "allocated peak of the forward pass"),
    "peak_backward": ("GiB", "allocated peak of the backward pass"),
    "peak_optimizer": ("GiB", "allocated peak of the optimizer step"),
    "peak_allocated": ("GiB", "torch.cuda.max_memory_allocated over the step"),
    "reserved": ("GiB", "the caching allocator's largest reserve"),
    "device_used": ("GiB", "device memory in use, CUDA context included"),
    "step_ms": ("ms", "one training step"),
    "forward_ms": ("ms", "forward pass"),
    "backward_ms": ("ms", "backward pass"),
    "optimizer_ms": ("ms", "optimizer step"),
    # From the profiler's kernel categories (runs recorded with --profile), one step, optimizer excluded.
    "gemm_kernels_ms": ("ms", "device time in GEMM kernels"),
    "attention_kernels_ms": ("ms", "device time in fused attention kernels"),
    "memory_bound_kernels_ms": ("ms", "device time in elementwise, copy, norm, reduction, softmax kernels"),
    "kernel_launches": ("count", "kernel launches (memsets excluded)"),
}
# Profiler categories (validation/measure/kernels.py) that the engine counts as memory-bound kernels.
MEMORY_BOUND = ("copy_cast", "elementwise", "norm", "reduce", "softmax_ce", "other")

# validation/measured/h100-pytorch.jsonl names its models; these are the architectures it built.
MODELS = {
    "gpt2-124m": {"preset": "gpt2"},
    "bert-large": {"preset": "bert-large"},
    "llama-160m": {"arch": "decoder", "layers": 12, "hidden": 768, "heads": 12, "kv_heads": 4, "ffn_hidden": 3072,
                   "mlp": "swiglu", "vocab": 32000, "max_positions": 8192, "position_embedding": "rope",
                   "norm": "rmsnorm", "bias": False, "tied_embeddings": False},
}
MODES = {"amp_bf16": {"dtype": "bf16"}, "bf16": {"dtype": "bf16", "param_dtype": "bf16"}, "fp32": {"dtype": "fp32"}}


def scenario_of(record):
    """The shardcalc scenario a measured run executed."""
    case = record["case"]
    if "scenario" in case:
        return case["scenario"]
    model = dict(MODELS[case["model"]])
    if "vocab" in case:
        model["vocab"] = case["vocab"]
    if "act" in case:
        model["hidden_act"] = case["act"]
    training = {"seq_len": case["seq"], "micro_batch": case["micro_batch"], **MODES[case["mode"]],
                "attention": "flash" if case["attn"] == "sdpa" else "eager",
                "recompute": "full" if case["grad_ckpt"] else "none",
                "optimizer": case["optimizer"], "dropout": case.get("dropout", 0.0)}
    implementation = {"model_code": "huggingface", "tf32": bool(case.get("tf32", record["env"].get("allow_tf32_matmul", False)))}
    if case.get("adamw_impl"):
        implementation["optimizer_impl"] = case["adamw_impl"]
    if "expandable_segments" in record["env"].get("PYTORCH_CUDA_ALLOC_CONF", ""):
        implementation["allocator"] = "expandable_segments"
    return {"framework": "pytorch", "model": model, "training": training, "implementation": implementation,
            "hardware": {"preset": "h100-sxm-80gb"}}


def measured_of(record):
    """The measured quantities of a run, in the units of QUANTITIES (None where not measured)."""
    if record.get("status") != "ok":
        return {}
    p = record["phases"]
    return {
        "weights": record["weights_bytes"] / GIB,
        "gradients": record["grads_bytes"] / GIB,
        "optimizer": record["optimizer_state_bytes"] / GIB,
        "saved_by_forward": p["saved_by_forward"] / GIB,
        "peak_forward": p["peak_fwd"] / GIB,
        "peak_backward": p["peak_bwd"] / GIB,
        "peak_optimizer": p["peak_opt"] / GIB,
        "peak_allocated": record["peak_allocated"] / GIB,
        "reserved": record["max_reserved"] / GIB,
        "device_used": record["device_used_end"] / GIB,
        "step_ms": record["step_ms"],
        "forward_ms": record["fwd_ms"],
        "backward_ms": record["bwd_ms"],
        "optimizer_ms": record["opt_ms"],
        **kernel_categories(record),
    }


def kernel_categories(record):
    cats = record.get("profile", {}).get("categories")
    if not cats:
        return {}
    us = lambda names: sum(cats.get(n, {}).get("us", 0) for n in names)
    return {
        "gemm_kernels_ms": us(["gemm"]) / 1e3,
        "attention_kernels_ms": us(["attention"]) / 1e3,
        "memory_bound_kernels_ms": us(MEMORY_BOUND) / 1e3,
        "kernel_launches": sum(cats.get(n, {}).get("launches", 0) for n in ("gemm", "attention") + MEMORY_BOUND),
    }


def predicted_of(report):
    """The same quantities from a shardcalc report (a number the engine computed, never derived here
    beyond unit conversion and picking the moment of the timeline that the measurement samples)."""
    peak = report["memory"]["per_device"]
    phases = {ph["phase"]: ph for ph in peak["timeline"]}
    start, fwd = phases["step_start"], phases["forward_end"]
    backward = [phases[n]["allocated"] for n in ("loss_backward", "layer_backward") if n in phases]
    saved = fwd["lines"]["activations"] + fwd["lines"]["logits"] + fwd["lines"]["cast_weights"]
    breakdown = report["time"]["breakdown"]
    return {
        "weights": peak["weights"] / GIB,
        "gradients": phases["optimizer_step"]["lines"]["gradients"] / GIB,
        "optimizer": peak["optimizer"] / GIB,
        "saved_by_forward": saved / GIB,
        "peak_forward": fwd["allocated"] / GIB,
        "peak_backward": max(backward) / GIB,
        "peak_optimizer": phases["optimizer_step"]["allocated"] / GIB,
        "peak_allocated": peak["allocated"] / GIB,
        "reserved": peak["reserved"] / GIB,
        "device_used": peak["total"] / GIB,
        "step_ms": report["time"]["step_seconds"] * 1e3,
        "forward_ms": (breakdown["forward_compute"] + breakdown["forward_host_wait"]) * 1e3,
        "backward_ms": (breakdown["backward_compute"] + breakdown["recompute"] + breakdown["backward_host_wait"]) * 1e3,
        "optimizer_ms": breakdown.get("optimizer_step", 0) * 1e3,
        "gemm_kernels_ms": report["time"]["kernels"]["matmul_seconds"] * 1e3,
        "attention_kernels_ms": report["time"]["kernels"]["attention_seconds"] * 1e3,
        "memory_bound_kernels_ms": report["time"]["kernels"]["memory_bound_seconds"] * 1e3,
        "kernel_launches": report["time"]["kernels"]["launches"],
        "_start": start["allocated"] / GIB,
        "_verdict": report["memory"]["verdict"]["verdict"],
    }


def run_engine(engine, command, scenario):
    """The CLI's JSON answer of `command` (estimate, serve, ...) for a scenario; a refusal stops the program."""
    out = subprocess.run([str(engine), command, "--format", "json", "-"], input=json.dumps(scenario),
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"shardcalc rejected the scenario {json.dumps(scenario)}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def evaluate(engine, scenario):
    return run_engine(engine, "estimate", scenario)


def engine_arguments(doc, check_help):
    """The command line of a comparison program: the engine to run and the bounds file to check against."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--engine", default=str(Path(__file__).resolve().parents[1] / "build/engine/shardcalc"))
    ap.add_argument("--check", help=check_help)
    return ap.parse_args()


def add_spread(out, key, errors):
    """The median and worst |error| of `errors` as out[key_median] and out[key_worst]."""
    magnitudes = [abs(e) for e in errors]
    out[f"{key}_median"] = statistics.median(magnitudes)
    out[f"{key}_worst"] = max(magnitudes)


def spread_line(summary, parts):
    """'over N runs: LABEL median |error| x% (worst y%), ...' for each (label, key) of `parts`."""
    items = [f"{label} median |error| {summary[key + '_median']:.1%} (worst {summary[key + '_worst']:.1%})"
             for label, key in parts]
    return f"over {summary['runs']} runs: " + ", ".join(items)


def check_bounds(summary, bounds_path):
    """Each figure of `summary` against its bound in the bounds file; prints the outcome, returns the exit status."""
    bounds = json.loads(Path(bounds_path).read_text())["bounds"]
    return check_result([f"{k}: {summary[k]:.3g} > bound {b:.3g}" for k, b in bounds.items() if summary[k] > b], bounds_path)


def check_result(failed, bounds_path):
    """Prints what grew past the bounds (or that nothing did) and returns the exit status."""
    if failed:
        print(f"\nFAILED: errors grew past {bounds_path}:\n  " + "\n  ".join(failed))
        return 1
    print(f"\nall errors within {bounds_path}")
    return 0


def load(paths):
    records = []
    for path in paths:
        for line in Path(path).read_text().splitlines():
            if line.strip():
                records.append(json.loads(line))
    return records


def calibrate(engine, records):
    """What the measured runs say about the figures shardcalc takes as inputs: memory outside the
    allocator, the allocator's fragmentation, and the host's time per kernel launch (from runs whose
    passes take much longer than their kernels: the host, not the device, set their pace)."""
    ok = [r for r in records if r.get("status") == "ok"]
    overhead = [(r["device_used_end"] - r["max_reserved"]) / GIB for r in ok]
    frag = [(r["max_reserved"] - r["peak_allocated"]) / r["peak_allocated"] for r in ok]
    host = {"forward": [], "backward": []}
    for r in ok:
        if r["case"].get("inventory"):
            continue
        stage = evaluate(engine, scenario_of(r))["pipeline"]["stages"][0]
        for p, measured in (("forward", r["fwd_ms"]), ("backward", r["bwd_ms"])):
            device_ms = stage[f"{p}_device_seconds"] * 1e3
            if measured > 1.5 * device_ms and stage[f"{p}_launches"] > 0:
                host[p].append(1e3 * measured / stage[f"{p}_launches"])
    med = lambda v: statistics.median(v) if v else None
    print(f"hardware.overhead_gib          {med(overhead):.3f}   (device used - reserved, {len(overhead)} runs)")
    print(f"fragmentation (reserved/alloc) median {med(frag):.1%}, worst {max(frag):.1%}   (shardcalc assumes "
          f"8.3% / 16.5%)")
    for p in ("forward", "backward"):
        v = med(host[p])
        print(f"implementation.host_{p}_us  " + (f"{v:.1f}   ({len(host[p])} launch-bound runs)" if v else
                                                   "no launch-bound run: measure a small model at micro-batch 1"))


def compare(engine, records):
    """One row per run: id, model, status, verdict, and per quantity (predicted, measured, error)."""
    rows = []
    for rec in records:
        pred = predicted_of(evaluate(engine, scenario_of(rec)))
        meas = measured_of(rec)
        row = {"id": rec["id"], "model": rec["case"].get("model", "?"), "status": rec.get("status", "ok"),
               "verdict": pred["_verdict"], "q": {}}
        for q in QUANTITIES:
            # A few MiB measured where nothing is expected (SGD's states) is allocator noise, not a size to
            # take a relative error of.
            floor = 1 / 64 if QUANTITIES[q][0] == "GiB" else 0
            # Runs that recorded the saved-tensor inventory ran hooks on every saved tensor: their times
            # measure the hooks too.
            if QUANTITIES[q][0] in ("ms", "count") and rec["case"].get("inventory"):
                continue
            if q in meas and meas[q] > floor:
                row["q"][q] = (pred[q], meas[q], (pred[q] - meas[q]) / meas[q])
        rows.append(row)
    return rows


def summary(rows):
    """Per quantity: number of runs, median and worst absolute relative error."""
    out = {}
    for q in QUANTITIES:
        errs = [abs(r["q"][q][2]) for r in rows if q in r["q"]]
        if errs:
            out[q] = {"runs": len(errs), "median": statistics.median(errs), "worst": max(errs)}
    # An out-of-memory run that shardcalc says fits is the worst error a pre-launch calculator can make.
    out["oom_predicted_to_fit"] = sum(1 for r in rows if r["status"] == "oom" and r["verdict"] == "fits")
    out["oom_runs"] = sum(1 for r in rows if r["status"] == "oom")
    return out


def print_rows(rows, quantities):
    for r in rows:
        cells = []
        for q in quantities:
            if q in r["q"]:
                p, m, e = r["q"][q]
                cells.append(f"{q} {p:.3f}/{m:.3f} {e:+.1%}")
        print(f"{r['id']:<58} {r['status']:<4} {r['verdict']:<12} " + "  ".join(cells))


def print_markdown(rows, quantities):
    print("| run | " + " | ".join(quantities) + " |")
    print("|---|" + "---|" * len(quantities))
    for r in rows:
        cells = [f"{r['q'][q][2]:+.1%}" if q in r["q"] else "—" for q in quantities]
        print(f"| {r['id']} | " + " | ".join(cells) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--measured", nargs="+", default=[str(ROOT / "validation/measured/h100-pytorch.jsonl")])
    ap.add_argument("--engine", default=str(ROOT / "build/engine/shardcalc"))
    ap.add_argument("--check", help="bounds file: fail if a median or worst error exceeds its bound")
    ap.add_argument("--markdown", action="store_true", help="per-run errors as a Markdown table")
    ap.add_argument("--quantities", nargs="+", default=list(QUANTITIES))
    ap.add_argument("--calibrate", action="store_true",
                    help="print the figures these runs imply for your hardware and software (overhead_gib, "
                         "host_forward_us, host_backward_us, fragmentation), to put in your scenarios")
    ap.add_argument("--suite", help="only check that shardcalc accepts every scenario of a measurement suite "
                                    "(validation/measure/suite-*.jsonl) and print its prediction")
    args = ap.parse_args()

    if args.suite:
        # The suite as the harness reads it (comments, JSON lines or an array, scenario beside or under "id").
        sys.path.insert(0, str(ROOT / "validation" / "measure"))
        from run_suite import load_entries, split_entry
        for entry in load_entries(args.suite):
            run_id, scenario, _ = split_entry(entry)
            pred = predicted_of(evaluate(args.engine, scenario))
            print(f"{run_id:<62} {pred['_verdict']:<13} peak {pred['peak_allocated']:7.2f} GiB  "
                  f"step {pred['step_ms']:9.1f} ms")
        return 0

    records = load(args.measured)
    if args.calibrate:
        calibrate(args.engine, records)
        return 0
    rows = compare(args.engine, records)
    if args.markdown:
        print_markdown(rows, args.quantities)
    else:
        print_rows(rows, args.quantities)
    s = summary(rows)
    print("\nquantity            runs  median |error|  worst |error|")
    for q in QUANTITIES:
        if q in s:
            print(f"{q:<20}{s[q]['runs']:>4}  {s[q]['median']:>13.1%}  {s[q]['worst']:>13.1%}")
    print(f"out-of-memory runs predicted to fit: {s['oom_predicted_to_fit']} of {s['oom_runs']}")

    if args.check:
        bounds = json.loads(Path(args.check).read_text())["bounds"]
        failed = []
        for q, b in bounds.items():
            if q == "oom_predicted_to_fit":
                if s[q] > b:
                    failed.append(f"{q}: {s[q]} > {b}")
                continue
            if q not in s:
                failed.append(f"{q}: no measured runs")
                continue
            for stat in ("median", "worst"):
                if stat in b and s[q][stat] > b[stat]:
                    failed.append(f"{q}: {stat} |error| {s[q][stat]:.1%} > bound {b[stat]:.1%}")
        return check_result(failed, args.check)
    return 0


if __name__ == "__main__":
    sys.exit(main())
