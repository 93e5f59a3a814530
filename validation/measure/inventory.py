"""Saved-tensor inventory: what autograd keeps alive between forward and backward.

The torch half (`SavedTensorRecorder`) installs torch.autograd.graph.saved_tensors_hooks
and forward hooks that track which module is running; every tensor autograd saves is
described (storage, bytes, dtype, shape, module, kind) and handed back untouched, so the
step behaves as without hooks. The grouping half (`group_saved`) is plain Python.

Kinds:
  param       the tensor is a parameter, or shares a parameter's storage (a view of it)
  param_cast  a copy of a parameter in another dtype (autocast's cached bf16/fp16 weights),
              recognised by its autograd history: ToCopy -> (views) -> AccumulateGrad
  activation  everything else
Each storage is counted once (the first module that saved it), with its full size.
"""

from __future__ import annotations

import re

_LAYER_INDEX = re.compile(r"(^|\.)\d+(?=\.|$)")
# Autograd nodes that only re-view their input: walking through them from a saved tensor
# still leads to the same parameter.
_VIEW_NODES = ("TBackward", "ViewBackward", "TransposeBackward", "PermuteBackward",
               "ExpandBackward", "UnsafeViewBackward", "AliasBackward", "AsStridedBackward",
               "SliceBackward", "SelectBackward", "UnsqueezeBackward", "SqueezeBackward",
               "ReshapeAliasBackward")
MAX_SHAPES = 8


def normalise_where(module_path: str) -> str:
    """Module path with layer indices replaced by '*'; the root module is '<model>'."""
    if not module_path:
        return "<model>"
    return _LAYER_INDEX.sub(lambda m: m.group(1) + "*", module_path)


def group_saved(records: list[dict]) -> dict:
    """Unique storages grouped by (module, dtype, kind), largest first.

    A record is {"key", "nbytes", "dtype", "shape", "where", "kind"}; `key` identifies
    the storage (its data pointer), so tensors sharing memory are counted once.
    """
    seen = set()
    groups: dict[tuple, dict] = {}
    for rec in records:
        if rec["key"] in seen:
            continue
        seen.add(rec["key"])
        where = normalise_where(rec["where"])
        group = groups.setdefault((where, rec["dtype"], rec["kind"]), {
            "where": where, "dtype": rec["dtype"], "kind": rec["kind"],
            "bytes": 0, "n": 0, "shapes": []})
        group["bytes"] += int(rec["nbytes"])
        group["n"] += 1
        shape = list(rec["shape"])
        if shape not in group["shapes"] and len(group["shapes"]) < MAX_SHAPES:
            group["shapes"].append(shape)
    ordered = sorted(groups.values(), key=lambda g: (-g["bytes"], g["where"], g["dtype"]))
    by_kind: dict[str, int] = {}
    by_dtype: dict[str, int] = {}
    for group in ordered:
        by_kind[group["kind"]] = by_kind.get(group["kind"], 0) + group["bytes"]
        if group["kind"] != "param":
            by_dtype[group["dtype"]] = by_dtype.get(group["dtype"], 0) + group["bytes"]
    return {
        "n_saved": len(records),
        "n_storages": len(seen),
        "total_bytes": sum(g["bytes"] for g in ordered),
        "bytes_by_kind": by_kind,
        "bytes_by_dtype_excl_params": by_dtype,
        "groups": ordered,
    }


def reaches_parameter(grad_fn, max_depth: int = 6) -> tuple[bool, bool]:
    """(leads to a leaf parameter, passed through a dtype cast) following single-input views."""
    node, cast = grad_fn, False
    for _ in range(max_depth):
        if node is None:
            return False, cast
        name = type(node).__name__
        if name == "AccumulateGrad":
            return True, cast
        if name.startswith("ToCopyBackward"):
            cast = True
        elif not name.startswith(_VIEW_NODES):
            return False, cast
        parents = [fn for fn, _ in getattr(node, "next_functions", ()) if fn is not None]
        if len(parents) != 1:
            return False, cast
        node = parents[0]
    return False, cast


class SavedTensorRecorder:
    """Context manager: records every tensor autograd saves while it is active.

    `model` is the unwrapped Hugging Face module (names as in model.named_modules()).
    """

    def __init__(self, torch, model):
        self.torch = torch
        self.model = model
        self.records: list[dict] = []
        self.stack: list[str] = []
        self.handles = []
        self.param_keys = set()
        self.hooks = None

    def __enter__(self):
        for param in self.model.parameters():
            key = self._storage_key(param)
            if key is not None:
                self.param_keys.add(key)
        for name, module in self.model.named_modules():
            self.handles.append(module.register_forward_pre_hook(self._enter_module(name)))
            self.handles.append(self._register_exit(module, self._exit_module(name)))
        self.hooks = self.torch.autograd.graph.saved_tensors_hooks(self._pack, _unpack)
        self.hooks.__enter__()
        return self

    def __exit__(self, *exc):
        self.hooks.__exit__(*exc)
        for handle in self.handles:
            handle.remove()
        self.handles = []
        return False

    @staticmethod
    def _register_exit(module, hook):
        try:  # always_call keeps the module stack right when a forward raises
            return module.register_forward_hook(hook, always_call=True)
        except TypeError:
            return module.register_forward_hook(hook)

    def _enter_module(self, name):
        def hook(_module, _args):
            self.stack.append(name)
        return hook

    def _exit_module(self, name):
        def hook(_module, _args, _output):
            if self.stack and self.stack[-1] == name:
                self.stack.pop()
        return hook

    @staticmethod
    def _storage_key(tensor):
        try:
            local = tensor.to_local() if hasattr(tensor, "to_local") else tensor
            pointer = local.untyped_storage().data_ptr()
        except Exception:   # tensors without storage (e.g. on meta): not comparable
            return None
        return pointer or None   # empty storages all sit at 0: never the same memory

    def _kind(self, tensor, key) -> str:
        if isinstance(tensor, self.torch.nn.Parameter) or (key is not None
                                                          and key in self.param_keys):
            return "param"
        is_param, cast = reaches_parameter(tensor.grad_fn)
        if is_param:
            return "param_cast" if cast else "param"
        return "activation"

    def _pack(self, tensor):
        key = self._storage_key(tensor)
        try:
            nbytes = tensor.untyped_storage().nbytes()
        except Exception:
            nbytes = tensor.numel() * tensor.element_size()
        self.records.append({
            "key": key if key is not None else ("object", id(tensor)),
            "nbytes": nbytes,
            "dtype": str(tensor.dtype).replace("torch.", ""),
            "shape": list(tensor.shape),
            "where": self.stack[-1] if self.stack else "",
            "kind": self._kind(tensor, key),
        })
        return tensor


def _unpack(tensor):
    return tensor
