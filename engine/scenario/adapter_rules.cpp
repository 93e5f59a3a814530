#include "scenario/adapter_rules.h"

#include <string>
#include <utility>

namespace shardcalc {

void apply_adapter_defaults(Scenario& s) {
    TrainingSpec& t = s.training;
    // PEFT adapts transformers' modules; the base model is loaded in the compute dtype (torch_dtype=torch.bfloat16
    // in PEFT's and TRL's examples); the adapters' gradients are in their dtype, and torch.optim updates them
    // directly. DeepSpeed's 16-bit optimizers keep an fp32 master partition of whatever they train, adapters too
    // (deepspeed/runtime/zero/stage_1_and_2.py single_partition_of_fp32_groups), with fp32 states.
    if (!s.implementation.model_code) s.implementation.model_code = ModelCode::HuggingFace;
    if (!t.param_dtype) t.param_dtype = t.dtype;
    if (!t.grad_dtype) t.grad_dtype = s.adapter.dtype;
    if (!t.master_weights) t.master_weights = s.framework == Framework::DeepSpeed && is_16bit(s.adapter.dtype);
}

std::vector<Problem> adapter_problems(const Config& c) {
    const ResolvedScenario& s = c.s;
    const AdapterSpec& a = s.adapter;
    const ResolvedParallel& p = s.parallel;
    std::vector<Problem> list;
    auto require = [&](bool ok, const char* path, const std::string& message) {
        if (!ok) list.push_back({path, message});
    };
    require(s.framework == Framework::Pytorch || s.framework == Framework::Fsdp || s.framework == Framework::DeepSpeed,
            "/framework", "adapters are modelled as Hugging Face PEFT trains them: pytorch (DDP), fsdp or deepspeed");
    require(s.model.arch != Arch::Lstm, "/adapter/method", "adapters are modelled for transformers (model.arch decoder or encoder)");
    require(s.implementation.model_code == ModelCode::HuggingFace, "/implementation/model_code",
            "PEFT adapts transformers' modules: set it to huggingface (the default with an adapter)");
    for (const auto& [degree, path] : {std::pair<int64_t, const char*>{p.tp, "/parallel/tp"}, {p.pp, "/parallel/pp"},
                                       {p.cp, "/parallel/cp"}, {p.ulysses, "/parallel/ulysses"}, {p.ep, "/parallel/ep"}})
        require(degree == 1, path, "an adapter fine-tune is modelled data-parallel (DDP, FSDP, ZeRO): set it to 1");
    require(p.offload_optimizer == Offload::None, "/parallel/offload_optimizer", "offload is not modelled with an adapter: set it to none");
    require(p.offload_params == Offload::None, "/parallel/offload_params", "offload is not modelled with an adapter: set it to none");
    require(s.training.fp8 == Fp8Recipe::None, "/training/fp8", "fp8 GEMMs are not modelled with an adapter: set it to none");
    require(!s.training.master_weights || (s.framework == Framework::DeepSpeed && is_16bit(a.dtype)), "/training/master_weights",
            "torch.optim and FSDP update the adapters themselves (PEFT) and the base is frozen: there is no master copy; "
            "set it to false (DeepSpeed keeps one for 16-bit adapters)");
    require(s.training.param_dtype != Dtype::Fp8, "/training/param_dtype", "the frozen base is stored in fp32, fp16 or bf16");
    const bool qlora = a.method == AdapterMethod::Qlora;
    // FSDP-QLoRA shards the packed 4-bit weights as they are stored (bnb_4bit_quant_storage in the compute dtype, so
    // that they flatten with the rest) and gathers them packed; DeepSpeed's stage 3 with them is not modelled.
    require(!qlora || p.zero < 3 || s.framework == Framework::Fsdp, "/parallel/zero",
            "4-bit base weights under DeepSpeed's ZeRO-3 are not modelled: 2 or less, or framework fsdp (FSDP-QLoRA)");
    require(a.dtype != Dtype::Fp8, "/adapter/dtype", "adapters are trained in fp32, bf16 or fp16");
    require(qlora || !a.double_quant, "/adapter/double_quant", "quantizes QLoRA's block scales: set adapter.method to qlora");
    const bool gptq = a.quantization == AdapterQuant::Gptq;
    require(qlora || !gptq, "/adapter/quantization", "the format of QLoRA's 4-bit base: set adapter.method to qlora");
    require(gptq || a.group_size == 128, "/adapter/group_size", "GPTQ's group of input rows: set adapter.quantization to gptq");
    require(!gptq || !a.double_quant, "/adapter/double_quant", "bitsandbytes' double quantization: GPTQ stores its own scales; set it to false");
    // auto_gptq's QuantLinear multiplies in fp16 whatever the input (torch.matmul(x.half(), weight)): Qwen's Q-LoRA
    // scripts train with --fp16 ("due to autogptq").
    require(!qlora || !gptq || s.training.dtype == Dtype::Fp16, "/training/dtype",
            "a GPTQ base runs its GEMMs in fp16 (auto_gptq's QuantLinear): set it to fp16");
    require(!qlora || !gptq || p.zero < 3, "/parallel/zero", "a GPTQ base sharded by ZeRO-3 or FSDP is not modelled: 2 or less");
    // PEFT copies the embedding and the output layer apart; a tied pair (one matrix) is not modelled, nor an encoder's
    // heads.
    require(!a.train_embeddings || (s.model.arch == Arch::Decoder && !s.model.tied_embeddings), "/adapter/train_embeddings",
            "the trained copies of the embedding and the output layer are modelled for decoders with untied embeddings");
    return list;
}

}  // namespace shardcalc
