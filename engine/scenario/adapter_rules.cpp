#include "scenario/adapter_rules.h"

#include <string>
#include <utility>

namespace shardcalc {

void apply_adapter_defaults(Scenario& s) {
    TrainingSpec& t = s.training;
    // PEFT adapts transformers' modules; the base model is loaded in the compute dtype (torch_dtype=torch.bfloat16
    // in PEFT's and TRL's examples); the adapters' gradients are in their dtype, and the optimizer updates them
    // directly.
    if (!s.implementation.model_code) s.implementation.model_code = ModelCode::HuggingFace;
    if (!t.param_dtype) t.param_dtype = t.dtype;
    if (!t.grad_dtype) t.grad_dtype = s.adapter.dtype;
    if (!t.master_weights) t.master_weights = false;
}

std::vector<Problem> adapter_problems(const Config& c) {
    const Scenario& s = c.s;
    const AdapterSpec& a = s.adapter;
    const ParallelSpec& p = s.parallel;
    std::vector<Problem> list;
    auto require = [&](bool ok, const char* path, const std::string& message) {
        if (!ok) list.push_back({path, message});
    };
    require(s.framework == Framework::Pytorch || s.framework == Framework::Fsdp || s.framework == Framework::DeepSpeed,
            "/framework", "adapters are modelled as Hugging Face PEFT trains them: pytorch (DDP), fsdp or deepspeed");
    require(s.model.arch != Arch::Lstm, "/adapter/method", "adapters are modelled for transformers (model.arch decoder or encoder)");
    require(*s.implementation.model_code == ModelCode::HuggingFace, "/implementation/model_code",
            "PEFT adapts transformers' modules: set it to huggingface (the default with an adapter)");
    for (const auto& [degree, path] : {std::pair<int64_t, const char*>{p.tp, "/parallel/tp"}, {p.pp, "/parallel/pp"},
                                       {p.cp, "/parallel/cp"}, {p.ulysses, "/parallel/ulysses"}, {p.ep, "/parallel/ep"}})
        require(degree == 1, path, "an adapter fine-tune is modelled data-parallel (DDP, FSDP, ZeRO): set it to 1");
    require(p.offload_optimizer == Offload::None, "/parallel/offload_optimizer", "offload is not modelled with an adapter: set it to none");
    require(p.offload_params == Offload::None, "/parallel/offload_params", "offload is not modelled with an adapter: set it to none");
    require(s.training.fp8 == Fp8Recipe::None, "/training/fp8", "fp8 GEMMs are not modelled with an adapter: set it to none");
    require(!*s.training.master_weights, "/training/master_weights",
            "the optimizer updates the adapters themselves (PEFT) and the base is frozen: there is no master copy; set it to false");
    require(*s.training.param_dtype != Dtype::Fp8, "/training/param_dtype", "the frozen base is stored in fp32, fp16 or bf16");
    const bool qlora = a.method == AdapterMethod::Qlora;
    // FSDP-QLoRA shards the packed 4-bit weights as they are stored (bnb_4bit_quant_storage in the compute dtype, so
    // that they flatten with the rest) and gathers them packed; DeepSpeed's stage 3 with them is not modelled.
    require(!qlora || p.zero < 3 || s.framework == Framework::Fsdp, "/parallel/zero",
            "4-bit base weights under DeepSpeed's ZeRO-3 are not modelled: 2 or less, or framework fsdp (FSDP-QLoRA)");
    require(a.dtype != Dtype::Fp8, "/adapter/dtype", "adapters are trained in fp32, bf16 or fp16");
    require(qlora || !a.double_quant, "/adapter/double_quant", "quantizes QLoRA's block scales: set adapter.method to qlora");
    // PEFT copies the embedding and the output layer apart; a tied pair (one matrix) is not modelled, nor an encoder's
    // heads.
    require(!a.train_embeddings || (s.model.arch == Arch::Decoder && !s.model.tied_embeddings), "/adapter/train_embeddings",
            "the trained copies of the embedding and the output layer are modelled for decoders with untied embeddings");
    return list;
}

}  // namespace shardcalc
