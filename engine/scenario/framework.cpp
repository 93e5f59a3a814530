#include "scenario/framework.h"

namespace shardcalc {

FrameworkTraits traits_of(Framework f) {
    FrameworkTraits t;
    switch (f) {
        case Framework::Megatron:
            // megatron/core/fusions/fused_bias_swiglu.py saves the 2f-wide input only;
            // megatron/core/tensor_parallel/cross_entropy.py keeps the fp32 exp-logits in place;
            // --make-vocab-size-divisible-by defaults to 128 (megatron/training/arguments.py).
            t.fused_glu = true;
            t.fused_cross_entropy = true;
            t.vocab_multiple = 128;
            t.buffers = BufferPolicy::None;
            t.step_transient_bytes_per_param = 0;  // apex/TE FusedAdam: multi-tensor kernel, no temporaries
            break;
        case Framework::DeepSpeed:
            // deepspeed/runtime/zero/stage_1_and_2.py: the fp32 gradient of the local partition is
            // materialised for the step (single_partition_of_fp32_groups[i].grad).
            t.buffers = BufferPolicy::DeepSpeedZero;
            t.step_transient_bytes_per_param = 4;
            break;
        case Framework::Fsdp:
            // torch.optim.AdamW(foreach=True) allocates one fp32 temporary per state tensor
            // (torch/optim/adamw.py _multi_tensor_adamw: exp_avg_sq_sqrt).
            t.buffers = BufferPolicy::FsdpUnits;
            t.step_transient_bytes_per_param = 4;
            break;
        case Framework::Pytorch:
            // torch/nn/parallel/distributed.py: gradient_as_bucket_view=False by default, so the
            // reducer's buckets hold a second copy of every gradient. torch.autocast caches the
            // 16-bit copy of each fp32 weight for the backward pass.
            t.buffers = BufferPolicy::DdpBuckets;
            t.step_transient_bytes_per_param = 4;
            t.autocast_weight_copies = true;
            break;
    }
    return t;
}

void apply_framework_defaults(Scenario& s) {
    TrainingSpec& t = s.training;
    switch (s.framework) {
        case Framework::Megatron:
            // Megatron mixed precision: 16-bit params, fp32 main grads (--accumulate-allreduce-grads-in-fp32
            // is implied for bf16), fp32 master copy in the optimizer (megatron/core/optimizer).
            if (!t.param_dtype) t.param_dtype = t.dtype;
            if (!t.grad_dtype) t.grad_dtype = Dtype::Fp32;
            break;
        case Framework::DeepSpeed:
            // DeepSpeed fp16/bf16 engine: gradients in the parameter dtype, fp32 master in the optimizer.
            if (!t.param_dtype) t.param_dtype = t.dtype;
            if (!t.grad_dtype) t.grad_dtype = *t.param_dtype;
            break;
        case Framework::Fsdp:
        case Framework::Pytorch:
            // FSDP MixedPrecision / torch.autocast: the parameters themselves stay fp32 and are the
            // optimizer's weights; only the compute copies are 16-bit.
            if (!t.param_dtype) t.param_dtype = Dtype::Fp32;
            if (!t.grad_dtype) t.grad_dtype = *t.param_dtype;
            break;
    }
    if (!t.master_weights) t.master_weights = is_16bit(*t.param_dtype) || *t.param_dtype == Dtype::Fp8;

    // Whether gradient reduction overlaps the backward pass by default: Megatron-LM's
    // --overlap-grad-reduce is off by default (megatron/training/arguments.py); DeepSpeed's
    // overlap_comm is off for ZeRO-1/2 and on for ZeRO-3 (deepspeed/runtime/zero/config.py);
    // PyTorch DDP and FSDP reduce buckets from backward hooks.
    ParallelSpec& p = s.parallel;
    if (!p.overlap_grad_reduce) {
        switch (s.framework) {
            case Framework::Megatron: p.overlap_grad_reduce = false; break;
            case Framework::DeepSpeed: p.overlap_grad_reduce = p.zero == 3; break;
            case Framework::Fsdp:
            case Framework::Pytorch: p.overlap_grad_reduce = true; break;
        }
    }
}

}  // namespace shardcalc
