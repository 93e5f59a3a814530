#pragma once
// The parallel dimensions as one row each: its degree in a plan, whether it multiplies the world,
// whether its ranks hold identical weights (what ZeRO shards over), where its group members sit in the
// rank order, the frameworks that run it, and its name in reports. Communication, resolution, the
// report and the plan search read these rules here; a new dimension is its Dim, its row here and its communication
// rule's row (comm/dimension_rules.h), which also names its parts of the step's time.
#include <algorithm>
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

int64_t replica_degree(const ParallelFields& p);  // product of the weight-replicating degrees

// A parallel dimension and its rules, in one row. `etp`: the expert-tensor degree, which only the expert dimensions
// read.
struct Dimension {
    Dim id;
    const char* name;             // in reports: "tp", "cp", "ulysses", "dp", "pp", "zero3"
    bool in_world;                // its degree multiplies the world size
    bool replicates_weights;      // its ranks hold the same weights: ZeRO and the distributed optimizer shard over it
    bool syncs_gradients;         // its collectives belong to the step (gradient sync, gathers), not to a microbatch
    int64_t (*degree_of)(const ParallelFields& p, int64_t etp);
    // Rank distance between neighbouring members of one group, in Megatron's default order
    // (megatron/core/parallel_state.py "tp-cp-ep-dp-pp"; Ulysses sits beside cp).
    int64_t (*stride_of)(const ParallelFields& p, int64_t etp);
    bool (*run_by_framework)(Framework f);  // the framework implements it (what the plan search may use)

    int64_t degree(const ParallelFields& p, int64_t etp) const { return degree_of(p, etp); }
    int64_t degree(const ResolvedParallel& p) const { return degree(p, p.etp); }
    int64_t stride(const ParallelFields& p, int64_t etp) const { return stride_of(p, etp); }
    int64_t stride(const ResolvedParallel& p) const { return stride(p, p.etp); }
    bool run_by(Framework f) const { return run_by_framework(f); }
};

// Every dimension, in Dim order: a constant table (a search asks for one per collective it times).
inline constexpr Dimension kDimensions[] = {
    // Megatron-LM, Megatron-DeepSpeed, and PyTorch's DTensor tensor parallelism beside FSDP.
    {Dim::Tp, "tp", true, false, false, [](const ParallelFields& p, int64_t) { return p.tp; },
     [](const ParallelFields&, int64_t) -> int64_t { return 1; }, [](Framework f) { return f != Framework::Pytorch; }},
    {Dim::Cp, "cp", true, true, false, [](const ParallelFields& p, int64_t) { return p.cp; },
     [](const ParallelFields& p, int64_t) { return p.tp; }, [](Framework f) { return f == Framework::Megatron; }},
    {Dim::Ulysses, "ulysses", true, true, false, [](const ParallelFields& p, int64_t) { return p.ulysses; },
     [](const ParallelFields& p, int64_t) { return p.tp * p.cp; }, [](Framework f) { return f == Framework::DeepSpeed; }},
    // The gradient group spans cp, ulysses and dp: stride tp.
    {Dim::Dp, "dp", true, true, true, [](const ParallelFields& p, int64_t) { return p.dp; },
     [](const ParallelFields& p, int64_t) { return p.tp; }, [](Framework) { return true; }},
    {Dim::Pp, "pp", true, false, false, [](const ParallelFields& p, int64_t) { return p.pp; },
     [](const ParallelFields& p, int64_t) { return p.tp * p.cp * p.ulysses * p.dp; },
     [](Framework f) { return f == Framework::Megatron || f == Framework::DeepSpeed; }},
    // ZeRO-3 gathers over dp's ranks; Megatron-FSDP's optim_grads_params shards the parameters as ZeRO-3 does.
    {Dim::Zero3, "zero3", false, false, true, [](const ParallelFields& p, int64_t) { return replica_degree(p); },
     [](const ParallelFields& p, int64_t) { return p.tp; },
     [](Framework f) { return f == Framework::DeepSpeed || f == Framework::Fsdp || f == Framework::Megatron; }},
    // Expert ranks: expert-tensor ranks innermost, then expert-parallel, then expert-data-parallel. Megatron-Core MoE
    // and DeepSpeed-MoE (Rajbhandari et al. 2022) run expert parallelism.
    {Dim::Ep, "ep", false, false, false, [](const ParallelFields& p, int64_t) { return p.ep; },
     [](const ParallelFields&, int64_t etp) { return etp; },
     [](Framework f) { return f == Framework::Megatron || f == Framework::DeepSpeed; }},
    // Megatron's expert data-parallel size: the non-pipeline ranks over ep * etp (parallel_state.py "tp-cp-ep-dp-pp"
    // with expert_tensor_parallel_size; the MoE parallel folding of Liu et al. 2025).
    {Dim::ExpertDp, "edp", false, false, true,
     [](const ParallelFields& p, int64_t etp) { return std::max<int64_t>(1, replica_degree(p) * p.tp / (p.ep * etp)); },
     [](const ParallelFields& p, int64_t etp) { return etp * p.ep; }, [](Framework) { return true; }},
};
inline const auto& dimensions() { return kDimensions; }
inline const Dimension& dimension(Dim d) { return kDimensions[static_cast<size_t>(d)]; }
const char* name_of_dim(Dim d);

int64_t world_size(const ParallelFields& p);      // product of the in-world degrees
int64_t expert_tp(const ParallelSpec& p);         // etp as given: tp where unset (Megatron's default, as resolve() fills it)

}  // namespace shardcalc
