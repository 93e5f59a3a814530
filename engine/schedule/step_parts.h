#pragma once
// The parts of a step's time (Performance::breakdown), in the order they happen in a step: the passes' own parts
// (StepPart), and between them each parallel dimension's exposed communication, named by its row in
// comm/dimension_rules.h.
#include <array>
#include <cstddef>

#include "comm/dimension_rules.h"
#include "core/term.h"

namespace shardcalc {

enum class StepPart {
    ForwardCompute, ForwardHostWait, BackwardCompute, Recompute, BackwardHostWait, ActivationOffload,
    PipelineBubble, OptimizerStep,
};

inline constexpr Term kStepParts[] = {
    {"forward_compute", "Forward compute"},
    {"forward_host_wait", "Forward host wait (kernel launches)"},
    {"backward_compute", "Backward compute"},
    {"recompute", "Recompute"},
    {"backward_host_wait", "Backward host wait (kernel launches)"},
    {"activation_offload", "Activation offload (exposed)"},
    {"pipeline_bubble", "Pipeline bubble"},
    {"optimizer_step", "Optimizer step"},
};

// The key of part P, fixed at compile time (so that naming a part keeps none of the labels: core/term.h).
template <StepPart P>
inline constexpr const char* part_key = kStepParts[static_cast<size_t>(P)].key;

// One part of the breakdown: a pass's own (`own`), or a dimension's exposed communication per microbatch on the
// critical stage or once per step.
struct StepSlot {
    enum Kind { Own, PerMicrobatch, PerStep } kind;
    StepPart own;  // for Own
    Dim dim;       // for PerMicrobatch and PerStep
    Term term;
};

namespace detail {
constexpr size_t step_slot_count() {
    size_t n = std::size(kStepParts);
    for (const CommRule& r : kCommRules) n += (r.pass_part.key ? 1 : 0) + (r.step_part.key ? 1 : 0);
    return n;
}
// The passes' parts up to the offload, every dimension's per-microbatch part, the bubble, every dimension's per-step
// part, the optimizer.
constexpr std::array<StepSlot, step_slot_count()> step_order() {
    std::array<StepSlot, step_slot_count()> out{};
    size_t i = 0;
    auto own = [&](StepPart p) { out[i++] = {StepSlot::Own, p, Dim::Tp, kStepParts[static_cast<size_t>(p)]}; };
    for (StepPart p : {StepPart::ForwardCompute, StepPart::ForwardHostWait, StepPart::BackwardCompute, StepPart::Recompute,
                       StepPart::BackwardHostWait, StepPart::ActivationOffload})
        own(p);
    for (const CommRule& r : kCommRules)
        if (r.pass_part.key) out[i++] = {StepSlot::PerMicrobatch, StepPart::ForwardCompute, r.dim, r.pass_part};
    own(StepPart::PipelineBubble);
    for (const CommRule& r : kCommRules)
        if (r.step_part.key) out[i++] = {StepSlot::PerStep, StepPart::ForwardCompute, r.dim, r.step_part};
    own(StepPart::OptimizerStep);
    return out;
}
}  // namespace detail

// Every part of the step's breakdown, in the order a reader sees them (the report's breakdown_order).
inline constexpr auto kStepOrder = detail::step_order();

}  // namespace shardcalc
