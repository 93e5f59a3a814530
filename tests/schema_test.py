#!/usr/bin/env python3
"""The scenario's schema is the engine's (`shardcalc schema`, engine/io/contract/scenario_schema.cpp); the page's field
catalogue (web/src/js/fields.js, read with Node) and docs/scenario.md §2 describe it for readers. This test holds them
to it: every key has a row in its table of docs/scenario.md §2, whose type, minimum and default agree with the schema;
every key is in the page's catalogue; every choice the page offers is a spelling the engine knows, and every spelling
the engine knows a choice (but for the few the page leaves out on purpose, listed below with the reason).
Usage: schema_test.py SHARDCALC ROOT"""
import json
import re
import subprocess
import sys
from pathlib import Path

cli, root = sys.argv[1], Path(sys.argv[2])
failures = []
OBJECTS = ["model", "training", "parallel", "hardware", "implementation", "adapter"]
# Spellings the engine reads but the page does not offer, and why.
NOT_OFFERED = {
    # The activation dtype may not be fp8: the parser names it to point at training.fp8 instead (docs/scenario.md).
    "training.dtype": {"fp8"},
}

schema = json.loads(subprocess.run([cli, "schema"], capture_output=True, text=True, check=True).stdout)
by_object = {o["path"].strip("/").replace("/", "."): {f["key"]: f for f in o["fields"]} for o in schema["objects"]}
engine_keys = {obj: set(by_object[obj]) | ({"peak_tflops"} if obj == "hardware" else set()) for obj in OBJECTS}
engine_keys["hardware.peak_tflops"] = set(by_object["hardware.peak_tflops"])


def spellings(path):
    """The spellings the engine accepts at a dotted path, or None where it is no enum."""
    obj, _, key = path.rpartition(".")
    field = by_object.get(obj, {}).get(key)
    return set(field["choices"]) if field and "choices" in field else None


# The page's catalogue, as the page builds it: its choices and defaults come from the engine's schema through
# web/src/js/schema.js, written here as web/build.mjs writes it (from the native engine instead of the WebAssembly one).
subprocess.run(["node", str(root / "web" / "schema-module.mjs")], input=json.dumps(schema), text=True, check=True)
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

# docs/scenario.md §2: a table row per key, in its object's subsection, with the schema's type, minimum and default.
DOC_TYPES = {"integer": "integer", "number": "number", "boolean": "boolean", "enum": "enum", "string": "string",
             "enum list": "list of names", "integer list": "list of integers"}


def number_in(text):
    m = re.search(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", text)
    return float(m.group(0)) if m else None


def check_row(obj, key, field, type_cell, default_cell):
    where = f"docs/scenario.md §2 `{obj}` row {key}"
    if not type_cell.startswith(DOC_TYPES[field["type"]]):
        failures.append(f"{where}: type \"{type_cell}\", the engine reads {field['type']}")
    if field["type"] == "integer" and "(" in type_cell and number_in(type_cell.split("(", 1)[1]) != field["min"]:
        failures.append(f"{where}: minimum \"{type_cell}\", the engine's is {field['min']}")
    if field.get("required") and obj == "model" and default_cell != "required":
        failures.append(f"{where}: default \"{default_cell}\", the engine requires it")
    default = field.get("default")
    if default is None or default == "derived" or isinstance(default, list) or obj == "hardware":
        return
    if isinstance(default, bool):
        ok = default_cell.startswith(f"`{str(default).lower()}`")
    elif isinstance(default, (int, float)):
        ok = number_in(default_cell) == default
    else:
        ok = default_cell.startswith(f"`{default}`")
    if not ok:
        failures.append(f"{where}: default \"{default_cell}\", the engine's is {json.dumps(default)}")


docs = (root / "docs" / "scenario.md").read_text()
for obj in OBJECTS:
    section = re.search(rf"### 2\.\d+ `{obj}`\n(.*?)(?=\n### |\n## )", docs, re.S)
    if not section:
        failures.append(f"docs/scenario.md has no §2 subsection for `{obj}`")
        continue
    rows = {}
    for m in re.finditer(r"^\| ([^|]+) \| ([^|]*) \| ([^|]*) \|", section.group(1), re.M):
        for key in re.findall(r"`([a-z_0-9]+)`", m.group(1)):
            rows[key] = (m.group(2).strip(), m.group(3).strip())
    for key in sorted(engine_keys[obj] - set(rows)):
        failures.append(f"docs/scenario.md §2 `{obj}` has no row for {key}")
    for key, field in by_object[obj].items():
        if key in rows:
            check_row(obj, key, field, *rows[key])

if failures:
    print("FAILED:\n  " + "\n  ".join(failures))
    sys.exit(1)
print(f"the engine's {sum(len(k) for k in engine_keys.values())} scenario keys are in docs/scenario.md and the page's "
      f"catalogue, and the page's {sum(1 for s in fields.values() if s.get('type') == 'enum')} choice lists match its spellings")
