#include "memory/framework_buffers.h"

#include <algorithm>

#include "scenario/framework.h"
#include "scenario/precision.h"

namespace shardcalc {
namespace {

// The largest layer's parameters (an FSDP unit), and of them the trained ones (all but an adapter's frozen base).
ParamTally largest_layer(const ModelGraph& g, const LayerFigures& layers) {
    ParamTally best;
    for (const auto& grp : g.groups) {
        const ParamTally t = layers.tally(grp.layer);
        if (t.params > best.params) best = t;
    }
    return best;
}

}  // namespace

double largest_layer_params(const ModelGraph& g, const LayerFigures& layers) { return largest_layer(g, layers).params; }

// DeepSpeed's gradient buckets (contiguous_gradients, on by default). Its ZeRO optimizer allocates them whatever the
// data-parallel size and however few parameters train: stage 1/2 `backward()` one of reduce_bucket_size elements and a
// second with overlap_comm (one with pipeline parallelism, from `reduce_gradients`); stage 3 one flat buffer at
// construction (stage_1_and_2.py ipg_buffer, stage3.py __ipg_bucket_flat_buffer). ZeRO-0 flattens at most a bucket of
// the trained gradients for each data-parallel all-reduce (engine.py allreduce_bucket).
double one_bucket_bytes(const Config& c) {
    return static_cast<double>(*c.s.parallel.reduce_bucket_size) * bytes_of(c.s.training.grad_dtype);
}

namespace {

double deepspeed_bucket_bytes(const Config& c, double trained) {
    const ResolvedParallel& p = c.s.parallel;
    if (p.zero == 0) return c.d.replica_degree > 1 ? std::min(one_bucket_bytes(c), trained * bytes_of(c.s.training.grad_dtype)) : 0;
    const bool two = p.zero <= 2 && p.pp == 1 && p.overlap_grad_reduce;
    return (two ? 2 : 1) * one_bucket_bytes(c);
}

}  // namespace

// Extra gradient/parameter copies a framework keeps for communication, and 16-bit compute copies.
void framework_buffers(const Config& c, const ModelGraph& g, const ParamTally& tally, const LayerFigures& layers, OtherBytes& o) {
    const double params = tally.params;
    const ResolvedParallel& p = c.s.parallel;
    const ResolvedTraining& t = c.s.training;
    const bool replicated = c.d.replica_degree > 1;
    const double grad_b = bytes_of(t.grad_dtype);
    const double compute_b = bytes_of(t.dtype);
    const bool mixed = t.param_dtype != t.dtype;
    const ParamTally layer = largest_layer(g, layers);
    const double unit = std::min(params, layer.params);
    // The parameters with gradients, which the gradient buffers hold: all of them, or an adapter's (its base frozen:
    // DDP's buckets and DeepSpeed's ZeRO-0 all-reduce hold only parameters that require a gradient), and a unit's.
    const double trained = params - tally.frozen;
    const double unit_trained = std::min(trained, layer.params - layer.frozen);
    switch (c.traits.buffers) {
        case BufferPolicy::None: break;
        case BufferPolicy::DdpBuckets:
            // torch DDP reducer: bucket views are copies unless gradient_as_bucket_view=True.
            if (replicated) o.comm_buffers = trained * grad_b;
            break;
        case BufferPolicy::DeepSpeedZero:
            o.comm_buffers = deepspeed_bucket_bytes(c, trained);
            // Stage 3 gathers each module's full parameters before use and prefetches the next ones.
            if (p.zero == 3)
                o.comm_buffers += std::min(params, unit + std::min(kDeepSpeedPrefetchBucket, params)) *
                                  bytes_of(t.param_dtype);
            break;
        case BufferPolicy::FsdpUnits:
            // One FSDP unit per transformer layer (transformer_auto_wrap_policy). FULL_SHARD gathers the
            // current and the prefetched unit and materialises the unit's unsharded gradient before
            // the reduce-scatter; SHARD_GRAD_OP and NO_SHARD keep the compute copies of all parameters.
            // Megatron-FSDP with fp8 primary weights gathers the fp8 parameters themselves.
            if (p.zero == 3) {
                o.comm_buffers = 2 * gathered_bytes_per_param(c) * unit + compute_b * unit_trained;
            } else {
                if (p.zero == 2) o.comm_buffers = unit_trained * compute_b;
                if (mixed) o.cast_weights = params * compute_b;
            }
            break;
    }
    // torch.autocast caches the 16-bit copy of each fp32 weight a matmul consumes (not embeddings, norms or
    // biases) until the region ends, and autograd keeps it for backward (validation/measured: param_cast). Under
    // torch.compile the casts are graph ops the partitioner rebuilds in backward (a pointwise op of a parameter): none
    // is kept (graph/compiled_kernels.h weight_cast).
    if (c.traits.autocast && c.s.implementation.compile == CompileMode::None) o.cast_weights = tally.matmul_weights * compute_b;
    // Transformer Engine casts each fp8 GEMM's weight once per step (cached from the first microbatch) into a
    // row-wise and a column-wise (transposed) fp8 copy, the second for the backward GEMMs on Hopper: 2 bytes
    // per weight while forward and backward run (transformer_engine/pytorch/module/linear.py, Float8Tensor).
    // With fp8 primary weights (--fp8-param-gather) the row-wise copy is the parameter itself: the transposed one
    // remains.
    // Under ZeRO-3 the copies exist for the gathered units only (the current and the prefetched one: Megatron-FSDP
    // keeps no transpose cache, keep_fp8_transpose_cache=False in Megatron-Bridge's FSDP recipes).
    if (c.s.training.fp8 != Fp8Recipe::None) {
        const double cast = p.zero == 3 && params > 0 ? std::min(tally.fp8_weights, 2 * unit * tally.fp8_weights / params)
                                                      : tally.fp8_weights;
        o.cast_weights += (c.s.training.param_dtype == Dtype::Fp8 ? 1 : 2) * cast * fp8_element_bytes(c, true);
    }
}

}  // namespace shardcalc
