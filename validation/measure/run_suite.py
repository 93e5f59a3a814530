#!/usr/bin/env python3
"""Run measure.py once per scenario of a suite, each in its own process.

    python3 validation/measure/run_suite.py validation/measure/suite-h100.jsonl --out runs.jsonl
    python3 validation/measure/run_suite.py suite.jsonl --dry-run      # check every plan, no GPU

A suite is JSON lines (blank lines and lines starting with # are skipped) or one JSON
array. Each entry has an "id" and either the scenario under "scenario" or the scenario's
own keys beside "id"; an optional "measure" object sets per-run options
(warmup, steps, profile, inventory) over the command-line defaults.

A separate process per run keeps an out-of-memory error or a crash from affecting the
next run, and lets each run set its own allocator (PYTORCH_CUDA_ALLOC_CONF is read when
CUDA starts). Each run appends its record to --out; a run that dies without writing one
gets a record with status "crashed". The child's output goes to <out>.logs/<id>.log.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import records  # noqa: E402

MEASURE = HERE / "measure.py"
MEASURE_OPTIONS = ("warmup", "steps", "profile", "inventory")
EXIT_INVALID, EXIT_ENVIRONMENT = 2, 3


class SuiteError(Exception):
    pass


def parse_args(argv):
    parser = argparse.ArgumentParser(description="Run measure.py for every scenario of a suite.")
    parser.add_argument("suite", help="JSON lines or JSON array of scenarios, each with an id")
    parser.add_argument("--out", default="measured-runs.jsonl",
                        help="records are appended here (default measured-runs.jsonl)")
    parser.add_argument("--only", action="append", default=[], metavar="TEXT",
                        help="run only entries whose id contains TEXT (repeatable)")
    parser.add_argument("--warmup", type=int, default=3, help="default warm-up steps (3)")
    parser.add_argument("--steps", type=int, default=10, help="default timed steps (10)")
    parser.add_argument("--profile", action="store_true", help="profile every run")
    parser.add_argument("--inventory", action="store_true", help="inventory every run")
    parser.add_argument("--dry-run", action="store_true",
                        help="resolve every plan and print one line each; runs nothing")
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help="stop a run after this long (default: no limit)")
    parser.add_argument("--python", default=sys.executable,
                        help="interpreter for measure.py (default: this one)")
    return parser.parse_args(argv)


# ---------------------------------------------------------------------------- suite file

def load_entries(path: str) -> list[dict]:
    text = Path(path).read_text(encoding="utf-8")
    if text.lstrip().startswith("["):
        entries = json.loads(text)
    else:
        entries = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            try:
                entries.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise SuiteError(f"{path}:{number}: invalid JSON: {exc}") from None
    return check_entries(entries, path)


def check_entries(entries, path: str) -> list[dict]:
    if not isinstance(entries, list):
        raise SuiteError(f"{path}: a suite is a JSON array or JSON lines of objects")
    seen = set()
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str) \
                or not entry["id"]:
            raise SuiteError(f"{path}: entry {index + 1} needs a non-empty string \"id\"")
        if entry["id"] in seen:
            raise SuiteError(f"{path}: id {entry['id']!r} appears twice")
        seen.add(entry["id"])
        options = entry.get("measure", {})
        if not isinstance(options, dict):
            raise SuiteError(f"{path}: entry {entry['id']!r}: \"measure\" must be an object")
        unknown = sorted(set(options) - set(MEASURE_OPTIONS))
        if unknown:
            raise SuiteError(f"{path}: entry {entry['id']!r}: unknown measure option "
                             f"{unknown[0]!r}; allowed: {', '.join(MEASURE_OPTIONS)}")
    return entries


def split_entry(entry: dict) -> tuple[str, dict, dict]:
    """(id, scenario, per-run options) of one suite entry."""
    if "scenario" in entry:
        scenario = entry["scenario"]
    else:
        scenario = {k: v for k, v in entry.items() if k not in ("id", "measure")}
    return entry["id"], scenario, dict(entry.get("measure") or {})


def run_options(args, overrides: dict) -> dict:
    options = {"warmup": args.warmup, "steps": args.steps, "profile": args.profile,
               "inventory": args.inventory}
    for key in ("warmup", "steps"):
        if key in overrides:
            options[key] = overrides[key]
    for key in ("profile", "inventory"):   # on when the entry or the command line says so
        options[key] = bool(overrides.get(key)) or options[key]
    return options


def measure_command(args, scenario_path: str, run_id: str, options: dict) -> list[str]:
    command = [args.python, str(MEASURE), scenario_path, "--id", run_id,
               "--warmup", str(options["warmup"]), "--steps", str(options["steps"])]
    if options["profile"]:
        command.append("--profile")
    if options["inventory"]:
        command.append("--inventory")
    if args.dry_run:
        command.append("--dry-run")
    else:
        command += ["--out", args.out]
    return command


# ---------------------------------------------------------------------------- one run

def run_child(command: list[str], log_path: Path | None, timeout: float | None):
    """(return code or None on timeout, stdout text, stderr text)."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
        code = process.returncode
    except subprocess.TimeoutExpired:
        # The run's own process group: measure.py and any rank processes it spawned.
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        code = None
    if log_path is not None:
        log_path.write_text(f"$ {' '.join(command)}\n--- stdout\n{stdout}\n--- stderr\n"
                            f"{stderr}\n--- exit {code}\n", encoding="utf-8")
    return code, stdout, stderr


def new_records(out_path: str, offset: int) -> list[dict]:
    """Records appended to out_path after byte offset."""
    if not os.path.exists(out_path):
        return []
    with open(out_path, "rb") as handle:
        handle.seek(offset)
        tail = handle.read().decode("utf-8", errors="replace")
    found = []
    for line in tail.splitlines():
        try:
            found.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return found


def crashed_record(run_id: str, scenario: dict, code, stderr: str, log_path: Path) -> dict:
    return {
        "id": run_id, "status": "crashed", "returncode": code,
        "error": "timed out" if code is None else "the process ended without a record",
        "stderr_tail": stderr[-3000:], "log": str(log_path),
        "case": {"id": run_id, "scenario": scenario},
    }


def first_error_line(stderr: str) -> str:
    for line in reversed(stderr.strip().splitlines()):
        if line.startswith("{"):
            try:
                error = json.loads(line)["error"]
                return f"{error['path'] or '/'}: {error['message']}"
            except (ValueError, KeyError, TypeError):
                break
    return stderr.strip().splitlines()[-1] if stderr.strip() else "no message"


def dry_run_line(run_id: str, code, stdout: str, stderr: str) -> str:
    if code != 0:
        return f"{run_id}: INVALID {first_error_line(stderr)}"
    plan = json.loads(stdout)
    return (f"{run_id}: {plan['hf']['model_class']} {plan['precision']['label']} "
            f"{plan['attention']['attn_implementation']} "
            f"{'gc ' if plan['gradient_checkpointing']['enabled'] else ''}"
            f"{plan['optimizer']['label']} seq {plan['training']['seq_len']} "
            f"mb {plan['training']['micro_batch']} {plan['parallel']['strategy']}"
            f"{' ' + plan['allocator']['PYTORCH_CUDA_ALLOC_CONF'] if plan['allocator']['PYTORCH_CUDA_ALLOC_CONF'] else ''}"
            f"{' tf32' if plan['tf32'] else ''}")


def run_entry(args, entry: dict, log_dir: Path | None) -> tuple[str, bool]:
    """Run one entry: (summary line, whether the machine cannot measure at all)."""
    run_id, scenario, overrides = split_entry(entry)
    options = run_options(args, overrides)
    handle, scenario_path = tempfile.mkstemp(prefix="measure-scenario-", suffix=".json")
    with os.fdopen(handle, "w", encoding="utf-8") as scenario_file:
        json.dump(scenario, scenario_file)
    safe_id = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in run_id)
    log_path = log_dir / f"{safe_id}.log" if log_dir is not None else None
    offset = os.path.getsize(args.out) if os.path.exists(args.out) else 0
    try:
        code, stdout, stderr = run_child(measure_command(args, scenario_path, run_id, options),
                                         log_path, args.timeout)
    finally:
        os.remove(scenario_path)
    if args.dry_run:
        return dry_run_line(run_id, code, stdout, stderr), False
    if code in (EXIT_INVALID, EXIT_ENVIRONMENT):
        message = first_error_line(stderr)
        kind = "INVALID" if code == EXIT_INVALID else "CANNOT MEASURE"
        # Missing torch or GPU stops the suite; too few GPUs for one dp does not.
        machine = code == EXIT_ENVIRONMENT and not message.startswith("/parallel")
        return f"{run_id}: {kind} {message} (no record written)", machine
    mine = [r for r in new_records(args.out, offset) if r.get("id") == run_id]
    if mine:
        return records.summary_line(mine[-1]), False
    record = crashed_record(run_id, scenario, code, stderr, log_path)
    records.write_record(record, args.out, sys.stdout)
    how = "timed out" if code is None else f"exit {code}"
    return f"{run_id}: crashed ({how}), see {log_path}", False


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        entries = load_entries(args.suite)
    except (OSError, ValueError, SuiteError) as exc:
        print(f"run_suite: {exc}", file=sys.stderr)
        return 2
    if args.only:
        entries = [e for e in entries if any(text in e["id"] for text in args.only)]
    log_dir = None
    if not args.dry_run:
        log_dir = Path(args.out + ".logs")
        log_dir.mkdir(parents=True, exist_ok=True)
    for index, entry in enumerate(entries, start=1):
        started = time.perf_counter()
        line, machine_unusable = run_entry(args, entry, log_dir)
        took = "" if args.dry_run else f" ({time.perf_counter() - started:.0f} s)"
        print(f"[{index}/{len(entries)}] {line}{took}", flush=True)
        if machine_unusable:
            print("run_suite: this machine cannot measure; stopping", file=sys.stderr)
            return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
