"""The measurement record (one JSON line per run): creation, merging ranks, output.

Plain Python, so that the launcher, the suite runner and the tests share it without torch.
Field names follow validation/measured/h100-pytorch.jsonl; validation/measured/README.md explains each one.
"""

from __future__ import annotations

import json
import math

GIB = float(1 << 30)
# What each rank contributes to `per_rank` in a distributed run.
RANK_KEYS = ("status", "failed_phase", "max_allocated_at_failure", "peak_allocated",
             "reserved", "max_reserved", "device_used_end", "weights_bytes", "grads_bytes",
             "optimizer_state_bytes", "model_states_bytes", "alloc_retries", "device_ooms",
             "step_ms", "fwd_ms", "bwd_ms", "opt_ms", "error")


def new_record(plan: dict) -> dict:
    """The record's fixed part, known before anything runs."""
    return {
        "id": plan["id"],
        "case": json.loads(json.dumps(plan["case"])),
        "model_cfg": dict(plan["model_cfg"]),
        "status": "error",   # replaced by "ok" or "oom" once the run gets that far
        "warmup_steps": plan["run"]["warmup"],
        "timed_steps": plan["run"]["steps"],
        "optimizer_impl": plan["optimizer"]["label"],
        "attn_implementation": plan["attention"]["attn_implementation"],
        "precision_mode": plan["precision"]["mode"],
        "parallel": {k: plan["parallel"][k] for k in
                     ("strategy", "world_size", "dp", "zero", "reshard_after_forward",
                      "mp_policy")},
        "plan_notes": list(plan["notes"]),
    }


def _rank_entry(rank: int, rec: dict | None) -> dict:
    if rec is None:
        return {"rank": rank, "status": "no_report",
                "error": "the process ended before it reported (stopped after another "
                         "rank failed, or crashed)"}
    entry = {"rank": rank}
    entry.update({k: rec.get(k) for k in RANK_KEYS if k in rec})
    return entry


def merge_rank_records(plan: dict, by_rank: dict, world_size: int,
                       launcher_error: str | None = None) -> dict:
    """One record for a distributed run: rank 0's numbers plus every rank's in `per_rank`."""
    reported = sorted(by_rank)
    base = dict(by_rank[0]) if 0 in by_rank else (
        dict(by_rank[reported[0]]) if reported else new_record(plan))
    per_rank = [_rank_entry(r, by_rank.get(r)) for r in range(world_size)]
    base["per_rank"] = per_rank
    base["peak_allocated_per_rank"] = [e.get("peak_allocated") for e in per_rank]
    peaks = [p for p in base["peak_allocated_per_rank"] if p is not None]
    base["peak_allocated_max_over_ranks"] = max(peaks) if peaks else None
    statuses = [e["status"] for e in per_rank]
    if "oom" in statuses:
        first = next(e for e in per_rank if e["status"] == "oom")
        base["status"] = "oom"
        base["failed_phase"] = first.get("failed_phase")
        base["failed_rank"] = first["rank"]
        at_failure = [e.get("max_allocated_at_failure") for e in per_rank
                      if e.get("max_allocated_at_failure") is not None]
        base["max_allocated_at_failure"] = max(at_failure) if at_failure else None
    elif all(s == "ok" for s in statuses):
        base["status"] = "ok"
    else:
        bad = next(e for e in per_rank if e["status"] != "ok")
        base["status"] = "error"
        base["failed_rank"] = bad["rank"]
        base["error"] = bad.get("error") or launcher_error or "a rank failed"
    if launcher_error:
        base["launcher_error"] = launcher_error
    return base


def sanitize(value):
    """JSON-safe copy: non-finite floats become null (json.dumps would write NaN)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): sanitize(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [sanitize(v) for v in value]
    return value


def to_line(record: dict) -> str:
    return json.dumps(sanitize(record), sort_keys=True) + "\n"


def write_record(record: dict, out_path: str | None, stream) -> None:
    """Append one line to out_path, or write it to `stream` (stdout) when there is none."""
    line = to_line(record)
    if out_path:
        with open(out_path, "a", encoding="utf-8") as handle:
            handle.write(line)
    else:
        stream.write(line)
        stream.flush()


def _gib(value) -> str:
    return "-" if value is None else f"{value / GIB:.2f} GiB"


def summary_line(record: dict) -> str:
    """One human line: id, status, peak memory and speed (or where it failed)."""
    status = record.get("status")
    head = f"{record.get('id')}: {status}"
    if status == "ok":
        tps = record.get("tokens_per_s")
        return (f"{head}, peak {_gib(record.get('peak_allocated'))}, "
                f"reserved {_gib(record.get('max_reserved'))}, "
                f"step {record.get('step_ms')} ms, "
                f"{'-' if tps is None else f'{tps:,.0f}'} tokens/s")
    if status == "oom":
        return (f"{head} in {record.get('failed_phase')}, "
                f"{_gib(record.get('max_allocated_at_failure'))} allocated at failure")
    return f"{head}: {record.get('error', 'no details')}"
