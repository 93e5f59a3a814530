#!/usr/bin/env python3
"""Docs and CLI cannot drift: every example scenario in examples/ and every scenario shown in the
README and docs (cli, scenario, search) evaluates, and docs/cli.md's sample CLI output is what the CLI prints.
Usage: docs_test.py SHARDCALC ROOT"""
import json
import re
import subprocess
import sys
from pathlib import Path

cli, root = sys.argv[1], Path(sys.argv[2])
failures = []


def evaluate(text, fmt="json", command="estimate"):
    return subprocess.run([cli, command, "--format", fmt, "-"], input=text, capture_output=True, text=True)


# Search examples (examples/search) run with `shardcalc search` and find plans.
for path in sorted((root / "examples" / "search").glob("*.json")):
    run = evaluate(path.read_text(), command="search")
    if run.returncode != 0:
        failures.append(f"search/{path.name}: {run.stderr.strip()}")
    elif not json.loads(run.stdout)["plans"]:
        failures.append(f"search/{path.name}: no plan found")


examples = sorted((root / "examples").glob("*.json"))
assert len(examples) >= 6, "one example per framework, a long-context plan and an offload plan"
frameworks = set()
for path in examples:
    run = evaluate(path.read_text())
    if run.returncode != 0:
        failures.append(f"{path.name}: {run.stderr.strip()}")
        continue
    frameworks.add(json.loads(run.stdout)["scenario"]["framework"])
if frameworks != {"megatron", "deepspeed", "fsdp", "pytorch", "xla"}:
    failures.append(f"examples cover frameworks {sorted(frameworks)}, not all five")

# Scenarios shown in the docs (```json blocks with a "model").
shown = 0
for doc in ("README.md", "docs/cli.md", "docs/scenario.md", "docs/search.md"):
    for block in re.findall(r"```json\n(.*?)```", (root / doc).read_text(), re.S):
        try:
            scenario = json.loads(block)
        except json.JSONDecodeError:
            continue
        if not isinstance(scenario, dict) or "model" not in scenario:
            continue
        shown += 1
        run = evaluate(block, command="search" if "search" in scenario else "estimate")
        if run.returncode != 0:
            failures.append(f"{doc}: scenario {block.strip()[:60]}...: {run.stderr.strip()}")
if shown < 2:
    failures.append(f"only {shown} scenarios found in the docs")

# docs/cli.md's sample output: each line shown (not "...") is printed by the CLI, in order.
readme = (root / "docs" / "cli.md").read_text()
match = re.search(r"`build/engine/shardcalc estimate` prints \(abridged\):\n\n```\n(.*?)```", readme, re.S)
if not match:
    failures.append("docs/cli.md: sample output block not found")
else:
    example = re.search(r"\(`(examples/[^`]+)`\)", readme[: match.start() + 200]).group(1)
    printed = evaluate((root / example).read_text(), "table").stdout.splitlines()
    at = 0
    for line in match.group(1).splitlines():
        if line.strip() in ("", "..."):
            continue
        try:
            at = printed.index(line, at) + 1
        except ValueError:
            failures.append(f"docs/cli.md sample output: the CLI does not print (in this order): {line}")

if failures:
    print("FAILED:\n  " + "\n  ".join(failures))
    sys.exit(1)
print(f"docs ok: {len(examples)} examples, {shown} scenarios in the docs, docs/cli.md sample output matches")
