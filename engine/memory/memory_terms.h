#pragma once
// The memory report's terms: the moments of the step's memory timeline (MemoryPhase::name) and a moment's allocated
// lines, bottom to top (MemoryLines: weights ... workspace), in the order they are shown.
#include "core/term.h"

namespace shardcalc {

enum class Phase { StepStart, ForwardEnd, LossBackward, LayerBackward, OptimizerStep };

inline constexpr Term kMemoryPhases[] = {
    {"step_start", "step start"},       {"forward_end", "end of forward"}, {"loss_backward", "loss backward"},
    {"layer_backward", "layer backward"}, {"optimizer_step", "optimizer step"},
};

// The key of moment P, fixed at compile time (so that naming a moment keeps none of the labels: core/term.h).
template <Phase P>
inline constexpr const char* phase_key = kMemoryPhases[static_cast<size_t>(P)].key;

inline constexpr Term kMemoryLines[] = {
    {"weights", "Weights"},           {"gradients", "Gradients"}, {"optimizer", "Optimizer"},
    {"activations", "Activations"},   {"logits", "Logits"},       {"comm_buffers", "Comm buffers"},
    {"cast_weights", "Cast weights"}, {"transient", "Transient"}, {"workspace", "Workspace"},
};

}  // namespace shardcalc
