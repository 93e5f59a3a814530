#pragma once
// Compute of one pipeline stage for one microbatch on one device: every op of its layers,
// plus the embeddings on the first stage and the head on the last.
#include "compute/compute_memo.h"
#include "compute/op_cost.h"
#include "plan/plan.h"

namespace shardcalc {

// The tensor-parallel GEMMs of one layer in graph order, seconds per microbatch of the forward GEMM and of the
// data-gradient GEMM: what Transformer Engine's userbuffers overlap each sequence-parallel collective with
// (parallel.tp_comm_overlap; comm/tensor_comm.cpp).
struct TpGemm {
    double fwd = 0, dgrad = 0;
};
struct TpLayerGemms {
    int64_t count = 0;              // layers of this kind on the stage
    std::vector<TpGemm> column;     // column-parallel: an all-gather before it forward, a reduce-scatter after its dgrad
    std::vector<TpGemm> row;        // row-parallel: a reduce-scatter after it forward, an all-gather before its dgrad
};

// The stage's MoE layers (not the multi-token prediction ones), whole and their experts alone, per microbatch: what
// the expert-parallel overlap schedule pairs with the token exchanges (comm/expert_comm.cpp).
struct MoeCompute {
    int64_t layers = 0;
    OpCost layer;
    OpCost experts;
};

struct StageCompute {
    OpCost cost;                    // forward, backward, recompute kernels and model FLOPs
    Kernel layers_fwd;              // the forward kernels of the stage's layers alone (what XLA's rematerialization reruns)
    double attention_fwd = 0;       // seconds of core attention, the window ring attention hides behind
    double attention_bwd = 0;
    int64_t layers = 0;
    double param_tensors = 0;       // parameter tensors of those layers (graph/blocks.h param_tensor_count)
    // Layers that exchange tokens with their experts: the decoder's MoE layers (moe.layers) and, on the last stage, the
    // multi-token prediction layers of a MoE model, whose costs are the head's (g.post).
    int64_t moe_layers = 0;
    MoeCompute moe;
    std::vector<TpLayerGemms> tp_layers;  // with parallel.tp_comm_overlap only
};

// `layer_costs`: the plan's layer costs (compute/compute_memo.h LayerCosts, over the search's memo or none). Into
// `out`, a fresh one where the caller keeps it (a stage's compute is a kilobyte, built for every plan).
void stage_compute(const Config& c, const ModelGraph& g, const StagePlan& st, LayerCosts& layer_costs, StageCompute& out);

}  // namespace shardcalc
