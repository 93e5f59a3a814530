#include "memory/memory.h"

#include <algorithm>
#include <set>
#include <utility>

#include "core/units.h"
#include "graph/blocks.h"
#include "memory/activations.h"
#include "memory/allocator.h"
#include "memory/framework_buffers.h"
#include "memory/stage_parts.h"
#include "memory/xla_stage.h"
#include "memory/memory_memo.h"
#include "memory/memory_terms.h"
#include "memory/model_states.h"
#include "memory/transients.h"
#include "scenario/dimension.h"

namespace shardcalc {
namespace {

// Parameters of the embedding and head a stage holds (no transformer layers).
ParamTally outside_layers(const Config& c, const ModelGraph& g, const StagePlan& st) {
    ParamTally t;
    if (st.has_pre) t += (tally_module(g.pre, c, true));
    if (st.has_post) t += (tally_module(g.post, c, st.holds_tied_copy));
    return t;
}

ParamTally stage_params(const Config& c, const ModelGraph& g, const StagePlan& st, const LayerFigures& layers) {
    ParamTally t = outside_layers(c, g, st);
    std::set<int64_t> shared_seen;
    for_each_layer_run(st, g, [&](const Chunk&, const ChunkLayers& cl, const LayerGroup& grp) {
        const ParamTally one = layers.tally(grp.layer);
        if (grp.shared_weights) {
            if (shared_seen.insert(cl.group).second) t += one;
        } else {
            const double n = static_cast<double>(cl.count);
            t += one.times(n);
        }
    });
    return t;
}

double temporaries_bytes(const std::vector<SavedTensor>& ts, const Config& c) {
    double sum = 0;
    for (const auto& t : ts) sum += saved_tensor_bytes(t, c);
    return sum;
}


// StageMemory::largest_request: each candidate is one tensor, allocated whole.
double largest_request(const Config& c, const ModelGraph& g, const StagePlan& st, const ParamTally& tally,
                       const StateBytes& states, const LayerFigures& layers) {
    double largest = 0;
    // A layer's backward allocates the gradient of each saved tensor, the largest among them too.
    for_each_layer_run(st, g, [&](const Chunk&, const ChunkLayers&, const LayerGroup& grp) {
    largest = std::max(largest, layers.largest_saved(grp.layer));
    });
    // The loss's temporaries (the fp32 upcast of the logits, their gradient), one tensor each.
    if (st.has_post)
    for (const auto& op : g.post.ops)
        for (const auto* list : {&op.forward_temporaries, &op.backward_temporaries})
            for (const auto& t : *list) largest = std::max(largest, saved_tensor_bytes(t, c));
    // DeepSpeed's fp32 gradient of the local partition is one flat tensor (single_partition_of_fp32_groups), and so is
    // each of its ZeRO optimizer's gradient buckets.
    if (c.s.framework == Framework::DeepSpeed) {
        largest = std::max(largest, states.step_transient);
        if (c.s.parallel.zero >= 1) largest = std::max(largest, one_bucket_bytes(c));
    }
    if (c.s.parallel.zero == 3) {
    // ZeRO-3 gathers each parameter whole; FSDP's unit is one flat parameter (a transformer layer).
    const double unit = c.traits.buffers == BufferPolicy::FsdpUnits ? std::min(tally.params, largest_layer_params(g, layers))
                                                                    : tally.largest;
    largest = std::max(largest, unit * bytes_of(c.traits.buffers == BufferPolicy::FsdpUnits ? c.s.training.dtype
                                                                                             : c.s.training.param_dtype));
    }
    return largest;
}

// Megatron's activation CPU offload (training.activation_offload_layers = N; validated: pp 1, no recompute, so
// one microbatch in flight and the stage holds every layer in model order): Transformer Engine's offload handler
// (transformer_engine/pytorch/cpu_offload.py, AsyncDoubleBufferGroupOffloadHandler) copies the saved tensors of
// layers 0..N-1 to host memory after their forward and frees them, and reloads each before its backward, one layer
// ahead. The device keeps the other layers' tensors and one offloaded layer's in flight (the largest); the host
// holds the N layers'.
void offload_activations(const Config& c, const ModelGraph& g, const LayerFigures& layers, StageMemory& m, StageParts& p) {
    const int64_t n = c.s.training.activation_offload_layers;
    if (n == 0) return;
    double moved = 0, largest = 0;
    for (int64_t i = 0; i < n; ++i) {
        const double one = layers.saved(g.groups[static_cast<size_t>(g.layer_group[static_cast<size_t>(i)])].layer);
        moved += one;
        largest = std::max(largest, one);
    }
    p.activations_all -= moved - largest;
    p.activations_one -= moved - largest;
    m.offloaded_layers = n;
    m.offloaded_activations = moved;
    m.host_cpu += moved;
}

// What a stage holds whatever its microbatches in flight: the same for stages that hold the same layers and ends
// (plan/plan.h same_layers), so a pipeline's middle stages compute it once (a search evaluates plans of many stages).
struct StageContent {
    ParamTally tally;
    StateBytes states;
    double layer_backward_temp = 0, largest_request = 0, comm_buffers = 0, cast_weights = 0;
};

StageContent stage_content(const Config& c, const ModelGraph& g, const StagePlan& st, const LayerFigures& layers) {
    StageContent s;
    s.tally = stage_params(c, g, st, layers);
    s.states = model_state_bytes(s.tally, c);
    s.layer_backward_temp = layer_backward_transient(c, g, st, layers);
    s.largest_request = largest_request(c, g, st, s.tally, s.states, layers);
    OtherBytes o;
    framework_buffers(c, g, s.tally, layers, o);
    s.comm_buffers = o.comm_buffers;
    // The allgather dispatcher gathers into Megatron's global memory buffer (use_global_buffer=True): one
    // buffer of the gathered hidden states, kept and reused by every MoE layer of the stage.
    bool moe_stage = false;
    for_each_layer_run(st, g, [&](const Chunk&, const ChunkLayers&, const LayerGroup& grp) { moe_stage = moe_stage || grp.moe; });
    if (moe_stage) s.comm_buffers += allgather_dispatch_bytes(c);
    s.cast_weights = o.cast_weights;
    // Under full recompute the layers run forward without saving anything, so autocast's casts of their
    // weights die with the forward; only the embedding's and head's casts stay for backward
    // (validation/measured: gpt2 with gradient checkpointing). Recompute casts them again, one layer at a time.
    if (c.traits.autocast && c.s.training.recompute == Recompute::Full && s.tally.matmul_weights > 0)
        s.cast_weights *= outside_layers(c, g, st).matmul_weights / s.tally.matmul_weights;
    return s;
}

// Every line written, none zeroed first (a search builds five moments for every stage of every plan it weighs).
MemoryLines resident(const StageParts& p, double gradients, bool in_autocast_region) {
    OtherBytes o{0, p.comm_buffers, in_autocast_region ? p.cast_weights : 0, 0, p.workspace, 0, 0};
    return {p.states.weights, gradients, p.states.optimizer, 0, o};
}

}  // namespace

// The moments of one step on one stage (docs/memory.md "Memory over the step"). Forward fills the
// saved tensors of every in-flight microbatch; backward starts at the loss with its gradient
// temporaries, then frees one microbatch's activations layer by layer while gradients are allocated
// (set_to_none: first touched in the first backward unless the framework keeps a gradient buffer);
// the optimizer step adds its temporaries to weights, gradients and states.
void step_timeline(const StageParts& p, bool has_loss, MemoryTimeline& t) {
    t.clear();
    // Each moment's lines are written whole, none zeroed first (a search builds the moments of every stage it weighs).
    MemoryLines start = resident(p, p.grads_at_start, false);
    t.push_back({phase_key<Phase::StepStart>, "weights and optimizer states (gradients if the framework keeps a buffer)", start});

    MemoryLines fwd = resident(p, p.grads_in_forward, true);
    fwd.activations = p.activations_all;
    fwd.other.logits = p.loss_saved;
    fwd.other.transient = p.loss_forward_temp;
    t.push_back({phase_key<Phase::ForwardEnd>, has_loss ? "every in-flight microbatch saved; the loss's logits and their upcast alive"
                                                        : "every in-flight microbatch saved",
                 fwd});

    if (has_loss) {
        MemoryLines loss = fwd;
        loss.other.transient = p.loss_backward_temp;
        t.push_back({phase_key<Phase::LossBackward>, "the loss's gradient buffers on top of everything saved", loss});
    }

    // Layer backward: at its start one microbatch's activations are all still there and gradients are
    // those of forward; at its end that microbatch's activations are gone and every gradient exists.
    // Both are linear in the progress, so the larger end is the peak.
    // The loss's saved tensors are gone: its backward ran first.
    MemoryLines first = resident(p, p.grads_in_forward, true);
    first.activations = p.activations_all;
    MemoryLines last = resident(p, p.states.gradients, true);
    last.activations = std::max(0.0, p.activations_all - p.activations_one);
    MemoryLines layers = first.allocated() >= last.allocated() ? first : last;
    layers.other.transient = p.layer_backward_temp;
    t.push_back({phase_key<Phase::LayerBackward>, "a layer's backward: its recompute and gradient temporaries", layers});

    MemoryLines opt = resident(p, p.states.gradients, false);
    opt.other.transient = p.states.step_transient;
    t.push_back({phase_key<Phase::OptimizerStep>, "weights, gradients, states and the optimizer's temporaries", opt});
}

double peak_allocated(const MemoryTimeline& timeline) {
    double peak = 0;
    for (const auto& ph : timeline) peak = std::max(peak, ph.lines.allocated());
    return peak;
}


std::vector<StageMemory> stage_memory(const Config& c, const ModelGraph& g, const Plan& plan, MemoryMemo* memo) {
    std::vector<StageMemory> out;
    out.reserve(plan.stages.size());
    const LayerFigures layers(c, memo);
    StageContent content;
    for (size_t i = 0; i < plan.stages.size(); ++i) {
        const StagePlan& st = plan.stages[i];
        if (i == 0 || !same_layers(st, plan.stages[i - 1])) content = stage_content(c, g, st, layers);
        StageMemory& m = out.emplace_back();  // in place: a stage's memory holds its five moments, a kilobyte
        m.rank = st.rank;
        m.layers = st.layer_count();
        for (const auto& ch : st.chunks) m.inflight.push_back(ch.inflight);

        const ParamTally& tally = content.tally;
        m.params = tally.params;
        m.expert_params = tally.expert_params;
        m.frozen_params = tally.frozen;
        m.trained_matrices = tally.trained_matrices;
        m.trained_matrix_params = tally.trained_matrix_elems;
        m.trained_vectors = tally.trained_vectors;
        StageParts p;
        p.states = content.states;
        m.host_cpu = p.states.host_cpu;
        m.host_nvme = p.states.host_nvme;
        // Gradients exist during forward when the framework allocates them up front, or once an earlier
        // microbatch of the step has run backward (accumulation, or the pipeline's steady state).
        p.grads_at_start = c.traits.grads_persist ? p.states.gradients : 0;
        p.grads_in_forward = c.traits.grads_persist || c.d.microbatches > 1 ? p.states.gradients : 0;

        // Activations: each chunk keeps `inflight` microbatches alive (Korthikanti sec. 4.2.3).
        for_each_layer_run(st, g, [&](const Chunk& ch, const ChunkLayers& cl, const LayerGroup& grp) {
            const double one = static_cast<double>(cl.count) * layers.saved(grp.layer);
            p.activations_all += static_cast<double>(ch.inflight) * one;
            p.activations_one += one;
        });
        offload_activations(c, g, layers, m, p);
        if (st.has_pre) {
            const double one = module_activation_bytes(g.pre, c, false);
            p.activations_all += st.pre_inflight * one;
            p.activations_one += one;
        }
        if (st.has_post)
            for (const auto& op : g.post.ops) {
                const double one = op_activation_bytes(op, c, false);
                if (op.is_loss) {
                    p.loss_saved += st.post_inflight * one;
                } else {
                    p.activations_all += st.post_inflight * one;
                    p.activations_one += one;
                }
                p.loss_forward_temp = std::max(p.loss_forward_temp, temporaries_bytes(op.forward_temporaries, c));
                p.loss_backward_temp = std::max(p.loss_backward_temp, temporaries_bytes(op.backward_temporaries, c));
            }
        p.layer_backward_temp = content.layer_backward_temp;
        m.largest_request = content.largest_request;
        p.comm_buffers = content.comm_buffers;
        p.cast_weights = content.cast_weights;
        p.workspace = c.s.hardware.workspace_mib * kMiB;

        XlaStage xla;
        if (c.traits.xla) xla = xla_stage_parts(c, g, st, p);
        step_timeline(p, st.has_post, m.timeline);
        for (size_t i = 1; i < m.timeline.size(); ++i)
            if (m.timeline[i].lines.allocated() > m.timeline[m.peak_phase].lines.allocated()) m.peak_phase = i;
        static_cast<MemoryLines&>(m) = m.timeline[m.peak_phase].lines;
        // XLA assigns buffers when it compiles (no allocator caching blocks); PyTorch's caching allocator fragments.
        m.other.fragmentation = c.traits.xla ? 0 : fragmentation_of(c.s.implementation).typical * m.allocated();
        m.other.overhead = c.s.hardware.overhead_gib * kGiB;
        if (c.traits.xla) {
            m.compiled = true;
            m.xla = xla_program(c, xla, m);
        }
    }
    return out;
}

}  // namespace shardcalc
