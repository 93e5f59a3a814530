"""Tests of the scenario -> run plan mapping and the torch-free helpers.

    cd validation/measure && python3 -m unittest -v test_plan
    python3 -m unittest discover -s validation/measure -p 'test_*.py'

Needs neither torch nor a GPU.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import inventory  # noqa: E402
import kernels  # noqa: E402
import records  # noqa: E402
from plan import PRESETS_DIR, PlanError, build_plan  # noqa: E402

GPT2 = {
    "framework": "pytorch",
    "model": {"preset": "gpt2", "hidden_act": "gelu_new", "fused_qkv": True},
    "training": {"micro_batch": 8},
}
LLAMA_160M = {
    "framework": "pytorch",
    "model": {"arch": "decoder", "layers": 12, "hidden": 768, "heads": 12, "kv_heads": 4,
              "ffn_hidden": 3072, "mlp": "swiglu", "vocab": 32000, "max_positions": 8192,
              "position_embedding": "rope", "norm": "rmsnorm", "bias": False,
              "tied_embeddings": False},
    "training": {"seq_len": 2048, "micro_batch": 8},
}
BERT_LARGE = {"framework": "pytorch", "model": {"preset": "bert-large"},
              "training": {"seq_len": 512, "micro_batch": 16}}


def with_changes(base: dict, **sections) -> dict:
    """A copy of `base` with keys of its sections replaced (None deletes a key)."""
    scenario = copy.deepcopy(base)
    for section, changes in sections.items():
        if not isinstance(changes, dict):
            scenario[section] = changes
            continue
        target = scenario.setdefault(section, {})
        for key, value in changes.items():
            target[key] = value
    return scenario


class Gpt2Plan(unittest.TestCase):
    def setUp(self):
        self.plan = build_plan(GPT2)

    def test_family_and_class(self):
        self.assertEqual(self.plan["family"], "gpt2")
        self.assertEqual(self.plan["hf"]["model_class"], "GPT2LMHeadModel")
        self.assertEqual(self.plan["hf"]["auto_class"], "AutoModelForCausalLM")

    def test_hf_config(self):
        config = self.plan["hf"]["config"]
        self.assertEqual(config["n_embd"], 768)
        self.assertEqual(config["n_layer"], 12)
        self.assertEqual(config["n_head"], 12)
        self.assertEqual(config["n_inner"], 3072)
        self.assertEqual(config["vocab_size"], 50257)
        self.assertEqual(config["n_positions"], 1024)
        self.assertEqual(config["activation_function"], "gelu_new")
        self.assertTrue(config["tie_word_embeddings"])
        self.assertEqual(config["resid_pdrop"], 0.0)
        self.assertFalse(config["use_cache"])

    def test_defaults(self):
        plan = self.plan
        self.assertEqual(plan["training"]["seq_len"], 1024)   # max_positions
        self.assertEqual(plan["precision"]["mode"], "amp")
        self.assertEqual(plan["precision"]["autocast_dtype"], "bf16")
        self.assertFalse(plan["precision"]["grad_scaler"])
        self.assertEqual(plan["attention"]["attn_implementation"], "sdpa")
        self.assertEqual(plan["optimizer"]["label"], "adamw(foreach=True)")
        self.assertEqual(plan["optimizer"]["kwargs"]["foreach"], True)
        self.assertFalse(plan["gradient_checkpointing"]["enabled"])
        self.assertFalse(plan["tf32"])
        self.assertEqual(plan["allocator"]["PYTORCH_CUDA_ALLOC_CONF"], "")
        self.assertEqual(plan["parallel"]["strategy"], "single")
        self.assertEqual(plan["run"], {"warmup": 3, "steps": 10, "profile": False,
                                       "inventory": False})

    def test_case_and_model_cfg(self):
        case = self.plan["case"]
        self.assertEqual(case["mode"], "amp_bf16")
        self.assertEqual(case["seq"], 1024)
        self.assertEqual(case["micro_batch"], 8)
        self.assertEqual(case["adamw_impl"], "foreach")
        self.assertEqual(case["scenario"], GPT2)
        self.assertEqual(self.plan["model_cfg"]["family"], "gpt2")
        self.assertTrue(self.plan["model_cfg"]["fused_qkv"])
        self.assertEqual(self.plan["id"], "gpt2_amp_bf16_sdpa_nogc_adamw-foreach_s1024_b8")
        self.assertEqual(self.plan["notes"], [])

    def test_pure_bf16(self):
        plan = build_plan(with_changes(GPT2, training={"param_dtype": "bf16"}))
        self.assertEqual(plan["precision"]["mode"], "pure")
        self.assertIsNone(plan["precision"]["autocast_dtype"])
        self.assertEqual(plan["case"]["mode"], "bf16")
        self.assertTrue(any("master copy" in n for n in plan["notes"]))

    def test_fp32_and_fp16(self):
        plan = build_plan(with_changes(GPT2, training={"dtype": "fp32"}))
        self.assertEqual((plan["precision"]["mode"], plan["case"]["mode"]), ("fp32", "fp32"))
        plan = build_plan(with_changes(GPT2, training={"dtype": "fp16"}))
        self.assertEqual(plan["precision"]["mode"], "amp")
        self.assertTrue(plan["precision"]["grad_scaler"])
        self.assertEqual(plan["case"]["mode"], "amp_fp16")

    def test_eager_recompute_dropout(self):
        plan = build_plan(with_changes(GPT2, training={"attention": "eager", "recompute": "full",
                                                       "dropout": 0.1}))
        self.assertEqual(plan["attention"]["attn_implementation"], "eager")
        self.assertEqual(plan["gradient_checkpointing"],
                         {"enabled": True, "kwargs": {"use_reentrant": False}})
        self.assertEqual(plan["hf"]["config"]["attn_pdrop"], 0.1)
        self.assertTrue(plan["id"].endswith("_p0.1"))

    def test_optimizers(self):
        cases = {
            ("adamw", "fused"): ("AdamW", "adamw(fused=True)", {"lr": 1e-4, "fused": True}),
            ("adam", "for_loop"): ("Adam", "adam(foreach=False)", {"lr": 1e-4, "foreach": False}),
            ("sgd", "foreach"): ("SGD", "sgd(momentum=0, foreach=True)",
                                 {"lr": 1e-3, "momentum": 0, "foreach": True}),
            ("sgd_momentum", "foreach"): ("SGD", "sgd(momentum=0.9, foreach=True)",
                                          {"lr": 1e-3, "momentum": 0.9, "foreach": True}),
        }
        for (name, impl), (cls, label, kwargs) in cases.items():
            plan = build_plan(with_changes(GPT2, training={"optimizer": name},
                                           implementation={"optimizer_impl": impl}))
            self.assertEqual(plan["optimizer"]["torch_class"], cls)
            self.assertEqual(plan["optimizer"]["label"], label)
            self.assertEqual(plan["optimizer"]["kwargs"], kwargs)
        plan = build_plan(with_changes(GPT2, training={"optimizer": "sgd"}))
        self.assertIsNone(plan["case"]["adamw_impl"])

    def test_implementation(self):
        plan = build_plan(with_changes(GPT2, implementation={
            "tf32": True, "allocator": "expandable_segments", "model_code": "huggingface"}))
        self.assertTrue(plan["tf32"])
        self.assertEqual(plan["allocator"]["PYTORCH_CUDA_ALLOC_CONF"], "expandable_segments:True")
        self.assertTrue(plan["id"].endswith("_tf32_expseg"))

    def test_run_options_and_id(self):
        plan = build_plan(GPT2, {"warmup": 2, "steps": 6, "profile": True}, run_id="mine")
        self.assertEqual(plan["id"], "mine")
        self.assertEqual(plan["case"]["id"], "mine")
        self.assertEqual(plan["run"]["steps"], 6)
        self.assertTrue(plan["case"]["profile"])
        with_id = dict(GPT2, id="from-scenario")
        plan = build_plan(with_id)
        self.assertEqual(plan["id"], "from-scenario")
        self.assertNotIn("id", plan["case"]["scenario"])

    def test_default_activation(self):
        plan = build_plan(with_changes(GPT2, model={"hidden_act": None}))
        self.assertEqual(plan["hf"]["config"]["activation_function"], "gelu")

    def test_fused_qkv_mismatch_is_a_note(self):
        plan = build_plan(with_changes(GPT2, model={"fused_qkv": False}))
        self.assertTrue(any("fused_qkv" in n for n in plan["notes"]))
        self.assertTrue(plan["model_cfg"]["fused_qkv"])

    def test_explicit_fields_override_preset(self):
        plan = build_plan(with_changes(GPT2, model={"layers": 2, "vocab": 50304}))
        self.assertEqual(plan["hf"]["config"]["n_layer"], 2)
        self.assertEqual(plan["hf"]["config"]["vocab_size"], 50304)
        self.assertEqual(plan["hf"]["config"]["bos_token_id"], 50303)


class LlamaPlan(unittest.TestCase):
    def test_llama_160m(self):
        plan = build_plan(LLAMA_160M)
        self.assertEqual(plan["hf"]["model_class"], "LlamaForCausalLM")
        config = plan["hf"]["config"]
        expected = {"hidden_size": 768, "intermediate_size": 3072, "num_hidden_layers": 12,
                    "num_attention_heads": 12, "num_key_value_heads": 4, "head_dim": 64,
                    "vocab_size": 32000, "max_position_embeddings": 8192,
                    "attention_bias": False, "mlp_bias": False, "tie_word_embeddings": False,
                    "hidden_act": "silu", "attention_dropout": 0.0, "use_cache": False}
        for key, value in expected.items():
            self.assertEqual(config[key], value, key)
        self.assertEqual(plan["model_cfg"]["kv_heads"], 4)
        self.assertFalse(plan["model_cfg"]["fused_qkv"])
        self.assertEqual(plan["case"]["model"], "custom-llama")

    def test_default_seq_len_is_capped(self):
        plan = build_plan({"framework": "pytorch", "model": {"preset": "llama-3.1-8b"}})
        self.assertEqual(plan["training"]["seq_len"], 8192)
        self.assertEqual(plan["hf"]["config"]["max_position_embeddings"], 131072)
        self.assertEqual(plan["hf"]["config"]["head_dim"], 128)

    def test_bias_true_is_attention_bias_with_note(self):
        plan = build_plan(with_changes(LLAMA_160M, model={"bias": True}))
        self.assertTrue(plan["hf"]["config"]["attention_bias"])
        self.assertFalse(plan["hf"]["config"]["mlp_bias"])
        self.assertTrue(any("attention_bias" in n for n in plan["notes"]))

    def test_seq_beyond_rope_positions_is_a_note(self):
        plan = build_plan(with_changes(LLAMA_160M, training={"seq_len": 16384}))
        self.assertEqual(plan["training"]["seq_len"], 16384)
        self.assertTrue(any("beyond max_positions" in n for n in plan["notes"]))


class BertPlan(unittest.TestCase):
    def test_pretraining_with_pooler(self):
        plan = build_plan(BERT_LARGE)
        self.assertEqual(plan["family"], "bert")
        self.assertEqual(plan["hf"]["model_class"], "BertForPreTraining")
        self.assertEqual(plan["hf"]["loss_inputs"], ["labels", "next_sentence_label"])
        config = plan["hf"]["config"]
        self.assertEqual(config["hidden_size"], 1024)
        self.assertEqual(config["num_hidden_layers"], 24)
        self.assertEqual(config["type_vocab_size"], 2)
        self.assertEqual(config["hidden_act"], "gelu")
        self.assertEqual(config["max_position_embeddings"], 512)
        self.assertEqual(config["hidden_dropout_prob"], 0.0)

    def test_without_pooler_is_masked_lm(self):
        plan = build_plan(with_changes(BERT_LARGE, model={"pooler": False},
                                       training={"dropout": 0.1}))
        self.assertEqual(plan["hf"]["model_class"], "BertForMaskedLM")
        self.assertEqual(plan["hf"]["auto_class"], "AutoModelForMaskedLM")
        self.assertEqual(plan["hf"]["loss_inputs"], ["labels"])
        self.assertEqual(plan["hf"]["config"]["attention_probs_dropout_prob"], 0.1)


class ParallelPlan(unittest.TestCase):
    def test_ddp(self):
        plan = build_plan(with_changes(GPT2, parallel={"dp": 4}))
        self.assertEqual(plan["parallel"]["strategy"], "ddp")
        self.assertEqual(plan["parallel"]["world_size"], 4)
        self.assertEqual(plan["training"]["tokens_per_step"], 4 * 8 * 1024)
        self.assertEqual(plan["training"]["global_batch"], 32)
        self.assertNotEqual(plan["parallel"]["launcher"], "none")
        self.assertTrue(plan["id"].endswith("_ddp-x4"), plan["id"])

    def test_fsdp_zero3_mixed(self):
        scenario = with_changes(LLAMA_160M, framework="fsdp", parallel={"dp": 2, "zero": 3})
        plan = build_plan(scenario)
        self.assertEqual(plan["parallel"]["strategy"], "fsdp2")
        self.assertTrue(plan["parallel"]["reshard_after_forward"])
        self.assertEqual(plan["parallel"]["mp_policy"],
                         {"param_dtype": "bf16", "reduce_dtype": "fp32"})
        self.assertEqual(plan["precision"]["mode"], "fsdp_mixed")
        self.assertIsNone(plan["precision"]["autocast_dtype"])
        self.assertEqual(plan["case"]["mode"], "mp_bf16")
        self.assertTrue(plan["id"].endswith("_fsdp2-z3-x2"), plan["id"])

    def test_fsdp_zero2_one_gpu_pure(self):
        scenario = with_changes(LLAMA_160M, framework="fsdp", parallel={"zero": 2},
                                training={"param_dtype": "bf16"})
        plan = build_plan(scenario)
        self.assertFalse(plan["parallel"]["reshard_after_forward"])
        self.assertIsNone(plan["parallel"]["mp_policy"])
        self.assertEqual(plan["parallel"]["launcher"], "torch.multiprocessing.spawn")

    def test_world_size_cross_check(self):
        plan = build_plan(with_changes(GPT2, parallel={"dp": 2, "world_size": 2}))
        self.assertEqual(plan["parallel"]["world_size"], 2)


class PlanErrors(unittest.TestCase):
    def assertPlanError(self, scenario, path, fragment=""):
        with self.assertRaises(PlanError) as caught:
            build_plan(scenario)
        self.assertEqual(caught.exception.path, path, caught.exception.message)
        self.assertIn(fragment, caught.exception.message)
        self.assertEqual(caught.exception.to_json()["error"]["path"], path)

    def test_framework(self):
        self.assertPlanError(with_changes(GPT2, framework="megatron"), "/framework",
                             "not measured by this harness")
        self.assertPlanError(with_changes(GPT2, framework="deepspeed"), "/framework",
                             "not measured by this harness")
        no_framework = {k: v for k, v in GPT2.items() if k != "framework"}
        self.assertPlanError(no_framework, "/framework", "megatron")
        self.assertPlanError(with_changes(GPT2, framework="jax"), "/framework", "unknown")

    def test_not_an_object(self):
        self.assertPlanError([], "/", "JSON object")
        self.assertPlanError(with_changes(GPT2, training=[1]), "/training", "JSON object")

    def test_unknown_fields(self):
        self.assertPlanError(with_changes(GPT2, training={"sequence": 5}), "/training/sequence",
                             "unknown field")
        self.assertPlanError(dict(GPT2, extra=1), "/extra", "unknown field")
        self.assertPlanError(with_changes(GPT2, implementation={"kernels": "x"}),
                             "/implementation/kernels", "unknown field")

    def test_model_required_and_preset(self):
        self.assertPlanError({"framework": "pytorch"}, "/model", "required")
        self.assertPlanError({"framework": "pytorch", "model": {"preset": "nope"}},
                             "/model/preset", "unknown model preset")
        self.assertPlanError({"framework": "pytorch", "model": {"preset": "../x"}},
                             "/model/preset")
        self.assertPlanError(with_changes(GPT2, model={"layers": None}), "/model/layers",
                             "required")
        self.assertPlanError({"framework": "pytorch", "model": {"layers": 2, "hidden": 64,
                                                                "heads": 2}},
                             "/model/vocab", "required")

    def test_types(self):
        self.assertPlanError(with_changes(GPT2, training={"micro_batch": 2.0}),
                             "/training/micro_batch", "integer")
        self.assertPlanError(with_changes(GPT2, training={"micro_batch": True}),
                             "/training/micro_batch", "integer")
        self.assertPlanError(with_changes(GPT2, model={"bias": "yes"}), "/model/bias",
                             "true or false")
        self.assertPlanError(with_changes(GPT2, training={"dtype": "bf32"}),
                             "/training/dtype", "unknown value")

    def test_unsupported_architectures(self):
        self.assertPlanError(with_changes(GPT2, model={"position_embedding": "alibi"}),
                             "/model/position_embedding", "not measured")
        self.assertPlanError(with_changes(LLAMA_160M, model={"norm": "layernorm"}),
                             "/model/norm", "rmsnorm")
        self.assertPlanError(with_changes(GPT2, model={"norm": "rmsnorm"}), "/model/norm")
        self.assertPlanError(with_changes(GPT2, model={"mlp": "swiglu", "hidden_act": None}),
                             "/model/mlp")
        self.assertPlanError(with_changes(LLAMA_160M, model={"mlp": "geglu"}), "/model/mlp")
        self.assertPlanError(with_changes(GPT2, model={"kv_heads": 4}), "/model/kv_heads",
                             "grouped-query")
        self.assertPlanError(with_changes(GPT2, model={"bias": False}), "/model/bias")
        self.assertPlanError(with_changes(BERT_LARGE, model={"position_embedding": "rope"}),
                             "/model/position_embedding", "BERT")
        self.assertPlanError(with_changes(GPT2, model={"embedding_dim": 128}),
                             "/model/embedding_dim", "ALBERT")
        self.assertPlanError(with_changes(GPT2, model={"head": "none"}), "/model/head")
        self.assertPlanError({"framework": "pytorch", "model": {"preset": "albert-base"}},
                             "/model/embedding_dim")

    def test_model_consistency(self):
        self.assertPlanError(with_changes(LLAMA_160M, model={"kv_heads": 5}), "/model/kv_heads",
                             "must divide")
        self.assertPlanError(with_changes(LLAMA_160M, model={"heads": 7, "kv_heads": 7}),
                             "/model/head_dim", "not divisible")
        self.assertPlanError(with_changes(GPT2, model={"pooler": True}), "/model/pooler")
        self.assertPlanError(with_changes(GPT2, model={"hidden_act": "silu"}),
                             "/model/hidden_act", "does not fit")
        self.assertPlanError(with_changes(LLAMA_160M, model={"hidden_act": "gelu"}),
                             "/model/hidden_act")

    def test_training(self):
        self.assertPlanError(with_changes(GPT2, training={"seq_len": 2048}), "/training/seq_len",
                             "max_positions (1024)")
        self.assertPlanError(with_changes(GPT2, training={"recompute": "selective"}),
                             "/training/recompute", "selective")
        self.assertPlanError(with_changes(GPT2, training={"param_dtype": "bf16", "dtype": "fp16"}),
                             "/training/param_dtype")
        self.assertPlanError(with_changes(GPT2, training={"param_dtype": "bf16", "dtype": "fp32"}),
                             "/training/param_dtype")
        self.assertPlanError(with_changes(GPT2, training={"dtype": "fp8"}), "/training/dtype")
        self.assertPlanError(with_changes(GPT2, training={"optimizer": "lion"}),
                             "/training/optimizer")
        self.assertPlanError(with_changes(GPT2, training={"global_batch": 64}),
                             "/training/global_batch", "accumulation")
        self.assertPlanError(with_changes(GPT2, training={"dropout": 1.0}), "/training/dropout")
        self.assertPlanError(with_changes(GPT2, training={"grad_dtype": "bf16"}),
                             "/training/grad_dtype")
        self.assertPlanError(with_changes(GPT2, training={"master_weights": True}),
                             "/training/master_weights")

    def test_parallel(self):
        for key in ("tp", "pp", "cp", "ulysses", "vpp"):
            self.assertPlanError(with_changes(GPT2, parallel={key: 2}), f"/parallel/{key}",
                                 "must be 1")
        self.assertPlanError(with_changes(GPT2, parallel={"sp": True}), "/parallel/sp")
        self.assertPlanError(with_changes(GPT2, parallel={"dp": 2, "zero": 1}), "/parallel/zero",
                             "DDP")
        self.assertPlanError(with_changes(GPT2, framework="fsdp", parallel={"dp": 2, "zero": 1}),
                             "/parallel/zero", "FSDP2")
        self.assertPlanError(with_changes(GPT2, framework="fsdp", parallel={"dp": 2}),
                             "/parallel/zero")
        self.assertPlanError(with_changes(GPT2, parallel={"offload_optimizer": "cpu"}),
                             "/parallel/offload_optimizer")
        self.assertPlanError(with_changes(GPT2, parallel={"dp": 2, "world_size": 4}),
                             "/parallel/world_size")

    def test_implementation(self):
        self.assertPlanError(with_changes(GPT2, implementation={"model_code": "megatron"}),
                             "/implementation/model_code", "huggingface")
        self.assertPlanError(with_changes(GPT2, implementation={"optimizer_impl": "apex"}),
                             "/implementation/optimizer_impl", "unknown value")
        self.assertPlanError(with_changes(GPT2, implementation={"allocator": "cuda_malloc"}),
                             "/implementation/allocator")

    def test_version(self):
        self.assertPlanError(dict(GPT2, version=2), "/version")


class EveryPreset(unittest.TestCase):
    def test_presets_plan_or_fail_cleanly(self):
        measurable = set()
        for path in sorted((PRESETS_DIR / "models").glob("*.json")):
            scenario = {"framework": "pytorch", "model": {"preset": path.stem},
                        "training": {"seq_len": 128}}
            try:
                plan = build_plan(scenario)
            except PlanError as exc:
                self.assertTrue(exc.path.startswith("/model/"), (path.stem, exc))
                continue
            measurable.add(plan["family"])
        self.assertEqual(measurable, {"gpt2", "llama", "bert", "mixtral"})


class MixtureOfExperts(unittest.TestCase):
    """A Llama-style decoder with model.experts is built as MixtralForCausalLM; other MoE shapes are refused."""
    MOE = dict(LLAMA_160M, model=dict(LLAMA_160M["model"], experts=8, experts_per_token=2, expert_ffn_hidden=1536))

    def assertPlanError(self, scenario, path, fragment=""):
        with self.assertRaises(PlanError) as caught:
            build_plan(scenario)
        self.assertEqual(caught.exception.path, path, caught.exception.message)
        self.assertIn(fragment, caught.exception.message)

    def test_mixtral_config(self):
        plan = build_plan(self.MOE)
        self.assertEqual(plan["family"], "mixtral")
        self.assertEqual(plan["hf"]["config_class"], "MixtralConfig")
        self.assertEqual(plan["hf"]["model_class"], "MixtralForCausalLM")
        config = plan["hf"]["config"]
        self.assertEqual((config["num_local_experts"], config["num_experts_per_tok"], config["intermediate_size"]),
                         (8, 2, 1536))
        self.assertEqual((config["router_jitter_noise"], config["output_router_logits"], config["sliding_window"]),
                         (0.0, False, None))
        self.assertEqual(plan["model_cfg"]["experts"], 8)

    def test_shardcalc_defaults(self):
        model = {k: v for k, v in self.MOE["model"].items() if k not in ("experts_per_token", "expert_ffn_hidden")}
        config = build_plan(dict(self.MOE, model=model))["hf"]["config"]
        self.assertEqual((config["num_experts_per_tok"], config["intermediate_size"]), (2, 3072))

    def test_refusals(self):
        gpt2_moe = dict(GPT2, model=dict(GPT2["model"], experts=8))
        self.assertPlanError(gpt2_moe, "/model/experts", "Mixtral")
        self.assertPlanError(dict(LLAMA_160M, model=dict(LLAMA_160M["model"], experts_per_token=2)),
                             "/model/experts_per_token", "set model.experts")
        self.assertPlanError(dict(self.MOE, model=dict(self.MOE["model"], experts_per_token=9)),
                             "/model/experts_per_token", "at most")
        self.assertPlanError(dict(self.MOE, model=dict(self.MOE["model"], bias=True)), "/model/bias", "Mixtral")
        self.assertPlanError(dict(self.MOE, model=dict(self.MOE["model"], shared_experts=1)), "/model/shared_experts")

    def test_moe_suite_plans(self):
        lines = (HERE / "suite-h100-moe.jsonl").read_text(encoding="utf-8").splitlines()
        entries = [json.loads(line) for line in lines if line.strip() and not line.startswith("#")]
        self.assertGreaterEqual(len(entries), 7)
        for entry in entries:
            plan = build_plan(entry["scenario"], entry.get("measure"), run_id=entry["id"])
            self.assertEqual(plan["family"], "mixtral", entry["id"])


class SuiteFile(unittest.TestCase):
    def test_every_suite_entry_plans(self):
        lines = (HERE / "suite-h100.jsonl").read_text(encoding="utf-8").splitlines()
        entries = [json.loads(line) for line in lines if line.strip()]
        self.assertGreaterEqual(len(entries), 15)
        ids = [e["id"] for e in entries]
        self.assertEqual(len(ids), len(set(ids)))
        families, modes = set(), set()
        for entry in entries:
            plan = build_plan(entry["scenario"], entry.get("measure"), run_id=entry["id"])
            families.add(plan["family"])
            modes.add(plan["precision"]["mode"])
        self.assertEqual(families, {"gpt2", "llama", "bert"})
        self.assertEqual(modes, {"amp", "pure", "fp32"})


class KernelCategories(unittest.TestCase):
    def test_rules(self):
        expected = {
            "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64>": "gemm",
            "nvjet_tst_128x256_64x4_2x1_v_bz_coopA_TNT": "gemm",
            "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64": "gemm",
            "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128>>": "attention",
            "fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel)":
                "attention",
            "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float>":
                "norm",
            "void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel_32x32<float>":
                "norm",
            "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>": "softmax_ce",
            "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda>":
                "copy_cast",
            "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>":
                "elementwise",
            "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float>>": "reduce",
            "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<FusedAdamMathFunctor>":
                "optimizer",
            "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)": "comm",
            "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7": "attention",
            "void cudnn::fusion::compute_dot_do_o_specialized<true, 64>(void const*)": "attention",
            "void at::native::(anonymous namespace)::CatArrayBatchedCopy<OpaqueType<2u>>":
                "copy_cast",
            "void at::native::indexSelectLargeIndex<float, long>": "other",
        }
        for name, category in expected.items():
            self.assertEqual(kernels.category_of(name, "kernel"), category, name)
        self.assertEqual(kernels.category_of("Memset (Device)", "gpu_memset"), "memset")
        self.assertEqual(kernels.category_of("Memcpy DtoD (Device -> Device)", "gpu_memcpy"),
                         "copy_cast")

    def test_summarize_trace(self):
        trace = {"traceEvents": [
            {"ph": "X", "cat": "kernel", "name": "ampere_bf16_gemm", "ts": 100, "dur": 30},
            {"ph": "X", "cat": "kernel", "name": "ampere_bf16_gemm", "ts": 140, "dur": 10},
            {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "ts": 150, "dur": 1},
            {"ph": "X", "cat": "Kernel", "name": "flash_bwd", "ts": 160, "dur": 20},
            {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 90, "dur": 500},
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 95, "dur": 2},
            {"ph": "i", "cat": "kernel", "name": "instant", "ts": 1},
        ]}
        summary = kernels.summarize_trace(trace)
        self.assertEqual(summary["n_kernel_launches"], 4)
        self.assertEqual(summary["n_kernel_names"], 3)
        self.assertEqual(summary["n_launch_calls"], 1)
        self.assertEqual(summary["total_kernel_us"], 61.0)
        self.assertEqual(summary["gpu_span_us"], 80.0)
        self.assertEqual(summary["categories"]["gemm"], {"us": 40.0, "launches": 2})
        self.assertEqual(summary["categories"]["memset"], {"us": 1.0, "launches": 1})
        self.assertEqual(summary["top"][0], {"name": "ampere_bf16_gemm", "us": 40.0, "count": 2,
                                             "category": "gemm"})


class InventoryGrouping(unittest.TestCase):
    def test_normalise_where(self):
        self.assertEqual(inventory.normalise_where(""), "<model>")
        self.assertEqual(inventory.normalise_where("transformer.h.11.mlp.act"),
                         "transformer.h.*.mlp.act")
        self.assertEqual(inventory.normalise_where("model.layers.3"), "model.layers.*")
        self.assertEqual(inventory.normalise_where("bert.encoder.layer.0.attention.self"),
                         "bert.encoder.layer.*.attention.self")
        self.assertEqual(inventory.normalise_where("lm_head"), "lm_head")

    def test_group_saved_counts_storages_once(self):
        def rec(key, nbytes, where, kind="activation", dtype="bfloat16", shape=(2, 3)):
            return {"key": key, "nbytes": nbytes, "dtype": dtype, "shape": list(shape),
                    "where": where, "kind": kind}
        result = inventory.group_saved([
            rec(1, 100, "transformer.h.0.mlp"), rec(2, 100, "transformer.h.1.mlp"),
            rec(1, 100, "transformer.h.0.mlp.act"),            # same storage again
            rec(3, 40, "transformer.h.0.ln_1", "param", "float32", (768,)),
            rec(4, 60, "transformer.h.0.mlp", "param_cast", shape=(3, 2)),
            rec(5, 8, "", dtype="int64", shape=()),
        ])
        self.assertEqual(result["n_saved"], 6)
        self.assertEqual(result["n_storages"], 5)
        self.assertEqual(result["total_bytes"], 308)
        first = result["groups"][0]
        self.assertEqual((first["where"], first["bytes"], first["n"], first["shapes"]),
                         ("transformer.h.*.mlp", 200, 2, [[2, 3]]))
        self.assertEqual(result["bytes_by_kind"], {"activation": 208, "param_cast": 60,
                                                   "param": 40})
        self.assertEqual(result["bytes_by_dtype_excl_params"], {"bfloat16": 260, "int64": 8})
        self.assertEqual(result["groups"][-1]["where"], "<model>")

    def test_reaches_parameter(self):
        def node(name, *parents):
            cls = type(name, (), {})
            obj = cls()
            obj.next_functions = tuple((p, 0) for p in parents)
            return obj
        leaf = node("AccumulateGrad")
        self.assertEqual(inventory.reaches_parameter(node("TBackward0", node("ToCopyBackward0",
                                                                             leaf))),
                         (True, True))
        self.assertEqual(inventory.reaches_parameter(node("TBackward0", leaf)), (True, False))
        self.assertEqual(inventory.reaches_parameter(node("MulBackward0", leaf, leaf)),
                         (False, False))
        self.assertEqual(inventory.reaches_parameter(None), (False, False))


class RecordMerging(unittest.TestCase):
    def setUp(self):
        self.plan = build_plan(with_changes(GPT2, parallel={"dp": 2}))

    def rank_record(self, rank, status="ok", **extra):
        rec = records.new_record(self.plan)
        rec.update(status=status, rank=rank, peak_allocated=1000 + rank, step_ms=10.0 + rank,
                   **extra)
        return rec

    def test_all_ok(self):
        merged = records.merge_rank_records(self.plan, {0: self.rank_record(0),
                                                        1: self.rank_record(1)}, 2)
        self.assertEqual(merged["status"], "ok")
        self.assertEqual(merged["peak_allocated_per_rank"], [1000, 1001])
        self.assertEqual(merged["peak_allocated_max_over_ranks"], 1001)
        self.assertEqual(merged["step_ms"], 10.0)
        self.assertEqual([e["rank"] for e in merged["per_rank"]], [0, 1])

    def test_oom_on_one_rank_and_missing_other(self):
        oom = self.rank_record(1, "oom", failed_phase="backward", max_allocated_at_failure=77)
        merged = records.merge_rank_records(self.plan, {1: oom}, 2, "ProcessExitedException")
        self.assertEqual(merged["status"], "oom")
        self.assertEqual(merged["failed_phase"], "backward")
        self.assertEqual(merged["failed_rank"], 1)
        self.assertEqual(merged["max_allocated_at_failure"], 77)
        self.assertEqual(merged["per_rank"][0]["status"], "no_report")
        self.assertEqual(merged["launcher_error"], "ProcessExitedException")

    def test_nothing_reported(self):
        merged = records.merge_rank_records(self.plan, {}, 2, "crash")
        self.assertEqual(merged["status"], "error")
        self.assertEqual(merged["id"], self.plan["id"])

    def test_lines_are_valid_json(self):
        line = records.to_line({"id": "x", "loss_last": float("nan"), "a": [float("inf")]})
        self.assertEqual(json.loads(line), {"a": [None], "id": "x", "loss_last": None})
        self.assertIn("oom in backward", records.summary_line(
            {"id": "x", "status": "oom", "failed_phase": "backward",
             "max_allocated_at_failure": 1 << 30}))


class CommandLine(unittest.TestCase):
    def run_measure(self, scenario, *args):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
            json.dump(scenario, handle)
        try:
            return subprocess.run([sys.executable, str(HERE / "measure.py"), handle.name, *args],
                                  capture_output=True, text=True, timeout=120, check=False)
        finally:
            Path(handle.name).unlink()

    def test_dry_run_needs_no_torch(self):
        result = self.run_measure(GPT2, "--dry-run", "--steps", "4", "--profile")
        self.assertEqual(result.returncode, 0, result.stderr)
        plan = json.loads(result.stdout)
        self.assertEqual(plan["run"]["steps"], 4)
        self.assertTrue(plan["run"]["profile"])
        self.assertNotIn("torch", sys.modules)

    def test_invalid_scenario_exit_2(self):
        result = self.run_measure(with_changes(GPT2, parallel={"tp": 2}), "--dry-run")
        self.assertEqual(result.returncode, 2)
        error = json.loads(result.stderr.strip().splitlines()[-1])
        self.assertEqual(error, {"ok": False, "error": {
            "path": "/parallel/tp",
            "message": "must be 1: this harness measures data parallelism only, got 2"}})

    def test_suite_dry_run(self):
        result = subprocess.run([sys.executable, str(HERE / "run_suite.py"),
                                 str(HERE / "suite-h100.jsonl"), "--dry-run", "--only", "llama"],
                                capture_output=True, text=True, timeout=300, check=False)
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.strip().splitlines()
        self.assertTrue(lines and all("LlamaForCausalLM" in line for line in lines), lines)


if __name__ == "__main__":
    unittest.main()
