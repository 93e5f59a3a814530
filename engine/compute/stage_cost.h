#pragma once
// Compute of one pipeline stage for one microbatch on one device: every op of its layers,
// plus the embeddings on the first stage and the head on the last.
#include "compute/op_cost.h"
#include "plan/plan.h"

namespace shardcalc {

struct StageCompute {
    OpCost cost;                    // forward, backward, recompute kernels and model FLOPs
    Kernel layers_fwd;              // the forward kernels of the stage's layers alone (what XLA's rematerialization reruns)
    double attention_fwd = 0;       // seconds of core attention, the window ring attention hides behind
    double attention_bwd = 0;
    int64_t layers = 0;
    double param_tensors = 0;       // parameter tensors of those layers (graph/blocks.h param_tensor_count)
    int64_t moe_layers = 0;         // of which mixture-of-experts layers
};

StageCompute stage_compute(const Config& c, const ModelGraph& g, const StagePlan& st);

}  // namespace shardcalc
