#include "comm/stage_rules.h"

#include <algorithm>
#include <cmath>

#include "compute/pass_time.h"
#include "graph/blocks.h"
#include "scenario/precision.h"

namespace shardcalc {
namespace {

// Data-parallel gradient sync of `params` over group `g` of dimension `dim`: an all-reduce, or a reduce-scatter where
// the optimizer is sharded (ZeRO-2 every microbatch, as it keeps only its partition) followed after the step by the
// all-gather of the updated parameters. With parallel.overlap_grad_reduce the reduction hides behind `backward`
// (Megatron --overlap-grad-reduce, DeepSpeed overlap_comm, DDP buckets); the rest is exposed.
// `param_bytes`: bytes per parameter as stored, which the all-gather moves. With parallel.overlap_param_gather
// (Megatron's --overlap-param-gather) the all-gather runs bucket by bucket beside the next step's first forward
// pass (`forward`: one microbatch's) and only its excess is exposed.
void gradient_sync(Builder& b, Dim dim, const Group& g, double params, double param_bytes, double backward,
                   double forward, const char* reduce_purpose, const char* gather_purpose) {
    const ResolvedParallel& p = b.c.s.parallel;
    const ResolvedTraining& t = b.c.s.training;
    const bool sharded = p.zero >= 1 || p.distributed_optimizer;
    const double reduce_count = p.zero == 2 ? static_cast<double>(b.c.d.microbatches) : 1;
    CommEntry& r = b.add(dim, sharded ? CollectiveKind::ReduceScatter : CollectiveKind::AllReduce, reduce_purpose,
                         params * bytes_of(t.grad_dtype), reduce_count, g);
    r.overlapped = p.overlap_grad_reduce;
    r.exposed_seconds = (r.overlapped ? std::max(0.0, r.seconds_each - backward) : r.seconds_each) * reduce_count;
    b.out.step_exposed += r.exposed_seconds;
    if (sharded) {
        CommEntry& ag = b.add(dim, CollectiveKind::AllGather, gather_purpose, params * param_bytes, 1, g);
        ag.overlapped = p.overlap_param_gather;
        ag.exposed_seconds = ag.overlapped ? std::max(0.0, ag.seconds() - forward) : ag.seconds();
        b.out.step_exposed += ag.exposed_seconds;
    }
}

// What a stage's gradient sync and parameter gathers may hide behind, once the other rules have lengthened the passes:
// a microbatch's forward and backward pass, each as long as it holds the device, its kernels' time or the host's
// issuing them where that is longer (a collective on its own stream runs while the host issues kernels); `forward` and
// `backward` add the passes' exposed collectives.
struct Passes {
    double forward_pass, backward_pass, forward, backward;
};
Passes passes(const StageRules& r) {
    const double forward_pass = forward_pass_seconds(r.sc.cost.fwd, r.b.out.fwd_calls, r.c);
    const double backward_pass = backward_pass_seconds(backward_kernels(r.sc), r.b.out.bwd_calls, r.c);
    return {forward_pass, backward_pass, forward_pass + r.b.out.fwd_exposed, backward_pass + r.b.out.bwd_exposed};
}

}  // namespace

// Data parallelism: the gradient reduction and, where the optimizer is sharded, the parameter gather after the step.
// Gradient reduction overlaps the backward pass that produces the gradients when parallel.overlap_grad_reduce is on
// (Megatron --overlap-grad-reduce, DeepSpeed overlap_comm, DDP buckets); otherwise it runs after backward. ZeRO-2 /
// SHARD_GRAD_OP reduce every microbatch because they keep only their partition. ZeRO-3 syncs by its own rule.
void StageRules::data_parallel() const {
    const int64_t n = c.d.replica_degree;
    if (n <= 1 || p.zero == 3) return;
    const Passes w = passes(*this);
    gradient_sync(b, Dim::Dp, group_of(Dim::Dp, n, c), trained, trained_bytes, w.backward, w.forward, "gradients",
                  "updated parameters after the optimizer step");
}

// ZeRO-3 / FSDP FULL_SHARD gather each layer's parameters before its forward and again before its backward, and
// reduce-scatter its gradients, every microbatch; prefetching overlaps them with compute (Rajbhandari et al. 2020,
// sec. 5.3). FSDP gathers one flat parameter per unit (a layer). DeepSpeed's stage-3 coordinator gathers each
// parameter tensor whole (each call its own ring: its latency once per tensor), releases a module's parameters after
// its forward, so that full recompute gathers them again inside backward before the backward's own gather, and
// reduce-scatters the gradients in buckets of reduce_bucket_size elements (deepspeed/runtime/zero/
// partition_parameters.py, stage3.py).
void StageRules::zero3_parallel() const {
    if (p.zero != 3) return;
    const Passes w = passes(*this);
    const Group g = group_of(Dim::Dp, c.d.replica_degree, c);
    const bool deepspeed = c.traits.buffers == BufferPolicy::DeepSpeedZero;
    const double units = std::max(1.0, layers);
    const double gathers = deepspeed ? std::max(units, sc.param_tensors) : units;
    const double backward_gathers = deepspeed && full ? 2 : 1;
    const double buckets = deepspeed ? std::max(1.0, std::ceil(trained / static_cast<double>(*c.s.parallel.reduce_bucket_size))) : units;
    const double gather = params / gathers * gathered_bytes_per_param(c);
    CommEntry& f = b.add(Dim::Zero3, CollectiveKind::AllGather,
                         deepspeed ? "parameters before forward (per tensor)" : "parameters before forward (per layer)",
                         gather, gathers * mb, g);
    CommEntry& bw = b.add(Dim::Zero3, CollectiveKind::AllGather,
                          deepspeed ? (full ? "parameters before recompute and before backward (per tensor)"
                                            : "parameters before backward (per tensor)")
                                    : "parameters before backward (per layer)",
                          gather, backward_gathers * gathers * mb, g);
    CommEntry& rs = b.add(Dim::Zero3, CollectiveKind::ReduceScatter,
                          deepspeed ? "gradients (per reduce bucket)" : "gradients (per layer)",
                          trained / buckets * bytes_of(t.grad_dtype), buckets * mb, g);
    f.overlapped = bw.overlapped = rs.overlapped = true;
    // Layer by layer, a gather can hide only behind the compute that runs while it is in flight: the part fetched ahead
    // of the layer that needs it. FSDP prefetches the next unit whole; DeepSpeed fetches up to
    // stage3_prefetch_bucket_size elements ahead (kDeepSpeedPrefetchBucket), a small share of a large model's layer, so
    // the rest of each gather waits in line. The gradients' reduce-scatter runs beside the backward (overlap_comm, on
    // for ZeRO-3).
    const double ahead = deepspeed ? std::min(1.0, kDeepSpeedPrefetchBucket / std::max(1.0, params / units)) : 1.0;
    const double fwd_gather = gathers / units * f.seconds_each;
    const double bwd_gather = gathers / units * backward_gathers * bw.seconds_each;
    const double reduce = buckets / units * rs.seconds_each;
    const double fwd_compute = w.forward_pass / units;
    const double bwd_compute = w.backward_pass / units;
    const double fwd_exposed = fwd_gather - std::min(ahead * fwd_gather, fwd_compute);
    const double bwd_exposed = bwd_gather + reduce - std::min(ahead * bwd_gather + reduce, bwd_compute);
    const double exposed_mb = units * (fwd_exposed + bwd_exposed);
    const double per_mb = units * (fwd_gather + bwd_gather + reduce);
    const double exposed = exposed_mb * mb;
    // Attribute the exposed part proportionally.
    for (CommEntry* e : {&f, &bw, &rs})
        e->exposed_seconds = per_mb > 0 ? exposed * e->seconds() / mb / per_mb : 0;
    b.out.step_exposed += exposed;
}

// The routed experts' gradients: reduced over the ranks holding the same experts (Megatron's expert data-parallel
// group), reduce-scattered where the optimizer is sharded, then the updated experts gathered. Under ZeRO-3 the same
// per step (its per-layer gathers of expert weights are not modelled).
void StageRules::expert_data_parallel() const {
    const int64_t n = c.d.expert_replica_degree;
    if (expert_params <= 0 || n <= 1) return;
    const Passes w = passes(*this);
    gradient_sync(b, Dim::ExpertDp, group_of(Dim::ExpertDp, n, c), expert_params, param_bytes, w.backward, w.forward,
                  "expert gradients", "updated expert parameters after the optimizer step");
}

}  // namespace shardcalc
