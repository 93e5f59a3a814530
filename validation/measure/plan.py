"""Scenario JSON -> run plan, in plain Python (no torch, no transformers).

The plan says exactly what the harness will build and run: the Hugging Face model class
and config, the precision mode, attention implementation, optimizer and its
implementation, recomputation, TF32, the allocator setting and the parallel wrapper.
Everything the scenario asks for that the harness cannot reproduce faithfully is an
error naming the field (a JSON pointer, as shardcalc reports them), never a silent
substitution: a measurement of something else would poison the comparison.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

PRESETS_DIR = Path(__file__).resolve().parents[2] / "presets"

# Fields shardcalc reads in each section (docs/scenario.md section 2), plus the new
# model fields `hidden_act` / `fused_qkv` and the `implementation` section.
TOP_KEYS = ("version", "name", "framework", "model", "training", "parallel", "hardware",
            "implementation", "id")
MODEL_KEYS = ("preset", "arch", "layers", "hidden", "heads", "kv_heads", "head_dim",
              "ffn_hidden", "mlp", "vocab", "max_positions", "position_embedding", "norm",
              "bias", "tied_embeddings", "embedding_dim", "shared_layers", "embedding_norm",
              "type_vocab", "pooler", "head", "hidden_act", "fused_qkv", "experts",
              "experts_per_token", "expert_ffn_hidden")
TRAINING_KEYS = ("seq_len", "micro_batch", "global_batch", "dtype", "param_dtype",
                 "grad_dtype", "master_weights", "optimizer", "recompute", "attention",
                 "dropout", "train_tokens")
PARALLEL_KEYS = ("dp", "tp", "pp", "vpp", "sp", "cp", "ulysses", "zero",
                 "distributed_optimizer", "offload_optimizer", "offload_params",
                 "world_size", "overlap_grad_reduce", "schedule")
IMPLEMENTATION_KEYS = ("optimizer_impl", "tf32", "allocator", "model_code")

MEASURED_FRAMEWORKS = ("pytorch", "fsdp")
SEQ_LEN_CAP = 8192            # shardcalc's default: max_positions capped at 8192
SEQ_LEN_UNKNOWN = 2048        # shardcalc's default when max_positions is 0
SGD_MOMENTUM = 0.9
# Learning rates only need to be valid: memory and time do not depend on them.
LEARNING_RATES = {"adamw": 1e-4, "adam": 1e-4, "sgd": 1e-3, "sgd_momentum": 1e-3}
EXPANDABLE_SEGMENTS = "expandable_segments:True"

# Per family: the HF config class, the Auto class used to build it, the concrete model
# class that must come out, where the transformer layers live (for FSDP2 wrapping) and
# whether the attention projections are one fused matrix.
FAMILIES = {
    "gpt2": {"config_class": "GPT2Config", "auto_class": "AutoModelForCausalLM",
             "model_class": "GPT2LMHeadModel", "layers_path": "transformer.h",
             "fused_qkv": True},
    "llama": {"config_class": "LlamaConfig", "auto_class": "AutoModelForCausalLM",
              "model_class": "LlamaForCausalLM", "layers_path": "model.layers",
              "fused_qkv": False},
    "bert": {"config_class": "BertConfig", "auto_class": "AutoModelForPreTraining",
             "model_class": "BertForPreTraining", "layers_path": "bert.encoder.layer",
             "fused_qkv": False},
    "bert_mlm": {"config_class": "BertConfig", "auto_class": "AutoModelForMaskedLM",
                 "model_class": "BertForMaskedLM", "layers_path": "bert.encoder.layer",
                 "fused_qkv": False},
    # A Llama-style decoder whose MLPs are routed experts (top-k of a softmax router).
    "mixtral": {"config_class": "MixtralConfig", "auto_class": "AutoModelForCausalLM",
                "model_class": "MixtralForCausalLM", "layers_path": "model.layers",
                "fused_qkv": False},
}

_REQUIRED = object()


class PlanError(Exception):
    """An input the harness cannot measure; `path` is a JSON pointer to the field."""

    def __init__(self, path: str, message: str):
        super().__init__(f"{path or '/'}: {message}")
        self.path = path
        self.message = message

    def to_json(self) -> dict:
        return {"ok": False, "error": {"path": self.path, "message": self.message}}


def _kind(value) -> str:
    return json.dumps(value) if not isinstance(value, (dict, list)) else type(value).__name__


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Section:
    """Typed reads from one scenario object. `null` counts as absent (shardcalc's rule)."""

    def __init__(self, obj, path: str, allowed):
        if obj is None:
            obj = {}
        if not isinstance(obj, dict):
            raise PlanError(path, f"must be a JSON object, got {_kind(obj)}")
        unknown = sorted(k for k in obj if k not in allowed)
        if unknown:
            raise PlanError(f"{path}/{unknown[0]}",
                            "unknown field; allowed here: " + ", ".join(sorted(allowed)))
        self.obj = obj
        self.path = path

    def given(self, key: str) -> bool:
        return self.obj.get(key) is not None

    def _value(self, key, default):
        value = self.obj.get(key)
        if value is None:
            if default is _REQUIRED:
                raise PlanError(f"{self.path}/{key}", "required: give it, or name a model.preset")
            return None, default
        return value, None

    def int(self, key, default, minimum=1, maximum=None):
        value, fallback = self._value(key, default)
        if value is None:
            return fallback
        if not _is_int(value) or value < minimum or (maximum is not None and value > maximum):
            bound = f"from {minimum} to {maximum}" if maximum is not None else f">= {minimum}"
            raise PlanError(f"{self.path}/{key}", f"must be an integer {bound}, got {_kind(value)}")
        return value

    def number(self, key, default, minimum=0.0):
        value, fallback = self._value(key, default)
        if value is None:
            return fallback
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value \
                or value in (float("inf"), float("-inf")) or value < minimum:
            raise PlanError(f"{self.path}/{key}",
                            f"must be a finite number >= {minimum}, got {_kind(value)}")
        return float(value)

    def bool(self, key, default):
        value, fallback = self._value(key, default)
        if value is None:
            return fallback
        if not isinstance(value, bool):
            raise PlanError(f"{self.path}/{key}", f"must be true or false, got {_kind(value)}")
        return value

    def str(self, key, default):
        value, fallback = self._value(key, default)
        if value is None:
            return fallback
        if not isinstance(value, str):
            raise PlanError(f"{self.path}/{key}", f"must be a string, got {_kind(value)}")
        return value

    def enum(self, key, default, allowed):
        value = self.str(key, default)
        if value is not None and value not in allowed:
            raise PlanError(f"{self.path}/{key}",
                            f'unknown value "{value}"; allowed: ' + "|".join(allowed))
        return value


# ---------------------------------------------------------------------------- model

def load_model_preset(preset_id: str, presets_dir: Path) -> dict:
    """The preset's `model` object (presets/models/<id>.json)."""
    path = Path(presets_dir) / "models" / f"{preset_id}.json"
    if not re.fullmatch(r"[A-Za-z0-9._-]+", preset_id) or not path.is_file():
        raise PlanError("/model/preset",
                        f'unknown model preset "{preset_id}"; the presets are the files in '
                        f"{Path(presets_dir) / 'models'}")
    with open(path, encoding="utf-8") as handle:
        model = json.load(handle).get("model")
    if not isinstance(model, dict):
        raise PlanError("/model/preset", f'preset "{preset_id}" has no "model" object')
    return model


def merged_model_fields(model_obj, presets_dir: Path) -> tuple[dict, str | None]:
    """Preset fields overridden by the explicit ones; an explicit null drops the preset's."""
    if model_obj is None:
        raise PlanError("/model", "required: give model.preset or the model's shape "
                                  "(layers, hidden, ...)")
    explicit = Section(model_obj, "/model", MODEL_KEYS)
    preset_id = explicit.str("preset", None)
    merged = dict(load_model_preset(preset_id, presets_dir)) if preset_id else {}
    for key, value in model_obj.items():
        if key == "preset":
            continue
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    return merged, preset_id


def resolve_model(model_obj, presets_dir: Path) -> dict:
    """Model fields with shardcalc's defaults and its between-field checks applied."""
    merged, preset_id = merged_model_fields(model_obj, presets_dir)
    m = Section(merged, "/model", MODEL_KEYS)
    arch = m.enum("arch", "decoder", ("decoder", "encoder"))
    encoder = arch == "encoder"
    layers = m.int("layers", _REQUIRED)
    hidden = m.int("hidden", _REQUIRED)
    heads = m.int("heads", _REQUIRED)
    vocab = m.int("vocab", _REQUIRED)
    kv_heads = m.int("kv_heads", heads)
    if heads % kv_heads:
        raise PlanError("/model/kv_heads", f"must divide heads ({heads}), got {kv_heads}")
    if not m.given("head_dim") and hidden % heads:
        raise PlanError("/model/head_dim", f"hidden ({hidden}) is not divisible by heads "
                                           f"({heads}); give head_dim explicitly")
    head_dim = m.int("head_dim", hidden // heads)
    model = {
        "preset": preset_id,
        "arch": arch,
        "layers": layers,
        "hidden": hidden,
        "heads": heads,
        "kv_heads": kv_heads,
        "head_dim": head_dim,
        "ffn_hidden": m.int("ffn_hidden", 4 * hidden),
        "mlp": m.enum("mlp", "gelu", ("gelu", "relu", "swiglu", "geglu")),
        "vocab": vocab,
        "max_positions": m.int("max_positions", 0, minimum=0),
        "position_embedding": m.enum("position_embedding", "learned",
                                     ("learned", "rope", "alibi", "none")),
        "norm": m.enum("norm", "layernorm", ("layernorm", "rmsnorm")),
        "bias": m.bool("bias", True),
        "tied_embeddings": m.bool("tied_embeddings", True),
        "embedding_dim": m.int("embedding_dim", hidden),
        "shared_layers": m.bool("shared_layers", False),
        "embedding_norm": m.bool("embedding_norm", encoder),
        "type_vocab": m.int("type_vocab", 2 if encoder else 0, minimum=0),
        "pooler": m.bool("pooler", encoder),
        "head": m.enum("head", "lm", ("lm", "none")),
        "hidden_act": m.str("hidden_act", None),
        "fused_qkv": m.bool("fused_qkv", None),
        "experts": m.int("experts", 0, minimum=0),
    }
    # shardcalc's defaults: top-2 and each expert as wide as ffn_hidden (docs/scenario.md §2.2).
    model["experts_per_token"] = m.int("experts_per_token", 2) if model["experts"] else None
    model["expert_ffn_hidden"] = m.int("expert_ffn_hidden", model["ffn_hidden"]) if model["experts"] else None
    for key in ("experts_per_token", "expert_ffn_hidden"):
        _require(model["experts"] or not m.given(key), f"/model/{key}",
                 "describes mixture-of-experts layers; set model.experts (> 0) for a MoE model")
    if model["experts"]:
        _require(model["experts_per_token"] <= model["experts"], "/model/experts_per_token",
                 f"a token goes to at most model.experts ({model['experts']}) experts, "
                 f"got {model['experts_per_token']}")
    if model["pooler"] and not encoder:
        raise PlanError("/model/pooler", "pooler: true only with arch: encoder")
    if model["position_embedding"] == "learned" and model["max_positions"] == 0:
        raise PlanError("/model/max_positions",
                        "learned position embeddings need max_positions > 0")
    return model


def _require(condition: bool, path: str, message: str):
    if not condition:
        raise PlanError(path, message)


def _check_common_model(model: dict):
    """Features no measured Hugging Face class has."""
    _require(model["embedding_dim"] == model["hidden"], "/model/embedding_dim",
             "factorized embeddings (ALBERT) are not measured: embedding_dim must equal "
             f"hidden ({model['hidden']})")
    _require(not model["shared_layers"], "/model/shared_layers",
             "shared layers (ALBERT) are not measured: must be false")
    _require(model["head"] == "lm", "/model/head",
             "only head: lm is measured (a bare backbone has no loss to train)")


def choose_family(model: dict) -> str:
    """gpt2 | llama | mixtral | bert | bert_mlm, or an error naming the first unsupported field."""
    _check_common_model(model)
    _require(not model["experts"] or (model["arch"] == "decoder" and model["position_embedding"] == "rope"),
             "/model/experts", "mixture-of-experts models are measured as Mixtral: a decoder with "
             'position_embedding "rope", norm "rmsnorm" and mlp "swiglu"')
    if model["arch"] == "encoder":
        _check_bert(model)
        return "bert" if model["pooler"] else "bert_mlm"
    position = model["position_embedding"]
    if position == "learned":
        _check_gpt2(model)
        return "gpt2"
    if position == "rope":
        _check_llama(model)
        return "mixtral" if model["experts"] else "llama"
    raise PlanError("/model/position_embedding",
                    f'"{position}" is not measured: decoders are built as GPT-2 (learned '
                    "positions, layernorm, gelu|relu MLP) or Llama (rope, rmsnorm, swiglu)")


def _check_mha(model: dict, family: str):
    _require(model["kv_heads"] == model["heads"], "/model/kv_heads",
             f"{family} has no grouped-query attention: kv_heads must equal heads "
             f"({model['heads']})")
    _require(model["head_dim"] * model["heads"] == model["hidden"], "/model/head_dim",
             f"{family} derives head_dim = hidden / heads "
             f"({model['hidden']} / {model['heads']}); got {model['head_dim']}")
    _require(model["bias"], "/model/bias", f"{family} always has linear and norm biases: "
                                           "must be true")


def _check_gpt2(model: dict):
    _require(model["norm"] == "layernorm", "/model/norm",
             'a decoder with learned positions is built as GPT-2, which needs "layernorm" '
             '(Llama-style models use position_embedding "rope" and norm "rmsnorm")')
    _require(model["mlp"] in ("gelu", "relu"), "/model/mlp",
             'a decoder with learned positions is built as GPT-2: mlp must be gelu|relu '
             '(swiglu needs position_embedding "rope", norm "rmsnorm": Llama)')
    _check_mha(model, "GPT-2")
    _require(not model["embedding_norm"], "/model/embedding_norm",
             "GPT-2 has no norm after the embeddings: must be false")
    _require(model["type_vocab"] == 0, "/model/type_vocab",
             "GPT-2 has no token-type embeddings: must be 0")


def _check_llama(model: dict):
    _require(model["norm"] == "rmsnorm", "/model/norm",
             'a decoder with rope positions is built as Llama, which needs "rmsnorm"')
    _require(model["mlp"] == "swiglu", "/model/mlp",
             'a decoder with rope positions is built as Llama, which needs mlp "swiglu"')
    _require(not model["embedding_norm"], "/model/embedding_norm",
             "Llama has no norm after the embeddings: must be false")
    _require(model["type_vocab"] == 0, "/model/type_vocab",
             "Llama has no token-type embeddings: must be 0")
    _require(not (model["experts"] and model["bias"]), "/model/bias",
             "Mixtral has no biases: must be false")


def _check_bert(model: dict):
    _require(model["position_embedding"] == "learned", "/model/position_embedding",
             'encoders are built as BERT, which needs "learned" positions')
    _require(model["norm"] == "layernorm", "/model/norm",
             'encoders are built as BERT, which needs "layernorm"')
    _require(model["mlp"] in ("gelu", "relu"), "/model/mlp",
             "encoders are built as BERT: mlp must be gelu|relu")
    _check_mha(model, "BERT")
    _require(model["embedding_norm"], "/model/embedding_norm",
             "BERT always normalises the embeddings: must be true")
    _require(model["type_vocab"] >= 1, "/model/type_vocab",
             "BERT needs at least one token-type row: must be >= 1")


def resolve_activation(model: dict) -> str:
    """hidden_act: given, or the usual one for the MLP kind; it must fit the MLP kind."""
    defaults = {"gelu": "gelu", "relu": "relu", "swiglu": "silu"}
    mlp = model["mlp"]
    act = model["hidden_act"] or defaults[mlp]
    fits = {"gelu": act.startswith("gelu"), "relu": act.startswith("relu"),
            "swiglu": act in ("silu", "swish")}[mlp]
    _require(bool(act.strip()) and fits, "/model/hidden_act",
             f'"{act}" does not fit mlp "{mlp}": use a gelu variant (gelu, gelu_new, '
             "gelu_pytorch_tanh, ...) for gelu, relu for relu, silu for swiglu")
    return act


# ---------------------------------------------------------------------------- HF config

def hf_config(family: str, model: dict, act: str, seq_len: int, dropout: float) -> dict:
    """Keyword arguments of the HF config class for this family."""
    if family == "gpt2":
        last_token = model["vocab"] - 1   # GPT-2's bos/eos are its last token (50256)
        return {
            "vocab_size": model["vocab"], "n_positions": model["max_positions"],
            "n_embd": model["hidden"], "n_layer": model["layers"], "n_head": model["heads"],
            "n_inner": model["ffn_hidden"], "activation_function": act,
            "resid_pdrop": dropout, "embd_pdrop": dropout, "attn_pdrop": dropout,
            "tie_word_embeddings": model["tied_embeddings"], "use_cache": False,
            "bos_token_id": last_token, "eos_token_id": last_token,
        }
    if family in ("llama", "mixtral"):
        # Mixtral is a Llama-style decoder whose MLPs are experts, each expert_ffn_hidden wide.
        config = {
            "vocab_size": model["vocab"], "hidden_size": model["hidden"],
            "num_hidden_layers": model["layers"],
            "num_attention_heads": model["heads"], "num_key_value_heads": model["kv_heads"],
            "head_dim": model["head_dim"],
            "max_position_embeddings": model["max_positions"] or seq_len,
            "hidden_act": act, "attention_dropout": dropout,
            "tie_word_embeddings": model["tied_embeddings"], "use_cache": False,
        }
        if family == "llama":
            return {**config, "intermediate_size": model["ffn_hidden"],
                    "attention_bias": model["bias"], "mlp_bias": False}
        # No sliding window, no router jitter, no auxiliary loss in the loss (output_router_logits
        # off): the routed MLP as shardcalc models it.
        return {**config, "intermediate_size": model["expert_ffn_hidden"],
                "num_local_experts": model["experts"], "num_experts_per_tok": model["experts_per_token"],
                "router_jitter_noise": 0.0, "output_router_logits": False, "sliding_window": None}
    return {
        "vocab_size": model["vocab"], "hidden_size": model["hidden"],
        "num_hidden_layers": model["layers"], "num_attention_heads": model["heads"],
        "intermediate_size": model["ffn_hidden"], "hidden_act": act,
        "hidden_dropout_prob": dropout, "attention_probs_dropout_prob": dropout,
        "max_position_embeddings": model["max_positions"],
        "type_vocab_size": model["type_vocab"],
        "tie_word_embeddings": model["tied_embeddings"],
    }


def hf_section(family: str, model: dict, act: str, seq_len: int, dropout: float) -> dict:
    spec = FAMILIES[family]
    loss_inputs = ["labels", "next_sentence_label"] if family == "bert" else ["labels"]
    return {
        "config_class": spec["config_class"],
        "auto_class": spec["auto_class"],
        "model_class": spec["model_class"],
        "layers_path": spec["layers_path"],
        "config": hf_config(family, model, act, seq_len, dropout),
        "loss_inputs": loss_inputs,
        "token_type_ids": "zeros (the model's default)" if family.startswith("bert") else None,
    }


# ---------------------------------------------------------------------------- parallel

def resolve_parallel(obj, framework: str, notes: list) -> dict:
    p = Section(obj, "/parallel", PARALLEL_KEYS)
    dp = p.int("dp", 1, maximum=1 << 20)
    for key in ("tp", "pp", "vpp", "cp", "ulysses"):
        value = p.int(key, 1)
        _require(value == 1, f"/parallel/{key}",
                 f"must be 1: this harness measures data parallelism only, got {value}")
    _require(not p.bool("sp", False), "/parallel/sp",
             "must be false: sequence parallelism needs tp > 1, which is not measured")
    _require(not p.bool("distributed_optimizer", False), "/parallel/distributed_optimizer",
             "must be false: the Megatron distributed optimizer is not measured")
    for key in ("offload_optimizer", "offload_params"):
        value = p.enum(key, "none", ("none", "cpu", "nvme"))
        _require(value == "none", f"/parallel/{key}",
                 f"must be none: offloading is not measured, got {value}")
    if p.given("world_size"):
        world = p.int("world_size", 1, maximum=1 << 30)
        _require(world == dp, "/parallel/world_size",
                 f"must equal dp*tp*pp*cp*ulysses ({dp}), got {world}")
    p.enum("schedule", "1f1b", ("1f1b", "gpipe"))   # checked, irrelevant without pp
    if p.bool("overlap_grad_reduce", True) is False and dp > 1:
        notes.append("overlap_grad_reduce false is recorded only: DDP and FSDP2 always "
                     "overlap gradient reduction with the backward pass")
    zero = p.int("zero", 0, minimum=0, maximum=3)
    return _parallel_strategy(framework, dp, zero)


def _parallel_strategy(framework: str, dp: int, zero: int) -> dict:
    plan = {"dp": dp, "zero": zero, "world_size": dp, "reshard_after_forward": None,
            "mp_policy": None, "launcher": "none" if dp == 1 else "torch.multiprocessing.spawn"}
    if framework == "pytorch":
        _require(zero == 0, "/parallel/zero",
                 "framework pytorch is measured as a plain module (dp 1) or DDP (dp > 1): "
                 f"zero must be 0 (ZeroRedundancyOptimizer is not measured), got {zero}")
        plan["strategy"] = "single" if dp == 1 else "ddp"
        return plan
    _require(zero in (2, 3), "/parallel/zero",
             "framework fsdp is measured with FSDP2 fully_shard: zero 3 (reshard after "
             f"forward) or 2 (keep parameters gathered until backward), got {zero}")
    plan["strategy"] = "fsdp2"
    plan["reshard_after_forward"] = zero == 3
    # FSDP2 needs a process group even on one GPU, so it always runs in spawned workers.
    plan["launcher"] = "torch.multiprocessing.spawn"
    return plan


# ---------------------------------------------------------------------------- training

def resolve_training(obj, model: dict, family: str, dp: int, notes: list) -> dict:
    t = Section(obj, "/training", TRAINING_KEYS)
    max_positions = model["max_positions"]
    default_seq = min(max_positions, SEQ_LEN_CAP) if max_positions else SEQ_LEN_UNKNOWN
    seq_len = t.int("seq_len", default_seq, maximum=67108864)
    if model["position_embedding"] == "learned":
        _require(seq_len <= max_positions, "/training/seq_len",
                 f"with learned positions seq_len must be <= max_positions ({max_positions}), "
                 f"got {seq_len}")
    elif max_positions and seq_len > max_positions:
        notes.append(f"seq_len {seq_len} is beyond max_positions {max_positions}; rope "
                     "runs at any length, so it is measured as asked")
    micro_batch = t.int("micro_batch", 1, maximum=65536)
    global_batch = t.int("global_batch", micro_batch * dp)
    _require(global_batch == micro_batch * dp, "/training/global_batch",
             "gradient accumulation is not measured: global_batch must equal micro_batch * dp "
             f"({micro_batch * dp}), got {global_batch}")
    dtype = t.enum("dtype", "bf16", ("fp32", "fp16", "bf16", "fp8"))
    _require(dtype != "fp8", "/training/dtype",
             "fp8 activations are not measured; allowed: fp32|fp16|bf16")
    param_dtype = t.enum("param_dtype", "fp32", ("fp32", "fp16", "bf16", "fp8"))
    _require(param_dtype != "fp8", "/training/param_dtype", "fp8 weights are not measured")
    optimizer = t.enum("optimizer", "adamw",
                       ("adam", "adamw", "sgd", "sgd_momentum", "lion", "adafactor"))
    _require(optimizer in LEARNING_RATES, "/training/optimizer",
             f'"{optimizer}" is not measured; allowed: adamw|adam|sgd|sgd_momentum')
    recompute = t.enum("recompute", "none", ("none", "selective", "full"))
    _require(recompute != "selective", "/training/recompute",
             "selective recomputation does not exist in Hugging Face models; use none or full")
    dropout = t.number("dropout", 0.0)
    _require(dropout < 1.0, "/training/dropout", f"must be in [0, 1), got {dropout}")
    t.number("train_tokens", 0.0)   # checked, not used
    return {
        "seq_len": seq_len, "micro_batch": micro_batch, "global_batch": global_batch,
        "dtype": dtype, "param_dtype": param_dtype,
        "grad_dtype": t.enum("grad_dtype", None, ("fp32", "fp16", "bf16", "fp8")),
        "master_weights": t.bool("master_weights", None),
        "optimizer": optimizer, "recompute": recompute,
        "attention": t.enum("attention", "flash", ("flash", "eager")),
        "dropout": dropout,
    }


def resolve_precision(training: dict, framework: str, notes: list) -> dict:
    """amp | pure | fp32 | fsdp_mixed, with the autocast dtype and the loss scaler."""
    dtype, param_dtype = training["dtype"], training["param_dtype"]
    grad_dtype = training["grad_dtype"]
    if dtype == "fp32":
        _require(param_dtype == "fp32", "/training/param_dtype",
                 f"with dtype fp32 the weights are fp32 too, got {param_dtype}")
        mode = "fp32"
    elif param_dtype == "fp32":
        mode = "fsdp_mixed" if framework == "fsdp" else "amp"
    else:
        _require(param_dtype == dtype, "/training/param_dtype",
                 f"must be fp32 (mixed precision) or equal to dtype ({dtype}), got {param_dtype}")
        mode = "pure"
    reduce_dtype = None
    if mode == "fsdp_mixed":
        # FSDP2 reduces gradients in this dtype; shardcalc's fsdp default is fp32 grads.
        reduce_dtype = grad_dtype or "fp32"
        _require(reduce_dtype != "fp8", "/training/grad_dtype", "fp8 gradients are not measured")
    else:
        _require(grad_dtype in (None, param_dtype), "/training/grad_dtype",
                 f"PyTorch keeps gradients in the weights' dtype ({param_dtype}), got {grad_dtype}")
    if training["master_weights"] and param_dtype == "fp32":
        raise PlanError("/training/master_weights",
                        "a master copy needs 16-bit param_dtype; with fp32 weights it must "
                        "be false")
    if mode == "pure":
        notes.append("pure 16-bit weights: torch optimizers update them in place and keep no "
                     "fp32 master copy, whatever master_weights says")
        if dtype == "fp16":
            notes.append("pure fp16 runs without loss scaling (GradScaler cannot unscale "
                         "fp16 gradients)")
    labels = {"amp": f"amp_{dtype}", "pure": dtype, "fp32": "fp32", "fsdp_mixed": f"mp_{dtype}"}
    return {
        "mode": mode, "label": labels[mode], "dtype": dtype, "param_dtype": param_dtype,
        "autocast_dtype": dtype if mode == "amp" else None,
        "grad_scaler": mode == "amp" and dtype == "fp16",
        "reduce_dtype": reduce_dtype,
    }


# ---------------------------------------------------------------------------- implementation

def resolve_implementation(obj) -> dict:
    s = Section(obj, "/implementation", IMPLEMENTATION_KEYS)
    model_code = s.str("model_code", "huggingface")
    _require(model_code == "huggingface", "/implementation/model_code",
             f'this harness runs Hugging Face model code only: must be "huggingface", '
             f'got "{model_code}"')
    allocator = s.enum("allocator", "caching", ("caching", "expandable_segments"))
    return {
        "optimizer_impl": s.enum("optimizer_impl", "foreach", ("fused", "foreach", "for_loop")),
        "tf32": s.bool("tf32", False),
        "allocator": allocator,
        "alloc_conf": EXPANDABLE_SEGMENTS if allocator == "expandable_segments" else "",
        "model_code": model_code,
    }


def optimizer_section(name: str, impl: str) -> dict:
    """torch.optim class and keyword arguments; `label` is the data set's optimizer_impl."""
    kwargs = {"lr": LEARNING_RATES[name]}
    label_args = []
    if name.startswith("sgd"):
        momentum = SGD_MOMENTUM if name == "sgd_momentum" else 0
        kwargs["momentum"] = momentum
        label_args.append(f"momentum={momentum}")
    impl_kwargs = {"fused": {"fused": True}, "foreach": {"foreach": True},
                   "for_loop": {"foreach": False}}[impl]
    kwargs.update(impl_kwargs)
    label_args.extend(f"{k}={v}" for k, v in impl_kwargs.items())
    torch_class = {"adamw": "AdamW", "adam": "Adam", "sgd": "SGD", "sgd_momentum": "SGD"}[name]
    label_name = "sgd" if name.startswith("sgd") else name
    return {"name": name, "torch_class": torch_class, "impl": impl, "kwargs": kwargs,
            "label": f"{label_name}({', '.join(label_args)})"}


# ---------------------------------------------------------------------------- plan

def _framework(scenario: dict) -> str:
    framework = scenario.get("framework")
    if framework is None:
        raise PlanError("/framework", 'required here: give "pytorch" or "fsdp" (shardcalc '
                                      "would default to megatron, which this harness does "
                                      "not measure)")
    if framework in ("megatron", "deepspeed"):
        raise PlanError("/framework", f'"{framework}" is not measured by this harness; '
                                      "allowed: pytorch|fsdp")
    if framework not in MEASURED_FRAMEWORKS:
        raise PlanError("/framework", f'unknown value "{framework}"; allowed: pytorch|fsdp')
    return framework


def _check_top(scenario) -> None:
    if not isinstance(scenario, dict):
        raise PlanError("/", "must be a JSON object")
    top = Section(scenario, "", TOP_KEYS)
    top.int("version", 1)
    _require(scenario.get("version") in (None, 1), "/version",
             "this harness reads scenario version 1")
    top.str("name", None)
    top.str("id", None)
    hardware = scenario.get("hardware")
    _require(hardware is None or isinstance(hardware, dict), "/hardware",
             f"must be a JSON object, got {_kind(hardware)}")


def model_name(model: dict, family: str) -> str:
    return model["preset"] or f"custom-{family.split('_')[0]}"


def derive_id(case: dict, parallel: dict, impl: dict) -> str:
    """A readable id in the data set's style, e.g. gpt2_amp_bf16_sdpa_nogc_adamw-fused_s1024_b8."""
    parts = [case["model"], case["mode"], case["attn"], "gc" if case["grad_ckpt"] else "nogc",
             f"{case['optimizer']}-{case['optimizer_impl']}",
             f"s{case['seq']}", f"b{case['micro_batch']}"]
    if parallel["strategy"] == "ddp":
        parts.append(f"ddp-x{parallel['world_size']}")
    elif parallel["strategy"] == "fsdp2":
        parts.append(f"fsdp2-z{parallel['zero']}-x{parallel['world_size']}")
    if case["dropout"]:
        parts.append(f"p{case['dropout']:g}")
    if impl["tf32"]:
        parts.append("tf32")
    if impl["allocator"] == "expandable_segments":
        parts.append("expseg")
    return "_".join(parts)


def model_cfg_section(model: dict, family: str, act: str, fused_qkv: bool) -> dict:
    return {
        "family": family.split("_")[0], "hf_class": FAMILIES[family]["model_class"],
        "layers": model["layers"], "hidden": model["hidden"], "heads": model["heads"],
        "kv_heads": model["kv_heads"], "head_dim": model["head_dim"],
        "ffn": model["ffn_hidden"], "vocab": model["vocab"],
        "max_positions": model["max_positions"], "tied": model["tied_embeddings"],
        "type_vocab": model["type_vocab"], "act": act, "fused_qkv": fused_qkv,
        "bias": model["bias"], "norm": model["norm"], "mlp": model["mlp"],
        "position_embedding": model["position_embedding"], "pooler": model["pooler"],
        "experts": model["experts"], "experts_per_token": model["experts_per_token"],
        "expert_ffn": model["expert_ffn_hidden"],
    }


def _fused_qkv(model: dict, family: str, notes: list) -> bool:
    native = FAMILIES[family]["fused_qkv"]
    wanted = model["fused_qkv"]
    if wanted is not None and wanted != native:
        notes.append(f"fused_qkv {str(wanted).lower()} is recorded only: "
                     f"{FAMILIES[family]['model_class']} has "
                     f"{'one fused' if native else 'separate'} q/k/v projection"
                     f"{'' if native else 's'}")
    return native


def default_run_options() -> dict:
    return {"warmup": 3, "steps": 10, "profile": False, "inventory": False}


def build_plan(scenario, run_options: dict | None = None, run_id: str | None = None,
               presets_dir: Path | None = None) -> dict:
    """The whole run plan; raises PlanError for anything the harness cannot measure."""
    presets_dir = Path(presets_dir) if presets_dir is not None else PRESETS_DIR
    run = default_run_options()
    run.update(run_options or {})
    notes: list[str] = []
    _check_top(scenario)
    framework = _framework(scenario)
    model = resolve_model(scenario.get("model"), presets_dir)
    family = choose_family(model)
    act = resolve_activation(model)
    if family == "llama" and model["bias"]:
        notes.append("bias true maps to LlamaConfig attention_bias=True; Llama MLPs and "
                     "RMSNorms stay without biases (mlp_bias=False)")
    parallel = resolve_parallel(scenario.get("parallel"), framework, notes)
    training = resolve_training(scenario.get("training"), model, family, parallel["dp"], notes)
    precision = resolve_precision(training, framework, notes)
    if precision["mode"] == "fsdp_mixed":
        parallel["mp_policy"] = {"param_dtype": precision["dtype"],
                                 "reduce_dtype": precision["reduce_dtype"]}
    impl = resolve_implementation(scenario.get("implementation"))
    optimizer = optimizer_section(training["optimizer"], impl["optimizer_impl"])
    fused_qkv = _fused_qkv(model, family, notes)
    attn = "sdpa" if training["attention"] == "flash" else "eager"
    recorded = {k: v for k, v in scenario.items() if k != "id"}
    case = {
        "model": model_name(model, family), "name": scenario.get("name"),
        "seq": training["seq_len"], "micro_batch": training["micro_batch"],
        "mode": precision["label"], "attn": attn,
        "grad_ckpt": training["recompute"] == "full", "optimizer": training["optimizer"],
        "adamw_impl": impl["optimizer_impl"] if training["optimizer"] in ("adam", "adamw")
        else None,
        "optimizer_impl": impl["optimizer_impl"], "dropout": training["dropout"],
        "profile": bool(run["profile"]), "inventory": bool(run["inventory"]),
        "act": act, "tf32": impl["tf32"], "allocator": impl["allocator"],
        "framework": framework, "dp": parallel["dp"], "zero": parallel["zero"],
        "vocab": model["vocab"], "scenario": copy.deepcopy(recorded),
    }
    plan_id = run_id or scenario.get("id") or derive_id(case, parallel, impl)
    case["id"] = plan_id
    tokens = training["seq_len"] * training["micro_batch"]
    return {
        "id": plan_id,
        "framework": framework,
        "family": family.split("_")[0],
        "model": model,
        "hf": hf_section(family, model, act, training["seq_len"], training["dropout"]),
        "training": {**training, "tokens_per_step_per_device": tokens,
                     "tokens_per_step": tokens * parallel["dp"]},
        "precision": precision,
        "attention": {"scenario": training["attention"], "attn_implementation": attn},
        "optimizer": optimizer,
        "gradient_checkpointing": {"enabled": training["recompute"] == "full",
                                   "kwargs": {"use_reentrant": False}},
        "tf32": impl["tf32"],
        "allocator": {"setting": impl["allocator"], "PYTORCH_CUDA_ALLOC_CONF": impl["alloc_conf"]},
        "model_code": impl["model_code"],
        "parallel": parallel,
        "run": run,
        "hardware": scenario.get("hardware"),
        "model_cfg": model_cfg_section(model, family, act, fused_qkv),
        "case": case,
        "notes": notes,
    }
