#include <string>

#include "core/error.h"
#include "graph/build.h"
#include "report/report.h"

namespace shardcalc {
namespace {

// Parameters of a module, tied copies once; each routed expert tensor weighted by `expert_share` (1: all of
// them; top-k / experts: the share a token uses); `trained_only`: the frozen ones left out.
double unique_params(const Module& m, double expert_share = 1, bool trained_only = false) {
    double n = 0;
    for_each_op(m, [&](const Op& op) {
        for (const auto& p : op.params)
            if (!p.tied && !p.shared && !(trained_only && p.frozen))
                n += static_cast<double>(p.numel()) * (p.split == ParamSplit::Expert ? expert_share : 1);
    });
    return n;
}

void add_plan_notes(const Config& c, std::vector<std::string>& notes) {
    const ResolvedParallel& p = c.s.parallel;
    if (p.sp && p.tp == 1) notes.push_back("parallel.sp has no effect with tp = 1");
    if (c.s.model.position_embedding == PositionEmbedding::Rope && c.s.model.max_positions > 0 &&
        c.s.training.seq_len > c.s.model.max_positions)
        notes.push_back("training.seq_len exceeds model.max_positions: RoPE needs scaling to extrapolate");
    if (c.d.microbatches < p.pp && p.pp > 1)
        notes.push_back("fewer microbatches (" + std::to_string(c.d.microbatches) + ") than pipeline stages (" +
                        std::to_string(p.pp) + "): most of the step is pipeline bubble");
}

}  // namespace

ParameterCounts count_parameters(const ModelGraph& g, const ModelFields& m) {
    ParameterCounts pc;
    pc.embedding = unique_params(g.pre);
    // A MoE model's active parameters: everything but the routed experts a token skips (the convention of the
    // Mixtral, Qwen3 and DeepSeek model cards, embeddings included).
    const double share = m.experts > 0 ? static_cast<double>(*m.experts_per_token) / static_cast<double>(m.experts) : 1;
    double active_layers = 0;
    pc.trained = unique_params(g.pre, 1, true) + unique_params(g.post, 1, true);
    for (const auto& grp : g.groups) {
        const double copies = grp.shared_weights ? 1 : static_cast<double>(grp.count);
        pc.layers += unique_params(grp.layer) * copies;
        active_layers += unique_params(grp.layer, share) * copies;
        pc.trained += unique_params(grp.layer, 1, true) * copies;
    }
    pc.head = unique_params(g.post);
    for (const auto& child : g.post.children)
        if (child.name == "mtp") pc.mtp += unique_params(child);
    pc.total = pc.embedding + pc.layers + pc.head;
    pc.active = pc.embedding + active_layers + unique_params(g.post, share);
    return pc;
}

Report evaluate(const Scenario& scenario) {
    Config c = resolve(scenario);
    const ModelGraph g = build_graph(c);
    Report r;
    static_cast<Estimate&>(r) = estimate(std::move(c), g, Detail::Full);
    r.parameters = count_parameters(g, r.config.s.model);
    if (!(r.parameters.total <= 4611686018427387904.0))  // 2^62, as check_reportable
        throw InputError("/model", "the model has more than 2^62 parameters; shardcalc reports counts up to 2^62");
    r.modules = module_table(r.config, g);
    r.notes = r.config.notes;
    add_plan_notes(r.config, r.notes);
    check_reportable(r);
    return r;
}

}  // namespace shardcalc
