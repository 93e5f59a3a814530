#include "scenario/names.h"

namespace shardcalc {

#define SHARDCALC_NAMES(E, ...)                                          \
    template <>                                                          \
    const std::vector<std::pair<E, const char*>>& enum_names<E>() {      \
        static const std::vector<std::pair<E, const char*>> t{__VA_ARGS__}; \
        return t;                                                        \
    }

SHARDCALC_NAMES(Dtype, {Dtype::Fp32, "fp32"}, {Dtype::Fp16, "fp16"}, {Dtype::Bf16, "bf16"},
                {Dtype::Fp8, "fp8"})
SHARDCALC_NAMES(Arch, {Arch::Decoder, "decoder"}, {Arch::Encoder, "encoder"}, {Arch::Lstm, "lstm"})
SHARDCALC_NAMES(Mlp, {Mlp::Gelu, "gelu"}, {Mlp::Relu, "relu"}, {Mlp::Swiglu, "swiglu"},
                {Mlp::Geglu, "geglu"})
SHARDCALC_NAMES(PositionEmbedding, {PositionEmbedding::Learned, "learned"},
                {PositionEmbedding::Rope, "rope"}, {PositionEmbedding::Alibi, "alibi"},
                {PositionEmbedding::None, "none"})
SHARDCALC_NAMES(Norm, {Norm::LayerNorm, "layernorm"}, {Norm::RmsNorm, "rmsnorm"})
SHARDCALC_NAMES(Head, {Head::Lm, "lm"}, {Head::None, "none"})
SHARDCALC_NAMES(Optimizer, {Optimizer::Adam, "adam"}, {Optimizer::AdamW, "adamw"},
                {Optimizer::Sgd, "sgd"}, {Optimizer::SgdMomentum, "sgd_momentum"},
                {Optimizer::Lion, "lion"}, {Optimizer::Adafactor, "adafactor"},
                {Optimizer::AdamW8bit, "adamw_8bit"})
SHARDCALC_NAMES(Recompute, {Recompute::None, "none"}, {Recompute::Selective, "selective"},
                {Recompute::Full, "full"})
SHARDCALC_NAMES(RecomputeModule, {RecomputeModule::CoreAttn, "core_attn"}, {RecomputeModule::LayerNorm, "layernorm"},
                {RecomputeModule::Mlp, "mlp"}, {RecomputeModule::MoeAct, "moe_act"}, {RecomputeModule::Moe, "moe"},
                {RecomputeModule::SharedExperts, "shared_experts"}, {RecomputeModule::MlaUpProj, "mla_up_proj"})

SHARDCALC_NAMES(Attention, {Attention::Flash, "flash"}, {Attention::Eager, "eager"})
SHARDCALC_NAMES(Fp8Recipe, {Fp8Recipe::None, "none"}, {Fp8Recipe::Delayed, "delayed"}, {Fp8Recipe::Current, "current"},
                {Fp8Recipe::Blockwise, "blockwise"}, {Fp8Recipe::Mx, "mxfp8"}, {Fp8Recipe::Nvfp4, "nvfp4"})
SHARDCALC_NAMES(Offload, {Offload::None, "none"}, {Offload::Cpu, "cpu"}, {Offload::Nvme, "nvme"})
SHARDCALC_NAMES(MoeDispatcher, {MoeDispatcher::AllToAll, "alltoall"}, {MoeDispatcher::AllGather, "allgather"},
                {MoeDispatcher::Flex, "flex"})
SHARDCALC_NAMES(Framework, {Framework::Megatron, "megatron"}, {Framework::DeepSpeed, "deepspeed"},
                {Framework::Fsdp, "fsdp"}, {Framework::Pytorch, "pytorch"}, {Framework::Xla, "xla"})
SHARDCALC_NAMES(DeviceKind, {DeviceKind::Gpu, "gpu"}, {DeviceKind::Tpu, "tpu"})

SHARDCALC_NAMES(Schedule, {Schedule::OneFOneB, "1f1b"}, {Schedule::GPipe, "gpipe"})

SHARDCALC_NAMES(HiddenAct, {HiddenAct::Gelu, "gelu"}, {HiddenAct::GeluNew, "gelu_new"},
                {HiddenAct::GeluPytorchTanh, "gelu_pytorch_tanh"}, {HiddenAct::Relu, "relu"},
                {HiddenAct::Silu, "silu"})
SHARDCALC_NAMES(ModelCode, {ModelCode::Megatron, "megatron"}, {ModelCode::HuggingFace, "huggingface"})
SHARDCALC_NAMES(OptimizerImpl, {OptimizerImpl::Fused, "fused"}, {OptimizerImpl::Foreach, "foreach"},
                {OptimizerImpl::ForLoop, "for_loop"})
SHARDCALC_NAMES(RnnImpl, {RnnImpl::Cudnn, "cudnn"}, {RnnImpl::Unrolled, "unrolled"})
SHARDCALC_NAMES(ExpertsImpl, {ExpertsImpl::GroupedMm, "grouped_mm"}, {ExpertsImpl::BatchedMm, "batched_mm"},
                {ExpertsImpl::Eager, "eager"})
SHARDCALC_NAMES(CompileMode, {CompileMode::None, "none"}, {CompileMode::Inductor, "inductor"},
                {CompileMode::ReduceOverhead, "reduce_overhead"}, {CompileMode::MaxAutotune, "max_autotune"})
SHARDCALC_NAMES(Allocator, {Allocator::Caching, "caching"},
                {Allocator::ExpandableSegments, "expandable_segments"})

#undef SHARDCALC_NAMES

}  // namespace shardcalc
