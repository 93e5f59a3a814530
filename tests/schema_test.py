#!/usr/bin/env python3
"""The scenario's field list lives in more than one place; this test holds them to the engine's parser.
The engine is asked (through the CLI) which keys each scenario object accepts ("unknown field; allowed here: ...")
and which spellings each enumerated field accepts ("allowed: a|b|c"); then every key must have a row in its table
of docs/scenario.md §2, every key must be in the page's field catalogue (web/src/js/fields.js, read with Node),
and every choice the page offers must be a spelling the engine knows, every spelling the engine knows a choice
(but for the few the page leaves out on purpose, listed below with the reason).
Usage: schema_test.py SHARDCALC ROOT"""
import json
import re
import subprocess
import sys
from pathlib import Path

cli, root = sys.argv[1], Path(sys.argv[2])
failures = []
BASE = {"model": {"preset": "gpt2"}}
OBJECTS = ["model", "training", "parallel", "hardware", "implementation"]
# Spellings the engine reads but the page does not offer, and why.
NOT_OFFERED = {
    # The activation dtype may not be fp8: the parser names it to point at training.fp8 instead (docs/scenario.md).
    "training.dtype": {"fp8"},
}


def errors(scenario):
    run = subprocess.run([cli, "estimate", "--format", "json", "-"], input=json.dumps(scenario),
                         capture_output=True, text=True)
    out = run.stdout.strip() or run.stderr.strip()
    return json.loads(out).get("errors", [])


def allowed_keys(obj, sub=None):
    scenario = json.loads(json.dumps(BASE))
    if sub:
        scenario.setdefault(obj, {})[sub] = {"__unknown__": 1}
        path = f"/{obj}/{sub}/__unknown__"
    else:
        scenario.setdefault(obj, {})["__unknown__"] = 1
        path = f"/{obj}/__unknown__"
    for e in errors(scenario):
        if e["path"] == path and "allowed here: " in e["message"]:
            return set(e["message"].split("allowed here: ")[1].split(", "))
    raise SystemExit(f"the engine did not list the keys of {path}")


def spellings(path):
    """The spellings the engine accepts at a dotted path, or None where any string is taken or it is no enum."""
    section, key = path.split(".", 1) if "." in path else (None, path)
    scenario = json.loads(json.dumps(BASE))
    if section:
        scenario.setdefault(section, {})[key] = "__unknown__"
    else:
        scenario[key] = "__unknown__"
    pointer = "/" + path.replace(".", "/")
    for e in errors(scenario):
        if e["path"] == pointer:
            m = re.search(r'unknown value "__unknown__"; allowed: ([\w|.-]+)', e["message"])
            return set(m.group(1).split("|")) if m else None
    return None


engine_keys = {obj: allowed_keys(obj) for obj in OBJECTS}
engine_keys["hardware.peak_tflops"] = allowed_keys("hardware", "peak_tflops")

# The page's catalogue, as the page builds it.
page = json.loads(subprocess.run(
    ["node", "-e", "import(process.argv[1]).then((m) => console.log(JSON.stringify([...m.FIELDS])))",
     (root / "web" / "src" / "js" / "fields.js").resolve().as_uri()], capture_output=True, text=True, check=True).stdout)
fields = dict(page)
for obj in OBJECTS:
    for key in sorted(engine_keys[obj] - {"peak_tflops"}):
        if f"{obj}.{key}" not in fields:
            failures.append(f"web/src/js/fields.js has no field {obj}.{key}, which the engine reads")
for key in sorted(engine_keys["hardware.peak_tflops"]):
    if f"hardware.peak_tflops.{key}" not in fields:
        failures.append(f"web/src/js/fields.js has no field hardware.peak_tflops.{key}, which the engine reads")
for path in fields:
    obj, _, key = path.rpartition(".")
    if obj and obj in engine_keys and key not in engine_keys[obj]:
        failures.append(f"web/src/js/fields.js offers {path}, which the engine does not read")

# Every enumerated field: the page's choices are the engine's spellings.
for path, spec in fields.items():
    if spec.get("type") != "enum":
        continue
    known = spellings(path)
    if known is None:
        failures.append(f"{path}: the engine names no spellings for it, but the page offers {spec['options']}")
        continue
    offered = set(spec["options"])
    if offered - known:
        failures.append(f"{path}: the page offers {sorted(offered - known)}, which the engine refuses")
    missing = known - offered - NOT_OFFERED.get(path, set())
    if missing:
        failures.append(f"{path}: the engine reads {sorted(missing)}, which the page does not offer")

# docs/scenario.md §2: a table row per key, in its object's subsection.
docs = (root / "docs" / "scenario.md").read_text()
for obj in OBJECTS:
    section = re.search(rf"### 2\.\d+ `{obj}`\n(.*?)(?=\n### |\n## )", docs, re.S)
    if not section:
        failures.append(f"docs/scenario.md has no §2 subsection for `{obj}`")
        continue
    documented = set()
    for cell in re.findall(r"^\| ([^|]+) \|", section.group(1), re.M):
        documented.update(re.findall(r"`([a-z_0-9]+)`", cell))
    for key in sorted(engine_keys[obj] - documented):
        failures.append(f"docs/scenario.md §2 `{obj}` has no row for {key}")

if failures:
    print("FAILED:\n  " + "\n  ".join(failures))
    sys.exit(1)
print(f"the engine's {sum(len(k) for k in engine_keys.values())} scenario keys are in docs/scenario.md and the page's "
      f"catalogue, and the page's {sum(1 for s in fields.values() if s.get('type') == 'enum')} choice lists match its spellings")
