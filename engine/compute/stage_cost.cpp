#include "compute/stage_cost.h"

#include "graph/blocks.h"
#include "graph/build.h"

namespace shardcalc {

namespace {

// The cost of the subtrees of `m` that are a MoE layer's experts (graph/op.h Module::expert_compute).
void add_expert_compute(const Module& m, const Config& c, bool in_layer, OpCost& out) {
    if (m.expert_compute) {
        out += module_cost(m, c, in_layer);
        return;
    }
    for (const Module& child : m.children) add_expert_compute(child, c, in_layer, out);
}

}  // namespace

LayerCost layer_cost(const Module& m, const Config& c, bool in_layer) {
    LayerCost out;
    out.cost = module_cost(m, c, in_layer);
    for_each_op(m, [&](const Op& op) {
        for (const auto& w : op.work)
            if (w.kind == WorkKind::Attention) {
                Op alone{op.name, {}, {}, false, {w}};
                const OpCost k = op_cost(alone, c, false);
                out.attention.emplace_back(k.fwd.seconds, k.bwd.seconds);
            }
    });
    add_expert_compute(m, c, in_layer, out.experts);
    out.param_tensors = param_tensor_count(m);
    return out;
}

const LayerCost& LayerCosts::cost(const Module& m, const Config& c, bool in_layer) {
    return kept_.get(
        m, in_layer, [&]() -> const LayerCost* { return memo_ ? &memo_->cost(m, c, in_layer) : nullptr; },
        [&] { return layer_cost(m, c, in_layer); });
}

namespace {

// The layer's tensor-parallel GEMMs (sharded, not an expert's) in graph order: their GEMM kernels alone, not an fp8
// recipe's quantization beside them.
void tp_gemms(const Module& m, const Config& c, TpLayerGemms& out) {
    for_each_op(m, [&](const Op& op) {
        for (const auto& w : op.work) {
            if (w.kind != WorkKind::Matmul || !w.sharded || w.routed) continue;
            const WorkKernels k = work_kernels(w, c);
            TpGemm g;
            for (int i = 0; i < k.count; ++i) {
                if (k.list[i].gemm.m <= 0) continue;
                if (k.list[i].pass == Pass::Forward) g.fwd += k.list[i].kernel.seconds * k.list[i].repeat;
                if (k.list[i].pass == Pass::BackwardData) g.dgrad += k.list[i].kernel.seconds * k.list[i].repeat;
            }
            (w.split_in ? out.row : out.column).push_back(g);
        }
    });
}

}  // namespace

void stage_compute(const Config& c, const ModelGraph& g, const StagePlan& st, LayerCosts& layer_costs, StageCompute& out) {
    // By reference (a copy would allocate: LayerCost holds a vector).
    const auto costs = [&](const Module& m, bool in_layer) -> const LayerCost& { return layer_costs.cost(m, c, in_layer); };
    for_each_layer_run(st, g, [&](const Chunk&, const ChunkLayers& cl, const LayerGroup& group) {
        const double count = static_cast<double>(cl.count);
        const LayerCost& one = costs(group.layer, true);
        const OpCost layers = one.cost.scaled(count);
        out.cost += layers;
        out.layers_fwd += layers.fwd;
        for (const auto& [fwd, bwd] : one.attention) {
            out.attention_fwd += count * fwd;
            out.attention_bwd += count * bwd;
        }
        out.layers += cl.count;
        out.param_tensors += count * one.param_tensors;
        if (group.moe) {
            out.moe_layers += cl.count;
            out.moe.layers += cl.count;
            out.moe.layer += layers;
            out.moe.experts += one.experts.scaled(count);
        }
        if (c.s.parallel.tp_comm_overlap) {
            TpLayerGemms t;
            t.count = cl.count;
            tp_gemms(group.layer, c, t);
            out.tp_layers.push_back(std::move(t));
        }
    });
    if (st.has_pre) out.cost += costs(g.pre, false).cost;
    if (st.has_post) {
        out.cost += costs(g.post, false).cost;
        // Multi-token prediction layers (graph/decoder.cpp) run on the last stage, MoE ones exchanging tokens too.
        const ResolvedModel& m = c.s.model;
        if (m.layers > 0 && is_moe_layer(m, m.layers - 1)) out.moe_layers += m.mtp_layers;
    }
}

}  // namespace shardcalc
