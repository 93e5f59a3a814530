#!/usr/bin/env python3
"""Writes the fuzzers' dictionary: the hand-kept part (tests/fuzz/json.dict: JSON syntax, hostile numbers and bytes)
and, asked of the engine, every scenario key (quoted, with its colon), every enum spelling (quoted) and every model
and hardware preset id (quoted). The engine's schema (`shardcalc schema`) is the only list of keys and spellings, so
the dictionary cannot miss one. Usage: make_dict.py SHARDCALC ROOT OUT"""
import json
import subprocess
import sys
from pathlib import Path

cli, root, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
schema = json.loads(subprocess.run([cli, "schema"], capture_output=True, text=True, check=True).stdout)
keys, words = {}, {}
for obj in schema["objects"]:
    for part in filter(None, obj["path"].split("/")):
        keys[part] = None
    for field in obj["fields"]:
        keys[field["key"]] = None
        for choice in field.get("choices", []):
            words[choice] = None
presets = [p.stem for kind in ("models", "hardware") for p in sorted((root / "presets" / kind).glob("*.json"))]
for preset in presets:
    words[preset] = None
if not keys or not words or not presets:
    sys.exit("make_dict.py: the engine's schema or the presets came back empty")


def entry(name, text):
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'{name}="{escaped}"'


lines = [(root / "tests" / "fuzz" / "json.dict").read_text(), "# asked of the engine: `shardcalc schema` and presets/"]
lines += [entry(f"key_{i}", f'"{k}":') for i, k in enumerate(keys)]
lines += [entry(f"word_{i}", f'"{w}"') for i, w in enumerate(words)]
out.write_text("\n".join(lines) + "\n")
print(f"{out}: {len(keys)} keys, {len(words)} spellings and preset ids from the engine, with tests/fuzz/json.dict")
