#include "memory/memory.h"

#include <algorithm>
#include <set>

#include "memory/activations.h"
#include "memory/model_states.h"

namespace shardcalc {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// DeepSpeed defaults (deepspeed/runtime/zero/config.py): reduce_bucket_size and
// stage3_prefetch_bucket_size, in elements.
constexpr double kDeepSpeedReduceBucket = 5e8;
constexpr double kDeepSpeedPrefetchBucket = 5e7;

ParamTally stage_params(const Config& c, const ModelGraph& g, const StagePlan& st) {
    ParamTally t;
    if (st.has_pre) t.add(tally_module(g.pre, c, true));
    std::set<int64_t> shared_seen;
    for (const auto& ch : st.chunks)
        for (const auto& cl : ch.layers) {
            const LayerGroup& grp = g.groups[static_cast<size_t>(cl.group)];
            const ParamTally one = tally_module(grp.layer, c, true);
            if (grp.shared_weights) {
                if (shared_seen.insert(cl.group).second) t.add(one);
            } else {
                t.add(ParamTally{one.params * cl.count, one.optimizer_elems * cl.count});
            }
        }
    if (st.has_post) t.add(tally_module(g.post, c, st.holds_tied_copy));
    return t;
}

double largest_layer_params(const Config& c, const ModelGraph& g) {
    double best = 0;
    for (const auto& grp : g.groups) best = std::max(best, tally_module(grp.layer, c, true).params);
    return best;
}

// Extra gradient/parameter copies a framework keeps for communication, and 16-bit compute copies.
void buffers(const Config& c, const ModelGraph& g, double params, OtherBytes& o) {
    const ParallelSpec& p = c.s.parallel;
    const TrainingSpec& t = c.s.training;
    const bool replicated = c.d.replica_degree > 1;
    const double grad_b = bytes_of(*t.grad_dtype);
    const double compute_b = bytes_of(t.dtype);
    const bool mixed = *t.param_dtype != t.dtype;
    const double unit = std::min(params, largest_layer_params(c, g));
    switch (c.traits.buffers) {
        case BufferPolicy::None: break;
        case BufferPolicy::DdpBuckets:
            // torch DDP reducer: bucket views are copies unless gradient_as_bucket_view=True.
            if (replicated) o.comm_buffers = params * grad_b;
            break;
        case BufferPolicy::DeepSpeedZero:
            // Stage 1/2 IPG bucket and stage 3 __ipg_bucket_flat_buffer hold reduce_bucket_size elements.
            if (replicated) o.comm_buffers = std::min(kDeepSpeedReduceBucket, params) * grad_b;
            // Stage 3 gathers each module's full parameters before use and prefetches the next ones.
            if (p.zero == 3)
                o.comm_buffers += std::min(params, unit + std::min(kDeepSpeedPrefetchBucket, params)) *
                                  bytes_of(*t.param_dtype);
            break;
        case BufferPolicy::FsdpUnits:
            // One FSDP unit per transformer layer (transformer_auto_wrap_policy). FULL_SHARD gathers the
            // current and the prefetched unit and materialises the unit's unsharded gradient before
            // the reduce-scatter; SHARD_GRAD_OP and NO_SHARD keep the compute copies of all parameters.
            if (p.zero == 3) {
                o.comm_buffers = 3 * unit * compute_b;
            } else {
                if (p.zero == 2) o.comm_buffers = unit * compute_b;
                if (mixed) o.cast_weights = params * compute_b;
            }
            break;
    }
    if (c.traits.autocast_weight_copies && mixed) o.cast_weights = params * compute_b;
}

// Temporaries during backward: a recomputed layer plus the gradients of its largest tensor, or
// the 16-bit logits and their gradient on the last stage, whichever is larger.
double backward_transient(const Config& c, const ModelGraph& g, const StagePlan& st) {
    double layer_peak = 0;
    for (const auto& ch : st.chunks)
        for (const auto& cl : ch.layers) {
            const Module& layer = g.groups[static_cast<size_t>(cl.group)].layer;
            const double all = module_activation_bytes(layer, c, false);
            const double recompute = all - layer_activation_bytes(layer, c) +
                                     (c.s.training.recompute == Recompute::Full ? layer_checkpoint_bytes(c) : 0);
            layer_peak = std::max(layer_peak, std::max(0.0, recompute) + 2 * largest_saved_tensor_bytes(layer, c));
        }
    double logits_peak = 0;
    if (st.has_post && c.s.model.head == Head::Lm) {
        const SavedTensor logits{"logits", SavedKind::Activation, SavedSplit::Tensor, c.d.vocab_padded, false};
        const SavedTensor grad32{"logits_grad", SavedKind::Fp32, SavedSplit::Tensor, c.d.vocab_padded, false};
        logits_peak = saved_tensor_bytes(logits, c) + (c.traits.fused_cross_entropy ? 0 : saved_tensor_bytes(grad32, c));
    }
    return std::max(layer_peak, logits_peak);
}

}  // namespace

std::vector<StageMemory> stage_memory(const Config& c, const ModelGraph& g, const Plan& plan) {
    std::vector<StageMemory> out;
    for (const auto& st : plan.stages) {
        StageMemory m;
        m.rank = st.rank;
        m.layers = st.layer_count();
        for (const auto& ch : st.chunks) m.inflight.push_back(ch.inflight);

        const ParamTally tally = stage_params(c, g, st);
        m.params = tally.params;
        const StateBytes states = model_state_bytes(tally, c);
        m.weights = states.weights;
        m.gradients = states.gradients;
        m.optimizer = states.optimizer;
        m.host_cpu = states.host_cpu;
        m.host_nvme = states.host_nvme;

        // Activations: each chunk keeps `inflight` microbatches alive (Korthikanti sec. 4.2.3).
        for (const auto& ch : st.chunks)
            for (const auto& cl : ch.layers)
                m.activations += static_cast<double>(ch.inflight * cl.count) *
                                 layer_activation_bytes(g.groups[static_cast<size_t>(cl.group)].layer, c);
        if (st.has_pre) m.activations += st.pre_inflight * module_activation_bytes(g.pre, c, false);
        if (st.has_post)
            for (const auto& op : g.post.ops)
                (op.is_loss ? m.other.logits : m.activations) += st.post_inflight * op_activation_bytes(op, c, false);

        buffers(c, g, m.params, m.other);
        const double resident = m.activations + m.other.logits;
        m.other.transient = std::max({backward_transient(c, g, st), states.step_transient - resident, 0.0});
        m.other.overhead = c.s.hardware.overhead_gib * kGiB;
        out.push_back(m);
    }
    return out;
}

}  // namespace shardcalc
