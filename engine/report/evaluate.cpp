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
    return r;
}

}  // namespace shardcalc
