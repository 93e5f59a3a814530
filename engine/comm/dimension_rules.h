#pragma once
// Each parallel dimension's communication in one row: the rule that adds its collectives to a stage (a StageRules
// method, in its dimension's file), whether that rule needs the passes' exposed time first (a gradient reduction hides
// behind the backward the others lengthen), and the parts of the step's time its exposed seconds show as: per
// microbatch on the critical stage (`pass_part`) or once a step after the pipeline drains (`step_part`; which entries
// are which: `per_step`). The rows are in the order the step's breakdown shows their parts (schedule/step_parts.h);
// a new dimension is its Dim (scenario/dimension.h) and its row here.
#include <cstddef>
#include <iterator>

#include "comm/stage_rules.h"
#include "core/term.h"

namespace shardcalc {

struct CommRule {
    Dim dim;
    void (StageRules::*add)() const;
    bool after_passes;
    Term pass_part;  // key null: the dimension has no per-microbatch part
    Term step_part;  // key null: none once a step
};

inline constexpr CommRule kCommRules[] = {
    {Dim::Tp, &StageRules::tensor_parallel, false, {"tp_exposed", "Tensor-parallel comm (exposed)"}, {}},
    {Dim::Cp, &StageRules::context_parallel, false, {"cp_exposed", "Context-parallel comm (exposed)"}, {}},
    {Dim::Ulysses, &StageRules::ulysses_parallel, false, {"ulysses_exposed", "Ulysses all-to-all (exposed)"}, {}},
    {Dim::Ep, &StageRules::expert_parallel, false, {"ep_exposed", "Expert all-to-all (exposed)"}, {}},
    {Dim::Dp, &StageRules::data_parallel, true, {}, {"dp_exposed", "Data-parallel comm (exposed)"}},
    {Dim::Zero3, &StageRules::zero3_parallel, true, {}, {"zero3_exposed", "ZeRO-3 gathers (exposed)"}},
    {Dim::ExpertDp, &StageRules::expert_data_parallel, true, {}, {"expert_dp_exposed", "Expert gradient sync (exposed)"}},
    {Dim::Pp, &StageRules::pipeline_parallel, false, {"pp_p2p", "Pipeline send/recv"}, {"embedding_sync", "Embedding sync"}},
};

namespace detail {
constexpr bool one_rule_per_dimension() {
    if (std::size(kCommRules) != std::size(kDimensions)) return false;
    for (const Dimension& d : kDimensions) {
        int rows = 0;
        for (const CommRule& r : kCommRules) rows += r.dim == d.id ? 1 : 0;
        if (rows != 1) return false;
    }
    return true;
}
}  // namespace detail
static_assert(detail::one_rule_per_dimension(), "every parallel dimension has exactly one row in kCommRules");

// Whether a collective's exposed time belongs to the step (after the pipeline drains) rather than to a microbatch's
// passes: every collective of a dimension that syncs gradients, and the tied embeddings' all-reduce over pp.
inline bool per_step(const CommEntry& e) {
    return dimension(e.dimension).syncs_gradients || (e.kind == CollectiveKind::AllReduce && e.dimension == Dim::Pp);
}

}  // namespace shardcalc
