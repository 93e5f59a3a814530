"""GPU kernel time from a torch.profiler Chrome trace, by kernel name and by category.

Plain Python: the trace is JSON that torch.profiler writes (`export_chrome_trace`), so
the summary and the categories can be tested without torch. Device activity in that
trace is the events whose `cat` is `kernel`, `gpu_memcpy` or `gpu_memset` (older torch
wrote `Kernel`, `Memcpy`, `Memset`), with `dur` in microseconds.

Categories are decided by the first rule whose substring occurs in the lower-cased
kernel name (the order matters: flash-attention kernels contain "cutlass", copies run
inside "elementwise" kernels, and so on). README.md lists the same table.
"""

from __future__ import annotations

DEVICE_CATS = ("kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset")
LAUNCH_CATS = ("cuda_runtime", "cuda_driver", "runtime", "driver")

CATEGORY_RULES = (
    ("comm", ("nccl",)),
    ("memset", ("memset",)),
    ("copy_cast", ("memcpy",)),
    # cuDNN's SDPA backward runs helper kernels named cudnn::fusion::... besides its main one.
    ("attention", ("flash", "fmha", "attention", "attn", "sdpa", "cudnn::fusion")),
    ("optimizer", ("adam", "sgd", "multi_tensor_apply", "amp_foreach", "amp_update_scale",
                   "non_finite_check")),
    ("gemm", ("gemm", "gemv", "nvjet", "xmma", "cublas", "cutlass", "matmul", "splitkreduce",
              "dot_kernel")),
    ("norm", ("layer_norm", "layernorm", "rms_norm", "rmsnorm", "group_norm", "batch_norm",
              "gammabeta")),
    ("softmax_ce", ("softmax", "cross_entropy", "crossentropy", "nll_loss")),
    ("copy_cast", ("copy", "catarray")),
    ("reduce", ("reduce", "cub::", "scan", "argmax", "topk", "sort", "radix")),
    ("elementwise", ("elementwise", "vectorized", "pointwise", "gelu", "silu", "relu", "tanh",
                     "dropout", "fill", "where", "activation")),
)
CATEGORIES = ("gemm", "attention", "elementwise", "norm", "softmax_ce", "optimizer",
              "copy_cast", "reduce", "memset", "comm", "other")


def category_of(name: str, cat: str = "") -> str:
    """The category of one device event (see CATEGORY_RULES)."""
    trace_cat = (cat or "").lower()
    if trace_cat in ("gpu_memset", "memset"):
        return "memset"
    if trace_cat in ("gpu_memcpy", "memcpy"):
        return "copy_cast"
    lowered = (name or "").lower()
    for category, needles in CATEGORY_RULES:
        if any(needle in lowered for needle in needles):
            return category
    return "other"


def device_events(trace) -> list[dict]:
    """Complete ('X') device events of a Chrome trace (dict with traceEvents, or a list)."""
    events = trace.get("traceEvents", []) if isinstance(trace, dict) else trace
    return [e for e in events
            if isinstance(e, dict) and e.get("ph") == "X"
            and str(e.get("cat", "")).lower() in DEVICE_CATS]


def count_launch_calls(trace) -> int:
    """Host-side launch calls (cudaLaunchKernel and friends) in the trace."""
    events = trace.get("traceEvents", []) if isinstance(trace, dict) else trace
    return sum(1 for e in events
               if isinstance(e, dict) and str(e.get("cat", "")).lower() in LAUNCH_CATS
               and "launch" in str(e.get("name", "")).lower())


def summarize_trace(trace, top_n: int = 25, name_chars: int = 160) -> dict:
    """Kernel time by name (top_n longest) and by category, launch counts, GPU span."""
    events = device_events(trace)
    by_name: dict[str, list] = {}
    categories = {c: {"us": 0.0, "launches": 0} for c in CATEGORIES}
    start, end = None, None
    for event in events:
        name = str(event.get("name", ""))
        dur = float(event.get("dur", 0.0) or 0.0)
        entry = by_name.setdefault(name, [0.0, 0, category_of(name, event.get("cat", ""))])
        entry[0] += dur
        entry[1] += 1
        categories[entry[2]]["us"] += dur
        categories[entry[2]]["launches"] += 1
        ts = float(event.get("ts", 0.0) or 0.0)
        start = ts if start is None else min(start, ts)
        end = ts + dur if end is None else max(end, ts + dur)
    total = sum(v[0] for v in by_name.values())
    ranked = sorted(by_name.items(), key=lambda item: (-item[1][0], item[0]))
    return {
        "total_kernel_us": round(total, 1),
        "n_kernel_launches": len(events),
        "n_kernel_names": len(by_name),
        "n_launch_calls": count_launch_calls(trace),
        "gpu_span_us": round(end - start, 1) if events else 0.0,
        "categories": {c: {"us": round(v["us"], 1), "launches": v["launches"]}
                       for c, v in categories.items() if v["launches"]},
        "top": [{"name": name[:name_chars], "us": round(v[0], 1), "count": v[1],
                 "category": v[2]} for name, v in ranked[:top_n]],
    }
