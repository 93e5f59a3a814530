#include "compute/stage_cost.h"

#include "graph/blocks.h"
#include "graph/build.h"

namespace shardcalc {
namespace {

void attention_seconds(const Module& m, const Config& c, double count, StageCompute& out) {
    for_each_op(m, [&](const Op& op) {
        for (const auto& w : op.work)
            if (w.kind == WorkKind::Attention) {
                Op alone{op.name, {}, {}, false, {w}};
                const OpCost k = op_cost(alone, c, false);
                out.attention_fwd += count * k.fwd.seconds;
                out.attention_bwd += count * k.bwd.seconds;
            }
    });
}

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

StageCompute stage_compute(const Config& c, const ModelGraph& g, const StagePlan& st) {
    StageCompute out;
    for_each_layer_run(st, g, [&](const Chunk&, const ChunkLayers& cl, const LayerGroup& group) {
        const OpCost layers = module_cost(group.layer, c, true).scaled(static_cast<double>(cl.count));
        out.cost += layers;
        out.layers_fwd += layers.fwd;
        attention_seconds(group.layer, c, static_cast<double>(cl.count), out);
        out.layers += cl.count;
        out.param_tensors += static_cast<double>(cl.count) * param_tensor_count(group.layer);
        if (group.moe) out.moe_layers += cl.count;
        if (c.s.parallel.tp_comm_overlap) {
            TpLayerGemms t;
            t.count = cl.count;
            tp_gemms(group.layer, c, t);
            out.tp_layers.push_back(std::move(t));
        }
    });
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
