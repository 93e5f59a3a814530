#include <algorithm>
#include <map>
#include <string>

#include "core/error.h"
#include "graph/build.h"
#include "plan/plan.h"
#include "report/report.h"

namespace shardcalc {
namespace {

double unique_params(const Module& m) {
    double n = 0;
    for (const auto& op : m.ops)
        for (const auto& p : op.params)
            if (!p.tied) n += static_cast<double>(p.numel());
    for (const auto& child : m.children) n += unique_params(child);
    return n;
}

void add_plan_notes(const Config& c, std::vector<std::string>& notes) {
    const ParallelSpec& p = c.s.parallel;
    if (p.sp && p.tp == 1) notes.push_back("parallel.sp has no effect with tp = 1");
    if (c.s.model.position_embedding == PositionEmbedding::Rope && c.s.model.max_positions > 0 &&
        c.d.seq_len > c.s.model.max_positions)
        notes.push_back("training.seq_len exceeds model.max_positions: RoPE needs scaling to extrapolate");
    if (c.d.microbatches < p.pp && p.pp > 1)
        notes.push_back("fewer microbatches (" + std::to_string(c.d.microbatches) + ") than pipeline stages (" +
                        std::to_string(p.pp) + "): most of the step is pipeline bubble");
}

// The report gives byte and element counts as 64-bit integers. A plan whose counts pass 2^62 (4.6 EB
// per device; no accelerator comes near) is an input error naming the part of the scenario that drives
// the count, never an overflowed negative number.
void check_reportable(const Report& r) {
    constexpr double kMax = 4611686018427387904.0;  // 2^62
    auto gib = [](double b) { return std::to_string(static_cast<long long>(b / (1024.0 * 1024 * 1024))) + " GiB"; };
    if (!(r.parameters.total <= kMax))
        throw InputError("/model", "the model has more than 2^62 parameters; shardcalc reports counts up to 2^62");
    for (const auto& s : r.stages) {
        const double states = s.weights + s.gradients + s.optimizer + s.host_cpu + s.host_nvme;
        if (!(states <= kMax))
            throw InputError("/model", "weights, gradients and optimizer states of one device exceed 2^62 bytes (" +
                                           gib(states) + "); shardcalc reports up to 2^62");
        double largest = s.total();
        for (const auto& ph : s.timeline) largest = std::max(largest, ph.lines.allocated());
        if (!(largest <= kMax))
            throw InputError("/training/micro_batch", "one device would hold more than 2^62 bytes (" + gib(largest) +
                                                          ") of activations; shardcalc reports up to 2^62");
    }
    // Time to train, in GPU-hours and money (integers in the text formats).
    const Config& c = r.config;
    if (c.s.training.train_tokens > 0 && r.perf.step_seconds > 0) {
        const double gpu_hours = c.s.training.train_tokens / static_cast<double>(c.d.tokens_per_step) *
                                 r.perf.step_seconds * static_cast<double>(c.d.world_size) / 3600;
        if (!(gpu_hours <= kMax))
            throw InputError("/training/train_tokens", "training would take more than 2^62 GPU-hours");
        if (!(gpu_hours * c.s.hardware.price_per_gpu_hour <= kMax))
            throw InputError("/hardware/price_per_gpu_hour", "the training run would cost more than 2^62");
    }
    // Host memory per node is the per-device figure times the devices of a node.
    const double per_node = static_cast<double>(std::min(c.s.hardware.gpus_per_node, c.d.world_size));
    for (const auto& s : r.stages)
        if (!((s.host_cpu + s.host_nvme) * per_node <= kMax))
            throw InputError("/parallel/offload_optimizer", "offloaded states of one node exceed 2^62 bytes");
    // Traffic per step, per collective and summed per dimension (communication_summary).
    for (const auto& sc : r.perf.comm) {
        std::map<std::string, double> per_dimension;
        for (const auto& e : sc.entries) per_dimension[e.dimension] += e.bytes * e.count;
        for (const auto& [dimension, bytes] : per_dimension)
            if (!(bytes <= kMax))
                throw InputError("/training/global_batch", "the " + dimension +
                                                               " traffic per step exceeds 2^62 bytes; shardcalc reports up to 2^62");
    }
}

}  // namespace

ParameterCounts count_parameters(const ModelGraph& g) {
    ParameterCounts pc;
    pc.embedding = unique_params(g.pre);
    for (const auto& grp : g.groups)
        pc.layers += unique_params(grp.layer) * (grp.shared_weights ? 1 : static_cast<double>(grp.count));
    pc.head = unique_params(g.post);
    pc.total = pc.embedding + pc.layers + pc.head;
    return pc;
}

Report evaluate(const Scenario& scenario) {
    Report r;
    r.config = resolve(scenario);
    const Config& c = r.config;
    const ModelGraph g = build_graph(c);
    const Plan plan = make_plan(c, g);
    r.parameters = count_parameters(g);
    r.stages = stage_memory(c, g, plan);
    for (size_t i = 1; i < r.stages.size(); ++i)
        if (r.stages[i].total() > r.stages[r.peak_stage].total()) r.peak_stage = i;
    r.capacity = c.s.hardware.memory_gib * 1024.0 * 1024.0 * 1024.0;
    const StageMemory& peak = r.peak();
    r.verdict = memory_verdict(peak.allocated(), peak.other.overhead, r.capacity);
    r.perf = performance(c, g, plan, r.stages);
    r.modules = module_table(c, g);
    r.notes = c.notes;
    add_plan_notes(c, r.notes);
    check_reportable(r);
    return r;
}

}  // namespace shardcalc
