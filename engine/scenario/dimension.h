#pragma once
// The parallel dimensions as one type each: its degree in a plan, whether it multiplies the world,
// whether its ranks hold identical weights (what ZeRO shards over), where its group members sit in the
// rank order, the frameworks that run it, and its name in reports. Communication, resolution, the
// report and the plan search read these rules here; a new dimension is one entry here and its communication rule's
// row (comm/dimension_rules.h), which also names its parts of the step's time.
#include <cstdint>
#include <vector>

#include "scenario/scenario.h"

namespace shardcalc {

enum class Dim {
    Tp,       // tensor (Megatron; Shoeybi et al. 2019)
    Cp,       // context, ring attention (Megatron; Liu et al. 2023)
    Ulysses,  // sequence via head all-to-all (DeepSpeed-Ulysses; Jacobs et al. 2023)
    Dp,       // data
    Pp,       // pipeline
    Zero3,    // the data-parallel group gathering ZeRO-3 / FSDP FULL_SHARD parameters (dp's ranks)
    Ep,       // expert: each rank holds experts / ep of a MoE layer's experts, tokens exchanged all-to-all
              // (GShard, Lepikhin et al. 2020; Megatron-Core MoE); folded into the non-pipeline ranks
    ExpertDp, // the ranks holding the same experts, which reduce (and ZeRO-shard) the experts' gradients
};

struct Dimension {
    Dim id;
    const char* name;             // in reports: "tp", "cp", "ulysses", "dp", "pp", "zero3"
    bool in_world;                // its degree multiplies the world size
    bool replicates_weights;      // its ranks hold the same weights: ZeRO and the distributed optimizer shard over it
    bool syncs_gradients;         // its collectives belong to the step (gradient sync, gathers), not to a microbatch
    // `etp`: the expert-tensor degree, which only the expert dimensions read.
    int64_t degree(const ParallelFields& p, int64_t etp) const;
    int64_t degree(const ResolvedParallel& p) const { return degree(p, p.etp); }
    // Rank distance between neighbouring members of one group, in Megatron's default order
    // (megatron/core/parallel_state.py "tp-cp-ep-dp-pp"; Ulysses sits beside cp).
    int64_t stride(const ParallelFields& p, int64_t etp) const;
    int64_t stride(const ResolvedParallel& p) const { return stride(p, p.etp); }
    bool run_by(Framework f) const;  // the framework implements it (what the plan search may use)
};

// Every dimension, in Dim order: a constant table (a search asks for one per collective it times).
inline constexpr Dimension kDimensions[] = {
    {Dim::Tp, "tp", true, false, false},     {Dim::Cp, "cp", true, true, false},   {Dim::Ulysses, "ulysses", true, true, false},
    {Dim::Dp, "dp", true, true, true},       {Dim::Pp, "pp", true, false, false},  {Dim::Zero3, "zero3", false, false, true},
    {Dim::Ep, "ep", false, false, false},    {Dim::ExpertDp, "edp", false, false, true},
};
inline const auto& dimensions() { return kDimensions; }
inline const Dimension& dimension(Dim d) { return kDimensions[static_cast<size_t>(d)]; }
const char* name_of_dim(Dim d);

int64_t world_size(const ParallelFields& p);      // product of the in-world degrees
int64_t replica_degree(const ParallelFields& p);  // product of the weight-replicating degrees
int64_t expert_tp(const ParallelSpec& p);         // etp as given: tp where unset (Megatron's default, as resolve() fills it)

}  // namespace shardcalc
