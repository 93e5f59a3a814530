#!/usr/bin/env python3
"""The fuzz dictionary cannot drift from the engine: every identifier-like string literal of
engine/io/scenario_json.cpp (the keys) and engine/scenario/names.cpp (the enum spellings), and every
preset id, is an entry of tests/fuzz/scenario.dict. Usage: check_dict.py ROOT"""
import re
import sys
from pathlib import Path

root = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
entries = set()
for line in (root / "tests/fuzz/scenario.dict").read_text().splitlines():
    m = re.fullmatch(r'\s*[A-Za-z0-9_]*\s*=\s*"(.*)"\s*', line)
    if m:
        entries.add(m.group(1).replace('\\"', '"'))
missing = []
for source in ("engine/io/scenario_json.cpp", "engine/scenario/names.cpp"):
    for word in dict.fromkeys(re.findall(r'"([a-z0-9_]+)"', (root / source).read_text())):
        if f'"{word}":' not in entries and f'"{word}"' not in entries:
            missing.append(f"{word} ({source})")
# Model and hardware ids are values a scenario names; plan presets are whole scenarios (their files are in the
# seed corpus's spirit, not words of one).
for preset in sorted([*(root / "presets" / "models").glob("*.json"), *(root / "presets" / "hardware").glob("*.json")]):
    if f'"{preset.stem}"' not in entries:
        missing.append(f"{preset.stem} ({preset.relative_to(root)})")
if missing:
    print("tests/fuzz/scenario.dict lacks: " + ", ".join(missing))
    sys.exit(1)
print(f"tests/fuzz/scenario.dict: {len(entries)} entries, every key, enum spelling and preset id")
