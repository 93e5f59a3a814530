#!/usr/bin/env python3
"""Measure one training configuration on a CUDA GPU, from a shardcalc scenario.

    python3 validation/measure/measure.py scenario.json                # one JSON line on stdout
    python3 validation/measure/measure.py --out runs.jsonl scenario.json
    python3 validation/measure/measure.py --dry-run scenario.json      # the run plan; no torch

The scenario is the JSON that `shardcalc estimate` reads. The model is built with random
weights from Hugging Face config classes (no download), trained for --warmup + --steps
steps on random tokens, and one JSON object describing memory and time is written.
See README.md beside this file for every field.

Exit status: 0 measured (status ok or oom), 1 the run failed (status error, still
written), 2 invalid scenario (nothing written), 3 this machine cannot measure (nothing
written: torch, transformers or GPUs missing).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import records  # noqa: E402  (sibling modules, found through the line above)
from plan import PlanError, build_plan  # noqa: E402

EXIT_MEASURED, EXIT_RUN_ERROR, EXIT_INVALID, EXIT_ENVIRONMENT = 0, 1, 2, 3


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description="Measure training memory and time of a shardcalc scenario on a CUDA GPU.")
    parser.add_argument("scenario", help="scenario JSON file, or - for standard input")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the resolved run plan and exit (needs no torch)")
    parser.add_argument("--warmup", type=positive_int, default=3,
                        help="warm-up steps, the first included (default 3)")
    parser.add_argument("--steps", type=positive_int, default=10,
                        help="timed steps (default 10)")
    parser.add_argument("--profile", action="store_true",
                        help="add kernel time by name and category for one step")
    parser.add_argument("--inventory", action="store_true",
                        help="add the inventory of tensors saved for backward")
    parser.add_argument("--out", metavar="FILE.jsonl",
                        help="append the record to this file (default: standard output)")
    parser.add_argument("--id", metavar="NAME", help="record id (default: the scenario's "
                                                     "\"id\", else derived from the case)")
    return parser.parse_args(argv)


def load_scenario(source: str):
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except OSError as exc:
        raise PlanError("", f"cannot read {source}: {exc.strerror or exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise PlanError("", f"invalid JSON: {exc}") from None


def apply_process_env(plan: dict) -> None:
    """Settings that must be in place before torch initialises CUDA in this process
    (and that spawned rank processes inherit)."""
    alloc_conf = plan["allocator"]["PYTORCH_CUDA_ALLOC_CONF"]
    if alloc_conf:
        os.environ["PYTORCH_CUDA_ALLOC_CONF"] = alloc_conf
    else:   # the scenario asks for the default caching allocator: drop any inherited one
        os.environ.pop("PYTORCH_CUDA_ALLOC_CONF", None)
    # Models come from configs; nothing may be fetched from the Hub.
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    if "torch" in sys.modules:
        print("warning: torch was imported before the allocator was configured; "
              "PYTORCH_CUDA_ALLOC_CONF may not apply", file=sys.stderr)


def report_error(path: str, message: str) -> None:
    print(json.dumps({"ok": False, "error": {"path": path, "message": message}}),
          file=sys.stderr)


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    options = {"warmup": args.warmup, "steps": args.steps, "profile": args.profile,
               "inventory": args.inventory}
    try:
        plan = build_plan(load_scenario(args.scenario), options, run_id=args.id)
    except PlanError as exc:
        report_error(exc.path, exc.message)
        return EXIT_INVALID
    if args.dry_run:
        print(json.dumps(plan, indent=2))
        return EXIT_MEASURED
    apply_process_env(plan)
    import runner   # torch and transformers are imported from here on, not before
    try:
        record = runner.run_plan(plan)
    except runner.EnvironmentProblem as exc:
        report_error(exc.path, str(exc))
        return EXIT_ENVIRONMENT
    records.write_record(record, args.out, sys.stdout)
    print(records.summary_line(record), file=sys.stderr)
    return EXIT_MEASURED if record.get("status") in ("ok", "oom") else EXIT_RUN_ERROR


if __name__ == "__main__":
    sys.exit(main())
