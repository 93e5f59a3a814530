#pragma once
// The parts of a step's time (Performance::breakdown), in the order they happen in a step.
#include "core/term.h"

namespace shardcalc {

enum class StepPart {
    ForwardCompute, ForwardHostWait, BackwardCompute, Recompute, BackwardHostWait, ActivationOffload,
    TpExposed, CpExposed, UlyssesExposed, EpExposed, PpP2p, PipelineBubble,
    DpExposed, Zero3Exposed, ExpertDpExposed, EmbeddingSync, OptimizerStep,
};

inline constexpr Term kStepParts[] = {
    {"forward_compute", "Forward compute"},
    {"forward_host_wait", "Forward host wait (kernel launches)"},
    {"backward_compute", "Backward compute"},
    {"recompute", "Recompute"},
    {"backward_host_wait", "Backward host wait (kernel launches)"},
    {"activation_offload", "Activation offload (exposed)"},
    {"tp_exposed", "Tensor-parallel comm (exposed)"},
    {"cp_exposed", "Context-parallel comm (exposed)"},
    {"ulysses_exposed", "Ulysses all-to-all (exposed)"},
    {"ep_exposed", "Expert all-to-all (exposed)"},
    {"pp_p2p", "Pipeline send/recv"},
    {"pipeline_bubble", "Pipeline bubble"},
    {"dp_exposed", "Data-parallel comm (exposed)"},
    {"zero3_exposed", "ZeRO-3 gathers (exposed)"},
    {"expert_dp_exposed", "Expert gradient sync (exposed)"},
    {"embedding_sync", "Embedding sync"},
    {"optimizer_step", "Optimizer step"},
};

// The key of part P, fixed at compile time (so that naming a part keeps none of the labels: core/term.h).
template <StepPart P>
inline constexpr const char* part_key = kStepParts[static_cast<size_t>(P)].key;

}  // namespace shardcalc
