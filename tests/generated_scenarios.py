#!/usr/bin/env python3
"""Scenarios drawn from the engine's own schema (`shardcalc schema`), run through the CLI with a time and memory
limit per input: the generator-based fuzzer beside the byte fuzzers (scripts/fuzz.sh). Each scenario starts from a
model preset or a small custom model and sets a few fields to values drawn from their schema entry (an enum's
spellings, a range's ends and small values inside it, both booleans, preset ids). Every run must end within its
limits with exit 0 or 2 (invalid input, as one JSON error naming its path); an accepted scenario must give a JSON
report whose echoed scenario evaluates to the same peak memory and step time (docs/scenario.md: the echo reproduces
the report); every fourth also goes through the text format and the kernel table. Failing inputs are written to
--out. CTest runs 200 (`generated_scenarios`); more on demand, with other seeds.
Usage: generated_scenarios.py SHARDCALC [--count N] [--seed S] [--out DIR]"""
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
args = parser.parse_args()
rng = random.Random(args.seed)


def limits():
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))


def run(cmd, stdin):
    try:
        p = subprocess.run([args.cli, *cmd, "-"], input=stdin, capture_output=True, text=True, preexec_fn=limits,
                           timeout=WALL_SECONDS)
    except subprocess.TimeoutExpired:
        return None, "", f"took more than {WALL_SECONDS} s"
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


def figures(report):
    return (report["memory"]["per_device"]["total"], report.get("time", {}).get("step_seconds"))


out = Path(args.out)
failures = []
accepted = 0
for i in range(args.count):
    s = scenario()
    text = json.dumps(s)
    problem = None
    code, stdout, stderr = run(["estimate", "--format", "json"], text)
    if code not in (0, 2):
        problem = f"estimate --format json: {'exit ' + str(code) if code is not None else stderr} {stderr[-300:]}"
    elif code == 2:
        try:
            error = json.loads(stderr)
            if not isinstance(error.get("error", {}).get("path"), str):
                problem = "an error without a path: " + stderr[:200]
        except json.JSONDecodeError:
            problem = "an error that is not JSON: " + stderr[:200]
    else:
        accepted += 1
        report = json.loads(stdout)
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
    if problem:
        out.mkdir(parents=True, exist_ok=True)
        (out / f"failure-{i}.json").write_text(text)
        failures.append(f"case {i} ({out / f'failure-{i}.json'}): {problem}")

print(f"generated scenarios: {args.count} drawn from the engine's schema (seed {args.seed}), {accepted} accepted, "
      f"each run within {CPU_SECONDS} s of CPU and {MEMORY_BYTES >> 20} MiB")
if failures:
    print("FAILED:\n  " + "\n  ".join(failures[:20]) + (f"\n  ... and {len(failures) - 20} more" if len(failures) > 20 else ""))
    sys.exit(1)
