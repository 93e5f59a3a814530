#include "schedule/step.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "compute/pass_time.h"
#include "schedule/activation_offload.h"
#include "schedule/step_parts.h"

namespace shardcalc {
namespace {

// A stage's exposed collective seconds per dimension, those of each microbatch's passes and those of the step (gradient
// syncs and gathers, and the tied embeddings' all-reduce over pp), in one pass over its collectives.
struct Exposed {
    double pass[std::size(kDimensions)] = {}, step[std::size(kDimensions)] = {};
    explicit Exposed(const StageComm& sc) {
        for (const auto& e : sc.entries) (per_step(e) ? step : pass)[static_cast<size_t>(e.dimension)] += e.exposed_seconds;
    }
    double of(Dim d, bool step_level) const { return (step_level ? step : pass)[static_cast<size_t>(d)]; }
};

// The bytes a stage's parameters take as stored, before ZeRO-3 partitions them (its gathers move these).
double weight_bytes(const Config& c, const StageMemory& m) {
    return c.s.parallel.zero >= 3 ? m.params * bytes_of(c.s.training.param_dtype) : m.weights;
}

}  // namespace

OptimizerKernels stage_optimizer(const Config& c, const StageMemory& m) {
    const ResolvedParallel& p = c.s.parallel;
    const double shard = (p.zero >= 1 || p.distributed_optimizer) ? static_cast<double>(c.d.replica_degree) : 1;
    // It updates the trained parameters only (an adapter's, not its frozen base).
    const double trained = m.params - m.frozen_params;
    // Flat partitions (FrameworkTraits::flat_optimizer_params): the optimizer loops over the Trainer's two parameter
    // groups (with and without weight decay), one vector each.
    const TrainedTensors tensors = c.traits.flat_optimizer_params ? TrainedTensors{0, 0, 2}
                                                                  : TrainedTensors{m.trained_matrices, m.trained_matrix_params / shard, m.trained_vectors};
    return optimizer_kernels(c, trained / shard, m.optimizer, m.host_cpu, tensors, trained);
}

Performance performance(const Config& c, const ModelGraph& g, const Plan& plan, const std::vector<StageMemory>& mem,
                        bool with_timeline, ComputeMemo* memo) {
    Performance perf;
    const double mb = static_cast<double>(c.d.microbatches);
    const double devices_per_stage = static_cast<double>(c.d.world_size / c.s.parallel.pp);
    double p2p = 0;
    // Stages holding the same layers, ends and parameters compute and communicate alike (most middle
    // pipeline stages): each distinct one is costed once.
    auto same_work = [&](size_t a, size_t b) {
        return mem[a].params == mem[b].params && same_layers(plan.stages[a], plan.stages[b]);
    };
    LayerCosts costs(memo);  // each layer kind's costs looked up once for all stages
    std::vector<OffloadExposed> offloads;  // per stage: what its activation copies add to a microbatch
    offloads.reserve(plan.stages.size());
    perf.stage_times.reserve(plan.stages.size());
    perf.compute.reserve(plan.stages.size());
    perf.comm.reserve(plan.stages.size());
    std::vector<double> optimizer_seconds;  // per stage: its optimizer step (a twin's is its twin's)
    optimizer_seconds.reserve(plan.stages.size());
    for (size_t i = 0; i < plan.stages.size(); ++i) {
        size_t twin = i;
        for (size_t j = 0; j < i && twin == i; ++j)
            if (same_work(i, j)) twin = j;
        // Built in place (a stage's compute is a kilobyte; the vectors were reserved, so a twin's stays where it is).
        StageCompute& sc = perf.compute.emplace_back();
        if (twin == i) stage_compute(c, g, plan.stages[i], costs, sc);
        else sc = perf.compute[twin];
        // XLA recomputes the saved tensors it rematerialized in backward: their share of the layers' forward, an upper
        // bound (its pass removes the cheapest to recompute first, elementwise results before matmul outputs).
        if (twin == i && mem[i].compiled)
            sc.cost.recompute += scaled(sc.layers_fwd, mem[i].xla.rematerialized_share);
        const StageComm& comm = twin == i ? perf.comm.emplace_back(stage_communication(c, plan.stages[i], sc, mem[i].params,
                                                                                       mem[i].expert_params, weight_bytes(c, mem[i]),
                                                                                       mem[i].frozen_params))
                                          : perf.comm.emplace_back(perf.comm[twin]);
        optimizer_seconds.push_back(twin == i ? stage_optimizer(c, mem[i]).seconds() : optimizer_seconds[twin]);
        const OffloadExposed& offload = offloads.emplace_back(activation_offload_exposed(c, sc, mem[i]));
        const Kernel bwd = backward_kernels(sc);
        perf.stage_times.push_back({forward_pass_seconds(sc.cost.fwd, comm.fwd_calls, c) + comm.fwd_exposed + offload.forward,
                                    backward_pass_seconds(bwd, comm.bwd_calls, c) + comm.bwd_exposed + offload.backward});
        for (const auto& e : comm.entries)
            if (e.dimension == Dim::Pp && e.kind == CollectiveKind::SendRecv) p2p = e.seconds_each;
        perf.model_flops += sc.cost.model_flops * mb * devices_per_stage;
        perf.model_flops_full_attention += sc.cost.model_flops_full_attention * mb * devices_per_stage;
        perf.hardware_flops +=
            (sc.cost.fwd.flops + sc.cost.bwd.flops + sc.cost.recompute.flops) * mb * devices_per_stage;
    }
    perf.pipeline = pipeline_time(perf.stage_times, c.d.microbatches, c.s.parallel.vpp);

    // After the pipeline drains: exposed gradient/parameter collectives and the optimizer step.
    size_t tail_stage = 0;
    double tail = -1, tail_optimizer = 0;
    for (size_t i = 0; i < plan.stages.size(); ++i) {
        const double optimizer = optimizer_seconds[i];
        const double t = perf.comm[i].step_exposed + optimizer;
        if (t > tail) {
            tail = t;
            tail_stage = i;
            tail_optimizer = optimizer;
        }
    }
    perf.step_seconds = perf.pipeline.seconds + tail;

    const size_t k = perf.pipeline.critical_stage;
    perf.comm_stage = k;
    const StageCompute& sc = perf.compute[k];
    const Kernel bwd = backward_kernels(sc);
    perf.step_kernels = sc.cost.fwd;
    perf.step_kernels += bwd;
    perf.step_kernels = scaled(perf.step_kernels, mb);
    const StageComm& cm = perf.comm[k];
    const OffloadExposed& offload = offloads[k];
    const Exposed critical(cm), tail_comm(perf.comm[tail_stage]);
    double own[std::size(kStepParts)];
    own[static_cast<size_t>(StepPart::ForwardCompute)] = mb * sc.cost.fwd.seconds;
    own[static_cast<size_t>(StepPart::ForwardHostWait)] = mb * (forward_pass_seconds(sc.cost.fwd, cm.fwd_calls, c) - sc.cost.fwd.seconds);
    own[static_cast<size_t>(StepPart::BackwardCompute)] = mb * sc.cost.bwd.seconds;
    own[static_cast<size_t>(StepPart::Recompute)] = mb * sc.cost.recompute.seconds;
    own[static_cast<size_t>(StepPart::BackwardHostWait)] = mb * (backward_pass_seconds(bwd, cm.bwd_calls, c) - bwd.seconds);
    own[static_cast<size_t>(StepPart::ActivationOffload)] = mb * (offload.forward + offload.backward);
    own[static_cast<size_t>(StepPart::PipelineBubble)] = perf.pipeline.bubble;
    own[static_cast<size_t>(StepPart::OptimizerStep)] = tail_optimizer;
    perf.breakdown.reserve(kStepOrder.size());
    for (const StepSlot& slot : kStepOrder)
        perf.breakdown.emplace_back(slot.term.key, slot.kind == StepSlot::Own             ? own[static_cast<size_t>(slot.own)]
                                                   : slot.kind == StepSlot::PerMicrobatch ? critical.of(slot.dim, false)
                                                                                          : tail_comm.of(slot.dim, true));
    if (with_timeline)
        perf.timeline = simulate_schedule(perf.stage_times, c.d.microbatches, c.s.parallel.vpp, c.s.parallel.schedule, p2p,
                                          kMaxTimelineEvents);
    return perf;
}

}  // namespace shardcalc
