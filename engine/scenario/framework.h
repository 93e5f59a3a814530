#pragma once
// Named framework profiles. Each encodes how that framework stores weights, gradients and
// optimizer states and which fused kernels it uses by default; docs/memory.md ("Framework
// profiles") gives the source of every rule.
#include <cstdint>

#include "scenario/scenario.h"

namespace shardcalc {

// DeepSpeed defaults (deepspeed/runtime/zero/config.py): reduce_bucket_size and stage3_prefetch_bucket_size, in
// elements.
constexpr double kDeepSpeedReduceBucket = 5e8;
constexpr double kDeepSpeedPrefetchBucket = 5e7;

// How a framework holds extra gradient/parameter memory for communication.
enum class BufferPolicy {
    None,              // Megatron: grads reduce in place in the contiguous main-grad buffer
    DdpBuckets,        // PyTorch DDP: reducer bucket copies of all gradients
    DeepSpeedZero,     // DeepSpeed: IPG reduce bucket; ZeRO-3 gathered parameters + prefetch
    FsdpUnits,         // FSDP: unsharded parameters of the current and prefetched unit
};

// How each microbatch's parameter gradients join the accumulated ones, besides what the weight-gradient GEMMs write.
enum class GradAccumulation {
    None,           // not counted as kernels (XLA's program; PyTorch/FSDP as their measured profiles count them)
    AutogradAdd,    // autograd adds into .grad, one kernel per tensor from the second microbatch on (DeepSpeed ZeRO-0)
    BucketCopy,     // a hook copies every microbatch's gradient into the reduction bucket (DeepSpeed ZeRO-1/2/3)
    MainGradHooks,  // Megatron: the GEMMs accumulate weights into main_grad; other tensors get one add each
};

struct FrameworkTraits {
    bool fused_glu = false;            // SwiGLU/GeGLU backward recomputes from its input (2f saved, not 3f)
    int64_t vocab_multiple = 1;        // embedding rows padded to a multiple of this times tp
    BufferPolicy buffers = BufferPolicy::None;
    GradAccumulation grad_accumulation = GradAccumulation::None;
    double step_transient_bytes_per_param = 0;  // framework temporaries of the optimizer step, per local shard param
    // From the implementation profile (resolved defaults):
    bool autocast = false;       // fp32 parameters, 16-bit matmuls: torch.autocast's dtype rules apply
    bool hf_code = false;        // Hugging Face modules run op by op (unfused norms, activations, loss)
    bool grads_persist = false;  // gradients are allocated before the first backward (Megatron's main-grad buffer)
    bool sdpa_math = false;      // torch's SDPA falls back to its math kernel: scores materialised as in eager
    // XLA compiles the whole step (framework xla): buffers assigned at compile time, saved tensors kept or
    // rematerialized by its rules (memory/xla_program.h), no host dispatch per op, dropout's stateful RNG
    // output (TensorFlow's and PyTorch/XLA's rng_uniform) kept whole in the activation dtype.
    bool xla = false;
    // The optimizer is handed flat 1-D partitions rather than the model's tensors: DeepSpeed flattens each parameter
    // group's fp32 copy under ZeRO and in its 16-bit optimizers (zero/stage_1_and_2.py single_partition_of_fp32_groups,
    // zero/stage3.py fp32_partitioned_groups_flat, fp16/fused_optimizer.py fp32_groups_flat), and FSDP's sharded flat
    // parameters expose 1-D views (pytorch/pytorch#109581). An optimizer that reads a tensor's shape (Adafactor's
    // factored statistics) sees vectors.
    bool flat_optimizer_params = false;
};

// The traits of a resolved scenario: the framework's conventions and the implementation profile.
FrameworkTraits traits_of(const ResolvedScenario& s);

// Megatron's overlaps and what a plan needs to run them (megatron/training/arguments.py): --tp-comm-overlap tensor and
// sequence parallelism, --overlap-param-gather the distributed optimizer with an overlapped gradient reduction. The
// validator refuses a scenario asking for one its plan cannot run; the plan search gives it to the plans that can.
bool runs_tp_comm_overlap(Framework f, const ParallelFields& p);
bool runs_param_gather_overlap(Framework f, const ParallelFields& p, bool overlap_grad_reduce);

// Megatron's fused scale-mask-softmax runs only where its CUDA kernels have a variant for the scores' shape; elsewhere
// torch computes the softmax op by op (FusedScaleMaskSoftmax.forward_torch_softmax). Megatron-LM's rule
// (megatron/core/fusions/fused_softmax.py, is_kernel_available): 16-bit scores, 16 < keys <= 4096, queries and keys
// multiples of 4, and microbatch x heads per rank a multiple of 4 and of the kernel's batches per block (causal; the
// padding kernel needs the queries a multiple of it instead). Megatron-DeepSpeed's older rule
// (megatron/model/fused_softmax.py, microsoft/Megatron-DeepSpeed): keys <= 2048, queries and microbatch x heads per
// rank multiples of 4. `heads_per_rank`: the attention heads one rank holds (tp and Ulysses split them).
bool megatron_fused_softmax(Framework f, int64_t micro_batch, int64_t heads_per_rank, int64_t seq_len, bool causal,
                            bool float16);

// Megatron-DeepSpeed scales Q.K^T by 1/layer number (--apply-query-key-layer-scaling, on unless turned off), which
// sets attention_softmax_in_fp32: its unfused softmax casts the scores to fp32 and multiplies them by the layer
// number first (megatron/model/transformer.py CoreAttention). Megatron-LM leaves it off by default: its unfused
// softmax runs in the training dtype with no multiply (megatron/core/transformer/transformer_config.py).
bool megatron_layer_scaled_softmax(Framework f);

// Defaults the framework sets for fields the scenario left open (training dtypes, overlap, the
// implementation profile, the model's activation spelling and QKV fusion).
void apply_framework_defaults(Scenario& s);

}  // namespace shardcalc
