#include "scenario/dimension.h"

#include <algorithm>
#include <iterator>

namespace shardcalc {

namespace {
constexpr bool in_dim_order() {
    for (size_t i = 0; i < std::size(kDimensions); ++i)
        if (static_cast<size_t>(kDimensions[i].id) != i) return false;
    return true;
}
static_assert(in_dim_order(), "kDimensions is indexed by Dim");
}  // namespace

const char* name_of_dim(Dim d) { return dimension(d).name; }

int64_t Dimension::degree(const ParallelFields& p, int64_t etp) const {
    switch (id) {
        case Dim::Tp: return p.tp;
        case Dim::Cp: return p.cp;
        case Dim::Ulysses: return p.ulysses;
        case Dim::Dp: return p.dp;
        case Dim::Pp: return p.pp;
        case Dim::Zero3: return replica_degree(p);
        case Dim::Ep: return p.ep;
        // Megatron's expert data-parallel size: the non-pipeline ranks over ep * etp (parallel_state.py
        // "tp-cp-ep-dp-pp" with expert_tensor_parallel_size; the MoE parallel folding of Liu et al. 2025).
        case Dim::ExpertDp: return std::max<int64_t>(1, replica_degree(p) * p.tp / (p.ep * etp));
    }
    return 1;
}

int64_t Dimension::stride(const ParallelFields& p, int64_t etp) const {
    switch (id) {
        case Dim::Tp: return 1;
        case Dim::Cp: return p.tp;
        case Dim::Ulysses: return p.tp * p.cp;
        case Dim::Dp:
        case Dim::Zero3: return p.tp;  // the gradient group spans cp, ulysses and dp: stride tp
        case Dim::Pp: return p.tp * p.cp * p.ulysses * p.dp;
        // Expert ranks: expert-tensor ranks innermost, then expert-parallel, then expert-data-parallel.
        case Dim::Ep: return etp;
        case Dim::ExpertDp: return etp * p.ep;
    }
    return 1;
}

bool Dimension::run_by(Framework f) const {
    switch (id) {
        // Megatron-LM, Megatron-DeepSpeed, and PyTorch's DTensor tensor parallelism beside FSDP.
        case Dim::Tp: return f != Framework::Pytorch;
        case Dim::Cp: return f == Framework::Megatron;
        case Dim::Ulysses: return f == Framework::DeepSpeed;
        case Dim::Dp: return true;
        case Dim::Pp: return f == Framework::Megatron || f == Framework::DeepSpeed;
        // Megatron-FSDP's optim_grads_params shards the parameters as ZeRO-3 does.
        case Dim::Zero3: return f == Framework::DeepSpeed || f == Framework::Fsdp || f == Framework::Megatron;
        // Megatron-Core MoE and DeepSpeed-MoE (Rajbhandari et al. 2022) run expert parallelism.
        case Dim::Ep: return f == Framework::Megatron || f == Framework::DeepSpeed;
        case Dim::ExpertDp: return true;
    }
    return false;
}

// Neither the in-world nor the weight-replicating dimensions are expert ones: no etp is read.
int64_t world_size(const ParallelFields& p) {
    int64_t n = 1;
    for (const Dimension& d : dimensions())
        if (d.in_world) n *= d.degree(p, 1);
    return n;
}

int64_t expert_tp(const ParallelSpec& p) { return p.etp.value_or(p.tp); }

int64_t replica_degree(const ParallelFields& p) {
    int64_t n = 1;
    for (const Dimension& d : dimensions())
        if (d.replicates_weights) n *= d.degree(p, 1);
    return n;
}

}  // namespace shardcalc
