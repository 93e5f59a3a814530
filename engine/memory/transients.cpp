// Temporaries of the step beyond what forward saves (memory/transients.h).
#include "memory/transients.h"

#include <algorithm>

#include "graph/blocks.h"
#include "memory/activations.h"
#include "scenario/dimension.h"

namespace shardcalc {

// Megatron's allgather dispatcher, per MoE layer and microbatch: the gathered hidden states of the expert group
// (dispatch forward; the output gradients gathered backward), one tensor of the gathered shape at a time.
double allgather_dispatch_bytes(const Config& c) {
    const ResolvedParallel& p = c.s.parallel;
    if (p.moe_dispatcher != MoeDispatcher::AllGather || p.ep * p.etp == 1) return 0;
    return allgather_dispatch_rows(c) * static_cast<double>(c.s.model.hidden) * bytes_of(c.s.training.dtype);
}

// transformers' eager experts: each expert's select of a [experts, out, in] parameter has a gradient of the whole
// parameter's shape, summed into one buffer as the loop's backward runs (graph/eager_kernels.cpp select_gradients):
// the buffer and the next expert's gradient, of the larger projection (gate/up), at once.
double select_gradient_bytes(const Config& c) {
    if (!c.traits.hf_code || c.s.implementation.experts != ExpertsImpl::Eager) return 0;
    const ResolvedModel& m = c.s.model;
    const bool gated = m.mlp == Mlp::Swiglu || m.mlp == Mlp::Geglu;
    const double up = static_cast<double>(m.experts) * static_cast<double>((gated ? 2 : 1) * *m.expert_ffn_hidden) *
                      static_cast<double>(m.hidden);
    return 2 * up * bytes_of(c.s.training.param_dtype);
}

// Temporaries while one layer runs backward: a recomputed layer plus the gradients of its largest
// saved tensor (the gradient flowing in and the one flowing out are alive together).
double layer_backward_transient(const Config& c, const ModelGraph& g, const StagePlan& st, const LayerFigures& layers) {
    double peak = 0;
    for_each_layer_run(st, g, [&](const Chunk&, const ChunkLayers&, const LayerGroup& grp) {
        const Module& layer = grp.layer;
        const double all = layers.saved_all(layer);
        const double recompute = all - layers.saved(layer) +
                                 (c.s.training.recompute == Recompute::Full ? layer_checkpoint_bytes(c) : 0);
        // The allgather dispatcher's backward gathers the output gradients of the whole expert group.
        const double gathered = grp.moe ? allgather_dispatch_bytes(c) : 0;
        peak = std::max(peak, std::max(0.0, recompute) + 2 * layers.largest_saved(layer) + gathered + (grp.moe ? select_gradient_bytes(c) : 0));
    });
    return peak;
}

}  // namespace shardcalc
