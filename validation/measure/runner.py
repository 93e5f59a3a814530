"""The measurement itself: torch, transformers and a CUDA GPU.

measure.py imports this module only for a real run; torch and transformers are imported
inside functions, so nothing here is needed for --dry-run or the unit tests.

One run (per process, per rank):
  setup      seed, TF32 switches, CUDA context size, library warm-up, baseline
  build      HF model from its config with random weights, on the GPU; DDP / FSDP2;
             optimizer, loss scaler, one random batch
  first step model states by difference (gradients, optimizer state)
  warm-up    the rest of the warm-up steps
  timed      CUDA events around forward / backward / optimizer, allocator statistics
             at every phase boundary
  extras     optional profiler step and saved-tensor inventory
A CUDA out-of-memory error anywhere is caught and recorded (status "oom", the phase and
the allocation at failure); any other exception gives status "error" with its message.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import platform
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
import traceback
import warnings

import inventory
import kernels
import records

TORCH_DTYPES = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}
MIN_TORCH = (2, 4)
MIN_TRANSFORMERS = (4, 45)
SEED = 1234
# A rank that failed waits this long before exiting, so ranks failing the same way
# (the usual case: every rank runs the same step) can still write their reports.
FAILED_RANK_GRACE_S = 5.0
WARM_UP_SIZE = 256


class EnvironmentProblem(Exception):
    """The machine cannot run the measurement at all (no torch, no GPU, too few GPUs)."""

    def __init__(self, message: str, path: str = ""):
        super().__init__(message)
        self.path = path


# ---------------------------------------------------------------------------- environment

def import_torch():
    """torch and transformers, or EnvironmentProblem saying what to install."""
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise EnvironmentProblem(
            f"{exc}: a measurement needs torch >= 2.4 and transformers >= 4.45 "
            "(pip install torch transformers); --dry-run works without them") from None
    if not torch.cuda.is_available():
        raise EnvironmentProblem("torch sees no CUDA GPU; this harness measures on a CUDA GPU")
    return torch, transformers


def _version_tuple(text: str) -> tuple:
    numbers = []
    for part in text.split("+")[0].split(".")[:2]:
        digits = "".join(ch for ch in part if ch.isdigit())
        numbers.append(int(digits) if digits else 0)
    return tuple(numbers)


def version_warnings(torch, transformers) -> list:
    found = []
    if _version_tuple(torch.__version__) < MIN_TORCH:
        found.append(f"torch {torch.__version__} is older than the tested minimum 2.4")
    if _version_tuple(transformers.__version__) < MIN_TRANSFORMERS:
        found.append(f"transformers {transformers.__version__} is older than the tested "
                     "minimum 4.45")
    return found


def torch_dtype(torch, name: str):
    return getattr(torch, TORCH_DTYPES[name])


def nvidia_driver() -> str | None:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version",
                              "--format=csv,noheader"], capture_output=True, text=True,
                             timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = out.stdout.strip().splitlines()
    return lines[0].strip() if out.returncode == 0 and lines else None


def set_tf32(torch, enabled: bool) -> None:
    """TF32 for matmuls and cuDNN; the legacy switches, which recent torch still honours."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            torch.backends.cuda.matmul.allow_tf32 = enabled
            torch.backends.cudnn.allow_tf32 = enabled
        except (RuntimeError, AttributeError):
            precision = "tf32" if enabled else "ieee"
            torch.backends.cuda.matmul.fp32_precision = precision
            torch.backends.cudnn.conv.fp32_precision = precision


def _flag(read) -> bool | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return bool(read())
        except Exception:   # an API this torch lacks: unknown rather than a failed run
            return None


def collect_env(torch, transformers, device, context_bytes: int) -> dict:
    props = torch.cuda.get_device_properties(device)
    sdp = torch.backends.cuda
    env = {
        "gpu": props.name,
        "gpu_total_bytes": props.total_memory,
        "sm_count": props.multi_processor_count,
        "compute_capability": f"{props.major}.{props.minor}",
        "driver": nvidia_driver(),
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "python": platform.python_version(),
        "PYTORCH_CUDA_ALLOC_CONF": os.environ.get("PYTORCH_CUDA_ALLOC_CONF", ""),
        "allow_tf32_matmul": _flag(lambda: torch.backends.cuda.matmul.allow_tf32),
        "allow_tf32_cudnn": _flag(lambda: torch.backends.cudnn.allow_tf32),
        "flash_sdp_enabled": _flag(lambda: sdp.flash_sdp_enabled()),
        "mem_efficient_sdp_enabled": _flag(lambda: sdp.mem_efficient_sdp_enabled()),
        "cudnn_sdp_enabled": _flag(lambda: sdp.cudnn_sdp_enabled()),
        "math_sdp_enabled": _flag(lambda: sdp.math_sdp_enabled()),
        "cuda_context_bytes": context_bytes,
        "version_warnings": version_warnings(torch, transformers),
    }
    env.update(distributed_env())
    return env


def distributed_env() -> dict:
    import torch.distributed as dist
    if not (dist.is_available() and dist.is_initialized()):
        return {}
    found = {"world_size": dist.get_world_size(), "backend": str(dist.get_backend())}
    try:
        import torch.cuda.nccl as nccl
        version = nccl.version()
        found["nccl"] = ".".join(str(v) for v in version) if isinstance(version, tuple) \
            else str(version)
    except Exception:   # informational only
        found["nccl"] = None
    return found


def device_used(torch) -> int:
    free, total = torch.cuda.mem_get_info()
    return total - free


def warm_up_libraries(torch, plan: dict, device) -> None:
    """Create cuBLAS / cuBLASLt handles and workspaces before the baseline is taken.

    The workspaces come from the caching allocator, per thread (forward runs on this
    thread, backward on autograd's), so without this the first matmuls of the first
    step would be counted as gradients or optimizer state.
    """
    dtypes = {torch.float32, torch_dtype(torch, plan["precision"]["dtype"])}
    for dtype in dtypes:
        weight = torch.randn(WARM_UP_SIZE, WARM_UP_SIZE, device=device, requires_grad=True)
        bias = torch.zeros(WARM_UP_SIZE, device=device, requires_grad=True)
        inputs = torch.randn(64, WARM_UP_SIZE, device=device)
        cast = weight.to(dtype)
        out = torch.nn.functional.linear(inputs.to(dtype), cast, bias.to(dtype))
        (out.float().sum() + (cast @ cast).float().sum()).backward()
    torch.cuda.synchronize(device)


# ---------------------------------------------------------------------------- run state

class RunState:
    """What a step needs, and where the run is (for the failure report)."""

    def __init__(self):
        self.phase = "setup"
        self.step = None
        self.marks = None
        self.max_reserved = 0
        self.model = None        # what forward is called on (DDP wrapper or the model)
        self.inner = None        # the Hugging Face module itself
        self.optimizer = None
        self.scaler = None
        self.batch = None
        self.loss_value = None   # preallocated, so keeping the loss costs no allocation
        self.autocast = contextlib.nullcontext

    def note_reserved(self, torch) -> None:
        self.max_reserved = max(self.max_reserved, torch.cuda.max_memory_reserved())

    def reset_peaks(self, torch) -> None:
        """Start a new peak window; the reserve's peak is kept across windows first."""
        self.note_reserved(torch)
        torch.cuda.reset_peak_memory_stats()

    def release(self) -> None:
        self.model = self.inner = self.optimizer = self.scaler = None
        self.batch = self.loss_value = self.marks = None


# ---------------------------------------------------------------------------- build

def build_hf_model(torch, transformers, plan: dict, device):
    """Random weights from the HF config, created directly on the GPU."""
    hf = plan["hf"]
    config = getattr(transformers, hf["config_class"])(**hf["config"])
    auto_class = getattr(transformers, hf["auto_class"])
    pure = plan["precision"]["mode"] == "pure"
    dtype = torch_dtype(torch, plan["precision"]["param_dtype"]) if pure else torch.float32
    previous = torch.get_default_dtype()
    torch.set_default_dtype(dtype)   # what from_pretrained(dtype=...) does, version-free
    try:
        with torch.device(device):
            model = auto_class.from_config(
                config, attn_implementation=plan["attention"]["attn_implementation"])
    finally:
        torch.set_default_dtype(previous)
    if pure:
        model.to(dtype)   # parameters and floating buffers, as model.to(bf16) in a script
    if type(model).__name__ != hf["model_class"]:
        raise RuntimeError(f"transformers built {type(model).__name__}, expected "
                           f"{hf['model_class']}")
    return model


def configure_model(plan: dict, model, rec: dict) -> None:
    """Recomputation and train mode; checks that transformers did what was asked."""
    checkpointing = plan["gradient_checkpointing"]
    if checkpointing["enabled"]:
        model.gradient_checkpointing_enable(
            gradient_checkpointing_kwargs=dict(checkpointing["kwargs"]))
    model.train()
    active = bool(getattr(model, "is_gradient_checkpointing", False))
    rec["grad_ckpt_active"] = active
    rec["grad_ckpt_kwargs"] = "use_reentrant=False" if checkpointing["enabled"] else None
    if checkpointing["enabled"] and not active:
        raise RuntimeError("gradient checkpointing did not switch on")
    wanted = plan["attention"]["attn_implementation"]
    actual = getattr(model.config, "_attn_implementation", None)
    rec["attn_implementation_actual"] = actual
    if actual != wanted:
        raise RuntimeError(f"asked transformers for attn_implementation={wanted!r}, "
                           f"the model uses {actual!r}")


def describe_parameters(model, rec: dict) -> None:
    params = list(model.parameters())   # shared (tied) parameters come once
    rec["n_params"] = sum(p.numel() for p in params)
    rec["param_bytes"] = sum(p.numel() * p.element_size() for p in params)
    rec["buffer_bytes"] = sum(b.numel() * b.element_size() for b in model.buffers())
    rec["param_dtypes"] = sorted({str(p.dtype) for p in params})


def shard_fsdp2(torch, plan: dict, model):
    """fully_shard every transformer layer, then the root (embeddings, head, final norm)."""
    try:
        from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
    except ImportError:   # torch 2.4 / 2.5 keep FSDP2 here
        from torch.distributed._composable.fsdp import MixedPrecisionPolicy, fully_shard
    parallel = plan["parallel"]
    options = {"reshard_after_forward": parallel["reshard_after_forward"]}
    policy = parallel["mp_policy"]
    if policy:
        options["mp_policy"] = MixedPrecisionPolicy(
            param_dtype=torch_dtype(torch, policy["param_dtype"]),
            reduce_dtype=torch_dtype(torch, policy["reduce_dtype"]))
    for layer in model.get_submodule(plan["hf"]["layers_path"]):
        fully_shard(layer, **options)
    fully_shard(model, **options)
    return model


def wrap_parallel(torch, plan: dict, model, local_rank: int):
    strategy = plan["parallel"]["strategy"]
    if strategy == "single":
        return model
    if strategy == "ddp":
        from torch.nn.parallel import DistributedDataParallel
        return DistributedDataParallel(model, device_ids=[local_rank], output_device=local_rank)
    return shard_fsdp2(torch, plan, model)


def make_optimizer(torch, plan: dict, params):
    spec = plan["optimizer"]
    return getattr(torch.optim, spec["torch_class"])(params, **spec["kwargs"])


def make_scaler(torch):
    try:
        return torch.amp.GradScaler("cuda")
    except (AttributeError, TypeError):   # torch < 2.3
        return torch.cuda.amp.GradScaler()


def autocast_factory(torch, plan: dict):
    name = plan["precision"]["autocast_dtype"]
    if name is None:
        return contextlib.nullcontext
    dtype = torch_dtype(torch, name)
    return lambda: torch.autocast(device_type="cuda", dtype=dtype)


def make_batch(torch, plan: dict, device) -> dict:
    """Random token ids; labels are the ids themselves (HF shifts them for causal LMs)."""
    training = plan["training"]
    shape = (training["micro_batch"], training["seq_len"])
    ids = torch.randint(0, plan["model"]["vocab"], shape, device=device, dtype=torch.long)
    batch = {"input_ids": ids, "labels": ids}
    if "next_sentence_label" in plan["hf"]["loss_inputs"]:
        batch["next_sentence_label"] = torch.randint(0, 2, (training["micro_batch"],),
                                                     device=device, dtype=torch.long)
    return batch


def build(torch, transformers, plan: dict, device, rec: dict, state: RunState,
          local_rank: int) -> None:
    state.phase = "build"
    state.reset_peaks(torch)
    started = time.perf_counter()
    model = build_hf_model(torch, transformers, plan, device)
    configure_model(plan, model, rec)
    torch.cuda.synchronize()
    rec["build_s"] = round(time.perf_counter() - started, 2)
    rec["mem_after_init"] = torch.cuda.memory_allocated()
    describe_parameters(model, rec)
    state.inner = model
    started = time.perf_counter()
    state.model = wrap_parallel(torch, plan, model, local_rank)
    torch.cuda.synchronize()
    rec["wrap_s"] = round(time.perf_counter() - started, 2)
    rec["mem_after_build"] = torch.cuda.memory_allocated()
    rec["peak_during_build"] = torch.cuda.max_memory_allocated()
    # DDP adds its gradient buckets here (positive); FSDP2 frees the unsharded weights.
    rec["wrap_delta_bytes"] = rec["mem_after_build"] - rec["mem_after_init"]
    resident = rec["mem_after_build"] if plan["parallel"]["strategy"] == "fsdp2" \
        else rec["mem_after_init"]
    rec["weights_bytes"] = resident - rec["baseline_allocated"]
    state.optimizer = make_optimizer(torch, plan, state.model.parameters())
    state.scaler = make_scaler(torch) if plan["precision"]["grad_scaler"] else None
    state.autocast = autocast_factory(torch, plan)
    state.batch = make_batch(torch, plan, device)
    state.loss_value = torch.zeros((), device=device, dtype=torch.float32)


# ---------------------------------------------------------------------------- steps

def end_phase(torch, state: RunState, marks: dict, tag: str) -> None:
    marks[f"alloc_after_{tag}"] = torch.cuda.memory_allocated()
    marks[f"peak_{tag}"] = torch.cuda.max_memory_allocated()
    state.reset_peaks(torch)


def backward(state: RunState, loss) -> None:
    (state.scaler.scale(loss) if state.scaler is not None else loss).backward()


def optimizer_step(state: RunState) -> None:
    if state.scaler is not None:
        state.scaler.step(state.optimizer)
        state.scaler.update()
    else:
        state.optimizer.step()


def train_step(torch, state: RunState):
    """One training step with CUDA events and allocator readings at each phase boundary.

    No synchronisation inside the step: allocator statistics are host-side bookkeeping,
    exact without it, and the events time the GPU's own timeline, so the step runs as
    it would in a training loop.
    """
    marks = {}
    state.marks = marks
    events = [torch.cuda.Event(enable_timing=True) for _ in range(4)]
    marks["alloc_before_fwd"] = torch.cuda.memory_allocated()
    state.reset_peaks(torch)
    state.phase = "forward"
    events[0].record()
    with state.autocast():
        loss = state.model(**state.batch).loss   # outputs (logits) die here, as in training
    state.loss_value.copy_(loss.detach())
    events[1].record()
    end_phase(torch, state, marks, "fwd")
    state.phase = "backward"
    backward(state, loss)
    events[2].record()
    del loss
    end_phase(torch, state, marks, "bwd")
    state.phase = "optimizer"
    optimizer_step(state)
    end_phase(torch, state, marks, "opt")
    state.optimizer.zero_grad(set_to_none=True)
    events[3].record()
    marks["alloc_after_zero_grad"] = torch.cuda.memory_allocated()
    return marks, events


def step_times(events) -> dict:
    return {"fwd": events[0].elapsed_time(events[1]), "bwd": events[1].elapsed_time(events[2]),
            "opt": events[2].elapsed_time(events[3]), "step": events[0].elapsed_time(events[3])}


def record_first_step(rec: dict, marks: dict) -> None:
    """Model states by difference: zero_grad(set_to_none) frees exactly the gradients;
    what the first step leaves behind after that is optimizer (and loss-scaler) state."""
    rec["mem_after_first_bwd"] = marks["alloc_after_bwd"]
    rec["mem_after_first_step"] = marks["alloc_after_opt"]
    rec["mem_after_zero_grad"] = marks["alloc_after_zero_grad"]
    rec["peak_first_step"] = max(marks["peak_fwd"], marks["peak_bwd"], marks["peak_opt"])
    rec["grads_bytes"] = marks["alloc_after_opt"] - marks["alloc_after_zero_grad"]
    rec["optimizer_state_bytes"] = marks["alloc_after_zero_grad"] - rec["mem_before_first_step"]
    rec["model_states_bytes"] = (rec["weights_bytes"] + rec["grads_bytes"]
                                 + rec["optimizer_state_bytes"])


def record_timing(rec: dict, plan: dict, samples: list, wall_s: float) -> None:
    times = [step_times(events) for _, events in samples]
    for key in ("fwd", "bwd", "opt", "step"):
        rec[f"{key}_ms"] = round(statistics.median(t[key] for t in times), 3)
    steps = [t["step"] for t in times]
    rec["step_ms_min"] = round(min(steps), 3)
    rec["step_ms_max"] = round(max(steps), 3)
    rec["step_ms_samples"] = [round(s, 3) for s in steps]
    rec["wall_step_ms"] = round(wall_s * 1000.0 / len(samples), 3)
    training = plan["training"]
    rec["tokens_per_s"] = round(training["tokens_per_step"] / (rec["step_ms"] / 1000.0), 1)
    rec["tokens_per_s_per_device"] = round(
        training["tokens_per_step_per_device"] / (rec["step_ms"] / 1000.0), 1)


def record_phases(rec: dict, samples: list) -> None:
    """Allocations of the last timed step; peaks are the maxima over the timed steps."""
    last = samples[-1][0]
    phases = {key: last[key] for key in ("alloc_before_fwd", "alloc_after_fwd",
                                         "alloc_after_bwd", "alloc_after_opt",
                                         "alloc_after_zero_grad")}
    for tag in ("fwd", "bwd", "opt"):
        phases[f"peak_{tag}"] = max(marks[f"peak_{tag}"] for marks, _ in samples)
    phases["saved_by_forward"] = last["alloc_after_fwd"] - last["alloc_before_fwd"]
    rec["phases"] = phases
    rec["peak_allocated"] = max(phases["peak_fwd"], phases["peak_bwd"], phases["peak_opt"])
    rec["peak_allocated_minus_baseline"] = rec["peak_allocated"] - rec["baseline_allocated"]


def record_memory_end(torch, rec: dict, state: RunState) -> None:
    rec["reserved"] = torch.cuda.memory_reserved()
    state.note_reserved(torch)
    rec["max_reserved"] = state.max_reserved
    rec["device_used_end"] = device_used(torch)
    stats = torch.cuda.memory_stats()
    rec["alloc_retries"] = stats.get("num_alloc_retries", 0)
    rec["device_ooms"] = stats.get("num_ooms", 0)


def train(torch, plan: dict, rec: dict, state: RunState) -> None:
    run = plan["run"]
    torch.cuda.synchronize()
    rec["mem_before_first_step"] = torch.cuda.memory_allocated()
    state.step = "first"
    started = time.perf_counter()
    marks, _ = train_step(torch, state)
    torch.cuda.synchronize()
    rec["first_step_s"] = round(time.perf_counter() - started, 3)
    rec["loss_first"] = float(state.loss_value)
    record_first_step(rec, marks)
    for index in range(1, run["warmup"]):   # the first step is the first warm-up step
        state.step = f"warmup {index + 1}"
        train_step(torch, state)
    torch.cuda.synchronize()
    samples = []
    started = time.perf_counter()
    for index in range(run["steps"]):
        state.step = f"timed {index + 1}"
        samples.append(train_step(torch, state))
    torch.cuda.synchronize()
    wall_s = time.perf_counter() - started
    rec["loss_last"] = float(state.loss_value)
    record_timing(rec, plan, samples, wall_s)
    record_phases(rec, samples)
    record_memory_end(torch, rec, state)


# ---------------------------------------------------------------------------- extras

def profile_step(torch, state: RunState, rank: int) -> dict:
    """Kernel time of one step, after one profiler warm-up step (CUPTI start-up)."""
    from torch.profiler import ProfilerActivity, profile, schedule
    handle, path = tempfile.mkstemp(prefix=f"measure-trace-rank{rank}-", suffix=".json")
    os.close(handle)
    try:
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                     schedule=schedule(wait=0, warmup=1, active=1, repeat=1),
                     on_trace_ready=lambda prof: prof.export_chrome_trace(path)) as prof:
            for index in range(2):
                state.step = f"profile {index + 1}"
                train_step(torch, state)
                torch.cuda.synchronize()
                prof.step()
        with open(path, encoding="utf-8") as trace_file:
            trace = json.load(trace_file)
    finally:
        if os.path.exists(path):
            os.remove(path)
    summary = kernels.summarize_trace(trace)
    summary["what"] = "one training step (forward, backward, optimizer), GPU kernel time"
    return summary


def inventory_step(torch, state: RunState) -> dict:
    """One forward under saved-tensor hooks, then backward and zero_grad (no update)."""
    state.step = "inventory"
    state.phase = "forward"
    recorder = inventory.SavedTensorRecorder(torch, state.inner)
    with recorder:
        with state.autocast():
            loss = state.model(**state.batch).loss
    state.phase = "backward"
    backward(state, loss)
    del loss
    state.optimizer.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    result = inventory.group_saved(recorder.records)
    if state.inner is not None and getattr(state.inner, "is_gradient_checkpointing", False):
        result["note"] = ("gradient checkpointing: tensors saved inside checkpointed layers "
                          "are handled by torch.utils.checkpoint and do not appear here")
    return result


def run_extras(torch, plan: dict, rec: dict, state: RunState, rank: int) -> None:
    """Profile and inventory after the timed steps; a failure there keeps the measurement."""
    for key, wanted, action in (("profile", plan["run"]["profile"],
                                 lambda: profile_step(torch, state, rank)),
                                ("inventory", plan["run"]["inventory"],
                                 lambda: inventory_step(torch, state))):
        if not wanted:
            continue
        try:
            rec[key] = action()
        except Exception as exc:   # recorded, the timed measurement stands
            rec[f"{key}_error"] = f"{type(exc).__name__}: {exc}"[:2000]
            state.optimizer.zero_grad(set_to_none=True)


# ---------------------------------------------------------------------------- failure

def is_oom(torch, exc: BaseException) -> bool:
    if isinstance(exc, torch.cuda.OutOfMemoryError):
        return True
    text = str(exc)
    return isinstance(exc, RuntimeError) and ("out of memory" in text.lower()
                                              or "CUBLAS_STATUS_ALLOC_FAILED" in text)


def describe_failure(torch, exc: BaseException, state: RunState) -> dict:
    """Called inside `except`: memory as it stood when the allocation failed."""
    info = {"failed_phase": state.phase, "failed_step": state.step}
    if state.marks is not None:
        info["phases_at_failure"] = dict(state.marks)
    if not is_oom(torch, exc):
        info.update(status="error", error=f"{type(exc).__name__}: {exc}"[:2000],
                    traceback=traceback.format_exc()[-4000:])
        return info
    info.update(
        status="oom",
        # The peak window restarts at every phase, so this is the most the failing phase
        # had allocated (the failed request itself is not included).
        max_allocated_at_failure=torch.cuda.max_memory_allocated(),
        allocated_at_failure=torch.cuda.memory_allocated(),
        reserved_at_failure=torch.cuda.memory_reserved(),
        device_used_at_failure=device_used(torch),
        oom_message=str(exc).strip()[:800],
    )
    state.note_reserved(torch)
    info["max_reserved"] = state.max_reserved
    return info


def cleanup(torch, rec: dict, state: RunState) -> None:
    state.release()
    gc.collect()
    try:
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        rec["allocated_after_cleanup"] = torch.cuda.memory_allocated()
        stats = torch.cuda.memory_stats()
        rec.setdefault("alloc_retries", stats.get("num_alloc_retries", 0))
        rec["device_ooms"] = stats.get("num_ooms", 0)
    except Exception as exc:   # a broken CUDA context must not lose the record
        rec["cleanup_error"] = f"{type(exc).__name__}: {exc}"[:500]


# ---------------------------------------------------------------------------- one process

def prepare(torch, transformers, plan: dict, device, rec: dict, state: RunState,
            rank: int) -> None:
    state.phase = "setup"
    torch.manual_seed(SEED + rank)
    set_tf32(torch, plan["tf32"])
    free, total = torch.cuda.mem_get_info(device)   # creates the context; nothing allocated
    rec["env"] = collect_env(torch, transformers, device, total - free)
    rec["allow_tf32_matmul"] = rec["env"]["allow_tf32_matmul"]
    warm_up_libraries(torch, plan, device)
    rec["baseline_allocated"] = torch.cuda.memory_allocated()
    rec["baseline_reserved"] = torch.cuda.memory_reserved()


def measure(plan: dict, rank: int = 0, world_size: int = 1, local_rank: int = 0) -> dict:
    """Everything for one process; always returns a record (ok, oom or error)."""
    torch, transformers = import_torch()
    rec = records.new_record(plan)
    if world_size > 1 or plan["parallel"]["strategy"] != "single":
        rec["rank"] = rank
    started = time.perf_counter()
    device = torch.device("cuda", local_rank)
    torch.cuda.set_device(device)
    state = RunState()
    failure = None
    try:
        prepare(torch, transformers, plan, device, rec, state, rank)
        build(torch, transformers, plan, device, rec, state, local_rank)
        train(torch, plan, rec, state)
        rec["status"] = "ok"
        run_extras(torch, plan, rec, state, rank)
    except Exception as exc:   # every failure becomes part of the record
        failure = describe_failure(torch, exc, state)
    # Outside the except block the traceback (and the tensors its frames hold) is gone.
    if failure is not None:
        rec.update(failure)
    cleanup(torch, rec, state)
    rec["case_wall_s"] = round(time.perf_counter() - started, 2)
    return rec


# ---------------------------------------------------------------------------- several processes

def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def write_json_atomic(path: str, value: dict) -> None:
    partial = path + ".partial"
    with open(partial, "w", encoding="utf-8") as handle:
        handle.write(records.to_line(value))
    os.replace(partial, path)


def rank_worker(local_rank: int, plan: dict, world_size: int, port: int, result_dir: str):
    """Body of one spawned process: one rank on one GPU (single node)."""
    os.environ.update({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port),
                       "RANK": str(local_rank), "LOCAL_RANK": str(local_rank),
                       "WORLD_SIZE": str(world_size)})
    import torch
    import torch.distributed as dist
    torch.cuda.set_device(local_rank)
    dist.init_process_group(backend="nccl", rank=local_rank, world_size=world_size)
    rec = measure(plan, rank=local_rank, world_size=world_size, local_rank=local_rank)
    write_json_atomic(os.path.join(result_dir, f"rank{local_rank}.json"), rec)
    if rec["status"] != "ok":
        # The other ranks may be waiting in a collective this rank will never join:
        # exit non-zero so torch.multiprocessing stops them, after a grace period.
        time.sleep(FAILED_RANK_GRACE_S)
        os._exit(3)
    dist.barrier()
    dist.destroy_process_group()


def read_rank_records(result_dir: str, world_size: int) -> dict:
    found = {}
    for rank in range(world_size):
        path = os.path.join(result_dir, f"rank{rank}.json")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as handle:
                found[rank] = json.loads(handle.read())
    return found


def run_spawned(plan: dict) -> dict:
    """One process per rank via torch.multiprocessing.spawn; merges their reports."""
    torch, _ = import_torch()
    import torch.multiprocessing as mp
    world_size = plan["parallel"]["world_size"]
    visible = torch.cuda.device_count()
    if visible < world_size:
        raise EnvironmentProblem(f"dp is {world_size} but only {visible} GPU(s) are visible; "
                                 "this harness runs one process per GPU on one node",
                                 path="/parallel/dp")
    result_dir = tempfile.mkdtemp(prefix="measure-ranks-")
    launcher_error = None
    try:
        mp.spawn(rank_worker, args=(plan, world_size, free_port(), result_dir),
                 nprocs=world_size, join=True)
    except Exception as exc:   # a rank failed or crashed; its report (if any) says why
        launcher_error = f"{type(exc).__name__}: {exc}"[:2000]
    by_rank = read_rank_records(result_dir, world_size)
    shutil.rmtree(result_dir, ignore_errors=True)
    return records.merge_rank_records(plan, by_rank, world_size, launcher_error)


def run_plan(plan: dict) -> dict:
    """The record of one run: in this process, or in spawned rank processes."""
    if plan["parallel"]["launcher"] == "none":
        return measure(plan)
    return run_spawned(plan)
