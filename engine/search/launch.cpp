#include "search/launch.h"

#include <iterator>

#include "core/decimal.h"

#include "scenario/dimension.h"
#include "scenario/names.h"
#include "scenario/pipeline_split.h"

namespace shardcalc {
namespace {

std::string n(int64_t v) { return std::to_string(v); }

// torchrun's launch of the world: nodes and processes per node.
LaunchCommand torchrun(const Config& c, const std::string& script) {
    const int64_t per_node = std::min(c.s.hardware.gpus_per_node, c.d.world_size);
    return {"torchrun", {"torchrun --nnodes " + n(c.d.nodes) + " --nproc-per-node " + n(per_node) + " " + script}};
}

const char* dtype_flag(const Config& c) {
    switch (c.s.training.dtype) {
        case Dtype::Bf16: return "--bf16";
        case Dtype::Fp16: return "--fp16";
        default: return nullptr;  // fp32: no flag
    }
}

// megatron/training/arguments.py (Megatron-LM core_r0.x).
LaunchCommand megatron_lm(const Config& c) {
    const ResolvedParallel& p = c.s.parallel;
    const ResolvedTraining& t = c.s.training;
    LaunchCommand cmd{"Megatron-LM arguments (pretrain_gpt.py)", {}};
    auto& l = cmd.lines;
    l.push_back("--tensor-model-parallel-size " + n(p.tp));
    l.push_back("--pipeline-model-parallel-size " + n(p.pp));
    if (p.first_stage_layers) l.push_back("--decoder-first-pipeline-num-layers " + n(*p.first_stage_layers));
    if (p.last_stage_layers) l.push_back("--decoder-last-pipeline-num-layers " + n(*p.last_stage_layers));
    if (p.embedding_as_layer) l.push_back("--account-for-embedding-in-pipeline-split");
    if (p.loss_as_layer) l.push_back("--account-for-loss-in-pipeline-split");
    if (!p.stage_layers.empty()) {
        // One virtual stage per "|", in model order (chunk v of every rank, then chunk v + 1): E the embedding, t a
        // transformer layer, m a multi-token prediction module (beside the loss), L the loss
        // (megatron/core/transformer/pipeline_parallel_layer_layout.py).
        const std::vector<int64_t> chunks = pipeline_split(p, c.s.model.layers).chunk_layers;
        std::string layout;
        for (size_t i = 0; i < chunks.size(); ++i)
            layout += std::string(i == 0 ? "E" : "|") + std::string(static_cast<size_t>(chunks[i]), 't') +
                      (i + 1 == chunks.size() ? std::string(static_cast<size_t>(c.s.model.mtp_layers), 'm') + "L" : "");
        l.push_back("--pipeline-model-parallel-layout \"" + layout + "\"");
    }
    // Megatron's virtual-stage flag counts layers per chunk, which an uneven split has no single value of.
    const bool even = !p.first_stage_layers && !p.last_stage_layers && p.stage_layers.empty() && !p.embedding_as_layer &&
                      !p.loss_as_layer;
    if (p.vpp > 1 && even)
        l.push_back("--num-layers-per-virtual-pipeline-stage " + n(c.s.model.layers / (p.pp * p.vpp)));
    else if (p.vpp > 1) l.push_back("--num-virtual-stages-per-pipeline-rank " + n(p.vpp));
    if (p.sp) l.push_back("--sequence-parallel");
    if (p.cp > 1) l.push_back("--context-parallel-size " + n(p.cp));
    if (c.s.model.experts > 0) {
        l.push_back(std::string("--moe-token-dispatcher-type ") + name_of(p.moe_dispatcher));
        if (p.ep > 1) l.push_back("--expert-model-parallel-size " + n(p.ep));
        if (p.etp != p.tp) l.push_back("--expert-tensor-parallel-size " + n(p.etp));
        if (p.overlap_moe_comm) l.push_back("--overlap-moe-expert-parallel-comm");
        if (c.s.implementation.moe_router_fusion) l.push_back("--moe-router-fusion");
    }
    l.push_back("--micro-batch-size " + n(t.micro_batch));
    l.push_back("--global-batch-size " + n(c.s.training.global_batch));
    l.push_back("--seq-length " + n(c.s.training.seq_len));
    if (t.recompute == Recompute::Selective) {
        std::string line = "--recompute-granularity selective";
        if (t.recompute_modules != 0) {
            line += " --recompute-modules";
            for (const std::string& name : bit_names<RecomputeModule>(t.recompute_modules)) line += " " + name;
        }
        l.push_back(line);
    }
    if (t.recompute == Recompute::Full)
        l.push_back("--recompute-granularity full --recompute-method uniform --recompute-num-layers 1");
    // Transformer Engine's offload context for the layers' activations (megatron/training/arguments.py).
    if (t.activation_offload_layers > 0)
        l.push_back("--cpu-offloading --cpu-offloading-num-layers " + n(t.activation_offload_layers));
    if (p.distributed_optimizer) l.push_back("--use-distributed-optimizer");
    // Megatron-FSDP (docs: Megatron Core's "Megatron FSDP" user guide): its sharding strategy by ZeRO stage, no
    // gradient-accumulation fusion, and its own checkpoint format.
    if (p.zero >= 2) {
        l.push_back("--use-megatron-fsdp");
        l.push_back(std::string("--data-parallel-sharding-strategy ") + (p.zero == 3 ? "optim_grads_params" : "optim_grads"));
        l.push_back("--no-gradient-accumulation-fusion");
        l.push_back("--ckpt-format fsdp_dtensor");
    }
    if (p.overlap_grad_reduce) l.push_back("--overlap-grad-reduce");
    if (p.overlap_param_gather) l.push_back("--overlap-param-gather");
    if (p.tp_comm_overlap) l.push_back("--tp-comm-overlap");
    if (p.offload_optimizer == Offload::Cpu) l.push_back("--optimizer-cpu-offload");
    if (const char* d = dtype_flag(c)) l.push_back(d);
    // Transformer Engine's fp8 recipes as Megatron-LM names them (--fp8-recipe: delayed, tensorwise = current
    // scaling, blockwise; hybrid = e4m3 forward, e5m2 gradients).
    switch (t.fp8) {
        case Fp8Recipe::None: break;
        case Fp8Recipe::Delayed: l.push_back("--fp8-format hybrid --fp8-recipe delayed"); break;
        case Fp8Recipe::Current: l.push_back("--fp8-format hybrid --fp8-recipe tensorwise"); break;
        case Fp8Recipe::Blockwise: l.push_back("--fp8-format e4m3 --fp8-recipe blockwise"); break;
        case Fp8Recipe::Mx: l.push_back("--fp8-format e4m3 --fp8-recipe mxfp8"); break;
        case Fp8Recipe::Nvfp4: l.push_back("--fp4-format e2m1 --fp4-recipe nvfp4"); break;
    }
    if (t.param_dtype == Dtype::Fp8) l.push_back("--fp8-param-gather");
    return cmd;
}

// The DeepSpeed config (deepspeed/runtime/config.py keys).
LaunchCommand deepspeed_config(const Config& c) {
    const ResolvedParallel& p = c.s.parallel;
    const ResolvedTraining& t = c.s.training;
    LaunchCommand config{"DeepSpeed config (ds_config.json)", {}};
    auto& j = config.lines;
    j.push_back("{");
    j.push_back("  \"train_batch_size\": " + n(c.s.training.global_batch) + ",");
    j.push_back("  \"train_micro_batch_size_per_gpu\": " + n(t.micro_batch) + ",");
    j.push_back("  \"gradient_accumulation_steps\": " + n(c.d.microbatches) + ",");
    if (t.dtype == Dtype::Bf16) j.push_back("  \"bf16\": {\"enabled\": true},");
    if (t.dtype == Dtype::Fp16) j.push_back("  \"fp16\": {\"enabled\": true},");
    std::string zero = "  \"zero_optimization\": {\"stage\": " + n(p.zero);
    if (p.offload_optimizer != Offload::None)
        zero += ", \"offload_optimizer\": {\"device\": \"" + std::string(name_of(p.offload_optimizer)) + "\"}";
    if (p.offload_params != Offload::None)
        zero += ", \"offload_param\": {\"device\": \"" + std::string(name_of(p.offload_params)) + "\"}";
    j.push_back(zero + "}");
    j.push_back("}");
    return config;
}

// Megatron-DeepSpeed's arguments and the DeepSpeed config.
std::vector<LaunchCommand> deepspeed(const Config& c) {
    const ResolvedParallel& p = c.s.parallel;
    const ResolvedTraining& t = c.s.training;
    LaunchCommand args{"Megatron-DeepSpeed arguments (pretrain_gpt.py)", {}};
    auto& a = args.lines;
    a.push_back("--tensor-model-parallel-size " + n(p.tp));
    if (p.pp > 1) a.push_back("--pipeline-model-parallel-size " + n(p.pp));
    else a.push_back("--no-pipeline-parallel");
    if (p.ulysses > 1) a.push_back("--ds-sequence-parallel-size " + n(p.ulysses));
    a.push_back("--micro-batch-size " + n(t.micro_batch));
    a.push_back("--global-batch-size " + n(c.s.training.global_batch));
    a.push_back("--seq-length " + n(c.s.training.seq_len));
    if (t.recompute == Recompute::Selective) a.push_back("--recompute-granularity selective");
    if (t.recompute == Recompute::Full) a.push_back("--checkpoint-activations");
    if (p.zero > 0) a.push_back("--zero-stage " + n(p.zero));
    if (const char* d = dtype_flag(c)) a.push_back(d);
    a.push_back("--deepspeed --deepspeed_config ds_config.json");
    return {torchrun(c, "pretrain_gpt.py ..."), args, deepspeed_config(c)};
}

// transformers.TrainingArguments (fsdp, gradient_checkpointing); FSDP's sharding strategies by ZeRO stage.
std::vector<LaunchCommand> trainer(const Config& c) {
    const ResolvedParallel& p = c.s.parallel;
    const ResolvedTraining& t = c.s.training;
    LaunchCommand args{"Hugging Face Trainer arguments", {}};
    auto& a = args.lines;
    if (c.s.framework == Framework::Fsdp && p.zero >= 2) {
        std::string fsdp = p.zero == 3 ? "full_shard" : "shard_grad_op";
        if (p.offload_params == Offload::Cpu) fsdp += " offload";
        a.push_back("--fsdp \"" + fsdp + " auto_wrap\"");
    }
    if (p.zero == 1) a.push_back("# ZeRO-1: torch.distributed.optim.ZeroRedundancyOptimizer around AdamW");
    if (p.tp > 1) a.push_back("# tp = " + n(p.tp) + ": shard layers with torch.distributed.tensor.parallel (DTensor)");
    a.push_back("--per_device_train_batch_size " + n(t.micro_batch));
    a.push_back("--gradient_accumulation_steps " + n(c.d.microbatches));
    if (t.recompute != Recompute::None) a.push_back("--gradient_checkpointing");
    if (const char* d = dtype_flag(c)) a.push_back(d);
    if (t.optimizer == Optimizer::AdamW8bit) a.push_back("--optim adamw_bnb_8bit");
    // TrainingArguments.torch_compile_mode takes torch.compile's own spelling of the mode.
    if (const CompileMode m = c.s.implementation.compile; m != CompileMode::None)
        a.push_back(std::string("--torch_compile --torch_compile_mode ") +
                    (m == CompileMode::Inductor ? "default" : m == CompileMode::ReduceOverhead ? "reduce-overhead" : "max-autotune"));
    if (c.s.framework == Framework::DeepSpeed) {
        a.push_back("--deepspeed ds_config.json");
        return {torchrun(c, "train.py ..."), args, deepspeed_config(c)};
    }
    return {torchrun(c, "train.py ..."), args};
}

// An adapter as TRL's command line states it (trl/trainer/model_config.py ModelConfig: use_peft, lora_r,
// lora_dropout, lora_target_modules, load_in_4bit, bnb_4bit_quant_type, use_bnb_nested_quant), and the PEFT and
// transformers objects it builds (LoraConfig's r, lora_dropout, target_modules, use_dora; BitsAndBytesConfig).
// Module names as Llama-style models spell them (q_proj ... down_proj).
LaunchCommand peft(const Config& c) {
    const AdapterSpec& a = c.s.adapter;
    std::string modules, quoted;
    for (unsigned i = 0; i < std::size(kAdapterTargetNames); ++i)
        if (a.targets & (1u << i)) {
            const std::string module = std::string(kAdapterTargetNames[i]) + "_proj";
            modules += (modules.empty() ? "" : " ") + module;
            quoted += (quoted.empty() ? "\"" : ", \"") + module + "\"";
        }
    // The dropout as written in Python (0.05, 0.1, 0).
    std::string dropout = decimal(a.dropout, 3);
    while (dropout.find('.') != std::string::npos && (dropout.back() == '0' || dropout.back() == '.')) dropout.pop_back();
    const bool gptq = a.method == AdapterMethod::Qlora && a.quantization == AdapterQuant::Gptq;
    const bool qlora = a.method == AdapterMethod::Qlora && !gptq;
    LaunchCommand cmd{gptq ? "PEFT adapter (TRL arguments; the PEFT config they build, over a GPTQ checkpoint)"
                           : "PEFT adapter (TRL arguments; the PEFT and bitsandbytes configs they build)",
                      {}};
    auto& l = cmd.lines;
    l.push_back("--use_peft --lora_r " + n(a.rank) + " --lora_dropout " + dropout + " --lora_target_modules " + modules);
    if (qlora) l.push_back(std::string("--load_in_4bit --bnb_4bit_quant_type nf4") + (a.double_quant ? " --use_bnb_nested_quant" : ""));
    l.push_back("# peft.LoraConfig(r=" + n(a.rank) + ", lora_dropout=" + dropout + ", target_modules=[" + quoted + "]" +
                (a.method == AdapterMethod::Dora ? ", use_dora=True" : "") + ")");
    if (qlora)
        l.push_back(std::string("# transformers.BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type=\"nf4\", bnb_4bit_use_double_quant=") +
                    (a.double_quant ? "True" : "False") + ", bnb_4bit_compute_dtype=torch." +
                    (c.s.training.dtype == Dtype::Fp16 ? "float16" : "bfloat16") + ")");
    if (gptq)
        l.push_back("# a GPTQ checkpoint loaded with transformers.GPTQConfig(bits=4, group_size=" + n(a.group_size) +
                    ", disable_exllama=True), then peft.prepare_model_for_kbit_training (as Qwen's finetune.py --q_lora)");
    if (a.dtype != Dtype::Fp32) l.push_back(std::string("# the adapters cast to ") + name_of(a.dtype) + " after get_peft_model");
    return cmd;
}

// A device mesh as JAX (jax.sharding.Mesh) and Mesh TensorFlow name its axes: data over dp, model over tp.
std::vector<LaunchCommand> xla_mesh(const Config& c) {
    const ResolvedParallel& p = c.s.parallel;
    const ResolvedTraining& t = c.s.training;
    LaunchCommand mesh{"XLA device mesh (JAX / Mesh TensorFlow / PyTorch/XLA SPMD)", {}};
    mesh.lines.push_back("mesh shape (data, model) = (" + n(p.dp) + ", " + n(p.tp) + ") over " + n(c.d.world_size) + " " +
                         c.s.hardware.name + " devices, " + n(c.d.nodes) + " host(s)");
    mesh.lines.push_back("per-device batch " + n(t.micro_batch) + ", gradient accumulation steps " + n(c.d.microbatches));
    if (t.recompute != Recompute::None) mesh.lines.push_back("jax.checkpoint (remat) around each layer");
    if (t.mlm_predictions > 0) mesh.lines.push_back("max_predictions_per_seq " + n(t.mlm_predictions));
    return {mesh};
}

}  // namespace

std::vector<LaunchCommand> launch_commands(const Config& c) {
    // PEFT fine-tunes through transformers' Trainer whatever the framework (DDP, FSDP or DeepSpeed under it).
    if (c.s.adapter.method != AdapterMethod::None) {
        std::vector<LaunchCommand> out = trainer(c);
        out.push_back(peft(c));
        return out;
    }
    switch (c.s.framework) {
        case Framework::Megatron: return {torchrun(c, "pretrain_gpt.py ..."), megatron_lm(c)};
        // transformers' models under DeepSpeed run through its Trainer (--deepspeed), Megatron's through Megatron-DeepSpeed.
        case Framework::DeepSpeed: return c.traits.hf_code ? trainer(c) : deepspeed(c);
        case Framework::Fsdp:
        case Framework::Pytorch: return trainer(c);
        case Framework::Xla: return xla_mesh(c);
    }
    return {};
}

}  // namespace shardcalc
