#pragma once
// Parameter-efficient fine-tuning: low-rank adapters trained on a frozen model (Hu et al. 2021, LoRA), with a learned
// magnitude per output (Liu et al. 2024, DoRA) or over 4-bit base weights (Dettmers et al. 2023, QLoRA), as Hugging
// Face PEFT builds them (peft/tuners/lora/layer.py) and bitsandbytes stores them (bitsandbytes/nn/modules.py
// Linear4bit). Plain data; the rules are in scenario/adapter_rules.cpp, the graph's part in graph/adapter.cpp.
#include <cstdint>

#include "core/dtype.h"

namespace shardcalc {

enum class AdapterMethod { None, Lora, Dora, Qlora };
// How QLoRA's frozen base is stored in 4 bits: bitsandbytes' NF4 (Dettmers et al. 2023; transformers'
// BitsAndBytesConfig), or a GPTQ checkpoint (Frantar et al. 2023) as AutoGPTQ runs it for training (transformers'
// GPTQConfig with the exllama kernels off, as Qwen's finetune.py loads its Int4 models: auto_gptq's qlinear_cuda_old).
enum class AdapterQuant { Nf4, Gptq };

// The linear layers an adapter may target, as bits (PEFT's target_modules for Llama-style models: q_proj, k_proj,
// v_proj, o_proj, gate_proj, up_proj, down_proj). A fused projection (GPT-2's c_attn, Falcon's query_key_value) is
// one module: any of q, k, v targets it; a fused up projection (dense_h_to_4h) is targeted by gate or up.
enum class AdapterTarget : unsigned { Q = 1, K = 2, V = 4, O = 8, Gate = 16, Up = 32, Down = 64 };
constexpr unsigned bit(AdapterTarget t) { return static_cast<unsigned>(t); }
// Their spellings, bit i named by entry i: PEFT's module names without "_proj" (q_proj -> q).
inline constexpr const char* kAdapterTargetNames[] = {"q", "k", "v", "o", "gate", "up", "down"};

struct AdapterSpec {
    AdapterMethod method = AdapterMethod::None;
    int64_t rank = 8;          // r: A is [r, in], B is [out, r] (PEFT LoraConfig r = 8)
    double dropout = 0;        // lora_dropout on the adapter's input (PEFT default 0: nn.Identity)
    // PEFT's default target_modules for Llama, Mistral and Qwen models: q_proj and v_proj
    // (peft/utils/constants.py TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING).
    unsigned targets = bit(AdapterTarget::Q) | bit(AdapterTarget::V);
    bool double_quant = false;  // QLoRA: the block scales quantized too (bnb_4bit_use_double_quant; default off)
    AdapterQuant quantization = AdapterQuant::Nf4;  // QLoRA: the 4-bit base's format
    // GPTQ: input rows sharing one fp16 scale and one 4-bit zero per output column (GPTQConfig group_size; Qwen's and
    // most published Int4 checkpoints use 128).
    int64_t group_size = 128;
    // The adapters' weights, gradients and optimizer states: fp32 as get_peft_model keeps them
    // (autocast_adapter_dtype=True), or 16-bit where the training script casts them (QLoRA's qlora.py under --bf16).
    Dtype dtype = Dtype::Fp32;
    // The word embedding and the output layer trained beside the adapters, as PEFT's modules_to_save trains them
    // (peft/utils/other.py ModulesToSaveWrapper): a trainable copy of each in the base's dtype, the original kept frozen
    // beside it (Qwen's finetune.py sets it for base models, whose new special tokens must be learned).
    bool train_embeddings = false;
};

}  // namespace shardcalc
