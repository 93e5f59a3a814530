#include "compute/stage_cost.h"

#include "graph/blocks.h"
#include "graph/build.h"

namespace shardcalc {
namespace {

void attention_seconds(const Module& m, const Config& c, double count, StageCompute& out) {
    for (const auto& op : m.ops)
        for (const auto& w : op.work)
            if (w.kind == WorkKind::Attention) {
                Op alone{op.name, {}, {}, false, {w}};
                const OpCost k = op_cost(alone, c, false);
                out.attention_fwd += count * k.fwd.seconds;
                out.attention_bwd += count * k.bwd.seconds;
            }
    for (const auto& child : m.children) attention_seconds(child, c, count, out);
}

}  // namespace

StageCompute stage_compute(const Config& c, const ModelGraph& g, const StagePlan& st) {
    StageCompute out;
    for (const auto& ch : st.chunks)
        for (const auto& cl : ch.layers) {
            const LayerGroup& group = g.groups[static_cast<size_t>(cl.group)];
            const OpCost layers = module_cost(group.layer, c, true).scaled(static_cast<double>(cl.count));
            out.cost += layers;
            out.layers_fwd += layers.fwd;
            attention_seconds(group.layer, c, static_cast<double>(cl.count), out);
            out.layers += cl.count;
            out.param_tensors += static_cast<double>(cl.count) * param_tensor_count(group.layer);
            if (group.moe) out.moe_layers += cl.count;
        }
    if (st.has_pre) out.cost += module_cost(g.pre, c, false);
    if (st.has_post) {
        out.cost += module_cost(g.post, c, false);
        // Multi-token prediction layers (graph/decoder.cpp) run on the last stage, MoE ones exchanging tokens too.
        const ModelSpec& m = c.s.model;
        if (m.layers > 0 && is_moe_layer(m, m.layers - 1)) out.moe_layers += m.mtp_layers;
    }
    return out;
}

}  // namespace shardcalc
